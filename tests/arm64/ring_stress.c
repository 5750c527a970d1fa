// SPDX-License-Identifier: MIT
/*
 * ring_stress.c - the per-thread ring under a weak memory model: producer
 * threads write records exactly as the agent does (src/common/ring_produce.h:
 * fill, then publish head with release order), while the main thread drains
 * every ring with the collector's own code (shm_host_drain_ring: head with
 * acquire order, copy, tail with release order). Small rings (4 KiB) wrap
 * every few dozen records, so a producer constantly reuses space the
 * consumer has just freed.
 *
 * On x86-64 (TSO) a missing barrier goes unseen; on aarch64 a record could
 * be read before its bytes landed, or overwritten while being copied. Every
 * field of every record derives from its sequence number: the check fails
 * on one torn, stale, lost, repeated or reordered record.
 *
 *   ring_stress [PRODUCERS [RECORDS_EACH]]     (default 3 and 200000)
 *
 * Prints "ring_stress: P producers, N records, 0 bad, 0 lost" and exits 0,
 * or 1 with the first bad record. Built for the host and for aarch64
 * (tests/arm64/arm64.mk); make check-arm64 runs both.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/shm_host.h"
#include "common/ring_produce.h"

#define RING_BYTES 4096
#define MAX_PRODUCERS 16

struct producer {
	pthread_t th;
	struct ring_prod p;
	uint32_t index;
	uint32_t count;
};

struct check {
	uint32_t next_seq; /* the seq the next record of this ring must have */
	uint64_t count;
	uint64_t bad;
};

static struct check checks[MAX_PRODUCERS];

/* The ring is full: wait for the consumer (the agent waits a bounded time,
 * here the test must not lose any record). */
static int wait_room(struct ring_prod *p, uint32_t len)
{
	sched_yield();
	return 1;
}

static void *produce(void *arg)
{
	struct producer *pr = arg;

	for (uint32_t seq = 1; seq <= pr->count; seq++) {
		uint32_t nstack = seq % 7, len = sizeof(struct rec_lock) + nstack * 8;
		struct rec_lock *r = ring_prod_reserve(&pr->p, len);

		if (!r)
			return (void *)1;
		r->h.word = ev_word(KIND_LOCK, pr->index, seq * 7u, seq % OP_MAX);
		r->h.tsc = (uint64_t)seq * 1000 + pr->index;
		r->h.seq = seq;
		r->h.size = len;
		r->ip = 0x400000 + seq;
		r->arg = ~(uint64_t)seq;
		for (uint32_t i = 0; i < nstack; i++)
			r->stack[i] = (uint64_t)seq << 8 | i;
		ring_prod_commit(&pr->p, len);
	}
	return NULL;
}

static int check_cb(void *arg, const struct rec_hdr *h)
{
	struct check *c = arg;
	const struct rec_lock *r = (const struct rec_lock *)h;
	uint32_t seq = h->seq, nstack = (h->size - (uint32_t)sizeof(*r)) / 8;
	int bad = 0;

	if (seq != c->next_seq || nstack != seq % 7)
		bad = 1;
	if (ev_kind(h->word) != KIND_LOCK || ev_obj(h->word) != seq * 7u ||
	    ev_op(h->word) != seq % OP_MAX || h->tsc / 1000 != seq || r->ip != 0x400000 + seq ||
	    r->arg != ~(uint64_t)seq)
		bad = 1;
	for (uint32_t i = 0; i < nstack && !bad; i++)
		if (r->stack[i] != ((uint64_t)seq << 8 | i))
			bad = 1;
	if (bad && !c->bad)
		fprintf(stderr, "ring_stress: bad record: seq %u (expected %u), size %u\n", seq,
			c->next_seq, h->size);
	c->bad += bad;
	c->next_seq = seq + 1;
	c->count++;
	return 0;
}

int main(int argc, char **argv)
{
	struct producer pr[MAX_PRODUCERS];
	struct shm_host h;
	uint32_t np = argc > 1 ? (uint32_t)atoi(argv[1]) : 3;
	uint32_t each = argc > 2 ? (uint32_t)atoi(argv[2]) : 200000;
	uint64_t total = 0, bad = 0, lost = 0, want = (uint64_t)np * each;
	int rc, done = 0;

	if (np < 1 || np > MAX_PRODUCERS || each < 1) {
		fprintf(stderr, "usage: ring_stress [PRODUCERS(1-%d) [RECORDS_EACH]]\n",
			MAX_PRODUCERS);
		return 2;
	}
	rc = shm_host_create(&h, RING_BYTES, np, 0);
	if (rc < 0) {
		fprintf(stderr, "ring_stress: shm_host_create: %s\n", strerror(-rc));
		return 2;
	}
	for (uint32_t i = 0; i < np; i++) {
		uint32_t idx = __atomic_fetch_add(&h.ctl->nrings, 1, __ATOMIC_ACQ_REL);
		struct shm_ring *r = shm_host_ring(&h, idx);

		r->thread_index = idx;
		r->state = RING_ACTIVE;
		ring_prod_init(&pr[i].p, r, h.ring_bytes, 0);
		pr[i].p.on_full = wait_room;
		pr[i].index = idx;
		pr[i].count = each;
		checks[idx].next_seq = 1;
	}
	for (uint32_t i = 0; i < np; i++)
		if (pthread_create(&pr[i].th, NULL, produce, &pr[i])) {
			fprintf(stderr, "ring_stress: pthread_create failed\n");
			return 2;
		}
	/* Drain until every record came back (the producers never drop). */
	while (!done) {
		uint64_t n = 0;

		for (uint32_t i = 0; i < np; i++) {
			rc = shm_host_drain_ring(&h, i, check_cb, &checks[i]);
			if (rc < 0) {
				fprintf(stderr, "ring_stress: ring %u refused as corrupt (%d)\n", i,
					rc);
				return 1;
			}
			n += checks[i].count;
		}
		done = n >= want;
		if (!done)
			sched_yield();
	}
	for (uint32_t i = 0; i < np; i++) {
		void *ret;

		pthread_join(pr[i].th, &ret);
		if (ret)
			bad++;
		total += checks[i].count;
		bad += checks[i].bad;
		lost += shm_host_ring(&h, i)->lost;
	}
	printf("ring_stress: %u producers, %llu records, %llu bad, %llu lost\n", np,
	       (unsigned long long)total, (unsigned long long)bad, (unsigned long long)lost);
	shm_host_destroy(&h);
	return bad || lost || total != want;
}
