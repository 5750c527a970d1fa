// SPDX-License-Identifier: MIT
/*
 * rr_sigblocked - a process-directed signal while the only thread that
 * does not block it waits in a blocking read: the thread that blocks it
 * must not run its handler (tests/integ/137-blocked-signals.t). nginx's
 * thread-pool threads block every signal; recorded in serial mode, one of
 * them ran nginx's SIGQUIT handler.
 *
 *   rr_sigblocked
 *
 * A worker blocks SIGUSR1 and takes a mutex in a loop (a switch point each
 * time) until the handler has run; main installs the handler (no
 * SA_RESTART), prints "ready" and reads a pipe nobody writes, which the
 * signal interrupts. Send SIGUSR1 to the process. Prints which thread ran
 * the handler and how the read ended.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static pthread_t sb_main;
static volatile sig_atomic_t sb_on_main = -1;
static int sb_done;
static pthread_mutex_t sb_lock = PTHREAD_MUTEX_INITIALIZER;

static void sb_handler(int sig)
{
	(void)sig;
	sb_on_main = pthread_equal(pthread_self(), sb_main) ? 1 : 0;
	__atomic_store_n(&sb_done, 1, __ATOMIC_RELEASE);
}

static void *sb_worker(void *arg)
{
	sigset_t s;
	long n = 0;

	(void)arg;
	sigemptyset(&s);
	sigaddset(&s, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &s, NULL);
	while (!__atomic_load_n(&sb_done, __ATOMIC_ACQUIRE)) {
		pthread_mutex_lock(&sb_lock);
		n++;
		pthread_mutex_unlock(&sb_lock);
	}
	return NULL;
}

int main(void)
{
	struct sigaction sa;
	pthread_t t;
	int p[2];
	char c;
	ssize_t r;

	sb_main = pthread_self();
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = sb_handler;
	sigaction(SIGUSR1, &sa, NULL);
	if (pipe(p) < 0)
		return 2;
	pthread_create(&t, NULL, sb_worker, NULL);
	printf("ready\n");
	fflush(stdout);
	r = read(p[0], &c, 1);
	printf("read: %s\n", r < 0 && errno == EINTR ? "EINTR" : "other");
	while (!__atomic_load_n(&sb_done, __ATOMIC_ACQUIRE))
		usleep(1000);
	pthread_join(t, NULL);
	printf("handler ran on %s\n", sb_on_main == 1 ? "main" : "the worker");
	return 0;
}
