// SPDX-License-Identifier: MIT
/*
 * rr_forksig - a signal that reaches a process while it is inside a fork
 * (tests/integ/373-rr-fork-signal.t), as dash's SIGCHLD reached dash in
 * `sh -c 'echo x | jq .'`: child A waits until the parent is about to fork
 * child B, then exits; B's fork copies a large heap, so A's SIGCHLD comes
 * during it. The agent delivers a signal that comes while the thread is in
 * the agent at the call's record, after the real fork, in the parent only:
 * B sees the handler's flag clear. A replay that ran the handler before the
 * fork gave B the flag set (dash's child then called wait4, which its
 * recording does not have). B prints the flag; the parent prints whether
 * the handler ran before the fork returned to it (the race is the
 * kernel's: a replay must print what the recording printed).
 *
 * usage: rr_forksig
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t got_chld;

static void on_chld(int sig)
{
	(void)sig;
	got_chld = 1;
}

int main(int argc, char **argv)
{
	struct sigaction sa = {.sa_handler = on_chld};
	size_t heap = (argc > 1 ? strtoul(argv[1], NULL, 0) : 256) << 20;
	volatile int *go;
	char *mem;
	pid_t a, b;
	int st, before;

	sigaction(SIGCHLD, &sa, NULL);
	go = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (go == MAP_FAILED)
		return 2;
	/* (A is forked small, so its exit is quick) */
	a = fork();
	if (a == 0) {
		while (!__atomic_load_n(go, __ATOMIC_ACQUIRE))
			;
		_exit(0);
	}
	mem = malloc(heap);
	if (!mem)
		return 2;
	for (size_t i = 0; i < heap; i += 4096)
		mem[i] = 1; /* (page tables for B's fork to copy) */
	__atomic_store_n(go, 1, __ATOMIC_RELEASE);
	b = fork();
	if (b == 0) {
		printf("child B: SIGCHLD handler ran before my fork: %s\n", got_chld ? "yes" : "no");
		fflush(stdout);
		_exit(0);
	}
	before = got_chld;
	/* (no SA_RESTART: a wait the SIGCHLD interrupts is made again) */
	while (waitpid(b, &st, 0) < 0 && errno == EINTR)
		;
	while (waitpid(a, &st, 0) < 0 && errno == EINTR)
		;
	printf("parent: SIGCHLD handler ran before fork returned: %s\n", before ? "yes" : "no");
	return 0;
}
