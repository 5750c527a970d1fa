// SPDX-License-Identifier: MIT
/*
 * profile.c - a program whose hot path depends on its arguments, for spool cc
 * --profile (tests/integ/85-cc-profile.t): the inner loop's trace calls sit
 * one loop deeper than the outer loop's, so the static estimate (loop depth)
 * takes them for the hot ones; a run with INNER 0 never reaches them, and a
 * profile of that run makes the outer calls the hot ones.
 *
 * Usage: profile OUTER INNER. Deterministic: every traced value follows from
 * the arguments.
 */
#include <stdlib.h>

#include <spool/trace.h>

enum { EV_OUTER = 11, EV_OUTER2 = 12, EV_INNER = 13, EV_INNER2 = 14, EV_DONE = 15 };
SPOOL_TRACE_EVENT(EV_OUTER, "outer", "round,one");
SPOOL_TRACE_EVENT(EV_OUTER2, "outer2", "round,two");
SPOOL_TRACE_EVENT(EV_INNER, "inner", "round,j,three");
SPOOL_TRACE_EVENT(EV_INNER2, "inner2", "j,four");
SPOOL_TRACE_EVENT(EV_DONE, "done", "outer,inner");

int main(int argc, char **argv)
{
	long outer = argc > 1 ? atol(argv[1]) : 10, inner = argc > 2 ? atol(argv[2]) : 10;

	for (long r = 0; r < outer; r++) {
		SPOOL_TRACE(EV_OUTER, r, 1);
		SPOOL_TRACE(EV_OUTER2, r * 3, 2);
		for (long j = 0; j < inner; j++) {
			SPOOL_TRACE(EV_INNER, r, j, 3);
			SPOOL_TRACE(EV_INNER2, j, 4);
		}
	}
	SPOOL_TRACE(EV_DONE, outer, inner);
	SPOOL_TRACE(EV_DONE, 0, 0);
	return 0;
}
