// SPDX-License-Identifier: MIT
/*
 * shm_host.h - the spool side of the shared-memory region: creating the
 * memfd, filling the control block, draining rings. The layout itself is in
 * src/common/shm.h.
 */
#ifndef SPOOL_COLLECT_SHM_HOST_H
#define SPOOL_COLLECT_SHM_HOST_H

#include <stddef.h>
#include <stdint.h>

#include "../common/event.h"
#include "../common/shm.h"

/*
 * Everything spool needs to find its way in the region is kept here, in
 * spool's own memory, from the moment it created the region: the target
 * can rewrite the control block at will, so sizes, offsets and counts are
 * never read back from it. Values the target legitimately writes (ring
 * heads, counters, process slots) are read once, checked against these
 * bounds, and only then used; nothing is ever written through an address
 * derived from them.
 */
struct shm_host {
	int fd;		     /* memfd, without O_CLOEXEC: the target inherits it */
	struct shm_ctl *ctl; /* our mapping of the head (ctl + process slots) */
	uint64_t size;	     /* bytes of the memfd */
	uint32_t ring_bytes;
	uint32_t max_rings;
	uint32_t max_procs; /* process slots in use (ctl mapping covers them) */
	uint32_t watermark;
	uint32_t nrings_seen; /* highest ring count seen (clamped to max_rings) */
	uint64_t ext_offset[SHM_MAX_EXT];
	uint64_t ext_size[SHM_MAX_EXT];
	void *ext[SHM_MAX_EXT];	 /* our mappings of the feature areas */
	struct shm_ring **ring;	 /* per ring: our mapping, NULL until it has data */
	uint64_t *tail;		 /* per ring: what we consumed (the shared tail is a copy) */
	uint8_t *corrupt;	 /* per ring: 1 once found damaged, then skipped */
	struct rec_hdr *scratch; /* the record being handed out, copied from the ring */
	size_t scratch_cap;
	/* The program spool started (session.c sets it once it runs; 0
	 * before): the only process spool ever signals on the region's
	 * behalf. A pid read from the region could be any process. */
	int child_pid;
	/* SHM_F_PACKETS, as spool set it (session.c): the rings hold packets
	 * (shm_host_drain_packets), never read back from the region. */
	int packets;
};

/* ring_bytes must be a power of two >= 4096. */
int shm_host_create(struct shm_host *h, uint32_t ring_bytes, uint32_t max_rings, uint32_t stack_depth);
/* The same, with max_procs process slots (0: SHM_DEFAULT_MAX_PROCS, at most
 * SHM_MAX_PROCS) and a feature area of ext_bytes[i] bytes (0 = none) for
 * each SHM_EXT_* slot, placed page-aligned after the rings. ext_bytes may be
 * NULL. */
int shm_host_create_ext(struct shm_host *h, uint32_t ring_bytes, uint32_t max_rings,
			uint32_t max_procs, uint32_t stack_depth, const uint64_t *ext_bytes);
/* Address of feature area i in our mapping, NULL if it has none. */
void *shm_host_ext(struct shm_host *h, unsigned i);
void shm_host_destroy(struct shm_host *h);

/* Ring i in our mapping, mapped now if it was not, or NULL (i out of
 * range, or no address space left: the caller tries again later). Only
 * the collector's thread maps and unmaps rings (and uses the pointer). */
struct shm_ring *shm_host_ring(struct shm_host *h, uint32_t i);
/* Ring i in our mapping if it is mapped now, else NULL (never maps). */
struct shm_ring *shm_host_ring_mapped(struct shm_host *h, uint32_t i);
/* Drop our mapping of ring i (its thread ended and the ring was freed):
 * a program that runs 100,000 short threads leaves spool's address space
 * at the rings in use, not the rings ever mapped. The next shm_host_ring
 * maps it again; tail and the damage flag stay. Collector thread only. */
void shm_host_ring_unmap(struct shm_host *h, uint32_t i);
/* A copy of ring i's header, read without mapping the ring (pread): safe
 * from any thread (sysprobe.c's sampler), whatever is mapped or unmapped. */
int shm_host_ring_peek(struct shm_host *h, uint32_t i, struct shm_ring *out);

/* Hand every complete record published in ring i to cb (KIND_PAD skipped),
 * then release the space. Each record is copied out of the ring before it
 * is checked, so cb sees a record in spool's memory that the target can no
 * longer change. A head that is behind the tail or more than a ring ahead,
 * a record whose size is not a multiple of 8, is smaller than a header or
 * runs past the end of the data area or past head means the ring is
 * damaged: drain stops with -EPROTO and the ring is skipped from then on.
 * cb returning non-zero stops the drain with that value (the record is not
 * consumed). Returns the number of records handed out. */
int shm_host_drain_ring(struct shm_host *h, uint32_t i,
			int (*cb)(void *arg, const struct rec_hdr *rec), void *arg);

/*
 * SHM_F_PACKETS: hand out the finished packets of ring i (each a copy,
 * checked: the magic, and content_size from the headers to its slot; the
 * events inside are cb's to check, trace_pkt2_check), one cb call each with
 * the packet's bytes. With SHM_DRAIN_GONE (the ring's thread or process has
 * ended: nothing writes it any more), the open packet is handed out too
 * (cb's open SHM_DRAIN_GONE), cut at head, and head and tail move to the
 * next slot. With SHM_DRAIN_PEEK (a flush), a copy of the open packet up to
 * head (its writer publishes head after each whole event, with release) is
 * handed out (cb's open SHM_DRAIN_PEEK) and left where it is: the next
 * drain hands it out again, longer, then finished.
 * Returns packets handed out, -EPROTO when the ring is damaged (then
 * skipped from then on; cb returns -EPROTO for a packet whose events are),
 * or cb's other non-zero value.
 */
enum { SHM_DRAIN_LIVE = 0, SHM_DRAIN_GONE = 1, SHM_DRAIN_PEEK = 2 };
int shm_host_drain_packets(struct shm_host *h, uint32_t i, int mode,
			   int (*cb)(void *arg, uint8_t *pkt, size_t len, int open), void *arg);

/* Sleep until a producer crosses the watermark or timeout_ms passes. */
int shm_host_wait(struct shm_host *h, int timeout_ms);

/* Rings handed out so far (the high-water mark of ring numbers + 1, never
 * more than max_rings, never going back even if the target rewrites the
 * allocator). */
uint32_t shm_host_nrings(struct shm_host *h);

/* Copy process slot i's command line (which = 0) or maps text (1) out of
 * its text area into a malloc'd, NUL-terminated buffer (*out, *len): a
 * snapshot, bounded by SHM_PROC_TEXT_BYTES whatever the slot says. *cut is
 * set when the agent had to cut the text or the slot's length was out of
 * bounds. 0 or a negative errno. */
int shm_host_proc_text(struct shm_host *h, uint32_t i, int which, char **out, size_t *len,
		       int *cut);

#endif
