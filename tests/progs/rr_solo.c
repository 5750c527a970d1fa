// SPDX-License-Identifier: MIT
/*
 * rr_solo.c - a program with one thread, which never switches the run
 * token (tests/integ/304, doc/record.md "Snapshots"): STEPS steps, each
 * adding a node to a list on the heap, reading the clock (an input the log
 * holds), folding both into a checksum and printing a line with it, and
 * now and then sleeping a little, so that the run lasts some seconds. Its output is a function of the recorded inputs alone: a replay
 * from a snapshot taken in the middle must print the recording's tail.
 *
 * usage: rr_solo [STEPS] [EVERY]  (a 1 ms nap every EVERY steps; default
 * 20000 and 10)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

struct node {
	struct node *next;
	uint64_t v;
};

int main(int argc, char **argv)
{
	long steps = argc > 1 ? atol(argv[1]) : 20000;
	long every = argc > 2 ? atol(argv[2]) : 10;
	struct node *list = NULL;
	uint64_t sum = 1469598103934665603ull;
	long len = 0;

	if (steps < 1 || every < 1)
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (long i = 0; i < steps; i++) {
		struct node *n = malloc(sizeof(*n));

		if (!n)
			return 2;
		n->v = sum ^ (uint64_t)i;
		n->next = list;
		list = n;
		len++;
		sum = (sum ^ n->v) * 1099511628211ull;
		{
			struct timespec ts = {0, 1000000}, now;

			/* an input (a switch point): the replay has it from the log */
			clock_gettime(CLOCK_REALTIME, &now);
			sum ^= (uint64_t)now.tv_nsec & 1;
			if (i % every == 0)
				nanosleep(&ts, NULL);
		}
		printf("step %ld list %ld sum %016llx\n", i, len, (unsigned long long)sum);
	}
	printf("done %ld %016llx\n", len, (unsigned long long)sum);
	return 0;
}
