// SPDX-License-Identifier: MIT
/*
 * rr_snap_compose.c - a whole snapshot body out of a chain of deltas and
 * the whole body the chain starts from (doc/trace-format.md "Snapshots",
 * RR_SNAP_DELTA), for spool replay --goto: the agent's restore reads whole
 * bodies only.
 *
 * One pass, each page copied once: every record of the newest delta is
 * copied; a REGION followed by its DELTA becomes a REGION with its data,
 * each page taken from the newest body of the chain that holds it (its bit
 * set in a delta, or a mapping a delta or the whole body holds whole). A
 * page whose bit is clear all the way down to a body that does not hold its
 * address is a damaged chain (-EBADMSG). A page of zeros (known from the
 * body's bits, rr_snap_body.c) is a hole of the output, not written. Before,
 * each delta was composed over the whole image of the one before: the
 * image was copied once per delta (15 at most).
 *
 * Every body is untrusted: each record's length is checked against its
 * body's size, each DELTA's bitmap and page count against its record, and
 * the index holds only pointers that were checked to lie inside the body.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "rr_snap_body.h"
#include "rr_snap_compose.h"
#include "rr_snap_fmt.h"

/* A mapping of one body whose pages it holds, some (a DELTA: bits, and
 * rank[w] the pages before bitmap word w) or all (data). */
struct comp_reg {
	uint64_t start, end;
	const uint8_t *data;  /* whole: end - start bytes */
	const uint8_t *bits;  /* delta: bit i of byte i / 8 = page i is in pages */
	const uint8_t *pages; /* delta: the set pages, in order */
	uint64_t *rank;	      /* delta: set bits before each 64-bit word */
	int sparse;	      /* a clear bit: zeros (SPARSE), not the body before's (DELTA) */
};

/* What chain_page gives for a page of zeros (a clear bit of a SPARSE). */
static const uint8_t comp_zero[RR_SNAP_PAGE];

struct comp_body {
	const struct rr_snap_body *src; /* its bytes, and which of its pages are zeros */
	const uint8_t *b;
	uint64_t size;
	struct comp_reg *regs; /* sorted by start */
	size_t nregs;
};

static int bit_at(const uint8_t *bits, uint64_t i)
{
	return (bits[i / 8] >> (i % 8)) & 1;
}

/*
 * The DELTA record at off (after a REGION [start, end) without data):
 * checked, its bitmap and pages. *next: the offset after it. A REGION
 * without data not followed by a DELTA returns 1 (nothing held). A SPARSE
 * record (its clear bits: zeros) is read the same way: *sparse 1.
 */
static int delta_at(const uint8_t *b, uint64_t size, uint64_t off, uint64_t start, uint64_t end,
		    const uint8_t **bits, const uint8_t **pages, uint64_t *npages, uint64_t *next,
		    int *sparse)
{
	struct rr_snap_rec rec;
	struct rr_snap_delta dr;
	uint64_t words, changed = 0;

	if (size - off < sizeof(rec))
		return -EBADMSG;
	memcpy(&rec, b + off, sizeof(rec));
	if (rec.kind != RR_SNAP_DELTA && rec.kind != RR_SNAP_SPARSE)
		return 1;
	*sparse = rec.kind == RR_SNAP_SPARSE;
	off += sizeof(rec);
	if (rec.len > size - off || rec.len < sizeof(dr) || end < start ||
	    (start | end) % RR_SNAP_PAGE)
		return -EBADMSG;
	memcpy(&dr, b + off, sizeof(dr));
	if (dr.start != start || dr.npages != (end - start) / RR_SNAP_PAGE)
		return -EBADMSG;
	words = (dr.npages + 63) / 64;
	if (words > (rec.len - sizeof(dr)) / 8)
		return -EBADMSG;
	*bits = b + off + sizeof(dr);
	for (uint64_t i = 0; i < dr.npages; i++)
		changed += bit_at(*bits, i);
	if (changed > (rec.len - sizeof(dr) - words * 8) / RR_SNAP_PAGE ||
	    rec.len != sizeof(dr) + words * 8 + changed * RR_SNAP_PAGE)
		return -EBADMSG;
	*pages = *bits + words * 8;
	*npages = dr.npages;
	*next = off + rec.len;
	return 0;
}

static int reg_cmp(const void *a, const void *b)
{
	const struct comp_reg *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static void body_free(struct comp_body *cb)
{
	for (size_t i = 0; i < cb->nregs; i++)
		free(cb->regs[i].rank);
	free(cb->regs);
	cb->regs = NULL;
	cb->nregs = 0;
}

/* The mappings body cb holds pages of: whole REGIONs, and REGIONs with
 * their DELTA. */
static int body_index(struct comp_body *cb)
{
	const uint8_t *b = cb->b;
	uint64_t off = 0, size = cb->size;
	size_t cap = 0;

	while (size - off >= sizeof(struct rr_snap_rec)) {
		struct rr_snap_rec rec;
		struct rr_snap_region r;
		struct comp_reg e = {0};
		uint64_t next;

		memcpy(&rec, b + off, sizeof(rec));
		off += sizeof(rec);
		if (rec.len > size - off)
			return -EBADMSG;
		if (rec.kind == RR_SNAP_END) {
			if (cb->nregs) /* (qsort of NULL: undefined) */
				qsort(cb->regs, cb->nregs, sizeof(*cb->regs), reg_cmp);
			return 0;
		}
		next = off + rec.len;
		if (rec.kind != RR_SNAP_REGION) {
			off = next;
			continue;
		}
		if (rec.len < sizeof(r))
			return -EBADMSG;
		memcpy(&r, b + off, sizeof(r));
		if (r.end < r.start || r.path_len > rec.len - sizeof(r))
			return -EBADMSG;
		e.start = r.start;
		e.end = r.end;
		if (r.has_data) {
			if (r.end - r.start != rec.len - sizeof(r) - r.path_len)
				return -EBADMSG;
			e.data = b + off + sizeof(r) + r.path_len;
		} else {
			uint64_t npages = 0;
			int rc = delta_at(b, size, next, r.start, r.end, &e.bits, &e.pages, &npages,
					  &next, &e.sparse);

			if (rc < 0)
				return rc;
			if (rc == 1) { /* holds nothing */
				off = next;
				continue;
			}
			e.rank = malloc(((npages + 63) / 64 + 1) * sizeof(*e.rank));
			if (!e.rank)
				return -ENOMEM;
			e.rank[0] = 0;
			for (uint64_t w = 0; w < (npages + 63) / 64; w++) {
				uint64_t c = 0;

				for (uint64_t i = w * 64; i < npages && i < w * 64 + 64; i++)
					c += bit_at(e.bits, i);
				e.rank[w + 1] = e.rank[w] + c;
			}
		}
		if (cb->nregs == cap) {
			struct comp_reg *v =
			    realloc(cb->regs, (cap = cap ? cap * 2 : 64) * sizeof(*v));

			if (!v) {
				free(e.rank);
				return -ENOMEM;
			}
			cb->regs = v;
		}
		cb->regs[cb->nregs++] = e;
		off = next;
	}
	return -EBADMSG;
}

/* In body cb, the page at addr: 1 and *pg when it holds it, 0 when the
 * same address's page is in the body before (a clear bit of a DELTA), 2
 * when it is zeros (a clear bit of a SPARSE), -EBADMSG when it holds no
 * mapping there. */
static int body_page(const struct comp_body *cb, uint64_t addr, const uint8_t **pg)
{
	size_t lo = 0, hi = cb->nregs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct comp_reg *e = &cb->regs[mid];
		uint64_t i, k;

		if (e->end <= addr) {
			lo = mid + 1;
			continue;
		}
		if (e->start > addr) {
			hi = mid;
			continue;
		}
		if (e->end - addr < RR_SNAP_PAGE)
			return -EBADMSG;
		if (e->data) {
			*pg = e->data + (addr - e->start);
			return 1;
		}
		if ((addr - e->start) % RR_SNAP_PAGE)
			return -EBADMSG;
		i = (addr - e->start) / RR_SNAP_PAGE;
		if (!bit_at(e->bits, i))
			return e->sparse ? 2 : 0;
		k = e->rank[i / 64];
		for (uint64_t j = i / 64 * 64; j < i; j++)
			k += bit_at(e->bits, j);
		*pg = e->pages + k * RR_SNAP_PAGE;
		return 1;
	}
	return -EBADMSG;
}

/* The page at addr from the newest of bodies[0 .. n) holding it; *from:
 * that body. comp_zero: it is zeros. */
static const uint8_t *chain_page(const struct comp_body *bodies, uint32_t n, uint64_t addr,
				 const struct comp_body **from)
{
	for (uint32_t k = 0; k < n; k++) {
		const uint8_t *pg = NULL;
		int rc = body_page(&bodies[k], addr, &pg);

		if (rc < 0)
			return NULL;
		if (rc == 2)
			return comp_zero;
		if (rc == 1) {
			*from = &bodies[k];
			return pg;
		}
	}
	return NULL;
}

/* Regions this big at least have their data start on a page boundary of
 * the composed body (a PAD record before them): the agent copies it into
 * the program's memory with pread, which copies a misaligned source
 * slower (3.4 MB into populated pages: 1.21 to 1.46 ms of CPU against 1.11
 * to 1.38 ms aligned, in a VM under load); a smaller one is not worth the
 * agent's read of one more record. */
#define COMP_ALIGN_MIN (64u * 1024)

/* Before a REGION record whose header (with its path) is head bytes and
 * whose data follows. */
static void out_align(struct rr_snap_out *o, uint64_t head, uint64_t data_len)
{
	struct rr_snap_rec pad = {RR_SNAP_PAD, 0, 0};
	uint64_t x;

	if (data_len < COMP_ALIGN_MIN || (o->pos + head) % RR_SNAP_PAGE == 0)
		return;
	x = (o->pos + sizeof(pad) + head) % RR_SNAP_PAGE;
	pad.len = x ? RR_SNAP_PAGE - x : 0;
	rr_snap_out_put(o, &pad, sizeof(pad));
	rr_snap_out_hole(o, pad.len);
}

/* The newest delta's records, composed over bodies[1 .. n). */
static int compose_top(const struct comp_body *bodies, uint32_t n, struct rr_snap_out *o)
{
	const uint8_t *d = bodies[0].b;
	uint64_t size = bodies[0].size, off = 0;

	while (size - off >= sizeof(struct rr_snap_rec)) {
		struct rr_snap_rec rec;
		struct rr_snap_region r;
		const uint8_t *bits = NULL, *pages = NULL, *path;
		uint64_t npages = 0, next;
		int rc = 1, sparse = 0;

		memcpy(&rec, d + off, sizeof(rec));
		off += sizeof(rec);
		if (rec.len > size - off || rec.kind == RR_SNAP_DELTA || rec.kind == RR_SNAP_SPARSE)
			return -EBADMSG;
		next = off + rec.len;
		if (rec.kind == RR_SNAP_REGION && rec.len >= sizeof(r)) {
			memcpy(&r, d + off, sizeof(r));
			if (!r.has_data) {
				rc = delta_at(d, size, next, r.start, r.end, &bits, &pages, &npages,
					      &next, &sparse);
				if (rc < 0)
					return rc;
			}
		}
		if (rc == 1) { /* a record copied as it is (a mapping's zero pages: holes) */
			uint64_t head = rec.len;

			if (rec.kind == RR_SNAP_REGION && rec.len >= sizeof(r) && r.has_data &&
			    r.path_len <= rec.len - sizeof(r))
				head = sizeof(r) + r.path_len;
			if (rec.kind == RR_SNAP_REGION && head != rec.len)
				out_align(o, sizeof(rec) + head, rec.len - head);
			rr_snap_out_put(o, &rec, sizeof(rec));
			rr_snap_out_put(o, d + off, head);
			rr_snap_out_data(o, bodies[0].src, d + off + head, rec.len - head);
			off = next;
			if (rec.kind == RR_SNAP_END)
				return 0;
			continue;
		}
		/* a REGION without data, then its DELTA */
		if (r.path_len != rec.len - sizeof(r))
			return -EBADMSG;
		path = d + off + sizeof(r);
		r.has_data = 1;
		rec.len = sizeof(r) + r.path_len + (r.end - r.start);
		out_align(o, sizeof(rec) + sizeof(r) + r.path_len, r.end - r.start);
		rr_snap_out_put(o, &rec, sizeof(rec));
		rr_snap_out_put(o, &r, sizeof(r));
		rr_snap_out_put(o, path, r.path_len);
		for (uint64_t i = 0; i < npages; i++) {
			const struct comp_body *from = &bodies[0];
			const uint8_t *pg;

			if (bit_at(bits, i)) {
				pg = pages;
				pages += RR_SNAP_PAGE;
			} else if (sparse) {
				pg = comp_zero;
			} else {
				pg = chain_page(bodies + 1, n - 1, r.start + i * RR_SNAP_PAGE,
						&from);
				if (!pg)
					return -EBADMSG;
			}
			if (pg == comp_zero)
				rr_snap_out_hole(o, RR_SNAP_PAGE);
			else
				rr_snap_out_data(o, from->src, pg, RR_SNAP_PAGE);
		}
		off = next;
	}
	return -EBADMSG;
}

int rr_snap_compose_bodies(const struct rr_snap_body *src, uint32_t n, int out_fd,
			   uint64_t *out_size)
{
	struct comp_body *bodies = calloc(n ? n : 1, sizeof(*bodies));
	struct rr_snap_out *o = calloc(1, sizeof(*o));
	int rc = -ENOMEM;

	if (!bodies || !o)
		goto out;
	rc = -EBADMSG;
	if (n < 1)
		goto out;
	for (uint32_t k = 0; k < n; k++) {
		bodies[k].src = &src[k];
		bodies[k].b = src[k].b;
		bodies[k].size = src[k].size;
	}
	/* the newest is read record by record; the others are indexed */
	for (uint32_t k = 1; k < n; k++) {
		rc = body_index(&bodies[k]);
		if (rc < 0)
			goto out;
	}
	o->fd = out_fd;
	rc = compose_top(bodies, n, o);
	if (rc < 0)
		goto out;
	rc = rr_snap_out_end(o);
	if (rc < 0)
		goto out;
	*out_size = o->pos;
out:
	for (uint32_t k = 0; bodies && k < n; k++)
		body_free(&bodies[k]);
	free(bodies);
	free(o);
	return rc;
}

int rr_snap_compose_chain(const int *fds, const uint64_t *sizes, uint32_t n, int out_fd,
			  uint64_t *out_size)
{
	struct rr_snap_body *src = calloc(n ? n : 1, sizeof(*src));
	uint32_t mapped = 0;
	int rc = -ENOMEM;

	if (!src)
		return rc;
	rc = -EBADMSG;
	for (; mapped < n; mapped++) {
		void *p = sizes[mapped]
			      ? mmap(NULL, sizes[mapped], PROT_READ, MAP_PRIVATE, fds[mapped], 0)
			      : MAP_FAILED;

		if (p == MAP_FAILED)
			goto out;
		src[mapped].b = p; /* nz NULL: its zero pages are looked for */
		src[mapped].size = sizes[mapped];
	}
	rc = rr_snap_compose_bodies(src, n, out_fd, out_size);
out:
	for (uint32_t k = 0; k < mapped; k++)
		munmap(src[k].b, src[k].size);
	free(src);
	return rc;
}
