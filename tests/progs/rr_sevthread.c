// SPDX-License-Identifier: MIT
/*
 * rr_sevthread.c - SIGEV_THREAD timers whose functions share data with the
 * program's own threads (tests/integ/319-rr-sevthread.t): two periodic
 * timers, each with its own sigval, append to a shared log under a mutex
 * and signal a condition variable; two worker threads append to the same
 * log; main waits until the timers have fired TICKS times in all, deletes
 * them, joins the workers and prints the log. The log's order depends on
 * when each timer fired, so a replay that ran the functions elsewhere than
 * recorded prints another one.
 *
 * usage: rr_sevthread [TICKS]
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static char journal[4096];
static size_t njournal;
static int ticks, stop;

static void note(char c)
{
	if (njournal + 1 < sizeof(journal))
		journal[njournal++] = c;
}

static void tick(union sigval v)
{
	pthread_mutex_lock(&mu);
	ticks++;
	note((char)v.sival_int);
	pthread_cond_signal(&cv);
	pthread_mutex_unlock(&mu);
}

static void *worker(void *arg)
{
	char c = (char)(long)arg;

	for (;;) {
		struct timespec ts = {0, 3000000};

		pthread_mutex_lock(&mu);
		if (stop) {
			pthread_mutex_unlock(&mu);
			return NULL;
		}
		note(c);
		pthread_mutex_unlock(&mu);
		nanosleep(&ts, NULL);
	}
}

static int make_timer(timer_t *t, int tag, long ns)
{
	struct sigevent sev;
	struct itimerspec its = {{0, ns}, {0, ns}};

	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD;
	sev.sigev_notify_function = tick;
	sev.sigev_value.sival_int = tag;
	if (timer_create(CLOCK_MONOTONIC, &sev, t)) {
		perror("timer_create");
		return -1;
	}
	if (timer_settime(*t, 0, &its, NULL)) {
		perror("timer_settime");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int want = argc > 1 ? atoi(argv[1]) : 20;
	pthread_t w[2];
	timer_t t1, t2;

	for (long i = 0; i < 2; i++)
		pthread_create(&w[i], NULL, worker, (void *)('a' + i));
	if (make_timer(&t1, 'X', 7000000) || make_timer(&t2, 'Y', 11000000))
		return 1;
	pthread_mutex_lock(&mu);
	while (ticks < want)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	timer_delete(t1);
	timer_delete(t2);
	pthread_mutex_lock(&mu);
	stop = 1;
	pthread_mutex_unlock(&mu);
	for (int i = 0; i < 2; i++)
		pthread_join(w[i], NULL);
	journal[njournal] = 0;
	printf("ticks %d\n%s\n", ticks >= want, journal);
	return 0;
}
