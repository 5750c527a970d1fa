// SPDX-License-Identifier: MIT
/*
 * rr_fdorder.c - threads that make and close descriptors at once, without
 * a lock between them, and read through them: the numbers each thread gets
 * depend on the order in which the threads' calls reach the kernel, as in
 * git grep --threads. A sync replay that does not order the descriptor
 * table gets other numbers and diverges at a read "on another descriptor"
 * (or prints other numbers).
 *
 *   rr_fdorder DIR THREADS ROUNDS [open|all]
 *
 * Each thread reads DIR/fN (made by main) ROUNDS times: open, read,
 * close. With "all" each round also makes every other kind of descriptor
 * spool orders (pipe, socketpair, dup, dup2, dup3, fcntl F_DUPFD, eventfd,
 * epoll_create1, timerfd_create, memfd_create, signalfd, creat, mkstemp,
 * fopen, tmpfile) and closes them (close, fclose). What each thread got is
 * noted under a lock (whose order the recording keeps) and printed by main
 * at the end.
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static char *out;
static size_t out_len, out_cap;
static const char *dir;
static int rounds, all;

static void note(const char *fmt, long a, long b, long c)
{
	char line[128];
	int n = snprintf(line, sizeof(line), fmt, a, b, c);

	pthread_mutex_lock(&m);
	if (out_len + (size_t)n + 1 > out_cap) {
		out_cap = (out_cap + (size_t)n + 1) * 2;
		out = realloc(out, out_cap);
		if (!out)
			abort();
	}
	memcpy(out + out_len, line, (size_t)n);
	out_len += (size_t)n;
	pthread_mutex_unlock(&m);
}

/* Every other kind of descriptor; each number goes into the sum. */
static long others(long t)
{
	char path[512], buf[8];
	long sum = 0;
	int p[2], s[2], fd, d, e;
	sigset_t set;
	FILE *f;

	if (pipe(p) == 0) {
		/* a read through it: recorded with its descriptor */
		if (write(p[1], "p", 1) == 1 && read(p[0], buf, 1) == 1)
			sum += p[0] * 3 + p[1];
		d = dup(p[0]);
		e = fcntl(p[1], F_DUPFD_CLOEXEC, 0);
		sum += d * 5 + e * 7;
		if (d >= 0 && dup2(p[1], d) == d)
			sum += 11;
		if (e >= 0 && dup3(p[0], e, O_CLOEXEC) == e)
			sum += 13;
		close(d);
		close(e);
		close(p[0]);
		close(p[1]);
	}
	if (pipe2(p, O_CLOEXEC) == 0) {
		sum += p[0] + p[1];
		close(p[1]);
		close(p[0]);
	}
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, s) == 0) {
		if (write(s[0], "s", 1) == 1 && read(s[1], buf, 1) == 1)
			sum += s[0] * 17 + s[1];
		close(s[0]);
		close(s[1]);
	}
	if ((fd = eventfd(0, 0)) >= 0) {
		sum += fd;
		close(fd);
	}
	if ((fd = epoll_create1(0)) >= 0) {
		sum += fd;
		close(fd);
	}
	if ((fd = timerfd_create(CLOCK_MONOTONIC, 0)) >= 0) {
		sum += fd;
		close(fd);
	}
	if ((fd = memfd_create("rr_fdorder", 0)) >= 0) {
		sum += fd;
		close(fd);
	}
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	if ((fd = signalfd(-1, &set, 0)) >= 0) {
		sum += fd;
		close(fd);
	}
	snprintf(path, sizeof(path), "%s/c%ld", dir, t);
	if ((fd = creat(path, 0600)) >= 0) {
		sum += fd;
		close(fd);
	}
	snprintf(path, sizeof(path), "%s/tmpXXXXXX", dir);
	if ((fd = mkstemp(path)) >= 0) {
		sum += fd;
		unlink(path);
		close(fd);
	}
	snprintf(path, sizeof(path), "%s/f%ld", dir, t);
	if ((f = fopen(path, "r"))) {
		sum += fileno(f) * 19;
		/* read through the FILE's descriptor: recorded with it */
		if (read(fileno(f), buf, 1) == 1)
			sum += buf[0];
		fclose(f);
	}
	if ((f = tmpfile())) {
		sum += fileno(f);
		fclose(f);
	}
	return sum;
}

static void *worker(void *arg)
{
	long t = (long)arg;
	char path[512], buf[64];

	snprintf(path, sizeof(path), "%s/f%ld", dir, t);
	for (int r = 0; r < rounds; r++) {
		int fd = open(path, O_RDONLY);
		ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf)) : -1;

		note("thread %ld round %ld fd %ld\n", t, r, fd);
		if (n > 0 && all)
			note("thread %ld round %ld others %ld\n", t, r, others(t));
		if (fd >= 0)
			close(fd);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[16];
	int n;

	if (argc < 4) {
		fprintf(stderr, "usage: rr_fdorder DIR THREADS ROUNDS [open|all]\n");
		return 2;
	}
	dir = argv[1];
	n = atoi(argv[2]);
	rounds = atoi(argv[3]);
	all = argc > 4 && !strcmp(argv[4], "all");
	if (n < 1 || n > 16)
		return 2;
	for (long i = 0; i < n; i++) {
		char path[512];
		FILE *f;

		snprintf(path, sizeof(path), "%s/f%ld", dir, i);
		f = fopen(path, "w");
		if (!f)
			return 1;
		fprintf(f, "file %ld\n", i);
		fclose(f);
	}
	for (long i = 0; i < n; i++)
		pthread_create(&th[i], NULL, worker, (void *)i);
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	fwrite(out, 1, out_len, stdout);
	return 0;
}
