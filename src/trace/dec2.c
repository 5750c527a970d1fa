// SPDX-License-Identifier: MIT
/*
 * dec2.c - trace format 2 events back into ring records (doc/trace-format.md,
 * "Version 2: compact events"). The mirror of enc2.c: the same predictions
 * (sequence numbers, function depth, stack pointer) and the packet's sites,
 * so every consumer gets the record the agent wrote (but the registers of a
 * short probe event, not kept). A trace is untrusted: every header, index
 * and count is checked against the packet before it is used, and the sites
 * a packet defines are bounded by its bytes.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "reader_int.h"
#include "trace_int.h"

void trace_dec2_packet(struct rd_stream *s)
{
	s->dec.prev_tsc = s->ts_begin;
	s->dec.next_seq = s->first_seq;
	s->dec.nev = 0;
	s->dec.depth = 0;
	s->dec.sp = 0;
	s->dec.lock = 0;
	s->dec.nsites = 0;
}

void trace_dec2_free(struct trace_dec2 *d)
{
	free(d->sites);
	d->sites = NULL;
	d->sites_cap = d->nsites = 0;
}

static int end(struct trace_reader *r, struct rd_stream *s, uint64_t off, const char *msg,
	       uint64_t v)
{
	trace_rd_problem(r, s->info.file, off, "%s %" PRIu64, msg, v);
	return 0;
}

static int site_add(struct trace_dec2 *d, const uint8_t *p)
{
	if (d->nsites == d->sites_cap) {
		uint32_t cap = d->sites_cap ? d->sites_cap * 2 : 64;
		uint64_t *v = realloc(d->sites, (size_t)cap * 3 * sizeof(*v));

		if (!v)
			return -ENOMEM;
		d->sites = v;
		d->sites_cap = cap;
	}
	d->sites[3 * d->nsites] = trace_get32(p + 4);
	d->sites[3 * d->nsites + 1] = trace_get64(p + 8);
	d->sites[3 * d->nsites + 2] = trace_get64(p + 16);
	d->nsites++;
	return 0;
}

/* A short event's site (its index read at p into *idx), or NULL (a
 * problem). */
static const uint64_t *site_get(struct trace_dec2 *d, const uint8_t *p, uint16_t *idx)
{
	*idx = trace_get16(p);
	return *idx < d->nsites ? &d->sites[3 * (size_t)*idx] : NULL;
}

int trace_dec2_next(struct trace_reader *r, struct rd_stream *s)
{
	struct trace_dec2 *d = &s->dec;

	{
		const uint8_t *p = s->buf + s->pos, *q;
		size_t left = s->pkt_len - s->pos, hl, need;
		uint64_t off = s->pkt_off + s->pos, tsc;
		unsigned id, kind, op = 0;
		uint32_t obj = 0, seq;
		const uint64_t *site = NULL;
		uint16_t sidx = 0;
		struct rec_hdr *h;

		/* the header: compact or extended */
		if ((p[0] & 31) != TRACE2_EXTENDED) {
			uint32_t v;

			if (left < TRACE2_COMPACT_HDR)
				goto out_short;
			v = trace_get32(p);
			id = v & 31;
			tsc = (d->prev_tsc & ~TRACE2_TS_MASK) | (v >> 5);
			if (tsc < d->prev_tsc)
				tsc += TRACE2_TS_MASK + 1;
			hl = TRACE2_COMPACT_HDR;
		} else {
			if (left < TRACE2_EXTENDED_HDR)
				goto out_short;
			if (p[0] != TRACE2_EXTENDED || trace_get32(p + 1) > 0xff)
				goto out_id;
			id = (unsigned)trace_get32(p + 1);
			tsc = trace_get64(p + 5);
			hl = TRACE2_EXTENDED_HDR;
		}
		q = p + hl;
		left -= hl;
		switch (id) {
		case TRACE2_SITE:
			if (left < TRACE2_SITE_SIZE)
				goto out_short;
			if (trace_get32(q) != d->nsites) {
				end(r, s, off, "site defined out of order: index", trace_get32(q));
				return 0;
			}
			if (site_add(d, q))
				goto out_nomem;
			d->prev_tsc = tsc;
			d->nev++;
			s->pos += hl + TRACE2_SITE_SIZE;
			return 2;
		case TRACE2_LOCK_OP:
			need = 7;
			if (left < need)
				goto out_short;
			if (!(site = site_get(d, q + 5, &sidx)))
				goto out_site;
			kind = KIND_LOCK;
			s->fields_off = off + hl;
			op = q[0];
			obj = trace_get32(q + 1);
			if (trace_rd_reserve(r, s, kind, sizeof(struct rec_lock), 1))
				goto out_nomem;
			h = (struct rec_hdr *)s->rec;
			h->size = sizeof(struct rec_lock);
			((struct rec_lock *)h)->ip = site[1];
			break;
		case TRACE2_LOCK_RELEASE:
			need = 2;
			if (left < need)
				goto out_short;
			if (!d->lock) {
				end(r, s, off, "lock release follows no lock event: id", id);
				return 0;
			}
			if (!(site = site_get(d, q, &sidx)))
				goto out_site;
			kind = KIND_LOCK;
			s->fields_off = off + hl;
			op = OP_RELEASE;
			obj = d->lock;
			if (trace_rd_reserve(r, s, kind, sizeof(struct rec_lock), 1))
				goto out_nomem;
			h = (struct rec_hdr *)s->rec;
			h->size = sizeof(struct rec_lock);
			((struct rec_lock *)h)->ip = site[1];
			break;
		case TRACE2_RELEASE:
			need = 4;
			if (left < need)
				goto out_short;
			obj = trace_get16(q + 2);
			if (!obj) {
				end(r, s, off, "release of lock 0: id", id);
				return 0;
			}
			if (!(site = site_get(d, q, &sidx)))
				goto out_site;
			kind = KIND_LOCK;
			s->fields_off = off + hl;
			op = OP_RELEASE;
			if (trace_rd_reserve(r, s, kind, sizeof(struct rec_lock), 1))
				goto out_nomem;
			h = (struct rec_hdr *)s->rec;
			h->size = sizeof(struct rec_lock);
			((struct rec_lock *)h)->ip = site[1];
			break;
		case TRACE2_FUNC_ENTRY:
		case TRACE2_FUNC_EXIT: {
			struct rec_func *fr;

			need = 2;
			if (left < need)
				goto out_short;
			if (!(site = site_get(d, q, &sidx)))
				goto out_site;
			kind = KIND_FUNC;
			s->fields_off = off + hl;
			op = id == TRACE2_FUNC_ENTRY ? FUNC_OP_ENTER : FUNC_OP_EXIT;
			if (trace_rd_reserve(r, s, kind, sizeof(*fr), 1))
				goto out_nomem;
			fr = (struct rec_func *)s->rec;
			fr->h.size = sizeof(*fr);
			fr->fn = site[1];
			fr->site = site[2];
			fr->depth = op == FUNC_OP_ENTER ? d->depth : d->depth ? d->depth - 1 : 0;
			break;
		}
		case TRACE2_PROBE_ENTRY:
		case TRACE2_PROBE_EXIT:
		case TRACE2_PROBE_HIT: {
			struct rec_probe *pr;

			need = 4;
			if (left < need)
				goto out_short;
			if (!(site = site_get(d, q, &sidx)))
				goto out_site;
			kind = KIND_PROBE;
			s->fields_off = off + hl;
			op = PROBE_OP_ENTRY + (id - TRACE2_PROBE_ENTRY);
			obj = (uint32_t)site[0];
			if (trace_rd_reserve(r, s, kind, sizeof(*pr), 1))
				goto out_nomem;
			pr = (struct rec_probe *)s->rec;
			pr->h.size = sizeof(*pr);
			pr->addr = site[1];
			pr->ret_ip = site[2];
			pr->sp = d->sp + (uint64_t)(int64_t)(int16_t)trace_get16(q + 2);
			break;
		}
		default: {
			/* a full event: op, object index, (thread: seq), fields */
			size_t head = TRACE2_FULL_HEAD + (id == KIND_THREAD ? 4 : 0), rest;

			kind = trace2_kind_of(id);
			if (kind == 0 || kind >= KIND_MAX)
				goto out_id;
			if (left < head)
				goto out_short;
			rest = trace_rd_rest_len(kind, q + head, left - head);
			if (!rest)
				goto out_id;
			need = head + rest;
			if (need > left)
				goto out_short;
			op = q[0];
			obj = trace_get32(q + 1);
			s->fields_off = off + hl + head;
			if (trace_rd_rest(r, s, kind, q + head, rest))
				goto out_nomem;
			h = (struct rec_hdr *)s->rec;
			if (kind == KIND_THREAD)
				d->next_seq = trace_get32(q + TRACE2_FULL_HEAD);
			break;
		}
		}
		if (op > EV_OP_MASK) {
			end(r, s, off, "event op out of range:", op);
			return 0;
		}
		h = (struct rec_hdr *)s->rec;
		seq = d->next_seq;
		d->next_seq = seq + 1;
		h->word = ev_word(kind, s->info.stream_id, obj, op);
		h->tsc = tsc;
		h->seq = seq;
		/* the predictions follow every event of their kind, short or full */
		if (kind == KIND_FUNC && (op == FUNC_OP_ENTER || op == FUNC_OP_EXIT)) {
			uint32_t depth = ((struct rec_func *)h)->depth;

			d->depth = op == FUNC_OP_ENTER ? depth + 1 : depth;
		}
		if (kind == KIND_PROBE)
			d->sp = ((struct rec_probe *)h)->sp;
		d->lock = kind == KIND_LOCK ? obj : 0;
		d->prev_tsc = tsc;
		d->nev++;
		s->rec_off = off;
		s->pos += hl + need;
		return 1;

	out_short:
		/* In a truncated packet the problem is already recorded. */
		if (!s->truncated)
			trace_rd_problem(r, s->info.file, off, "event overruns its packet");
		return 0;
	out_id:
		end(r, s, off, "unknown event id",
		    (p[0] & 31) == TRACE2_EXTENDED && left >= 4 ? trace_get32(p + 1) : p[0] & 31u);
		return 0;
	out_site:
		end(r, s, off, "event names a site the packet did not define:", sidx);
		return 0;
	out_nomem:
		trace_rd_problem(r, s->info.file, off, "out of memory");
		return 0;
	}
}
