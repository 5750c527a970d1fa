// SPDX-License-Identifier: MIT
/*
 * timedlock - pthread_mutex_timedlock that times out a known number of times
 * on one mutex (`timed_lock`).
 *
 *   timedlock [TIMEOUTS OKS]    (default 5 10)
 *
 * The main thread holds timed_lock while a second thread calls timedlock
 * TIMEOUTS times with a 2 ms deadline (each returns ETIMEDOUT); after the main
 * thread has released it, a third thread calls timedlock OKS times, each
 * succeeding at once. Known: timeouts = TIMEOUTS, timed acquisitions = OKS,
 * plus the main thread's one plain acquisition. Prints
 * "timeouts=<n> ok=<m>" as observed by the program.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static pthread_mutex_t timed_lock = PTHREAD_MUTEX_INITIALIZER;
static long want_timeouts, want_oks, timeouts, oks;

static int lock_within_ms(long ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += ms * 1000000L;
	ts.tv_sec += ts.tv_nsec / 1000000000L;
	ts.tv_nsec %= 1000000000L;
	return pthread_mutex_timedlock(&timed_lock, &ts);
}

static void *try_held(void *arg)
{
	long i;

	(void)arg;
	for (i = 0; i < want_timeouts; i++)
		if (lock_within_ms(2) == ETIMEDOUT)
			timeouts++;
	return NULL;
}

static void *try_free(void *arg)
{
	long i;

	(void)arg;
	for (i = 0; i < want_oks; i++)
		if (lock_within_ms(1000) == 0) {
			oks++;
			pthread_mutex_unlock(&timed_lock);
		}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	want_timeouts = 5;
	want_oks = 10;
	if (argc == 3) {
		want_timeouts = atol(argv[1]);
		want_oks = atol(argv[2]);
	}
	pthread_mutex_lock(&timed_lock);
	pthread_create(&t, NULL, try_held, NULL);
	pthread_join(t, NULL);
	pthread_mutex_unlock(&timed_lock);
	pthread_create(&t, NULL, try_free, NULL);
	pthread_join(t, NULL);
	printf("timeouts=%ld ok=%ld\n", timeouts, oks);
	return timeouts == want_timeouts && oks == want_oks ? 0 : 1;
}
