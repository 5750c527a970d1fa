// SPDX-License-Identifier: MIT
/*
 * sig_own.c - a program with signal handlers of its own, for spool probe
 * -p's attach and detach (tests/integ/281-probe-attach-own-handlers.t).
 *
 *   sig_own STOP GO
 *
 * Prints "ready"; once the file GO exists (spool attached), a thread blocks
 * SIGTRAP, then takes SIGUSR1: its handler calls sig_leaf
 * (a plain function: jump probes) and sig_leaf_i3 (a computed goto: int3
 * probes) until the file STOP exists, so spool attaches, probes and
 * detaches while the thread is inside the program's own handler. After
 * the handler returned, the thread's mask must be exactly the one it had
 * before: "mask same|BAD" (the kernel saved it in the handler's frame while
 * spool kept SIGTRAP out of the kernel's masks). Meanwhile the main thread, in a loop, takes its
 * own SIGSEGV (a read of a page it protected: the handler unprotects it)
 * and its own SIGTRAP (raise), and calls both functions: "segv ok|BAD",
 * "trap ok|BAD" (each handler ran once per round), "sums ok|BAD". Prints
 * "inside" once the thread is in its handler.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

__attribute__((noinline)) long sig_leaf(long x)
{
	__asm__ volatile("" ::: "memory");
	return x * 3 + 1;
}

__attribute__((noinline)) long sig_leaf_i3(long x)
{
	static void *const lab[] = {&&even, &&odd};

	goto *lab[x & 1];
even:
	return x * 5;
odd:
	return x * 7;
}

static const char *sig_stop, *sig_go;
static volatile sig_atomic_t sig_in_handler, sig_stop_now, sig_sum_bad;
static volatile long sig_segvs, sig_traps;
static char *sig_page;
static long sig_pagesz;

static void sig_nap(void)
{
	struct timespec ts = {0, 1000000};

	nanosleep(&ts, NULL);
}

static void sig_usr1(int sig)
{
	(void)sig;
	sig_in_handler = 1;
	while (!sig_stop_now) {
		long s = 0;

		for (long i = 0; i < 50; i++)
			s += sig_leaf(i) - (i * 3 + 1) + sig_leaf_i3(i) - ((i & 1) ? i * 7 : i * 5);
		if (s)
			sig_sum_bad = 1;
		sig_nap();
	}
}

static void sig_segv(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	if ((char *)si->si_addr < sig_page || (char *)si->si_addr >= sig_page + sig_pagesz)
		_exit(70); /* not ours */
	sig_segvs++;
	mprotect(sig_page, (size_t)sig_pagesz, PROT_READ | PROT_WRITE);
}

static void sig_trap(int sig)
{
	(void)sig;
	sig_traps++;
}

static volatile int sig_mask_ok = -1;

static void *sig_thread(void *arg)
{
	sigset_t trap, before, after;
	struct sigaction sa;

	(void)arg;
	while (access(sig_go, F_OK) != 0)
		sig_nap();
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = sig_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	sigemptyset(&trap);
	sigaddset(&trap, SIGTRAP);
	pthread_sigmask(SIG_BLOCK, &trap, NULL);
	pthread_sigmask(SIG_SETMASK, NULL, &before);
	raise(SIGUSR1); /* the handler runs until STOP */
	pthread_sigmask(SIG_SETMASK, NULL, &after);
	sig_mask_ok = !memcmp(&before, &after, sizeof(before));
	return NULL;
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	pthread_t th;
	long rounds = 0, sum_bad = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: sig_own STOP GO\n");
		return 2;
	}
	sig_stop = argv[1];
	sig_go = argv[2];
	sig_pagesz = sysconf(_SC_PAGESIZE);
	sig_page = mmap(NULL, (size_t)sig_pagesz, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (sig_page == MAP_FAILED)
		return 1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = sig_segv;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSEGV, &sa, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = sig_trap;
	sigaction(SIGTRAP, &sa, NULL);
	if (pthread_create(&th, NULL, sig_thread, NULL))
		return 1;
	printf("ready\n");
	fflush(stdout);
	while (access(sig_stop, F_OK) != 0) {
		if (sig_in_handler == 1) {
			sig_in_handler = 2;
			printf("inside\n");
			fflush(stdout);
		}
		long s = 0;

		mprotect(sig_page, (size_t)sig_pagesz, PROT_NONE);
		s += *(volatile char *)sig_page; /* SIGSEGV, unprotected by the handler */
		raise(SIGTRAP);
		for (long i = 0; i < 20; i++)
			s += sig_leaf(i) - (i * 3 + 1) + sig_leaf_i3(i) - ((i & 1) ? i * 7 : i * 5);
		if (s)
			sum_bad = 1;
		rounds++;
		sig_nap();
	}
	sig_stop_now = 1;
	pthread_join(th, NULL);
	printf("segv %s\n", sig_segvs == rounds ? "ok" : "BAD");
	printf("trap %s\n", sig_traps == rounds ? "ok" : "BAD");
	printf("sums %s\n", sum_bad || sig_sum_bad ? "BAD" : "ok");
	printf("mask %s\n", sig_mask_ok == 1 ? "same" : "BAD");
	fprintf(stderr, "sig_own: %ld rounds\n", rounds);
	return 0;
}
