// SPDX-License-Identifier: MIT
/*
 * rr_sigpause.c - a thread that waits for signals in pause() or
 * sigsuspend(), for tests/integ/68-signals.t. A worker thread first does
 * its work (40 rounds of a mutex and a short sleep) and says so; the main
 * thread waits for WANT SIGUSR1 (their handler counts them and notes the
 * wait each one ended), then joins the worker and prints the notes. In
 * serial mode the waiting thread must give the run token up, or the worker
 * never gets to say it is done (the test sends no signal before that).
 *
 * usage: rr_sigpause pause|suspend [WANT]   (default WANT 3)
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t count;
static volatile int waits;
static int notes[16];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int rounds;

static void on_usr1(int sig)
{
	(void)sig;
	if (count < 16)
		notes[count] = waits;
	count++;
}

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < 40; i++) {
		pthread_mutex_lock(&lock);
		rounds++;
		pthread_mutex_unlock(&lock);
		usleep(1000);
	}
	printf("worker done %d\n", rounds);
	fflush(stdout);
	return NULL;
}

int main(int argc, char **argv)
{
	int suspend = argc > 1 && !strcmp(argv[1], "suspend");
	int want = argc > 2 ? atoi(argv[2]) : 3;
	struct sigaction sa;
	sigset_t block, old;
	pthread_t th;

	if (want < 1 || want > 16)
		return 2;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL) < 0) {
		perror("sigaction");
		return 2;
	}
	/* sigsuspend: the classic race-free form (block, test, suspend). */
	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	if (suspend)
		sigprocmask(SIG_BLOCK, &block, &old);
	if (pthread_create(&th, NULL, worker, NULL))
		return 2;
	while (count < want) {
		waits++;
		if (suspend)
			sigsuspend(&old);
		else
			pause();
	}
	if (suspend)
		sigprocmask(SIG_SETMASK, &old, NULL);
	pthread_join(th, NULL);
	printf("handled %d signals in %s\n", (int)count, suspend ? "sigsuspend" : "pause");
	for (int i = 0; i < count && i < 16; i++)
		printf("signal %d ended wait %d\n", i, notes[i]);
	return 0;
}
