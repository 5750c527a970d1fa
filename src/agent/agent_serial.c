// SPDX-License-Identifier: MIT
/*
 * agent_serial.c - serial mode (doc/record.md): the run token, switch
 * points, chaos scheduling, the replay of the token's schedule, the
 * watchdog of a thread that runs without reaching a switch point, the
 * emulated condition waits and barriers, and the progress-point callbacks
 * of -fsanitize-coverage (trace-pc, trace-pc-guard).
 *
 * The token: rr_area.owner is the thread number allowed to run user code,
 * rr_area.tturn counts hand-overs. A thread that does not hold the token
 * sleeps on its own wake word (private futex) until owner names it; the
 * thread that names it bumps the word and wakes it. Record decisions (who
 * gets the token, a free token taken by a thread back from a blocking
 * call) are made under sched_lock, a spin word held for a few instructions
 * only. Every hand-over writes one KIND_SCHED record with op RR_OP_SWITCH:
 * the thread that gave the token up, its progress count, where it was
 * (RR_AT_*), the turn it ends and the thread of the next turn.
 *
 * Progress count: every switch point adds one, in record and replay alike,
 * so a thread's count at a switch is the same in both when it runs the same
 * code: the replay gives the token up exactly when the count reaches the
 * recorded one. Lock calls never block in the kernel: they try, and yield
 * while the lock is busy (its holder must run to release it). Calls that
 * may block in the kernel (reads, join) give the token up around the real
 * call while recording; in a replay reads do not block (their results come
 * from the log) and the token moves only as recorded.
 *
 * Signal safety and the agent rules: no malloc, no stdio, no libc lock; the
 * waits are raw futex calls with a timeout, which is also the watchdog's
 * tick: a waiting thread that sees the holder's published count and the
 * token's turn unchanged for stuck_ms reports it, and the host kills the
 * program (the agent never exits it).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <linux/futex.h>
#include <poll.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "agent_rr.h"
#include "agent_serial.h"
#include "agent_snap.h"
#include "../replay/rr_snap_fmt.h"

#define SER_PUBLISH 256	   /* points between publications of the count */
#define SER_SLICE 100000    /* points of a slice when others wait (record, no chaos) */
/* ... and a slice lasts at least this long: a hand-over of the token costs
 * ~80 us of CPU in a VM (the futex wake of a thread on an idle vCPU is an
 * IPI), and 100k points of a tight loop take 0.5 ms, so a CPU-bound
 * program spent a sixth of its time switching. 2 ms is a single-CPU
 * scheduler's time slice. The replay follows the recorded counts, so it
 * switches as seldom as the recording did. */
#define SER_SLICE_NS 2000000ull
#define SER_FREE RR_NO_TURN /* owner of a free token */
#define SER_BARRIERS 256

int agent_serial_on;
__thread struct agent_serial_tls agent_ser;

static struct rr_area *ser_area;
/* struct rr_serial_slot[max_threads], mapped 1,024 slots at a time as
 * thread numbers are handed out (agent_lazy.c): 8 MiB whole. */
static struct agent_lazy ser_slots;
static uint32_t ser_max; /* slots it can reach */
/* The slot of a number whose chunk could not be mapped (no address space
 * left): never a thread's own (agent_serial_slot_ok refuses the number
 * before the thread starts), so only another thread's look at it lands
 * here, and sees a thread not started. */
static struct rr_serial_slot ser_void;
static const struct rr_switch *ser_sw;
static uint32_t *ser_creations; /* turn[0]: thread numbers handed out - 1 */
static uint64_t ser_rng;	/* chaos PRNG (xorshift64*), under sched_lock */
/* The recording stopped with the program running on (agent_serial_stop). */
static int ser_stopped;

struct ser_self {
	uint64_t retry_count; /* record: count after its last wait retry */
	uint64_t retry_epoch; /* record: ser_epoch when its retries began to see no progress */
	uint64_t retry_since; /* record: since when (ms) */
	uint64_t retry_inputs; /* record: agent_ser.inputs at its last wait retry */
	uint64_t slice_end;  /* record: count at which the slice ends */
	uint64_t slice_ns;   /* record: when the slice began (no chaos) */
	uint64_t release_at; /* replay: count at which this turn ends */
	uint64_t pub_at;     /* count at which the slow path next publishes the count */
	uint64_t hooks;	     /* path replay: function entries (and exits) made */
	uint64_t hook_limit; /* path replay: hooks of this turn; the next one releases */
	uint64_t hook_first; /* path replay: hooks when this turn began (for reports) */
	uint32_t loans;	     /* path replay: tokens lent while blocked in this turn */
	uint32_t id;
	uint32_t tid;	     /* record: the kernel's id of the thread this state is */
	uint8_t on;	     /* numbered thread of a serial session */
	uint8_t restored;    /* recreated by a snapshot's restore: its wait ends as a replay's */
	uint8_t async;	     /* its cancel type is asynchronous (agent_serial_set_async) */
};
static __thread struct ser_self ser_me;

/* ---- small helpers ---- */

static uint64_t ser_now_ns(void)
{
	struct timespec ts;

	/* Raw syscall: the agent's clock_gettime is a recorded input. */
	syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t ser_now_ms(void)
{
	return ser_now_ns() / 1000000u;
}

static void ser_lock(void)
{
	uint32_t z;

	for (;;) {
		z = 0;
		if (__atomic_compare_exchange_n(&ser_area->sched_lock, &z, 1, 0, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			return;
		while (__atomic_load_n(&ser_area->sched_lock, __ATOMIC_RELAXED))
			_mm_pause();
	}
}

static void ser_unlock(void)
{
	__atomic_store_n(&ser_area->sched_lock, 0, __ATOMIC_RELEASE);
}

static uint64_t ser_rand(void)
{
	ser_rng ^= ser_rng >> 12;
	ser_rng ^= ser_rng << 25;
	ser_rng ^= ser_rng >> 27;
	return ser_rng * 0x2545f4914f6cdd1dull;
}

static struct rr_serial_slot *ser_slot(uint32_t id)
{
	struct rr_serial_slot *s = agent_lazy_at(&ser_slots, id);

	return s ? s : &ser_void;
}

struct rr_serial_slot *agent_serial_slot_at(uint32_t id)
{
	return ser_slot(id);
}

int agent_serial_slot_ok(uint32_t id)
{
	return !agent_serial_on || agent_lazy_at(&ser_slots, id) ? 0 : -1;
}

static void ser_wake(uint32_t id)
{
	struct rr_serial_slot *s = ser_slot(id);

	__atomic_fetch_add(&s->wake, 1, __ATOMIC_SEQ_CST);
	syscall(SYS_futex, &s->wake, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static uint32_t ser_nthreads(void)
{
	uint32_t n = __atomic_load_n(ser_creations, __ATOMIC_ACQUIRE) + 1;

	return n < ser_max ? n : ser_max;
}

/* Text for reports (no stdio in the agent). */
struct ser_buf {
	char p[1024];
	size_t n;
};

static void ser_puts(struct ser_buf *b, const char *s)
{
	while (*s && b->n + 1 < sizeof(b->p))
		b->p[b->n++] = *s++;
	b->p[b->n] = 0;
}

static void ser_putu(struct ser_buf *b, uint64_t v)
{
	char t[24];
	int n = 0;

	do {
		t[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n && b->n + 1 < sizeof(b->p))
		b->p[b->n++] = t[--n];
	b->p[b->n] = 0;
}

static const char *ser_at_name(unsigned at)
{
	static const char *const names[RR_AT_MAX] = {
		[RR_AT_NONE] = "nothing",	 [RR_AT_POINT] = "a progress point",
		[RR_AT_SYNC] = "a lock call",	 [RR_AT_INPUT] = "an input call",
		[RR_AT_CREATE] = "pthread_create", [RR_AT_JOIN] = "pthread_join",
		[RR_AT_EXIT] = "its end",	 [RR_AT_YIELD] = "sched_yield",
	};
	return at < RR_AT_MAX && names[at] ? names[at] : "?";
}

/* ---- limits and slices ---- */

static void ser_set_limit(void)
{
	uint64_t end = agent_serial_on == RR_MODE_REPLAY ? ser_me.release_at : ser_me.slice_end;
	uint64_t pub;

	/* Every SER_PUBLISH points the slow path runs, whatever came between:
	 * a thread that takes the token back after a blocking call every few
	 * points (a read, a nap) used to move it on each time and never came
	 * there, nor to a snapshot if it was the only one running. */
	if (ser_me.pub_at <= agent_ser.count || ser_me.pub_at - agent_ser.count > SER_PUBLISH)
		ser_me.pub_at = agent_ser.count + SER_PUBLISH;
	pub = ser_me.pub_at;
	agent_ser.limit = end < pub ? end : pub;
	agent_rr_sig_limit(); /* a signal due sooner (agent_rr_signal.c) */
}

/* Signals (agent_rr_signal.c): whether the calling thread holds the run
 * token (it delivers its own signals at its next switch point; a signal
 * that lands on a thread without the token is the holder's to deliver).
 * Async-signal-safe. */
int agent_serial_holder(void)
{
	return agent_serial_on && ser_me.on &&
	       __atomic_load_n(&ser_area->owner, __ATOMIC_SEQ_CST) == ser_me.id;
}

/* Record: a new slice. Chaos slices are short and random: mostly a few
 * points, sometimes up to a thousand. Called under sched_lock. */
static void ser_new_slice(void)
{
	uint64_t n = SER_SLICE;

	if (ser_area->chaos) {
		uint64_t r = ser_rand();

		n = (r & 3) ? 1 + (r >> 8) % 24 : 1 + (r >> 8) % 1024;
	} else {
		ser_me.slice_ns = ser_now_ns();
	}
	ser_me.slice_end = agent_ser.count + n;
}

/* ---- record: hand-overs ---- */

struct ser_rec {
	uint32_t thread, tseq, at, next;
	uint64_t turn, count;
	int set;
};

static void ser_emit(const struct ser_rec *r)
{
	if (r->set)
		agent_rr_emit_switch(r->thread, r->tseq, r->at, r->turn, r->next, r->count);
}

/*
 * The first thread number from id on (below end) that has not ended, or a
 * number >= end. A program that creates 100,000 short threads leaves that
 * many ended numbers behind, and the scans below would walk them at every
 * switch: an ended thread's slot keeps a hop past the run of ended numbers
 * found after it. Numbers are never reused and an ended thread stays ended,
 * so any hop ever stored stays true (writers may race: each value is
 * right) and skipping by hops visits the same threads in the same order as
 * a scan one by one: record, replay and path replay decide as before.
 */
static uint32_t ser_live_from(uint32_t id, uint32_t end)
{
	uint32_t first = id;

	while (id < end && __atomic_load_n(&ser_slot(id)->state, __ATOMIC_ACQUIRE) == RR_S_DEAD) {
		uint32_t hop = __atomic_load_n(&ser_slot(id)->hop, __ATOMIC_RELAXED);

		id = hop > id ? hop : id + 1;
	}
	if (id > first + 1)
		__atomic_store_n(&ser_slot(first)->hop, id, __ATOMIC_RELAXED);
	return id;
}

/* A waiting thread to give the token to (not me), or SER_FREE. Chaos picks
 * at random, otherwise the next number after mine. Under sched_lock. */
static uint32_t ser_pick(void)
{
	uint32_t n = ser_nthreads(), cand[64], k = 0;

	if (!__atomic_load_n(&ser_area->nwaiting, __ATOMIC_RELAXED))
		return SER_FREE;
	/* The numbers after mine, then those before it: (me + i) % n. */
	for (int pass = 0; pass < 2 && k < 64; pass++) {
		uint32_t end = pass ? ser_me.id : n;

		for (uint32_t id = pass ? 0 : ser_me.id + 1; k < 64; id++) {
			id = ser_live_from(id, end);
			if (id >= end)
				break;
			if (__atomic_load_n(&ser_slot(id)->state, __ATOMIC_ACQUIRE) == RR_S_WAIT) {
				if (!ser_area->chaos)
					return id;
				cand[k++] = id;
			}
		}
	}
	return k ? cand[ser_rand() % k] : SER_FREE;
}

/* Give the token to next (a waiting thread), my state becomes mine.
 * Under sched_lock; fills rec for ser_emit after the unlock. */
static void ser_give(uint32_t next, unsigned at, uint32_t mine, struct ser_rec *rec)
{
	uint64_t turn = ser_area->tturn;

	*rec = (struct ser_rec){ser_me.id, agent_rr_tseq(), at, next, turn, agent_ser.count, 1};
	__atomic_store_n(&ser_slot(ser_me.id)->state, mine, __ATOMIC_RELEASE);
	if (mine == RR_S_WAIT)
		ser_area->nwaiting++;
	__atomic_store_n(&ser_slot(next)->state, RR_S_RUN, __ATOMIC_RELEASE);
	ser_area->nwaiting--;
	__atomic_store_n(&ser_area->tturn, turn + 1, __ATOMIC_SEQ_CST);
	__atomic_store_n(&ser_area->owner, next, __ATOMIC_SEQ_CST);
	ser_area->switches++;
}

/* ---- the deadlock watch (record) ---- */

/*
 * A serial recording never blocks in a lock: an emulated wait retries and
 * yields, so a deadlock (a condition nobody signals, a lock its holder
 * never releases, a join of such a thread) keeps the token moving and the
 * token watchdog below never fires. ser_epoch counts the progress the
 * threads of this process make: every pass through the slow path that is
 * not a wait's retry, a return from a blocking call, a thread's start and
 * end, and a retry that comes after other switch points (more than a
 * timed wait's clock read and the yield: the thread did something else
 * since its last retry). A thread that retries sees it unchanged for
 * --stuck-ms; if no thread is out in a blocking input call (which may come
 * back: a server waiting for a client), every live thread waits for
 * another, and the recording stops.
 */
static uint64_t ser_epoch;
/* A thread runs outside the schedule (it found no ring: its progress is
 * not seen): no deadlock is reported. */
static int ser_outsiders;

static void ser_progress(void)
{
	__atomic_fetch_add(&ser_epoch, 1, __ATOMIC_RELAXED);
}

static const char *ser_wait_name(uint32_t w)
{
	static const char *const names[RR_W_MAX] = {
		[RR_W_MUTEX] = "pthread_mutex_lock",   [RR_W_RWLOCK] = "a rwlock lock",
		[RR_W_SPIN] = "pthread_spin_lock",     [RR_W_SEM] = "sem_wait",
		[RR_W_COND] = "pthread_cond_wait",     [RR_W_BARRIER] = "pthread_barrier_wait",
		[RR_W_ONCE] = "pthread_once",	       [RR_W_YIELD] = "a sched_yield loop",
		[RR_W_JOIN] = "pthread_join",	       [RR_W_INPUT] = "a blocking call",
	};

	return w < RR_W_MAX && names[w] ? names[w] : "a wait";
}

static void ser_puts(struct ser_buf *b, const char *s);
static void ser_putu(struct ser_buf *b, uint64_t v);

/* Some thread may still go on by itself: it is out in a blocking input
 * call, or running. */
static int ser_some_may_go(void)
{
	uint32_t n = ser_nthreads();

	/* (an incomplete recording: threads may run outside the schedule) */
	if (__atomic_load_n(&ser_outsiders, __ATOMIC_RELAXED) ||
	    (__atomic_load_n(&ser_area->flags, __ATOMIC_RELAXED) & (RR_F_UNTRACKED | RR_F_LOST)))
		return 1;

	for (uint32_t i = 0; i < n; i++) {
		const struct rr_serial_slot *o = ser_slot(i);
		uint32_t st = __atomic_load_n(&o->state, __ATOMIC_ACQUIRE);

		if (i == ser_me.id || st == RR_S_NONE || st == RR_S_DEAD)
			continue;
		if (st == RR_S_OUT && __atomic_load_n(&o->wait, __ATOMIC_RELAXED) == RR_W_INPUT)
			return 1;
		if (st == RR_S_RUN)
			return 1;
	}
	return 0;
}

static void __attribute__((noreturn)) ser_report_deadlock(uint64_t ms)
{
	struct ser_buf b = {.n = 0};
	uint32_t n = ser_nthreads(), shown = 0, flag = 0;

	if (agent_serial_on == RR_MODE_REPLAY && (ser_area->opts & RR_O_TRUNCATED)) {
		/* a recording stopped while its threads waited like this */
		ser_puts(&b, "replay reached the end of the recording (the recorded run was "
			     "killed or stopped): thread ");
		ser_putu(&b, ser_me.id);
		ser_puts(&b, " at its progress count ");
		ser_putu(&b, agent_ser.count);
		ser_puts(&b, ", where every thread waits:");
		flag = RR_F_END;
	} else {
		ser_puts(&b, agent_serial_on == RR_MODE_REPLAY ? "replay stuck: " : "record stuck: ");
		ser_puts(&b, "no thread has made progress for ");
		ser_putu(&b, ms);
		ser_puts(&b, " ms and every live thread waits for another (a deadlock, or a "
			     "wait nothing will end):");
	}
	for (uint32_t i = 0; i < n && shown < 8; i++) {
		const struct rr_serial_slot *o = ser_slot(i);
		uint32_t st = __atomic_load_n(&o->state, __ATOMIC_ACQUIRE);
		uint32_t w = __atomic_load_n(&o->wait, __ATOMIC_RELAXED);

		if (st == RR_S_NONE || st == RR_S_DEAD)
			continue;
		ser_puts(&b, shown ? "; thread " : " thread ");
		ser_putu(&b, i);
		if (agent_serial_on == RR_MODE_REPLAY && i != ser_me.id)
			ser_puts(&b, " waits for the run token");
		else
			ser_puts(&b, st == RR_S_OUT ? " waits in " : " retries ");
		if (agent_serial_on != RR_MODE_REPLAY || i == ser_me.id)
			ser_puts(&b, ser_wait_name(w));
		shown++;
	}
	agent_rr_stop(b.p, flag);
}

/* Record: a retry of a wait of this kind (the caller holds the token). */
static void ser_watch_retry(uint32_t kind)
{
	struct rr_serial_slot *s = ser_slot(ser_me.id);
	uint64_t c = agent_ser.count, e, now;

	/* Progress: other switch points since the last retry, or another
	 * wait. A retry loop that reads the clock or another input waits
	 * for time or for the world (a timed wait, a poll loop): it ends by
	 * itself, so it counts as progress too. */
	if (c - ser_me.retry_count > 2 || __atomic_load_n(&s->wait, __ATOMIC_RELAXED) != kind ||
	    agent_ser.inputs != ser_me.retry_inputs)
		ser_progress();
	ser_me.retry_count = c + 1; /* (the yield counts one) */
	ser_me.retry_inputs = agent_ser.inputs;
	__atomic_store_n(&s->wait, kind, __ATOMIC_RELAXED);
	e = __atomic_load_n(&ser_epoch, __ATOMIC_RELAXED);
	now = ser_now_ms();
	if (e != ser_me.retry_epoch || !ser_me.retry_since) {
		ser_me.retry_epoch = e;
		ser_me.retry_since = now;
		return;
	}
	if (now - ser_me.retry_since < agent_rr_stuck_ms)
		return;
	if (ser_some_may_go()) {
		ser_me.retry_since = now;
		return;
	}
	ser_report_deadlock(now - ser_me.retry_since);
}

/* Whether thread tid of this process sleeps in the kernel (state S or D
 * in /proc: a blocking call), raw calls (open and read are interposed). */
static int ser_tid_state(uint32_t tid);

static int ser_tid_sleeps(uint32_t tid)
{
	int st = ser_tid_state(tid);

	return st == 'S' || st == 'D';
}

/* Thread tid's state letter in /proc (R, S, D, ...), 0 when not known. */
static int ser_tid_state(uint32_t tid)
{
	char path[64] = "/proc/self/task/", buf[512];
	struct ser_buf b = {.n = 0};
	const char *p;

	if (!tid)
		return 0;
	ser_putu(&b, tid);
	memcpy(path + 16, b.p, b.n);
	memcpy(path + 16 + b.n, "/stat", 6);
	if (agent_proc_read(path, buf, sizeof(buf)) <= 0)
		return 0;
	p = agent_proc_stat_field(buf, 3); /* state */
	return p ? *p : 0;
}

/* Record: the holder waits in a stdio read or write (keeping the token)
 * for the outside world (a user typing, a shell's pipe, a pager): not
 * stuck, however long the world takes (agent_serial_peer.c). */
static int ser_holder_waits_outside(uint32_t holder)
{
	uint32_t v;

	if (agent_serial_on != RR_MODE_RECORD || holder >= ser_max)
		return 0;
	v = __atomic_load_n(&ser_slot(holder)->io_fd, __ATOMIC_ACQUIRE);
	/* (whether it sleeps there or not: one the world just woke may wait
	 * for a CPU for long on a loaded machine, and its state is R then.
	 * A value a siglongjmp out of fgets left keeps a holder that spins
	 * afterwards from being reported: a report missed, never a program
	 * stopped wrongly) */
	if (!v)
		return 0;
	return agent_serial_fd_outside((int)((v & ~RR_IO_OUT) - 1), !!(v & RR_IO_OUT)) == 1;
}

void agent_serial_stdio_io(int fd, int out)
{
	uint32_t v = fd < 0 ? 0 : ((uint32_t)fd + 1) | (out ? RR_IO_OUT : 0);

	if (agent_serial_on != RR_MODE_RECORD || !ser_me.on || ser_me.id >= ser_max)
		return;
	__atomic_store_n(&ser_slot(ser_me.id)->io_fd, v, __ATOMIC_RELEASE);
}

static __thread struct {
	uint64_t since, epoch, count, turn;
	uint32_t holder;
} ser_jw;

void agent_serial_join_watch(int first)
{
	uint64_t now = ser_now_ms(), e = __atomic_load_n(&ser_epoch, __ATOMIC_RELAXED), c, turn;
	uint32_t holder;

	if (agent_serial_on != RR_MODE_RECORD || !ser_me.on)
		return;
	holder = __atomic_load_n(&ser_area->owner, __ATOMIC_ACQUIRE);
	turn = __atomic_load_n(&ser_area->tturn, __ATOMIC_ACQUIRE);
	c = holder < ser_area->max_threads ? __atomic_load_n(&ser_slot(holder)->count,
							       __ATOMIC_ACQUIRE)
					   : 0;
	if (first || e != ser_jw.epoch || holder != ser_jw.holder || c != ser_jw.count ||
	    turn != ser_jw.turn) {
		ser_jw.since = now;
		ser_jw.epoch = e;
		ser_jw.holder = holder;
		ser_jw.count = c;
		ser_jw.turn = turn;
		return;
	}
	if (now - ser_jw.since < agent_rr_stuck_ms)
		return;
	/* Nothing moved: every thread waits (a retrying thread would see it
	 * too), or the holder is stuck in the kernel. A holder that runs may
	 * be computing its result for the join: not reported. */
	if (!ser_some_may_go())
		ser_report_deadlock(now - ser_jw.since);
	if (ser_holder_waits_outside(holder)) {
		ser_jw.since = now; /* (looked at again --stuck-ms on) */
		return;
	}
	if (holder < ser_area->max_threads &&
	    __atomic_load_n(&ser_slot(holder)->state, __ATOMIC_ACQUIRE) == RR_S_RUN &&
	    ser_tid_sleeps(__atomic_load_n(&ser_slot(holder)->tid, __ATOMIC_RELAXED))) {
		struct ser_buf b = {.n = 0};

		ser_puts(&b, "record stuck: thread ");
		ser_putu(&b, ser_me.id);
		ser_puts(&b, " waited ");
		ser_putu(&b, now - ser_jw.since);
		ser_puts(&b, " ms in pthread_join while thread ");
		ser_putu(&b, holder);
		ser_puts(&b, " holds the run token and sleeps in the kernel, in a call spool "
			     "does not interpose (waitpid, msgrcv, a futex of its own, ...; its "
			     "progress count stays at ");
		ser_putu(&b, c);
		ser_puts(&b, "): no other thread can run to end its wait");
		agent_rr_stop(b.p, 0);
	}
}

/* ---- waiting for the token, and the watchdog ---- */

static void __attribute__((noreturn)) ser_report_stuck(uint32_t holder, uint64_t count,
						       uint64_t ms)
{
	struct ser_buf b = {.n = 0};
	const struct rr_serial_slot *h = holder < ser_max ? ser_slot(holder) : NULL;
	uint32_t st = h ? __atomic_load_n(&h->state, __ATOMIC_ACQUIRE) : 0;

	ser_puts(&b, agent_serial_on == RR_MODE_REPLAY ? "replay stuck: " : "record stuck: ");
	ser_puts(&b, "thread ");
	ser_putu(&b, ser_me.id);
	ser_puts(&b, " waited ");
	ser_putu(&b, ms);
	ser_puts(&b, " ms for the run token; thread ");
	ser_putu(&b, holder);
	if (st == RR_S_RUN) {
		ser_puts(&b, " holds it and has not reached a switch point (its progress count "
			     "stays at ");
		ser_putu(&b, count);
		if (h->at) {
			ser_puts(&b, ", last at ");
			ser_puts(&b, ser_at_name(h->at));
		}
		ser_puts(&b, "): it spins in code without calls the agent sees (waiting for a "
			     "variable another thread sets?) or blocks in a call spool does not "
			     "interpose (sleep, write, waitpid). Give it progress points: build "
			     "with -finstrument-functions, or with -fsanitize-coverage=trace-pc and "
			     "link libspool-progress.so (doc/record.md)");
	} else if (st == RR_S_OUT) {
		ser_puts(&b, " should run next but is still in a blocking call");
	} else if (st == RR_S_NONE) {
		ser_puts(&b, " should run next but has not been created");
		if (agent_serial_on == RR_MODE_REPLAY)
			ser_puts(&b, " (the recording had created it by this turn of the run "
				     "token: this replay went another way before, unnoticed)");
	} else if (st == RR_S_DEAD) {
		ser_puts(&b, " should run next but has ended");
	} else {
		ser_puts(&b, " should run next");
	}
	agent_rr_stop(b.p, 0);
}

/*
 * Spool is gone: nobody will ever take the recording, and the token
 * holder may wait for good for room in its log. Record: every thread lets
 * go of the schedule and runs natively (agent_serial_on 0 makes every
 * switch point return at once; a thread in ser_wait sees it within its
 * 100 ms tick). Replay: running on without the recorded schedule makes no
 * sense; the process ends the way spool would have ended it (SIGKILL).
 */
static void ser_let_go(void)
{
	if (agent_serial_on == RR_MODE_REPLAY)
		syscall(SYS_kill, (pid_t)syscall(SYS_getpid), SIGKILL);
	__atomic_store_n(&agent_serial_on, 0, __ATOMIC_RELEASE);
	agent_ser.limit = UINT64_MAX;
}

/* Whether the token holder that has not passed a switch point for
 * --stuck-ms is to be reported. Recording: yes (its waiters are starved).
 * Replaying a complete recording: only when it sleeps in the kernel (a
 * call that blocks in this run): one that runs is computing what it
 * computed when recorded, where its waiters may have been out in a
 * blocking call, and will reach its recorded switch. A truncated
 * recording's last holder may spin for good: reported. */
static int ser_holder_stuck(uint32_t holder)
{
	int sleeps;

	if (agent_serial_on != RR_MODE_REPLAY || (ser_area->opts & RR_O_TRUNCATED) ||
	    holder >= ser_area->max_threads)
		return 1;
	/* A holder this replay has not created (a replay hands the token over
	 * without touching the next slot's state) computes nothing: the
	 * recording's creator had made it by this turn, the replay's did not
	 * (it went another way, unnoticed until here). Every thread waited
	 * for good, silently (node, tests/real/115). A thread just cloned
	 * starts within far less than --stuck-ms. */
	if (__atomic_load_n(&ser_slot(holder)->state, __ATOMIC_ACQUIRE) == RR_S_NONE)
		return 1;
	sleeps = ser_tid_sleeps(__atomic_load_n(&ser_slot(holder)->tid, __ATOMIC_RELAXED));
	/* its frame is 1.6 KiB (a /proc read), and only a replay reads: the
	 * stack below is left as if it had not (agent_scrub.c) */
	agent_stack_scrub();
	return sleeps;
}

/*
 * Record: a token holder that runs without a switch point for --stuck-ms
 * either computes (sort --parallel sorting a 12 MB quarter of its input:
 * it will reach a switch point) or spins on a variable a waiting thread
 * would set (it never will: serial mode runs one thread at a time). Both
 * are in state R and burn CPU, so neither its state nor its CPU time
 * tells them apart. Its stack does: code that computes calls functions
 * and keeps locals there, so its stack's bytes change, while a spin loop
 * only reads. The watchdog hashes the holder's stack (the pages of its
 * span that are present, from /proc/self/pagemap, read with
 * process_vm_readv: a page unmapped meanwhile is an error, not a fault)
 * and compares with the hash it took --stuck-ms before: changed, it
 * computes and the waiters go on waiting (a recording is never stopped
 * for being slow); the same, it spins, and it is reported as before,
 * --stuck-ms later than before. (Soft-dirty bits would say the same
 * cheaper, but kernels without CONFIG_MEM_SOFT_DIRTY, such as the VMs
 * spool is tested on, show none.)
 *
 * Why not preempt it instead: a serial recording switches threads only at
 * switch points, whose progress counts the replay reaches again; a switch
 * at an arbitrary instruction could not be replayed (no instruction
 * counter). A spin that calls a function the agent does not interpose, or
 * keeps a counter on its stack, changes its stack and is taken for
 * computing: the recording waits for it (as the program would without
 * spool), it is never stopped wrongly. A computation whose stack stays
 * byte for byte the same over --stuck-ms is reported, as before.
 *
 * ser_sh holds the last hash, whose holder and progress count it is of,
 * when it was taken and the holder's CPU time then; one waiter at a time
 * looks (ser_sh.busy), and a look decides only against a hash at least
 * --stuck-ms old, and only once the holder has run on a CPU for 1 ms
 * since (/proc/self/task/TID/schedstat): on a loaded machine a holder
 * that waits for a CPU does not change its stack either.
 */
static struct {
	uint32_t busy, holder;
	uint64_t count, at, hash, cpu;
} ser_sh;

/* The time thread tid has run on a CPU, in ns (0: not known). */
static uint64_t ser_tid_cpu_ns(uint32_t tid)
{
	char path[64] = "/proc/self/task/", buf[128];
	struct ser_buf b = {.n = 0};
	uint64_t v = 0;

	if (!tid)
		return 0;
	ser_putu(&b, tid);
	memcpy(path + 16, b.p, b.n);
	memcpy(path + 16 + b.n, "/schedstat", 11);
	if (agent_proc_read(path, buf, sizeof(buf)) <= 0)
		return 0;
	for (const char *p = buf; *p >= '0' && *p <= '9'; p++)
		v = v * 10 + (uint64_t)(*p - '0');
	return v;
}

/* FNV-1a over the present pages of [lo, lo + len) of this process: 0 and
 * the hash in *out, or a negative errno. */
static int ser_stack_hash(uint64_t lo, uint64_t len, uint64_t *out)
{
	uint64_t ent[64], pg = getauxval(AT_PAGESZ), a, end = lo + len, h = 14695981039346656037ull;
	unsigned char buf[512];
	long fd;
	int rc = 0;

	if (!pg || end < lo)
		return -EINVAL;
	fd = syscall(SYS_openat, AT_FDCWD, "/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (a = lo & ~(pg - 1); a < end && !rc;) {
		uint64_t want = (end - a + pg - 1) / pg;
		long n;

		if (want > sizeof(ent) / sizeof(ent[0]))
			want = sizeof(ent) / sizeof(ent[0]);
		n = syscall(SYS_pread64, fd, ent, want * 8, (long)(a / pg * 8));
		if (n <= 0) {
			rc = n < 0 ? -errno : -EIO;
			break;
		}
		for (long i = 0; i < n / 8 && !rc; i++) {
			if (!(ent[i] & (1ull << 63))) /* not present: never written */
				continue;
			for (uint64_t off = 0; off < pg; off += sizeof(buf)) {
				struct iovec li = {buf, sizeof(buf)};
				struct iovec ri = {(void *)(uintptr_t)(a + (uint64_t)i * pg + off),
						   sizeof(buf)};

				if (syscall(SYS_process_vm_readv, (pid_t)syscall(SYS_getpid), &li,
					    1ul, &ri, 1ul, 0ul) != (long)sizeof(buf)) {
					rc = -EFAULT;
					break;
				}
				for (size_t k = 0; k < sizeof(buf); k++)
					h = (h ^ buf[k]) * 1099511628211ull;
			}
		}
		a += (uint64_t)(n / 8) * pg;
	}
	syscall(SYS_close, fd);
	*out = h;
	return rc;
}

/* Record: the holder has passed no switch point for --stuck-ms and is not
 * asleep in the kernel: 1 if it computes (look again --stuck-ms on), 0 if
 * it is to be reported. */
static int ser_holder_computes(uint32_t holder, uint64_t count, uint64_t now)
{
	const struct rr_serial_slot *h;
	uint64_t lo, len, hash = 0, cpu;
	int ret = 1;

	if (agent_serial_on != RR_MODE_RECORD || holder >= ser_max)
		return 0;
	h = ser_slot(holder);
	lo = __atomic_load_n(&h->stack_lo, __ATOMIC_RELAXED);
	len = __atomic_load_n(&h->stack_len, __ATOMIC_RELAXED);
	/* (D, a page fault or a disk read, passes: a holder that computes
	 * is often caught in one; S is a call that blocks, reported) */
	if (__atomic_load_n(&h->state, __ATOMIC_ACQUIRE) != RR_S_RUN || !len ||
	    ser_tid_state(__atomic_load_n(&h->tid, __ATOMIC_RELAXED)) == 'S')
		return 0;
	if (__atomic_exchange_n(&ser_sh.busy, 1, __ATOMIC_ACQUIRE))
		return 1; /* (another waiter looks) */
	cpu = ser_tid_cpu_ns(__atomic_load_n(&h->tid, __ATOMIC_RELAXED));
	if (ser_stack_hash(lo, len, &hash) < 0) {
		ret = 0;
		goto out_unlock;
	}
	if (ser_sh.at && ser_sh.holder == holder && ser_sh.count == count) {
		if (now - ser_sh.at < agent_rr_stuck_ms)
			goto out_unlock; /* (too soon to tell) */
		if (ser_sh.hash == hash) {
			/* (it has hardly run: keep the old hash, a longer window) */
			if (cpu && ser_sh.cpu && cpu - ser_sh.cpu < 1000000u)
				goto out_unlock;
			ret = 0; /* not a byte changed for --stuck-ms: it spins */
			goto out_unlock;
		}
	}
	ser_sh.holder = holder;
	ser_sh.count = count;
	ser_sh.hash = hash;
	ser_sh.cpu = cpu;
	ser_sh.at = now;
out_unlock:
	__atomic_store_n(&ser_sh.busy, 0, __ATOMIC_RELEASE);
	return ret;
}

/* The calling thread's stack span, for the token watchdog
 * (ser_holder_computes; 0: not known, its holder is reported as before). */
extern void *__libc_stack_end;

static void ser_publish_stack(struct rr_serial_slot *s)
{
	uint64_t lo = agent_self.stack_lo,
		 len = agent_self.stack_len == UINTPTR_MAX ? 0 : agent_self.stack_len;

	/* The main thread, before the agent knows its span (it holds the
	 * token from the start): the 8 MiB below __libc_stack_end, where its
	 * frames are (pagemap shows the part not mapped as not present). */
	if (!len && syscall(SYS_gettid) == syscall(SYS_getpid) &&
	    (uintptr_t)__libc_stack_end > (8u << 20)) {
		lo = (uintptr_t)__libc_stack_end - (8u << 20);
		len = 8u << 20;
	}
	__atomic_store_n(&s->stack_lo, lo, __ATOMIC_RELAXED);
	__atomic_store_n(&s->stack_len, len, __ATOMIC_RELAXED);
}

/* Record: the thread's kernel id and stack span, for the watchdogs (they
 * read its /proc state and its stack's pages). */
static void ser_publish_tid(struct rr_serial_slot *s)
{
	ser_publish_stack(s);
	__atomic_store_n(&s->tid, (uint32_t)syscall(SYS_gettid), __ATOMIC_RELAXED);
}

/* Record: a snapshot is due and this waiting thread has not saved its
 * context (agent_snap_want): it leaves the wait to save it. */
static int ser_snap_wants_me(void)
{
	const struct agent_snap_thread *snap;

	if (AGENT_LIKELY(!agent_snap_on) || agent_serial_on != RR_MODE_RECORD ||
	    !__atomic_load_n(&agent_snap_want, __ATOMIC_ACQUIRE))
		return 0;
	snap = agent_snap_slot(ser_me.id);
	return snap && !__atomic_load_n(&snap->parked, __ATOMIC_ACQUIRE);
}

void agent_serial_wake_waiters(uint32_t me)
{
	uint32_t n = ser_nthreads();

	for (uint32_t id = 0; id < n; id++) {
		id = ser_live_from(id, n);
		if (id >= n)
			break;
		if (id != me && __atomic_load_n(&ser_slot(id)->state, __ATOMIC_ACQUIRE) == RR_S_WAIT)
			ser_wake(id);
	}
}

/* Sleep until owner names me: 1. The futex timeout is the watchdog's tick,
 * and the tick at which a thread finds spool gone (ser_let_go, 1). 0: a
 * snapshot wants my context first (ser_wait saves it and comes back). */
static __attribute__((noinline)) int ser_wait_loop(void)
{
	struct rr_serial_slot *s = ser_slot(ser_me.id);
	uint32_t last_holder = SER_FREE;
	uint64_t last_count = 0, last_turn = 0, since = 0;

	for (;;) {
		uint32_t seq = __atomic_load_n(&s->wake, __ATOMIC_SEQ_CST);
		struct timespec ts = {0, 100000000};
		uint32_t holder;
		uint64_t c, turn, now;

		if (__atomic_load_n(&ser_area->owner, __ATOMIC_SEQ_CST) == ser_me.id)
			break;
		if (!__atomic_load_n(&agent_serial_on, __ATOMIC_ACQUIRE)) {
			ser_let_go(); /* a snapshot's copy, detached (agent_snap.c) */
			return 1;
		}
		if (AGENT_UNLIKELY(ser_snap_wants_me()))
			return 0;
		syscall(SYS_futex, &s->wake, FUTEX_WAIT_PRIVATE, seq, &ts, NULL, 0);
		if (__atomic_load_n(&ser_area->owner, __ATOMIC_SEQ_CST) == ser_me.id)
			break;
		if (!__atomic_load_n(&agent_serial_on, __ATOMIC_ACQUIRE) || agent_host_gone()) {
			ser_let_go();
			return 1;
		}
		if (AGENT_UNLIKELY(ser_snap_wants_me()))
			return 0;
		holder = __atomic_load_n(&ser_area->owner, __ATOMIC_ACQUIRE);
		turn = __atomic_load_n(&ser_area->tturn, __ATOMIC_ACQUIRE);
		c = holder < ser_max
			    ? __atomic_load_n(&ser_slot(holder)->count, __ATOMIC_ACQUIRE)
			    : 0;
		now = ser_now_ms();
		/* (the holder waiting for the snapshot copies at its exit
		 * comes back: not stuck, however long they take) */
		if (!since || holder != last_holder || c != last_count || turn != last_turn ||
		    agent_snap_exit_waiting()) {
			since = now;
			last_holder = holder;
			last_count = c;
			last_turn = turn;
		} else if (holder != SER_FREE && now - since >= agent_rr_stuck_ms) {
			/* (a holder waiting for the world is looked at again
			 * --stuck-ms on: a /proc walk, not one a tick) */
			if (ser_holder_waits_outside(holder) || ser_holder_computes(holder, c, now))
				since = now;
			else if (ser_holder_stuck(holder))
				ser_report_stuck(holder, c, now - since);
		}
	}
	__atomic_store_n(&s->state, RR_S_RUN, __ATOMIC_RELEASE);
	__atomic_store_n(&s->count, agent_ser.count, __ATOMIC_RELEASE);
	if (!s->tid) /* (the watchdogs read its /proc state and its stack) */
		ser_publish_tid(s);
	return 1;
}

/* Parked: with snapshots on, the context saved here is where a snapshot's
 * copy recreates this thread (agent_snap.c). getcontext returns twice:
 * again in the copy, which then waits (the loop's state is its own frame's,
 * set up anew). parked is 1 only between the save and the end of the wait,
 * while the token is someone else's: the holder reads it. */
static void ser_restored_turn(void);

static void ser_wait(uint32_t park)
{
	struct agent_snap_thread *snap = agent_snap_on ? agent_snap_slot(ser_me.id) : NULL;

	/* (the context is saved only when a snapshot may want it:
	 * agent_snap_want; a wait that began without it comes back here to
	 * save it when one is due) */
	do {
		if (snap && __atomic_load_n(&agent_snap_want, __ATOMIC_ACQUIRE)) {
			agent_snap_before_park(snap);
			snap->park = park;
			getcontext(&snap->ctx);
			/* (returns again in a restored replay, where snap is gone) */
			if (!ser_me.restored)
				__atomic_store_n(&snap->parked, 1, __ATOMIC_RELEASE);
		}
	} while (!ser_wait_loop());
	/* In a replay a snapshot was restored into (agent_snap_restore.c),
	 * snap is the recording's memory, gone: this wait ends as a replay's
	 * and returns into the recording's caller, which only sets limits. */
	if (AGENT_UNLIKELY(ser_me.restored)) {
		ser_me.restored = 0;
		ser_restored_turn();
		return;
	}
	if (snap)
		__atomic_store_n(&snap->parked, 0, __ATOMIC_RELEASE);
}

static void ser_path_take_turn(void);

/* Replay: a snapshot is to be restored over this fresh process (--goto):
 * turn 0 begins in agent_serial_init, and --goto 0 --gdb (or --goto 0:COUNT)
 * stopped there, before the restore, where --gdbserver's session began;
 * the stop comes at the restore (agent_serial_restore_thread), in the
 * snapshot's state. */
static int ser_restore_pending;

/* Replay: I hold turn tturn; set its release count. */
static void ser_take_turn(void)
{
	uint64_t turn = __atomic_load_n(&ser_area->tturn, __ATOMIC_ACQUIRE);

	if (agent_serial_path) {
		ser_path_take_turn();
		return;
	}
	ser_me.release_at = turn < ser_area->nsw && ser_sw[turn].thread == ser_me.id
				    ? ser_sw[turn].count
				    : RR_COUNT_END;
	/* --goto EVENT --gdb: gdb stops here, as the turn EVENT begins */
	if (AGENT_UNLIKELY(ser_area->goto_stop) && turn + 1 == ser_area->goto_stop &&
	    !ser_restore_pending)
		syscall(SYS_tgkill, (pid_t)syscall(SYS_getpid), (pid_t)syscall(SYS_gettid), SIGTRAP);
}

/* Replay (recorded or path schedule): give token turn `turn` up to next
 * (SER_FREE: nobody, it stays free), with its switch record (naming
 * rec_next); wait: wait for it to come back, else the thread ends. */
static void ser_hand_over(uint64_t turn, unsigned at, uint32_t next, uint32_t rec_next, int wait)
{
	agent_rr_emit_switch(ser_me.id, agent_rr_tseq(), at, turn, rec_next, agent_ser.count);
	__atomic_store_n(&ser_slot(ser_me.id)->state, wait ? RR_S_WAIT : RR_S_DEAD,
			 __ATOMIC_RELEASE);
	__atomic_store_n(&ser_area->tturn, turn + 1, __ATOMIC_SEQ_CST);
	__atomic_store_n(&ser_area->owner, next, __ATOMIC_SEQ_CST);
	if (next < ser_max)
		ser_wake(next);
	if (wait) {
		ser_wait(RR_PARK_SLOW);
		ser_take_turn();
	}
}

/* (apart and not inlined: its message buffer would otherwise be in
 * ser_replay_release's frame at every switch of a serial replay, under the
 * hot calls, whose entry stubs zero below them: agent_scrub.c) */
static void __attribute__((noinline, cold)) ser_release_diverged(uint64_t turn,
								 const struct rr_switch *e,
								 unsigned at)
{
	struct ser_buf b = {.n = 0};

	ser_puts(&b, "replay diverged in thread ");
	ser_putu(&b, ser_me.id);
	ser_puts(&b, " at its progress count ");
	ser_putu(&b, agent_ser.count);
	ser_puts(&b, ": a different switch point\n  recorded: gave the run token to thread ");
	ser_putu(&b, turn + 1 < ser_area->nsw ? ser_sw[turn + 1].thread : 0);
	ser_puts(&b, " at ");
	ser_puts(&b, ser_at_name(e->at));
	ser_puts(&b, " (token turn ");
	ser_putu(&b, turn);
	ser_puts(&b, ")\n  replay:   at ");
	ser_puts(&b, ser_at_name(at));
	agent_rr_stop(b.p, 0);
}

/* Replay: my turn ends here (count == release_at): check that the
 * recording was at the same kind of point, then name the next holder. wait:
 * wait for my next turn (not at the thread's end). */
static void ser_replay_release(unsigned at, int wait)
{
	uint64_t turn = __atomic_load_n(&ser_area->tturn, __ATOMIC_ACQUIRE);
	const struct rr_switch *e = &ser_sw[turn];
	uint32_t next;

	if (e->at != at)
		ser_release_diverged(turn, e, at);
	if (turn + 1 >= ser_area->nsw)
		agent_rr_end_of_schedule(ser_me.id, agent_ser.count);
	next = ser_sw[turn + 1].thread;
	ser_hand_over(turn, at, next, next, wait);
}

/* ---- path schedule (spool replay --path, RR_O_PATH) ----
 *
 * The host turned a path (doc/path.md) into turns: sw[k] = (thread, hooks,
 * line): the thread holds the token until it has made `hooks` function
 * entries (with exits too under RR_O_PATH_EXITS, agent_serial_path == 2),
 * counted from its start; at its next one, before the call is recorded,
 * it gives the token to sw[k + 1].thread. It may give it up earlier, at a
 * point where it would wait for another thread (a busy lock, a condition
 * or barrier wait, sched_yield, pthread_join) once it has made all the
 * calls of its turn: the path says nothing about what runs between two
 * calls. A thread that would wait before that cannot follow the path.
 * After the last turn the threads run in number order, each until it
 * ends or waits; a call made then is not in the path. The progress count
 * (agent_ser.count) still counts every switch point, but no longer
 * decides the switches (release_at stays RR_COUNT_END). Every decision
 * depends only on what the token holder did, so a path replays the same
 * way every time. */

int agent_serial_path;
/* Function exits are progress points too (a chaos recording, or the replay
 * of one or of an older recording: RR_O_COUNT_EXITS); otherwise entries
 * only. */
int agent_serial_exits;
/* Touched only by the token holder (path replay): the current path turn,
 * and the thread that lent the token (SER_FREE when none). */
static uint64_t ser_pturn;
static uint32_t ser_lender = SER_FREE;

/* The path line of the thread's current call, 0 when it holds no turn of
 * the path. */
static uint64_t ser_path_line(void)
{
	if (ser_pturn < ser_area->nsw && ser_sw[ser_pturn].thread == ser_me.id)
		return ser_sw[ser_pturn].at + (ser_me.hooks - ser_me.hook_first);
	return 0;
}

/* Stop the replay: "thread N<what><its calls><what2>", and the path line
 * when it is not 0. */
static void __attribute__((noreturn)) ser_path_stop(const char *what, const char *what2,
						     uint64_t line)
{
	struct ser_buf b = {.n = 0};

	ser_puts(&b, "replay diverged: the path cannot be followed: thread ");
	ser_putu(&b, ser_me.id);
	ser_puts(&b, what);
	ser_putu(&b, ser_me.hooks);
	ser_puts(&b, what2);
	if (line) {
		ser_puts(&b, " (path line ");
		ser_putu(&b, line);
		ser_puts(&b, ")");
	}
	agent_rr_stop(b.p, 0);
}

static void ser_path_take_turn(void)
{
	ser_me.release_at = RR_COUNT_END;
	if (ser_lender == ser_me.id) { /* back from a loan: my turn goes on */
		ser_lender = SER_FREE;
		return;
	}
	ser_me.hook_first = ser_me.hooks;
	ser_me.loans = 0;
	/* On loan, or after the path: no call allowed. */
	ser_me.hook_limit = ser_lender == SER_FREE && ser_pturn < ser_area->nsw &&
					    ser_sw[ser_pturn].thread == ser_me.id
				    ? ser_sw[ser_pturn].count
				    : ser_me.hooks;
}

/* The next thread after `from` in number order that exists, is not me and
 * has not ended (creations and ends happen under the token: deterministic). */
static uint32_t ser_path_after(uint32_t from)
{
	uint32_t n = ser_nthreads(), i = 1;

	/* (from + i) % n for i = 1 .. n, ended threads skipped by hops */
	while (i <= n) {
		uint32_t id = (from + i) % n, live = ser_live_from(id, n);

		if (live >= n) { /* all ended up to n - 1: on at 0 */
			i += n - id;
			continue;
		}
		i += live - id;
		if (i > n)
			break;
		if (live != ser_me.id)
			return live;
		i++;
	}
	return SER_FREE;
}

/* Hand the token to next (SER_FREE: nobody; it stays free). wait: wait for
 * it to come back, else I end. */
static void ser_path_give(uint32_t next, unsigned at, int wait)
{
	uint64_t turn = __atomic_load_n(&ser_area->tturn, __ATOMIC_ACQUIRE);

	ser_hand_over(turn, at, next, next == SER_FREE ? ser_me.id : next, wait);
}

/* Why ser_path_leave found nobody to give the token to. */
static const char *ser_path_why;
/* Hand-overs since the last call anyone made, and where the last one
 * lent the token (a pending turn's thread that does not exist yet). */
static uint32_t ser_idle, ser_cursor;

/* The thread cannot go on, or ends (wait = 0): where the token goes.
 * Returns 0 when nobody can have it (the thread keeps it; ser_path_why). */
static int ser_path_leave(unsigned at, int wait)
{
	uint32_t n = ser_nthreads(), next;

	if (ser_lender != SER_FREE && ser_lender != ser_me.id) { /* back to the lender */
		ser_path_give(ser_lender, at, wait);
		return 1;
	}
	if (ser_pturn < ser_area->nsw && ser_sw[ser_pturn].thread == ser_me.id) {
		if (ser_me.hooks < ser_me.hook_limit) {
			/* Blocked before the next call of my turn: lend the
			 * token to the others in number order; each gives it
			 * back at its next call, wait or end. One of them may
			 * free me without a call of its own. */
			ser_path_why = ", but the path has it make its next call before any other "
				       "thread makes one";
			if (++ser_me.loans > 2u * n)
				return 0;
			next = ser_path_after(ser_me.id + ser_me.loans - 1);
			if (next == SER_FREE)
				return 0;
			ser_lender = ser_me.id;
			ser_path_give(next, at, wait);
			return 1;
		}
		ser_pturn++; /* my turn is done */
	}
	if (ser_pturn < ser_area->nsw) {
		next = ser_sw[ser_pturn].thread;
		if (next < n && next != ser_me.id &&
		    __atomic_load_n(&ser_slot(next)->state, __ATOMIC_ACQUIRE) != RR_S_DEAD) {
			ser_idle = 0;
			ser_path_give(next, at, wait);
			return 1;
		}
		/* The next turn's thread does not exist yet (or has ended):
		 * the others run in number order until one creates it. */
		ser_path_why = next < n ? ", but the thread of the path's next turn has ended"
					: ", but the thread of the path's next turn is never created";
		if (++ser_idle > 2u * n + 2)
			return 0;
		next = ser_path_after(ser_cursor);
		if (next == SER_FREE && (next = ser_path_after(ser_me.id)) == SER_FREE)
			return 0;
		ser_cursor = next;
		ser_path_give(next, at, wait);
		return 1;
	}
	ser_path_why = " after the path's end, and no other thread can run";
	next = ser_path_after(ser_me.id); /* after the path: number order */
	if (next == SER_FREE && wait)
		return 0;
	ser_path_give(next, at, wait);
	return 1;
}

/* A function entry (or exit) hook, before the call is recorded. */
void agent_serial_path_hook(void)
{
	if (!ser_me.on || agent_serial_on != RR_MODE_REPLAY)
		return;
	while (ser_me.hooks >= ser_me.hook_limit) {
		if (ser_lender == SER_FREE &&
		    (ser_pturn >= ser_area->nsw ||
		     (ser_sw[ser_pturn].thread == ser_me.id && ser_pturn + 1 >= ser_area->nsw)))
			ser_path_stop(" makes a call after the path's end: its call after call ",
				      " is not in the path (the path was cut short, or the "
				      "program does something else)",
				      0);
		if (!ser_path_leave(RR_AT_POINT, 1))
			ser_path_stop(" has made its call ", ser_path_why, 0);
	}
	ser_me.hooks++;
	ser_me.loans = 0;
	ser_idle = 0;
}

/* A point where the thread waits for another one (forced yield, join). */
static void ser_path_blocked(unsigned at)
{
	if (!ser_path_leave(at, 1) && at != RR_AT_JOIN)
		ser_path_stop(" waits for another thread (a lock, condition, barrier or "
			      "sched_yield) after its call ",
			      ser_path_why, ser_path_line());
}

/* The thread ends. */
static void ser_path_end(void)
{
	uint64_t k;

	if (ser_lender == SER_FREE && ser_pturn < ser_area->nsw &&
	    ser_sw[ser_pturn].thread == ser_me.id && ser_me.hooks < ser_me.hook_limit)
		ser_path_stop(" ends after its call ", ", but the path has more calls of it",
			      ser_path_line());
	for (k = ser_pturn + 1; k < ser_area->nsw; k++)
		if (ser_sw[k].thread == ser_me.id)
			ser_path_stop(" ends after its call ", ", but the path has more calls of it",
				      ser_sw[k].at);
	if (!ser_path_leave(RR_AT_EXIT, 0)) {
		if (ser_pturn < ser_area->nsw)
			ser_path_stop(" ends after its call ", ser_path_why, 0);
		ser_path_give(SER_FREE, RR_AT_EXIT, 0);
	}
}

static void ser_release(unsigned at, uint32_t state);
static void ser_acquire(uint32_t park);

/*
 * Record: 1 when the caller is not the thread whose state it runs on: a
 * thread of the program's own clone that spool did not see being made (its
 * own clone system call where syscall user dispatch does not reach: turned
 * off, or made by another such thread), on its creator's TLS. It must not
 * touch the token: it would give away or free a token it does not hold,
 * and the thread the token had just been handed to would wait for good.
 * Asked before every decision about the token (a switch, a blocking call),
 * never on the fast path: one gettid. The thread is counted and the
 * recording stops (agent_rr_clone_unseen). A vfork child, which runs on
 * its parent's TLS too, is another process (tgkill finds no such thread
 * in it): not one of these.
 */
static int ser_intruder(void)
{
	uint32_t tid, me = ser_me.tid;
	int saved, other;

	if (agent_serial_on != RR_MODE_RECORD || !me)
		return 0;
	tid = (uint32_t)syscall(SYS_gettid);
	if (AGENT_LIKELY(tid == me))
		return 0;
	saved = errno;
	other = syscall(SYS_tgkill, (pid_t)syscall(SYS_getpid), (pid_t)me, 0) < 0 && errno == ESRCH;
	errno = saved;
	if (other)
		return 0;
	agent_rr_clone_unseen();
	return 1;
}

/* ---- the switch point's slow path ---- */

static void ser_slow(unsigned at, int forced)
{
	struct rr_serial_slot *s;

	/* a SIGEV_THREAD timer's function: its switch points cannot be
	 * recorded (agent_rr_sevthread.c); the recording stops here */
	if (AGENT_UNLIKELY(agent_rr_sev_fn) && agent_serial_on == RR_MODE_RECORD)
		agent_rr_sev_switch();

	if (!ser_me.on || !agent_serial_on) {
		agent_ser.limit = UINT64_MAX;
		/* Let go (spool gone): a yield stays one, so an emulated
		 * condition or barrier wait's loop lets the others run. */
		if (forced && (__atomic_load_n(&agent_gone, __ATOMIC_RELAXED) ||
			       __atomic_load_n(&ser_stopped, __ATOMIC_RELAXED)))
			syscall(SYS_sched_yield);
		return;
	}
	s = ser_slot(ser_me.id);
	__atomic_store_n(&s->count, agent_ser.count, __ATOMIC_RELEASE);
	s->at = at;
	/* (the main thread holds the token from the start, without a wait
	 * that would publish its stack: here, once it is known) */
	if (AGENT_UNLIKELY(!s->stack_len))
		ser_publish_stack(s);
	if (!forced)
		ser_progress();
	/* Signals due here run first, before any switch (agent_rr_signal.c). */
	agent_rr_sig_point(agent_ser.count);
	if (agent_serial_on == RR_MODE_REPLAY) {
		if (AGENT_UNLIKELY(agent_snap_request) &&
		    __atomic_load_n(&ser_area->owner, __ATOMIC_ACQUIRE) == ser_me.id) {
			agent_snap_checkpoint(ser_me.id, ser_nthreads(),
					      __atomic_load_n(&ser_area->tturn, __ATOMIC_ACQUIRE));
			agent_stack_scrub(); /* its frames are deep: as if none was taken */
		}
		if (agent_serial_path && forced)
			ser_path_blocked(at);
		while (agent_ser.count == ser_me.release_at)
			ser_replay_release(at, 1);
		ser_set_limit();
		if (AGENT_UNLIKELY(ser_me.async) && at != RR_AT_SYNC)
			agent_rr_testcancel_real();
		return;
	}
	if ((forced || agent_ser.count >= ser_me.slice_end || AGENT_UNLIKELY(agent_snap_on)) &&
	    AGENT_UNLIKELY(ser_intruder())) {
		agent_ser.limit = UINT64_MAX;
		if (forced)
			syscall(SYS_sched_yield);
		return;
	}
	if (AGENT_UNLIKELY(agent_snap_on) &&
	    __atomic_load_n(&ser_area->owner, __ATOMIC_ACQUIRE) == ser_me.id) {
		int restored = agent_snap_point(ser_me.id, ser_nthreads(), ser_area->switches);

		/* a snapshot's frames are deep, and a replay takes none: the
		 * stack below is left as if none was taken (agent_scrub.c) */
		agent_stack_scrub();
		if (restored) {
			/* A replay now, restored from the snapshot taken
			 * here: go on as the replay's slow path does
			 * (ser_take_turn was done). */
			while (agent_ser.count == ser_me.release_at)
				ser_replay_release(at, 1);
			ser_set_limit();
			return;
		}
		/* in a snapshot's copy that runs on, detached: no schedule */
		if (AGENT_UNLIKELY(!agent_serial_on)) {
			agent_ser.limit = UINT64_MAX;
			return;
		}
	}
	/* A slice shorter than SER_SLICE_NS goes on (one clock read per
	 * SER_SLICE points). */
	if (!forced && agent_ser.count >= ser_me.slice_end && !ser_area->chaos &&
	    ser_now_ns() - ser_me.slice_ns < SER_SLICE_NS)
		ser_me.slice_end = agent_ser.count + SER_SLICE;
	if (forced || agent_ser.count >= ser_me.slice_end) {
		struct ser_rec rec = {.set = 0};
		uint32_t next;

		ser_lock();
		next = ser_pick();
		if (next == SER_FREE && ser_area->chaos && !forced)
			next = ser_me.id; /* chaos may keep me running */
		if (next != SER_FREE && next != ser_me.id)
			ser_give(next, at, RR_S_WAIT, &rec);
		else if (!forced || next == ser_me.id)
			ser_new_slice();
		ser_unlock();
		if (rec.set) {
			ser_emit(&rec);
			ser_wake(rec.next);
			ser_wait(RR_PARK_SLOW);
			ser_lock();
			ser_new_slice();
			ser_unlock();
		} else if (forced) {
			/* Nobody waits for the token: let a thread that comes
			 * back from a blocking call have it for a moment. */
			struct timespec ts = {0, 50000};

			/* (not agent_serial_block_*: a nap is no progress for
			 * the deadlock watch) */
			ser_release(at, RR_S_OUT);
			syscall(SYS_nanosleep, &ts, NULL);
			ser_acquire(RR_PARK_NAP);
		}
	}
	ser_set_limit();
	/* The asynchronous cancel type, emulated: a pending cancellation is
	 * acted on at a switch point (not inside a lock call: at RR_AT_SYNC a
	 * condition wait has let its mutex go), where a replay acts too. */
	if (AGENT_UNLIKELY(ser_me.async) && at != RR_AT_SYNC)
		agent_rr_testcancel_real();
}

int agent_serial_set_async(int on)
{
	int was;

	if (!agent_serial_on || !ser_me.on)
		return -1;
	was = ser_me.async;
	ser_me.async = !!on;
	return was;
}

void agent_serial_slow(unsigned at)
{
	ser_slow(at, 0);
}

void agent_serial_yield(unsigned at)
{
	++agent_ser.count;
	ser_slow(at, 1);
}

void agent_serial_wait_yield(unsigned kind)
{
	/* A replay watches the last turn only (the others end at their
	 * recorded counts): in a recording that was stopped while its
	 * threads waited, its holder retries for good. */
	if (ser_me.on && (agent_serial_on == RR_MODE_RECORD ||
			  (agent_serial_on == RR_MODE_REPLAY && !agent_serial_path &&
			   ser_me.release_at == RR_COUNT_END)))
		ser_watch_retry(kind);
	agent_serial_yield(kind == RR_W_YIELD ? RR_AT_YIELD : RR_AT_SYNC);
}

/* ---- blocking calls (record) ---- */

/* Recording: give the token to the next runnable thread, or leave it free
 * (noting where this thread let it go) when none can run; the calling
 * thread goes to STATE (out in a blocking call, or dead). */
static void ser_release(unsigned at, uint32_t state)
{
	struct ser_rec rec = {.set = 0};
	uint32_t next;

	ser_lock();
	next = ser_pick();
	if (next != SER_FREE) {
		ser_give(next, at, state, &rec);
	} else {
		ser_area->rel_thread = ser_me.id;
		ser_area->rel_at = at;
		ser_area->rel_tseq = agent_rr_tseq();
		ser_area->rel_count = agent_ser.count;
		__atomic_store_n(&ser_slot(ser_me.id)->state, state, __ATOMIC_RELEASE);
		__atomic_store_n(&ser_area->owner, SER_FREE, __ATOMIC_SEQ_CST);
	}
	ser_unlock();
	if (rec.set) {
		ser_emit(&rec);
		ser_wake(rec.next);
	}
}


void agent_serial_block_begin(unsigned at)
{
	if (agent_rr_in_stdio)
		return; /* its FILE's lock is held: keep the token (agent_rr_stdio.c) */
	if (agent_serial_path && at == RR_AT_JOIN && ser_me.on &&
	    agent_serial_on == RR_MODE_REPLAY) {
		/* path replay: the joined thread may need the token to end */
		ser_path_blocked(at);
		ser_set_limit();
		return;
	}
	if (agent_serial_on != RR_MODE_RECORD || !ser_me.on || ser_intruder())
		return;
	/* (the deadlock watch: a thread out in an input call may come back
	 * by itself, one in a join only when another thread ends) */
	if (at == RR_AT_INPUT || at == RR_AT_JOIN)
		__atomic_store_n(&ser_slot(ser_me.id)->wait,
				 at == RR_AT_JOIN ? RR_W_JOIN : RR_W_INPUT, __ATOMIC_RELAXED);
	ser_release(at, RR_S_OUT);
}

/* Take the token back: a free token at once (a new turn if someone else
 * gave it up), otherwise wait to be given it. */
static void ser_acquire(uint32_t park)
{
	struct ser_rec rec = {.set = 0};
	int wait = 0;

	uint32_t owner, st;

	ser_lock();
	owner = __atomic_load_n(&ser_area->owner, __ATOMIC_ACQUIRE);
	st = __atomic_load_n(&ser_slot(ser_me.id)->state, __ATOMIC_ACQUIRE);
	if (owner == ser_me.id) {
		/* given to me as a new thread before I got here */
	} else if (owner == SER_FREE) {
		uint64_t turn = ser_area->tturn;

		if (st == RR_S_WAIT)
			ser_area->nwaiting--;

		if (ser_area->rel_thread != ser_me.id) {
			rec = (struct ser_rec){ser_area->rel_thread, ser_area->rel_tseq,
					       ser_area->rel_at,     ser_me.id,
					       turn,		     ser_area->rel_count,
					       1};
			__atomic_store_n(&ser_area->tturn, turn + 1, __ATOMIC_SEQ_CST);
			ser_area->switches++;
		}
		__atomic_store_n(&ser_area->owner, ser_me.id, __ATOMIC_SEQ_CST);
		__atomic_store_n(&ser_slot(ser_me.id)->state, RR_S_RUN, __ATOMIC_RELEASE);
	} else {
		if (st != RR_S_WAIT) {
			__atomic_store_n(&ser_slot(ser_me.id)->state, RR_S_WAIT, __ATOMIC_RELEASE);
			ser_area->nwaiting++;
		}
		wait = 1;
	}
	ser_unlock();
	ser_emit(&rec);
	if (wait)
		ser_wait(park);
	ser_lock();
	ser_new_slice();
	ser_unlock();
	ser_set_limit();
	if (!ser_slot(ser_me.id)->tid) /* (the join watch reads its /proc state) */
		ser_publish_tid(ser_slot(ser_me.id));
}

void agent_serial_block_end(void)
{
	if (agent_rr_in_stdio || agent_serial_on != RR_MODE_RECORD || !ser_me.on ||
	    ser_intruder())
		return;
	ser_acquire(RR_PARK_BLOCK);
	__atomic_store_n(&ser_slot(ser_me.id)->wait, RR_W_NONE, __ATOMIC_RELAXED);
	ser_progress();
	agent_serial_snap_check();
}

void agent_serial_snap_check(void)
{
	if (AGENT_LIKELY(!agent_snap_on) || agent_serial_on != RR_MODE_RECORD || !ser_me.on ||
	    __atomic_load_n(&ser_area->owner, __ATOMIC_ACQUIRE) != ser_me.id)
		return;
	/* (the next switch point takes the slow path, where the snapshot
	 * is taken: a point, not here, where a blocking call's frames may
	 * be an unwinding's) */
	if (agent_snap_due())
		agent_ser.limit = agent_ser.count;
}

/* ---- a thread out in a blocking call, in a snapshot (agent_serial.h) ---- */

ucontext_t *agent_serial_out_ctx(void)
{
	struct agent_snap_thread *snap;

	if (AGENT_LIKELY(!agent_snap_on) || agent_serial_on != RR_MODE_RECORD || !ser_me.on)
		return NULL;
	/* (it kept the token: a stdio call, an intruder) */
	if (__atomic_load_n(&ser_slot(ser_me.id)->state, __ATOMIC_ACQUIRE) != RR_S_OUT)
		return NULL;
	snap = agent_snap_slot(ser_me.id);
	if (!snap || !__atomic_load_n(&snap->valid, __ATOMIC_ACQUIRE) ||
	    (!__atomic_load_n(&agent_snap_want, __ATOMIC_ACQUIRE) &&
	     !__atomic_load_n(&snap->out_save, __ATOMIC_RELAXED)))
		return NULL;
	agent_snap_before_park(snap);
	snap->park = RR_PARK_OUT;
	return &snap->ctx;
}

int agent_serial_out_saved(void)
{
	struct agent_snap_thread *snap;

	if (AGENT_UNLIKELY(ser_me.restored)) {
		/* A replay restored from a snapshot that held this thread
		 * out in the call (agent_serial_restore_thread): its wait for
		 * the token is the one a replay's thread makes at the call's
		 * switch point, and ends the same way (ser_restored_turn). */
		agent_rr_cancel_deferred();
		ser_wait(RR_PARK_SLOW);
		ser_set_limit();
		return 1;
	}
	if (agent_serial_on != RR_MODE_RECORD)
		return 0; /* a snapshot's copy that runs on: the call is made */
	snap = agent_snap_slot(ser_me.id);
	if (snap)
		__atomic_store_n(&snap->parked, 1, __ATOMIC_SEQ_CST);
	return 0;
}

void agent_serial_out_back(void)
{
	struct agent_snap_thread *snap;
	int e = errno;

	if (agent_serial_on != RR_MODE_RECORD)
		return;
	snap = agent_snap_slot(ser_me.id);
	if (snap)
		agent_snap_leave(snap);
	errno = e;
}

/* ---- the holder in a stdio read, in a snapshot (agent_serial.h) ---- */

/* A snapshot that found a thread not parked is tried again this long after,
 * doubling, up to SER_STDIO_RETRY_MAX: a thread out in a blocking call
 * without its context stays so until that call returns. */
#define SER_STDIO_RETRY_NS 5000000ll
#define SER_STDIO_RETRY_MAX 1000000000ll

int agent_serial_stdio_wait(int fd)
{
	int64_t ns, retry = SER_STDIO_RETRY_NS;
	long fl;

	if (AGENT_LIKELY(!agent_snap_on) || agent_serial_on != RR_MODE_RECORD || !ser_me.on ||
	    __atomic_load_n(&ser_area->owner, __ATOMIC_ACQUIRE) != ser_me.id || ser_intruder())
		return 0;
	ns = agent_snap_due_in();
	if (ns < 0)
		return 0;
	/* (one was taken at this position already, at the switch point the
	 * holder passed last: `spool info` and --goto EVENT:COUNT could not
	 * tell a second one apart; the next is taken after the read) */
	if (agent_snap_taken_at(__atomic_load_n(&ser_area->tturn, __ATOMIC_ACQUIRE),
				agent_ser.count))
		return 0;
	/* (something to read now, as a regular file always has: one system
	 * call, and the read is made at once) */
	{
		struct pollfd p = {fd, POLLIN, 0};
		struct timespec ts = {0, 0};

		if (syscall(SYS_ppoll, &p, 1, &ts, NULL, (size_t)8) != 0)
			return 0;
	}
	/* (a descriptor that does not block: its read is the program's to
	 * make at once, EAGAIN and all) */
	fl = syscall(SYS_fcntl, fd, F_GETFL);
	if (fl < 0 || (fl & O_NONBLOCK))
		return 0;
	for (;;) {
		struct pollfd p = {fd, POLLIN, 0};
		struct timespec ts = {(time_t)(ns / 1000000000ll), (long)(ns % 1000000000ll)};
		long r;
		int restored;

		/* (a timeout of 0: is there something to read now) */
		r = syscall(SYS_ppoll, &p, 1, &ts, NULL, (size_t)8);
		/* ready (or an error the read will say again): read */
		if (r > 0 || (r < 0 && errno != EINTR))
			return 0;
		/* A signal: the real read would have returned EINTR when its
		 * handler has no SA_RESTART, else gone on waiting (and a
		 * cancellation acts at its start). */
		if (r < 0)
			return agent_rr_sig_interrupts() ? -EINTR : 0;
		ns = agent_snap_due_in();
		if (ns < 0)
			return 0;
		if (ns > 0)
			continue;
		/* Due, and the read would block: take it here, at the
		 * holder's count of its last switch point. */
		restored = agent_snap_point(ser_me.id, ser_nthreads(), ser_area->switches);
		/* (a snapshot's frames are deep, and a replay takes none) */
		agent_stack_scrub();
		if (restored) {
			/* A replay restored from the snapshot taken here: the
			 * read's result comes from the log (the caller's
			 * recording of it takes the record off). No switch
			 * point was passed: the turn goes on as recorded. */
			ser_set_limit();
			return 1;
		}
		/* in a snapshot's copy that runs on, detached: no schedule */
		if (AGENT_UNLIKELY(!agent_serial_on)) {
			agent_ser.limit = UINT64_MAX;
			return 0;
		}
		/* Taken (the next is due a period on), or no more: one a
		 * wait, since nothing of the process moves while the holder
		 * waits. Not taken (a thread not parked): again a little
		 * later, while the read would still block. */
		ns = agent_snap_due_in();
		if (ns != 0)
			return 0;
		ns = retry;
		if (retry < SER_STDIO_RETRY_MAX)
			retry *= 2;
	}
}

/* ---- threads ---- */

void agent_serial_thread_start(uint32_t id)
{
	if (!agent_serial_on || id >= ser_max)
		return;
	ser_me.id = id;
	ser_me.on = 1;
	ser_me.hooks = 0;
	ser_me.tid = (uint32_t)syscall(SYS_gettid);
	agent_ser.count = 0;
	agent_ser.limit = 0;
	if (agent_snap_on)
		agent_snap_thread_start(id);
}

/* Record: a new thread can run from its creation on, so a switch right
 * after pthread_create may give it the token before it is scheduled. */
void agent_serial_thread_created(uint32_t id)
{
	if (agent_serial_on != RR_MODE_RECORD || id >= ser_max)
		return;
	ser_lock();
	if (__atomic_load_n(&ser_slot(id)->state, __ATOMIC_ACQUIRE) == RR_S_NONE) {
		__atomic_store_n(&ser_slot(id)->state, RR_S_WAIT, __ATOMIC_RELEASE);
		ser_area->nwaiting++;
	}
	ser_unlock();
}

/* Record: a numbered thread that cannot be recorded (it found no ring:
 * more threads alive at once than rings) leaves the schedule as if it had
 * ended and runs on without the token; the recording is already marked
 * incomplete. Holding the token and never reaching a switch point, it
 * would stop every other thread, and the watchdog would blame the program
 * for spool's own limit. */
void agent_serial_thread_leave(void)
{
	int holder;

	if (agent_serial_on != RR_MODE_RECORD || !ser_me.on)
		return;
	__atomic_store_n(&ser_outsiders, 1, __ATOMIC_RELAXED);
	ser_lock();
	holder = __atomic_load_n(&ser_area->owner, __ATOMIC_ACQUIRE) == ser_me.id;
	if (!holder) {
		if (__atomic_load_n(&ser_slot(ser_me.id)->state, __ATOMIC_ACQUIRE) == RR_S_WAIT)
			ser_area->nwaiting--;
		__atomic_store_n(&ser_slot(ser_me.id)->state, RR_S_DEAD, __ATOMIC_RELEASE);
	}
	ser_unlock();
	if (holder)
		ser_release(RR_AT_EXIT, RR_S_DEAD);
	ser_me.on = 0;
}

void agent_serial_thread_go(void)
{
	if (!agent_serial_on || !ser_me.on)
		return;
	if (agent_serial_on == RR_MODE_RECORD) {
		ser_acquire(RR_PARK_GO);
		ser_progress();
		return;
	}
	__atomic_store_n(&ser_slot(ser_me.id)->state, RR_S_WAIT, __ATOMIC_RELEASE);
	ser_wait(RR_PARK_GO);
	ser_take_turn();
	ser_set_limit();
}

void agent_serial_thread_end(void)
{
	if (!agent_serial_on || !ser_me.on)
		return;
	ser_me.on = 0;
	++agent_ser.count;
	agent_ser.limit = UINT64_MAX;
	__atomic_store_n(&ser_slot(ser_me.id)->count, agent_ser.count, __ATOMIC_RELEASE);
	ser_slot(ser_me.id)->at = RR_AT_EXIT;
	if (agent_serial_on == RR_MODE_REPLAY && agent_serial_path) {
		ser_path_end();
		return;
	}
	if (agent_serial_on == RR_MODE_REPLAY) {
		if (agent_ser.count != ser_me.release_at) {
			struct ser_buf b = {.n = 0};

			ser_puts(&b, "replay diverged in thread ");
			ser_putu(&b, ser_me.id);
			ser_puts(&b, ": the thread ends at its progress count ");
			ser_putu(&b, agent_ser.count);
			ser_puts(&b, "\n  recorded: it gave the run token up at its count ");
			ser_putu(&b, ser_me.release_at);
			ser_puts(&b, "\n  replay:   it ends at its count ");
			ser_putu(&b, agent_ser.count);
			agent_rr_stop(b.p, 0);
		}
		ser_replay_release(RR_AT_EXIT, 0);
		return;
	}
	ser_progress();
	ser_release(RR_AT_EXIT, RR_S_DEAD);
}

/* ---- emulated condition waits and barriers ---- */

/* Timed waits: whether the deadline ts on clock clk has passed. The clock
 * is read through the interposed clock_gettime, so the reading is an input
 * of the recording (and a switch point): a replay gets the same readings
 * and times out at the same attempt. An invalid ts times out at once (the
 * real call would fail with EINVAL; this one says ETIMEDOUT). */
int agent_serial_timed_out(clockid_t clk, const struct timespec *ts)
{
	struct timespec now;

	if (!ts)
		return 0;
	if (ts->tv_nsec < 0 || ts->tv_nsec >= 1000000000)
		return 1;
	if (clock_gettime(clk, &now))
		return 0;
	return now.tv_sec > ts->tv_sec || (now.tv_sec == ts->tv_sec && now.tv_nsec >= ts->tv_nsec);
}

/* A condition wait that returns after a yield: the spurious wake-up POSIX
 * allows; the caller's predicate loop waits for the real condition. The
 * condvar itself is not used, so a signal is never lost or needed. A timed
 * wait returns ETIMEDOUT (with the mutex held) once its deadline, read on
 * the recorded clock, has passed. */
int agent_serial_cond_wait(pthread_mutex_t *m, clockid_t clk, const struct timespec *ts)
{
	agent_real.mutex_unlock(m);
	agent_serial_wait_yield(RR_W_COND);
	while (agent_real.mutex_trylock(m) == EBUSY)
		agent_serial_wait_yield(RR_W_MUTEX);
	/* A cancellation point: a pending cancellation is acted on with the
	 * mutex taken back, as glibc's wait does. Only the token holder runs,
	 * so its canceller ran at the same point of a replay. */
	agent_rr_testcancel_real();
	return agent_serial_timed_out(clk, ts) ? ETIMEDOUT : 0;
}

struct ser_barrier {
	const void *addr;
	uint32_t count, arrived;
	uint64_t gen;
};
/* Touched only by the token holder. */
static struct ser_barrier ser_barriers[SER_BARRIERS];

static struct ser_barrier *ser_barrier_find(const void *b, int add)
{
	uint32_t h = (uint32_t)(((uintptr_t)b >> 4) * 2654435761u) % SER_BARRIERS, i;

	for (i = 0; i < SER_BARRIERS; i++, h = (h + 1) % SER_BARRIERS) {
		if (ser_barriers[h].addr == b)
			return &ser_barriers[h];
		if (!ser_barriers[h].addr) {
			if (!add)
				return NULL;
			ser_barriers[h].addr = b;
			return &ser_barriers[h];
		}
	}
	return NULL;
}

void agent_serial_barrier_init(const void *b, unsigned count)
{
	struct ser_barrier *e = ser_barrier_find(b, 1);

	if (e) {
		e->count = count;
		e->arrived = 0;
	}
}

int agent_serial_barrier_get(uint32_t i, struct rr_snap_barrier *out)
{
	if (i >= SER_BARRIERS)
		return -ENOENT;
	out->addr = (uint64_t)(uintptr_t)ser_barriers[i].addr;
	out->count = ser_barriers[i].count;
	out->arrived = ser_barriers[i].arrived;
	out->gen = ser_barriers[i].gen;
	return 0;
}

int agent_serial_barrier_put(const struct rr_snap_barrier *b)
{
	struct ser_barrier *e = ser_barrier_find((const void *)(uintptr_t)b->addr, 1);

	if (!e || !b->addr)
		return -ENOSPC;
	e->count = b->count;
	e->arrived = b->arrived;
	e->gen = b->gen;
	return 0;
}

static int ser_barrier_real(pthread_barrier_t *b)
{
	int rc;

	agent_serial_block_begin(RR_AT_SYNC);
	rc = agent_real.barrier_wait(b);
	agent_serial_block_end();
	return rc;
}

/*
 * The last thread to arrive is the serial thread, as in glibc.
 *
 * A thread outside the schedule (it found no ring, agent_serial_thread_leave)
 * waits in glibc's own barrier, which knows nothing of the emulated count:
 * mixed, the two halves would each wait for the other forever (a program
 * that works natively would hang under spool record). So once an outsider
 * exists, every arrival uses the real barrier, and so does every emulated
 * waiter not yet released: those, plus the arrivals after them, are exactly
 * the count the real barrier expects. Both the flag test and the emulated
 * arrival run with the run token held, and the flag only goes from 0 to 1,
 * so no waiter moves to the real barrier once its generation is complete
 * (it tests gen first).
 */
int agent_serial_barrier_wait(pthread_barrier_t *b)
{
	struct ser_barrier *e = ser_barrier_find(b, 0);
	uint64_t gen;

	agent_serial_point(RR_AT_SYNC);
	/* Not initialized under spool, or outsiders: the real one, token released. */
	if (!e || !e->count || __atomic_load_n(&ser_outsiders, __ATOMIC_RELAXED))
		return ser_barrier_real(b);
	if (++e->arrived >= e->count) {
		e->arrived = 0;
		e->gen++;
		return PTHREAD_BARRIER_SERIAL_THREAD;
	}
	gen = e->gen;
	while (e->gen == gen) {
		if (__atomic_load_n(&ser_outsiders, __ATOMIC_RELAXED))
			return ser_barrier_real(b);
		agent_serial_wait_yield(RR_W_BARRIER);
	}
	return 0;
}

/* ---- coverage callbacks: progress points for loops without calls ---- */

/* gcc -fsanitize-coverage=trace-pc and clang's trace-pc-guard call these in
 * every block. The program gets them from libspool-progress.so (no-ops);
 * this preloaded agent comes first. A definition in the executable itself
 * binds directly and is not seen (doc/record.md). */
AGENT_EXPORT void __sanitizer_cov_trace_pc(void)
{
	if (AGENT_UNLIKELY(agent_serial_on))
		agent_serial_point(RR_AT_POINT);
}

AGENT_EXPORT void __sanitizer_cov_trace_pc_guard(uint32_t *guard)
{
	if (AGENT_UNLIKELY(agent_serial_on))
		agent_serial_point(RR_AT_POINT);
}

AGENT_EXPORT void __sanitizer_cov_trace_pc_guard_init(uint32_t *start, uint32_t *stop)
{
	for (uint32_t *g = start; g < stop; g++)
		*g = 1;
}

/* ---- startup ---- */

/*
 * The recording stops for good with the program running on (the program's
 * own clone of a thread on its creator's TLS, agent_rr_clone_stop): every
 * thread lets go of the schedule now. The caller is the only thread that
 * knows; the others see agent_serial_on 0 at their next switch point, and a
 * waiting one as soon as its wake word moves. Every slot's word is woken,
 * whatever its state says (the states may be wrong when two threads shared
 * one number), and all its waiters: a thread does not wait for its 100 ms
 * tick. A forced yield stays one from then on (ser_slow), so a wait the
 * agent emulated (a busy lock's retry) does not spin without letting its
 * holder run. Raw system calls and atomics only.
 */
void agent_serial_stop(void)
{
	uint32_t n;

	if (!__atomic_load_n(&agent_serial_on, __ATOMIC_ACQUIRE) || !ser_area)
		return;
	__atomic_store_n(&ser_stopped, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&agent_serial_on, 0, __ATOMIC_SEQ_CST);
	agent_ser.limit = UINT64_MAX;
	n = ser_nthreads();
	for (uint32_t id = 0; id < n; id++) {
		struct rr_serial_slot *s = agent_lazy_at(&ser_slots, id);

		if (!s)
			continue;
		__atomic_fetch_add(&s->wake, 1, __ATOMIC_SEQ_CST);
		syscall(SYS_futex, &s->wake, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
	}
}

void agent_serial_fork_child(void)
{
	agent_serial_on = 0;
	ser_me.on = 0;
	agent_ser.limit = UINT64_MAX;
}

int agent_serial_init(struct rr_area *a, uint32_t *creations, char *whole, uint64_t base)
{
	if (!a->serial || !a->serial_off || a->max_threads == 0)
		return 0;
	ser_max = agent_lazy_init(&ser_slots, SHM_EXT_REPLAY, (whole ? 0 : base) + a->serial_off,
				  sizeof(struct rr_serial_slot), a->max_threads, whole);
	if (!agent_lazy_at(&ser_slots, 0))
		return -1;
	ser_area = a;
	ser_sw = (const struct rr_switch *)(agent_rr_ro + a->sw_off);
	ser_creations = creations;
	ser_rng = a->seed ? a->seed : 0x9e3779b97f4a7c15ull;
	ser_me.id = 0;
	ser_me.on = 1;
	ser_me.tid = (uint32_t)syscall(SYS_gettid);
	agent_ser.count = 0;
	ser_slot(0)->state = RR_S_RUN;
	ser_slot(0)->tid = ser_me.tid;
	ser_publish_stack(ser_slot(0));
	a->owner = 0;
	a->tturn = 0;
	agent_serial_on = (int)a->mode;
	agent_serial_path = a->mode == RR_MODE_REPLAY && (a->opts & RR_O_PATH)
				    ? ((a->opts & RR_O_PATH_EXITS) ? 2 : 1)
				    : 0;
	/* Chaos records count exits too: more places to switch at is what
	 * finds a race (rr_race_aba's window is between a call's exit and the
	 * next entry); a plain recording counts entries, at half the cost. */
	agent_serial_exits = a->mode == RR_MODE_REPLAY ? !!(a->opts & RR_O_COUNT_EXITS)
						       : !!a->chaos;
	ser_me.hooks = 0;
	ser_pturn = 0;
	ser_lender = SER_FREE;
	ser_idle = ser_cursor = 0;
	if (a->mode == RR_MODE_REPLAY) {
		if (!a->nsw || ser_sw[0].thread != 0) {
			agent_serial_on = 0;
			agent_disable("record/replay: bad serial schedule");
			return 0;
		}
		ser_restore_pending = a->restore_size != 0;
		ser_take_turn();
		ser_restore_pending = 0;
	} else {
		ser_new_slice();
	}
	ser_set_limit();
	return 0;
}

/* ---- a replay restored from a snapshot (agent_snap_restore.c) ---- */

/* A recreated thread's wait has ended: its turn begins as in the replay's
 * ser_hand_over, and a turn that ends at once is handed on. */
static void ser_restored_turn(void)
{
	ser_take_turn();
	while (agent_ser.count == ser_me.release_at) {
		uint64_t turn = __atomic_load_n(&ser_area->tturn, __ATOMIC_ACQUIRE);

		ser_replay_release(turn < ser_area->nsw ? ser_sw[turn].at : RR_AT_NONE, 1);
	}
}

uint32_t agent_serial_restore_numbers(uint64_t turn, uint32_t most)
{
	uint32_t n = most;

	if (!ser_sw || !ser_area)
		return n;
	for (uint64_t k = 0; k <= turn && k < ser_area->nsw; k++)
		if (ser_sw[k].thread + 1 > n)
			n = ser_sw[k].thread + 1;
	return n;
}

int agent_serial_restore_area(uint64_t turn, uint32_t n, uint32_t holder)
{
	if (!ser_area || turn >= ser_area->nsw || n > ser_max || !n ||
	    ser_sw[turn].thread != holder)
		return -EINVAL;
	for (uint32_t id = 0; id < n; id++) {
		struct rr_serial_slot *s = ser_slot(id);

		__atomic_store_n(&s->state, RR_S_DEAD, __ATOMIC_RELEASE);
		s->hop = 0;
	}
	__atomic_store_n(ser_creations, n - 1, __ATOMIC_RELEASE);
	ser_area->nthreads = n;
	__atomic_store_n(&ser_area->tturn, turn, __ATOMIC_SEQ_CST);
	__atomic_store_n(&ser_area->owner, ser_sw[turn].thread, __ATOMIC_SEQ_CST);
	return 0;
}

void agent_serial_restore_thread(uint32_t id, int holder, uint32_t park)
{
	struct rr_serial_slot *s = ser_slot(id);

	ser_me.id = id;
	ser_me.on = 1;
	ser_me.hooks = 0;
	ser_me.tid = (uint32_t)syscall(SYS_gettid);
	ser_me.release_at = RR_COUNT_END;
	__atomic_store_n(&s->count, agent_ser.count, __ATOMIC_RELEASE);
	ser_publish_tid(s);
	__atomic_store_n(&s->state, holder ? RR_S_RUN : RR_S_WAIT, __ATOMIC_RELEASE);
	if (holder) {
		ser_take_turn();
		ser_set_limit();
		agent_snap_resumed = 1;
	} else if (park == RR_PARK_JOIN) {
		agent_snap_resumed = 1; /* agent_snap_join_wait: agent_serial_restore_join */
	} else {
		ser_me.restored = 1;
	}
}

void agent_serial_restore_join(void)
{
	__atomic_store_n(&ser_slot(ser_me.id)->state, RR_S_WAIT, __ATOMIC_RELEASE);
	ser_me.restored = 1;
	ser_wait(RR_PARK_SLOW);
	ser_set_limit();
}
