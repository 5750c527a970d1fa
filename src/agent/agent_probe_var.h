// SPDX-License-Identifier: MIT
/*
 * agent_probe_var.h - the architecture-neutral part of a variable probe's
 * hit (PROBE_H_VAR): the loop over the probe's recipes (agent_probe_var_loop),
 * the value's bytes once the register or address is known, and the record
 * that carries them. Shared by the x86-64 handler (agent_probe_hot.c
 * agent_probe_var) and the aarch64 one (src/arch/aarch64/a64_agent_probe_hot.c
 * a64_probe_var), which differ only in how a DWARF register number is read
 * from their trampoline's frame, in how a record is reserved in the ring and
 * in how the collector is woken: those come in a struct agent_probe_var_arch.
 *
 * Signal-safe and inline: no libc, run on the probed thread with the
 * thread's busy flag set; the only calls are the architecture's slow paths
 * (a full ring, a wake).
 */
#ifndef SPOOL_AGENT_PROBE_VAR_H
#define SPOOL_AGENT_PROBE_VAR_H

#include <stdint.h>

#include "../probe/probe_abi.h"
#include "../common/event.h"
#include "../common/ring_produce.h"
#include "agent.h"

/*
 * The value of variable v into val (16 bytes): at != 0, v's bytes (at most
 * 16) loaded from there, a plain byte load of what DWARF says holds it;
 * else val is what the register read left, its bytes past v's size
 * cleared (a narrower variable in a wider register).
 */
static inline __attribute__((always_inline)) void
agent_probe_var_value(const struct probe_area_var *v, uint64_t at, uint64_t val[2])
{
	unsigned size = v->size > 16 ? 16 : v->size;
	uint8_t *dst = (uint8_t *)val;

	if (at) {
		const volatile uint8_t *src = (const volatile uint8_t *)at;

		for (unsigned k = 0; k < size; k++)
			dst[k] = src[k];
	} else {
		for (unsigned k = size; k < 16; k++)
			dst[k] = 0;
	}
}

/* One PROBE_OP_VAR record of v (the hit's tsc, the thread's seq) into r:
 * args = the 16 value bytes and the address read (0 for a register),
 * ret_ip = v's index among the probe's nvars variables. */
static inline __attribute__((always_inline)) void
agent_probe_var_fill(struct rec_probe *r, uint32_t thread_index, uint32_t id, uint64_t tsc,
		     uint32_t seq, uint64_t addr, uint64_t sp, const struct probe_area_var *v,
		     const uint64_t val[2], uint64_t at)
{
	r->h.word = ev_word(KIND_PROBE, thread_index, id, PROBE_OP_VAR);
	r->h.tsc = tsc;
	r->h.seq = seq;
	r->h.size = sizeof(*r);
	r->addr = addr;
	r->sp = sp;
	r->ret_ip = (uint64_t)v->index | (uint64_t)v->nvars << 16;
	r->args[0] = val[0];
	r->args[1] = val[1];
	r->args[2] = at;
}

/*
 * What differs between the ports' variable probes. The loop below is
 * always_inline and each port passes a static const struct of static
 * functions: the compiler reads the pointers at compile time and the calls
 * are direct and inlined, as in the copies this replaced (no indirect call
 * on the hot path: objdump of agent_probe_var shows none).
 *   reg      a general register's value by its DWARF number (sp for the
 *            stack pointer's), 0 for one the frame does not hold
 *   wide     PROBE_V_REG of a register that is not a general one (vector,
 *            x87 st(0)): its bytes into val and 1; 0 for a general one
 *   reserve  room for a record of len bytes in t's ring, or NULL (the drop
 *            counted by the ring)
 *   wake     wake the collector (ring_prod_commit asked)
 * regs is the port's frame (struct probe_var_regs, struct a64_probe_regs).
 */
struct agent_probe_var_arch {
	uint64_t (*reg)(const void *regs, unsigned reg, uint64_t sp);
	int (*wide)(const void *regs, unsigned reg, uint64_t val[2]);
	void *(*reserve)(struct agent_thread *t, uint32_t len);
	void (*wake)(void);
};

/*
 * One hit of variable probe id (at addr, its module's load bias base) on
 * thread t, busy set by the caller: a record per recipe v[0..n), each with
 * the hit's tsc and its own seq. last_seq is stored before the reserve: a
 * drop is counted in lost after last_seq says the event was numbered
 * (collector_lost_ok reads them in that order).
 */
static inline __attribute__((always_inline)) void
agent_probe_var_loop(const struct agent_probe_var_arch *arch, struct agent_thread *t,
		     const void *regs, uint64_t sp, uint32_t id, uint64_t addr, uint64_t base,
		     const struct probe_area_var *v, uint32_t n, uint64_t tsc)
{
	for (uint32_t i = 0; i < n; i++, v++) {
		uint64_t val[2] = {0, 0}, at = 0;
		struct rec_probe *r;
		uint32_t seq;

		switch (v->how) {
		case PROBE_V_REG:
			if (!arch->wide(regs, v->reg, val))
				val[0] = arch->reg(regs, v->reg, sp);
			break;
		case PROBE_V_MEM_REG:
			at = arch->reg(regs, v->reg, sp) + (uint64_t)v->off;
			break;
		case PROBE_V_MEM_ABS:
			at = base + (uint64_t)v->off;
			break;
		case PROBE_V_VAL_REG:
			val[0] = arch->reg(regs, v->reg, sp) + (uint64_t)v->off;
			break;
		case PROBE_V_CONST:
			val[0] = (uint64_t)v->off;
			break;
		default:
			break;
		}
		agent_probe_var_value(v, at, val);
		seq = ++t->seq;
		t->prod.ring->last_seq = seq;
		r = arch->reserve(t, sizeof(*r));
		if (AGENT_UNLIKELY(!r))
			continue;
		agent_probe_var_fill(r, t->index, id, tsc, seq, addr, sp, v, val, at);
		if (AGENT_UNLIKELY(ring_prod_commit(&t->prod, sizeof(*r))))
			arch->wake();
	}
}

#endif
