// SPDX-License-Identifier: MIT
/*
 * trylock - pthread_mutex_trylock that fails and succeeds a known number of
 * times on one mutex (`try_lock`).
 *
 *   trylock [FAILS OKS]    (default 100 200)
 *
 * The main thread holds try_lock while a second thread tries it FAILS times
 * (each returns EBUSY); after the main thread has released it, the second
 * thread tries OKS times, each succeeding (and unlocking). The main thread
 * takes try_lock once with pthread_mutex_lock. Known: failed trylocks =
 * FAILS, successful trylocks = OKS, plain acquisitions = 1. Prints
 * "busy=<n> ok=<m>" as observed by the program.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t try_lock = PTHREAD_MUTEX_INITIALIZER;
static long fails, oks, busy, ok;

static void *try_held(void *arg)
{
	long i;

	(void)arg;
	for (i = 0; i < fails; i++)
		if (pthread_mutex_trylock(&try_lock) == EBUSY)
			busy++;
	return NULL;
}

static void *try_free(void *arg)
{
	long i;

	(void)arg;
	for (i = 0; i < oks; i++)
		if (pthread_mutex_trylock(&try_lock) == 0) {
			ok++;
			pthread_mutex_unlock(&try_lock);
		}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	fails = 100;
	oks = 200;
	if (argc == 3) {
		fails = atol(argv[1]);
		oks = atol(argv[2]);
	}
	pthread_mutex_lock(&try_lock);
	pthread_create(&t, NULL, try_held, NULL);
	pthread_join(t, NULL);
	pthread_mutex_unlock(&try_lock);
	pthread_create(&t, NULL, try_free, NULL);
	pthread_join(t, NULL);
	printf("busy=%ld ok=%ld\n", busy, ok);
	return busy == fails && ok == oks ? 0 : 1;
}
