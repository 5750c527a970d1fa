// SPDX-License-Identifier: MIT
/*
 * agent_probe.h - the agent's dynamic-probe runtime, shared by
 * agent_probe.c (placing and removing probes, int3 and fault signals,
 * attach entry points) and agent_probe_hot.c (the handlers a hit runs,
 * compiled general-regs-only).
 */
#ifndef SPOOL_AGENT_AGENT_PROBE_H
#define SPOOL_AGENT_AGENT_PROBE_H

#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <sys/select.h>
#include <time.h>

#include "../../include/spool/probe.h"
#include "../probe/probe_abi.h"

/*
 * Placing, the same on every architecture (agent_probe_place.c):
 * area_find: the SHM_EXT_PROBES area when spool wrote one of this
 * version (its size in *size), else NULL; module_base: the load bias of
 * the module whose file name is name ("" the executable): 1 found, 0 not;
 * module_status: every probe of m gets status; page: an RW mapping of size
 * bytes whose every byte the architecture's patch jump reaches from
 * [lo, hi) and back, or NULL; reach: does that jump reach to from from;
 * pgsz: the kernel's page size.
 */
struct probe_area_hdr *agent_probe_area_find(uint64_t *size);
int agent_probe_module_base(const char *name, uint64_t *base);
void agent_probe_module_status(struct probe_area_module *m, struct probe_area_probe *ps,
			       uint32_t status);
void *agent_probe_page(uint64_t lo, uint64_t hi, size_t size);
int agent_probe_reach(uint64_t from, uint64_t to);
uint64_t agent_probe_pgsz(void);

/* Patch the probes spool put in the SHM_EXT_PROBES area. Before main. */
void agent_probe_init(void);
/* After a successful dlopen: patch the probes of modules it loaded. */
void agent_probe_dlopen(void);
/* sigaction(SIGTRAP, ...) while int3 probes are installed: 1 = handled. */
struct sigaction;
int agent_probe_sigtrap(const struct sigaction *act, struct sigaction *oact);

/*
 * Signal masks while int3 probes (SIGTRAP) or guarded custom handlers
 * (SIGSEGV, SIGBUS, SIGFPE, SIGILL) are installed (agent_probe.c): those
 * "kept" signals are never really blocked, the program's view of them is
 * kept per thread. live: some signal is kept. mask_arg: a mask a call installs
 * for a while (sigsuspend, ppoll, pselect, epoll_pwait), SIGTRAP removed
 * (buf holds the copy). sigmask: sigprocmask's work (raw: the system call,
 * from syscall()); returns 0 or an errno value. action_in/out: a
 * sigaction's sa_mask without SIGTRAP, and back as the program gave it
 * (marks: taken before the call, for out).
 */
int agent_probe_trap_live(void);
const sigset_t *agent_probe_mask_arg(const sigset_t *m, sigset_t *buf);
int agent_probe_sigmask(int how, const sigset_t *set, sigset_t *old, int raw);
/* The same change made to *mask (the first word of a signal mask) instead
 * of the thread's: a SIGSYS handler's, for the mask its return installs
 * (agent_rr_dispatch.c). 0 or an errno value. */
int agent_probe_sigmask_in(int how, const sigset_t *set, sigset_t *old, uint64_t *mask);
const struct sigaction *agent_probe_action_in(int sig, const struct sigaction *act,
					      struct sigaction *buf);
void agent_probe_action_out(int sig, struct sigaction *oact, uint64_t had);
uint64_t agent_probe_action_marks(int sig);
/* The calling thread's view of the kept signals (bits of those the
 * program blocked), and the same given to a new thread (agent_thread.c:
 * what it inherits). */
uint64_t agent_probe_trap_view(void);
/* The program made a thread with its own clone system call while probed
 * (agent_rr_dispatch.c): counted for spool's warning. */
/* Syscall user dispatch is on: SIGSYS is kept from the kernel's masks from
 * now on (the program's view of it kept as SIGTRAP's). sigsys_blocked: a
 * SIGSYS that is not dispatch's arrived; 1 when the thread blocks it in
 * its own view (then held, or the default action for its own fault). */
void agent_probe_keep_sigsys(void);
void agent_probe_keep_sigsys_off(void); /* attach mode, at detach */
int agent_probe_sigsys_blocked(siginfo_t *si, void *uc);
void agent_probe_trap_view_set(uint64_t blocked);

/* Attach mode (agent_probe_got.c): the modules' GOT slots of
 * pthread_sigmask and sigprocmask sent to the interposers below while int3
 * probes are in (returns the slots redirected), and given back. Only
 * while spool holds every thread stopped. */
uint32_t agent_probe_got_redirect(void);
void agent_probe_got_restore(void);
/* The system probes whose names the last redirect sent to the counting
 * interposers (SYS_W_IO, SYS_W_MEM; sys:mem only when the allocator is
 * libc's alone), and in *slots how many slots of those names. */
unsigned agent_probe_got_sys(uint32_t *slots);
/* The calling thread's view of SIGTRAP changed (blocked or not), noted
 * while the slots are redirected; _views: the threads whose view blocks it
 * (up to max tids). */
void agent_probe_got_view(int trap_blocked);
uint32_t agent_probe_got_views(int32_t *tids, uint32_t max);
/* The other twins (agent_probe_gotwrap.c) and libc's functions they call,
 * by AGENT_PROBE_GOT_* (filled by agent_probe_got_redirect). */
enum {
	AGENT_PROBE_GOT_SIGACTION,
	AGENT_PROBE_GOT_SIGNAL,
	AGENT_PROBE_GOT_BSD_SIGNAL,
	AGENT_PROBE_GOT_SYSV_SIGNAL,
	AGENT_PROBE_GOT___SYSV_SIGNAL,
	AGENT_PROBE_GOT_SIGSUSPEND,
	AGENT_PROBE_GOT_PPOLL,
	AGENT_PROBE_GOT_PSELECT,
	AGENT_PROBE_GOT_EPOLL_PWAIT,
	AGENT_PROBE_GOT_EPOLL_PWAIT2,
	AGENT_PROBE_GOT_PTHREAD_CREATE,
	AGENT_PROBE_GOT_CLONE,
	AGENT_PROBE_GOT_NFN
};
extern void *agent_probe_got_real[AGENT_PROBE_GOT_NFN];
struct sigaction;
struct pollfd;
struct epoll_event;
int agent_probe_got_clone(int (*fn)(void *), void *stack, int flags, void *arg, ...);
int agent_probe_got_sigaction(int sig, const struct sigaction *act, struct sigaction *oact);
sighandler_t agent_probe_got_signal(int sig, sighandler_t h);
sighandler_t agent_probe_got_bsd_signal(int sig, sighandler_t h);
sighandler_t agent_probe_got_sysv_signal(int sig, sighandler_t h);
sighandler_t agent_probe_got___sysv_signal(int sig, sighandler_t h);
/* glibc's signal() family made a sigaction and given to ACT (the agent's
 * sigaction, or the attach path's twin): FLAGS SA_RESTART for signal and
 * bsd_signal (BSD: the signal blocked in its handler, as glibc puts it in
 * sa_mask), SA_RESETHAND | SA_NODEFER for sysv_signal and __sysv_signal
 * (System V's one-shot handler). Returns the old handler, or SIG_ERR. */
sighandler_t agent_probe_signal_as(int sig, sighandler_t h, int flags,
				   int (*act)(int, const struct sigaction *, struct sigaction *));
int agent_probe_got_sigsuspend(const sigset_t *mask);
int agent_probe_got_ppoll(struct pollfd *fds, unsigned long n, const struct timespec *ts,
			  const sigset_t *mask);
int agent_probe_got_pselect(int n, fd_set *r, fd_set *w, fd_set *e, const struct timespec *ts,
			    const sigset_t *mask);
int agent_probe_got_epoll_pwait(int epfd, struct epoll_event *ev, int max, int timeout,
				const sigset_t *mask);
int agent_probe_got_epoll_pwait2(int epfd, struct epoll_event *ev, int max,
				 const struct timespec *ts, const sigset_t *mask);
/* A thread the program starts while the slots are redirected gets its
 * creator's view of the kept signals and, when dispatch is set up, turns
 * syscall user dispatch on before the program's start routine runs. */
int agent_probe_got_pthread_create(pthread_t *th, const pthread_attr_t *attr,
				   void *(*fn)(void *), void *arg);
/* Handlers installed before spool attached: their sa_mask without the kept
 * signals from commit (the program's kept per signal, as a sigaction
 * through the twin keeps it), and with them again at detach for a handler
 * still installed. Only while spool holds every thread stopped. */
void agent_probe_samask_strip(void);
void agent_probe_samask_restore(void);
int agent_probe_pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
	__attribute__((visibility("hidden")));
int agent_probe_sigprocmask(int how, const sigset_t *set, sigset_t *old)
	__attribute__((visibility("hidden")));

typedef void (*agent_probe_fn)(uint32_t id, struct probe_regs *regs, uint64_t sp);

/* One probe at run time, indexed by probe id. */
struct agent_probe_rt {
	uint64_t addr;	     /* probed instruction */
	uint64_t slot;	     /* int3: where to resume */
	uint64_t patch_addr; /* first byte replaced */
	uint32_t id;
	uint32_t handler;    /* PROBE_H_* */
	uint32_t op;	     /* PROBE_OP_* */
	uint8_t int3;
	uint8_t disabled;    /* its handler faulted, or spool is detaching */
	uint8_t placed;	     /* the patch is in the text */
	uint8_t patch_len;
	uint8_t orig[PROBE_MAX_PATCH];
	struct probe_area_probe *area; /* status written back here */
	uint64_t base;	     /* its module's load bias (variable recipes) */
	uint32_t var_first;  /* PROBE_H_VAR: its recipes in agent_probe_vars */
	uint32_t var_count;
	uint32_t owner;	     /* a shared exit: the probe whose trampoline runs it */
	uint32_t ret_id;     /* PROBE_H_FUNC_ENTRY_RA: its PROBE_M_RETADDR exit */
};

/* The area spool filled (agent_probe.c), and the handlers every probe
 * runs (standard, or with the custom ones). */
extern struct probe_area_hdr *agent_probe_area;
extern const agent_probe_fn *agent_probe_table;

/*
 * Exits through the return address (agent_probe_ra.c). push: at the
 * entry of probe id (PROBE_H_FUNC_ENTRY_RA), sp at the return address;
 * swaps it for the return trampoline and keeps the real one on the
 * thread's shadow stack. enable: a PROBE_M_RETADDR probe is in (the
 * interposed longjmp and unwinder calls start caring). unhook: put every
 * swapped return address at or above from back (before an unwinder walks
 * the stack: pthread_exit). thread_end: the thread's shadow stack is
 * released when nothing is on it.
 */
void agent_probe_ra_push(uint32_t id, uint64_t sp);
void agent_probe_ra_tramp(void);
void agent_probe_ra_tailed(uint64_t sp);
void agent_probe_ra_enable(void);
void agent_probe_ra_unhook(uint64_t from);
void agent_probe_ra_thread_end(void);
/* The next longjmp family (agent_resolve: never from a signal handler). */
void agent_probe_ra_resolve(void);

/* Variable recipes (probe_abi.h), in spool's shared memory. */
extern const struct probe_area_var *agent_probe_vars;

extern struct agent_probe_rt *agent_probe_by_id;
extern uint32_t agent_probe_max_id;
/* Counters of block and branch probes in spool's shared memory: 2 per id. */
extern uint64_t *agent_probe_counts;
extern uint32_t agent_probe_ncounts;
/* Is the jcc condition cc (0-15) true for these flags? */
int agent_probe_cond(unsigned cc, uint64_t flags);


/* Standard handlers, and the same with the custom handlers run after the
 * record (used for every probe when --handler loaded a shared object). */
/* spool probe -p: spool's shared memory received over the abstract Unix
 * socket @NAME ("@NAME"): the descriptor or -errno (agent_shm_recv.c). */
int agent_shm_recv(const char *name);

extern const agent_probe_fn agent_probe_handlers[PROBE_H_MAX];
extern const agent_probe_fn agent_probe_user_handlers[PROBE_H_MAX];

/* The custom handlers (include/spool/probe.h), NULL when absent. */
struct agent_probe_user {
	void (*pre)(const struct spool_probe_ctx *ctx);
	void (*post)(const struct spool_probe_ctx *ctx);
	void (*error)(const struct spool_probe_ctx *ctx, int sig);
};
extern struct agent_probe_user agent_probe_user;

/* A handler running under the fault guard: the SIGSEGV/SIGBUS/SIGFPE/SIGILL
 * handler jumps back to it. One per thread at a time (handlers do not nest:
 * agent_self.busy). */
struct agent_probe_guard {
	sigjmp_buf jb;
	int sig;
};
extern __thread struct agent_probe_guard *agent_probe_guard_cur;

/* Run fn(ctx), or efn(ctx, sig) when efn is given, under the guard
 * (agent_probe_guard.c): 0, or the signal of its fault. The caller keeps
 * agent_self.busy set around it (handlers do not nest). */
int agent_probe_guard_call(void (*fn)(const struct spool_probe_ctx *),
			   void (*efn)(const struct spool_probe_ctx *, int),
			   const struct spool_probe_ctx *ctx, int sig);
/* The probed thread's x87 st(0) (10 bytes) while the SIGTRAP handler runs
 * the variable probe whose registers are at agent_probe_st0_regs: the kernel
 * gives signal handlers a fresh x87 state, so the value is in the signal
 * frame. Any other call (the jump path, where st(0) is live, or a probe in a
 * signal handler nested in that window) has other registers. */
extern __thread const void *agent_probe_st0;
extern __thread const void *agent_probe_st0_regs;

/* A custom handler faulted with sig: run the error handler (guarded), then
 * remove the probe and mark it PROBE_S_REMOVED. Runs on the faulting thread,
 * outside any signal handler (after the guard's siglongjmp). */
void agent_probe_fault(struct agent_probe_rt *p, const struct spool_probe_ctx *ctx, int sig);

/* Attach mode (spool probe -p): spool calls these in the stopped target
 * through ptrace. The agent was loaded with dlopen; shm is the path of
 * spool's shared memory ("/proc/SPOOLPID/fd/N"). Prepare maps it and
 * places the trampolines; commit writes the patches (spool has checked
 * that no thread is inside a patched range); detach restores every
 * original byte and stops recording. Return 0 or a negative errno. */
int spool_agent_probe_prepare(const char *shm);
int spool_agent_probe_commit(void);
int spool_agent_probe_detach(void);

/* Probes changed while the program runs (attach mode, spool probe -p
 * --commands: agent_probe_live.c): spool calls this in the stopped target
 * with one command, "prep OFF" / "commit OFF" (a batch of new probes, a
 * probe area at OFF bytes into the probes area), "del ID", "off ID",
 * "on ID", "skip ID" (only ID's handler call is jumped over, for good:
 * ID is deleted while probes combined with it still run in its code).
 * Returns the probes placed (prep, commit), 0, or a negative
 * errno. */
int spool_agent_probe_ctl(const char *cmd);

/* agent_probe.c, for agent_probe_live.c: the first probes area; placing a
 * module's trampolines; writing text (live: other threads run); removing
 * a probe; the text lock; the SIGTRAP handler and its table. */
extern struct probe_area_hdr *agent_probe_area;
void agent_probe_module(struct probe_area_module *m, struct probe_area_probe *ps,
			const struct probe_area_reloc *rs, const uint8_t *code);
int agent_probe_poke(uint64_t addr, const uint8_t *bytes, uint32_t len, int live);
void agent_probe_remove(struct agent_probe_rt *p, uint32_t status, int live);
void agent_probe_lock_take(void);
void agent_probe_lock_drop(void);
int agent_probe_trap_install(void);
int agent_probe_traps_add(const uint32_t *ids, uint32_t n);
int agent_probe_traps_del(uint32_t id);

/* agent_main.c */
int agent_map(int fd);

#endif
