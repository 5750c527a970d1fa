// SPDX-License-Identifier: MIT
/*
 * callstack.c - pairing of function entry and exit probes (callstack.h).
 *
 * Each thread keeps a stack of open activations. Entry and exit of one
 * activation see the same stack pointer (it points at the return address
 * both times), so an exit with sp S closes the open frame with sp S; frames
 * above it (sp < S) never saw their exit (longjmp, an exception, a probe
 * that could not be placed) and are closed at the same time, and frames
 * just below with the same sp are tail callers (they jumped to the function
 * instead of calling it: their activation ends with it). Any event (entry
 * or exit) with sp S also closes the open frames below S (deeper): they
 * have returned without a seen exit, and are closed at the thread's
 * previous probe event, so one missing exit does not charge the rest of the
 * run to its frame; an entry with sp S closes the open frames of sp S the
 * same way (a live frame's return address is where the new call's goes:
 * the earlier frame has ended, its exit unseen). Tail calls have exit
 * probes of their own (doc/probe.md). An exit with no frame to close is
 * counted as unmatched and ignored.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/demangle.h"
#include "callstack.h"
#include "probes_file.h"

struct cs_thread {
	struct callstack_frame *st;
	size_t n, cap;
	uint64_t last; /* time of its last probe event */
};

struct callstack {
	const struct callstack_ops *ops;
	void *ctx;
	struct callstack_fn *fns;
	size_t nfns, capfns;
	/* (module, name) -> index + 1 into fns, open addressing: a probes
	 * file of 100,000 functions took 23 s to load by linear search */
	uint32_t *fn_slot;
	size_t nfn_slot; /* a power of two, at least twice nfns */
	uint32_t *probe_fn; /* probe id -> function number + 1 (0 = not a function probe) */
	uint32_t maxid;
	struct cs_thread *th; /* by thread number (trace_event.thread) */
	size_t nth;
	uint64_t unmatched_exits;
};

static size_t cs_fn_hash(const char *module, const char *name, size_t nslot)
{
	uint64_t h = 1469598103934665603ULL;

	for (const char *k = module; *k; k++)
		h = (h ^ (unsigned char)*k) * 1099511628211ULL;
	h = (h ^ 0xff) * 1099511628211ULL;
	for (const char *k = name; *k; k++)
		h = (h ^ (unsigned char)*k) * 1099511628211ULL;
	return (size_t)h & (nslot - 1);
}

/* The number of function (module, name), added if new; -1 out of memory. */
static long cs_fn_intern(struct callstack *c, const char *module, const char *name)
{
	size_t i;

	if (2 * (c->nfns + 1) > c->nfn_slot) {
		size_t n = c->nfn_slot ? c->nfn_slot * 2 : 256;
		uint32_t *v = calloc(n, sizeof(*v));

		if (!v)
			return -1;
		for (size_t k = 0; k < c->nfns; k++) {
			size_t j = cs_fn_hash(c->fns[k].module, c->fns[k].raw, n);

			while (v[j])
				j = (j + 1) & (n - 1);
			v[j] = (uint32_t)k + 1;
		}
		free(c->fn_slot);
		c->fn_slot = v;
		c->nfn_slot = n;
	}
	for (i = cs_fn_hash(module, name, c->nfn_slot); c->fn_slot[i];
	     i = (i + 1) & (c->nfn_slot - 1)) {
		const struct callstack_fn *f = &c->fns[c->fn_slot[i] - 1];

		if (!strcmp(f->raw, name) && !strcmp(f->module, module))
			return (long)c->fn_slot[i] - 1;
	}
	if (c->nfns == c->capfns) {
		size_t cap = c->capfns ? c->capfns * 2 : 64;
		struct callstack_fn *nf = realloc(c->fns, cap * sizeof(*nf));

		if (!nf)
			return -1;
		c->fns = nf;
		c->capfns = cap;
	}
	{
		char d[1024];

		demangle_name(name, d, sizeof(d));
		c->fns[c->nfns].name = strdup(d);
	}
	c->fns[c->nfns].raw = strdup(name);
	c->fns[c->nfns].module = strdup(module);
	c->fns[c->nfns].retaddr = 0;
	c->nfns++; /* freed with the others even when a strdup failed */
	if (!c->fns[c->nfns - 1].name || !c->fns[c->nfns - 1].module || !c->fns[c->nfns - 1].raw)
		return -1;
	c->fn_slot[i] = (uint32_t)c->nfns;
	return (long)c->nfns - 1;
}

/* "probes" side file: "id op method module offset symbol [function]" (the
 * symbol is the key; a report demangles it itself), read by
 * probes_file.c in each of its versions. */
static int cs_load_probes(struct callstack *c, const struct trace_reader *r)
{
	char *text, *line, *save = NULL;
	size_t len;
	int rc = trace_reader_file(r, "probes", &text, &len), version = 1;

	if (rc < 0)
		return rc;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct probes_line pl;
		unsigned id;
		long fi;

		if (probes_file_version(line))
			version = probes_file_version(line);
		if (probes_file_line(line, version, &pl) < 0)
			continue;
		id = pl.id;
		/* ids number the lines from 0: one past the file's length is
		 * not a probe, and would size the table (a 1-line file made it
		 * 64 MiB) */
		if (!id || id >= 1u << 24 || id >= len)
			continue;
		if (strcmp(pl.op, "entry") && strcmp(pl.op, "exit"))
			continue; /* block and branch probes count, they have no calls */
		if (!c->probe_fn || id > c->maxid) {
			size_t old = c->probe_fn ? c->maxid + 1 : 0;
			uint32_t *np = realloc(c->probe_fn, (id + 1) * sizeof(*np));

			if (!np)
				goto nomem;
			memset(np + old, 0, (id + 1 - old) * sizeof(*np));
			c->probe_fn = np;
			c->maxid = id;
		}
		fi = cs_fn_intern(c, pl.module, pl.sym);
		if (fi < 0)
			goto nomem;
		c->probe_fn[id] = (uint32_t)fi + 1;
		if (!strcmp(pl.op, "exit") && !strcmp(pl.method, "retaddr"))
			c->fns[fi].retaddr = 1;
	}
	free(text);
	return 0;
nomem:
	free(text);
	return -ENOMEM;
}

int callstack_new(struct callstack **out, const struct trace_reader *r,
		  const struct callstack_ops *ops, void *ctx)
{
	struct callstack *c = calloc(1, sizeof(*c));
	int rc;

	if (!c)
		return -ENOMEM;
	c->ops = ops;
	c->ctx = ctx;
	rc = r ? cs_load_probes(c, r) : -ENOENT;
	if (rc < 0) {
		callstack_free(c);
		return rc;
	}
	*out = c;
	return 0;
}

size_t callstack_nfns(const struct callstack *cs)
{
	return cs->nfns;
}

const struct callstack_fn *callstack_fn(const struct callstack *cs, uint32_t fn)
{
	return fn < cs->nfns ? &cs->fns[fn] : NULL;
}

uint64_t callstack_unmatched_exits(const struct callstack *cs)
{
	return cs->unmatched_exits;
}

static struct cs_thread *cs_thread(struct callstack *c, uint32_t stream)
{
	if (stream >= c->nth) {
		size_t n = (size_t)stream + 16;
		struct cs_thread *nt = realloc(c->th, n * sizeof(*nt));

		if (!nt)
			return NULL;
		memset(nt + c->nth, 0, (n - c->nth) * sizeof(*nt));
		c->th = nt;
		c->nth = n;
	}
	return &c->th[stream];
}

static int cs_close(struct callstack *c, uint32_t stream, struct cs_thread *t, uint64_t now,
		    int seen_exit)
{
	struct callstack_frame fr = t->st[--t->n];

	if (!c->ops->leave)
		return 0;
	return c->ops->leave(c->ctx, stream, &fr, t->n ? &t->st[t->n - 1] : NULL, now, seen_exit);
}

int callstack_feed(struct callstack *c, const struct trace_event *ev)
{
	const struct rec_probe *p = (const void *)ev->rec;
	uint32_t id, fn;
	struct cs_thread *t;
	uint64_t prev;
	unsigned op;
	int ret;

	if (ev_kind(ev->rec->word) != KIND_PROBE || p->h.size < sizeof(*p))
		return 0;
	id = ev_obj(p->h.word);
	op = ev_op(p->h.word);
	if ((op != PROBE_OP_ENTRY && op != PROBE_OP_EXIT) || !c->probe_fn || id > c->maxid ||
	    !c->probe_fn[id])
		return 0;
	fn = c->probe_fn[id] - 1;
	t = cs_thread(c, ev->thread);
	if (!t)
		return -ENOMEM;
	prev = t->last;
	t->last = ev->ns;
	/* Frames deeper than this event's stack pointer have returned (their
	 * exit was not seen: an unprobed exit, longjmp): close them at the
	 * thread's previous probe event rather than at the end of the run. */
	while (t->n && t->st[t->n - 1].sp < p->sp)
		if ((ret =
			 cs_close(c, ev->thread, t, prev > t->st[t->n - 1].t0 ? prev : ev->ns, 0)))
			return ret;
	if (op == PROBE_OP_ENTRY) {
		/* An open frame with this very stack pointer has ended: a new
		 * call's return address cannot go where a live frame's is. Its
		 * exit was not seen (a probe removed after its handler
		 * faulted, an exit that could not be probed, a tail call
		 * without a window): closed like the deeper ones, rather than
		 * taking the new call for its child (invented recursion). Not
		 * a frame whose exits go through the return address: the
		 * entry is its tail callee, and one exit at the return ends
		 * both (agent_probe_ra.c). */
		while (t->n && t->st[t->n - 1].sp == p->sp && !c->fns[t->st[t->n - 1].fn].retaddr)
			if ((ret = cs_close(c, ev->thread, t,
					    prev > t->st[t->n - 1].t0 ? prev : ev->ns, 0)))
				return ret;
		if (t->n == t->cap) {
			size_t nc = t->cap ? t->cap * 2 : 64;
			struct callstack_frame *ns = realloc(t->st, nc * sizeof(*ns));

			if (!ns)
				return -ENOMEM;
			t->st = ns;
			t->cap = nc;
		}
		t->st[t->n++] = (struct callstack_frame){fn, p->sp, ev->ns, 0};
		if (!c->ops->enter)
			return 0;
		return c->ops->enter(c->ctx, ev->thread, &t->st[t->n - 1],
				     t->n > 1 ? &t->st[t->n - 2] : NULL, p, ev);
	}
	size_t k = t->n;

	while (k && t->st[k - 1].sp < p->sp)
		k--;
	if (!k || t->st[k - 1].sp != p->sp || t->st[k - 1].fn != fn) {
		c->unmatched_exits++;
		return 0;
	}
	while (t->n > k)
		if ((ret = cs_close(c, ev->thread, t, ev->ns, 0)))
			return ret;
	if ((ret = cs_close(c, ev->thread, t, ev->ns, 1)))
		return ret;
	while (t->n && t->st[t->n - 1].sp == p->sp) /* tail callers */
		if ((ret = cs_close(c, ev->thread, t, ev->ns, 1)))
			return ret;
	return 0;
}

int callstack_finish(struct callstack *c)
{
	int ret;

	for (size_t s = 0; s < c->nth; s++)
		while (c->th[s].n)
			if ((ret = cs_close(c, (uint32_t)s, &c->th[s], c->th[s].last,
					    CALLSTACK_EXIT_OPEN)))
				return ret;
	return 0;
}

void callstack_free(struct callstack *c)
{
	if (!c)
		return;
	for (size_t s = 0; s < c->nth; s++)
		free(c->th[s].st);
	free(c->th);
	for (size_t i = 0; i < c->nfns; i++) {
		free(c->fns[i].name);
		free(c->fns[i].module);
		free(c->fns[i].raw);
	}
	free(c->fns);
	free(c->fn_slot);
	free(c->probe_fn);
	free(c);
}
