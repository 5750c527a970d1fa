// SPDX-License-Identifier: MIT
/*
 * a64_agent_probe.h - shared by the aarch64 probe runtime
 * (a64_agent_probe.c: placing) and its handlers (a64_agent_probe_hot.c).
 */
#ifndef SPOOL_ARCH_AARCH64_A64_AGENT_PROBE_H
#define SPOOL_ARCH_AARCH64_A64_AGENT_PROBE_H

#include <stdint.h>

#include "a64_insn.h"

/* The probed instruction's run-time address, by probe id (0..max_id). */
extern uint64_t *a64_probe_addr;
extern uint32_t a64_probe_max_id;

/* The standard handlers the trampolines call (a64_code_probe): probe id,
 * the registers saved at the probe, the stack pointer there. */
void a64_probe_entry(uint32_t id, struct a64_probe_regs *regs, uint64_t sp);
void a64_probe_exit(uint32_t id, struct a64_probe_regs *regs, uint64_t sp);

#endif
