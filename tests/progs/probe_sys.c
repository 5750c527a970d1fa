// SPDX-License-Identifier: MIT
/*
 * probe_sys.c - target of the system-probe tests (tests/integ/79-probe-sys.t):
 * known I/O and a thread with known CPU time.
 *
 *   probe_sys NWRITES SIZE OUTFILE
 *
 * main: NWRITES pwrite calls of SIZE bytes to OUTFILE, 3 send calls of
 * 10 bytes on a socketpair and 3 recv calls reading them back, one
 * write of 10 bytes to a pipe and 2 readv calls of 5 bytes from it; a second thread burns 200 ms of
 * its own CPU time (measured with CLOCK_THREAD_CPUTIME_ID) and reads
 * nothing. Prints "burn_ns N" with the thread's own figure.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

static long burn_ns;

static long cpu_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec * 1000000000L + t.tv_nsec;
}

static void *burn(void *arg)
{
	volatile unsigned long x = 0;
	long t0 = cpu_ns();

	while (cpu_ns() - t0 < 200000000L)
		for (int i = 0; i < 100000; i++)
			x += (unsigned long)i;
	burn_ns = cpu_ns();
	return arg;
}

int main(int argc, char **argv)
{
	char buf[65536], small[16];
	struct iovec iov = {small, 5};
	int fd, sv[2], pp[2];
	pthread_t th;
	long n, size;

	if (argc != 4)
		return 2;
	n = atol(argv[1]);
	size = atol(argv[2]);
	if (size < 1 || size > (long)sizeof(buf))
		return 2;
	memset(buf, 'x', sizeof(buf));
	if (pthread_create(&th, NULL, burn, NULL))
		return 1;
	fd = open(argv[3], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return 1;
	for (long i = 0; i < n; i++)
		if (pwrite(fd, buf, (size_t)size, i * size) != size)
			return 1;
	close(fd);
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) || pipe(pp))
		return 1;
	for (int i = 0; i < 3; i++)
		if (send(sv[0], buf, 10, 0) != 10 || recv(sv[1], small, 10, MSG_WAITALL) != 10)
			return 1;
	if (write(pp[1], buf, 10) != 10)
		return 1;
	for (int i = 0; i < 2; i++)
		if (readv(pp[0], &iov, 1) != 5)
			return 1;
	pthread_join(th, NULL);
	printf("burn_ns %ld\n", burn_ns);
	return 0;
}
