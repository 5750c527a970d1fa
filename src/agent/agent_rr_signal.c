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
 * recomputed) unless it blocks that signal, or the blocked thread does when
 * it comes back with the token. In sync mode the same holds for a thread in pthread_join: any
 * thread takes the signal at its next recorded event. Thread-directed
 * signals (tgkill, raise, pthread_kill) wait for their thread.
 *
 * A new thread holds its signals until it is numbered
 * (agent_rr_starthold.c). Recording, on a thread still without a number
 * (one with a mask of its own, or one spool could not number), a
 * process-directed signal goes to agent_rr_sig_proc for a numbered thread
 * to deliver, recorded; a thread-directed one runs its handler at once, as
 * without spool, and is counted as lost (agent_rr_sig_unnumbered).
 *
 * pause() and sigsuspend() are input calls: recording, the thread gives the
 * run token up (serial mode) around the real wait, and the handlers of the
 * signals that ended it are delivered before its record; a replay delivers
 * the recorded handlers and returns -1/EINTR at once. SA_RESETHAND is
 * emulated when the handler is delivered.
 *
 * sigwait, sigwaitinfo and sigtimedwait (signals accepted without a
 * handler) are input calls too: recorded with the signal and the siginfo
 * the kernel gave, the token given up around the real wait; a replay
 * returns them at once. The real signals a replay does not take from the
 * kernel are made harmless (sig_quiet, sig_drain). A signalfd is read with
 * read (agent_rr_io.c); signalfd only quiets its mask in a replay. ppoll,
 * pselect and epoll_pwait with a mask wait like pause
 * (agent_rr_sig_wait_begin/end, called from agent_rr_io.c).
 *
 * Synchronous signals (faults: SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP,
 * SIGSYS) are never wrapped, and neither are SIG_DFL/SIG_IGN dispositions:
 * a signal that kills the program kills it as usual, and the replay of the
 * truncated recording ends where it died.
 */
/* AGENT_RR_CANCEL_PUSH is a setjmp (agent_rr.h) */
#pragma GCC diagnostic ignored "-Wclobbered"
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "../arch/arch_onstack.h"
#include "agent_probe.h"
#include "agent_rr.h"
#include "agent_serial.h"
#include "agent_rr_cpuid.h"
#include "agent_rr_dispatch.h"

ARCH_ONSTACK_DEFINE;

/* The masks below have the kernel's layout, bit sig - 1, so that SIGRTMAX
 * (64) has one: a program's own handler of it is recorded like any other
 * (it was left to run for real, unrecorded, when the masks had bit sig). */
__thread uint64_t agent_rr_sig_pending; /* bit sig - 1: arrived, handler not run yet */
uint64_t agent_rr_sig_proc;		/* the same, for any thread (serial: the token holder) */
__thread uint8_t agent_rr_sig_away;	/* in pthread_join (agent_rr.c) */

static struct sigaction sig_prog[NSIG]; /* the program's dispositions of wrapped signals */
static uint8_t sig_wrapped[NSIG];
static int (*sig_real)(int, const struct sigaction *, struct sigaction *);

/* <linux/signal.h>'s SS_AUTODISARM (glibc's headers lack it) */
#define SS_AUTODISARM_BIT (1u << 31)

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

/*
 * SA_ONSTACK, for a handler the agent runs itself (agent_rr_sig_run): the
 * kernel would have run it on the thread's alternate stack when one is set
 * and the thread is not on it already (sigaltstack says SS_ONSTACK when the
 * stack pointer is inside it, so a handler interrupted by a delivery point
 * runs the next one where it is); so does this, through
 * arch_onstack_call. As the kernel does: uc_stack holds the alternate
 * stack's settings, and SS_AUTODISARM disables it while the handler runs
 * (a handler that leaves with siglongjmp leaves it disabled, as the
 * kernel's sigreturn is not reached either). The stubs zero nothing while
 * the handler runs (agent_scrub.c): an alternate stack inside the thread's
 * own (a local array of main) has live frames below it that the zeroing
 * would reach; the recording and the replay run the handler alike, so
 * they see the same words. 0 when the handler ran, else -EAGAIN (run it
 * where the agent is).
 */
struct sig_onstack_arg {
	const struct sigaction *a;
	int sig;
	siginfo_t *si;
	ucontext_t *uc;
};

static void sig_onstack_tramp(void *p)
{
	struct sig_onstack_arg *o = p;

	sig_call(o->a, o->sig, o->si, o->uc);
}

static int sig_call_onstack(const struct sigaction *a, int sig, siginfo_t *si, ucontext_t *uc)
{
	struct sig_onstack_arg o = {a, sig, si, uc};
	uintptr_t top, lo, hi;
	stack_t ss, off;
	int disarm;

	if (!(a->sa_flags & SA_ONSTACK) || syscall(SYS_sigaltstack, NULL, &ss) != 0 ||
	    (ss.ss_flags & (SS_DISABLE | SS_ONSTACK)) || !ss.ss_sp || ss.ss_size < 1024)
		return -EAGAIN;
	top = ((uintptr_t)ss.ss_sp + ss.ss_size) & ~(uintptr_t)15;
	uc->uc_stack = ss;
	disarm = (ss.ss_flags & SS_AUTODISARM_BIT) != 0;
	if (disarm) {
		memset(&off, 0, sizeof(off));
		off.ss_flags = SS_DISABLE;
		syscall(SYS_sigaltstack, &off, NULL);
	}
	lo = agent_scrub_lo;
	hi = agent_scrub_hi;
	agent_scrub_lo = 0;
	agent_scrub_hi = 0;
	arch_onstack_call(sig_onstack_tramp, &o, top);
	agent_scrub_lo = lo;
	agent_scrub_hi = hi;
	if (disarm)
		syscall(SYS_sigaltstack, &ss, NULL);
	return 0;
}

static void sig_reset(int sig);
/* The thread waits in pause or sigsuspend: its signals are its own (it
 * comes back with the token and delivers them before the call returns). */
static __thread uint8_t sig_in_wait;

/* The kernel's entry point for every wrapped signal. */
static void sig_wrapper(int sig, siginfo_t *si, void *uc)
{
	uint64_t bit;

	if (sig <= 0 || sig >= NSIG || sig > 64)
		return;
	bit = 1ull << (sig - 1);
	if (agent_rr_mode && !agent_rr_sig_thread_ok() && (agent_rr_mode & RR_MODE_RECORD)) {
		/* A thread spool has not numbered (a new thread is held until
		 * it is: agent_rr_starthold.c). A signal sent to the process
		 * waits for a numbered thread, which records it at its next
		 * delivery point; one sent to this thread runs here, as without
		 * spool, and the recording says it lost it. */
		if (!(si && si->si_code == SI_TKILL)) {
			__atomic_fetch_or(&agent_rr_sig_proc, bit, __ATOMIC_SEQ_CST);
			return;
		}
		agent_rr_sig_unnumbered();
	}
	if (!agent_rr_mode || !agent_rr_sig_thread_ok()) {
		struct sigaction a = sig_prog[sig];

		if (a.sa_flags & SA_RESETHAND)
			sig_reset(sig);
		sig_call(&a, sig, si, uc); /* untracked thread: as without spool */
		return;
	}
	if (agent_rr_mode & RR_MODE_REPLAY)
		return; /* the recorded deliveries are made from the log */
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
	else
		agent_rr_block_signal(); /* sync: blocked in a wait, at once */
}

int agent_rr_sig_take(void)
{
	uint64_t m = __atomic_load_n(&agent_rr_sig_pending, __ATOMIC_RELAXED), blocked = 0;
	int sig;

	if (m) {
		sig = __builtin_ctzll(m) + 1;
		__atomic_fetch_and(&agent_rr_sig_pending, ~(1ull << (sig - 1)), __ATOMIC_RELAXED);
		return sig;
	}
	/* Several threads may take from the process's mask: the fetch-and
	 * says who got the bit. Not a signal this thread blocks (in its own
	 * view): the kernel gave it to a thread that does not, which delivers
	 * it when it comes back with the token (nginx's thread-pool threads
	 * block every signal and ran its SIGQUIT handler). The mask is read
	 * only when a process-directed signal waits: rare. */
	m = __atomic_load_n(&agent_rr_sig_proc, __ATOMIC_ACQUIRE);
	if (m) {
		uint64_t kmask = 0;

		if (syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &kmask, 8) < 0)
			kmask = 0;
		/* kernel bit sig - 1, as agent_rr_sig_proc's */
		blocked = kmask | agent_probe_trap_view();
	}
	while ((m = __atomic_load_n(&agent_rr_sig_proc, __ATOMIC_ACQUIRE) & ~blocked)) {
		sig = __builtin_ctzll(m) + 1;
		if (__atomic_fetch_and(&agent_rr_sig_proc, ~(1ull << (sig - 1)), __ATOMIC_ACQ_REL) &
		    (1ull << (sig - 1)))
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
	ucontext_t uc;

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
	/* A ucontext as the kernel's sigframe has one, not NULL: a handler
	 * that reads it (uc_sigmask: the mask it interrupted), and spool's
	 * own wrapper of a handler while int3 probes are in
	 * (agent_probe_samask_wrap), which writes it, found NULL (unbound
	 * replayed with --record-path died of SIGSEGV at its SIGTERM). What
	 * the handler leaves in uc_sigmask is the mask after it, as
	 * sigreturn would restore it. No registers: this is no interrupt. */
	memset(&uc, 0, sizeof(uc));
	uc.uc_sigmask = old;
	if (sig_call_onstack(&a, sig, &si, &uc))
		sig_call(&a, sig, &si, &uc);
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &uc.uc_sigmask, NULL, _NSIG / 8);
}

static int sig_resolve(void)
{
	if (!__atomic_load_n(&sig_real, __ATOMIC_ACQUIRE))
		__atomic_store_n(&sig_real, dlsym(RTLD_NEXT, "sigaction"), __ATOMIC_RELEASE);
	return sig_real ? 0 : -ENOSYS;
}

static int sig_action(int sig, const struct sigaction *act, struct sigaction *oact)
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
	if (sig == SIGSEGV && agent_rr_cpuid_sigsegv(act, oact))
		return 0; /* CPUID faulting keeps its handler (agent_rr_cpuid.c) */
	if (sig <= 0 || sig >= NSIG || sig > 64 || sig_sync(sig) ||
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

int agent_rr_sig_interrupts(void)
{
	uint64_t pend = __atomic_load_n(&agent_rr_sig_pending, __ATOMIC_RELAXED) |
			__atomic_load_n(&agent_rr_sig_proc, __ATOMIC_RELAXED);

	for (int sig = 1; sig <= 64 && sig < NSIG; sig++)
		if ((pend & (1ull << (sig - 1))) && sig_wrapped[sig] &&
		    !(sig_prog[sig].sa_flags & SA_RESTART))
			return 1;
	return 0;
}

/* The snapshot's record of sig (agent_rr.h): 1 when the agent wraps it
 * (k filled from the program's disposition), else 0 (k as it was: the
 * kernel's). Called in the snapshot's copy: reads only. */
int agent_rr_sig_snap(int sig, uint64_t k[4])
{
	const struct sigaction *a;

	if (sig <= 0 || sig >= NSIG || !sig_wrapped[sig] || k[0] != (uint64_t)(uintptr_t)sig_wrapper)
		return 0;
	a = &sig_prog[sig];
	k[0] = (a->sa_flags & SA_SIGINFO) ? (uint64_t)(uintptr_t)a->sa_sigaction
					  : (uint64_t)(uintptr_t)a->sa_handler;
	k[1] = (uint64_t)(uint32_t)a->sa_flags;
	k[2] = (uint64_t)(uintptr_t)sig_wrapper;
	memcpy(&k[3], &a->sa_mask, sizeof(k[3]));
	return 1;
}

/* A restore: a record agent_rr_sig_snap wrote (restorer = this build's
 * wrapper, handler elsewhere) is installed through the agent, which wraps
 * it again and keeps the program's handler. 1 when it was one, else 0. */
int agent_rr_sig_restore(int sig, const uint64_t k[4])
{
	struct sigaction a;

	if (k[2] != (uint64_t)(uintptr_t)sig_wrapper || k[0] == (uint64_t)(uintptr_t)sig_wrapper)
		return 0;
	memset(&a, 0, sizeof(a));
	a.sa_flags = (int)(uint32_t)k[1];
	if (a.sa_flags & SA_SIGINFO)
		a.sa_sigaction = (void (*)(int, siginfo_t *, void *))(uintptr_t)k[0];
	else
		a.sa_handler = (sighandler_t)(uintptr_t)k[0];
	memcpy(&a.sa_mask, &k[3], sizeof(k[3]));
	sig_action(sig, &a, NULL);
	return 1;
}

/* With int3 probes installed, a handler's sa_mask never blocks SIGTRAP for
 * real (a probe in the handler must trap), nor the fault signals with
 * custom handlers; the program reads back what it gave (agent_probe.c). */
AGENT_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *oact)
{
	struct sigaction buf;
	uint64_t had;
	int rc;

	if (sig == SIGTRAP || !agent_probe_trap_live())
		return sig_action(sig, act, oact);
	had = agent_probe_action_marks(sig);
	rc = sig_action(sig, agent_probe_action_in(sig, act, &buf), oact);
	if (!rc)
		agent_probe_action_out(sig, oact, had);
	return rc;
}

static sighandler_t sig_signal(int sig, sighandler_t h, int flags)
{
	return agent_probe_signal_as(sig, h, flags, sigaction);
}

AGENT_EXPORT sighandler_t signal(int sig, sighandler_t h)
{
	return sig_signal(sig, h, SA_RESTART);
}

/* The other spellings glibc exports, which reach its sigaction without
 * the PLT (so without the agent): bsd_signal is signal; __sysv_signal and
 * sysv_signal give System V's one-shot semantics. zstd's command line
 * installs its SIGSEGV handler with __sysv_signal: through libc it
 * replaced the agent's cpuid handler (agent_rr_cpuid.c) and zstd died of
 * the first cpuid it ran (tests/integ/94). */
AGENT_EXPORT sighandler_t bsd_signal(int sig, sighandler_t h)
{
	return sig_signal(sig, h, SA_RESTART);
}

AGENT_EXPORT sighandler_t __sysv_signal(int sig, sighandler_t h)
{
	return sig_signal(sig, h, SA_RESETHAND | SA_NODEFER);
}

AGENT_EXPORT sighandler_t sysv_signal(int sig, sighandler_t h)
{
	return sig_signal(sig, h, SA_RESETHAND | SA_NODEFER);
}

/* ---- pause, sigsuspend ---- */

static int (*sig_real_pause)(void);
static int (*sig_real_suspend)(const sigset_t *);
static int (*sig_real_timedwait)(const sigset_t *, siginfo_t *, const struct timespec *);
static int (*sig_real_signalfd)(int, const sigset_t *, int);
static int (*sig_real_kill)(pid_t, int);
static int (*sig_real_sigqueue)(pid_t, int, const union sigval);

__attribute__((constructor)) static void sig_resolve_waits(void)
{
	int saved;

	/* busy first: reading errno calls __errno_location, which a func:
	 * probe of libc may have patched (the agent's own call, not the
	 * program's) */
	agent_self.busy++;
	saved = errno;
	__atomic_store_n(&sig_real_pause, dlsym(RTLD_NEXT, "pause"), __ATOMIC_RELAXED);
	__atomic_store_n(&sig_real_suspend, dlsym(RTLD_NEXT, "sigsuspend"), __ATOMIC_RELAXED);
	AGENT_RESOLVE(sig_real_timedwait, "sigtimedwait");
	AGENT_RESOLVE(sig_real_signalfd, "signalfd");
	AGENT_RESOLVE(sig_real_kill, "kill");
	AGENT_RESOLVE(sig_real_sigqueue, "sigqueue");
	errno = saved;
	agent_self.busy--;
}

/* Record: a call that waits for signals (pause, sigsuspend, the sigwait
 * family, ppoll, pselect, epoll_pwait with a mask). 1 when a handler is due
 * now (it arrived since the thread's last delivery point): the call ends at
 * once with EINTR, as if the signal had arrived during it, and the handler
 * runs before the call's record. Otherwise the thread gives the run token
 * up (serial mode) until agent_rr_sig_wait_end, and the signals that land
 * on it meanwhile are its own to deliver. */
int agent_rr_sig_wait_begin(void)
{
	if (agent_rr_sig_any())
		return 1;
	if (agent_rr_mode & RR_MODE_SERIAL)
		agent_serial_block_begin(RR_AT_INPUT);
	sig_in_wait = 1;
	return 0;
}

/* The wait is over: take the token back (errno is kept). */
void agent_rr_sig_wait_end(void)
{
	int e = errno;

	sig_in_wait = 0;
	if (agent_rr_mode & RR_MODE_SERIAL)
		agent_serial_block_end();
	errno = e;
}

/* Record: the thread was cancelled in a wait for signals
 * (agent_rr_cancel.c): the wait is over, and recorded as cancelled. */
void agent_rr_sig_wait_cancelled(struct agent_rr_cancel_guard *g)
{
	agent_rr_sig_wait_end();
	if (g->t->state == AGENT_T_ON && !g->t->busy)
		agent_rr_rec_input(g->t, RR_CALL_CANCEL, (int)g->call, 0, 0, 0, NULL, 0);
}

/* The real wait (mask NULL: pause), through libc when it was found (a
 * cancellation point), else the system call. */
static int sig_wait_real(const sigset_t *mask)
{
	sigset_t buf;

	mask = agent_probe_mask_arg(mask, &buf); /* int3 probes: never SIGTRAP */
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
	if (!agent_rr_sig_wait_begin()) {
		struct agent_rr_cancel_guard g = {t, RR_CALL_SIGWAIT, 0, 0,
						  agent_rr_sig_wait_cancelled};

		AGENT_RR_CANCEL_PUSH(&g);
		r = sig_wait_real(mask);
		AGENT_RR_CANCEL_POP();
		e = errno;
		agent_rr_sig_wait_end();
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

/* ---- sigwait, sigwaitinfo, sigtimedwait, signalfd ---- */

static int sig_timedwait_real(const sigset_t *set, siginfo_t *info, const struct timespec *ts)
{
	if (sig_real_timedwait)
		return sig_real_timedwait(set, info, ts);
	return (int)syscall(SYS_rt_sigtimedwait, set, info, ts, _NSIG / 8);
}

/* Signals whose default action is to do nothing. */
static int sig_default_ignored(int sig)
{
	return sig == SIGCHLD || sig == SIGURG || sig == SIGWINCH || sig == SIGCONT;
}

/*
 * Replay: the signals a program accepts with sigwait or a signalfd are
 * not taken from the kernel (their waits and reads are replayed from the
 * log), so the real ones stay pending: one the program sends itself, one
 * sent from outside. Blocked, they do nothing; but a program that unblocks
 * one later would die of its default action. So, in a replay, each such
 * signal whose disposition is SIG_DFL (and whose default is not to ignore
 * it) gets the wrapper, which drops what reaches it; sigaction still shows
 * the program SIG_DFL. Once per signal (sig_quieted).
 */
static uint64_t sig_quieted;

static void sig_quiet(const sigset_t *set)
{
	uint64_t want = ((const uint64_t *)set)[0]; /* bit sig - 1, the kernel's layout */
	int sig;

	if (sig_resolve())
		return;
	for (sig = 1; sig <= 64; sig++) {
		struct sigaction cur, w;

		if (!(want & (1ull << (sig - 1))) ||
		    (__atomic_fetch_or(&sig_quieted, 1ull << (sig - 1), __ATOMIC_RELAXED) &
		     (1ull << (sig - 1))))
			continue;
		if (sig == SIGKILL || sig == SIGSTOP || sig_sync(sig) || sig_default_ignored(sig) ||
		    sig_wrapped[sig] || sig_real(sig, NULL, &cur) ||
		    (cur.sa_flags & SA_SIGINFO) || cur.sa_handler != SIG_DFL)
			continue;
		w = cur;
		w.sa_sigaction = sig_wrapper;
		w.sa_flags = SA_SIGINFO | SA_RESTART;
		sig_prog[sig] = cur;
		if (!sig_real(sig, &w, NULL))
			sig_wrapped[sig] = 1;
	}
}

/* Replay: take the real instance of a signal the replay just returned,
 * when it is pending (the program sent it itself, the same way as when
 * recorded), so nothing is left over. Never waits. */
static void sig_drain(int sig)
{
	uint64_t one = 1ull << (sig - 1);
	struct timespec zero = {0, 0};

	syscall(SYS_rt_sigtimedwait, &one, NULL, &zero, _NSIG / 8);
}

/*
 * The three calls that accept a signal without a handler, as one input
 * call (RR_CALL_SIGTIMEDWAIT): the result (the signal number, or -1), errno
 * and the siginfo the kernel filled in (all of it: si_code, si_pid,
 * si_value, ... as the program sees them). Recording, the thread waits for
 * real without the run token (serial mode); a handler due at the call ends
 * it with EINTR (agent_rr_sig_wait_begin). A replay returns the recorded
 * values at once, whatever signals it gets, then quiets and drains the real
 * ones (above).
 */
static int sig_timedwait(const sigset_t *set, siginfo_t *info, const struct timespec *ts)
{
	struct agent_thread *t;
	struct agent_rr_seg s;
	siginfo_t own;
	int r = -1, e = EINTR;

	if (!agent_rr_mode || !(t = agent_rr_io_enter()))
		return sig_timedwait_real(set, info, ts);
	s.p = info ? info : &own;
	s.n = sizeof(siginfo_t);
	if (agent_rr_mode & RR_MODE_REPLAY) {
		uint64_t sends = 0;

		r = (int)agent_rr_rep_input(t, RR_CALL_SIGTIMEDWAIT, -1, &s, 1, &sends);
		e = errno;
		if (r > 0)
			agent_rr_sig_wait_sends(r, (uint32_t)sends);
		if (set)
			sig_quiet(set);
		if (r > 0 && r <= 64)
			sig_drain(r);
		errno = e;
		return r;
	}
	if (!agent_rr_sig_wait_begin()) {
		struct agent_rr_cancel_guard g = {t, RR_CALL_SIGTIMEDWAIT, 0, 0,
						  agent_rr_sig_wait_cancelled};

		AGENT_RR_CANCEL_PUSH(&g);
		r = sig_timedwait_real(set, s.p, ts);
		AGENT_RR_CANCEL_POP();
		e = errno;
		agent_rr_sig_wait_end();
	}
	if (r <= 0)
		s.n = 0;
	/* arg: the sends of the signal so far (agent_rr_sig_wait_sends) */
	agent_rr_rec_input(t, RR_CALL_SIGTIMEDWAIT, -1, r, r < 0 ? e : 0,
			   r > 0 ? agent_rr_sig_sends(r) : 0, &s, 1);
	errno = e;
	return r;
}

AGENT_EXPORT int sigtimedwait(const sigset_t *set, siginfo_t *info, const struct timespec *ts)
{
	return sig_timedwait(set, info, ts);
}

AGENT_EXPORT int sigwaitinfo(const sigset_t *set, siginfo_t *info)
{
	return sig_timedwait(set, info, NULL);
}

/* glibc's sigwait calls its internal sigtimedwait, not ours: the same loop
 * here, each attempt an input call (an attempt a handler interrupted is
 * one). */
AGENT_EXPORT int sigwait(const sigset_t *set, int *sig)
{
	siginfo_t si;
	int r;

	do
		r = sig_timedwait(set, &si, NULL);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return errno;
	*sig = r;
	return 0;
}

/* Reads of a signalfd are reads (agent_rr_io.c): recorded with the
 * signalfd_siginfo they return, replayed from the log. Here only the replay
 * quiets the signals of the mask (sig_quiet). */
AGENT_EXPORT int signalfd(int fd, const sigset_t *mask, int flags)
{
	/* a new signalfd (fd -1) takes a turn of the descriptor table */
	uint32_t on = fd == -1 && agent_rr_mode ? agent_rr_fdtab_enter(RR_FD_SIGNALFD) : 0;
	int r, e;

	if (sig_real_signalfd)
		r = sig_real_signalfd(fd, mask, flags);
	else
		r = (int)syscall(SYS_signalfd4, fd, mask, _NSIG / 8, flags);
	if (on)
		r = agent_rr_fdtab_leave(r, NULL);
	if (r >= 0 && mask && (agent_rr_mode & RR_MODE_REPLAY)) {
		e = errno;
		sig_quiet(mask);
		errno = e;
	}
	return r;
}

/* ---- kill, sigqueue ---- */

/*
 * A replay's getpid returns the recorded pid, so a program that signals
 * itself with kill(getpid(), ...) would signal the recorded process's pid:
 * gone (ESRCH), or by now another process. While replaying, that pid means
 * this process (agent_rr_pid_recorded, noted by the replayed getpid).
 * raise, pthread_kill and pthread_sigqueue use the real ids: unchanged.
 */
pid_t agent_rr_pid_recorded;

static pid_t sig_pid(pid_t pid)
{
	pid_t rec;

	if (AGENT_LIKELY(!(agent_rr_mode & RR_MODE_REPLAY)) || pid <= 0)
		return pid;
	rec = __atomic_load_n(&agent_rr_pid_recorded, __ATOMIC_RELAXED);
	if (rec && pid == rec)
		return (pid_t)syscall(SYS_getpid);
	return pid;
}

/* ---- signals the program sends ---- */

/* Signals a replay still sends to its own process: those that stop,
 * continue or kill it whatever it does, the synchronous ones (never
 * wrapped: their handlers run when the kernel delivers them), and any
 * whose handler is not the agent's wrapper (installed with a raw
 * rt_sigaction, as Go's runtime does: the recording ran it as the kernel
 * delivered the signal, so must the replay). */
static int sig_send_for_real(int sig)
{
	struct {
		void *handler;
		unsigned long flags;
		void *restorer;
		uint64_t mask;
	} ka;

	if (sig > 0 && sig < 65 && syscall(SYS_rt_sigaction, sig, NULL, &ka, 8) == 0 &&
	    ka.handler != (void *)SIG_DFL && ka.handler != (void *)SIG_IGN &&
	    ka.handler != (void *)sig_wrapper)
		return 1;
	switch (sig) {
	case SIGKILL:
	case SIGSTOP:
	case SIGCONT:
	case SIGSEGV:
	case SIGBUS:
	case SIGFPE:
	case SIGILL:
	case SIGTRAP:
	case SIGSYS:
		return 1;
	}
	return 0;
}

/*
 * kill, sigqueue, tgkill, pthread_kill, pthread_sigqueue and raise are
 * recorded calls (RR_CALL_KILL: fd = the signal; the result and errno).
 * A replay of a recording that has them (RR_O_KILLS) sends nothing and
 * returns the recorded result: what a signal did to this process comes
 * from the recording (a handler at its recorded point, a wait returning
 * its recorded signal), and sending it again left it pending, to kill the
 * program once it had set it back to SIG_DFL (lbzip2: a worker's kill
 * ends main's sigsuspend, and main then resets its handlers); the result
 * of the send, which depends on the other thread's timing (pbzip2's
 * pthread_kill of its signal thread), is the recorded one too; and another
 * process must not be touched. Only sig_send_for_real's signals to this
 * process still go. An older recording (no RR_O_KILLS) gets the sends
 * made for real, with the recorded pid meaning this process (sig_pid).
 * Sync mode: a send is counted (agent_rr_sig_sent: a handler's delivery
 * and a sigwait wait for it) and is a write too (agent_rr_wake_write: a
 * read of a signalfd, or a poll that found it ready, waits for it).
 */
#define SIG_SEND(sig, self, call)                                                                  \
	do {                                                                                       \
		struct agent_thread *t_;                                                           \
		int r_, e_;                                                                        \
                                                                                                   \
		if (AGENT_LIKELY(!agent_rr_mode) ||                                                \
		    ((agent_rr_mode & RR_MODE_REPLAY) && !(agent_rr_opts() & RR_O_KILLS)) ||      \
		    !(t_ = agent_rr_io_enter()))                                                   \
			return (call);                                                             \
		agent_rr_sig_sent(sig);                                                            \
		agent_rr_wake_write(); /* a signalfd made ready (agent_rr.c, RR_CALL_WAKE) */      \
		if (agent_rr_mode & RR_MODE_REPLAY) {                                              \
			r_ = (int)agent_rr_rep_input(t_, RR_CALL_KILL, (sig), NULL, 0, NULL);      \
			e_ = errno;                                                                \
			if ((self) && sig_send_for_real(sig))                                      \
				(void)(call);                                                      \
			errno = e_;                                                                \
			return r_;                                                                 \
		}                                                                                  \
		r_ = (call);                                                                       \
		e_ = errno;                                                                        \
		agent_rr_rec_input(t_, RR_CALL_KILL, (sig), r_, r_ < 0 ? e_ : 0, 0, NULL, 0);     \
		errno = e_;                                                                        \
		return r_;                                                                         \
	} while (0)

static int sig_kill(pid_t pid, int sig)
{
	pid = sig_pid(pid);
	if (sig_real_kill)
		return sig_real_kill(pid, sig);
	return (int)syscall(SYS_kill, pid, sig);
}

static int sig_self_pid(pid_t pid)
{
	pid_t rec = __atomic_load_n(&agent_rr_pid_recorded, __ATOMIC_RELAXED);

	return pid == (pid_t)syscall(SYS_getpid) || (rec && pid == rec);
}

AGENT_EXPORT int kill(pid_t pid, int sig)
{
	/* A process group (pid <= 0) that holds this process: only this
	 * process gets a signal sent for real in a replay. */
	if ((agent_rr_mode & RR_MODE_REPLAY) && pid <= 0 && pid != -1)
		SIG_SEND(sig, 1, sig_kill((pid_t)syscall(SYS_getpid), sig));
	SIG_SEND(sig, sig_self_pid(pid), sig_kill(pid, sig));
}

static int sig_sigqueue(pid_t pid, int sig, const union sigval v)
{
	pid = sig_pid(pid);
	if (sig_real_sigqueue)
		return sig_real_sigqueue(pid, sig, v);
	{
		siginfo_t si;

		memset(&si, 0, sizeof(si));
		si.si_signo = sig;
		si.si_code = SI_QUEUE;
		si.si_pid = (pid_t)syscall(SYS_getpid);
		si.si_uid = (uid_t)syscall(SYS_getuid);
		si.si_value = v;
		return (int)syscall(SYS_rt_sigqueueinfo, pid, sig, &si);
	}
}

AGENT_EXPORT int sigqueue(pid_t pid, int sig, const union sigval v)
{
	SIG_SEND(sig, sig_self_pid(pid), sig_sigqueue(pid, sig, v));
}

static int (*sig_real_pthread_kill)(pthread_t, int);
static int (*sig_real_pthread_sigqueue)(pthread_t, int, const union sigval);
static int (*sig_real_raise)(int);
static int (*sig_real_tgkill)(pid_t, pid_t, int);

__attribute__((constructor)) static void sig_resolve_sends(void)
{
	int saved;

	/* busy first: reading errno calls __errno_location, which a func:
	 * probe of libc may have patched (the agent's own call, not the
	 * program's) */
	agent_self.busy++;
	saved = errno;
	AGENT_RESOLVE(sig_real_pthread_kill, "pthread_kill");
	AGENT_RESOLVE(sig_real_pthread_sigqueue, "pthread_sigqueue");
	AGENT_RESOLVE(sig_real_raise, "raise");
	AGENT_RESOLVE(sig_real_tgkill, "tgkill");
	errno = saved;
	agent_self.busy--;
}

static int sig_pthread_kill(pthread_t th, int sig)
{
	if (sig_real_pthread_kill)
		return sig_real_pthread_kill(th, sig);
	return th == pthread_self() ? (int)syscall(SYS_tgkill, syscall(SYS_getpid),
						   syscall(SYS_gettid), sig)
				    : ENOSYS;
}

AGENT_EXPORT int pthread_kill(pthread_t th, int sig)
{
	SIG_SEND(sig, 1, sig_pthread_kill(th, sig));
}

static int sig_pthread_sigqueue(pthread_t th, int sig, const union sigval v)
{
	return sig_real_pthread_sigqueue ? sig_real_pthread_sigqueue(th, sig, v) : ENOSYS;
}

AGENT_EXPORT int pthread_sigqueue(pthread_t th, int sig, const union sigval v)
{
	SIG_SEND(sig, 1, sig_pthread_sigqueue(th, sig, v));
}

static int sig_raise(int sig)
{
	if (sig_real_raise)
		return sig_real_raise(sig);
	return (int)syscall(SYS_tgkill, syscall(SYS_getpid), syscall(SYS_gettid), sig);
}

AGENT_EXPORT int raise(int sig)
{
	SIG_SEND(sig, 1, sig_raise(sig));
}

static int sig_tgkill(pid_t tgid, pid_t tid, int sig)
{
	/* Replay: the recorded ids (getpid, gettid) mean this run's. */
	tgid = sig_pid(tgid);
	tid = agent_rr_real_tid(tid);
	if (sig_real_tgkill)
		return sig_real_tgkill(tgid, tid, sig);
	return (int)syscall(SYS_tgkill, tgid, tid, sig);
}

AGENT_EXPORT int tgkill(pid_t tgid, pid_t tid, int sig)
{
	SIG_SEND(sig, sig_self_pid(tgid), sig_tgkill(tgid, tid, sig));
}
