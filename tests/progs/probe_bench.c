// SPDX-License-Identifier: MIT
/*
 * probe_bench.c - bench/probe.sh's target: a tight loop of calls to a small
 * function (probe_small, a jump probe) or to a 3-byte one (probe_tiny3, an
 * int3 probe), timed by the program itself with clock_gettime.
 *
 *   probe_bench small|tiny|tsc N [BATCH]   -> "ns_per_call X" ... "batch_ns_per_call Y"
 *
 * tsc: no call, one read of the time-stamp counter (rdtsc) per iteration,
 * as every recorded hit makes one: the floor under the cost of a hit on
 * this machine (bench/probe.sh).
 *
 * Two figures, because on this VM the cost of a hit depends on who else
 * touches the ring:
 *  - ns_per_call: N calls in one go. With probes, the collector drains the
 *    ring on the other core meanwhile ("sustained"); cpu_ns_per_call is the
 *    same loop in the thread's CPU time, without the time it was preempted.
 *  - batch_ns_per_call (BATCH > 0): the best of rounds of BATCH calls, each
 *    after a 30 ms pause in which the collector empties the ring and goes
 *    back to sleep. With BATCH records under the ring's watermark, nothing
 *    but the probed thread touches the ring during a round: the cost of the
 *    probe itself ("isolated").
 * A warm-up of N calls first registers the thread and touches every page
 * of the ring once (a first write to a page is a VM exit here: ~5 us).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <x86intrin.h>

__asm__(".text\n"
	".globl probe_tiny3\n"
	".type probe_tiny3, @function\n"
	"probe_tiny3:\n"
	"\txorl %eax, %eax\n"
	"\tret\n"
	".size probe_tiny3, .-probe_tiny3\n");
int probe_tiny3(void);

static volatile long sink;

__attribute__((noinline)) long probe_small(long x)
{
	sink += x;
	return x + 1;
}

static double bench_now(clockid_t clk)
{
	struct timespec t;

	clock_gettime(clk, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

/* Wall time of n calls (mode 0 small, 1 tiny, 2 tsc: n reads of the TSC);
 * *cpu gets the thread's CPU time for them. */
static double bench_loop(int mode, long n, double *cpu)
{
	double a = bench_now(CLOCK_MONOTONIC), c = bench_now(CLOCK_THREAD_CPUTIME_ID);

	for (long i = 0; i < n; i++)
		sink += mode == 2 ? (long)__rdtsc() : mode ? probe_tiny3() : probe_small(i);
	*cpu = bench_now(CLOCK_THREAD_CPUTIME_ID) - c;
	return bench_now(CLOCK_MONOTONIC) - a;
}

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 1000000;
	long batch = argc > 3 ? atol(argv[3]) : 0;
	const char *what = argc > 1 ? argv[1] : "small";
	int mode = !strcmp(what, "tiny") ? 1 : !strcmp(what, "tsc") ? 2 : 0;
	struct timespec pause = {0, 30 * 1000 * 1000};
	double best = 0, cpu, wall;

	if (n < 1)
		n = 1;
	bench_loop(mode, n, &cpu);
	wall = bench_loop(mode, n, &cpu);
	printf("ns_per_call %.2f\n", wall / (double)n);
	printf("cpu_ns_per_call %.2f\n", cpu / (double)n);
	for (int r = 0; batch > 0 && r < 30; r++) {
		double t;

		nanosleep(&pause, NULL);
		t = bench_loop(mode, batch, &cpu) / (double)batch;
		if (!r || t < best)
			best = t;
	}
	if (batch > 0)
		printf("batch_ns_per_call %.2f\n", best);
	return 0;
}
