// SPDX-License-Identifier: MIT
/*
 * abort - takes a lock a known number of times, then calls abort() (SIGABRT)
 * while still holding it.
 *
 *   abort [PAIRS]    (default 1000)
 *
 * Known: PAIRS+1 acquisitions of abort_lock. Prints "pairs=<n>" first.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t abort_lock = PTHREAD_MUTEX_INITIALIZER;

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, i;

	for (i = 0; i < n; i++) {
		pthread_mutex_lock(&abort_lock);
		pthread_mutex_unlock(&abort_lock);
	}
	printf("pairs=%ld\n", n);
	fflush(stdout);
	pthread_mutex_lock(&abort_lock);
	abort();
}
