// SPDX-License-Identifier: MIT
/*
 * gdb.h - `spool replay --gdb`: the session's child runs gdb, and gdb runs
 * the program with the agent preloaded (doc/record.md, "--gdb"). gdb itself
 * is never preloaded: the agent's LD_PRELOAD is moved from gdb's
 * environment into the inferior's. gdb also loads spool's extension
 * (spool-gdb.py: set record-mode, set replay-mode, set snap-period).
 */
#ifndef SPOOL_REPLAY_GDB_H
#define SPOOL_REPLAY_GDB_H

#include <stdint.h>
#include <stddef.h>

struct session_opts;

struct replay_gdb {
	const char *gdb;     /* the debugger: $SPOOL_GDB or "gdb" from PATH */
	char script[4096];   /* spool-gdb.py, or "" when it cannot be found */
	char **args;	     /* extra gdb arguments (--gdb-args, split like a shell) */
	size_t nargs;
	const char *trace;   /* the recording being replayed (told to the extension) */
	int follow_child;    /* a tree replayed for one process (--pid): gdb follows each
				fork and spawn, which are the ones on the way to it */
	void *wordexp_state; /* owns args */
	/* The program's environment (the recorded one, after the trust rules:
	 * run_env_load) and the replay's own variables over it (--env,
	 * session_opts.env), and the recorded working directory (NULL: gdb's):
	 * the inferior gets them (spool-gdb.py), gdb keeps spool's */
	char *const *env;
	char *const *extra;
	const char *cwd;
	/* the recorded stack's bytes and items (0: not known), which the
	 * inferior's environment is padded to (session_stack_env) */
	uint64_t stack_bytes, stack_items;
};

/* Prepares g before the session starts, so that errors (unbalanced quotes
 * in gdb_args) are reported before anything runs. Returns 0 or -EINVAL. */
int replay_gdb_init(struct replay_gdb *g, const char *gdb_args, const char *trace);
void replay_gdb_free(struct replay_gdb *g);

/* The session's exec hook (struct session_opts.exec, exec_arg = g): runs in
 * the forked child, execs gdb on PATH ARGV; returns only on failure. */
int replay_gdb_exec(void *g, const char *path, char **argv);

/* spool-gdb.py: $SPOOL_GDB_SCRIPT, beside the spool binary, or in
 * ../share/spool/ relative to it. 0 or -ENOENT. */
int replay_gdb_find_script(char *path, size_t len);

/* --gdb-wrapper of spool record and spool replay: the command runs as gdb's
 * exec-wrapper (the extension's `set record-mode on` / `set replay-mode on`),
 * in the process gdb traces, which must become the program. It forks the
 * session into the background (a new session, so the terminal's ^C goes to
 * the program only) and sets so->exec so that the session's child hands the
 * program's environment and shared memory back; this process then execs the
 * program. Returns 0 in the background process (the command carries on and
 * runs the session), never returns in gdb's process unless it failed
 * (negative errno). $SPOOL_GDB_DONE names a file the background process
 * keeps locked (flock) until it has finished the trace, so gdb can wait. */
int replay_gdb_wrapper_start(struct session_opts *so);

#endif
