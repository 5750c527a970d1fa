// SPDX-License-Identifier: MIT
/*
 * rr_pc.c - producers and consumers on a bounded queue with a mutex and two
 * condition variables, plus a semaphore counting what was consumed. Each
 * consumer prints, at the end, a hash of the items it took in order: which
 * consumer got which item depends on the schedule (and on which waiter a
 * signal woke), a replay must give the same lines.
 *
 * usage: rr_pc [PRODUCERS] [CONSUMERS] [ITEMS_PER_PRODUCER]
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define QCAP 8

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER;
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER;
static sem_t done;
static int q[QCAP], qhead, qlen, producers_left;
static int nitems;

struct consumer {
	int id;
	long count;
	uint64_t hash;
};

static void *produce(void *arg)
{
	int id = (int)(intptr_t)arg;

	for (int i = 0; i < nitems; i++) {
		pthread_mutex_lock(&mu);
		while (qlen == QCAP)
			pthread_cond_wait(&not_full, &mu);
		q[(qhead + qlen++) % QCAP] = id * 100000 + i;
		pthread_cond_signal(&not_empty);
		pthread_mutex_unlock(&mu);
	}
	pthread_mutex_lock(&mu);
	producers_left--;
	pthread_cond_broadcast(&not_empty);
	pthread_mutex_unlock(&mu);
	return NULL;
}

static void *consume(void *arg)
{
	struct consumer *c = arg;

	c->hash = 1469598103934665603ull;
	for (;;) {
		int v;

		pthread_mutex_lock(&mu);
		while (!qlen && producers_left)
			pthread_cond_wait(&not_empty, &mu);
		if (!qlen) {
			pthread_mutex_unlock(&mu);
			break;
		}
		v = q[qhead];
		qhead = (qhead + 1) % QCAP;
		qlen--;
		pthread_cond_signal(&not_full);
		pthread_mutex_unlock(&mu);
		c->hash = (c->hash ^ (uint64_t)v) * 1099511628211ull;
		c->count++;
		sem_post(&done);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int np = argc > 1 ? atoi(argv[1]) : 2, nc = argc > 2 ? atoi(argv[2]) : 3;
	pthread_t pt[16], ct[16];
	struct consumer cs[16];
	long total = 0;

	nitems = argc > 3 ? atoi(argv[3]) : 3000;
	if (np < 1 || np > 16 || nc < 1 || nc > 16)
		return 2;
	sem_init(&done, 0, 0);
	producers_left = np;
	for (int i = 0; i < nc; i++) {
		cs[i] = (struct consumer){.id = i};
		pthread_create(&ct[i], NULL, consume, &cs[i]);
	}
	for (int i = 0; i < np; i++)
		pthread_create(&pt[i], NULL, produce, (void *)(intptr_t)i);
	for (int i = 0; i < np; i++)
		pthread_join(pt[i], NULL);
	for (int i = 0; i < nc; i++)
		pthread_join(ct[i], NULL);
	while (sem_trywait(&done) == 0)
		total++;
	for (int i = 0; i < nc; i++)
		printf("consumer %d took %ld items, hash %016llx\n", i, cs[i].count,
		       (unsigned long long)cs[i].hash);
	printf("total %ld\n", total);
	return 0;
}
