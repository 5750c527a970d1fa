// SPDX-License-Identifier: MIT
/*
 * bank.c - a program with many trace calls (include/spool/trace.h) for the
 * spool cc / spool decode tests: straight-line runs of calls (merged by the
 * optimizer), constant and repeated arguments, loops, branches, a barrier,
 * calls inlined at -O2, early returns, and a call that does not return.
 *
 * Built both plainly and with spool cc; usage: bank [ROUNDS]. The decoded
 * trace of the spool cc build must equal the plain build's event for event.
 * Deterministic: every traced value follows from ROUNDS.
 */
#include <stdio.h>
#include <stdlib.h>

#include <spool/trace.h>

enum {
	EV_START = 1,
	EV_BEGIN = 2,
	EV_DEBIT = 3,
	EV_CREDIT = 4,
	EV_END = 5,
	EV_REFUSED = 6,
	EV_AUDIT = 7,
	EV_WIDE = 8,
	EV_BYE = 9,
};
SPOOL_TRACE_EVENT(EV_START, "start", "rounds");
SPOOL_TRACE_EVENT(EV_BEGIN, "transfer_begin", "from,to,amount");
SPOOL_TRACE_EVENT(EV_DEBIT, "debit", "account,balance");
SPOOL_TRACE_EVENT(EV_CREDIT, "credit", "account,balance");
SPOOL_TRACE_EVENT(EV_END, "transfer_end", "from,to");
SPOOL_TRACE_EVENT(EV_REFUSED, "refused", "from,amount,kind");
SPOOL_TRACE_EVENT(EV_AUDIT, "audit", "i,sum");
SPOOL_TRACE_EVENT(EV_WIDE, "wide", "a,b,c,d,e,f");
SPOOL_TRACE_EVENT(EV_BYE, "bye", "");

struct account {
	long id;
	long balance;
};

static struct account accounts[8];

static int transfer(struct account *a, struct account *b, long x)
{
	SPOOL_TRACE(EV_BEGIN, a->id, b->id, x);
	if (a->balance < x) {
		SPOOL_TRACE(EV_REFUSED, a->id, x, 1);
		return -1; /* early return */
	}
	a->balance -= x;
	SPOOL_TRACE(EV_DEBIT, a->id, a->balance * 100 + x);
	b->balance += x;
	SPOOL_TRACE(EV_CREDIT, b->id, b->balance);
	SPOOL_TRACE_BARRIER();
	SPOOL_TRACE(EV_END, a->id, b->id);
	return 0;
}

static __attribute__((noinline)) long audit(int n)
{
	long sum = 0;

	for (int i = 0; i < n; i++) {
		sum += accounts[i].balance;
		SPOOL_TRACE(EV_AUDIT, i, sum);
	}
	SPOOL_TRACE(EV_WIDE, sum, sum, 7, -1, n, sum ^ n);
	return sum;
}

static __attribute__((noreturn, noinline)) void leave(long sum)
{
	SPOOL_TRACE(EV_BYE);
	printf("sum %ld\n", sum);
	exit(0);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 100;
	long sum = 0;

	SPOOL_TRACE(EV_START, rounds);
	for (int i = 0; i < 8; i++) {
		accounts[i].id = 100 + i;
		accounts[i].balance = 1000;
	}
	for (int r = 0; r < rounds; r++) {
		struct account *a = &accounts[r % 8], *b = &accounts[(r * 3 + 1) % 8];

		if (a == b)
			continue;
		transfer(a, b, (r * 37) % 500);
		if (r % 16 == 0)
			sum += audit(8);
	}
	SPOOL_TRACE(EV_START, -rounds);
	SPOOL_TRACE(EV_START, 0);
	leave(sum);
}
