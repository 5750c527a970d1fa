// SPDX-License-Identifier: MIT
/*
 * rr_order.c - a race-free program whose result depends on the order in
 * which its threads take a mutex: THREADS threads append their number
 * ROUNDS times each to a log under the mutex; the run "fails" (exit 1) when
 * the last entry is not thread 0's. Natively that happens about every
 * other run; a sync-mode replay repeats the recorded order, so the same
 * log and exit status. Prints a hash of the log and its last entry.
 *
 * usage: rr_order THREADS ROUNDS
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static uint64_t hash = 1469598103934665603ull;
static long last = -1;
static int rounds;

static void *appender(void *arg)
{
	long id = (long)arg;

	for (int i = 0; i < rounds; i++) {
		pthread_mutex_lock(&m);
		hash = (hash ^ (uint64_t)id) * 1099511628211ull;
		last = id;
		pthread_mutex_unlock(&m);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2, i;
	pthread_t t[16];

	rounds = argc > 2 ? atoi(argv[2]) : 100;
	if (n < 1 || n > 16)
		return 2;
	for (i = 0; i < n; i++)
		pthread_create(&t[i], NULL, appender, (void *)(long)i);
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	printf("log %016llx, last entry by thread %ld\n", (unsigned long long)hash, last);
	return last == 0 ? 0 : 1;
}
