// SPDX-License-Identifier: MIT
/*
 * enc2.c - records to trace format 2 events (doc/trace-format.md, "Version
 * 2: compact events"). The writer calls it once a record; it predicts what
 * the reader will predict (function depth, stack pointer, sites defined in
 * the packet) and writes the short class when the record says nothing more,
 * the full class otherwise. Everything starts again with each packet, so a
 * packet decodes by itself.
 *
 * The site table is a hash of (probe, addr, caller) to the packet's index,
 * emptied per packet by a generation number (no clearing of the table).
 * When it cannot grow (no memory, 65,536 sites) events are written full:
 * nothing is lost, they are only longer.
 */
#include <stdlib.h>
#include <string.h>

#include "enc2.h"
#include "trace_int.h"

void trace_enc2_packet(struct trace_enc2 *e, uint64_t tsc)
{
	e->nsites = 0;
	e->gen++;
	if (e->gen == 0) { /* wrapped: stale slots could look current */
		if (e->slots)
			memset(e->slots, 0, (size_t)e->cap * sizeof(*e->slots));
		e->gen = 1;
	}
	e->prev_tsc = tsc;
	e->depth = 0;
	e->sp = 0;
	e->lock = 0;
}

void trace_enc2_free(struct trace_enc2 *e)
{
	free(e->slots);
	memset(e, 0, sizeof(*e));
}

size_t trace_enc2_max(const struct rec_hdr *rec, size_t v1)
{
	(void)rec;
	if (!v1)
		return 0;
	/* site definition + extended header + op, obj, thread seq + fields */
	return TRACE2_EXTENDED_HDR + TRACE2_SITE_SIZE + TRACE2_EXTENDED_HDR + TRACE2_FULL_HEAD + 4 +
	       TRACE_V1_REST(v1);
}

static uint32_t slot_hash(uint32_t probe, uint64_t addr, uint64_t caller)
{
	uint64_t h = addr * 0x9e3779b97f4a7c15ull ^ caller * 0xc2b2ae3d27d4eb4full ^ probe;

	return (uint32_t)(h ^ h >> 29 ^ h >> 47);
}

static int grow(struct trace_enc2 *e)
{
	uint32_t cap = e->cap ? e->cap * 2 : 256;
	struct trace_enc2_slot *v = calloc(cap, sizeof(*v));

	if (!v)
		return -1;
	for (uint32_t i = 0; i < e->cap; i++) {
		const struct trace_enc2_slot *o = &e->slots[i];
		uint32_t j;

		if (o->gen != e->gen)
			continue;
		j = slot_hash(o->probe, o->addr, o->caller) & (cap - 1);
		while (v[j].gen == e->gen)
			j = (j + 1) & (cap - 1);
		v[j] = *o;
	}
	free(e->slots);
	e->slots = v;
	e->cap = cap;
	return 0;
}

static int32_t site_of_grown(struct trace_enc2 *e, uint32_t probe, uint64_t addr,
			     uint64_t caller, int *fresh);

/* The packet's index of the site, *fresh when it has to be defined first;
 * -1 when there is no room for it (the event is then written full).
 * Inlined: it runs for nearly every record the collector writes. */
static inline __attribute__((always_inline)) int32_t site_of(struct trace_enc2 *e, uint32_t probe, uint64_t addr, uint64_t caller,
		       int *fresh)
{
	uint32_t j;

	*fresh = 0;
	if (!e->cap && grow(e))
		return -1;
	j = slot_hash(probe, addr, caller) & (e->cap - 1);
	for (;; j = (j + 1) & (e->cap - 1)) {
		struct trace_enc2_slot *o = &e->slots[j];

		if (o->gen != e->gen)
			break;
		if (o->addr == addr && o->caller == caller && o->probe == probe)
			return (int32_t)o->idx;
	}
	if (e->nsites >= TRACE2_MAX_SITES)
		return -1;
	if ((e->nsites + 1) * 2 > e->cap) {
		if (grow(e))
			return -1;
		return site_of_grown(e, probe, addr, caller, fresh);
	}
	e->slots[j] = (struct trace_enc2_slot){addr, caller, probe, e->gen, e->nsites};
	*fresh = 1;
	return (int32_t)e->nsites++;
}

/* site_of after the table grew (rare: out of line). */
static int32_t site_of_grown(struct trace_enc2 *e, uint32_t probe, uint64_t addr,
			     uint64_t caller, int *fresh)
{
	return site_of(e, probe, addr, caller, fresh);
}

static inline __attribute__((always_inline)) uint8_t *put_hdr(struct trace_enc2 *e, uint8_t *p, unsigned id, uint64_t tsc)
{
	if (id < TRACE2_EXTENDED && tsc >= e->prev_tsc && tsc - e->prev_tsc <= TRACE2_TS_MASK) {
		trace_put32(p, (uint32_t)((tsc & TRACE2_TS_MASK) << 5) | id);
		p += TRACE2_COMPACT_HDR;
	} else {
		p[0] = TRACE2_EXTENDED;
		trace_put32(p + 1, id);
		trace_put64(p + 5, tsc);
		p += TRACE2_EXTENDED_HDR;
	}
	e->prev_tsc = tsc;
	return p;
}

/* The site's index for a short event (its definition written first at *pp),
 * or -1. */
static inline __attribute__((always_inline)) int32_t use_site(struct trace_enc2 *e, uint8_t **pp, uint64_t tsc, uint32_t probe,
			uint64_t addr, uint64_t caller, uint32_t *events)
{
	int fresh;
	int32_t idx = site_of(e, probe, addr, caller, &fresh);
	uint8_t *p;

	if (idx < 0 || !fresh)
		return idx;
	p = put_hdr(e, *pp, TRACE2_SITE, tsc);
	trace_put32(p, (uint32_t)idx);
	trace_put32(p + 4, probe);
	trace_put64(p + 8, addr);
	trace_put64(p + 16, caller);
	*pp = p + TRACE2_SITE_SIZE;
	(*events)++;
	return idx;
}

/* The packet's index of a site it has defined already, or -1: the common
 * case, inlined (its lookup alone, no registers saved for the rest). */
static inline __attribute__((always_inline)) int32_t
site_find(const struct trace_enc2 *e, uint32_t probe, uint64_t addr, uint64_t caller)
{
	uint32_t j;

	if (!e->cap)
		return -1;
	j = slot_hash(probe, addr, caller) & (e->cap - 1);
	for (;; j = (j + 1) & (e->cap - 1)) {
		const struct trace_enc2_slot *o = &e->slots[j];

		if (o->gen != e->gen)
			return -1;
		if (o->addr == addr && o->caller == caller && o->probe == probe)
			return (int32_t)o->idx;
	}
}

/* trace_enc2_probe of a site the packet has not defined yet (its op and
 * stack delta checked): the definition, then the event. Out of line, so
 * that the common case saves no registers for it. */
static __attribute__((noinline)) size_t enc2_probe_new(struct trace_enc2 *e, uint8_t *p0,
						       const struct rec_probe *pr,
						       uint32_t *events)
{
	unsigned op = ev_op(pr->h.word);
	int64_t d = (int64_t)(pr->sp - e->sp);
	uint8_t *p = p0;
	int32_t site;

	site = use_site(e, &p, pr->h.tsc, ev_obj(pr->h.word), pr->addr, pr->ret_ip, events);
	if (site < 0)
		return 0;
	e->sp = pr->sp;
	e->lock = 0;
	p = put_hdr(e, p, TRACE2_PROBE_ENTRY + op - PROBE_OP_ENTRY, pr->h.tsc);
	trace_put16(p, (uint16_t)site);
	trace_put16(p + 2, (uint16_t)(int16_t)d);
	return (size_t)(p + 4 - p0);
}

_Static_assert(TRACE2_PROBE_SHORT_MAX == 2 * TRACE2_EXTENDED_HDR + TRACE2_SITE_SIZE + 4,
	       "a site definition, a header and the probe fields");

size_t trace_enc2_probe(struct trace_enc2 *e, uint8_t *p0, const struct rec_probe *pr,
			uint32_t *events)
{
	unsigned op = ev_op(pr->h.word);
	int64_t d = (int64_t)(pr->sp - e->sp);
	uint8_t *p = p0;
	int32_t site;

	if (op < PROBE_OP_ENTRY || op > PROBE_OP_HIT || d < INT16_MIN || d > INT16_MAX)
		return 0;
	/* entry, exit and hit registers are not kept (the doc says why) */
	site = site_find(e, ev_obj(pr->h.word), pr->addr, pr->ret_ip);
	if (site < 0)
		return enc2_probe_new(e, p0, pr, events);
	e->sp = pr->sp;
	e->lock = 0;
	p = put_hdr(e, p, TRACE2_PROBE_ENTRY + op - PROBE_OP_ENTRY, pr->h.tsc);
	trace_put16(p, (uint16_t)site);
	trace_put16(p + 2, (uint16_t)(int16_t)d);
	return (size_t)(p + 4 - p0);
}

size_t trace_enc2_put(struct trace_enc2 *e, uint8_t *p0, const struct rec_hdr *rec, size_t v1,
		      uint32_t *events)
{
	unsigned kind = ev_kind(rec->word), op = ev_op(rec->word);
	uint8_t *p = p0;
	int32_t site;

	(*events)++;
	/* the lock prediction follows every event, short or full */
	e->lock = kind == KIND_LOCK ? ev_obj(rec->word) : 0;
	switch (kind) {
	case KIND_LOCK: {
		const struct rec_lock *l = (const struct rec_lock *)rec;

		if (l->arg || rec->size != sizeof(*l))
			break;
		site = use_site(e, &p, rec->tsc, 0, l->ip, 0, events);
		if (site < 0)
			break;
		if (op == OP_RELEASE && ev_obj(rec->word) && ev_obj(rec->word) <= 0xffff) {
			/* spool:lock_release (format 2.3, class 19): it names its lock */
			p = put_hdr(e, p, TRACE2_RELEASE, rec->tsc);
			trace_put16(p, (uint16_t)site);
			trace_put16(p + 2, (uint16_t)ev_obj(rec->word));
			return (size_t)(p + 4 - p0);
		}
		p = put_hdr(e, p, TRACE2_LOCK_OP, rec->tsc);
		p[0] = (uint8_t)op;
		trace_put32(p + 1, ev_obj(rec->word));
		trace_put16(p + 5, (uint16_t)site);
		return (size_t)(p + 7 - p0);
	}
	case KIND_FUNC: {
		const struct rec_func *f = (const struct rec_func *)rec;
		uint32_t want;

		if (op != FUNC_OP_ENTER && op != FUNC_OP_EXIT)
			break;
		want = op == FUNC_OP_ENTER ? e->depth : e->depth ? e->depth - 1 : 0;
		/* the prediction follows every entry and exit, short or full */
		e->depth = op == FUNC_OP_ENTER ? f->depth + 1 : f->depth;
		if (f->depth != want || f->pad || ev_obj(rec->word))
			break;
		site = use_site(e, &p, rec->tsc, 0, f->fn, f->site, events);
		if (site < 0)
			break;
		p = put_hdr(e, p, op == FUNC_OP_ENTER ? TRACE2_FUNC_ENTRY : TRACE2_FUNC_EXIT,
			    rec->tsc);
		trace_put16(p, (uint16_t)site);
		return (size_t)(p + 2 - p0);
	}
	case KIND_PROBE: {
		size_t n = trace_enc2_probe(e, p0, (const struct rec_probe *)rec, events);

		if (n)
			return n;
		e->sp = ((const struct rec_probe *)rec)->sp;
		break;
	}
	}
	/* The full form: op, object index, (thread: seq), the record's fields. */
	p = put_hdr(e, p, trace2_class_of(kind), rec->tsc);
	p[0] = (uint8_t)op;
	trace_put32(p + 1, ev_obj(rec->word));
	p += TRACE2_FULL_HEAD;
	if (kind == KIND_THREAD) {
		trace_put32(p, rec->seq);
		p += 4;
	}
	trace_v1_rest_put(p, rec, TRACE_V1_REST(v1));
	return (size_t)(p + TRACE_V1_REST(v1) - p0);
}
