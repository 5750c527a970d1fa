// SPDX-License-Identifier: MIT
/*
 * tname.c - threads named after they started, the three ways a program
 * does it (tests/integ/393-thread-rename.t): a worker names itself with
 * pthread_setname_np(pthread_self()), the main thread names another worker
 * with pthread_setname_np(th), and the main thread names itself with
 * prctl(PR_SET_NAME), twice (the last name is the one to show). Every
 * thread takes the mutex before its rename (so spool has its start, with
 * the old name, already) and after it.
 *
 * usage: tname [ROUNDS]   (mutex acquisitions per thread and phase, 10)
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

static pthread_mutex_t tn_lock = PTHREAD_MUTEX_INITIALIZER;
static sem_t tn_started, tn_renamed;
static long tn_counter;
static int tn_rounds = 10;

static void tn_work(void)
{
	for (int i = 0; i < tn_rounds; i++) {
		pthread_mutex_lock(&tn_lock);
		tn_counter++;
		pthread_mutex_unlock(&tn_lock);
	}
}

static void *tn_self_namer(void *arg)
{
	(void)arg;
	tn_work();
	sem_post(&tn_started);
	sem_wait(&tn_renamed);
	if (pthread_setname_np(pthread_self(), "tn-self-named"))
		abort();
	tn_work();
	return NULL;
}

static void *tn_named(void *arg)
{
	(void)arg;
	tn_work();
	sem_post(&tn_started);
	sem_wait(&tn_renamed);
	tn_work();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t a, b;

	if (argc > 1)
		tn_rounds = atoi(argv[1]);
	sem_init(&tn_started, 0, 0);
	sem_init(&tn_renamed, 0, 0);
	tn_work();
	if (prctl(PR_SET_NAME, "tn-main-first", 0, 0, 0))
		return 1;
	tn_work();
	if (pthread_create(&a, NULL, tn_self_namer, NULL) ||
	    pthread_create(&b, NULL, tn_named, NULL))
		return 1;
	sem_wait(&tn_started);
	sem_wait(&tn_started);
	/* both workers have run (and were registered with the old name) */
	if (pthread_setname_np(b, "tn-by-main") || prctl(PR_SET_NAME, "tn-main-renamed", 0, 0, 0))
		return 1;
	sem_post(&tn_renamed);
	sem_post(&tn_renamed);
	tn_work();
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("counter %ld\n", tn_counter);
	return 0;
}
