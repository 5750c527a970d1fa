// SPDX-License-Identifier: MIT
/*
 * rr_rev_bank.c - a balance that ends up wrong, for reverse execution in
 * gdb (tests/integ/151-155): two tellers deposit and withdraw the same
 * amounts under a lock, so the balance should end where it started; the
 * second teller, once the first has finished, doubles it by mistake (the
 * line marked BUG). A watchpoint on balance and reverse-continue from the
 * end stop at that write, in the second teller's thread.
 *
 * usage: rr_rev_bank [ITERATIONS]     exit status 1 when the balance is wrong
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static long balance = 100;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int iters = 20;
static pthread_t first;

static void audit(long amount)
{
	pthread_mutex_lock(&lock);
	balance += amount; /* DEPOSIT */
	pthread_mutex_unlock(&lock);
	pthread_mutex_lock(&lock);
	balance -= amount; /* WITHDRAW */
	pthread_mutex_unlock(&lock);
}

static void *teller(void *arg)
{
	long id = (long)arg;

	for (int i = 0; i < iters; i++)
		audit(10 + id);
	if (id == 2) {
		pthread_join(first, NULL);
		pthread_mutex_lock(&lock);
		balance = balance * 2; /* BUG */
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t second;

	if (argc > 1)
		iters = atoi(argv[1]);
	pthread_create(&first, NULL, teller, (void *)1L);
	pthread_create(&second, NULL, teller, (void *)2L);
	pthread_join(second, NULL);
	printf("balance %ld (want 100)\n", balance); /* END */
	return balance != 100;
}
