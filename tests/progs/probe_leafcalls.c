// SPDX-License-Identifier: MIT
/*
 * probe_leafcalls.c - target of tests/integ/191-probe-calltree.t: a loop
 * calling small leaves from one caller, so every call of a leaf has the
 * same stack pointer. twice() is two instructions at -O2 (`lea eax,
 * [rdi+rdi]; ret`: its entry and exit probes share one trampoline);
 * square() is longer (its exit probe is its own). The program prints how
 * often it called each, and the sum.
 *
 * usage: probe_leafcalls [N]   (N calls of each, default 1000)
 */
#include <stdio.h>
#include <stdlib.h>

static volatile int g_in = 3;

__attribute__((noinline)) int twice(int x)
{
	return x + x;
}

__attribute__((noinline)) long square(long x)
{
	long r = x * x;

	if (r > 1000000)
		r %= 1000003;
	return r + g_in;
}

__attribute__((noinline)) long loop(int n)
{
	long s = 0;

	for (int i = 0; i < n; i++) {
		s += twice(i);
		s += square(i);
	}
	return s;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000;
	long s = loop(n);

	printf("twice %d\nsquare %d\nsum %ld\n", n, n, s);
	return 0;
}
