// SPDX-License-Identifier: MIT
/*
 * agent_snap.c - the snapshot primitive of serial mode (agent_snap.h,
 * doc/record.md "Snapshots"): the token holder, at a switch point where
 * every other numbered thread is parked in ser_wait, makes a raw clone of
 * the process; the copy recreates the parked threads.
 *
 * Why a raw clone: glibc's fork runs its child clean-up (the thread count
 * set to one, the other threads' stacks put back in the cache for reuse),
 * which would hand a recreated thread's stack to the next pthread_create.
 * The raw clone keeps memory as it was: every struct pthread, every stack,
 * the thread count. A recording's copy has exit signal 0, not SIGCHLD: a
 * program that waits for any child (wait(NULL)) never reaps, nor sees, a
 * copy; the agent reaps its copies by pid (__WALL). Under a debugger (gdb's
 * record-mode) and for a replay's checkpoints it is SIGCHLD: gdb takes a
 * clone with another exit signal for a new thread of the program.
 *
 * Recreating a thread: clone with the flags glibc uses (CLONE_VM ...
 * CLONE_SETTLS with the saved FS base, parent and child tid at the thread's
 * tid word, so pthread_join works in the copy), on a few KiB of the
 * thread's own stack below its saved stack pointer (free: it waits above);
 * the new thread sets its robust list, alternate signal stack and rseq area,
 * marks its agent state done (not in a replay's runner), and setcontexts
 * into its wait.
 *
 * What a recording's copy does (rr_area.snap_mode): RR_SNAP_IMAGE writes
 * the snapshot into the trace (agent_snap_img.c) and ends; RR_SNAP_EXIT
 * ends at once (the pause alone is measured); RR_SNAP_RUN (a test of the
 * primitive) makes all of spool's shared memory its own, detaches from the
 * recording like a fork child and runs the program on with every thread.
 * A replay's checkpoints (the end of this file) use the same primitive.
 *
 * Agent rules: no malloc (the slots are one mmap at start), raw system
 * calls for wait4, tgkill and clone; the holder runs here at a switch point
 * of its own, outside any signal handler of the agent.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "../arch/arch.h"
#include "../arch/arch_snap.h"
#include "agent_rr.h"
#include "agent_rr_cpuid.h"
#include "agent_serial.h"
#include "agent_snap.h"
#include "../replay/rr_snap_fmt.h"

#ifndef PR_GET_TID_ADDRESS
#define PR_GET_TID_ADDRESS 40
#endif
#define SNAP_COPIES 64 /* copies not reaped yet, at most */
#define SNAP_RSEQ_SIG 0x53053053

int agent_snap_on;

static struct rr_area *snap_area;
static uint64_t snap_area_size;
static struct agent_snap_thread *snap_thr; /* AGENT_SNAP_THREADS slots, one mmap */
uint32_t agent_snap_want;
static uint64_t snap_next;		   /* switches at which the next one is due */
/* By time (rr_area.snap_period_ns): when it is due, and the pass count
 * and time the period began at (snap_time_due). */
static uint64_t snap_due_ns, snap_rate_sw, snap_rate_ns;
/* agent_snap_due: the calibration of arch_ts (ticks a nanosecond, 0 until
 * known) and the tick count before which the clock is not read again. */
static uint64_t snap_cal_ts, snap_cal_ns, snap_look_ts;
static double snap_ticks_ns;
/* (a program with few switch points passes the slow path a few times a
 * second only: the first look is soon, the next ones at its rate) */
#define SNAP_TIME_STEP0 4
#define SNAP_TIME_STEP_MAX 1000000
/* The position snapshots are due at: by time, the holder's passes through
 * the scheduler's slow path (a program that makes no switch, one thread
 * or threads that never wait for the token, passes there every few
 * hundred points too, and gets snapshots); by count, switches. */
static uint64_t snap_passes;
static uint64_t snap_tried;    /* position of the last attempt that failed */
static uint64_t snap_tried_sw; /* switches then: a delay counts once a switch */
static int32_t snap_copies[SNAP_COPIES];
/* 1 while the holder checks the threads and clones: a joiner that leaves
 * its parked wait (agent_snap_join_wait) waits for it to be 0. */
static uint32_t snap_busy;
/* A runner (replay checkpoint): recreated threads stay recorded by the
 * agent, which replays through them; a detached copy's threads do not. */
static int snap_keep_agent;
/* The snapshot being taken (the copy writes them into its image). */
static uint64_t snap_index, snap_turn, snap_switches, snap_count;
static unsigned long snap_exit_sig; /* of a record snapshot's copy: 0, or SIGCHLD under gdb */
static uint32_t snap_test_copy_ms; /* SPOOL_TEST_SNAP_COPY_MS (agent_snap_init) */
/* A restore's thread hook (agent_snap_spawn), run before its setcontext. */
static void (*snap_entry_hook)(struct agent_snap_thread *);
__thread int agent_snap_resumed;

/* glibc 2.35+: where each thread's rseq area is (weak: older glibc). */
extern const ptrdiff_t __rseq_offset __attribute__((weak));
extern const unsigned int __rseq_size __attribute__((weak));

/* Thread clone on a new stack: (flags, stack, ptid, ctid, tls, slot). The
 * child calls snap_thread_entry(slot) with rsp = stack, never returns. */
void agent_snap_thread_entry(struct agent_snap_thread *t)
    __attribute__((visibility("hidden"), noreturn, used));
long agent_snap_clone_thread(unsigned long flags, void *stack, int32_t *ptid, int32_t *ctid,
			     uint64_t tls, struct agent_snap_thread *t)
    __attribute__((visibility("hidden")));
#if defined(__x86_64__)
__asm__(".text\n"
	".globl agent_snap_clone_thread\n"
	".hidden agent_snap_clone_thread\n"
	".type agent_snap_clone_thread,@function\n"
	"agent_snap_clone_thread:\n"
	"	mov %rcx, %r10\n"
	"	mov $56, %eax\n" /* SYS_clone: flags, stack, ptid, ctid, tls */
	"	syscall\n"
	"	test %rax, %rax\n"
	"	jnz 1f\n"
	"	xor %ebp, %ebp\n"
	"	mov %r9, %rdi\n" /* r9 survives the syscall */
	"	and $-16, %rsp\n"
	"	call agent_snap_thread_entry\n"
	"	hlt\n"
	"1:	ret\n"
	".size agent_snap_clone_thread, .-agent_snap_clone_thread\n");
#elif defined(__aarch64__)
/* arm64's clone takes (flags, stack, ptid, tls, ctid): tls and ctid swap
 * places. x5 (the slot) survives the svc; the child's sp is the stack. */
__asm__(".text\n"
	".globl agent_snap_clone_thread\n"
	".hidden agent_snap_clone_thread\n"
	".type agent_snap_clone_thread,%function\n"
	"agent_snap_clone_thread:\n"
	"	mov x6, x3\n"
	"	mov x3, x4\n"
	"	mov x4, x6\n"
	"	mov x8, #220\n" /* SYS_clone */
	"	svc #0\n"
	"	cbnz x0, 1f\n"
	"	mov x29, #0\n"
	"	mov x30, #0\n"
	"	mov x0, x5\n"
	"	bl agent_snap_thread_entry\n"
	"	brk #0\n"
	"1:	ret\n"
	".size agent_snap_clone_thread, .-agent_snap_clone_thread\n");
#endif

/*
 * long agent_snap_watcher(int pidfd, void *stack_top): a thread of the
 * copy, with no TLS of its own and every signal blocked (its creator's
 * mask at the clone), that waits in poll for the program's pidfd to be
 * readable (the program ended: exited, or killed by SIGKILL, whose exit
 * path never runs agent_snap_exit_wait) and then kills the copy with
 * SIGKILL. Raw system calls only: it must not touch errno or the stack
 * protector's TLS word. A poll error other than EINTR ends the watcher
 * alone. Returns the clone's result in the creator.
 */
long agent_snap_watcher(int pidfd, void *stack_top) __attribute__((visibility("hidden")));
#if defined(__x86_64__)
__asm__(".text\n"
	".globl agent_snap_watcher\n"
	".hidden agent_snap_watcher\n"
	".type agent_snap_watcher,@function\n"
	"agent_snap_watcher:\n"
	"	mov %edi, %r8d\n"   /* the pidfd: r8 survives the syscall */
	"	mov $0x50f00, %edi\n" /* VM FS FILES SIGHAND THREAD SYSVSEM */
	"	xor %edx, %edx\n"
	"	xor %r10d, %r10d\n"
	"	mov $56, %eax\n" /* SYS_clone(flags, stack, 0, 0, 0) */
	"	syscall\n"
	"	test %rax, %rax\n"
	"	jnz 9f\n"
	"	xor %ebp, %ebp\n"
	"	sub $16, %rsp\n"
	"	mov %r8d, (%rsp)\n" /* struct pollfd: fd, POLLIN, revents 0 */
	"	movl $1, 4(%rsp)\n"
	"1:	mov %rsp, %rdi\n"
	"	mov $1, %esi\n"
	"	mov $-1, %edx\n"
	"	mov $7, %eax\n" /* SYS_poll */
	"	syscall\n"
	"	cmp $-4, %rax\n" /* EINTR */
	"	je 1b\n"
	"	test %rax, %rax\n"
	"	jle 2f\n"
	"	mov $39, %eax\n" /* SYS_getpid */
	"	syscall\n"
	"	mov %rax, %rdi\n"
	"	mov $9, %esi\n" /* SIGKILL */
	"	mov $62, %eax\n" /* SYS_kill */
	"	syscall\n"
	"	mov $137, %edi\n"
	"	mov $231, %eax\n" /* SYS_exit_group, should the kill fail */
	"	syscall\n"
	"2:	xor %edi, %edi\n"
	"	mov $60, %eax\n" /* SYS_exit: this thread only */
	"	syscall\n"
	"	hlt\n"
	"9:	ret\n"
	".size agent_snap_watcher, .-agent_snap_watcher\n");
#elif defined(__aarch64__)
/* x9 (the pidfd) survives the svc: arm64 system calls change x0 alone. */
__asm__(".text\n"
	".globl agent_snap_watcher\n"
	".hidden agent_snap_watcher\n"
	".type agent_snap_watcher,%function\n"
	"agent_snap_watcher:\n"
	"	mov w9, w0\n"
	"	mov x0, #0x0f00\n" /* VM FS FILES SIGHAND THREAD SYSVSEM */
	"	movk x0, #0x5, lsl #16\n"
	"	mov x2, #0\n"
	"	mov x3, #0\n"
	"	mov x4, #0\n"
	"	mov x8, #220\n" /* SYS_clone(flags, stack, 0, 0, 0) */
	"	svc #0\n"
	"	cbnz x0, 9f\n"
	"	mov x29, #0\n"
	"	mov x30, #0\n"
	"	sub sp, sp, #16\n"
	"	str w9, [sp]\n" /* struct pollfd: fd, POLLIN, revents 0 */
	"	mov w10, #1\n"
	"	str w10, [sp, #4]\n"
	"1:	mov x0, sp\n"
	"	mov x1, #1\n"
	"	mov x2, #0\n" /* no timeout */
	"	mov x3, #0\n" /* no mask */
	"	mov x4, #0\n"
	"	mov x8, #73\n" /* SYS_ppoll */
	"	svc #0\n"
	"	cmn x0, #4\n" /* EINTR */
	"	b.eq 1b\n"
	"	cmp x0, #0\n"
	"	b.le 2f\n"
	"	mov x8, #172\n" /* SYS_getpid */
	"	svc #0\n"
	"	mov x1, #9\n"	/* SIGKILL */
	"	mov x8, #129\n" /* SYS_kill */
	"	svc #0\n"
	"	mov x0, #137\n"
	"	mov x8, #94\n" /* SYS_exit_group, should the kill fail */
	"	svc #0\n"
	"2:	mov x0, #0\n"
	"	mov x8, #93\n" /* SYS_exit: this thread only */
	"	svc #0\n"
	"	brk #0\n"
	"9:	ret\n"
	".size agent_snap_watcher, .-agent_snap_watcher\n");
#endif

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

/*
 * A copy that runs on (RR_SNAP_RUN) is part of the recording: it must not
 * outlive the program. agent_snap_exit_wait ends the copies at a normal
 * exit; a program killed with SIGKILL runs no exit path, so the copy
 * watches the program itself (a pidfd, readable once it ended) from a
 * thread of its own, and is killed with it. Called in the copy while only
 * its first thread runs. PR_SET_PDEATHSIG would not do: it follows the
 * thread that cloned the copy, which may end long before the program.
 * Without pidfd_open (before Linux 5.3) the copy is not watched.
 */
static void snap_watch_program(pid_t prog)
{
	uint64_t all = ~0ull, old = 0;
	const size_t size = 16384;
	long fd, st;

	fd = syscall(SYS_pidfd_open, prog, 0);
	if (fd < 0) {
		agent_log("snapshot copy: no pidfd of pid %d (%d): not ended with the program",
			  (int)prog, errno);
		return;
	}
	/* The program ended before the pidfd was taken (the copy was
	 * reparented): the pid may be another process's already. */
	if (syscall(SYS_getppid) != prog)
		syscall(SYS_exit_group, 0);
	st = syscall(SYS_mmap, NULL, size, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (st < 0 || st == (long)MAP_FAILED) {
		syscall(SYS_close, fd);
		return;
	}
	/* The watcher starts with every signal blocked: a signal sent to the
	 * copy's process is for the program's threads. */
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &all, &old, 8);
	if (agent_snap_watcher((int)fd, (char *)st + size) < 0) {
		agent_log("snapshot copy: no watcher thread: not ended with the program");
		syscall(SYS_munmap, st, size);
		syscall(SYS_close, fd);
	}
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &old, NULL, 8);
}

static uint64_t snap_now_ns(void)
{
	struct timespec ts;

	syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* 1 when a debugger traces this process, 0 when none, -1 when unknown
 * (/proc/self/status: TracerPid), with raw calls. */
static int snap_traced(void)
{
	char buf[2048], *p;
	long fd = syscall(SYS_openat, AT_FDCWD, "/proc/self/status", O_RDONLY | O_CLOEXEC);
	long n;

	if (fd < 0)
		return -1;
	n = syscall(SYS_read, fd, buf, sizeof(buf) - 1);
	syscall(SYS_close, fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	p = strstr(buf, "TracerPid:");
	if (!p)
		return -1;
	p += 10;
	while (*p == ' ' || *p == '\t')
		p++;
	return *p != '0';
}

struct agent_snap_thread *agent_snap_slot(uint32_t id)
{
	return snap_thr && id < AGENT_SNAP_THREADS ? &snap_thr[id] : NULL;
}

void agent_snap_forget(void)
{
	agent_snap_on = 0;
	snap_area = NULL;
	__atomic_store_n(&agent_snap_want, 0, __ATOMIC_RELEASE);
}

void agent_snap_init(struct rr_area *a, uint64_t size)
{
	void *p;

	agent_snap_forget();

	if (a->mode == RR_MODE_RECORD ? !a->snap_period && !a->snap_period_ns
				      : !(a->opts & RR_O_CHECKPOINTS))
		return;
	/* in the agent's window: the program's own mappings stay where its
	 * replays (which take no snapshots) have them */
	p = agent_vm_map(AGENT_SNAP_THREADS * sizeof(struct agent_snap_thread),
			 PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED) {
		agent_log("snapshots off: no memory for the thread slots");
		return;
	}
	snap_thr = p;
	snap_area = a;
	snap_area_size = size;
	/* For tests only (tests/integ/402): each copy stays this many ms
	 * after writing its image, as a copy compressing a big image under
	 * load does. Read here, in the constructor. */
	{
		const char *h = getenv("SPOOL_TEST_SNAP_COPY_MS");

		snap_test_copy_ms = 0;
		while (h && *h >= '0' && *h <= '9' && snap_test_copy_ms < 600000)
			snap_test_copy_ms = snap_test_copy_ms * 10 + (uint32_t)(*h++ - '0');
	}
	snap_next = a->mode != RR_MODE_RECORD ? UINT64_MAX
		    : a->snap_period_ns	      ? SNAP_TIME_STEP0
					      : a->snap_period;
	snap_due_ns = snap_now_ns() + a->snap_period_ns;
	snap_rate_ns = snap_due_ns - a->snap_period_ns;
	snap_rate_sw = snap_passes;
	snap_cal_ns = snap_rate_ns;
	snap_cal_ts = arch_ts();
	snap_ticks_ns = 0;
	snap_look_ts = 0;
	/* Under gdb (record-mode) a clone whose exit signal is not SIGCHLD
	 * is a new thread to gdb: there the copies are forks to it. */
	snap_exit_sig = snap_traced() != 0 ? SIGCHLD : 0;
	if (a->mode == RR_MODE_RECORD && a->snap_mode == RR_SNAP_IMAGE &&
	    agent_snap_img_init() < 0) {
		agent_log("snapshots off: libzstd cannot be loaded");
		a->snap_failed = RR_SNAP_OFF_ZSTD;
		agent_snap_on = 0;
		return;
	}
	if (a->mode == RR_MODE_RECORD) {
		const char *who;

		/* a replay restored from a snapshot would fail every check of
		 * a return address signed before it (arch_snap.h) */
		if (arch_snap_signed_returns(&who)) {
			agent_log("snapshots off: %s signs return addresses (pointer "
				  "authentication)",
				  *who ? who : "the program");
			a->snap_failed = RR_SNAP_OFF_PAC;
			agent_snap_on = 0;
			return;
		}
	}
	snap_tried = UINT64_MAX;
	__atomic_store_n(&agent_snap_want, a->mode != RR_MODE_RECORD, __ATOMIC_RELEASE);
	agent_snap_on = 1;
	agent_snap_thread_start(0);
}

/* What stays the same for a thread's life: FS base, robust list, tid word. */
void agent_snap_thread_start(uint32_t id)
{
	struct agent_snap_thread *t = agent_snap_slot(id);
	int32_t tid = (int32_t)syscall(SYS_gettid);
	int32_t *tidp = NULL;
	uint64_t fs = 0;
	size_t len = 0;
	void *head = NULL;

	if (!t)
		return;
	fs = arch_snap_tp();
	syscall(SYS_get_robust_list, 0, &head, &len);
	/* The kernel's clear_child_tid is glibc's &pd->tid (set by clone or
	 * set_tid_address); a kernel without CHECKPOINT_RESTORE (or qemu-user)
	 * refuses the prctl, and glibc's layout is the fallback, checked. */
	if (syscall(SYS_prctl, PR_GET_TID_ADDRESS, &tidp, 0, 0, 0) < 0 || !tidp || *tidp != tid) {
		int32_t *g = (int32_t *)((uintptr_t)pthread_self() + ARCH_SNAP_TID_OFF);

		tidp = *g == tid ? g : NULL;
	}
	t->fs = fs;
	t->robust = (uint64_t)(uintptr_t)head;
	t->robust_len = len;
	t->tidp = tidp;
	t->tid = tid;
	t->gone = 0;
	t->out_save = 0;
	__atomic_store_n(&t->parked, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&t->valid, fs && tidp ? 1u : 0u, __ATOMIC_RELEASE);
}

void agent_snap_before_park(struct agent_snap_thread *t)
{
	if (syscall(SYS_sigaltstack, NULL, &t->alt) < 0)
		t->alt.ss_flags = SS_DISABLE;
}

/* ---- the copy ---- */

/* A recreated thread, on a scrap of its own stack, with its TLS. */
void agent_snap_thread_entry(struct agent_snap_thread *t)
{
	syscall(SYS_set_robust_list, (void *)(uintptr_t)t->robust, (size_t)t->robust_len);
	if (!(t->alt.ss_flags & SS_DISABLE)) {
		stack_t ss = t->alt;

		ss.ss_flags &= SS_AUTODISARM;
		syscall(SYS_sigaltstack, &ss, NULL);
	}
	if (&__rseq_size && &__rseq_offset && __rseq_size >= 32)
		syscall(SYS_rseq, (void *)(uintptr_t)(t->fs + (uint64_t)__rseq_offset),
			(uint32_t)__rseq_size, 0, SNAP_RSEQ_SIG);
	if (snap_entry_hook)
		snap_entry_hook(t);
	else if (!snap_keep_agent)
		agent_self.state = AGENT_T_DONE; /* its ring is the recording's */
	setcontext(&t->ctx);
	syscall(SYS_exit, 127); /* setcontext failed: this thread cannot be */
	__builtin_unreachable();
}

/* Recreate every parked thread (not me). The restore time goes to the
 * area (private by then: for a test's figures only). */
static void snap_restore_threads(uint32_t me, uint32_t n)
{
	const unsigned long flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND |
				    CLONE_THREAD | CLONE_SYSVSEM | CLONE_SETTLS |
				    CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID;
	uint64_t t0 = snap_now_ns();
	sigset_t all, old;

	sigfillset(&all);
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &all, &old, 8);
	for (uint32_t id = 0; id < n; id++) {
		struct agent_snap_thread *t = &snap_thr[id];
		uintptr_t sp;

		if (id == me || !t->restore)
			continue;
		/* Below its saved stack pointer, past the red zone. */
		sp = (arch_snap_ctx_sp(&t->ctx) - 512) & ~(uintptr_t)15;
		agent_snap_clone_thread(flags, (void *)sp, t->tidp, t->tidp, t->fs, t);
	}
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &old, NULL, 8);
	snap_area->snap_restore_ns = snap_now_ns() - t0;
	agent_log("snapshot copy pid %ld: threads recreated in %llu us", syscall(SYS_getpid),
		  (unsigned long long)(snap_area->snap_restore_ns / 1000));
}

long agent_snap_spawn(struct agent_snap_thread *t, void (*hook)(struct agent_snap_thread *))
{
	const unsigned long flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND |
				    CLONE_THREAD | CLONE_SYSVSEM | CLONE_SETTLS |
				    CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID;
	uintptr_t sp;

	snap_entry_hook = hook;
	sp = (arch_snap_ctx_sp(&t->ctx) - 512) & ~(uintptr_t)15;
	return agent_snap_clone_thread(flags, (void *)sp, t->tidp, t->tidp, t->fs, t);
}

static int snap_privatize_shm(void);

static void snap_copy(uint32_t me, uint32_t n)
{
	struct agent_snap_thread *t = &snap_thr[me];

	/* The copy records nothing: its cpuid run for real (a cpuid answered
	 * through the recording's switch points took a snapshot of the copy,
	 * whose copy did the same: a fork bomb) */
	agent_rr_cpuid_arch_off();
	/* A fork child starts without a robust list. */
	syscall(SYS_set_robust_list, (void *)(uintptr_t)t->robust, (size_t)t->robust_len);
	if (snap_area->snap_mode == RR_SNAP_IMAGE) {
		struct sched_param batch = {0};

		/* Out of the program's way at once: a new task may preempt
		 * its parent on the parent's CPU, and the copy's first act is
		 * some 100 ms of hashing and compressing, so the program's
		 * pause, the clone, lasted a time slice or more under load
		 * (3 MB heap: 0.25 ms of CPU, up to 4 ms wall). SCHED_BATCH
		 * never preempts at a wakeup and keeps its CPU share, so the
		 * image is written as fast as before. */
		syscall(SYS_sched_setscheduler, 0, SCHED_BATCH, &batch);
		syscall(SYS_sched_yield);
		/* Not the program's name: `pgrep -n haproxy` found the copy (or
		 * its zombie, until the next snapshot reaps it), and a user's
		 * kill by name signalled it instead of the program. */
		syscall(SYS_prctl, PR_SET_NAME, "spool-snapshot", 0, 0, 0);
		/* The area is shared: the counts reach spool. */
		snap_area->trace_dir[sizeof(snap_area->trace_dir) - 1] = 0;
		int rc = agent_snap_img_write(snap_area, snap_area->trace_dir, snap_index, snap_turn,
					      snap_count, snap_switches, me, n, snap_thr);

		if (rc == 0)
			__atomic_fetch_add(&snap_area->snap_written, 1, __ATOMIC_RELAXED);
		else if (rc == -EFBIG) {
			/* the budget (--snap-max): no more are taken */
			__atomic_fetch_add(&snap_area->snap_over, 1, __ATOMIC_RELAXED);
			__atomic_store_n(&snap_area->snap_full, 1, __ATOMIC_RELEASE);
		} else {
			__atomic_store_n(&snap_area->snap_err, errno, __ATOMIC_RELAXED);
			__atomic_fetch_add(&snap_area->snap_failed, 1, __ATOMIC_RELAXED);
		}
		if (snap_test_copy_ms) {
			struct timespec hold = {snap_test_copy_ms / 1000,
						(long)(snap_test_copy_ms % 1000) * 1000000};

			syscall(SYS_nanosleep, &hold, NULL);
		}
		syscall(SYS_exit_group, 0);
	}
	/* All of spool's shared memory becomes the copy's own (the area, and
	 * the rings an agent path that runs on after a wait may still write). */
	if (snap_area->snap_mode != RR_SNAP_RUN || snap_privatize_shm() < 0)
		syscall(SYS_exit_group, 0);
	snap_watch_program((pid_t)agent.pid);
	/* The copy of the area was taken from memory the program still
	 * shares and runs in: a thread of the program may have held the
	 * scheduler's spin word at that moment, and no thread of the copy
	 * ever releases it. A recreated thread that leaves its wait takes it
	 * once more (ser_slow) and spun on it for good, on every CPU (seen
	 * for 13 minutes). Only this thread runs in the copy yet: free. */
	__atomic_store_n(&snap_area->sched_lock, 0, __ATOMIC_RELEASE);
	agent.active = 0;
	agent_self.state = AGENT_T_DONE;
	agent_rr_snap_detach();
	snap_busy = 0; /* the copy's joiners must not wait for the parent's clone */
	snap_restore_threads(me, n);
	/* Each waits on its wake word: wake them, they see serial mode off. */
	for (uint32_t id = 0; id < n; id++) {
		if (id == me)
			continue;
		__atomic_fetch_add(&agent_serial_slot_at(id)->wake, 1, __ATOMIC_SEQ_CST);
		syscall(SYS_futex, &agent_serial_slot_at(id)->wake, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	}
}

/* ---- taking one ---- */

/*
 * A thread that waits for the token but has not saved its context yet is
 * on its way to save it: it has just handed the token over and goes into
 * ser_wait, or it was woken to save it (agent_serial_wake_waiters), and
 * parks without blocking. The holder gives such threads a moment, 5 ms in
 * all for one try (*until: its end, 0 before the first wait), yielding,
 * rather than giving up at once: the new holder checks right after the
 * switch, while the thread that handed over runs the few hundred
 * instructions to its getcontext. Under qemu-user they took long enough
 * that no snapshot was ever taken (rr_goto: 95 of 95 tries); on x86-64 the
 * same race is lost now and then. A thread out of the schedule (RR_S_OUT:
 * in a blocking call, or a join's wait, which saves its context before it
 * leaves) is not waited for: it may stay there for good. 1: it parked.
 */
#define SNAP_PARK_WAIT_NS 5000000ull
static int snap_parks_soon(struct agent_snap_thread *t, uint32_t id, uint64_t *until)
{
	if (!*until)
		*until = snap_now_ns() + SNAP_PARK_WAIT_NS;
	while (snap_now_ns() < *until) {
		syscall(SYS_sched_yield);
		if (__atomic_load_n(&t->parked, __ATOMIC_SEQ_CST))
			return 1;
		if (__atomic_load_n(&agent_serial_slot_at(id)->state, __ATOMIC_ACQUIRE) !=
		    RR_S_WAIT)
			return 0;
	}
	return 0;
}

/* Every thread but me is parked with its context saved, or has ended and
 * is gone from the kernel (a thread that ended in the schedule still runs
 * glibc's exit code for a while: the copy could not finish it). */
static int snap_all_parked(uint32_t me, uint32_t n)
{
	pid_t pid = (pid_t)syscall(SYS_getpid);
	uint64_t until = 0;

	for (uint32_t id = 0; id < n; id++) {
		struct agent_snap_thread *t = &snap_thr[id];
		uint32_t st;

		t->restore = 0;
		if (id == me)
			continue;
		if (!__atomic_load_n(&t->valid, __ATOMIC_ACQUIRE)) {
			agent_log("snapshot waits: thread %u has not started", id);
			return 0;
		}
		st = __atomic_load_n(&agent_serial_slot_at(id)->state, __ATOMIC_ACQUIRE);
		/* Waiting for the token, or out (RR_S_OUT) in a join's wait or
		 * in a blocking call whose frame saved its context. */
		if ((st == RR_S_WAIT || st == RR_S_OUT) &&
		    (__atomic_load_n(&t->parked, __ATOMIC_SEQ_CST) ||
		     (st == RR_S_WAIT && snap_parks_soon(t, id, &until)))) {
			t->restore = 1;
			continue;
		}
		/* Out in a blocking call without its context: from now on it
		 * saves one each time it goes out (agent_serial_out_ctx), so a
		 * later try can hold it there (a thread that sits in a read or
		 * a select all the time: mosquitto_pub -l). */
		if (st == RR_S_OUT && __atomic_load_n(&agent_serial_slot_at(id)->wait,
						      __ATOMIC_RELAXED) == RR_W_INPUT)
			__atomic_store_n(&t->out_save, 1, __ATOMIC_RELAXED);
		if (st != RR_S_DEAD) {
			agent_log("snapshot waits: thread %u is in state %u, parked %u", id, st,
				  t->parked);
			return 0;
		}
		if (!t->gone) {
			if (syscall(SYS_tgkill, pid, t->tid, 0) == 0 || errno != ESRCH) {
				agent_log("snapshot waits: thread %u has ended, not left", id);
				return 0;
			}
			t->gone = 1;
		}
	}
	return 1;
}

static void snap_unbusy(void)
{
	__atomic_store_n(&snap_busy, 0, __ATOMIC_SEQ_CST);
	syscall(SYS_futex, &snap_busy, FUTEX_WAKE_PRIVATE, INT32_MAX, NULL, NULL, 0);
}

/*
 * Record, serial, snapshots on: pthread_join gives the token up and blocks
 * in the kernel, where no snapshot can hold it. So the joiner first waits
 * here, parked, for the joined thread's tid word to be cleared (the
 * kernel's exit of it): a wait that can start again anywhere, so a copy
 * recreates the joiner in it. The real join then returns at once. Leaving
 * the wait races with a holder that checks the threads: parked goes to 0,
 * then snap_busy is read (the holder sets snap_busy, then reads parked), so
 * either the holder sees it leave or it sees the holder and parks again
 * until the clone is made. A thread spool did not number is joined as
 * before.
 */
void agent_snap_join_wait(uint32_t me, pthread_t th)
{
	struct agent_snap_thread *t = agent_snap_slot(me);
	volatile int32_t *tp;
	uintptr_t off;
	unsigned polls;
	int saved;

	if (!t || !__atomic_load_n(&t->valid, __ATOMIC_ACQUIRE))
		return;
	/* The joined thread's tid word: where mine is in my struct pthread
	 * (pthread_t is its address; it may not have started yet). t is
	 * this thread's own slot. */
	off = (uintptr_t)t->tidp - (uintptr_t)pthread_self();
	if (off == 0 || off >= 4096 || th == pthread_self())
		return;
	tp = (volatile int32_t *)((uintptr_t)th + off);
	/* pthread_join is a cancellation point: a cancel already pending
	 * acts here, as it would at the real join's start */
	agent_rr_testcancel_real();
	agent_snap_before_park(t);
	t->park = RR_PARK_JOIN;
	getcontext(&t->ctx);
	if (agent_snap_resumed) {
		/* in a replay restored from a snapshot: t is the recording's */
		agent_snap_resumed = 0;
		agent_rr_restore_join();
		return;
	}
	polls = 0;
	saved = errno;
	__atomic_store_n(&t->parked, 1, __ATOMIC_SEQ_CST);
	for (;;) {
		int32_t v = *tp;
		struct timespec ts = {0, 100000000};

		if (v != 0) {
			syscall(SYS_futex, tp, FUTEX_WAIT, v, &ts, NULL, 0);
			/* pthread_join is a cancellation point, and glibc
			 * sends no SIGCANCEL to a thread not in a blocking
			 * call of its own: look for a pending cancel now and
			 * then, unparked (as at the wait's start, which can
			 * start again anywhere: the context stays) */
			if (++polls % 4 == 0) {
				__atomic_store_n(&t->parked, 0, __ATOMIC_SEQ_CST);
				if (!__atomic_load_n(&snap_busy, __ATOMIC_SEQ_CST)) {
					agent_rr_testcancel_real();
					/* and the serial recording's watch, about
					 * once a second, as the real join's
					 * retries make it (agent_rr_join_wait): a
					 * join that waits for good is reported */
					if (polls % 12 == 0)
						agent_serial_join_watch(polls == 12);
				}
				__atomic_store_n(&t->parked, 1, __ATOMIC_SEQ_CST);
			}
			continue;
		}
		__atomic_store_n(&t->parked, 0, __ATOMIC_SEQ_CST);
		if (!__atomic_load_n(&snap_busy, __ATOMIC_SEQ_CST))
			break;
		__atomic_store_n(&t->parked, 1, __ATOMIC_SEQ_CST);
		while (__atomic_load_n(&snap_busy, __ATOMIC_SEQ_CST))
			syscall(SYS_futex, &snap_busy, FUTEX_WAIT_PRIVATE, 1, &ts, NULL, 0);
	}
	errno = saved;
}

void agent_snap_leave(struct agent_snap_thread *t)
{
	struct timespec ts = {0, 100000000};

	for (;;) {
		__atomic_store_n(&t->parked, 0, __ATOMIC_SEQ_CST);
		if (!__atomic_load_n(&snap_busy, __ATOMIC_SEQ_CST))
			return;
		/* a holder checks the threads, or clones: it may have seen me
		 * parked, so I stay so (my frames as they were) until it is done */
		__atomic_store_n(&t->parked, 1, __ATOMIC_SEQ_CST);
		while (__atomic_load_n(&snap_busy, __ATOMIC_SEQ_CST))
			syscall(SYS_futex, &snap_busy, FUTEX_WAIT_PRIVATE, 1, &ts, NULL, 0);
	}
}

/* A copy reaped: how it ended, for SPOOL_DEBUG (a copy that runs on,
 * RR_SNAP_RUN, is the program too). */
static void snap_reaped(int32_t pid, int status)
{
	if (WIFSIGNALED(status))
		agent_log("snapshot copy pid %d ended by signal %d", pid, WTERMSIG(status));
	else if (WIFEXITED(status) && WEXITSTATUS(status))
		agent_log("snapshot copy pid %d exited %d", pid, WEXITSTATUS(status));
}

static void snap_reap(int32_t pid)
{
	for (int i = 0; i < SNAP_COPIES; i++) {
		int status = 0;

		if (snap_copies[i] &&
		    syscall(SYS_wait4, snap_copies[i], &status, WNOHANG | __WALL, NULL) != 0) {
			snap_reaped(snap_copies[i], status);
			snap_copies[i] = 0;
		}
		if (pid && !snap_copies[i]) {
			snap_copies[i] = pid;
			pid = 0;
		}
	}
}

/* By time: is the snapshot due at this pass? When not, the next look
 * is set some passes on, as many as should come in about a quarter of
 * the time left at the rate since the period began (a clock reading per
 * pass would cost the program more than the snapshots), and no more than
 * the passes made in the period so far. Passes come in bursts (a loop of
 * lock calls, then a sleep): the rate since the last look, taken in a
 * burst, set the next look thousands of passes on, seconds away, and a
 * program whose thread naps between its bursts got no snapshot in a run
 * of many periods (rr_snapout: 0 in 0.6 s with --snap-period 50ms). */
static int snap_time_due(uint64_t switches)
{
	uint64_t now = snap_now_ns(), step = SNAP_TIME_STEP0;

	if (now >= snap_due_ns)
		return 1;
	if (now > snap_rate_ns && switches > snap_rate_sw) {
		uint64_t seen = switches - snap_rate_sw;
		long double per_ns = (long double)seen / (now - snap_rate_ns);
		long double s = per_ns * (long double)(snap_due_ns - now) / 4;

		step = s < 1 ? 1 : s > SNAP_TIME_STEP_MAX ? SNAP_TIME_STEP_MAX : (uint64_t)s;
		if (step > seen && seen >= SNAP_TIME_STEP0)
			step = seen;
	}
	snap_next = switches + step;
	return 0;
}

/*
 * By time: a thread that comes back from a blocking call, or makes an input
 * call, asks whether a snapshot is due (agent_serial_snap_check). A program
 * whose threads spend their time in the kernel makes few switch points
 * between its calls and came to the slow path, where snapshots are looked
 * for every 256 points, too rarely or never (mosquitto_pub -l reading its
 * lines: 0 snapshots in a run of 20 periods). The clock is read there at
 * most 16 times a period: the counter arch_ts (no system call), calibrated
 * against the clock once 1 ms has passed, says when to read it again; until
 * then it is read at each ask. Due: the next pass looks (snap_next).
 */
int agent_snap_due(void)
{
	uint64_t ts, now;

	if (!snap_area || !snap_area->snap_period_ns || snap_next == UINT64_MAX ||
	    snap_area->mode != RR_MODE_RECORD)
		return 0;
	ts = arch_ts();
	if (snap_ticks_ns > 0 && ts < snap_look_ts)
		return 0;
	now = snap_now_ns();
	if (snap_ticks_ns <= 0 && now > snap_cal_ns + 1000000 && ts > snap_cal_ts)
		snap_ticks_ns = (double)(ts - snap_cal_ts) / (double)(now - snap_cal_ns);
	if (snap_ticks_ns > 0)
		snap_look_ts = ts + (uint64_t)((double)(snap_area->snap_period_ns / 16) * snap_ticks_ns);
	if (now < snap_due_ns)
		return 0;
	if (snap_next > snap_passes + 1)
		snap_next = snap_passes + 1;
	return 1;
}

/* The turn and the holder's count of the last snapshot taken (UINT64_MAX:
 * none yet): agent_snap_taken_at. */
static uint64_t snap_done_turn = UINT64_MAX, snap_done_count;

int agent_snap_taken_at(uint64_t turn, uint64_t count)
{
	return snap_done_turn == turn && snap_done_count == count;
}

int64_t agent_snap_due_in(void)
{
	uint64_t now;

	if (!snap_area || !snap_area->snap_period_ns || snap_next == UINT64_MAX ||
	    snap_area->mode != RR_MODE_RECORD)
		return -1;
	now = snap_now_ns();
	if (now < snap_due_ns)
		return (int64_t)(snap_due_ns - now);
	if (snap_next > snap_passes + 1)
		snap_next = snap_passes + 1;
	return 0;
}

/* Set when the program's exit waits for the copies: a snapshot taken
 * after that (in a later destructor's switch) is waited for at once.
 * (dig: such a copy was still writing its image when the program ended,
 * a process of the recording that ran on after it, and the trace was
 * incomplete, exit status 4.) */
static int snap_closed;
static void snap_wait_copies(void);

/* The images' budget (rr_area.snap_budget, --snap-max): used up when a
 * copy found its image would pass it, or when the next, taken as big as
 * the last one written whole (a delta of it: about as many pages change
 * a period), would. A copy still writing holds its bytes reserved; a
 * first image too big for the budget is removed by its copy (snap_full).
 * Sets snap_full, which spool's summary reads. */
static int snap_budget_used(void)
{
	uint64_t max = __atomic_load_n(&snap_area->snap_budget, __ATOMIC_RELAXED);
	uint64_t used, last;

	if (!max || snap_area->snap_mode != RR_SNAP_IMAGE)
		return 0;
	if (__atomic_load_n(&snap_area->snap_full, __ATOMIC_ACQUIRE))
		return 1;
	used = __atomic_load_n(&snap_area->snap_bytes, __ATOMIC_RELAXED);
	last = __atomic_load_n(&snap_area->snap_last, __ATOMIC_RELAXED);
	if (used <= max && last <= max - used)
		return 0;
	__atomic_store_n(&snap_area->snap_full, 1, __ATOMIC_RELEASE);
	return 1;
}

int agent_snap_point(uint32_t me, uint32_t n, uint64_t switches)
{
	struct agent_snap_thread *t = agent_snap_slot(me);
	struct timespec c0, c1;
	uint64_t t0, dt;
	int saved = errno;
	long pid;
	uint64_t pos;

	if (!t || !snap_area)
		return 0;
	pos = snap_area->snap_period_ns ? ++snap_passes : switches;
	if (pos < snap_next || pos == snap_tried)
		return 0;
	if (snap_area->snap_period_ns && !snap_time_due(pos))
		return 0;
	if (snap_budget_used()) {
		agent_log("snapshots end: their budget of %llu bytes is used (%llu kept)",
			  (unsigned long long)snap_area->snap_budget,
			  (unsigned long long)snap_area->snap_bytes);
		snap_next = UINT64_MAX;
		return 0;
	}
	if (n > AGENT_SNAP_THREADS ||
	    (snap_area->snap_max && snap_area->snap_taken >= snap_area->snap_max)) {
		agent_log("snapshots end: %u thread numbers (at most %u)", n, AGENT_SNAP_THREADS);
		snap_next = UINT64_MAX;
		return 0;
	}
	if (!__atomic_load_n(&t->valid, __ATOMIC_ACQUIRE)) {
		agent_log("snapshot waits: thread %u (the holder) has no saved start", me);
		return 0;
	}
	if (!__atomic_load_n(&agent_snap_want, __ATOMIC_ACQUIRE)) {
		/* Due: from now on a thread that parks saves its context, and
		 * those waiting save theirs (woken); taken at a later switch. */
		__atomic_store_n(&agent_snap_want, 1, __ATOMIC_SEQ_CST);
		agent_serial_wake_waiters(me);
	}
	__atomic_store_n(&snap_busy, 1, __ATOMIC_SEQ_CST);
	if (!snap_all_parked(me, n)) {
		snap_unbusy();
		/* Again at the next pass (by time) or after the next switch;
		 * counted once a switch (a program with one thread running
		 * passes here many times between switches). */
		if (snap_tried == UINT64_MAX || snap_tried_sw != switches)
			__atomic_fetch_add(&snap_area->snap_skipped, 1, __ATOMIC_RELAXED);
		snap_tried = pos;
		snap_tried_sw = switches;
		errno = saved;
		return 0;
	}
	snap_reap(0);
	snap_index = snap_area->snap_taken + 1;
	snap_turn = __atomic_load_n(&snap_area->tturn, __ATOMIC_ACQUIRE);
	snap_switches = switches;
	/* its position within the turn: a thread that holds the token alone
	 * for long takes several snapshots at one turn */
	snap_count = agent_ser.count;
	agent_snap_img_mark_take();
	/* The taker's own context, for the image. It returns twice: again in
	 * a replay this snapshot was restored into, where nothing of this
	 * frame but saved may be used (t is the recording's memory). */
	t->park = RR_PARK_TAKER;
	getcontext(&t->ctx);
	if (agent_snap_resumed) {
		agent_snap_resumed = 0;
		errno = saved;
		return 1;
	}
	syscall(SYS_clock_gettime, CLOCK_THREAD_CPUTIME_ID, &c0);
	t0 = snap_now_ns();
	/* A copy inherits no POSIX timer: the taker reads them (in the
	 * pause: a read of /proc/self/timers, a few microseconds) */
	if (snap_area->snap_mode == RR_SNAP_IMAGE)
		agent_snap_timers_take();
	pid = arch_snap_fork(snap_exit_sig | CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID, t->tidp);
	if (pid < 0 && errno == EINVAL && !snap_exit_sig) {
		/* qemu-user makes a fork of every clone without CLONE_VM and
		 * takes no exit signal but SIGCHLD (EINVAL): there the copies
		 * are SIGCHLD children, as under gdb (a program that waits
		 * for any child could reap one: doc/arm64.md). A kernel
		 * takes signal 0. */
		agent_log("snapshot: a copy with no exit signal is refused (EINVAL: qemu-user): "
			  "copies are SIGCHLD children from now on");
		snap_exit_sig = SIGCHLD;
		pid = arch_snap_fork(snap_exit_sig | CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID,
				     t->tidp);
	}
	if (pid == 0) {
		snap_copy(me, n);
		errno = saved;
		return 0; /* the copy runs on */
	}
	dt = snap_now_ns() - t0;
	syscall(SYS_clock_gettime, CLOCK_THREAD_CPUTIME_ID, &c1);
	snap_unbusy();
	snap_next = switches + snap_area->snap_period;
	if (snap_area->snap_period_ns) {
		uint64_t now = snap_now_ns();

		snap_next = snap_passes + SNAP_TIME_STEP0;
		snap_due_ns = now + snap_area->snap_period_ns;
		snap_rate_sw = snap_passes;
		snap_rate_ns = now;
	}
	__atomic_store_n(&agent_snap_want, 0, __ATOMIC_RELEASE);
	if (pid > 0) {
		snap_reap((int32_t)pid);
		/* per snapshot, for bench/snap.sh: the wall time the program
		 * waited, and the CPU time of the clone (the kernel's copy of
		 * the page tables); more wall than CPU is time on the run
		 * queue */
		agent_log("snapshot %llu: pause %llu us, %llu us of CPU in the clone",
			  (unsigned long long)snap_index, (unsigned long long)(dt / 1000),
			  (unsigned long long)(((uint64_t)c1.tv_sec * 1000000000ull +
						(uint64_t)c1.tv_nsec -
						(uint64_t)c0.tv_sec * 1000000000ull -
						(uint64_t)c0.tv_nsec) /
					       1000));
		__atomic_fetch_add(&snap_area->snap_taken, 1, __ATOMIC_RELAXED);
		snap_done_turn = snap_turn;
		snap_done_count = snap_count;
		__atomic_fetch_add(&snap_area->snap_ns, dt, __ATOMIC_RELAXED);
		if (dt > snap_area->snap_ns_max)
			snap_area->snap_ns_max = dt;
		if (__atomic_load_n(&snap_closed, __ATOMIC_ACQUIRE))
			snap_wait_copies();
	}
	errno = saved;
	return 0;
}

/* The program exits (the agent's destructor): its copies end before it, so
 * that spool, which stops at the program's exit, finds none still running
 * (a copy that runs on, RR_SNAP_RUN, runs the rest of the program). Polled,
 * 30 s at most: a copy stopped for good must not hold the exit. */
/* 1 while agent_snap_exit_wait waits (agent_snap_exit_waiting) */
static int snap_exit_waiting;

void agent_snap_exit_wait(void)
{
	__atomic_store_n(&snap_closed, 1, __ATOMIC_RELEASE);
	if (!agent_snap_on)
		return;
	__atomic_store_n(&snap_exit_waiting, 1, __ATOMIC_RELEASE);
	snap_wait_copies();
	__atomic_store_n(&snap_exit_waiting, 0, __ATOMIC_RELEASE);
}

int agent_snap_exit_waiting(void)
{
	return __atomic_load_n(&snap_exit_waiting, __ATOMIC_ACQUIRE);
}

/* Until every copy has written its image and ended (30 s at most, then
 * killed). */
static void snap_wait_copies(void)
{
	struct timespec ms10 = {0, 10000000};

	for (int round = 0; round < 3000; round++) {
		int left = 0;

		for (int i = 0; i < SNAP_COPIES; i++) {
			int status = 0;

			if (snap_copies[i] &&
			    syscall(SYS_wait4, snap_copies[i], &status, WNOHANG | __WALL, NULL) != 0) {
				snap_reaped(snap_copies[i], status);
				snap_copies[i] = 0;
			}
			left |= snap_copies[i] != 0;
		}
		if (!left)
			return;
		syscall(SYS_nanosleep, &ms10, NULL);
	}
	/* A copy still there after 30 s is stuck (an image that cannot be
	 * written, a copy that runs on and hangs): it must not outlive the
	 * recording, of which it is a part (doc/record.md). */
	for (int i = 0; i < SNAP_COPIES; i++) {
		int status = 0;

		if (!snap_copies[i])
			continue;
		agent_log("snapshot copy pid %d still runs 30 s after the program's exit: killed",
			  snap_copies[i]);
		syscall(SYS_kill, snap_copies[i], SIGKILL);
		if (syscall(SYS_wait4, snap_copies[i], &status, __WALL, NULL) > 0)
			snap_reaped(snap_copies[i], status);
		snap_copies[i] = 0;
	}
}

/* ---- checkpoints of a replay (spool checkpoint / restart in gdb) ---- */

/*
 * The gdb extension sets agent_snap_request; the token's holder takes the
 * checkpoint at its next pass through the scheduler's slow path (a switch
 * point: every other thread is parked). The checkpoint is a copy of the
 * process that waits, one thread, for SIGUSR1; each SIGUSR1 makes it clone
 * a runner, which restores the record/replay area as it was at the
 * checkpoint (the area is shared with spool: the replay moved it on since),
 * recreates the threads, stops itself (SIGSTOP) for gdb to attach, and
 * replays on from the checkpoint, detached from spool (which finished the
 * trace when gdb killed the process the runner replaces). The copies have
 * SIGCHLD as exit signal: gdb sees a fork, takes its breakpoints out of the
 * child and detaches it (a clone with another exit signal would look like
 * a new thread to gdb). A checkpoint ends after an hour without a request,
 * or when the extension kills it.
 */
uint32_t agent_snap_request __attribute__((used));
int32_t agent_snap_last_pid __attribute__((used));
uint64_t agent_snap_last_turn __attribute__((used));
uint32_t agent_snap_last_thread __attribute__((used));

/* gdb's extension breaks here to learn the checkpoint's pid. */
void __attribute__((noinline, used)) agent_snap_taken(void)
{
	__asm__ volatile("" ::: "memory");
}

/* A runner waits (30 s at most) for gdb to attach, so that the program's
 * breakpoints are in before it runs on. */
static void snap_wait_tracer(void)
{
	struct timespec ms = {0, 2000000};

	for (int i = 0; i < 15000; i++) {
		if (snap_traced() != 0)
			return;
		syscall(SYS_nanosleep, &ms, NULL);
	}
}

/* One mapping [lo, hi) becomes private, with the same contents. */
static int snap_privatize_range(uintptr_t lo, uintptr_t hi)
{
	size_t len = hi - lo;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return -1;
	memcpy(p, (void *)lo, len);
	if (mremap(p, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, (void *)lo) == MAP_FAILED)
		return -1;
	return 0;
}

uint64_t agent_snap_hex(const char **s)
{
	uint64_t v = 0;

	for (;; (*s)++) {
		char c = **s;

		if (c >= '0' && c <= '9')
			v = v * 16 + (uint64_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v = v * 16 + (uint64_t)(c - 'a' + 10);
		else
			return v;
	}
}

/*
 * A runner replays for gdb alone: every mapping of spool's memfd (the
 * control page, the rings, the areas) becomes its own, so what it writes
 * (its threads' events, the token) never reaches the session, which has
 * finished with, or still watches, the process gdb killed. The agent stays
 * active: the replay runs through it. /proc/self/maps, read with raw calls
 * into one mmap (no malloc).
 */
static int snap_privatize_shm(void)
{
	const size_t cap = 4u << 20;
	struct stat st;
	char *buf, *line, *end;
	size_t n = 0;
	long fd, k;
	int rc = 0;

	if (syscall(SYS_fstat, agent.fd, &st) < 0)
		return -1;
	buf = mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		return -1;
	fd = syscall(SYS_openat, AT_FDCWD, "/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		munmap(buf, cap);
		return -1;
	}
	while (n < cap - 1 && (k = syscall(SYS_read, fd, buf + n, cap - 1 - n)) > 0)
		n += (size_t)k;
	syscall(SYS_close, fd);
	buf[n] = 0;
	for (line = buf; line < buf + n && rc == 0; line = end + 1) {
		const char *q = line;
		uint64_t lo, hi, ino;
		int field;

		end = strchr(line, '\n');
		if (!end)
			end = buf + n;
		*end = 0;
		lo = agent_snap_hex(&q);
		if (*q++ != '-')
			continue;
		hi = agent_snap_hex(&q);
		/* perms, offset, dev: skip to the inode */
		for (field = 0; field < 3 && *q; field++) {
			while (*q == ' ')
				q++;
			while (*q && *q != ' ')
				q++;
		}
		while (*q == ' ')
			q++;
		ino = 0;
		while (*q >= '0' && *q <= '9')
			ino = ino * 10 + (uint64_t)(*q++ - '0');
		if (ino == (uint64_t)st.st_ino && strstr(line, "memfd:") && hi > lo)
			rc = snap_privatize_range((uintptr_t)lo, (uintptr_t)hi);
	}
	munmap(buf, cap);
	return rc;
}

static void snap_runner(uint32_t me, uint32_t n, const void *saved, const sigset_t *mask)
{
	struct agent_snap_thread *t = &snap_thr[me];

	syscall(SYS_set_robust_list, (void *)(uintptr_t)t->robust, (size_t)t->robust_len);
	/* The shared memory becomes the runner's own, then the replay area is
	 * put back as it was at the checkpoint. */
	if (snap_privatize_shm() < 0)
		syscall(SYS_exit_group, 127);
	memcpy(snap_area, saved, snap_area_size);
	agent.host_pid = 0; /* spool may be gone: agent_host_gone must not end the replay */
	snap_busy = 0;
	snap_keep_agent = 1;
	snap_restore_threads(me, n);
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, mask, NULL, 8);
	snap_wait_tracer();
}

/* The checkpoint process: one thread, waiting for requests. Returns only
 * in a runner. */
static void snap_checkpoint_wait(uint32_t me, uint32_t n, const void *saved)
{
	sigset_t usr1, old;
	int idle = 0;

	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, &usr1, &old, 8);
	for (;;) {
		struct timespec ts = {1, 0};
		long sig = syscall(SYS_rt_sigtimedwait, &usr1, NULL, &ts, 8);

		while (syscall(SYS_wait4, -1, NULL, WNOHANG | __WALL, NULL) > 0)
			;
		if (sig == SIGUSR1) {
			long pid = arch_snap_fork(
			    (unsigned long)(SIGCHLD | CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID),
			    snap_thr[me].tidp);

			idle = 0;
			if (pid == 0) {
				snap_runner(me, n, saved, &old);
				return;
			}
		} else if (++idle > 3600) {
			syscall(SYS_exit_group, 0);
		}
	}
}

void agent_snap_checkpoint(uint32_t me, uint32_t n, uint64_t turn)
{
	struct agent_snap_thread *t = agent_snap_slot(me);
	int saved_errno = errno;
	void *saved;
	long pid;

	if (!t || n > AGENT_SNAP_THREADS || !__atomic_load_n(&t->valid, __ATOMIC_ACQUIRE))
		return;
	__atomic_store_n(&snap_busy, 1, __ATOMIC_SEQ_CST);
	if (!snap_all_parked(me, n)) {
		snap_unbusy();
		return; /* the request stays: the next pass tries again */
	}
	__atomic_store_n(&agent_snap_request, 0, __ATOMIC_RELAXED);
	saved =
	    mmap(NULL, snap_area_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (saved == MAP_FAILED) {
		snap_unbusy();
		agent_snap_last_pid = -ENOMEM;
		agent_snap_taken();
		return;
	}
	memcpy(saved, snap_area, snap_area_size);
	pid = arch_snap_fork((unsigned long)(SIGCHLD | CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID),
			     t->tidp);
	if (pid == 0) {
		snap_checkpoint_wait(me, n, saved);
		errno = saved_errno;
		return; /* a runner: the replay goes on from the checkpoint */
	}
	snap_unbusy();
	munmap(saved, snap_area_size);
	agent_snap_last_pid = (int32_t)(pid < 0 ? -errno : pid);
	agent_snap_last_turn = turn;
	agent_snap_last_thread = me;
	agent_snap_taken();
	errno = saved_errno;
}
