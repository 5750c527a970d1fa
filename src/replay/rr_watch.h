// SPDX-License-Identifier: MIT
/*
 * rr_watch.h - the host's watcher of a recording or a replay: when the
 * agent sets RR_F_STOP in the area (a replay that diverged or got stuck, a
 * serial recording whose thread spins without switch points), the thread
 * that stopped is parked and the others would run on without their
 * schedule, so the watcher kills the program. spool record and spool
 * replay share it.
 */
#ifndef SPOOL_REPLAY_RR_WATCH_H
#define SPOOL_REPLAY_RR_WATCH_H

#include <pthread.h>

#include "../collect/shm_host.h"
#include "rr_area.h"

struct rr_watch {
	struct shm_host *h;
	struct rr_area *area;
	pthread_t thread;
	pthread_mutex_t mu; /* guards stop; cond wakes the watcher to see it */
	pthread_cond_t cond;
	int running;
	int stop;   /* the session is over */
	int killed; /* the program was killed (read after rr_watch_stop) */
	/* A process tree (rr_tree.h): every process's entry is watched too;
	 * set with rr_watch_tree before the program runs. */
	struct rr_tree *tree;
	uint32_t tree_max; /* entries spool laid out (the tree's own count is the program's) */
};

/* Watch the processes of a tree besides area's (a process that stops its
 * recording or replay stops the program). */
struct rr_tree;
void rr_watch_tree(struct rr_watch *w, struct rr_tree *tree, uint32_t max);

/* Start watching AREA of the session H (from a session's prepare hook).
 * Returns 0 or a negative errno. */
int rr_watch_start(struct rr_watch *w, struct shm_host *h, struct rr_area *area);
/* Stop and join the watcher; nothing when it was not started. */
void rr_watch_stop(struct rr_watch *w);

#endif
