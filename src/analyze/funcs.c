// SPDX-License-Identifier: MIT
/*
 * funcs.c - function report from KIND_PROBE records.
 *
 * Pairing: each thread keeps a stack of open activations. Entry and exit of
 * one activation see the same stack pointer (it points at the return
 * address both times), so an exit with sp S closes the open frame with sp
 * S; frames above it (sp < S) never saw their exit (longjmp, an exception,
 * a probe that could not be placed) and are closed at the same time, and
 * frames just below with the same sp are tail callers (they jumped to the
 * function instead of calling it: their activation ends with it). An exit
 * with no frame to close is counted as unmatched and ignored.
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
#include "funcs.h"

struct fn_caller {
	char *name;
	uint64_t calls;
};

struct fn_stat {
	char *name;
	char *module;
	uint64_t calls, total, self, min, max, sum;
	uint64_t unpaired; /* entries whose exit was never seen */
	struct fn_caller *callers;
	size_t ncallers;
	uint64_t *thread_calls; /* per stream */
};

struct fn_frame {
	uint32_t fn;
	uint64_t sp, t0, child;
};

struct fn_thread {
	struct fn_frame *st;
	size_t n, cap;
	uint32_t *depth; /* per fn: activations open on this thread */
	uint64_t last;	 /* time of its last probe event */
};

struct fn_ctx {
	struct fn_stat *fns; /* index: function number */
	size_t nfns;
	uint32_t *probe_fn;  /* probe id -> function number + 1 (0 = unknown) */
	uint32_t maxid;
	size_t nstreams;
	struct fn_thread *th;
	uint64_t unmatched_exits;
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

/* "probes" side file: "id op method module offset function". */
static int fn_load_probes(struct fn_ctx *c, struct trace_reader *r)
{
	char *text, *line, *save = NULL;
	size_t len;
	int rc = trace_reader_file(r, "probes", &text, &len);

	if (rc < 0)
		return rc;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char op[16], method[16], module[4096], name[1024];
		unsigned long long off;
		unsigned id;
		size_t f;

		if (line[0] == '#' ||
		    sscanf(line, "%u %15s %15s %4095s %llx %1023s", &id, op, method, module, &off,
			   name) != 6)
			continue;
		if (!id || id >= 1u << 24)
			continue;
		if (strcmp(op, "entry") && strcmp(op, "exit"))
			continue; /* block and branch probes count, they have no calls */
		if (id > c->maxid) {
			uint32_t *np = realloc(c->probe_fn, (id + 1) * sizeof(*np));

			if (!np)
				goto nomem;
			memset(np + c->maxid + (c->probe_fn ? 1 : 0), 0,
			       (id + 1 - c->maxid - (c->probe_fn ? 1 : 0)) * sizeof(*np));
			c->probe_fn = np;
			c->maxid = id;
		}
		for (f = 0; f < c->nfns; f++)
			if (!strcmp(c->fns[f].name, name) && !strcmp(c->fns[f].module, module))
				break;
		if (f == c->nfns) {
			struct fn_stat *nf = realloc(c->fns, (c->nfns + 1) * sizeof(*nf));

			if (!nf)
				goto nomem;
			c->fns = nf;
			memset(&nf[f], 0, sizeof(nf[f]));
			nf[f].name = strdup(name);
			nf[f].module = strdup(module);
			nf[f].min = UINT64_MAX;
			if (!nf[f].name || !nf[f].module)
				goto nomem;
			c->nfns++;
		}
		c->probe_fn[id] = (uint32_t)f + 1;
	}
	free(text);
	return 0;
nomem:
	free(text);
	return -ENOMEM;
}

static void fn_close(struct fn_ctx *c, struct fn_thread *t, uint64_t now, int seen_exit)
{
	struct fn_frame *fr = &t->st[--t->n];
	struct fn_stat *f = &c->fns[fr->fn];
	uint64_t d = now > fr->t0 ? now - fr->t0 : 0;

	t->depth[fr->fn]--;
	if (!seen_exit)
		f->unpaired++;
	if (d < f->min)
		f->min = d;
	if (d > f->max)
		f->max = d;
	f->sum += d;
	if (!t->depth[fr->fn])
		f->total += d;
	f->self += d > fr->child ? d - fr->child : 0;
	if (t->n)
		t->st[t->n - 1].child += d;
}

static int fn_event(struct fn_ctx *c, const struct trace_event *ev, uint32_t pid)
{
	const struct rec_probe *p = (const void *)ev->rec;
	uint32_t id = ev_obj(p->h.word), fn;
	struct fn_thread *t;
	unsigned op = ev_op(p->h.word);

	if (p->h.size < sizeof(*p) || !c->probe_fn || id > c->maxid || !c->probe_fn[id] ||
	    ev->stream_id >= c->nstreams)
		return 0;
	fn = c->probe_fn[id] - 1;
	t = &c->th[ev->stream_id];
	t->last = ev->ns;
	if (!t->depth) {
		t->depth = calloc(c->nfns, sizeof(*t->depth));
		if (!t->depth)
			return -ENOMEM;
	}
	if (op == PROBE_OP_ENTRY) {
		struct fn_stat *f = &c->fns[fn];
		char name[512];

		f->calls++;
		if (!f->thread_calls) {
			f->thread_calls = calloc(c->nstreams, sizeof(uint64_t));
			if (!f->thread_calls)
				return -ENOMEM;
		}
		f->thread_calls[ev->stream_id]++;
		if (t->n)
			snprintf(name, sizeof(name), "%s", c->fns[t->st[t->n - 1].fn].name);
		else if (c->sym)
			symbolizer_format(c->sym, pid, p->ret_ip, name, sizeof(name));
		else
			snprintf(name, sizeof(name), "0x%llx", (unsigned long long)p->ret_ip);
		/* "func+0x12 (file.c:3)": the caller is the function. */
		name[strcspn(name, "+ ")] = 0;
		if (fn_add_caller(f, name) < 0)
			return -ENOMEM;
		if (t->n == t->cap) {
			size_t nc = t->cap ? t->cap * 2 : 64;
			struct fn_frame *ns = realloc(t->st, nc * sizeof(*ns));

			if (!ns)
				return -ENOMEM;
			t->st = ns;
			t->cap = nc;
		}
		t->st[t->n++] = (struct fn_frame){fn, p->sp, ev->ns, 0};
		t->depth[fn]++;
	} else if (op == PROBE_OP_EXIT) {
		size_t k = t->n;

		while (k && t->st[k - 1].sp < p->sp)
			k--;
		if (!k || t->st[k - 1].sp != p->sp || t->st[k - 1].fn != fn) {
			c->unmatched_exits++;
			return 0;
		}
		while (t->n > k)
			fn_close(c, t, ev->ns, 0);
		fn_close(c, t, ev->ns, 1);
		while (t->n && t->st[t->n - 1].sp == p->sp)
			fn_close(c, t, ev->ns, 1); /* tail callers */
	}
	return 0;
}

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
					trace_reader_stream(r, s)->tid,
					(unsigned long long)f->thread_calls[s]);
				first = 0;
			}
			fprintf(out, "]}");
		}
		fprintf(out, "],\"unmatched_exits\":%llu}\n", (unsigned long long)c->unmatched_exits);
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
				fprintf(out, "%-10u %-28s %12llu\n", trace_reader_stream(r, s)->tid,
					c->fns[i].name,
					(unsigned long long)c->fns[i].thread_calls[s]);
	if (c->unmatched_exits)
		fprintf(out, "(%llu exits without an entry)\n",
			(unsigned long long)c->unmatched_exits);
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
	rc = fn_load_probes(&c, r);
	if (rc < 0) {
		log_err("%s has no probe table (\"probes\"): not a trace of spool probe", dir);
		goto out;
	}
	c.nstreams = trace_reader_nstreams(r);
	c.th = calloc(c.nstreams ? c.nstreams : 1, sizeof(*c.th));
	if (!c.th) {
		rc = -ENOMEM;
		goto out;
	}
	if (symbolizer_open(&c.sym, r) < 0)
		c.sym = NULL;
	while ((rc = trace_reader_next(r, &ev)) > 0) {
		if (ev_kind(ev.rec->word) != KIND_PROBE)
			continue;
		rc = fn_event(&c, &ev, trace_reader_stream(r, ev.stream_id)->pid);
		if (rc < 0)
			goto out;
	}
	if (rc < 0)
		goto out;
	/* Activations still open at the end of the trace: the program exited
	 * (or was killed) inside them. */
	for (size_t s = 0; s < c.nstreams; s++) {
		while (c.th[s].n)
			fn_close(&c, &c.th[s], c.th[s].last, 0);
	}
	for (size_t i = 0; i < trace_reader_nproblems(r); i++) {
		const struct trace_problem *p = trace_reader_problem(r, i);

		log_warn("%s at offset %llu: %s", p->file, (unsigned long long)p->offset, p->msg);
	}
	fn_print(&c, r, o, out);
	rc = 0;
out:
	if (c.sym)
		symbolizer_close(c.sym);
	for (size_t s = 0; s < c.nstreams && c.th; s++) {
		free(c.th[s].st);
		free(c.th[s].depth);
	}
	free(c.th);
	for (size_t i = 0; i < c.nfns; i++) {
		for (size_t k = 0; k < c.fns[i].ncallers; k++)
			free(c.fns[i].callers[k].name);
		free(c.fns[i].callers);
		free(c.fns[i].thread_calls);
		free(c.fns[i].name);
		free(c.fns[i].module);
	}
	free(c.fns);
	free(c.probe_fn);
	trace_reader_close(r);
	return rc;
}
