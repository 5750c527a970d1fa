// SPDX-License-Identifier: MIT
/*
 * marks.c - the markers of spool/trace.h for the spool cc tests: an
 * idempotent event traced three times in a row with the same value (its
 * repeats share one table entry, the decoder writes all three), a move
 * limit (SPOOL_TRACE_MOVE) that must split a run of trace calls, an event
 * the build switches off (-DSPOOL_TRACE_OFF_EV_DEBUG: no call, arguments not
 * evaluated, in the plain build as in the spool cc one), and an id written
 * as a plain number. Usage: marks [N]; deterministic.
 */
#include <stdio.h>
#include <stdlib.h>

#include <spool/trace.h>

enum { EV_TICK = 40, EV_STEP = 41, EV_NEAR = 42, EV_DEBUG = 43, EV_DONE = 44 };
SPOOL_TRACE_EVENT(EV_TICK, "tick", "state");
SPOOL_TRACE_EVENT(EV_STEP, "step", "i,v");
SPOOL_TRACE_EVENT(EV_NEAR, "near", "i");
SPOOL_TRACE_EVENT(EV_DEBUG, "debug", "n");
SPOOL_TRACE_IDEMPOTENT(EV_TICK);

static long evaluated; /* how often a switched-off call's argument ran */

long count(long v); /* not static: a function used only in a switched-off call is unneeded */
long count(long v)
{
	evaluated++;
	return v;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100;
	long v = 1;

	for (int i = 0; i < n; i++) {
		long state = i / 4;

		v = v * 5 + i;
		SPOOL_TRACE(EV_TICK, state);
		SPOOL_TRACE(EV_TICK, state);
		SPOOL_TRACE(EV_TICK, state);
		SPOOL_TRACE(EV_DEBUG, count(i));
		SPOOL_TRACE(EV_STEP, i, v);
		SPOOL_TRACE_MOVE(1, EV_NEAR, i);
		SPOOL_TRACE(EV_STEP, i, v + 1);
		SPOOL_TRACE(EV_STEP, i, v + 2);
		SPOOL_TRACE(EV_STEP, i, v + 3);
		SPOOL_TRACE(45, i);
	}
	SPOOL_TRACE(EV_DONE, evaluated);
	printf("evaluated %ld\n", evaluated);
	return 0;
}
