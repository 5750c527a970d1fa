// SPDX-License-Identifier: MIT
/*
 * rr_endsig - ends as a file it maps says, for the test of a replay that
 * ends otherwise than its recording (tests/integ/138-replay-end-signal.t).
 * A file's contents read through mmap are not recorded (doc/record.md),
 * so changing the file between record and replay changes how the replay
 * ends while every recorded call stays the same.
 *
 *   rr_endsig FILE
 *
 * Two threads take a mutex 1000 times each, then main prints "counted N"
 * and maps FILE: "segv" dies of SIGSEGV (a write through a null pointer),
 * "abort" calls abort(), a number exits with that status.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static pthread_mutex_t endsig_lock = PTHREAD_MUTEX_INITIALIZER;
static long endsig_count;

static void *endsig_worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < 1000; i++) {
		pthread_mutex_lock(&endsig_lock);
		endsig_count++;
		pthread_mutex_unlock(&endsig_lock);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[2];
	volatile int *volatile p = NULL;
	char word[16] = {0};
	const char *m;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: rr_endsig FILE\n");
		return 2;
	}
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, endsig_worker, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("counted %ld\n", endsig_count);
	fflush(stdout);
	fd = open(argv[1], O_RDONLY);
	if (fd < 0)
		return 2;
	m = mmap(NULL, sizeof(word) - 1, PROT_READ, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED)
		return 2;
	/* Reading past a short file's end within its page gives zeros. */
	memcpy(word, m, sizeof(word) - 1);
	if (!strncmp(word, "segv", 4))
		*p = 1;
	if (!strncmp(word, "abort", 5))
		abort();
	return atoi(word);
}
