// SPDX-License-Identifier: MIT
/*
 * a64_sve.c - a program that keeps values in SVE's Z and P registers across
 * the blocks of its loops, for tests/arm64/274-a64-probe-sve.t: a probe's
 * trampoline in those loops must give them back whole (a64_agent_sve.c),
 * not only their low 128 bits (V). Without SVE (HWCAP_SVE clear: qemu
 * -cpu cortex-a57) the same sums are made with doubles kept in V
 * registers. Prints "vl BYTES sum S want W"; exits 1 when S != W.
 *
 * Cross-built by the test: aarch64-linux-gnu-gcc -O2 (the SVE functions
 * carry their own target attribute, so the rest runs on any core).
 */
#include <arm_sve.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/auxv.h>

#ifndef HWCAP_SVE
#define HWCAP_SVE (1ul << 22)
#endif

/* one round's sum, under the SVE calling convention: pg in p0, acc and v
 * in z0 and z1, the result in z0, and z8-z23 and p4-p15 the caller's
 * (--exits retaddr: its return goes through the agent's trampoline) */
__attribute__((noipa, target("+sve"))) svint32_t sve_step(svbool_t pg, svint32_t acc,
							  svint32_t v)
{
	return svadd_m(pg, acc, v);
}

/* acc lives in a Z register through the loop; odd is a predicate made
 * once before it and used in every round (a P register). */
__attribute__((noinline, target("+sve"))) static long sve_sum(const int *a, long n)
{
	svint32_t acc = svdup_s32(0), acc_odd = svdup_s32(0);
	svbool_t odd = svcmpne(svptrue_b32(), svand_x(svptrue_b32(), svindex_s32(0, 1), 1), 0);

	for (long i = 0; i < n; i += (long)svcntw()) {
		svbool_t pg = svwhilelt_b32(i, n);
		svint32_t v = svld1(pg, a + i);

		acc = sve_step(pg, acc, v);
		acc_odd = svadd_m(svand_z(pg, pg, odd), acc_odd, v);
	}
	return svaddv(svptrue_b32(), acc) + 1000000L * svaddv(svptrue_b32(), acc_odd);
}

__attribute__((noinline, target("+sve"))) static unsigned long sve_vl(void)
{
	return svcntb();
}

/* without SVE: two double accumulators kept in V registers */
__attribute__((noinline)) static long fp_sum(const int *a, long n)
{
	double acc = 0, acc_odd = 0;

	for (long i = 0; i < n; i++) {
		acc += a[i];
		if (i & 1)
			acc_odd += a[i];
	}
	return (long)acc + 1000000L * (long)acc_odd;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, want = 0, want_odd = 0, got;
	int sve = (getauxval(AT_HWCAP) & HWCAP_SVE) != 0;
	int *a = malloc((size_t)n * sizeof(*a));

	if (!a)
		return 2;
	for (long i = 0; i < n; i++) {
		a[i] = (int)(i % 97) + 1;
		want += a[i];
		if (i & 1)
			want_odd += a[i];
	}
	want += 1000000L * want_odd;
	got = sve ? sve_sum(a, n) : fp_sum(a, n);
	printf("vl %lu sum %ld want %ld\n", sve ? sve_vl() : 0ul, got, want);
	free(a);
	return got != want;
}
