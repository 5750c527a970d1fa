// SPDX-License-Identifier: MIT
/*
 * agent_sigview.c - the program's own signal mask while probes need a
 * signal (agent_sigview.h), one copy for both ports: x86-64's int3 probes
 * and syscall user dispatch (agent_probe.c, agent_rr_dispatch.c) and
 * aarch64's BRK probes (src/arch/aarch64/a64_agent_sig.c). Those "kept"
 * signals are never really blocked: a blocked synchronous SIGTRAP (an int3
 * or a BRK) kills the process, and so does a blocked fault in a custom
 * handler or a blocked SIGSYS under dispatch.
 *
 *   - sigprocmask, pthread_sigmask, syscall(SYS_rt_sigprocmask), and the
 *     masks sigsuspend, ppoll, pselect, epoll_pwait install and a
 *     sigaction's sa_mask go to the kernel without the kept signals; what
 *     the program asked for is kept per thread (its "view") and given back
 *     when it reads its mask; a new thread gets its creator's view
 *     (agent_thread.c). A kept signal sent to a thread whose view blocks
 *     it is held and sent again when the view unblocks it; the thread's own
 *     trap or fault then takes the default action, as the kernel would.
 *   - sigaction(SIGTRAP) once the trap handler is in: the program's new
 *     disposition is kept as the one a SIGTRAP that is not a probe's goes
 *     to, the previous one given back as the old action; ours stays.
 *   - a handler whose sa_mask holds a kept signal runs behind
 *     agent_probe_samask_wrap, which gives the handler's view that signal.
 *
 * What differs between the ports stays in theirs: how a signal is chained
 * (re-executing an int3 or a BRK), which handlers are wrapped (below).
 * Signal-safe where a handler runs it: no libc but raw system calls (no new
 * import: 20-agent-symbols.t), errno preserved.
 */
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "agent.h"
#include "agent_probe.h"
#include "agent_sigshim.h"
#include "agent_sigview.h"

/* The handler the kernel is given for a wrapped handler, and which
 * handlers are wrapped: x86-64 goes through its shim (attach mode detaches
 * while a thread may be inside) and wraps a handler whose sa_mask holds
 * SIGTRAP (its attach mode strips and restores those, agent_probe.c);
 * aarch64 installs the wrapper itself, for any kept signal. */
#if defined(__x86_64__)
#define AGENT_SIGVIEW_WRAP agent_sigshim_wrap
#define AGENT_SIGVIEW_WRAPS(sig, in) (((in)&AGENT_SIG_BIT(SIGTRAP)) && (sig) != SIGTRAP)
#else
#define AGENT_SIGVIEW_WRAP agent_probe_samask_wrap
#define AGENT_SIGVIEW_WRAPS(sig, in) 1
#endif

static uint64_t agent_sigview_kept_bits;
/* Per thread, among the kept signals: those the program blocked, and
 * those sent to it meanwhile (sent again when it unblocks them). */
static __thread uint64_t agent_sigview_vblocked;
static __thread uint64_t agent_sigview_held;
uint64_t agent_sigview_samask[64];
void *agent_sigview_prog_handler[64];
int agent_sigview_prog_flags[64];
/* The handler a sigaction call replaced (action_in to action_out). */
static __thread void *agent_sigview_prev_handler;
static __thread int agent_sigview_prev_flags;
/* The program's SIGTRAP disposition while ours is installed: two copies,
 * the current one published by pointer (the trap handler reads it without
 * a lock; a writer fills the other copy, then swaps). */
static struct sigaction agent_sigview_prog_trap[2];
static struct sigaction *agent_sigview_prog_trap_cur = &agent_sigview_prog_trap[0];
static int (*agent_sigview_real_sigmask)(int, const sigset_t *, sigset_t *);

/* Found before main (a lookup from an interposer could run in a signal
 * handler); until then, the system call. busy first: reading errno calls
 * __errno_location, which a func: probe of libc may have patched (the
 * agent's own call, not the program's). */
__attribute__((constructor)) static void agent_sigview_resolve(void)
{
	int saved;

	agent_self.busy++;
	saved = errno;
	AGENT_RESOLVE(agent_sigview_real_sigmask, "pthread_sigmask");
	errno = saved;
	agent_self.busy--;
}

uint64_t agent_sigview_kept(void)
{
	return __atomic_load_n(&agent_sigview_kept_bits, __ATOMIC_ACQUIRE);
}

void agent_sigview_keep(uint64_t bits)
{
	__atomic_fetch_or(&agent_sigview_kept_bits, bits, __ATOMIC_RELEASE);
}

void agent_sigview_unkeep(uint64_t bits)
{
	__atomic_fetch_and(&agent_sigview_kept_bits, ~bits, __ATOMIC_RELEASE);
}

void agent_sigview_release(void)
{
	uint64_t due = agent_sigview_held & ~agent_sigview_vblocked;

	if (!due)
		return;
	agent_sigview_held &= ~due;
	for (int sig = 1; sig <= 64; sig++)
		if (due & AGENT_SIG_BIT(sig))
			syscall(SYS_tgkill, syscall(SYS_getpid), syscall(SYS_gettid), sig);
}

int agent_sigview_blocked(int sig, siginfo_t *si, void *uc, agent_sigview_chain_fn chain)
{
	struct sigaction dfl;

	if (sig <= 0 || sig > 64 || !(agent_sigview_vblocked & AGENT_SIG_BIT(sig)))
		return 0;
	if (si->si_code <= 0) {
		agent_sigview_held |= AGENT_SIG_BIT(sig);
		return 1;
	}
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	chain(&dfl, sig, si, uc);
	return 1;
}

void agent_sigview_unblock_here(uint64_t bits)
{
	uint64_t t[_NSIG / 64] = {bits}, old[_NSIG / 64] = {0};

	if (!syscall(SYS_rt_sigprocmask, SIG_UNBLOCK, t, old, _NSIG / 8))
		agent_sigview_vblocked |= old[0] & bits;
}

/* ---- SIGTRAP ---- */

/* Replace the program's SIGTRAP disposition (the copy not being read). */
static void agent_sigview_prog_trap_set(const struct sigaction *act)
{
	struct sigaction *cur = __atomic_load_n(&agent_sigview_prog_trap_cur, __ATOMIC_ACQUIRE);
	struct sigaction *next = cur == &agent_sigview_prog_trap[0] ? &agent_sigview_prog_trap[1]
								    : &agent_sigview_prog_trap[0];

	*next = *act;
	__atomic_store_n(&agent_sigview_prog_trap_cur, next, __ATOMIC_RELEASE);
}

int agent_sigview_trap_install(const struct sigaction *sa,
			       int (*install)(int, const struct sigaction *, struct sigaction *))
{
	if (agent_sigview_kept() & AGENT_SIG_BIT(SIGTRAP))
		return 0;
	if (install(SIGTRAP, sa, &agent_sigview_prog_trap[0]))
		return -errno;
	__atomic_store_n(&agent_sigview_prog_trap_cur, &agent_sigview_prog_trap[0],
			 __ATOMIC_RELEASE);
	agent_sigview_keep(AGENT_SIG_BIT(SIGTRAP));
	agent_sigview_unblock_here(AGENT_SIG_BIT(SIGTRAP));
	return 0;
}

const struct sigaction *agent_sigview_prog_trap_get(void)
{
	return __atomic_load_n(&agent_sigview_prog_trap_cur, __ATOMIC_ACQUIRE);
}

void agent_sigview_trap_chain(siginfo_t *si, void *uc, agent_sigview_chain_fn chain)
{
	const struct sigaction *o =
	    __atomic_load_n(&agent_sigview_prog_trap_cur, __ATOMIC_ACQUIRE);
	struct sigaction a = *o;
	uint64_t m[_NSIG / 64], old[_NSIG / 64], blocked, kept = agent_sigview_kept();

	if (!(a.sa_flags & SA_SIGINFO) && (a.sa_handler == SIG_DFL || a.sa_handler == SIG_IGN)) {
		chain(&a, SIGTRAP, si, uc);
		return;
	}
	if (a.sa_flags & SA_RESETHAND) {
		struct sigaction dfl;

		memset(&dfl, 0, sizeof(dfl));
		dfl.sa_handler = SIG_DFL;
		agent_sigview_prog_trap_set(&dfl);
	}
	memcpy(m, &a.sa_mask, sizeof(m));
	/* The kept signals are blocked only in the program's view (a probe
	 * in its handler must still trap): one sent meanwhile is held. */
	blocked = agent_sigview_vblocked;
	agent_sigview_vblocked |= m[0] & kept;
	if (!(a.sa_flags & SA_NODEFER))
		agent_sigview_vblocked |= AGENT_SIG_BIT(SIGTRAP);
	m[0] &= ~kept;
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, m, old, _NSIG / 8);
	chain(&a, SIGTRAP, si, uc);
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, old, NULL, _NSIG / 8);
	agent_sigview_vblocked = blocked;
	agent_sigview_release();
}

/*
 * From the sigaction interposer, for SIGTRAP: once our handler is
 * installed, the program's new disposition is kept as the one traps that
 * are not ours go to, and the previous one is returned as the old action;
 * ours stays installed. Returns 1 when it took the call (the call then
 * succeeded), 0 to let the interposer go on as usual.
 */
int agent_probe_sigtrap(const struct sigaction *act, struct sigaction *oact)
{
	if (!(agent_sigview_kept() & AGENT_SIG_BIT(SIGTRAP)))
		return 0;
	if (oact)
		*oact = *__atomic_load_n(&agent_sigview_prog_trap_cur, __ATOMIC_ACQUIRE);
	if (act)
		agent_sigview_prog_trap_set(act);
	return 1;
}

/* ---- the mask calls ---- */

int agent_probe_trap_live(void)
{
	return agent_sigview_kept() != 0;
}

/* A mask for a call that installs it for a while (sigsuspend, ppoll, ...;
 * a handler's sa_mask): the kept signals removed. */
const sigset_t *agent_probe_mask_arg(const sigset_t *m, sigset_t *buf)
{
	uint64_t kept = agent_sigview_kept();

	if (!m || !(((const uint64_t *)m)[0] & kept))
		return m;
	*buf = *m;
	((uint64_t *)buf)[0] &= ~kept;
	return buf;
}

/* rt_sigprocmask; not raw: as glibc's pthread_sigmask, which never blocks
 * its two internal signals (SIGCANCEL, SIGSETXID: 32 and 33). */
static int agent_sigview_mask_sys(int how, const sigset_t *set, sigset_t *old, int raw)
{
	sigset_t s;

	if (set && !raw) {
		s = *set;
		((uint64_t *)&s)[0] &= ~(AGENT_SIG_BIT(32) | AGENT_SIG_BIT(33));
		set = &s;
	}
	return syscall(SYS_rt_sigprocmask, how, set, old, _NSIG / 8) ? errno : 0;
}

/* The view after how/set (want: the kept bits of set), then what it
 * changed: attach mode follows SIGTRAP's (agent_probe_got.c), held
 * signals it unblocks are sent. */
static void agent_sigview_set(int how, uint64_t want, uint64_t kept)
{
	if (how == SIG_SETMASK)
		agent_sigview_vblocked = (agent_sigview_vblocked & ~kept) | want;
	else if (how == SIG_BLOCK)
		agent_sigview_vblocked |= want;
	else
		agent_sigview_vblocked &= ~want;
	agent_probe_got_view(!!(agent_sigview_vblocked & AGENT_SIG_BIT(SIGTRAP)));
}

/*
 * The mask change itself (how, set, old as sigprocmask), the kept signals
 * out of the kernel's mask, the program's own view of them kept per
 * thread. raw: the call is the rt_sigprocmask system call (syscall()),
 * which does not filter glibc's internal signals; otherwise glibc's
 * pthread_sigmask. Returns 0 or an errno value (pthread_sigmask's
 * convention).
 */
int agent_probe_sigmask(int how, const sigset_t *set, sigset_t *old, int raw)
{
	uint64_t was = agent_sigview_vblocked, want, kept = agent_sigview_kept();
	sigset_t s;
	int rc;

	if (!kept) {
		if (raw || !agent_sigview_real_sigmask)
			return agent_sigview_mask_sys(how, set, old, raw);
		return agent_sigview_real_sigmask(how, set, old);
	}
	if (set && how != SIG_BLOCK && how != SIG_UNBLOCK && how != SIG_SETMASK)
		return EINVAL;
	want = set ? ((const uint64_t *)set)[0] & kept : 0;
	if (set) {
		s = *set;
		((uint64_t *)&s)[0] &= ~kept;
		set = &s;
	}
	if (raw || !agent_sigview_real_sigmask)
		rc = agent_sigview_mask_sys(how, set, old, raw);
	else
		rc = agent_sigview_real_sigmask(how, set, old);
	if (rc)
		return rc;
	if (old)
		((uint64_t *)old)[0] |= was & kept;
	if (set)
		agent_sigview_set(how, want, kept);
	agent_sigview_release();
	return 0;
}

int agent_probe_sigmask_in(int how, const sigset_t *set, sigset_t *old, uint64_t *mask)
{
	uint64_t was = agent_sigview_vblocked, kept = agent_sigview_kept(), s = 0, want = 0;

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
	agent_sigview_set(how, want, kept);
	agent_sigview_release();
	return 0;
}

/* ---- handlers whose sa_mask holds a kept signal ---- */

/*
 * A handler whose sa_mask held a kept signal runs behind this wrapper: the
 * kernel blocks its sa_mask without it (a probe in the handler must trap),
 * so without it the handler, reading its mask, saw the signal unblocked,
 * and the mask its ucontext says it interrupted lacked the kept signals
 * the program had blocked. For the handler's run the thread's view gets
 * the kept bits of its sa_mask; its uc_sigmask gets the kept signals the
 * program blocked (the sigframe as the kernel would have written it).
 * After it, what the handler left in uc_sigmask's kept bits is the view
 * sigreturn gives the program, and they leave the kernel's copy (they must
 * not be blocked for real). Signal-safe: no libc call; errno is the
 * handler's to keep.
 */
void agent_probe_samask_wrap(int sig, siginfo_t *si, void *ucv)
{
	/* (no ucontext: a handler called by hand, not by the kernel; the
	 * mask after it is then the one before) */
	uint64_t none = 0;
	uint64_t *ucm = ucv ? (uint64_t *)&((ucontext_t *)ucv)->uc_sigmask : &none;
	uint64_t saved = agent_sigview_vblocked, kept = agent_sigview_kept();
	void *h;
	int flags, e;

	if (sig <= 0 || sig >= 64)
		return;
	h = __atomic_load_n(&agent_sigview_prog_handler[sig], __ATOMIC_ACQUIRE);
	flags = __atomic_load_n(&agent_sigview_prog_flags[sig], __ATOMIC_RELAXED);
	if (!h || h == (void *)SIG_DFL || h == (void *)SIG_IGN)
		return;
	agent_sigview_vblocked |= __atomic_load_n(&agent_sigview_samask[sig], __ATOMIC_RELAXED) & kept;
	if (!(flags & SA_NODEFER))
		agent_sigview_vblocked |= AGENT_SIG_BIT(sig) & kept;
	*ucm |= saved & kept;
	if (flags & SA_SIGINFO)
		((void (*)(int, siginfo_t *, void *))h)(sig, si, ucv);
	else
		((void (*)(int))h)(sig);
	agent_sigview_vblocked = *ucm & kept;
	*ucm &= ~kept;
	e = errno;
	agent_sigview_release();
	errno = e;
}

static int agent_sigview_is_wrap(const struct sigaction *a)
{
	return (a->sa_flags & SA_SIGINFO) && a->sa_sigaction == AGENT_SIGVIEW_WRAP;
}

/* sigaction(sig, act, oact) while signals are kept: act's sa_mask without
 * them (a probe in the handler must trap, a custom handler's fault be
 * caught), and the handler behind agent_probe_samask_wrap; the program's
 * sa_mask and handler come back as it gave them. */
const struct sigaction *agent_probe_action_in(int sig, const struct sigaction *act,
					      struct sigaction *buf)
{
	uint64_t kept = agent_sigview_kept(), in;
	void *h;

	if (sig <= 0 || sig >= 64)
		return act;
	agent_sigview_prev_handler =
	    __atomic_load_n(&agent_sigview_prog_handler[sig], __ATOMIC_ACQUIRE);
	agent_sigview_prev_flags = __atomic_load_n(&agent_sigview_prog_flags[sig], __ATOMIC_RELAXED);
	if (!act || !kept)
		return act;
	in = ((const uint64_t *)&act->sa_mask)[0] & kept;
	__atomic_store_n(&agent_sigview_samask[sig], in, __ATOMIC_RELAXED);
	if (!in)
		return act;
	*buf = *act;
	((uint64_t *)&buf->sa_mask)[0] &= ~kept;
	h = act->sa_flags & SA_SIGINFO ? (void *)act->sa_sigaction : (void *)act->sa_handler;
	if (AGENT_SIGVIEW_WRAPS(sig, in) && h != (void *)SIG_DFL && h != (void *)SIG_IGN &&
	    !agent_sigview_is_wrap(act)) {
		__atomic_store_n(&agent_sigview_prog_flags[sig], act->sa_flags, __ATOMIC_RELAXED);
		__atomic_store_n(&agent_sigview_prog_handler[sig], h, __ATOMIC_RELEASE);
		buf->sa_sigaction = AGENT_SIGVIEW_WRAP;
		buf->sa_flags |= SA_SIGINFO;
	}
	return buf;
}

void agent_probe_action_out(int sig, struct sigaction *oact, uint64_t had)
{
	if (!oact || sig <= 0 || sig >= 64)
		return;
	((uint64_t *)&oact->sa_mask)[0] |= had;
	if (agent_sigview_is_wrap(oact) && agent_sigview_prev_handler) {
		oact->sa_flags = (oact->sa_flags & ~SA_SIGINFO) | (agent_sigview_prev_flags & SA_SIGINFO);
		if (agent_sigview_prev_flags & SA_SIGINFO)
			oact->sa_sigaction =
			    (void (*)(int, siginfo_t *, void *))agent_sigview_prev_handler;
		else
			oact->sa_handler = (void (*)(int))agent_sigview_prev_handler;
	}
}

uint64_t agent_probe_action_marks(int sig)
{
	return sig > 0 && sig < 64 ? __atomic_load_n(&agent_sigview_samask[sig], __ATOMIC_RELAXED)
				   : 0;
}

uint64_t agent_probe_trap_view(void)
{
	return agent_sigview_vblocked;
}

void agent_probe_trap_view_set(uint64_t blocked)
{
	agent_sigview_vblocked = blocked;
}

/* ---- the interposers ---- */

/* The program's view of the kept signals, the kernel without them. The
 * agent_probe_ names are their hidden twins, whose addresses x86-64's
 * attach mode puts in the modules' GOTs (agent_probe_got.c): in a
 * dlopen'ed agent a reference to the exported names binds to libc's. */
int agent_probe_pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	return agent_probe_sigmask(how, set, old, 0);
}

int agent_probe_sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	int rc = agent_probe_sigmask(how, set, old, 0);

	if (rc) {
		errno = rc;
		return -1;
	}
	return 0;
}

AGENT_EXPORT int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	return agent_probe_pthread_sigmask(how, set, old);
}

AGENT_EXPORT int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	return agent_probe_sigprocmask(how, set, old);
}
