// SPDX-License-Identifier: MIT
/*
 * probe_cov.c - a target for block and branch probes (tests/integ/74):
 * loops, if/else, && chains, an early return, a while loop and a function
 * never called. It counts how often each if's condition was true and false
 * and prints the counts ("name true false"), which the test compares with
 * the branch probes' counts of the direction going to the marked line's
 * next line (the then-part: the condition was true) and of the other one;
 * gcov's line counts of the same source are compared with the block
 * probes' line counts. Each marked if's then-part starts on the next line.
 * Usage: probe_cov [N]
 */
#include <stdio.h>
#include <stdlib.h>

static unsigned long cnt_mod3[2], cnt_both[2], cnt_neg[2], cnt_big[2];

__attribute__((noinline)) static int classify(int x)
{
	int r = 0;

	if (x % 3 == 0) { /* BR:mod3 */
		cnt_mod3[1]++;
		r += 3;
	} else {
		cnt_mod3[0]++;
		r -= 1;
	}
	if (x > 10) /* BR:big */
		cnt_big[1]++;
	else
		cnt_big[0]++;
	return r;
}

__attribute__((noinline)) static int both(int a, int b)
{
	if (a & 1) {
		if (b & 2) { /* BR:both */
			cnt_both[1]++;
			return 1;
		}
		cnt_both[0]++;
	}
	return 0;
}

__attribute__((noinline)) static long collatz(long n)
{
	long steps = 0;

	while (n != 1) {
		if (n % 2 == 0)
			n /= 2;
		else
			n = 3 * n + 1;
		steps++;
	}
	return steps;
}

__attribute__((noinline)) static int never_called(int x)
{
	if (x < 0) /* BR:neg */
		cnt_neg[1]++;
	else
		cnt_neg[0]++;
	return x * 2;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100;
	long sum = 0;

	for (int i = 0; i < n; i++) {
		sum += classify(i);
		sum += both(i, i / 3);
	}
	for (int i = 1; i <= n / 10; i++)
		sum += collatz(i);
	if (argc > 5)
		sum += never_called(argc);
	printf("mod3 %lu %lu\n", cnt_mod3[1], cnt_mod3[0]);
	printf("big %lu %lu\n", cnt_big[1], cnt_big[0]);
	printf("both %lu %lu\n", cnt_both[1], cnt_both[0]);
	printf("neg %lu %lu\n", cnt_neg[1], cnt_neg[0]);
	printf("sum %ld\n", sum);
	return 0;
}
