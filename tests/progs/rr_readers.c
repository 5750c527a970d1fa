// SPDX-License-Identifier: MIT
/*
 * rr_readers - several threads share one input: for a recording whose log
 * fills with the input it reads (each read's bytes go into the log).
 *
 *   rr_readers THREADS FILE
 *
 * Opens FILE (a FIFO: the test decides when input comes; spool record
 * stands between the program and its stdin), starts THREADS threads,
 * prints "threads THREADS" (flushed), and each thread reads FILE in 4 KiB
 * chunks under a mutex until end of file. Then
 * prints "bytes N": N is every byte read, so a reader that lost or
 * repeated input shows. Under spool record's serial mode the threads not
 * reading wait for the run token.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static pthread_mutex_t in_lock = PTHREAD_MUTEX_INITIALIZER;
static long long total;
static int in_fd;

static void *reader(void *arg)
{
	char buf[4096];

	(void)arg;
	for (;;) {
		ssize_t n;

		pthread_mutex_lock(&in_lock);
		n = read(in_fd, buf, sizeof(buf));
		if (n > 0)
			total += n;
		pthread_mutex_unlock(&in_lock);
		if (n <= 0)
			return NULL;
	}
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2;
	pthread_t t[16];
	int i;

	if (n < 1 || n > 16 || argc < 3)
		return 2;
	in_fd = open(argv[2], O_RDONLY);
	if (in_fd < 0)
		return 1;
	for (i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, reader, NULL))
			return 1;
	printf("threads %d\n", n);
	fflush(stdout);
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	printf("bytes %lld\n", total);
	return 0;
}
