// SPDX-License-Identifier: MIT
/*
 * a64_agent_sig.c - aarch64's half of the program's own signal calls
 * while probes need a signal: SIGTRAP while BRK probes are in
 * (a64_agent_brk.c), SIGSEGV/SIGBUS/SIGFPE/SIGILL while custom handlers run
 * guarded (a64_agent_probe.c). The program's view of those "kept" signals
 * (its masks, its SIGTRAP disposition, the handlers' sa_mask) is kept by
 * src/agent/agent_sigview.c, which x86-64 shares; what is aarch64's is here:
 * how a signal that is not ours is given back (a BRK re-executed by the
 * default action), and the stubs of what aarch64 does not have (no
 * syscall user dispatch, so SIGSYS is never kept). In attach mode the
 * program's modules reach the same interposers through their GOT slots
 * (src/agent/agent_probe_got.c, shared with x86-64). Signal-safe where a handler runs it:
 * no libc but raw system calls, errno preserved.
 */
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "../../agent/agent.h"
#include "../../agent/agent_probe.h"
#include "../../agent/agent_sigview.h"
#include "a64_agent_probe.h"

static int (*a64_sig_real_action)(int, const struct sigaction *, struct sigaction *);

/* Found before main (a lookup from an interposer could run in a signal
 * handler); until then, the system call. busy first: reading errno calls
 * __errno_location, which a func: probe of libc may have patched. */
__attribute__((constructor)) static void a64_sig_resolve(void)
{
	int saved;

	agent_self.busy++;
	saved = errno;
	AGENT_RESOLVE(a64_sig_real_action, "sigaction");
	errno = saved;
	agent_self.busy--;
}

/* The action o for signal sig, given to the kernel without our
 * interposer (which would keep a SIGTRAP one for the program). */
static int a64_sig_install(int sig, const struct sigaction *o, struct sigaction *old)
{
	if (a64_sig_real_action)
		return a64_sig_real_action(sig, o, old);
	return sigaction(sig, o, old);
}

/*
 * A signal that is not the agent's, to action o, as the kernel would have
 * taken it: its handler runs; SIG_IGN drops a sent one; the default
 * action (or SIG_IGN for the thread's own trap or fault, which the kernel
 * does not let be ignored) is put back and the instruction runs again, a
 * sent signal is sent again. For SIGTRAP the BRK handler is gone from
 * then on (the process ends by the default action).
 */
void a64_sig_chain(const struct sigaction *o, int sig, siginfo_t *si, void *uc)
{
	struct sigaction dfl;

	if (o->sa_flags & SA_SIGINFO) {
		if (o->sa_sigaction) {
			o->sa_sigaction(sig, si, uc);
			return;
		}
	} else if (o->sa_handler == SIG_IGN && si->si_code <= 0) {
		return;
	} else if (o->sa_handler != SIG_DFL && o->sa_handler != SIG_IGN) {
		o->sa_handler(sig);
		return;
	}
	if (sig == SIGTRAP)
		agent_sigview_unkeep(AGENT_SIG_BIT(SIGTRAP));
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	syscall(SYS_rt_sigaction, sig, &dfl, NULL, _NSIG / 8);
	if (si->si_code <= 0)
		syscall(SYS_tgkill, agent.pid, syscall(SYS_gettid), sig);
}

int a64_sig_blocked(int sig, siginfo_t *si, void *uc)
{
	return agent_sigview_blocked(sig, si, uc, a64_sig_chain);
}

void a64_sig_trap_other(siginfo_t *si, void *uc)
{
	if (!a64_sig_blocked(SIGTRAP, si, uc))
		agent_sigview_trap_chain(si, uc, a64_sig_chain);
}

int a64_sig_trap_install(void (*fn)(int, siginfo_t *, void *))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = fn;
	/* NODEFER: a BRK probe hit by what a handler calls traps too.
	 * ONSTACK: the program's alternate stack, if it has one. */
	sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_NODEFER | SA_ONSTACK;
	return agent_sigview_trap_install(&sa, a64_sig_install);
}

void a64_sig_trap_uninstall(void (*fn)(int, siginfo_t *, void *))
{
	struct sigaction cur;

	if (!(agent_sigview_kept() & AGENT_SIG_BIT(SIGTRAP)))
		return;
	/* only when it is still ours (attach mode: the program's sigaction
	 * is not interposed and may have replaced it) */
	if (a64_sig_install(SIGTRAP, NULL, &cur) == 0 && (cur.sa_flags & SA_SIGINFO) &&
	    cur.sa_sigaction == fn)
		a64_sig_install(SIGTRAP, agent_sigview_prog_trap_get(), NULL);
	agent_sigview_unkeep(AGENT_SIG_BIT(SIGTRAP));
}

void a64_sig_fault_keep(void)
{
	agent_sigview_keep(AGENT_SIG_FAULT_BITS);
	agent_sigview_unblock_here(AGENT_SIG_FAULT_BITS);
}

/* Syscall user dispatch is x86-64 only (agent_rr_dispatch.c): SIGSYS is
 * never kept here. */
void agent_probe_keep_sigsys(void) {}

int agent_probe_sigsys_blocked(siginfo_t *si, void *uc)
{
	return 0;
}
