// SPDX-License-Identifier: MIT
/*
 * agent_probe_gotwrap.c - attach mode: the functions besides the two mask
 * calls whose GOT slots agent_probe_got.c points at the agent while int3
 * probes are in, so that no handler and no temporary mask blocks SIGTRAP
 * for real (a blocked int3 trap kills the process).
 *
 * Launched, the agent's exported sigaction, signal, sigsuspend, ppoll,
 * pselect and epoll_pwait are the ones every module binds to and keep
 * SIGTRAP out of the masks they install (agent_rr_signal.c, agent_rr_io.c).
 * Attached, the program is bound to libc's: a handler installed with a full
 * sa_mask (sigfillset, a common pattern), or run during sigsuspend or ppoll
 * with every other signal blocked, ran with SIGTRAP blocked and died of the
 * first probe it hit; a sigaction or signal call for SIGTRAP replaced the
 * agent's handler, and the next probe hit looped on its int3. These twins
 * do what the launch-mode interposers do for probes, and nothing of
 * record/replay: the mask without the kept signals (the program's sa_mask
 * kept and given back when it reads it), SIGTRAP's disposition kept as the
 * one traps that are not ours go to. Each calls libc's function, found by
 * agent_probe_got_redirect before any slot points here.
 *
 * Handlers installed before spool attached: agent_probe_samask_strip
 * (agent_probe.c) takes SIGTRAP out of their sa_mask at commit and puts it
 * back at detach.
 */
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>

#include "agent.h"
#include "agent_probe.h"
#include "agent_rr_cpuid.h"
#include "agent_rr_dispatch.h"

void *agent_probe_got_real[AGENT_PROBE_GOT_NFN];

int agent_probe_got_sigaction(int sig, const struct sigaction *act, struct sigaction *oact)
{
	int (*real)(int, const struct sigaction *, struct sigaction *) =
		agent_probe_got_real[AGENT_PROBE_GOT_SIGACTION];
	struct sigaction buf;
	uint64_t had;
	int rc;

	if (sig == SIGTRAP && agent_probe_sigtrap(act, oact))
		return 0; /* our handler stays; the program's is chained to */
	if (sig == SIGSYS && agent_rr_dispatch_sigsys(act, oact))
		return 0; /* syscall user dispatch keeps its handler */
	if (sig == SIGSEGV && agent_rr_cpuid_sigsegv(act, oact))
		return 0; /* CPUID faulting keeps its handler */
	had = agent_probe_action_marks(sig);
	rc = real(sig, agent_probe_action_in(sig, act, &buf), oact);
	if (!rc)
		agent_probe_action_out(sig, oact, had);
	return rc;
}

sighandler_t agent_probe_signal_as(int sig, sighandler_t h, int flags,
				   int (*act)(int, const struct sigaction *, struct sigaction *))
{
	struct sigaction a, o;

	memset(&a, 0, sizeof(a));
	a.sa_handler = h;
	a.sa_flags = flags;
	if (!(flags & SA_NODEFER) && sig > 0 && sig < 65)
		((uint64_t *)&a.sa_mask)[0] = 1ull << (sig - 1);
	if (act(sig, &a, &o) < 0)
		return SIG_ERR;
	return (o.sa_flags & SA_SIGINFO) ? (sighandler_t)(void *)o.sa_sigaction : o.sa_handler;
}

/* glibc's signal family, through the twin above, not libc's (whose
 * sigaction would not come back here): an attached program that installs
 * its SIGSEGV handler with __sysv_signal (zstd's command line) would
 * otherwise replace the handler CPUID faulting needs. libc's own function
 * (real) is the fallback while the twin has no sigaction to call. */
static sighandler_t got_signal_as(int real, int sig, sighandler_t h, int flags)
{
	sighandler_t (*fn)(int, sighandler_t) = agent_probe_got_real[real];

	if (!agent_probe_got_real[AGENT_PROBE_GOT_SIGACTION])
		return fn(sig, h);
	return agent_probe_signal_as(sig, h, flags, agent_probe_got_sigaction);
}

sighandler_t agent_probe_got_signal(int sig, sighandler_t h)
{
	return got_signal_as(AGENT_PROBE_GOT_SIGNAL, sig, h, SA_RESTART);
}

sighandler_t agent_probe_got_bsd_signal(int sig, sighandler_t h)
{
	return got_signal_as(AGENT_PROBE_GOT_BSD_SIGNAL, sig, h, SA_RESTART);
}

sighandler_t agent_probe_got_sysv_signal(int sig, sighandler_t h)
{
	return got_signal_as(AGENT_PROBE_GOT_SYSV_SIGNAL, sig, h, SA_RESETHAND | SA_NODEFER);
}

sighandler_t agent_probe_got___sysv_signal(int sig, sighandler_t h)
{
	return got_signal_as(AGENT_PROBE_GOT___SYSV_SIGNAL, sig, h, SA_RESETHAND | SA_NODEFER);
}

int agent_probe_got_sigsuspend(const sigset_t *mask)
{
	int (*real)(const sigset_t *) = agent_probe_got_real[AGENT_PROBE_GOT_SIGSUSPEND];
	sigset_t buf;

	return real(agent_probe_mask_arg(mask, &buf));
}

int agent_probe_got_ppoll(struct pollfd *fds, nfds_t n, const struct timespec *ts,
			  const sigset_t *mask)
{
	int (*real)(struct pollfd *, nfds_t, const struct timespec *, const sigset_t *) =
		agent_probe_got_real[AGENT_PROBE_GOT_PPOLL];
	sigset_t buf;

	return real(fds, n, ts, agent_probe_mask_arg(mask, &buf));
}

int agent_probe_got_pselect(int n, fd_set *r, fd_set *w, fd_set *e, const struct timespec *ts,
			    const sigset_t *mask)
{
	int (*real)(int, fd_set *, fd_set *, fd_set *, const struct timespec *,
		    const sigset_t *) = agent_probe_got_real[AGENT_PROBE_GOT_PSELECT];
	sigset_t buf;

	return real(n, r, w, e, ts, agent_probe_mask_arg(mask, &buf));
}

int agent_probe_got_epoll_pwait(int epfd, struct epoll_event *ev, int max, int timeout,
				const sigset_t *mask)
{
	int (*real)(int, struct epoll_event *, int, int, const sigset_t *) =
		agent_probe_got_real[AGENT_PROBE_GOT_EPOLL_PWAIT];
	sigset_t buf;

	return real(epfd, ev, max, timeout, agent_probe_mask_arg(mask, &buf));
}

int agent_probe_got_epoll_pwait2(int epfd, struct epoll_event *ev, int max,
				 const struct timespec *ts, const sigset_t *mask)
{
	int (*real)(int, struct epoll_event *, int, const struct timespec *, const sigset_t *) =
		agent_probe_got_real[AGENT_PROBE_GOT_EPOLL_PWAIT2];
	sigset_t buf;

	return real(epfd, ev, max, ts, agent_probe_mask_arg(mask, &buf));
}

/* pthread_create's twin: what the new thread needs before the program's
 * start routine (malloc'ed by the creator, freed by the thread). */
struct got_start {
	void *(*fn)(void *);
	void *arg;
	uint64_t view; /* the creator's view of the kept signals */
};

static void *got_thread_start(void *p)
{
	struct got_start st = *(struct got_start *)p;

	free(p);
	/* its kernel mask is its creator's (the kept signals out of it); its
	 * view is its creator's too, as a new thread inherits the mask */
	agent_probe_trap_view_set(st.view);
	agent_probe_got_view(!!(st.view & (1ull << (SIGTRAP - 1))));
	if (agent_rr_dispatch_attach_thread(1) == -EAGAIN)
		agent_log("probe: a new thread blocks SIGSYS: it runs without syscall user "
			  "dispatch");
	return st.fn(st.arg);
}

int agent_probe_got_pthread_create(pthread_t *th, const pthread_attr_t *attr,
				   void *(*fn)(void *), void *arg)
{
	int (*real)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *) =
		agent_probe_got_real[AGENT_PROBE_GOT_PTHREAD_CREATE];
	struct got_start *st = malloc(sizeof(*st));
	int rc;

	if (!st)
		return real(th, attr, fn, arg); /* as before the attach */
	st->fn = fn;
	st->arg = arg;
	st->view = agent_probe_trap_view();
	rc = real(th, attr, got_thread_start, st);
	if (rc)
		free(st);
	return rc;
}

/* clone's twin: the creator's thread state is shared before the child can
 * run on it (agent_thread.c); the optional arguments are passed on as they
 * came, as glibc's own wrapper reads them whatever the flags. */
int agent_probe_got_clone(int (*fn)(void *), void *stack, int flags, void *arg, ...)
{
	int (*real)(int (*)(void *), void *, int, void *, ...) =
		agent_probe_got_real[AGENT_PROBE_GOT_CLONE];
	pid_t *ptid, *ctid;
	void *tls;
	va_list ap;

	va_start(ap, arg);
	ptid = va_arg(ap, pid_t *);
	tls = va_arg(ap, void *);
	ctid = va_arg(ap, pid_t *);
	va_end(ap);
	agent_thread_raw_clone((unsigned long)(unsigned)flags);
	return real(fn, stack, flags, arg, ptid, tls, ctid);
}
