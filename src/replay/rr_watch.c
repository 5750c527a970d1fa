// SPDX-License-Identifier: MIT
/*
 * rr_watch.c - kill the program once the agent has stopped a recording or
 * a replay (see rr_watch.h). The watcher polls the area's flags every 5 ms:
 * the agent must not make a system call to wake the host from the parked
 * thread's path, and 5 ms is nothing beside a stuck-turn limit of seconds.
 * It sleeps on a condition variable, not in nanosleep, so that stopping it
 * when the program has ended costs no part of a poll period: that wait was
 * a fifth of the fixed cost of replaying /bin/true.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include "rr_watch.h"

static void *rr_watch_run(void *arg)
{
	struct rr_watch *w = arg;

	pthread_mutex_lock(&w->mu);
	while (!w->stop) {
		uint32_t f = __atomic_load_n(&w->area->flags, __ATOMIC_ACQUIRE);
		struct timespec ts;

		if ((f & RR_F_STOP) && !w->killed && w->h->ctl->nprocs) {
			uint32_t pid =
			    __atomic_load_n(&shm_proc_at(w->h->ctl, 0)->pid, __ATOMIC_ACQUIRE);

			if (pid) {
				kill((pid_t)pid, SIGKILL);
				w->killed = 1;
			}
		}
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += 5000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		while (!w->stop && pthread_cond_timedwait(&w->cond, &w->mu, &ts) != ETIMEDOUT)
			;
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

int rr_watch_start(struct rr_watch *w, struct shm_host *h, struct rr_area *area)
{
	int rc;

	pthread_condattr_t ca;

	memset(w, 0, sizeof(*w));
	w->h = h;
	w->area = area;
	pthread_mutex_init(&w->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w->cond, &ca);
	pthread_condattr_destroy(&ca);
	rc = pthread_create(&w->thread, NULL, rr_watch_run, w);
	if (rc) {
		pthread_cond_destroy(&w->cond);
		pthread_mutex_destroy(&w->mu);
		return -rc;
	}
	w->running = 1;
	return 0;
}

void rr_watch_stop(struct rr_watch *w)
{
	if (!w->running)
		return;
	pthread_mutex_lock(&w->mu);
	w->stop = 1;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->mu);
	pthread_join(w->thread, NULL);
	pthread_cond_destroy(&w->cond);
	pthread_mutex_destroy(&w->mu);
	w->running = 0;
}
