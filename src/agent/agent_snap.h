// SPDX-License-Identifier: MIT
/*
 * agent_snap.h - snapshots of a serial-mode process (doc/record.md,
 * "Snapshots"): a copy of the whole process taken by the run token's holder
 * at a switch point while every other thread is parked in the agent.
 *
 * Each numbered thread saves, when it parks to wait for the token, what a
 * copy needs to recreate it: its register context (getcontext), and at its
 * start its FS base, robust-list head and the address of its tid in its
 * struct pthread. The snapshot is a raw clone of the process (not glibc's
 * fork: its child clean-up resets the thread count and reclaims the other
 * threads' stacks); the copy recreates one thread per parked slot on that
 * thread's own stack, with its TLS, tid word and robust list, and each
 * setcontexts back into its wait.
 */
#ifndef SPOOL_AGENT_AGENT_SNAP_H
#define SPOOL_AGENT_AGENT_SNAP_H

#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <ucontext.h>

#include "../replay/rr_area.h"
#include "agent.h"

#ifndef SS_AUTODISARM
#define SS_AUTODISARM (1U << 31) /* linux/signal.h: disarmed while a handler runs on it */
#endif

/* Threads a snapshot can hold (numbers 0 .. AGENT_SNAP_THREADS - 1): a
 * program that has handed out more thread numbers is not snapshotted. */
#define AGENT_SNAP_THREADS 1024

struct agent_snap_thread {
	ucontext_t ctx;	 /* saved in ser_wait, before the wait (returns twice) */
	uint64_t fs;	 /* FS base: its TLS and struct pthread */
	uint64_t robust; /* its robust-list head (get_robust_list) */
	uint64_t robust_len;
	int32_t *tidp; /* its tid word in its struct pthread */
	stack_t alt;   /* its alternate signal stack, at the park */
	int32_t tid;
	uint32_t valid;	  /* the fields above are set (thread start) */
	uint32_t parked;  /* ctx is its wait: it is inside ser_wait (atomic) */
	uint32_t gone;	  /* it ended and the kernel has reaped it */
	uint32_t restore; /* the holder's check: the copy recreates it */
	uint32_t park;	  /* RR_PARK_* (rr_snap_fmt.h): which wait saved ctx */
	uint32_t out_save; /* a holder found it out in a blocking call with no
			    * context saved: it saves one at each such call now */
};

/* 1 when the area asks for snapshots (serial record). */
extern int agent_snap_on;
/* Whether a thread that parks saves its context (agent_serial.c): while
 * recording, only once a snapshot is due (a save is two system calls at
 * each park: 7% more CPU for a program that switches 100,000 times a
 * second, with no snapshot taken); always in a replay (checkpoints). */
extern uint32_t agent_snap_want;

void agent_snap_init(struct rr_area *a, uint64_t size);
/* A fork child, before its parent's area is unmapped: snapshots off until
 * agent_snap_init with its own area (the parent's state named memory the
 * child no longer has). */
void agent_snap_forget(void);
/* A hexadecimal number at *s (/proc/self/maps lines), *s left after it:
 * the snapshot writer, its copies and the restore parse maps with it. */
uint64_t agent_snap_hex(const char **s);
/* In a numbered thread, before it first waits for the token. */
void agent_snap_thread_start(uint32_t id);
/* The slot of thread id, or NULL (snapshots off, or a number too big). */
struct agent_snap_thread *agent_snap_slot(uint32_t id);
/* Before the getcontext of a park: what may have changed since the start. */
void agent_snap_before_park(struct agent_snap_thread *t);
/* The token holder me at a switch point (record): take a snapshot if one is
 * due (switches: the token's switches so far; n: thread numbers handed out).
 * Returns 1 when it returns a second time, in a replay that a snapshot was
 * restored into (agent_snap_restore.c): the caller goes on as a replay. */
int agent_snap_point(uint32_t me, uint32_t n, uint64_t switches);
/* By time, record: a snapshot is due now (the holder's next pass through
 * the slow path looks for it). Cheap: the clock is read a few times a
 * period. The holder only. */
int agent_snap_due(void);
/* By time, record: nanoseconds until the next snapshot is due, 0 when it
 * is due now (the next pass looks for it, as agent_snap_due), -1 when none
 * is looked for by time (by switches, the budget used, not recording). A
 * clock reading each call: for the holder about to wait in a stdio read
 * (agent_serial_stdio_wait), not for a hot path. The holder only. */
int64_t agent_snap_due_in(void);
/* 1 when the last snapshot this process took was at token turn `turn` and
 * the holder's progress count `count` (--goto EVENT:COUNT names it): one
 * more there could not be told apart from it. The holder only. */
int agent_snap_taken_at(uint64_t turn, uint64_t count);
/* Set in a thread a restore recreates (its own TLS) before it returns into
 * its saved context: the taker's agent_snap_point returns 1. */
extern __thread int agent_snap_resumed;

/* Restore (agent_snap_restore.c): clone a thread from slot t (its FS base,
 * tid word, robust list, context) that calls hook(t) on its own TLS and
 * then setcontexts into t->ctx. Returns the clone's result. */
long agent_snap_spawn(struct agent_snap_thread *t, void (*hook)(struct agent_snap_thread *));
/* Restore: the copy of a snapshot's data with UFFDIO_COPY
 * (agent_snap_fill.c). open maps the body (descriptor fd, size bytes) in
 * the agent's window (in_window: whether [lo, hi) is there) and makes the
 * userfaultfd; begin registers a fresh anonymous region, copy fills len
 * bytes of it at dst from the body at src_off (the bytes copied, fewer
 * on a failure, or -errno), end unregisters it, close undoes open. Any
 * failure: copy the old way (pread), after end. 0 or -errno. */
int agent_snap_fill_open(int fd, uint64_t size, int (*in_window)(uint64_t lo, uint64_t hi));
int agent_snap_fill_on(void);
int agent_snap_fill_begin(uint64_t start, uint64_t len);
int64_t agent_snap_fill_copy(uint64_t dst, uint64_t src_off, uint64_t len);
void agent_snap_fill_end(uint64_t start, uint64_t len);
void agent_snap_fill_close(void);
/* Replay, the first thread: restore the snapshot spool passed in the area
 * (spool replay --goto), if any. Returns only when there is none. */
void agent_snap_restore_start(void);

/* Replay under gdb: the extension's request (spool checkpoint), and the
 * holder me at its slow path taking it (turn: the token's turn). */
extern uint32_t agent_snap_request;
void agent_snap_checkpoint(uint32_t me, uint32_t n, uint64_t turn);

/* Record: thread t comes back from a blocking call it was parked in
 * (RR_PARK_OUT, agent_serial_out_back): parked goes to 0, waiting first
 * for a take under way (snap_busy) to end, as agent_snap_join_wait does. */
void agent_snap_leave(struct agent_snap_thread *t);

/* Record: before the real pthread_join of th by thread me (agent_rr.c). */
void agent_snap_join_wait(uint32_t me, pthread_t th);

/* The agent's destructor: wait for the copies still running. */
void agent_snap_exit_wait(void);
/* 1 while the exiting thread waits in agent_snap_exit_wait for the copies:
 * it holds the run token meanwhile, and a waiting thread's watchdog must
 * not call that stuck (a copy compressing a 50 MB image under load takes
 * longer than --stuck-ms: GraphicsMagick's recordings were killed at their
 * exit, tests/real/158). */
int agent_snap_exit_waiting(void);

/* The image a record snapshot's copy writes (agent_snap_img.c): libzstd
 * loaded at start; the write, in the copy, into DIR/.spool/snap/snap_<index>.zst. */
int agent_snap_img_init(void);

/* Which pages a snapshot holds (agent_snap_delta.c): the page hashes of
 * the previous snapshot's copy, and this one's. In the copy. */
struct agent_snap_delta {
	uint64_t nonce_a, nonce_b; /* the recording (set by the caller) */
	int on;			   /* the previous table is loaded: this is a delta */
	uint32_t depth;		   /* deltas in a row, this one included */
	const uint64_t *preg, *phash;
	uint64_t pnreg, pnpages, pcur, pbase;
	char *tab; /* this one's table, as the .pgh file holds it */
	size_t len;
	uint64_t *reg, *hash, *bits;
	uint64_t nreg, npages, cap_reg, cap_pages;
	/* of the last region: its pages not all zeros (bit set in nzbits),
	 * and those the previous table held */
	uint64_t *nzbits;
	uint64_t nonzero, found;
};
/* Map the table for nregions mappings of npages pages; load prev_path's
 * (the .pgh of snapshot index - 1) when it is this recording's: d->on. */
int agent_snap_delta_open(struct agent_snap_delta *d, const char *prev_path, uint64_t index,
			  uint64_t nregions, uint64_t npages);
/* Hash the pages of [start, end) into the table; d->bits marks those that
 * changed since the previous snapshot (all when !d->on), d->nzbits those
 * not all zeros (d->nonzero of them; d->found: pages the previous held).
 * Returns how many changed,
 * or UINT64_MAX when the table cannot take them (write the mapping whole). */
uint64_t agent_snap_delta_region(struct agent_snap_delta *d, uint64_t start, uint64_t end);
/* Write the table to tmp, renamed fin (for the next snapshot's copy). */
void agent_snap_delta_save(struct agent_snap_delta *d, const char *tmp, const char *fin);
/* The taker, at the take, before its clone: the time the image's header
 * gives (rr_snap_hdr.time_ns, spool info's time-s). */
void agent_snap_img_mark_take(void);
/* (count: the taker's progress count at the take, rr_snap_hdr.count; a:
 * the area, whose snap_budget bounds the images' bytes: -EFBIG, the image
 * removed, when this one would pass it; else 0 or -1, errno set) */
int agent_snap_img_write(struct rr_area *a, const char *dir, uint64_t index, uint64_t turn,
			 uint64_t count, uint64_t switches, uint32_t me, uint32_t n,
			 const struct agent_snap_thread *thr);

/* POSIX timers (agent_snap_timer.c). At most AGENT_SNAP_TIMERS in a
 * snapshot; more are counted (the copy's summary) and left out. */
#define AGENT_SNAP_TIMERS 256
struct rr_snap_timer;
/* The taker, before its clone: the process's timers and their settings. */
void agent_snap_timers_take(void);
/* In the copy: the table the taker filled (*over: timers left out). */
uint32_t agent_snap_timers(const struct rr_snap_timer **tab, uint32_t *over);
/* Restore: empty the table, add the snapshot's TIMER records to it. */
void agent_snap_timers_reset(void);
int agent_snap_timers_put(const struct rr_snap_timer *t);
/* Restore, once every thread is recreated (tid_of: a recorded tid's tid in
 * the replay, or 0): delete the fresh process's timers, make the table's
 * with their ids (in_order: without PR_TIMER_CREATE_RESTORE_IDS, as before
 * Linux 6.16), arm them. *made: made; *off: not made, or made with another
 * target thread or clock. */
int agent_snap_timers_restore(int32_t (*tid_of)(int32_t), int in_order, uint32_t *made,
			      uint32_t *off);

/* Serial scheduler (agent_serial.c): the copy of a snapshot runs on
 * unrecorded, like a fork child. */
void agent_rr_snap_detach(void);

#endif
