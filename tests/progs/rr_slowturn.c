// SPDX-License-Identifier: MIT
/*
 * rr_slowturn.c - main waits on a condition variable for a long time while
 * a worker gets somewhere: ROUNDS rounds of a few milliseconds of
 * computing, each ending with a lock of its own mutex, then the result
 * under the shared one. A sync replay's main waits for its turn on the
 * shared mutex all that time; spool's stuck watch (--stuck-ms) must tell
 * that from a thread that makes no progress (on 2 CPUs shared with other
 * programs, xz -T2's main waited more than 5 s for a worker that replayed
 * its events all along). Prints the result.
 * Usage: rr_slowturn [ROUNDS] [SPIN_THOUSANDS] (default 300 and 3000).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t shared = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t own = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static long rounds = 300, spin = 3000;
static unsigned long result;
static int ready;

static void *worker(void *arg)
{
	unsigned long x = 1, acc = 0;

	(void)arg;
	for (long r = 0; r < rounds; r++) {
		for (long i = 0; i < spin * 1000L; i++)
			x = x * 6364136223846793005UL + 1442695040888963407UL;
		pthread_mutex_lock(&own);
		acc += x >> 60;
		pthread_mutex_unlock(&own);
	}
	pthread_mutex_lock(&shared);
	result = acc;
	ready = 1;
	pthread_cond_signal(&cv);
	pthread_mutex_unlock(&shared);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th;

	if (argc > 1)
		rounds = atol(argv[1]);
	if (argc > 2)
		spin = atol(argv[2]);
	if (pthread_create(&th, NULL, worker, NULL))
		return 1;
	pthread_mutex_lock(&shared);
	while (!ready)
		pthread_cond_wait(&cv, &shared);
	pthread_mutex_unlock(&shared);
	pthread_join(th, NULL);
	printf("result %lu after %ld rounds\n", result, rounds);
	return 0;
}
