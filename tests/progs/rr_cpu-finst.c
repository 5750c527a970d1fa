// SPDX-License-Identifier: MIT
/*
 * rr_cpu-finst.c - a CPU-bound workload with progress points: THREADS
 * threads each call a small hash function ITERS times (every call is a
 * progress point of serial record/replay under -finstrument-functions),
 * then add their result to a total under a mutex. Prints the total. For
 * bench/record.sh.
 *
 * usage: rr_cpu-finst [THREADS [ITERS]]   (default 2 10000000)
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t total;

static __attribute__((noinline)) uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdull;
}

static void *worker(void *arg)
{
	long n = (long)arg;
	uint64_t h = 0;

	for (long i = 0; i < n; i++)
		h = mix(h, (uint64_t)i);
	pthread_mutex_lock(&lock);
	total += h;
	pthread_mutex_unlock(&lock);
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 2;
	long iters = argc > 2 ? atol(argv[2]) : 10000000;
	pthread_t th[64];

	if (threads < 1 || threads > 64)
		return 2;
	for (int i = 0; i < threads; i++)
		pthread_create(&th[i], NULL, worker, (void *)iters);
	for (int i = 0; i < threads; i++)
		pthread_join(th[i], NULL);
	printf("total %016llx\n", (unsigned long long)total);
	return 0;
}
