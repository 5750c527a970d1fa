// SPDX-License-Identifier: MIT
/*
 * rr_exitwait.c - threads still blocked when the process ends: one waits
 * on a condition variable nobody signals, one reads a pipe nobody writes,
 * one sleeps for a minute, one waits for a mutex main keeps. Main counts
 * under a lock shared with a fifth thread, prints the total and calls
 * exit while the four wait (xz -T2 ends its workers this way). Their
 * last calls never return, so a recording has no record of them.
 *
 * With RR_EXITWAIT_JOIN=1 in the environment main joins the first waiter
 * instead of exiting: a run that never ends, and a replay of a recording
 * made without it that has nothing left to run (a divergence to report).
 * Usage: rr_exitwait [ROUNDS].
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t held = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;
static long total;
static long rounds = 20000;
static int pipefd[2];
static volatile int started;

static void *cond_waiter(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&m);
	__atomic_add_fetch(&started, 1, __ATOMIC_SEQ_CST);
	for (;;)
		pthread_cond_wait(&never, &m);
	return NULL;
}

static void *reader(void *arg)
{
	char c;

	(void)arg;
	__atomic_add_fetch(&started, 1, __ATOMIC_SEQ_CST);
	if (read(pipefd[0], &c, 1) >= 0)
		printf("read returned\n");
	return NULL;
}

static void *sleeper(void *arg)
{
	struct timespec ts = {60, 0};

	(void)arg;
	__atomic_add_fetch(&started, 1, __ATOMIC_SEQ_CST);
	nanosleep(&ts, NULL);
	return NULL;
}

static void *locker(void *arg)
{
	(void)arg;
	__atomic_add_fetch(&started, 1, __ATOMIC_SEQ_CST);
	pthread_mutex_lock(&held);
	printf("locker got the lock\n");
	pthread_mutex_unlock(&held);
	return NULL;
}

static void *counter(void *arg)
{
	long id = (long)arg;

	for (long i = 0; i < rounds; i++) {
		pthread_mutex_lock(&m);
		total = total * 3 + id + i;
		pthread_mutex_unlock(&m);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t w[4], c;
	const char *join = getenv("RR_EXITWAIT_JOIN");

	if (argc > 1)
		rounds = atol(argv[1]);
	if (pipe(pipefd) < 0)
		return 1;
	pthread_mutex_lock(&held);
	pthread_create(&w[0], NULL, cond_waiter, NULL);
	pthread_create(&w[1], NULL, reader, NULL);
	pthread_create(&w[2], NULL, sleeper, NULL);
	pthread_create(&w[3], NULL, locker, NULL);
	pthread_create(&c, NULL, counter, (void *)1L);
	for (long i = 0; i < rounds; i++) {
		pthread_mutex_lock(&m);
		total = total * 3 + i;
		pthread_mutex_unlock(&m);
	}
	pthread_join(c, NULL);
	while (__atomic_load_n(&started, __ATOMIC_SEQ_CST) < 4)
		sched_yield();
	/* Let the waiters get into their calls. */
	usleep(20000);
	pthread_mutex_lock(&m);
	printf("total %ld\n", total);
	pthread_mutex_unlock(&m);
	fflush(stdout);
	if (join && *join == '1')
		pthread_join(w[0], NULL);
	exit(0);
}
