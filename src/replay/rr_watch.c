// SPDX-License-Identifier: MIT
/*
 * rr_watch.c - kill the program once the agent has stopped a recording or
 * a replay (see rr_watch.h). The watcher polls the area's flags every 5 ms:
 * the agent must not make a system call to wake the host from the parked
 * thread's path, and 5 ms is nothing beside a stuck-turn limit of seconds.
 */
#include <signal.h>
#include <string.h>
#include <time.h>

#include "rr_watch.h"

static void *rr_watch_run(void *arg)
{
	struct rr_watch *w = arg;
	struct timespec ts = {0, 5000000};

	while (!__atomic_load_n(&w->stop, __ATOMIC_ACQUIRE)) {
		uint32_t f = __atomic_load_n(&w->area->flags, __ATOMIC_ACQUIRE);

		if ((f & RR_F_STOP) && !w->killed && w->h->ctl->nprocs) {
			uint32_t pid = shm_proc_at(w->h->base, 0)->pid;

			if (pid) {
				kill((pid_t)pid, SIGKILL);
				w->killed = 1;
			}
		}
		nanosleep(&ts, NULL);
	}
	return NULL;
}

int rr_watch_start(struct rr_watch *w, struct shm_host *h, struct rr_area *area)
{
	int rc;

	memset(w, 0, sizeof(*w));
	w->h = h;
	w->area = area;
	rc = pthread_create(&w->thread, NULL, rr_watch_run, w);
	if (rc)
		return -rc;
	w->running = 1;
	return 0;
}

void rr_watch_stop(struct rr_watch *w)
{
	if (!w->running)
		return;
	__atomic_store_n(&w->stop, 1, __ATOMIC_RELEASE);
	pthread_join(w->thread, NULL);
	w->running = 0;
}
