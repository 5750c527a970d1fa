// SPDX-License-Identifier: MIT
/*
 * condvar - a producer/consumer over a bounded buffer with one mutex
 * (`buf_lock`) and two condition variables (`not_empty`, `not_full`).
 *
 *   condvar [ITEMS]    (default 10000; the buffer holds 4)
 *
 * Every item is signalled once on not_empty (by the producer) and once on
 * not_full (by the consumer), so there are exactly 2*ITEMS signals. How often
 * each side actually waits depends on scheduling, so the program counts its
 * own waits and prints them:
 *
 *   items=<ITEMS> signals=<2*ITEMS> waits=<W>
 *
 * W is the number of pthread_cond_wait calls made, each of which returned once:
 * the number of wakeups spool must report.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define BUF_SLOTS 4

static pthread_mutex_t buf_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER;
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER;
static long buf[BUF_SLOTS];
static int buf_count, buf_head;
static long items;
static long waits_producer, waits_consumer, signals;

static void *producer(void *arg)
{
	long i;

	(void)arg;
	for (i = 0; i < items; i++) {
		pthread_mutex_lock(&buf_lock);
		while (buf_count == BUF_SLOTS) {
			waits_producer++;
			pthread_cond_wait(&not_full, &buf_lock);
		}
		buf[(buf_head + buf_count) % BUF_SLOTS] = i;
		buf_count++;
		signals++;
		pthread_cond_signal(&not_empty);
		pthread_mutex_unlock(&buf_lock);
	}
	return NULL;
}

static void *consumer(void *arg)
{
	long i, sum = 0;

	(void)arg;
	for (i = 0; i < items; i++) {
		pthread_mutex_lock(&buf_lock);
		while (buf_count == 0) {
			waits_consumer++;
			pthread_cond_wait(&not_empty, &buf_lock);
		}
		sum += buf[buf_head];
		buf_head = (buf_head + 1) % BUF_SLOTS;
		buf_count--;
		signals++;
		pthread_cond_signal(&not_full);
		pthread_mutex_unlock(&buf_lock);
	}
	return (void *)sum;
}

int main(int argc, char **argv)
{
	pthread_t p, c;
	void *sum;

	items = argc > 1 ? atol(argv[1]) : 10000;
	if (items < 0)
		return 2;
	pthread_create(&c, NULL, consumer, NULL);
	pthread_create(&p, NULL, producer, NULL);
	pthread_join(p, NULL);
	pthread_join(c, &sum);
	if ((long)sum != items * (items - 1) / 2) {
		fprintf(stderr, "condvar: lost items\n");
		return 1;
	}
	printf("items=%ld signals=%ld waits=%ld\n", items, signals,
	       waits_producer + waits_consumer);
	return 0;
}
