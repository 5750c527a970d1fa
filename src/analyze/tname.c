// SPDX-License-Identifier: MIT
/*
 * tname.c - the (pid, tid) -> thread number map that finds whom a
 * KIND_TNAME record renames (tname.h). A hash table, open addressing,
 * so 100,000 thread starts cost no more than one pass.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../common/event.h"
#include "tname.h"

static uint64_t tname_key(uint32_t pid, uint32_t tid)
{
	/* never 0: the empty slot (pid 0 is not a process's) */
	return (uint64_t)pid << 32 | tid | (uint64_t)1 << 63;
}

static size_t tname_hash(uint64_t k, size_t cap)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return (size_t)k & (cap - 1);
}

static int tname_grow(struct tname_map *m)
{
	size_t cap = m->cap ? m->cap * 2 : 64;
	struct tname_slot *s = calloc(cap, sizeof(*s));

	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < m->cap; i++) {
		size_t j;

		if (!m->slot[i].key)
			continue;
		for (j = tname_hash(m->slot[i].key, cap); s[j].key; j = (j + 1) & (cap - 1))
			;
		s[j] = m->slot[i];
	}
	free(m->slot);
	m->slot = s;
	m->cap = cap;
	return 0;
}

int tname_note(struct tname_map *m, uint32_t pid, uint32_t tid, uint32_t thread)
{
	uint64_t k = tname_key(pid, tid);
	size_t j;

	if ((m->n + 1) * 2 > m->cap && tname_grow(m))
		return -ENOMEM;
	for (j = tname_hash(k, m->cap); m->slot[j].key; j = (j + 1) & (m->cap - 1))
		if (m->slot[j].key == k) {
			m->slot[j].thread = thread;
			return 0;
		}
	m->slot[j].key = k;
	m->slot[j].thread = thread;
	m->n++;
	return 0;
}

int tname_find(const struct tname_map *m, uint32_t pid, uint32_t tid, uint32_t *thread)
{
	uint64_t k = tname_key(pid, tid);

	if (!m->cap)
		return -ENOENT;
	for (size_t j = tname_hash(k, m->cap); m->slot[j].key; j = (j + 1) & (m->cap - 1))
		if (m->slot[j].key == k) {
			*thread = m->slot[j].thread;
			return 0;
		}
	return -ENOENT;
}

void tname_free(struct tname_map *m)
{
	free(m->slot);
	memset(m, 0, sizeof(*m));
}

int tname_event(const struct trace_event *ev, uint32_t *pid, uint32_t *tid, char out[17])
{
	const struct rec_tname *r = (const struct rec_tname *)ev->rec;

	if (!r || ev_kind(r->h.word) != KIND_TNAME || r->h.size < sizeof(*r))
		return -EINVAL;
	*pid = r->pid;
	*tid = r->tid;
	memcpy(out, r->name, sizeof(r->name));
	out[sizeof(r->name)] = 0;
	return 0;
}
