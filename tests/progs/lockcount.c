// SPDX-License-Identifier: MIT
/*
 * lockcount - a workload whose lock counts and hold times are known by
 * construction, for checking what `spool locks` reports.
 *
 *   lockcount THREADS ITERS [HOLD_US]
 *
 * Each thread does ITERS lock/unlock pairs on one shared mutex (`shared_lock`),
 * holding it HOLD_US microseconds by busy-waiting on the clock (so the hold is
 * real time the lock is held, not time asleep), then ITERS pairs on a mutex of
 * its own. Prints "total=<n>" where n counts the shared-mutex critical
 * sections actually executed: it must equal THREADS*ITERS.
 *
 * Known: acquisitions of shared_lock = THREADS*ITERS; of each per-thread
 * mutex = ITERS; total hold time of shared_lock >= THREADS*ITERS*HOLD_US us.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static pthread_mutex_t shared_lock = PTHREAD_MUTEX_INITIALIZER;
static long shared_total;
static long iters;
static long hold_us;

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Busy-wait so the time is spent holding the lock, not sleeping. */
static void hold(void)
{
	long long end;

	if (hold_us <= 0)
		return;
	end = now_ns() + hold_us * 1000LL;
	while (now_ns() < end)
		;
}

static void *worker(void *arg)
{
	pthread_mutex_t own_lock;
	long i, own = 0;

	(void)arg;
	pthread_mutex_init(&own_lock, NULL);
	for (i = 0; i < iters; i++) {
		pthread_mutex_lock(&shared_lock);
		shared_total++;
		hold();
		pthread_mutex_unlock(&shared_lock);
	}
	for (i = 0; i < iters; i++) {
		pthread_mutex_lock(&own_lock);
		own++;
		pthread_mutex_unlock(&own_lock);
	}
	pthread_mutex_destroy(&own_lock);
	return (void *)own;
}

int main(int argc, char **argv)
{
	pthread_t *tids;
	long nthreads, i;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: lockcount THREADS ITERS [HOLD_US]\n");
		return 2;
	}
	nthreads = atol(argv[1]);
	iters = atol(argv[2]);
	hold_us = argc == 4 ? atol(argv[3]) : 0;
	if (nthreads < 1 || iters < 0 || hold_us < 0) {
		fprintf(stderr, "lockcount: bad arguments\n");
		return 2;
	}
	tids = calloc(nthreads, sizeof(*tids));
	if (!tids)
		return 1;
	for (i = 0; i < nthreads; i++)
		if (pthread_create(&tids[i], NULL, worker, NULL)) {
			fprintf(stderr, "lockcount: pthread_create failed\n");
			return 1;
		}
	for (i = 0; i < nthreads; i++) {
		void *own;

		pthread_join(tids[i], &own);
		if ((long)own != iters) {
			fprintf(stderr, "lockcount: per-thread count %ld != %ld\n", (long)own, iters);
			return 1;
		}
	}
	free(tids);
	printf("total=%ld\n", shared_total);
	return shared_total == nthreads * iters ? 0 : 1;
}
