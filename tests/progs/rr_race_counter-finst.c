// SPDX-License-Identifier: MIT
/*
 * rr_race_counter-finst.c - lost updates: THREADS threads each add 1 to a
 * shared counter ITERS times without a lock, reading it, calling a
 * function, then writing it back. Prints the total; exits 1 when updates
 * were lost. Built with -finstrument-functions: the calls are the progress
 * points of spool's serial mode, so `spool record --chaos` can switch
 * threads inside the read-modify-write.
 *
 * usage: rr_race_counter-finst [THREADS [ITERS]]   (default 2 1000)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static long counter;
static volatile long sink;

static __attribute__((noinline)) long work(long v)
{
	sink += v & 7; /* something to do between the read and the write */
	return v + 1;
}

static void *adder(void *arg)
{
	long n = (long)arg;

	for (long i = 0; i < n; i++) {
		long v = counter;

		counter = work(v);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 2;
	long iters = argc > 2 ? atol(argv[2]) : 1000;
	pthread_t th[64];

	if (threads < 1 || threads > 64)
		return 2;
	for (int i = 0; i < threads; i++)
		pthread_create(&th[i], NULL, adder, (void *)iters);
	for (int i = 0; i < threads; i++)
		pthread_join(th[i], NULL);
	printf("total %ld of %ld\n", counter, threads * iters);
	return counter == threads * iters ? 0 : 1;
}
