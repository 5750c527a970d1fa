// SPDX-License-Identifier: MIT
/*
 * probe_cancel.c - target of tests/integ/362-probe-retaddr-cancel.t:
 * threads that end by pthread_cancel (blocked in read() three frames down)
 * or by pthread_exit (from the deepest frame), through frames whose return
 * addresses spool swapped (--exits retaddr), each frame with a cleanup
 * handler of its own. Every handler must run (natively: 4 per thread),
 * the cancel must complete (pthread_join gets PTHREAD_CANCELED), and spool
 * must record every call of pc_cleanup, the ones the unwinding makes
 * included.
 *
 *   probe_cancel N [MODE]   N threads; MODE 0 cancel, 1 exit, else both
 *                           by turns (default)
 *
 * Prints "cleanups C bad B" (B: joins that did not get the expected
 * value) and exits 0.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int cleanups, pfd[2], mode;

__attribute__((noinline)) void pc_cleanup(void *a)
{
	(void)a;
	__atomic_fetch_add(&cleanups, 1, __ATOMIC_RELAXED);
}

__attribute__((noinline)) int pc_leaf(int fd)
{
	char c = 0;

	pthread_cleanup_push(pc_cleanup, NULL);
	if (mode)
		pthread_exit(NULL);
	while (read(fd, &c, 1) > 0)
		;
	pthread_cleanup_pop(0);
	return c;
}

__attribute__((noinline)) int pc_mid(int fd)
{
	int r;

	pthread_cleanup_push(pc_cleanup, NULL);
	r = pc_leaf(fd) + 1;
	pthread_cleanup_pop(0);
	return r;
}

__attribute__((noinline)) int pc_top(int fd)
{
	int r;

	pthread_cleanup_push(pc_cleanup, NULL);
	r = pc_mid(fd) + 1;
	pthread_cleanup_pop(0);
	return r;
}

static void *pc_thread(void *a)
{
	(void)a;
	pthread_cleanup_push(pc_cleanup, NULL);
	pc_top(pfd[0]);
	pthread_cleanup_pop(0);
	return NULL;
}

int main(int argc, char **argv)
{
	struct timespec nap = {0, 10 * 1000 * 1000};
	int n = argc > 1 ? atoi(argv[1]) : 4, m = argc > 2 ? atoi(argv[2]) : 2, bad = 0;
	pthread_t t;
	void *ret;

	if (pipe(pfd))
		return 1;
	for (int i = 0; i < n; i++) {
		mode = m == 0 || m == 1 ? m : i & 1;
		if (pthread_create(&t, NULL, pc_thread, NULL))
			return 1;
		if (!mode) {
			nanosleep(&nap, NULL); /* (blocked in read, or on its way: cancelled either way) */
			pthread_cancel(t);
		}
		pthread_join(t, &ret);
		bad += ret != (mode ? NULL : PTHREAD_CANCELED);
	}
	printf("cleanups %d bad %d\n", cleanups, bad);
	return 0;
}
