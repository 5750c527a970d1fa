// SPDX-License-Identifier: MIT
/*
 * untimed.c - which records spool cc makes untimed (doc/cc.md, "Untimed
 * records"; tests/integ/91-cc-untimed.t). step() has four trace calls, each
 * in its own group: EV_FIRST starts the block (timed); EV_AFTER_BARRIER, a
 * lone call with a new value behind a barrier, follows it through
 * straight-line code (untimed: a one-call merged event, for its t<c>);
 * EV_AFTER_COPY follows a memmove of a size known only at run time (timed:
 * it may take long); EV_AFTER_CALL follows a call of another function (timed).
 * Usage: untimed [ROUNDS]; prints the sum it computed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <spool/trace.h>

enum { EV_FIRST = 10, EV_AFTER_BARRIER, EV_AFTER_COPY, EV_AFTER_CALL };

static long buf[64];

static __attribute__((noinline)) long work(long x)
{
	long s = 0;

	for (long i = 0; i < (x & 7) + 1; i++)
		s += buf[i] ^ i;
	return s;
}

static __attribute__((noinline)) long step(long v, long n)
{
	long w;

	SPOOL_TRACE(EV_FIRST, v);
	SPOOL_TRACE_BARRIER();
	SPOOL_TRACE(EV_AFTER_BARRIER, n);
	SPOOL_TRACE_BARRIER();
	memmove(buf, buf + (n & 31), (size_t)(n & 31) * sizeof(*buf));
	SPOOL_TRACE(EV_AFTER_COPY, buf[0]);
	w = work(v + n);
	SPOOL_TRACE(EV_AFTER_CALL, w);
	return w;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 100;
	long sum = 0;

	for (int i = 0; i < 64; i++)
		buf[i] = i * 7 + 1;
	for (long r = 0; r < rounds; r++)
		sum += step(r, r * 5 + 3);
	printf("%ld\n", sum);
	return 0;
}
