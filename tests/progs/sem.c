// SPDX-License-Identifier: MIT
/*
 * sem - sem_post/sem_wait with known counts on one unnamed semaphore
 * (`items_sem`).
 *
 *   sem [POSTS]    (default 10000)
 *
 * A producer thread posts POSTS times, the main thread waits POSTS times, so
 * posts = waits = POSTS. Prints "posts=<n> waits=<n>".
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>

static sem_t items_sem;
static long posts;

static void *poster(void *arg)
{
	long i, n = 0;

	(void)arg;
	for (i = 0; i < posts; i++) {
		sem_post(&items_sem);
		n++;
	}
	return (void *)n;
}

int main(int argc, char **argv)
{
	pthread_t t;
	long i, waits = 0;
	void *n;

	posts = argc > 1 ? atol(argv[1]) : 10000;
	if (posts < 0)
		return 2;
	sem_init(&items_sem, 0, 0);
	pthread_create(&t, NULL, poster, NULL);
	for (i = 0; i < posts; i++) {
		while (sem_wait(&items_sem) != 0)
			;
		waits++;
	}
	pthread_join(t, &n);
	sem_destroy(&items_sem);
	printf("posts=%ld waits=%ld\n", (long)n, waits);
	return 0;
}
