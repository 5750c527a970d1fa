// SPDX-License-Identifier: MIT
/*
 * shm_scribble.c - a hostile target: it finds spool's shared region
 * (SPOOL_SHM_FD), maps it and writes over it while another thread takes
 * locks, to check that spool survives whatever the program does to the
 * region and says what was damaged (tests/integ/41-shm-scribble.t).
 *
 * Usage: shm_scribble MODE SEED
 *   random   random bytes at random places (the head, the rings in use,
 *            anywhere), at random moments
 *   ctl      the control block's sizes, offsets, magic and counters
 *   heads    every ring's head and tail, and the lost counter
 *   nrings   the ring allocator, set back to 0 as soon as the threads have
 *            claimed theirs, and kept there (spool must still find and
 *            drain those rings)
 *   procs    the process slots' lengths and offsets
 *   records  the data of the rings in use (record sizes and kinds)
 *   shrink   tries to truncate the region (sealed: must fail)
 *   probes   (under spool probe) the probe area's table offsets and counts
 *   rrarea   (under spool record and replay) the record/replay area's
 *            thread table offset and size
 *   rrpid    (under spool record; SEED is a pid) writes that pid as its own
 *            into its process slot and asks spool to kill it (RR_F_STOP):
 *            spool must kill only the program it started
 *   pidslot  (SEED is a pid) writes that pid as its own into its process
 *            slot, then ends normally: spool must not wait for that
 *            process nor call it one of the program's
 * Prints "total=N" (lock/unlock pairs the threads made on the lock
 * scribble_lock) and "shrink=refused" or "shrink=done" in shrink mode.
 * Exits 0.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../src/common/event.h"
#include "../../src/common/shm.h"
#include "../../src/probe/probe_abi.h"
#include "../../src/replay/rr_area.h"

pthread_mutex_t scribble_lock = PTHREAD_MUTEX_INITIALIZER;
static volatile int stop;
static uint64_t total;
static uint64_t rng;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void *locker(void *arg)
{
	(void)arg;
	while (!stop) {
		pthread_mutex_lock(&scribble_lock);
		total++;
		pthread_mutex_unlock(&scribble_lock);
	}
	return NULL;
}

static void nap_us(long us)
{
	/* (tv_nsec must stay below a second: nanosleep refuses the rest
	 * with EINVAL and returns at once) */
	struct timespec ts = {us / 1000000, us % 1000000 * 1000};

	nanosleep(&ts, NULL);
}

/* Random bytes over len bytes at p. */
static void fill(unsigned char *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (unsigned char)next_rand();
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "random";
	const char *fds = getenv(SHM_ENV_FD);
	unsigned char *base;
	struct shm_ctl *c;
	struct stat st;
	pthread_t th[2];
	uint64_t ring0, stride;
	int fd;

	rng = argc > 2 ? strtoull(argv[2], NULL, 0) * 2654435761u + 1 : 1;
	if (!fds) {
		fprintf(stderr, "shm_scribble: no %s (run me under spool)\n", SHM_ENV_FD);
		return 2;
	}
	fd = atoi(fds);
	if (fstat(fd, &st) < 0) {
		perror("fstat");
		return 2;
	}
	base = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	c = (struct shm_ctl *)base;
	ring0 = c->rings_offset;
	stride = shm_ring_stride(c->ring_bytes);

	for (int i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, locker, NULL);
	nap_us(20000); /* the threads have claimed their rings */

	if (!strcmp(mode, "pidslot")) {
		shm_proc_at(base, 0)->pid = (uint32_t)strtoul(argv[2], NULL, 0);
		nap_us(1200000); /* past the collector's once-a-second pass */
	} else if (!strcmp(mode, "rrpid")) {
		uint64_t off = c->ext_offset[SHM_EXT_REPLAY];

		if (!off || off + sizeof(struct rr_area) > (uint64_t)st.st_size) {
			fprintf(stderr, "shm_scribble: no record/replay area (run me under spool record)\n");
			return 2;
		}
		shm_proc_at(base, 0)->pid = (uint32_t)strtoul(argv[2], NULL, 0);
		__atomic_fetch_or(&((struct rr_area *)(base + off))->flags, RR_F_STOP,
				  __ATOMIC_RELEASE);
		nap_us(2000000); /* spool kills us well before this */
	} else if (!strcmp(mode, "rrarea")) {
		uint64_t off = c->ext_offset[SHM_EXT_REPLAY];
		struct rr_area *a = (struct rr_area *)(base + off);

		if (!off || off + sizeof(struct rr_area) > (uint64_t)st.st_size) {
			fprintf(stderr, "shm_scribble: no record/replay area (run me under spool record)\n");
			return 2;
		}
		nap_us(20000);
		a->threads_off = 1ull << 40;
		a->max_threads = 0x7fffffff;
	} else if (!strcmp(mode, "probes")) {
		uint64_t off = c->ext_offset[SHM_EXT_PROBES];

		if (!off || off + sizeof(struct probe_area_hdr) > (uint64_t)st.st_size) {
			fprintf(stderr, "shm_scribble: no probe area (run me under spool probe)\n");
			return 2;
		}
		struct probe_area_hdr *ah = (struct probe_area_hdr *)(base + off);

		ah->nprobes = 0x7fffffff;
		ah->probes_off = 1ull << 40;
		ah->counts_off = 1ull << 40;
		ah->ncounts = 0x7fffffff;
		nap_us(20000);
	} else if (!strcmp(mode, "shrink")) {
		printf("shrink=%s\n", ftruncate(fd, 4096) < 0 ? "refused" : "done");
		fflush(stdout);
	} else if (!strcmp(mode, "ctl")) {
		c->rings_offset = 1ull << 62;
		c->ring_bytes = 12345;
		c->max_rings = 0xffffffffu;
		c->total_size = 1;
		c->procs_offset = ~0ull;
		c->magic = 0;
		c->lost_no_ring = ~0ull;
		for (int i = 0; i < SHM_MAX_EXT; i++)
			c->ext_offset[i] = next_rand();
		nap_us(100000);
	} else if (!strcmp(mode, "nrings")) {
		/* At once and again: spool may not have looked yet. */
		c->nrings = 0;
		for (int k = 0; k < 100; k++) {
			nap_us(1000);
			c->nrings = 0;
		}
	} else if (!strcmp(mode, "heads")) {
		for (uint32_t i = 0; i < 4; i++) {
			struct shm_ring *r = (struct shm_ring *)(base + ring0 + i * stride);

			r->head = next_rand();
			r->tail = next_rand();
			r->lost = ~0ull - i;
		}
		nap_us(100000);
	} else if (!strcmp(mode, "procs")) {
		for (uint32_t i = 0; i < SHM_MAX_PROCS; i++) {
			struct shm_proc *p = shm_proc_at(base, i);

			p->maps_len = (uint32_t)next_rand();
			p->maps_off = next_rand();
			p->cmdline_len = ~0u;
			p->exe_len = (uint32_t)next_rand();
			p->maps_gen += 2;
		}
		nap_us(100000);
	} else if (!strcmp(mode, "records")) {
		for (int k = 0; k < 200; k++) {
			uint32_t i = (uint32_t)(next_rand() % 3);
			uint64_t off = next_rand() % c->ring_bytes;
			unsigned char *d = base + ring0 + i * stride + SHM_RING_HDR;

			fill(d + (off & ~7ull), 8);
			nap_us((long)(next_rand() % 2000));
		}
	} else {
		/* random: the control block, the head, the rings in use,
		 * anywhere in the region. */
		for (int k = 0; k < 300; k++) {
			uint64_t r = next_rand() % 10, off;
			size_t len = 1 + next_rand() % 16;

			if (r < 2)
				off = next_rand() % sizeof(struct shm_ctl);
			else if (r < 4)
				off = next_rand() % SHM_HEAD_SIZE;
			else if (r < 8)
				off = ring0 + (next_rand() % 3) * stride + next_rand() % stride;
			else
				off = next_rand() % (uint64_t)st.st_size;
			if (off + len > (uint64_t)st.st_size)
				len = (size_t)((uint64_t)st.st_size - off);
			fill(base + off, len);
			nap_us((long)(next_rand() % 1000));
		}
	}
	stop = 1;
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	printf("total=%llu\n", (unsigned long long)total);
	return 0;
}
