// SPDX-License-Identifier: MIT
/*
 * probe_switch.c - a target for block probes on switch statements
 * (tests/integ/74-probe-blocks.t): at -O2 GCC compiles dense switches to
 * jump tables (PIC: a table of 32-bit offsets, `movsxd; add; jmp reg`;
 * -no-pie: `jmp [table + index*8]`). Each case calls its own function
 * (noinline, so the case's block is the call and nothing else is merged
 * into it) and the program prints how often each case ran, "NAME COUNT"
 * per line: the block probes' counts of the lines of these calls must
 * equal them. The case lines are marked "CASE:NAME".
 *
 * usage: probe_switch [N]   N rounds over a fixed pseudo-random sequence
 */
#include <stdio.h>
#include <stdlib.h>

static unsigned long n_op[12];
static volatile long sink;

/* One case per line, the way the test reads them: */
/* clang-format off */
#define OP(k)                                                                                      \
	__attribute__((noinline)) static long op##k(long v)                                        \
	{                                                                                          \
		n_op[k]++;                                                                         \
		sink += v;                                                                         \
		return v * (k + 3) + k;                                                            \
	}
OP(0) OP(1) OP(2) OP(3) OP(4) OP(5) OP(6) OP(7) OP(8) OP(9) OP(10) OP(11)

__attribute__((noinline)) long dispatch(unsigned x, long v)
{
	switch (x) {
	case 0: return op0(v); /* CASE:0 */
	case 1: return op1(v); /* CASE:1 */
	case 2: return op2(v); /* CASE:2 */
	case 3: return op3(v); /* CASE:3 */
	case 4: return op4(v); /* CASE:4 */
	case 5: return op5(v); /* CASE:5 */
	case 6: return op6(v); /* CASE:6 */
	case 7: return op7(v); /* CASE:7 */
	case 8: return op8(v); /* CASE:8 */
	default: return op11(v); /* CASE:11 */
	}
}

/* A second shape: cases that fall through and a sparse default. */
__attribute__((noinline)) long dispatch2(int x, long v)
{
	long r = 0;

	switch (x) {
	case 1: r += op9(v); /* CASE:9 */
		/* fall through */
	case 2: r += op10(v); break; /* CASE:10 */
	case 3: r -= 3; break;
	case 4: r ^= v; break;
	case 5: r = v * 7; break;
	case 6: r = v - 1; break;
	case 7: r = v + 100; break;
	default: r = -v; break;
	}
	return r;
}

/* clang-format on */

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100;
	unsigned s = 12345;
	long acc = 0;

	for (int i = 0; i < n; i++) {
		s = s * 1103515245u + 12345u;
		acc += dispatch((s >> 16) % 11, i);
		acc += dispatch2((int)((s >> 8) % 9), i);
	}
	for (int k = 0; k < 12; k++)
		printf("%d %lu\n", k, n_op[k]);
	printf("acc %ld\n", acc);
	return 0;
}
