// SPDX-License-Identifier: MIT
/*
 * agent_lazy.c - an array in a feature area of the shared region that the
 * agent maps a 64 KiB chunk at a time, the first time an element of the
 * chunk is used. RLIMIT_AS counts every mapped byte (even of a memfd page
 * never touched), so spool record mapping its 4 MiB of turn words and
 * 8 MiB of serial slots whole took 12 MiB from a program under a tight
 * `ulimit -v`; mapped this way a program pays 64 KiB per 16,384 lock
 * objects and per 1,024 threads it created.
 *
 * Signal safety: agent_lazy_at may run in any thread, in a signal handler,
 * at once in two threads for one chunk: each maps it, one publishes its
 * mapping with a CAS, the other unmaps its own. A chunk once published
 * stays for the life of the process (and of its fork children, which
 * inherit it).
 */
#include <string.h>
#include <sys/mman.h>

#include "agent.h"

uint32_t agent_lazy_init(struct agent_lazy *l, unsigned ext, uint64_t off, uint32_t elem,
			 uint32_t n, char *whole)
{
	uint64_t total = agent_ext_size(ext), per, fit;

	memset(l, 0, sizeof(*l));
	/* Chunks are mapped at page offsets; a whole area may put the array
	 * anywhere (a replay's are packed). */
	if (!elem || AGENT_LAZY_CHUNK_BYTES % elem || (!whole && off % SHM_PAGE) || off > total)
		return 0;
	per = AGENT_LAZY_CHUNK_BYTES / elem;
	fit = (total - off) / elem;
	if (!whole)
		fit = (total - off) / AGENT_LAZY_CHUNK_BYTES * per; /* whole chunks only */
	if (n > fit)
		n = (uint32_t)fit;
	if (n > per * AGENT_LAZY_CHUNKS)
		n = (uint32_t)(per * AGENT_LAZY_CHUNKS);
	l->ext = ext;
	l->off = off;
	l->elem = elem;
	l->n = n;
	if (whole)
		for (uint64_t k = 0; k * per < n; k++)
			l->chunk[k] = whole + off + k * AGENT_LAZY_CHUNK_BYTES;
	return n;
}

void *agent_lazy_at(struct agent_lazy *l, uint32_t i)
{
	uint32_t per, k;
	char *c, *old = NULL;

	if (i >= l->n)
		return NULL;
	per = AGENT_LAZY_CHUNK_BYTES / l->elem;
	k = i / per;
	c = __atomic_load_n(&l->chunk[k], __ATOMIC_ACQUIRE);
	if (!c) {
		c = agent_ext_piece(l->ext, l->off + (uint64_t)k * AGENT_LAZY_CHUNK_BYTES,
				    AGENT_LAZY_CHUNK_BYTES);
		if (!c)
			return NULL;
		if (!__atomic_compare_exchange_n(&l->chunk[k], &old, c, 0, __ATOMIC_ACQ_REL,
						 __ATOMIC_ACQUIRE)) {
			munmap(c, AGENT_LAZY_CHUNK_BYTES);
			c = old;
		}
	}
	return c + (uint64_t)(i % per) * l->elem;
}
