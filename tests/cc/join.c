// SPDX-License-Identifier: MIT
/*
 * join.c - trace calls where the branches of an if meet, for spool cc's
 * hoisting and moving rounds (tests/integ/86-cc-rounds.t): the call after
 * each if/else moves up into both arms and merges with the arm's own call;
 * nested joins need one round each. Values come through phis (-O2) or
 * stack slots (-O0), both of which hoisting must carry. Usage: join ROUNDS.
 * Deterministic.
 */
#include <stdlib.h>

#include <spool/trace.h>

enum { EV_ODD = 21, EV_EVEN = 22, EV_JOIN = 23, EV_SMALL = 24, EV_BIG = 25, EV_JOIN2 = 26,
       EV_SUM = 27, EV_ONE = 28, EV_TWO = 29, EV_ZERO = 30, EV_JOIN3 = 31 };
SPOOL_TRACE_EVENT(EV_JOIN, "join", "x,y");

static __attribute__((noinline)) long step(long x, long y)
{
	if (x & 1) {
		SPOOL_TRACE(EV_ODD, x);
		y += 3;
	} else {
		SPOOL_TRACE(EV_EVEN, y);
		y *= 2;
	}
	SPOOL_TRACE(EV_JOIN, x, y);
	if (y > 100) {
		SPOOL_TRACE(EV_BIG, y - 100);
		y -= 90;
	} else {
		SPOOL_TRACE(EV_SMALL, y, 7);
	}
	SPOOL_TRACE(EV_JOIN2, y);
	if (x % 3) {
		if (x % 3 == 1)
			SPOOL_TRACE(EV_ONE, x);
		else
			SPOOL_TRACE(EV_TWO, y);
	} else {
		SPOOL_TRACE(EV_ZERO, x, y);
	}
	/* Up into the outer arms in one round, into the inner ones in the next
	 * (-O0 keeps the inner join as a block of its own). */
	SPOOL_TRACE(EV_JOIN3, x + y);
	return y;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100, s = 0;

	for (long i = 0; i < n; i++)
		s = step(i, s & 255);
	SPOOL_TRACE(EV_SUM, s);
	return 0;
}
