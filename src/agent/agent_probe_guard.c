// SPDX-License-Identifier: MIT
/*
 * agent_probe_guard.c - the fault guard custom probe handlers run under
 * (include/spool/probe.h), shared by x86-64 (agent_probe_hot.c,
 * agent_probe.c) and aarch64 (src/arch/aarch64/a64_agent_probe*.c): a
 * sigsetjmp without the signal mask (no system call) that the agent's
 * SIGSEGV/SIGBUS/SIGFPE/SIGILL handler jumps back to when the handler
 * faults (those handlers are SA_NODEFER, so leaving one this way leaves
 * the mask as it was). Each architecture's fault handler restores what its
 * signal frame holds that the jump skips (x86-64: the vector state; on
 * aarch64 the trampoline restores every register itself).
 *
 * General registers only on x86-64, as agent_probe_hot.c: the program's
 * vector registers are live around a probe there.
 */
#if defined(__x86_64__)
#pragma GCC target("general-regs-only")
#endif

#include <setjmp.h>
#include <signal.h>

#include "agent.h"
#include "agent_probe.h"

__thread struct agent_probe_guard *agent_probe_guard_cur;

__attribute__((noinline)) int agent_probe_guard_call(void (*fn)(const struct spool_probe_ctx *),
						     void (*efn)(const struct spool_probe_ctx *,
								 int),
						     const struct spool_probe_ctx *ctx, int sig)
{
	struct agent_probe_guard g;

	g.sig = 0;
	agent_probe_guard_cur = &g;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (!sigsetjmp(g.jb, 0)) {
		if (efn)
			efn(ctx, sig);
		else
			fn(ctx);
	}
	/* (back from the fault handler's siglongjmp too) */
	agent_probe_guard_cur = NULL;
	return g.sig;
}
