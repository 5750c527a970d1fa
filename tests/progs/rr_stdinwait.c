// SPDX-License-Identifier: MIT
/*
 * rr_stdinwait.c - a main thread that reads its lines from stdin with fgets
 * (a stdio read, which keeps serial mode's run token while it blocks) and
 * hands each to a worker thread waiting on a condition variable, for the
 * snapshots taken while the reader waits (tests/integ/396).
 *
 * Usage: rr_stdinwait [intr|restart|join|self]. It prints "ready"
 * (flushed) before its first fgets, its pid on stderr. With intr or
 * restart, SIGUSR1 has a handler, installed without or with SA_RESTART: an
 * fgets the signal interrupts returns NULL with EINTR (said, and reading
 * goes on) only without it. join: a third thread reads the lines while
 * main waits in pthread_join for it (tests/integ/403). self: stdin is a
 * pipe whose write end the program holds and never writes (it waits for
 * good, as it would without spool). At EOF: the lines, their hash and the
 * signals counted.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static char slot[256];
static int full, done;
static uint64_t hash = 1469598103934665603ull;
static unsigned nlines;
static volatile sig_atomic_t nsig;

static void on_usr1(int sig)
{
	(void)sig;
	nsig++;
}

static void *worker(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&mu);
	for (;;) {
		while (!full && !done)
			pthread_cond_wait(&cv, &mu);
		if (full) {
			for (const char *p = slot; *p; p++)
				hash = (hash ^ (uint8_t)*p) * 1099511628211ull;
			nlines++;
			printf("worker: line %u: %s", nlines, slot);
			fflush(stdout);
			full = 0;
			pthread_cond_broadcast(&cv);
			continue;
		}
		break;
	}
	pthread_mutex_unlock(&mu);
	return NULL;
}

static unsigned intr;

static void *reader(void *arg)
{
	char line[256];

	(void)arg;
	for (;;) {
		if (!fgets(line, sizeof(line), stdin)) {
			if (ferror(stdin) && errno == EINTR) {
				intr++;
				printf("main: fgets interrupted (EINTR), %d signal(s) so far\n",
				       (int)nsig);
				fflush(stdout);
				clearerr(stdin);
				continue;
			}
			break;
		}
		pthread_mutex_lock(&mu);
		while (full)
			pthread_cond_wait(&cv, &mu);
		snprintf(slot, sizeof(slot), "%s", line);
		full = 1;
		pthread_cond_broadcast(&cv);
		pthread_mutex_unlock(&mu);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	pthread_t th, rd;

	if (!strcmp(mode, "intr") || !strcmp(mode, "restart")) {
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_usr1;
		sa.sa_flags = !strcmp(mode, "restart") ? SA_RESTART : 0;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGUSR1, &sa, NULL);
	}
	if (!strcmp(mode, "self")) {
		int p[2];

		/* (p[1] stays open: the reader waits for this process) */
		if (pipe(p) || dup2(p[0], 0) < 0)
			return 2;
	}
	if (pthread_create(&th, NULL, worker, NULL))
		return 2;
	fprintf(stderr, "pid %d\n", (int)getpid());
	printf("ready\n");
	fflush(stdout);
	if (!strcmp(mode, "join")) {
		if (pthread_create(&rd, NULL, reader, NULL))
			return 2;
		pthread_join(rd, NULL);
	} else {
		reader(NULL);
	}
	pthread_mutex_lock(&mu);
	while (full)
		pthread_cond_wait(&cv, &mu);
	done = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	pthread_join(th, NULL);
	printf("main: %u lines, hash %016llx, %d signal(s), %u interrupted\n", nlines,
	       (unsigned long long)hash, (int)nsig, intr);
	return 0;
}
