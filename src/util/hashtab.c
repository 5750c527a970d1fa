// SPDX-License-Identifier: MIT
/*
 * hashtab.c - open-addressing hash table of fixed-size entries keyed by
 * (u64, u32) (hashtab.h): linear probing, at most half full, doubled when
 * it would be fuller.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hashtab.h"

#define HASHTAB_MIN_CAP 256

void hashtab_init(struct hashtab *t, size_t esize)
{
	memset(t, 0, sizeof(*t));
	t->esize = esize;
}

static struct hashtab_head *hashtab_slot(const struct hashtab *t, size_t i)
{
	return (struct hashtab_head *)(t->slots + i * t->esize);
}

static size_t hashtab_hash(uint64_t a, uint32_t b)
{
	uint64_t h = (a ^ ((uint64_t)b << 32 | b)) * 0x9e3779b97f4a7c15ULL;

	return (size_t)(h ^ (h >> 29));
}

/* The slot of key (a, b): its own, or the free one where it goes. The
 * table has a free slot (it is at most half full). */
static struct hashtab_head *hashtab_probe(const struct hashtab *t, uint64_t a, uint32_t b)
{
	size_t i = hashtab_hash(a, b) & (t->cap - 1);
	struct hashtab_head *h;

	for (;; i = (i + 1) & (t->cap - 1)) {
		h = hashtab_slot(t, i);
		if (!h->used || (h->a == a && h->b == b))
			return h;
	}
}

void *hashtab_find(const struct hashtab *t, uint64_t a, uint32_t b)
{
	struct hashtab_head *h;

	if (!t->cap)
		return NULL;
	h = hashtab_probe(t, a, b);
	return h->used ? h : NULL;
}

static int hashtab_grow(struct hashtab *t)
{
	struct hashtab old = *t;
	size_t ncap = t->cap ? t->cap * 2 : HASHTAB_MIN_CAP;

	t->slots = calloc(ncap, t->esize);
	if (!t->slots) {
		t->slots = old.slots;
		return -ENOMEM;
	}
	t->cap = ncap;
	for (size_t i = 0; i < old.cap; i++) {
		const struct hashtab_head *h = hashtab_slot(&old, i);

		if (h->used)
			memcpy(hashtab_probe(t, h->a, h->b), h, t->esize);
	}
	free(old.slots);
	return 0;
}

void *hashtab_get(struct hashtab *t, uint64_t a, uint32_t b, int *added)
{
	struct hashtab_head *h;

	*added = 0;
	if ((t->used + 1) * 2 > t->cap && hashtab_grow(t) < 0)
		return NULL;
	h = hashtab_probe(t, a, b);
	if (!h->used) {
		h->a = a;
		h->b = b;
		h->used = 1;
		t->used++;
		*added = 1;
	}
	return h;
}

void *hashtab_at(const struct hashtab *t, size_t i)
{
	struct hashtab_head *h = hashtab_slot(t, i);

	return h->used ? h : NULL;
}

void hashtab_free(struct hashtab *t)
{
	free(t->slots);
	t->slots = NULL;
	t->cap = t->used = 0;
}
