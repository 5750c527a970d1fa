// SPDX-License-Identifier: MIT
/*
 * killself - takes a lock a known number of times, then dies of a signal the
 * agent cannot intercept (SIGKILL) or one it must not swallow (SIGTERM).
 *
 *   killself kill|term [PAIRS]    (default PAIRS 1000)
 *
 * Prints "pairs=<n>" first. The expected exit status under spool is the
 * shell's: 137 for SIGKILL, 143 for SIGTERM.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t kill_lock = PTHREAD_MUTEX_INITIALIZER;

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 1000, i;
	int sig;

	if (argc < 2 || (strcmp(argv[1], "kill") && strcmp(argv[1], "term"))) {
		fprintf(stderr, "usage: killself kill|term [PAIRS]\n");
		return 2;
	}
	sig = strcmp(argv[1], "kill") == 0 ? SIGKILL : SIGTERM;
	for (i = 0; i < n; i++) {
		pthread_mutex_lock(&kill_lock);
		pthread_mutex_unlock(&kill_lock);
	}
	printf("pairs=%ld\n", n);
	fflush(stdout);
	/* kill() rather than raise(): raise() blocks signals around tgkill in
	 * glibc, which would change nothing here but hides the intent. */
	kill(getpid(), sig);
	pause();
	return 0;
}
