// SPDX-License-Identifier: MIT
/*
 * agent_rr_signal.c - asynchronous signals under record/replay
 * (doc/record.md, "Signals").
 *
 * While recording or replaying, sigaction and signal install a wrapper in
 * place of the program's handler. Recording: the wrapper only sets the
 * signal's bit in the receiving thread's pending mask (one atomic or: async-
 * signal-safe, no lock, errno untouched); the program's handler runs at the
 * thread's next recorded event (agent_rr.c, rr_rec_signals), which first
 * writes a KIND_SCHED record with op RR_OP_SIGNAL. Replay: signals from
 * outside are dropped, and the recorded deliveries are made when the
 * thread's log reaches them, by calling the program's handler there.
 *
 * Synchronous signals (faults: SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP,
 * SIGSYS) are never wrapped, and neither are SIG_DFL/SIG_IGN dispositions:
 * a signal that kills the program kills it as usual, and the replay of the
 * truncated recording ends where it died.
 */
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "agent_probe.h"
#include "agent_rr.h"
#include "agent_rr_dispatch.h"

__thread uint64_t agent_rr_sig_pending; /* bit sig: arrived, handler not run yet */

static struct sigaction sig_prog[NSIG]; /* the program's dispositions of wrapped signals */
static uint8_t sig_wrapped[NSIG];
static int (*sig_real)(int, const struct sigaction *, struct sigaction *);

static int sig_sync(int sig)
{
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL ||
	       sig == SIGTRAP || sig == SIGSYS;
}

static void sig_call(int sig, siginfo_t *si, void *uc)
{
	const struct sigaction *a = &sig_prog[sig];

	if (a->sa_flags & SA_SIGINFO)
		a->sa_sigaction(sig, si, uc);
	else if (a->sa_handler != SIG_DFL && a->sa_handler != SIG_IGN)
		a->sa_handler(sig);
}

/* The kernel's entry point for every wrapped signal. */
static void sig_wrapper(int sig, siginfo_t *si, void *uc)
{
	if (sig <= 0 || sig >= NSIG || sig >= 64)
		return;
	if (!agent_rr_mode || !agent_rr_sig_thread_ok()) {
		sig_call(sig, si, uc); /* untracked thread: as without spool */
		return;
	}
	if (agent_rr_mode & RR_MODE_REPLAY)
		return; /* the recorded deliveries are made from the log */
	__atomic_fetch_or(&agent_rr_sig_pending, 1ull << sig, __ATOMIC_RELAXED);
}

void agent_rr_sig_run(int sig)
{
	siginfo_t si;
	sigset_t old;

	if (sig <= 0 || sig >= NSIG)
		return;
	memset(&si, 0, sizeof(si));
	si.si_signo = sig;
	si.si_code = SI_USER;
	/* The handler runs with its sa_mask and its own signal blocked, as
	 * the kernel would run it. */
	{
		sigset_t m = sig_prog[sig].sa_mask;

		/* Raw system calls: no new libc import (20-agent-symbols.t). */
		if (!(sig_prog[sig].sa_flags & SA_NODEFER))
			((unsigned long *)&m)[0] |= 1ul << (sig - 1);
		syscall(SYS_rt_sigprocmask, SIG_BLOCK, &m, &old, _NSIG / 8);
	}
	sig_call(sig, &si, NULL);
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &old, NULL, _NSIG / 8);
}

static int sig_resolve(void)
{
	if (!__atomic_load_n(&sig_real, __ATOMIC_ACQUIRE))
		__atomic_store_n(&sig_real, dlsym(RTLD_NEXT, "sigaction"), __ATOMIC_RELEASE);
	return sig_real ? 0 : -ENOSYS;
}

AGENT_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *oact)
{
	struct sigaction w, prev;
	int rc, wrap;

	if (sig_resolve()) {
		errno = ENOSYS;
		return -1;
	}
	if (sig == SIGTRAP && agent_probe_sigtrap(act, oact))
		return 0; /* int3 probes keep their handler (agent_probe.c) */
	if (sig == SIGSYS && agent_rr_dispatch_sigsys(act, oact))
		return 0; /* syscall user dispatch keeps its handler */
	if (sig <= 0 || sig >= NSIG || sig >= 64 || sig_sync(sig) ||
	    (!agent_rr_mode && !sig_wrapped[sig]))
		return sig_real(sig, act, oact);
	prev = sig_prog[sig];
	if (!act) {
		rc = sig_real(sig, NULL, oact);
		if (!rc && oact && sig_wrapped[sig])
			*oact = prev;
		return rc;
	}
	wrap = agent_rr_mode && ((act->sa_flags & SA_SIGINFO) ||
				 (act->sa_handler != SIG_DFL && act->sa_handler != SIG_IGN));
	if (!wrap) {
		rc = sig_real(sig, act, oact);
		if (!rc) {
			if (oact && sig_wrapped[sig])
				*oact = prev;
			sig_wrapped[sig] = 0;
		}
		return rc;
	}
	w = *act;
	w.sa_sigaction = sig_wrapper;
	/* The program's handler runs later, from the agent: the wrapper
	 * itself is never reset or nested. */
	w.sa_flags = (act->sa_flags | SA_SIGINFO) & ~(SA_RESETHAND | SA_NODEFER);
	sig_prog[sig] = *act;
	rc = sig_real(sig, &w, oact);
	if (rc) {
		sig_prog[sig] = prev;
		return rc;
	}
	if (oact && sig_wrapped[sig])
		*oact = prev;
	sig_wrapped[sig] = 1;
	return 0;
}

AGENT_EXPORT sighandler_t signal(int sig, sighandler_t h)
{
	struct sigaction a, o;

	memset(&a, 0, sizeof(a));
	a.sa_handler = h;
	a.sa_flags = SA_RESTART;
	if (sigaction(sig, &a, &o) < 0)
		return SIG_ERR;
	return (o.sa_flags & SA_SIGINFO) ? (sighandler_t)(void *)o.sa_sigaction : o.sa_handler;
}
