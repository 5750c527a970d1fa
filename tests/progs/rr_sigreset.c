// SPDX-License-Identifier: MIT
/*
 * rr_sigreset.c - an SA_RESETHAND handler, for tests/integ/68-signals.t.
 * The program sends itself SIGUSR1 (raise), whose one-shot handler runs at
 * the next sleep at the latest, says whether the disposition was reset to
 * SIG_DFL, then sends it again: that one has its default action and kills
 * the program (exit status 138 from a shell), as without spool.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t count;

static void on_usr1(int sig)
{
	(void)sig;
	count++;
}

int main(void)
{
	struct sigaction sa, cur;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESETHAND;
	if (sigaction(SIGUSR1, &sa, NULL) < 0) {
		perror("sigaction");
		return 2;
	}
	raise(SIGUSR1);
	usleep(1000);
	printf("handled %d\n", (int)count);
	if (sigaction(SIGUSR1, NULL, &cur) < 0)
		return 2;
	printf("disposition %s\n",
	       cur.sa_handler == SIG_DFL ? "reset to SIG_DFL" : "still the handler");
	fflush(stdout);
	raise(SIGUSR1);
	usleep(1000);
	printf("survived the second signal (handled %d)\n", (int)count);
	return 0;
}
