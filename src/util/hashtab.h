// SPDX-License-Identifier: MIT
/*
 * hashtab.h - a small open-addressing hash table of fixed-size entries keyed
 * by (u64, u32), for the analyzers' caches and sets (spool path's objects
 * per call, functions entered, function names). Entries are the caller's
 * structs, starting with a struct hashtab_head; the table owns their
 * memory. Not thread-safe; not for the agent (it allocates).
 */
#ifndef SPOOL_UTIL_HASHTAB_H
#define SPOOL_UTIL_HASHTAB_H

#include <stddef.h>
#include <stdint.h>

/* The first member of every entry: its key, and whether the slot is one. */
struct hashtab_head {
	uint64_t a;
	uint32_t b;
	uint32_t used;
};

struct hashtab {
	unsigned char *slots; /* cap entries of esize bytes */
	size_t cap;	      /* 0, or a power of two */
	size_t used;
	size_t esize;
};

/* An empty table of entries of esize bytes (>= sizeof(struct hashtab_head)). */
void hashtab_init(struct hashtab *t, size_t esize);

/* The entry of key (a, b), or NULL. */
void *hashtab_find(const struct hashtab *t, uint64_t a, uint32_t b);

/* The entry of key (a, b), made (zeroed past its head, *added = 1) when
 * missing; NULL: no memory. An entry pointer stays valid until the next
 * hashtab_get (the table may grow and move them). */
void *hashtab_get(struct hashtab *t, uint64_t a, uint32_t b, int *added);

/* Slot i (< t->cap): its entry, or NULL when free. For walking a table in
 * slot order (an order of no meaning). */
void *hashtab_at(const struct hashtab *t, size_t i);

void hashtab_free(struct hashtab *t);

#endif
