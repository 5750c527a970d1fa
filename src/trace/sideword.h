// SPDX-License-Identifier: MIT
/*
 * sideword.h - a name (a file path, an ELF symbol) as one column of a
 * side file whose columns are split on blanks: the "probes" table
 * (doc/trace-format.md, version 3). A path may hold spaces, tabs, newlines
 * and backslashes; they are written as a backslash and three octal digits
 * ("\040" for a space), as /proc/self/mountinfo writes mount points, so
 * the word never holds a blank and reads back to the same bytes.
 */
#ifndef SPOOL_TRACE_SIDEWORD_H
#define SPOOL_TRACE_SIDEWORD_H

#include <stddef.h>
#include <stdio.h>

/* Write S to F as one word: every byte up to ' ', DEL and '\\' as \ooo; an
 * empty S as "\000" (a column is never empty). */
void sideword_write(FILE *f, const char *s);

/* Undo sideword_write in place (S is NUL-terminated, read from a trace:
 * a backslash not followed by three octal digits of a byte stays as it
 * is; \000 ends the string). Returns S. */
char *sideword_unescape(char *s);

#endif
