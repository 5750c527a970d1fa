// SPDX-License-Identifier: MIT
/*
 * probe_combine.c - target of tests/integ/215-217: probes of different
 * kinds at one instruction (func: and args: of one entry, a block at a
 * function's first instruction, an assertion and a block counter) must
 * combine and count as each would alone. transfer() is called N times
 * with from = i % 5, to = (i + 1) % 5, amount = i; check() N times, and
 * its branch is taken for the odd calls only. Built -O2 (Makefile), so
 * the parameters are in registers at the first instruction, where the
 * func: entry is probed too.
 *
 * usage: probe_combine [N]  (default 20)
 */
#include <stdio.h>
#include <stdlib.h>

static volatile long sink;

__attribute__((noinline)) long transfer(int from, int to, long amount)
{
	sink += from * 100 + to;
	return amount * 2 + from;
}

__attribute__((noinline)) int check(int v, int limit)
{
	if (v & 1)
		sink += v;
	return v < limit;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 20;
	long sum = 0;
	int ok = 0;

	for (int i = 0; i < n; i++) {
		sum += transfer(i % 5, (i + 1) % 5, i);
		ok += check(i, n / 2);
	}
	printf("sum %ld ok %d\n", sum, ok);
	return 0;
}
