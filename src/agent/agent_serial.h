// SPDX-License-Identifier: MIT
/*
 * agent_serial.h - serial mode of record/replay (doc/record.md): one thread
 * runs at a time, holding the run token; it gives the token up only at
 * switch points (lock calls, input calls, thread create/join/exit and
 * progress points), and the schedule is the list of (thread, progress
 * count) at which each holder gave it up.
 *
 * The progress-point fast path is inline so the -finstrument-functions and
 * coverage hooks cost one flag test, a TLS increment and a compare: the
 * slow path runs when the count reaches the thread's limit (the end of its
 * time slice, the recorded switch count, or the next publication of its
 * count for the watchdog).
 */
#ifndef SPOOL_AGENT_AGENT_SERIAL_H
#define SPOOL_AGENT_AGENT_SERIAL_H

#include <pthread.h>
#include <stdint.h>
#include <time.h>
#include <ucontext.h>

#include "../replay/rr_area.h"
#include "agent.h"

/* 0, or RR_MODE_RECORD / RR_MODE_REPLAY in serial mode. */
extern int agent_serial_on;

struct agent_serial_tls {
	uint64_t count;	 /* switch points passed */
	uint64_t limit;	 /* take the slow path when count reaches it */
	uint64_t inputs; /* input calls made (a wait that reads the clock or an input
			    between its retries is no deadlock: agent_serial.c) */
};
extern __thread struct agent_serial_tls agent_ser;

void agent_serial_slow(unsigned at);

/* A switch point (at = RR_AT_*). Only for threads of a serial session;
 * callers test agent_serial_on (or agent_rr_mode & RR_MODE_SERIAL) first. */
static inline __attribute__((always_inline)) void agent_serial_point(unsigned at)
{
	if (AGENT_UNLIKELY(++agent_ser.count >= agent_ser.limit))
		agent_serial_slow(at);
}

/* spool replay --path (RR_O_PATH): 0, or 1 when the schedule counts the
 * function entries a thread makes, 2 when it counts entries and exits. The
 * -finstrument-functions hooks call agent_serial_func (entry = 1 or 0). */
extern int agent_serial_path;
extern int agent_serial_exits;
void agent_serial_path_hook(void);

static inline __attribute__((always_inline)) void agent_serial_func(int entry)
{
	if (AGENT_UNLIKELY(agent_serial_path) && (entry || agent_serial_path == 2))
		agent_serial_path_hook();
	/* Progress points: function entries (and exits when replaying a
	 * recording that counted them, agent_serial_exits). */
	if (entry || agent_serial_exits)
		agent_serial_point(RR_AT_POINT);
}

/* Called by agent_rr_attach with the area; the main thread holds the token.
 * whole: the area mapped whole (a replay), or NULL (record: the slots are
 * mapped as thread numbers are handed out, from base, where the area
 * starts in the feature area). -1: the first slot cannot be mapped. */
/* Thread number id's serial slot, mapped now if it was not (a slot of no
 * thread when it cannot be): agent_snap.c wakes and watches parked threads. */
struct rr_serial_slot *agent_serial_slot_at(uint32_t id);
int agent_serial_init(struct rr_area *a, uint32_t *creations, char *whole, uint64_t base);
/* Record: thread number id has its slot mapped (0), or cannot have one
 * (-1: no address space left); 0 outside serial mode. */
int agent_serial_slot_ok(uint32_t id);
/* The fork child runs unrecorded. */
void agent_serial_fork_child(void);
void agent_serial_stop(void);

/* A switch point at which the thread cannot go on (a busy lock, a
 * condition wait): give the token to another thread if one can run. */
void agent_serial_yield(unsigned at);
/* A retry of an emulated wait (kind RR_W_*): a yield at RR_AT_SYNC
 * (RR_AT_YIELD for RR_W_YIELD) that a serial recording also watches for a
 * deadlock: when no thread has made progress for --stuck-ms, none is in a
 * blocking call that may come back, and every live thread waits, the
 * recording stops and says who waits in what. */
void agent_serial_wait_yield(unsigned kind);
/* Record: a second of pthread_join went by (first: the join's first): the
 * joining thread, out without the token, watches for a deadlock and for a
 * token holder blocked in a call the agent does not interpose. */
void agent_serial_join_watch(int first);
/* Serial mode's emulated barriers, for snapshots (rr_snap_fmt.h,
 * RR_SNAP_AGENT_BARRIER): entry i of the table (addr 0: unused; -ENOENT
 * past the end), and one put back into it by a restore (-ENOSPC: full). */
struct rr_snap_barrier;
int agent_serial_barrier_get(uint32_t i, struct rr_snap_barrier *out);
int agent_serial_barrier_put(const struct rr_snap_barrier *b);
/* The asynchronous cancel type in serial mode (agent_rr_cancel.c): glibc's
 * type stays deferred (glibc would unwind the thread wherever its
 * cancellation signal lands, the agent's token waits included); the agent
 * acts on a pending cancellation at the thread's switch points instead.
 * Returns the previous setting, or -1 when the thread is not serialized. */
int agent_serial_set_async(int on);
/* Record: give the token up around a call that may block in the kernel
 * (a read, a join), and take it back after. No-ops in a replay. */
void agent_serial_block_begin(unsigned at);
void agent_serial_block_end(void);
/* Record with snapshots by time, the holder after a blocking call or at an
 * input call: when one is due, the next switch point takes the slow path
 * and looks (agent_snap_due). */
void agent_serial_snap_check(void);

/*
 * Snapshots of a thread out in a blocking call (record, serial, snapshots
 * on; doc/record.md "Snapshots"). A thread in the kernel cannot park in the
 * agent, and one that is there nearly all the time (a read of stdin, a
 * select) kept every snapshot from being taken. So the call's own frame,
 * which stays live while the call blocks, saves the thread's context right
 * after it gave the token up (agent_serial_block_begin), as if it parked
 * there (RR_PARK_OUT): a snapshot may hold it while it is out. In a replay
 * restored from such a snapshot the thread comes back at that point: it
 * waits for its recorded turn, as the replay's own thread waits at the
 * call's switch point, and the call's result comes from its log (what the
 * call wrote is copied in by the frames' recording of it, which a replay
 * turns into taking the record off the log: agent_rr.c, rr_rec_in_replay).
 *
 * agent_serial_out_ctx: where to save the context, or NULL (no snapshot
 * can want it: the save costs two system calls, so it is made only while
 * one is due or after a holder found this thread out without one).
 * agent_serial_out_saved: after the getcontext; 1 when it returned again
 * in a restored replay (the turn is held: take the result from the log),
 * else 0 (parked from now on; the real call follows). In a snapshot's copy
 * that runs on, detached, it returns 0 and the call is made for real.
 * agent_serial_out_back: right after the real call (errno kept): no longer
 * parked, once a snapshot under way is taken.
 */
ucontext_t *agent_serial_out_ctx(void);
int agent_serial_out_saved(void);
void agent_serial_out_back(void);

/*
 * Record, serial, snapshots by time: the token's holder is about to read
 * descriptor fd inside a stdio call (agent_rr_in_stdio), which keeps the
 * token (its FILE's lock is held: agent_rr_stdio.c). Every other thread
 * waits for the token, so nothing else can take a snapshot while the read
 * blocks: mosquitto_pub -l, reading its lines with fgets, got one per line
 * at best. So when the read would block past the time the next snapshot
 * is due, the holder waits for fd (ppoll) until then, takes the snapshot
 * itself and then reads: one a read, since nothing of the process moves
 * while it waits. Returns 0: make the real read; 1: a replay restored from
 * the snapshot taken here (the read's result is the logged one:
 * agent_rr_rep_out_result); -EINTR: a signal whose handler has no
 * SA_RESTART came during the wait (the real read would have returned
 * EINTR: the caller returns it).
 */
int agent_serial_stdio_wait(int fd);
/* Record, serial: the token's holder is about to read (out 0) or write
 * descriptor fd inside a stdio call, keeping the token; fd -1: that call
 * is over. Published in its slot for the watchdogs (rr_serial_slot.io_fd):
 * a holder waiting there for the outside world is not stuck. */
void agent_serial_stdio_io(int fd, int out);
/* Whether the other end of fd lies outside the process, so that a read
 * (out 0) or write of it that blocks waits for the world, not for another
 * thread of the process (agent_serial_peer.c): 1 outside, 0 not, or not
 * known. */
int agent_serial_fd_outside(int fd, int out);

/* r = expr, the blocking call, in the caller's frame (which must live
 * until the call returns: not in a helper that returns first). The
 * caller includes agent_rr.h (agent_rr_rep_out_result). getcontext
 * returns twice: oc_ is not changed after it. */
#define AGENT_SERIAL_OUT_CALL(call, type, r, expr)                                                 \
	do {                                                                                       \
		ucontext_t *oc_ = agent_serial_out_ctx();                                          \
		if (oc_)                                                                           \
			getcontext(oc_);                                                           \
		if (oc_ && agent_serial_out_saved()) {                                             \
			(r) = (type)agent_rr_rep_out_result(call);                                 \
		} else {                                                                           \
			(r) = (expr);                                                              \
			if (oc_)                                                                   \
				agent_serial_out_back();                                           \
		}                                                                                  \
	} while (0)

/* r = expr in the caller's frame, for AGENT_SERIAL_BLOCK_CALL's form: a call
 * a snapshot never holds the thread out in (a replay makes it for real). */
#define AGENT_SERIAL_PLAIN_CALL(call, type, r, expr) ((r) = (expr))

/* Serial record: a call that may block in the kernel gives the run token up
 * around it (agent_serial.c), so the thread that would unblock it can run,
 * when cond holds (evaluated only in serial mode). In every mode the call
 * runs under the cancel guard (agent_rr.h, which the caller includes), so a
 * thread cancelled in it leaves the schedule and the log whole. form makes
 * the call in serial mode: AGENT_SERIAL_OUT_CALL (a snapshot may hold the
 * thread out in it, a restore takes its result off the log) or
 * AGENT_SERIAL_PLAIN_CALL. */
#define AGENT_SERIAL_BLOCK_CALL(call, cond, type, expr, form)                                      \
	({                                                                                         \
		type r_;                                                                           \
		struct agent_rr_cancel_guard g_ = {&agent_self, (call), 0, 0, NULL};               \
		if ((agent_rr_mode & RR_MODE_SERIAL) && (cond)) {                                  \
			int e_;                                                                    \
			agent_serial_block_begin(RR_AT_INPUT);                                     \
			g_.serial_out = 1;                                                         \
			AGENT_RR_CANCEL_PUSH(&g_);                                                 \
			form(call, type, r_, expr);                                                \
			AGENT_RR_CANCEL_POP();                                                     \
			e_ = errno;                                                                \
			agent_serial_block_end();                                                  \
			errno = e_;                                                                \
		} else {                                                                           \
			AGENT_RR_CANCEL_PUSH(&g_);                                                 \
			r_ = (expr);                                                               \
			AGENT_RR_CANCEL_POP();                                                     \
		}                                                                                  \
		r_;                                                                                \
	})

/* A blocking read-like call: a snapshot may hold the thread out in it. */
#define RR_BLOCK(call, type, expr) AGENT_SERIAL_BLOCK_CALL(call, 1, type, expr, AGENT_SERIAL_OUT_CALL)

/* A new thread (number id) before it runs any user code: wait for the
 * token. end: the thread's last release. */
void agent_serial_thread_start(uint32_t id);
void agent_serial_thread_created(uint32_t id);
void agent_serial_thread_go(void);
/* Record: the thread cannot be recorded (no ring): it leaves the schedule. */
void agent_serial_thread_leave(void);
void agent_serial_thread_end(void);

/* Emulated condition wait (a spurious wake-up after a yield; ts: the
 * deadline of a timed wait on clock clk, or NULL) and barrier. */
int agent_serial_cond_wait(pthread_mutex_t *m, clockid_t clk, const struct timespec *ts);
/* A timed wait's deadline has passed on the recorded clock (ts NULL: never). */
int agent_serial_timed_out(clockid_t clk, const struct timespec *ts);
void agent_serial_barrier_init(const void *b, unsigned count);
int agent_serial_barrier_wait(pthread_barrier_t *b);

/* A replay restored from a snapshot taken at token turn `turn`
 * (agent_snap_restore.c): the thread numbers handed out by then (at least
 * most); the area set to that turn (every number below n ended, until the
 * restored threads say otherwise; -EINVAL when the schedule does not give
 * that turn to holder, the snapshot's taker); and, in each restored thread, its
 * serial state (holder: it holds the token and returns from its
 * agent_snap_point; else its wait ends as a replay's). */
uint32_t agent_serial_restore_numbers(uint64_t turn, uint32_t most);
int agent_serial_restore_area(uint64_t turn, uint32_t n, uint32_t holder);
void agent_serial_restore_thread(uint32_t id, int holder, uint32_t park);
/* A restored thread parked in pthread_join's wait (RR_PARK_JOIN): the
 * replay's joiner waits for the token at the join's switch point. */
void agent_serial_restore_join(void);

/* Record: wake every thread waiting for the token (a snapshot is due:
 * those that parked without saving their context save it, then wait on). */
void agent_serial_wake_waiters(uint32_t me);

#endif
