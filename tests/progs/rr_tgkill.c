// SPDX-License-Identifier: MIT
/*
 * rr_tgkill.c - a thread signalled by the id its gettid returned. A worker
 * notes gettid() and waits on a condition variable; main sends it SIGSEGV
 * with tgkill(getpid(), tid) (a runtime's way to stop a thread: the
 * program has its own SIGSEGV handler) and waits, without a call, until
 * the handler has run. A replay sends a synchronous signal for real (the
 * handler of a fault is never deferred), but there gettid and getpid
 * return the recorded ids: the send must reach the worker of this run.
 * Prints where the handler ran; exit 0.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static pid_t wtid;
static int done;
static volatile int handled;
static pthread_t handled_by;

static void on_segv(int sig)
{
	(void)sig;
	handled_by = pthread_self();
	__atomic_store_n(&handled, 1, __ATOMIC_RELEASE);
}

static void *worker(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&m);
	wtid = gettid();
	pthread_cond_broadcast(&c);
	while (!done)
		pthread_cond_wait(&c, &m);
	pthread_mutex_unlock(&m);
	return NULL;
}

int main(void)
{
	struct sigaction sa;
	pthread_t th;
	long spins;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_segv;
	sigaction(SIGSEGV, &sa, NULL);
	pthread_create(&th, NULL, worker, NULL);
	pthread_mutex_lock(&m);
	while (!wtid)
		pthread_cond_wait(&c, &m);
	pthread_mutex_unlock(&m);
	if (tgkill(getpid(), wtid, SIGSEGV) < 0)
		perror("tgkill");
	/* No call while waiting: nothing here is recorded or replayed. */
	for (spins = 0; spins < 3000000000L && !__atomic_load_n(&handled, __ATOMIC_ACQUIRE);
	     spins++)
		__asm__ volatile("pause");
	pthread_mutex_lock(&m);
	done = 1;
	pthread_cond_broadcast(&c);
	pthread_mutex_unlock(&m);
	pthread_join(th, NULL);
	printf("the handler %s\n", !handled			   ? "never ran"
				   : pthread_equal(handled_by, th) ? "ran in the worker"
								   : "ran in another thread");
	return 0;
}
