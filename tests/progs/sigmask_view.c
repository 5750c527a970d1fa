// SPDX-License-Identifier: MIT
/*
 * sigmask_view.c - what a signal handler sees of its own mask while spool
 * probes the program (tests/integ/228-probe-handler-mask.t).
 *
 *   sigmask_view STOP GO [early|blocked]
 *
 * Prints "ready", then calls view_leaf_i3 (reached through a computed goto:
 * spool cannot read the indirect jump's targets, so its probes are int3)
 * until the file GO exists. Then installs a SIGUSR1 handler whose sa_mask
 * is full (sigfillset, a common pattern) and raises SIGUSR1 5 times; the
 * handler calls view_leaf_i3 and reads its own mask with pthread_sigmask:
 * the kernel blocks sa_mask while a handler runs, so SIGTRAP, SIGUSR2 and
 * SIGUSR1 must all be in it. It also reads the mask it interrupted (its
 * ucontext's uc_sigmask), which must be main's. early: the handler is
 * installed before "ready" (before spool attached); blocked: main blocks
 * SIGTRAP and SIGUSR2 before raising (uc_sigmask must hold them, and main
 * must read them back blocked after the handlers ran).
 * Prints "handled N", "handler mask ok" or "handler mask BAD: ...", then
 * calls on until STOP exists.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>
#include <pthread.h>
#include <unistd.h>

long view_seen;
static volatile int handled;
static volatile int view_bad; /* bit 1: SIGTRAP missing, 2: SIGUSR2, 4: SIGUSR1, 8: uc */
static int main_blocks; /* main blocked SIGTRAP and SIGUSR2 (mode blocked) */

__attribute__((noinline)) long view_leaf_i3(long x)
{
	static void *const lab[] = {&&even, &&odd};

	view_seen = x;
	goto *lab[x & 1];
even:
	return x * 3;
odd:
	return x * 5;
}

static void on_usr1(int sig, siginfo_t *si, void *ucv)
{
	const ucontext_t *uc = ucv;
	sigset_t m;

	(void)sig;
	(void)si;
	view_leaf_i3(handled);
	pthread_sigmask(SIG_BLOCK, NULL, &m);
	if (!sigismember(&m, SIGTRAP))
		view_bad |= 1;
	if (!sigismember(&m, SIGUSR2))
		view_bad |= 2;
	if (!sigismember(&m, SIGUSR1))
		view_bad |= 4;
	if (sigismember(&uc->uc_sigmask, SIGTRAP) != main_blocks ||
	    sigismember(&uc->uc_sigmask, SIGUSR2) != main_blocks)
		view_bad |= 8;
	handled++;
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	long sum = 0;

	const char *mode = argc > 3 ? argv[3] : "";
	sigset_t m;

	if (argc < 3) {
		fprintf(stderr, "usage: sigmask_view STOP GO [early|blocked]\n");
		return 2;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_usr1;
	sa.sa_flags = SA_SIGINFO;
	sigfillset(&sa.sa_mask);
	if (!strcmp(mode, "early") && sigaction(SIGUSR1, &sa, NULL))
		return 1;
	printf("ready\n");
	fflush(stdout);
	while (access(argv[2], F_OK))
		for (long i = 0; i < 1000; i++)
			sum += view_leaf_i3(i);
	if (strcmp(mode, "early") && sigaction(SIGUSR1, &sa, NULL))
		return 1;
	if (!strcmp(mode, "blocked")) {
		sigemptyset(&m);
		sigaddset(&m, SIGTRAP);
		sigaddset(&m, SIGUSR2);
		pthread_sigmask(SIG_BLOCK, &m, NULL);
		main_blocks = 1;
	}
	for (int i = 0; i < 5; i++)
		raise(SIGUSR1);
	/* the mask the handlers' returns gave back is main's own */
	pthread_sigmask(SIG_BLOCK, NULL, &m);
	if (sigismember(&m, SIGTRAP) != main_blocks || sigismember(&m, SIGUSR2) != main_blocks)
		view_bad |= 16;
	printf("handled %d\n", handled);
	if (view_bad)
		printf("handler mask BAD:%s%s%s%s%s\n", view_bad & 1 ? " SIGTRAP unblocked" : "",
		       view_bad & 2 ? " SIGUSR2 unblocked" : "",
		       view_bad & 4 ? " SIGUSR1 unblocked" : "",
		       view_bad & 8 ? " uc_sigmask not main's" : "",
		       view_bad & 16 ? " main's mask changed" : "");
	else
		printf("handler mask ok\n");
	fflush(stdout);
	while (access(argv[1], F_OK))
		for (long i = 0; i < 1000; i++)
			sum += view_leaf_i3(i);
	return sum == 0x7fffffff; /* (keeps the loop) */
}
