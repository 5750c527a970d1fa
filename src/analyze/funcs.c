// SPDX-License-Identifier: MIT
/*
 * funcs.c - function report from KIND_PROBE records.
 *
 * Entries and exits are paired into activations by callstack.c (by stack
 * pointer; see there).
 *
 * Times: total (inclusive) time is summed over activations that are not
 * inside another activation of the same function, so recursion is not
 * counted twice; self time is the activation's time minus its direct
 * children's; min/avg/max are over every activation. Callers: the function
 * of the enclosing open frame, else the symbol of the return address
 * (callers that are not probed).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../common/event.h"
#include "../trace/trace.h"
#include "../util/log.h"
#include "../util/symbolize.h"
#include "callstack.h"
#include "funcs.h"

struct fn_caller {
	char *name;
	uint64_t calls;
};

struct fn_stat {
	const char *name, *module; /* owned by the callstack */
	uint64_t calls, total, self, min, max, sum;
	uint64_t unpaired; /* entries whose exit was never seen */
	struct fn_caller *callers;
	size_t ncallers;
	uint32_t id;   /* its function number (fns is sorted for printing) */
};

/*
 * A (stream, function) pair that was entered: the activations open on that
 * thread and its calls. Kept for the pairs seen only, in a hash table: a
 * table of every stream by every function (both numbers from the trace)
 * took gigabytes for a crafted trace of a few hundred events.
 */
struct fn_sf {
	uint32_t stream, fn;
	uint32_t depth;
	uint64_t calls;
};

struct fn_ctx {
	struct fn_stat *fns; /* index: function number of the callstack */
	size_t nfns;
	struct fn_sf *sf;
	size_t nsf, capsf;
	uint32_t *slot; /* open addressing: index + 1 into sf, 0 = free */
	size_t nslot;	/* a power of two, at least twice nsf */
	struct callstack *cs;
	struct trace_reader *r;
	struct symbolizer *sym;
};

static int fn_add_caller(struct fn_stat *f, const char *name)
{
	struct fn_caller *nc;

	for (size_t i = 0; i < f->ncallers; i++)
		if (!strcmp(f->callers[i].name, name)) {
			f->callers[i].calls++;
			return 0;
		}
	nc = realloc(f->callers, (f->ncallers + 1) * sizeof(*nc));
	if (!nc)
		return -ENOMEM;
	f->callers = nc;
	nc[f->ncallers].name = strdup(name);
	if (!nc[f->ncallers].name)
		return -ENOMEM;
	nc[f->ncallers++].calls = 1;
	return 0;
}

static size_t fn_sf_hash(uint32_t stream, uint32_t fn, size_t nslot)
{
	uint64_t h = ((uint64_t)stream << 32 | fn) * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 32) & (nslot - 1);
}

/* The pair's entry (created at 0), or NULL when out of memory. */
static struct fn_sf *fn_sf_get(struct fn_ctx *c, uint32_t stream, uint32_t fn)
{
	size_t i;

	for (i = c->nslot ? fn_sf_hash(stream, fn, c->nslot) : 0; c->nslot && c->slot[i];
	     i = (i + 1) & (c->nslot - 1)) {
		struct fn_sf *e = &c->sf[c->slot[i] - 1];

		if (e->stream == stream && e->fn == fn)
			return e;
	}
	if (c->nsf == c->capsf) {
		size_t cap = c->capsf ? c->capsf * 2 : 64;
		struct fn_sf *v = realloc(c->sf, cap * sizeof(*v));

		if (!v)
			return NULL;
		c->sf = v;
		c->capsf = cap;
	}
	if (2 * (c->nsf + 1) > c->nslot) {
		size_t n = c->nslot ? c->nslot * 2 : 128;
		uint32_t *v = calloc(n, sizeof(*v));

		if (!v)
			return NULL;
		for (size_t k = 0; k < c->nsf; k++) {
			size_t j = fn_sf_hash(c->sf[k].stream, c->sf[k].fn, n);

			while (v[j])
				j = (j + 1) & (n - 1);
			v[j] = (uint32_t)k + 1;
		}
		free(c->slot);
		c->slot = v;
		c->nslot = n;
		for (i = fn_sf_hash(stream, fn, n); c->slot[i]; i = (i + 1) & (n - 1))
			;
	}
	c->sf[c->nsf] = (struct fn_sf){.stream = stream, .fn = fn};
	c->slot[i] = (uint32_t)++c->nsf;
	return &c->sf[c->nsf - 1];
}

static int fn_enter(void *ctx, uint32_t stream, const struct callstack_frame *fr,
		    const struct callstack_frame *parent, const struct rec_probe *p,
		    const struct trace_event *ev)
{
	struct fn_ctx *c = ctx;
	struct fn_stat *f = &c->fns[fr->fn];
	struct fn_sf *e = fn_sf_get(c, stream, fr->fn);
	char name[512];

	if (!e)
		return -ENOMEM;
	f->calls++;
	e->calls++;
	e->depth++;
	if (parent)
		snprintf(name, sizeof(name), "%s", c->fns[parent->fn].name);
	else if (c->sym)
		symbolizer_format(c->sym, trace_reader_stream_by_id(c->r, stream)->pid, p->ret_ip,
				  name, sizeof(name));
	else
		snprintf(name, sizeof(name), "0x%llx", (unsigned long long)p->ret_ip);
	/* "func+0x12 (file.c:3)": the caller is the function. */
	name[strcspn(name, "+ ")] = 0;
	if (fn_add_caller(f, name) < 0)
		return -ENOMEM;
	return 0;
}

static int fn_leave(void *ctx, uint32_t stream, const struct callstack_frame *fr,
		    struct callstack_frame *parent, uint64_t now, int seen_exit)
{
	struct fn_ctx *c = ctx;
	struct fn_stat *f = &c->fns[fr->fn];
	struct fn_sf *e = fn_sf_get(c, stream, fr->fn);
	uint64_t d = now > fr->t0 ? now - fr->t0 : 0;

	if (!e)
		return -ENOMEM;
	if (e->depth)
		e->depth--;
	if (!seen_exit)
		f->unpaired++;
	if (d < f->min)
		f->min = d;
	if (d > f->max)
		f->max = d;
	f->sum += d;
	if (!e->depth)
		f->total += d;
	f->self += d > fr->child ? d - fr->child : 0;
	if (parent)
		parent->child += d;
	return 0;
}

static const struct callstack_ops fn_ops = {
	.enter = fn_enter,
	.leave = fn_leave,
};

static int fn_cmp_total(const void *a, const void *b, void *arg)
{
	const struct fn_stat *x = a, *y = b;

	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	if (x->calls != y->calls)
		return x->calls < y->calls ? 1 : -1;
	return strcmp(x->name, y->name);
}

static int fn_cmp_caller(const void *a, const void *b)
{
	const struct fn_caller *x = a, *y = b;

	if (x->calls != y->calls)
		return x->calls < y->calls ? 1 : -1;
	return strcmp(x->name, y->name);
}

static void fn_json_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(out, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(out, "\\u%04x", *s);
		else
			fputc(*s, out);
	}
	fputc('"', out);
}

/* Pairs by (function's rank, stream) (arg: the rank of each function). */
static int fn_cmp_sf_fn(const void *a, const void *b, void *arg)
{
	const struct fn_sf *x = a, *y = b;
	const uint32_t *rank = arg;

	if (rank[x->fn] != rank[y->fn])
		return rank[x->fn] < rank[y->fn] ? -1 : 1;
	return x->stream < y->stream ? -1 : x->stream > y->stream;
}

/* Pairs by (stream, function's rank). */
static int fn_cmp_sf_stream(const void *a, const void *b, void *arg)
{
	const struct fn_sf *x = a, *y = b;
	const uint32_t *rank = arg;

	if (x->stream != y->stream)
		return x->stream < y->stream ? -1 : 1;
	return rank[x->fn] < rank[y->fn] ? -1 : rank[x->fn] > rank[y->fn];
}

static unsigned fn_tid(struct trace_reader *r, uint32_t stream)
{
	const struct trace_stream_info *si = trace_reader_stream_by_id(r, stream);

	return si ? si->tid : 0;
}

static void fn_print(struct fn_ctx *c, struct trace_reader *r, const struct funcs_opts *o,
		     FILE *out)
{
	uint32_t *rank = calloc(c->nfns ? c->nfns : 1, sizeof(*rank));
	size_t shown = 0, k = 0;

	qsort_r(c->fns, c->nfns, sizeof(*c->fns), fn_cmp_total, NULL);
	for (size_t i = 0; i < c->nfns && rank; i++)
		rank[c->fns[i].id] = (uint32_t)i;
	if (!rank)
		c->nsf = 0; /* out of memory: no per-thread lines */
	else if (o->json)
		qsort_r(c->sf, c->nsf, sizeof(*c->sf), fn_cmp_sf_fn, rank);
	else
		qsort_r(c->sf, c->nsf, sizeof(*c->sf), fn_cmp_sf_stream, rank);
	free(rank);
	for (size_t i = 0; i < c->nfns; i++)
		if (c->fns[i].ncallers)
			qsort(c->fns[i].callers, c->fns[i].ncallers, sizeof(struct fn_caller),
			      fn_cmp_caller);
	if (o->json) {
		fprintf(out, "{\"functions\":[");
		for (size_t i = 0; i < c->nfns; i++) {
			const struct fn_stat *f = &c->fns[i];
			uint64_t paired = f->calls - f->unpaired;

			fprintf(out, "%s{\"name\":", i ? "," : "");
			fn_json_str(out, f->name);
			fprintf(out, ",\"module\":");
			fn_json_str(out, f->module);
			fprintf(out,
				",\"calls\":%llu,\"total_ns\":%llu,\"self_ns\":%llu,\"min_ns\":%llu,"
				"\"avg_ns\":%llu,\"max_ns\":%llu,\"no_exit\":%llu,\"callers\":[",
				(unsigned long long)f->calls, (unsigned long long)f->total,
				(unsigned long long)f->self,
				(unsigned long long)(f->min == UINT64_MAX ? 0 : f->min),
				(unsigned long long)(paired ? f->sum / (f->calls ? f->calls : 1) : 0),
				(unsigned long long)f->max, (unsigned long long)f->unpaired);
			for (size_t k = 0; k < f->ncallers; k++) {
				fprintf(out, "%s{\"name\":", k ? "," : "");
				fn_json_str(out, f->callers[k].name);
				fprintf(out, ",\"calls\":%llu}", (unsigned long long)f->callers[k].calls);
			}
			fprintf(out, "],\"threads\":[");
			/* sf is sorted by function rank (i), then stream */
			for (int first = 1; k < c->nsf && c->sf[k].fn == f->id; k++, first = 0)
				fprintf(out, "%s{\"tid\":%u,\"calls\":%llu}", first ? "" : ",",
					fn_tid(r, c->sf[k].stream),
					(unsigned long long)c->sf[k].calls);
			fprintf(out, "]}");
		}
		fprintf(out, "],\"unmatched_exits\":%llu}\n", (unsigned long long)callstack_unmatched_exits(c->cs));
		return;
	}
	fprintf(out, "%-28s %12s %12s %12s %10s %10s %10s\n", "function", "calls", "total ms",
		"self ms", "min us", "avg us", "max us");
	for (size_t i = 0; i < c->nfns; i++) {
		const struct fn_stat *f = &c->fns[i];
		uint64_t n = f->calls ? f->calls : 1;

		if (!f->calls || (o->limit && shown >= o->limit))
			continue;
		shown++;
		fprintf(out, "%-28s %12llu %12.3f %12.3f %10.3f %10.3f %10.3f\n", f->name,
			(unsigned long long)f->calls, f->total / 1e6, f->self / 1e6,
			(f->min == UINT64_MAX ? 0 : f->min) / 1e3, (double)f->sum / n / 1e3,
			f->max / 1e3);
		for (size_t k = 0; k < f->ncallers && (int)k < o->callers; k++)
			fprintf(out, "    <- %-40s %12llu\n", f->callers[k].name,
				(unsigned long long)f->callers[k].calls);
		if (f->unpaired)
			fprintf(out, "    (%llu calls without a seen exit)\n",
				(unsigned long long)f->unpaired);
	}
	fprintf(out, "\nper thread:\n%-10s %-28s %12s\n", "tid", "function", "calls");
	/* sf is sorted by stream, then function rank; a function's name is
	 * its callstack entry's (fns was sorted) */
	for (k = 0; k < c->nsf; k++)
		if (c->sf[k].calls)
			fprintf(out, "%-10u %-28s %12llu\n", fn_tid(r, c->sf[k].stream),
				callstack_fn(c->cs, c->sf[k].fn)->name,
				(unsigned long long)c->sf[k].calls);
	if (callstack_unmatched_exits(c->cs))
		fprintf(out, "(%llu exits without an entry)\n",
			(unsigned long long)callstack_unmatched_exits(c->cs));
}

int funcs_report_dir(const char *dir, const struct funcs_opts *o, FILE *out)
{
	struct trace_reader *r = NULL;
	struct trace_problem prob;
	struct trace_event ev;
	struct fn_ctx c;
	int rc;

	memset(&c, 0, sizeof(c));
	rc = trace_reader_open(&r, dir, &prob);
	if (rc < 0) {
		log_err("cannot read trace %s: %s", dir, prob.msg[0] ? prob.msg : strerror(-rc));
		return rc;
	}
	c.r = r;
	rc = callstack_new(&c.cs, r, &fn_ops, &c);
	if (rc < 0) {
		if (rc == -ENOMEM)
			log_err("%s: %s", dir, strerror(-rc));
		else
			log_err("%s has no probe table (\"probes\"): not a trace of spool probe",
				dir);
		goto out;
	}
	c.nfns = callstack_nfns(c.cs);
	c.fns = calloc(c.nfns ? c.nfns : 1, sizeof(*c.fns));
	if (!c.fns) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < c.nfns; i++) {
		c.fns[i].name = callstack_fn(c.cs, (uint32_t)i)->name;
		c.fns[i].module = callstack_fn(c.cs, (uint32_t)i)->module;
		c.fns[i].min = UINT64_MAX;
		c.fns[i].id = (uint32_t)i;
	}
	if (symbolizer_open(&c.sym, r) < 0)
		c.sym = NULL;
	while ((rc = trace_reader_next(r, &ev)) > 0) {
		rc = callstack_feed(c.cs, &ev);
		if (rc < 0)
			goto out;
	}
	if (rc < 0)
		goto out;
	/* Activations still open at the end of the trace: the program exited
	 * (or was killed) inside them. */
	rc = callstack_finish(c.cs);
	if (rc < 0)
		goto out;
	for (size_t i = 0; i < trace_reader_nproblems(r); i++) {
		const struct trace_problem *p = trace_reader_problem(r, i);

		log_warn("%s at offset %llu: %s", p->file, (unsigned long long)p->offset, p->msg);
	}
	fn_print(&c, r, o, out);
	rc = 0;
out:
	if (c.sym)
		symbolizer_close(c.sym);
	free(c.sf);
	free(c.slot);
	for (size_t i = 0; i < c.nfns && c.fns; i++) {
		for (size_t k = 0; k < c.fns[i].ncallers; k++)
			free(c.fns[i].callers[k].name);
		free(c.fns[i].callers);
	}
	free(c.fns);
	callstack_free(c.cs);
	trace_reader_close(r);
	return rc;
}
