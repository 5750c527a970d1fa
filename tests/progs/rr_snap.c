// SPDX-License-Identifier: MIT
/*
 * rr_snap.c - a program for the snapshot primitive (tests/integ/146): the
 * copy of a snapshot must go on with every thread where it was. Workers add
 * to a counter under a mutex, a producer hands items to a consumer through
 * a condition variable, every thread writes lines with stdio, and main
 * joins them all. Every line starts with the process id, so the output of
 * each copy can be told from the recorded process's; the last line says
 * whether the totals are right.
 *
 * usage: rr_snap [WORKERS] [ITERATIONS] [HEAP_MB] [STOPFILE] (HEAP_MB: a heap of
 * that size, written, for the snapshot figures; STOPFILE: wait for it after the
 * joins, tests/integ/264; 148 breaks at line numbers: keep them) */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t qm = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t qc = PTHREAD_COND_INITIALIZER;
static long counter, queue, consumed, produced_sum, consumed_sum;
static int iters;
static int done_producing;
static char *volatile heap_keep; /* the heap escapes: its stores stay */

static void *worker(void *arg)
{
	int id = (int)(intptr_t)arg;

	for (int i = 0; i < iters; i++) {
		pthread_mutex_lock(&m);
		counter++;
		pthread_mutex_unlock(&m);
		if (i % 16 == 0)
			printf("%d worker %d at %d\n", (int)getpid(), id, i);
	}
	return NULL;
}

static void *producer(void *arg)
{
	for (int i = 1; i <= iters / 4; i++) {
		pthread_mutex_lock(&qm);
		while (queue)
			pthread_cond_wait(&qc, &qm);
		queue = i;
		produced_sum += i;
		pthread_cond_broadcast(&qc);
		pthread_mutex_unlock(&qm);
	}
	pthread_mutex_lock(&qm);
	while (queue)
		pthread_cond_wait(&qc, &qm);
	done_producing = 1;
	pthread_cond_broadcast(&qc);
	pthread_mutex_unlock(&qm);
	return arg;
}

static void *consumer(void *arg)
{
	for (;;) {
		pthread_mutex_lock(&qm);
		while (!queue && !done_producing)
			pthread_cond_wait(&qc, &qm);
		if (!queue && done_producing) {
			pthread_mutex_unlock(&qm);
			break;
		}
		consumed_sum += queue;
		consumed++;
		queue = 0;
		pthread_cond_broadcast(&qc);
		pthread_mutex_unlock(&qm);
		if (consumed % 50 == 0)
			printf("%d consumer has %ld\n", (int)getpid(), consumed);
	}
	return arg;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3;
	pthread_t t[64], pc[2];
	int joined = 0;

	iters = argc > 2 ? atoi(argv[2]) : 2000;
	if (n < 1 || n > 64 || iters < 4)
		return 2;
	if (argc > 3 && atoi(argv[3]) > 0) {
		size_t sz = (size_t)atoi(argv[3]) << 20;
		char *heap = malloc(sz);

		if (!heap)
			return 2;
		for (size_t i = 0; i < sz; i += 4096)
			heap[i] = (char)((i >> 12) | 1); /* not zeros: a restore skips those */
		memcpy(heap + sz / 2, "SPOOL-SNAP-HEAP-MARKER", 22); /* found in the images */
		heap_keep = heap;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
	pthread_create(&pc[0], NULL, producer, NULL);
	pthread_create(&pc[1], NULL, consumer, NULL);
	for (int i = 0; i < n; i++)
		joined += pthread_join(t[i], NULL) == 0;
	for (int i = 0; i < 2; i++)
		joined += pthread_join(pc[i], NULL) == 0;
	while (argc > 4 && access(argv[4], F_OK))
		usleep(20000);
	printf("%d done counter=%ld want=%ld consumed=%ld want=%d sums=%s joined=%d\n",
	       (int)getpid(), counter, (long)n * iters, consumed, iters / 4,
	       produced_sum == consumed_sum ? "equal" : "differ", joined);
	return counter == (long)n * iters && consumed == iters / 4 && joined == n + 2 ? 0 : 1;
}
