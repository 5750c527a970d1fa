// SPDX-License-Identifier: MIT
/*
 * test_lockstat.c - the lock analyzer fed with synthetic event sequences.
 *
 * Each test builds the records the agent would write (KIND_THREAD,
 * KIND_LOCKDEF, KIND_LOCK) in memory with chosen timestamps, feeds them, and
 * checks the numbers a user reads in the report: counts, exact wait and hold
 * times, percentiles, per-thread totals, call-site pairs, lock-order cycles,
 * and that the JSON is valid and carries the same values.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "analyze/lockstat.h"

static void ev_feed(struct lockstat *ls, uint64_t ns, unsigned thread, const struct rec_hdr *h)
{
	struct trace_event ev = {.stream_id = thread, .thread = thread, .ns = ns, .rec = h};

	assert_int_equal(lockstat_feed(ls, &ev), 0);
}

static void thr(struct lockstat *ls, uint64_t ns, unsigned idx, uint32_t tid, const char *name)
{
	struct rec_thread r = {
	    .h = {.word = ev_word(KIND_THREAD, idx, 0, 0), .size = sizeof(r)},
	    .tid = tid,
	    .pid = 100,
	};

	strncpy(r.name, name, sizeof(r.name));
	ev_feed(ls, ns, idx, &r.h);
}

static void def(struct lockstat *ls, uint64_t ns, unsigned thread, uint32_t lock, uint32_t type,
		uint64_t addr, uint64_t init_ip)
{
	struct rec_lockdef r = {
	    .h = {.word = ev_word(KIND_LOCKDEF, thread, lock, 0), .size = sizeof(r)},
	    .addr = addr,
	    .init_ip = init_ip,
	    .type = type,
	    .pid = 100,
	};

	ev_feed(ls, ns, thread, &r.h);
}

static void op(struct lockstat *ls, uint64_t ns, unsigned thread, uint32_t lock, unsigned o,
	       uint64_t ip, uint64_t arg)
{
	struct rec_lock r = {
	    .h = {.word = ev_word(KIND_LOCK, thread, lock, o), .size = sizeof(r)},
	    .ip = ip,
	    .arg = arg,
	};

	ev_feed(ls, ns, thread, &r.h);
}

/* A KIND_LOCK record as written with --stacks: n frames after the fixed part. */
static void op_stk(struct lockstat *ls, uint64_t ns, unsigned thread, uint32_t lock, unsigned o,
		   uint64_t ip, const uint64_t *stk, unsigned n)
{
	uint64_t buf[sizeof(struct rec_lock) / 8 + 16] = {0};
	struct rec_lock *r = (struct rec_lock *)buf;

	assert_true(n <= 16);
	r->h.word = ev_word(KIND_LOCK, thread, lock, o);
	r->h.size = (uint32_t)(sizeof(*r) + 8 * n);
	r->ip = ip;
	memcpy(r->stack, stk, 8 * n);
	ev_feed(ls, ns, thread, &r->h);
}

static struct lockstat *new_ls(void)
{
	struct lockstat *ls = lockstat_new(NULL);

	assert_non_null(ls);
	return ls;
}

/* Two threads on one mutex: one uncontended and one contended hand-off. */
static struct lockstat *mutex_scenario(void)
{
	struct lockstat *ls = new_ls();

	thr(ls, 0, 1, 1001, "main");
	thr(ls, 0, 2, 1002, "worker");
	def(ls, 1, 1, 1, LOCK_TYPE_MUTEX, 0x7000, 0x401000);
	op(ls, 100, 1, 1, OP_ACQUIRE, 0xa1, 0);
	op(ls, 150, 2, 1, OP_CONTEND, 0xb1, 0);
	op(ls, 300, 1, 1, OP_RELEASE, 0xa9, 0);
	op(ls, 310, 2, 1, OP_ACQUIRE, 0xb1, 0);
	op(ls, 400, 2, 1, OP_RELEASE, 0xb9, 0);
	op(ls, 500, 1, 1, OP_ACQUIRE, 0xa2, 0);
	op(ls, 520, 1, 1, OP_RELEASE, 0xa9, 0);
	assert_int_equal(lockstat_finish(ls), 0);
	return ls;
}

static void test_mutex_counts(void **state)
{
	struct lockstat *ls = mutex_scenario();
	const struct lockstat_lock_info *l = lockstat_lock(ls, 1);
	const struct lockstat_thread_info *t1 = lockstat_thread(ls, 1),
					  *t2 = lockstat_thread(ls, 2);
	const struct lockstat_site_pair *p;

	assert_non_null(l);
	assert_int_equal(l->type, LOCK_TYPE_MUTEX);
	assert_int_equal(l->write.acquisitions, 3);
	assert_int_equal(l->write.contended, 1);
	assert_int_equal(l->write.wait.count, 1);
	assert_int_equal(l->write.wait.total_ns, 160);
	assert_int_equal(l->write.wait.max_ns, 160);
	assert_int_equal(l->write.hold.count, 3);
	assert_int_equal(l->write.hold.total_ns, 200 + 90 + 20);
	assert_int_equal(l->write.hold.max_ns, 200);
	assert_int_equal(l->write.hold.p99_ns, 200);
	assert_int_equal(l->owner_changes, 2);
	assert_int_equal(l->threads, 2);
	assert_int_equal(l->read.acquisitions, 0);

	assert_int_equal(t1->tid, 1001);
	assert_string_equal(t1->name, "main");
	assert_int_equal(t1->acquisitions, 2);
	assert_int_equal(t1->contended, 0);
	assert_int_equal(t1->wait_ns, 0);
	assert_int_equal(t1->hold_ns, 220);
	assert_int_equal(t2->acquisitions, 1);
	assert_int_equal(t2->contended, 1);
	assert_int_equal(t2->wait_ns, 160);
	assert_int_equal(t2->hold_ns, 90);

	/* the waiter's CONTEND site, and the site where the holder took it */
	assert_int_equal(lockstat_nsites(ls), 1);
	p = lockstat_site(ls, 0);
	assert_int_equal(p->lock, 1);
	assert_int_equal(p->waiter_ip, 0xb1);
	assert_int_equal(p->holder_ip, 0xa1);
	assert_int_equal(p->count, 1);
	assert_int_equal(p->wait_total_ns, 160);

	assert_int_equal(lockstat_totals(ls)->lock_events, 7);
	assert_int_equal(lockstat_ncycles(ls), 0);
	lockstat_free(ls);
}

/* The holder's ACQUIRE can be stamped after the waiter's CONTEND (it is
 * written when the lock call returns): the hold released before the waiter's
 * acquisition is then blamed. */
static void test_holder_after_contend(void **state)
{
	struct lockstat *ls = new_ls();
	const struct lockstat_site_pair *p;

	def(ls, 0, 1, 1, LOCK_TYPE_MUTEX, 0x7000, 0);
	op(ls, 10, 1, 1, OP_CONTEND, 0xa1, 0);
	op(ls, 11, 2, 1, OP_ACQUIRE, 0xb1, 0);
	op(ls, 50, 2, 1, OP_RELEASE, 0xb2, 0);
	op(ls, 55, 1, 1, OP_ACQUIRE, 0xa1, 0);
	op(ls, 60, 1, 1, OP_RELEASE, 0xa2, 0);
	assert_int_equal(lockstat_finish(ls), 0);
	assert_int_equal(lockstat_nsites(ls), 1);
	p = lockstat_site(ls, 0);
	assert_int_equal(p->waiter_ip, 0xa1);
	assert_int_equal(p->holder_ip, 0xb1);
	assert_int_equal(p->wait_total_ns, 45);
	lockstat_free(ls);
}

/* Hold times 1..200 ns in a scrambled order: nearest-rank p99 is 198. */
static void test_p99_exact(void **state)
{
	struct lockstat *ls = new_ls();
	uint64_t ns = 1000;

	def(ls, 0, 1, 1, LOCK_TYPE_MUTEX, 0x7000, 0);
	for (unsigned i = 0; i < 200; i++) {
		unsigned d = (i * 77) % 200 + 1; /* 77 is prime to 200: a permutation */

		op(ls, ns, 1, 1, OP_ACQUIRE, 0xa1, 0);
		op(ls, ns + d, 1, 1, OP_RELEASE, 0xa2, 0);
		ns += 1000;
	}
	assert_int_equal(lockstat_finish(ls), 0);
	assert_int_equal(lockstat_lock(ls, 1)->write.hold.count, 200);
	assert_int_equal(lockstat_lock(ls, 1)->write.hold.p99_ns, 198);
	assert_int_equal(lockstat_lock(ls, 1)->write.hold.max_ns, 200);
	assert_int_equal(lockstat_lock(ls, 1)->write.hold.total_ns, 200 * 201 / 2);
	lockstat_free(ls);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Beyond 1024 samples the histogram takes over: within 1/256 of the truth. */
static void test_p99_histogram(void **state)
{
	enum { N = 50000 };
	struct lockstat *ls = new_ls();
	uint64_t *d = malloc(N * sizeof(*d)), ns = 0, x = 88172645463325252ull, exact, est;

	assert_non_null(d);
	def(ls, 0, 1, 1, LOCK_TYPE_MUTEX, 0x7000, 0);
	for (unsigned i = 0; i < N; i++) {
		x ^= x << 13; /* xorshift: spread over 6 decades */
		x ^= x >> 7;
		x ^= x << 17;
		d[i] = (x % 1000) * ((uint64_t)1 << (x >> 60) % 20) + 1;
		op(ls, ns, 1, 1, OP_ACQUIRE, 0xa1, 0);
		op(ls, ns + d[i], 1, 1, OP_RELEASE, 0xa2, 0);
		ns += d[i] + 1;
	}
	assert_int_equal(lockstat_finish(ls), 0);
	qsort(d, N, sizeof(*d), cmp_u64);
	exact = d[(N * 99 + 99) / 100 - 1];
	est = lockstat_lock(ls, 1)->write.hold.p99_ns;
	assert_true(est + exact / 256 + 1 >= exact && est <= exact + exact / 256 + 1);
	assert_int_equal(lockstat_lock(ls, 1)->write.hold.max_ns, d[N - 1]);
	free(d);
	lockstat_free(ls);
}

static void test_try_and_timeout(void **state)
{
	struct lockstat *ls = new_ls();
	const struct lockstat_lock_info *l;

	def(ls, 0, 1, 1, LOCK_TYPE_MUTEX, 0x7000, 0);
	op(ls, 10, 1, 1, OP_ACQUIRE, 0xa1, 0);
	op(ls, 20, 2, 1, OP_TRY_FAIL, 0xb1, 0);
	op(ls, 30, 2, 1, OP_CONTEND, 0xb2, 0);
	op(ls, 80, 2, 1, OP_TIMEOUT, 0xb2, ETIMEDOUT);
	op(ls, 90, 1, 1, OP_RELEASE, 0xa2, 0);
	op(ls, 100, 2, 1, OP_ACQUIRE_TRY, 0xb3, 0);
	op(ls, 105, 2, 1, OP_RELEASE, 0xb4, 0);
	assert_int_equal(lockstat_finish(ls), 0);
	l = lockstat_lock(ls, 1);
	assert_int_equal(l->write.acquisitions, 2);
	assert_int_equal(l->write.try_acquisitions, 1);
	assert_int_equal(l->write.try_failures, 1);
	assert_int_equal(l->write.timeouts, 1);
	assert_int_equal(l->write.contended, 0); /* the timed-out wait took nothing */
	assert_int_equal(l->write.wait.total_ns, 50);
	assert_int_equal(l->write.hold.total_ns, 80 + 5);
	assert_int_equal(lockstat_thread(ls, 2)->wait_ns, 50);
	assert_int_equal(lockstat_thread(ls, 2)->timeouts, 1);
	lockstat_free(ls);
}

static void test_recursive_and_open_at_end(void **state)
{
	struct lockstat *ls = new_ls();
	const struct lockstat_lock_info *l;

	def(ls, 0, 1, 1, LOCK_TYPE_MUTEX, 0x7000, 0);
	def(ls, 0, 1, 2, LOCK_TYPE_MUTEX, 0x7040, 0);
	op(ls, 10, 1, 1, OP_ACQUIRE, 0xa1, 0);
	op(ls, 20, 1, 1, OP_ACQUIRE, 0xa2, 0);
	op(ls, 30, 1, 1, OP_RELEASE, 0xa3, 0);
	op(ls, 40, 1, 1, OP_RELEASE, 0xa4, 0);
	op(ls, 50, 1, 2, OP_ACQUIRE, 0xa5, 0);	/* never released */
	op(ls, 60, 2, 2, OP_CONTEND, 0xb1, 0);	/* still waiting at the end */
	op(ls, 150, 1, 1, OP_RELEASE, 0xa4, 0); /* not held: unmatched */
	assert_int_equal(lockstat_finish(ls), 0);
	l = lockstat_lock(ls, 1);
	assert_int_equal(l->write.acquisitions, 2);
	assert_int_equal(l->write.hold.count, 1);
	assert_int_equal(l->write.hold.total_ns, 30);
	assert_int_equal(l->unmatched_releases, 1);
	l = lockstat_lock(ls, 2);
	assert_int_equal(l->held_at_end, 1);
	assert_int_equal(l->write.hold.total_ns, 100);
	assert_int_equal(l->write.waiting_at_end, 1);
	assert_int_equal(l->write.wait.total_ns, 90);
	assert_int_equal(l->write.contended, 0);
	lockstat_free(ls);
}

static void test_rwlock_sides(void **state)
{
	struct lockstat *ls = new_ls();
	const struct lockstat_lock_info *l;
	const struct lockstat_site_pair *p;

	def(ls, 0, 1, 1, LOCK_TYPE_RWLOCK, 0x7000, 0);
	op(ls, 0, 1, 1, OP_ACQUIRE_RD, 0xa1, 0);
	op(ls, 10, 2, 1, OP_ACQUIRE_RD, 0xb1, 0);
	op(ls, 20, 3, 1, OP_CONTEND, 0xc1, 0);
	op(ls, 50, 1, 1, OP_RELEASE, 0xa2, 0);
	op(ls, 60, 2, 1, OP_RELEASE, 0xb2, 0);
	op(ls, 70, 3, 1, OP_ACQUIRE, 0xc1, 0);
	op(ls, 75, 1, 1, OP_CONTEND_RD, 0xa3, 0);
	op(ls, 100, 3, 1, OP_RELEASE, 0xc2, 0);
	op(ls, 110, 1, 1, OP_ACQUIRE_RD, 0xa3, 0);
	op(ls, 111, 1, 1, OP_RELEASE, 0xa4, 0);
	assert_int_equal(lockstat_finish(ls), 0);
	l = lockstat_lock(ls, 1);
	assert_int_equal(l->read.acquisitions, 3);
	assert_int_equal(l->read.hold.count, 3);
	assert_int_equal(l->read.hold.total_ns, 50 + 50 + 1);
	assert_int_equal(l->read.contended, 1);
	assert_int_equal(l->read.wait.total_ns, 35);
	assert_int_equal(l->max_readers, 2);
	assert_int_equal(l->write.acquisitions, 1);
	assert_int_equal(l->write.contended, 1);
	assert_int_equal(l->write.wait.total_ns, 50);
	assert_int_equal(l->write.hold.total_ns, 30);
	assert_int_equal(l->threads, 3);
	/* the writer waited for readers: the holder site is the latest reader's */
	assert_int_equal(lockstat_nsites(ls), 2);
	p = lockstat_site(ls, 0);
	assert_int_equal(p->waiter_ip, 0xc1);
	assert_int_equal(p->holder_ip, 0xb1);
	assert_true(p->holder_read);
	p = lockstat_site(ls, 1);
	assert_int_equal(p->waiter_ip, 0xa3);
	assert_int_equal(p->holder_ip, 0xc1);
	assert_false(p->holder_read);
	lockstat_free(ls);
}

/* cond wait: the mutex is released before and retaken after; the 100 ns in
 * the wait are cond wait time, not hold time. */
static void test_cond_wait_not_hold(void **state)
{
	struct lockstat *ls = new_ls();
	const struct lockstat_lock_info *m, *c;

	def(ls, 0, 1, 1, LOCK_TYPE_MUTEX, 0x7000, 0);
	def(ls, 0, 1, 2, LOCK_TYPE_COND, 0x7100, 0);
	op(ls, 0, 1, 1, OP_ACQUIRE, 0xa1, 0);
	op(ls, 10, 1, 2, OP_COND_WAIT, 0xa2, 1);
	op(ls, 10, 1, 1, OP_RELEASE, 0xa2, 0);
	op(ls, 50, 2, 1, OP_ACQUIRE, 0xb1, 0);
	op(ls, 55, 2, 2, OP_COND_SIGNAL, 0xb2, 0);
	op(ls, 60, 2, 1, OP_RELEASE, 0xb3, 0);
	op(ls, 110, 1, 2, OP_COND_WAKE, 0xa2, 0);
	op(ls, 110, 1, 1, OP_ACQUIRE, 0xa2, 0);
	op(ls, 120, 1, 1, OP_RELEASE, 0xa3, 0);
	/* a timed wait that times out, and a broadcast */
	op(ls, 200, 1, 1, OP_ACQUIRE, 0xa1, 0);
	op(ls, 200, 1, 2, OP_COND_WAIT, 0xa4, 1);
	op(ls, 200, 1, 1, OP_RELEASE, 0xa4, 0);
	op(ls, 250, 2, 2, OP_COND_BROADCAST, 0xb4, 0);
	op(ls, 300, 1, 2, OP_COND_WAKE, 0xa4, ETIMEDOUT);
	op(ls, 300, 1, 1, OP_ACQUIRE, 0xa4, 0);
	op(ls, 305, 1, 1, OP_RELEASE, 0xa5, 0);
	assert_int_equal(lockstat_finish(ls), 0);
	m = lockstat_lock(ls, 1);
	c = lockstat_lock(ls, 2);
	assert_int_equal(m->write.hold.total_ns, 10 + 10 + 10 + 0 + 5);
	assert_int_equal(m->cond_reacquisitions, 2);
	assert_int_equal(c->cond_waits, 2);
	assert_int_equal(c->cond_wakeups, 1);
	assert_int_equal(c->cond_timeouts, 1);
	assert_int_equal(c->cond_signals, 1);
	assert_int_equal(c->cond_broadcasts, 1);
	assert_int_equal(c->cond_wait.total_ns, 100 + 100);
	assert_int_equal(c->cond_wait.max_ns, 100);
	assert_int_equal(lockstat_thread(ls, 1)->cond_wait_ns, 200);
	assert_int_equal(lockstat_thread(ls, 1)->hold_ns, 10 + 10 + 0 + 5);
	assert_int_equal(lockstat_thread(ls, 2)->hold_ns, 10);
	lockstat_free(ls);
}

/* Futexes (GLib, Rust through syscall(SYS_futex)): waits with their
 * times, waiters and wakers, a (wait site, wake site) pair per wake-up,
 * EAGAIN counted as "no sleep" without a pair, no acquisitions or holds. */
static void test_futex(void **state)
{
	struct lockstat *ls = new_ls();
	const struct lockstat_lock_info *f;
	const struct lockstat_site_pair *p;

	(void)state;
	def(ls, 0, 1, 1, LOCK_TYPE_FUTEX, 0x7000, 0xa0);
	op(ls, 10, 1, 1, OP_COND_WAIT, 0xa1, 0);
	op(ls, 20, 2, 1, OP_COND_WAIT, 0xb1, 0);
	op(ls, 25, 2, 1, OP_COND_WAKE, 0xb1, EAGAIN); /* the word changed: no sleep */
	op(ls, 50, 3, 1, OP_COND_SIGNAL, 0xc1, 1);
	op(ls, 60, 1, 1, OP_COND_WAKE, 0xa1, 0);
	op(ls, 70, 2, 1, OP_COND_WAIT, 0xb2, 0);
	op(ls, 80, 3, 1, OP_COND_BROADCAST, 0xc2, 2147483647);
	op(ls, 100, 2, 1, OP_COND_WAKE, 0xb2, 0);
	op(ls, 200, 1, 1, OP_COND_WAIT, 0xa1, 0); /* still waiting at the end */
	op(ls, 300, 3, 1, OP_COND_SIGNAL, 0xc1, 1);
	assert_int_equal(lockstat_finish(ls), 0);
	f = lockstat_lock(ls, 1);
	assert_int_equal(f->type, LOCK_TYPE_FUTEX);
	assert_int_equal(f->cond_waits, 4);
	assert_int_equal(f->cond_wakeups, 2);
	assert_int_equal(f->cond_errors, 1);
	assert_int_equal(f->cond_signals + f->cond_broadcasts, 3);
	assert_int_equal(f->cond_waiting_at_end, 1);
	assert_int_equal(f->futex_waiters, 2);
	assert_int_equal(f->futex_wakers, 1);
	assert_int_equal(f->write.acquisitions, 0);
	assert_int_equal(f->write.hold.count, 0);
	assert_int_equal(f->cond_wait.total_ns, 50 + 5 + 30 + 100);
	assert_int_equal(lockstat_thread(ls, 1)->futex_wait_ns, 50 + 100);
	assert_int_equal(lockstat_thread(ls, 2)->futex_wait_ns, 5 + 30);
	assert_int_equal(lockstat_thread(ls, 1)->cond_wait_ns, 0);
	/* two wake-ups: (0xa1 woken by 0xc1), (0xb2 woken by 0xc2) */
	assert_int_equal(lockstat_nsites(ls), 2);
	for (size_t i = 0; i < 2; i++) {
		p = lockstat_site(ls, i);
		if (p->waiter_ip == 0xa1) {
			assert_int_equal(p->holder_ip, 0xc1);
			assert_int_equal(p->wait_total_ns, 50);
		} else {
			assert_int_equal(p->waiter_ip, 0xb2);
			assert_int_equal(p->holder_ip, 0xc2);
			assert_int_equal(p->holder_thread, 3);
		}
	}
	lockstat_free(ls);
}

static void test_semaphore(void **state)
{
	struct lockstat *ls = new_ls();
	const struct lockstat_lock_info *s;
	struct lockstat_print_opts po;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	def(ls, 0, 1, 1, LOCK_TYPE_SEM, 0x7000, 0);
	op(ls, 0, 1, 1, OP_CONTEND, 0xa1, 0);
	op(ls, 30, 2, 1, OP_SEM_POST, 0xb1, 0);
	op(ls, 40, 1, 1, OP_ACQUIRE, 0xa1, 0);
	op(ls, 50, 1, 1, OP_ACQUIRE_TRY, 0xa2, 0);
	op(ls, 60, 1, 1, OP_TRY_FAIL, 0xa2, 0);
	op(ls, 100, 1, 1, OP_CONTEND, 0xa3, 0);
	op(ls, 150, 1, 1, OP_TIMEOUT, 0xa3, ETIMEDOUT);
	op(ls, 160, 2, 1, OP_SEM_POST, 0xb1, 0);
	assert_int_equal(lockstat_finish(ls), 0);
	s = lockstat_lock(ls, 1);
	assert_int_equal(s->posts, 2);
	assert_int_equal(s->write.acquisitions, 2);
	assert_int_equal(s->write.contended, 1);
	assert_int_equal(s->write.timeouts, 1);
	assert_int_equal(s->write.try_failures, 1);
	assert_int_equal(s->write.wait.total_ns, 40 + 50);
	assert_int_equal(s->write.hold.count, 0);
	assert_int_equal(lockstat_thread(ls, 1)->hold_ns, 0);

	f = open_memstream(&text, &len);
	lockstat_print_opts_init(&po);
	assert_int_equal(lockstat_print_text(ls, f, &po), 0);
	fclose(f);
	assert_non_null(strstr(text, "semaphores (no hold time"));
	assert_non_null(strstr(text, "sem#"));
	free(text);
	lockstat_free(ls);
}

/* A -> B in thread 1, B -> A in thread 2: one cycle with both call sites. */
static void test_inversion(void **state)
{
	struct lockstat *ls = new_ls();
	const struct lockstat_cycle *c;
	const struct lockstat_edge *ab, *ba;

	def(ls, 0, 1, 1, LOCK_TYPE_MUTEX, 0x7000, 0);
	def(ls, 0, 1, 2, LOCK_TYPE_MUTEX, 0x7040, 0);
	op(ls, 10, 1, 1, OP_ACQUIRE, 0xa1, 0);
	op(ls, 20, 1, 2, OP_ACQUIRE, 0xb1, 0);
	op(ls, 30, 1, 2, OP_RELEASE, 0xb9, 0);
	op(ls, 40, 1, 1, OP_RELEASE, 0xa9, 0);
	op(ls, 50, 2, 2, OP_ACQUIRE, 0xb2, 0);
	op(ls, 60, 2, 1, OP_ACQUIRE, 0xa2, 0);
	op(ls, 70, 2, 1, OP_RELEASE, 0xa9, 0);
	op(ls, 80, 2, 2, OP_RELEASE, 0xb9, 0);
	assert_int_equal(lockstat_finish(ls), 0);
	assert_int_equal(lockstat_nedges(ls), 2);
	assert_int_equal(lockstat_ncycles(ls), 1);
	c = lockstat_cycle_at(ls, 0);
	assert_int_equal(c->n, 2);
	assert_int_equal(c->locks[0], 1);
	assert_int_equal(c->locks[1], 2);
	ab = c->edges[0];
	ba = c->edges[1];
	assert_int_equal(ab->from, 1);
	assert_int_equal(ab->to, 2);
	assert_int_equal(ab->thread, 1);
	assert_int_equal(ab->from_ip, 0xa1);
	assert_int_equal(ab->to_ip, 0xb1);
	assert_int_equal(ba->from, 2);
	assert_int_equal(ba->to, 1);
	assert_int_equal(ba->thread, 2);
	assert_int_equal(ba->from_ip, 0xb2);
	assert_int_equal(ba->to_ip, 0xa2);
	assert_false(c->has_read);
	lockstat_free(ls);
}

/* Same order everywhere, and an inversion only through a trylock (which
 * cannot block): no cycle. */
static void test_no_inversion(void **state)
{
	struct lockstat *ls = new_ls();

	for (unsigned t = 1; t <= 3; t++) {
		op(ls, t * 100, t, 1, OP_ACQUIRE, 0xa1, 0);
		op(ls, t * 100 + 1, t, 2, OP_ACQUIRE, 0xb1, 0);
		op(ls, t * 100 + 2, t, 3, OP_ACQUIRE, 0xc1, 0);
		op(ls, t * 100 + 3, t, 3, OP_RELEASE, 0xc9, 0);
		op(ls, t * 100 + 4, t, 2, OP_RELEASE, 0xb9, 0);
		op(ls, t * 100 + 5, t, 1, OP_RELEASE, 0xa9, 0);
	}
	op(ls, 1000, 4, 3, OP_ACQUIRE, 0xc2, 0);
	op(ls, 1001, 4, 1, OP_ACQUIRE_TRY, 0xa3, 0);
	op(ls, 1002, 4, 1, OP_RELEASE, 0xa9, 0);
	op(ls, 1003, 4, 3, OP_RELEASE, 0xc9, 0);
	assert_int_equal(lockstat_finish(ls), 0);
	assert_int_equal(lockstat_nedges(ls), 3); /* 1->2, 1->3, 2->3 */
	assert_int_equal(lockstat_ncycles(ls), 0);
	lockstat_free(ls);
}

/* A -> B, B -> C, C -> A in three threads: one cycle of three. */
static void test_three_cycle(void **state)
{
	struct lockstat *ls = new_ls();
	const struct lockstat_cycle *c;

	for (unsigned t = 0; t < 3; t++) {
		uint32_t a = t + 1, b = (t + 1) % 3 + 1;

		op(ls, t * 10, t + 1, a, OP_ACQUIRE, 0x100 + t, 0);
		op(ls, t * 10 + 1, t + 1, b, OP_ACQUIRE, 0x200 + t, 0);
		op(ls, t * 10 + 2, t + 1, b, OP_RELEASE, 0, 0);
		op(ls, t * 10 + 3, t + 1, a, OP_RELEASE, 0, 0);
	}
	assert_int_equal(lockstat_finish(ls), 0);
	assert_int_equal(lockstat_ncycles(ls), 1);
	c = lockstat_cycle_at(ls, 0);
	assert_int_equal(c->n, 3);
	for (unsigned i = 0; i < 3; i++) {
		assert_int_equal(c->locks[i], i + 1);
		assert_int_equal(c->edges[i]->from, i + 1);
		assert_int_equal(c->edges[i]->to, (i + 1) % 3 + 1);
		assert_int_equal(c->edges[i]->to_ip, 0x200 + i);
	}
	lockstat_free(ls);
}

static void test_malformed(void **state)
{
	struct lockstat *ls = new_ls();
	struct rec_lock r = {.h = {.word = ev_word(KIND_LOCK, 1, 1, OP_ACQUIRE), .size = 24}};
	struct trace_event ev = {.stream_id = 1, .ns = 5, .rec = &r.h};

	assert_int_equal(lockstat_feed(ls, &ev), -EINVAL);
	assert_int_equal(lockstat_finish(ls), 0);
	assert_int_equal(lockstat_totals(ls)->malformed, 1);
	assert_null(lockstat_lock(ls, 1));
	assert_int_equal(lockstat_feed(ls, &ev), -EBUSY);
	lockstat_free(ls);
}

static int fake_symbolize(void *ctx, uint32_t pid, uint64_t addr, char *buf, size_t len)
{
	if (addr == 0x401000)
		snprintf(buf, len, "cache_init+0x1f (cache.c:12)");
	else if (addr == 0xb1)
		snprintf(buf, len, "cache_get+0x12 (cache.c:41)");
	else
		return -ENOENT;
	return 0;
}

static void test_text_output(void **state)
{
	struct lockstat *ls = new_ls();
	struct lockstat_print_opts po;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	def(ls, 0, 1, 1, LOCK_TYPE_MUTEX, 0x7000, 0x401000);
	for (unsigned i = 0; i < 1234; i++) {
		op(ls, i * 2000, 1, 1, OP_ACQUIRE, 0xa1, 0);
		op(ls, i * 2000 + 1000, 1, 1, OP_RELEASE, 0xa2, 0);
	}
	op(ls, 3000000, 1, 1, OP_ACQUIRE, 0xa1, 0);
	op(ls, 3000001, 2, 1, OP_CONTEND, 0xb1, 0);
	op(ls, 4234567, 1, 1, OP_RELEASE, 0xa2, 0);
	op(ls, 4234568, 2, 1, OP_ACQUIRE, 0xb1, 0);
	op(ls, 4234569, 2, 1, OP_RELEASE, 0xb2, 0);
	assert_int_equal(lockstat_finish(ls), 0);
	lockstat_print_opts_init(&po);
	po.header = 1;
	po.trace_dir = "t.trace";
	po.symbolize = fake_symbolize;
	f = open_memstream(&text, &len);
	assert_int_equal(lockstat_print_text(ls, f, &po), 0);
	fclose(f);
	assert_non_null(strstr(text, "spool: 2,473 lock events, 0 thread events, 0 lost, trace in t.trace/\n"));
	assert_non_null(strstr(text, "wait total"));
	/* named by its init site's function and offset, with its index:
	 * locks often share one (lockname.h) */
	assert_non_null(strstr(text, "cache_init+0x1f#1"));
	assert_non_null(strstr(text, "cache_get+0x12 (cache.c:41)"));
	assert_non_null(strstr(text, "1,236"));	   /* acquisitions */
	assert_non_null(strstr(text, "1 (0.1%)")); /* contended */
	assert_non_null(strstr(text, "1.23 ms"));  /* the longest hold and wait */
	assert_non_null(strstr(text, "2.47 ms"));  /* hold total: 1.234 + 1.234567 ms */
	assert_non_null(strstr(text, "potential deadlocks: none"));
	free(text);

	/* without a symbolizer: the lock's type and index */
	po.symbolize = NULL;
	text = NULL;
	f = open_memstream(&text, &len);
	assert_int_equal(lockstat_print_text(ls, f, &po), 0);
	fclose(f);
	assert_non_null(strstr(text, "mutex#1"));
	assert_null(strstr(text, "cache_init"));
	free(text);
	lockstat_free(ls);
}

/* Feed JSON to python's json module; it prints the values we check. */
static char *python_json(const char *json, const char *script)
{
	char cmd[2048], *out = malloc(4096);
	char tmpl[] = "/tmp/test_lockstat_XXXXXX";
	int fd = mkstemp(tmpl);
	size_t n;
	FILE *p;

	assert_true(fd >= 0);
	assert_non_null(out);
	assert_int_equal(write(fd, json, strlen(json)), (ssize_t)strlen(json));
	close(fd);
	snprintf(cmd, sizeof(cmd), "python3 -c '%s' < %s", script, tmpl);
	p = popen(cmd, "r");
	assert_non_null(p);
	n = fread(out, 1, 4095, p);
	out[n] = 0;
	assert_int_equal(pclose(p), 0); /* json.load raises on invalid JSON */
	unlink(tmpl);
	return out;
}

static void test_json_output(void **state)
{
	struct lockstat *ls = mutex_scenario();
	struct lockstat_print_opts po;
	char *json = NULL, *res, want[512];
	size_t len = 0;
	FILE *f;

	lockstat_print_opts_init(&po);
	po.limit = 1; /* JSON is never limited */
	f = open_memstream(&json, &len);
	assert_int_equal(lockstat_print_json(ls, f, &po), 0);
	fclose(f);
	res = python_json(
	    json, "import json,sys\n"
		  "d = json.load(sys.stdin)\n"
		  "l = [x for x in d[\"locks\"] if x[\"index\"] == 1][0]\n"
		  "w = l[\"write\"]\n"
		  "t = {x[\"index\"]: x for x in d[\"threads\"]}\n"
		  "s = l[\"sites\"][0]\n"
		  "print(l[\"type\"], l[\"acquisitions\"], l[\"contended\"], l[\"owner_changes\"],"
		  " w[\"wait\"][\"total_ns\"], w[\"wait\"][\"max_ns\"], w[\"hold\"][\"total_ns\"],"
		  " w[\"hold\"][\"max_ns\"], w[\"hold\"][\"p99_ns\"], l[\"threads\"], l[\"read\"],"
		  " t[2][\"tid\"], t[2][\"wait_ns\"], t[1][\"hold_ns\"],"
		  " s[\"waiter_ip\"], s[\"holder_ip\"], s[\"count\"], len(d[\"deadlocks\"]),"
		  " d[\"trace\"][\"lock_events\"])\n");
	snprintf(want, sizeof(want),
		 "mutex 3 1 2 160 160 310 200 200 2 None 1002 160 220 %d %d 1 0 7\n", 0xb1, 0xa1);
	assert_string_equal(res, want);
	free(res);
	free(json);
	lockstat_free(ls);
}

static void test_json_deadlock_and_escape(void **state)
{
	struct lockstat *ls = new_ls();
	struct lockstat_print_opts po;
	char *json = NULL, *res;
	size_t len = 0;
	FILE *f;

	thr(ls, 0, 1, 7, "we\"ird\\");
	op(ls, 10, 1, 1, OP_ACQUIRE_RD, 0xa1, 0);
	op(ls, 20, 1, 2, OP_ACQUIRE, 0xb1, 0);
	op(ls, 30, 1, 2, OP_RELEASE, 0, 0);
	op(ls, 40, 1, 1, OP_RELEASE, 0, 0);
	op(ls, 50, 1, 2, OP_ACQUIRE, 0xb2, 0);
	op(ls, 60, 1, 1, OP_ACQUIRE_RD, 0xa2, 0);
	assert_int_equal(lockstat_finish(ls), 0);
	lockstat_print_opts_init(&po);
	f = open_memstream(&json, &len);
	assert_int_equal(lockstat_print_json(ls, f, &po), 0);
	fclose(f);
	res = python_json(json, "import json,sys\n"
				"d = json.load(sys.stdin)\n"
				"c = d[\"deadlocks\"][0]\n"
				"e = c[\"edges\"]\n"
				"print(len(d[\"deadlocks\"]), c[\"locks\"], c[\"has_read\"],"
				" e[0][\"from_mode\"], e[0][\"from_ip\"], e[1][\"to_ip\"],"
				" d[\"threads\"][0][\"name\"])\n");
	assert_string_equal(res, "1 [1, 2] True read 161 162 we\"ird\\\n");
	free(res);
	free(json);
	lockstat_free(ls);
}

/* Names every address "fn_<hex>+0x1 (s.c:<n>)" so a test can see which frame
 * was printed where. */
static int stack_symbolize(void *ctx, uint32_t pid, uint64_t addr, char *buf, size_t len)
{
	if (addr < 0x100)
		return -ENOENT;
	snprintf(buf, len, "fn_%llx+0x1 (s.c:%u)", (unsigned long long)addr,
		 (unsigned)(addr & 0xff));
	return 0;
}

static char *print_text(struct lockstat *ls, lockstat_symbolize_fn sym)
{
	struct lockstat_print_opts po;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	lockstat_print_opts_init(&po);
	po.symbolize = sym;
	assert_int_equal(lockstat_print_text(ls, f, &po), 0);
	fclose(f);
	return text;
}

static char *print_json(struct lockstat *ls, lockstat_symbolize_fn sym)
{
	struct lockstat_print_opts po;
	char *json = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&json, &len);

	assert_non_null(f);
	lockstat_print_opts_init(&po);
	po.symbolize = sym;
	assert_int_equal(lockstat_print_json(ls, f, &po), 0);
	fclose(f);
	return json;
}

static void assert_frames(const struct lockstat_frames *fr, const uint64_t *want, unsigned n)
{
	assert_int_equal(fr->n, n);
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(fr->ip[i], want[i]);
}

/*
 * One mutex, recorded with stacks. Thread 1 holds it (taken at 0xa10 from
 * 0xa100 <- 0xa200 <- 0xa300) while thread 2 waits at 0xb10 (from 0xb100 <-
 * 0xb200) for 50 ns; then the same pair again with a longer wait (90 ns) and
 * other callers, then a shorter one (10 ns) with yet other callers. The pair
 * keeps the stacks of the longest wait, innermost first.
 */
static struct lockstat *stack_scenario(void)
{
	static const uint64_t h1[] = {0xa100, 0xa200, 0xa300}, w1[] = {0xb100, 0xb200};
	static const uint64_t h2[] = {0xa400, 0xa500}, w2[] = {0xb400, 0xb500, 0xb600};
	static const uint64_t h3[] = {0xa700}, w3[] = {0xb700};
	struct lockstat *ls = new_ls();

	thr(ls, 0, 1, 1001, "holder");
	thr(ls, 0, 2, 1002, "waiter");
	def(ls, 0, 1, 1, LOCK_TYPE_MUTEX, 0x7000, 0);
	op_stk(ls, 100, 1, 1, OP_ACQUIRE, 0xa10, h1, 3);
	op_stk(ls, 110, 2, 1, OP_CONTEND, 0xb10, w1, 2);
	op_stk(ls, 150, 1, 1, OP_RELEASE, 0xa20, h1, 3);
	op_stk(ls, 160, 2, 1, OP_ACQUIRE, 0xb10, w1, 2);
	op_stk(ls, 170, 2, 1, OP_RELEASE, 0xb20, w1, 2);

	op_stk(ls, 200, 1, 1, OP_ACQUIRE, 0xa10, h2, 2);
	op_stk(ls, 210, 2, 1, OP_CONTEND, 0xb10, w2, 3);
	op_stk(ls, 290, 1, 1, OP_RELEASE, 0xa20, h2, 2);
	op_stk(ls, 300, 2, 1, OP_ACQUIRE, 0xb10, w2, 3);
	op_stk(ls, 310, 2, 1, OP_RELEASE, 0xb20, w2, 3);

	op_stk(ls, 400, 1, 1, OP_ACQUIRE, 0xa10, h3, 1);
	op_stk(ls, 405, 2, 1, OP_CONTEND, 0xb10, w3, 1);
	op_stk(ls, 410, 1, 1, OP_RELEASE, 0xa20, h3, 1);
	op_stk(ls, 415, 2, 1, OP_ACQUIRE, 0xb10, w3, 1);
	op_stk(ls, 420, 2, 1, OP_RELEASE, 0xb20, w3, 1);
	assert_int_equal(lockstat_finish(ls), 0);
	return ls;
}

static void test_site_stacks(void **state)
{
	static const uint64_t h2[] = {0xa400, 0xa500}, w2[] = {0xb400, 0xb500, 0xb600};
	struct lockstat *ls = stack_scenario();
	const struct lockstat_site_pair *p;

	assert_int_equal(lockstat_totals(ls)->stack_events, 15);
	assert_int_equal(lockstat_nsites(ls), 1);
	p = lockstat_site(ls, 0);
	assert_int_equal(p->count, 3);
	assert_int_equal(p->wait_max_ns, 90);
	assert_int_equal(p->sample_wait_ns, 90);
	assert_int_equal(p->waiter_thread, 2);
	assert_int_equal(p->holder_thread, 1);
	assert_frames(&p->waiter_stack, w2, 3);
	assert_frames(&p->holder_stack, h2, 2);
	lockstat_free(ls);
}

static void test_site_stacks_text(void **state)
{
	struct lockstat *ls = stack_scenario();
	char *text = print_text(ls, stack_symbolize);

	/* under the pair's row: the waiter's stack from its call site out,
	 * then the holder's from where it took the lock */
	assert_non_null(strstr(text, "  fn_b10+0x1 (s.c:16)  fn_a10+0x1 (s.c:16)"));
	assert_non_null(strstr(text,
			       "\n"
			       "    waiter thread 2 (tid 1002), its longest wait here (90 ns):\n"
			       "      at fn_b10+0x1 (s.c:16)\n"
			       "      at fn_b400+0x1 (s.c:0)\n"
			       "      at fn_b500+0x1 (s.c:0)\n"
			       "      at fn_b600+0x1 (s.c:0)\n"
			       "    holder thread 1 (tid 1001), where it took the lock:\n"
			       "      at fn_a10+0x1 (s.c:16)\n"
			       "      at fn_a400+0x1 (s.c:0)\n"
			       "      at fn_a500+0x1 (s.c:0)\n"));
	assert_null(strstr(text, "fn_b100")); /* a shorter wait's stack */
	free(text);

	/* without a symbolizer the frames are hex addresses */
	text = print_text(ls, NULL);
	assert_non_null(strstr(text, "      at 0xb10\n      at 0xb400\n      at 0xb500\n"
				     "      at 0xb600\n"));
	free(text);
	lockstat_free(ls);
}

static void test_site_stacks_json(void **state)
{
	struct lockstat *ls = stack_scenario();
	char *json = print_json(ls, stack_symbolize), *res;

	res = python_json(
	    json, "import json,sys\n"
		  "d = json.load(sys.stdin)\n"
		  "s = d[\"locks\"][0][\"sites\"][0]\n"
		  "print(s[\"sample_wait_ns\"], s[\"waiter_thread\"], s[\"holder_thread\"])\n"
		  "print([hex(f[\"ip\"]) for f in s[\"waiter_stack\"]])\n"
		  "print([f[\"site\"] for f in s[\"waiter_stack\"]])\n"
		  "print([hex(f[\"ip\"]) for f in s[\"holder_stack\"]])\n");
	assert_string_equal(res, "90 2 1\n"
				 "['0xb10', '0xb400', '0xb500', '0xb600']\n"
				 "['fn_b10+0x1 (s.c:16)', 'fn_b400+0x1 (s.c:0)', "
				 "'fn_b500+0x1 (s.c:0)', 'fn_b600+0x1 (s.c:0)']\n"
				 "['0xa10', '0xa400', '0xa500']\n");
	free(res);
	free(json);
	/* no symbolizer: frames keep their addresses, names are null */
	json = print_json(ls, NULL);
	res = python_json(json, "import json,sys\n"
				"d = json.load(sys.stdin)\n"
				"s = d[\"locks\"][0][\"sites\"][0]\n"
				"print([f[\"site\"] for f in s[\"holder_stack\"]])\n");
	assert_string_equal(res, "[None, None, None]\n");
	free(res);
	free(json);
	lockstat_free(ls);
}

/* The holder's stack is the one of its ACQUIRE as it was when the waiter
 * began waiting: thread 3 taking the lock with other callers before the
 * waiter gets it does not change it. */
static void test_holder_stack_at_contend(void **state)
{
	static const uint64_t h1[] = {0xa100}, h3[] = {0xc100}, w[] = {0xb100};
	struct lockstat *ls = new_ls();
	const struct lockstat_site_pair *p;

	def(ls, 0, 1, 1, LOCK_TYPE_MUTEX, 0x7000, 0);
	op_stk(ls, 10, 1, 1, OP_ACQUIRE, 0xa10, h1, 1);
	op_stk(ls, 20, 2, 1, OP_CONTEND, 0xb10, w, 1);
	op_stk(ls, 30, 1, 1, OP_RELEASE, 0xa20, h1, 1);
	op_stk(ls, 40, 3, 1, OP_ACQUIRE, 0xc10, h3, 1);
	op_stk(ls, 50, 3, 1, OP_RELEASE, 0xc20, h3, 1);
	op_stk(ls, 60, 2, 1, OP_ACQUIRE, 0xb10, w, 1);
	op_stk(ls, 70, 2, 1, OP_RELEASE, 0xb20, w, 1);
	/* the holder's ACQUIRE stamped after the CONTEND: the last released
	 * hold is blamed, with its stack */
	op_stk(ls, 100, 2, 1, OP_CONTEND, 0xb30, w, 1);
	op_stk(ls, 101, 3, 1, OP_ACQUIRE, 0xc30, h3, 1);
	op_stk(ls, 150, 3, 1, OP_RELEASE, 0xc40, h3, 1);
	op_stk(ls, 155, 2, 1, OP_ACQUIRE, 0xb30, w, 1);
	op_stk(ls, 160, 2, 1, OP_RELEASE, 0xb40, w, 1);
	assert_int_equal(lockstat_finish(ls), 0);
	assert_int_equal(lockstat_nsites(ls), 2);
	p = lockstat_site(ls, 0);
	assert_int_equal(p->holder_ip, 0xa10);
	assert_int_equal(p->holder_thread, 1);
	assert_frames(&p->holder_stack, h1, 1);
	p = lockstat_site(ls, 1);
	assert_int_equal(p->waiter_ip, 0xb30);
	assert_int_equal(p->holder_ip, 0xc30);
	assert_int_equal(p->holder_thread, 3);
	assert_frames(&p->holder_stack, h3, 1);
	lockstat_free(ls);
}

/* A writer waits for two readers: the holder is the latest reader, with
 * its stack. */
static void test_reader_holder_stack(void **state)
{
	static const uint64_t r1[] = {0xa100}, r2[] = {0xb100, 0xb200}, wr[] = {0xc100};
	struct lockstat *ls = new_ls();
	const struct lockstat_site_pair *p;
	char *text;

	def(ls, 0, 1, 1, LOCK_TYPE_RWLOCK, 0x7000, 0);
	op_stk(ls, 0, 1, 1, OP_ACQUIRE_RD, 0xa10, r1, 1);
	op_stk(ls, 10, 2, 1, OP_ACQUIRE_RD, 0xb10, r2, 2);
	op_stk(ls, 20, 3, 1, OP_CONTEND, 0xc10, wr, 1);
	op_stk(ls, 50, 1, 1, OP_RELEASE, 0xa20, r1, 1);
	op_stk(ls, 60, 2, 1, OP_RELEASE, 0xb20, r2, 2);
	op_stk(ls, 70, 3, 1, OP_ACQUIRE, 0xc10, wr, 1);
	op_stk(ls, 80, 3, 1, OP_RELEASE, 0xc20, wr, 1);
	assert_int_equal(lockstat_finish(ls), 0);
	p = lockstat_site(ls, 0);
	assert_true(p->holder_read);
	assert_int_equal(p->holder_thread, 2);
	assert_frames(&p->holder_stack, r2, 2);
	text = print_text(ls, stack_symbolize);
	assert_non_null(strstr(text, "    holder thread 2, where it took the lock [reader]:\n"
				     "      at fn_b10+0x1 (s.c:16)\n"
				     "      at fn_b100+0x1 (s.c:0)\n"
				     "      at fn_b200+0x1 (s.c:0)\n"));
	free(text);
	lockstat_free(ls);
}

/*
 * Lock-order edges keep the stacks of both acquisitions. Thread 1 takes
 * locks 1, 2, 3, lets go of 1 first (not in LIFO order), then takes 4 (in
 * the held-list entry, and buffer, that 1 used), lets go of 4 and takes 5:
 * the edges from 2 and 3 carry the stacks of 2 and 3 every time. Thread 2
 * takes 4 then 2: cycles through 2 and 4.
 */
static void test_edge_stacks(void **state)
{
	static const uint64_t s1[] = {0x1100}, s2[] = {0x2100, 0x2200};
	static const uint64_t s3[] = {0x3100, 0x3200, 0x3300}, s4[] = {0x4100, 0x4200, 0x4300};
	static const uint64_t s5[] = {0x7100}, t4[] = {0x5100}, t2[] = {0x6100};
	struct lockstat *ls = new_ls();
	const struct lockstat_cycle *c;
	char *text, *json, *res;

	thr(ls, 0, 1, 1001, "one");
	op_stk(ls, 10, 1, 1, OP_ACQUIRE, 0x110, s1, 1);
	op_stk(ls, 20, 1, 2, OP_ACQUIRE, 0x210, s2, 2);
	op_stk(ls, 30, 1, 3, OP_ACQUIRE, 0x310, s3, 3);
	op_stk(ls, 40, 1, 1, OP_RELEASE, 0x120, s1, 1);
	op_stk(ls, 50, 1, 4, OP_ACQUIRE, 0x410, s4, 3);
	op_stk(ls, 60, 1, 4, OP_RELEASE, 0x420, s4, 3);
	op_stk(ls, 65, 1, 5, OP_ACQUIRE, 0x710, s5, 1);
	op_stk(ls, 66, 1, 5, OP_RELEASE, 0x720, s5, 1);
	op_stk(ls, 70, 1, 3, OP_RELEASE, 0x320, s3, 3);
	op_stk(ls, 80, 1, 2, OP_RELEASE, 0x220, s2, 2);
	op_stk(ls, 100, 2, 4, OP_ACQUIRE, 0x510, t4, 1);
	op_stk(ls, 110, 2, 2, OP_ACQUIRE, 0x610, t2, 1);
	op_stk(ls, 120, 2, 2, OP_RELEASE, 0x620, t2, 1);
	op_stk(ls, 130, 2, 4, OP_RELEASE, 0x520, t4, 1);
	assert_int_equal(lockstat_finish(ls), 0);
	for (size_t i = 0; i < lockstat_nedges(ls); i++) {
		const struct lockstat_edge *e = lockstat_edge_at(ls, i);

		if (e->from == 2 && e->to == 4) {
			assert_frames(&e->from_stack, s2, 2);
			assert_frames(&e->to_stack, s4, 3);
		} else if (e->from == 3 && (e->to == 4 || e->to == 5)) {
			assert_frames(&e->from_stack, s3, 3);
			assert_frames(&e->to_stack, e->to == 4 ? s4 : s5, e->to == 4 ? 3 : 1);
		} else if (e->from == 1) {
			assert_frames(&e->from_stack, s1, 1);
		}
	}
	/* 2 -> 4 -> 2, reported first, and 2 -> 3 -> 4 -> 2 */
	assert_int_equal(lockstat_ncycles(ls), 2);
	c = lockstat_cycle_at(ls, 0);
	assert_int_equal(c->n, 2);
	assert_int_equal(c->locks[0], 2);
	assert_int_equal(c->locks[1], 4);

	text = print_text(ls, stack_symbolize);
	assert_non_null(
	    strstr(text, "     thread 1 (tid 1001) took lock#4 at "
			 "fn_410+0x1 (s.c:16)\n"
			 "         at fn_410+0x1 (s.c:16)\n"
			 "         at fn_4100+0x1 (s.c:0)\n"
			 "         at fn_4200+0x1 (s.c:0)\n"
			 "         at fn_4300+0x1 (s.c:0)\n"
			 "       while holding lock#2 taken at fn_210+0x1 (s.c:16)\n"
			 "         at fn_210+0x1 (s.c:16)\n"
			 "         at fn_2100+0x1 (s.c:0)\n"
			 "         at fn_2200+0x1 (s.c:0)\n"
			 "     thread 2 took lock#2 at fn_610+0x1 (s.c:16)\n"
			 "         at fn_610+0x1 (s.c:16)\n"
			 "         at fn_6100+0x1 (s.c:0)\n"
			 "       while holding lock#4 taken at fn_510+0x1 (s.c:16)\n"
			 "         at fn_510+0x1 (s.c:16)\n"
			 "         at fn_5100+0x1 (s.c:0)\n"));
	free(text);

	json = print_json(ls, stack_symbolize);
	res = python_json(
	    json, "import json,sys\n"
		  "d = json.load(sys.stdin)\n"
		  "for e in d[\"deadlocks\"][0][\"edges\"]:\n"
		  "  print(e[\"from\"], [hex(f[\"ip\"]) for f in e[\"from_stack\"]],"
		  " [hex(f[\"ip\"]) for f in e[\"to_stack\"]], e[\"to_stack\"][1][\"site\"])\n");
	assert_string_equal(res, "2 ['0x210', '0x2100', '0x2200'] "
				 "['0x410', '0x4100', '0x4200', '0x4300'] fn_4100+0x1 (s.c:0)\n"
				 "4 ['0x510', '0x5100'] ['0x610', '0x6100'] fn_6100+0x1 (s.c:0)\n");
	free(res);
	free(json);
	lockstat_free(ls);
}

/* Without --stacks the report is what it always was: no stack lines, no
 * stack keys (the same scenario with stacks has both). */
static void test_no_stacks_no_change(void **state)
{
	struct lockstat *ls = mutex_scenario();
	char *text = print_text(ls, NULL), *json = print_json(ls, NULL);

	assert_int_equal(lockstat_totals(ls)->stack_events, 0);
	assert_non_null(strstr(text, "top contended call sites"));
	assert_null(strstr(text, "waiter thread"));
	assert_null(strstr(text, "      at "));
	assert_non_null(strstr(json, "\"wait_max_ns\""));
	assert_null(strstr(json, "_stack\""));
	assert_null(strstr(json, "sample_wait_ns"));
	free(text);
	free(json);
	lockstat_free(ls);

	ls = stack_scenario();
	text = print_text(ls, NULL);
	json = print_json(ls, NULL);
	assert_non_null(strstr(text, "waiter thread"));
	assert_non_null(strstr(json, "\"waiter_stack\""));
	free(text);
	free(json);
	lockstat_free(ls);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_mutex_counts),
	    cmocka_unit_test(test_holder_after_contend),
	    cmocka_unit_test(test_p99_exact),
	    cmocka_unit_test(test_p99_histogram),
	    cmocka_unit_test(test_try_and_timeout),
	    cmocka_unit_test(test_recursive_and_open_at_end),
	    cmocka_unit_test(test_rwlock_sides),
	    cmocka_unit_test(test_cond_wait_not_hold),
	    cmocka_unit_test(test_futex),
	    cmocka_unit_test(test_semaphore),
	    cmocka_unit_test(test_inversion),
	    cmocka_unit_test(test_no_inversion),
	    cmocka_unit_test(test_three_cycle),
	    cmocka_unit_test(test_malformed),
	    cmocka_unit_test(test_text_output),
	    cmocka_unit_test(test_json_output),
	    cmocka_unit_test(test_json_deadlock_and_escape),
	    cmocka_unit_test(test_site_stacks),
	    cmocka_unit_test(test_site_stacks_text),
	    cmocka_unit_test(test_site_stacks_json),
	    cmocka_unit_test(test_holder_stack_at_contend),
	    cmocka_unit_test(test_reader_holder_stack),
	    cmocka_unit_test(test_edge_stacks),
	    cmocka_unit_test(test_no_stacks_no_change),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
