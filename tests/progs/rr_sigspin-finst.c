// SPDX-License-Identifier: MIT
/*
 * rr_sigspin-finst.c - a thread that spins in instrumented function calls
 * (built with -finstrument-functions: every call is a progress point of
 * serial mode) and makes no lock, input or other recorded call, for
 * tests/integ/68-signals.t. The SIGUSR1 handler counts the signals and notes
 * the iteration of the spinning thread it interrupted; the thread stops
 * after WANT signals. The main thread waits in pthread_join the whole time,
 * so a signal sent to the process is delivered by the spinning thread at a
 * progress point (doc/record.md, Signals). Prints the notes and a hash of
 * the work done: a replay must print the same. With "lock", each iteration
 * also takes and releases a mutex: in sync mode, where there are no
 * progress points, the signal the main thread got in pthread_join is then
 * delivered by the spinning thread at one of those lock calls.
 *
 * usage: rr_sigspin-finst [WANT [lock]]   (default 2)
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile sig_atomic_t count;
static volatile long iter;
static long notes[16];
static int use_lock;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static __attribute__((noinline)) uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdull;
}

static void on_usr1(int sig)
{
	(void)sig;
	if (count < 16)
		notes[count] = iter;
	count++;
}

static void *spin(void *arg)
{
	int want = (int)(long)arg;
	uint64_t h = 0;

	while (count < want) {
		h = mix(h, (uint64_t)iter);
		if (use_lock) {
			pthread_mutex_lock(&lock);
			iter++;
			pthread_mutex_unlock(&lock);
		} else {
			iter++;
		}
	}
	return (void *)(uintptr_t)h;
}

int main(int argc, char **argv)
{
	int want = argc > 1 ? atoi(argv[1]) : 2;
	struct sigaction sa;
	pthread_t th;
	void *h;

	use_lock = argc > 2 && !strcmp(argv[2], "lock");
	if (want < 1 || want > 16)
		return 2;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	if (sigaction(SIGUSR1, &sa, NULL) < 0) {
		perror("sigaction");
		return 2;
	}
	if (pthread_create(&th, NULL, spin, (void *)(long)want))
		return 2;
	printf("ready\n");
	fflush(stdout);
	pthread_join(th, &h);
	printf("signals %d\n", (int)count);
	for (int i = 0; i < count && i < 16; i++)
		printf("signal %d at iteration %ld\n", i, notes[i]);
	printf("hash %016llx after %ld iterations\n", (unsigned long long)(uintptr_t)h, iter);
	return 0;
}
