// SPDX-License-Identifier: MIT
/*
 * probe_harm.c - a program that dynamic probes must not harm
 * (tests/integ/71-probe-harm.t... see 10x-probe-*.t): its probed functions
 * are called with the stack pointer misaligned (by an assembly caller that
 * keeps no frame, as optimized code may), with floating-point arguments
 * live in xmm registers, and, on request, with every signal blocked.
 *
 *   probe_harm N [MODE]
 *
 * harm_leaf     a plain function (jump probes): x * 3 + (long)(d * 4)
 * harm_leaf_i3  the same through a computed goto, an indirect jmp whose
 *               targets spool cannot read: its probes are int3
 * Each is called N times from C (rsp 16-aligned at the call) and N times
 * from harm_call_odd (rsp 8 off). MODE blocks signals first:
 *   sigprocmask   sigprocmask(SIG_BLOCK, all) in main
 *   pthread       pthread_sigmask(SIG_BLOCK, all) in main, the calls in a
 *                 new thread, which inherits the mask
 *   thread        the calls in a thread that blocks all signals itself
 *   raw           syscall(SYS_rt_sigprocmask, SIG_BLOCK, all)
 *   handler       the calls in a SIGUSR1 handler whose sa_mask is full
 *   suspend       all blocked, the calls in a SIGUSR1 handler run during
 *                 sigsuspend(all but SIGUSR1)
 *   held          all blocked, raise(SIGTRAP) stays pending (the
 *                 program's SIGTRAP handler runs once SIGTRAP is unblocked)
 *   attach FILE   all blocked (sigprocmask), prints "ready", then calls in
 *                 rounds of N until FILE exists (for spool probe -p);
 *                 prints "sum ok" when the sum is the expected one
 *   inline        rt_sigprocmask(SIG_BLOCK, all) by the program's own
 *                 syscall instruction: no libc function sees it
 *   late FILE GO  as attach, but prints "ready" with no signal blocked and
 *                 blocks them all (pthread_sigmask) once GO exists: after
 *                 spool probe -p attached
 *   late-inline FILE GO  the same, blocked by an inline syscall
 *   late-inline-thread FILE GO  late-inline in a second thread, started
 *                 before "ready" (the main thread waits in pthread_join)
 *   late-inline-new FILE GO  late-inline in a thread started once GO exists
 *                 (after spool attached)
 *   late-inline-busy FILE GO  late-inline, and its rounds read the mask
 *                 back with the inline syscall 1000 times each (spool
 *                 stops the thread at such a call, under dispatch)
 *   late-handler FILE GO  as late, but once GO exists installs a SIGUSR1
 *                 handler whose sa_mask is full and raises SIGUSR1 10
 *                 times: the handler makes the calls (no mask blocked)
 *   early-handler FILE GO  the same handler installed before "ready"
 *                 (before spool attached), raised once GO exists
 *   late-suspend FILE GO  once GO exists: all blocked, the calls in a
 *                 SIGUSR1 handler run during sigsuspend(all but SIGUSR1)
 *   late-trap FILE GO  once GO exists: signal(SIGTRAP, handler), then
 *                 raise(SIGTRAP): the handler must run exactly once
 *   fork-inline   as inline, in a fork child (the parent prints the sum
 *                 and mask line the child sends it, and its status)
 * Every mode checks that the mask (or sa_mask) the program reads back is
 * the one it set. Output: "sum S" (the same natively and probed), and with
 * a MODE "mask ok" or "mask BAD".
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * long harm_call_odd(long (*fn)(long, double), long x, double d): calls fn
 * with rsp = 0 mod 16 at its entry (the ABI says 8): two pushes and no
 * frame. xmm0 (d) is passed through untouched.
 */
__asm__(".text\n"
	".globl harm_call_odd\n"
	".type harm_call_odd, @function\n"
	"harm_call_odd:\n"
	"\tpushq %rbx\n"
	"\tpushq %r12\n"
	"\tmovq %rdi, %rax\n"
	"\tmovq %rsi, %rdi\n"
	"\tcall *%rax\n"
	"\tpopq %r12\n"
	"\tpopq %rbx\n"
	"\tret\n"
	".size harm_call_odd, .-harm_call_odd\n");
long harm_call_odd(long (*fn)(long, double), long x, double d);

long harm_seen; /* a global for var: and assert: probes */

__attribute__((noinline)) long harm_leaf(long x, double d)
{
	harm_seen = x;
	return x * 3 + (long)(d * 4);
}

__attribute__((noinline)) long harm_leaf_i3(long x, double d)
{
	static void *const lab[] = {&&even, &&odd};

	harm_seen = x;
	goto *lab[x & 1];
even:
	return x * 3 + (long)(d * 4);
odd:
	return x * 3 + (long)(d * 4) + 1;
}

static long n_calls;
static const char *mode = "";
static int mask_ok = 1;
static volatile long handler_sum;
static volatile int traps;

static int is(const char *m)
{
	return !strcmp(mode, m);
}

/* rt_sigprocmask by a syscall instruction of the program's own text. */
static long inline_sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	long ret;

	register long r10 __asm__("r10") = 8;
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"((long)SYS_rt_sigprocmask), "D"((long)how), "S"(set), "d"(old),
			   "r"(r10)
			 : "rcx", "r11", "memory");
	return ret;
}

/* The calling thread's mask blocks SIGTRAP, SIGSEGV and SIGUSR1, as the
 * program set it (SIGKILL and SIGSTOP cannot be blocked; glibc keeps its
 * two internal signals out). */
static void check_all_blocked(void)
{
	sigset_t back;

	if (is("raw"))
		syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &back, 8);
	else if (is("inline") || is("late-inline") || is("late-inline-thread") ||
		 is("late-inline-new") || is("late-inline-busy") || is("fork-inline"))
		inline_sigprocmask(SIG_BLOCK, NULL, &back);
	else
		pthread_sigmask(SIG_BLOCK, NULL, &back);
	if (!sigismember(&back, SIGTRAP) || !sigismember(&back, SIGSEGV) ||
	    !sigismember(&back, SIGUSR1))
		mask_ok = 0;
}

static void block_all(void)
{
	sigset_t all;

	sigfillset(&all);
	if (is("inline") || is("late-inline") || is("late-inline-thread") ||
	    is("late-inline-new") || is("late-inline-busy") || is("fork-inline"))
		inline_sigprocmask(SIG_BLOCK, &all, NULL);
	else if (is("raw"))
		syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, NULL, 8);
	else if (is("sigprocmask"))
		sigprocmask(SIG_BLOCK, &all, NULL);
	else
		pthread_sigmask(SIG_BLOCK, &all, NULL);
	check_all_blocked();
}

static long run_calls(long n)
{
	long s = 0;

	for (long i = 0; i < n; i++) {
		double d = (double)i * 0.25;

		s += harm_leaf(i, d);
		s += harm_call_odd(harm_leaf, i, d);
		s += harm_leaf_i3(i, d);
		s += harm_call_odd(harm_leaf_i3, i, d);
	}
	return s;
}

static void *thread_main(void *arg)
{
	long *out = arg;

	if (is("thread"))
		block_all();
	else
		check_all_blocked(); /* inherited from main */
	*out = run_calls(n_calls);
	return NULL;
}

static void on_usr1(int sig)
{
	(void)sig;
	handler_sum += run_calls(n_calls / 10);
}

static void on_trap(int sig)
{
	(void)sig;
	traps++;
}

static long run_handler(void)
{
	struct sigaction sa, back;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigfillset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL) || sigaction(SIGUSR1, NULL, &back))
		return -1;
	if (!sigismember(&back.sa_mask, SIGTRAP))
		mask_ok = 0;
	if (is("suspend")) {
		sigset_t m;

		block_all();
		sigfillset(&m);
		sigdelset(&m, SIGUSR1);
		for (int i = 0; i < 10; i++) {
			raise(SIGUSR1); /* pending: blocked */
			sigsuspend(&m);
		}
		check_all_blocked();
	} else {
		for (int i = 0; i < 10; i++)
			raise(SIGUSR1);
	}
	return handler_sum;
}

static long run_held(void)
{
	sigset_t t;
	long s;

	signal(SIGTRAP, on_trap);
	block_all();
	raise(SIGTRAP); /* pending until unblocked */
	s = run_calls(n_calls);
	if (traps)
		mask_ok = 0;
	sigemptyset(&t);
	sigaddset(&t, SIGTRAP);
	sigprocmask(SIG_UNBLOCK, &t, NULL);
	if (traps != 1)
		mask_ok = 0;
	return s;
}

/* Rounds of n until stop exists; each round's sum checked against the
 * closed form (harm_leaf: 4i twice; harm_leaf_i3: 4i + (i & 1) twice). */
/* A SIGUSR1 handler with a full sa_mask, as the program reads it back. */
static void install_usr1_full(void)
{
	struct sigaction sa, back;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigfillset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL) || sigaction(SIGUSR1, NULL, &back) ||
	    !sigismember(&back.sa_mask, SIGTRAP))
		mask_ok = 0;
}

/* What the late modes do once GO exists (spool attached). */
static void late_action(void)
{
	if (is("late-handler") || is("early-handler")) {
		struct sigaction back;

		if (is("late-handler"))
			install_usr1_full();
		else if (sigaction(SIGUSR1, NULL, &back) || !sigismember(&back.sa_mask, SIGTRAP))
			mask_ok = 0;
		for (int i = 0; i < 10; i++)
			raise(SIGUSR1);
	} else if (is("late-suspend")) {
		struct sigaction sa;
		sigset_t m;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_usr1;
		sigaction(SIGUSR1, &sa, NULL);
		block_all();
		sigfillset(&m);
		sigdelset(&m, SIGUSR1);
		for (int i = 0; i < 10; i++) {
			raise(SIGUSR1); /* pending: blocked */
			sigsuspend(&m);
		}
	} else if (is("late-trap")) {
		signal(SIGTRAP, on_trap);
		raise(SIGTRAP);
	} else {
		block_all();
	}
}

static int run_attach(const char *stop, const char *go)
{
	long want = 8 * n_calls * (n_calls - 1) + 2 * (n_calls / 2);
	int ok = 1;

	if (!go)
		block_all();
	if (is("early-handler"))
		install_usr1_full();
	printf("ready\n");
	fflush(stdout);
	if (go) {
		while (access(go, F_OK))
			if (run_calls(n_calls) != want)
				ok = 0;
		late_action();
		printf("blocked\n");
		fflush(stdout);
	}
	while (access(stop, F_OK)) {
		if (run_calls(n_calls) != want)
			ok = 0;
		for (int i = 0; is("late-inline-busy") && i < 1000; i++)
			check_all_blocked();
	}
	if (is("late-handler") || is("early-handler")) {
		struct sigaction back;

		ok = ok && handler_sum == 10 * run_calls(n_calls / 10);
		/* and after spool is gone, the kernel's sa_mask is the one set */
		if (sigaction(SIGUSR1, NULL, &back) || !sigismember(&back.sa_mask, SIGTRAP))
			mask_ok = 0;
	}
	else if (is("late-trap"))
		mask_ok = mask_ok && traps == 1;
	else
		check_all_blocked();
	printf("sum %s\nmask %s\n", ok ? "ok" : "BAD", mask_ok ? "ok" : "BAD");
	return 0;
}

struct attach_args {
	const char *stop, *go;
	int rc;
};

/* late-inline-new: the part after GO, in a thread started then. */
static void *late_new_thread(void *p)
{
	struct attach_args *aa = p;
	long want = 8 * n_calls * (n_calls - 1) + 2 * (n_calls / 2);
	int ok = 1;

	block_all();
	printf("blocked\n");
	fflush(stdout);
	while (access(aa->stop, F_OK))
		if (run_calls(n_calls) != want)
			ok = 0;
	check_all_blocked();
	printf("sum %s\nmask %s\n", ok ? "ok" : "BAD", mask_ok ? "ok" : "BAD");
	aa->rc = 0;
	return NULL;
}

static int run_late_new(struct attach_args *aa)
{
	long want = 8 * n_calls * (n_calls - 1) + 2 * (n_calls / 2);
	pthread_t th;

	printf("ready\n");
	fflush(stdout);
	while (access(aa->go, F_OK))
		if (run_calls(n_calls) != want)
			return 1;
	if (pthread_create(&th, NULL, late_new_thread, aa) || pthread_join(th, NULL))
		return 2;
	return aa->rc;
}

static void *attach_thread(void *p)
{
	struct attach_args *aa = p;

	aa->rc = run_attach(aa->stop, aa->go);
	return NULL;
}

int main(int argc, char **argv)
{
	long s = 0;

	n_calls = argc > 1 ? atol(argv[1]) : 1000;
	mode = argc > 2 ? argv[2] : "";
	if (is("attach"))
		return argc > 3 ? run_attach(argv[3], NULL) : 2;
	if (is("late-inline-new")) {
		struct attach_args aa = {argc > 3 ? argv[3] : NULL, argc > 4 ? argv[4] : NULL, 2};

		return aa.go ? run_late_new(&aa) : 2;
	}
	if (is("late-inline-thread")) {
		struct attach_args aa = {argc > 3 ? argv[3] : NULL, argc > 4 ? argv[4] : NULL, 2};
		pthread_t th;

		if (!aa.go || pthread_create(&th, NULL, attach_thread, &aa) ||
		    pthread_join(th, NULL))
			return 2;
		return aa.rc;
	}
	if (is("late") || is("late-inline") || is("late-inline-busy") || is("late-handler") ||
	    is("early-handler") ||
	    is("late-suspend") || is("late-trap"))
		return argc > 4 ? run_attach(argv[3], argv[4]) : 2;
	if (is("fork-inline")) {
		int st = 0;
		pid_t c;

		fflush(stdout);
		c = fork();
		if (c == 0) {
			block_all();
			s = run_calls(n_calls);
			printf("sum %ld\nmask %s\n", s, mask_ok ? "ok" : "BAD");
			fflush(stdout);
			_exit(0);
		}
		if (c < 0 || waitpid(c, &st, 0) != c)
			return 2;
		printf("child %d\n", WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st));
		return 0;
	}
	if (is("thread") || is("pthread")) {
		pthread_t th;

		if (is("pthread"))
			block_all();
		if (pthread_create(&th, NULL, thread_main, &s) || pthread_join(th, NULL))
			return 2;
	} else if (is("handler") || is("suspend")) {
		s = run_handler();
	} else if (is("held")) {
		s = run_held();
	} else {
		if (mode[0])
			block_all();
		s = run_calls(n_calls);
	}
	printf("sum %ld\n", s);
	if (mode[0])
		printf("mask %s\n", mask_ok ? "ok" : "BAD");
	return 0;
}
