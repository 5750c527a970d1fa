// SPDX-License-Identifier: MIT
/*
 * session.h - one traced run: check the target, create the shared memory
 * and the trace, start the program with the agent preloaded, collect until
 * it exits. `spool locks` is a session with the lock hooks on; recording and
 * probing will be sessions with other agent modes.
 */
#ifndef SPOOL_COLLECT_SESSION_H
#define SPOOL_COLLECT_SESSION_H

#include <stdint.h>

#include "collector.h"
#include "run_ident.h"

#define SESSION_STOP_TERM 1 /* SIGTERM and SIGHUP (under gdb: ^C is gdb's) */
#define SESSION_STOP_INT 2  /* and SIGINT */

struct session_opts {
	const char *trace_dir; /* created; an existing one becomes DIR.old */
	uint32_t ring_bytes;
	uint32_t max_rings;
	uint32_t max_procs; /* process slots (--max-procs); 0: SHM_DEFAULT_MAX_PROCS */
	uint32_t stack_depth;
	char **argv; /* program and its arguments */
	int quiet;
	/* End the trace when the first process exits (--until-first-exit;
	 * record and replay, whose recording is of that process only), not
	 * when the last process of the program does: those still running
	 * are counted as a loss. */
	int until_first_exit;
	/* A replay (SESSION_STOP_*): SIGTERM and SIGHUP to spool, and SIGINT
	 * with SESSION_STOP_INT, end it: every process of the program is
	 * killed (SIGKILL) and the session returns with res->stopped_by set.
	 * A replayed program's signals come from its recording; one sent to
	 * it for real was held or handled as the recording's were not, and a
	 * hung replay ran on past `timeout`'s SIGTERM. 0: they go to the
	 * program (record). */
	int stop_kills;
	/* What the command prints after the run (run_opts.c's --json and
	 * --limit, the same meaning in every command; the session itself
	 * does not use them): JSON in place of the text, and rows per table
	 * of the text (-1: the report's default; 0: all). */
	int json;
	long limit;

	/* For the features built on sessions (record/replay, probes, path):
	 * agent features (SHM_FEAT_*, 0 = SHM_FEAT_LOCKS), feature area sizes,
	 * extra NAME=VALUE environment for the program, and hooks. prepare runs
	 * after the shared memory exists and before the program starts (fill
	 * the feature areas there); finish runs after the last drain, before
	 * the trace is closed (write the feature's side files there). Each
	 * returns 0 or a negative errno; a prepare failure stops the session. */
	uint32_t features;
	uint32_t shm_flags; /* SHM_F_* for ctl->flags */
	uint64_t ext_bytes[SHM_MAX_EXT];
	char *const *env;
	int (*prepare)(void *arg, struct shm_host *h, struct trace_writer *w);
	int (*finish)(void *arg, struct shm_host *h, struct trace_writer *w);
	void *hook_arg;
	/* Run something else in the child in place of the program (spool
	 * replay --gdb runs gdb, which runs the program): called in the forked
	 * child once the program's environment is set (SPOOL_SHM_FD,
	 * LD_PRELOAD, env); returns only on failure, a negative errno. */
	int (*exec)(void *exec_arg, const char *path, char **argv);
	void *exec_arg;
	/* The descriptor number the program gets the shared region at (0: the
	 * default, session_shm_fd; -1: where spool got it, as spool did before
	 * recordings said); a replay asks for the recording's. */
	int shm_fd;
	/* spool record --compress: pack input data with zstd (zinput.c) */
	int compress;
	/* Descriptors the program gets as its stdout and stderr (index 1 and
	 * 2) in place of spool's own; 0: spool's (stdio_kind.h). Not under
	 * exec. */
	int stdio_sub[3];
	/* The program's environment and working directory in place of
	 * spool's (a replay's recorded ones, run_env.h); NULL: spool's. Not
	 * under exec. */
	char *const *base_env;
	const char *cwd;
	/* The personality, umask and limits the program gets (run_ident.h;
	 * NULL: spool's own): record asks for ADDR_NO_RANDOMIZE, a replay for
	 * the recorded ones. Limits that differ from spool's make the start a
	 * fork (they cannot be set in spool itself). */
	const struct run_ident *ident;
	/* The file to run instead of argv[0] looked up in PATH (a replay: the
	 * one the recording ran, whose argv[0] may be a link's name). */
	const char *exec_path;
	/* The program's stack (session.c, stack_pad): stack_record pads
	 * spool's variables so that a replay can match; a replay asks for the
	 * recorded bytes and entries of the file name, argv and environment
	 * (0: as they come). Under exec only a replay's (session_stack_env). */
	int stack_record;
	uint64_t stack_bytes, stack_items;
	/* With fds_set, the program gets 0, 1, 2, the region and /dev/null
	 * stand-ins at the numbers in fds, and no other descriptor of spool's
	 * (a replay: the ones the recorded program inherited, rr_fds.h; what
	 * spool was given by its own caller would move every number the
	 * program opens). Not under exec. */
	int fds_set;
	const int *fds;
	int nfds;
	/* With fds_set: a descriptor of spool's (3 or more) the program gets as
	 * it is, at its number (--goto's snapshot, read by the agent); 0:
	 * none. */
	int pass_fd;
};

struct session_result {
	int exit_status; /* as a shell reports it: status, or 128+signal */
	int term_signal; /* signal that killed the program, or 0 */
	int core_dumped;
	int ran;	 /* the program was started (exit_status is meaningful) */
	/* With o->stop_kills: the signal that stopped the session, and how
	 * many processes of the program were then killed */
	int stopped_by;
	uint32_t killed;
	int trace_error; /* negative errno if the trace could not be finished */
	/* With o->ident: the personality the program started with (read back
	 * after setting it), and the errno of a refused personality (0) */
	unsigned long persona;
	int persona_err;
	char path[4096]; /* the file that was run */
	/* bytes and entries of its file name, argv and environment (0 under
	 * exec) */
	uint64_t stack_bytes, stack_items;
	struct collector_stats st;
	struct trace_loss loss; /* what the trace's state file says it lost */
};

/* Runs the program to completion: until its first process and every
 * process it started have exited (or until_first_exit), or until SIGINT,
 * SIGTERM or SIGHUP to spool after the first process has exited (those
 * still running are left alone and counted, res->st.still_running).
 * Negative errno when the program could not
 * be started (the reason has been logged): -ENOENT not found, -EACCES not
 * executable, -ENOEXEC cannot be traced (static, setuid). Once the program
 * has run, returns 0 with res->ran set; trace problems go to trace_error. */
int session_run(const struct session_opts *o, struct session_result *res);

/* In the child of session_run, while o->exec runs: its end of the pipe on
 * which spool learns that the program started (closed by an exec; -1
 * elsewhere). An o->exec that hands the program over without an exec of
 * its own and goes on (gdb.c's handoff to gdb's process) closes it once
 * the program is on its way: until then spool waits, drains nothing and
 * does not watch the replay. */
extern int session_exec_status_fd;
/* The descriptor number o's program gets the shared region at (at least;
 * the lowest free one from there): o->shm_fd, else 1000, or 24 below a
 * lower descriptor limit. */
int session_shm_fd(const struct session_opts *o);

/* A copy of env (malloc'd array of malloc'd strings, or NULL) padded so that
 * path, argv and it take the recorded bytes and items of the program's
 * stack (session.c, stack_pad): for a program gdb starts. */
char **session_stack_env(char *const *env, const char *path, char *const *argv, uint64_t bytes,
			 uint64_t items);

/* The options every command that runs a program under a session shares,
 * parsed one way: --ring-size SIZE (a power of two from min_ring to 1g),
 * --max-threads N, --on-full wait|drop, --max-procs N. Each logs what was wrong and
 * returns -EINVAL on a bad value. */
int session_opt_ring_size(struct session_opts *so, const char *arg, uint64_t min_ring);
int session_opt_max_threads(struct session_opts *so, const char *arg);
int session_opt_on_full(struct session_opts *so, const char *arg);
/* --max-procs N: processes alive at once that get a process slot (1 to
 * SHM_MAX_PROCS). */
int session_opt_max_procs(struct session_opts *so, const char *arg);

/* The agent library: $SPOOL_AGENT, beside the spool binary, or in
 * ../lib/spool/ relative to it. */
int session_find_agent(char *path, size_t len);

/* Whether DIR can take a new trace, before the program runs: an existing
 * trace is never overwritten, it will become DIR.old (replacing an older
 * DIR.old) once the new one is whole. Only spool's own traces are moved or
 * removed: anything else at DIR or DIR.old is an error (trace_dir_check in
 * src/trace/tracedir.c). What failed is logged. Nothing is moved yet: the
 * writer (trace_writer_create) writes beside DIR and puts the trace there
 * when it closes. session_run does this; so does spool probe -p. */
int session_prepare_trace_dir(const char *dir, int quiet);

#endif
