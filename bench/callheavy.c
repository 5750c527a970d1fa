// SPDX-License-Identifier: MIT
/*
 * callheavy.c - bench/probe.sh's call-heavy program, built there with the
 * compiler's defaults and -O2: small functions called in a loop, whose
 * rets GCC leaves without a 5-byte window (a ret that an early return's
 * branch targets, code right after it), so that spool hooks their exits
 * through the return address (--exits patch: int3), against uftrace's
 * dynamic patching (-P) of the same functions.
 *
 *   callheavy N [BATCH] -> "calls C" (calls of the ch_* functions),
 *                    "loop_ns T" (the loop's wall clock, timed by the
 *                    program itself: with probes, the collector drains the
 *                    ring meanwhile), and with BATCH, "batch_ns_per_call B":
 *                    the best of 20 rounds of BATCH iterations, each after
 *                    a 30 ms pause in which the collector empties the ring
 *                    (the probes' own cost, as tests/progs/probe_bench.c)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

struct ch_obj {
	int kind, refs;
	struct ch_obj *next;
	long val;
};

__attribute__((noinline)) void ch_release(struct ch_obj *o)
{
	if (!o)
		return;
	if (--o->refs)
		return;
	o->kind = 0;
}

__attribute__((noinline)) long ch_scan(const long *v, size_t n)
{
	long best = 0;

	for (size_t i = 0; i < n; i++) {
		if (v[i] < 0)
			return best;
		if (v[i] > best)
			best = v[i];
	}
	return best;
}

__attribute__((noinline)) int ch_pick(struct ch_obj *o)
{
	if (o->kind) {
		if (o->refs)
			return 1;
		o->val++;
		return 2;
	}
	return 0;
}

__attribute__((noinline)) void ch_bump(struct ch_obj *o, int n)
{
	while (n--) {
		if (!o)
			return;
		o->refs++;
		o = o->next;
	}
}

static long ch_round(long n, struct ch_obj *o)
{
	static const long v[8] = {3, 9, 4, 1, -1, 8, 2, 7};
	long s = 0;

	for (long i = 0; i < n; i++) {
		o[i & 3].refs = 2;
		ch_release(&o[i & 3]);
		s += ch_scan(v, 8 - (i & 1));
		s += ch_pick(&o[i & 3]);
		ch_bump(&o[0], 3);
	}
	return s;
}

static long long ch_ns(const struct timespec *a, const struct timespec *b)
{
	return (long long)(b->tv_sec - a->tv_sec) * 1000000000ll + (b->tv_nsec - a->tv_nsec);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000, s = 0;
	long batch = argc > 2 ? atol(argv[2]) : 0;
	long v[8] = {3, 9, 4, 1, -1, 8, 2, 7};
	struct ch_obj o[4];
	struct timespec t0, t1;

	for (int i = 0; i < 4; i++) {
		o[i].kind = i & 1;
		o[i].refs = 0;
		o[i].val = 0;
		o[i].next = &o[(i + 1) & 3];
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long i = 0; i < n; i++) {
		o[i & 3].refs = 2;
		ch_release(&o[i & 3]);
		s += ch_scan(v, 8 - (i & 1));
		s += ch_pick(&o[i & 3]);
		ch_bump(&o[0], 3);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("calls %ld\nsum %ld\nloop_ns %lld\n", 4 * n, s + o[0].refs, ch_ns(&t0, &t1));
	if (batch > 0) {
		struct timespec pause = {0, 30000000};
		long long best = -1;

		for (int r = 0; r < 20; r++) {
			nanosleep(&pause, NULL);
			clock_gettime(CLOCK_MONOTONIC, &t0);
			s += ch_round(batch, o);
			clock_gettime(CLOCK_MONOTONIC, &t1);
			if (best < 0 || ch_ns(&t0, &t1) < best)
				best = ch_ns(&t0, &t1);
		}
		printf("batch_ns_per_call %.2f\n", (double)best / (4.0 * batch));
	}
	return 0;
}
