// SPDX-License-Identifier: MIT
/*
 * rawexit - threads that end without any exit handler running: each leaves
 * with a raw SYS_exit (as a thread of a runtime with its own threading, or
 * one that hit a fatal path, may), so neither pthread_exit nor a TLS
 * destructor tells spool's agent that it ended.
 *
 *   rawexit N   creates N threads one after another; each locks and unlocks
 *               raw_lock once, then calls syscall(SYS_exit, 0); main joins
 *               each (the kernel clears the thread's tid at its exit, which
 *               is what pthread_join waits for). Prints "threads=N".
 *
 * Known: raw_lock is acquired N times, once by each thread.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

static pthread_mutex_t raw_lock = PTHREAD_MUTEX_INITIALIZER;

static void *worker(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&raw_lock);
	pthread_mutex_unlock(&raw_lock);
	for (;;)
		syscall(SYS_exit, 0);
	return NULL;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10;

	for (long i = 0; i < n; i++) {
		pthread_t t;

		if (pthread_create(&t, NULL, worker, NULL) || pthread_join(t, NULL))
			return 1;
	}
	printf("threads=%ld\n", n);
	return 0;
}
