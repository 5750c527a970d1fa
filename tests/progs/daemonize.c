// SPDX-License-Identifier: MIT
/*
 * daemonize - the shape of most servers: fork, the first process exits at
 * once, the child (in a session of its own) does the work. Here the child
 * writes its pid to PIDFILE, then takes and releases daemon_lock N times
 * over about MS milliseconds and exits 0 (102-daemon-traced-to-its-end.t).
 *
 *   daemonize PIDFILE N MS
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t daemon_lock = PTHREAD_MUTEX_INITIALIZER;

int main(int argc, char **argv)
{
	long n, ms;
	FILE *f;
	pid_t pid;

	if (argc != 4) {
		fprintf(stderr, "usage: daemonize PIDFILE N MS\n");
		return 2;
	}
	n = atol(argv[2]);
	ms = atol(argv[3]);
	pid = fork();
	if (pid < 0) {
		perror("daemonize: fork");
		return 1;
	}
	if (pid > 0)
		_exit(0); /* the first process: gone at once */
	setsid();
	f = fopen(argv[1], "w");
	if (!f)
		_exit(1);
	fprintf(f, "%d\n", (int)getpid());
	fclose(f);
	for (long i = 0; i < n; i++) {
		struct timespec nap = {0, n ? ms * 1000000 / n : 0};

		pthread_mutex_lock(&daemon_lock);
		pthread_mutex_unlock(&daemon_lock);
		nanosleep(&nap, NULL);
	}
	_exit(0);
}
