// SPDX-License-Identifier: MIT
/*
 * rr_spin.c - a thread that spins on a flag another thread sets, in a loop
 * that calls nothing: serial record/replay cannot switch threads inside it
 * unless the loop has progress points. Built plain (spool must report the
 * spinning thread, not hang) and as rr_spin-cov (the same source with
 * -fsanitize-coverage=trace-pc and libspool-progress.so: it runs).
 */
#include <pthread.h>
#include <stdio.h>

static volatile int flag;

static void *setter(void *arg)
{
	(void)arg;
	flag = 1;
	return NULL;
}

int main(void)
{
	pthread_t t;
	long spins = 0;

	pthread_create(&t, NULL, setter, NULL);
	while (!flag)
		spins++;
	pthread_join(t, NULL);
	printf("flag seen\n");
	return spins < 0;
}
