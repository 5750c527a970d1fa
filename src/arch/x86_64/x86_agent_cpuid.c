// SPDX-License-Identifier: MIT
/*
 * x86_agent_cpuid.c - x86-64's half of the program's cpuid instructions
 * while recording or replaying (src/agent/agent_rr_cpuid.c): CPUID
 * faulting (arch_prctl ARCH_SET_CPUID 0: a cpuid outside ring 0 raises
 * #GP, which Linux sends as SIGSEGV with si_code SI_KERNEL), the agent's
 * SIGSEGV handler, and the CPU's real answer with rdrand and rdseed
 * cleared. Built into the agent only (Makefile: ARCH_AGENT_SRCS).
 *
 * The handler: a SIGSEGV with si_code SI_KERNEL whose instruction is
 * 0f a2 is the program's cpuid: eax and ecx in, the four registers out
 * (upper halves zeroed, as the instruction does), rip past it. Anything
 * else is the program's: held or given the default action when its view
 * blocks SIGSEGV (agent_sigview_blocked), else its own disposition
 * (agent_rr_cpuid_prog): its handler called, SA_RESETHAND honoured; the
 * default action taken by putting SIG_DFL back, after which a fault runs
 * its instruction again and a sent SIGSEGV is sent again. The handler is
 * SA_NODEFER (the kernel does not block SIGSEGV while it runs: the
 * program's handler may leave with longjmp, or run cpuid itself) and
 * SA_ONSTACK (the program's alternate stack, if it has one).
 *
 * Signal-safe: raw system calls through libc's syscall() (inside the range
 * syscall user dispatch allows), errno preserved.
 */
#include <asm/prctl.h>
#include <cpuid.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "../../agent/agent.h"
#include "../../agent/agent_rr_cpuid.h"
#include "../../agent/agent_sigview.h"

#ifndef ARCH_SET_CPUID
#define ARCH_SET_CPUID 0x1006
#endif

#define X86_CPUID_RDRAND (1u << 30) /* leaf 1, ecx */
#define X86_CPUID_RDSEED (1u << 18) /* leaf 7 subleaf 0, ebx */

/* The kernel's struct sigaction on x86-64 (rt_sigaction). */
struct x86_cpuid_ksa {
	void *handler;
	unsigned long flags;
	void *restorer;
	uint64_t mask;
};

void agent_rr_cpuid_arch_real(uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	int saved = errno;

	memset(r, 0, 4 * sizeof(uint32_t));
	/* faulting off in this thread only, for the one instruction (a
	 * failure would fault into this handler again: zeros instead) */
	if (syscall(SYS_arch_prctl, ARCH_SET_CPUID, 1) == 0) {
		__cpuid_count(leaf, sub, r[0], r[1], r[2], r[3]);
		syscall(SYS_arch_prctl, ARCH_SET_CPUID, 0);
	}
	if (leaf == 1)
		r[2] &= ~X86_CPUID_RDRAND;
	else if (leaf == 7 && sub == 0)
		r[1] &= ~X86_CPUID_RDSEED;
	errno = saved;
}

void agent_rr_cpuid_arch_off(void)
{
	int saved = errno;

	syscall(SYS_arch_prctl, ARCH_SET_CPUID, 1);
	errno = saved;
}

/* A SIGSEGV that is not a cpuid: what the program's disposition does. */
static void x86_cpuid_chain(const struct sigaction *o, int sig, siginfo_t *si, void *uc)
{
	struct x86_cpuid_ksa dfl = {SIG_DFL, 0, NULL, 0};

	if (o->sa_flags & SA_SIGINFO ? o->sa_sigaction != NULL
				     : o->sa_handler != SIG_DFL && o->sa_handler != SIG_IGN) {
		struct sigaction a = *o;

		if (a.sa_flags & SA_RESETHAND) {
			struct sigaction d;

			memset(&d, 0, sizeof(d));
			d.sa_handler = SIG_DFL;
			agent_rr_cpuid_sigsegv(&d, NULL);
		}
		if (a.sa_flags & SA_SIGINFO)
			a.sa_sigaction(sig, si, uc);
		else
			a.sa_handler(sig);
		return;
	}
	/* SIG_IGN: a sent one is ignored; a fault cannot be (the kernel
	 * would kill), so it takes the default action */
	if (o->sa_handler == SIG_IGN && si->si_code <= 0)
		return;
	syscall(SYS_rt_sigaction, SIGSEGV, &dfl, NULL, 8);
	if (si->si_code <= 0)
		syscall(SYS_tgkill, syscall(SYS_getpid), syscall(SYS_gettid), sig);
}

static void x86_cpuid_handler(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;
	greg_t *g = uc->uc_mcontext.gregs;
	const uint8_t *ip = (const uint8_t *)g[REG_RIP];
	uint32_t r[4];

	/* (a #GP fetched the whole instruction: its two bytes are readable) */
	if (si->si_code == SI_KERNEL && ip && ip[0] == 0x0f && ip[1] == 0xa2) {
		/* the agent's own cpuid (a probe's first xsave sizing,
		 * agent_probe_hot.c) is not the program's: a replay with probes
		 * (spool path) would meet one the recording does not have */
		if (agent_own_text(ip))
			agent_rr_cpuid_arch_real((uint32_t)g[REG_RAX], (uint32_t)g[REG_RCX], r);
		else
			agent_rr_cpuid_value((uint32_t)g[REG_RAX], (uint32_t)g[REG_RCX], r);
		g[REG_RAX] = r[0];
		g[REG_RBX] = r[1];
		g[REG_RCX] = r[2];
		g[REG_RDX] = r[3];
		g[REG_RIP] += 2;
		return;
	}
	if (agent_sigview_blocked(sig, si, ctx, x86_cpuid_chain))
		return;
	x86_cpuid_chain(agent_rr_cpuid_prog(), sig, si, ctx);
}

int agent_rr_cpuid_arch_on(struct sigaction *old)
{
	struct sigaction sa;
	int rc;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = x86_cpuid_handler;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK | SA_RESTART;
	if (sigaction(SIGSEGV, &sa, old) < 0)
		return -errno;
	if (syscall(SYS_arch_prctl, ARCH_SET_CPUID, 0) < 0) {
		rc = -errno;
		sigaction(SIGSEGV, old, NULL);
		return rc;
	}
	return 0;
}
