// SPDX-License-Identifier: MIT
/*
 * rr_forkpipe - a parent and N fork children that meet through a pipe and
 * waitpid (tests/integ/133-rr-fork-pipe.t, 136-rr-replay-pid.t): each
 * child reads the clock and random bytes, writes a line about them into the
 * pipe and exits with a status taken from them; child 0 also prints its
 * line to stdout itself. The parent reads the pipe until every child has
 * closed it, waits for each child in turn and prints what it read and the
 * statuses. Everything printed depends on the run (pids, times, random
 * bytes, the order in which the children wrote): a replay prints the same
 * only if each process's inputs come from its own recording.
 *
 * usage: rr_forkpipe [N]   (N children, default 2, at most 16)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void child(int i, int fd)
{
	struct timespec ts;
	unsigned r = 0;
	char line[160];
	int n;

	clock_gettime(CLOCK_REALTIME, &ts);
	if (getrandom(&r, sizeof(r), 0) != sizeof(r))
		r = 1;
	n = snprintf(line, sizeof(line), "child %d pid %d time %ld.%09ld random %u\n", i,
		     (int)getpid(), (long)ts.tv_sec, ts.tv_nsec, r);
	if (i == 0) {
		printf("%s", line);
		fflush(stdout);
	}
	if (write(fd, line, (size_t)n) != n)
		_exit(99);
	_exit((int)(r % 50));
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2, p[2], i, st;
	pid_t pid[16];
	char buf[4096];
	size_t len = 0;
	ssize_t k;

	if (n < 1 || n > 16 || pipe(p))
		return 2;
	printf("parent %d starts %d children\n", (int)getpid(), n);
	fflush(stdout);
	for (i = 0; i < n; i++) {
		pid[i] = fork();
		if (pid[i] < 0)
			return 3;
		if (pid[i] == 0) {
			close(p[0]);
			child(i, p[1]);
		}
	}
	close(p[1]);
	/* wait for child 0 first: its own line is printed before what follows */
	if (waitpid(pid[0], &st, 0) != pid[0])
		return 4;
	printf("child 0 (pid %d) exited %d\n", (int)pid[0], WEXITSTATUS(st));
	while (len < sizeof(buf) - 1 && (k = read(p[0], buf + len, sizeof(buf) - 1 - len)) > 0)
		len += (size_t)k;
	buf[len] = 0;
	printf("the pipe said:\n%s", buf);
	for (i = 1; i < n; i++) {
		if (waitpid(pid[i], &st, 0) != pid[i])
			return 4;
		printf("child %d (pid %d) exited %d\n", i, (int)pid[i], WEXITSTATUS(st));
	}
	return 0;
}
