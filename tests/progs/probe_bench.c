// SPDX-License-Identifier: MIT
/*
 * probe_bench.c - bench/probe.sh's target: a tight loop of calls to a small
 * function (probe_small, a jump probe) or to a 3-byte one (probe_tiny3, an
 * int3 probe), timed by the program itself.
 *
 *   probe_bench small|tiny N   -> prints "ns_per_call X"
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

int main(int argc, char **argv)
{
	struct timespec a, b;
	long n = argc > 2 ? atol(argv[2]) : 1000000;
	int tiny = argc > 1 && !strcmp(argv[1], "tiny");

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++)
		sink += tiny ? probe_tiny3() : probe_small(i);
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("ns_per_call %.2f\n",
	       ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / (double)n);
	return 0;
}
