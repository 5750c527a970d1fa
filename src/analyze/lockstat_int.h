// SPDX-License-Identifier: MIT
/*
 * lockstat_int.h - what the parts of the lock analyzer share and nobody else
 * sees: the state structures behind struct lockstat and a few helpers.
 *
 * lockstat.c feeds events into this state and answers the queries,
 * lockstat_cycles.c finds the cycles of the lock-order graph at finish, and
 * lockstat_print.c reads the finished state to print the text and JSON
 * reports. Only lockstat.c changes the state while events are fed; the other
 * two run after lockstat_finish (cycles from inside it).
 */
#ifndef SPOOL_ANALYZE_LOCKSTAT_INT_H
#define SPOOL_ANALYZE_LOCKSTAT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lockstat.h"
#include "tname.h"

struct ls_slot {
	uint64_t h;
	uint32_t idx1; /* entry index + 1; 0 = empty */
};

/* Open addressing, linear probing, never more than 3/4 full. */
struct ls_map {
	struct ls_slot *slots;
	size_t cap, n;
};

/* Frames of a hold or wait in progress (--stacks). The buffer only grows
 * and is reused by the next hold, so the hot path allocates only while the
 * deepest stack seen so far grows. */
struct ls_stk {
	uint64_t *f;
	uint32_t n, cap;
};

/* Entries of ls_thread.held own their stk buffer, also past nheld: they are
 * swapped, never overwritten. */
struct ls_held {
	uint32_t lock;
	int read;
	uint64_t ip;
	struct ls_stk stk; /* frames above ip */
};

struct ls_lock {
	struct lockstat_lock_info info;
	uint32_t last_acq;	 /* thread index + 1 of the previous acquirer */
	uint32_t wholder;	 /* thread index + 1 of the exclusive holder, 0 none */
	uint64_t wholder_ip;	 /* where it acquired */
	uint32_t last_holder;	 /* thread index + 1 of the last exclusive hold released */
	uint64_t last_holder_ip; /* where that hold was taken */
	uint32_t readers;	 /* rwlock readers holding now */
	uint64_t reader_ip;	 /* acquisition site of the most recent reader */
	uint32_t reader;	 /* thread index + 1 of that reader */
	/* frames above wholder_ip, last_holder_ip and reader_ip */
	struct ls_stk wholder_stk, last_holder_stk, reader_stk;
};

struct ls_thread {
	struct lockstat_thread_info info;
	struct ls_held *held; /* locks held now, in no particular order */
	uint32_t nheld, capheld;
	uint32_t cond_mutex; /* mutex given up by a cond wait and not yet taken back */
};

struct ls_tl {
	uint32_t thread, lock;
	uint64_t contend_ns, contend_ip, contend_holder_ip;
	uint64_t hold_ns, hold_ip;
	uint64_t wait_ns; /* start of a cond or barrier wait */
	uint32_t depth;	  /* recursion depth of the hold, 0 = not held */
	uint8_t contend_pending, contend_read, contend_holder_read, hold_read, waiting;
	uint8_t futex_waited, futex_woke; /* counted in futex_waiters, futex_wakers */
	uint32_t contend_holder;	  /* thread index + 1 of that holder, 0 unknown */
	struct ls_stk contend_holder_stk; /* its frames, copied at CONTEND time */
};

struct lockstat {
	struct lockstat_opts opts;
	struct lockstat_totals tot;
	bool have_ns, finished;

	struct ls_lock **locks; /* by lock index */
	size_t caplocks;
	struct ls_thread **threads; /* by thread index */
	size_t capthreads;

	struct ls_tl *tls;
	size_t ntl, captl;
	struct ls_map tlmap;

	struct lockstat_site_pair *sites;
	size_t nsites, capsites;
	struct ls_map sitemap;

	struct lockstat_edge *edges;
	size_t nedges, capedges;
	struct ls_map edgemap;

	struct lockstat_cycle *cycles;
	size_t ncycles, capcycles;

	struct tname_map tnames; /* whom a KIND_TNAME renames */
};

static inline uint64_t ls_mix(uint64_t x)
{
	/* splitmix64 finalizer: a bijection, so equal hashes mean equal
	 * 64-bit keys */
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

static inline uint64_t ls_dur(uint64_t from, uint64_t to)
{
	return to > from ? to - from : 0;
}

/* Lock types that have an owner and a hold time. */
static inline bool ls_type_holds(uint32_t type)
{
	/* 0: no LOCKDEF seen and no op told us; treat like a mutex */
	return type == 0 || type == LOCK_TYPE_MUTEX || type == LOCK_TYPE_RWLOCK ||
	       type == LOCK_TYPE_SPIN;
}

/* Grow *p (an array of elem-byte entries, *cap of them) to hold need; new
 * entries are zeroed. 0 or -ENOMEM (*p is then unchanged). */
int lockstat_grow(void **p, size_t *cap, size_t need, size_t elem);
/* Entry index stored under hash h in a map whose hash is the key, or -1. */
int lockstat_map_find(const struct ls_map *m, uint64_t h);

/* lockstat_cycles.c: fill ls->cycles from ls->edges (called by finish). */
int lockstat_find_cycles(struct lockstat *ls);
void lockstat_cycles_free(struct lockstat *ls);

#endif
