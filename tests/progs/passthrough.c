// SPDX-License-Identifier: MIT
/*
 * passthrough - checks that `spool locks` leaves the program's own I/O and
 * exit status alone.
 *
 *   passthrough STATUS
 *
 * Copies stdin to stdout byte for byte (taking a mutex around each chunk so
 * the agent has events to record while the program does I/O), writes exactly
 * "err\n" to stderr, and exits with STATUS.
 */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

static pthread_mutex_t io_lock = PTHREAD_MUTEX_INITIALIZER;

static int write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w < 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int main(int argc, char **argv)
{
	char buf[8192];
	ssize_t n;

	while ((n = read(0, buf, sizeof(buf))) > 0) {
		pthread_mutex_lock(&io_lock);
		if (write_all(1, buf, (size_t)n) < 0) {
			pthread_mutex_unlock(&io_lock);
			return 99;
		}
		pthread_mutex_unlock(&io_lock);
	}
	if (write_all(2, "err\n", 4) < 0)
		return 99;
	return argc > 1 ? atoi(argv[1]) : 0;
}
