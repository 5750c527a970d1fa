// SPDX-License-Identifier: MIT
/*
 * rr_bank.c - a race-free bank whose output depends on the schedule: N
 * threads each make M transfers under one mutex; the amount of a transfer
 * depends on how many were made before it, and every transfer appends the
 * thread's id to a shared log. Prints the log's hash, its first characters
 * and the final balances: two native runs rarely agree, a replay must.
 * A rwlock (audits) and a trylock keep the other kinds of lock busy too.
 *
 * usage: rr_bank [THREADS] [TRANSFERS]
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NACC 5

static pthread_mutex_t bank = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t audit = PTHREAD_RWLOCK_INITIALIZER;
static long balance[NACC] = {1000, 1000, 1000, 1000, 1000};
static char *journal;
static size_t njournal;
static long audits, tries;
static int iters;

static void *teller(void *arg)
{
	int id = (int)(intptr_t)arg;

	for (int i = 0; i < iters; i++) {
		if (pthread_mutex_trylock(&bank) != 0) {
			pthread_mutex_lock(&bank);
			tries++;
		}
		int from = (int)(njournal % NACC), to = (from + 1 + id) % NACC;
		long amount = (long)(njournal * 7 % 13) + id;

		balance[from] -= amount;
		balance[to] += amount;
		journal[njournal++] = (char)('a' + id);
		pthread_mutex_unlock(&bank);
		if (i % 16 == 0) {
			long seen;

			pthread_rwlock_rdlock(&audit);
			seen = audits;
			pthread_rwlock_unlock(&audit);
			(void)seen;
			pthread_rwlock_wrlock(&audit);
			audits++;
			pthread_rwlock_unlock(&audit);
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 4;
	pthread_t th[26];
	uint64_t h = 1469598103934665603ull;

	iters = argc > 2 ? atoi(argv[2]) : 2000;
	if (n < 1 || n > 26 || iters < 1)
		return 2;
	journal = calloc((size_t)n * (size_t)iters + 1, 1);
	if (!journal)
		return 2;
	for (int i = 0; i < n; i++)
		pthread_create(&th[i], NULL, teller, (void *)(intptr_t)i);
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	for (size_t i = 0; i < njournal; i++)
		h = (h ^ (unsigned char)journal[i]) * 1099511628211ull;
	printf("journal %016llx %.60s\n", (unsigned long long)h, journal);
	printf("balances");
	for (int k = 0; k < NACC; k++)
		printf(" %ld", balance[k]);
	printf("\naudits %ld\n", audits);
	free(journal);
	return 0;
}
