// SPDX-License-Identifier: MIT
/*
 * agent_rr_dispatch.c - the system calls a program makes with its own
 * `syscall` instruction, not through libc (inline assembly, Go and other
 * runtimes that make their own calls), recorded and replayed like the named
 * calls: Linux syscall user dispatch (prctl PR_SET_SYSCALL_USER_DISPATCH,
 * kernel 5.11 and later).
 *
 * While recording or replaying (set up by the constructor right after
 * agent_rr_init), every thread the agent starts turns
 * dispatch on with libc's text as the allowed range and its own selector
 * byte (agent_sud_sel, initial-exec TLS) set to BLOCK: a system call made
 * from anywhere else raises SIGSYS before it runs (the kernel rolls rax back
 * to the call's number). The handler sets the selector to ALLOW for its own
 * calls, then:
 *  - a call of the program's code (not the agent's, ld.so's or the vDSO's)
 *    that the agent records (read, getrandom, clock_gettime, ... the list
 *    of agent_rr_syscall.c) goes to the agent's interposer of the named
 *    call, so it is recorded and replayed like it; it is counted for spool
 *    record's summary (rr_area.raw_*);
 *  - any other call is made by the handler with the same registers;
 *  - rt_sigreturn (a runtime's own signal restorer) cannot run from a
 *    handler: the handler returns to libc's restorer, whose identical call
 *    is in the allowed range, with the program's stack pointer unchanged;
 *  - fork (and clone with only SIGCHLD) goes through libc's fork(), so the
 *    agent's fork handlers detach the child as for a named fork;
 *  - clone, clone3, vfork, execve and execveat with their own stack or
 *    memory cannot run in the handler either: the handler returns to a
 *    trampoline of the agent that makes the call with the program's
 *    registers (selector ALLOW), then, in the calling thread, sets the
 *    selector back to BLOCK and jumps to the instruction after the
 *    program's `syscall`. A child (rax 0) only jumps: it may run on another
 *    stack and with another TLS, and the kernel does not give it dispatch.
 *    The return address is read from a slot kept per call site
 *    (agent_sud_slot), so parent and child need no register for it and a
 *    slot never changes once written (no race with a late child);
 *  - sigaltstack cannot run in the handler (its return puts the frame's
 *    alternate stack back; on that stack the kernel refuses a change):
 *    the same trampoline way, a second block that always sets the
 *    selector back;
 *  - exit and exit_group are made by the handler.
 * The agent keeps its SIGSYS handler: the program's sigaction, signal or
 * own rt_sigaction of SIGSYS is kept as the program's disposition, which a
 * SIGSYS that is not dispatch's (seccomp, kill) gets.
 * Dispatch is per thread and is not inherited by threads, fork children or
 * exec'd images (checked on this kernel); fork children are not recorded
 * (agent_rr.c), so they run without it.
 *
 * Signal safety: the handler calls only the agent's interposers (which is
 * what the program's call would have done at that point: the signal is
 * synchronous, raised at the program's own instruction), raw system calls,
 * and atomics. errno is saved and restored.
 */
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "agent_probe.h"
#include "agent_rawsys.h"
#include "agent_rr.h"
#include "agent_rr_cpuid.h"
#include "agent_rr_dispatch.h"
#include "agent_sigshim.h"
#include "agent_sigview.h"

#ifndef PR_SET_SYSCALL_USER_DISPATCH
#define PR_SET_SYSCALL_USER_DISPATCH 59
#endif
#ifndef PR_SYS_DISPATCH_ON
#define PR_SYS_DISPATCH_OFF 0
#define PR_SYS_DISPATCH_ON 1
#endif
#ifndef SYSCALL_DISPATCH_FILTER_ALLOW
#define SYSCALL_DISPATCH_FILTER_ALLOW 0
#define SYSCALL_DISPATCH_FILTER_BLOCK 1
#endif
#define SUD_SI_CODE 2 /* SYS_USER_DISPATCH */
#define SUD_TRAMP_SLOTS 32
#define SUD_TRAMP_SIZE 32

#if defined(__x86_64__)

/* Read by the kernel at each system call of a thread with dispatch on. */
__attribute__((visibility("hidden"), tls_model("initial-exec"))) __thread volatile unsigned char
	agent_sud_sel;
/* Per call site: the address after the program's `syscall` instruction. */
__attribute__((visibility("hidden"))) uintptr_t agent_sud_slot[SUD_TRAMP_SLOTS];
extern const char agent_sud_tramp[] __attribute__((visibility("hidden")));

/*
 * Trampoline k (32 bytes each): the call with the program's registers;
 * rcx and r11 are the two registers `syscall` destroys anyway, and the
 * flags are not preserved across an asm statement either. The parent side
 * (rax != 0: a pid, an error, a failed exec) sets its selector back to
 * BLOCK; both sides continue after the program's instruction.
 */
__asm__(".pushsection .text\n"
	".balign 32\n"
	".globl agent_sud_tramp\n"
	".hidden agent_sud_tramp\n"
	".type agent_sud_tramp, @function\n"
	"agent_sud_tramp:\n"
	".irp k,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,"
	"28,29,30,31\n"
	".balign 32\n"
	"syscall\n"
	"test %rax, %rax\n"
	"jz 1f\n"
	"movq agent_sud_sel@gottpoff(%rip), %r11\n"
	"movb $1, %fs:(%r11)\n"
	"1: jmp *agent_sud_slot+8*\\k(%rip)\n"
	".endr\n"
	".size agent_sud_tramp, .-agent_sud_tramp\n"
	".popsection\n");

/*
 * Trampoline k of the second block: the same call, then the selector back
 * to BLOCK whatever it returned (sigaltstack, 0 on success, has no child
 * to tell apart), then on after the program's instruction.
 */
extern const char agent_sud_tramp_ret[] __attribute__((visibility("hidden")));
__asm__(".pushsection .text\n"
	".balign 32\n"
	".globl agent_sud_tramp_ret\n"
	".hidden agent_sud_tramp_ret\n"
	".type agent_sud_tramp_ret, @function\n"
	"agent_sud_tramp_ret:\n"
	".irp k,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,"
	"28,29,30,31\n"
	".balign 32\n"
	"syscall\n"
	"movq agent_sud_sel@gottpoff(%rip), %r11\n"
	"movb $1, %fs:(%r11)\n"
	"jmp *agent_sud_slot+8*\\k(%rip)\n"
	".endr\n"
	".size agent_sud_tramp_ret, .-agent_sud_tramp_ret\n"
	".popsection\n");

_Static_assert(SYSCALL_DISPATCH_FILTER_BLOCK == 1, "the trampoline stores 1");

static struct rr_area *sud_area; /* NULL: turned on for int3 probes only */
static int sud_on;
static int sud_probes; /* on for spool probe (agent_rr_dispatch_probes) */
static int sud_attach_failed; /* spool probe -p: int3 probes in, dispatch refused */
static uintptr_t sud_lo, sud_len;		/* libc's text: the allowed range */
static uintptr_t sud_ld_lo, sud_ld_hi;		/* ld.so's text */
static uintptr_t sud_vdso_lo, sud_vdso_hi;	/* the vDSO */
static uintptr_t sud_restorer;			/* libc's __restore_rt */
static struct sigaction sud_old;		/* the program's SIGSYS (seccomp, kill) */

/* The kernel's struct sigaction on x86-64 (rt_sigaction). */
struct sud_ksa {
	void *handler;
	unsigned long flags;
	void *restorer;
	uint64_t mask;
};

static long sud_raw(long n, const long *a)
{
	return agent_rawsys(n, a[0], a[1], a[2], a[3], a[4], a[5]);
}

/* rt_sigprocmask(how, set, old) made on mask, the one the handler's
 * return installs (the kernel never blocks SIGKILL and SIGSTOP: its
 * sigreturn drops them). 0 or -errno. */
static long sud_sigmask_frame(int how, const uint64_t *set, uint64_t *old, uint64_t *mask)
{
	uint64_t s = 0, o = *mask;

	if (set) {
		if (how != SIG_BLOCK && how != SIG_UNBLOCK && how != SIG_SETMASK)
			return -EINVAL;
		s = *set; /* before old is written: they may alias */
	}
	if (old)
		*old = o;
	if (!set)
		return 0;
	if (how == SIG_BLOCK)
		o |= s;
	else if (how == SIG_UNBLOCK)
		o &= ~s;
	else
		o = s;
	*mask = o & ~((1ull << (SIGKILL - 1)) | (1ull << (SIGSTOP - 1)));
	return 0;
}

/* A call from the program's own code (or another library's), as opposed to
 * the agent's, ld.so's (dlopen maps libraries with its own calls) or the
 * vDSO's fallback (reached from libc's clock_gettime, maybe from the
 * agent's interposer: routing it would record the clock twice). */
static int sud_is_program(uintptr_t ip)
{
	if (agent_own_text((const void *)ip))
		return 0;
	if (ip >= sud_ld_lo && ip < sud_ld_hi)
		return 0;
	if (ip >= sud_vdso_lo && ip < sud_vdso_hi)
		return 0;
	return 1;
}

static void sud_count(long nr)
{
	struct rr_area *a = sud_area;
	uint32_t v = (uint32_t)nr + 1;
	int i;

	if (!(agent_rr_mode & RR_MODE_RECORD))
		return;
	__atomic_fetch_add(&a->raw, 1, __ATOMIC_RELAXED);
	for (i = 0; i < RR_RAW_SLOTS; i++) {
		uint32_t cur = __atomic_load_n(&a->raw_nr[i], __ATOMIC_ACQUIRE);

		if (!cur && !__atomic_compare_exchange_n(&a->raw_nr[i], &cur, v, 0,
							 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE) &&
		    cur != v)
			continue;
		if (cur && cur != v)
			continue;
		__atomic_fetch_add(&a->raw_count[i], 1, __ATOMIC_RELAXED);
		return;
	}
	__atomic_fetch_add(&a->raw_other, 1, __ATOMIC_RELAXED);
}

/* The trampoline for the call site ip (-1: all slots taken). */
static int sud_slot(uintptr_t ip)
{
	for (int i = 0; i < SUD_TRAMP_SLOTS; i++) {
		uintptr_t cur = __atomic_load_n(&agent_sud_slot[i], __ATOMIC_ACQUIRE);

		if (cur == ip)
			return i;
		if (!cur && __atomic_compare_exchange_n(&agent_sud_slot[i], &cur, ip, 0,
							__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			return i;
		if (cur == ip)
			return i;
	}
	return -1;
}

/* A SIGSYS that is not dispatch's (seccomp, kill -SYS): what the program
 * had before us, the default (a core dump) if nothing. */
static void sud_foreign(int sig, siginfo_t *si, void *ctx)
{
	/* The kernel never blocks SIGSYS while dispatch is on: one the
	 * program blocked is held until it unblocks it. */
	if (agent_probe_sigsys_blocked(si, ctx))
		return;
	if (sud_old.sa_flags & SA_SIGINFO) {
		if (sud_old.sa_sigaction)
			sud_old.sa_sigaction(sig, si, ctx);
		return;
	}
	if (sud_old.sa_handler == SIG_IGN)
		return;
	if (sud_old.sa_handler != SIG_DFL) {
		sud_old.sa_handler(sig);
		return;
	}
	{
		struct sud_ksa dfl = {SIG_DFL, 0, NULL, 0};

		syscall(SYS_rt_sigaction, SIGSYS, &dfl, NULL, 8);
	}
	raise(SIGSYS); /* pending until the handler returns, then the default */
}

/* The program's own rt_sigaction of SIGSYS: kept as its disposition for
 * sud_foreign, the kernel keeps ours. */
static long sud_rt_sigaction(const long *a)
{
	const struct sud_ksa *nk = (const struct sud_ksa *)a[1];
	struct sud_ksa *ok = (struct sud_ksa *)a[2];

	if (ok) {
		ok->handler = (void *)sud_old.sa_handler;
		ok->flags = (unsigned long)sud_old.sa_flags;
		ok->restorer = (void *)sud_old.sa_restorer;
		memcpy(&ok->mask, &sud_old.sa_mask, sizeof(ok->mask));
	}
	if (nk) {
		memset(&sud_old, 0, sizeof(sud_old));
		sud_old.sa_handler = (void (*)(int))nk->handler;
		sud_old.sa_flags = (int)nk->flags;
		memcpy(&sud_old.sa_mask, &nk->mask, sizeof(nk->mask));
	}
	return 0;
}

/* The program's own rt_sigaction of SIGSEGV while CPUID faulting keeps
 * its handler (agent_rr_cpuid.c): kept as the program's disposition. 1
 * when it was, 0 when the call is to be made. */
static int sud_rt_sigsegv(const long *a)
{
	const struct sud_ksa *nk = (const struct sud_ksa *)a[1];
	struct sud_ksa *ok = (struct sud_ksa *)a[2];
	struct sigaction n, o;

	memset(&n, 0, sizeof(n));
	if (nk) {
		n.sa_handler = (void (*)(int))nk->handler;
		n.sa_flags = (int)nk->flags;
		memcpy(&n.sa_mask, &nk->mask, sizeof(nk->mask));
	}
	if (!agent_rr_cpuid_sigsegv(nk ? &n : NULL, &o))
		return 0;
	if (ok) {
		ok->handler = (void *)o.sa_handler;
		ok->flags = (unsigned long)o.sa_flags;
		ok->restorer = (void *)o.sa_restorer;
		memcpy(&ok->mask, &o.sa_mask, sizeof(ok->mask));
	}
	return 1;
}

int agent_rr_dispatch_sigsys(const struct sigaction *act, struct sigaction *oact)
{
	if (!sud_on)
		return 0;
	if (oact)
		*oact = sud_old;
	if (act)
		sud_old = *act;
	return 1;
}

/* The program's own fork (SYS_fork, or SYS_clone with only SIGCHLD): made
 * as it is, by the system call, so that no fork handler runs (the
 * program's would, through glibc's fork: a child handler it registered ran
 * in the recording and not without spool), and numbered and recorded as a
 * fork is (agent_rr_raw_fork). The child (0) starts on its own recording,
 * without dispatch. */
struct sud_fork_call {
	long nr;
	const long *a;
};

static long sud_fork_pass(void *arg)
{
	const struct sud_fork_call *c = arg;
	long r = sud_raw(c->nr, c->a);

	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	return r;
}

static long sud_fork(long nr, const long *a)
{
	struct sud_fork_call c = {nr, a};
	long r = agent_rr_raw_fork(sud_fork_pass, &c, nr == SYS_clone ? (unsigned long)a[0] : 0);

	return r < 0 ? -errno : r;
}

/* Behind agent_sigshim_sys (agent_sigshim.c): spool probe -p may detach
 * while a thread is in here. */
void agent_rr_dispatch_handler(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;
	greg_t *g = uc->uc_mcontext.gregs;
	int saved = errno, handled = 0, prog, k;
	long nr, a[6], r = -ENOSYS;
	uintptr_t ip;

	if (si->si_code != SUD_SI_CODE) {
		sud_foreign(sig, si, ctx);
		return;
	}
	agent_sud_sel = SYSCALL_DISPATCH_FILTER_ALLOW;
	nr = g[REG_RAX];
	ip = (uintptr_t)g[REG_RIP];
	a[0] = g[REG_RDI];
	a[1] = g[REG_RSI];
	a[2] = g[REG_RDX];
	a[3] = g[REG_R10];
	a[4] = g[REG_R8];
	a[5] = g[REG_R9];
	prog = sud_is_program(ip);
	if (prog)
		sud_count(nr);
	switch (nr) {
	case SYS_rt_sigreturn:
		/* The same call from libc's restorer, on the same stack. */
		g[REG_RIP] = (greg_t)sud_restorer;
		goto out;
	case SYS_fork:
		r = sud_fork(nr, a);
		break;
	case SYS_clone:
		if (a[0] == SIGCHLD && !a[1]) {
			r = sud_fork(nr, a);
			break;
		}
		/* a thread of the program's own making: without the agent's
		 * thread state (its creator's TLS, or a runtime's) and
		 * without dispatch; spool says so */
		if (prog)
			agent_thread_raw_clone((unsigned long)a[0]);
		/* fallthrough */
	case SYS_clone3:
	case SYS_vfork:
	case SYS_execve:
	case SYS_execveat:
		k = sud_slot(ip);
		if (k >= 0) {
			/* Leaves the selector at ALLOW: the trampoline resets it. */
			g[REG_RIP] = (greg_t)(agent_sud_tramp + SUD_TRAMP_SIZE * k);
			errno = saved;
			return;
		}
		if (nr == SYS_execve || nr == SYS_execveat) {
			/* The new image gets the program's signal mask. */
			syscall(SYS_rt_sigprocmask, SIG_SETMASK, &uc->uc_sigmask, NULL, _NSIG / 8);
			r = sud_raw(nr, a);
		} else {
			r = -EAGAIN; /* more than SUD_TRAMP_SLOTS call sites */
		}
		break;
	case SYS_sigaltstack:
		/* Made after the handler's return, from the program's own
		 * context (its stack pointer): made here, the return undid it
		 * (rt_sigreturn puts back the frame's uc_stack: Go's runtime
		 * set its signal stack, the return disabled it again, and its
		 * next signal ran on a goroutine's small stack, or Go died
		 * with "non-Go code disabled sigaltstack"), and a change made
		 * while the handler runs on that alternate stack was refused
		 * (EPERM) where the program's own call succeeds. */
		k = sud_slot(ip);
		if (k >= 0) {
			/* Leaves the selector at ALLOW: the trampoline resets it. */
			g[REG_RIP] = (greg_t)(agent_sud_tramp_ret + SUD_TRAMP_SIZE * k);
			errno = saved;
			return;
		}
		r = sud_raw(nr, a); /* more than SUD_TRAMP_SLOTS call sites */
		break;
	case SYS_rt_sigprocmask:
		/* The program's own mask change while int3 probes are in:
		 * SIGTRAP kept out of the kernel's mask, its view kept
		 * (agent_probe.c), as for a call through libc. */
		if (prog && a[3] == 8 && agent_probe_trap_live()) {
			/* on the mask the handler's return installs: a change
			 * made here would be undone by it */
			k = agent_probe_sigmask_in((int)a[0], (const sigset_t *)a[1],
						   (sigset_t *)a[2], (uint64_t *)&uc->uc_sigmask);
			r = k ? -k : 0;
			break;
		}
		/* Otherwise on that mask too: the kernel's current one is the
		 * handler's, which its return replaces. */
		if (a[3] == 8) {
			r = sud_sigmask_frame((int)a[0], (const uint64_t *)a[1], (uint64_t *)a[2],
					      (uint64_t *)&uc->uc_sigmask);
			break;
		}
		r = sud_raw(nr, a);
		break;
	case SYS_rt_sigaction:
		if (prog && a[0] == SIGSYS && a[3] == 8) {
			r = sud_rt_sigaction(a);
			break;
		}
		if (prog && a[0] == SIGSEGV && a[3] == 8 && sud_rt_sigsegv(a)) {
			r = 0;
			break;
		}
		r = sud_raw(nr, a);
		break;
	case SYS_exit:
		/* The selector back first, through libc's text (allowed): a
		 * thread of the program's own clone shares its creator's TLS,
		 * selector included, and would leave it at ALLOW. */
		agent_sud_sel = SYSCALL_DISPATCH_FILTER_BLOCK;
		syscall(SYS_exit, a[0]);
		break;
	case SYS_futex:
		/* The program's own futex (libgomp's barriers and locks): a wait
		 * is emulated as a yield in serial mode, as through syscall()
		 * (agent_rr_block.c); this is a synchronous point of the thread,
		 * in program code, so it may give the run token away here. Sync
		 * mode does not order them: counted, and the replay refuses. */
		if (prog && agent_rr_mode && !agent_self.busy) {
			if ((agent_rr_mode & RR_MODE_SERIAL) && agent_rr_futex_wait(a, &r)) {
				if (r == -1)
					r = -errno;
				break;
			}
			agent_rr_note_futex();
		}
		r = sud_raw(nr, a);
		break;
	default:
		if (prog && agent_rr_mode && !agent_self.busy) {
			errno = 0;
			r = agent_rr_syscall_route(nr, a, &handled);
			if (handled && r == -1 && errno)
				r = -errno;
		}
		if (!handled)
			r = sud_raw(nr, a);
		break;
	}
	g[REG_RAX] = r;
out:
	agent_sud_sel = SYSCALL_DISPATCH_FILTER_BLOCK;
	errno = saved;
}

struct sud_find {
	uintptr_t libc_ip, ld_base, vdso;
	int found;
};

static int sud_phdr(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct sud_find *f = arg;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		if (f->libc_ip >= lo && f->libc_ip < hi) {
			sud_lo = lo;
			sud_len = hi - lo;
			f->found = 1;
		} else if (f->ld_base && info->dlpi_addr == f->ld_base) {
			sud_ld_lo = lo;
			sud_ld_hi = hi;
		} else if (f->vdso && f->vdso >= lo && f->vdso < hi) {
			sud_vdso_lo = lo;
			sud_vdso_hi = hi;
		}
	}
	return 0;
}

static int sud_enable(void)
{
	agent_sud_sel = SYSCALL_DISPATCH_FILTER_BLOCK;
	if (syscall(SYS_prctl, PR_SET_SYSCALL_USER_DISPATCH, PR_SYS_DISPATCH_ON, sud_lo, sud_len,
		    &agent_sud_sel) < 0)
		return -errno;
	return 0;
}

/* Install the handler and, with here set, turn dispatch on for the
 * calling thread; a (the record/replay area, NULL for probes) gets the
 * outcome. */
static void sud_setup_at(struct rr_area *a, int here)
{
	struct sud_find f = {0, getauxval(AT_BASE), getauxval(AT_SYSINFO_EHDR), 0};
	struct sigaction sa, cur;
	int saved = errno, err;

	sud_area = a;
	/* Read once, at startup: a way to test the static scan of spool
	 * record, or to keep a program's own SIGSYS handling undisturbed. */
	if (getenv("SPOOL_NO_DISPATCH")) {
		err = -ECANCELED;
		goto out_fail;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = agent_sigshim_sys;
	/* SA_ONSTACK: runtimes with small goroutine stacks give every thread
	 * an alternate stack. No SA_NODEFER: the handler never makes a call
	 * dispatch would catch (its selector is ALLOW). */
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
	if (sigaction(SIGSYS, &sa, &sud_old) < 0 || sigaction(SIGSYS, NULL, &cur) < 0) {
		err = -errno;
		goto out_fail;
	}
	/* glibc fills sa_restorer with its __restore_rt: libc's text. */
	sud_restorer = (uintptr_t)cur.sa_restorer;
	f.libc_ip = sud_restorer;
	dl_iterate_phdr(sud_phdr, &f);
	if (!f.found || !sud_restorer) {
		err = -ENOENT;
		goto out_restore;
	}
	err = here ? sud_enable() : 0;
	if (err)
		goto out_restore;
	/* At startup, before the program can block SIGSYS through the
	 * interposers: from now on the kernel never blocks it. A program
	 * started with it blocked (its parent blocked every signal before
	 * the exec) keeps it blocked in its view only: blocked for real, the
	 * first dispatched call would kill it (tests/integ/381). Threads it
	 * creates inherit the kernel's mask and the view (agent_thread.c). */
	agent_probe_keep_sigsys();
	if (here)
		agent_sigview_unblock_here(AGENT_SIG_BIT(SIGSYS));
	sud_on = 1;
	if (a)
		a->raw_state = RR_RAW_ON;
	agent_log("syscall user dispatch on: libc text %p+%#lx", (void *)sud_lo,
		  (unsigned long)sud_len);
	errno = saved;
	return;
out_restore:
	sigaction(SIGSYS, &sud_old, NULL);
out_fail:
	if (a) {
		a->raw_err = -err;
		a->raw_state = RR_RAW_FAILED;
	}
	agent_log("syscall user dispatch unavailable (%d): raw system calls are not seen", err);
	errno = saved;
}

static void sud_setup(struct rr_area *a)
{
	sud_setup_at(a, 1);
}

void agent_rr_dispatch_init(void)
{
	struct rr_area *a;

	/* agent_rr_init checked the area before it set the mode. */
	if (!agent_rr_mode || !agent.ctl)
		return;
	a = agent_rr_area();
	if (a)
		sud_setup(a);
}

/* A fork child of a probed program keeps the int3 probes (its code is
 * the parent's) but not dispatch: its one thread turns it on again. */
static void sud_probes_fork_child(void)
{
	int saved = errno;

	if (sud_on && sud_probes && sud_enable())
		agent_log("syscall user dispatch: a fork child could not turn it on (%d)", errno);
	errno = saved;
}

/* The same for a child no fork handler runs in (agent_thread.c). */
void agent_rr_dispatch_raw_fork_child(void)
{
	sud_probes_fork_child();
}

void agent_rr_dispatch_probes(void)
{
	if (sud_on || !agent.ctl)
		return; /* a recording already has it */
	sud_probes = 1;
	sud_setup(NULL);
	if (sud_on) {
		agent_probe_keep_sigsys();
		pthread_atfork(NULL, NULL, sud_probes_fork_child);
	}
}

/* The calling thread's kernel mask blocks SIGSYS: a dispatched call would
 * kill it (the kernel forces a blocked SIGSYS to its default). */
static int sud_sys_blocked(void)
{
	uint64_t cur = 0;

	if (syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &cur, 8) < 0)
		return 1;
	return (int)((cur >> (SIGSYS - 1)) & 1);
}

int agent_rr_dispatch_attach(void)
{
	if (sud_on || !agent.ctl)
		return sud_on ? 0 : -ENOENT;
	sud_probes = 1;
	sud_setup_at(NULL, 0);
	if (!sud_on) {
		sud_attach_failed = 1;
		return -ENOSYS;
	}
	agent_probe_keep_sigsys();
	pthread_atfork(NULL, NULL, sud_probes_fork_child);
	return 0;
}

int agent_rr_dispatch_attach_thread(int on)
{
	int saved = errno, rc = 0;

	if (!sud_on || !sud_probes) {
		rc = on ? (sud_attach_failed ? -ENOSYS : -ENOENT) : 0;
	} else if (on) {
		/* A thread on another's TLS (the program's own clone) would
		 * share that thread's selector byte: one's handler setting it
		 * back to block while the other makes its allowed call gets
		 * that call dispatched inside the handler, where SIGSYS is
		 * blocked: the kernel kills the process (tests/integ/280). Its
		 * events are dropped anyway (agent_thread_shared). */
		if (sud_sys_blocked() || agent_thread_on_foreign_tls())
			rc = -EAGAIN;
		else
			rc = sud_enable();
	} else {
		/* libc's syscall(): its text is the allowed range */
		syscall(SYS_prctl, PR_SET_SYSCALL_USER_DISPATCH, PR_SYS_DISPATCH_OFF, 0, 0, 0);
		rc = (int)(agent_probe_trap_view() >> (SIGSYS - 1)) & 1;
	}
	errno = saved;
	return rc;
}

void agent_rr_dispatch_attach_end(void)
{
	if (!sud_on || !sud_probes || agent_rr_mode)
		return;
	sud_on = 0;
	sud_probes = 0;
	agent_probe_keep_sigsys_off();
	sigaction(SIGSYS, &sud_old, NULL);
}

int agent_rr_dispatch_on(void)
{
	return __atomic_load_n(&sud_on, __ATOMIC_RELAXED);
}

void agent_rr_dispatch_thread(void)
{
	int saved = errno;

	if (sud_on && (agent_rr_mode || sud_probes) && sud_enable())
		agent_log("syscall user dispatch: a thread could not turn it on (%d)", errno);
	errno = saved;
}

void agent_rr_dispatch_restored_thread(void)
{
	int saved = errno;
	/* The snapshot's value: ALLOW in a thread parked inside the SIGSYS
	 * handler (a raw futex wait emulated as a yield), whose return sets
	 * it back to BLOCK; sud_enable's BLOCK would make the handler's own
	 * calls after the park dispatched again, with SIGSYS blocked. */
	unsigned char sel = agent_sud_sel;

	if (sud_on && agent_rr_mode && sud_enable())
		agent_log("syscall user dispatch: a restored thread could not turn it on (%d)",
			  errno);
	agent_sud_sel = sel;
	errno = saved;
}

#else /* !__x86_64__ */

int agent_rr_dispatch_attach(void)
{
	return -ENOSYS;
}

int agent_rr_dispatch_attach_thread(int on)
{
	return on ? -ENOSYS : 0;
}

void agent_rr_dispatch_attach_end(void)
{
}

void agent_rr_dispatch_init(void)
{
	if (agent_rr_mode && agent.ctl) {
		struct rr_area *a = agent_rr_area();

		if (!a)
			return;
		a->raw_err = ENOSYS;
		a->raw_state = RR_RAW_FAILED;
	}
}

void agent_rr_dispatch_probes(void)
{
}

void agent_rr_dispatch_raw_fork_child(void)
{
}

int agent_rr_dispatch_on(void)
{
	return 0;
}

void agent_rr_dispatch_thread(void)
{
}

void agent_rr_dispatch_restored_thread(void)
{
}

int agent_rr_dispatch_sigsys(const struct sigaction *act, struct sigaction *oact)
{
	return 0;
}

#endif
