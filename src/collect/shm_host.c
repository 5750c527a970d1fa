// SPDX-License-Identifier: MIT
/*
 * shm_host.c - the spool side of the shared memory: create the memfd the
 * target inherits, fill the control block, drain the per-thread rings and
 * sleep until a producer signals a watermark.
 *
 * The target is not trusted (doc/DESIGN's rules of trust): the layout is
 * kept in struct shm_host from creation on and never read back; the memfd
 * is sealed against shrinking, so no page spool mapped can vanish under it
 * (SIGBUS); every record is copied out of its ring and checked before use,
 * and a ring that breaks the format is marked damaged in host memory (never
 * in the shared mapping, which the target could rewrite) and skipped from
 * then on. A ring is reused by one thread after another (agent_thread.c),
 * of any process once its own has ended (collector.c): the consumer's tail
 * goes on where it was, as the producer's head does.
 *
 * Rings are mapped one by one when they first have something to drain, so
 * spool's own address space grows with the threads the program has, not
 * with --max-threads.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../common/ring_packet.h"
#include "shm_host.h"

int shm_host_create(struct shm_host *h, uint32_t ring_bytes, uint32_t max_rings, uint32_t stack_depth)
{
	return shm_host_create_ext(h, ring_bytes, max_rings, 0, stack_depth, NULL);
}

void *shm_host_ext(struct shm_host *h, unsigned i)
{
	return i < SHM_MAX_EXT ? h->ext[i] : NULL;
}

/* Read exactly len bytes at off of the memfd (short only past its end). */
/* The number in /proc/self/ns/pid ("pid:[4026531836]"): the pid
 * namespace spool runs in, for the agent (shm_ctl.host_pidns); 0 when
 * there is no /proc or it does not fit. */
static uint32_t shm_host_pidns(void)
{
	char b[64];
	ssize_t n = readlink("/proc/self/ns/pid", b, sizeof(b) - 1);
	uint64_t v = 0;
	const char *q;

	if (n <= 0)
		return 0;
	b[n] = 0;
	q = strchr(b, '[');
	if (!q)
		return 0;
	for (q++; *q >= '0' && *q <= '9' && v <= UINT32_MAX; q++)
		v = v * 10 + (uint64_t)(*q - '0');
	return *q == ']' && v <= UINT32_MAX ? (uint32_t)v : 0;
}

static int shm_host_pread(struct shm_host *h, void *buf, size_t len, uint64_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(h->fd, (char *)buf + done, len - done, (off_t)(off + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		done += (size_t)n;
	}
	return 0;
}

int shm_host_create_ext(struct shm_host *h, uint32_t ring_bytes, uint32_t max_rings,
			uint32_t max_procs, uint32_t stack_depth, const uint64_t *ext_bytes)
{
	uint64_t ext_off[SHM_MAX_EXT] = {0};
	struct sigaction old_xfsz;
	struct shm_ctl *c;
	uint64_t size;
	int err;

	memset(h, 0, sizeof(*h));
	h->fd = -1;
	if (ring_bytes < 4096 || (ring_bytes & (ring_bytes - 1)) || !max_rings ||
	    max_rings > EV_MAX_THREADS || stack_depth > 4096 || max_procs > SHM_MAX_PROCS)
		return -EINVAL;
	if (!max_procs)
		max_procs = SHM_DEFAULT_MAX_PROCS;
	size = shm_total_size(ring_bytes, max_procs, max_rings);
	for (unsigned i = 0; ext_bytes && i < SHM_MAX_EXT; i++) {
		if (!ext_bytes[i])
			continue;
		if (ext_bytes[i] > (1ull << 40))
			return -EINVAL;
		size = (size + SHM_PAGE - 1) & ~(uint64_t)(SHM_PAGE - 1);
		ext_off[i] = size;
		size += ext_bytes[i];
	}
	if (size > (uint64_t)INT64_MAX)
		return -EOVERFLOW;

	h->corrupt = calloc(max_rings, 1);
	h->ring = calloc(max_rings, sizeof(*h->ring));
	h->tail = calloc(max_rings, sizeof(*h->tail));
	if (!h->corrupt || !h->ring || !h->tail) {
		err = -ENOMEM;
		goto out_free;
	}
	/* No MFD_CLOEXEC: the target, and any image it execs, inherits it.
	 * Sealed against shrinking: a target that truncated the memfd would
	 * make every access of ours past the new end a SIGBUS. */
	h->fd = memfd_create("spool-shm", MFD_ALLOW_SEALING);
	if (h->fd < 0) {
		err = -errno;
		goto out_free;
	}
	/* The memfd's size counts against RLIMIT_FSIZE (ulimit -f): past it
	 * the kernel sends SIGXFSZ, which would kill spool; ignored for this
	 * one call, the limit is an error (EFBIG) the caller reports. */
	sigaction(SIGXFSZ, &(struct sigaction){.sa_handler = SIG_IGN}, &old_xfsz);
	err = ftruncate(h->fd, (off_t)size) < 0 ? -errno : 0;
	sigaction(SIGXFSZ, &old_xfsz, NULL);
	if (err || fcntl(h->fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_SEAL) < 0) {
		err = err ? err : -errno;
		goto out_close;
	}
	c = mmap(NULL, shm_head_map_size(max_procs), PROT_READ | PROT_WRITE, MAP_SHARED, h->fd, 0);
	if (c == MAP_FAILED) {
		err = -errno;
		goto out_close;
	}
	h->ctl = c;
	h->max_procs = max_procs;
	h->size = size;
	h->ring_bytes = ring_bytes;
	h->max_rings = max_rings;
	h->watermark = ring_bytes / 4;
	for (unsigned i = 0; ext_bytes && i < SHM_MAX_EXT; i++) {
		if (!ext_off[i])
			continue;
		h->ext[i] = mmap(NULL, ext_bytes[i], PROT_READ | PROT_WRITE, MAP_SHARED, h->fd,
				 (off_t)ext_off[i]);
		if (h->ext[i] == MAP_FAILED) {
			err = -errno;
			h->ext[i] = NULL;
			goto out_unmap;
		}
		h->ext_offset[i] = ext_off[i];
		h->ext_size[i] = ext_bytes[i];
	}

	c->version = SHM_VERSION;
	c->ctl_size = SHM_CTL_SIZE;
	c->total_size = size;
	c->procs_offset = SHM_CTL_SIZE;
	c->rings_offset = shm_rings_offset(max_procs);
	c->ring_bytes = ring_bytes;
	c->max_rings = max_rings;
	c->max_procs = max_procs;
	c->watermark = h->watermark;
	c->stack_depth = stack_depth;
	c->host_pid = (uint32_t)getpid();
	c->host_pidns = shm_host_pidns();
	c->nlocks = 1; /* lock index 0 means "no lock" */
	c->features = SHM_FEAT_LOCKS;
	for (unsigned i = 0; i < SHM_MAX_EXT; i++) {
		c->ext_offset[i] = h->ext_offset[i];
		c->ext_size[i] = h->ext_size[i];
	}
	/* The magic goes last: an agent that sees it sees a complete block. */
	__atomic_store_n(&c->magic, SHM_MAGIC, __ATOMIC_RELEASE);
	return 0;

out_unmap:
	for (unsigned i = 0; i < SHM_MAX_EXT; i++)
		if (h->ext[i])
			munmap(h->ext[i], h->ext_size[i]);
	munmap(h->ctl, shm_head_map_size(max_procs));
	h->ctl = NULL;
out_close:
	close(h->fd);
	h->fd = -1;
out_free:
	free(h->corrupt);
	free(h->ring);
	free(h->tail);
	memset(h, 0, sizeof(*h));
	h->fd = -1;
	return err;
}

void shm_host_destroy(struct shm_host *h)
{
	for (uint32_t i = 0; h->ring && i < h->max_rings; i++)
		if (h->ring[i])
			munmap(h->ring[i], shm_ring_map_size(h->ring_bytes));
	for (unsigned i = 0; i < SHM_MAX_EXT; i++)
		if (h->ext[i])
			munmap(h->ext[i], h->ext_size[i]);
	if (h->ctl)
		munmap(h->ctl, shm_head_map_size(h->max_procs));
	if (h->fd >= 0)
		close(h->fd);
	free(h->corrupt);
	free(h->ring);
	free(h->tail);
	free(h->scratch);
	memset(h, 0, sizeof(*h));
	h->fd = -1;
}

uint32_t shm_host_nrings(struct shm_host *h)
{
	uint32_t n = __atomic_load_n(&h->ctl->nrings, __ATOMIC_ACQUIRE);

	/* Threads beyond max_rings bump nrings too but get no ring; a target
	 * that rewrites the allocator cannot hide rings already handed out. */
	if (n > h->max_rings)
		n = h->max_rings;
	if (n > h->nrings_seen)
		h->nrings_seen = n;
	/* Rings are handed out in order, and a claimed ring is marked
	 * active at once: the next ring's own header says whether it was
	 * claimed, even if the program set the allocator back before we
	 * looked at it. */
	while (h->nrings_seen < h->max_rings) {
		struct shm_ring r;

		if (shm_host_ring_peek(h, h->nrings_seen, &r) < 0 ||
		    (r.state == RING_FREE && !r.head && !r.lost))
			break;
		h->nrings_seen++;
	}
	return h->nrings_seen;
}

struct shm_ring *shm_host_ring(struct shm_host *h, uint32_t i)
{
	void *p;

	if (i >= h->max_rings)
		return NULL;
	p = __atomic_load_n(&h->ring[i], __ATOMIC_ACQUIRE);
	if (p)
		return p;
	p = mmap(NULL, shm_ring_map_size(h->ring_bytes), PROT_READ | PROT_WRITE, MAP_SHARED, h->fd,
		 (off_t)shm_ring_offset(h->ring_bytes, h->max_procs, i));
	if (p == MAP_FAILED)
		return NULL;
	__atomic_store_n(&h->ring[i], (struct shm_ring *)p, __ATOMIC_RELEASE);
	return p;
}

struct shm_ring *shm_host_ring_mapped(struct shm_host *h, uint32_t i)
{
	return i < h->max_rings ? h->ring[i] : NULL;
}

void shm_host_ring_unmap(struct shm_host *h, uint32_t i)
{
	struct shm_ring *r;

	if (i >= h->max_rings || !(r = h->ring[i]))
		return;
	__atomic_store_n(&h->ring[i], NULL, __ATOMIC_RELEASE);
	munmap(r, shm_ring_map_size(h->ring_bytes));
}

int shm_host_ring_peek(struct shm_host *h, uint32_t i, struct shm_ring *out)
{
	if (i >= h->max_rings)
		return -EINVAL;
	/* Always a pread, never our mapping: the collector unmaps a ring
	 * when it frees it, and a sampling thread (sysprobe.c) peeks too;
	 * the file's pages are the mapping's, so the copy is the same. */
	return shm_host_pread(h, out, sizeof(*out),
			      shm_ring_offset(h->ring_bytes, h->max_procs, i));
}

/* Room for a record of len bytes in h->scratch. */
static int shm_host_scratch(struct shm_host *h, size_t len)
{
	void *p;

	if (len <= h->scratch_cap)
		return 0;
	p = realloc(h->scratch, len);
	if (!p)
		return -ENOMEM;
	h->scratch = p;
	h->scratch_cap = len;
	return 0;
}

int shm_host_drain_ring(struct shm_host *h, uint32_t i,
			int (*cb)(void *arg, const struct rec_hdr *rec), void *arg)
{
	struct shm_ring *r;
	unsigned char *data;
	uint32_t size = h->ring_bytes;
	uint64_t head, tail;
	int n = 0, ret;

	if (i >= shm_host_nrings(h))
		return -EINVAL;
	if (h->corrupt[i])
		return -EPROTO;
	r = shm_host_ring(h, i);
	if (!r)
		return -ENOMEM;
	data = shm_ring_data(r);
	/* head is read once: later changes are seen at the next drain. */
	head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
	tail = h->tail[i];
	if (head - tail > size)
		goto corrupt;

	while (tail != head) {
		uint64_t off = tail & (size - 1);
		uint64_t left = size - off;
		struct rec_hdr hd;

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
		/* Copy, then check the copy: the target may change the ring
		 * between our check and our use. */
		memcpy(&hd, data + off, sizeof(hd));
		if (hd.size % 8 || hd.size < sizeof(struct rec_hdr) || hd.size > left ||
		    hd.size > head - tail)
			goto corrupt;
		if (ev_kind(hd.word) == KIND_PAD) {
			/* A pad always runs exactly to the end of the data area. */
			if (hd.size != left)
				goto corrupt;
		} else {
			ret = shm_host_scratch(h, hd.size);
			if (ret < 0)
				return ret;
			/* A probe hit, most records of a probed program: a copy
			 * of constant size, inlined (no call into libc). */
			if (hd.size == sizeof(struct rec_probe))
				memcpy(h->scratch, data + off, sizeof(struct rec_probe));
			else
				memcpy(h->scratch, data + off, hd.size);
			*h->scratch = hd;
			ret = cb(arg, h->scratch);
			if (ret) {
				h->tail[i] = tail;
				__atomic_store_n(&r->tail, tail, __ATOMIC_RELEASE);
				return ret;
			}
			n++;
		}
		tail += hd.size;
		h->tail[i] = tail;
		/* Free space as we go so a fast producer loses less. */
		__atomic_store_n(&r->tail, tail, __ATOMIC_RELEASE);
	}
	return n;

corrupt:
	h->corrupt[i] = 1;
	return -EPROTO;
}

int shm_host_drain_packets(struct shm_host *h, uint32_t i, int mode,
			   int (*cb)(void *arg, uint8_t *pkt, size_t len, int open), void *arg)
{
	uint32_t size = h->ring_bytes, slot = shm_pkt_slot(h->ring_bytes);
	struct shm_ring *r;
	unsigned char *data;
	uint64_t head, tail;
	int n = 0, ret;

	if (i >= shm_host_nrings(h))
		return -EINVAL;
	if (h->corrupt[i])
		return -EPROTO;
	r = shm_host_ring(h, i);
	if (!r)
		return -ENOMEM;
	ret = shm_host_scratch(h, slot);
	if (ret < 0)
		return ret;
	data = shm_ring_data(r);
	head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
	tail = h->tail[i];
	if (head - tail > size)
		goto corrupt;
	/* tail is ours and always at a slot boundary. The producer's head
	 * is at its slot's end once it has finished a packet, inside the slot
	 * while the packet is open. */
	while (tail != head) {
		uint8_t *b = (uint8_t *)h->scratch;
		int open = head - tail < slot;
		uint64_t len, used = open ? head - tail : slot;

		if (open && mode == SHM_DRAIN_LIVE)
			break;
		/* Copy, then check the copy: the target may change the ring
		 * between our check and our use. */
		memcpy(b, data + (tail & (size - 1)), used);
		if (used <= RING_PKT_HDR || ring_pkt_get32(b) != RING_PKT_MAGIC)
			goto corrupt;
		if (!open) {
			len = ring_pkt_get64(b + RING_PKT_CONTENT);
			if (len % 8 || len / 8 <= RING_PKT_HDR || len / 8 > slot ||
			    ring_pkt_get64(b + RING_PKT_PACKET) != len)
				goto corrupt;
			len /= 8;
		} else {
			/* An open packet whose writer is gone, or a flush's copy
			 * of a live one: whole up to head (the writer publishes
			 * head after each whole event; events and timestamp_end
			 * may already be the next event's, so cb sets them from
			 * what is there, trace_pkt2_check). */
			len = used;
			ring_pkt_put64(b + RING_PKT_CONTENT, len * 8);
			ring_pkt_put64(b + RING_PKT_PACKET, len * 8);
		}
		ret = cb(arg, b, len, open ? mode : 0);
		if (ret == -EPROTO)
			goto corrupt; /* its events are damaged */
		if (ret)
			return ret;
		n++;
		if (open && mode == SHM_DRAIN_PEEK)
			break; /* still the writer's */
		tail += slot;
		if (open) {
			/* Nothing writes the ring now: head moves on with tail,
			 * so a next owner starts at a slot boundary and the
			 * ring reads as drained. */
			__atomic_store_n(&r->head, tail, __ATOMIC_RELEASE);
			head = tail;
		}
		h->tail[i] = tail;
		__atomic_store_n(&r->tail, tail, __ATOMIC_RELEASE);
	}
	return n;

corrupt:
	h->corrupt[i] = 1;
	return -EPROTO;
}

int shm_host_proc_text(struct shm_host *h, uint32_t i, int which, char **out, size_t *len, int *cut)
{
	struct shm_proc *p;
	uint64_t off, n;
	uint32_t flags;
	char *buf;
	int rc;

	*out = NULL;
	*len = 0;
	*cut = 0;
	if (i >= h->max_procs)
		return -EINVAL;
	p = shm_proc_at(h->ctl, i);
	/* Each field is read once, then bounded: a slot the target rewrote
	 * yields wrong text, never a read outside the area. */
	flags = __atomic_load_n(&p->text_flags, __ATOMIC_RELAXED);
	if (which == 0) {
		off = 0;
		n = __atomic_load_n(&p->cmdline_len, __ATOMIC_RELAXED);
		*cut = !!(flags & SHM_TEXT_CMDLINE_CUT);
	} else {
		off = __atomic_load_n(&p->maps_off, __ATOMIC_RELAXED);
		n = __atomic_load_n(&p->maps_len, __ATOMIC_RELAXED);
		*cut = !!(flags & SHM_TEXT_MAPS_CUT);
	}
	if (off > SHM_PROC_TEXT_BYTES || n > SHM_PROC_TEXT_BYTES - off) {
		/* Out of bounds: the slot is damaged, its text unknown. */
		*cut = 1;
		n = 0;
	}
	buf = malloc(n + 1);
	if (!buf)
		return -ENOMEM;
	rc = n ? shm_host_pread(h, buf, n, shm_proc_text_offset(i) + off) : 0;
	if (rc < 0) {
		free(buf);
		return rc;
	}
	buf[n] = 0;
	*out = buf;
	*len = n;
	return 0;
}

/* Any ring already filled past the watermark? Only rings we have mapped
 * (a ring is mapped at its first drain; the timeout covers the others). */
static int shm_host_ready(struct shm_host *h)
{
	uint32_t n = shm_host_nrings(h), i;
	uint32_t wm = h->watermark;

	for (i = 0; i < n; i++) {
		struct shm_ring *r = __atomic_load_n(&h->ring[i], __ATOMIC_ACQUIRE);

		if (!r || h->corrupt[i])
			continue;
		if (__atomic_load_n(&r->head, __ATOMIC_ACQUIRE) - h->tail[i] >= wm)
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
