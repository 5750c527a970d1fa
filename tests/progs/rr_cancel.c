// SPDX-License-Identifier: MIT
/*
 * rr_cancel - pthread_cancel of a thread waiting at a cancellation point,
 * for record/replay (doc/record.md, "Threads"; tests/integ/129-rr-cancel.t).
 *
 *   rr_cancel HOW [ROUNDS]
 *
 * HOW is where the victim waits when it is cancelled:
 *   cond        pthread_cond_wait (its cleanup handler unlocks the mutex,
 *               which the wait took back)
 *   timedcond   pthread_cond_timedwait with a deadline an hour away
 *   read        read of a pipe nobody writes to
 *   sleep       sleep(1000)
 *   nanosleep   clock_nanosleep for an hour
 *   join        pthread_join of a thread that waits in read forever
 *   sem         sem_wait of a semaphore nobody posts
 *   poll        poll of the empty pipe, no timeout
 *   ppoll       ppoll of the empty pipe with a signal mask
 *   pause       pause()
 *   sigwait     sigwait for SIGUSR1 (blocked, never sent)
 *   testcancel  a loop of pthread_testcancel() and sched_yield()
 *   async       a loop of sched_yield() with the asynchronous cancel type
 *               (spool does not support it: record says so)
 *   fsync       a loop of fsync(-1) (a cancellation point spool does not
 *               record) and sched_yield()
 *   asyncoff    pthread_cond_wait after the cancel type was set to
 *               asynchronous and back to deferred
 *   disabled    cancellation disabled in a cond wait, enabled after the
 *               wait: the next pthread_testcancel() acts
 *   self        pthread_cancel(pthread_self()) then pthread_testcancel()
 *
 * Each of ROUNDS rounds (default 3) starts a victim that pushes two
 * cleanup handlers, tells the main thread it is about to wait, and waits.
 * The main thread lets it reach the wait (a short sleep), cancels it,
 * joins it and prints what the cleanup handlers saw. A counter shared by
 * the victim and a busy helper thread under a mutex makes the printed
 * values depend on the interleaving, so a replay that runs another one
 * prints other numbers.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static pthread_cond_t ready_cv = PTHREAD_COND_INITIALIZER;
static int ready, never, woken, stop_helper;
static long shared;
static int pipefd[2];
static sem_t sem;
static const char *how;
static int cleanups, mutex_held_in_cleanup;
static long seen_in_cleanup;

static void cleanup_outer(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&mu);
	cleanups++;
	seen_in_cleanup = shared;
	pthread_mutex_unlock(&mu);
}

static void cleanup_unlock(void *arg)
{
	(void)arg;
	/* the wait took the mutex back before the handlers ran */
	mutex_held_in_cleanup = pthread_mutex_trylock(&mu) == EBUSY;
	pthread_mutex_unlock(&mu);
}

static void say_ready(void)
{
	pthread_mutex_lock(&mu);
	ready = 1;
	shared += 1000;
	pthread_cond_signal(&ready_cv);
	pthread_mutex_unlock(&mu);
}

static void *blocker(void *arg)
{
	char c;

	(void)arg;
	if (read(pipefd[0], &c, 1) < 0)
		perror("read");
	return NULL;
}

static void *victim(void *arg)
{
	char c;

	(void)arg;
	pthread_cleanup_push(cleanup_outer, NULL);
	if (!strcmp(how, "asyncoff")) {
		int old;

		pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, &old);
		pthread_setcanceltype(PTHREAD_CANCEL_DEFERRED, &old);
	}
	if (!strcmp(how, "cond") || !strcmp(how, "timedcond") || !strcmp(how, "disabled") ||
	    !strcmp(how, "asyncoff")) {
		pthread_mutex_lock(&mu);
		ready = 1;
		shared += 1000;
		pthread_cond_signal(&ready_cv);
		pthread_cleanup_push(cleanup_unlock, NULL);
		if (!strcmp(how, "disabled"))
			pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
		while (!never && !woken) {
			if (!strcmp(how, "timedcond")) {
				struct timespec ts;

				clock_gettime(CLOCK_REALTIME, &ts);
				ts.tv_sec += 3600;
				pthread_cond_timedwait(&cv, &mu, &ts);
			} else {
				pthread_cond_wait(&cv, &mu);
			}
		}
		pthread_cleanup_pop(0);
		pthread_mutex_unlock(&mu);
		if (!strcmp(how, "disabled")) {
			pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
			pthread_testcancel();
			printf("not cancelled after enabling\n");
		}
	} else if (!strcmp(how, "read")) {
		say_ready();
		if (read(pipefd[0], &c, 1) < 0)
			perror("read");
	} else if (!strcmp(how, "poll")) {
		struct pollfd p = {.fd = pipefd[0], .events = POLLIN};

		say_ready();
		poll(&p, 1, -1);
	} else if (!strcmp(how, "ppoll")) {
		struct pollfd p = {.fd = pipefd[0], .events = POLLIN};
		sigset_t m;

		sigemptyset(&m);
		say_ready();
		ppoll(&p, 1, NULL, &m);
	} else if (!strcmp(how, "pause")) {
		say_ready();
		pause();
	} else if (!strcmp(how, "sigwait")) {
		sigset_t m;
		int sig;

		sigemptyset(&m);
		sigaddset(&m, SIGUSR1);
		pthread_sigmask(SIG_BLOCK, &m, NULL);
		say_ready();
		sigwait(&m, &sig);
	} else if (!strcmp(how, "sleep")) {
		say_ready();
		sleep(1000);
	} else if (!strcmp(how, "nanosleep")) {
		struct timespec ts = {3600, 0};

		say_ready();
		clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
	} else if (!strcmp(how, "join")) {
		pthread_t b;

		pthread_create(&b, NULL, blocker, NULL);
		say_ready();
		pthread_join(b, NULL);
	} else if (!strcmp(how, "sem")) {
		say_ready();
		sem_wait(&sem);
	} else if (!strcmp(how, "testcancel")) {
		say_ready();
		for (;;) {
			pthread_testcancel();
			sched_yield();
		}
	} else if (!strcmp(how, "async")) {
		int old;

		pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, &old);
		say_ready();
		for (;;)
			sched_yield();
	} else if (!strcmp(how, "fsync")) {
		say_ready();
		for (;;) {
			fsync(-1);
			sched_yield();
		}
	} else if (!strcmp(how, "self")) {
		say_ready();
		pthread_cancel(pthread_self());
		pthread_testcancel();
	}
	printf("the victim was not cancelled\n");
	pthread_cleanup_pop(0);
	return NULL;
}

static void *helper(void *arg)
{
	(void)arg;
	for (;;) {
		pthread_mutex_lock(&mu);
		if (stop_helper) {
			pthread_mutex_unlock(&mu);
			return NULL;
		}
		shared++;
		pthread_mutex_unlock(&mu);
		sched_yield();
	}
}

int main(int argc, char **argv)
{
	int rounds = argc > 2 ? atoi(argv[2]) : 3;
	pthread_t h;

	if (argc < 2) {
		fprintf(stderr, "usage: rr_cancel HOW [ROUNDS]\n");
		return 2;
	}
	how = argv[1];
	if (pipe(pipefd) || sem_init(&sem, 0, 0))
		return 1;
	setvbuf(stdout, NULL, _IOLBF, 0);
	pthread_create(&h, NULL, helper, NULL);
	for (int r = 0; r < rounds; r++) {
		pthread_t v;
		void *res;
		struct timespec nap = {0, 20000000};

		ready = 0;
		woken = 0;
		cleanups = 0;
		mutex_held_in_cleanup = -1;
		pthread_create(&v, NULL, victim, NULL);
		pthread_mutex_lock(&mu);
		while (!ready)
			pthread_cond_wait(&ready_cv, &mu);
		pthread_mutex_unlock(&mu);
		nanosleep(&nap, NULL); /* let it reach its wait */
		if (strcmp(how, "self"))
			pthread_cancel(v);
		if (!strcmp(how, "disabled")) {
			pthread_mutex_lock(&mu);
			woken = 1; /* (a wait may wake up spuriously: a predicate) */
			pthread_cond_signal(&cv);
			pthread_mutex_unlock(&mu);
		}
		pthread_join(v, &res);
		printf("round %d: %s, cleanups %d, mutex held in cleanup %d, shared %s\n", r,
		       res == PTHREAD_CANCELED ? "cancelled" : "returned", cleanups,
		       mutex_held_in_cleanup, seen_in_cleanup > 0 ? "counted" : "zero");
		printf("round %d: shared was %ld\n", r, seen_in_cleanup);
	}
	pthread_mutex_lock(&mu);
	stop_helper = 1;
	pthread_mutex_unlock(&mu);
	pthread_join(h, NULL);
	printf("done\n");
	return 0;
}
