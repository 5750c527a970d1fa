// SPDX-License-Identifier: MIT
/*
 * crash - takes a lock a known number of times, then dies of SIGSEGV by
 * writing through a null pointer. The trace must still hold every event from
 * before the crash.
 *
 *   crash [PAIRS]    (default 1000)
 *
 * Prints "pairs=<n>" (flushed) before crashing. Both the pointer and the
 * target are volatile: otherwise gcc may drop the store as dead (it is the
 * last thing main does) or turn it into a trap (SIGILL, not SIGSEGV).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t crash_lock = PTHREAD_MUTEX_INITIALIZER;

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, i;
	volatile int *volatile p = NULL;

	for (i = 0; i < n; i++) {
		pthread_mutex_lock(&crash_lock);
		pthread_mutex_unlock(&crash_lock);
	}
	printf("pairs=%ld\n", n);
	fflush(stdout);
	*p = 1;
	return 0;
}
