// SPDX-License-Identifier: MIT
/*
 * rr_snapepoll.c - an event loop in the way of libuv (node), for replay
 * from a snapshot (tests/integ/272, doc/record.md "Replay from a
 * snapshot"): the first thread waits in epoll_wait on an epoll instance
 * that watches an eventfd and a pipe; WORKERS threads each write ROUNDS
 * times to the eventfd or the pipe under a mutex, print a line and nap. Each
 * time the loop wakes it reads what is there, prints a line, and changes
 * the pipe's entry with epoll_ctl(EPOLL_CTL_MOD), as libuv does; an
 * epoll_ctl that fails ends the program with status 3 and a message (libuv
 * aborts). So a restore must give it a real epoll instance, with the
 * pipe and the eventfd in its interest list, not stand-ins.
 *
 * usage: rr_snapepoll [WORKERS] [ROUNDS]
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int efd, pfd[2], rounds;
static long sent;

static void *worker(void *arg)
{
	int id = (int)(intptr_t)arg;
	struct timespec nap = {0, 50000};

	for (int r = 0; r < rounds; r++) {
		uint64_t one = 1;
		char c = (char)('a' + id);

		pthread_mutex_lock(&m);
		sent++;
		if (r % 2) {
			if (write(efd, &one, sizeof(one)) != (ssize_t)sizeof(one))
				exit(2);
		} else if (write(pfd[1], &c, 1) != 1) {
			exit(2);
		}
		printf("w%d round %d sent %ld\n", id, r, sent);
		pthread_mutex_unlock(&m);
		nanosleep(&nap, NULL); /* (the loop wakes for each, mostly) */
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int nworkers = argc > 1 ? atoi(argv[1]) : 2, ep;
	long want, got = 0, wakes = 0;
	struct epoll_event ev;
	pthread_t w[8];

	rounds = argc > 2 ? atoi(argv[2]) : 100;
	if (nworkers < 1 || nworkers > 8 || rounds < 1)
		return 2;
	want = (long)nworkers * rounds;
	setvbuf(stdout, NULL, _IOLBF, 0);
	ep = epoll_create1(EPOLL_CLOEXEC);
	efd = eventfd(0, EFD_NONBLOCK);
	if (ep < 0 || efd < 0 || pipe(pfd) < 0)
		return 1;
	ev = (struct epoll_event){.events = EPOLLIN, .data.u64 = 1};
	if (epoll_ctl(ep, EPOLL_CTL_ADD, efd, &ev) < 0)
		return 1;
	ev = (struct epoll_event){.events = EPOLLIN, .data.u64 = 2};
	if (epoll_ctl(ep, EPOLL_CTL_ADD, pfd[0], &ev) < 0)
		return 1;
	for (int i = 0; i < nworkers; i++)
		if (pthread_create(&w[i], NULL, worker, (void *)(intptr_t)i))
			return 1;
	while (got < want) {
		struct epoll_event out[2];
		int n = epoll_wait(ep, out, 2, -1);

		for (int i = 0; i < n; i++) {
			if (out[i].data.u64 == 1) {
				uint64_t v;

				if (read(efd, &v, sizeof(v)) == (ssize_t)sizeof(v))
					got += (long)v;
			} else {
				char b[64];
				ssize_t k = read(pfd[0], b, sizeof(b));

				if (k > 0)
					got += k;
			}
		}
		wakes++;
		/* as libuv does: change the entry (MOD: it must be there) */
		ev = (struct epoll_event){.events = EPOLLIN, .data.u64 = 2};
		if (epoll_ctl(ep, EPOLL_CTL_MOD, pfd[0], &ev) < 0) {
			perror("rr_snapepoll: epoll_ctl");
			return 3;
		}
		printf("loop wake %ld got %ld\n", wakes, got);
	}
	for (int i = 0; i < nworkers; i++)
		pthread_join(w[i], NULL);
	printf("done: %ld events in %ld wakes\n", got, wakes);
	return 0;
}
