// SPDX-License-Identifier: MIT
/*
 * corpus_omp.c - an OpenMP program (gcc -fopenmp: Debian's libgomp), for
 * the record/replay corpus (tests/real/91-corpus-cxx-threads.t): a
 * parallel loop with dynamic scheduling over 2 threads, a reduction, and
 * the thread that ran each iteration (which varies from run to run) in its
 * output and in a result file. libgomp's barriers and locks are its own
 * futexes, made with its own syscall instruction.
 */
#include <omp.h>
#include <stdio.h>

int main(void)
{
	long sum = 0;
	int who[64] = {0};
	FILE *f;

#pragma omp parallel for schedule(dynamic, 1) reduction(+ : sum) num_threads(2)
	for (int i = 0; i < 64; i++) {
		long s = 0;

		for (int k = 0; k < 20000 * (i % 5 + 1); k++)
			s += k ^ i;
		sum += s;
		who[i] = omp_get_thread_num();
	}
	f = fopen("who.txt", "w");
	for (int i = 0; i < 64; i++) {
		printf("%d", who[i]);
		if (f)
			fprintf(f, "%d %d\n", i, who[i]);
	}
	if (f)
		fclose(f);
	printf("\nsum %ld\n", sum);
	return 0;
}
