// SPDX-License-Identifier: MIT
/*
 * probe_sigtrap.c - a program with its own SIGTRAP handler, for int3 probes
 * (tests/integ/83-probe-sigtrap.t). After startup (so after spool's agent
 * installed its handler) it installs one with signal(), replaces it with
 * sigaction(SA_SIGINFO) and checks that the old actions it is given back
 * are its own; then it calls probe_trap_tiny (3 bytes: an int3 probe when
 * probed) N times, raises SIGTRAP N/10 times and executes an int3 of its
 * own N/10 times, counting the traps its handler sees. Output:
 *   tiny CALLS
 *   handled TRAPS
 *   old_ok 1|0
 * Usage: probe_sigtrap [N]
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__asm__(".text\n"
	".globl probe_trap_tiny\n"
	".type probe_trap_tiny, @function\n"
	"probe_trap_tiny:\n"
	"\tmovl $1, %eax\n"
	"\tret\n"
	".size probe_trap_tiny, .-probe_trap_tiny\n");
int probe_trap_tiny(void);

static volatile sig_atomic_t handled, first_handler;

static void on_trap_first(int sig)
{
	(void)sig;
	first_handler++;
}

static void on_trap(int sig, siginfo_t *si, void *uc)
{
	(void)si;
	(void)uc;
	if (sig == SIGTRAP)
		handled++;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100;
	struct sigaction sa, old;
	sighandler_t prev;
	long tiny = 0;
	int old_ok = 1;

	prev = signal(SIGTRAP, on_trap_first);
	if (prev == SIG_ERR)
		return 1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_trap;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGTRAP, &sa, &old))
		return 1;
	/* The old action is the handler signal() installed. */
	if ((old.sa_flags & SA_SIGINFO) || old.sa_handler != on_trap_first)
		old_ok = 0;
	if (sigaction(SIGTRAP, NULL, &old) || !(old.sa_flags & SA_SIGINFO) ||
	    old.sa_sigaction != on_trap)
		old_ok = 0;
	for (int i = 0; i < n; i++) {
		tiny += probe_trap_tiny();
		if (i % 10 == 0) {
			raise(SIGTRAP);
			__asm__ volatile("int3");
		}
	}
	printf("tiny %ld\nhandled %d\nold_ok %d\n", tiny, (int)handled, old_ok && !first_handler);
	return 0;
}
