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
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rr_watch.h"

#include "../util/procinfo.h"

/*
 * The process to kill: the program, whose pid the agent wrote into process
 * slot 0, but only if that is the process spool started or a child of it
 * (under --gdb, gdb is spool's child and starts the program): the program
 * can write any number into the region, and -1 would be every process of
 * the user. Otherwise the process spool started. 0 before it runs.
 */
static pid_t rr_watch_target(struct shm_host *h)
{
	pid_t child = (pid_t)__atomic_load_n(&h->child_pid, __ATOMIC_ACQUIRE);
	uint32_t slot0 = __atomic_load_n(&shm_proc_at(h->ctl, 0)->pid, __ATOMIC_ACQUIRE);
	pid_t pid = (pid_t)slot0;

	if (child <= 0)
		return 0;
	if (slot0 && slot0 <= INT32_MAX && (pid == child || procinfo_ppid(pid) == child))
		return pid;
	return child;
}

static void *rr_watch_run(void *arg)
{
	struct rr_watch *w = arg;

	pthread_mutex_lock(&w->mu);
	while (!w->stop) {
		uint32_t f = __atomic_load_n(&w->area->flags, __ATOMIC_ACQUIRE);
		struct rr_tree *t = __atomic_load_n(&w->tree, __ATOMIC_ACQUIRE);
		struct timespec ts;

		/* the other processes of a tree: a stopped one stops the
		 * program (its first process, which waits for the others) */
		for (uint32_t k = 1; t && k < w->tree_max && k < RR_MAX_PROCS; k++)
			f |= __atomic_load_n(&t->ent[k].flags, __ATOMIC_ACQUIRE) & RR_F_STOP;

		if ((f & RR_F_STOP) && !w->killed) {
			pid_t pid = rr_watch_target(w->h);

			if (pid > 0) {
				kill(pid, SIGKILL);
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

void rr_watch_tree(struct rr_watch *w, struct rr_tree *tree, uint32_t max)
{
	w->tree_max = max;
	__atomic_store_n(&w->tree, tree, __ATOMIC_RELEASE);
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
