// SPDX-License-Identifier: MIT
/*
 * agent_thread.c - the thread table side of the agent: a thread claims a
 * ring on its first event and opens it with KIND_THREAD; pthread_create is
 * wrapped so the child records OP_THREAD_START and its ring is marked
 * RING_EXITED when it ends; join and exit are recorded; a fork child starts
 * over with its own rings and process slot.
 *
 * Thread operations use object index 0: the thread involved is named by the
 * pthread_t in arg, which the KIND_THREAD records map back to a thread.
 */
/* AGENT_RR_CANCEL_PUSH is a setjmp (agent_rr.h) */
#pragma GCC diagnostic ignored "-Wclobbered"
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/kcmp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "agent_probe.h"
#include "agent_rawsys.h"
#include "agent_rr.h"
#include "agent_rr_dispatch.h"
#include "agent_sys.h"

__thread struct agent_thread agent_self;

/* Start-argument slots for wrapped thread starts: no malloc in the agent.
 * A slot is busy only between pthread_create and the child's first
 * instruction, so a small pool covers bursts of creation; when it is
 * exhausted the thread is created unwrapped (it still registers on its
 * first lock event, and the key destructor still marks its ring exited). */
#define AGENT_START_SLOTS 256
struct agent_start {
	void *(*fn)(void *);
	void *arg;
	uint32_t used;
	uint32_t rr_number; /* record/replay: the new thread's number (agent_rr.h) */
	uint64_t sig_view;  /* probes: the creator's view of the kept signals (agent_probe.c) */
	uint64_t sig_held;  /* record/replay: blocked until numbered (agent_rr_starthold.c) */
};
static struct agent_start agent_starts[AGENT_START_SLOTS];

/* Its destructor runs at the exit of every thread that registered, however
 * it ends (return, pthread_exit, cancellation). */
static pthread_key_t agent_exit_key;
static int agent_exit_key_ok;

extern void *__libc_stack_end;

/* Where the thread called pthread_exit (its end is recorded by the key
 * destructor, after the unwinding: pthread_exit below), 0 if it did not. */
static __thread uint64_t agent_exit_ip;

static void agent_key_destructor(void *v)
{
	struct agent_thread *t = &agent_self;

	agent_probe_ra_thread_end();
	if (t->state == AGENT_T_ON ||
	    (t->state == AGENT_T_SHARED && t->own_state == AGENT_T_ON)) {
		/* (its start routine did not return: it called pthread_exit,
		 * it was cancelled, or it is unwrapped; record/replay ended a
		 * pthread_exit already) */
		if (AGENT_UNLIKELY(agent_rr_mode))
			agent_rr_thread_unwound();
		agent_thread_exit(t, agent_exit_ip);
	}
}

/* The clone flags of the process copy the calling thread is making (0
 * for fork and _Fork): its child reads them from its copy. */
static __thread unsigned long agent_fork_flags;

/*
 * fork: between the prepare handler and the child's (libc runs code, and
 * probes can fire there: func:libc.so.6:* probes __run_postfork_handlers),
 * the child is a copy of the forking thread, ring, open packet and all,
 * and that ring is shared memory: an event the child wrote there went into
 * the parent's stream, and in packets mode into the parent's open packet,
 * which the collector then found damaged. So the forking thread leaves
 * AGENT_T_ON for the window (the hot paths take their slow path: no cost
 * outside it) and agent_thread_forking tells parent from child.
 */
static void agent_thread_fork_prepare(void)
{
	agent_fork_flags = 0;
	if (agent_self.state == AGENT_T_ON)
		agent_self.state = AGENT_T_FORK;
}

static void agent_thread_fork_parent(void)
{
	if (agent_self.state == AGENT_T_FORK)
		agent_self.state = AGENT_T_ON;
}

/* The pid a child registered under before its fork handler ran (below):
 * the handler then has nothing left to do. A process's own pid, so a
 * later child of it (another pid) never mistakes it for its own. */
static uint32_t agent_fork_early_pid;

static void agent_thread_raw_child(uint8_t was, unsigned long flags);

/* An event in the fork window (agent_enter): the parent's is recorded as
 * usual. The child's is libc's own fork code, before the agent's atfork
 * handler (a probe on it, func:libc.so.6:* on __run_postfork_handlers; a
 * lock libc's child code takes), or the first event of a child whose
 * creator's wrapper never sees it return (a clone with a stack of its own
 * through syscall(): agent_thread_raw_fork). The child starts over here,
 * as the handler (or the wrapper) would have made it, with the same
 * async-signal-safe calls (agent_thread_raw_child): raw system calls,
 * atomics, its /proc files. So it may run inside a probe's handler, the
 * SIGTRAP one too. busy all along: a probe on a function it reaches
 * (getpid, __errno_location) returns at once. While recording or
 * replaying, a fork() child also takes its number in the process tree
 * here, as its record/replay fork handler would have (agent_rr_fork_child,
 * after this thread's, the order the handlers run in): what it does in the
 * window (a library's own fork handler, registered before the agent's,
 * taking a lock) is then recorded in its own log, and replayed from it.
 * A child whose number the parent's fork did not set (a raw fork, which
 * record and replay handle their own way) counts the event lost
 * (ctl->lost_fork, doc/probe.md "Limits"). A system call per event, only
 * in the window. */
struct agent_thread *agent_thread_forking(void)
{
	struct agent_thread *t = &agent_self;
	uint32_t pid;
	int saved;

	/* busy first: errno is __errno_location(), which can be probed */
	t->busy++;
	saved = errno;
	pid = (uint32_t)syscall(SYS_getpid);
	if (pid != agent.pid && !agent_rr_mode) {
		agent_thread_raw_child(AGENT_T_ON, agent_fork_flags);
		if (t->state == AGENT_T_FORK) /* never again the parent's ring */
			t->state = AGENT_T_FORKED;
		agent_fork_early_pid = pid;
	} else if (pid != agent.pid && agent_rr_fork_pending()) {
		/* as the fork handlers would: this thread's, then record and
		 * replay's (which attaches the child to its own log) */
		agent_thread_fork_child();
		agent_rr_fork_child();
		if (t->state == AGENT_T_FORK)
			t->state = AGENT_T_FORKED;
		agent_fork_early_pid = pid;
	}
	errno = saved;
	t->busy--;
	if (pid == agent.pid && t->state == AGENT_T_FORK)
		return t; /* the parent */
	if (t->state == AGENT_T_ON)
		return t; /* the child, registered */
	__atomic_fetch_add(&agent.ctl->lost_fork, 1, __ATOMIC_RELAXED);
	return 0;
}

/* 1 in a child an event registered already, before its fork handler or
 * its wrapper's return (agent_thread_forking): nothing left to do. */
int agent_thread_child_started(void)
{
	int saved = errno;
	uint32_t pid;

	if (!agent_fork_early_pid)
		return 0;
	pid = (uint32_t)syscall(SYS_getpid);
	errno = saved;
	return agent_fork_early_pid == pid;
}

/* fork's child handler */
static void agent_thread_fork_child_handler(void)
{
	if (!agent_thread_child_started())
		agent_thread_fork_child();
}

/*
 * The child of a process copy no fork handler runs in (_Fork, fork or
 * clone without CLONE_VM made through syscall(), glibc's clone() making a
 * process): it starts over with a process slot and rings of its own, as a
 * fork child does in the agent's fork handler, so its events are kept,
 * not counted lost. was: the forking thread's state before the call.
 * What runs here is async-signal-safe, as _Fork's child requires: raw
 * system calls, atomics, open/read/close of /proc files, prctl; no malloc,
 * no lock (the agent takes none another thread could have held: its
 * tables are claimed by compare-and-swap, and the lock table is cleared).
 */
static void agent_thread_raw_child(uint8_t was, unsigned long flags)
{
	struct agent_thread *t = &agent_self;

	if (!agent.ctl || (was != AGENT_T_ON && was != AGENT_T_NEW)) {
		if (t->state == AGENT_T_FORK)
			t->state = was;
		return;
	}
	if (AGENT_UNLIKELY(agent_rr_mode) && !agent_rr_fork_pending()) {
		/* Record and replay number their processes: a fork the agent
		 * did not number (agent_rr_raw_fork did not make it: spool
		 * stopped recording) leaves the child out, its events counted
		 * lost. (A child in a pid namespace of its own is recorded
		 * under the pid spool sees: agent_proc_claim.) */
		t->state = AGENT_T_FORKED;
		return;
	}
	agent_thread_fork_child();
	/* as the fork handlers would: this thread's, then record and
	 * replay's (which attaches the child to its own recording) */
	if (AGENT_UNLIKELY(agent_rr_mode))
		agent_rr_fork_child();
	if (t->state == AGENT_T_NEW || t->state == AGENT_T_FORK)
		/* not registered (spool stopped recording): never the parent's ring */
		t->state = AGENT_T_FORKED;
	agent_rr_dispatch_raw_fork_child();
}

/*
 * A process copy no fork handler runs in: _Fork, and fork or clone
 * without CLONE_VM made through syscall(). Around it the calling thread
 * is in the fork window (as from fork's prepare handler), so nothing it
 * records goes into the parent's ring from the child before the child has
 * its own (agent_thread_raw_child). The parent goes on as before. Returns
 * what the call returned, errno kept.
 */
long agent_thread_raw_fork(long (*call)(void *), void *arg, unsigned long flags)
{
	struct agent_thread *t = &agent_self;
	uint8_t was = t->state;
	long r;
	int e;

	agent_fork_flags = flags;
	if (was == AGENT_T_ON)
		t->state = AGENT_T_FORK;
	r = call(arg);
	e = errno;
	if (r == 0 && !agent_thread_child_started())
		agent_thread_raw_child(was, flags);
	else if (t->state == AGENT_T_FORK)
		t->state = was;
	errno = e;
	return r;
}

/* glibc's clone() making a process (no CLONE_VM): the child runs this on
 * its new stack, in its own copy of the memory (so s, on the parent's
 * stack, is the child's copy), registers, runs the program's function,
 * and ends its thread's ring the way a thread that returns does (glibc's
 * clone ends the child by SYS_exit, which runs no exit handler). */
struct agent_clone_start {
	int (*fn)(void *);
	void *arg;
	unsigned long flags;
	uint8_t was;
};

static int agent_clone_child(void *p)
{
	struct agent_clone_start *s = p;
	int r;

	if (!agent_thread_child_started())
		agent_thread_raw_child(s->was, s->flags);
	r = s->fn(s->arg);
	agent_thread_exit(&agent_self, 0);
	return r;
}

typedef int (*agent_clone_fn)(int (*)(void *), void *, int, void *, ...);

static agent_clone_fn agent_real_clone;

/*
 * glibc's clone(). A thread on its creator's TLS (CLONE_VM) makes the
 * creator's state shared (agent_thread_raw_clone) and passes, as does a
 * thread with a TLS of its own (CLONE_SETTLS: it registers on its first
 * event); record and replay have their own way (agent_rr_dispatch.c). A
 * process (no CLONE_VM) runs agent_clone_child first, which gives it its
 * own rings: with CLONE_SETTLS too, in the agent's state of its new TLS
 * (which the child's libc code uses as well, so it is memory the program
 * gave it for that). The extra arguments are read
 * whatever the flags say, as glibc's own wrapper does (reading unused
 * variadic slots is harmless on x86-64 and aarch64).
 */
AGENT_EXPORT int clone(int (*fn)(void *), void *stack, int flags, void *arg, ...)
{
	agent_clone_fn real = __atomic_load_n(&agent_real_clone, __ATOMIC_RELAXED);
	struct agent_thread *t = &agent_self;
	struct agent_clone_start s;
	pid_t *ptid, *ctid;
	void *tls;
	va_list ap;
	int r, e;

	va_start(ap, arg);
	ptid = va_arg(ap, pid_t *);
	tls = va_arg(ap, void *);
	ctid = va_arg(ap, pid_t *);
	va_end(ap);
	if (!real) { /* called before the constructor: dlsym may land here */
		t->busy++;
		AGENT_RESOLVE(agent_real_clone, "clone");
		t->busy--;
		real = __atomic_load_n(&agent_real_clone, __ATOMIC_RELAXED);
		if (!real) {
			errno = ENOSYS;
			return -1;
		}
	}
	agent_thread_raw_clone((unsigned long)(unsigned)flags);
	if ((flags & CLONE_VM) || !agent.ctl || agent_rr_mode || !fn)
		return real(fn, stack, flags, arg, ptid, tls, ctid);
	agent_fork_flags = (unsigned long)(unsigned)flags;
	s.fn = fn;
	s.arg = arg;
	s.flags = (unsigned long)(unsigned)flags;
	s.was = t->state;
	if (s.was == AGENT_T_ON)
		t->state = AGENT_T_FORK;
	r = real(agent_clone_child, stack, flags, &s, ptid, tls, ctid);
	e = errno;
	if (t->state == AGENT_T_FORK)
		t->state = s.was;
	errno = e;
	return r;
}

/*
 * Threads of the program's own clone (libc's clone() or its own syscall
 * instruction) with CLONE_VM and without CLONE_SETTLS run on their
 * creator's TLS: agent_self is the creator's, ring included, and a ring has
 * one producer. So the creator's state becomes AGENT_T_SHARED before the
 * clone: every event then takes the slow path, which asks the kernel which
 * thread it is on. The creator's events are recorded as before; any other
 * thread's are dropped and counted (ctl->lost_clone), never written into
 * the creator's ring. The state stays shared for good (the agent cannot
 * tell when those threads end): one gettid per event of that thread.
 *
 * Nothing here is written by the other threads: they read state, owner_tid
 * and own_state, and count. A thread with a TLS of its own (CLONE_SETTLS)
 * registers on its first event like any thread, if that TLS starts zeroed.
 * In record mode the threads are only counted: spool record says what it
 * does not number (their calls are recorded as their creator's).
 *
 * Called by the creator: from the clone() interposers (launched: the
 * exported clone below; attached: the GOT twin), and from the SIGSYS
 * handler for a clone made by the program's own syscall instruction (no
 * libc call there but the registration agent_enter makes from a probe's
 * handler too).
 */
static long agent_thread_sys3(long nr, long a, long b, long c)
{
	/* Outside libc's text: under syscall user dispatch (only the
	 * creator's, a clone child has none) the SIGSYS handler runs it. */
	return agent_rawsys(nr, a, b, c, 0, 0, 0);
}

static uint32_t agent_thread_tid(void)
{
	return (uint32_t)agent_thread_sys3(SYS_gettid, 0, 0, 0);
}

struct agent_thread *agent_thread_shared(struct agent_thread *t)
{
	if (agent_thread_tid() != __atomic_load_n(&t->owner_tid, __ATOMIC_RELAXED)) {
		if (agent.ctl)
			__atomic_fetch_add(&agent.ctl->lost_clone, 1, __ATOMIC_RELAXED);
		return 0;
	}
	if (t->busy)
		return 0;
	if (t->own_state == AGENT_T_NEW)
		agent_thread_register(t);
	if (t->own_state == AGENT_T_NORING)
		__atomic_fetch_add(&agent.ctl->lost_no_ring, 1, __ATOMIC_RELAXED);
	return t->own_state == AGENT_T_ON ? t : 0;
}

/* 1 on a thread running on another's TLS (AGENT_T_SHARED, not its owner):
 * what the agent keeps per thread there (the return-address shadow stack)
 * is the owner's. */
int agent_thread_foreign(void)
{
	return agent_self.state == AGENT_T_SHARED &&
	       agent_thread_tid() != __atomic_load_n(&agent_self.owner_tid, __ATOMIC_RELAXED);
}

void agent_thread_raw_clone(unsigned long flags)
{
	struct agent_thread *t = &agent_self;

	if (!agent.ctl || !(flags & CLONE_VM))
		return; /* without CLONE_VM: a process copy (agent_thread_raw_fork) */
	if (flags & CLONE_THREAD) /* (a CLONE_VM process is kept out too, not said) */
		__atomic_fetch_add(&agent.ctl->raw_clones, 1, __ATOMIC_RELAXED);
	/* Recording: the thread would run under its creator's number (its
	 * run token, its log): the recording stops before it starts. */
	if ((flags & CLONE_THREAD) && !(flags & CLONE_SETTLS) && agent_rr_mode)
		agent_rr_clone_stop();
	if ((flags & CLONE_SETTLS) || agent_rr_mode || t->state == AGENT_T_SHARED)
		return;
	if (t->state == AGENT_T_NEW)
		agent_thread_register(t); /* the child must not register as it */
	if (t->state != AGENT_T_ON && t->state != AGENT_T_NORING)
		return;
	t->owner_tid = agent_thread_tid();
	t->own_state = t->state;
	__atomic_store_n(&t->state, AGENT_T_SHARED, __ATOMIC_RELEASE);
}

static long agent_thread_fork_call(void *real)
{
	return ((pid_t(*)(void))real)();
}

/* (a libc without _Fork has no program that calls it through here) */
static pid_t agent_fork_fallback(void)
{
	errno = ENOSYS;
	return -1;
}

static pid_t (*agent_real_fork)(void) = agent_fork_fallback;

__attribute__((constructor)) static void agent_thread_resolve(void)
{
	AGENT_RESOLVE(agent_real_fork, "_Fork");
	AGENT_RESOLVE(agent_real_clone, "clone");
}

/* _Fork (glibc 2.34): a fork without fork handlers. */
AGENT_EXPORT pid_t _Fork(void)
{
	pid_t (*real)(void) = __atomic_load_n(&agent_real_fork, __ATOMIC_RELAXED);

	if (AGENT_UNLIKELY(agent_rr_mode))
		return (pid_t)agent_rr_raw_fork(agent_thread_fork_call, (void *)real, 0);
	return (pid_t)agent_thread_raw_fork(agent_thread_fork_call, (void *)real, 0);
}

/*
 * Where libc keeps the thread's kernel tid in its thread descriptor (the
 * block pthread_self() points at), as an offset from the thread pointer;
 * LONG_MIN when not found. A thread registering on a descriptor whose tid
 * is not its own runs on another's TLS: a thread of the program's own clone
 * already running when spool attached (agent_thread_register).
 *
 * The kernel knows the field: glibc gives its address to set_tid_address
 * (and to clone's CLONE_CHILD_CLEARTID), and prctl(PR_GET_TID_ADDRESS)
 * returns it (kernels with CONFIG_CHECKPOINT_RESTORE). Without it, the
 * descriptor is searched for the word that holds the initialising thread's
 * tid. That search alone found a pointer's upper half first when the tid
 * was 32767 (0x7fff: the descriptor's own address, 0x00007fff..., comes
 * before the tid; 0x5555 = 21845 for a pointer into the executable's data
 * would do the same): every thread created later then read 32767 there,
 * the main thread's tid, and was taken for a thread on main's TLS, its
 * events dropped. A replay whose program had pid 32767 (pids wrap at 32768
 * here) replayed none of its threads' events: they ran outside the
 * schedule, and the replay stopped "stuck" or "ended before thread 1
 * replayed its events" (tests/real/quick/81, 1 replay in some thousands
 * under load; tests/integ/318-tid-32767.t). So the search skips the upper
 * half of a 64-bit word whose lower half is not zero (the tid is a 32-bit
 * field of its own; both architectures are little-endian), and a thread
 * that the agent's pthread_create started checks the offset against its
 * own descriptor (agent_thread_tcb_check).
 */
static long agent_tcb_tid_off = LONG_MIN;
/* This thread was started by the agent's pthread_create (agent_thread_start) */
static __thread uint8_t agent_thread_wrapped;

#ifndef PR_GET_TID_ADDRESS
#define PR_GET_TID_ADDRESS 40
#endif
#define AGENT_TCB_SPAN 2048 /* bytes of the descriptor searched */

/* The descriptor is read from the thread pointer, not through
 * pthread_self(): that is libc's, and a probe on it (func:libc.so.6:*)
 * would re-enter the registration. x86-64 keeps the descriptor at the
 * thread pointer, arm64 just below it. */
static long agent_tcb_find(const char *p, int32_t tid)
{
#if defined(__aarch64__)
	for (long off = -4; off >= -AGENT_TCB_SPAN; off -= 4)
#else
	for (long off = 0; off < AGENT_TCB_SPAN; off += 4)
#endif
	{
		uintptr_t a = (uintptr_t)(p + off);

		if (*(const int32_t *)(p + off) != tid)
			continue;
		/* the upper half of a pointer (0x00007fff..., 0x00005555...) */
		if ((a & 7) == 4 && *(const int32_t *)(p + off - 4) != 0)
			continue;
		return off;
	}
	return LONG_MIN;
}

static void agent_thread_tcb_init(void)
{
	const char *p = (const char *)__builtin_thread_pointer();
	int32_t tid = (int32_t)agent_thread_tid();
	void *addr = NULL;

	if (agent_tcb_tid_off != LONG_MIN)
		return;
	if (agent_thread_sys3(SYS_prctl, PR_GET_TID_ADDRESS, (long)&addr, 0) == 0 && addr) {
		long off = (long)((const char *)addr - p);

#if defined(__aarch64__)
		int inside = off < 0 && off >= -AGENT_TCB_SPAN;
#else
		int inside = off >= 0 && off < AGENT_TCB_SPAN;
#endif
		if (inside && !(off & 3) && *(const int32_t *)addr == tid) {
			agent_tcb_tid_off = off;
			return;
		}
	}
	agent_tcb_tid_off = agent_tcb_find(p, tid);
}

pid_t agent_thread_tid_of(pthread_t th)
{
	long off = __atomic_load_n(&agent_tcb_tid_off, __ATOMIC_RELAXED);
	/* the descriptor's place relative to the thread pointer is the same
	 * in every thread: this one's tells */
	long tp_delta = (long)((const char *)__builtin_thread_pointer() - (const char *)pthread_self());

	if (off == LONG_MIN || !th)
		return -1;
	return (pid_t)*(const int32_t *)((const char *)th + tp_delta + off);
}

/* A thread the agent's pthread_create started (agent_thread_start): its
 * TLS is its own by construction, so its descriptor must hold its tid at
 * the offset; if not, the offset was wrong (found by the search in a
 * descriptor where another word held the tid first) and is found again
 * here. Raw system calls and loads only. */
static void agent_thread_tcb_check(void)
{
	const char *p = (const char *)__builtin_thread_pointer();
	int32_t tid = (int32_t)agent_thread_tid();
	long off = __atomic_load_n(&agent_tcb_tid_off, __ATOMIC_RELAXED);

	if (off != LONG_MIN && *(const int32_t *)(p + off) == tid)
		return;
	off = agent_tcb_find(p, tid);
	if (off != LONG_MIN)
		__atomic_store_n(&agent_tcb_tid_off, off, __ATOMIC_RELAXED);
}

/* The tid of the thread whose TLS the caller runs on (0: unknown). */
static uint32_t agent_thread_tcb_tid(void)
{
	long off = __atomic_load_n(&agent_tcb_tid_off, __ATOMIC_RELAXED);

	if (off == LONG_MIN)
		return 0;
	return (uint32_t)*(const int32_t *)((const char *)__builtin_thread_pointer() + off);
}

/* 1 when the caller runs on the TLS of another thread of this process (a
 * thread of the program's own clone). A process made by clone() or
 * syscall() without CLONE_VM keeps its creator's tid in its copy of the
 * descriptor: that creator is not a thread of this process (tgkill says
 * ESRCH), so it is not foreign. Raw system calls and loads only. */
int agent_thread_on_foreign_tls(void)
{
	uint32_t owner = agent_thread_tcb_tid(), me = agent_thread_tid();

	return owner && owner != me &&
	       agent_thread_sys3(SYS_tgkill, agent_thread_sys3(SYS_getpid, 0, 0, 0), owner, 0) !=
		   -ESRCH;
}

void agent_thread_init(void)
{
	agent_thread_tcb_init();
	if (pthread_key_create(&agent_exit_key, agent_key_destructor) == 0)
		agent_exit_key_ok = 1;
	pthread_atfork(agent_thread_fork_prepare, agent_thread_fork_parent,
		       agent_thread_fork_child_handler);
}

/* Emitting a metadata record: reserve, fill the header, commit. */
static void *agent_meta_begin(struct agent_thread *t, uint32_t len, uint32_t *seq)
{
	*seq = ++t->seq;
	t->prod.ring->last_seq = *seq;
	return ring_prod_reserve(&t->prod, len);
}

static void agent_meta_end(struct agent_thread *t, struct rec_hdr *h, unsigned kind, uint32_t obj,
			   uint32_t seq, uint32_t len)
{
	h->word = ev_word(kind, t->index, obj, 0);
	h->tsc = __rdtsc();
	h->seq = seq;
	h->size = len;
	if (ring_prod_commit(&t->prod, len))
		agent_wake();
}

static void agent_emit_proc(struct agent_thread *t)
{
	struct rec_proc *r;
	uint32_t seq;

	r = agent_meta_begin(t, sizeof(*r), &seq);
	if (!r)
		return;
	r->pid = agent.seen_pid;
	r->ppid = agent.seen_ppid;
	r->proc_slot = agent.proc_slot;
	r->flags = agent.proc_flags;
	agent_meta_end(t, &r->h, KIND_PROC, 0, seq, sizeof(*r));
}

#ifdef MADV_POPULATE_WRITE
#define AGENT_MADV_POPULATE_WRITE MADV_POPULATE_WRITE
#else
#define AGENT_MADV_POPULATE_WRITE 23
#endif

/*
 * Fault a ring's pages in ahead of the producer, not one by one on the hot
 * path: in a VM a page fault is an exit, and one MADV_POPULATE_WRITE
 * (Linux 5.14) costs a fraction of touching each page. It is done in chunks
 * as the ring fills (64 KiB first, doubling to 1 MiB), not for the whole
 * ring when the thread starts: populating 8 MiB took 4 ms per thread, most
 * of the cost of a thread that writes a few hundred records (pigz's). One
 * system call per chunk, on the producer's own thread; async-signal-safe.
 */
#define AGENT_RING_CHUNK_MIN (64u << 10)
#define AGENT_RING_CHUNK_MAX (1u << 20)

static void agent_ring_ready(struct ring_prod *p, uint64_t need)
{
	uint64_t from = p->ready, chunk = from < AGENT_RING_CHUNK_MIN ? AGENT_RING_CHUNK_MIN : from;
	uint64_t to;
	uintptr_t lo, hi;

	if (chunk > AGENT_RING_CHUNK_MAX)
		chunk = AGENT_RING_CHUNK_MAX;
	to = from + chunk;
	if (to < need)
		to = need;
	if (to >= p->size) {
		to = p->size;
		p->ready = UINT64_MAX;
	} else {
		p->ready = to;
	}
	lo = ((uintptr_t)p->data + from) & ~(uintptr_t)4095;
	hi = ((uintptr_t)p->data + to + 4095) & ~(uintptr_t)4095;
	if (madvise((void *)lo, hi - lo, AGENT_MADV_POPULATE_WRITE))
		for (uintptr_t a = lo; a < hi; a += 4096)
			__atomic_store_n((unsigned char *)a, *(volatile unsigned char *)a,
					 __ATOMIC_RELAXED);
}

/* Frame-pointer walks must stay on this thread's stack. A glibc thread's
 * struct pthread sits at the top of its stack mapping; the main thread's
 * stack ends at __libc_stack_end. */
static uintptr_t agent_stack_hi(void)
{
	uintptr_t fp = (uintptr_t)__builtin_frame_address(0);
	uintptr_t self = (uintptr_t)pthread_self();

	if (self > fp && self - fp < (256u << 20))
		return self;
	return (uintptr_t)__libc_stack_end;
}

/* The span of a thread's stack below stack_hi: RLIMIT_STACK (what glibc
 * gives a thread by default, and where the main thread's stack may grow),
 * at least 8 MiB, at most 1 GiB. */
static uintptr_t agent_stack_span(void)
{
	static uintptr_t span;
	struct rlimit rl;
	uintptr_t v = __atomic_load_n(&span, __ATOMIC_RELAXED);

	if (v)
		return v;
	v = 8u << 20;
	/* (a raw call: the agent imports no getrlimit, and under syscall
	 * user dispatch the SIGSYS handler makes it, once) */
	if (agent_thread_sys3(SYS_getrlimit, RLIMIT_STACK, (long)&rl, 0) == 0 && rl.rlim_cur > v)
		v = rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > (1u << 30)
			    ? (1u << 30)
			    : (uintptr_t)rl.rlim_cur;
	__atomic_store_n(&span, v, __ATOMIC_RELAXED);
	return v;
}

/*
 * Where a registering thread's frames are: the span below stack_hi. A
 * thread that registers with its frame outside it (on a stack of its own
 * making: a CLONE_SETTLS thread, a signal on an alternate stack) has no
 * known span: every frame is its own, as before.
 */
static void agent_thread_stack_range(struct agent_thread *t)
{
	uintptr_t fp = (uintptr_t)__builtin_frame_address(0), span = agent_stack_span();

	t->offstack = 0;
	if (fp < t->stack_hi && t->stack_hi - fp < span && t->stack_hi > span) {
		t->stack_lo = t->stack_hi - span;
		t->stack_len = span;
	} else {
		t->stack_lo = 0;
		t->stack_len = UINTPTR_MAX;
	}
}

/*
 * A registered thread's event with its frame off its stack span
 * (agent_enter). The kernel says whose it is (one gettid):
 *  - its own (a signal on an alternate stack, a coroutine's stack, a
 *    stack larger than the span): the event is its own; after
 *    AGENT_OFFSTACK_MAX of them the span check is off for this thread
 *    (a program that switches stacks would pay a gettid per event);
 *  - a thread of the program's own clone that spool did not see being
 *    made (its own clone system call: no wrapper, no syscall user dispatch
 *    in spool locks and spool probe, nor where dispatch is off in record)
 *    on this TLS: counted (unseen_clones, raw_clones), and from here on
 *    the state is shared as for one seen made (agent_thread_raw_clone):
 *    its events are dropped and counted (lost_clone), the owner's kept.
 *    While recording, the recording stops (agent_rr_clone_unseen);
 *  - a process on this TLS (CLONE_VM without CLONE_THREAD, seen by no
 *    wrapper): its event is dropped and counted.
 * Its events before this one in the span were written as the owner's: a
 * stack next to its creator's, within the span, is not told apart.
 */
#define AGENT_OFFSTACK_MAX 16

static struct agent_thread *agent_thread_offstack_of(struct agent_thread *t, uint32_t me)
{
	uint32_t owner = t->owner_tid;

	if (!owner || me == owner) {
		if (++t->offstack >= AGENT_OFFSTACK_MAX) {
			t->stack_lo = 0;
			t->stack_len = UINTPTR_MAX;
		}
		return t;
	}
	if (!agent.ctl)
		return 0;
	if (agent_thread_sys3(SYS_tgkill, agent_thread_sys3(SYS_getpid, 0, 0, 0), owner, 0) ==
	    -ESRCH) {
		/* a process on its parent's TLS */
		__atomic_fetch_add(&agent.ctl->lost_clone, 1, __ATOMIC_RELAXED);
		return 0;
	}
	if (__atomic_load_n(&agent_rr_mode, __ATOMIC_SEQ_CST)) {
		/* record: counted, the recording stops (spool record says
		 * so); replay: its events are not the recording's */
		agent_rr_clone_unseen();
		return 0;
	}
	/* A recording another such thread stopped meanwhile: agent.active
	 * went 0 before agent_rr_mode did (agent_rr_clone_stop). Its events
	 * are no longer recorded, not lost. */
	if (!__atomic_load_n(&agent.active, __ATOMIC_SEQ_CST))
		return 0;
	__atomic_fetch_add(&agent.ctl->lost_clone, 1, __ATOMIC_RELAXED);
	/* Once: the first of its events to see the state its own (own_state
	 * first: the owner reads it as soon as the state is shared). */
	t->own_state = AGENT_T_ON;
	{
		uint8_t on = AGENT_T_ON;

		if (!__atomic_compare_exchange_n(&t->state, &on, AGENT_T_SHARED, 0,
						 __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			return 0;
	}
	__atomic_fetch_add(&agent.ctl->unseen_clones, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&agent.ctl->raw_clones, 1, __ATOMIC_RELAXED);
	return 0;
}

struct agent_thread *agent_thread_offstack(struct agent_thread *t)
{
	return agent_thread_offstack_of(t, agent_thread_tid());
}

/* The same seen from a busy state (agent_enter): the owner's own frame is
 * a re-entry (nothing recorded, as for any busy state); another thread's
 * is found as above, counted, and the state shared from here on. Its
 * creator inside spool (busy) while it calls in was how a whole thread's
 * events went uncounted (tests/integ/349 holds the creator there on
 * purpose). One gettid. */
struct agent_thread *agent_thread_offstack_busy(struct agent_thread *t)
{
	uint32_t me = agent_thread_tid(), owner = t->owner_tid;

	if (!owner || me == owner)
		return 0;
	return agent_thread_offstack_of(t, me);
}

/*
 * Ring slots are reused (issue 12): a program that creates 100,000 short
 * threads, a few at a time, needs as many rings as it has threads alive,
 * not as it ever had. The handshake, each step by one side only:
 *
 *   RING_FREE     --agent: CAS, claims it-->              RING_CLAIMING
 *   RING_CLAIMING --agent: tid and pid stored (release)--> RING_ACTIVE
 *   RING_ACTIVE   --agent: thread ends (release)-->       RING_EXITED
 *   RING_EXITED   --collector: drained to head-->         RING_FREE
 *
 * A thread that ended without the agent seeing it (a raw SYS_exit, no
 * exit handlers) leaves its ring RING_ACTIVE: a thread of the same process
 * that finds no free ring marks it RING_EXITED for it once the kernel says
 * its tid is gone (tgkill with signal 0), so it is drained and freed like
 * any other. Only a RING_ACTIVE ring's tid is its owner's; the rings of a
 * process that ended, or of an image that exec'd, are freed by the
 * collector (collector.c).
 *
 * The agent stores RING_EXITED after the thread's last commit, so the
 * collector, which loads the state before head, drains everything the
 * thread wrote before it frees the ring; a new owner then starts where
 * head and tail are (both counters only grow, so nothing is reset).
 *
 * A fresh slot comes from the nrings allocator; once all are handed out,
 * a thread takes a freed ring last used by its own process (a ring's trace
 * stream belongs to one process). When none is free but some thread has
 * ended, its ring is still being drained: the thread wakes the collector
 * and waits for it a bounded time (AGENT_CLAIM_WAIT_NS), once, at its
 * start; after a wait in vain (the collector is stalled or gone) later
 * threads do not wait until a ring has been freed again, so a dead spool
 * costs one wait, not one per thread. More threads alive at once than
 * rings: the thread records nothing, and its events are counted in
 * lost_no_ring.
 */
#define AGENT_CLAIM_WAIT_NS 1000000000ull /* 1 s: the collector drains every 50 ms */
#define AGENT_CLAIM_NAP_NS 50000

static uint32_t agent_claim_hint;    /* where the last scan found a ring */
static uint32_t agent_claim_stalled; /* a wait for a freed ring timed out */

/* Take ring idx if it is free; it is mapped here first (agent_main.c maps
 * a ring into this process when one of its threads claims it). */
static int agent_ring_take(uint32_t idx)
{
	struct shm_ring *r = agent_ring_map(idx);
	uint32_t z = RING_FREE;

	uint32_t tid = agent_seen_tid();

	/* (a thread whose tid spool cannot tell gets no ring: counted lost) */
	if (!r || !tid ||
	    !__atomic_compare_exchange_n(&r->state, &z, RING_CLAIMING, 0, __ATOMIC_ACQ_REL,
					 __ATOMIC_RELAXED))
		return 0;
	r->tid = tid;
	r->pid = agent.seen_pid;
	r->proc_slot = agent.proc_slot;
	__atomic_store_n(&r->state, RING_ACTIVE, __ATOMIC_RELEASE);
	return 1;
}

/* Ring r is RING_ACTIVE for a thread of this process that no longer
 * exists: hand it to the collector as if the thread had ended. */
static int agent_ring_orphaned_thread(struct shm_ring *r)
{
	uint32_t tid = __atomic_load_n(&r->tid, __ATOMIC_RELAXED), st = RING_ACTIVE;

	/* (in a pid namespace of its own the tid is spool's: not one tgkill
	 * here can name; the collector frees the rings when the process ends) */
	if (agent.pidns || !tid || tid > INT32_MAX || tid == (uint32_t)gettid() ||
	    syscall(SYS_tgkill, (pid_t)agent.pid, (pid_t)tid, 0) == 0 || errno != ESRCH)
		return 0;
	return __atomic_compare_exchange_n(&r->state, &st, RING_EXITED, 0, __ATOMIC_RELEASE,
					   __ATOMIC_RELAXED);
}

/* Is ring idx free for a thread of this process? A copy of its header's
 * state and pid, read without mapping it (a raw pread: read is interposed
 * for record/replay). 1: free. 2 (only if check_dead): still RING_ACTIVE
 * for a thread of a process without a process slot that is gone: the
 * collector frees it on its next drain (collector_reap_slotless), worth
 * waiting for as for a ring being drained. */
static int agent_ring_orphan(uint32_t idx, int check_dead)
{
	struct shm_ring hdr;
	uint64_t off = shm_ring_offset(agent.ring_bytes, agent.max_procs, idx);

	if (syscall(SYS_pread64, agent.fd, &hdr, 64, (off_t)off) != 64)
		return 0;
	if (hdr.state == RING_FREE && hdr.pid == 0 && hdr.head)
		return 1;
	if (check_dead && !agent.pidns && hdr.state == RING_ACTIVE &&
	    hdr.proc_slot >= agent.max_procs && hdr.pid && hdr.pid <= INT32_MAX &&
	    hdr.pid != agent.seen_pid && hdr.tid &&
	    hdr.tid <= INT32_MAX &&
	    syscall(SYS_tgkill, (pid_t)hdr.pid, (pid_t)hdr.tid, 0) < 0 && errno == ESRCH)
		return 2;
	return 0;
}

/*
 * A freed ring, or UINT32_MAX; *draining says whether a ring of this
 * process is still RING_EXITED (worth waiting for); *dead is set when a
 * ring of a gone process without a slot is (agent_ring_orphan). First the rings this
 * process has mapped (those its threads had: freed with this pid), then
 * the rings of processes that have ended (freed by the collector with pid
 * 0, agent_thread.c's handshake, shm.h's process slots), which a process
 * that never had them finds by reading their headers.
 */
static uint32_t agent_ring_reuse(uint32_t n, int *draining, int *dead, int check_dead)
{
	uint32_t start = __atomic_load_n(&agent_claim_hint, __ATOMIC_RELAXED);

	*draining = 0;
	for (uint32_t k = 0; k < n; k++) {
		uint32_t idx = (start + k) % n;
		struct shm_ring *r = agent_ring_mapped(idx);
		uint32_t st, pid;

		if (!r)
			continue;
		pid = __atomic_load_n(&r->pid, __ATOMIC_RELAXED);
		if (pid != agent.seen_pid && pid != 0)
			continue;
		st = __atomic_load_n(&r->state, __ATOMIC_ACQUIRE);
		if (st == RING_ACTIVE && pid && check_dead && agent_ring_orphaned_thread(r))
			st = RING_EXITED;
		if (st == RING_EXITED && pid)
			*draining = 1;
		else if (st == RING_FREE && agent_ring_take(idx)) {
			__atomic_store_n(&agent_claim_hint, idx + 1, __ATOMIC_RELAXED);
			return idx;
		}
	}
	for (uint32_t k = 0; k < n; k++) {
		uint32_t idx = (start + k) % n;
		int o;

		if (agent_ring_mapped(idx) || !(o = agent_ring_orphan(idx, check_dead)))
			continue;
		if (o == 2) {
			*dead = 1;
			continue;
		}
		/* (a ring another process took first stays mapped here: rare) */
		if (agent_ring_take(idx)) {
			__atomic_store_n(&agent_claim_hint, idx + 1, __ATOMIC_RELAXED);
			return idx;
		}
	}
	return UINT32_MAX;
}

static uint64_t agent_claim_now_ns(void)
{
	struct timespec ts;

	/* The raw call: clock_gettime may be interposed for record/replay. */
	syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Claim a ring for the calling thread: its index, or UINT32_MAX. */
static uint32_t agent_ring_claim(struct shm_ctl *c)
{
	uint32_t max = agent.max_rings, idx, n;
	uint64_t start = 0;
	int draining, dead_seen = 0;

	/* The load first: nrings stops just past max_rings, it never wraps. */
	if (__atomic_load_n(&c->nrings, __ATOMIC_ACQUIRE) < max) {
		idx = __atomic_fetch_add(&c->nrings, 1, __ATOMIC_ACQ_REL);
		/* A scanning thread may have taken the fresh slot first. */
		if (idx < max && agent_ring_take(idx))
			return idx;
	}
	for (;;) {
		n = __atomic_load_n(&c->nrings, __ATOMIC_ACQUIRE);
		/* (threads gone unseen are looked for on the first pass only:
		 * a system call per ring) */
		idx = agent_ring_reuse(n < max ? n : max, &draining, &dead_seen, !start);
		if (idx != UINT32_MAX) {
			__atomic_store_n(&agent_claim_stalled, 0, __ATOMIC_RELAXED);
			return idx;
		}
		/* (a ring of a gone process without a slot is looked for on
		 * the first pass only, then waited for like one draining) */
		/* (spool gone: nothing drains a ring again) */
		if (!(draining || dead_seen) || __atomic_load_n(&agent_claim_stalled, __ATOMIC_RELAXED) ||
		    agent_host_gone())
			return UINT32_MAX;
		if (!start) {
			start = agent_claim_now_ns();
		} else if (agent_claim_now_ns() - start > AGENT_CLAIM_WAIT_NS) {
			__atomic_store_n(&agent_claim_stalled, 1, __ATOMIC_RELAXED);
			agent_log("no ring was freed for 1 s: threads go unrecorded");
			return UINT32_MAX;
		}
		agent_wake();
		{
			struct timespec nap = {0, AGENT_CLAIM_NAP_NS};

			syscall(SYS_nanosleep, &nap, NULL);
		}
	}
}

/* A registering thread's new state: its own, or its own within a shared
 * one (the threads on its TLS go on reading AGENT_T_SHARED). */
static void agent_thread_set(struct agent_thread *t, int shared, uint8_t state)
{
	if (shared)
		t->own_state = state;
	else
		t->state = state;
}

/* First event of a thread: claim a ring. Out of line, once per thread. */
void agent_thread_register(struct agent_thread *t)
{
	struct shm_ctl *c = agent.ctl;
	struct shm_ring *r;
	struct rec_thread *rt;
	uint32_t idx, seq;
	int saved;

	int shared = t->state == AGENT_T_SHARED;

	if ((t->state != AGENT_T_NEW && !(shared && t->own_state == AGENT_T_NEW)) ||
	    !agent.active)
		return;
	if (AGENT_UNLIKELY(!agent.seen_pid) && !shared) {
		/* a process whose pid spool cannot tell (agent_proc_claim):
		 * no ring, its events counted lost for that reason
		 * (ctl->lost_pidns, agent_enter) */
		t->state = AGENT_T_PIDNS;
		return;
	}
	/* busy before anything that may reach a probe: reading errno calls
	 * __errno_location, and a probe there (func:libc.so.6:*) registering
	 * this thread again recursed until the stack overflowed (a fork
	 * child, whose registration is the atfork handler's) */
	t->busy++;
	saved = errno;
	if (!shared && !agent_rr_mode &&
	    (uint32_t)agent_thread_sys3(SYS_getpid, 0, 0, 0) != agent.pid &&
	    agent_thread_sys3(SYS_kcmp, agent_thread_sys3(SYS_getpid, 0, 0, 0), agent.pid,
			      KCMP_VM) > 0) {
		/* A process copy on a TLS of its own whose start no wrapper
		 * saw (clone or clone3 through syscall() with CLONE_SETTLS and
		 * a stack of its own): not a thread of its parent's, which
		 * agent.pid still names. It starts over as a fork child, here
		 * on its first event (agent_thread_forking). Not a child that
		 * shares its parent's memory (vfork, CLONE_VM: kcmp says the
		 * same VM, or cannot say), whose start over would be the
		 * parent's too. */
		agent_thread_raw_child(AGENT_T_NEW, 0);
		agent_fork_early_pid = agent.pid;
		goto out;
	}
	if (!shared && !agent_thread_wrapped) {
		/* A thread on another's TLS (made by the program's own clone
		 * before spool attached): the state becomes the owner's,
		 * shared, and this thread's events are counted lost. (Raw
		 * system calls and loads only: no libc function a probe may
		 * be on.) Not a thread the agent's pthread_create started:
		 * glibc gave it a TLS of its own. */
		uint32_t owner = agent_thread_tcb_tid();

		if (agent_thread_on_foreign_tls()) {
			t->owner_tid = owner;
			t->own_state = AGENT_T_NEW;
			__atomic_store_n(&t->state, AGENT_T_SHARED, __ATOMIC_RELEASE);
			__atomic_fetch_add(&agent.ctl->lost_clone, 1, __ATOMIC_RELAXED);
			goto out;
		}
	}
	idx = agent_ring_claim(c);
	if (idx == UINT32_MAX) {
		agent_thread_set(t, shared, AGENT_T_NORING);
		agent_log("no ring left for tid %d (more threads alive than --max-threads)",
			  (int)gettid());
		goto out;
	}
	/* Mapped by the claim (agent_ring_take, agent_main.c). */
	r = agent_ring_map(idx);
	if (!r) {
		/* Its events are counted in lost_no_ring (agent_enter). */
		agent_thread_set(t, shared, AGENT_T_NORING);
		agent_log("cannot map ring %u for tid %d", idx, (int)gettid());
		goto out;
	}
	/* (tid, pid and proc_slot were stored by the claim) */
	r->thread_index = idx;
	ring_prod_init(&t->prod, r, agent.ring_bytes, agent.watermark);
	t->prod.on_ready = agent_ring_ready;
	/* A reused ring goes on at its head. Once head has wrapped, a thread
	 * of this process (the only one that reuses the ring) wrote every
	 * page: nothing left to populate (after an exec, the new image faults
	 * them in one by one on first use: slower, nothing worse). */
	if (t->prod.head >= agent.ring_bytes) {
		t->prod.ready = UINT64_MAX;
	} else {
		t->prod.ready = t->prod.head & ~(uint64_t)4095;
		agent_ring_ready(&t->prod, t->prod.head + 1);
	}
	if (!(c->flags & SHM_F_DROP_WHEN_FULL))
		t->prod.on_full = agent_ring_full;
	if (agent.packets)
		ring_prod_packets(&t->prod, shm_pkt_slot(agent.ring_bytes), agent_ring_sites(idx),
				  agent.seen_pid, r->tid);
	t->prod.pkt.untimed = (uint16_t)agent.untimed;
	t->index = idx;
	t->word = ev_word(KIND_LOCK, idx, 0, 0);
	t->seq = 0;
	t->stack_hi = agent_stack_hi();
	agent_thread_stack_range(t);
	if (!shared)
		t->owner_tid = r->tid;
	agent_thread_set(t, shared, AGENT_T_ON);
	if (AGENT_UNLIKELY(agent_sys_cpu_on))
		agent_sys_thread_start(t);

	rt = agent_meta_begin(t, sizeof(*rt), &seq);
	if (rt) {
		rt->tid = r->tid;
		rt->pid = agent.seen_pid;
		rt->pthread = (uint64_t)pthread_self();
		memset(rt->name, 0, sizeof(rt->name));
		/* not prctl(): the agent's own is the interposer (agent_tname.c) */
		agent_thread_sys3(SYS_prctl, PR_GET_NAME, (long)rt->name, 0);
		rt->name[sizeof(rt->name) - 1] = 0;
		agent_meta_end(t, &rt->h, KIND_THREAD, 0, seq, sizeof(*rt));
	}
	if (!__atomic_exchange_n(&agent.proc_emitted, 1, __ATOMIC_ACQ_REL)) {
		/* which ring holds it, before it is written (and published
		 * with it: the commit's release orders this store first) */
		if (agent.proc_slot != UINT32_MAX)
			__atomic_store_n(&shm_proc_at(agent.ctl, agent.proc_slot)->proc_ring,
					 idx + 1, __ATOMIC_RELEASE);
		agent_emit_proc(t);
	}
	if (agent_exit_key_ok)
		pthread_setspecific(agent_exit_key, (void *)1);
	agent_log("tid %u pid %u ring %u", r->tid, agent.pid, idx);
out:
	t->busy--;
	errno = saved;
}

/* The thread is ending: record it and hand its ring back (the collector
 * frees it once drained). Once every fresh slot is handed out, wake the
 * collector so that the ring is free soon for the next thread. */
static void agent_thread_exit_own(struct agent_thread *t, uint64_t ip);

void agent_thread_exit(struct agent_thread *t, uint64_t ip)
{
	if (t->state != AGENT_T_SHARED) {
		agent_thread_exit_own(t, ip);
		return;
	}
	/* only the owner ends the ring; the clone threads on its TLS drop
	 * their events from then on as before (own_state DONE) */
	if (agent_thread_tid() != t->owner_tid)
		return;
	t->state = t->own_state;
	agent_thread_exit_own(t, ip);
	t->own_state = t->state;
	t->state = AGENT_T_SHARED;
}

static void agent_thread_exit_own(struct agent_thread *t, uint64_t ip)
{
	struct shm_ring *r;

	if (t->state != AGENT_T_ON)
		return;
	if (AGENT_UNLIKELY(agent_rr_mode))
		agent_rr_thread_end();
	if (AGENT_UNLIKELY(agent_sys_cpu_on))
		agent_sys_thread_end(t);
	agent_emit(t, 0, OP_THREAD_EXIT, ip, (uint64_t)pthread_self(), __builtin_frame_address(0));
	r = t->prod.ring;
	/* its last packet goes to the collector now (SHM_F_PACKETS) */
	t->busy++;
	if (ring_prod_flush(&t->prod))
		agent_wake();
	t->busy--;
	t->state = AGENT_T_DONE;
	__atomic_store_n(&r->state, RING_EXITED, __ATOMIC_RELEASE);
	if (__atomic_load_n(&agent.ctl->nrings, __ATOMIC_RELAXED) >= agent.max_rings)
		agent_wake();
}

void agent_thread_fork_child(void)
{
	struct agent_thread *t = &agent_self;
	int i;

	if (!agent.ctl)
		return;
	/* The other threads are gone, and with them their in-flight starts. */
	for (i = 0; i < AGENT_START_SLOTS; i++)
		agent_starts[i].used = 0;
	memset(&t->prod, 0, sizeof(t->prod));
	t->state = AGENT_T_NEW;
	t->seq = 0;
	if (!agent.active)
		return;
	agent_lock_table_clear();
	agent_proc_claim(PROC_F_FORK);
	agent_thread_register(t);
}

/* ---- interposers ---- */

static void *agent_thread_start(void *p)
{
	struct agent_start *s = p;
	void *(*fn)(void *) = s->fn;
	void *arg = s->arg;
	uint64_t held = s->sig_held;
	struct agent_thread *t;
	void *ret;

	if (AGENT_UNLIKELY(agent_rr_mode))
		agent_scrub_thread(); /* the stubs' bounds on this stack */
	agent_rr_thread_start(s->rr_number);
	agent_probe_trap_view_set(s->sig_view);
	__atomic_store_n(&s->used, 0, __ATOMIC_RELEASE);
	agent_thread_wrapped = 1;
	agent_thread_tcb_check();
	t = agent_enter();
	if (t)
		agent_emit(t, 0, OP_THREAD_START, (uint64_t)(uintptr_t)fn,
			   (uint64_t)pthread_self(), __builtin_frame_address(0));
	else if (AGENT_UNLIKELY(agent_rr_mode) && agent_self.state == AGENT_T_NORING)
		agent_rr_thread_noring(); /* spool's limit: never the program's fault */
	/* numbered (or, past the rings, not for good): the signals that came
	 * since the creation are taken now, recorded when it is numbered */
	if (AGENT_UNLIKELY(held))
		agent_rr_start_unhold(held);
	agent_rr_dispatch_thread(); /* dispatch is per thread (record, replay, int3 probes) */
	if (AGENT_UNLIKELY(agent_rr_mode))
		agent_rr_thread_go(); /* serial mode: no user code before the run token */
	/* the start's work differs between a recording and its replay: the
	 * program's frames on this stack start on zeros in both */
	if (AGENT_UNLIKELY(agent_rr_mode))
		agent_stack_scrub();
	ret = fn(arg);
	t = agent_enter();
	if (t)
		agent_thread_exit(t, (uint64_t)(uintptr_t)fn);
	return ret;
}

static struct agent_start *agent_start_alloc(void)
{
	int i;

	for (i = 0; i < AGENT_START_SLOTS; i++) {
		uint32_t z = 0;

		if (!__atomic_load_n(&agent_starts[i].used, __ATOMIC_RELAXED) &&
		    __atomic_compare_exchange_n(&agent_starts[i].used, &z, 1, 0, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			return &agent_starts[i];
	}
	return NULL;
}

/*
 * Record/replay: a numbered thread must be wrapped, or it never takes its
 * number, and serial mode would hand the run token to a thread that never
 * takes it (the watchdog would then blame the program for spool's limit).
 * The slots free as soon as the new threads run their first instruction,
 * which needs no token: wait for one, a bounded time. Still none: the
 * recording is incomplete, and the thread is created unnumbered.
 */
static struct agent_start *agent_start_wait(uint32_t *rr)
{
	uint64_t start = agent_claim_now_ns();

	while (agent_claim_now_ns() - start < 1000000000ull) {
		struct timespec nap = {0, 50000};
		struct agent_start *s;

		syscall(SYS_nanosleep, &nap, NULL);
		if ((s = agent_start_alloc()))
			return s;
	}
	agent_rr_thread_unnumbered();
	*rr = RR_NO_TURN;
	return NULL;
}

AGENT_EXPORT int pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *),
				void *arg)
{
	uint64_t ip = AGENT_RET_IP();
	struct agent_thread *t;
	struct agent_start *s;
	uint32_t rr = RR_NO_TURN;
	int rc;

	AGENT_REAL_OR(create, EAGAIN);
	/* (before anything: sync mode's stdio reads stop being recorded at
	 * the same point of the program in its replay, agent_rr_stdio.c) */
	__atomic_store_n(&agent_rr_threads_made, 1, __ATOMIC_RELAXED);
	t = agent_enter();
	if (!t)
		return agent_real.create(th, attr, fn, arg);
	/* Record/replay numbers threads in creation order (agent_rr.c); a
	 * replayed failure returns without creating anything. */
	if (AGENT_UNLIKELY(agent_rr_mode)) {
		rr = agent_rr_create_begin(t, &rc);
		if (rc)
			return rc;
	}
	s = agent_start_alloc();
	if (!s && rr != RR_NO_TURN)
		s = agent_start_wait(&rr);
	if (!s) {
		agent_log("start slots exhausted: thread not wrapped");
		rc = agent_real.create(th, attr, fn, arg);
	} else {
		s->fn = fn;
		s->arg = arg;
		s->rr_number = rr;
		uint64_t old_mask = 0;
		int held = 0;

		s->sig_view = agent_probe_trap_view();
		s->sig_held = 0;
		if (AGENT_UNLIKELY(agent_rr_mode) && rr != RR_NO_TURN)
			held = agent_rr_start_hold(attr, &old_mask, &s->sig_held);
		rc = agent_real.create(th, attr, agent_thread_start, s);
		if (held)
			agent_rr_start_unhold_creator(old_mask);
		if (rc)
			__atomic_store_n(&s->used, 0, __ATOMIC_RELEASE);
	}
	if (AGENT_UNLIKELY(agent_rr_mode))
		agent_rr_create_end(t, rr, rc);
	if (!rc)
		agent_emit(t, 0, OP_THREAD_CREATE, ip, (uint64_t)*th, __builtin_frame_address(0));
	return rc;
}

/* Record: the thread was cancelled in pthread_join (agent_rr_cancel.c):
 * the join's record says so (result ECANCELED), the token comes back. */
static void agent_join_cancelled(struct agent_rr_cancel_guard *g)
{
	if (g->t->state == AGENT_T_ON)
		agent_rr_join_end(g->t, ECANCELED);
}

AGENT_EXPORT int pthread_join(pthread_t th, void **ret)
{
	uint64_t ip = AGENT_RET_IP();
	struct agent_thread *t;
	int rc;

	AGENT_REAL_OR(join, ENOSYS);
	t = agent_enter();
	if (!t)
		return agent_real.join(th, ret);
	agent_emit(t, 0, OP_THREAD_JOIN_BEGIN, ip, (uint64_t)th, __builtin_frame_address(0));
	if (AGENT_UNLIKELY(agent_rr_mode)) {
		int want = agent_rr_join_begin(t);

		if ((agent_rr_mode & RR_MODE_REPLAY) && want == ECANCELED) {
			/* cancelled in the join, as recorded */
			agent_rr_join_end(t, ECANCELED);
			agent_rr_rep_cancel("pthread_join");
		}
		if (agent_rr_mode & RR_MODE_RECORD) {
			struct agent_rr_cancel_guard g = {t, 0, 0, 0, agent_join_cancelled};

			AGENT_RR_CANCEL_PUSH(&g);
			rc = agent_rr_join_wait(th, ret);
			AGENT_RR_CANCEL_POP();
		} else {
			rc = agent_rr_join_wait(th, ret);
		}
	} else {
		rc = agent_real.join(th, ret);
	}
	t = agent_enter();
	if (t && AGENT_UNLIKELY(agent_rr_mode))
		agent_rr_join_end(t, rc);
	if (t)
		agent_emit(t, 0, rc ? OP_TIMEOUT : OP_THREAD_JOIN_END, ip,
			   rc ? (uint64_t)rc : (uint64_t)th, __builtin_frame_address(0));
	return rc;
}

AGENT_EXPORT void pthread_exit(void *ret)
{
	uint64_t ip = AGENT_RET_IP();
	struct agent_thread *t;

	if (!agent_real.exit)
		agent_resolve();
	/* glibc unwinds the thread (cleanup handlers, destructors) through
	 * the return addresses: the real ones, not the probes' trampoline */
	agent_probe_ra_unhook((uint64_t)(uintptr_t)__builtin_dwarf_cfa());
	t = agent_enter();
	/* Its end is recorded by the key destructor, after the cleanup
	 * handlers and destructors the unwinding runs: they are the thread's
	 * own code, and their probe hits and lock events were dropped
	 * uncounted when it ended here (tests/integ/362). Record/replay keeps
	 * its end here (its thread-end protocol), as does a process without
	 * the key. */
	if (t && (AGENT_UNLIKELY(agent_rr_mode) || !agent_exit_key_ok))
		agent_thread_exit(t, ip);
	else if (t)
		agent_exit_ip = ip;
	if (agent_real.exit)
		agent_real.exit(ret);
	/* Unreachable unless dlsym failed: leave the thread the hard way. */
	for (;;)
		syscall(SYS_exit, 0);
}
