// SPDX-License-Identifier: MIT
/*
 * probe_session.h - dynamic probes in a session (src/collect/session.h): the
 * prepare hook that hands the planned probes to the agent (the probes
 * feature area, and the system probes' sampler), the finish hook that reads
 * back what the agent placed, warns about what it could not, and writes the
 * trace's "probes" side file (with "vars" and "coverage" when there are
 * such probes). `spool probe` runs its session with these hooks; `spool
 * path` and `spool replay --record-path` add them to their own session
 * (probe_run_hook_session), for programs without -finstrument-functions.
 */
#ifndef SPOOL_PROBE_PROBE_SESSION_H
#define SPOOL_PROBE_PROBE_SESSION_H

#include <stddef.h>

#include "../collect/session.h"
#include "probe.h"

struct sysprobe;

struct probe_run {
	struct probe_mgr *m;
	int list_only;
	char handler[PROBE_PATH_MAX]; /* absolute path of --handler, "" = none */
	int handler_failed;	      /* the agent could not load it */
	int area_unknown;	      /* the program overwrote the probe area: status unknown */
	int attach_failed;	      /* spool probe -p did not attach (it said why) */
	unsigned execs_unprobed;      /* images exec'd after placing: not probed */
	unsigned sys_what;	      /* -e sys:...: SYS_W_* (src/probe/sysprobe.c) */
	pid_t sys_pid;		      /* -p PID: the process sys:cpu samples; 0 launched */
	struct sysprobe *sys;
	/* The session's own hooks, run after ours (probe_run_hook_session). */
	int (*next_prepare)(void *arg, struct shm_host *h, struct trace_writer *w);
	int (*next_finish)(void *arg, struct shm_host *h, struct trace_writer *w);
	void *next_arg;
};

/* Session hooks, arg = struct probe_run. prepare fills the probes area
 * (SHM_EXT_PROBES, sized by probe_mgr_area_size) and starts the system
 * probes; finish reads the agent's status of every probe back into pr->m,
 * logs the probes not placed, and writes the side files. Each then runs
 * the chained hook, if any. */
int probe_run_prepare(void *arg, struct shm_host *h, struct trace_writer *w);
int probe_run_finish(void *arg, struct shm_host *h, struct trace_writer *w);

/* Add pr's probes (pr->m, registered and planned) to a session that has
 * its own features and hooks: SHM_FEAT_PROBES, the area, and the hooks
 * above wrapped around so's (set those first; pr must outlive the run). */
void probe_run_hook_session(struct probe_run *pr, struct session_opts *so);

/* Registered probes that patch the text themselves (not shared), split by
 * method; and how many of them the agent placed (after the run). */
void probe_run_count(const struct probe_mgr *m, size_t *njump, size_t *nint3);
size_t probe_run_placed(const struct probe_mgr *m);

#endif
