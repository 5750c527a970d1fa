// SPDX-License-Identifier: MIT
/*
 * multi.h - the shared part of the two-unit test program (multi_main.c,
 * multi_lib.c): event ids and an inline function with trace calls, so both
 * units inline the same calls into their own tables.
 */
#ifndef SPOOL_TESTS_CC_MULTI_H
#define SPOOL_TESTS_CC_MULTI_H

#include <spool/trace.h>

enum { EV_MSTART = 40, EV_PUSH = 41, EV_POP = 42, EV_CHECK = 43, EV_MEND = 44 };

static inline long multi_mix(long a, long b)
{
	SPOOL_TRACE(EV_CHECK, a, b, 0);
	SPOOL_TRACE(EV_CHECK, b, a, 1);
	return a * 31 + b;
}

long multi_push(long *stack, int *n, long v);
long multi_pop(long *stack, int *n);

#endif
