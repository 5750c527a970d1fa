// SPDX-License-Identifier: MIT
/*
 * probe_args.c - target of tests/integ/89-probe-args.t: functions taking
 * and returning int, long, char, double, float, long double and a pointer,
 * called a few times. Every call prints the values passed and returned with
 * the precision spool's report uses, so the test can compare the values an
 * args: probe read with these lines.
 *
 * usage: probe_args [N]  (N calls of each, default 4)
 */
#include <stdio.h>
#include <stdlib.h>

struct pair {
	int a, b;
};

static char g_buf[64];

__attribute__((noinline)) long mix(int i, long l, char c)
{
	long r = l * 3 + i - c;

	printf("mix %d %ld %d -> %ld\n", i, l, c, r);
	return r;
}

__attribute__((noinline)) double scale(double d, float f, int k)
{
	double r = d * f + k;

	printf("scale %.17g %.9g %d -> %.17g\n", d, (double)f, k, r);
	return r;
}

__attribute__((noinline)) float halve(float f)
{
	float r = f / 2.0f;

	printf("halve %.9g -> %.9g\n", (double)f, (double)r);
	return r;
}

__attribute__((noinline)) char *pick(char *base, int off)
{
	char *r = base + off;

	printf("pick %p %d -> %p\n", (void *)base, off, (void *)r);
	return r;
}

__attribute__((noinline)) long double widen(long double x, int n)
{
	long double r = x * n;

	printf("widen %.21Lg %d -> %.21Lg\n", x, n, r);
	return r;
}

__attribute__((noinline)) int sum_pair(struct pair p, int extra)
{
	int r = p.a + p.b + extra;

	printf("sum_pair %d -> %d\n", extra, r);
	return r;
}

__attribute__((noinline)) void note(int v)
{
	printf("note %d\n", v);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 4;
	double acc = 0;

	for (int k = 0; k < n; k++) {
		struct pair p = {k, 2 * k};

		acc += (double)mix(k - 2, 1000000007L * k, (char)('a' + k));
		acc += scale(1.25 * k + 0.1, 0.5f + (float)k / 3.0f, k * 7 - 3);
		acc += halve((float)k / 7.0f + 1.0f);
		acc += (double)(pick(g_buf, k * 3) - g_buf);
		acc += (double)widen((long double)k / 3.0L + 1.0L, k + 1);
		acc += sum_pair(p, k);
		note(k * 11);
	}
	printf("acc %.3f\n", acc);
	return 0;
}
