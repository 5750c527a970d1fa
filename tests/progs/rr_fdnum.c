// SPDX-License-Identifier: MIT
/*
 * rr_fdnum.c - prints the numbers of the descriptors it opens (a file, a
 * pipe, a socket), with a lock taken around each, so a test can check that
 * a program under spool record, spool replay and spool path gets the same
 * numbers as without spool: the numbers a program sees are part of what it
 * does (servers print them, poll tables are indexed by them).
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void *worker(void *arg)
{
	int p[2];

	(void)arg;
	pthread_mutex_lock(&m);
	if (pipe(p) == 0) {
		char c = 'x';

		printf("pipe %d %d\n", p[0], p[1]);
		/* A recorded input on a descriptor: a replay whose numbers
		 * are off diverges here. */
		if (write(p[1], &c, 1) == 1 && read(p[0], &c, 1) == 1)
			printf("read %c\n", c);
	}
	pthread_mutex_unlock(&m);
	return NULL;
}

int main(void)
{
	pthread_t t;
	int f, s;

	pthread_mutex_lock(&m);
	f = open("/dev/null", O_RDONLY);
	printf("file %d\n", f);
	pthread_mutex_unlock(&m);
	pthread_create(&t, NULL, worker, NULL);
	pthread_join(t, NULL);
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	printf("socket %d\n", s);
	return 0;
}
