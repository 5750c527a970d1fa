// SPDX-License-Identifier: MIT
/*
 * rr_block.c - calls that wait without being a lock or a read, for serial
 * and sync record/replay: a sched_yield spin on a flag another thread sets
 * after a nanosleep, sleep/usleep/clock_nanosleep, pthread_once from
 * several threads (its initializer sleeps, so the others call it while it
 * runs), and a pipe between two threads carrying more than the pipe holds
 * (the writer blocks on a full pipe until the reader runs).
 *
 * usage: rr_block [spins]  ("spins" also prints how often the spin loop
 * yielded: schedule-dependent, so only serial mode replays it)
 */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define WORKERS 4
#define PIPE_BYTES (256 * 1024)

static volatile int flag;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int once_runs, once_by = -1;
static __thread int my_id = -1;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static char order[WORKERS + 1];
static int norder;
static int pipefd[2];

static void init_once(void)
{
	once_runs++;
	once_by = my_id;
	usleep(2000); /* the other workers reach pthread_once meanwhile */
}

static void *worker(void *arg)
{
	my_id = (int)(intptr_t)arg;
	pthread_once(&once, init_once);
	pthread_mutex_lock(&m);
	order[norder++] = (char)('0' + my_id);
	pthread_mutex_unlock(&m);
	return NULL;
}

static void *setter(void *arg)
{
	struct timespec ts = {0, 3000000};

	(void)arg;
	nanosleep(&ts, NULL);
	flag = 1;
	return NULL;
}

static void *writer(void *arg)
{
	char buf[4096];
	size_t done = 0;

	(void)arg;
	while (done < PIPE_BYTES) {
		ssize_t w;

		for (size_t i = 0; i < sizeof(buf); i++)
			buf[i] = (char)((done + i) * 7);
		w = write(pipefd[1], buf, sizeof(buf));
		if (w <= 0)
			break;
		done += (size_t)w;
	}
	close(pipefd[1]);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t w[WORKERS], s, p;
	struct timespec ts = {0, 1000000};
	uint64_t sum = 0, bytes = 0;
	long spins = 0;
	char buf[8192];
	ssize_t n;
	int i;

	/* sleeps */
	printf("sleep %u usleep %d clock_nanosleep %d\n", sleep(0), usleep(1000),
	       clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL));

	/* a sched_yield spin on a flag another thread sets */
	pthread_create(&s, NULL, setter, NULL);
	while (!flag) {
		sched_yield();
		spins++;
	}
	pthread_join(s, NULL);
	if (argc > 1 && !strcmp(argv[1], "spins"))
		printf("flag seen after %ld yields\n", spins);
	else
		printf("flag seen\n");

	/* pthread_once from several threads */
	for (i = 0; i < WORKERS; i++)
		pthread_create(&w[i], NULL, worker, (void *)(intptr_t)i);
	for (i = 0; i < WORKERS; i++)
		pthread_join(w[i], NULL);
	printf("once ran %d time(s), by worker %d; lock order %s\n", once_runs, once_by, order);

	/* a pipe between two threads, more than it holds */
	if (pipe(pipefd))
		return 2;
	pthread_create(&p, NULL, writer, NULL);
	while ((n = read(pipefd[0], buf, sizeof(buf))) > 0) {
		for (ssize_t k = 0; k < n; k++)
			sum = sum * 31 + (unsigned char)buf[k];
		bytes += (uint64_t)n;
	}
	pthread_join(p, NULL);
	printf("pipe %llu bytes, sum %016llx\n", (unsigned long long)bytes, (unsigned long long)sum);
	return once_runs == 1 && bytes == PIPE_BYTES ? 0 : 1;
}
