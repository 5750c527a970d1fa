// SPDX-License-Identifier: MIT
/*
 * rr_goto.c - a program for replay from a snapshot (tests/integ/230, 231,
 * doc/record.md "Replay from a snapshot"): THREADS threads each take a
 * mutex ROUNDS times, add their number to a shared total and print one line
 * per event (who, the event's number, the total so far), so that every
 * schedule shows in the output; a list on the heap grows with the events
 * (a restore must put the heap back); main joins them and prints the sums.
 * Its output is a function of the schedule alone: a replay from a snapshot
 * must print the recording's tail byte for byte.
 *
 * usage: rr_goto [THREADS] [ROUNDS] [shared|waves=K]
 * (shared: the totals also go to a writable MAP_SHARED mapping, which a
 * snapshot cannot hold; waves=K: K waves of THREADS threads, each wave
 * created after the last one is joined, so that snapshots fall between
 * thread creations and joins)
 */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

struct node {
	struct node *next;
	long v;
};

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long events, total;
static struct node *list;
static int rounds;
static long *shared_total; /* MAP_SHARED, with "shared" */

static void *worker(void *arg)
{
	int id = (int)(intptr_t)arg;

	for (int i = 0; i < rounds; i++) {
		struct node *n = malloc(sizeof(*n));

		pthread_mutex_lock(&m);
		n->v = id;
		n->next = list;
		list = n;
		total += id;
		if (shared_total)
			*shared_total = total;
		printf("event %ld thread %d round %d total %ld\n", ++events, id, i, total);
		pthread_mutex_unlock(&m);
		sched_yield(); /* a switch of the run token per event, or nearly */
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int nt = argc > 1 ? atoi(argv[1]) : 4;
	pthread_t th[64];
	long sum = 0, len = 0;
	int waves = 1;

	rounds = argc > 2 ? atoi(argv[2]) : 200;
	if (nt < 1 || nt > 64)
		nt = 4;
	if (argc > 3 && !strncmp(argv[3], "waves=", 6))
		waves = atoi(argv[3] + 6) > 0 ? atoi(argv[3] + 6) : 1;
	if (argc > 3 && !strcmp(argv[3], "shared")) {
		shared_total = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
				    -1, 0);
		if (shared_total == MAP_FAILED)
			return 2;
	}
	for (int w = 0; w < waves; w++) {
		for (int i = 0; i < nt; i++)
			pthread_create(&th[i], NULL, worker, (void *)(intptr_t)(i + 1));
		for (int i = 0; i < nt; i++)
			pthread_join(th[i], NULL);
		if (waves > 1)
			printf("wave %d joined\n", w);
	}
	for (struct node *n = list; n; n = n->next) {
		sum += n->v;
		len++;
	}
	printf("done events=%ld list=%ld sum=%ld total=%ld %s\n", events, len, sum, total,
	       sum == total ? "equal" : "DIFFERENT");
	return 0;
}
