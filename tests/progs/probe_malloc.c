// SPDX-License-Identifier: MIT
/*
 * probe_malloc.c - a known use of the allocator, for sys:mem
 * (tests/integ/79-probe-sys.t): two threads each make ROUNDS rounds of
 * malloc, calloc, realloc (grow, from NULL, to 0), posix_memalign,
 * aligned_alloc, memalign and free of sizes that depend on the round and
 * the thread, keeping one block per round until exit. Each thread counts
 * what it did itself, with the rules spool documents (doc/probe.md): calls
 * of allocating functions, bytes asked by the successful ones, blocks
 * released, and usable bytes (malloc_usable_size) allocated minus
 * released. Nothing else allocates in those threads; main prints, after
 * joining them, one line per thread:
 *   thread TID CALLS BYTES FREES LIVE
 * Usage: probe_malloc [ROUNDS]
 */
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_ROUNDS 10000

struct worker {
	int seed, rounds;
	long tid;
	unsigned long long calls, bytes, frees;
	long long live;
	void *kept[MAX_ROUNDS];
};

static void got(struct worker *w, void *p, size_t asked)
{
	w->calls++;
	if (!p)
		return;
	w->bytes += asked;
	w->live += (long long)malloc_usable_size(p);
}

static void released(struct worker *w, void *p)
{
	w->frees++;
	w->live -= (long long)malloc_usable_size(p);
}

static void *work(void *arg)
{
	struct worker *w = arg;

	w->tid = syscall(SYS_gettid);
	for (int i = 0; i < w->rounds; i++) {
		size_t a = 16 + (size_t)(i * 7 + w->seed) % 500, b = 1000 + (size_t)i * 3;
		void *p, *q, *r;
		size_t us;

		p = malloc(a);
		got(w, p, a);
		q = calloc(3, a);
		got(w, q, 3 * a);
		us = malloc_usable_size(p);
		r = realloc(p, b); /* grows: may move */
		w->calls++;
		w->bytes += b;
		w->live += (long long)malloc_usable_size(r) - (long long)us;
		p = r;
		released(w, q);
		free(q);
		if (posix_memalign(&q, 64, a) == 0) {
			got(w, q, a);
		} else {
			w->calls++;
			q = NULL;
		}
		r = aligned_alloc(32, 32 * (1 + (size_t)i % 9));
		got(w, r, 32 * (1 + (size_t)i % 9));
		released(w, p);
		free(p);
		p = memalign(128, a + 1);
		got(w, p, a + 1);
		released(w, q);
		free(q);
		free(NULL); /* not a release */
		q = realloc(NULL, a); /* as malloc */
		got(w, q, a);
		us = malloc_usable_size(q);
		w->calls++; /* realloc to 0: glibc frees the block */
		w->frees++;
		w->live -= (long long)us;
		q = realloc(q, 0);
		free(q); /* NULL */
		released(w, r);
		free(r);
		w->kept[i] = p; /* live at exit */
	}
	return NULL;
}

int main(int argc, char **argv)
{
	static struct worker w[2];
	pthread_t t[2];
	int rounds = argc > 1 ? atoi(argv[1]) : 100;

	if (rounds < 0 || rounds > MAX_ROUNDS) {
		fprintf(stderr, "usage: probe_malloc [ROUNDS <= %d]\n", MAX_ROUNDS);
		return 2;
	}
	for (int i = 0; i < 2; i++) {
		w[i].seed = 11 * (i + 1);
		w[i].rounds = rounds;
		if (pthread_create(&t[i], NULL, work, &w[i])) {
			perror("pthread_create");
			return 1;
		}
	}
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < 2; i++)
		printf("thread %ld %llu %llu %llu %lld\n", w[i].tid, w[i].calls, w[i].bytes,
		       w[i].frees, w[i].live);
	return 0;
}
