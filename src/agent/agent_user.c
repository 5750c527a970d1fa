// SPDX-License-Identifier: MIT
/*
 * agent_user.c - the program's own trace calls (include/spool/trace.h):
 * spool_trace_emit writes one KIND_USER record into the calling thread's
 * ring; spool_trace_emit_nt, which code rewritten by spool cc calls, writes
 * the same record without reading the TSC. Programs declare both weak, so
 * they call them only when the agent is loaded.
 *
 * Same rules as the lock interposers: no system call, allocation or lock on
 * the path; the busy flag makes a signal handler that traces while this
 * thread is inside the agent drop its event rather than corrupt the record
 * being written. A record too long for any ring is dropped and counted in
 * ring->lost, like a full ring.
 */
#include "agent.h"

/* Calls with more values take the general path (spool cc's merged calls
 * carry at most 64, CC_MAX_EMIT). */
#define USER_FAST_ARGS 64u

/*
 * The values, copied by a plain loop: a variable-length memcpy became
 * `rep movsq`, whose start-up costs more than the handful of words a trace
 * call carries. The optimize attribute keeps gcc from turning the loop back
 * into memcpy.
 */
static inline __attribute__((always_inline)) void user_copy(int64_t *dst, const int64_t *src,
							    uint32_t n)
{
	uint32_t i = 0;

	for (; i + 2 <= n; i += 2) {
		dst[i] = src[i];
		dst[i + 1] = src[i + 1];
	}
	if (i < n)
		dst[i] = src[i];
}

/* The record, both paths (timed: read the TSC; else 0, for the collector). */
static inline __attribute__((always_inline)) void
user_fill(struct rec_user *r, uint32_t index, uint32_t seq, uint32_t len, uint32_t id,
	  uint32_t nargs, const int64_t *args, int timed)
{
	r->h.word = ev_word(KIND_USER, index, 0, 0);
	r->h.tsc = timed ? __rdtsc() : 0;
	r->h.seq = seq;
	r->h.size = len;
	r->id = id;
	r->nargs = nargs;
	user_copy(r->args, args, nargs);
}

/*
 * One record. timed = 0 is spool_trace_emit_nt's: the record carries TSC 0,
 * which the collector replaces with the time of the thread's record before
 * it (src/collect/collector.c), so streams never go back in time; spool
 * decode rebuilds the events' times from that record's and the optimizer's
 * cycle estimate (doc/cc.md, "Untimed records"). Skipping rdtsc is the whole
 * point: it is most of a record's cost on this kind of machine.
 *
 * This is the general path, out of line: a thread's first call (it
 * registers), a busy or inactive agent, odd argument counts, the end of
 * the data area, a full ring, pages not yet populated.
 */
static __attribute__((noinline, optimize("no-tree-loop-distribute-patterns"))) void
user_emit_slow(uint32_t id, uint32_t nargs, const int64_t *args, int timed)
{
	struct agent_thread *t = agent_enter();
	struct rec_user *r;
	uint32_t seq, len;

	if (!t)
		return;
	seq = ++t->seq;
	t->busy = 1;
	t->prod.ring->last_seq = seq;
	if (AGENT_UNLIKELY(nargs > USER_MAX_ARGS || (nargs && !args))) {
		/* release: seen after last_seq (collector_lost_ok) */
		__atomic_store_n(&t->prod.ring->lost, t->prod.ring->lost + 1, __ATOMIC_RELEASE);
		goto out;
	}
	len = (uint32_t)sizeof(*r) + 8 * nargs;
	r = ring_prod_reserve(&t->prod, len);
	if (AGENT_UNLIKELY(!r))
		goto out;
	user_fill(r, t->index, seq, len, id, nargs, args, timed);
	if (AGENT_UNLIKELY(ring_prod_commit(&t->prod, len)))
		agent_wake();
out:
	t->busy = 0;
}

/* After a commit that crossed the watermark: wake the collector, then
 * leave. Out of line so that the fast path below calls nothing but in
 * tail position, and needs no saved registers. */
static __attribute__((noinline)) void user_wake_leave(struct agent_thread *t)
{
	agent_wake();
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->busy = 0;
}

/*
 * The fast path: the common case, tested before anything is written, so
 * that any other case goes to user_emit_slow with nothing done yet. The
 * room test is exactly the case in which ring_prod_reserve returns the
 * head's place without doing anything else (no wrap, room by the cached
 * tail, pages populated, not oversized), so both paths write the same ring.
 * The ring is read only once busy is set (a signal handler that traces in
 * between would otherwise move the head under us); the signal fences keep
 * the compiler from moving ring accesses across the flag's changes.
 */
static inline __attribute__((always_inline)) void user_emit(uint32_t id, uint32_t nargs,
							     const int64_t *args, int timed)
{
	struct agent_thread *t = &agent_self;
	struct ring_prod *p = &t->prod;
	struct rec_user *r;
	uint32_t seq, len = (uint32_t)sizeof(*r) + 8 * nargs;
	uint64_t off;

	if (AGENT_UNLIKELY(!agent.active || t->state != AGENT_T_ON || t->busy ||
			   nargs > USER_FAST_ARGS || (nargs && !args) || p->pkt.slot))
		goto slow;
	t->busy = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	off = p->head & (p->size - 1);
	if (AGENT_UNLIKELY(len > p->size / 2 || off + len > p->size ||
			   p->head + len - p->tail > p->size || p->head + len > p->ready)) {
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		t->busy = 0;
		goto slow;
	}
	seq = ++t->seq;
	p->ring->last_seq = seq;
	r = (struct rec_user *)(p->data + off);
	user_fill(r, t->index, seq, len, id, nargs, args, timed);
	if (AGENT_UNLIKELY(ring_prod_commit(p, len))) {
		user_wake_leave(t);
		return;
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->busy = 0;
	return;
slow:
	user_emit_slow(id, nargs, args, timed);
}

AGENT_EXPORT __attribute__((optimize("no-tree-loop-distribute-patterns"))) void
spool_trace_emit(uint32_t id, uint32_t nargs, const int64_t *args)
{
	user_emit(id, nargs, args, 1);
}

/* spool cc's untimed form (include/spool/trace.h): only for a record that
 * follows another of the same thread through straight-line code. */
AGENT_EXPORT __attribute__((optimize("no-tree-loop-distribute-patterns"))) void
spool_trace_emit_nt(uint32_t id, uint32_t nargs, const int64_t *args)
{
	user_emit(id, nargs, args, 0);
}
