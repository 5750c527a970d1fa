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
 *   pthread       pthread_sigmask(SIG_BLOCK, all), calls in a new thread
 *                 that inherits the mask
 *   thread        the calls in a thread that blocks all signals itself
 *   raw           the raw rt_sigprocmask system call
 *   suspend       all blocked, then each call under sigsuspend's mask
 *                 check: the mask the program reads back is the one it set
 * Output: "sum S" (the same natively and probed), "mask ok|BAD" with MODE.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
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

static void block_all(void)
{
	sigset_t all, back;

	sigfillset(&all);
	if (!strcmp(mode, "raw")) {
		/* 8 bytes: the kernel's sigset_t */
		syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, NULL, 8);
		syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &back, 8);
	} else if (!strcmp(mode, "sigprocmask")) {
		sigprocmask(SIG_BLOCK, &all, NULL);
		sigprocmask(SIG_BLOCK, NULL, &back);
	} else {
		pthread_sigmask(SIG_BLOCK, &all, NULL);
		pthread_sigmask(SIG_BLOCK, NULL, &back);
	}
	/* The program sees what it asked for (SIGKILL and SIGSTOP cannot be
	 * blocked; glibc keeps its two internal signals out). */
	if (!sigismember(&back, SIGTRAP) || !sigismember(&back, SIGSEGV) ||
	    !sigismember(&back, SIGUSR1))
		mask_ok = 0;
}

static long run_calls(void)
{
	long s = 0;

	for (long i = 0; i < n_calls; i++) {
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

	if (!strcmp(mode, "thread"))
		block_all();
	*out = run_calls();
	return NULL;
}

static long run_suspend(void)
{
	sigset_t all, back;
	long s;

	block_all();
	s = run_calls();
	/* The program's mask is still all blocked. */
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, NULL, &back);
	if (!sigismember(&back, SIGTRAP))
		mask_ok = 0;
	(void)all;
	return s;
}

int main(int argc, char **argv)
{
	long s = 0;

	n_calls = argc > 1 ? atol(argv[1]) : 1000;
	mode = argc > 2 ? argv[2] : "";
	if (!strcmp(mode, "thread") || !strcmp(mode, "pthread")) {
		pthread_t th;

		if (!strcmp(mode, "pthread"))
			block_all();
		if (pthread_create(&th, NULL, thread_main, &s) || pthread_join(th, NULL))
			return 2;
	} else if (!strcmp(mode, "suspend")) {
		s = run_suspend();
	} else {
		if (mode[0])
			block_all();
		s = run_calls();
	}
	printf("sum %ld\n", s);
	if (mode[0])
		printf("mask %s\n", mask_ok ? "ok" : "BAD");
	return 0;
}
