// SPDX-License-Identifier: MIT
/*
 * rr_flushes - threads whose output reaches stdout and stderr through the
 * stdio writes no call on a stream orders (tests/integ/300-rr-sync-flushes.t,
 * doc/record.md "Standard I/O inside libc"): run as `rr_flushes MODE N
 * >f 2>&1`, the order of the lines in f is the order those writes took
 * among the other thread's, and a sync replay must leave the same bytes.
 *
 *   dprintf N   thread A writes N lines with dprintf(1), thread B with
 *               dprintf(2) (glibc's dprintf writes through a FILE of its
 *               own on the stack, with no lock);
 *   flushall N  thread A prints a line to stdout (fully buffered: a file)
 *               then calls fflush(NULL), N times; thread B prints N lines
 *               to stderr with fprintf;
 *   fclose N    thread A prints N lines to stdout, then fcloses it (as
 *               coreutils' close_stdout does at exit); thread B prints N
 *               lines to stderr;
 *   exit N      main prints N lines to stdout, then returns once a worker
 *               has printed 50 lines to stderr; the worker goes on
 *               printing (a line every 50 us or so) until the process
 *               ends; an atexit handler prints
 *               a last line. What stdout holds is written by the flush at
 *               exit, among the worker's lines.
 *   held        a thread takes stdout's lock (flockfile), prints a line
 *               into its buffer and waits for good; main prints to stderr
 *               and returns: the exit must not wait for the lock (glibc's
 *               flush at exit takes none and writes the line).
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static long lines = 200;
static const char *mode;
static pthread_barrier_t start;
static sem_t fifty;

static void *thread_a(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&start);
	for (long i = 0; i < lines; i++) {
		if (!strcmp(mode, "dprintf")) {
			if (dprintf(1, "a dprintf %ld\n", i) < 0)
				_exit(9);
		} else {
			printf("a stdout line %ld\n", i);
			if (!strcmp(mode, "flushall"))
				fflush(NULL);
		}
	}
	if (!strcmp(mode, "fclose") && fclose(stdout))
		_exit(9);
	return NULL;
}

static void *thread_b(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&start);
	for (long i = 0; i < lines; i++) {
		if (!strcmp(mode, "dprintf")) {
			if (dprintf(2, "b dprintf %ld\n", i) < 0)
				_exit(9);
		} else {
			fprintf(stderr, "b stderr line %ld\n", i);
		}
	}
	return NULL;
}

/* exit: prints until the process ends, with a nap between lines once main
 * may exit (a thread killed inside its write leaves the replay unsure
 * whether the write was made: doc/record.md "The turn of the standard
 * output"; napping, it is almost always killed in the nap) */
static void *worker(void *arg)
{
	(void)arg;
	for (long i = 0;; i++) {
		fprintf(stderr, "w stderr line %ld\n", i);
		if (i == 49)
			sem_post(&fifty);
		if (i >= 49)
			usleep(50);
	}
	return NULL;
}

/* held: keeps stdout's lock until the process ends */
static void *holder(void *arg)
{
	(void)arg;
	flockfile(stdout);
	printf("held line\n");
	sem_post(&fifty);
	for (;;)
		pause();
	return NULL;
}

static void last_words(void)
{
	printf("atexit handler\n");
	usleep(20000); /* (the worker prints meanwhile) */
}

int main(int argc, char **argv)
{
	pthread_t a, b;

	if (argc < 2) {
		fprintf(stderr, "usage: rr_flushes dprintf|flushall|fclose|exit|held [N]\n");
		return 2;
	}
	mode = argv[1];
	if (argc > 2)
		lines = atol(argv[2]);
	setvbuf(stdout, NULL, _IOFBF, BUFSIZ);
	if (!strcmp(mode, "exit")) {
		if (sem_init(&fifty, 0, 0) || atexit(last_words) ||
		    pthread_create(&a, NULL, worker, NULL))
			return 1;
		for (long i = 0; i < lines; i++)
			printf("main stdout line %ld\n", i);
		sem_wait(&fifty);
		return 0;
	}
	if (!strcmp(mode, "held")) {
		if (sem_init(&fifty, 0, 0) || pthread_create(&a, NULL, holder, NULL))
			return 1;
		sem_wait(&fifty);
		fprintf(stderr, "main exits\n");
		return 0;
	}
	if (strcmp(mode, "dprintf") && strcmp(mode, "flushall") && strcmp(mode, "fclose"))
		return 2;
	pthread_barrier_init(&start, NULL, 2);
	if (pthread_create(&a, NULL, thread_a, NULL) || pthread_create(&b, NULL, thread_b, NULL))
		return 1;
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	return 0;
}
