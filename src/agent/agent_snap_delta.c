// SPDX-License-Identifier: MIT
/*
 * agent_snap_delta.c - which pages a recording's snapshot must hold
 * (doc/trace-format.md "Snapshots", RR_SNAP_DELTA): the copy of snapshot N
 * hashes every page it would write and keeps the hashes in
 * TRACE/.spool/snap/snap_<N>.pgh; the copy of snapshot N+1 loads them and
 * writes only the pages whose hash changed (a delta of N), or the whole
 * image when there is no such file (the copy of N is still writing, failed,
 * or RR_SNAP_CHAIN_MAX deltas are in a row already). Comparing and not
 * soft-dirty bits: a page that MADV_DONTNEED emptied and a read mapped
 * again is not soft-dirty, yet it changed; hashing costs the copy one
 * read of the memory, on another CPU than the program's.
 *
 * The .pgh file is spool's own between two copies of one recording
 * (agent pid and start time in its header: a file left by another
 * recording is not used); spool record removes them at its end.
 *
 * Agent rules: runs in the copy (one thread, the others parked): no
 * malloc, no stdio, raw system calls, memory from agent_vm_map.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../replay/rr_snap_fmt.h"
#include "agent_snap.h"

#define PGH_MAGIC "SPPGH001"
#define PGH_MAX (1ull << 32) /* a hash file this big is not one of ours */

struct pgh_hdr {
	char magic[8];
	uint64_t index;	  /* the snapshot's number */
	uint64_t nonce_a; /* the recording: agent pid */
	uint64_t nonce_b; /* ... and its start time */
	uint32_t depth;	  /* deltas in a row up to this one (0: whole) */
	uint32_t pad;
	uint64_t nregions, npages;
	/* then nregions x {start, end}, then npages u64 hashes, in order */
};

/* XXH64's round over the page's words, four lanes: 64 bits, about 10 GB/s. */
#define P1 11400714785074694791ull
#define P2 14029467366897019727ull
#define P3 1609587929392839161ull
static inline uint64_t rotl(uint64_t x, int r)
{
	return (x << r) | (x >> (64 - r));
}

static inline uint64_t round64(uint64_t acc, uint64_t in)
{
	return rotl(acc + in * P2, 31) * P1;
}

static uint64_t page_hash(const uint64_t *w)
{
	uint64_t a = P1 + P2, b = P2, c = 0, d = (uint64_t)0 - P1, h;

	for (unsigned i = 0; i < RR_SNAP_PAGE / 8; i += 4) {
		a = round64(a, w[i]);
		b = round64(b, w[i + 1]);
		c = round64(c, w[i + 2]);
		d = round64(d, w[i + 3]);
	}
	h = rotl(a, 1) + rotl(b, 7) + rotl(c, 12) + rotl(d, 18);
	h ^= h >> 33;
	h *= P2;
	h ^= h >> 29;
	h *= P3;
	return h ^ (h >> 32);
}

static uint64_t delta_zero_hash(void)
{
	static uint64_t zh;
	static int have;

	if (!have) {
		static const uint64_t zeros[RR_SNAP_PAGE / 8];

		zh = page_hash(zeros);
		have = 1;
	}
	return zh;
}

static int delta_page_zero(const uint64_t *w)
{
	uint64_t acc = 0;

	for (unsigned i = 0; i < RR_SNAP_PAGE / 8; i++)
		acc |= w[i];
	return acc == 0;
}

/* The previous copy's table, when it is of this recording and index - 1. */
static void delta_load(struct agent_snap_delta *d, const char *prev_path, uint64_t index)
{
	struct pgh_hdr h;
	struct stat st;
	long fd = syscall(SYS_openat, AT_FDCWD, prev_path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	uint64_t need;
	char *p;
	size_t got = 0;

	if (fd < 0)
		return;
	if (syscall(SYS_fstat, fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_size < sizeof(h) || (uint64_t)st.st_size > PGH_MAX ||
	    syscall(SYS_pread64, fd, &h, sizeof(h), 0) != (long)sizeof(h))
		goto out;
	if (memcmp(h.magic, PGH_MAGIC, 8) || h.index + 1 != index || h.nonce_a != d->nonce_a ||
	    h.nonce_b != d->nonce_b || h.depth + 1 >= RR_SNAP_CHAIN_MAX ||
	    h.nregions > PGH_MAX / 16 || h.npages > PGH_MAX / 8)
		goto out;
	need = sizeof(h) + h.nregions * 16 + h.npages * 8;
	if (need != (uint64_t)st.st_size)
		goto out;
	p = agent_vm_map(need, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		goto out;
	while (got < need) {
		long k = syscall(SYS_pread64, fd, p + got, need - got, (long)got);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			goto out;
		got += (size_t)k;
	}
	d->preg = (const uint64_t *)(p + sizeof(h));
	d->phash = d->preg + 2 * h.nregions;
	d->pnreg = h.nregions;
	d->pnpages = h.npages;
	d->depth = h.depth + 1;
	d->on = 1;
out:
	syscall(SYS_close, fd);
}

int agent_snap_delta_open(struct agent_snap_delta *d, const char *prev_path, uint64_t index,
			  uint64_t nregions, uint64_t npages)
{
	size_t len = sizeof(struct pgh_hdr) + nregions * 16 + npages * 8;
	struct pgh_hdr *h;

	d->len = len;
	d->tab = agent_vm_map(len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	d->bits = agent_vm_map((npages + 64) / 64 * 8, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	d->nzbits = agent_vm_map((npages + 64) / 64 * 8, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (d->tab == MAP_FAILED || d->bits == MAP_FAILED || d->nzbits == MAP_FAILED) {
		d->tab = NULL;
		return -ENOMEM;
	}
	h = (struct pgh_hdr *)d->tab;
	memcpy(h->magic, PGH_MAGIC, 8);
	h->index = index;
	h->nonce_a = d->nonce_a;
	h->nonce_b = d->nonce_b;
	h->nregions = nregions;
	h->npages = npages;
	d->reg = (uint64_t *)(d->tab + sizeof(*h));
	d->hash = d->reg + 2 * nregions;
	d->cap_reg = nregions;
	d->cap_pages = npages;
	if (prev_path && index > 1)
		delta_load(d, prev_path, index);
	h->depth = d->on ? d->depth : 0;
	return 0;
}

/* The previous table's hash of the page at addr; 0 with *found 0 when it
 * held no such page. The regions come in increasing order. */
static uint64_t delta_prev(struct agent_snap_delta *d, uint64_t addr, int *found)
{
	while (d->pcur < d->pnreg && d->preg[2 * d->pcur + 1] <= addr) {
		d->pbase += (d->preg[2 * d->pcur + 1] - d->preg[2 * d->pcur]) / RR_SNAP_PAGE;
		d->pcur++;
	}
	*found = 0;
	if (d->pcur < d->pnreg && d->preg[2 * d->pcur] <= addr) {
		uint64_t i = d->pbase + (addr - d->preg[2 * d->pcur]) / RR_SNAP_PAGE;

		if (i < d->pnpages) {
			*found = 1;
			return d->phash[i];
		}
	}
	return 0;
}

uint64_t agent_snap_delta_region(struct agent_snap_delta *d, uint64_t start, uint64_t end)
{
	uint64_t n = (end - start) / RR_SNAP_PAGE, changed = 0;

	if (!d->tab || d->nreg >= d->cap_reg || n > d->cap_pages - d->npages) {
		d->tab = NULL; /* (cannot be: both passes read one copy of the maps) */
		d->on = 0;
		return UINT64_MAX;
	}
	memset(d->bits, 0, (n + 63) / 64 * 8);
	memset(d->nzbits, 0, (n + 63) / 64 * 8);
	d->nonzero = 0;
	d->found = 0;
	d->reg[2 * d->nreg] = start;
	d->reg[2 * d->nreg + 1] = end;
	d->nreg++;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t a = start + i * RR_SNAP_PAGE, h = page_hash((const uint64_t *)(uintptr_t)a);
		int found = 0;
		uint64_t old = d->on ? delta_prev(d, a, &found) : 0;

		d->hash[d->npages++] = h;
		if (!found || old != h) {
			d->bits[i / 64] |= 1ull << (i % 64);
			changed++;
		}
		d->found += (uint64_t)found;
		/* (the zeros' hash is known: the words are looked at only then) */
		if (h != delta_zero_hash() || !delta_page_zero((const uint64_t *)(uintptr_t)a)) {
			d->nzbits[i / 64] |= 1ull << (i % 64);
			d->nonzero++;
		}
	}
	return changed;
}

void agent_snap_delta_save(struct agent_snap_delta *d, const char *tmp, const char *fin)
{
	struct pgh_hdr *h = (struct pgh_hdr *)d->tab;
	size_t len, off = 0;
	long fd;

	if (!d->tab || d->nreg != d->cap_reg || d->npages != d->cap_pages)
		return;
	len = sizeof(*h) + h->nregions * 16 + h->npages * 8;
	fd = syscall(SYS_openat, AT_FDCWD, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	while (off < len) {
		long k = syscall(SYS_write, fd, d->tab + off, len - off);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		off += (size_t)k;
	}
	syscall(SYS_close, fd);
	if (off == len)
		arch_sys_rename(tmp, fin);
	else
		syscall(SYS_unlinkat, AT_FDCWD, tmp, 0);
}
