// SPDX-License-Identifier: MIT
/*
 * agent_rr_signal.c - asynchronous signals under record/replay
 * (doc/record.md, "Signals").
 *
 * While recording or replaying, sigaction and signal install a wrapper in
 * place of the program's handler. Recording: the wrapper only marks the
 * signal pending (one atomic or: async-signal-safe, no lock, errno
 * untouched); the program's handler runs later, at a delivery point of the
 * thread (agent_rr.c: rr_sig_deliver), which first writes a KIND_SCHED
 * record with op RR_OP_SIGNAL. Delivery points: the thread's next recorded
 * event (sync and serial mode), and in serial mode any switch point (a
 * progress point, a lock call: the serial slow path, which the wrapper
 * forces by zeroing the thread's limit); there the record carries the
 * progress count, so a replay delivers at the same count. Replay: signals
 * from outside are dropped, and the recorded deliveries are made when the
 * thread's log (or, at a switch point, its progress count) reaches them.
 *
 * Serial mode: a process-directed signal that lands on a thread without
 * the run token (waiting for it, in pthread_join, in a blocking call other
 * than pause/sigsuspend) is
 * marked in the process-wide agent_rr_sig_proc; the token holder delivers
 * it at its next switch point (within SER_PUBLISH points, when its limit is
 * recomputed), or the blocked thread does when it comes back with the
 * token. In sync mode the same holds for a thread in pthread_join: any
 * thread takes the signal at its next recorded event. Thread-directed
 * signals (tgkill, raise, pthread_kill) wait for their thread.
 *
 * pause() and sigsuspend() are input calls: recording, the thread gives the
 * run token up (serial mode) around the real wait, and the handlers of the
 * signals that ended it are delivered before its record; a replay delivers
 * the recorded handlers and returns -1/EINTR at once. SA_RESETHAND is
 * emulated when the handler is delivered.
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
#include "agent_serial.h"
#include "agent_rr_dispatch.h"

__thread uint64_t agent_rr_sig_pending; /* bit sig: arrived, handler not run yet */
uint64_t agent_rr_sig_proc;		/* the same, for any thread (serial: the token holder) */
__thread uint8_t agent_rr_sig_away;	/* in pthread_join (agent_rr.c) */

static struct sigaction sig_prog[NSIG]; /* the program's dispositions of wrapped signals */
static uint8_t sig_wrapped[NSIG];
static int (*sig_real)(int, const struct sigaction *, struct sigaction *);

static int sig_sync(int sig)
{
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL ||
	       sig == SIGTRAP || sig == SIGSYS;
}

static void sig_call(const struct sigaction *a, int sig, siginfo_t *si, void *uc)
{
	if (a->sa_flags & SA_SIGINFO)
		a->sa_sigaction(sig, si, uc);
	else if (a->sa_handler != SIG_DFL && a->sa_handler != SIG_IGN)
		a->sa_handler(sig);
}

static void sig_reset(int sig);
/* The thread waits in pause or sigsuspend: its signals are its own (it
 * comes back with the token and delivers them before the call returns). */
static __thread uint8_t sig_in_wait;

/* The kernel's entry point for every wrapped signal. */
static void sig_wrapper(int sig, siginfo_t *si, void *uc)
{
	uint64_t bit;

	if (sig <= 0 || sig >= NSIG || sig >= 64)
		return;
	if (!agent_rr_mode || !agent_rr_sig_thread_ok()) {
		struct sigaction a = sig_prog[sig];

		if (a.sa_flags & SA_RESETHAND)
			sig_reset(sig);
		sig_call(&a, sig, si, uc); /* untracked thread: as without spool */
		return;
	}
	if (agent_rr_mode & RR_MODE_REPLAY)
		return; /* the recorded deliveries are made from the log */
	bit = 1ull << sig;
	if (!(si && si->si_code == SI_TKILL) &&
	    (agent_rr_sig_away || (agent_serial_on == RR_MODE_RECORD && !sig_in_wait &&
				   !agent_serial_holder()))) {
		/* Process-directed, on a thread that cannot run now (or, in
		 * sync mode, that records nothing until its join returns). */
		__atomic_fetch_or(&agent_rr_sig_proc, bit, __ATOMIC_SEQ_CST);
		return;
	}
	__atomic_fetch_or(&agent_rr_sig_pending, bit, __ATOMIC_RELAXED);
	/* Serial mode: the next switch point takes the slow path, which
	 * delivers. The slow path re-reads the pending mask after it stores a
	 * new limit (agent_rr_sig_limit), so this store cannot be lost. */
	if (agent_serial_on)
		agent_ser.limit = 0;
}

int agent_rr_sig_take(void)
{
	uint64_t m = __atomic_load_n(&agent_rr_sig_pending, __ATOMIC_RELAXED);
	int sig;

	if (m) {
		sig = __builtin_ctzll(m);
		__atomic_fetch_and(&agent_rr_sig_pending, ~(1ull << sig), __ATOMIC_RELAXED);
		return sig;
	}
	/* Several threads may take from the process's mask: the fetch-and
	 * says who got the bit. */
	while ((m = __atomic_load_n(&agent_rr_sig_proc, __ATOMIC_ACQUIRE))) {
		sig = __builtin_ctzll(m);
		if (__atomic_fetch_and(&agent_rr_sig_proc, ~(1ull << sig), __ATOMIC_ACQ_REL) &
		    (1ull << sig))
			return sig;
	}
	return 0;
}

/* Called last whenever the serial slow path sets the thread's limit. */
void agent_rr_sig_limit(void)
{
	if (agent_serial_on == RR_MODE_REPLAY) {
		if (agent_rr_sig_at < agent_ser.limit)
			agent_ser.limit = agent_rr_sig_at;
		return;
	}
	/* The limit is stored before the masks are read; the wrapper sets a
	 * bit before it zeroes the limit. */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (agent_rr_sig_any())
		agent_ser.limit = 0;
}

static int sig_resolve(void);

/* SA_RESETHAND: the disposition becomes SIG_DFL as the handler is entered.
 * Recording, for real (a second signal then has its default action, as
 * without spool); replaying, only as the program sees it (sigaction's old
 * action), while the wrapper stays to drop signals from outside. */
static void sig_reset(int sig)
{
	struct sigaction d;

	memset(&d, 0, sizeof(d));
	d.sa_handler = SIG_DFL;
	if (!(agent_rr_mode & RR_MODE_REPLAY) && !sig_resolve()) {
		sig_real(sig, &d, NULL);
		sig_wrapped[sig] = 0;
	}
	sig_prog[sig] = d;
}

void agent_rr_sig_run(int sig)
{
	struct sigaction a;
	siginfo_t si;
	sigset_t old;

	if (sig <= 0 || sig >= NSIG)
		return;
	a = sig_prog[sig];
	if (a.sa_flags & SA_RESETHAND)
		sig_reset(sig);
	memset(&si, 0, sizeof(si));
	si.si_signo = sig;
	si.si_code = SI_USER;
	/* The handler runs with its sa_mask and its own signal blocked, as
	 * the kernel would run it. */
	{
		sigset_t m = a.sa_mask;

		/* Raw system calls: no new libc import (20-agent-symbols.t). */
		if (!(a.sa_flags & SA_NODEFER))
			((unsigned long *)&m)[0] |= 1ul << (sig - 1);
		syscall(SYS_rt_sigprocmask, SIG_BLOCK, &m, &old, _NSIG / 8);
	}
	sig_call(&a, sig, &si, NULL);
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

/* ---- pause, sigsuspend ---- */

static int (*sig_real_pause)(void);
static int (*sig_real_suspend)(const sigset_t *);

__attribute__((constructor)) static void sig_resolve_waits(void)
{
	int saved = errno;

	agent_self.busy++;
	__atomic_store_n(&sig_real_pause, dlsym(RTLD_NEXT, "pause"), __ATOMIC_RELAXED);
	__atomic_store_n(&sig_real_suspend, dlsym(RTLD_NEXT, "sigsuspend"), __ATOMIC_RELAXED);
	agent_self.busy--;
	errno = saved;
}

/* The real wait (mask NULL: pause), through libc when it was found (a
 * cancellation point), else the system call. */
static int sig_wait_real(const sigset_t *mask)
{
	if (mask) {
		if (sig_real_suspend)
			return sig_real_suspend(mask);
		return (int)syscall(SYS_rt_sigsuspend, mask, _NSIG / 8);
	}
	if (sig_real_pause)
		return sig_real_pause();
	{
		sigset_t cur;

		syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &cur, _NSIG / 8);
		return (int)syscall(SYS_rt_sigsuspend, &cur, _NSIG / 8);
	}
}

/* Record: a signal whose handler is still due (it arrived since the
 * thread's last delivery point) ends the wait at once, as if it arrived
 * during it; otherwise the thread waits for real, without the run token in
 * serial mode. Either way the handlers run before the call's record. */
static int sig_wait(const sigset_t *mask)
{
	struct agent_thread *t;
	int r = -1, e = EINTR;

	if (!agent_rr_mode || !(t = agent_rr_io_enter()))
		return sig_wait_real(mask);
	if (agent_rr_mode & RR_MODE_REPLAY)
		return (int)agent_rr_rep_input(t, RR_CALL_SIGWAIT, -1, NULL, 0, NULL);
	if (!agent_rr_sig_any()) {
		if (agent_rr_mode & RR_MODE_SERIAL)
			agent_serial_block_begin(RR_AT_INPUT);
		sig_in_wait = 1;
		r = sig_wait_real(mask);
		e = errno;
		sig_in_wait = 0;
		if (agent_rr_mode & RR_MODE_SERIAL)
			agent_serial_block_end();
	}
	agent_rr_rec_input(t, RR_CALL_SIGWAIT, -1, r, r < 0 ? e : 0, 0, NULL, 0);
	errno = e;
	return r;
}

AGENT_EXPORT int pause(void)
{
	return sig_wait(NULL);
}

AGENT_EXPORT int sigsuspend(const sigset_t *mask)
{
	return sig_wait(mask);
}
