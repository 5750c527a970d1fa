// SPDX-License-Identifier: MIT
/*
 * multi_lib.c - the second unit of the two-unit test program: its own
 * translation table, linked with multi_main.c's into one binary.
 */
#include "multi.h"

long multi_push(long *stack, int *n, long v)
{
	SPOOL_TRACE(EV_PUSH, *n, v);
	stack[(*n)++] = v;
	SPOOL_TRACE(EV_PUSH, *n, 0);
	return multi_mix(v, *n);
}

long multi_pop(long *stack, int *n)
{
	long v;

	if (!*n) {
		SPOOL_TRACE(EV_POP, -1, 0);
		return 0;
	}
	v = stack[--(*n)];
	SPOOL_TRACE(EV_POP, *n, v);
	SPOOL_TRACE(EV_POP, *n, v + 1);
	return v;
}
