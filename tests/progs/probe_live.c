// SPDX-License-Identifier: MIT
/*
 * probe_live.c - target of spool probe -p --commands / --control
 * (tests/integ/208-211): two threads call live_work() and live_callfirst()
 * every 100 us until the file STOPFILE appears, checking every result
 * against its closed form (a probe added, disabled or deleted under them
 * that disturbed a register or an instruction would show). Prints "ready"
 * once the threads run and, at the end, "done check ok" (or "done check
 * BAD N"): the same output whatever spool did meanwhile.
 *
 * live_callfirst starts with a call (hand-written, so no compiler can move
 * it): in attach mode its entry probe is an int3 (a thread inside the
 * callee would return into a jump's window), so int3 probes are added,
 * disabled and deleted too.
 *
 *   probe_live STOPFILE
 */
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

long live_callfirst(long x);
long live_leaf(long x);

__asm__(".text\n"
	".globl live_callfirst\n"
	".type live_callfirst,@function\n"
	"live_callfirst:\n"
	"\tcall live_leaf\n"
	"\tret\n"
	".size live_callfirst, .-live_callfirst\n");

__attribute__((noinline, used)) long live_leaf(long x)
{
	return x * 5 + 1;
}

static volatile int stop;

__attribute__((noinline)) long live_work(long x, long y)
{
	return x * 3 + y;
}

static void *live_loop(void *arg)
{
	struct timespec nap = {0, 100 * 1000};
	long bad = 0;

	(void)arg;
	for (long i = 0; !stop; i++) {
		if (live_work(i, 7) != i * 3 + 7)
			bad++;
		if (live_callfirst(i) != i * 5 + 1)
			bad++;
		nanosleep(&nap, NULL);
	}
	return (void *)bad;
}

int main(int argc, char **argv)
{
	struct timespec nap = {0, 10 * 1000 * 1000};
	pthread_t th[2];
	long bad = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: probe_live STOPFILE\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 0; i < 2; i++)
		if (pthread_create(&th[i], NULL, live_loop, NULL))
			return 1;
	printf("ready\n");
	/* at most 10 minutes: a test that died does not leave it running */
	for (int k = 0; k < 60000 && access(argv[1], F_OK) < 0; k++)
		nanosleep(&nap, NULL);
	stop = 1;
	for (int i = 0; i < 2; i++) {
		void *r;

		pthread_join(th[i], &r);
		bad += (long)r;
	}
	if (bad)
		printf("done check BAD %ld\n", bad);
	else
		printf("done check ok\n");
	return bad ? 1 : 0;
}
