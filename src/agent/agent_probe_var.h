// SPDX-License-Identifier: MIT
/*
 * agent_probe_var.h - the architecture-neutral half of a variable probe's
 * hit (PROBE_H_VAR): the value's bytes once the register or address is
 * known, and the record that carries them. Shared by the x86-64 handler
 * (agent_probe_hot.c agent_probe_var) and the aarch64 one
 * (src/arch/aarch64/a64_agent_probe_hot.c a64_probe_var), which differ only
 * in how a DWARF register number is read from their trampoline's frame and
 * in how a record is reserved in the ring.
 *
 * Signal-safe and inline: no call, no libc, run on the probed thread with
 * the thread's busy flag set.
 */
#ifndef SPOOL_AGENT_PROBE_VAR_H
#define SPOOL_AGENT_PROBE_VAR_H

#include <stdint.h>

#include "../probe/probe_abi.h"
#include "../common/event.h"

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

#endif
