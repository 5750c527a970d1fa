// SPDX-License-Identifier: MIT
/*
 * rr_signewthread.c - signals sent to a thread at once, right after
 * pthread_create, for tests/integ/392. glibc unblocks a new thread's
 * signals in its own start code, before spool's start code numbers the
 * thread; a signal queued by then ran its handler there, unrecorded, and
 * the replay never ran it (the worker, which waits for its handler with
 * recorded clock_gettime calls, went past its recording). The main thread
 * pins itself to one CPU first, so that the new thread mostly has not run
 * yet when the signal is sent (as on a loaded machine).
 *
 * Each of N workers counts the recorded calls it made before its handler
 * ran (bounded: 20000); main joins them in order and prints
 * "threads N handled H" and one line per worker that waited (a
 * replay must print the same). Exit 0.
 *
 * With "attrmask", each worker is created with a mask of its own
 * (pthread_attr_setsigmask_np, empty), which glibc installs in its start
 * code: spool cannot hold those signals, and one that lands before the
 * thread is numbered must be counted as lost (tests/integ/395), never
 * left out of the recording silently.
 *
 * usage: rr_signewthread N [attrmask]
 */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WAIT_MAX 20000

static __thread volatile sig_atomic_t got;

static void on_usr1(int sig)
{
	(void)sig;
	got = 1;
}

static void *worker(void *a)
{
	struct timespec ts;
	long calls = 0;

	(void)a;
	while (!got && calls < WAIT_MAX) {
		clock_gettime(CLOCK_MONOTONIC, &ts); /* a recorded call: a delivery point */
		calls++;
	}
	return (void *)(intptr_t)(got ? calls : -1);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 16, handled = 0;
	int own = argc > 2 && !strcmp(argv[2], "attrmask");
	pthread_attr_t attr;
	struct sigaction sa;
	sigset_t none;
	cpu_set_t one;
	int cpu = sched_getcpu();

	if (n < 1 || n > 1000)
		return 2;
	if (cpu >= 0) {
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		sched_setaffinity(0, sizeof(one), &one); /* best effort */
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	pthread_attr_init(&attr);
	sigemptyset(&none);
	if (own && pthread_attr_setsigmask_np(&attr, &none))
		return 4;
	for (int i = 0; i < n; i++) {
		pthread_t t;
		void *r;

		if (pthread_create(&t, &attr, worker, NULL))
			return 3;
		pthread_kill(t, SIGUSR1);
		pthread_join(t, &r);
		if ((intptr_t)r >= 0)
			handled++;
		if ((intptr_t)r != 0)
			printf("worker %d: %ld calls before its handler\n", i, (long)(intptr_t)r);
	}
	printf("threads %d handled %d\n", n, handled);
	return 0;
}
