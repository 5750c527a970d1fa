// SPDX-License-Identifier: MIT
/*
 * shortthreads - a program that creates many short threads over its life,
 * a few alive at a time: what a server with a thread per request, or a
 * test driver, does. spool gives each thread a ring slot; this checks
 * that the slots of ended threads are used again (issue 12).
 *
 *   shortthreads-finst TOTAL [ALIVE [ITERS [BURN_US [HOLD]]]]
 *
 * TOTAL threads are created in batches of ALIVE (default 2), each batch
 * joined before the next starts. Each thread takes the shared mutex ITERS
 * times (default 1) and counts, then spins until it has used BURN_US
 * microseconds of CPU (default 0): a known lower bound of the CPU time the
 * threads use together. With HOLD 1, the threads of a batch wait for each
 * other at a barrier before they end, so ALIVE threads really are alive at
 * once (without it, a slow creator can see the first threads of a batch
 * end before the last start). Prints "threads=<TOTAL> total=<TOTAL*ITERS>",
 * which a replay must print again. Built with -finstrument-functions so
 * `spool path` sees each thread's worker call.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static pthread_mutex_t shared_lock = PTHREAD_MUTEX_INITIALIZER;
static long shared_total;
static long iters = 1;
static long started;
static long burn_us;
static pthread_barrier_t batch_barrier;
static int hold;

static long long thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void __attribute__((noinline)) count_one(void)
{
	pthread_mutex_lock(&shared_lock);
	shared_total++;
	pthread_mutex_unlock(&shared_lock);
}

static void *worker(void *arg)
{
	(void)arg;
	__atomic_fetch_add(&started, 1, __ATOMIC_RELAXED);
	for (long i = 0; i < iters; i++)
		count_one();
	while (burn_us > 0 && thread_cpu_ns() < burn_us * 1000LL)
		;
	if (hold)
		pthread_barrier_wait(&batch_barrier);
	return NULL;
}

int main(int argc, char **argv)
{
	long total, alive = 2, done = 0;
	pthread_t *th;

	if (argc < 2) {
		fprintf(stderr, "usage: %s TOTAL [ALIVE [ITERS]]\n", argv[0]);
		return 2;
	}
	total = atol(argv[1]);
	if (argc > 2)
		alive = atol(argv[2]);
	if (argc > 3)
		iters = atol(argv[3]);
	if (argc > 4)
		burn_us = atol(argv[4]);
	if (argc > 5)
		hold = atoi(argv[5]) != 0;
	if (total < 0 || alive < 1 || iters < 0 || burn_us < 0)
		return 2;
	th = calloc((size_t)alive, sizeof(*th));
	if (!th)
		return 1;
	while (done < total) {
		long n = total - done < alive ? total - done : alive;

		if (hold && pthread_barrier_init(&batch_barrier, NULL, (unsigned)n))
			return 1;
		for (long i = 0; i < n; i++)
			if (pthread_create(&th[i], NULL, worker, NULL)) {
				perror("pthread_create");
				return 1;
			}
		for (long i = 0; i < n; i++)
			pthread_join(th[i], NULL);
		if (hold)
			pthread_barrier_destroy(&batch_barrier);
		done += n;
	}
	printf("threads=%ld total=%ld\n", started, shared_total);
	free(th);
	return 0;
}
