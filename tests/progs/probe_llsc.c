// SPDX-License-Identifier: MIT
/*
 * probe_llsc.c - target of tests/arm64/quick/261-a64-probe-blocks.t: a
 * compare-and-swap that aarch64 gcc -march=armv8-a -mno-outline-atomics
 * compiles to a load-exclusive/store-exclusive loop (ldaxr; cmp; b.ne;
 * stlxr; cbnz). No probe may go between the ldaxr and the stlxr (its
 * trampoline's stores would clear the exclusive monitor on a real core and
 * the stlxr would fail forever): spool counts the loop's blocks at other
 * words and says why the b.ne is not counted. Every other call's CAS
 * succeeds; the program prints how many did and the final value.
 *
 * usage: probe_llsc [N]
 */
#include <stdio.h>
#include <stdlib.h>

static long g_v;

__attribute__((noipa)) int llsc_cas(long *p, long old, long nw)
{
	return __atomic_compare_exchange_n(p, &old, nw, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100, ok = 0;

	for (int i = 0; i < n; i++)
		ok += llsc_cas(&g_v, (i & 1) ? g_v : g_v + 1, g_v + 2);
	printf("ok %d v %ld\n", ok, g_v);
	return 0;
}
