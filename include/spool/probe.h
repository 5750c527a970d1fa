// SPDX-License-Identifier: MIT
/*
 * spool/probe.h - custom probe handlers for spool probe.
 *
 * A custom probe is a shared object that exports up to three handlers. The
 * agent loads it into the target (dlopen, once, when the probes are placed)
 * with `spool probe --handler ./my.so -e SPEC ...`, and every probe of the
 * run calls them in addition to recording its standard event:
 *
 *   void spool_probe_pre(const struct spool_probe_ctx *ctx);
 *           at a function's entry (ctx->op == SPOOL_PROBE_ENTRY): before its
 *           first instruction runs
 *   void spool_probe_post(const struct spool_probe_ctx *ctx);
 *           at each of its returns (ctx->op == SPOOL_PROBE_EXIT): the return
 *           value is in ctx->rax (and rdx; aarch64: ctx->x[0], x[1]), the
 *           function's epilogue has run
 *   void spool_probe_error(const struct spool_probe_ctx *ctx, int sig);
 *           pre or post faulted (sig = SIGSEGV, SIGBUS, SIGFPE or SIGILL):
 *           the fault is absorbed, this probe is removed from the program
 *           (its original bytes restored) and the program runs on. The
 *           other probes stay. A fault in the error handler is absorbed too.
 *
 * Build: cc -shared -fPIC -mgeneral-regs-only -O2 -o my.so my.c
 * (aarch64: aarch64-linux-gnu-gcc -shared -fPIC -O2 -o my.so my.c, run on the
 * board; the trampoline saves every register there, vector ones included,
 * so -mgeneral-regs-only is not needed)
 *
 * Rules, as for the agent: handlers run on the probed thread, possibly in a
 * signal handler (int3 probes), with the thread anywhere in the program:
 * no malloc, no stdio, no locks the program may hold; async-signal-safe
 * calls only (write(2) is fine); return quickly. They must not use vector
 * or x87 registers (the program's floating-point arguments and return
 * values are live there and are not saved for them): compile with
 * -mgeneral-regs-only, and call no libc function that uses them (memcpy,
 * strlen... may). Handlers do not nest: a probe hit inside a handler is
 * not recorded and runs no handler.
 */
#ifndef SPOOL_PROBE_H
#define SPOOL_PROBE_H

#include <stdint.h>

#define SPOOL_PROBE_ENTRY 1
#define SPOOL_PROBE_EXIT 2
#define SPOOL_PROBE_HIT 3

/* What a handler sees: the probe and the caller-saved registers at the
 * probed instruction (read-only: changing them changes nothing). */
struct spool_probe_ctx {
	uint32_t probe_id; /* as in the trace's "probes" table */
	uint32_t op;	   /* SPOOL_PROBE_* */
	uint64_t addr;	   /* the probed instruction (entry, or the ret) */
#if defined(__aarch64__)
	uint64_t sp;	   /* stack pointer at it */
	uint64_t x[19];	   /* x0-x18: arguments in x0-x7, the result in x0 (x1) */
	uint64_t lr;	   /* x30, the return address (a PAC signature removed) */
#else
	uint64_t sp;	   /* stack pointer at it: *(uint64_t *)sp is the return address */
	uint64_t rax, rcx, rdx, rsi, rdi, r8, r9, r10, r11;
#endif
};

void spool_probe_pre(const struct spool_probe_ctx *ctx);
void spool_probe_post(const struct spool_probe_ctx *ctx);
void spool_probe_error(const struct spool_probe_ctx *ctx, int sig);

#endif
