// SPDX-License-Identifier: MIT
/*
 * spool/probe.h - custom probe handlers for spool probe (planned API; the
 * first slice of spool probe runs only the standard probes: see
 * doc/probe.md).
 *
 * A custom probe is a shared object that exports up to three handlers,
 * loaded into the target by the agent (`spool probe --handler ./my.so`):
 *
 *   void spool_probe_pre(const struct spool_probe_ctx *ctx);    before the probed instruction
 *   void spool_probe_post(const struct spool_probe_ctx *ctx);   after it
 *   void spool_probe_error(const struct spool_probe_ctx *ctx, int sig);
 *                                   pre or post faulted (sig = SIGSEGV, SIGBUS...):
 *                                   the probe is removed, the program runs on
 *
 * Rules, as for the agent: handlers run on the probed thread, possibly in a
 * signal handler (int3 probes) and with the thread inside arbitrary code:
 * no malloc, no stdio, no locks; return quickly. They must not use vector
 * registers unless they save them (compile with -mgeneral-regs-only).
 */
#ifndef SPOOL_PROBE_H
#define SPOOL_PROBE_H

#include <stdint.h>

/* What a handler sees: the probe and the caller-saved registers at the
 * probed instruction (read-only in this version). */
struct spool_probe_ctx {
	uint32_t probe_id;  /* as in the trace's "probes" table */
	uint32_t op;	    /* 1 entry, 2 exit, 3 hit */
	uint64_t addr;	    /* the probed instruction */
	uint64_t sp;	    /* stack pointer at it */
	uint64_t rax, rcx, rdx, rsi, rdi, r8, r9, r10, r11;
};

void spool_probe_pre(const struct spool_probe_ctx *ctx);
void spool_probe_post(const struct spool_probe_ctx *ctx);
void spool_probe_error(const struct spool_probe_ctx *ctx, int sig);

#endif
