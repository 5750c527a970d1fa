// SPDX-License-Identifier: MIT
/*
 * lockstat_cycles.c - the potential-deadlock part of the lock analyzer: the
 * cycles of the lock-order graph whose edges lockstat.c collected while
 * events were fed (thread acquired B while holding A). Runs once, from
 * lockstat_finish; the cycles it finds are what the reports call potential
 * deadlocks.
 */
#include <errno.h>
#include <stdlib.h>

#include "lockstat_int.h"

/* Deadlock search limits: cycles reported, start nodes per strongly connected
 * component for the search of cycles of 3 or more locks. */
#define LS_MAX_CYCLES 256
#define LS_MAX_STARTS 32

static int cycle_add(struct lockstat *ls, const uint32_t *locks, const struct lockstat_edge **edges,
		     size_t n)
{
	struct lockstat_cycle *c;
	size_t m = 0;
	int rc;

	/* canonical rotation: smallest lock first, so duplicates compare equal */
	for (size_t i = 1; i < n; i++)
		if (locks[i] < locks[m])
			m = i;
	for (size_t k = 0; k < ls->ncycles; k++) {
		const struct lockstat_cycle *o = &ls->cycles[k];
		size_t i;

		if (o->n != n)
			continue;
		for (i = 0; i < n && o->locks[i] == locks[(m + i) % n]; i++)
			;
		if (i == n)
			return 0;
	}
	if (ls->ncycles >= LS_MAX_CYCLES)
		return 0;
	if ((rc = lockstat_grow((void **)&ls->cycles, &ls->capcycles, ls->ncycles + 1,
				sizeof(*ls->cycles))))
		return rc;
	c = &ls->cycles[ls->ncycles];
	c->locks = calloc(n, sizeof(*c->locks));
	c->edges = calloc(n, sizeof(*c->edges));
	if (!c->locks || !c->edges) {
		free(c->locks);
		free(c->edges);
		c->locks = NULL;
		c->edges = NULL;
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		c->locks[i] = locks[(m + i) % n];
		c->edges[i] = edges[(m + i) % n];
		if (c->edges[i]->from_read || c->edges[i]->to_read)
			c->has_read = 1;
	}
	c->n = n;
	ls->ncycles++;
	return 0;
}

static int edge_cmp(const void *a, const void *b, void *ctx)
{
	const struct lockstat_edge *e = ctx;
	const struct lockstat_edge *x = &e[*(const uint32_t *)a], *y = &e[*(const uint32_t *)b];

	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return x->to < y->to ? -1 : x->to > y->to;
}

/*
 * Cycles of two locks come straight from the edge map. Longer ones: Tarjan's
 * strongly connected components, then, inside each component of 3 or more
 * locks, a breadth-first search from (up to LS_MAX_STARTS of) its locks for
 * the shortest way back of 3 or more edges. That finds the short cycles, not
 * every cycle (which could be exponentially many).
 */
int lockstat_find_cycles(struct lockstat *ls)
{
	size_t nl = ls->caplocks, ne = ls->nedges;
	uint32_t *off = NULL, *adj = NULL, *idx = NULL, *low = NULL, *comp = NULL, *stk = NULL;
	uint32_t *cu = NULL, *cpos = NULL, *dist = NULL, *par = NULL, *queue = NULL;
	uint32_t *csize = NULL, *path = NULL;
	const struct lockstat_edge **pedges = NULL;
	uint8_t *onstk = NULL;
	uint32_t counter = 0, ncomp = 0, sp = 0;
	const uint32_t unset = UINT32_MAX;
	int rc = -ENOMEM;

	if (!ne)
		return 0;
	/* 2-cycles */
	for (size_t i = 0; i < ne; i++) {
		const struct lockstat_edge *e = &ls->edges[i], *pe[2];
		uint32_t lk[2];
		int j;

		if (e->from >= e->to)
			continue;
		j = lockstat_map_find(&ls->edgemap, ls_mix(((uint64_t)e->to << 32) | e->from));
		if (j < 0)
			continue;
		lk[0] = e->from;
		lk[1] = e->to;
		pe[0] = e;
		pe[1] = &ls->edges[j];
		if ((rc = cycle_add(ls, lk, pe, 2)))
			return rc;
	}
	rc = -ENOMEM;
	off = calloc(nl + 1, sizeof(*off));
	adj = calloc(ne, sizeof(*adj));
	idx = malloc(nl * sizeof(*idx));
	low = calloc(nl, sizeof(*low));
	comp = malloc(nl * sizeof(*comp));
	stk = calloc(nl, sizeof(*stk));
	cu = calloc(nl, sizeof(*cu));
	cpos = calloc(nl, sizeof(*cpos));
	onstk = calloc(nl, 1);
	csize = calloc(nl, sizeof(*csize));
	dist = malloc(nl * sizeof(*dist));
	par = calloc(nl, sizeof(*par));
	queue = calloc(nl, sizeof(*queue));
	path = calloc(nl, sizeof(*path));
	pedges = calloc(nl, sizeof(*pedges));
	if (!off || !adj || !idx || !low || !comp || !stk || !cu || !cpos || !onstk || !csize ||
	    !dist || !par || !queue || !path || !pedges)
		goto out;
	for (size_t i = 0; i < ne; i++)
		adj[i] = (uint32_t)i;
	qsort_r(adj, ne, sizeof(*adj), edge_cmp, ls->edges);
	for (size_t i = 0; i < ne; i++)
		off[ls->edges[i].from + 1]++;
	for (size_t v = 0; v < nl; v++)
		off[v + 1] += off[v];
	for (size_t v = 0; v < nl; v++) {
		idx[v] = unset;
		comp[v] = unset;
		dist[v] = unset;
	}

	/* Tarjan, iteratively (a deep lock chain must not overflow the stack) */
	for (uint32_t v0 = 0; v0 < nl; v0++) {
		uint32_t depth = 0;

		if (idx[v0] != unset || off[v0] == off[v0 + 1])
			continue;
		idx[v0] = low[v0] = counter++;
		stk[sp++] = v0;
		onstk[v0] = 1;
		cu[0] = v0;
		cpos[0] = off[v0];
		depth = 1;
		while (depth) {
			uint32_t u = cu[depth - 1];

			if (cpos[depth - 1] < off[u + 1]) {
				uint32_t wv = ls->edges[adj[cpos[depth - 1]++]].to;

				if (idx[wv] == unset) {
					idx[wv] = low[wv] = counter++;
					stk[sp++] = wv;
					onstk[wv] = 1;
					cu[depth] = wv;
					cpos[depth] = off[wv];
					depth++;
				} else if (onstk[wv] && idx[wv] < low[u]) {
					low[u] = idx[wv];
				}
				continue;
			}
			depth--;
			if (depth && low[u] < low[cu[depth - 1]])
				low[cu[depth - 1]] = low[u];
			if (low[u] == idx[u]) {
				uint32_t x;

				do {
					x = stk[--sp];
					onstk[x] = 0;
					comp[x] = ncomp;
					csize[ncomp]++;
				} while (x != u);
				ncomp++;
			}
		}
	}

	/* shortest cycles of 3+ locks through up to LS_MAX_STARTS locks of each
	 * big enough component */
	{
		uint32_t *starts = calloc(ncomp ? ncomp : 1, sizeof(*starts));

		if (!starts)
			goto out;
		for (uint32_t s = 0; s < nl && ls->ncycles < LS_MAX_CYCLES; s++) {
			uint32_t c = comp[s], qh = 0, qt = 0, nvis = 0, found = unset;

			if (c == unset || csize[c] < 3 || starts[c] >= LS_MAX_STARTS)
				continue;
			starts[c]++;
			dist[s] = 0;
			queue[qt++] = s;
			while (qh < qt && found == unset) {
				uint32_t u = queue[qh++];

				for (uint32_t p = off[u]; p < off[u + 1]; p++) {
					const struct lockstat_edge *e = &ls->edges[adj[p]];

					if (comp[e->to] != c)
						continue;
					if (e->to == s) {
						if (dist[u] >= 2) {
							found = u;
							pedges[0] =
							    e; /* closing edge, placed below */
							break;
						}
						continue;
					}
					if (dist[e->to] != unset)
						continue;
					dist[e->to] = dist[u] + 1;
					par[e->to] = adj[p];
					queue[qt++] = e->to;
				}
			}
			nvis = qt;
			if (found != unset) {
				/* path s -> ... -> found, then found -> s */
				uint32_t n = dist[found] + 1, x = found;
				const struct lockstat_edge *closing = pedges[0];

				for (uint32_t k = n - 1; k > 0; k--) {
					const struct lockstat_edge *e = &ls->edges[par[x]];

					path[k] = x;
					pedges[k - 1] = e;
					x = e->from;
				}
				path[0] = s;
				pedges[n - 1] = closing;
				if ((rc = cycle_add(ls, path, pedges, n))) {
					free(starts);
					goto out;
				}
				rc = -ENOMEM;
			}
			for (uint32_t k = 0; k < nvis; k++)
				dist[queue[k]] = unset;
		}
		free(starts);
	}
	rc = 0;
out:
	free(off);
	free(adj);
	free(idx);
	free(low);
	free(comp);
	free(stk);
	free(cu);
	free(cpos);
	free(onstk);
	free(csize);
	free(dist);
	free(par);
	free(queue);
	free(path);
	free(pedges);
	return rc;
}

void lockstat_cycles_free(struct lockstat *ls)
{
	for (size_t i = 0; i < ls->ncycles; i++) {
		free(ls->cycles[i].locks);
		free(ls->cycles[i].edges);
	}
	free(ls->cycles);
	ls->cycles = NULL;
	ls->ncycles = ls->capcycles = 0;
}
