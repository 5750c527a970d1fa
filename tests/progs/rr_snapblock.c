// SPDX-License-Identifier: MIT
/*
 * rr_snapblock.c - a program whose threads spend their time in blocking
 * calls, for snapshots taken while a thread takes the run token back after
 * one (tests/integ/271, doc/record.md "Replay from a snapshot"). main
 * writes numbers into one pipe per worker (they all fit: the calls that
 * follow never wait long); each worker polls its pipe, reads a number,
 * naps (nanosleep) every 8th round, then under a mutex
 * adds it to a shared total and prints one line (who, what it read, the
 * total so far); a list on the heap grows with the events. main joins them
 * all and prints the sums. Under spool record's serial mode every poll,
 * read and nap gives the run token up, and the thread that comes back from
 * one while another holds the token waits to take it back: that is where a
 * snapshot finds it. The output is a function of the schedule alone.
 *
 * usage: rr_snapblock [WORKERS] [ROUNDS]
 */
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define MAX_WORKERS 8

struct node {
	struct node *next;
	long v;
};

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int pipes[MAX_WORKERS][2];
static int nworkers, rounds;
static long events, total;
static struct node *list;

static void *worker(void *arg)
{
	int id = (int)(intptr_t)arg;
	struct pollfd p = {.fd = pipes[id][0], .events = POLLIN};
	struct timespec nap = {0, 20000};

	for (int r = 0; r < rounds; r++) {
		struct node *n;
		long v;

		if (poll(&p, 1, -1) != 1 || read(pipes[id][0], &v, sizeof(v)) != (ssize_t)sizeof(v))
			return NULL;
		if (r % 8 == 7)
			nanosleep(&nap, NULL);
		n = malloc(sizeof(*n));
		if (!n)
			return NULL;
		pthread_mutex_lock(&m);
		events++;
		total += v;
		n->v = v;
		n->next = list;
		list = n;
		printf("t%d read %ld: event %ld total %ld\n", id, v, events, total);
		pthread_mutex_unlock(&m);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t w[MAX_WORKERS];
	long sum = 0, count = 0;

	nworkers = argc > 1 ? atoi(argv[1]) : 3;
	rounds = argc > 2 ? atoi(argv[2]) : 100;
	if (nworkers < 1 || nworkers > MAX_WORKERS || rounds < 1 || rounds > 4096)
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 0; i < nworkers; i++)
		if (pipe(pipes[i]) < 0)
			return 1;
	for (int r = 0; r < rounds; r++)
		for (int i = 0; i < nworkers; i++) {
			long v = (long)r * 7 + i + 1;

			if (write(pipes[i][1], &v, sizeof(v)) != (ssize_t)sizeof(v))
				return 1;
		}
	for (int i = 0; i < nworkers; i++)
		if (pthread_create(&w[i], NULL, worker, (void *)(intptr_t)i))
			return 1;
	for (int i = 0; i < nworkers; i++)
		pthread_join(w[i], NULL);
	for (struct node *n = list; n; n = n->next) {
		sum += n->v;
		count++;
	}
	printf("events %ld total %ld list %ld sum %ld\n", events, total, count, sum);
	return 0;
}
