// SPDX-License-Identifier: MIT
/*
 * rr_sevmany.c - more SIGEV_THREAD timers at once than the agent had slots
 * for (32; tests/integ/354-rr-sevthread-many.t): N one-shot timers, the
 * i-th expiring after i + 1 ms, each function appending its sigval to a
 * journal under a mutex and signalling a condition variable; main waits
 * for all N, deletes the timers and prints the journal, whose order is the
 * order the functions ran in. A timer past the agent's slots ran glibc's
 * way, in a thread spool could not number, so a sync replay diverged.
 *
 * usage: rr_sevmany [N]
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define MAX_TIMERS 100

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int journal[MAX_TIMERS], fired;

static void expired(union sigval v)
{
	pthread_mutex_lock(&mu);
	if (fired < MAX_TIMERS)
		journal[fired] = v.sival_int;
	fired++;
	pthread_cond_signal(&cv);
	pthread_mutex_unlock(&mu);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 40;
	timer_t ids[MAX_TIMERS];

	if (n < 1 || n > MAX_TIMERS)
		return 2;
	for (int i = 0; i < n; i++) {
		struct sigevent sev = {0};
		struct itimerspec its = {{0, 0}, {0, (long)(i + 1) * 1000000}};

		sev.sigev_notify = SIGEV_THREAD;
		sev.sigev_notify_function = expired;
		sev.sigev_value.sival_int = i;
		if (timer_create(CLOCK_MONOTONIC, &sev, &ids[i]) || timer_settime(ids[i], 0, &its, NULL)) {
			perror("timer");
			return 1;
		}
	}
	pthread_mutex_lock(&mu);
	while (fired < n)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	for (int i = 0; i < n; i++)
		timer_delete(ids[i]);
	printf("fired %d:", fired);
	for (int i = 0; i < n; i++)
		printf(" %d", journal[i]);
	printf("\n");
	return 0;
}
