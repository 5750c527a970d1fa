// SPDX-License-Identifier: MIT
/*
 * rr_masked_start.c - a program started with every signal blocked (its
 * parent blocked them before the exec: a service manager, a shell script
 * run from a program that blocks signals, `perl -e 'sigprocmask...; exec'`)
 * that makes a few system calls, in main and in a thread
 * (tests/integ/381-rr-masked-start.t).
 *
 *   rr_masked_start FILE
 *
 * Prints whether main and a thread it creates see SIGSYS and SIGUSR1
 * blocked in their own masks (both must, as the kernel started it so),
 * then FILE's first line, read in the thread.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

static char masked_line[256];

static void masked_print(const char *who)
{
	sigset_t now;

	pthread_sigmask(SIG_BLOCK, NULL, &now);
	printf("%s: SIGSYS blocked %d, SIGUSR1 blocked %d\n", who, sigismember(&now, SIGSYS),
	       sigismember(&now, SIGUSR1));
}

static void *masked_thread(void *arg)
{
	FILE *f = fopen(arg, "r");

	masked_print("thread");
	if (f) {
		if (!fgets(masked_line, sizeof(masked_line), f))
			masked_line[0] = 0;
		fclose(f);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc != 2)
		return 2;
	masked_print("main");
	fflush(stdout);
	if (pthread_create(&t, NULL, masked_thread, argv[1]))
		return 1;
	pthread_join(t, NULL);
	printf("line: %s", masked_line);
	return 0;
}
