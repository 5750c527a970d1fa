// SPDX-License-Identifier: MIT
/*
 * probe_oneline.c - target of tests/integ/189-probe-oneline.t: functions
 * written on one line, one per C scalar type, so at -O0 no line-table row
 * after the prologue names another line and spool's entry point is the
 * first instruction, before the prologue stores the parameters. main
 * prints every call's arguments and result with the precision spool's
 * report uses, so the test compares what args: read with these lines.
 *
 * usage: probe_oneline [N]  (N calls of each, default 3)
 */
#include <stdio.h>
#include <stdlib.h>

enum color { RED = 1, GREEN = 5, BLUE = 9 };

/* One line each, on purpose: */
/* clang-format off */
__attribute__((noinline)) char f_c(char x) { return (char)(x + 1); }
__attribute__((noinline)) signed char f_sc(signed char x) { return (signed char)(x - 3); }
__attribute__((noinline)) unsigned char f_uc(unsigned char x) { return (unsigned char)(x * 2); }
__attribute__((noinline)) short f_s(short x) { return (short)(x - 1000); }
__attribute__((noinline)) unsigned short f_us(unsigned short x) { return (unsigned short)(x + 7); }
__attribute__((noinline)) int f_i(int x) { return x * -3; }
__attribute__((noinline)) unsigned f_u(unsigned x) { return x + 4000000000u; }
__attribute__((noinline)) long f_l(long x) { return x - 5000000000l; }
__attribute__((noinline)) unsigned long f_ul(unsigned long x) { return x * 3; }
__attribute__((noinline)) long long f_ll(long long x) { return -x; }
__attribute__((noinline)) unsigned long long f_ull(unsigned long long x) { return x + 1; }
__attribute__((noinline)) _Bool f_b(_Bool x) { return !x; }
__attribute__((noinline)) enum color f_e(enum color x) { return x == RED ? BLUE : RED; }
__attribute__((noinline)) float f_f(float x) { return x / 3; }
__attribute__((noinline)) double f_d(double x) { return x * 2.5; }
__attribute__((noinline)) long double f_ld(long double x) { return x / 7; }
__attribute__((noinline)) char *f_p(char *x) { return x + 1; }
__attribute__((noinline)) double f_mix(int a, double b, char *c, float d, long e) { return a + b + (c != 0) + d + e; }
__attribute__((noinline)) long f_many(int a, int b, int c, int d, int e, int f, int g, long h) { return a + b + c + d + e + f + g + h; }
__attribute__((noinline)) double f_fl(float a, float b, float c, float d, float e, float f, float g, float h, double i) { return a + b + c + d + e + f + g + h + i; }

/* clang-format on */

static char g_buf[16];

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3;

	for (int k = 0; k < n; k++) {
		char c = (char)('A' + k);
		signed char sc = (signed char)(-100 + k);
		unsigned char uc = (unsigned char)(200 + k);
		short s = (short)(-30000 + k);
		unsigned short us = (unsigned short)(60000 + k);
		int i = -123456 * (k + 1);
		unsigned u = 3000000000u + (unsigned)k;
		long l = -9000000000l * (k + 1);
		unsigned long ul = 18000000000000000000ul + (unsigned long)k;
		long long ll = 7000000000000ll + k;
		unsigned long long ull = 12345678901234567ull * (unsigned long long)(k + 1);
		_Bool b = k & 1;
		enum color e = k & 1 ? GREEN : RED;
		float f = 1.5f + (float)k / 7;
		double d = -2.25 - k / 3.0;
		long double ld = 1.0L / (k + 3);
		char *p = g_buf + k;

		printf("f_c %d -> %d\n", c, f_c(c));
		printf("f_sc %d -> %d\n", sc, f_sc(sc));
		printf("f_uc %d -> %d\n", uc, f_uc(uc));
		printf("f_s %d -> %d\n", s, f_s(s));
		printf("f_us %d -> %d\n", us, f_us(us));
		printf("f_i %d -> %d\n", i, f_i(i));
		printf("f_u %u -> %u\n", u, f_u(u));
		printf("f_l %ld -> %ld\n", l, f_l(l));
		printf("f_ul %lu -> %lu\n", ul, f_ul(ul));
		printf("f_ll %lld -> %lld\n", ll, f_ll(ll));
		printf("f_ull %llu -> %llu\n", ull, f_ull(ull));
		printf("f_b %d -> %d\n", b, f_b(b));
		printf("f_e %d -> %d\n", (int)e, (int)f_e(e));
		printf("f_f %.9g -> %.9g\n", (double)f, (double)f_f(f));
		printf("f_d %.17g -> %.17g\n", d, f_d(d));
		printf("f_ld %.21Lg -> %.21Lg\n", ld, f_ld(ld));
		printf("f_p %p -> %p\n", (void *)p, (void *)f_p(p));
		printf("f_mix %d %.17g %p %.9g %ld -> %.17g\n", i, d, (void *)p, (double)f, l,
		       f_mix(i, d, p, f, l));
		printf("f_many %d %d %d %d %d %d %d %ld -> %ld\n", k, k + 1, k + 2, k + 3, k + 4,
		       k + 5, k + 6, l, f_many(k, k + 1, k + 2, k + 3, k + 4, k + 5, k + 6, l));
		printf("f_fl %.9g %.9g %.9g %.9g %.9g %.9g %.9g %.9g %.17g -> %.17g\n", (double)f,
		       (double)(f + 1), (double)(f + 2), (double)(f + 3), (double)(f + 4),
		       (double)(f + 5), (double)(f + 6), (double)(f + 7), d,
		       f_fl(f, f + 1, f + 2, f + 3, f + 4, f + 5, f + 6, f + 7, d));
	}
	return 0;
}
