// SPDX-License-Identifier: MIT
/*
 * ring_produce.h - the producer side of a per-thread ring (see shm.h), as
 * static inline code so the agent and the unit tests write records the
 * same way.
 *
 * One thread owns a struct ring_prod and is the only writer of the ring's
 * head, lost, last_seq and woke fields. Nothing here makes a system call,
 * allocates or takes a lock: it runs on the agent's hot path and may run
 * in a signal handler (the caller guards against re-entry on one thread).
 *
 * Wrap rule, shared with shm_host_drain_ring: a record never straddles the
 * end of the data area. When the next record does not fit before the end,
 * the producer fills the rest with one KIND_PAD record. Offsets and sizes
 * are multiples of 8, so the rest may be only 8 or 16 bytes, too short for
 * a header: such a tail (< sizeof(struct rec_hdr)) is skipped implicitly by
 * both sides without writing anything.
 */
#ifndef SPOOL_COMMON_RING_PRODUCE_H
#define SPOOL_COMMON_RING_PRODUCE_H

#include <stdint.h>

#include "../arch/arch.h"
#include "event.h"
#include "ring_packet.h"
#include "shm.h"

struct ring_prod {
	struct shm_ring *ring;
	unsigned char *data;
	uint64_t head;	    /* private copy of ring->head */
	uint64_t tail;	    /* last ring->tail seen; tail only grows, so it is a safe bound */
	uint32_t size;	    /* ring_bytes, a power of two */
	uint32_t watermark; /* fill level that wakes the collector, 0 = never */
	uint64_t checked;   /* head / watermark when the real tail was last read */
	/* Called when the ring is full; returns non-zero when it has made room
	 * (reserve then retries), zero to drop the event. NULL: always drop.
	 * The agent's version waits a bounded time for the collector. */
	int (*on_full)(struct ring_prod *p, uint32_t len);
	uint32_t dropping; /* on_full gave up once: drop until the ring drains */
	/* Bytes of the data area known to be faulted in: head may grow to
	 * here without a page fault. on_ready (if set) is called when a record
	 * would cross it and moves it on (the agent populates the next pages
	 * with one madvise); UINT64_MAX once the whole area is ready. */
	uint64_t ready;
	void (*on_ready)(struct ring_prod *p, uint64_t need);
	/* SHM_F_PACKETS (ring_packet.h): the packet being filled; pkt.slot 0
	 * in records mode. */
	struct ring_pkt pkt;
	uint32_t pkt_wake; /* a packet finished in a reserve crossed the watermark */
};

/* How far ahead of head ring_prod_commit asks for write ownership of the
 * ring's lines (bench: 1-4 KiB all cut the cross-core cost). */
#define RING_PROD_AHEAD 2048

/* A hint only: PREFETCHW runs as a no-op on x86 CPUs that lack it. */
static inline void ring_prod_prefetchw(const void *addr)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ volatile("prefetchw %0" : : "m"(*(const char *)addr));
#else
	__builtin_prefetch(addr, 1, 3);
#endif
}

static inline void ring_prod_init(struct ring_prod *p, struct shm_ring *r, uint32_t ring_bytes,
				  uint32_t watermark)
{
	p->on_full = 0;
	p->dropping = 0;
	p->ready = UINT64_MAX;
	p->on_ready = 0;
	p->ring = r;
	p->data = shm_ring_data(r);
	p->head = __atomic_load_n(&r->head, __ATOMIC_RELAXED);
	p->tail = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
	p->size = ring_bytes;
	p->watermark = watermark;
	p->checked = watermark ? p->head / watermark : 0;
	ring_pkt_zero(&p->pkt, sizeof(p->pkt));
	p->pkt_wake = 0;
}

/*
 * Reserve len bytes (a multiple of 8, at least a header) for a record and
 * return where to write it. When the ring is full, on_full (if set) may make
 * room; otherwise the event is dropped and counted in ring->lost. Never
 * overwrites. The record becomes visible only with ring_prod_commit.
 */
static inline void *ring_pkt_reserve(struct ring_prod *p, uint32_t len);

static inline void *ring_prod_reserve(struct ring_prod *p, uint32_t len)
{
	uint64_t off, skip;

	if (p->pkt.slot)
		return ring_pkt_reserve(p, len);
	if (__builtin_expect(len > p->size / 2, 0))
		goto drop;
retry:
	off = p->head & (p->size - 1);
	skip = 0;
	if (off + len > p->size)
		skip = p->size - off;
	if (p->head + skip + len - p->tail > p->size) {
		/* Only now read the consumer's cache line. */
		p->tail = __atomic_load_n(&p->ring->tail, __ATOMIC_ACQUIRE);
		if (p->head + skip + len - p->tail > p->size)
			goto full;
	}
	if (skip) {
		if (skip >= sizeof(struct rec_hdr)) {
			struct rec_hdr *pad = (struct rec_hdr *)(p->data + off);

			pad->word = ev_word(KIND_PAD, 0, 0, 0);
			pad->tsc = 0;
			pad->seq = 0;
			pad->size = (uint32_t)skip;
		}
		p->head += skip;
		off = 0;
	}
	/* One compare per record; taken once per populated chunk, and never
	 * after the first wrap (ready is then UINT64_MAX). */
	if (__builtin_expect(p->head + len > p->ready, 0) && p->on_ready)
		p->on_ready(p, p->head + len);
	return p->data + off;
full:
	if (p->on_full && p->on_full(p, len))
		goto retry;
drop:
	/* Release: the caller's last_seq store (before the reserve) is seen
	 * first by a collector that loads lost with acquire, then last_seq. */
	__atomic_store_n(&p->ring->lost, p->ring->lost + 1, __ATOMIC_RELEASE);
	return 0;
}

/* After head moved: 1 when the ring has just crossed the watermark at a
 * level it has not woken the collector for, so the caller wakes it once. */
static inline int ring_prod_level(struct ring_prod *p)
{
	uint64_t level;

	/* The collector, on another core, read the lines we are about to
	 * reuse: writing one costs a cross-core ownership request, and the
	 * target's next locked instruction (its lock or unlock) waits for that
	 * store. Asking for the line RING_PROD_AHEAD bytes early overlaps the
	 * request with the program's own work. Only lines known free (cached
	 * tail) are touched, so a full ring does not pull unread lines away
	 * from the collector. */
	if (p->head + RING_PROD_AHEAD - p->tail <= p->size)
		ring_prod_prefetchw(p->data + ((p->head + RING_PROD_AHEAD) & (p->size - 1)));
	if (!p->watermark || p->head - p->tail < p->watermark)
		return 0;
	/* The cached tail says we are past the watermark. Reading the real one
	 * pulls the consumer's cache line from the collector's core: a miss
	 * that, done per event while the collector lags, cost more than the
	 * event itself. So look once each time head advances by a watermark;
	 * the fill can then overshoot the watermark by at most one more before
	 * the collector is woken, and it also wakes on its own timer. */
	/* (spool's watermark is a power of two: a shift, not a division,
	 * which costs more than the rest of a probe hit) */
	level = p->watermark & (p->watermark - 1) ? p->head / p->watermark
						  : p->head >> __builtin_ctz(p->watermark);
	if (level == p->checked)
		return 0;
	p->checked = level;
	p->tail = __atomic_load_n(&p->ring->tail, __ATOMIC_ACQUIRE);
	if (p->head - p->tail < p->watermark)
		return 0;
	if ((uint32_t)level == p->ring->woke)
		return 0;
	__atomic_store_n(&p->ring->woke, (uint32_t)level, __ATOMIC_RELAXED);
	return 1;
}

static inline int ring_pkt_commit(struct ring_prod *p, uint32_t len);

/*
 * Publish the record reserved last (len bytes, its size field already
 * set). Returns 1 when the ring has just crossed the watermark at a level
 * it has not woken the collector for, so the caller wakes it once.
 */
static inline int ring_prod_commit(struct ring_prod *p, uint32_t len)
{
	if (p->pkt.slot)
		return ring_pkt_commit(p, len);
	p->head += len;
	__atomic_store_n(&p->ring->head, p->head, __ATOMIC_RELEASE);
	return ring_prod_level(p);
}

/*
 * Packets in the ring (SHM_F_PACKETS). Turn packet mode on for a ring just
 * set up by ring_prod_init: slot is shm_pkt_slot(ring_bytes), sites the
 * thread's site cache (NULL: events are written full), pid and tid go into
 * each packet's context. A reused ring's head is moved to a slot boundary
 * (the collector leaves it at one when it frees a ring).
 */
static inline void ring_prod_packets(struct ring_prod *p, uint32_t slot, struct ring_sites *sites,
				     uint32_t pid, uint32_t tid)
{
	ring_pkt_zero(&p->pkt, sizeof(p->pkt));
	p->pkt.slot = slot;
	p->pkt.sites = sites;
	/* (a table a fork child inherited, or an earlier thread's of this
	 * ring, could hold entries of a generation this thread reaches) */
	if (sites)
		ring_pkt_zero(sites, sizeof(*sites));
	p->pkt.pid = pid;
	p->pkt.tid = tid;
	if (p->head & (slot - 1)) {
		p->head = (p->head + slot - 1) & ~(uint64_t)(slot - 1);
		__atomic_store_n(&p->ring->head, p->head, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&p->ring->done_seq, p->ring->last_seq, __ATOMIC_RELAXED);
}

/* Finish the open packet (one with events): its sizes, then head to the
 * end of its slot, where the collector takes it. Returns the watermark's
 * wake flag. An open packet without events stays open. */
static inline int ring_pkt_finish(struct ring_prod *p)
{
	struct ring_pkt *k = &p->pkt;
	uint64_t bits;

	if (!k->base || !k->events)
		return 0;
	bits = (uint64_t)k->pos * 8;
	/* its count and end time: only now (a packet taken open, a live
	 * thread's copy or a dead one's, has them set from its events by the
	 * collector's check: no store per event) */
	ring_pkt_put32(k->base + RING_PKT_EVENTS, k->events);
	ring_pkt_put64(k->base + RING_PKT_TS_END, k->prev_tsc);
	ring_pkt_put64(k->base + RING_PKT_CONTENT, bits);
	ring_pkt_put64(k->base + RING_PKT_PACKET, bits);
	k->base = 0;
	p->head = k->start + k->slot;
	__atomic_store_n(&p->ring->head, p->head, __ATOMIC_RELEASE);
	return ring_prod_level(p);
}

/* Finish the thread's packet, if any (its thread is ending): 1 when the
 * caller should wake the collector. */
static inline int ring_prod_flush(struct ring_prod *p)
{
	int wake;

	if (!p->pkt.slot)
		return 0;
	wake = ring_pkt_finish(p) | (int)p->pkt_wake;
	p->pkt_wake = 0;
	return wake;
}

/* Open a packet in the next slot: 0, or -1 when the ring is full. */
static inline int ring_pkt_open(struct ring_prod *p)
{
	struct ring_pkt *k = &p->pkt;

retry:
	if (p->head + k->slot - p->tail > p->size) {
		p->tail = __atomic_load_n(&p->ring->tail, __ATOMIC_ACQUIRE);
		if (p->head + k->slot - p->tail > p->size) {
			/* (on_full waits for room for 2 * len: one slot) */
			if (p->on_full && p->on_full(p, k->slot / 2))
				goto retry;
			return -1;
		}
	}
	if (p->head + k->slot > p->ready && p->on_ready)
		p->on_ready(p, p->head + k->slot);
	ring_pkt_begin(k, p->data + (p->head & (p->size - 1)), p->head);
	if (k->untimed) /* the packet's one clock read (struct ring_pkt) */
		k->prev_tsc = arch_ts();
	return 0;
}

/* Where to stage a record of len bytes: in the open packet's slot, past
 * what is written, 8-aligned; ring_pkt_commit encodes it in place. The
 * caller stored the record's seq in ring->last_seq before (as for every
 * reserve): a record that does not follow the packet's last starts a new
 * packet, whose first_seq says where the numbering goes on. */
static inline void *ring_pkt_reserve(struct ring_prod *p, uint32_t len)
{
	struct ring_pkt *k = &p->pkt;

	if (__builtin_expect(len + RING_PKT_HDR + RING_PKT_SLACK + 8 > k->slot, 0))
		goto drop;
	if (k->base && k->events &&
	    (p->ring->last_seq != k->next_seq ||
	     ((k->pos + 7) & ~7u) + len + RING_PKT_SLACK > k->slot))
		p->pkt_wake |= (uint32_t)ring_pkt_finish(p);
	if (!k->base && ring_pkt_open(p))
		goto drop;
	return k->base + ((k->pos + 7) & ~7u);
drop:
	__atomic_store_n(&p->ring->done_seq, p->ring->last_seq, __ATOMIC_RELAXED);
	__atomic_store_n(&p->ring->lost, p->ring->lost + 1, __ATOMIC_RELEASE);
	return 0;
}

/* Encode the staged record into the packet and publish it: head and
 * done_seq (the packet's events and timestamp_end: ring_pkt_finish). */
static inline int ring_pkt_commit(struct ring_prod *p, uint32_t len)
{
	struct ring_pkt *k = &p->pkt;
	struct shm_ring *r = p->ring;
	const struct rec_hdr *rec = (const struct rec_hdr *)(k->base + ((k->pos + 7) & ~7u));
	unsigned kind = ev_kind(rec->word);
	uint32_t seq = rec->seq;
	uint64_t tsc = rec->tsc;
	uint8_t *end;
	int wake;

	(void)len;
	if (k->untimed || (!tsc && kind == KIND_USER))
		/* untimed (doc/cc.md) or no per-event time (--clock=none, the
		 * packet's opening time): the time of the event before */
		tsc = k->prev_tsc;
	if (__builtin_expect(k->events && kind != KIND_THREAD && seq != k->next_seq, 0)) {
		/* a seq its reserve did not announce: not writable here */
		__atomic_store_n(&r->done_seq, seq, __ATOMIC_RELAXED);
		__atomic_store_n(&r->lost, r->lost + 1, __ATOMIC_RELEASE);
		wake = (int)p->pkt_wake;
		p->pkt_wake = 0;
		return wake;
	}
	if (!k->events) {
		ring_pkt_put64(k->base + RING_PKT_TS_BEGIN, tsc);
		ring_pkt_put32(k->base + RING_PKT_FIRST_SEQ, seq);
		k->prev_tsc = tsc;
	}
	end = ring_pkt_encode(k, k->base + k->pos, rec, tsc);
	k->pos = (uint32_t)(end - k->base);
	k->next_seq = seq + 1;
	__atomic_store_n(&r->done_seq, seq, __ATOMIC_RELAXED);
	p->head = k->start + k->pos;
	__atomic_store_n(&r->head, p->head, __ATOMIC_RELEASE);
	wake = ring_prod_level(p) | (int)p->pkt_wake;
	p->pkt_wake = 0;
	return wake;
}

/*
 * After an event was published inside the open packet (its bytes
 * [from, to) of the slot): the wake flag a reserve left (a packet it
 * finished crossed the watermark). No watermark check per event: the
 * collector can take only finished packets (a flush's copy of an open one
 * comes on its timer), and ring_pkt_finish checks the level of each. The
 * slot is the producer's from its opening, so its lines ahead may be asked
 * for (the cross-core ownership request ring_prod_level overlaps with the
 * program's work), once per line the event reaches.
 */
static inline int ring_pkt_published(struct ring_prod *p, uint8_t *base, uint32_t from,
				     uint32_t to)
{
	int wake;

	if (((from ^ to) & ~63u) && to + RING_PROD_AHEAD < p->pkt.slot)
		ring_prod_prefetchw(base + to + RING_PROD_AHEAD);
	wake = (int)p->pkt_wake;
	if (__builtin_expect(wake, 0))
		p->pkt_wake = 0;
	return wake;
}

/*
 * The hot lock event (no arg, no stack) in packet mode, written straight
 * from its values without staging the record: 1 when done (*wake as from
 * ring_prod_commit), 0 when it needs the general path (no open packet or
 * no room in it, a seq that does not follow, a site the cache does not
 * hold for this packet, a time that needs the extended header). The caller
 * stored seq in ring->last_seq first, as for a reserve.
 *
 * Always inlined into the lock interposers, in the shape of
 * ring_pkt_probe_in: as a call it saved and restored five registers and
 * took *wake through memory, 30 of the 95 instructions callgrind counted
 * in it per event (bench/lockpair.sh). The packet's fields are read into
 * locals before the first store into the packet (every byte store may
 * alias them for the compiler), and the 11 bytes are two stores: bytes
 * 0-7 (header, op, the low 3 bytes of the lock) and 8-11 (its high byte,
 * the site, and one byte past the event, which is the next event's place
 * in the slot, inside the slack checked here and not yet published: head
 * stops at byte 11).
 *
 * A release of a lock whose index fits 16 bits is spool:lock_release (format
 * 2.3, class 19), 8 bytes in one 8-byte store: header, site, lock. It names its
 * lock, so babeltrace2 shows it and nothing is predicted: no state is
 * kept or compared per event for it (format 2.2's class 18
 * was 6 bytes but implied the lock from the event before, which CTF
 * cannot say, and cost the writer three compares and two stores an
 * event). An uncontended lock/unlock pair is 19 bytes.
 */
static inline __attribute__((always_inline)) int ring_pkt_lock(struct ring_prod *p, unsigned op,
							       uint32_t obj, uint32_t seq,
							       uint64_t ip, uint64_t tsc, int *wake)
{
	struct ring_pkt *k = &p->pkt;
	const struct ring_site *s;
	uint64_t h = ip * 0x9e3779b97f4a7c15ull, dt = tsc - k->prev_tsc, head, w;
	uint32_t pos, idx, len;
	struct shm_ring *r;
	uint8_t *base;

	/* (dt wraps for a time before the previous event's: too large too) */
	if (!k->base || !k->events || seq != k->next_seq || !k->sites ||
	    k->pos + 12 + RING_PKT_SLACK > k->slot || dt > RING_PKT_TS_MASK)
		return 0;
	s = &k->sites->any[(h ^ h >> 29) & (RING_PKT_SITES - 2)];
	if (s->gen == k->gen && s->addr == ip && !s->caller && !s->probe)
		idx = s->idx;
	else if (s[1].gen == k->gen && s[1].addr == ip && !s[1].caller && !s[1].probe)
		idx = s[1].idx; /* the pair's second way */
	else
		return 0;
	/* every load before the first store (which may alias them all) */
	base = k->base;
	pos = k->pos;
	r = p->ring;
	w = (tsc & RING_PKT_TS_MASK) << 5;
	if (op == OP_RELEASE && obj - 1 < RING_PKT_RELEASE_MAX) {
		/* (obj - 1 wraps for 0: the general path's full form) */
		len = 8;
		ring_pkt_put64(base + pos, w | RING_PKT_RELEASE | (uint64_t)idx << 32 |
						   (uint64_t)obj << 48);
	} else {
		len = 11;
		ring_pkt_put64(base + pos, w | RING_PKT_LOCK_OP | (uint64_t)(uint8_t)op << 32 |
						   (uint64_t)obj << 40);
		ring_pkt_put32(base + pos + 8, obj >> 24 | idx << 8);
	}
	head = k->start + pos + len;
	k->prev_tsc = tsc;
	k->pos = pos + len;
	k->events++;
	k->next_seq = seq + 1;
	__atomic_store_n(&r->done_seq, seq, __ATOMIC_RELAXED);
	p->head = head;
	__atomic_store_n(&r->head, head, __ATOMIC_RELEASE);
	*wake = ring_pkt_published(p, base, pos, pos + len);
	return 1;
}

/*
 * The hot probe event (PROBE_OP_ENTRY, EXIT or HIT: the short classes) in
 * packet mode, written straight from its values: 1 when done (*wake as
 * from ring_prod_commit), 0 when it needs the general path (the same cases
 * as ring_pkt_lock but a site the packet has not defined, which is defined
 * here, and a stack pointer too far from the previous one). The probe's
 * address is read through addr only to define a site (a probe id names one
 * address: struct ring_psite), so a hit on a defined site loads no
 * per-probe data. Always inlined into the probe handlers: as a call it
 * took its arguments on the stack and *wake through memory. The packet's
 * and the thread's fields are read into locals first and written once at
 * the end: every byte store into the packet may alias them for the
 * compiler, which otherwise loads them again after each one. The event is
 * one 8-byte store (little-endian: header, site, stack pointer delta).
 */
static inline __attribute__((always_inline)) int
ring_pkt_probe_in(struct ring_prod *p, unsigned op, uint32_t id, const uint64_t *addr, uint64_t sp,
		  uint64_t ret_ip, uint32_t seq, uint64_t tsc, int *wake, int define)
{
	struct ring_pkt *k = &p->pkt;
	const struct ring_psite *s;
	uint64_t word, head, dt, d;
	uint32_t pos, from;
	uint8_t *base, *o;
	struct shm_ring *r;
	int32_t idx;

	/* (dt wraps for a time before the previous event's: too large too;
	 * d is the stack pointer delta biased: <= 0xffff fits int16; room for
	 * a site's definition, 28 bytes, and the event, 8; a probe id 0 has
	 * no probe site) */
	dt = tsc - k->prev_tsc;
	d = sp - k->sp + 0x8000;
	if (!k->base || !k->events || seq != k->next_seq || !k->sites ||
	    k->pos + 36 + RING_PKT_SLACK > k->slot || dt > RING_PKT_TS_MASK || d > 0xffff ||
	    op - PROBE_OP_ENTRY > PROBE_OP_HIT - PROBE_OP_ENTRY || !id)
		return 0;
	from = k->pos;
	s = &k->sites->probe[ring_pkt_psite_at(id, ret_ip)];
	if (s->gen == k->gen && s->caller == ret_ip && s->probe == id) {
		idx = s->idx;
	} else if (s[1].gen == k->gen && s[1].caller == ret_ip && s[1].probe == id) {
		idx = s[1].idx; /* the pair's second way */
	} else if (!define) {
		return 0; /* (the caller's general path defines it) */
	} else {
		/* A site this packet has not defined (each packet defines its
		 * own; a new packet starts with none): defined here, as
		 * ring_pkt_encode would after staging the record, and the
		 * event follows it at the same time. Its definition is an
		 * event of the packet too (ring_pkt_site_def counts it). */
		o = k->base + from;
		idx = ring_pkt_psite(k, &o, tsc, id, *addr, ret_ip);
		if (idx < 0)
			return 0;
		k->pos = (uint32_t)(o - k->base);
	}
	/* every load before the first store (which may alias them all) */
	word = ((tsc & RING_PKT_TS_MASK) << 5 | (RING_PKT_PROBE_ENTRY + op - PROBE_OP_ENTRY)) |
	       (uint64_t)(uint16_t)idx << 32 | ((d - 0x8000) & 0xffff) << 48;
	base = k->base;
	pos = k->pos;
	head = k->start + pos + 8;
	r = p->ring;
	ring_pkt_put64(base + pos, word);
	k->sp = sp;
	k->prev_tsc = tsc;
	k->pos = pos + 8;
	k->events++;
	k->next_seq = seq + 1;
	__atomic_store_n(&r->done_seq, seq, __ATOMIC_RELAXED);
	p->head = head;
	__atomic_store_n(&r->head, head, __ATOMIC_RELEASE);
	*wake = ring_pkt_published(p, base, from, pos + 8);
	return 1;
}

static inline __attribute__((always_inline)) int
ring_pkt_probe(struct ring_prod *p, unsigned op, uint32_t id, const uint64_t *addr, uint64_t sp,
	       uint64_t ret_ip, uint32_t seq, uint64_t tsc, int *wake)
{
	return ring_pkt_probe_in(p, op, id, addr, sp, ret_ip, seq, tsc, wake, 1);
}

/* ring_pkt_probe for a site the open packet has defined only: 0 for one it
 * has not, as for any other case of the general path. It calls nothing,
 * so a caller whose general path is out of line keeps its own fast path
 * in the caller-saved registers (agent_probe_hot.c). */
static inline __attribute__((always_inline)) int
ring_pkt_probe_defined(struct ring_prod *p, unsigned op, uint32_t id, const uint64_t *addr,
		       uint64_t sp, uint64_t ret_ip, uint32_t seq, uint64_t tsc, int *wake)
{
	return ring_pkt_probe_in(p, op, id, addr, sp, ret_ip, seq, tsc, wake, 0);
}

#endif
