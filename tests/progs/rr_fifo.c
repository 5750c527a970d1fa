// SPDX-License-Identifier: MIT
/*
 * rr_fifo.c - two threads open the two ends of one FIFO (each open waits
 * for the other), then pass a line through it. A sync replay makes
 * descriptor calls one at a time in the recorded order, so the first open
 * waits for an end that is never opened: the replay must stop and say so
 * (doc/record.md "Descriptor numbers", limit), never hang.
 *
 *   rr_fifo PATH     (PATH is made with mkfifo)
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *path;

static void *writer(void *arg)
{
	int fd = open(path, O_WRONLY);

	(void)arg;
	if (fd >= 0) {
		if (write(fd, "through the fifo\n", 17) != 17)
			perror("write");
		close(fd);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;
	char buf[64];
	ssize_t n;
	int fd;

	if (argc < 2)
		return 2;
	path = argv[1];
	unlink(path);
	if (mkfifo(path, 0600) < 0)
		return 1;
	pthread_create(&t, NULL, writer, NULL);
	fd = open(path, O_RDONLY);
	n = fd >= 0 ? read(fd, buf, sizeof(buf)) : -1;
	if (n > 0)
		fwrite(buf, 1, (size_t)n, stdout);
	if (fd >= 0)
		close(fd);
	pthread_join(t, NULL);
	return n > 0 ? 0 : 1;
}
