// SPDX-License-Identifier: MIT
/*
 * a64_agent_sig.c - the program's own signal calls while aarch64 probes
 * need a signal (the signal-mask half of agent_probe.h): SIGTRAP while BRK
 * probes are in (a64_agent_brk.c), SIGSEGV/SIGBUS/SIGFPE/SIGILL while
 * custom handlers run guarded (a64_agent_probe.c). Those "kept" signals are
 * never really blocked: a blocked synchronous SIGTRAP (a BRK) kills the
 * process, and so does a blocked fault in a handler.
 *
 *   - sigprocmask, pthread_sigmask, syscall(SYS_rt_sigprocmask), and the
 *     masks sigsuspend, ppoll, pselect, epoll_pwait install and a
 *     sigaction's sa_mask go to the kernel without the kept signals; what
 *     the program asked for is kept per thread (its "view") and given back
 *     when it reads its mask; a new thread gets its creator's view
 *     (agent_thread.c). A kept signal sent to a thread whose view blocks
 *     it is held and sent again when the view unblocks it; the thread's own
 *     BRK or fault then takes the default action, as the kernel would.
 *   - sigaction(SIGTRAP) once the BRK handler is in: the program's new
 *     disposition is kept as the one a SIGTRAP that is not a probe's goes
 *     to (run with its sa_mask, SA_RESETHAND and SA_NODEFER honoured), the
 *     previous one given back as the old action; ours stays installed.
 *   - a handler whose sa_mask holds a kept signal runs behind
 *     a64_sig_samask_wrap, which gives the handler's view that signal.
 *
 * The same rules as x86-64's int3 probes (agent_probe.c, not built here:
 * its traps, registers and shims are x86's); aarch64 has no attach mode,
 * so nothing here is undone at a detach, and no syscall user dispatch
 * (SIGSYS is never kept). Signal-safe where a handler runs it: no libc
 * but raw system calls, errno preserved.
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
#include "a64_agent_probe.h"

#define A64_SIG_BIT(sig) (1ull << ((sig)-1))
#define A64_SIG_FAULT_BITS                                                                         \
	(A64_SIG_BIT(SIGSEGV) | A64_SIG_BIT(SIGBUS) | A64_SIG_BIT(SIGFPE) | A64_SIG_BIT(SIGILL))

static int a64_sig_trap_on;  /* the BRK handler is installed */
static int a64_sig_fault_on; /* the custom handlers' fault handlers are */
/* The program's SIGTRAP disposition while ours is installed: two copies,
 * the current one published by pointer (the trap handler reads it without
 * a lock; a writer fills the other copy, then swaps). */
static struct sigaction a64_sig_prog_trap[2];
static struct sigaction *a64_sig_prog_trap_cur = &a64_sig_prog_trap[0];
static int (*a64_sig_real_action)(int, const struct sigaction *, struct sigaction *);
static int (*a64_sig_real_mask)(int, const sigset_t *, sigset_t *);
/* Per thread, among the kept signals: those the program blocked, and
 * those sent to it meanwhile (sent again when it unblocks them). */
static __thread uint64_t a64_sig_vblocked;
static __thread uint64_t a64_sig_held;
/* Per signal: the kept signals the program put in its handler's sa_mask;
 * the handler (and flags) a64_sig_samask_wrap runs. */
static uint64_t a64_sig_samask[64];
static void *a64_sig_prog_handler[64];
static int a64_sig_prog_flags[64];
/* The handler a sigaction call replaced (action_in to action_out). */
static __thread void *a64_sig_prev_handler;
static __thread int a64_sig_prev_flags;

/* Found before main (a lookup from an interposer could run in a signal
 * handler); until then, the system calls. busy first: reading errno calls
 * __errno_location, which a func: probe of libc may have patched. */
__attribute__((constructor)) static void a64_sig_resolve(void)
{
	int saved;

	agent_self.busy++;
	saved = errno;
	AGENT_RESOLVE(a64_sig_real_mask, "pthread_sigmask");
	AGENT_RESOLVE(a64_sig_real_action, "sigaction");
	errno = saved;
	agent_self.busy--;
}

static uint64_t a64_sig_kept(void)
{
	uint64_t k = 0;

	if (__atomic_load_n(&a64_sig_trap_on, __ATOMIC_ACQUIRE))
		k |= A64_SIG_BIT(SIGTRAP);
	if (__atomic_load_n(&a64_sig_fault_on, __ATOMIC_ACQUIRE))
		k |= A64_SIG_FAULT_BITS;
	return k;
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
		__atomic_store_n(&a64_sig_trap_on, 0, __ATOMIC_RELEASE);
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	syscall(SYS_rt_sigaction, sig, &dfl, NULL, _NSIG / 8);
	if (si->si_code <= 0)
		syscall(SYS_tgkill, agent.pid, syscall(SYS_gettid), sig);
}

/* Signals the thread no longer blocks in its own view: send those held
 * back meanwhile. */
static void a64_sig_release(void)
{
	uint64_t due = a64_sig_held & ~a64_sig_vblocked;

	if (!due)
		return;
	a64_sig_held &= ~due;
	for (int sig = 1; sig <= 64; sig++)
		if (due & A64_SIG_BIT(sig))
			syscall(SYS_tgkill, agent.pid, syscall(SYS_gettid), sig);
}

int a64_sig_blocked(int sig, siginfo_t *si, void *uc)
{
	struct sigaction dfl;

	if (sig <= 0 || sig > 64 || !(a64_sig_vblocked & A64_SIG_BIT(sig)))
		return 0;
	if (si->si_code <= 0) {
		a64_sig_held |= A64_SIG_BIT(sig);
		return 1;
	}
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	a64_sig_chain(&dfl, sig, si, uc);
	return 1;
}

/* Replace the program's SIGTRAP disposition (the copy not being read). */
static void a64_sig_prog_trap_set(const struct sigaction *act)
{
	struct sigaction *cur = __atomic_load_n(&a64_sig_prog_trap_cur, __ATOMIC_ACQUIRE);
	struct sigaction *next =
	    cur == &a64_sig_prog_trap[0] ? &a64_sig_prog_trap[1] : &a64_sig_prog_trap[0];

	*next = *act;
	__atomic_store_n(&a64_sig_prog_trap_cur, next, __ATOMIC_RELEASE);
}

void a64_sig_trap_other(siginfo_t *si, void *uc)
{
	const struct sigaction *o = __atomic_load_n(&a64_sig_prog_trap_cur, __ATOMIC_ACQUIRE);
	struct sigaction a = *o;
	uint64_t m[_NSIG / 64], old[_NSIG / 64], blocked, kept = a64_sig_kept();

	if (a64_sig_blocked(SIGTRAP, si, uc))
		return;
	if (!(a.sa_flags & SA_SIGINFO) && (a.sa_handler == SIG_DFL || a.sa_handler == SIG_IGN)) {
		a64_sig_chain(&a, SIGTRAP, si, uc);
		return;
	}
	if (a.sa_flags & SA_RESETHAND) {
		struct sigaction dfl;

		memset(&dfl, 0, sizeof(dfl));
		dfl.sa_handler = SIG_DFL;
		a64_sig_prog_trap_set(&dfl);
	}
	memcpy(m, &a.sa_mask, sizeof(m));
	/* The kept signals are blocked only in the program's view (a probe
	 * in its handler must still trap): one sent meanwhile is held. */
	blocked = a64_sig_vblocked;
	a64_sig_vblocked |= m[0] & kept;
	if (!(a.sa_flags & SA_NODEFER))
		a64_sig_vblocked |= A64_SIG_BIT(SIGTRAP);
	m[0] &= ~kept;
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, m, old, _NSIG / 8);
	a64_sig_chain(&a, SIGTRAP, si, uc);
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, old, NULL, _NSIG / 8);
	a64_sig_vblocked = blocked;
	a64_sig_release();
}

/* The calling thread may have been started with these signals blocked (a
 * parent that blocks everything before exec): unblock them for real, keep
 * them blocked in the program's view. */
static void a64_sig_unblock_here(uint64_t bits)
{
	uint64_t t[_NSIG / 64] = {bits}, old[_NSIG / 64] = {0};

	if (!syscall(SYS_rt_sigprocmask, SIG_UNBLOCK, t, old, _NSIG / 8))
		a64_sig_vblocked |= old[0] & bits;
}

int a64_sig_trap_install(void (*fn)(int, siginfo_t *, void *))
{
	struct sigaction sa;

	if (__atomic_load_n(&a64_sig_trap_on, __ATOMIC_ACQUIRE))
		return 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = fn;
	/* NODEFER: a BRK probe hit by what a handler calls traps too.
	 * ONSTACK: the program's alternate stack, if it has one. */
	sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_NODEFER | SA_ONSTACK;
	if (a64_sig_install(SIGTRAP, &sa, &a64_sig_prog_trap[0]))
		return -errno;
	__atomic_store_n(&a64_sig_prog_trap_cur, &a64_sig_prog_trap[0], __ATOMIC_RELEASE);
	__atomic_store_n(&a64_sig_trap_on, 1, __ATOMIC_RELEASE);
	a64_sig_unblock_here(A64_SIG_BIT(SIGTRAP));
	return 0;
}

void a64_sig_trap_uninstall(void (*fn)(int, siginfo_t *, void *))
{
	struct sigaction cur;

	if (!__atomic_load_n(&a64_sig_trap_on, __ATOMIC_ACQUIRE))
		return;
	/* only when it is still ours (attach mode: the program's sigaction
	 * is not interposed and may have replaced it) */
	if (a64_sig_install(SIGTRAP, NULL, &cur) == 0 && (cur.sa_flags & SA_SIGINFO) &&
	    cur.sa_sigaction == fn)
		a64_sig_install(SIGTRAP, __atomic_load_n(&a64_sig_prog_trap_cur, __ATOMIC_ACQUIRE),
				NULL);
	__atomic_store_n(&a64_sig_trap_on, 0, __ATOMIC_RELEASE);
}

void a64_sig_fault_keep(void)
{
	__atomic_store_n(&a64_sig_fault_on, 1, __ATOMIC_RELEASE);
	a64_sig_unblock_here(A64_SIG_FAULT_BITS);
}

int agent_probe_sigtrap(const struct sigaction *act, struct sigaction *oact)
{
	if (!__atomic_load_n(&a64_sig_trap_on, __ATOMIC_ACQUIRE))
		return 0; /* not handled: the program's sigaction goes through */
	if (oact)
		*oact = *__atomic_load_n(&a64_sig_prog_trap_cur, __ATOMIC_ACQUIRE);
	if (act)
		a64_sig_prog_trap_set(act);
	return 1;
}

int agent_probe_trap_live(void)
{
	return a64_sig_kept() != 0;
}

const sigset_t *agent_probe_mask_arg(const sigset_t *m, sigset_t *buf)
{
	uint64_t kept = a64_sig_kept();

	if (!m || !(((const uint64_t *)m)[0] & kept))
		return m;
	*buf = *m;
	((uint64_t *)buf)[0] &= ~kept;
	return buf;
}

/* rt_sigprocmask; not raw: as glibc's pthread_sigmask, which never blocks
 * its two internal signals (SIGCANCEL, SIGSETXID: 32 and 33). */
static int a64_sig_mask_sys(int how, const sigset_t *set, sigset_t *old, int raw)
{
	sigset_t s;

	if (set && !raw) {
		s = *set;
		((uint64_t *)&s)[0] &= ~(A64_SIG_BIT(32) | A64_SIG_BIT(33));
		set = &s;
	}
	return syscall(SYS_rt_sigprocmask, how, set, old, _NSIG / 8) ? errno : 0;
}

/* sigprocmask's work (0 or an errno value), the kept signals out of the
 * kernel's mask and in the thread's view; raw: the system call as
 * syscall() made it, else glibc's pthread_sigmask. */
int agent_probe_sigmask(int how, const sigset_t *set, sigset_t *old, int raw)
{
	uint64_t was = a64_sig_vblocked, want, kept = a64_sig_kept();
	sigset_t s;
	int rc;

	if (!kept) {
		if (raw || !a64_sig_real_mask)
			return a64_sig_mask_sys(how, set, old, raw);
		return a64_sig_real_mask(how, set, old);
	}
	if (set && how != SIG_BLOCK && how != SIG_UNBLOCK && how != SIG_SETMASK)
		return EINVAL;
	want = set ? ((const uint64_t *)set)[0] & kept : 0;
	if (set) {
		s = *set;
		((uint64_t *)&s)[0] &= ~kept;
		set = &s;
	}
	if (raw || !a64_sig_real_mask)
		rc = a64_sig_mask_sys(how, set, old, raw);
	else
		rc = a64_sig_real_mask(how, set, old);
	if (rc)
		return rc;
	if (old)
		((uint64_t *)old)[0] |= was & kept;
	if (set) {
		if (how == SIG_SETMASK)
			a64_sig_vblocked = (a64_sig_vblocked & ~kept) | want;
		else if (how == SIG_BLOCK)
			a64_sig_vblocked |= want;
		else
			a64_sig_vblocked &= ~want;
	}
	a64_sig_release();
	return 0;
}

/* The change made to *mask, a SIGSYS handler's return mask (syscall user
 * dispatch: x86-64 only, so not reached here; kept exact all the same). */
int agent_probe_sigmask_in(int how, const sigset_t *set, sigset_t *old, uint64_t *mask)
{
	uint64_t was = a64_sig_vblocked, kept = a64_sig_kept(), s = 0, want = 0;

	if (set) {
		if (how != SIG_BLOCK && how != SIG_UNBLOCK && how != SIG_SETMASK)
			return EINVAL;
		s = ((const uint64_t *)set)[0]; /* before old is written: they may alias */
		want = s & kept;
		s &= ~kept;
	}
	if (old)
		((uint64_t *)old)[0] = *mask | (was & kept);
	if (!set)
		return 0;
	if (how == SIG_BLOCK)
		*mask |= s;
	else if (how == SIG_UNBLOCK)
		*mask &= ~s;
	else
		*mask = s;
	if (how == SIG_SETMASK)
		a64_sig_vblocked = (a64_sig_vblocked & ~kept) | want;
	else if (how == SIG_BLOCK)
		a64_sig_vblocked |= want;
	else
		a64_sig_vblocked &= ~want;
	a64_sig_release();
	return 0;
}

/*
 * A handler whose sa_mask held a kept signal runs behind this wrapper: the
 * kernel blocks its sa_mask without it, so for the handler's run the
 * thread's view gets the kept bits of its sa_mask, and its uc_sigmask the
 * kept signals the program blocked (the frame as the kernel would have
 * written it). After it, uc_sigmask's kept bits are the view sigreturn
 * gives the program, and they leave the kernel's copy. Signal-safe.
 */
static void a64_sig_samask_wrap(int sig, siginfo_t *si, void *ucv)
{
	/* (no ucontext: a handler called by hand, not by the kernel; the
	 * mask after it is then the one before) */
	uint64_t none = 0;
	uint64_t *ucm = ucv ? (uint64_t *)&((ucontext_t *)ucv)->uc_sigmask : &none;
	uint64_t saved = a64_sig_vblocked, kept = a64_sig_kept();
	void *h;
	int flags, e;

	if (sig <= 0 || sig >= 64)
		return;
	h = __atomic_load_n(&a64_sig_prog_handler[sig], __ATOMIC_ACQUIRE);
	flags = __atomic_load_n(&a64_sig_prog_flags[sig], __ATOMIC_RELAXED);
	if (!h || h == (void *)SIG_DFL || h == (void *)SIG_IGN)
		return;
	a64_sig_vblocked |= __atomic_load_n(&a64_sig_samask[sig], __ATOMIC_RELAXED) & kept;
	if (!(flags & SA_NODEFER))
		a64_sig_vblocked |= A64_SIG_BIT(sig) & kept;
	*ucm |= saved & kept;
	if (flags & SA_SIGINFO)
		((void (*)(int, siginfo_t *, void *))h)(sig, si, ucv);
	else
		((void (*)(int))h)(sig);
	a64_sig_vblocked = *ucm & kept;
	*ucm &= ~kept;
	e = errno;
	a64_sig_release();
	errno = e;
}

static int a64_sig_is_wrap(const struct sigaction *a)
{
	return (a->sa_flags & SA_SIGINFO) && a->sa_sigaction == a64_sig_samask_wrap;
}

const struct sigaction *agent_probe_action_in(int sig, const struct sigaction *act,
					      struct sigaction *buf)
{
	uint64_t kept = a64_sig_kept(), in;
	void *h;

	if (sig <= 0 || sig >= 64)
		return act;
	a64_sig_prev_handler = __atomic_load_n(&a64_sig_prog_handler[sig], __ATOMIC_ACQUIRE);
	a64_sig_prev_flags = __atomic_load_n(&a64_sig_prog_flags[sig], __ATOMIC_RELAXED);
	if (!act || !kept)
		return act;
	in = ((const uint64_t *)&act->sa_mask)[0] & kept;
	__atomic_store_n(&a64_sig_samask[sig], in, __ATOMIC_RELAXED);
	if (!in)
		return act;
	*buf = *act;
	((uint64_t *)&buf->sa_mask)[0] &= ~kept;
	h = act->sa_flags & SA_SIGINFO ? (void *)act->sa_sigaction : (void *)act->sa_handler;
	if (h != (void *)SIG_DFL && h != (void *)SIG_IGN && !a64_sig_is_wrap(act)) {
		__atomic_store_n(&a64_sig_prog_flags[sig], act->sa_flags, __ATOMIC_RELAXED);
		__atomic_store_n(&a64_sig_prog_handler[sig], h, __ATOMIC_RELEASE);
		buf->sa_sigaction = a64_sig_samask_wrap;
		buf->sa_flags |= SA_SIGINFO;
	}
	return buf;
}

void agent_probe_action_out(int sig, struct sigaction *oact, uint64_t had)
{
	if (!oact || sig <= 0 || sig >= 64)
		return;
	((uint64_t *)&oact->sa_mask)[0] |= had;
	if (a64_sig_is_wrap(oact) && a64_sig_prev_handler) {
		oact->sa_flags = (oact->sa_flags & ~SA_SIGINFO) | (a64_sig_prev_flags & SA_SIGINFO);
		if (a64_sig_prev_flags & SA_SIGINFO)
			oact->sa_sigaction =
			    (void (*)(int, siginfo_t *, void *))a64_sig_prev_handler;
		else
			oact->sa_handler = (void (*)(int))a64_sig_prev_handler;
	}
}

uint64_t agent_probe_action_marks(int sig)
{
	return sig > 0 && sig < 64 ? __atomic_load_n(&a64_sig_samask[sig], __ATOMIC_RELAXED) : 0;
}

uint64_t agent_probe_trap_view(void)
{
	return a64_sig_vblocked;
}

void agent_probe_trap_view_set(uint64_t blocked)
{
	a64_sig_vblocked = blocked;
}

/* Syscall user dispatch is x86-64 only (agent_rr_dispatch.c): SIGSYS is
 * never kept here. */
void agent_probe_keep_sigsys(void) {}

int agent_probe_sigsys_blocked(siginfo_t *si, void *uc)
{
	return 0;
}

/* The interposers: the program's view of the kept signals, the kernel
 * without them. */
AGENT_EXPORT int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	return agent_probe_sigmask(how, set, old, 0);
}

AGENT_EXPORT int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	int rc = agent_probe_sigmask(how, set, old, 0);

	if (rc) {
		errno = rc;
		return -1;
	}
	return 0;
}
