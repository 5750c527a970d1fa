// SPDX-License-Identifier: MIT
/*
 * test_snap_compose.c - composing a snapshot from a chain of deltas
 * (src/replay/rr_snap_compose.c): each page comes from the newest body of
 * the chain that holds it (a set bit of a delta, or a mapping a body holds
 * whole), mappings without contents and other records of the newest delta
 * are copied as they are, and hostile bodies (a bitmap that promises more
 * pages than the record has, a DELTA for another mapping, a page no body
 * holds) are refused with -EBADMSG, never read out of bounds.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "replay/rr_snap_compose.h"
#include "replay/rr_snap_fmt.h"

#define BASE 0x10000ull
#define NPG 4u

struct body {
	uint8_t *b;
	size_t n, cap;
};

static void put(struct body *o, const void *p, size_t len)
{
	if (o->n + len > o->cap) {
		o->cap = (o->n + len) * 2;
		o->b = realloc(o->b, o->cap);
		assert_non_null(o->b);
	}
	memcpy(o->b + o->n, p, len);
	o->n += len;
}

static void rec(struct body *o, uint32_t kind, uint64_t len)
{
	struct rr_snap_rec r = {.kind = kind, .len = len};

	put(o, &r, sizeof(r));
}

static void page(struct body *o, uint8_t v)
{
	uint8_t pg[RR_SNAP_PAGE];

	memset(pg, v, sizeof(pg));
	put(o, pg, sizeof(pg));
}

/* A whole mapping [BASE, BASE + NPG pages), page i filled with v[i]. */
static void whole_region(struct body *o, const uint8_t *v)
{
	struct rr_snap_region r = {.start = BASE, .end = BASE + NPG * RR_SNAP_PAGE, .prot = 3,
				   .has_data = 1};

	rec(o, RR_SNAP_REGION, sizeof(r) + NPG * RR_SNAP_PAGE);
	put(o, &r, sizeof(r));
	for (unsigned i = 0; i < NPG; i++)
		page(o, v[i]);
}

/* The mapping as a delta: the pages whose bit is in bits, filled with v[i];
 * npages_claim and start lie when asked to. */
static void delta_region(struct body *o, unsigned bits, const uint8_t *v, uint64_t start,
			 uint64_t npages_claim)
{
	struct rr_snap_region r = {.start = BASE, .end = BASE + NPG * RR_SNAP_PAGE, .prot = 3};
	struct rr_snap_delta d = {.start = start, .npages = npages_claim};
	uint64_t word = bits, changed = (uint64_t)__builtin_popcount(bits);

	rec(o, RR_SNAP_REGION, sizeof(r));
	put(o, &r, sizeof(r));
	rec(o, RR_SNAP_DELTA, sizeof(d) + 8 + changed * RR_SNAP_PAGE);
	put(o, &d, sizeof(d));
	put(o, &word, 8);
	for (unsigned i = 0; i < NPG; i++)
		if (bits & (1u << i))
			page(o, v[i]);
}

static void other_and_end(struct body *o)
{
	struct rr_snap_region r = {.start = 0x90000, .end = 0x91000, .prot = 5}; /* no contents */

	rec(o, RR_SNAP_SIGACT, 8);
	put(o, "sigacts!", 8);
	rec(o, RR_SNAP_REGION, sizeof(r));
	put(o, &r, sizeof(r));
	rec(o, RR_SNAP_END, 0);
}

static int memfd_of(const struct body *o)
{
	int fd = memfd_create("test-snap", 0);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, o->b, o->n), (ssize_t)o->n);
	return fd;
}

/* Compose bodies[0 .. n) (newest first); the composed pages' first bytes
 * into got (when 0). */
static int compose(struct body *bodies, uint32_t n, uint8_t *got)
{
	int fds[8], out = memfd_create("test-out", 0);
	uint64_t sizes[8], size = 0;
	int rc;

	assert_true(out >= 0);
	for (uint32_t k = 0; k < n; k++) {
		fds[k] = memfd_of(&bodies[k]);
		sizes[k] = bodies[k].n;
	}
	rc = rr_snap_compose_chain(fds, sizes, n, out, &size);
	if (rc == 0) {
		uint8_t *m = mmap(NULL, size, PROT_READ, MAP_PRIVATE, out, 0);
		struct rr_snap_rec r;
		struct rr_snap_region reg;

		assert_true(m != MAP_FAILED);
		/* SIGACT, copied */
		memcpy(&r, m, sizeof(r));
		assert_int_equal(r.kind, RR_SNAP_SIGACT);
		assert_memory_equal(m + sizeof(r), "sigacts!", 8);
		/* the REGION, now whole */
		memcpy(&r, m + sizeof(r) + 8, sizeof(r));
		assert_int_equal(r.kind, RR_SNAP_REGION);
		assert_int_equal(r.len, sizeof(reg) + NPG * RR_SNAP_PAGE);
		memcpy(&reg, m + 2 * sizeof(r) + 8, sizeof(reg));
		assert_int_equal(reg.has_data, 1);
		for (unsigned i = 0; i < NPG; i++) {
			const uint8_t *pg = m + 2 * sizeof(r) + 8 + sizeof(reg) + i * RR_SNAP_PAGE;

			got[i] = pg[0];
			assert_int_equal(pg[RR_SNAP_PAGE - 1], pg[0]);
		}
		munmap(m, size);
	}
	for (uint32_t k = 0; k < n; k++) {
		close(fds[k]);
		free(bodies[k].b);
	}
	close(out);
	return rc;
}

/* The same record order in every body: SIGACT, the mapping, another
 * mapping without contents, END. */
static void body_whole(struct body *o, const uint8_t *v)
{
	rec(o, RR_SNAP_SIGACT, 8);
	put(o, "sigacts!", 8);
	whole_region(o, v);
	{
		struct rr_snap_region r = {.start = 0x90000, .end = 0x91000, .prot = 5};

		rec(o, RR_SNAP_REGION, sizeof(r));
		put(o, &r, sizeof(r));
	}
	rec(o, RR_SNAP_END, 0);
}

static void body_delta(struct body *o, unsigned bits, const uint8_t *v)
{
	rec(o, RR_SNAP_SIGACT, 8);
	put(o, "sigacts!", 8);
	delta_region(o, bits, v, BASE, NPG);
	{
		struct rr_snap_region r = {.start = 0x90000, .end = 0x91000, .prot = 5};

		rec(o, RR_SNAP_REGION, sizeof(r));
		put(o, &r, sizeof(r));
	}
	rec(o, RR_SNAP_END, 0);
}

static void test_newest_page_wins(void **state)
{
	const uint8_t w[NPG] = {0xa0, 0xa1, 0xa2, 0xa3};
	const uint8_t d1[NPG] = {0xb0, 0xb1, 0, 0}; /* pages 0, 1 */
	const uint8_t d2[NPG] = {0, 0xc1, 0, 0xc3}; /* pages 1, 3 */
	const uint8_t d3[NPG] = {0xd0, 0, 0, 0};    /* page 0 */
	const uint8_t want[NPG] = {0xd0, 0xc1, 0xa2, 0xc3};
	struct body b[4] = {{0}};
	uint8_t got[NPG] = {0};

	(void)state;
	body_delta(&b[0], 0x1, d3);
	body_delta(&b[1], 0xa, d2);
	body_delta(&b[2], 0x3, d1);
	body_whole(&b[3], w);
	assert_int_equal(compose(b, 4, got), 0);
	assert_memory_equal(got, want, NPG);
}

static void test_one_delta(void **state)
{
	const uint8_t w[NPG] = {1, 2, 3, 4}, d[NPG] = {0, 0, 9, 0}, want[NPG] = {1, 2, 9, 4};
	struct body b[2] = {{0}};
	uint8_t got[NPG] = {0};

	(void)state;
	body_delta(&b[0], 0x4, d);
	body_whole(&b[1], w);
	assert_int_equal(compose(b, 2, got), 0);
	assert_memory_equal(got, want, NPG);
}

/* A page whose bit is clear all the way down to a whole body that does
 * not hold its mapping: a damaged chain. */
static void test_page_nowhere(void **state)
{
	const uint8_t d[NPG] = {7, 0, 0, 0};
	struct body b[2] = {{0}};
	uint8_t got[NPG];

	(void)state;
	body_delta(&b[0], 0x1, d);
	rec(&b[1], RR_SNAP_SIGACT, 8); /* the base holds no mapping */
	put(&b[1], "sigacts!", 8);
	other_and_end(&b[1]);
	assert_int_equal(compose(b, 2, got), -EBADMSG);
}

/* A bitmap with more set bits than the record has pages. */
static void test_bits_lie(void **state)
{
	const uint8_t w[NPG] = {1, 2, 3, 4}, d[NPG] = {5, 0, 0, 0};
	struct body b[2] = {{0}};
	uint8_t got[NPG];
	struct rr_snap_region r = {.start = BASE, .end = BASE + NPG * RR_SNAP_PAGE, .prot = 3};
	struct rr_snap_delta dd = {.start = BASE, .npages = NPG};
	uint64_t word = 0xf; /* 4 pages claimed, 1 given */

	(void)state;
	(void)d;
	rec(&b[0], RR_SNAP_SIGACT, 8);
	put(&b[0], "sigacts!", 8);
	rec(&b[0], RR_SNAP_REGION, sizeof(r));
	put(&b[0], &r, sizeof(r));
	rec(&b[0], RR_SNAP_DELTA, sizeof(dd) + 8 + RR_SNAP_PAGE);
	put(&b[0], &dd, sizeof(dd));
	put(&b[0], &word, 8);
	page(&b[0], 5);
	rec(&b[0], RR_SNAP_END, 0);
	body_whole(&b[1], w);
	assert_int_equal(compose(b, 2, got), -EBADMSG);
}

/* A DELTA whose start or page count is not its mapping's, in the newest
 * body and in an older one. */
static void test_delta_other_mapping(void **state)
{
	const uint8_t w[NPG] = {1, 2, 3, 4}, d[NPG] = {5, 0, 0, 0};
	struct body b[3] = {{0}};
	uint8_t got[NPG];

	(void)state;
	rec(&b[0], RR_SNAP_SIGACT, 8);
	put(&b[0], "sigacts!", 8);
	delta_region(&b[0], 0x1, d, BASE + RR_SNAP_PAGE, NPG);
	rec(&b[0], RR_SNAP_END, 0);
	body_whole(&b[1], w);
	assert_int_equal(compose(b, 2, got), -EBADMSG);

	memset(b, 0, sizeof(b));
	body_delta(&b[0], 0x1, d);
	rec(&b[1], RR_SNAP_SIGACT, 8);
	put(&b[1], "sigacts!", 8);
	delta_region(&b[1], 0x2, d, BASE, NPG + 100);
	rec(&b[1], RR_SNAP_END, 0);
	body_whole(&b[2], w);
	assert_int_equal(compose(b, 3, got), -EBADMSG);
}

/* A body cut short, and a chain of one. */
static void test_cut_short(void **state)
{
	const uint8_t w[NPG] = {1, 2, 3, 4}, d[NPG] = {5, 0, 0, 0};
	struct body b[2] = {{0}};
	uint8_t got[NPG];

	(void)state;
	body_delta(&b[0], 0x1, d);
	b[0].n -= 20; /* into the END record and the other mapping */
	body_whole(&b[1], w);
	assert_int_equal(compose(b, 2, got), -EBADMSG);

	/* a whole body alone: itself */
	memset(b, 0, sizeof(b));
	body_whole(&b[0], w);
	assert_int_equal(compose(b, 1, got), 0);
	assert_memory_equal(got, w, NPG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_newest_page_wins),
	    cmocka_unit_test(test_one_delta),
	    cmocka_unit_test(test_page_nowhere),
	    cmocka_unit_test(test_bits_lie),
	    cmocka_unit_test(test_delta_other_mapping),
	    cmocka_unit_test(test_cut_short),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
