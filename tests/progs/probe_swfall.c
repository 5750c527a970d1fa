// SPDX-License-Identifier: MIT
/*
 * probe_swfall.c - target of tests/arm64/quick/261-a64-probe-blocks.t: a
 * dense switch of 18 cases, several reached both through the jump table
 * and by falling through from the case before (GCC for aarch64 at -O2
 * compiles it to a table of byte offsets: ldrb, adr, add ... sxtb #2, br).
 * Each case is its own line and calls hit(k); the program prints how often
 * each case's line ran ("K COUNT"), which the block probes' count of that
 * line must equal: a case label reached only through the table must start
 * a block, or a fall-through case would be counted with the case before.
 *
 * usage: probe_swfall [N]   N rounds over a fixed pseudo-random sequence
 */
#include <stdio.h>
#include <stdlib.h>

static unsigned long n_case[18];

__attribute__((noinline)) static void hit(int k)
{
	n_case[k]++;
}

/* clang-format off */
__attribute__((noinline)) static int sw(unsigned x)
{
	int r = 0;

	switch (x) {
	case 0: hit(0); r += 1; /* fall through */
	case 1: hit(1); r += 2; break;
	case 2: hit(2); r += 3; /* fall through */
	case 3: hit(3); r += 5; break;
	case 4: hit(4); break;
	case 5: hit(5); /* fall through */
	case 6: hit(6); break;
	case 7: hit(7); break;
	case 8: hit(8); break;
	case 9: hit(9); /* fall through */
	case 10: hit(10); break;
	case 11: hit(11); break;
	case 12: hit(12); break;
	case 13: hit(13); break;
	case 14: hit(14); break;
	case 15: hit(15); break;
	case 16: hit(16); /* fall through */
	case 17: hit(17); break;
	default: r = -1;
	}
	return r;
}
/* clang-format on */

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100;
	unsigned v = 7;
	long s = 0;

	for (int i = 0; i < n; i++) {
		v = v * 1103515245u + 12345u;
		s += sw((v >> 8) % 20);
	}
	for (int k = 0; k < 18; k++)
		printf("%d %lu\n", k, n_case[k]);
	printf("sum %ld\n", s);
	return 0;
}
