// SPDX-License-Identifier: MIT
/*
 * probe_switchy.c - target of tests/integ/190-probe-switch-gcov.t: dense
 * switch statements that GCC compiles to jump tables at -O0 and -O2, with
 * cases reached both through the table and by falling through from the
 * case before, a default reached from the bound check, and nested
 * switches. Each case calls a noinline function, so a case is its own
 * line and block at every optimization level; the test compares spool's
 * line counts with gcov's line by line.
 *
 * usage: probe_switchy [N]   N rounds over a fixed pseudo-random sequence
 */
#include <stdio.h>
#include <stdlib.h>

static volatile long sink;

__attribute__((noinline)) static void hit(int k)
{
	sink += k;
}

__attribute__((noinline)) static long fall(unsigned x)
{
	long r = 0;

	switch (x) {
	case 0:
		hit(0);
		/* fall through */
	case 1:
		hit(1);
		/* fall through */
	case 2:
		hit(2);
		break;
	case 3:
		hit(3);
		/* fall through */
	case 4:
		hit(4);
		r = 4;
		break;
	case 5:
		hit(5);
		/* fall through */
	case 6:
		hit(6);
		/* fall through */
	case 7:
		hit(7);
		r = 7;
		break;
	case 9:
		hit(9);
		break;
	default:
		hit(100);
		r = -1;
		break;
	}
	return r;
}

__attribute__((noinline)) static int nested(int a, int b)
{
	int r = 0;

	switch (a) {
	case 1:
		hit(11);
		switch (b) {
		case 0:
			hit(20);
			break;
		case 1:
			hit(21);
			/* fall through */
		case 2:
			hit(22);
			break;
		case 3:
			hit(23);
			break;
		case 4:
			hit(24);
			break;
		default:
			hit(29);
			break;
		}
		break;
	case 2:
		hit(12);
		r = 2;
		break;
	case 3:
		hit(13);
		/* fall through */
	case 4:
		hit(14);
		break;
	case 5:
		hit(15);
		break;
	case 6:
		hit(16);
		r = 6;
		break;
	default:
		hit(19);
		break;
	}
	return r;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100;
	unsigned s = 12345;
	long total = 0;

	for (int i = 0; i < n; i++) {
		s = s * 1103515245u + 12345u;
		total += fall((s >> 16) % 12);
		total += nested((int)((s >> 8) % 8), (int)((s >> 20) % 6));
	}
	printf("total %ld sink %ld\n", total, (long)sink);
	return 0;
}
