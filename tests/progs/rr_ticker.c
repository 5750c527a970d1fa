// SPDX-License-Identifier: MIT
/*
 * rr_ticker.c - threads that take turns on a counter under a mutex and
 * write a line with write(2) (unbuffered: what was printed is on disk when
 * the program is killed) every 500 increments, until killed (or until the
 * counter reaches argv[2] if given and not 0). Used to kill a recording in
 * the middle and replay it up to where it ends.
 *
 * usage: rr_ticker THREADS [LIMIT]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long counter, limit;

static void *ticker(void *arg)
{
	long id = (long)arg;

	for (;;) {
		char line[64];
		int n = 0;

		pthread_mutex_lock(&m);
		if (limit && counter >= limit) {
			pthread_mutex_unlock(&m);
			return NULL;
		}
		if (++counter % 500 == 0)
			n = snprintf(line, sizeof(line), "tick %ld by thread %ld\n", counter, id);
		if (n > 0 && write(1, line, (size_t)n) != n) {
			pthread_mutex_unlock(&m);
			return NULL;
		}
		pthread_mutex_unlock(&m);
	}
}

int main(int argc, char **argv)
{
	int i, nt = argc > 1 ? atoi(argv[1]) : 2;
	pthread_t t[16];

	limit = argc > 2 ? atol(argv[2]) : 0;
	if (nt < 1 || nt > 16)
		return 2;
	for (i = 0; i < nt; i++)
		pthread_create(&t[i], NULL, ticker, (void *)(long)i);
	for (i = 0; i < nt; i++)
		pthread_join(t[i], NULL);
	return 0;
}
