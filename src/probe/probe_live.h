// SPDX-License-Identifier: MIT
/*
 * probe_live.h - commands to an attached spool probe (-p PID --commands,
 * --control PATH): list the probes, add one more spec, delete, disable and
 * enable probes, detach; while the program runs. The design's register and
 * unregister after the start. Each command stops the target's threads
 * (ptrace), has the agent change the probes (spool_agent_probe_ctl,
 * src/agent/agent_probe_live.c) and lets them go.
 */
#ifndef SPOOL_PROBE_PROBE_LIVE_H
#define SPOOL_PROBE_PROBE_LIVE_H

#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

#include "probe.h"
#include "probe_attach.h"

/* Ids kept for probes added later, and bytes of the probes area kept for
 * their trampolines (the memfd is sparse: untouched pages cost nothing). */
#define PROBE_LIVE_IDS 65536u
#define PROBE_LIVE_ROOM (32ull << 20)

struct collector;
struct probe_run;
struct probe_live_in {
	int fd;
	char buf[8192];
	size_t len;
};

struct probe_live {
	struct probe_mgr *m;
	struct probe_attach *a;
	pid_t pid;
	char *area;	    /* the probes area (spool's mapping) */
	uint64_t area_size; /* all of it */
	uint64_t next_off;  /* where the next batch goes */
	struct collector *col;
	struct probe_run *pr; /* its system probes (add sys:..., delete sys:...) */
	unsigned sys_on;      /* SYS_W_* on now */
	const char *trace_dir;
	int use_stdin;
	int listen_fd; /* --control socket, -1 none */
	char *ctl_path;
	struct probe_live_in in, conn; /* stdin; the socket's connection (fd -1) */
	char **specs;		       /* texts of added specs (probe_def.spec points here) */
	size_t nspecs;
	char *out; /* the answer being built */
	size_t out_len, out_cap;
	int detach;		   /* asked for (detach, end of stdin) */
	struct sigaction old_pipe; /* SIGPIPE's disposition before (ignored meanwhile) */
	/* The changes made while attached, for the trace's "probe_changes"
	 * side file (doc/probe.md): "MONO_NS CHANGE ID OP FUNCTION|SPEC"
	 * lines; probe_live_close leaves chg_buf (malloc'd) to the caller. */
	FILE *chg;
	char *chg_buf;
	size_t chg_len;
};

/* Set up: stdin commands (use_stdin) and/or a control socket at ctl_path
 * (a directory only the user can write, the path not there yet). 0 or a
 * negative errno (said why). */
int probe_live_open(struct probe_live *l, int use_stdin, const char *ctl_path);
/* Read and run the commands that arrived (no waiting); 1 when spool
 * should detach now, 0 to go on. */
int probe_live_poll(struct probe_live *l);
void probe_live_close(struct probe_live *l);

#endif
