// SPDX-License-Identifier: MIT
/*
 * rr_signals.c - a program that takes asynchronous signals, for
 * tests/integ/68-signals.t. A SIGUSR1 handler counts the signals and notes
 * which iteration of the main loop each one interrupted; the loop sleeps
 * briefly each iteration (so a signal lands somewhere in it) and prints a
 * line every 50. It goes on past N iterations (up to N + 10000) until it
 * has handled a signal: on a loaded machine the test's first signal can
 * come after N iterations, and a run that ended before any signal was sent
 * says nothing. At the end the program prints the count and the notes.
 * Under spool replay the output must be the recorded run's, whatever
 * signals the replay does or does not receive.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t count;
static volatile int iter;
static int notes[64];

static void on_usr1(int sig)
{
	(void)sig;
	if (count < 64)
		notes[count] = iter;
	count++;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 400;
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	if (sigaction(SIGUSR1, &sa, NULL) < 0) {
		perror("sigaction");
		return 2;
	}
	printf("ready\n");
	fflush(stdout);
	for (iter = 0; iter < n || (count == 0 && iter < n + 10000); iter++) {
		usleep(2000);
		if (iter % 50 == 0) {
			printf("iter %d signals %d\n", iter, (int)count);
			fflush(stdout);
		}
	}
	printf("signals %d\n", (int)count);
	for (int i = 0; i < count && i < 64; i++)
		printf("signal %d during iteration %d\n", i, notes[i]);
	return 0;
}
