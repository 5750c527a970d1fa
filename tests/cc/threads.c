// SPDX-License-Identifier: MIT
/*
 * threads.c - trace calls from several threads at once, for the spool cc /
 * spool decode tests: each worker traces a loop of merged and lone calls and
 * takes a shared lock, so the threads' events interleave in the trace while
 * each thread's own stream stays deterministic (its first event names it).
 *
 * usage: threads [THREADS [ROUNDS]]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <spool/trace.h>

enum { EV_WORKER = 20, EV_STEP = 21, EV_LOCKED = 22, EV_DONE = 23 };
SPOOL_TRACE_EVENT(EV_WORKER, "worker", "index");
SPOOL_TRACE_EVENT(EV_STEP, "step", "index,round,value");
SPOOL_TRACE_EVENT(EV_LOCKED, "locked", "index,total");
SPOOL_TRACE_EVENT(EV_DONE, "done", "index,value");

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long total;
static int rounds = 200;

static void *worker(void *arg)
{
	long me = (long)arg, v = me;

	SPOOL_TRACE(EV_WORKER, me);
	for (int r = 0; r < rounds; r++) {
		v = v * 3 + r;
		SPOOL_TRACE(EV_STEP, me, r, v % 1000);
		SPOOL_TRACE(EV_STEP, me, r, v * 2 + me);
		if (r % 8 == 0) {
			pthread_mutex_lock(&lock);
			total += v % 7;
			SPOOL_TRACE(EV_LOCKED, me, 1);
			pthread_mutex_unlock(&lock);
		}
	}
	SPOOL_TRACE(EV_DONE, me, v);
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 4;
	pthread_t t[16];

	if (argc > 2)
		rounds = atoi(argv[2]);
	if (n < 1 || n > 16)
		n = 4;
	for (long i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)(i + 1)))
			return 1;
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	printf("total %ld\n", total);
	return 0;
}
