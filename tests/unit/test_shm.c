// SPDX-License-Identifier: MIT
/*
 * test_shm.c - the shared-memory rings end to end inside one process: the
 * test writes records exactly as the agent does (src/common/ring_produce.h)
 * and drains them with shm_host_drain_ring, checking that every record
 * comes back intact and in order across wrap-arounds, that a full ring
 * drops and counts instead of overwriting, that a corrupt ring is refused,
 * that what the target may rewrite (the ring allocator, a ring's tail) does
 * not mislead the consumer and the region cannot be shrunk, and that a
 * producer crossing the watermark wakes shm_host_wait.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "collect/shm_host.h"
#include "common/ring_produce.h"

/* A producer the way the agent's threads are: one ring, one seq counter. */
struct producer {
	struct ring_prod p;
	uint32_t seq;
	uint32_t index;
};

static void producer_open(struct shm_host *h, struct producer *pr)
{
	uint32_t idx = __atomic_fetch_add(&h->ctl->nrings, 1, __ATOMIC_ACQ_REL);
	struct shm_ring *r = shm_host_ring(h, idx);

	r->thread_index = idx;
	r->state = RING_ACTIVE;
	ring_prod_init(&pr->p, r, h->ring_bytes, h->watermark);
	pr->seq = 0;
	pr->index = idx;
}

/* A lock record with nstack frames; every field derives from seq so the
 * consumer can check it. Returns 1 if written, 0 if dropped. */
static int produce(struct producer *pr, uint32_t nstack)
{
	uint32_t len = sizeof(struct rec_lock) + nstack * 8, i;
	uint32_t seq = ++pr->seq;
	struct rec_lock *r = ring_prod_reserve(&pr->p, len);

	if (!r)
		return 0;
	r->h.word = ev_word(KIND_LOCK, pr->index, seq * 7u, seq % OP_MAX);
	r->h.tsc = (uint64_t)seq * 1000;
	r->h.seq = seq;
	r->h.size = len;
	r->ip = 0x400000 + seq;
	r->arg = ~(uint64_t)seq;
	for (i = 0; i < nstack; i++)
		r->stack[i] = (uint64_t)seq << 8 | i;
	ring_prod_commit(&pr->p, len);
	return 1;
}

struct check {
	uint32_t next_seq; /* expected seq of the next record */
	uint32_t count;
	uint32_t stop_at;  /* cb returns 1 at this seq (0 = never) */
	int bad;
};

static int check_cb(void *arg, const struct rec_hdr *h)
{
	struct check *c = arg;
	const struct rec_lock *r = (const struct rec_lock *)h;
	uint32_t seq = h->seq, nstack, i;

	if (c->stop_at && seq == c->stop_at)
		return 1;
	if (seq < c->next_seq)
		c->bad++;
	c->next_seq = seq + 1;
	nstack = (h->size - (uint32_t)sizeof(*r)) / 8;
	if (ev_kind(h->word) != KIND_LOCK || ev_obj(h->word) != seq * 7u ||
	    ev_op(h->word) != seq % OP_MAX || h->tsc != (uint64_t)seq * 1000 ||
	    r->ip != 0x400000 + seq || r->arg != ~(uint64_t)seq)
		c->bad++;
	for (i = 0; i < nstack; i++)
		if (r->stack[i] != ((uint64_t)seq << 8 | i))
			c->bad++;
	c->count++;
	return 0;
}

static void test_create(void **state)
{
	struct shm_host h;
	struct shm_ctl *c;

	assert_int_equal(shm_host_create(&h, 3000, 4, 0), -EINVAL);
	assert_int_equal(shm_host_create(&h, 1024, 4, 0), -EINVAL);
	assert_int_equal(shm_host_create(&h, 4096, 0, 0), -EINVAL);
	assert_int_equal(shm_host_create_ext(&h, 4096, 1, SHM_MAX_PROCS + 1, 0, NULL), -EINVAL);

	/* --max-procs: the slots in use, and the rings after their text areas */
	assert_int_equal(shm_host_create_ext(&h, 4096, 2, 3, 0, NULL), 0);
	assert_int_equal(h.max_procs, 3);
	assert_int_equal(h.ctl->max_procs, 3);
	assert_int_equal(h.ctl->rings_offset, shm_rings_offset(3));
	assert_int_equal(h.size, shm_total_size(4096, 3, 2));
	assert_true(shm_rings_offset(3) >= shm_proc_text_offset(2) + SHM_PROC_TEXT_BYTES);
	assert_true(shm_head_map_size(3) >= SHM_CTL_SIZE + 3 * sizeof(struct shm_proc));
	shm_host_destroy(&h);

	assert_int_equal(shm_host_create(&h, 8192, 3, 5), 0);
	c = h.ctl;
	assert_true(h.fd >= 0);
	assert_int_equal(c->magic, SHM_MAGIC);
	assert_int_equal(c->version, SHM_VERSION);
	assert_int_equal(c->total_size, shm_total_size(8192, SHM_DEFAULT_MAX_PROCS, 3));
	assert_int_equal(h.size, c->total_size);
	assert_int_equal(c->ring_bytes, 8192);
	assert_int_equal(c->max_rings, 3);
	assert_int_equal(c->stack_depth, 5);
	assert_int_equal(c->nlocks, 1);
	assert_int_equal(c->host_pid, getpid());
	assert_true(c->watermark > 0 && c->watermark < c->ring_bytes);
	/* The last ring ends exactly at the end of the mapping. */
	assert_true(shm_ring_offset(8192, SHM_DEFAULT_MAX_PROCS, 2) + shm_ring_map_size(8192) <=
		    h.size);
	assert_null(shm_host_ring(&h, 3));
	assert_int_equal(shm_host_nrings(&h), 0);
	/* The target cannot shrink the region under spool's mappings. */
	assert_int_equal(ftruncate(h.fd, 4096), -1);
	assert_int_equal(errno, EPERM);
	/* Nor can it make spool forget a ring by rewriting the allocator. */
	c->nrings = 2;
	assert_int_equal(shm_host_nrings(&h), 2);
	c->nrings = 0;
	assert_int_equal(shm_host_nrings(&h), 2);
	c->nrings = 1000;
	assert_int_equal(shm_host_nrings(&h), 3);
	shm_host_destroy(&h);
	assert_int_equal(shm_host_create(&h, 8192, 3, 5), 0);
	/* No ring handed out yet: nothing to drain. */
	assert_int_equal(shm_host_drain_ring(&h, 0, check_cb, NULL), -EINVAL);
	shm_host_destroy(&h);
}

/* Many small drains over a 4 KiB ring: every record crosses the wrap point
 * sooner or later, with pads of every possible length (8 and 16 bytes
 * implicit, 24 and up as KIND_PAD). */
static void test_wrap_in_order(void **state)
{
	struct shm_host h;
	struct producer pr;
	struct check c = { .next_seq = 1 };
	uint32_t i, written = 0;
	int n;

	assert_int_equal(shm_host_create(&h, 4096, 2, 0), 0);
	producer_open(&h, &pr);
	for (i = 0; i < 20000; i++) {
		written += produce(&pr, i % 7);
		if (i % 13 == 12) {
			n = shm_host_drain_ring(&h, 0, check_cb, &c);
			assert_true(n >= 0);
		}
	}
	n = shm_host_drain_ring(&h, 0, check_cb, &c);
	assert_true(n >= 0);
	assert_int_equal(written, 20000);
	assert_int_equal(c.count, 20000);
	assert_int_equal(c.bad, 0);
	assert_int_equal(pr.p.ring->lost, 0);
	assert_int_equal(pr.p.ring->tail, pr.p.ring->head);
	/* The head went round the ring many times. */
	assert_true(pr.p.ring->head > 20 * 4096);
	shm_host_destroy(&h);
}

static void test_full_ring_counts_lost(void **state)
{
	struct shm_host h;
	struct producer pr;
	struct check c = { .next_seq = 1 };
	uint32_t i, written = 0, dropped = 0;

	assert_int_equal(shm_host_create(&h, 4096, 1, 0), 0);
	producer_open(&h, &pr);
	for (i = 0; i < 500; i++) {
		if (produce(&pr, 0))
			written++;
		else
			dropped++;
	}
	assert_true(written > 0 && dropped > 0);
	assert_int_equal(pr.p.ring->lost, dropped);
	/* Never overwritten: what was written first is what comes back. */
	assert_int_equal(shm_host_drain_ring(&h, 0, check_cb, &c), (int)written);
	assert_int_equal(c.count, written);
	assert_int_equal(c.bad, 0);
	/* Space is free again: the next event goes in, after a seq gap. */
	c.next_seq = pr.seq + 1;
	assert_int_equal(produce(&pr, 0), 1);
	assert_int_equal(shm_host_drain_ring(&h, 0, check_cb, &c), 1);
	assert_int_equal(c.bad, 0);
	shm_host_destroy(&h);
}

/* The agent's on_full hook: when the ring is full the producer may make
 * room (the agent waits for the collector); here the hook drains the ring
 * itself, as the collector would. Nothing is lost, order is kept. */
static struct shm_host *full_h;
static struct check *full_c;
static unsigned full_calls;

static int drain_on_full(struct ring_prod *p, uint32_t len)
{
	(void)p;
	(void)len;
	full_calls++;
	return shm_host_drain_ring(full_h, 0, check_cb, full_c) > 0;
}

static void test_on_full_makes_room(void **state)
{
	struct shm_host h;
	struct producer pr;
	struct check c = { .next_seq = 1 };

	assert_int_equal(shm_host_create(&h, 4096, 1, 0), 0);
	producer_open(&h, &pr);
	full_h = &h;
	full_c = &c;
	full_calls = 0;
	pr.p.on_full = drain_on_full;
	for (unsigned i = 0; i < 500; i++)
		assert_int_equal(produce(&pr, i % 3), 1);
	assert_true(full_calls > 0);
	assert_int_equal(pr.p.ring->lost, 0);
	assert_true(shm_host_drain_ring(&h, 0, check_cb, &c) >= 0);
	assert_int_equal(c.count, 500);
	assert_int_equal(c.bad, 0);
	shm_host_destroy(&h);
}

static void test_callback_stop(void **state)
{
	struct shm_host h;
	struct producer pr;
	struct check c = { .next_seq = 1, .stop_at = 4 };
	int i;

	assert_int_equal(shm_host_create(&h, 4096, 1, 0), 0);
	producer_open(&h, &pr);
	for (i = 0; i < 6; i++)
		assert_int_equal(produce(&pr, 1), 1);
	assert_int_equal(shm_host_drain_ring(&h, 0, check_cb, &c), 1);
	assert_int_equal(c.count, 3);
	/* Record 4 was not consumed: the next drain starts with it. */
	c.stop_at = 0;
	assert_int_equal(shm_host_drain_ring(&h, 0, check_cb, &c), 3);
	assert_int_equal(c.count, 6);
	assert_int_equal(c.bad, 0);
	shm_host_destroy(&h);
}

/* Publish one raw header with the given size at the producer's position. */
static void publish_raw(struct producer *pr, uint32_t size, uint64_t advance)
{
	struct rec_hdr *r = (struct rec_hdr *)(pr->p.data + (pr->p.head & (pr->p.size - 1)));

	r->word = ev_word(KIND_LOCK, 0, 1, OP_ACQUIRE);
	r->seq = ++pr->seq;
	r->size = size;
	pr->p.head += advance;
	__atomic_store_n(&pr->p.ring->head, pr->p.head, __ATOMIC_RELEASE);
}

static void test_corrupt_ring(void **state)
{
	static const uint32_t bad_sizes[] = { 0, 12, 44, 8192 };
	struct shm_host h;
	struct producer pr;
	struct check c = { .next_seq = 1 };
	unsigned i;

	for (i = 0; i < sizeof(bad_sizes) / sizeof(bad_sizes[0]); i++) {
		assert_int_equal(shm_host_create(&h, 4096, 2, 0), 0);
		producer_open(&h, &pr);
		assert_int_equal(produce(&pr, 0), 1);
		publish_raw(&pr, bad_sizes[i], 48);
		c = (struct check){ .next_seq = 1 };
		assert_int_equal(shm_host_drain_ring(&h, 0, check_cb, &c), -EPROTO);
		/* The good record before it was handed out. */
		assert_int_equal(c.count, 1);
		/* Skipped from then on, even if the producer writes good data. */
		assert_int_equal(shm_host_drain_ring(&h, 0, check_cb, &c), -EPROTO);
		/* Other rings are not affected. */
		{
			struct producer other;
			struct check c2 = { .next_seq = 1 };

			producer_open(&h, &other);
			assert_int_equal(produce(&other, 2), 1);
			assert_int_equal(shm_host_drain_ring(&h, 1, check_cb, &c2), 1);
			assert_int_equal(c2.bad, 0);
		}
		shm_host_destroy(&h);
	}

	/* A head more than a ring ahead of the tail. */
	assert_int_equal(shm_host_create(&h, 4096, 1, 0), 0);
	producer_open(&h, &pr);
	__atomic_store_n(&pr.p.ring->head, 2 * 4096, __ATOMIC_RELEASE);
	assert_int_equal(shm_host_drain_ring(&h, 0, check_cb, &c), -EPROTO);
	shm_host_destroy(&h);

	/* A tail the target rewrote is not believed: spool keeps its own. */
	assert_int_equal(shm_host_create(&h, 4096, 1, 0), 0);
	producer_open(&h, &pr);
	assert_int_equal(produce(&pr, 0), 1);
	__atomic_store_n(&pr.p.ring->tail, 1u << 30, __ATOMIC_RELEASE);
	c = (struct check){.next_seq = pr.seq};
	assert_int_equal(shm_host_drain_ring(&h, 0, check_cb, &c), 1);
	assert_int_equal(c.bad, 0);
	/* A head behind the tail. */
	__atomic_store_n(&pr.p.ring->head, 8, __ATOMIC_RELEASE);
	assert_int_equal(shm_host_drain_ring(&h, 0, check_cb, &c), -EPROTO);
	shm_host_destroy(&h);
}

/* ---- watermark wake-up ---- */

struct waker {
	struct shm_host *h;
	int woke; /* commits that asked for a wake-up */
};

/* Produce, once the collector sleeps, until the watermark is crossed and
 * wake it the way the agent does (agent_wake). */
static void *waker_main(void *arg)
{
	struct waker *w = arg;
	struct shm_ctl *c = w->h->ctl;
	struct producer pr;

	producer_open(w->h, &pr);
	while (!__atomic_load_n(&c->collector_sleeping, __ATOMIC_SEQ_CST))
		sched_yield();
	for (;;) {
		uint32_t len = sizeof(struct rec_lock);
		struct rec_lock *r = ring_prod_reserve(&pr.p, len);

		assert_non_null(r);
		r->h.tsc = 0;
		r->ip = 0;
		r->arg = 0;
		r->h.word = ev_word(KIND_LOCK, pr.index, 1, OP_ACQUIRE);
		r->h.seq = ++pr.seq;
		r->h.size = len;
		if (ring_prod_commit(&pr.p, len)) {
			w->woke++;
			__atomic_fetch_add(&c->wake_seq, 1, __ATOMIC_SEQ_CST);
			if (__atomic_load_n(&c->collector_sleeping, __ATOMIC_SEQ_CST))
				syscall(SYS_futex, &c->wake_seq, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
			break;
		}
	}
	return NULL;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void test_wait_woken_by_watermark(void **state)
{
	struct shm_host h;
	struct waker w = { 0 };
	pthread_t th;
	struct shm_ring *r;
	double t0;

	assert_int_equal(shm_host_create(&h, 8192, 1, 0), 0);
	/* Nothing produced: the wait times out and says so with 0. */
	assert_int_equal(shm_host_wait(&h, 10), 0);

	w.h = &h;
	assert_int_equal(pthread_create(&th, NULL, waker_main, &w), 0);
	t0 = now_s();
	assert_int_equal(shm_host_wait(&h, 60000), 0);
	/* Returned because of the producer, long before its timeout. */
	assert_true(now_s() - t0 < 30);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(w.woke, 1);
	r = shm_host_ring(&h, 0);
	assert_true(r->head - r->tail >= h.watermark);
	assert_int_equal(h.ctl->collector_sleeping, 0);
	/* Data above the watermark already: no sleep at all. */
	t0 = now_s();
	assert_int_equal(shm_host_wait(&h, 60000), 0);
	assert_true(now_s() - t0 < 30);
	shm_host_destroy(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create),
		cmocka_unit_test(test_wrap_in_order),
		cmocka_unit_test(test_full_ring_counts_lost),
		cmocka_unit_test(test_on_full_makes_room),
		cmocka_unit_test(test_callback_stop),
		cmocka_unit_test(test_corrupt_ring),
		cmocka_unit_test(test_wait_woken_by_watermark),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
