// SPDX-License-Identifier: MIT
/*
 * a64_agent_probe_hot.c - what a probe hit runs on aarch64: record one
 * KIND_PROBE event, as agent_probe_hot.c does on x86-64, from the registers
 * the trampoline saved (struct a64_probe_regs).
 *
 * The trampoline (a64_code_probe) saves every general register, NZCV and
 * q0-q31 before calling here, so these handlers, and whatever they call
 * (registering the thread, waking the collector, a full ring), may use any
 * register, vector ones included: unlike x86-64 there is no
 * general-regs-only rule and no extended-state save on the slow paths.
 *
 * The record: args = x0-x2 at an entry (the first three integer
 * arguments), x0-x1 at an exit (the return value); ret_ip = LR, the return
 * address, with a pointer-authentication signature removed (an entry
 * probed after PACIASP, an exit at RETAA); sp = the stack pointer at the
 * probe, the caller's at both the entry and the exits (AAPCS64 keeps the
 * return address in LR, not on the stack), which is what pairs them in
 * the reports (src/analyze/callstack.c).
 */
#include <setjmp.h>

#include "../../agent/agent.h"
#include "../../agent/agent_probe.h"
#include "../../agent/agent_probe_var.h"
#include "a64_agent_probe.h"

/* The address bits of a user pointer: a PAC signature (and a top-byte
 * tag) live above bit 47 on Linux's 48-bit user address space. */
#define A64_VA_MASK ((1ull << 48) - 1)

static inline __attribute__((always_inline)) void a64_probe_emit(uint32_t id, unsigned op,
								 const struct a64_probe_regs *regs,
								 uint64_t sp, uint64_t a0,
								 uint64_t a1, uint64_t a2)
{
	struct agent_thread *t = agent_enter();
	struct rec_probe *r;
	uint32_t seq;

	if (!t || AGENT_UNLIKELY(id > a64_probe_max_id || !a64_probe_addr))
		return;
	seq = ++t->seq;
	t->busy = 1;
	/* Before the reserve: a drop is counted in lost after last_seq says
	 * the event was numbered (agent_probe_hot.c). */
	t->prod.ring->last_seq = seq;
	r = ring_prod_reserve(&t->prod, sizeof(*r));
	if (AGENT_UNLIKELY(!r))
		goto out;
	r->h.word = ev_word(KIND_PROBE, t->index, id, op);
	r->h.tsc = agent_now(t);
	r->h.seq = seq;
	r->h.size = sizeof(*r);
	r->addr = a64_probe_addr[id];
	r->sp = sp;
	r->ret_ip = regs->x[30] & A64_VA_MASK;
	r->args[0] = a0;
	r->args[1] = a1;
	r->args[2] = a2;
	if (AGENT_UNLIKELY(ring_prod_commit(&t->prod, sizeof(*r))))
		agent_wake();
out:
	t->busy = 0;
}

void a64_probe_entry(uint32_t id, struct a64_probe_regs *regs, uint64_t sp)
{
	a64_probe_emit(id, PROBE_OP_ENTRY, regs, sp, regs->x[0], regs->x[1], regs->x[2]);
}

void a64_probe_exit(uint32_t id, struct a64_probe_regs *regs, uint64_t sp)
{
	a64_probe_emit(id, PROBE_OP_EXIT, regs, sp, regs->x[0], regs->x[1], 0);
}

/*
 * Block and branch probes count, they record nothing: a relaxed atomic add
 * on a counter in spool's shared memory (threads and forked children add
 * to the same counters), as on x86-64 (agent_probe_hot.c). No TLS, no
 * timestamp: safe in a signal handler and before the thread is known.
 */
uint64_t *a64_probe_counts;
uint32_t a64_probe_ncounts;

void a64_probe_block(uint32_t id, struct a64_probe_regs *regs, uint64_t sp)
{
	if (AGENT_LIKELY(id < a64_probe_ncounts))
		__atomic_fetch_add(&a64_probe_counts[2 * id], 1, __ATOMIC_RELAXED);
}

/* w: the conditional branch, whose condition is evaluated on the registers
 * it runs with (the saved ones: the trampoline runs it relocated after). */
void a64_probe_branch(uint32_t id, struct a64_probe_regs *regs, uint64_t sp, uint32_t w)
{
	int taken = a64_branch_taken(w, regs->x, regs->nzcv);

	if (AGENT_LIKELY(id < a64_probe_ncounts && taken >= 0))
		__atomic_fetch_add(&a64_probe_counts[2 * id + !taken], 1, __ATOMIC_RELAXED);
}

void a64_probe_hit(uint32_t id, struct a64_probe_regs *regs, uint64_t sp)
{
	a64_probe_emit(id, PROBE_OP_HIT, regs, sp, regs->x[0], regs->x[1], regs->x[2]);
}

/* A DWARF register's value at the probe (aarch64 numbering: x0-x30, 31
 * sp); 0 for one a recipe never names (spool checked them). */
static inline __attribute__((always_inline)) uint64_t a64_reg(const void *frame, unsigned reg,
							      uint64_t sp)
{
	const struct a64_probe_regs *regs = frame;

	if (reg <= 30)
		return regs->x[reg];
	return reg == 31 ? sp : 0;
}

/* v0-v31 (DWARF 64-95) as 16 bytes; 0 for a general register. */
static inline __attribute__((always_inline)) int a64_reg_wide(const void *frame, unsigned reg,
							      uint64_t val[2])
{
	const struct a64_probe_regs *regs = frame;

	if (reg < 64 || reg > 95)
		return 0;
	val[0] = regs->q[reg - 64][0];
	val[1] = regs->q[reg - 64][1];
	return 1;
}

/* The trampoline saved every register: the ring's own reserve and wake
 * may use any of them (no general-regs-only rule here). */
static inline __attribute__((always_inline)) void *a64_var_reserve(struct agent_thread *t,
								   uint32_t len)
{
	return ring_prod_reserve(&t->prod, len);
}

static inline __attribute__((always_inline)) void a64_var_wake(void)
{
	agent_wake();
}

/* always_inline although their addresses are taken: agent_probe_var_loop
 * is inlined with this struct's constant pointers, every call direct. */
static const struct agent_probe_var_arch a64_var_arch = {
	.reg = a64_reg,
	.wide = a64_reg_wide,
	.reserve = a64_var_reserve,
	.wake = a64_var_wake,
};

/* The index of the first of probe id's recipes (sorted by probe id, then
 * index), or with past of the first recipe after them (a64_probe_nvars at
 * the end): id's recipes are [first, past). */
static uint32_t a64_var_bound(uint32_t id, int past)
{
	uint32_t lo = 0, hi = a64_probe_nvars;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		uint32_t at = a64_probe_vars[mid].probe_id;

		if (at < id || (past && at == id))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Variable probes: one record per variable, each with the hit's timestamp,
 * by the loop x86-64 runs too (agent_probe_var.h agent_probe_var_loop).
 * The recipe was computed by spool from the DWARF location at this address;
 * a register is read from the frame the trampoline saved (x0-x30, sp,
 * v0-v31 as 16 bytes), memory by a plain load of the bytes DWARF says hold
 * the variable.
 */
void a64_probe_var(uint32_t id, struct a64_probe_regs *regs, uint64_t sp)
{
	struct agent_thread *t = agent_enter();
	uint32_t first, past;

	if (!t || AGENT_UNLIKELY(id > a64_probe_max_id || !a64_probe_addr || !a64_probe_vars))
		return;
	first = a64_var_bound(id, 0);
	past = a64_var_bound(id, 1);
	t->busy = 1;
	agent_probe_var_loop(&a64_var_arch, t, regs, sp, id, a64_probe_addr[id], a64_probe_base[id],
			     &a64_probe_vars[first], past - first, __rdtsc());
	t->busy = 0;
}

/* ---- custom handlers, under the fault guard ---- */

struct agent_probe_user agent_probe_user;
uint8_t *a64_probe_off;

/*
 * Run pre (entry, hit) or post (exit) of the loaded object with the probe's
 * registers, under the guard (agent_probe_guard.c). Nothing to restore
 * after a fault's jump: the trampoline saved every register and puts them
 * back when this returns. busy keeps a probe hit inside the handler from
 * running handlers again.
 */
static __attribute__((noinline)) void a64_probe_user_run(uint32_t id, unsigned op,
							 const struct a64_probe_regs *regs,
							 uint64_t sp)
{
	void (*fn)(const struct spool_probe_ctx *) =
	    op == PROBE_OP_EXIT ? agent_probe_user.post : agent_probe_user.pre;
	struct agent_thread *t = &agent_self;
	struct spool_probe_ctx ctx;
	int sig;

	if (!fn || t->busy || id > a64_probe_max_id || !a64_probe_addr ||
	    (a64_probe_off && __atomic_load_n(&a64_probe_off[id], __ATOMIC_RELAXED)))
		return;
	ctx.probe_id = id;
	ctx.op = op;
	ctx.addr = a64_probe_addr[id];
	ctx.sp = sp;
	for (unsigned i = 0; i < 19; i++)
		ctx.x[i] = regs->x[i];
	ctx.lr = regs->x[30] & A64_VA_MASK;
	t->busy = 1;
	sig = agent_probe_guard_call(fn, NULL, &ctx, 0);
	t->busy = 0;
	if (sig)
		a64_probe_fault(id, &ctx, sig);
}

void a64_probe_user_entry(uint32_t id, struct a64_probe_regs *regs, uint64_t sp)
{
	a64_probe_emit(id, PROBE_OP_ENTRY, regs, sp, regs->x[0], regs->x[1], regs->x[2]);
	a64_probe_user_run(id, PROBE_OP_ENTRY, regs, sp);
}

void a64_probe_user_exit(uint32_t id, struct a64_probe_regs *regs, uint64_t sp)
{
	a64_probe_emit(id, PROBE_OP_EXIT, regs, sp, regs->x[0], regs->x[1], 0);
	a64_probe_user_run(id, PROBE_OP_EXIT, regs, sp);
}

void a64_probe_user_hit(uint32_t id, struct a64_probe_regs *regs, uint64_t sp)
{
	a64_probe_emit(id, PROBE_OP_HIT, regs, sp, regs->x[0], regs->x[1], regs->x[2]);
	a64_probe_user_run(id, PROBE_OP_HIT, regs, sp);
}
