// SPDX-License-Identifier: MIT
/*
 * rr_treeprint - a parent and fork children that print through stdio
 * (printf, fputs, fwrite: glibc's own write, which no interposer sees) to
 * one shared stdout, line buffered, and meet through pipes read through
 * stdio (fgets, fread: glibc's own read) and readv (tests/integ/200-rr-
 * tree-stdio.t). Each process prints its lines between short sleeps, so
 * the recorded order of the lines interleaves the processes; a replay
 * (whose sleeps return at once) prints them in that order only if it keeps
 * the order of stdio's writes across processes.
 *
 * The parent writes numbers into a pipe with fprintf; child "reader" sums
 * them through fgets and prints the sum; child "freader" reads a second
 * pipe with fread and readv and prints what it got. A replay of either
 * reader alone (spool replay --pid) must not wait for a writer that does
 * not run.
 *
 * usage: rr_treeprint [N]   (N printing children, default 2, at most 8)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void pause_ms(int ms)
{
	struct timespec ts = {0, ms * 1000000L};

	nanosleep(&ts, NULL);
}

static void printer(int i)
{
	for (int k = 0; k < 5; k++) {
		printf("child %d (pid %d) line %d\n", i, (int)getpid(), k);
		pause_ms(7 + 3 * i);
	}
	fputs("child done\n", stdout);
	exit(10 + i);
}

static void reader(FILE *in)
{
	char line[64];
	long sum = 0, n = 0;

	while (fgets(line, sizeof(line), in)) {
		sum += strtol(line, NULL, 10);
		n++;
	}
	printf("reader (pid %d) read %ld numbers, sum %ld\n", (int)getpid(), n, sum);
	exit(0);
}

static void freader(FILE *in, int fd)
{
	char a[8], b[8], c[200];
	struct iovec v[2] = {{a, sizeof(a)}, {b, sizeof(b)}};
	size_t got = fread(c, 1, 100, in);
	ssize_t r = readv(fd, v, 2);

	printf("freader (pid %d) fread %zu bytes ending \"%.*s\", readv %zd bytes \"%.8s%.8s\"\n",
	       (int)getpid(), got, 6, got >= 6 ? c + got - 6 : "", r, a, b);
	exit(0);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2, p[2], q[2], st;
	pid_t pid[10];
	FILE *out;
	int i;

	if (n < 1 || n > 8)
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("parent (pid %d) starts %d printers\n", (int)getpid(), n);
	for (i = 0; i < n; i++) {
		pid[i] = fork();
		if (pid[i] < 0)
			return 3;
		if (pid[i] == 0)
			printer(i);
		printf("parent started printer %d\n", i);
	}
	for (int k = 0; k < 4; k++) {
		printf("parent line %d\n", k);
		pause_ms(9);
	}
	if (pipe(p) || pipe(q))
		return 4;
	pid[n] = fork();
	if (pid[n] == 0) {
		close(p[1]);
		close(q[0]);
		close(q[1]);
		reader(fdopen(p[0], "r"));
	}
	pid[n + 1] = fork();
	if (pid[n + 1] == 0) {
		FILE *in;

		close(p[0]);
		close(p[1]);
		close(q[1]);
		in = fdopen(q[0], "r");
		setvbuf(in, NULL, _IONBF, 0); /* fread leaves the rest to readv */
		freader(in, q[0]);
	}
	close(p[0]);
	close(q[0]);
	out = fdopen(p[1], "w");
	for (int k = 1; k <= 2000; k++)
		fprintf(out, "%d\n", k * (int)(getpid() % 7 + 1));
	fclose(out);
	out = fdopen(q[1], "w");
	for (int k = 0; k < 20; k++)
		fprintf(out, "%02d-abcd-", k);
	fclose(out);
	for (i = 0; i < n + 2; i++) {
		if (waitpid(pid[i], &st, 0) != pid[i])
			return 5;
		printf("parent: child %d exited %d\n", i, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	}
	return 0;
}
