// SPDX-License-Identifier: MIT
/*
 * rr_barrier.c - threads that meet at a pthread_barrier_wait round after
 * round (tests/integ/288): serial mode emulates the barrier in the agent, and
 * a snapshot taken while some threads wait there must restore them waiting,
 * the barrier's count and generation with them. Each round every worker adds
 * to a counter with a few switches of the run token, then waits at the
 * barrier; the serial thread of each round prints the round and the total.
 *
 * usage: rr_barrier [WORKERS] [ROUNDS]
 */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_barrier_t bar;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long counter;
static int rounds;

static void *worker(void *arg)
{
	int id = (int)(intptr_t)arg;

	for (int r = 0; r < rounds; r++) {
		for (int k = 0; k <= id; k++) {
			pthread_mutex_lock(&m);
			counter++;
			pthread_mutex_unlock(&m);
			sched_yield();
		}
		if (pthread_barrier_wait(&bar) == PTHREAD_BARRIER_SERIAL_THREAD) {
			pthread_mutex_lock(&m);
			printf("round %d: counter %ld\n", r, counter);
			pthread_mutex_unlock(&m);
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3;
	pthread_t th[16];

	rounds = argc > 2 ? atoi(argv[2]) : 200;
	if (n < 1 || n > 16)
		n = 3;
	setvbuf(stdout, NULL, _IOLBF, 0);
	pthread_barrier_init(&bar, NULL, (unsigned)n);
	for (int i = 0; i < n; i++)
		pthread_create(&th[i], NULL, worker, (void *)(intptr_t)i);
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	printf("done: counter %ld\n", counter);
	return 0;
}
