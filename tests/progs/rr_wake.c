// SPDX-License-Identifier: MIT
/*
 * rr_wake.c - threads that hand work to a loop the way libuv does: each
 * worker stores its result in a slot with an atomic store (no lock), then
 * wakes the loop through a descriptor (worker 0 an eventfd, with glibc's
 * eventfd_write and eventfd_read; worker 1 a pipe; worker 2 a socket
 * pair), and waits for the loop's answer on a pipe of its own before its
 * next round. The loop waits for readiness (epoll
 * or poll), reads the descriptor that woke it, takes that worker's slot
 * with an atomic exchange and prints it, then answers. The descriptor's
 * bytes are the only ordering between the store and the exchange: a sync
 * replay that does not make a wake-up through a descriptor an ordering
 * edge hands the loop its recorded readiness at once, and the loop takes
 * the slot before the worker stored it (or after it stored the next one):
 * another output, or a divergence (doc/record.md "Wake-ups through a
 * descriptor").
 *
 *   rr_wake epoll|poll ROUNDS
 */
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#define NW 3

static unsigned long slot[NW];
static int wake_rd[NW], wake_wr[NW], ack[NW][2], rounds;

/* A little work of the worker's own, so that the loop is often ahead. */
static unsigned long spin(unsigned long v)
{
	for (int i = 0; i < 20000; i++)
		v = v * 6364136223846793005ul + 1442695040888963407ul;
	return v;
}

static void *worker(void *arg)
{
	int w = (int)(intptr_t)arg;
	eventfd_t one = 1;
	char c = 'w';

	for (int r = 0; r < rounds; r++) {
		unsigned long v = (unsigned long)(w + 1) * 100000 + (unsigned long)r;

		if (spin(v) == 42)
			v++; /* (never: keeps the work) */
		__atomic_store_n(&slot[w], v, __ATOMIC_RELEASE);
		if (w == 0 && eventfd_write(wake_wr[w], one))
			abort();
		if (w == 1 && write(wake_wr[w], &c, 1) != 1)
			abort();
		if (w == 2 && send(wake_wr[w], &c, 1, 0) != 1)
			abort();
		if (read(ack[w][0], &c, 1) != 1)
			abort();
	}
	return NULL;
}

/* The loop took worker w's wake-up: consume it, take the slot, answer. */
static unsigned long take(int w)
{
	eventfd_t n;
	char c;
	unsigned long v;

	if (w == 0 && eventfd_read(wake_rd[w], &n))
		abort();
	if (w == 1 && read(wake_rd[w], &c, 1) != 1)
		abort();
	if (w == 2 && recv(wake_rd[w], &c, 1, 0) != 1)
		abort();
	v = __atomic_exchange_n(&slot[w], 0, __ATOMIC_ACQ_REL);
	printf("worker %d: %lu\n", w, v);
	if (write(ack[w][1], "a", 1) != 1)
		abort();
	return v;
}

int main(int argc, char **argv)
{
	pthread_t th[NW];
	int use_epoll, left, p[2], s[2], ep = -1;
	unsigned long sum = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: rr_wake epoll|poll ROUNDS\n");
		return 2;
	}
	use_epoll = !strcmp(argv[1], "epoll");
	rounds = atoi(argv[2]);
	wake_rd[0] = wake_wr[0] = eventfd(0, 0);
	if (wake_rd[0] < 0 || pipe(p) || socketpair(AF_UNIX, SOCK_STREAM, 0, s))
		return 1;
	wake_rd[1] = p[0], wake_wr[1] = p[1];
	wake_rd[2] = s[0], wake_wr[2] = s[1];
	for (int w = 0; w < NW; w++)
		if (pipe(ack[w]))
			return 1;
	if (use_epoll) {
		ep = epoll_create1(0);
		for (int w = 0; w < NW; w++) {
			struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (uint32_t)w};

			if (epoll_ctl(ep, EPOLL_CTL_ADD, wake_rd[w], &ev))
				return 1;
		}
	}
	for (int w = 0; w < NW; w++)
		if (pthread_create(&th[w], NULL, worker, (void *)(intptr_t)w))
			return 1;
	left = NW * rounds;
	while (left > 0) {
		if (use_epoll) {
			struct epoll_event evs[NW];
			int n = epoll_wait(ep, evs, NW, -1);

			for (int i = 0; i < n; i++, left--)
				sum += take((int)evs[i].data.u32);
		} else {
			struct pollfd pf[NW];

			for (int w = 0; w < NW; w++)
				pf[w] = (struct pollfd){.fd = wake_rd[w], .events = POLLIN};
			if (poll(pf, NW, -1) <= 0)
				continue;
			for (int w = 0; w < NW; w++)
				if (pf[w].revents & POLLIN) {
					sum += take(w);
					left--;
				}
		}
	}
	for (int w = 0; w < NW; w++)
		pthread_join(th[w], NULL);
	printf("sum %lu\n", sum);
	return 0;
}
