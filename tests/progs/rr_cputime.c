// SPDX-License-Identifier: MIT
/*
 * rr_cputime.c - a program that prints the CPU time and resource counts
 * the kernel keeps for it, values that differ in every run: getrusage
 * (RUSAGE_SELF, RUSAGE_THREAD, and through syscall()), times (with a
 * buffer and with NULL), clock(), and clock_gettime of the process's and
 * the thread's CPU-time clocks, in the main thread and in a second one.
 * It burns CPU until clock() has moved by 10 ms, so the values are not
 * zero. Under spool record and replay the replay must print the recorded
 * lines (tests/integ/408-rr-cputime.t): these calls are inputs
 * (src/agent/agent_rr_cputime.c).
 *
 *   rr_cputime           the report above, in two threads
 *   rr_cputime loop N    N rounds of getrusage, times and clock(); the
 *                        nanoseconds a call on stderr (its cost recorded,
 *                        doc/record.md)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/times.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

static void burn(void)
{
	clock_t start = clock();
	unsigned long x = 1;

	/* (in a replay, clock() gives the recorded values: as many rounds) */
	while (clock() - start < CLOCKS_PER_SEC / 100)
		for (int i = 0; i < 20000; i++)
			x = x * 6364136223846793005ul + 1442695040888963407ul;
	sink = x;
}

static void print_rusage(const char *what, int r, const struct rusage *ru)
{
	printf("%s: %d utime %ld.%06ld stime %ld.%06ld maxrss %ld minflt %ld nvcsw %ld "
	       "nivcsw %ld\n",
	       what, r, (long)ru->ru_utime.tv_sec, (long)ru->ru_utime.tv_usec,
	       (long)ru->ru_stime.tv_sec, (long)ru->ru_stime.tv_usec, ru->ru_maxrss,
	       ru->ru_minflt, ru->ru_nvcsw, ru->ru_nivcsw);
}

static void report(const char *who)
{
	struct rusage ru = {0};
	struct tms tm = {0};
	struct timespec ts = {0};
	clock_t t;
	int r;

	burn();
	r = getrusage(RUSAGE_SELF, &ru);
	printf("%s ", who);
	print_rusage("getrusage self", r, &ru);
	r = getrusage(RUSAGE_THREAD, &ru);
	printf("%s ", who);
	print_rusage("getrusage thread", r, &ru);
	r = (int)syscall(SYS_getrusage, RUSAGE_SELF, &ru);
	printf("%s ", who);
	print_rusage("syscall getrusage", r, &ru);
	t = times(&tm);
	printf("%s times: %ld utime %ld stime %ld\n", who, (long)t, (long)tm.tms_utime,
	       (long)tm.tms_stime);
	printf("%s times(NULL): %ld\n", who, (long)times(NULL));
	printf("%s clock: %ld\n", who, (long)clock());
	r = clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	printf("%s process cputime: %d %ld.%09ld\n", who, r, (long)ts.tv_sec, ts.tv_nsec);
	r = clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	printf("%s thread cputime: %d %ld.%09ld\n", who, r, (long)ts.tv_sec, ts.tv_nsec);
}

static void *second(void *arg)
{
	(void)arg;
	report("thread");
	return NULL;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int loop(long n)
{
	struct rusage ru;
	struct tms tm;
	double t0, t1, t2, t3;
	long sum = 0;

	t0 = now_ns();
	for (long i = 0; i < n; i++)
		sum += getrusage(RUSAGE_SELF, &ru);
	t1 = now_ns();
	for (long i = 0; i < n; i++)
		sum += (long)times(&tm) & 1;
	t2 = now_ns();
	for (long i = 0; i < n; i++)
		sum += (long)clock() & 1;
	t3 = now_ns();
	printf("%ld rounds\n", n);
	fprintf(stderr, "getrusage %.0f ns, times %.0f ns, clock %.0f ns (sum %ld)\n",
		(t1 - t0) / n, (t2 - t1) / n, (t3 - t2) / n, sum);
	return 0;
}

int main(int argc, char **argv)
{
	pthread_t th;

	if (argc == 3 && !strcmp(argv[1], "loop"))
		return loop(atol(argv[2]));

	report("main");
	fflush(stdout);
	if (pthread_create(&th, NULL, second, NULL))
		return 1;
	pthread_join(th, NULL);
	report("main");
	return 0;
}
