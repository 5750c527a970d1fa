// SPDX-License-Identifier: MIT
/*
 * probe_vars.c - target of tests/integ/78-probe-vars.t: a function that
 * computes values of every type variable probes read (char, int, long,
 * float, double, long double), prints them with the precision spool's
 * report uses, and returns; a function whose condition holds on some calls
 * and not on others (assertions); a function that sleeps (time probes).
 *
 * usage: probe_vars [N [SLEEP_MS]]  (N calls of each, default 5; 20 ms)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

long double g_total; /* a global, read from its fixed address */

__attribute__((noinline)) double compute(int k, double scale)
{
	char c = (char)('A' + k);
	int i = k * k - 7;
	long l = (long)k * 1000000007L;
	float f = (float)k / 3.0f;
	double d = scale * k + 0.1;
	long double ld = (long double)d / 7.0L;

	g_total += ld;
	printf("c=%d i=%d l=%ld f=%.9g d=%.17g ld=%.21Lg\n", c, i, l, (double)f, d, ld);
	return d + f + (double)ld + c + i + (double)l;
}

/* x < limit holds for x = 0 .. limit-1 */
__attribute__((noinline)) int check(int x, int limit)
{
	int r = x * 2;

	return r + limit;
}

__attribute__((noinline)) void nap(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};

	nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 5;
	int ms = argc > 2 ? atoi(argv[2]) : 20;
	double sum = 0;

	for (int k = 0; k < n; k++)
		sum += compute(k, 1.5);
	for (int k = 0; k < 2 * n; k++)
		sum += check(k, n);
	for (int k = 0; k < 3; k++)
		nap(ms);
	printf("sum=%.3f total=%.21Lg\n", sum, g_total);
	return 0;
}
