// SPDX-License-Identifier: MIT
/*
 * ring_packet.h - the agent's side of trace format 2 in the ring
 * (SHM_F_PACKETS): records are encoded into a packet in their final byte
 * form as they are committed, so the collector only copies whole packets
 * to the stream files (doc/trace-format.md, "Packets in the ring").
 *
 * The encoding is the one of src/trace/enc2.c, which the collector uses
 * in records mode: the compact or extended event header, the short classes
 * when they say the whole record, a site table and the depth and stack
 * pointer predictions, all starting again with each packet. The site table
 * here is a 2-way set-associative cache: a site it forgot is defined again under a
 * new index, which the format allows (a definition's index is the count so
 * far; nothing says a triple has one index). No libc call (fixed-size
 * memcpy the compiler inlines only), no system call, no lock: it runs on
 * the agent's hot path, also inside its SIGTRAP handler, where a call to
 * libc's memmove or memset would hit the int3 probe `func:libc.so.6:*`
 * places there while SIGTRAP is blocked, and the kernel kills the program.
 *
 * A packet lives in one slot of the ring (shm_pkt_slot bytes) from its
 * header to its last event. The header is written when the packet opens;
 * each event is whole before head is published, so a packet whose writer
 * died (a crash) is whole up to head and the collector can close it (its
 * check sets events and timestamp_end from the events there, as for a
 * flush's copy of a live thread's open packet); events, timestamp_end,
 * content_size and packet_size are set when the packet is finished. The collector fills in the fields only it
 * knows (uuid, stream_instance_id, packet_seq_num, events_discarded).
 */
#ifndef SPOOL_COMMON_RING_PACKET_H
#define SPOOL_COMMON_RING_PACKET_H

#include <stdint.h>
#include <string.h>

#include "event.h"

/* doc/trace-format.md; the same numbers as src/trace/trace_int.h (a unit
 * test checks they agree). */
#define RING_PKT_MAGIC 0xC1FC1FC1u
#define RING_PKT_HDR 96
#define RING_PKT_TS_BEGIN 32
#define RING_PKT_TS_END 40
#define RING_PKT_CONTENT 48
#define RING_PKT_PACKET 56
#define RING_PKT_PID 80
#define RING_PKT_TID 84
#define RING_PKT_FIRST_SEQ 88
#define RING_PKT_EVENTS 92
#define RING_PKT_EXTENDED 31u
#define RING_PKT_TS_MASK ((1ull << 27) - 1)
enum {
	RING_PKT_SITE = 10,
	RING_PKT_LOCK_OP = 11,
	RING_PKT_FUNC_ENTRY = 12,
	RING_PKT_FUNC_EXIT = 13,
	RING_PKT_PROBE_ENTRY = 14,
	RING_PKT_TNAME = 17, /* KIND_TNAME's full form (10 is spool:site's id) */
	RING_PKT_LOCK_RELEASE = 18, /* u16 site: OP_RELEASE of the previous event's lock (2.2: read, not written) */
	RING_PKT_RELEASE = 19,	    /* u16 site, u16 lock: OP_RELEASE of a lock below 65536 (2.3) */
};
/* The largest lock index spool:lock_release (format 2.3, class 19) can name. */
#define RING_PKT_RELEASE_MAX 0xffffu
#define RING_PKT_MAX_SITES 65536u
/* Bytes an encoded record may need past the end of its staged copy (a site
 * definition and an extended header in front of a short event). */
#define RING_PKT_SLACK 64u
/* Entries of a thread's cache of general sites (a power of two): 4096
 * pairs, each a 2-way set; 192 KiB of private memory per thread, touched as
 * used. With 256 pairs, Debian's sqlite3 with every libsqlite3 function
 * probed (a few hundred sites live in a packet) evicted sites it used
 * again in the same packet: each eviction costs a site definition (28
 * bytes) and the slow path (a staged record encoded). 46.0 MB of trace for
 * 4.6 M events, now 39.6 MB (bench/probe.sh's sqlite3 workload). */
#define RING_PKT_SITES 8192u
/* Entries of its cache of probe sites (4096 pairs, 128 KiB). */
#define RING_PKT_PSITES 8192u

/* A general site (a lock's ip, a function and its call site): all of
 * (probe, addr, caller) is the key. */
struct ring_site {
	uint64_t addr, caller;
	uint32_t probe;
	uint16_t idx;
	uint16_t gen; /* the packet it was defined in; 0: never */
};

/*
 * A probe's site (probe id not 0): (probe, caller) is the key, because a
 * probe id names one address for the life of the process (the agent's
 * agent_probe_by_id[id].addr never changes; ids are not reused). So a hit
 * finds its site without loading the probe's address, and an entry is 16
 * bytes: a pair is half of one cache line, never two lines (issue 16: the
 * hit path's loads were most of a sqlite3 run's probe cost).
 */
struct ring_psite {
	uint64_t caller;
	uint32_t probe;
	uint16_t idx;
	uint16_t gen;
};

/* A thread's site caches, private memory (ring_prod_packets). */
struct ring_sites {
	struct ring_psite probe[RING_PKT_PSITES];
	struct ring_site any[RING_PKT_SITES];
};

/* The pair of a probe site in the cache: the top bits of one product. */
static inline uint32_t ring_pkt_psite_at(uint32_t probe, uint64_t caller)
{
	uint64_t h = (caller ^ (uint64_t)probe << 40) * 0x9e3779b97f4a7c15ull;

	return (uint32_t)(h >> 51) & (RING_PKT_PSITES - 2);
}

/* The packet being filled, private to the producing thread. */
struct ring_pkt {
	uint32_t slot;	  /* bytes of a slot; 0: records mode (no packets) */
	uint32_t pos;	  /* bytes of the open packet written, headers included */
	uint8_t *base;	  /* the open packet in the ring, NULL: none open */
	uint64_t start;	  /* the ring counter at its first byte */
	uint32_t events;  /* events in it, site definitions included */
	uint32_t next_seq;
	uint32_t nsites;
	uint32_t depth;	   /* predicted function depth */
	uint64_t prev_tsc; /* the previous event's TSC (kept across packets) */
	uint64_t sp;	   /* the previous probe event's stack pointer */
	uint32_t pid, tid; /* for the packet context */
	uint16_t gen;	   /* this packet's generation in the site cache */
	/* SHM_F_UNTIMED (--clock=none): no per-event time. The clock is
	 * read once when a packet opens (ring_pkt_open) and every event of
	 * the packet carries that time (prev_tsc), so a thread's events never
	 * go back in time and an event's true time lies between its packet's
	 * timestamp_begin and the next packet's (doc/trace-format.md,
	 * "Traces without per-event time"). */
	uint16_t untimed;
	struct ring_sites *sites; /* NULL: events are written full */
};

static inline void ring_pkt_put16(uint8_t *p, uint16_t v)
{
	memcpy(p, &v, 2); /* x86-64 and aarch64 are little-endian */
}
static inline void ring_pkt_put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}
static inline void ring_pkt_put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static inline uint32_t ring_pkt_get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}
static inline uint64_t ring_pkt_get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* Copy n bytes from src down to dst (dst <= src, the ranges may overlap)
 * or zero n bytes, without calling libc (see the top of this file): the
 * empty asm keeps the compiler from turning the loop back into a call to
 * memmove or memset (-ftree-loop-distribute-patterns). n is small (a
 * record's tail, a packet header) but for the site table's reset, once
 * per 65,535 packets. */
static inline void ring_pkt_copy_down(uint8_t *dst, const uint8_t *src, size_t n)
{
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t v;

		memcpy(&v, src + i, 8);
		__asm__ volatile("" : "+r"(v));
		memcpy(dst + i, &v, 8);
	}
	for (; i < n; i++) {
		uint8_t v = src[i];

		__asm__ volatile("" : "+r"(v));
		dst[i] = v;
	}
}

static inline void ring_pkt_zero(void *to, size_t n)
{
	uint8_t *d = to;
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t z = 0;

		__asm__ volatile("" : "+r"(z));
		memcpy(d + i, &z, 8);
	}
	for (; i < n; i++) {
		uint8_t z = 0;

		__asm__ volatile("" : "+r"(z));
		d[i] = z;
	}
}

/* Start the packet at base: its header but the fields the first event
 * and the collector set. */
static inline void ring_pkt_begin(struct ring_pkt *k, uint8_t *base, uint64_t start)
{
	k->base = base;
	k->start = start;
	k->pos = RING_PKT_HDR;
	k->events = 0;
	k->nsites = 0;
	k->depth = 0;
	k->sp = 0;
	if (++k->gen == 0) { /* wrapped: old entries could look current */
		if (k->sites)
			ring_pkt_zero(k->sites, sizeof(*k->sites));
		k->gen = 1;
	}
	ring_pkt_zero(base, RING_PKT_HDR);
	ring_pkt_put32(base, RING_PKT_MAGIC);
	ring_pkt_put32(base + RING_PKT_PID, k->pid);
	ring_pkt_put32(base + RING_PKT_TID, k->tid);
}

static inline uint8_t *ring_pkt_hdr(struct ring_pkt *k, uint8_t *p, unsigned id, uint64_t tsc)
{
	if (id < RING_PKT_EXTENDED && tsc >= k->prev_tsc && tsc - k->prev_tsc <= RING_PKT_TS_MASK) {
		ring_pkt_put32(p, (uint32_t)((tsc & RING_PKT_TS_MASK) << 5) | id);
		p += 4;
	} else {
		p[0] = RING_PKT_EXTENDED;
		ring_pkt_put32(p + 1, id);
		ring_pkt_put64(p + 5, tsc);
		p += 13;
	}
	k->prev_tsc = tsc;
	return p;
}

/* Write the definition of site k->nsites at *pp (moved past it). */
static inline void ring_pkt_site_def(struct ring_pkt *k, uint8_t **pp, uint64_t tsc, uint32_t probe,
				     uint64_t addr, uint64_t caller)
{
	uint8_t *p = ring_pkt_hdr(k, *pp, RING_PKT_SITE, tsc);

	ring_pkt_put32(p, k->nsites);
	ring_pkt_put32(p + 4, probe);
	ring_pkt_put64(p + 8, addr);
	ring_pkt_put64(p + 16, caller);
	*pp = p + 24;
	k->events++;
}

/* ring_pkt_site of a probe site (probe not 0: struct ring_psite). */
static inline int32_t ring_pkt_psite(struct ring_pkt *k, uint8_t **pp, uint64_t tsc, uint32_t probe,
				     uint64_t addr, uint64_t caller)
{
	struct ring_psite *s = &k->sites->probe[ring_pkt_psite_at(probe, caller)];

	if (__builtin_expect(s->gen == k->gen && s->caller == caller && s->probe == probe, 1))
		return s->idx;
	if (s[1].gen == k->gen && s[1].caller == caller && s[1].probe == probe)
		return s[1].idx;
	if (k->nsites >= RING_PKT_MAX_SITES)
		return -1;
	/* the new one goes first, the first moves to second (a free second
	 * entry, or the older of the two, is what is lost) */
	if (s->gen == k->gen)
		s[1] = s[0];
	s->caller = caller;
	s->probe = probe;
	s->gen = k->gen;
	s->idx = (uint16_t)k->nsites;
	ring_pkt_site_def(k, pp, tsc, probe, addr, caller);
	return (int32_t)k->nsites++;
}

/* The packet's index of the site (its definition written first at *pp
 * when the cache does not hold it for this packet), or -1: write full. */
static inline int32_t ring_pkt_site(struct ring_pkt *k, uint8_t **pp, uint64_t tsc, uint32_t probe,
				    uint64_t addr, uint64_t caller)
{
	uint64_t h = addr * 0x9e3779b97f4a7c15ull ^ caller * 0xc2b2ae3d27d4eb4full ^ probe;
	struct ring_site *s;

	if (__builtin_expect(!k->sites, 0))
		return -1;
	if (probe)
		return ring_pkt_psite(k, pp, tsc, probe, addr, caller);
	/* two ways: a site is in the first or the second entry of its pair */
	s = &k->sites->any[(h ^ h >> 29) & (RING_PKT_SITES - 2)];
	if (__builtin_expect(s->gen == k->gen && s->addr == addr && s->caller == caller &&
				     s->probe == probe,
			     1))
		return s->idx;
	if (s[1].gen == k->gen && s[1].addr == addr && s[1].caller == caller && s[1].probe == probe)
		return s[1].idx;
	if (k->nsites >= RING_PKT_MAX_SITES)
		return -1;
	if (s->gen == k->gen)
		s[1] = s[0];
	s->addr = addr;
	s->caller = caller;
	s->probe = probe;
	s->gen = k->gen;
	s->idx = (uint16_t)k->nsites;
	ring_pkt_site_def(k, pp, tsc, probe, addr, caller);
	return (int32_t)k->nsites++;
}

/*
 * Encode the record staged at rec (8-aligned, at or after out) as events
 * written from out; returns the end of what was written. Every field is
 * read before anything is written over it; the bulk of a full record is
 * moved with ring_pkt_copy_down (its destination is before its source). tsc is the
 * record's time (an untimed spool:user record's is the previous event's).
 */
static inline uint8_t *ring_pkt_encode(struct ring_pkt *k, uint8_t *out, const struct rec_hdr *rec,
				       uint64_t tsc)
{
	uint64_t word = rec->word;
	unsigned kind = ev_kind(word), op = ev_op(word);
	uint32_t obj = ev_obj(word), size = rec->size, seq = rec->seq;
	uint8_t *p = out;
	int32_t site;

	k->events++;
	switch (kind) {
	case KIND_LOCK: {
		const struct rec_lock *l = (const struct rec_lock *)rec;
		uint64_t ip = l->ip, arg = l->arg;
		uint32_t n = (size - (uint32_t)sizeof(*l)) / 8;

		if (!arg && size == sizeof(*l)) {
			site = ring_pkt_site(k, &p, tsc, 0, ip, 0);
			if (site >= 0 && op == OP_RELEASE && obj && obj <= RING_PKT_RELEASE_MAX) {
				/* spool:lock_release (format 2.3, class 19): it names its lock */
				p = ring_pkt_hdr(k, p, RING_PKT_RELEASE, tsc);
				ring_pkt_put16(p, (uint16_t)site);
				ring_pkt_put16(p + 2, (uint16_t)obj);
				return p + 4;
			}
			if (site >= 0) {
				p = ring_pkt_hdr(k, p, RING_PKT_LOCK_OP, tsc);
				p[0] = (uint8_t)op;
				ring_pkt_put32(p + 1, obj);
				ring_pkt_put16(p + 5, (uint16_t)site);
				return p + 7;
			}
		}
		p = ring_pkt_hdr(k, p, kind, tsc);
		p[0] = (uint8_t)op;
		ring_pkt_put32(p + 1, obj);
		ring_pkt_put64(p + 5, ip);
		ring_pkt_put64(p + 13, arg);
		ring_pkt_put32(p + 21, n);
		ring_pkt_copy_down(p + 25, (const uint8_t *)l->stack, (size_t)n * 8);
		return p + 25 + (size_t)n * 8;
	}
	case KIND_THREAD: {
		const struct rec_thread *t = (const struct rec_thread *)rec;
		uint32_t tid = t->tid, pid = t->pid;
		uint64_t pth = t->pthread;
		char name[16];

		memcpy(name, t->name, 16);
		p = ring_pkt_hdr(k, p, kind, tsc);
		p[0] = (uint8_t)op;
		ring_pkt_put32(p + 1, obj);
		ring_pkt_put32(p + 5, seq);
		ring_pkt_put32(p + 9, tid);
		ring_pkt_put32(p + 13, pid);
		ring_pkt_put64(p + 17, pth);
		memcpy(p + 25, name, 16);
		return p + 41;
	}
	case KIND_FUNC: {
		const struct rec_func *f = (const struct rec_func *)rec;
		uint32_t want, depth = f->depth;

		if (op != FUNC_OP_ENTER && op != FUNC_OP_EXIT)
			break;
		want = op == FUNC_OP_ENTER ? k->depth : k->depth ? k->depth - 1 : 0;
		k->depth = op == FUNC_OP_ENTER ? depth + 1 : depth;
		if (depth != want || f->pad || obj)
			break;
		site = ring_pkt_site(k, &p, tsc, 0, f->fn, f->site);
		if (site < 0)
			break;
		p = ring_pkt_hdr(k, p, op == FUNC_OP_ENTER ? RING_PKT_FUNC_ENTRY : RING_PKT_FUNC_EXIT,
				 tsc);
		ring_pkt_put16(p, (uint16_t)site);
		return p + 2;
	}
	case KIND_PROBE: {
		const struct rec_probe *pr = (const struct rec_probe *)rec;
		int64_t d = (int64_t)(pr->sp - k->sp);

		k->sp = pr->sp;
		if (op < PROBE_OP_ENTRY || op > PROBE_OP_HIT || d < INT16_MIN || d > INT16_MAX)
			break;
		site = ring_pkt_site(k, &p, tsc, obj, pr->addr, pr->ret_ip);
		if (site < 0)
			break;
		p = ring_pkt_hdr(k, p, RING_PKT_PROBE_ENTRY + op - PROBE_OP_ENTRY, tsc);
		ring_pkt_put16(p, (uint16_t)site);
		ring_pkt_put16(p + 2, (uint16_t)(int16_t)d);
		return p + 4;
	}
	}
	/* The full form: op, object index, then the record's fields after its
	 * header, which every other kind stores as they are in the record
	 * (the writer's trace_v1_rest_put). Nothing was written before it
	 * (a site is defined only for a short event), and out <= rec: the
	 * 18 bytes of header, op and index end before rec's fields start. */
	p = ring_pkt_hdr(k, p, kind == KIND_TNAME ? RING_PKT_TNAME : kind, tsc);
	p[0] = (uint8_t)op;
	ring_pkt_put32(p + 1, obj);
	ring_pkt_copy_down(p + 5, (const uint8_t *)(rec + 1), size - sizeof(*rec));
	return p + 5 + (size - sizeof(*rec));
}

#endif
