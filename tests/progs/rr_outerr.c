// SPDX-License-Identifier: MIT
/*
 * rr_outerr - two threads that write to stdout and to stderr with nothing
 * ordering them but the file they share (tests/integ/284-rr-out-err.t,
 * doc/record.md "Standard output and error"). Run as `rr_outerr >f 2>&1`
 * the order of their lines in f is the order the kernel took the writes
 * in; a replay must leave the same bytes in the same order.
 *
 *   raw [N]    thread A writes N lines with write(1), thread B with
 *              write(2);
 *   stdio [N]  thread A prints N lines with printf to a line-buffered
 *              stdout, thread B with fprintf to unbuffered stderr, and a
 *              third thread writes to fd 1 with write(2) every 7th line;
 *   tree [N]   the process forks: the child prints to stderr, the parent
 *              to stdout, each with stdio, and the parent waits.
 *
 * The threads meet at a barrier first, then write as fast as they can.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static long lines = 400;
static int stdio_mode;
static pthread_barrier_t start;

static void put_raw(int fd, const char *who, long i)
{
	char buf[64];
	int n = snprintf(buf, sizeof(buf), "%s %ld\n", who, i);

	if (write(fd, buf, (size_t)n) != n)
		_exit(9);
}

static void *writer(void *arg)
{
	long id = (long)arg;

	pthread_barrier_wait(&start);
	for (long i = 0; i < lines; i++) {
		if (!stdio_mode)
			put_raw(id ? 2 : 1, id ? "err" : "out", i);
		else if (id == 0)
			printf("out line %ld\n", i);
		else if (id == 1)
			fprintf(stderr, "err line %ld\n", i);
		else if (i % 7 == 0)
			put_raw(1, "raw", i);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "raw";
	int nthreads = 2, st;
	pthread_t th[3];

	if (argc > 2)
		lines = atol(argv[2]);
	if (!strcmp(mode, "tree")) {
		setvbuf(stdout, NULL, _IOLBF, 0);
		pid_t pid = fork();

		if (pid < 0)
			return 1;
		for (long i = 0; i < lines; i++)
			if (pid)
				printf("parent %ld\n", i);
			else
				fprintf(stderr, "child %ld\n", i);
		if (!pid)
			_exit(0);
		if (waitpid(pid, &st, 0) != pid)
			return 1;
		printf("done: child %d\n", WEXITSTATUS(st));
		return 0;
	}
	if (!strcmp(mode, "stdio")) {
		stdio_mode = 1;
		nthreads = 3;
		setvbuf(stdout, NULL, _IOLBF, 0);
	} else if (strcmp(mode, "raw")) {
		fprintf(stderr, "usage: rr_outerr raw|stdio|tree [LINES]\n");
		return 2;
	}
	pthread_barrier_init(&start, NULL, (unsigned)nthreads);
	for (long i = 0; i < nthreads; i++)
		if (pthread_create(&th[i], NULL, writer, (void *)i))
			return 1;
	for (int i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	printf("done: %d threads, %ld lines each\n", nthreads, lines);
	return 0;
}
