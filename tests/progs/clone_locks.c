// SPDX-License-Identifier: MIT
/*
 * clone_locks.c - a program whose threads are made without pthread_create:
 * with glibc's clone() wrapper and (x86-64) with its own clone system call
 * instruction, none with a TLS of its own (they run on their creator's),
 * and which take a mutex and call plain functions, beside one pthread that
 * does the same (tests/integ/279-clone-threads-locks.t,
 * 280-clone-threads-probe.t).
 *
 *   clone_locks [ROUNDS | STOP] [raw]
 *
 * Each round: one pthread, two clone() threads and one raw clone thread,
 * side by side, each CL_CALLS times takes cl_mutex, adds 1 to a counter,
 * lets it go, and sums clone_leaf and clone_leaf2. Prints "counter ok|BAD"
 * (the counter against rounds x threads x calls) and "sums ok|BAD"; with
 * STOP (a file name) it prints "ready" first and runs rounds until that
 * file exists. With raw (x86-64), every clone thread is made with the
 * program's own clone system call (none through glibc's clone(): where
 * syscall user dispatch is off, spool sees none of them being made,
 * tests/integ/313). On stderr: the rounds and threads made.
 */
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "raw_clone.h"

#define CL_CALLS 300
#define CL_CLONES 3 /* per round: two through clone(), one raw */

static pthread_mutex_t cl_mutex = PTHREAD_MUTEX_INITIALIZER;
static long cl_counter;
static volatile int cl_bad;

__attribute__((noinline)) long clone_leaf(long x)
{
	__asm__ volatile("" ::: "memory");
	return x * 3 + 1;
}

__attribute__((noinline)) long clone_leaf2(long x)
{
	__asm__ volatile("" ::: "memory");
	return x ^ 5;
}

static long cl_want(void)
{
	long s = 0;

	for (long i = 0; i < CL_CALLS; i++)
		s += i * 3 + 1 + (i ^ 5);
	return s;
}

/* Locks and calls only: a thread on its creator's TLS must not use errno
 * or stdio (pthread_mutex_lock of a default mutex uses neither). */
static void cl_work(void)
{
	long s = 0;

	for (long i = 0; i < CL_CALLS; i++) {
		pthread_mutex_lock(&cl_mutex);
		cl_counter++;
		pthread_mutex_unlock(&cl_mutex);
		s += clone_leaf(i) + clone_leaf2(i);
	}
	if (s != cl_want())
		cl_bad = 1;
}

static int cl_clone_main(void *arg)
{
	(void)arg;
	cl_work();
	return 0;
}

static void *cl_pthread_main(void *arg)
{
	(void)arg;
	cl_work();
	return NULL;
}

#define CL_STACK (128 * 1024)
static char cl_stacks[CL_CLONES][CL_STACK] __attribute__((aligned(16)));

static int cl_all_raw;

static int cl_start(int k, volatile int *ctid)
{
	char *top = cl_stacks[k] + CL_STACK;

	*ctid = 1;
#if defined(__x86_64__)
	if (k == CL_CLONES - 1 || cl_all_raw)
		return raw_clone(RAW_CLONE_THREAD, raw_clone_push(top, cl_clone_main, NULL), ctid) < 0
			   ? -1
			   : 0;
#endif
	return clone(cl_clone_main, top, RAW_CLONE_THREAD, NULL, NULL, NULL, ctid) < 0 ? -1 : 0;
}

static void cl_wait(volatile int *ctid)
{
	while (*ctid)
		syscall(SYS_futex, ctid, FUTEX_WAIT, 1, NULL, NULL, 0);
}

int main(int argc, char **argv)
{
	const char *stop = argc > 1 && (argv[1][0] < '0' || argv[1][0] > '9') ? argv[1] : NULL;
	long rounds = argc > 1 && !stop ? atol(argv[1]) : 20, done = 0, made = 0;
	volatile int ctid[CL_CLONES];

	cl_all_raw = argc > 2 && !strcmp(argv[2], "raw");

	if (stop) {
		printf("ready\n");
		fflush(stdout);
	}
	for (;;) {
		pthread_t th;
		int started[CL_CLONES];

		if (stop ? access(stop, F_OK) == 0 : done >= rounds)
			break;
		if (pthread_create(&th, NULL, cl_pthread_main, NULL)) {
			fprintf(stderr, "clone_locks: pthread_create failed\n");
			return 1;
		}
		for (int k = 0; k < CL_CLONES; k++) {
			started[k] = cl_start(k, &ctid[k]) == 0;
			if (!started[k]) {
				fprintf(stderr, "clone_locks: clone failed\n");
				return 1;
			}
			made++;
		}
		for (int k = 0; k < CL_CLONES; k++)
			cl_wait(&ctid[k]);
		pthread_join(th, NULL);
		done++;
	}
	printf("counter %s\n", cl_counter == done * (CL_CLONES + 1) * CL_CALLS ? "ok" : "BAD");
	printf("sums %s\n", cl_bad ? "BAD" : "ok");
	fprintf(stderr, "clone_locks: %ld rounds, %ld clone threads\n", done, made);
	return 0;
}
