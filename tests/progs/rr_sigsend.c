// SPDX-License-Identifier: MIT
/*
 * rr_sigsend.c - a program that signals itself, the ways lbzip2 and
 * pbzip2 do: a worker's kill(getpid(), SIGUSR2) ends main's sigsuspend,
 * after which main puts SIGUSR2 back to SIG_DFL and unblocks it (a replay
 * that sent the signal again would leave it pending, and it would kill the
 * program there); main's pthread_kill(SIGQUIT) ends a signal thread's
 * sigwait and must return 0 (a replay whose signal thread already returned
 * from its replayed wait would get ESRCH from a real one); raise(SIGUSR1)
 * runs a handler. The signal thread prints a value main set just before
 * its pthread_kill, with no lock: the signal orders them, and a sync
 * replay must keep that order (its sigwait returns the recorded signal at
 * once, but not before main has sent it). Prints what it saw; exit 0.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long total;
static volatile sig_atomic_t usr1, usr2;
static volatile int secret;

static void on_usr1(int sig)
{
	(void)sig;
	usr1++;
}

static void on_usr2(int sig)
{
	(void)sig;
	usr2++;
}

static void *worker(void *arg)
{
	(void)arg;
	for (long i = 0; i < 20000; i++) {
		pthread_mutex_lock(&m);
		total = total * 3 + i;
		pthread_mutex_unlock(&m);
	}
	kill(getpid(), SIGUSR2);
	return NULL;
}

static void *sigthread(void *arg)
{
	sigset_t *set = arg;
	int sig = 0;

	sigwait(set, &sig);
	printf("signal thread got %s, secret %d\n", sig == SIGQUIT ? "SIGQUIT" : "something else",
	       secret);
	return NULL;
}

int main(void)
{
	struct sigaction sa;
	sigset_t block, none, quit;
	pthread_t w, s;
	int rc;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&block);
	sigaddset(&block, SIGUSR2);
	sigaddset(&block, SIGQUIT);
	pthread_sigmask(SIG_BLOCK, &block, NULL);
	sa.sa_handler = on_usr2;
	sigaction(SIGUSR2, &sa, NULL);
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);

	sigemptyset(&quit);
	sigaddset(&quit, SIGQUIT);
	pthread_create(&s, NULL, sigthread, &quit);
	pthread_create(&w, NULL, worker, NULL);
	for (long i = 0; i < 20000; i++) {
		pthread_mutex_lock(&m);
		total = total * 5 + i;
		pthread_mutex_unlock(&m);
	}
	sigemptyset(&none);
	sigaddset(&none, SIGQUIT);
	while (!usr2)
		sigsuspend(&none); /* SIGUSR2 open only here */
	signal(SIGUSR2, SIG_DFL);
	pthread_sigmask(SIG_UNBLOCK, &block, NULL); /* a leftover SIGUSR2 would kill here */
	pthread_sigmask(SIG_BLOCK, &quit, NULL);
	pthread_join(w, NULL);
	secret = 42;
	rc = pthread_kill(s, SIGQUIT);
	/* Printed after the join: the two threads' printf calls are ordered by
	 * no lock the program takes (stdio's own is glibc-internal), which sync
	 * mode does not order. */
	pthread_join(s, NULL);
	printf("pthread_kill returned %d\n", rc);
	raise(SIGUSR1);
	printf("total %ld usr1 %d usr2 %d\n", total, (int)usr1, (int)usr2);
	return 0;
}
