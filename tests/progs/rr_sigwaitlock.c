// SPDX-License-Identifier: MIT
/*
 * rr_sigwaitlock.c - the way Boehm's collector stops the world, with a
 * thread blocked where only the program can end its wait: the main thread
 * holds a mutex (mode "mutex") or keeps a condition false (mode "cond"),
 * signals the worker with pthread_kill and waits up to 5 s for its
 * handler's answer (a sem_post), and only then unlocks the mutex or sets
 * the condition. Without spool the worker's handler runs inside its wait.
 * A sync recording delivered signals only at the thread's next recorded
 * event, which this wait ends: the answer never came ("no answer", exit
 * 1; the collector aborts there). Prints "rounds N answered N" and exits 0.
 *
 * usage: rr_sigwaitlock mutex|cond ROUNDS
 */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static sem_t ack, start, done, hello;
static int go_round, answered, use_cond, rounds;

static void on_usr1(int sig)
{
	(void)sig;
	__atomic_fetch_add(&answered, 1, __ATOMIC_RELAXED);
	sem_post(&ack);
}

static void *worker(void *a)
{
	/* The signal waits until the thread is running its own code, so that
	 * it lands in the wait this test is about. (One sent while the thread
	 * starts, before spool numbers it, ran its handler unrecorded, and the
	 * replay never got the answer; the new thread now holds its signals
	 * until it is numbered: tests/integ/392.) */
	sem_post(&hello);
	for (int r = 1; r <= rounds; r++) {
		sem_wait(&start);
		pthread_mutex_lock(&mu); /* mutex mode: blocked here */
		while (use_cond && go_round < r)
			pthread_cond_wait(&cv, &mu); /* cond mode: blocked here */
		pthread_mutex_unlock(&mu);
		sem_post(&done);
	}
	return a;
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	pthread_t t;

	if (argc != 3 || (strcmp(argv[1], "mutex") && strcmp(argv[1], "cond")))
		return 2;
	use_cond = !strcmp(argv[1], "cond");
	rounds = atoi(argv[2]);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	sem_init(&ack, 0, 0);
	sem_init(&start, 0, 0);
	sem_init(&done, 0, 0);
	sem_init(&hello, 0, 0);
	pthread_create(&t, NULL, worker, NULL);
	sem_wait(&hello);
	for (int r = 1; r <= rounds; r++) {
		struct timespec ts, nap = {0, 2000000};
		int rc;

		if (!use_cond)
			pthread_mutex_lock(&mu);
		sem_post(&start);
		nanosleep(&nap, NULL); /* the worker waits by now (or soon) */
		pthread_kill(t, SIGUSR1);
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 5;
		while ((rc = sem_timedwait(&ack, &ts)) < 0 && errno == EINTR)
			;
		if (rc < 0) {
			printf("no answer in round %d\n", r);
			return 1;
		}
		if (use_cond) {
			pthread_mutex_lock(&mu);
			go_round = r;
			pthread_cond_signal(&cv);
		}
		pthread_mutex_unlock(&mu);
		sem_wait(&done);
	}
	pthread_join(t, NULL);
	printf("rounds %d answered %d\n", rounds, answered);
	return 0;
}
