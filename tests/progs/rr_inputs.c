// SPDX-License-Identifier: MIT
/*
 * rr_inputs.c - a program whose output depends only on its inputs: the
 * contents of a file (read with read(2) and pread(2)), the clocks, random
 * bytes from getrandom and its pid and tid. Two threads each read half, so
 * inputs are per thread. A replay must print the recorded values even when
 * the file has changed since.
 *
 * usage: rr_inputs FILE
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static const char *path;

static void *second(void *arg)
{
	char buf[64] = {0};
	int fd = open(path, O_RDONLY);
	ssize_t n = fd >= 0 ? pread(fd, buf, sizeof(buf) - 1, 4) : -1;
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	printf("thread pread %zd [%s] realtime %lld.%09ld\n", n, n > 0 ? buf : "",
	       (long long)ts.tv_sec, ts.tv_nsec);
	if (fd >= 0)
		close(fd);
	return arg;
}

int main(int argc, char **argv)
{
	char buf[256] = {0};
	unsigned char rnd[8];
	struct timespec ts;
	struct timeval tv;
	pthread_t th;
	ssize_t n;
	int fd;

	if (argc < 2)
		return 2;
	path = argv[1];
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	for (char *p = buf; *p; p++)
		if (*p == '\n')
			*p = '|';
	printf("read %zd [%s]\n", n, n > 0 ? buf : "");
	clock_gettime(CLOCK_MONOTONIC, &ts);
	gettimeofday(&tv, NULL);
	printf("monotonic %lld.%09ld\n", (long long)ts.tv_sec, ts.tv_nsec);
	printf("timeofday %lld.%06ld time %lld\n", (long long)tv.tv_sec, (long)tv.tv_usec,
	       (long long)time(NULL));
	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
		return 1;
	printf("random %02x%02x%02x%02x%02x%02x%02x%02x\n", rnd[0], rnd[1], rnd[2], rnd[3], rnd[4],
	       rnd[5], rnd[6], rnd[7]);
	printf("pid %d tid %d\n", (int)getpid(), (int)gettid());
	pthread_create(&th, NULL, second, NULL);
	pthread_join(th, NULL);
	return 0;
}
