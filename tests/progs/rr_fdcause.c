// SPDX-License-Identifier: MIT
/*
 * rr_fdcause.c - a program whose replay can be made to go another way on
 * purpose, for each thing a divergence report can name: a worker thread
 * opens FILE and reads it; main joins it and prints what it read.
 *
 *   rr_fdcause FILE
 *
 * Environment (a replay's --env changes it, and the program with it):
 *   FDCAUSE_EXTRA=1  main first makes a descriptor with a raw system call,
 *                    which spool does not order: the worker's file gets
 *                    another number (cause: a descriptor number);
 *   FDCAUSE_LOCK=1   main takes a lock before it creates the worker, a call
 *                    the recording does not have, with one thread (cause:
 *                    the calls; no data race possible);
 *   FDCAUSE_LATE=1   the same after the worker was created (two threads:
 *                    a data race is a possible cause).
 * Removing FILE before the replay makes its open fail (cause: a result).
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static const char *file;
static char buf[256];
static ssize_t got = -1;

static void *worker(void *arg)
{
	int fd = open(file, O_RDONLY);

	(void)arg;
	if (fd >= 0) {
		got = read(fd, buf, sizeof(buf) - 1);
		close(fd);
	}
	return NULL;
}

static void maybe_lock(const char *name)
{
	if (getenv(name)) {
		pthread_mutex_lock(&m);
		pthread_mutex_unlock(&m);
	}
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc < 2)
		return 2;
	file = argv[1];
	if (getenv("FDCAUSE_EXTRA"))
		syscall(SYS_openat, AT_FDCWD, "/dev/null", O_RDONLY);
	maybe_lock("FDCAUSE_LOCK");
	if (pthread_create(&t, NULL, worker, NULL))
		return 1;
	maybe_lock("FDCAUSE_LATE");
	pthread_join(t, NULL);
	if (got < 0) {
		printf("no file\n");
		return 1;
	}
	buf[got] = 0;
	printf("read: %s", buf);
	return 0;
}
