// SPDX-License-Identifier: MIT
/*
 * rr_snapout.c - a program whose second thread is always out in a blocking
 * call, for snapshots that hold a thread in the kernel (tests/integ/379,
 * doc/record.md "Snapshots"). The reader thread waits for main's numbers
 * on a pipe: on odd rounds in select then read, on even rounds in read
 * alone; it adds each to a total under a mutex and prints a line. main
 * works between its numbers (lock calls: switch points) and naps, so the
 * reader sits in select or read nearly all the time, never parked at a
 * switch point when a snapshot is due. Under spool record's serial mode a
 * snapshot used to need every other thread parked in the agent: such a
 * program got one, at its end. The output is a function of the numbers
 * alone.
 *
 * usage: rr_snapout [ROUNDS] [NAP_US]
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/select.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int pfd[2];
static long total, got;

static void *reader(void *arg)
{
	(void)arg;
	for (long r = 1;; r++) {
		long v;

		if (r % 2) {
			fd_set rs;

			FD_ZERO(&rs);
			FD_SET(pfd[0], &rs);
			if (select(pfd[0] + 1, &rs, NULL, NULL, NULL) != 1)
				return (void *)1;
		}
		if (read(pfd[0], &v, sizeof(v)) != (ssize_t)sizeof(v))
			return (void *)1;
		if (v < 0)
			return NULL;
		pthread_mutex_lock(&m);
		got++;
		total += v;
		printf("reader: %ld (%s), total %ld\n", v, r % 2 ? "select, read" : "read", total);
		pthread_mutex_unlock(&m);
	}
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 100;
	long nap_us = argc > 2 ? atol(argv[2]) : 2000;
	struct timespec nap = {nap_us / 1000000, (nap_us % 1000000) * 1000};
	pthread_t t;
	void *res;
	long work = 0, end = -1;

	if (rounds < 1 || rounds > 100000 || nap_us < 0)
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (pipe(pfd) < 0 || pthread_create(&t, NULL, reader, NULL) != 0)
		return 1;
	for (long i = 1; i <= rounds; i++) {
		for (int k = 0; k < 300; k++) {
			pthread_mutex_lock(&m);
			work += k ^ i;
			pthread_mutex_unlock(&m);
		}
		if (write(pfd[1], &i, sizeof(i)) != (ssize_t)sizeof(i))
			return 1;
		nanosleep(&nap, NULL);
	}
	if (write(pfd[1], &end, sizeof(end)) != (ssize_t)sizeof(end) || pthread_join(t, &res) != 0)
		return 1;
	printf("main: %d rounds, work %ld, reader got %ld, total %ld\n", rounds, work, got, total);
	return res == NULL ? 0 : 1;
}
