// SPDX-License-Identifier: MIT
/*
 * multi_main.c - the first unit of the two-unit test program: the decoder
 * must find both units' tables in the one binary (usage: multi [ROUNDS]).
 */
#include <stdio.h>
#include <stdlib.h>

#include "multi.h"

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 100, n = 0;
	long stack[64], acc = 0;

	SPOOL_TRACE(EV_MSTART, rounds, 0);
	for (int r = 0; r < rounds; r++) {
		acc += multi_push(stack, &n, r * 7);
		if (r % 3 == 2 || n == 64) {
			acc += multi_pop(stack, &n);
			acc += multi_pop(stack, &n);
		}
		acc = multi_mix(acc % 1000, r);
	}
	while (n)
		acc += multi_pop(stack, &n);
	acc += multi_pop(stack, &n);
	SPOOL_TRACE(EV_MEND, acc);
	printf("%ld\n", acc);
	return 0;
}
