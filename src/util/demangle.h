// SPDX-License-Identifier: MIT
/*
 * demangle.h - C++ symbol names as a user writes them.
 *
 * Reports show demangled names ("Bank::transfer(int, int, long)") and globs
 * (probe specs) match a symbol by its mangled name, its demangled name, and
 * its demangled name without the parameter list ("Bank::transfer"), so
 * `func:transfer`, `func:'Bank::transfer*'` and `func:_Z8transferiil` all
 * work. The demangler is libstdc++'s __cxa_demangle (the Itanium C++ ABI
 * that g++ and clang emit, maintained with GCC), not one of our own.
 */
#ifndef SPOOL_UTIL_DEMANGLE_H
#define SPOOL_UTIL_DEMANGLE_H

#include <stddef.h>

/* Demangle name into buf (truncated to len). Returns 1 when name was a C++
 * name and buf holds its demangled form; 0 when it is not mangled (buf then
 * holds name unchanged). */
int demangle_name(const char *name, char *buf, size_t len);

/* Demangled name without its parameter list and qualifiers, and without
 * the ABI tags before them: "ns::f<int>(int) const" -> "ns::f<int>",
 * "ns::name[abi:cxx11]() const" -> "ns::name". In place. */
void demangle_strip_params(char *demangled);

/* fnmatch(pattern) against the mangled name, the demangled name and the
 * demangled name without parameters: 1 when one matches. */
int demangle_match(const char *pattern, const char *name);

/* The first ':' of s that is not part of a C++ "::" (the separator of
 * probe specs, "LIB:GLOB"), or NULL. */
const char *demangle_colon(const char *s);

#endif
