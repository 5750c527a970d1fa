// SPDX-License-Identifier: MIT
/*
 * agent_lock.c - the lock profiler: the per-process lock table (address ->
 * lock index) and the interposed mutex, rwlock, spinlock, semaphore,
 * condition variable and barrier functions.
 *
 * Contention is exact: a blocking request first tries the lock; only when
 * that fails does it record OP_CONTEND and call the real blocking function,
 * then OP_ACQUIRE with the time the lock was actually obtained. A release is
 * recorded before the real unlock so its timestamp precedes the next owner's
 * acquisition. Return values and errno of the real functions are passed
 * through unchanged.
 *
 * The lock table is open addressing with linear probing in .bss, lock-free:
 * a slot's address is claimed once with a CAS and never moves, so two
 * threads that see a static mutex for the first time at once agree on its
 * slot; its index is assigned by whoever CASes the index word from 0 to
 * AGENT_LOCK_CLAIMING, and that thread emits the KIND_LOCKDEF before
 * publishing the index (so the definition precedes every event on the lock
 * in time). Destroy sets the index back to 0 but keeps the address, so the
 * next init or use at that address gets a new index. Slots of other
 * addresses are not recycled: a process can see AGENT_LOCK_SLOTS distinct
 * lock addresses; events on locks beyond that (table full) are not
 * recorded and are counted in the thread's ring->lost.
 *
 * Record/replay hooks (agent_rr.h, doc/record.md), each behind one test of
 * agent_rr_mode: recording notes every acquisition's outcome with
 * agent_rr_rec_sync while the object is held; replaying waits for the
 * recorded turn (agent_rr_rep_begin), then acquires with the plain blocking
 * call (timed and try forms too: the recording says they succeeded) or
 * returns the recorded failure without calling libc, then passes the turn
 * (agent_rr_rep_end). Condition waits replay as unlock, turn, lock: a
 * spurious wake-up POSIX allows, so the condvar itself is not needed.
 * A recording or replay writes its schedule only: the KIND_LOCK events are
 * skipped (agent_lock_quiet) unless spool record --lock-events asked for
 * them, so the collector moves a third of the bytes.
 *
 * Serial mode (agent_serial.c; agent_rr_mode has RR_MODE_SERIAL, which
 * makes it >= RR_MODE_REPLAY, so the plain path still tests one word):
 * every call is a switch point; a blocking acquisition tries and yields the
 * run token while the object is busy (its holder needs the token to release
 * it), condition waits are a yield (a spurious wake-up), barriers are
 * counted by the agent. Nothing is recorded per object: the token's
 * schedule orders everything.
 */
/* AGENT_RR_CANCEL_PUSH is a setjmp (agent_rr.h) */
#pragma GCC diagnostic ignored "-Wclobbered"
#include <errno.h>
#include <sched.h>
#include <string.h>

#include "agent.h"
#include "agent_rr.h"
#include "agent_serial.h"

#define AGENT_LOCK_PROBES 4096 /* give up (table full) after this many slots */

struct agent_lock_slot agent_locks[AGENT_LOCK_SLOTS];

/* The interposer's frame, as is: lock_emit looks through a stub's frame
 * (agent_stub_frame, two loads and two compares) only when --stacks walks
 * from it, not on every event. */
#define FRAME() __builtin_frame_address(0)

/* ---- lock table ---- */

static int agent_emit_lockdef(struct agent_thread *t, uint32_t idx, const void *addr,
			      uint32_t type, uint64_t ip)
{
	struct rec_lockdef *r;
	uint32_t seq = ++t->seq;

	t->prod.ring->last_seq = seq;
	r = ring_prod_reserve(&t->prod, sizeof(*r));
	if (!r)
		return 0;
	r->h.word = ev_word(KIND_LOCKDEF, t->index, idx, 0);
	r->h.tsc = __rdtsc();
	r->h.seq = seq;
	r->h.size = sizeof(*r);
	r->addr = (uint64_t)(uintptr_t)addr;
	r->init_ip = ip;
	r->type = type;
	r->pid = agent.seen_pid;
	if (ring_prod_commit(&t->prod, sizeof(*r)))
		agent_wake();
	return 1;
}

/* Give slot s a lock index (a new one when fresh, i.e. at init). */
static uint32_t agent_lock_claim(struct agent_thread *t, struct agent_lock_slot *s,
				 const void *addr, uint32_t type, uint64_t ip, int fresh)
{
	uint32_t idx, fresh_idx;
	unsigned spins = 0;

	for (;;) {
		idx = __atomic_load_n(&s->index, __ATOMIC_ACQUIRE);
		if (idx == AGENT_LOCK_CLAIMING) {
			/* Another thread is emitting the definition. */
			if (++spins > 64)
				sched_yield();
			else
				_mm_pause();
			continue;
		}
		if (idx && !fresh)
			return idx;
		if (__atomic_compare_exchange_n(&s->index, &idx, AGENT_LOCK_CLAIMING, 0,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			break;
	}
	fresh_idx = __atomic_fetch_add(&agent.ctl->nlocks, 1, __ATOMIC_RELAXED);
	if (!fresh_idx || fresh_idx == AGENT_LOCK_CLAIMING || !agent_emit_lockdef(t, fresh_idx, addr, type, ip)) {
		/* No definition reached the ring: do not publish an index the
		 * reader could not decode; the next use tries again. */
		__atomic_store_n(&s->index, 0, __ATOMIC_RELEASE);
		return 0;
	}
	__atomic_store_n(&s->index, fresh_idx, __ATOMIC_RELEASE);
	return fresh_idx;
}

/* Find or insert addr's slot. Busy is held so a signal handler landing
 * here cannot spin on a claim its own thread holds. */
uint32_t agent_lock_slow(struct agent_thread *t, const void *addr, uint32_t type, uint64_t ip,
			 int fresh)
{
	uint64_t a = (uintptr_t)addr;
	uint32_t h = agent_lock_hash(addr), n, ret = 0;

	if (!a)
		return 0;
	t->busy++;
	if (AGENT_UNLIKELY(agent_testhold_on))
		agent_testhold(); /* tests only (agent_testhold.c) */
	for (n = 0; n < AGENT_LOCK_PROBES; n++, h = (h + 1) & (AGENT_LOCK_SLOTS - 1)) {
		struct agent_lock_slot *s = &agent_locks[h];
		uint64_t cur = __atomic_load_n(&s->addr, __ATOMIC_ACQUIRE);

		if (!cur && __atomic_compare_exchange_n(&s->addr, &cur, a, 0, __ATOMIC_ACQ_REL,
							__ATOMIC_ACQUIRE))
			cur = a;
		if (cur != a)
			continue;
		ret = agent_lock_claim(t, s, addr, type, ip, fresh);
		break;
	}
	t->busy--;
	return ret;
}

static struct agent_lock_slot *agent_lock_find(const void *addr)
{
	uint64_t a = (uintptr_t)addr;
	uint32_t h = agent_lock_hash(addr), n;

	for (n = 0; n < AGENT_LOCK_PROBES; n++, h = (h + 1) & (AGENT_LOCK_SLOTS - 1)) {
		uint64_t cur = __atomic_load_n(&agent_locks[h].addr, __ATOMIC_ACQUIRE);

		if (cur == a)
			return &agent_locks[h];
		if (!cur)
			return NULL;
	}
	return NULL;
}

/* In a fork child: the parent's indices belong to the parent's pid. */
void agent_lock_table_clear(void)
{
	memset(agent_locks, 0, sizeof(agent_locks));
}

/* ---- recording helpers ---- */

/* Out-of-line variant of agent_emit for --stacks: the record is followed by
 * up to stack_depth return addresses, walked by frame pointers from the
 * interposer's frame (whose own return address is ip, so the walk starts
 * at its caller's frame). The walk stops at a frame pointer that does not
 * grow, is misaligned or leaves this thread's stack. */
void agent_emit_stack(struct agent_thread *t, uint32_t obj, unsigned op, uint64_t ip,
		      uint64_t arg, void *frame)
{
	uint32_t seq = ++t->seq, n = 0, len;
	uintptr_t cur = (uintptr_t)frame, next, hi = t->stack_hi;
	struct rec_lock *r;

	t->busy = 1;
	t->prod.ring->last_seq = seq;
	if (!obj && op < OP_THREAD_CREATE) {
		/* release: seen after last_seq (collector_lost_ok) */
		__atomic_store_n(&t->prod.ring->lost, t->prod.ring->lost + 1, __ATOMIC_RELEASE);
		goto out;
	}
	r = ring_prod_reserve(&t->prod, sizeof(*r) + agent.stack_depth * 8);
	if (!r)
		goto out;
	if (cur && !(cur & 7) && cur + 16 <= hi) {
		next = ((uintptr_t *)cur)[0];
		while (n < agent.stack_depth && next > cur && !(next & 7) && next + 16 <= hi) {
			cur = next;
			r->stack[n++] = ((uintptr_t *)cur)[1];
			next = ((uintptr_t *)cur)[0];
		}
	}
	len = sizeof(*r) + n * 8;
	r->h.word = ev_word(KIND_LOCK, t->index, obj, op);
	r->h.tsc = __rdtsc();
	r->h.seq = seq;
	r->h.size = len;
	r->ip = ip;
	r->arg = arg;
	if (ring_prod_commit(&t->prod, len))
		agent_wake();
out:
	t->busy = 0;
}

/* Set once by agent_rr_init before the program runs (never changes after):
 * a recording or replay without --lock-events writes no KIND_LOCK events,
 * only its schedule. */
int agent_lock_quiet;

/* Every lock event of this file goes through here: one predictable branch
 * on a word that never changes while the program runs. */
static inline __attribute__((always_inline)) void lock_emit(struct agent_thread *t, uint32_t obj,
							    unsigned op, uint64_t ip,
							    uint64_t arg, void *frame)
{
	if (AGENT_UNLIKELY(agent_lock_quiet))
		return;
	if (AGENT_UNLIKELY(agent.stack_depth)) {
		agent_emit_stack(t, obj, op, ip, arg, agent_stub_frame(frame));
		return;
	}
	agent_emit(t, obj, op, ip, arg, NULL);
}

/* Outcome of a blocking request: acquired (EOWNERDEAD acquires a robust
 * mutex too) or gave up with arg = the error. */
static inline __attribute__((always_inline)) void
agent_emit_outcome(struct agent_thread *t, uint32_t obj, unsigned op_ok,
				      int rc, uint64_t ip, void *frame)
{
	if (rc == 0 || rc == EOWNERDEAD)
		lock_emit(t, obj, op_ok, ip, 0, frame);
	else
		lock_emit(t, obj, OP_TIMEOUT, ip, (uint64_t)rc, frame);
}

static inline __attribute__((always_inline)) void
agent_emit_try(struct agent_thread *t, uint32_t obj, unsigned op_ok,
				  unsigned op_fail, int rc, uint64_t ip, void *frame)
{
	if (rc == 0 || rc == EOWNERDEAD)
		lock_emit(t, obj, op_ok, ip, 0, frame);
	else
		lock_emit(t, obj, op_fail, ip, (uint64_t)rc, frame);
}

/* init: a new lock at addr, whatever was there before. */
static inline void agent_record_init(const void *addr, uint32_t type, uint64_t ip, uint64_t arg,
				     void *frame)
{
	struct agent_thread *t = agent_enter();
	uint32_t obj;

	if (!t)
		return;
	obj = agent_lock_slow(t, addr, type, ip, 1);
	if (obj)
		lock_emit(t, obj, OP_INIT, ip, arg, frame);
}

/* destroy: record it if the lock is known, then free its index. */
static inline void agent_record_destroy(const void *addr, uint64_t ip, void *frame)
{
	struct agent_thread *t = agent_enter();
	struct agent_lock_slot *s;
	uint32_t idx;

	if (!t)
		return;
	s = agent_lock_find(addr);
	if (!s)
		return;
	idx = __atomic_load_n(&s->index, __ATOMIC_ACQUIRE);
	if (!idx || idx == AGENT_LOCK_CLAIMING)
		return;
	lock_emit(t, idx, OP_DESTROY, ip, 0, frame);
	__atomic_compare_exchange_n(&s->index, &idx, 0, 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED);
}

/*
 * The common shape of an exclusive or shared blocking acquisition: try,
 * and only if the lock is busy record the contention and block. try_expr
 * and block_expr are the real calls; busy_rc the try's "busy" result.
 */
#define AGENT_ACQUIRE(type, addr, fn, try_expr, block_expr, busy_rc, op_contend, op_acq,          \
		      plain_expr, clk, ts)                                                         \
	do {                                                                                       \
		uint64_t ip_ = AGENT_RET_IP();                                                     \
		struct agent_thread *t_;                                                           \
		uint32_t obj_;                                                                     \
		int rc_;                                                                           \
                                                                                                   \
		AGENT_REAL_OR(fn, 0);                                                              \
		t_ = agent_enter();                                                                \
		if (!t_)                                                                           \
			return block_expr;                                                         \
		obj_ = agent_lock_index(t_, addr, type, ip_);                                      \
		if (AGENT_UNLIKELY(agent_rr_mode >= RR_MODE_REPLAY)) {                             \
			if (agent_rr_mode & RR_MODE_SERIAL) {                                      \
				agent_serial_point(RR_AT_SYNC);                                    \
				while ((rc_ = try_expr) == busy_rc) {                              \
					if (agent_serial_timed_out((clk), (ts))) {                 \
						rc_ = ETIMEDOUT;                                   \
						break;                                             \
					}                                                          \
					agent_serial_wait_yield(                                   \
						(type) == LOCK_TYPE_RWLOCK ? RR_W_RWLOCK           \
						: (type) == LOCK_TYPE_SPIN ? RR_W_SPIN             \
									   : RR_W_MUTEX);          \
				}                                                                  \
				agent_emit_outcome(t_, obj_, op_acq, rc_, ip_, FRAME());           \
				return rc_;                                                        \
			}                                                                          \
			agent_rr_site = ip_;                                                       \
			rc_ = agent_rr_rep_begin(t_, obj_, op_acq, addr, 1);                       \
			agent_rr_rep_end(t_, rc_ == 0 || rc_ == EOWNERDEAD ? (plain_expr) : rc_);  \
			agent_emit_outcome(t_, obj_, op_acq, rc_, ip_, FRAME());                   \
			return rc_;                                                                \
		}                                                                                  \
		rc_ = try_expr;                                                                    \
		if (rc_ == busy_rc) {                                                              \
			lock_emit(t_, obj_, op_contend, ip_, 0, FRAME());                          \
			agent_rr_block_enter(t_);                                                  \
			rc_ = block_expr;                                                          \
			agent_rr_block_leave();                                                    \
		}                                                                                  \
		if (AGENT_UNLIKELY(agent_rr_mode == RR_MODE_RECORD))                               \
			agent_rr_rec_sync(t_, obj_, op_acq, rc_, 1);                               \
		agent_emit_outcome(t_, obj_, op_acq, rc_, ip_, FRAME());                           \
		return rc_;                                                                        \
	} while (0)

#define AGENT_TRY(type, addr, fn, try_expr, op_ok, op_fail, plain_expr)                            \
	do {                                                                                       \
		uint64_t ip_ = AGENT_RET_IP();                                                     \
		struct agent_thread *t_;                                                           \
		uint32_t obj_;                                                                     \
		int rc_;                                                                           \
                                                                                                   \
		AGENT_REAL_OR(fn, 0);                                                              \
		t_ = agent_enter();                                                                \
		if (!t_)                                                                           \
			return try_expr;                                                           \
		obj_ = agent_lock_index(t_, addr, type, ip_);                                      \
		if (AGENT_UNLIKELY(agent_rr_mode >= RR_MODE_REPLAY)) {                             \
			if (agent_rr_mode & RR_MODE_SERIAL) {                                      \
				agent_serial_point(RR_AT_SYNC);                                    \
				rc_ = try_expr;                                                    \
			} else {                                                                   \
				agent_rr_site = ip_;                                               \
				rc_ = agent_rr_rep_begin(t_, obj_, op_ok, addr, 1);                \
				agent_rr_rep_end(t_, rc_ == 0 || rc_ == EOWNERDEAD ? (plain_expr)  \
									   : rc_);         \
			}                                                                          \
		} else {                                                                           \
			rc_ = try_expr;                                                            \
			if (AGENT_UNLIKELY(agent_rr_mode))                                         \
				agent_rr_rec_sync(t_, obj_, op_ok, rc_, 1);                        \
		}                                                                                  \
		agent_emit_try(t_, obj_, op_ok, op_fail, rc_, ip_, FRAME());                       \
		return rc_;                                                                        \
	} while (0)

/* Release recorded before the real unlock; in serial mode a switch point
 * after it (so a chaos switch can let another thread take the object). */
#define AGENT_RELEASE(type, addr, fn, call, op)                                                    \
	do {                                                                                       \
		uint64_t ip_ = AGENT_RET_IP();                                                     \
		struct agent_thread *t_;                                                           \
                                                                                                   \
		AGENT_REAL_OR(fn, 0);                                                              \
		t_ = agent_enter();                                                                \
		if (t_) {                                                                          \
			lock_emit(t_, agent_lock_index(t_, addr, type, ip_), op, ip_, 0,           \
				   FRAME());                                                       \
			if (AGENT_UNLIKELY(agent_rr_mode & RR_MODE_SERIAL)) {                      \
				int rc_ = call;                                                    \
				agent_serial_point(RR_AT_SYNC);                                    \
				return rc_;                                                        \
			}                                                                          \
		}                                                                                  \
		return call;                                                                       \
	} while (0)

#define AGENT_INIT(type, addr, fn, call, arg)                                                      \
	do {                                                                                       \
		int rc_;                                                                           \
                                                                                                   \
		AGENT_REAL_OR(fn, 0);                                                              \
		rc_ = call;                                                                        \
		if (!rc_)                                                                          \
			agent_record_init(addr, type, AGENT_RET_IP(), arg, FRAME());               \
		return rc_;                                                                        \
	} while (0)

#define AGENT_DESTROY(addr, fn, call)                                                              \
	do {                                                                                       \
		AGENT_REAL_OR(fn, 0);                                                              \
		agent_record_destroy(addr, AGENT_RET_IP(), FRAME());                               \
		return call;                                                                       \
	} while (0)

#define R agent_real

/* ---- mutexes ---- */

AGENT_EXPORT int pthread_mutex_lock(pthread_mutex_t *m)
{
	AGENT_ACQUIRE(LOCK_TYPE_MUTEX, m, mutex_lock, R.mutex_trylock(m), R.mutex_lock(m), EBUSY,
		      OP_CONTEND, OP_ACQUIRE, R.mutex_lock(m), 0, NULL);
}

AGENT_EXPORT int pthread_mutex_timedlock(pthread_mutex_t *m, const struct timespec *ts)
{
	AGENT_ACQUIRE(LOCK_TYPE_MUTEX, m, mutex_timedlock, R.mutex_trylock(m),
		      R.mutex_timedlock(m, ts), EBUSY, OP_CONTEND, OP_ACQUIRE, R.mutex_lock(m),
		      CLOCK_REALTIME, ts);
}

AGENT_EXPORT int pthread_mutex_clocklock(pthread_mutex_t *m, clockid_t clk,
					 const struct timespec *ts)
{
	AGENT_ACQUIRE(LOCK_TYPE_MUTEX, m, mutex_clocklock, R.mutex_trylock(m),
		      R.mutex_clocklock(m, clk, ts), EBUSY, OP_CONTEND, OP_ACQUIRE, R.mutex_lock(m), clk,
		      ts);
}

AGENT_EXPORT int pthread_mutex_trylock(pthread_mutex_t *m)
{
	AGENT_TRY(LOCK_TYPE_MUTEX, m, mutex_trylock, R.mutex_trylock(m), OP_ACQUIRE_TRY,
		  OP_TRY_FAIL, R.mutex_lock(m));
}

AGENT_EXPORT int pthread_mutex_unlock(pthread_mutex_t *m)
{
	AGENT_RELEASE(LOCK_TYPE_MUTEX, m, mutex_unlock, R.mutex_unlock(m), OP_RELEASE);
}

AGENT_EXPORT int pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *a)
{
	AGENT_INIT(LOCK_TYPE_MUTEX, m, mutex_init, R.mutex_init(m, a), 0);
}

AGENT_EXPORT int pthread_mutex_destroy(pthread_mutex_t *m)
{
	AGENT_DESTROY(m, mutex_destroy, R.mutex_destroy(m));
}

/* ---- rwlocks ---- */

AGENT_EXPORT int pthread_rwlock_rdlock(pthread_rwlock_t *l)
{
	AGENT_ACQUIRE(LOCK_TYPE_RWLOCK, l, rwlock_rdlock, R.rwlock_tryrdlock(l),
		      R.rwlock_rdlock(l), EBUSY, OP_CONTEND_RD, OP_ACQUIRE_RD, R.rwlock_rdlock(l), 0,
		      NULL);
}

AGENT_EXPORT int pthread_rwlock_wrlock(pthread_rwlock_t *l)
{
	AGENT_ACQUIRE(LOCK_TYPE_RWLOCK, l, rwlock_wrlock, R.rwlock_trywrlock(l),
		      R.rwlock_wrlock(l), EBUSY, OP_CONTEND, OP_ACQUIRE, R.rwlock_wrlock(l), 0, NULL);
}

AGENT_EXPORT int pthread_rwlock_timedrdlock(pthread_rwlock_t *l, const struct timespec *ts)
{
	AGENT_ACQUIRE(LOCK_TYPE_RWLOCK, l, rwlock_timedrdlock, R.rwlock_tryrdlock(l),
		      R.rwlock_timedrdlock(l, ts), EBUSY, OP_CONTEND_RD, OP_ACQUIRE_RD,
		      R.rwlock_rdlock(l), CLOCK_REALTIME, ts);
}

AGENT_EXPORT int pthread_rwlock_timedwrlock(pthread_rwlock_t *l, const struct timespec *ts)
{
	AGENT_ACQUIRE(LOCK_TYPE_RWLOCK, l, rwlock_timedwrlock, R.rwlock_trywrlock(l),
		      R.rwlock_timedwrlock(l, ts), EBUSY, OP_CONTEND, OP_ACQUIRE, R.rwlock_wrlock(l),
		      CLOCK_REALTIME, ts);
}

AGENT_EXPORT int pthread_rwlock_clockrdlock(pthread_rwlock_t *l, clockid_t clk,
					    const struct timespec *ts)
{
	AGENT_ACQUIRE(LOCK_TYPE_RWLOCK, l, rwlock_clockrdlock, R.rwlock_tryrdlock(l),
		      R.rwlock_clockrdlock(l, clk, ts), EBUSY, OP_CONTEND_RD, OP_ACQUIRE_RD,
		      R.rwlock_rdlock(l), clk, ts);
}

AGENT_EXPORT int pthread_rwlock_clockwrlock(pthread_rwlock_t *l, clockid_t clk,
					    const struct timespec *ts)
{
	AGENT_ACQUIRE(LOCK_TYPE_RWLOCK, l, rwlock_clockwrlock, R.rwlock_trywrlock(l),
		      R.rwlock_clockwrlock(l, clk, ts), EBUSY, OP_CONTEND, OP_ACQUIRE,
		      R.rwlock_wrlock(l), clk, ts);
}

AGENT_EXPORT int pthread_rwlock_tryrdlock(pthread_rwlock_t *l)
{
	AGENT_TRY(LOCK_TYPE_RWLOCK, l, rwlock_tryrdlock, R.rwlock_tryrdlock(l), OP_ACQUIRE_TRY_RD,
		  OP_TRY_FAIL_RD, R.rwlock_rdlock(l));
}

AGENT_EXPORT int pthread_rwlock_trywrlock(pthread_rwlock_t *l)
{
	AGENT_TRY(LOCK_TYPE_RWLOCK, l, rwlock_trywrlock, R.rwlock_trywrlock(l), OP_ACQUIRE_TRY,
		  OP_TRY_FAIL, R.rwlock_wrlock(l));
}

AGENT_EXPORT int pthread_rwlock_unlock(pthread_rwlock_t *l)
{
	AGENT_RELEASE(LOCK_TYPE_RWLOCK, l, rwlock_unlock, R.rwlock_unlock(l), OP_RELEASE);
}

AGENT_EXPORT int pthread_rwlock_init(pthread_rwlock_t *l, const pthread_rwlockattr_t *a)
{
	AGENT_INIT(LOCK_TYPE_RWLOCK, l, rwlock_init, R.rwlock_init(l, a), 0);
}

AGENT_EXPORT int pthread_rwlock_destroy(pthread_rwlock_t *l)
{
	AGENT_DESTROY(l, rwlock_destroy, R.rwlock_destroy(l));
}

/* ---- spinlocks ---- */

AGENT_EXPORT int pthread_spin_lock(pthread_spinlock_t *l)
{
	AGENT_ACQUIRE(LOCK_TYPE_SPIN, (const void *)l, spin_lock, R.spin_trylock(l),
		      R.spin_lock(l), EBUSY, OP_CONTEND, OP_ACQUIRE, R.spin_lock(l), 0, NULL);
}

AGENT_EXPORT int pthread_spin_trylock(pthread_spinlock_t *l)
{
	AGENT_TRY(LOCK_TYPE_SPIN, (const void *)l, spin_trylock, R.spin_trylock(l), OP_ACQUIRE_TRY,
		  OP_TRY_FAIL, R.spin_lock(l));
}

AGENT_EXPORT int pthread_spin_unlock(pthread_spinlock_t *l)
{
	AGENT_RELEASE(LOCK_TYPE_SPIN, (const void *)l, spin_unlock, R.spin_unlock(l), OP_RELEASE);
}

AGENT_EXPORT int pthread_spin_init(pthread_spinlock_t *l, int pshared)
{
	AGENT_INIT(LOCK_TYPE_SPIN, (const void *)l, spin_init, R.spin_init(l, pshared), 0);
}

AGENT_EXPORT int pthread_spin_destroy(pthread_spinlock_t *l)
{
	AGENT_DESTROY((const void *)l, spin_destroy, R.spin_destroy(l));
}

/* Sync record: the thread was cancelled in a condition or semaphore wait
 * (agent_rr_cancel.c); a condition wait took its mutex back first. Its
 * record is the call's own, with result ECANCELED, at the object's next
 * turn. */
static void agent_rr_wait_cancelled(struct agent_rr_cancel_guard *g)
{
	if (agent_rr_mode == RR_MODE_RECORD && g->t->state == AGENT_T_ON)
		agent_rr_rec_sync(g->t, g->obj, g->call, ECANCELED, 1);
}

/* ---- semaphores (return -1 and set errno) ---- */

/* Replay of a semaphore wait (op OP_ACQUIRE) or trywait (OP_ACQUIRE_TRY):
 * the recorded success is a plain sem_wait at the recorded turn (every post
 * before it in the recording has been replayed), a recorded failure
 * returns its errno without calling libc. */
static int agent_sem_replay(struct agent_thread *t, sem_t *s, uint32_t obj, unsigned op,
			    uint64_t ip, void *frame)
{
	int want, rc;

	agent_rr_site = ip;
	want = agent_rr_rep_begin(t, obj, op, s, 1);
	if (!want) {
		int cs;

		/* The recorded wait returned: sem_wait, a cancellation point,
		 * must not act on a cancellation sent earlier in this run. */
		pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cs);
		while ((rc = R.sem_wait(s)) < 0 && errno == EINTR)
			;
		pthread_setcancelstate(cs, NULL);
		agent_rr_rep_end(t, rc < 0 ? errno : 0);
		lock_emit(t, obj, op, ip, 0, frame);
		return 0;
	}
	agent_rr_rep_end(t, want);
	if (want == ECANCELED && op == OP_ACQUIRE)
		agent_rr_rep_cancel("sem_wait");
	lock_emit(t, obj, op == OP_ACQUIRE ? OP_TIMEOUT : OP_TRY_FAIL, ip, (uint64_t)want, frame);
	errno = want;
	return -1;
}

/* Try first; only EAGAIN means "would block". errno is restored after the
 * failed try so a successful wait leaves it as the caller had it. */
static inline int agent_sem_acquire(sem_t *s, int (*block)(sem_t *, clockid_t,
							    const struct timespec *),
				    clockid_t clk, const struct timespec *ts, uint64_t ip,
				    void *frame)
{
	struct agent_thread *t = agent_enter();
	uint32_t obj;
	int rc, e0;

	if (!t)
		return block(s, clk, ts);
	obj = agent_lock_index(t, s, LOCK_TYPE_SEM, ip);
	if (AGENT_UNLIKELY(agent_rr_mode >= RR_MODE_REPLAY)) {
		if (!(agent_rr_mode & RR_MODE_SERIAL))
			return agent_sem_replay(t, s, obj, OP_ACQUIRE, ip, frame);
		/* Serial: never blocks (the poster needs the token). */
		e0 = errno;
		agent_serial_point(RR_AT_SYNC);
		/* A cancellation point, as glibc's (only the token holder
		 * runs: it is acted on where it is in a replay). */
		agent_rr_testcancel_real();
		while (R.sem_trywait(s) < 0 && errno == EAGAIN) {
			agent_rr_testcancel_real();
			if (agent_serial_timed_out(clk, ts)) {
				lock_emit(t, obj, OP_TIMEOUT, ip, ETIMEDOUT, frame);
				errno = ETIMEDOUT;
				return -1;
			}
			agent_serial_wait_yield(RR_W_SEM);
		}
		errno = e0;
		lock_emit(t, obj, OP_ACQUIRE, ip, 0, frame);
		return 0;
	}
	e0 = errno;
	rc = R.sem_trywait(s);
	if (rc && errno == EAGAIN) {
		errno = e0;
		lock_emit(t, obj, OP_CONTEND, ip, 0, frame);
		if (AGENT_UNLIKELY(agent_rr_mode == RR_MODE_RECORD)) {
			struct agent_rr_cancel_guard g = {t, OP_ACQUIRE, 0, obj,
							  agent_rr_wait_cancelled};

			AGENT_RR_CANCEL_PUSH(&g);
			rc = block(s, clk, ts);
			AGENT_RR_CANCEL_POP();
		} else {
			rc = block(s, clk, ts);
		}
	}
	if (!rc) {
		if (AGENT_UNLIKELY(agent_rr_mode == RR_MODE_RECORD))
			agent_rr_rec_sync(t, obj, OP_ACQUIRE, 0, 1);
		lock_emit(t, obj, OP_ACQUIRE, ip, 0, frame);
	} else {
		int e = errno;

		if (AGENT_UNLIKELY(agent_rr_mode == RR_MODE_RECORD))
			agent_rr_rec_sync(t, obj, OP_ACQUIRE, e, 1);
		lock_emit(t, obj, OP_TIMEOUT, ip, (uint64_t)e, frame);
		errno = e;
	}
	return rc;
}

static int agent_sem_block_wait(sem_t *s, clockid_t clk, const struct timespec *ts)
{
	return R.sem_wait(s);
}

static int agent_sem_block_timed(sem_t *s, clockid_t clk, const struct timespec *ts)
{
	return R.sem_timedwait(s, ts);
}

static int agent_sem_block_clock(sem_t *s, clockid_t clk, const struct timespec *ts)
{
	return R.sem_clockwait(s, clk, ts);
}

AGENT_EXPORT int sem_wait(sem_t *s)
{
	AGENT_REAL_OR(sem_wait, 0);
	return agent_sem_acquire(s, agent_sem_block_wait, 0, NULL, AGENT_RET_IP(), FRAME());
}

AGENT_EXPORT int sem_timedwait(sem_t *s, const struct timespec *ts)
{
	AGENT_REAL_OR(sem_timedwait, 0);
	return agent_sem_acquire(s, agent_sem_block_timed, CLOCK_REALTIME, ts, AGENT_RET_IP(),
				 FRAME());
}

AGENT_EXPORT int sem_clockwait(sem_t *s, clockid_t clk, const struct timespec *ts)
{
	AGENT_REAL_OR(sem_clockwait, 0);
	return agent_sem_acquire(s, agent_sem_block_clock, clk, ts, AGENT_RET_IP(), FRAME());
}

AGENT_EXPORT int sem_trywait(sem_t *s)
{
	uint64_t ip = AGENT_RET_IP();
	struct agent_thread *t;
	uint32_t obj;
	int rc, e;

	AGENT_REAL_OR(sem_trywait, 0);
	t = agent_enter();
	if (!t)
		return R.sem_trywait(s);
	obj = agent_lock_index(t, s, LOCK_TYPE_SEM, ip);
	if (AGENT_UNLIKELY(agent_rr_mode >= RR_MODE_REPLAY)) {
		if (!(agent_rr_mode & RR_MODE_SERIAL))
			return agent_sem_replay(t, s, obj, OP_ACQUIRE_TRY, ip, FRAME());
		agent_serial_point(RR_AT_SYNC);
	}
	rc = R.sem_trywait(s);
	if (!rc) {
		if (AGENT_UNLIKELY(agent_rr_mode == RR_MODE_RECORD))
			agent_rr_rec_sync(t, obj, OP_ACQUIRE_TRY, 0, 1);
		lock_emit(t, obj, OP_ACQUIRE_TRY, ip, 0, FRAME());
	} else {
		e = errno;
		if (AGENT_UNLIKELY(agent_rr_mode == RR_MODE_RECORD))
			agent_rr_rec_sync(t, obj, OP_ACQUIRE_TRY, e, 1);
		lock_emit(t, obj, OP_TRY_FAIL, ip, (uint64_t)e, FRAME());
		errno = e;
	}
	return rc;
}

/* A post takes its turn before the real post, so a wait it satisfies
 * always comes later in the object's order. */
AGENT_EXPORT int sem_post(sem_t *s)
{
	uint64_t ip = AGENT_RET_IP();
	struct agent_thread *t;
	uint32_t obj;
	int rc;

	AGENT_REAL_OR(sem_post, 0);
	t = agent_enter();
	if (!t)
		return R.sem_post(s);
	obj = agent_lock_index(t, s, LOCK_TYPE_SEM, ip);
	lock_emit(t, obj, OP_SEM_POST, ip, 0, FRAME());
	if (AGENT_LIKELY(!agent_rr_mode))
		return R.sem_post(s);
	if (agent_rr_mode & RR_MODE_SERIAL) {
		rc = R.sem_post(s);
		agent_serial_point(RR_AT_SYNC);
		return rc;
	}
	if (agent_rr_mode == RR_MODE_RECORD) {
		agent_rr_rec_sync(t, obj, OP_SEM_POST, 0, 1);
		return R.sem_post(s);
	}
	agent_rr_rep_begin(t, obj, OP_SEM_POST, s, 1);
	rc = R.sem_post(s);
	agent_rr_rep_end(t, rc < 0 ? errno : 0);
	return rc;
}

AGENT_EXPORT int sem_init(sem_t *s, int pshared, unsigned value)
{
	AGENT_INIT(LOCK_TYPE_SEM, s, sem_init, R.sem_init(s, pshared, value), value);
}

AGENT_EXPORT int sem_destroy(sem_t *s)
{
	AGENT_DESTROY(s, sem_destroy, R.sem_destroy(s));
}

/* ---- condition variables ---- */

/* The clock of a condition variable's timed waits: glibc keeps it in bit 1
 * of __wrefs (0 CLOCK_REALTIME, 1 CLOCK_MONOTONIC). */
static inline clockid_t agent_cond_clock(const pthread_cond_t *c)
{
	return (__atomic_load_n(&c->__data.__wrefs, __ATOMIC_RELAXED) & 2) ? CLOCK_MONOTONIC
									   : CLOCK_REALTIME;
}

/* Whether a condition wait that returned rc holds the mutex again. */
static inline int agent_cond_relocked(int rc)
{
	return rc == 0 || rc == ETIMEDOUT || rc == EOWNERDEAD;
}

/* Replay of a condition wait: release the mutex, wait for the turn at which
 * the recording got it back, take it, return what the recorded wait did. */
static int agent_cond_replay(struct agent_thread *t, pthread_mutex_t *m, uint32_t mobj)
{
	int want, rc;

	/* A wait the recorded run never came back from (another thread
	 * ended the process meanwhile): agent_rr_rep_begin parks the thread
	 * for good, and it must not keep the mutex while it does. */
	if (AGENT_UNLIKELY(agent_rr_rep_log_done()))
		R.mutex_unlock(m);
	want = agent_rr_rep_begin(t, mobj, OP_COND_WAIT, m, 0);

	if (!agent_cond_relocked(want) && want != ECANCELED) {
		agent_rr_rep_end(t, want);
		return want;
	}
	R.mutex_unlock(m);
	agent_rr_rep_wait(t);
	rc = R.mutex_lock(m);
	agent_rr_rep_end(t, rc ? rc : want);
	/* Cancelled in the wait: with the mutex taken back, as recorded. */
	if (want == ECANCELED)
		agent_rr_rep_cancel("pthread_cond_wait");
	return want;
}

/*
 * The wait releases the mutex, sleeps, and reacquires it inside libc (not
 * through our pthread_mutex_lock), so all four events are recorded here:
 * release, wait (arg = mutex index), wake (arg = return value), acquire.
 */
#define AGENT_COND_WAIT(fn, call, clk, ts)                                                         \
	do {                                                                                       \
		uint64_t ip_ = AGENT_RET_IP();                                                     \
		struct agent_thread *t_;                                                           \
		uint32_t mobj_, cobj_;                                                             \
		int rc_;                                                                           \
                                                                                                   \
		AGENT_REAL_OR(fn, 0);                                                              \
		t_ = agent_enter();                                                                \
		if (!t_)                                                                           \
			return call;                                                               \
		mobj_ = agent_lock_index(t_, m, LOCK_TYPE_MUTEX, ip_);                             \
		cobj_ = agent_lock_index(t_, c, LOCK_TYPE_COND, ip_);                              \
		lock_emit(t_, mobj_, OP_RELEASE, ip_, 0, FRAME());                                 \
		lock_emit(t_, cobj_, OP_COND_WAIT, ip_, mobj_, FRAME());                           \
		if (AGENT_UNLIKELY(agent_rr_mode >= RR_MODE_REPLAY))                               \
			rc_ = (agent_rr_mode & RR_MODE_SERIAL)                                     \
				      ? agent_serial_cond_wait(m, (clk), (ts))                     \
				      : agent_cond_replay(t_, m, mobj_);                           \
		else if (AGENT_UNLIKELY(agent_rr_mode == RR_MODE_RECORD)) {                        \
			struct agent_rr_cancel_guard g_ = {t_, OP_COND_WAIT, 0, mobj_,             \
							   agent_rr_wait_cancelled};               \
			AGENT_RR_CANCEL_PUSH(&g_);                                                 \
			agent_rr_block_enter(t_);                                                  \
			rc_ = call;                                                                \
			agent_rr_block_leave();                                                    \
			AGENT_RR_CANCEL_POP();                                                     \
		} else {                                                                           \
			rc_ = call;                                                                \
		}                                                                                  \
		if (AGENT_UNLIKELY(agent_rr_mode == RR_MODE_RECORD))                               \
			agent_rr_rec_sync(t_, mobj_, OP_COND_WAIT, rc_, agent_cond_relocked(rc_)); \
		lock_emit(t_, cobj_, OP_COND_WAKE, ip_, (uint64_t)rc_, FRAME());                   \
		if (rc_ == 0 || rc_ == ETIMEDOUT || rc_ == EOWNERDEAD)                             \
			lock_emit(t_, mobj_, OP_ACQUIRE, ip_, 0, FRAME());                         \
		return rc_;                                                                        \
	} while (0)

AGENT_EXPORT int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
	AGENT_COND_WAIT(cond_wait, R.cond_wait(c, m), 0, NULL);
}

AGENT_EXPORT int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
					const struct timespec *ts)
{
	AGENT_COND_WAIT(cond_timedwait, R.cond_timedwait(c, m, ts), agent_cond_clock(c), ts);
}

AGENT_EXPORT int pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m, clockid_t clk,
					const struct timespec *ts)
{
	AGENT_COND_WAIT(cond_clockwait, R.cond_clockwait(c, m, clk, ts), clk, ts);
}

AGENT_EXPORT int pthread_cond_signal(pthread_cond_t *c)
{
	AGENT_RELEASE(LOCK_TYPE_COND, c, cond_signal, R.cond_signal(c), OP_COND_SIGNAL);
}

AGENT_EXPORT int pthread_cond_broadcast(pthread_cond_t *c)
{
	AGENT_RELEASE(LOCK_TYPE_COND, c, cond_broadcast, R.cond_broadcast(c), OP_COND_BROADCAST);
}

AGENT_EXPORT int pthread_cond_init(pthread_cond_t *c, const pthread_condattr_t *a)
{
	AGENT_INIT(LOCK_TYPE_COND, c, cond_init, R.cond_init(c, a), 0);
}

AGENT_EXPORT int pthread_cond_destroy(pthread_cond_t *c)
{
	AGENT_DESTROY(c, cond_destroy, R.cond_destroy(c));
}

/* ---- barriers ---- */

AGENT_EXPORT int pthread_barrier_wait(pthread_barrier_t *b)
{
	uint64_t ip = AGENT_RET_IP();
	struct agent_thread *t;
	uint32_t obj;
	int rc;

	AGENT_REAL_OR(barrier_wait, 0);
	t = agent_enter();
	if (!t)
		return R.barrier_wait(b);
	obj = agent_lock_index(t, b, LOCK_TYPE_BARRIER, ip);
	lock_emit(t, obj, OP_BARRIER_ENTER, ip, 0, FRAME());
	if (AGENT_UNLIKELY(agent_rr_mode & RR_MODE_SERIAL)) {
		rc = agent_serial_barrier_wait(b);
	} else if (AGENT_UNLIKELY(agent_rr_mode == RR_MODE_REPLAY)) {
		/* Which thread is the serial one is the recording's choice. */
		agent_rr_site = ip;
		rc = agent_rr_rep_begin(t, obj, OP_BARRIER_ENTER, b, 1);
		if (rc == 0 || rc == PTHREAD_BARRIER_SERIAL_THREAD)
			R.barrier_wait(b);
		agent_rr_rep_end(t, rc);
	} else {
		rc = R.barrier_wait(b);
		if (AGENT_UNLIKELY(agent_rr_mode == RR_MODE_RECORD))
			agent_rr_rec_sync(t, obj, OP_BARRIER_ENTER, rc, 0);
	}
	lock_emit(t, obj, rc == 0 || rc == PTHREAD_BARRIER_SERIAL_THREAD ? OP_BARRIER_LEAVE : OP_TIMEOUT, ip,
		   rc == PTHREAD_BARRIER_SERIAL_THREAD ? 1 : rc ? (uint64_t)rc : 0, FRAME());
	return rc;
}

AGENT_EXPORT int pthread_barrier_init(pthread_barrier_t *b, const pthread_barrierattr_t *a,
				      unsigned count)
{
	int rc;

	AGENT_REAL_OR(barrier_init, 0);
	rc = R.barrier_init(b, a, count);
	if (!rc) {
		if (AGENT_UNLIKELY(agent_rr_mode & RR_MODE_SERIAL))
			agent_serial_barrier_init(b, count);
		agent_record_init(b, LOCK_TYPE_BARRIER, AGENT_RET_IP(), count, FRAME());
	}
	return rc;
}

AGENT_EXPORT int pthread_barrier_destroy(pthread_barrier_t *b)
{
	AGENT_DESTROY(b, barrier_destroy, R.barrier_destroy(b));
}
