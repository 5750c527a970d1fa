// SPDX-License-Identifier: MIT
/*
 * rr_altstack.c - threads with an alternate signal stack across a snapshot
 * (tests/integ/287): each worker sets its own sigaltstack, then adds to a
 * counter under a mutex ITER times, printing a line now and then; at its
 * end it says whether its alternate stack is still the one it set, and a
 * SIGUSR1 it sends itself runs its handler there. A replay restored from a
 * snapshot taken in the loop must say the same as the recording.
 *
 * usage: rr_altstack [WORKERS] [ITER]
 */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ALT_SIZE (64 * 1024)

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long counter;
static int iters;
static __thread char *alt_lo;
static __thread volatile int on_alt;

static void on_usr1(int sig)
{
	char here;

	(void)sig;
	on_alt = &here >= alt_lo && &here < alt_lo + ALT_SIZE;
}

static void *worker(void *arg)
{
	int id = (int)(intptr_t)arg;
	stack_t ss = {0}, cur;

	alt_lo = malloc(ALT_SIZE);
	ss.ss_sp = alt_lo;
	ss.ss_size = ALT_SIZE;
	if (!alt_lo || sigaltstack(&ss, NULL) < 0) {
		perror("sigaltstack");
		return NULL;
	}
	for (int i = 0; i < iters; i++) {
		pthread_mutex_lock(&m);
		counter++;
		pthread_mutex_unlock(&m);
		if (i % 64 == 0)
			printf("worker %d at %d\n", id, i);
		if (i % 4 == 0)
			sched_yield(); /* a switch of the run token */
	}
	if (sigaltstack(NULL, &cur) < 0)
		cur.ss_flags = SS_DISABLE;
	pthread_kill(pthread_self(), SIGUSR1);
	pthread_mutex_lock(&m);
	printf("worker %d: alternate stack %s, handler ran %s\n", id,
	       (cur.ss_flags & SS_DISABLE) ? "none"
	       : cur.ss_sp == (void *)alt_lo && cur.ss_size == ALT_SIZE ? "kept"
								     : "another",
	       on_alt ? "on it" : "elsewhere");
	pthread_mutex_unlock(&m);
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2;
	struct sigaction sa;
	pthread_t th[16];

	iters = argc > 2 ? atoi(argv[2]) : 2000;
	if (n < 1 || n > 16)
		n = 2;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_ONSTACK;
	sigaction(SIGUSR1, &sa, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 0; i < n; i++)
		pthread_create(&th[i], NULL, worker, (void *)(intptr_t)i);
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	printf("counter %ld (want %ld)\n", counter, (long)n * iters);
	return counter == (long)n * iters ? 0 : 1;
}
