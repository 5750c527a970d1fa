// SPDX-License-Identifier: MIT
/*
 * probe_quad.c - target of tests/arm64/266-a64-probe-quad.t: long double
 * values (IEEE binary128 on aarch64, x87's 80 bits on x86-64) in every
 * place a variable probe reads one: a local in the frame (scaled's `q`),
 * arguments in v registers and, past the eighth floating argument, on the
 * stack (many's `s9`), a return value (v0 on aarch64), and a global.
 * Each line printed with "%.36Lg": on aarch64 the exact binary128 value
 * (36 digits tell any two apart), what spool's report must print.
 *
 * usage: probe_quad [N]  (N rounds, default 4)
 */
#include <stdio.h>
#include <stdlib.h>

long double g_quad; /* a global, read from its fixed address */

__attribute__((noinline)) long double scaled(long double x, int k)
{
	volatile long double q = x / (k + 3); /* kept in its frame slot at -O0 and -O2 */

	g_quad += q;
	printf("scaled %.36Lg %d -> %.36Lg\n", x, k, (long double)q);
	return q;
}

/* nine long double arguments: s1-s8 in v0-v7, s9 on the stack (AAPCS64) */
__attribute__((noinline)) long double many(long double s1, long double s2, long double s3,
					   long double s4, long double s5, long double s6,
					   long double s7, long double s8, long double s9)
{
	long double r = s1 + s2 + s3 + s4 + s5 + s6 + s7 + s8 - s9;

	printf("many %.36Lg %.36Lg -> %.36Lg\n", s1, s9, r);
	return r;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 4;
	long double acc = 0;

	for (int k = 0; k < n; k++) {
		long double x = 1.0L / 3 + k * 1e-30L + (k & 1 ? -1e300L : 1e-300L) * k;

		acc += scaled(x, k);
		acc += many(x, 2, 3, 4, 5, 6, 7, 8, 0.1L * (k + 1));
	}
	printf("total %.36Lg %.36Lg\n", acc, g_quad);
	return 0;
}
