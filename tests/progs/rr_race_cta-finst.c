// SPDX-License-Identifier: MIT
/*
 * rr_race_cta-finst.c - check-then-act: THREADS threads withdraw AMOUNT from
 * a shared balance while it is enough, checking and withdrawing without a
 * lock. Two threads can both pass the check before either withdraws, and
 * the balance goes negative. Prints the final balance and the number of
 * withdrawals; exits 1 when the balance went negative. Built with
 * -finstrument-functions (progress points for spool's serial mode).
 *
 * usage: rr_race_cta-finst [THREADS [START [AMOUNT]]]   (default 2 1000 7)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static long balance, amount;
static long withdrawals[64];

static __attribute__((noinline)) int enough(void)
{
	return balance >= amount;
}

static __attribute__((noinline)) void withdraw(void)
{
	balance -= amount;
}

static void *customer(void *arg)
{
	long me = (long)arg;

	while (enough()) {
		withdraw();
		withdrawals[me]++;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 2;
	long total = 0;
	pthread_t th[64];

	balance = argc > 2 ? atol(argv[2]) : 1000;
	amount = argc > 3 ? atol(argv[3]) : 7;
	if (threads < 1 || threads > 64 || amount < 1)
		return 2;
	for (long i = 0; i < threads; i++)
		pthread_create(&th[i], NULL, customer, (void *)i);
	for (int i = 0; i < threads; i++)
		pthread_join(th[i], NULL);
	for (int i = 0; i < threads; i++)
		total += withdrawals[i];
	printf("balance %ld after %ld withdrawals\n", balance, total);
	return balance < 0 ? 1 : 0;
}
