// SPDX-License-Identifier: MIT
/*
 * agent_probe_hot.c - what a probe hit runs: the standard handlers of the
 * probe library (record one KIND_PROBE event) and the wrappers that also
 * run the custom handlers (include/spool/probe.h) under a fault guard.
 *
 * The whole file is compiled general-regs-only, and the pragma comes before
 * every include so that the inline ring producer and event helpers are
 * compiled the same way and inlined (a function of another target cannot be
 * inlined into a general-regs-only one: those calls stayed out of line, and
 * were compiled with SSE allowed). The trampoline therefore saves only the
 * nine caller-saved general registers: vector and x87 registers, which hold
 * floating-point arguments at an entry and return values at a ret, are never
 * touched on the hot path. The only calls out are out of line and save the
 * extended state themselves (agent_probe_slow).
 *
 * Cost of a hit (bench/probe.sh): the trampoline's pushes and pops, one
 * indirect call, a TLS load, rdtsc (the largest part on this machine) and
 * nine 8-byte stores into the thread's own ring. No atomic read-modify-write,
 * no system call unless the collector must be woken.
 */
#pragma GCC target("general-regs-only")

#include <setjmp.h>
#include <signal.h>

#include "agent.h"
#include "agent_probe.h"
#include "agent_probe_var.h"

__thread const void *agent_probe_st0;
__thread const void *agent_probe_st0_regs;

/*
 * Out of line and rare: register the thread on its first event, wake the
 * collector, wait for room in a full ring, or deal with a custom handler's
 * fault. All call into libc or code compiled with SSE, which may use vector
 * registers (AVX memset, vzeroupper, an SSE store of a constant) that still
 * hold the probed function's arguments: the whole extended state is saved
 * around them (xsave with every component the OS enabled; fxsave when the
 * area would not fit). The trampoline calls the handlers on a 16-byte
 * aligned stack (x86_call_aligned) and the kernel aligns a signal frame;
 * force_align_arg_pointer still realigns here, so that no path into SSE
 * code depends on how the handler was reached.
 */
#define AGENT_PROBE_XSAVE_MAX 4032

static uint32_t agent_probe_xsave_size(void)
{
	static uint32_t size;
	uint32_t a, b, c, d;

	if (size)
		return size;
	a = 0xd, c = 0;
	__asm__ volatile("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
	size = b ? b : UINT32_MAX;
	return size;
}

enum {
	AGENT_PROBE_SLOW_ENTER,
	AGENT_PROBE_SLOW_WAKE,
	AGENT_PROBE_SLOW_FAULT,
	AGENT_PROBE_SLOW_RESERVE
};

/*
 * what: ENTER returns the registered thread (or NULL); RESERVE returns
 * ring_prod_reserve(&agent_self.prod, len) with the ring full, so that the
 * agent's on_full (agent_ring_full: system calls, a log line, SSE stores
 * of its own) runs with the program's vector registers saved.
 */
__attribute__((noinline, force_align_arg_pointer)) static void *
agent_probe_slow(int what, struct agent_probe_rt *p, const struct spool_probe_ctx *ctx, int sig,
		 uint32_t len)
{
	uint8_t area[AGENT_PROBE_XSAVE_MAX + 64];
	uint8_t *x = (uint8_t *)(((uintptr_t)area + 63) & ~(uintptr_t)63);
	int xs = agent_probe_xsave_size() <= AGENT_PROBE_XSAVE_MAX;
	void *t = NULL;

	if (xs) {
		/* xsave's header must start zeroed */
		for (int i = 512; i < 576; i++)
			x[i] = 0;
		__asm__ volatile("xsave64 %0" : "+m"(*(uint8_t(*)[AGENT_PROBE_XSAVE_MAX])x)
				 : "a"(-1), "d"(-1));
	} else {
		__asm__ volatile("fxsave64 %0" : "=m"(*(uint8_t(*)[512])x));
	}
	if (what == AGENT_PROBE_SLOW_WAKE)
		agent_wake();
	else if (what == AGENT_PROBE_SLOW_FAULT)
		agent_probe_fault(p, ctx, sig);
	else if (what == AGENT_PROBE_SLOW_RESERVE)
		t = ring_prod_reserve(&agent_self.prod, len);
	else
		t = agent_enter();
	if (xs)
		__asm__ volatile("xrstor64 %0" : : "m"(*(uint8_t(*)[AGENT_PROBE_XSAVE_MAX])x),
				 "a"(-1), "d"(-1));
	else
		__asm__ volatile("fxrstor64 %0" : : "m"(*(uint8_t(*)[512])x));
	return t;
}

/*
 * ring_prod_reserve that never reaches on_full inline: when the ring may be
 * full (no room for a pad to the end plus the record), the real tail is
 * read once, as ring_prod_reserve would, and if there is still no room the
 * reserve goes through the slow path.
 */
static inline __attribute__((always_inline)) void *agent_probe_reserve(struct agent_thread *t,
								       uint32_t len)
{
	struct ring_prod *p = &t->prod;
	uint64_t off;

	if (p->pkt.slot) {
		/* Packets: opening one may wait for room (on_full): slow. */
		struct ring_pkt *k = &p->pkt;

		if (AGENT_UNLIKELY(!k->base ||
				   ((k->pos + 7) & ~7u) + len + RING_PKT_SLACK > k->slot ||
				   (k->events && p->ring->last_seq != k->next_seq)))
			return agent_probe_slow(AGENT_PROBE_SLOW_RESERVE, NULL, NULL, 0, len);
		return k->base + ((k->pos + 7) & ~7u);
	}
	if (AGENT_UNLIKELY(p->head + 2ull * len - p->tail > p->size)) {
		p->tail = __atomic_load_n(&p->ring->tail, __ATOMIC_ACQUIRE);
		if (p->head + 2ull * len - p->tail > p->size)
			return agent_probe_slow(AGENT_PROBE_SLOW_RESERVE, NULL, NULL, 0, len);
	}
	/* There is room for a pad and the record (above). The common case,
	 * the record neither wrapping nor reaching pages not yet populated,
	 * is written here: ring_prod_reserve (a call, its checks again) only
	 * for those. */
	off = p->head & (p->size - 1);
	if (AGENT_LIKELY(off + len <= p->size && p->head + len <= p->ready))
		return p->data + off;
	return ring_prod_reserve(p, len);
}

/* ring_prod_commit of a record in records mode (pkt.slot 0, known). */
static inline __attribute__((always_inline)) int agent_probe_commit(struct ring_prod *p,
								    uint32_t len)
{
	p->head += len;
	__atomic_store_n(&p->ring->head, p->head, __ATOMIC_RELEASE);
	return ring_prod_level(p);
}

/*
 * Record one hit, the thread's checks passed and busy set by the caller.
 * The registers are read from regs where the record is written, not
 * passed by value: a value argument is read before the stores above it
 * (any of which may alias regs for the compiler), so it was kept in
 * callee-saved registers or spilled across them. op is a constant in
 * every caller: the choice of registers folds away. have_tsc: tsc was
 * read by the caller (agent_probe_emit's fast path, which gave up after
 * its read), after busy was set, and is this hit's time: one rdtsc a
 * hit, the largest part of its cost, not two. Without it, the packets
 * mode reads the time once before its first write and both of its ways
 * use it; the records mode reads it where it writes the record, as
 * before.
 */
static inline __attribute__((always_inline)) void
agent_probe_emit_rest(struct agent_thread *t, uint32_t id, unsigned op, uint64_t sp,
		      const struct probe_regs *regs, uint64_t tsc, int have_tsc)
{
	struct rec_probe *r;
	uint32_t seq;
	int pkt;

	/* the ring's mode, read once (only this thread changes it) */
	pkt = t->prod.pkt.slot != 0;
	seq = ++t->seq;
	/* Before the reserve: a drop is counted in lost after last_seq says
	 * the event was numbered (collector_lost_ok reads them in that order;
	 * stored after, a full ring looked damaged to the collector). */
	t->prod.ring->last_seq = seq;
	if (pkt) {
		/* packets in the ring: the common case written in place */
		int wake;

		if (!have_tsc)
			tsc = agent_now(t);
		if (AGENT_LIKELY(ring_pkt_probe(&t->prod, op, id, &agent_probe_by_id[id].addr, sp,
						*(const uint64_t *)sp, seq, tsc, &wake))) {
			if (AGENT_UNLIKELY(wake))
				agent_probe_slow(AGENT_PROBE_SLOW_WAKE, NULL, NULL, 0, 0);
			return;
		}
	}
	r = agent_probe_reserve(t, sizeof(*r));
	if (AGENT_UNLIKELY(!r))
		return;
	r->h.word = ev_word(KIND_PROBE, t->index, id, op);
	r->h.tsc = pkt ? tsc : __rdtsc();
	r->h.seq = seq;
	r->h.size = sizeof(*r);
	r->addr = agent_probe_by_id[id].addr;
	r->sp = sp;
	r->ret_ip = *(const uint64_t *)sp;
	if (op == PROBE_OP_EXIT) { /* the return value */
		r->args[0] = regs->rax;
		r->args[1] = regs->rdx;
		r->args[2] = 0;
	} else { /* the first three integer arguments */
		r->args[0] = regs->rdi;
		r->args[1] = regs->rsi;
		r->args[2] = regs->rdx;
	}
	if (AGENT_UNLIKELY(pkt ? ring_prod_commit(&t->prod, sizeof(*r))
			       : agent_probe_commit(&t->prod, sizeof(*r))))
		agent_probe_slow(AGENT_PROBE_SLOW_WAKE, NULL, NULL, 0, 0);
}

/* Record one hit: the thread's checks, then agent_probe_emit_rest. */
static inline __attribute__((always_inline)) void
agent_probe_emit_all(uint32_t id, unsigned op, uint64_t sp, const struct probe_regs *regs)
{
	struct agent_thread *t = &agent_self;

	if (AGENT_UNLIKELY(!(agent.active && t->state == AGENT_T_ON && !t->busy &&
			     sp - t->stack_lo < t->stack_len))) {
		/* busy on its stack: a re-entry (busy may be the owner's of a
		 * shared state: its slow path); off its stack: whose the hit
		 * is, the kernel says (agent_enter, agent_thread_offstack) */
		if (!agent.active ||
		    (t->busy && t->state != AGENT_T_SHARED && sp - t->stack_lo < t->stack_len))
			return;
		t = agent_probe_slow(AGENT_PROBE_SLOW_ENTER, NULL, NULL, 0, 0);
		if (!t)
			return;
	}
	if (AGENT_UNLIKELY(id > agent_probe_max_id))
		return;
	t->busy = 1;
	agent_probe_emit_rest(t, id, op, sp, regs, 0, 0);
	t->busy = 0;
}

/* One per operation, so that op stays a constant in each (the records
 * mode writes its record here, as fast as it was inline). */
static __attribute__((noinline)) void agent_probe_emit_entry(uint32_t id, uint64_t sp,
							     const struct probe_regs *regs)
{
	agent_probe_emit_all(id, PROBE_OP_ENTRY, sp, regs);
}

static __attribute__((noinline)) void agent_probe_emit_exit(uint32_t id, uint64_t sp,
							    const struct probe_regs *regs)
{
	agent_probe_emit_all(id, PROBE_OP_EXIT, sp, regs);
}

static __attribute__((noinline)) void agent_probe_emit_hit(uint32_t id, uint64_t sp,
							   const struct probe_regs *regs)
{
	agent_probe_emit_all(id, PROBE_OP_HIT, sp, regs);
}

/* The general path after the fast one gave up (its checks passed, busy
 * still set, the time read): one per operation, as above. */
static __attribute__((noinline)) void agent_probe_emit_entry_at(uint32_t id, uint64_t sp,
								const struct probe_regs *regs,
								uint64_t tsc)
{
	agent_probe_emit_rest(&agent_self, id, PROBE_OP_ENTRY, sp, regs, tsc, 1);
}

static __attribute__((noinline)) void agent_probe_emit_exit_at(uint32_t id, uint64_t sp,
							       const struct probe_regs *regs,
							       uint64_t tsc)
{
	agent_probe_emit_rest(&agent_self, id, PROBE_OP_EXIT, sp, regs, tsc, 1);
}

static __attribute__((noinline)) void agent_probe_emit_hit_at(uint32_t id, uint64_t sp,
							      const struct probe_regs *regs,
							      uint64_t tsc)
{
	agent_probe_emit_rest(&agent_self, id, PROBE_OP_HIT, sp, regs, tsc, 1);
}

/*
 * The common case inline, the rest out of line: the thread recording,
 * packets in the ring, the site defined in the open packet, no wake owed.
 * That path calls nothing (ring_pkt_probe_defined), so the handlers that
 * inline it keep it in the caller-saved registers the trampoline saved
 * (callgrind-like count, bench/callheavy.c: 143 instructions an entry hit
 * before). busy is set before the packet's fields are read: a signal
 * handler's hit in between runs to its end first, and this one then reads
 * what it left. seq is stored only when the event is written here; when
 * the general path takes it, it numbers it itself. When the thread's
 * checks pass but the fast path gives up (a site this packet has not
 * defined yet: about one hit in six on sqlite3 with every libsqlite3
 * function probed, issue 16), busy stays set and the time read here goes
 * with the hit to the general path (agent_probe_emit_*_at): no second
 * rdtsc, and no window in which a signal handler's hit could come between
 * the read and the event.
 */
static inline __attribute__((always_inline)) void
agent_probe_emit(uint32_t id, unsigned op, uint64_t sp, const struct probe_regs *regs)
{
	struct agent_thread *t = &agent_self;
	uint64_t tsc;
	uint32_t seq;
	int wake;

	if (!t->prod.pkt.slot) {
		/* records mode: written inline, as before packets */
		agent_probe_emit_all(id, op, sp, regs);
		return;
	}
	if (AGENT_LIKELY(agent.active && t->state == AGENT_T_ON && !t->busy &&
			 sp - t->stack_lo < t->stack_len && id <= agent_probe_max_id)) {
		t->busy = 1;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		/* first, so that its latency overlaps the loads below; after
		 * busy, so that a signal handler's hit is not later than it */
		tsc = agent_now(t);
		seq = t->seq + 1;
		if (AGENT_LIKELY(!t->prod.pkt_wake)) {
			/* last_seq before the event is published (as the general path) */
			t->prod.ring->last_seq = seq;
			if (AGENT_LIKELY(ring_pkt_probe_defined(
				    &t->prod, op, id, &agent_probe_by_id[id].addr, sp,
				    *(const uint64_t *)sp, seq, tsc, &wake))) {
				t->seq = seq;
				__atomic_signal_fence(__ATOMIC_SEQ_CST);
				t->busy = 0;
				return;
			}
		}
		if (op == PROBE_OP_ENTRY)
			agent_probe_emit_entry_at(id, sp, regs, tsc);
		else if (op == PROBE_OP_EXIT)
			agent_probe_emit_exit_at(id, sp, regs, tsc);
		else
			agent_probe_emit_hit_at(id, sp, regs, tsc);
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		t->busy = 0;
		return;
	}
	if (op == PROBE_OP_ENTRY)
		agent_probe_emit_entry(id, sp, regs);
	else if (op == PROBE_OP_EXIT)
		agent_probe_emit_exit(id, sp, regs);
	else
		agent_probe_emit_hit(id, sp, regs);
}

static void agent_probe_entry(uint32_t id, struct probe_regs *regs, uint64_t sp)
{
	agent_probe_emit(id, PROBE_OP_ENTRY, sp, regs);
}

/* An exit whose return address is the return-address trampoline: the
 * function is the tail callee of a frame whose exits are hooked there
 * (agent_probe_ra.c), and this exit ends that frame too. */
static inline __attribute__((always_inline)) void agent_probe_exit_tail(uint64_t sp)
{
	if (AGENT_UNLIKELY(*(const uint64_t *)sp == (uint64_t)(uintptr_t)agent_probe_ra_tramp))
		agent_probe_ra_tailed(sp);
}

static void agent_probe_exit(uint32_t id, struct probe_regs *regs, uint64_t sp)
{
	agent_probe_emit(id, PROBE_OP_EXIT, sp, regs);
	agent_probe_exit_tail(sp);
}

/* The entry of a function whose exits are hooked through its return
 * address: recorded first (the record reads the real return address),
 * then swapped (agent_probe_ra.c). */
static void agent_probe_entry_ra(uint32_t id, struct probe_regs *regs, uint64_t sp)
{
	agent_probe_emit(id, PROBE_OP_ENTRY, sp, regs);
	agent_probe_ra_push(id, sp);
}

static void agent_probe_hit(uint32_t id, struct probe_regs *regs, uint64_t sp)
{
	agent_probe_emit(id, PROBE_OP_HIT, sp, regs);
}

/*
 * Block and branch probes count, they record nothing: a relaxed atomic add
 * on a counter in spool's shared memory (threads and forked children of
 * the program add to the same counters). No TLS, no timestamp.
 */
uint64_t *agent_probe_counts;
uint32_t agent_probe_ncounts;

/* x86 condition codes: even cc is the condition, odd its negation. */
int agent_probe_cond(unsigned cc, uint64_t fl)
{
	unsigned cf = fl & 1, pf = (fl >> 2) & 1, zf = (fl >> 6) & 1, sf = (fl >> 7) & 1,
		 of = (fl >> 11) & 1, v;

	switch (cc >> 1) {
	case 0: v = of; break;
	case 1: v = cf; break;
	case 2: v = zf; break;
	case 3: v = cf | zf; break;
	case 4: v = sf; break;
	case 5: v = pf; break;
	case 6: v = sf ^ of; break;
	default: v = zf | (sf ^ of); break;
	}
	return (int)(v ^ (cc & 1));
}

static void agent_probe_block(uint32_t id, struct probe_regs *regs, uint64_t sp)
{
	if (AGENT_LIKELY(id < agent_probe_ncounts))
		__atomic_fetch_add(&agent_probe_counts[2 * id], 1, __ATOMIC_RELAXED);
}

/* The flags were pushed just above the registers (save_flags). */
static void agent_probe_branch(uint32_t idcc, struct probe_regs *regs, uint64_t sp)
{
	uint32_t id = idcc & PROBE_ID_MASK;
	uint64_t fl = *(const uint64_t *)(regs + 1);

	if (AGENT_LIKELY(id < agent_probe_ncounts))
		__atomic_fetch_add(&agent_probe_counts[2 * id + !agent_probe_cond(idcc >> PROBE_CC_SHIFT, fl)],
				   1, __ATOMIC_RELAXED);
}

/*
 * Variable probes: one record per variable, each with the hit's timestamp.
 * The recipe was computed by spool from the DWARF location at this address
 * (probe_abi.h); reading memory is a plain load of bytes that DWARF says
 * hold the variable (the frame or a global), so it does not fault on a
 * correct location list.
 */
const struct probe_area_var *agent_probe_vars;

static inline __attribute__((always_inline)) uint64_t
agent_probe_reg(const struct probe_var_regs *vr, unsigned reg, uint64_t sp)
{
	const struct probe_regs *g = &vr->gp;

	switch (reg) {
	case 0: return g->rax;
	case 1: return g->rdx;
	case 2: return g->rcx;
	case 3: return vr->rbx;
	case 4: return g->rsi;
	case 5: return g->rdi;
	case 6: return vr->rbp;
	case 7: return sp;
	case 8: return g->r8;
	case 9: return g->r9;
	case 10: return g->r10;
	case 11: return g->r11;
	case 12: return vr->r12;
	case 13: return vr->r13;
	case 14: return vr->r14;
	case 15: return vr->r15;
	default: return 0;
	}
}

/*
 * x87 st(0), the return value of a function returning long double, at a
 * probe on its ret: 10 bytes. Nothing between the probed code and here uses
 * x87 (this file is general-regs-only, the trampoline saves only general
 * and xmm registers), so on the jump path st(0) is the program's; fxsave
 * copies it without changing the x87 state (no push, no tag or status word
 * change, whatever the stack depth). The int3 path hands the signal
 * frame's copy in agent_probe_st0 (for its own vr only).
 */
static inline __attribute__((always_inline)) void
agent_probe_read_st0(const struct probe_var_regs *vr, uint64_t val[2])
{
	uint8_t area[512 + 16];
	uint8_t *x = (uint8_t *)(((uintptr_t)area + 15) & ~(uintptr_t)15);
	const volatile uint8_t *src = NULL;
	uint8_t *dst = (uint8_t *)val;

	if (agent_probe_st0_regs == vr) {
		src = agent_probe_st0;
	} else {
		__asm__ volatile("fxsave64 %0" : "=m"(*(uint8_t(*)[512])x));
		src = x + 32; /* the ST0/MM0 slot */
	}
	for (unsigned k = 0; k < 10; k++)
		dst[k] = src[k];
}

/* The x86-64 half of a variable probe's hit (agent_probe_var.h): the
 * frame is struct probe_var_regs; DWARF 17-32 are xmm0-15, 33 st(0).
 * always_inline although their addresses are taken: the loop is inlined
 * with the struct's constant pointers, so every call is direct. */
static inline __attribute__((always_inline)) uint64_t
agent_probe_var_reg(const void *regs, unsigned reg, uint64_t sp)
{
	return agent_probe_reg(regs, reg, sp);
}

static inline __attribute__((always_inline)) int
agent_probe_var_wide(const void *regs, unsigned reg, uint64_t val[2])
{
	const struct probe_var_regs *vr = regs;

	if (reg >= 17 && reg <= 32) {
		val[0] = vr->xmm[reg - 17][0];
		val[1] = vr->xmm[reg - 17][1];
		return 1;
	}
	if (reg == PROBE_V_REG_ST0) {
		agent_probe_read_st0(vr, val);
		return 1;
	}
	return 0;
}

static inline __attribute__((always_inline)) void *
agent_probe_var_reserve(struct agent_thread *t, uint32_t len)
{
	return agent_probe_reserve(t, len);
}

static inline __attribute__((always_inline)) void agent_probe_var_wake(void)
{
	agent_probe_slow(AGENT_PROBE_SLOW_WAKE, NULL, NULL, 0, 0);
}

static const struct agent_probe_var_arch agent_probe_var_x86 = {
	.reg = agent_probe_var_reg,
	.wide = agent_probe_var_wide,
	.reserve = agent_probe_var_reserve,
	.wake = agent_probe_var_wake,
};

static void agent_probe_var(uint32_t id, struct probe_regs *regs, uint64_t sp)
{
	struct agent_thread *t = &agent_self;
	const struct agent_probe_rt *p;

	if (AGENT_UNLIKELY(!(agent.active && t->state == AGENT_T_ON && !t->busy &&
			     sp - t->stack_lo < t->stack_len))) {
		/* busy on its stack: a re-entry (busy may be the owner's of a
		 * shared state: its slow path); off its stack: whose the hit
		 * is, the kernel says (agent_enter, agent_thread_offstack) */
		if (!agent.active ||
		    (t->busy && t->state != AGENT_T_SHARED && sp - t->stack_lo < t->stack_len))
			return;
		t = agent_probe_slow(AGENT_PROBE_SLOW_ENTER, NULL, NULL, 0, 0);
		if (!t)
			return;
	}
	if (AGENT_UNLIKELY(id > agent_probe_max_id || !agent_probe_vars))
		return;
	p = &agent_probe_by_id[id];
	t->busy = 1;
	agent_probe_var_loop(&agent_probe_var_x86, t, regs, sp, id, p->addr, p->base,
			     &agent_probe_vars[p->var_first], p->var_count, __rdtsc());
	t->busy = 0;
}

const agent_probe_fn agent_probe_handlers[PROBE_H_MAX] = {
	[PROBE_H_FUNC_ENTRY] = agent_probe_entry,
	[PROBE_H_FUNC_EXIT] = agent_probe_exit,
	[PROBE_H_HIT] = agent_probe_hit,
	[PROBE_H_BLOCK] = agent_probe_block,
	[PROBE_H_BRANCH] = agent_probe_branch,
	[PROBE_H_VAR] = agent_probe_var,
	[PROBE_H_FUNC_ENTRY_RA] = agent_probe_entry_ra,
};

/* ---- custom handlers, under the fault guard ---- */

/*
 * Run pre (entry, hit) or post (exit) of the loaded shared object. The
 * guard is a sigsetjmp without the signal mask (no system call); the fault
 * signal handlers are installed SA_NODEFER, so jumping out of one leaves
 * the mask as it was. busy keeps a probe hit inside the handler from
 * running handlers again.
 */
__attribute__((noinline, force_align_arg_pointer)) static void
agent_probe_user_run(uint32_t id, unsigned op, struct probe_regs *regs, uint64_t sp)
{
	struct agent_probe_rt *p = &agent_probe_by_id[id];
	void (*fn)(const struct spool_probe_ctx *) =
		op == PROBE_OP_EXIT ? agent_probe_user.post : agent_probe_user.pre;
	struct agent_thread *t = &agent_self;
	struct spool_probe_ctx ctx;
	int sig;

	if (!fn || __atomic_load_n(&p->disabled, __ATOMIC_RELAXED) || t->busy)
		return;
	/* a thread on another's TLS (its hit was counted lost by the emit
	 * before): busy is the owner's, not its own to set */
	if (AGENT_UNLIKELY(t->state == AGENT_T_SHARED) && agent_thread_foreign())
		return;
	ctx.probe_id = id;
	ctx.op = op;
	ctx.addr = p->addr;
	ctx.sp = sp;
	ctx.rax = regs->rax, ctx.rcx = regs->rcx, ctx.rdx = regs->rdx;
	ctx.rsi = regs->rsi, ctx.rdi = regs->rdi, ctx.r8 = regs->r8;
	ctx.r9 = regs->r9, ctx.r10 = regs->r10, ctx.r11 = regs->r11;
	t->busy = 1;
	sig = agent_probe_guard_call(fn, NULL, &ctx, 0);
	t->busy = 0;
	if (sig)
		agent_probe_slow(AGENT_PROBE_SLOW_FAULT, p, &ctx, sig, 0);
}

static void agent_probe_user_entry(uint32_t id, struct probe_regs *regs, uint64_t sp)
{
	agent_probe_emit(id, PROBE_OP_ENTRY, sp, regs);
	agent_probe_user_run(id, PROBE_OP_ENTRY, regs, sp);
}

static void agent_probe_user_entry_ra(uint32_t id, struct probe_regs *regs, uint64_t sp)
{
	agent_probe_emit(id, PROBE_OP_ENTRY, sp, regs);
	agent_probe_user_run(id, PROBE_OP_ENTRY, regs, sp);
	agent_probe_ra_push(id, sp);
}

static void agent_probe_user_exit(uint32_t id, struct probe_regs *regs, uint64_t sp)
{
	agent_probe_emit(id, PROBE_OP_EXIT, sp, regs);
	agent_probe_exit_tail(sp);
	agent_probe_user_run(id, PROBE_OP_EXIT, regs, sp);
}

static void agent_probe_user_hit(uint32_t id, struct probe_regs *regs, uint64_t sp)
{
	agent_probe_emit(id, PROBE_OP_HIT, sp, regs);
	agent_probe_user_run(id, PROBE_OP_HIT, regs, sp);
}

const agent_probe_fn agent_probe_user_handlers[PROBE_H_MAX] = {
	[PROBE_H_FUNC_ENTRY] = agent_probe_user_entry,
	[PROBE_H_FUNC_EXIT] = agent_probe_user_exit,
	[PROBE_H_HIT] = agent_probe_user_hit,
	/* custom handlers run at function entries and exits only */
	[PROBE_H_BLOCK] = agent_probe_block,
	[PROBE_H_BRANCH] = agent_probe_branch,
	[PROBE_H_VAR] = agent_probe_var,
	[PROBE_H_FUNC_ENTRY_RA] = agent_probe_user_entry_ra,
};
