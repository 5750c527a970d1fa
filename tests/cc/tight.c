// SPDX-License-Identifier: MIT
/*
 * tight.c - the in-process timing workload of bench/cc.sh: bank.c's
 * transfer (four trace calls, a barrier) in a loop timed with
 * clock_gettime around the loop only, so start-up, the collector's start
 * and the trace's writing out are not in the figure. A first, untimed run
 * of WARM rounds touches the ring's pages (run with a ring small enough to
 * wrap during it), so the figure is the steady cost of a trace call, not
 * the kernel's first-touch page faults; then a pause lets the collector
 * empty the ring, so the timed loop never waits for room or loses events. Prints "ns NANOSECONDS events
 * EVENTS" (of the timed loop) on stdout. Usage: tight [ROUNDS [WARM]].
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <spool/trace.h>

enum { EV_BEGIN = 2, EV_DEBIT = 3, EV_CREDIT = 4, EV_END = 5 };

struct account {
	long id;
	long balance;
};

static struct account accounts[8];

static void transfer(struct account *a, struct account *b, long x)
{
	SPOOL_TRACE(EV_BEGIN, a->id, b->id, x);
	a->balance -= x;
	SPOOL_TRACE(EV_DEBIT, a->id, a->balance * 100 + x);
	b->balance += x;
	SPOOL_TRACE(EV_CREDIT, b->id, b->balance);
	SPOOL_TRACE_BARRIER();
	SPOOL_TRACE(EV_END, a->id, b->id);
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 100000;
	long warm = argc > 2 ? atol(argv[2]) : rounds / 4;
	struct timespec t0, t1;

	for (int i = 0; i < 8; i++) {
		accounts[i].id = 100 + i;
		accounts[i].balance = 1000000;
	}
	for (long r = -warm; r < rounds; r++) {
		if (r == 0) {
			struct timespec pause = {0, 500 * 1000 * 1000};

			nanosleep(&pause, NULL);
			clock_gettime(CLOCK_MONOTONIC, &t0);
		}
		transfer(&accounts[r & 7], &accounts[((r & 7) * 3 + 1) & 7], r & 511);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("ns %lld events %ld\n",
	       (long long)(t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec),
	       rounds * 4);
	return 0;
}
