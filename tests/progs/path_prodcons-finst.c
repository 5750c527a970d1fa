// SPDX-License-Identifier: MIT
/*
 * path_prodcons-finst.c - the thread-path design's example for spool path:
 * a producer and a consumer with lock(), unlock(), put() and get() on one
 * semaphore (buf_sem) and one datum. Built with -finstrument-functions (the
 * -finst name makes the Makefile add the flag).
 *
 *   path_prodcons-finst          one item, deterministic: the producer runs
 *                                to its end, then the consumer
 *   path_prodcons-finst N        N producers and N consumers at once, 3
 *                                rounds each (the path has all 2N threads)
 *
 * never_called() is never called on purpose: spool path --check must name
 * it. It stays in the binary because main references it.
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>

sem_t buf_sem;
int datum;

void lock(sem_t *s)
{
	sem_wait(s);
}

void unlock(sem_t *s)
{
	sem_post(s);
}

void put(int *slot, int v)
{
	*slot = v;
}

int get(const int *slot)
{
	return *slot;
}

static int rounds = 1;

void *producer(void *arg)
{
	for (int i = 0; i < rounds; i++) {
		lock(&buf_sem);
		put(&datum, 42 + i);
		unlock(&buf_sem);
	}
	return arg;
}

void *consumer(void *arg)
{
	int v = 0;

	for (int i = 0; i < rounds; i++) {
		lock(&buf_sem);
		v += get(&datum);
		unlock(&buf_sem);
	}
	*(int *)arg = v;
	return NULL;
}

void never_called(void)
{
	puts("never_called ran");
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 0;
	pthread_t tid[64];
	int got[32];

	if (argc > 99)
		never_called();
	if (sem_init(&buf_sem, 0, 1))
		return 2;
	if (n <= 0) {
		pthread_create(&tid[0], NULL, producer, NULL);
		pthread_join(tid[0], NULL);
		pthread_create(&tid[1], NULL, consumer, &got[0]);
		pthread_join(tid[1], NULL);
		printf("consumed %d\n", got[0]);
		return 0;
	}
	if (n > 32)
		n = 32;
	rounds = 3;
	for (int i = 0; i < n; i++) {
		pthread_create(&tid[2 * i], NULL, producer, NULL);
		pthread_create(&tid[2 * i + 1], NULL, consumer, &got[i]);
	}
	for (int i = 0; i < 2 * n; i++)
		pthread_join(tid[i], NULL);
	printf("%d producers, %d consumers\n", n, n);
	return 0;
}
