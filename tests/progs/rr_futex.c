// SPDX-License-Identifier: MIT
/*
 * rr_futex - two threads that hand a turn back and forth through their own
 * futex, made through glibc's syscall() as GLib's GMutex and GCond do, for
 * serial record/replay (tests/integ/137-blocked-threads.t): a real futex
 * wait would keep the run token in the kernel and the other thread, which
 * must run to wake it, waiting.
 *
 *   rr_futex [ROUNDS]   (default 1000)
 *
 * Each thread waits until the word says its turn (FUTEX_WAIT without a
 * timeout, or, every tenth round, FUTEX_WAIT_BITSET with an absolute
 * deadline a second away), does its step and passes the turn with
 * FUTEX_WAKE. Main then waits 20 ms on a word nobody changes (FUTEX_WAIT
 * with a relative timeout: ETIMEDOUT), and on a null address (EFAULT, as
 * the kernel says). Prints the steps and how those waits ended.
 */
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int fx_turn;
static long fx_rounds = 1000, fx_steps[2];

static long fx_futex(int *w, int op, int val, const struct timespec *to, int bits)
{
	return syscall(SYS_futex, w, op, val, to, NULL, bits);
}

static void *fx_run(void *arg)
{
	int me = (int)(long)arg;

	for (long i = 0; i < fx_rounds; i++) {
		int v;

		while ((v = __atomic_load_n(&fx_turn, __ATOMIC_ACQUIRE)) != me) {
			if (i % 10 == 9) {
				struct timespec end;

				clock_gettime(CLOCK_MONOTONIC, &end);
				end.tv_sec += 1;
				fx_futex(&fx_turn, FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG, v, &end,
					 FUTEX_BITSET_MATCH_ANY);
			} else {
				fx_futex(&fx_turn, FUTEX_WAIT | FUTEX_PRIVATE_FLAG, v, NULL, 0);
			}
		}
		fx_steps[me]++;
		__atomic_store_n(&fx_turn, !me, __ATOMIC_RELEASE);
		fx_futex(&fx_turn, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1, NULL, 0);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct timespec rel = {0, 20 * 1000 * 1000};
	pthread_t t;
	int never = 0;
	long r;

	if (argc > 1)
		fx_rounds = atol(argv[1]);
	pthread_create(&t, NULL, fx_run, (void *)1L);
	fx_run((void *)0L);
	pthread_join(t, NULL);
	r = fx_futex(&never, FUTEX_WAIT | FUTEX_PRIVATE_FLAG, 0, &rel, 0);
	printf("steps %ld %ld; a wait nobody ends: %s", fx_steps[0], fx_steps[1],
	       r < 0 && errno == ETIMEDOUT ? "ETIMEDOUT" : "other");
	r = fx_futex(NULL, FUTEX_WAIT | FUTEX_PRIVATE_FLAG, 0, NULL, 0);
	printf("; a null address: %s\n", r < 0 && errno == EFAULT ? "EFAULT" : "other");
	return 0;
}
