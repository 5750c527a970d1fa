// SPDX-License-Identifier: MIT
/*
 * demangle.c - C++ demangling for reports and globs (see demangle.h).
 *
 * Why libstdc++'s __cxa_demangle: it is the reference implementation of the
 * Itanium C++ ABI mangling g++ and clang use, maintained with the compiler,
 * and libstdc++ is on every system that runs C++ programs. libiberty's
 * cplus_demangle (the same code) exists only as a static archive in Debian
 * (libiberty-dev) and adds a build dependency for nothing more.
 */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demangle.h"

/* libstdc++ (cxxabi.h is a C++ header): output buffer NULL -> malloc'd. */
extern char *__cxa_demangle(const char *mangled, char *out, size_t *len, int *status);

int demangle_name(const char *name, char *buf, size_t len)
{
	char *d;
	int status = -1;

	if (!len)
		return 0;
	/* Only _Z names: __cxa_demangle would read "i" as the type int. */
	if (name[0] != '_' || name[1] != 'Z') {
		snprintf(buf, len, "%s", name);
		return 0;
	}
	d = __cxa_demangle(name, NULL, NULL, &status);
	if (!d || status) {
		free(d);
		snprintf(buf, len, "%s", name);
		return 0;
	}
	snprintf(buf, len, "%s", d);
	free(d);
	return 1;
}

/* Drop the ABI tags at the end of a name ("summary[abi:cxx11]": g++ tags a
 * function returning a std::string so): nobody writes them, and a spec's
 * ':' and a glob's '[' would take them apart. */
static void demangle_strip_abi(char *s)
{
	size_t n = strlen(s);

	while (n > 0 && s[n - 1] == ']') {
		char *t = NULL;

		for (size_t i = n - 1; i > 0; i--)
			if (s[i - 1] == '[') {
				t = s + i - 1;
				break;
			}
		if (!t || strncmp(t, "[abi:", 5) || t == s)
			return;
		*t = 0;
		n = (size_t)(t - s);
	}
}

void demangle_strip_params(char *s)
{
	size_t n = strlen(s);
	int depth = 0;

	/* The parameter list is the last top-level "(...)" (a name like
	 * "(anonymous namespace)::f(int)" has an earlier one); a function
	 * returning a function pointer is rare enough to be left whole. */
	while (n > 0) {
		char c = s[--n];

		if (c == ')')
			depth++;
		else if (c == '(' && --depth == 0) {
			if (n > 0 && s[n - 1] != ':') {
				s[n] = 0;
				demangle_strip_abi(s);
				return;
			}
			return;
		} else if (c == '>' || c == '<' || c == ']')
			if (!depth)
				return;
	}
}

int demangle_match(const char *pattern, const char *name)
{
	char d[1024];

	if (!fnmatch(pattern, name, 0))
		return 1;
	if (!demangle_name(name, d, sizeof(d)))
		return 0;
	if (!fnmatch(pattern, d, 0))
		return 1;
	demangle_strip_params(d);
	return !fnmatch(pattern, d, 0);
}

const char *demangle_colon(const char *s)
{
	for (const char *p = s; *p; p++) {
		if (*p != ':')
			continue;
		if (p[1] == ':') {
			p++;
			continue;
		}
		return p;
	}
	return NULL;
}
