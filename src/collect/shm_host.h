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

struct shm_host {
	int fd;		     /* memfd, without O_CLOEXEC: the target inherits it */
	void *base;	     /* our MAP_SHARED mapping */
	size_t size;
	struct shm_ctl *ctl; /* == base */
	uint8_t *corrupt;    /* per ring: 1 once found corrupt, then skipped (host-private) */
};

/* ring_bytes must be a power of two >= 4096. */
int shm_host_create(struct shm_host *h, uint32_t ring_bytes, uint32_t max_rings, uint32_t stack_depth);
/* The same, plus a feature area of ext_bytes[i] bytes (0 = none) for each
 * SHM_EXT_* slot, placed page-aligned after the rings. ext_bytes may be NULL. */
int shm_host_create_ext(struct shm_host *h, uint32_t ring_bytes, uint32_t max_rings,
			uint32_t stack_depth, const uint64_t *ext_bytes);
/* Address of feature area i in our mapping, NULL if it has none. */
void *shm_host_ext(struct shm_host *h, unsigned i);
void shm_host_destroy(struct shm_host *h);

/* Hand every complete record published in ring i to cb (KIND_PAD skipped),
 * then release the space. A record whose size is not a multiple of 8, is
 * smaller than a header or runs past the end of the data area means the
 * ring is corrupt: drain stops with -EPROTO and the ring is skipped from
 * then on. cb returning non-zero stops the drain with that value (the
 * record is not consumed). Returns the number of records handed out. */
int shm_host_drain_ring(struct shm_host *h, uint32_t i,
			int (*cb)(void *arg, const struct rec_hdr *rec), void *arg);

/* Sleep until a producer crosses the watermark or timeout_ms passes. */
int shm_host_wait(struct shm_host *h, int timeout_ms);

/* Rings handed out so far (the high-water mark of ring numbers + 1). */
uint32_t shm_host_nrings(const struct shm_host *h);

#endif
