// SPDX-License-Identifier: MIT
/*
 * spin - pthread spinlocks with known counts (`spin_lock_var`).
 *
 *   spin [THREADS ITERS]    (default 2 10000)
 *
 * Each thread does ITERS pthread_spin_lock/unlock pairs on one spinlock, so
 * acquisitions = THREADS*ITERS. Prints "total=<n>".
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_spinlock_t spin_lock_var;
static long spin_total;
static long iters;

static void *spinner(void *arg)
{
	long i;

	(void)arg;
	for (i = 0; i < iters; i++) {
		pthread_spin_lock(&spin_lock_var);
		spin_total++;
		pthread_spin_unlock(&spin_lock_var);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long n = 2, i;
	pthread_t t[64];

	iters = 10000;
	if (argc == 3) {
		n = atol(argv[1]);
		iters = atol(argv[2]);
	}
	if (n < 1 || n > 64 || iters < 0)
		return 2;
	pthread_spin_init(&spin_lock_var, PTHREAD_PROCESS_PRIVATE);
	for (i = 0; i < n; i++)
		pthread_create(&t[i], NULL, spinner, NULL);
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	pthread_spin_destroy(&spin_lock_var);
	printf("total=%ld\n", spin_total);
	return spin_total == n * iters ? 0 : 1;
}
