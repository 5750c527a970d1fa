// SPDX-License-Identifier: MIT
/*
 * shm_host.c - the spool side of the shared memory: create the memfd the
 * target inherits, fill the control block, drain the per-thread rings and
 * sleep until a producer signals a watermark.
 *
 * The target is not trusted: everything read from a ring is bounds-checked
 * before use, and a ring that breaks the format is marked corrupt in host
 * memory (never in the shared mapping, which the target could rewrite) and
 * skipped from then on. Rings are never reused: a thread index is unique for
 * the whole trace, across processes, so the consumer needs no reset logic.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "shm_host.h"

int shm_host_create(struct shm_host *h, uint32_t ring_bytes, uint32_t max_rings, uint32_t stack_depth)
{
	return shm_host_create_ext(h, ring_bytes, max_rings, stack_depth, NULL);
}

void *shm_host_ext(struct shm_host *h, unsigned i)
{
	if (i >= SHM_MAX_EXT || !h->ctl->ext_offset[i])
		return NULL;
	return (char *)h->base + h->ctl->ext_offset[i];
}

int shm_host_create_ext(struct shm_host *h, uint32_t ring_bytes, uint32_t max_rings,
			uint32_t stack_depth, const uint64_t *ext_bytes)
{
	uint64_t ext_off[SHM_MAX_EXT] = {0};
	struct shm_ctl *c;
	uint64_t size;
	int err;

	memset(h, 0, sizeof(*h));
	h->fd = -1;
	if (ring_bytes < 4096 || (ring_bytes & (ring_bytes - 1)) || !max_rings ||
	    max_rings > EV_MAX_THREADS || stack_depth > 4096)
		return -EINVAL;
	size = shm_total_size(ring_bytes, max_rings);
	for (unsigned i = 0; ext_bytes && i < SHM_MAX_EXT; i++) {
		if (!ext_bytes[i])
			continue;
		if (ext_bytes[i] > (1ull << 40))
			return -EINVAL;
		size = (size + 4095) & ~4095ull;
		ext_off[i] = size;
		size += ext_bytes[i];
	}
	if (size > (uint64_t)SIZE_MAX)
		return -EOVERFLOW;

	h->corrupt = calloc(max_rings, 1);
	if (!h->corrupt)
		return -ENOMEM;
	/* No MFD_CLOEXEC: the target, and any image it execs, inherits it. */
	h->fd = memfd_create("spool-shm", 0);
	if (h->fd < 0) {
		err = -errno;
		goto out_free;
	}
	if (ftruncate(h->fd, (off_t)size) < 0) {
		err = -errno;
		goto out_close;
	}
	h->base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, h->fd, 0);
	if (h->base == MAP_FAILED) {
		err = -errno;
		h->base = NULL;
		goto out_close;
	}
	h->size = size;
	h->ctl = c = h->base;

	c->version = SHM_VERSION;
	c->ctl_size = SHM_CTL_SIZE;
	c->total_size = size;
	c->procs_offset = SHM_CTL_SIZE;
	c->rings_offset = SHM_CTL_SIZE + (uint64_t)SHM_MAX_PROCS * sizeof(struct shm_proc);
	c->ring_bytes = ring_bytes;
	c->max_rings = max_rings;
	c->watermark = ring_bytes / 4;
	c->stack_depth = stack_depth;
	c->host_pid = (uint32_t)getpid();
	c->nlocks = 1; /* lock index 0 means "no lock" */
	c->features = SHM_FEAT_LOCKS;
	for (unsigned i = 0; ext_bytes && i < SHM_MAX_EXT; i++) {
		c->ext_offset[i] = ext_off[i];
		c->ext_size[i] = ext_off[i] ? ext_bytes[i] : 0;
	}
	/* The magic goes last: an agent that sees it sees a complete block. */
	__atomic_store_n(&c->magic, SHM_MAGIC, __ATOMIC_RELEASE);
	return 0;

out_close:
	close(h->fd);
	h->fd = -1;
out_free:
	free(h->corrupt);
	h->corrupt = NULL;
	return err;
}

void shm_host_destroy(struct shm_host *h)
{
	if (h->base)
		munmap(h->base, h->size);
	if (h->fd >= 0)
		close(h->fd);
	free(h->corrupt);
	memset(h, 0, sizeof(*h));
	h->fd = -1;
}

uint32_t shm_host_nrings(const struct shm_host *h)
{
	uint32_t n = __atomic_load_n(&h->ctl->nrings, __ATOMIC_ACQUIRE);

	/* Threads beyond max_rings bump nrings too but get no ring. */
	return n < h->ctl->max_rings ? n : h->ctl->max_rings;
}

int shm_host_drain_ring(struct shm_host *h, uint32_t i,
			int (*cb)(void *arg, const struct rec_hdr *rec), void *arg)
{
	struct shm_ring *r;
	unsigned char *data;
	uint32_t size = h->ctl->ring_bytes;
	uint64_t head, tail;
	int n = 0, ret;

	if (i >= shm_host_nrings(h))
		return -EINVAL;
	if (h->corrupt[i])
		return -EPROTO;
	r = shm_ring_at(h->base, i);
	data = shm_ring_data(r);
	head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
	tail = __atomic_load_n(&r->tail, __ATOMIC_RELAXED);
	if (head - tail > size)
		goto corrupt;

	while (tail != head) {
		uint64_t off = tail & (size - 1);
		uint64_t left = size - off;
		const struct rec_hdr *rec;

		/* Too short for a header before the end: implicit padding
		 * (see ring_produce.h). */
		if (left < sizeof(struct rec_hdr)) {
			if (head - tail < left)
				goto corrupt;
			tail += left;
			continue;
		}
		if (head - tail < sizeof(struct rec_hdr))
			goto corrupt;
		rec = (const struct rec_hdr *)(data + off);
		if (rec->size % 8 || rec->size < sizeof(struct rec_hdr) || rec->size > left ||
		    rec->size > head - tail)
			goto corrupt;
		if (ev_kind(rec->word) == KIND_PAD) {
			/* A pad always runs exactly to the end of the data area. */
			if (rec->size != left)
				goto corrupt;
		} else {
			ret = cb(arg, rec);
			if (ret) {
				__atomic_store_n(&r->tail, tail, __ATOMIC_RELEASE);
				return ret;
			}
			n++;
		}
		tail += rec->size;
		/* Free space as we go so a fast producer loses less. */
		__atomic_store_n(&r->tail, tail, __ATOMIC_RELEASE);
	}
	return n;

corrupt:
	h->corrupt[i] = 1;
	return -EPROTO;
}

/* Any ring already filled past the watermark? */
static int shm_host_ready(struct shm_host *h)
{
	uint32_t n = shm_host_nrings(h), i;
	uint32_t wm = h->ctl->watermark;

	for (i = 0; i < n; i++) {
		struct shm_ring *r = shm_ring_at(h->base, i);

		if (h->corrupt[i])
			continue;
		if (__atomic_load_n(&r->head, __ATOMIC_ACQUIRE) -
			    __atomic_load_n(&r->tail, __ATOMIC_RELAXED) >=
		    wm)
			return 1;
	}
	return 0;
}

/*
 * Returns 0 when woken, when the timeout passed or on a signal (the caller
 * drains in every case), or a negative errno on a real error.
 *
 * Why no wake-up is missed: the producer publishes head, then increments
 * wake_seq, then reads collector_sleeping. We set collector_sleeping, then
 * read wake_seq, then look at every ring's fill (all seq_cst). Either the
 * producer sees us sleeping and wakes the futex (which also fails with
 * EAGAIN if wake_seq moved before we wait), or its increment came first and
 * our scan sees its ring past the watermark and we do not sleep at all.
 */
int shm_host_wait(struct shm_host *h, int timeout_ms)
{
	struct shm_ctl *c = h->ctl;
	struct timespec ts, *tsp = NULL;
	uint32_t seq;
	long rc;
	int err = 0;

	if (timeout_ms >= 0) {
		ts.tv_sec = timeout_ms / 1000;
		ts.tv_nsec = (long)(timeout_ms % 1000) * 1000000L;
		tsp = &ts;
	}
	__atomic_store_n(&c->collector_sleeping, 1, __ATOMIC_SEQ_CST);
	seq = __atomic_load_n(&c->wake_seq, __ATOMIC_SEQ_CST);
	if (shm_host_ready(h))
		goto out;
	/* Shared futex (no FUTEX_PRIVATE_FLAG): the waker is another process. */
	rc = syscall(SYS_futex, &c->wake_seq, FUTEX_WAIT, seq, tsp, NULL, 0);
	if (rc < 0 && errno != EAGAIN && errno != ETIMEDOUT && errno != EINTR)
		err = -errno;
out:
	__atomic_store_n(&c->collector_sleeping, 0, __ATOMIC_SEQ_CST);
	return err;
}
