// SPDX-License-Identifier: MIT
/*
 * lock_unused.c - locks initialized and never used (as openssl's
 * CRYPTO_THREAD_lock_new rwlocks in redis): three rwlocks and a mutex
 * are initialized and destroyed untouched, one mutex (used_lock) is taken
 * N times. The lock report hides the unused ones unless --all
 * (tests/integ/163-locks-unused.t).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t used_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t idle_rw[3];
static pthread_mutex_t idle_mutex;

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;
	long sum = 0;

	for (int i = 0; i < 3; i++)
		pthread_rwlock_init(&idle_rw[i], NULL);
	pthread_mutex_init(&idle_mutex, NULL);
	for (int i = 0; i < n; i++) {
		pthread_mutex_lock(&used_lock);
		sum += i;
		pthread_mutex_unlock(&used_lock);
	}
	printf("sum %ld\n", sum);
	return 0;
}
