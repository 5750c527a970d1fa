// SPDX-License-Identifier: MIT
/*
 * flood - one thread doing lock/unlock pairs as fast as it can, to overrun a
 * deliberately small ring (`spool locks --ring-size 4k`): the losses must be
 * counted and reported, never silently dropped.
 *
 *   flood [PAIRS]    (default 1000000)
 *
 * Prints "pairs=<n>".
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t flood_lock = PTHREAD_MUTEX_INITIALIZER;

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000, i, done = 0;

	for (i = 0; i < n; i++) {
		pthread_mutex_lock(&flood_lock);
		done++;
		pthread_mutex_unlock(&flood_lock);
	}
	printf("pairs=%ld\n", done);
	return 0;
}
