// SPDX-License-Identifier: MIT
/*
 * gdbsrv_int.h - the internals of `spool replay --gdbserver` (gdbsrv*.c):
 * spool serves gdb over the GDB remote serial protocol and debugs the replay
 * under ptrace, so that an unmodified gdb can run it backwards.
 *
 * The pieces: gdbsrv_rsp.c reads and writes packets; gdbsrv_inf.c starts a
 * replay under ptrace (PTRACE_SEIZE, all-stop: every thread is stopped
 * whenever gdb looks), its threads, registers, memory, breakpoints and
 * debug registers; gdbsrv_rev.c keeps the history of what ran since the
 * replay began and goes back (reverse-continue, reverse-step) by starting a
 * replay positioned before the point and running forward again; gdbsrv.c
 * answers gdb's packets.
 *
 * Positions. A replay is deterministic, so a point of it is named by how it
 * was reached from the start: a list of commands (struct gdbsrv_cmd), each
 * "resume the threads this way with these breakpoints and watchpoints
 * inserted, N times, each time up to the next stop". Running the list again
 * from a fresh replay reaches the same state. Threads are named by their
 * creation order (vidx), which the serial schedule makes the same in every
 * replay, and gdb sees them by stable virtual ids.
 */
#ifndef SPOOL_REPLAY_GDBSRV_INT_H
#define SPOOL_REPLAY_GDBSRV_INT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../arch/arch_gdb.h"
#include "rr_fds.h"

#define GDBSRV_MAX_BP 128
#define GDBSRV_MAX_WP 4
#define GDBSRV_MAX_THREADS 1024
#define GDBSRV_PKT_MAX 16384

/* --- packets (gdbsrv_rsp.c) --- */
struct gdbsrv_rsp {
	int in, out;
	int noack;
	char buf[GDBSRV_PKT_MAX + 1];
	size_t len;
	unsigned char rbuf[4096]; /* bytes read and not consumed yet */
	size_t rpos, rlen;
};

/* Next packet into r->buf (NUL-terminated), or 0x03 as the one-byte packet
 * "\x03" (an interrupt). 0, or -EPIPE when gdb has gone. */
int gdbsrv_rsp_get(struct gdbsrv_rsp *r);
int gdbsrv_rsp_put(struct gdbsrv_rsp *r, const char *data, size_t len);
int gdbsrv_rsp_puts(struct gdbsrv_rsp *r, const char *s);
/* 1 when gdb has sent an interrupt (^C) since, 0 if not (non-blocking). */
int gdbsrv_rsp_poll_intr(struct gdbsrv_rsp *r);
/* A SIGINT at spool (the terminal's ^C reaches gdb's whole process group
 * under `target remote |`) stops a running replay as gdb's 0x03 does, as
 * rr does; one that comes while the replay is stopped is dropped (spool
 * stays). sigint_init installs the handler and unblocks SIGINT (0, or
 * -errno: then SIGINT is ignored); sigint_fd is readable once a SIGINT
 * came (-1 without the handler); sigint_take drains it and returns 1 when
 * one had come. The handler writes one byte to a non-blocking pipe
 * (async-signal-safe, errno kept). */
int gdbsrv_rsp_sigint_init(void);
int gdbsrv_rsp_sigint_fd(void);
int gdbsrv_rsp_sigint_take(void);
void gdbsrv_hex(char *out, const void *data, size_t len);
int gdbsrv_unhex(void *out, const char *in, size_t len);

/* --- breakpoints and watchpoints in force --- */
struct gdbsrv_wp {
	uint64_t addr;
	uint32_t len;
	uint32_t type; /* 2 write, 3 read, 4 access (the Z packet's) */
};

struct gdbsrv_cfg {
	uint64_t bp[GDBSRV_MAX_BP];
	uint32_t nbp;
	uint32_t nwp;
	struct gdbsrv_wp wp[GDBSRV_MAX_WP];
};

int gdbsrv_cfg_has_bp(const struct gdbsrv_cfg *c, uint64_t addr);
int gdbsrv_cfg_find_wp(const struct gdbsrv_cfg *c, const struct gdbsrv_wp *w);
/* dst = a U b (duplicates once); -ENOSPC when it does not fit. */
int gdbsrv_cfg_union(struct gdbsrv_cfg *dst, const struct gdbsrv_cfg *a,
		     const struct gdbsrv_cfg *b);

/* --- the inferior (gdbsrv_inf.c) --- */
enum { GDBSRV_T_RUNNING, GDBSRV_T_STOPPED };

struct gdbsrv_thread {
	pid_t tid;
	int vidx;	   /* creation order, 0 = main */
	int state;	   /* GDBSRV_T_* */
	int action;	   /* while resumed: 0 stay, 1 continue, 2 step */
	int sig;	   /* signal to deliver on the next resume */
	int has_pending;   /* a stop seen while stopping the others, not reported yet */
	int pending_status; /* the pending watchpoint's index in the inserted set */
	uint64_t step_from; /* its pc when it was last set stepping */
	uint64_t segv_pc;   /* its pc when it was last resumed with SIGSEGV, or 0 */
};

enum {
	GDBSRV_STOP_NONE,
	GDBSRV_STOP_BP,	    /* a software breakpoint at addr (pc is addr) */
	GDBSRV_STOP_STEP,   /* the stepping thread finished its step */
	GDBSRV_STOP_WATCH,  /* watchpoint wp (addr) triggered, pc after the access */
	GDBSRV_STOP_SIGNAL, /* a signal gdb should see (sig) */
	GDBSRV_STOP_EXIT,   /* the process exited (code) or was killed (sig) */
	GDBSRV_STOP_INTR,   /* gdb's ^C */
	GDBSRV_STOP_START,  /* the program's first instruction */
	GDBSRV_STOP_TURN,   /* the agent's stop as turn arm_turn begins (never gdb's) */
};

struct gdbsrv_stop {
	int kind;
	int vidx;
	pid_t tid;
	int sig;
	int code;
	uint64_t addr;
	struct gdbsrv_wp wp;
};

struct gdbsrv_inf {
	const char *spool;   /* this spool binary (/proc/self/exe) */
	const char *trace;
	char **prog_argv;    /* after "--", or NULL */
	char **env;	     /* the recorded environment (run_env_load), or NULL */
	int fds[RR_FDS_MAX]; /* the descriptors the recorded program inherited (rr_fds.h) */
	int nfds;
	char tmp[256];	     /* a private directory: the replays' traces, the lock */
	char lock[300];
	int quiet_output;    /* restarts: the program's output goes to /dev/null */
	pid_t pid;	     /* the program (0 when none) */
	int memfd;
	struct gdbsrv_thread th[GDBSRV_MAX_THREADS];
	int nth;
	int next_vidx;
	struct gdbsrv_cfg ins; /* inserted in the program */
	uint8_t orig[GDBSRV_MAX_BP][ARCH_GDB_BP_LEN]; /* the program's bytes under each */
	int step_vidx;	     /* the thread the current resume steps, -1 none */
	int exited;
	int exit_code, exit_sig;
	unsigned long nstarts;
	int copy;	     /* pid is a checkpoint's copy (gdbsrv_ckpt.c): no session of its own */
	unsigned sess;	     /* the fresh replay pid is, or was copied from (its session) */
	unsigned nsess;	     /* fresh replays started: each has its trace, lock and session */
	uint64_t run_ns;     /* time resumed since the last checkpoint, or since it began */
	/* gdb's connection (its pipe or socket), watched for its end while
	 * spool waits for the replay; -1: not watched (spool's own exit) */
	int watch_in, watch_out;
	/* --goto EVENT (UINT64_MAX: none): every fresh replay starts from the
	 * recorded snapshot before EVENT and runs to the SIGTRAP its agent
	 * sends itself as turn EVENT begins (goto_wait meanwhile); that stop is
	 * the replay's start, where its history begins */
	uint64_t goto_event;
	/* --goto EVENT:COUNT (UINT64_MAX: EVENT alone): the snapshot at or
	 * before that position; the stop is as for EVENT (at the restore when
	 * the snapshot is at EVENT) */
	uint64_t goto_count;
	int goto_wait;
	int start_vidx; /* the thread of the start stop (0, or the goto's) */
	/* a fresh replay restored from the recorded snapshot before turn
	 * jump_turn and run to its start (as --goto does; UINT64_MAX: none),
	 * for going back (gdbsrv_rev.c) */
	uint64_t jump_turn;
	/* the agent stops itself (GDBSRV_STOP_TURN) as turn arm_turn begins
	 * (0: never): rr_area.goto_stop, written before each resume */
	uint64_t arm_turn;
	uint64_t area; /* the replay's rr_area in the program (0: not found yet) */
};

int gdbsrv_inf_start(struct gdbsrv_inf *f);
/* 1 when gdb's connection has ended (hung up, closed, an error); a packet
 * waiting to be read is not an end. */
int gdbsrv_inf_gdb_gone(const struct gdbsrv_inf *f);
void gdbsrv_inf_kill(struct gdbsrv_inf *f);
struct gdbsrv_thread *gdbsrv_inf_thread(struct gdbsrv_inf *f, pid_t tid);
struct gdbsrv_thread *gdbsrv_inf_vthread(struct gdbsrv_inf *f, int vidx);
/* Make the breakpoints and watchpoints in the program those of c. */
int gdbsrv_inf_set_cfg(struct gdbsrv_inf *f, const struct gdbsrv_cfg *c);
/* Resume: the thread step_vidx (-1 none) steps, the others continue when
 * others_run, then wait for the next stop and stop every thread. intr: also
 * stop at gdb's ^C (r, may be NULL). */
int gdbsrv_inf_resume(struct gdbsrv_inf *f, int step_vidx, int others_run,
		      struct gdbsrv_rsp *r, struct gdbsrv_stop *st);
/* Watchpoint hits to count without stopping (reverse execution runs past
 * thousands): up to max hits of the watchpoints of wps by a continuing
 * thread only count (passed, the last in last); the next stop is returned. */
struct gdbsrv_pass {
	const struct gdbsrv_cfg *wps;
	uint64_t max;
	uint64_t passed;
	struct gdbsrv_stop last;
	const struct gdbsrv_cfg *sub; /* of these, passed_sub (may be NULL) */
	uint64_t max_sub, passed_sub;
};
int gdbsrv_inf_resume_pass(struct gdbsrv_inf *f, int step_vidx, int others_run,
			   struct gdbsrv_rsp *r, struct gdbsrv_stop *st, struct gdbsrv_pass *ps);
/* The token's turn now (rr_area.tturn), UINT64_MAX when the agent's area
 * is not there (before its constructor ran). */
uint64_t gdbsrv_inf_turn(struct gdbsrv_inf *f);
/* rr_area.goto_stop as f->arm_turn says (before a resume): 0, -ENOTSUP
 * when a turn is to be armed and the area is not there yet. */
int gdbsrv_inf_arm(struct gdbsrv_inf *f);
/* A replay restored from a snapshot: its threads' vidx become their agent
 * thread numbers (their creation order in a replay from the beginning),
 * next_vidx the numbers handed out. -EPROTO when a thread is not found. */
int gdbsrv_inf_renumber(struct gdbsrv_inf *f);
int gdbsrv_inf_read(struct gdbsrv_inf *f, uint64_t addr, void *buf, size_t len);
int gdbsrv_inf_write(struct gdbsrv_inf *f, uint64_t addr, const void *buf, size_t len);
uint64_t gdbsrv_inf_pc(struct gdbsrv_inf *f, struct gdbsrv_thread *t);
/* The inferior becomes process pid (a checkpoint's copy, every thread
 * stopped; tids[i] is th[i]'s copy): /proc/PID/mem, debug registers. */
int gdbsrv_inf_adopt(struct gdbsrv_inf *f, pid_t pid, const pid_t *tids);
/* The background session of fresh replay sess: wait until it has finished
 * its trace (the program it watched has ended), then remove the trace. */
void gdbsrv_inf_wait_session(struct gdbsrv_inf *f, unsigned sess);

/* --- a copy of the stopped replay under ptrace (gdbsrv_fork.c) --- */
/* Process pid, every thread (tids, nth of them) stopped under ptrace,
 * copied: *copy_pid, copy_tids[i] the copy of tids[i], every thread
 * stopped; quiet: its descriptors 1 and 2 go to /dev/null. fresh: pid is a
 * fresh replay (not a copy), -EAGAIN when its agent has not mapped spool's
 * memory yet; -EBUSY: a thread is inside a call at a ptrace event. */
int gdbsrv_fork(pid_t pid, const pid_t *tids, int nth, int fresh, int quiet, pid_t *copy_pid,
		pid_t *copy_tids);
/* Process pid, traced and not the live replay, killed and reaped: its
 * threads tids (nth) by their ids first, then pid. */
void gdbsrv_reap(pid_t pid, const pid_t *tids, int nth);

/* --- what is left after spool ends (gdbsrv_janitor.c) --- */
/* A process that, once spool has ended in any way, waits for the replay
 * sessions writing into dir and removes dir. */
int gdbsrv_janitor_start(const char *dir);

/* --- registers and the target description: the CPU's (src/arch/arch_gdb.h) --- */
#define GDBSRV_NREGS ARCH_GDB_NREGS

/* --- history and reverse execution (gdbsrv_rev.c) --- */
struct gdbsrv_cmd {
	int step_vidx;	/* -1: no thread steps */
	int others_run; /* the threads that do not step continue */
	uint64_t until_pc; /* not 0: stop when step_vidx's pc is this, nstops times */
	uint64_t nstops;
	struct gdbsrv_cfg cfg;
	/* not 0: the agent also stops as turn to_turn begins, and that stop
	 * ends the command (its one stop: no stop of cfg comes before it) */
	uint64_t to_turn;
	/* the token's turn at its first and its last stop (UINT64_MAX: not
	 * known); not part of what names the point */
	uint64_t turn_first, turn_last;
};

struct gdbsrv_pos {
	struct gdbsrv_cmd *v;
	size_t n, cap;
};

/* --- checkpoints (gdbsrv_ckpt.c) --- */
#define GDBSRV_MAX_CKPT 24

/* A process kept stopped at a named point: going back starts from a copy
 * of it instead of from the beginning. */
struct gdbsrv_ckpt {
	pid_t pid;
	int base;		 /* the fresh replay's own process: its session lives with it */
	unsigned sess;		 /* the fresh replay it comes from */
	struct gdbsrv_pos at;	 /* its point */
	struct gdbsrv_stop st;	 /* the stop there */
	struct gdbsrv_thread *th; /* its threads, as the inferior had them */
	int nth, next_vidx;
	struct gdbsrv_cfg ins; /* breakpoints in its memory */
	uint8_t orig[GDBSRV_MAX_BP][ARCH_GDB_BP_LEN];
	uint64_t stops; /* gdbsrv_pos_stops(&at) */
	uint64_t turn;	/* the token's turn there (UINT64_MAX: not known) */
};

struct gdbsrv {
	struct gdbsrv_rsp rsp;
	struct gdbsrv_inf inf;
	struct gdbsrv_cfg user;	 /* what gdb has inserted (Z packets) */
	struct gdbsrv_pos hist;	 /* how the current point was reached */
	struct gdbsrv_stop last; /* the last stop reported */
	/* ARCH_GDB_WATCH_BEFORE: after a watchpoint stop reported (already
	 * after the access), the thread (vidx + 1; 0 none) gdb will step over
	 * it in the direction it went (rev): that step is answered in place */
	int wstep_vidx1;
	int wstep_rev;
	int gvidx, cvidx;	 /* Hg and Hc threads (-1: any) */
	uint64_t vpid;		 /* the pid gdb sees (the first replay's) */
	uint64_t replays;	 /* replays started (1 + the restarts) */
	struct gdbsrv_ckpt ckpt[GDBSRV_MAX_CKPT];
	int nckpt;
	int ckpt_off;		    /* SPOOL_GDBSRV_CHECKPOINTS=0 */
	uint64_t ckpt_ns;	    /* a checkpoint once the replay ran this long since the last */
	uint64_t ckpts_taken;	    /* checkpoints made */
	uint64_t ckpt_starts;	    /* replays started from a checkpoint */
	struct gdbsrv_stop start_st; /* the stop gdbsrv_start_before positioned at */
	/* the recording's snapshots (their turns, increasing): going back may
	 * start from one (gdbsrv_rev.c); SPOOL_GDBSRV_SNAPSHOTS=0: never */
	uint64_t *snaps;
	size_t nsnaps;
	uint64_t snap_starts; /* replays restored from a snapshot to go back */
};

int gdbsrv_pos_push(struct gdbsrv_pos *p, const struct gdbsrv_cmd *c);
void gdbsrv_pos_free(struct gdbsrv_pos *p);
uint64_t gdbsrv_pos_stops(const struct gdbsrv_pos *p);
/* Live forward execution: resume as gdb asked, append to the history. */
int gdbsrv_forward(struct gdbsrv *s, int step_vidx, int others_run, struct gdbsrv_stop *st);
/* Back to the point the history names (after a reverse command failed). */
int gdbsrv_goto_hist(struct gdbsrv *s, struct gdbsrv_stop *st);
/* bc and bs. */
int gdbsrv_reverse_continue(struct gdbsrv *s, struct gdbsrv_stop *st);
int gdbsrv_reverse_step(struct gdbsrv *s, int vidx, struct gdbsrv_stop *st);
/* The one interface checkpoints and snapshots plug into: a replay
 * positioned at or before the point p (strictly before when strict), its
 * position returned in *at (a prefix of p) and its stop in s->start_st: a
 * copy of the latest checkpoint that is a prefix of p, else a fresh replay
 * from the beginning (at = empty); or, nearer, a replay restored from a
 * recorded snapshot and run to the start of a turn T before p's next stop,
 * p being rewritten to name that point (a command "to turn T" inserted). */
int gdbsrv_start_before(struct gdbsrv *s, struct gdbsrv_pos *p, struct gdbsrv_pos *at,
			int strict);
int gdbsrv_pos_copy(struct gdbsrv_pos *dst, const struct gdbsrv_pos *src, size_t n);
/* p's prefix at is where its commands resume: command *i0, *done0 of its
 * stops made. 0, or -1 when at is not a prefix p can go on from. */
int gdbsrv_pos_resume_at(const struct gdbsrv_pos *p, const struct gdbsrv_pos *at, size_t *i0,
			 uint64_t *done0);

/* Checkpoints: the live replay, stopped at point at (stop st), is kept as a
 * checkpoint and a copy of it goes on as the live one (st->tid follows it);
 * only when it has run s->ckpt_ns since the last one (force: always). */
int gdbsrv_ckpt_maybe(struct gdbsrv *s, const struct gdbsrv_pos *at, struct gdbsrv_stop *st,
		      int force);
/* The latest checkpoint that is a prefix of p (strictly before it when
 * strict), or NULL. */
struct gdbsrv_ckpt *gdbsrv_ckpt_find(struct gdbsrv *s, const struct gdbsrv_pos *p, int strict);
/* The live replay becomes a copy of checkpoint c; *at its point. */
int gdbsrv_ckpt_restore(struct gdbsrv *s, struct gdbsrv_ckpt *c, struct gdbsrv_pos *at);
/* Every checkpoint ended (the live replay first), the session waited for. */
void gdbsrv_ckpt_drop_all(struct gdbsrv *s);

#endif
