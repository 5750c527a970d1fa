// SPDX-License-Identifier: MIT
/*
 * as_hog.c - a program that needs most of its address-space limit: it
 * allocates MB megabytes (one block, not touched) and takes a lock, then
 * prints "got=MB" or "failed=MB". Under `ulimit -v` it shows how much of
 * the limit spool's agent leaves the program (tests/integ/42-shm-small.t).
 *
 * Usage: as_hog MB
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t hog_lock = PTHREAD_MUTEX_INITIALIZER;

int main(int argc, char **argv)
{
	size_t mb = argc > 1 ? strtoul(argv[1], NULL, 10) : 240;
	char *p;

	pthread_mutex_lock(&hog_lock);
	p = malloc(mb << 20);
	pthread_mutex_unlock(&hog_lock);
	if (!p) {
		printf("failed=%zu\n", mb);
		return 1;
	}
	p[0] = 1;
	p[(mb << 20) - 1] = 1;
	printf("got=%zu\n", mb);
	free(p);
	return 0;
}
