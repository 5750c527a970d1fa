// SPDX-License-Identifier: MIT
/*
 * rr_snap_compose.c - a whole snapshot body out of a delta and the body of
 * the snapshot it is a delta of (doc/trace-format.md "Snapshots",
 * RR_SNAP_DELTA), for spool replay --goto: the agent's restore reads whole
 * bodies only. Every record of the delta is copied; a REGION followed by
 * its DELTA becomes a REGION with its data, each page from the delta when
 * its bit is set, else from the base at the same address (a page the base
 * does not hold is a damaged chain: -EBADMSG). Both bodies are untrusted:
 * every length is checked against the body's size.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "rr_snap_compose.h"
#include "rr_snap_fmt.h"

struct base_reg {
	uint64_t start, end;
	const uint8_t *data;
};

struct out_buf {
	int fd;
	uint8_t buf[1 << 16];
	size_t n;
	uint64_t total;
	int err;
};

static void out_put(struct out_buf *o, const void *p, size_t len)
{
	const uint8_t *c = p;

	o->total += len;
	while (len && !o->err) {
		size_t k = sizeof(o->buf) - o->n < len ? sizeof(o->buf) - o->n : len;

		memcpy(o->buf + o->n, c, k);
		o->n += k;
		c += k;
		len -= k;
		if (o->n == sizeof(o->buf)) {
			if (write(o->fd, o->buf, o->n) != (ssize_t)o->n)
				o->err = -EIO;
			o->n = 0;
		}
	}
}

/* The base's mappings with data, in the body's order (increasing). */
static int base_index(const uint8_t *b, uint64_t size, struct base_reg **out, size_t *n)
{
	uint64_t off = 0;
	size_t cap = 0;

	*out = NULL;
	*n = 0;
	while (size - off >= sizeof(struct rr_snap_rec)) {
		struct rr_snap_rec rec;
		struct rr_snap_region r;

		memcpy(&rec, b + off, sizeof(rec));
		off += sizeof(rec);
		if (rec.len > size - off)
			return -EBADMSG;
		if (rec.kind == RR_SNAP_END)
			return 0;
		if (rec.kind == RR_SNAP_REGION && rec.len >= sizeof(r)) {
			memcpy(&r, b + off, sizeof(r));
			if (r.has_data) {
				if (r.end < r.start || r.path_len > rec.len - sizeof(r) ||
				    r.end - r.start != rec.len - sizeof(r) - r.path_len)
					return -EBADMSG;
				if (*n == cap) {
					struct base_reg *e =
					    realloc(*out, (cap = cap ? cap * 2 : 64) * sizeof(*e));

					if (!e)
						return -ENOMEM;
					*out = e;
				}
				(*out)[(*n)++] = (struct base_reg){
				    r.start, r.end, b + off + sizeof(r) + r.path_len};
			}
		}
		off += rec.len;
	}
	return -EBADMSG;
}

/* The base's page at addr, or NULL. */
static const uint8_t *base_page(const struct base_reg *v, size_t n, uint64_t addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].end <= addr)
			lo = mid + 1;
		else if (v[mid].start > addr)
			hi = mid;
		else
			return addr + RR_SNAP_PAGE <= v[mid].end ? v[mid].data + (addr - v[mid].start)
								 : NULL;
	}
	return NULL;
}

static void *map_body(int fd, uint64_t size)
{
	return size ? mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
}

int rr_snap_compose(int delta_fd, uint64_t delta_size, int base_fd, uint64_t base_size, int out_fd,
		    uint64_t *out_size)
{
	const uint8_t *d = map_body(delta_fd, delta_size), *b = map_body(base_fd, base_size);
	struct base_reg *regs = NULL;
	size_t nregs = 0;
	struct out_buf *o = calloc(1, sizeof(*o));
	uint64_t off = 0;
	int rc = -EBADMSG;

	if (d == MAP_FAILED || b == MAP_FAILED || !o) {
		rc = d == MAP_FAILED || b == MAP_FAILED ? -EBADMSG : -ENOMEM;
		goto out;
	}
	o->fd = out_fd;
	rc = base_index(b, base_size, &regs, &nregs);
	if (rc < 0)
		goto out;
	rc = -EBADMSG;
	while (delta_size - off >= sizeof(struct rr_snap_rec)) {
		struct rr_snap_rec rec, rec2;
		struct rr_snap_region r;
		struct rr_snap_delta dr;
		const uint8_t *bits, *pages;
		uint64_t words, changed = 0;

		memcpy(&rec, d + off, sizeof(rec));
		off += sizeof(rec);
		if (rec.len > delta_size - off || rec.kind == RR_SNAP_DELTA)
			goto out;
		if (rec.kind != RR_SNAP_REGION || rec.len < sizeof(r) ||
		    delta_size - off - rec.len < sizeof(rec2) ||
		    (memcpy(&rec2, d + off + rec.len, sizeof(rec2)), rec2.kind != RR_SNAP_DELTA)) {
			out_put(o, &rec, sizeof(rec));
			out_put(o, d + off, rec.len);
			off += rec.len;
			if (rec.kind == RR_SNAP_END)
				break;
			continue;
		}
		/* a REGION without data, then its DELTA */
		memcpy(&r, d + off, sizeof(r));
		if (r.has_data || r.path_len != rec.len - sizeof(r) || r.end < r.start ||
		    (r.start | r.end) % RR_SNAP_PAGE)
			goto out;
		{
			const uint8_t *path = d + off + sizeof(r);
			uint64_t doff = off + rec.len + sizeof(rec2);

			if (rec2.len > delta_size - doff || rec2.len < sizeof(dr))
				goto out;
			memcpy(&dr, d + doff, sizeof(dr));
			if (dr.start != r.start || dr.npages != (r.end - r.start) / RR_SNAP_PAGE)
				goto out;
			words = (dr.npages + 63) / 64;
			if (words > (rec2.len - sizeof(dr)) / 8)
				goto out;
			bits = d + doff + sizeof(dr);
			for (uint64_t i = 0; i < dr.npages; i++)
				changed += (bits[i / 8] >> (i % 8)) & 1;
			if (changed > (rec2.len - sizeof(dr) - words * 8) / RR_SNAP_PAGE ||
			    rec2.len != sizeof(dr) + words * 8 + changed * RR_SNAP_PAGE)
				goto out;
			pages = bits + words * 8;
			r.has_data = 1;
			rec.len = sizeof(r) + r.path_len + (r.end - r.start);
			out_put(o, &rec, sizeof(rec));
			out_put(o, &r, sizeof(r));
			out_put(o, path, r.path_len);
			for (uint64_t i = 0; i < dr.npages; i++) {
				const uint8_t *pg;

				if ((bits[i / 8] >> (i % 8)) & 1) {
					pg = pages;
					pages += RR_SNAP_PAGE;
				} else {
					pg = base_page(regs, nregs, r.start + i * RR_SNAP_PAGE);
					if (!pg)
						goto out;
				}
				out_put(o, pg, RR_SNAP_PAGE);
			}
			off = doff + rec2.len;
		}
	}
	if (o->n && !o->err && write(o->fd, o->buf, o->n) != (ssize_t)o->n)
		o->err = -EIO;
	if (o->err) {
		rc = o->err;
		goto out;
	}
	*out_size = o->total;
	rc = 0;
out:
	if (d != MAP_FAILED)
		munmap((void *)d, delta_size);
	if (b != MAP_FAILED)
		munmap((void *)b, base_size);
	free(regs);
	free(o);
	return rc;
}
