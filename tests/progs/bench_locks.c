// SPDX-License-Identifier: MIT
/*
 * bench_locks - the lock benchmark workload (bench/run.sh).
 *
 *   bench_locks                   4 threads x 100,000 lock/unlock pairs on one
 *                                 shared mutex, then 100,000 on a per-thread one
 *   bench_locks THREADS ITERS     the same with other sizes
 *   bench_locks uncontended N     one thread, N uncontended pairs on one mutex
 *   bench_locks uncontended-timed N   the same, printing the loop's ns per pair
 *   bench_locks own THREADS N     THREADS threads x N uncontended pairs, each on
 *                                 its own mutex (bench/format.sh: 2 x 2,000,000)
 *
 * Prints nothing: the benchmark times the whole process, and output would
 * only add noise.
 */
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t bench_shared = PTHREAD_MUTEX_INITIALIZER;
static long bench_iters = 100000;
static volatile long bench_sink;

/* Only the thread's own mutex: uncontended, on as many CPUs as there are. */
static void *bench_own(void *arg)
{
	pthread_mutex_t own;
	long i;

	(void)arg;
	pthread_mutex_init(&own, NULL);
	for (i = 0; i < bench_iters; i++) {
		pthread_mutex_lock(&own);
		bench_sink++;
		pthread_mutex_unlock(&own);
	}
	pthread_mutex_destroy(&own);
	return NULL;
}

static void *bench_worker(void *arg)
{
	pthread_mutex_t own;
	long i;

	(void)arg;
	pthread_mutex_init(&own, NULL);
	for (i = 0; i < bench_iters; i++) {
		pthread_mutex_lock(&bench_shared);
		bench_sink++;
		pthread_mutex_unlock(&bench_shared);
	}
	for (i = 0; i < bench_iters; i++) {
		pthread_mutex_lock(&own);
		bench_sink++;
		pthread_mutex_unlock(&own);
	}
	pthread_mutex_destroy(&own);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t tids[64];
	long nthreads = 4, i;
	void *(*fn)(void *) = bench_worker;

	if (argc == 3 && (strcmp(argv[1], "uncontended") == 0 ||
			  strcmp(argv[1], "uncontended-timed") == 0)) {
		static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
		long n = atol(argv[2]);
		struct timespec t0, t1;

		/* The timed variant measures the loop alone, from inside the
		 * program: the cost a traced program pays per pair, without
		 * process startup or the collector's work after the exit. */
		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (i = 0; i < n; i++) {
			pthread_mutex_lock(&m);
			bench_sink++;
			pthread_mutex_unlock(&m);
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (argv[1][11] == '-' && n > 0)
			printf("%.2f\n", ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / n);
		return 0;
	}
	if (argc == 4 && strcmp(argv[1], "own") == 0) {
		nthreads = atol(argv[2]);
		bench_iters = atol(argv[3]);
		fn = bench_own;
	} else if (argc == 3) {
		nthreads = atol(argv[1]);
		bench_iters = atol(argv[2]);
	} else if (argc != 1) {
		return 2;
	}
	if (nthreads < 1 || nthreads > 64)
		return 2;
	for (i = 0; i < nthreads; i++)
		if (pthread_create(&tids[i], NULL, fn, NULL))
			return 1;
	for (i = 0; i < nthreads; i++)
		pthread_join(tids[i], NULL);
	return 0;
}
