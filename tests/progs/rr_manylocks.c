// SPDX-License-Identifier: MIT
/*
 * rr_manylocks - a program that uses more lock objects than one chunk of
 * spool record's turn words holds (16,384 per 64 KiB, mapped as objects are
 * numbered: src/agent/agent_lazy.c), so a recording and its replay need
 * chunks the agent maps while the program runs.
 *
 *   rr_manylocks NLOCKS THREADS
 *
 * Each of THREADS threads takes every one of NLOCKS mutexes in turn and
 * folds its own number into the cell the mutex guards. The cells depend on
 * the order in which the threads took each mutex; the program prints their
 * hash, which a replay must print again.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t *locks;
static uint64_t *cells;
static long nlocks;

static void *worker(void *arg)
{
	uint64_t me = (uint64_t)(uintptr_t)arg;

	for (long i = 0; i < nlocks; i++) {
		pthread_mutex_lock(&locks[i]);
		cells[i] = cells[i] * 31 + me;
		pthread_mutex_unlock(&locks[i]);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long nthreads;
	pthread_t *th;
	uint64_t h = 1469598103934665603ull;

	if (argc != 3) {
		fprintf(stderr, "usage: rr_manylocks NLOCKS THREADS\n");
		return 2;
	}
	nlocks = atol(argv[1]);
	nthreads = atol(argv[2]);
	locks = calloc((size_t)nlocks, sizeof(*locks));
	cells = calloc((size_t)nlocks, sizeof(*cells));
	th = calloc((size_t)nthreads, sizeof(*th));
	if (nlocks <= 0 || nthreads <= 0 || !locks || !cells || !th)
		return 2;
	for (long i = 0; i < nlocks; i++)
		pthread_mutex_init(&locks[i], NULL);
	for (long t = 0; t < nthreads; t++)
		if (pthread_create(&th[t], NULL, worker, (void *)(uintptr_t)(t + 1)))
			return 1;
	for (long t = 0; t < nthreads; t++)
		pthread_join(th[t], NULL);
	for (long i = 0; i < nlocks; i++)
		h = (h ^ cells[i]) * 1099511628211ull;
	printf("locks=%ld threads=%ld hash=%016llx\n", nlocks, nthreads, (unsigned long long)h);
	return 0;
}
