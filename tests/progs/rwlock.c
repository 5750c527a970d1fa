// SPDX-License-Identifier: MIT
/*
 * rwlock - readers and writers on one rwlock (`table_lock`).
 *
 *   rwlock [READERS WRITERS ITERS]    (default 3 2 10000)
 *
 * Each reader takes the lock ITERS times for reading, each writer ITERS times
 * for writing, so read acquisitions = READERS*ITERS and write acquisitions =
 * WRITERS*ITERS. Prints "reads=<n> writes=<m>" as counted by the threads.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_rwlock_t table_lock = PTHREAD_RWLOCK_INITIALIZER;
static long table_value;
static long iters;
static long reads, writes;

static void *reader(void *arg)
{
	long i, n = 0;
	volatile long v;

	(void)arg;
	for (i = 0; i < iters; i++) {
		pthread_rwlock_rdlock(&table_lock);
		v = table_value;
		(void)v;
		n++;
		pthread_rwlock_unlock(&table_lock);
	}
	return (void *)n;
}

static void *writer(void *arg)
{
	long i;

	(void)arg;
	for (i = 0; i < iters; i++) {
		pthread_rwlock_wrlock(&table_lock);
		table_value++;
		pthread_rwlock_unlock(&table_lock);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long nr = 3, nw = 2, i;
	pthread_t t[128];

	iters = 10000;
	if (argc == 4) {
		nr = atol(argv[1]);
		nw = atol(argv[2]);
		iters = atol(argv[3]);
	} else if (argc != 1) {
		fprintf(stderr, "usage: rwlock [READERS WRITERS ITERS]\n");
		return 2;
	}
	if (nr < 0 || nw < 0 || nr + nw > 128 || iters < 0)
		return 2;
	for (i = 0; i < nr; i++)
		pthread_create(&t[i], NULL, reader, NULL);
	for (i = 0; i < nw; i++)
		pthread_create(&t[nr + i], NULL, writer, NULL);
	for (i = 0; i < nr; i++) {
		void *n;

		pthread_join(t[i], &n);
		reads += (long)n;
	}
	for (i = 0; i < nw; i++)
		pthread_join(t[nr + i], NULL);
	writes = table_value;
	printf("reads=%ld writes=%ld\n", reads, writes);
	return writes == nw * iters && reads == nr * iters ? 0 : 1;
}
