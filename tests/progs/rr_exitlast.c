// SPDX-License-Identifier: MIT
/*
 * rr_exitlast.c - a worker whose last calls come after main's last
 * recorded call, while main is already in exit: a sync replay must hold
 * the exit until the worker has replayed them (the agent's destructor,
 * agent_rr_exit_wait). xz -T2 ends this way now and then: its worker takes
 * its mutex once more as main exits.
 *
 * Main fills a pipe to its capacity, leaves a line in a fully buffered
 * FILE on it, lets the worker go and returns. The exit flushes that FILE
 * (inside libc: not a recorded call); the flush blocks on the full pipe
 * until the worker, after a stretch of computing, takes a mutex and reads
 * one page out of the pipe. So in the recording the worker's mutex comes
 * before the exit. In a replay the pipe is empty (a write to a pipe
 * returns as recorded without being made) and main reaches the exit while
 * the worker still computes. Then the worker waits in pause() for good.
 * Usage: rr_exitlast [SPIN_MILLIONS] (default 100).
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t last = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int go;
static int pipefd[2];
static long spin = 100;
static volatile unsigned long sink;

static void *worker(void *arg)
{
	static char page[4096];
	unsigned long x = 1;

	(void)arg;
	pthread_mutex_lock(&m);
	while (!go)
		pthread_cond_wait(&cv, &m);
	pthread_mutex_unlock(&m);
	/* computing, no call: main gets to its exit first in a replay */
	for (long i = 0; i < spin * 1000000L; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	sink = x;
	pthread_mutex_lock(&last);
	pthread_mutex_unlock(&last);
	/* one page out of the full pipe: main's last write can go on */
	if (read(pipefd[0], page, sizeof(page)) < 0)
		perror("read");
	for (;;)
		pause();
	return NULL;
}

int main(int argc, char **argv)
{
	static char fill[1 << 16];
	pthread_t th;
	FILE *f;
	int cap;

	if (argc > 1)
		spin = atol(argv[1]);
	if (pipe(pipefd) < 0)
		return 1;
	cap = fcntl(pipefd[1], F_GETPIPE_SZ);
	if (cap <= 0 || cap > (int)sizeof(fill))
		cap = (int)sizeof(fill);
	if (write(pipefd[1], fill, (size_t)cap) != cap)
		return 1;
	f = fdopen(pipefd[1], "w");
	if (!f || setvbuf(f, NULL, _IOFBF, 4096))
		return 1;
	fprintf(f, "last words\n"); /* stays in the FILE's buffer until the exit */
	if (pthread_create(&th, NULL, worker, NULL))
		return 1;
	pthread_mutex_lock(&m);
	go = 1;
	pthread_cond_signal(&cv);
	pthread_mutex_unlock(&m);
	printf("main done, pipe of %d bytes full\n", cap);
	return 0; /* the exit flushes stdout, then f: it blocks on the full pipe */
}
