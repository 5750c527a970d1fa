// SPDX-License-Identifier: MIT
/*
 * rr_snap_tls - a program whose first thread's static TLS block is big
 * (256 KiB of __thread data in the executable), so that the anonymous
 * mapping ld.so made for it is a region of 64 KiB or more, which a
 * --goto restore fills with UFFDIO_COPY; and whose workers are created
 * afresh each round (as an OpenMP team is), each on a 1 MiB stack, so
 * replays from snapshots start threads the snapshot never had. For
 * tests/integ/410-goto-uffd-tls.t: GraphicsMagick with libgomp
 * (tests/real/158) had a 332 KiB mapping around its first thread's TLS,
 * and the restore's own accesses to that TLS, which it registered with
 * the userfaultfd and had not filled yet, killed it with SIGSEGV.
 *
 *   rr_snap_tls ROUNDS
 *
 * Each round the first thread writes a pattern of the round into its TLS
 * array, starts two workers that add up halves of it (and of their own
 * TLS array, which they fill), joins them and prints "round I sum S";
 * at the end "done N rounds". The output depends only on ROUNDS.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define ST_BIG (256u << 10)

static __thread unsigned char st_big[ST_BIG];
static pthread_mutex_t st_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t st_cond = PTHREAD_COND_INITIALIZER;
static int st_turn; /* whose turn (0, 1), -1: no turns any more */
static uint64_t st_total;

struct st_job {
	const unsigned char *src;
	size_t lo, hi;
	long round;
	int me;
};

static void *st_work(void *arg)
{
	struct st_job *j = arg;
	uint64_t s = 0;

	/* the two workers take turns by 8 KiB through a condition: each
	 * wait hands the run token over, where snapshots are taken */
	for (size_t i = j->lo; i < j->hi; i++) {
		st_big[i] = (unsigned char)(i * 7 + (size_t)j->round);
		s += j->src[i] + st_big[i];
		if ((i + 1) % 8192 == 0) {
			pthread_mutex_lock(&st_lock);
			while (st_turn != j->me && st_turn != -1)
				pthread_cond_wait(&st_cond, &st_lock);
			st_total += s;
			if (st_turn != -1)
				st_turn = !j->me;
			if (i + 1 == j->hi)
				st_turn = -1; /* done: the other goes on alone */
			pthread_cond_broadcast(&st_cond);
			pthread_mutex_unlock(&st_lock);
			s = 0;
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? strtol(argv[1], NULL, 10) : 40;
	pthread_attr_t at;

	if (pthread_attr_init(&at) || pthread_attr_setstacksize(&at, 1u << 20))
		return 1;
	for (long r = 0; r < rounds; r++) {
		struct st_job j[2];
		pthread_t t[2];

		for (size_t i = 0; i < ST_BIG; i += 64)
			st_big[i] = (unsigned char)(i / 64 + (size_t)r);
		st_total = 0;
		st_turn = 0;
		for (int k = 0; k < 2; k++) {
			j[k] = (struct st_job){st_big, k * (ST_BIG / 2), (k + 1) * (ST_BIG / 2), r, k};
			if (pthread_create(&t[k], &at, st_work, &j[k]))
				return 1;
		}
		for (int k = 0; k < 2; k++)
			pthread_join(t[k], NULL);
		printf("round %ld sum %llu\n", r, (unsigned long long)st_total);
		fflush(stdout);
	}
	printf("done %ld rounds\n", rounds);
	return 0;
}
