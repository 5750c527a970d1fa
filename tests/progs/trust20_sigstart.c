// SPDX-License-Identifier: MIT
/*
 * trust20_sigstart.c - a program whose behaviour depends on the signal
 * mask and the ignored signals it inherited, through calls that are not
 * recorded inputs (pthread_sigmask, sigaction), and on a signal it sends
 * itself (tests/integ/368-masked-recording-replays.t).
 *
 *   trust20_sigstart
 *
 * Prints, in main and in a thread, which of SIGHUP, SIGINT, SIGUSR1,
 * SIGUSR2 and SIGTERM are blocked and which are ignored; then unblocks
 * SIGHUP and sends it to itself: the program survives it only when it
 * inherited SIGHUP ignored (exit 0), SIGHUP's default kills it otherwise
 * (status 129).
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const int sigstart_sigs[] = {SIGHUP, SIGINT, SIGUSR1, SIGUSR2, SIGTERM};

static void sigstart_print(const char *who)
{
	sigset_t now;

	sigemptyset(&now);
	pthread_sigmask(SIG_BLOCK, NULL, &now);
	printf("%s:", who);
	for (size_t i = 0; i < sizeof(sigstart_sigs) / sizeof(sigstart_sigs[0]); i++) {
		struct sigaction sa;
		int s = sigstart_sigs[i];

		sigaction(s, NULL, &sa);
		printf(" %s=%s%s", sigabbrev_np(s), sigismember(&now, s) == 1 ? "blocked" : "open",
		       sa.sa_handler == SIG_IGN ? ",ignored" : "");
	}
	printf("\n");
}

static void *sigstart_thread(void *arg)
{
	sigstart_print(arg);
	return NULL;
}

int main(void)
{
	sigset_t hup;
	pthread_t t;

	sigstart_print("main");
	fflush(stdout);
	if (pthread_create(&t, NULL, sigstart_thread, "thread"))
		return 1;
	pthread_join(t, NULL);
	fflush(stdout);
	sigemptyset(&hup);
	sigaddset(&hup, SIGHUP);
	pthread_sigmask(SIG_UNBLOCK, &hup, NULL);
	kill(getpid(), SIGHUP);
	printf("survived SIGHUP\n");
	return 0;
}
