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
	uint64_t *thread_calls; /* per stream */
};

struct fn_ctx {
	struct fn_stat *fns; /* index: function number of the callstack */
	size_t nfns;
	size_t nstreams;
	uint32_t **depth; /* per stream, per fn: activations open on the thread */
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

static uint32_t *fn_depth(struct fn_ctx *c, uint32_t stream)
{
	if (stream >= c->nstreams)
		return NULL;
	if (!c->depth[stream])
		c->depth[stream] = calloc(c->nfns ? c->nfns : 1, sizeof(**c->depth));
	return c->depth[stream];
}

static int fn_enter(void *ctx, uint32_t stream, const struct callstack_frame *fr,
		    const struct callstack_frame *parent, const struct rec_probe *p,
		    const struct trace_event *ev)
{
	struct fn_ctx *c = ctx;
	struct fn_stat *f = &c->fns[fr->fn];
	uint32_t *depth = fn_depth(c, stream);
	char name[512];

	if (!depth)
		return stream >= c->nstreams ? 0 : -ENOMEM;
	f->calls++;
	if (!f->thread_calls) {
		f->thread_calls = calloc(c->nstreams, sizeof(uint64_t));
		if (!f->thread_calls)
			return -ENOMEM;
	}
	f->thread_calls[stream]++;
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
	depth[fr->fn]++;
	return 0;
}

static int fn_leave(void *ctx, uint32_t stream, const struct callstack_frame *fr,
		    struct callstack_frame *parent, uint64_t now, int seen_exit)
{
	struct fn_ctx *c = ctx;
	struct fn_stat *f = &c->fns[fr->fn];
	uint32_t *depth = fn_depth(c, stream);
	uint64_t d = now > fr->t0 ? now - fr->t0 : 0;

	if (!depth)
		return stream >= c->nstreams ? 0 : -ENOMEM;
	depth[fr->fn]--;
	if (!seen_exit)
		f->unpaired++;
	if (d < f->min)
		f->min = d;
	if (d > f->max)
		f->max = d;
	f->sum += d;
	if (!depth[fr->fn])
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

static void fn_print(struct fn_ctx *c, struct trace_reader *r, const struct funcs_opts *o,
		     FILE *out)
{
	size_t shown = 0;

	qsort_r(c->fns, c->nfns, sizeof(*c->fns), fn_cmp_total, NULL);
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
			for (size_t s = 0, first = 1; f->thread_calls && s < c->nstreams; s++) {
				if (!f->thread_calls[s])
					continue;
				fprintf(out, "%s{\"tid\":%u,\"calls\":%llu}", first ? "" : ",",
					trace_reader_stream_by_id(r, (uint32_t)s)->tid,
					(unsigned long long)f->thread_calls[s]);
				first = 0;
			}
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
	for (size_t s = 0; s < c->nstreams; s++)
		for (size_t i = 0; i < c->nfns; i++)
			if (c->fns[i].thread_calls && c->fns[i].thread_calls[s])
				fprintf(out, "%-10u %-28s %12llu\n",
					trace_reader_stream_by_id(r, (uint32_t)s)->tid,
					c->fns[i].name,
					(unsigned long long)c->fns[i].thread_calls[s]);
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
	/* tables by stream id: ids need not be dense (a trace without
	 * stream_1 has stream_2), and are below EV_MAX_THREADS */
	c.nstreams = trace_reader_nstreams(r) ? (size_t)trace_reader_max_stream_id(r) + 1 : 0;
	c.depth = calloc(c.nstreams ? c.nstreams : 1, sizeof(*c.depth));
	if (!c.fns || !c.depth) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < c.nfns; i++) {
		c.fns[i].name = callstack_fn(c.cs, (uint32_t)i)->name;
		c.fns[i].module = callstack_fn(c.cs, (uint32_t)i)->module;
		c.fns[i].min = UINT64_MAX;
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
	for (size_t s = 0; s < c.nstreams && c.depth; s++)
		free(c.depth[s]);
	free(c.depth);
	for (size_t i = 0; i < c.nfns && c.fns; i++) {
		for (size_t k = 0; k < c.fns[i].ncallers; k++)
			free(c.fns[i].callers[k].name);
		free(c.fns[i].callers);
		free(c.fns[i].thread_calls);
	}
	free(c.fns);
	callstack_free(c.cs);
	trace_reader_close(r);
	return rc;
}
