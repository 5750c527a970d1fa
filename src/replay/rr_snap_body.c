// SPDX-License-Identifier: MIT
/*
 * rr_snap_body.c - a snapshot's body unpacked into memory without its zero
 * pages, and the sparse writer that hands a body to the agent (spool replay
 * --goto, doc/record.md "Replay from a snapshot").
 *
 * Most of a snapshot is zeros: every thread's stack mapping is held whole
 * (8 MiB each, a few KiB of it used), so the body of a 3 MB program is some
 * 55 MB, 50 of them zeros. Unpacked into a memfd, every zero was written
 * (a page allocated and copied per 4 KiB), read again by the composing of
 * a delta, and read again by the agent into the program's memory: the
 * restore of a 3 MB program took 37 to 120 ms, nearly all of it those
 * zeros. Here the frame is decompressed through a small buffer into an
 * anonymous mapping, copying only the pages that hold a byte other than
 * zero (a bit per page says which); the body the agent reads is written
 * with holes where it has zeros (a memfd holds no page for a hole and reads
 * it as zeros), and the agent copies only the data between the holes
 * (agent_snap_restore.c, lseek SEEK_DATA / SEEK_HOLE) into fresh anonymous
 * memory, which is zeros already.
 *
 * Bodies are untrusted: the unpacked size is bounded by the header's
 * raw_bytes, itself bounded by the caller's raw_max.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zstd.h>

#include "rr_snap_body.h"
#include "rr_snap_fmt.h"

static int is_zero(const uint8_t *p, uint64_t len)
{
	/* (memcmp of the bytes against the next ones: memory speed) */
	return !len || (p[0] == 0 && !memcmp(p, p + 1, len - 1));
}

/* len bytes of src to offset at of the body, only where a page of the
 * body gets a byte other than zero (the body's pages are zeros until
 * written). */
static void put_nonzero(struct rr_snap_body *body, uint64_t at, const uint8_t *src, uint64_t len)
{
	while (len) {
		uint64_t pg = at / RR_SNAP_PAGE;
		uint64_t k = RR_SNAP_PAGE - at % RR_SNAP_PAGE;

		if (k > len)
			k = len;
		if (!is_zero(src, k)) {
			memcpy(body->b + at, src, k);
			body->nz[pg / 64] |= 1ull << (pg % 64);
		}
		at += k;
		src += k;
		len -= k;
	}
}

int rr_snap_body_unpack(int fd, off_t off, uint64_t raw, uint64_t raw_max, struct rr_snap_body *out)
{
	size_t in_cap = ZSTD_DStreamInSize(), out_cap = ZSTD_DStreamOutSize();
	uint8_t *ib = malloc(in_cap), *ob = malloc(out_cap);
	ZSTD_DCtx *dc = ZSTD_createDCtx();
	uint64_t total = 0, npages = (raw + RR_SNAP_PAGE - 1) / RR_SNAP_PAGE;
	int rc = -EBADMSG, ended = 0;

	memset(out, 0, sizeof(*out));
	if (!ib || !ob || !dc) {
		rc = -ENOMEM;
		goto out;
	}
	if (raw == 0 || raw > raw_max)
		goto out;
	out->b = mmap(NULL, raw, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	out->nz = calloc((npages + 63) / 64, sizeof(*out->nz));
	if (out->b == MAP_FAILED || !out->nz) {
		if (out->b == MAP_FAILED)
			out->b = NULL;
		rc = -ENOMEM;
		goto out;
	}
	out->mapped = 1;
	out->size = raw;
	for (;;) {
		ssize_t n = pread(fd, ib, in_cap, off);
		ZSTD_inBuffer in = {ib, n > 0 ? (size_t)n : 0, 0};

		if (n < 0) {
			rc = -errno;
			goto out;
		}
		if (n == 0)
			break;
		off += n;
		while (in.pos < in.size) {
			ZSTD_outBuffer o = {ob, out_cap, 0};
			size_t r = ZSTD_decompressStream(dc, &o, &in);

			if (ZSTD_isError(r) || ended)
				goto out; /* damaged, or bytes after the frame */
			if (o.pos > raw - total)
				goto out; /* longer than the header says */
			put_nonzero(out, total, ob, o.pos);
			total += o.pos;
			if (r == 0)
				ended = 1;
		}
	}
	/* the frame's end (its checksum checked) must have been reached, and
	 * its size be what the header says */
	if (ended && total == raw)
		rc = 0;
out:
	if (rc < 0)
		rr_snap_body_free(out);
	ZSTD_freeDCtx(dc);
	free(ib);
	free(ob);
	return rc;
}

void rr_snap_body_free(struct rr_snap_body *body)
{
	if (body->mapped && body->b)
		munmap(body->b, body->size);
	free(body->nz);
	memset(body, 0, sizeof(*body));
}

int rr_snap_body_zero(const struct rr_snap_body *body, const uint8_t *p, uint64_t len)
{
	uint64_t at, last;

	if (!len)
		return 1;
	if (!body->nz)
		return is_zero(p, len);
	at = (uint64_t)(p - body->b);
	last = (at + len - 1) / RR_SNAP_PAGE;
	for (uint64_t pg = at / RR_SNAP_PAGE; pg <= last; pg++)
		if (body->nz[pg / 64] & (1ull << (pg % 64)))
			return 0;
	return 1;
}

/* ---- the sparse writer ---- */

static void out_flush(struct rr_snap_out *o)
{
	uint32_t done = 0;

	while (done < o->n && !o->err) {
		ssize_t k = pwrite(o->fd, o->buf + done, o->n - done, (off_t)(o->buf_at + done));

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			o->err = k < 0 ? -errno : -EIO;
		else
			done += (uint32_t)k;
	}
	o->n = 0;
	o->buf_at = o->pos;
}

void rr_snap_out_put(struct rr_snap_out *o, const void *p, uint64_t len)
{
	const uint8_t *c = p;

	while (len && !o->err) {
		uint64_t k = sizeof(o->buf) - o->n;

		if (k > len)
			k = len;
		memcpy(o->buf + o->n, c, k);
		o->n += (uint32_t)k;
		o->pos += k;
		c += k;
		len -= k;
		if (o->n == sizeof(o->buf))
			out_flush(o);
	}
}

void rr_snap_out_hole(struct rr_snap_out *o, uint64_t len)
{
	if (!len)
		return;
	out_flush(o);
	o->pos += len;
	o->buf_at = o->pos;
}

void rr_snap_out_data(struct rr_snap_out *o, const struct rr_snap_body *body, const uint8_t *p,
		      uint64_t len)
{
	uint64_t at = body->b ? (uint64_t)(p - body->b) : 0;

	while (len && !o->err) {
		/* a piece within one page of the body: its nz bit says */
		uint64_t k = RR_SNAP_PAGE - at % RR_SNAP_PAGE;

		if (k > len)
			k = len;
		if (rr_snap_body_zero(body, p, k))
			rr_snap_out_hole(o, k);
		else
			rr_snap_out_put(o, p, k);
		at += k;
		p += k;
		len -= k;
	}
}

int rr_snap_out_end(struct rr_snap_out *o)
{
	out_flush(o);
	if (!o->err && ftruncate(o->fd, (off_t)o->pos) < 0)
		o->err = -errno;
	return o->err;
}
