// SPDX-License-Identifier: MIT
/*
 * test_snap_body.c - a snapshot body unpacked without its zero pages and
 * written with holes (src/replay/rr_snap_body.c): the bytes come back the
 * same, a page of zeros is a hole of the file (the agent's restore skips
 * it, lseek SEEK_DATA) and costs no memory, composing from such bodies
 * keeps the holes, and a damaged, short or longer frame is refused with
 * -EBADMSG.
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
#include <zstd.h>

#include <cmocka.h>

#include "replay/rr_snap_body.h"
#include "replay/rr_snap_compose.h"
#include "replay/rr_snap_fmt.h"

#define PG RR_SNAP_PAGE
#define NPG 64u /* pages in the test's body */
#define HDR 128 /* a file's header before its frame */

/* A body of NPG pages: page i is zeros unless i % 4 == 1, and a few bytes
 * straddle the boundary of pages 10 and 11. */
static uint8_t *make_raw(void)
{
	uint8_t *raw = calloc(NPG, PG);

	assert_non_null(raw);
	for (unsigned i = 1; i < NPG; i += 4)
		memset(raw + (size_t)i * PG, (int)(0x40 + i), PG);
	memcpy(raw + 11 * PG - 3, "abcdef", 6);
	return raw;
}

/* raw compressed, after HDR bytes of header, into a memfd. */
static int frame_fd(const uint8_t *raw, size_t len, int damage, size_t cut)
{
	size_t cap = ZSTD_compressBound(len);
	uint8_t *z = malloc(HDR + cap);
	ZSTD_CCtx *c = ZSTD_createCCtx();
	size_t n;
	int fd = memfd_create("test-snap-body", 0);

	assert_non_null(z);
	assert_true(fd >= 0);
	memset(z, 0, HDR);
	ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
	n = ZSTD_compress2(c, z + HDR, cap, raw, len);
	assert_false(ZSTD_isError(n));
	if (damage)
		z[HDR + n - 2] ^= 0x5a; /* in the checksum */
	if (cut)
		n -= cut;
	assert_int_equal(write(fd, z, HDR + n), (ssize_t)(HDR + n));
	ZSTD_freeCCtx(c);
	free(z);
	return fd;
}

static void test_unpack_skips_zero_pages(void **state)
{
	uint8_t *raw = make_raw();
	int fd = frame_fd(raw, NPG * PG, 0, 0);
	struct rr_snap_body b;

	(void)state;
	assert_int_equal(rr_snap_body_unpack(fd, HDR, NPG * PG, 1ull << 30, &b), 0);
	assert_int_equal(b.size, NPG * PG);
	assert_memory_equal(b.b, raw, NPG * PG);
	for (unsigned i = 0; i < NPG; i++) {
		int nz = i % 4 == 1 || i == 10 || i == 11;

		assert_int_equal(!!(b.nz[i / 64] & (1ull << (i % 64))), nz);
		assert_int_equal(rr_snap_body_zero(&b, b.b + (size_t)i * PG, PG), !nz);
	}
	/* a piece across a zero page and a page with data */
	assert_false(rr_snap_body_zero(&b, b.b, 2 * PG));
	assert_true(rr_snap_body_zero(&b, b.b + 2 * PG, 2 * PG));
	rr_snap_body_free(&b);
	close(fd);
	free(raw);
}

static void test_write_leaves_holes(void **state)
{
	uint8_t *raw = make_raw();
	int fd = frame_fd(raw, NPG * PG, 0, 0), out = memfd_create("test-out", 0);
	struct rr_snap_body b;
	uint8_t *back = malloc(NPG * PG);
	off_t d;

	(void)state;
	assert_non_null(back);
	assert_int_equal(rr_snap_body_unpack(fd, HDR, NPG * PG, 1ull << 30, &b), 0);
	{
		struct rr_snap_out *o = calloc(1, sizeof(*o));

		assert_non_null(o);
		o->fd = out;
		rr_snap_out_data(o, &b, b.b, b.size);
		assert_int_equal(rr_snap_out_end(o), 0);
		free(o);
	}
	assert_int_equal(lseek(out, 0, SEEK_END), (off_t)(NPG * PG));
	assert_int_equal(pread(out, back, NPG * PG, 0), (ssize_t)(NPG * PG));
	assert_memory_equal(back, raw, NPG * PG);
	/* page 0 is a hole, page 1 data, page 2 a hole again */
	d = lseek(out, 0, SEEK_DATA);
	assert_int_equal(d, (off_t)PG);
	assert_int_equal(lseek(out, d, SEEK_HOLE), (off_t)(2 * PG));
	rr_snap_body_free(&b);
	close(out);
	close(fd);
	free(back);
	free(raw);
}

static void test_refused(void **state)
{
	uint8_t *raw = make_raw();
	struct rr_snap_body b;
	int fd;

	(void)state;
	fd = frame_fd(raw, NPG * PG, 1, 0); /* checksum fails */
	assert_int_equal(rr_snap_body_unpack(fd, HDR, NPG * PG, 1ull << 30, &b), -EBADMSG);
	assert_null(b.b);
	close(fd);
	fd = frame_fd(raw, NPG * PG, 0, 7); /* cut short */
	assert_int_equal(rr_snap_body_unpack(fd, HDR, NPG * PG, 1ull << 30, &b), -EBADMSG);
	close(fd);
	fd = frame_fd(raw, NPG * PG, 0, 0);
	/* longer, shorter than the header says; over the bound */
	assert_int_equal(rr_snap_body_unpack(fd, HDR, NPG * PG - 1, 1ull << 30, &b), -EBADMSG);
	assert_int_equal(rr_snap_body_unpack(fd, HDR, NPG * PG + PG, 1ull << 30, &b), -EBADMSG);
	assert_int_equal(rr_snap_body_unpack(fd, HDR, NPG * PG, PG, &b), -EBADMSG);
	assert_int_equal(rr_snap_body_unpack(fd, HDR, 0, 1ull << 30, &b), -EBADMSG);
	close(fd);
	free(raw);
}

/* A whole body of one REGION (zeros but for one page) and a delta of it
 * changing another page: the composed REGION keeps the zero pages as
 * holes. */
static void test_compose_keeps_holes(void **state)
{
	struct rr_snap_region r = {
	    .start = 0x100000, .end = 0x100000 + 8 * PG, .prot = 3, .has_data = 1};
	struct rr_snap_delta dr = {.start = 0x100000, .npages = 8};
	struct rr_snap_rec rec;
	uint64_t word = 1u << 5;
	size_t wlen = 2 * sizeof(rec) + sizeof(r) + 8 * PG;
	size_t dlen = 3 * sizeof(rec) + sizeof(r) + sizeof(dr) + 8 + PG;
	uint8_t *w = calloc(1, wlen), *dl = calloc(1, dlen), *p;
	struct rr_snap_body bodies[2];
	int fds[2], out = memfd_create("test-out", 0);
	uint64_t size = 0;
	uint8_t pg[PG];

	(void)state;
	/* whole: REGION with data (page 2 holds 0x22), END */
	p = w;
	rec = (struct rr_snap_rec){.kind = RR_SNAP_REGION, .len = sizeof(r) + 8 * PG};
	memcpy(p, &rec, sizeof(rec)), p += sizeof(rec);
	memcpy(p, &r, sizeof(r)), p += sizeof(r);
	memset(p + 2 * PG, 0x22, PG), p += 8 * PG;
	rec = (struct rr_snap_rec){.kind = RR_SNAP_END};
	memcpy(p, &rec, sizeof(rec));
	/* delta: REGION without data, DELTA page 5 = 0x55, END */
	p = dl;
	r.has_data = 0;
	rec = (struct rr_snap_rec){.kind = RR_SNAP_REGION, .len = sizeof(r)};
	memcpy(p, &rec, sizeof(rec)), p += sizeof(rec);
	memcpy(p, &r, sizeof(r)), p += sizeof(r);
	rec = (struct rr_snap_rec){.kind = RR_SNAP_DELTA, .len = sizeof(dr) + 8 + PG};
	memcpy(p, &rec, sizeof(rec)), p += sizeof(rec);
	memcpy(p, &dr, sizeof(dr)), p += sizeof(dr);
	memcpy(p, &word, 8), p += 8;
	memset(p, 0x55, PG), p += PG;
	rec = (struct rr_snap_rec){.kind = RR_SNAP_END};
	memcpy(p, &rec, sizeof(rec));
	fds[0] = frame_fd(dl, dlen, 0, 0);
	fds[1] = frame_fd(w, wlen, 0, 0);
	assert_int_equal(rr_snap_body_unpack(fds[0], HDR, dlen, 1ull << 30, &bodies[0]), 0);
	assert_int_equal(rr_snap_body_unpack(fds[1], HDR, wlen, 1ull << 30, &bodies[1]), 0);
	assert_int_equal(rr_snap_compose_bodies(bodies, 2, out, &size), 0);
	assert_int_equal(size, wlen);
	/* page 2 from the whole body, page 5 from the delta, the rest zeros */
	for (unsigned i = 0; i < 8; i++) {
		uint8_t want = i == 2 ? 0x22 : i == 5 ? 0x55 : 0;

		assert_int_equal(pread(out, pg, PG, (off_t)(sizeof(rec) + sizeof(r) + i * PG)),
				 (ssize_t)PG);
		assert_int_equal(pg[0], want);
		assert_int_equal(pg[PG - 1], want);
	}
	/* holes: the mapping's data is 64 bytes into a file page, so a page
	 * of it lies across two; data only in the file pages that hold the
	 * records, pages 2 and 5 of the mapping, or a piece of a source page
	 * that held data (the first and third, the delta's first and
	 * second), at most 6 of 9; the fifth (pages 3 and 4 of the mapping,
	 * zeros in every body) is a hole */
	{
		unsigned data = 0;

		for (off_t at = 0; at < (off_t)size; at += PG)
			data += lseek(out, at, SEEK_DATA) == at;
		assert_true(data <= 6);
		assert_true(data >= 3);
		assert_true(lseek(out, 4 * PG, SEEK_DATA) > (off_t)(4 * PG));
	}
	rr_snap_body_free(&bodies[0]);
	rr_snap_body_free(&bodies[1]);
	close(fds[0]);
	close(fds[1]);
	close(out);
	free(w);
	free(dl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_unpack_skips_zero_pages),
	    cmocka_unit_test(test_write_leaves_holes),
	    cmocka_unit_test(test_refused),
	    cmocka_unit_test(test_compose_keeps_holes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
