// SPDX-License-Identifier: MIT
/*
 * fd_hog.c - how many descriptors a program can open under its limit: it
 * takes a lock, opens /dev/null until open fails, and prints "fds=N".
 * Under spool the difference is what the agent takes of RLIMIT_NOFILE
 * (tests/integ/42-shm-small.t; doc/locks.md states it: one).
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t fd_lock = PTHREAD_MUTEX_INITIALIZER;

int main(void)
{
	int n = 0;

	pthread_mutex_lock(&fd_lock);
	while (open("/dev/null", O_RDONLY) >= 0)
		n++;
	pthread_mutex_unlock(&fd_lock);
	printf("fds=%d\n", n);
	return 0;
}
