// SPDX-License-Identifier: MIT
/*
 * trust20_clone_few.c - a thread of the program's own clone system call
 * (on its creator's TLS, on a stack in its creator's frame) that takes a
 * mutex only a few times, after its creator took it a chosen number of
 * times (tests/integ/368's sibling for the agent's sampled thread check:
 * doc/record.md, RR_INTRUDER_EVERY in agent_rr.c).
 *
 *   trust20_clone_few PRE CALLS
 *
 * The creator locks and unlocks a mutex PRE times, starts the thread,
 * which locks and unlocks it CALLS times, and waits for its end with its
 * own futex call. Prints "counter ok|BAD". x86-64 only (raw_clone.h).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <linux/futex.h>

#include "raw_clone.h"

#if defined(__x86_64__)
#define FEW_STACK (64 * 1024)

static pthread_mutex_t few_mutex = PTHREAD_MUTEX_INITIALIZER;
static volatile int few_counter;
static int few_calls;

/* no errno, no stdio: the creator's TLS */
static int few_main(void *arg)
{
	(void)arg;
	for (int i = 0; i < few_calls; i++) {
		pthread_mutex_lock(&few_mutex);
		few_counter++;
		pthread_mutex_unlock(&few_mutex);
	}
	return 0;
}

static __attribute__((noinline)) int few_run(int pre)
{
	static volatile int ctid = 1;
	char stack[FEW_STACK] __attribute__((aligned(16)));
	void *sp;

	for (int i = 0; i < pre; i++) {
		pthread_mutex_lock(&few_mutex);
		pthread_mutex_unlock(&few_mutex);
	}
	sp = raw_clone_push(stack + FEW_STACK, few_main, NULL);
	if (raw_clone(RAW_CLONE_THREAD, sp, &ctid) < 0) {
		fprintf(stderr, "trust20_clone_few: clone failed\n");
		return 1;
	}
	while (ctid)
		raw_sys(SYS_futex, (long)&ctid, FUTEX_WAIT, 1, 0);
	printf("counter %s\n", few_counter == few_calls ? "ok" : "BAD");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	few_calls = atoi(argv[2]);
	return few_run(atoi(argv[1]));
}
#else
int main(void)
{
	fprintf(stderr, "trust20_clone_few: x86-64 only\n");
	return 2;
}
#endif
