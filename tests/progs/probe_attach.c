// SPDX-License-Identifier: MIT
/*
 * probe_attach.c - target of spool probe -p (tests/integ/73-probe-attach.t):
 * two threads call attach_work() about once per 200 us each for SECONDS
 * seconds. Every 20 ms the main thread prints "t MS calls N" (CLOCK_MONOTONIC
 * milliseconds, calls so far), so a test can tell how many calls fell in
 * the window it probed. At the end it checks every result attach_work
 * returned against the closed form (a probe that disturbed a register would
 * show) and prints "done calls N check ok|BAD".
 *
 *   probe_attach SECONDS
 */
#include <pthread.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long n_calls;
static volatile int stop;

__attribute__((noinline)) long attach_work(long x, long y)
{
	__atomic_fetch_add(&n_calls, 1, __ATOMIC_RELAXED);
	return x * 3 + y;
}

static long attach_now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void *attach_loop(void *arg __attribute__((unused)))
{
	struct timespec nap = {0, 200 * 1000};
	long bad = 0;

	for (long i = 0; !stop; i++) {
		if (attach_work(i, 7) != i * 3 + 7)
			bad++;
		nanosleep(&nap, NULL);
	}
	return (void *)bad;
}

int main(int argc, char **argv)
{
	long secs = argc > 1 ? atol(argv[1]) : 3, end, bad = 0;
	/* argv[2]: a file whose appearance ends the run early, so a test can
	 * keep the program alive as long as its checks need, under any load. */
	const char *stop_file = argc > 2 ? argv[2] : NULL;
	pthread_t th;
	void *r;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (pthread_create(&th, NULL, attach_loop, NULL))
		return 1;
	end = attach_now_ms() + secs * 1000;
	while (attach_now_ms() < end && !(stop_file && access(stop_file, F_OK) == 0)) {
		struct timespec tick = {0, 20 * 1000 * 1000};

		if (attach_work(1, 2) != 5)
			bad++;
		printf("t %ld calls %ld\n", attach_now_ms(), __atomic_load_n(&n_calls, __ATOMIC_RELAXED));
		nanosleep(&tick, NULL);
	}
	stop = 1;
	pthread_join(th, &r);
	bad += (long)r;
	printf("done calls %ld check %s\n", n_calls, bad ? "BAD" : "ok");
	return bad ? 1 : 0;
}
