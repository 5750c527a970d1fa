// SPDX-License-Identifier: MIT
/*
 * rr_blockall - a worker thread that blocks every signal (as nginx's
 * thread-pool threads do) and then makes the dynamic loader work: dlopen
 * of a library not loaded yet, whose open and mmap calls come from ld.so's
 * text, outside libc's. Under spool record, syscall user dispatch turns
 * each into a SIGSYS, which must never be blocked for real
 * (tests/integ/137-sigsys-blocked.t).
 *
 *   rr_blockall LIBRARY
 *
 * Prints whether the thread still sees SIGSYS (and SIGQUIT) blocked in its
 * own mask, whether the dlopen worked, and a count from two threads
 * sharing a mutex.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>

static pthread_mutex_t blockall_lock = PTHREAD_MUTEX_INITIALIZER;
static long blockall_count;

static void *blockall_worker(void *arg)
{
	const char *lib = arg;
	sigset_t all, now;
	void *h;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	h = dlopen(lib, RTLD_NOW);
	pthread_sigmask(SIG_BLOCK, NULL, &now);
	for (int i = 0; i < 1000; i++) {
		pthread_mutex_lock(&blockall_lock);
		blockall_count++;
		pthread_mutex_unlock(&blockall_lock);
	}
	printf("dlopen %s: %s; SIGSYS blocked: %d, SIGQUIT blocked: %d\n", lib,
	       h ? "ok" : "failed", sigismember(&now, SIGSYS), sigismember(&now, SIGQUIT));
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc != 2) {
		fprintf(stderr, "usage: rr_blockall LIBRARY\n");
		return 2;
	}
	pthread_create(&t, NULL, blockall_worker, argv[1]);
	for (int i = 0; i < 1000; i++) {
		pthread_mutex_lock(&blockall_lock);
		blockall_count++;
		pthread_mutex_unlock(&blockall_lock);
	}
	pthread_join(t, NULL);
	printf("count %ld\n", blockall_count);
	return 0;
}
