// SPDX-License-Identifier: MIT
/*
 * barrier - T threads meeting at one barrier (`round_barrier`) R times.
 *
 *   barrier [THREADS ROUNDS]    (default 3 100)
 *
 * Known: barrier waits = THREADS*ROUNDS, and exactly one thread per round gets
 * PTHREAD_BARRIER_SERIAL_THREAD, so serial = ROUNDS. Prints
 * "waits=<n> serial=<r>" as counted by the threads.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_barrier_t round_barrier;
static long rounds;

static void *member(void *arg)
{
	long r, serial = 0;

	(void)arg;
	for (r = 0; r < rounds; r++)
		if (pthread_barrier_wait(&round_barrier) == PTHREAD_BARRIER_SERIAL_THREAD)
			serial++;
	return (void *)serial;
}

int main(int argc, char **argv)
{
	long n = 3, i, serial = 0;
	pthread_t t[64];

	rounds = 100;
	if (argc == 3) {
		n = atol(argv[1]);
		rounds = atol(argv[2]);
	}
	if (n < 1 || n > 64 || rounds < 0)
		return 2;
	pthread_barrier_init(&round_barrier, NULL, (unsigned)n);
	for (i = 0; i < n; i++)
		pthread_create(&t[i], NULL, member, NULL);
	for (i = 0; i < n; i++) {
		void *s;

		pthread_join(t[i], &s);
		serial += (long)s;
	}
	pthread_barrier_destroy(&round_barrier);
	printf("waits=%ld serial=%ld\n", n * rounds, serial);
	return serial == rounds ? 0 : 1;
}
