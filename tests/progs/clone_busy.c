// SPDX-License-Identifier: MIT
/*
 * clone_busy.c - a thread of the program's own clone system call (on its
 * creator's TLS, where spool keeps its thread state) that takes a mutex
 * CB_CALLS times while its creator is inside spool (tests/integ/349).
 *
 *   clone_busy FILE
 *   clone_busy probe
 *   clone_busy below
 *
 * The creator makes FILE, starts the thread, and takes a mutex it never
 * took before: under spool with SPOOL_TEST_HOLD=FILE (agent_testhold.c),
 * spool holds it there, busy, removes FILE and waits until FILE exists
 * again. The thread waits until FILE is gone, does all its work, and makes
 * FILE again: every one of its calls comes while its creator is inside
 * spool. Natively (or without the variable) the creator removes FILE
 * itself after its lock and the thread runs after it. Prints "counter
 * ok|BAD"; on stderr whether the thread ran while its creator was held.
 *
 * With probe (tests/integ/350): no lock, no file; the creator calls
 * cb_leaf and cb_tiny3 (3 bytes: int3 probes) CB_OWN times each, then the
 * thread calls them CB_CALLS times while the creator waits, with its own
 * futex call: under spool probe -e func:cb_leaf -e func:cb_tiny3 the
 * thread's hits are its only calls into spool. Prints "sums ok|BAD".
 *
 * With below (tests/integ/351): the thread's stack is an array in the
 * creator's frame, right below its creator's own frames (within the span
 * spool keeps of the creator's stack); it takes cb_mutex CB_CALLS times
 * while the creator waits with its own futex call. Prints "counter
 * ok|BAD".
 * x86-64 only (its own syscall instruction); elsewhere it says so and
 * exits 2.
 */
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "raw_clone.h"

#if defined(__x86_64__)
#define CB_CALLS 300
#define CB_OWN 100
#define CB_STACK (128 * 1024)

static pthread_mutex_t cb_first = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t cb_hold = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t cb_mutex = PTHREAD_MUTEX_INITIALIZER;
static long cb_counter;
static volatile int cb_done;
static const char *cb_file;
static char cb_stack[CB_STACK] __attribute__((aligned(16)));
static volatile long cb_sum;

__attribute__((noinline)) long cb_leaf(long x)
{
	__asm__ volatile("" ::: "memory");
	return x * 3 + 1;
}

/* 3 bytes: its probes are int3 (the SIGTRAP handler's path) */
__asm__(".text\n"
	".globl cb_tiny3\n"
	".type cb_tiny3, @function\n"
	"cb_tiny3:\n"
	"\txorl %eax, %eax\n"
	"\tret\n"
	".size cb_tiny3, .-cb_tiny3\n");
int cb_tiny3(void);

static long cb_leaf_sum(long n)
{
	long s = 0;

	for (long i = 0; i < n; i++)
		s += cb_leaf(i) + cb_tiny3();
	return s;
}

/* The thread runs on its creator's TLS: no errno, no stdio, no libc call
 * but the mutex ones. Its system calls are its own instruction (raw_sys). */
static int cb_exists(void)
{
	return raw_sys(SYS_faccessat, AT_FDCWD, (long)cb_file, F_OK, 0) == 0;
}

static int cb_main(void *arg)
{
	struct timespec ms = {0, 1000000};
	long fd;

	(void)arg;
	while (cb_exists())
		raw_sys(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, (long)&ms, 0);
	for (int i = 0; i < CB_CALLS; i++) {
		pthread_mutex_lock(&cb_mutex);
		cb_counter++;
		pthread_mutex_unlock(&cb_mutex);
	}
	cb_done = 1;
	fd = raw_sys(SYS_openat, AT_FDCWD, (long)cb_file, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	if (fd >= 0)
		raw_sys(SYS_close, fd, 0, 0, 0);
	return 0;
}

/* below: locks only */
static int cb_lock_main(void *arg)
{
	(void)arg;
	for (int i = 0; i < CB_CALLS; i++) {
		pthread_mutex_lock(&cb_mutex);
		cb_counter++;
		pthread_mutex_unlock(&cb_mutex);
	}
	return 0;
}

/* probe: calls only (no errno, no libc) */
static int cb_leaf_main(void *arg)
{
	(void)arg;
	cb_sum = cb_leaf_sum(CB_CALLS);
	return 0;
}

static int cb_probe(void)
{
	static volatile int ctid = 1;
	void *sp = raw_clone_push(cb_stack + CB_STACK, cb_leaf_main, NULL);
	long own = cb_leaf_sum(CB_OWN);

	if (raw_clone(RAW_CLONE_THREAD, sp, &ctid) < 0) {
		fprintf(stderr, "clone_busy: clone failed\n");
		return 1;
	}
	while (ctid)
		raw_sys(SYS_futex, (long)&ctid, FUTEX_WAIT, 1, 0);
	/* sum of 3i + 1 for i < n: 3n(n - 1)/2 + n (no more calls) */
	printf("sums %s\n", own == 3L * CB_OWN * (CB_OWN - 1) / 2 + CB_OWN &&
				     cb_sum == 3L * CB_CALLS * (CB_CALLS - 1) / 2 + CB_CALLS
			     ? "ok"
			     : "BAD");
	fprintf(stderr,
		"clone_busy: cb_leaf and cb_tiny3 called %d times each by the creator, %d by 1 "
		"clone thread\n",
		CB_OWN, CB_CALLS);
	return 0;
}

/* The stack in this frame: the thread is done before it returns. */
static __attribute__((noinline)) int cb_below(void)
{
	static volatile int ctid = 1;
	char stack[CB_STACK] __attribute__((aligned(16)));
	void *sp;

	/* the creator's first event: spool has its state (on) from here */
	pthread_mutex_lock(&cb_first);
	pthread_mutex_unlock(&cb_first);
	sp = raw_clone_push(stack + CB_STACK, cb_lock_main, NULL);
	if (raw_clone(RAW_CLONE_THREAD, sp, &ctid) < 0) {
		fprintf(stderr, "clone_busy: clone failed\n");
		return 1;
	}
	while (ctid)
		raw_sys(SYS_futex, (long)&ctid, FUTEX_WAIT, 1, 0);
	printf("counter %s\n", cb_counter == CB_CALLS ? "ok" : "BAD");
	fprintf(stderr, "clone_busy: 1 clone thread on a stack %zu bytes below its creator's frame\n",
		(size_t)((char *)__builtin_frame_address(0) - (stack + CB_STACK)));
	return 0;
}

int main(int argc, char **argv)
{
	static volatile int ctid = 1;
	int fd, held;

	if (argc == 2 && !strcmp(argv[1], "probe"))
		return cb_probe();
	if (argc == 2 && !strcmp(argv[1], "below"))
		return cb_below();
	if (argc != 2 || argv[1][0] != '/') {
		fprintf(stderr, "usage: clone_busy /ABSOLUTE/FILE | probe | below\n");
		return 2;
	}
	cb_file = argv[1];
	/* the creator's first event: spool has its state (on) from here */
	pthread_mutex_lock(&cb_first);
	pthread_mutex_unlock(&cb_first);
	fd = open(cb_file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		perror(cb_file);
		return 1;
	}
	close(fd);
	if (raw_clone(RAW_CLONE_THREAD, raw_clone_push(cb_stack + CB_STACK, cb_main, NULL), &ctid) <
	    0) {
		fprintf(stderr, "clone_busy: clone failed\n");
		return 1;
	}
	/* first sight of cb_hold: where spool holds us (SPOOL_TEST_HOLD) */
	pthread_mutex_lock(&cb_hold);
	pthread_mutex_unlock(&cb_hold);
	held = cb_done;
	if (!held)
		unlink(cb_file);
	while (ctid)
		raw_sys(SYS_futex, (long)&ctid, FUTEX_WAIT, 1, 0);
	unlink(cb_file);
	printf("counter %s\n", cb_counter == CB_CALLS ? "ok" : "BAD");
	fprintf(stderr, "clone_busy: 1 clone thread, %d calls, %s\n", 2 * CB_CALLS,
		held ? "all while its creator was inside spool" : "after its creator's lock");
	return 0;
}
#else
int main(void)
{
	fprintf(stderr, "clone_busy: x86-64 only (its own syscall instruction)\n");
	return 2;
}
#endif
