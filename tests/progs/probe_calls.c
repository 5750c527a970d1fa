// SPDX-License-Identifier: MIT
/*
 * probe_calls.c - target of the dynamic-probe tests: functions called a
 * number of times known by construction, printed at the end so a test can
 * compare spool's counts (and callgrind's) with the program's own.
 *
 *   probe_calls [N]   (default 1000)
 *
 * leaf_add    N times from main, N times from a second thread
 * fib         recursive: fib(12) calls itself 465 times in all
 * tiny        3 bytes of assembly (xor eax,eax; ret): too short for a jump,
 *             so its probes are int3; called N times
 * twice       called from main and from worker
 * Output: one "name calls" line per function.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

/* Shorter than a 5-byte jump: the probe must fall back to int3. */
__asm__(".text\n"
	".globl probe_tiny\n"
	".type probe_tiny, @function\n"
	"probe_tiny:\n"
	"\txorl %eax, %eax\n"
	"\tret\n"
	".size probe_tiny, .-probe_tiny\n");
int probe_tiny(void);

static volatile long sink;
static long n_leaf, n_fib, n_tiny, n_twice;

__attribute__((noinline)) long probe_leaf_add(long a, long b)
{
	__atomic_fetch_add(&n_leaf, 1, __ATOMIC_RELAXED);
	return a + b;
}

__attribute__((noinline)) long probe_fib(long n)
{
	n_fib++;
	return n < 2 ? n : probe_fib(n - 1) + probe_fib(n - 2);
}

__attribute__((noinline)) void probe_twice(int who)
{
	__atomic_fetch_add(&n_twice, 1, __ATOMIC_RELAXED);
	sink += who;
}

static long iters = 1000;

static void *worker(void *arg)
{
	for (long i = 0; i < iters; i++)
		sink += probe_leaf_add(i, 2);
	probe_twice(2);
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc > 1)
		iters = atol(argv[1]);
	if (pthread_create(&t, NULL, worker, NULL))
		return 1;
	for (long i = 0; i < iters; i++) {
		sink += probe_leaf_add(i, 1);
		sink += probe_tiny();
		n_tiny++;
	}
	sink += probe_fib(12);
	probe_twice(1);
	pthread_join(t, NULL);
	printf("probe_leaf_add %ld\nprobe_fib %ld\nprobe_tiny %ld\nprobe_twice %ld\n", n_leaf, n_fib,
	       n_tiny, n_twice);
	return 0;
}
