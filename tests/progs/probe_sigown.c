// SPDX-License-Identifier: MIT
/*
 * probe_sigown.c - a program that uses SIGTRAP and signal masks itself, for
 * trap-based probes (tests/arm64/269-a64-probe-sigown.t: BRK probes on
 * aarch64; portable C, an int3 on x86-64). work() is the function to
 * probe; each mode calls it N times (3 threads in `block`):
 *   trap N   installs its own SIGTRAP handler with signal(), replaces it
 *            with sigaction(SA_SIGINFO) and checks that the old actions it
 *            is given back are its own; then every 10th round raises
 *            SIGTRAP and executes a breakpoint of its own (its handler
 *            steps over it). Prints "work SUM", "handled TRAPS",
 *            "old_ok 1|0".
 *   block N  installs a counting SIGTRAP handler, blocks every signal,
 *            reads its mask back (SIGTRAP, SIGSEGV in it: "view_ok"),
 *            starts 2 threads that read theirs too ("thread_view_ok") and
 *            call work(); raises SIGTRAP while blocked ("before": the
 *            handler has not run), unblocks it ("after": it ran once).
 *   die N    blocks SIGTRAP, calls work() N times, then executes its own
 *            breakpoint: the kernel kills it with SIGTRAP.
 * Usage: probe_sigown trap|block|die [N]
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

static volatile sig_atomic_t handled, first_handler;
static int rounds;

__attribute__((noinline)) long work(long i)
{
	__asm__ volatile("" ::: "memory");
	return i * 3 + 1;
}

/* A breakpoint of the program's own (not a probe's). */
static void own_break(void)
{
#if defined(__aarch64__)
	__asm__ volatile("brk #0x7" ::: "memory");
#elif defined(__x86_64__)
	__asm__ volatile("int3" ::: "memory");
#endif
}

static void on_trap_first(int sig)
{
	(void)sig;
	first_handler++;
}

static void on_trap(int sig, siginfo_t *si, void *ucv)
{
	(void)si;
	if (sig != SIGTRAP)
		return;
	handled++;
#if defined(__aarch64__)
	/* BRK leaves pc on itself: step over the program's own */
	{
		ucontext_t *uc = ucv;

		if (si->si_code > 0 && *(const unsigned *)uc->uc_mcontext.pc == 0xd42000e0u)
			uc->uc_mcontext.pc += 4;
	}
#else
	(void)ucv;
#endif
}

static int mode_trap(void)
{
	struct sigaction sa, old;
	long sum = 0;
	int old_ok = 1;

	if (signal(SIGTRAP, on_trap_first) == SIG_ERR)
		return 1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_trap;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGTRAP, &sa, &old))
		return 1;
	if ((old.sa_flags & SA_SIGINFO) || old.sa_handler != on_trap_first)
		old_ok = 0;
	if (sigaction(SIGTRAP, NULL, &old) || !(old.sa_flags & SA_SIGINFO) ||
	    old.sa_sigaction != on_trap)
		old_ok = 0;
	for (int i = 0; i < rounds; i++) {
		sum += work(i);
		if (i % 10 == 0) {
			raise(SIGTRAP);
			own_break();
		}
	}
	printf("work %ld\nhandled %d\nold_ok %d\n", sum, (int)handled, old_ok && !first_handler);
	return 0;
}

static void on_count(int sig)
{
	(void)sig;
	handled++;
}

static long thread_sums[2];
static int thread_views[2];

static void *block_thread(void *arg)
{
	long k = (long)arg, sum = 0;
	sigset_t cur;

	pthread_sigmask(SIG_BLOCK, NULL, &cur);
	thread_views[k] = sigismember(&cur, SIGTRAP) == 1 && sigismember(&cur, SIGSEGV) == 1;
	for (int i = 0; i < rounds; i++)
		sum += work(i);
	thread_sums[k] = sum;
	return NULL;
}

static int mode_block(void)
{
	sigset_t all, cur, trap;
	pthread_t th[2];
	long sum = 0;
	int before;

	signal(SIGTRAP, on_count);
	sigfillset(&all);
	if (sigprocmask(SIG_BLOCK, &all, NULL))
		return 1;
	sigprocmask(SIG_BLOCK, NULL, &cur);
	printf("view_ok %d\n", sigismember(&cur, SIGTRAP) == 1 && sigismember(&cur, SIGSEGV) == 1 &&
				   sigismember(&cur, SIGINT) == 1);
	for (long k = 0; k < 2; k++)
		if (pthread_create(&th[k], NULL, block_thread, (void *)k))
			return 1;
	for (int i = 0; i < rounds; i++)
		sum += work(i);
	for (int k = 0; k < 2; k++) {
		pthread_join(th[k], NULL);
		sum += thread_sums[k];
	}
	printf("work %ld\nthread_view_ok %d\n", sum, thread_views[0] && thread_views[1]);
	raise(SIGTRAP);
	before = handled;
	sigemptyset(&trap);
	sigaddset(&trap, SIGTRAP);
	pthread_sigmask(SIG_UNBLOCK, &trap, NULL);
	printf("before %d\nafter %d\n", before, (int)handled);
	return 0;
}

static int mode_die(void)
{
	sigset_t trap;
	long sum = 0;

	sigemptyset(&trap);
	sigaddset(&trap, SIGTRAP);
	sigprocmask(SIG_BLOCK, &trap, NULL);
	for (int i = 0; i < rounds; i++)
		sum += work(i);
	printf("work %ld\n", sum);
	fflush(stdout);
	own_break();
	printf("not killed\n");
	return 0;
}

int main(int argc, char **argv)
{
	rounds = argc > 2 ? atoi(argv[2]) : 100;
	if (argc > 1 && !strcmp(argv[1], "trap"))
		return mode_trap();
	if (argc > 1 && !strcmp(argv[1], "block"))
		return mode_block();
	if (argc > 1 && !strcmp(argv[1], "die"))
		return mode_die();
	fprintf(stderr, "usage: probe_sigown trap|block|die [N]\n");
	return 2;
}
