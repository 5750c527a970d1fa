// SPDX-License-Identifier: MIT
/*
 * rr_outkind.c - a program whose path depends on what its stdout and stderr
 * are, as stdio's and Python's do: it reports each one's kind (terminal,
 * pipe, regular file and its offset, /dev/null), and a worker thread takes
 * a mutex once more for each of them that is a terminal or a file. A
 * replay that gave it other kinds would print other lines and, in sync
 * mode, take the mutex a different number of times
 * (tests/integ/56-stdio-kind.t).
 *
 * usage: rr_outkind
 */
#include <pthread.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int extra, count;

static const char *kind(int fd, long *off)
{
	struct stat st;

	*off = -1;
	if (fstat(fd, &st) < 0)
		return "closed";
	if (isatty(fd))
		return "tty";
	if (S_ISREG(st.st_mode)) {
		*off = (long)lseek(fd, 0, SEEK_CUR);
		return "file";
	}
	if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))
		return "pipe";
	if (S_ISCHR(st.st_mode) && major(st.st_rdev) == 1 && minor(st.st_rdev) == 3)
		return "null";
	return "other";
}

static void *worker(void *arg)
{
	for (int i = 0; i < 3 + extra; i++) {
		pthread_mutex_lock(&lock);
		count++;
		pthread_mutex_unlock(&lock);
	}
	return arg;
}

int main(void)
{
	long o1, o2;
	const char *k1 = kind(1, &o1), *k2 = kind(2, &o2);
	pthread_t t;

	extra = (k1[0] == 't' || k1[0] == 'f') + (k2[0] == 't' || k2[0] == 'f');
	pthread_create(&t, NULL, worker, NULL);
	pthread_join(t, NULL);
	printf("stdout %s offset %ld, stderr %s offset %ld, count %d\n", k1, o1, k2, o2, count);
	fprintf(stderr, "to stderr\n");
	return 0;
}
