// SPDX-License-Identifier: MIT
/*
 * shm_fdreuse.c - a program that closes spool's region descriptor
 * (SPOOL_SHM_FD) and puts one of its own files at that number, then starts
 * a thread that takes a lock. The agent maps a thread's ring when the
 * thread first records: it must see that the descriptor is no longer the
 * region and map nothing, rather than write ring data into the program's
 * file or fault on it (tests/integ/41-shm-scribble.t). Prints
 * "victim=untouched" or "victim=changed", and "total=N".
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t reuse_lock = PTHREAD_MUTEX_INITIALIZER;
static int total;

static void *locker(void *arg)
{
	(void)arg;
	for (int i = 0; i < 1000; i++) {
		pthread_mutex_lock(&reuse_lock);
		total++;
		pthread_mutex_unlock(&reuse_lock);
	}
	return NULL;
}

int main(void)
{
	const char *fds = getenv("SPOOL_SHM_FD");
	char buf[4096], back[4096];
	pthread_t th;
	int fd, n;

	if (!fds) {
		fprintf(stderr, "shm_fdreuse: no SPOOL_SHM_FD (run me under spool)\n");
		return 2;
	}
	n = atoi(fds);
	memset(buf, 'v', sizeof(buf));
	fd = open("victim", O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
		perror("victim");
		return 2;
	}
	close(n);
	if (dup2(fd, n) != n) {
		perror("dup2");
		return 2;
	}
	close(fd);
	pthread_create(&th, NULL, locker, NULL);
	pthread_join(th, NULL);
	if (pread(n, back, sizeof(back), 0) != (ssize_t)sizeof(back) ||
	    memcmp(buf, back, sizeof(buf)) || lseek(n, 0, SEEK_END) != (off_t)sizeof(buf))
		printf("victim=changed\n");
	else
		printf("victim=untouched\n");
	printf("total=%d\n", total);
	return 0;
}
