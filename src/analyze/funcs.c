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
 * (callers that are not probed). A return address in spool's own agent is a
 * lock or condition variable call the agent wraps (pthread_cond_wait ...):
 * the program called the wrapper, which called the probed libc function;
 * that caller is named "FUNC (libspool-agent.so)", never a bare FUNC that
 * reads as the function calling itself.
 *
 * Threads are the reader's (trace_event.thread), not streams: a ring, and
 * so a stream, serves thread after thread when a program creates many
 * short ones. Per-thread counts live in a hash of the (thread, function)
 * pairs seen, never in a threads x functions table: 100,000 threads of a
 * program with a thousand probed functions would ask for gigabytes, while
 * the pairs are bounded by the trace's entry records.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../common/event.h"
#include "../trace/trace.h"
#include "../util/escape.h"
#include "../util/log.h"
#include "../util/symbolize.h"
#include "callstack.h"
#include "funcs.h"
#include "pass.h"
#include "probe_changes.h"
#include "table.h"

struct fn_caller {
	char *name;
	uint64_t calls;
};

struct fn_stat {
	const char *name, *module; /* owned by the callstack; name demangled */
	const char *raw;	   /* the symbol (mangled for C++) */
	uint64_t calls, total, self, min, max, sum;
	uint64_t unpaired; /* entries whose exit was never seen */
	uint64_t open_end; /* of those, still open where their thread's trace ends */
	struct fn_caller *callers;
	size_t ncallers;
	uint32_t id; /* its function number in the callstack (fns[] gets sorted) */
};

/* Calls of one function on one thread, and its activations open there. */
struct fn_pair {
	uint64_t key; /* (thread << 32 | fn) + 1; 0 = an empty slot */
	uint64_t calls;
	uint32_t depth;
	uint32_t pos; /* fn_print: the function's place in the sorted fns[] */
};

/* A call site seen before: (function, pid, return address), or (function,
 * parent function) with pid FN_SITE_PARENT, to the caller's index in the
 * function's callers[]. Symbolizing and comparing names is done once per
 * site, not once per call: the table grows with the call sites. */
struct fn_site {
	uint64_t addr;
	uint32_t fn, pid;
	uint32_t caller; /* index + 1 in callers[]; 0 = an empty slot */
};
#define FN_SITE_PARENT UINT32_MAX

/* Who a thread number is: from its KIND_THREAD record. */
struct fn_who {
	uint32_t tid, pid;
};

struct fn_ctx {
	struct fn_stat *fns; /* index: function number of the callstack (until sorted) */
	size_t nfns;
	struct fn_pair *pairs; /* open-addressing hash, cap_pairs a power of two */
	size_t npairs, cap_pairs;
	struct fn_site *sites; /* open-addressing hash, cap_sites a power of two */
	size_t nsites, cap_sites;
	struct fn_who *who; /* by thread number */
	size_t nwho;
	struct callstack *cs;
	struct trace_reader *r;
	struct symbolizer *sym;
	char *exe; /* the executable's path (module "-" of a version 1 probes
		    * file), read once; NULL unknown */
	int exe_read;
	uint64_t t0; /* the first event's time */
};

static uint64_t fn_mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static struct fn_pair *fn_pair_slot(struct fn_pair *v, size_t cap, uint64_t key)
{
	for (size_t i = fn_mix(key) & (cap - 1);; i = (i + 1) & (cap - 1))
		if (v[i].key == key || !v[i].key)
			return &v[i];
}

/* The pair of thread and function number fn, added when new; NULL when
 * out of memory. */
static struct fn_pair *fn_pair(struct fn_ctx *c, uint32_t thread, uint32_t fn)
{
	uint64_t key = ((uint64_t)thread << 32 | fn) + 1;
	struct fn_pair *p;

	if (2 * (c->npairs + 1) > c->cap_pairs) {
		size_t cap = c->cap_pairs ? 2 * c->cap_pairs : 1024;
		struct fn_pair *v = calloc(cap, sizeof(*v));

		if (!v)
			return NULL;
		for (size_t i = 0; i < c->cap_pairs; i++)
			if (c->pairs[i].key)
				*fn_pair_slot(v, cap, c->pairs[i].key) = c->pairs[i];
		free(c->pairs);
		c->pairs = v;
		c->cap_pairs = cap;
	}
	p = fn_pair_slot(c->pairs, c->cap_pairs, key);
	if (!p->key) {
		p->key = key;
		c->npairs++;
	}
	return p;
}

static uint32_t fn_pair_thread(const struct fn_pair *p)
{
	return (uint32_t)((p->key - 1) >> 32);
}

/* Who thread is: its KIND_THREAD record, else (lost) its stream's. */
static struct fn_who fn_who_of(const struct fn_ctx *c, uint32_t thread)
{
	const struct trace_stream_info *si;

	if (thread < c->nwho && (c->who[thread].tid || c->who[thread].pid))
		return c->who[thread];
	si = trace_reader_stream(c->r, thread);
	return si ? (struct fn_who){si->tid, si->pid} : (struct fn_who){0, 0};
}

/* A function's module as a user can open it: a version 1 probe table
 * says "-" for the executable (version 2 its path), whose path the trace
 * keeps in proc/PID.exe (the process of the first thread). */
static const char *fn_module(struct fn_ctx *c, const char *module)
{
	char name[64];
	size_t len;

	if (strcmp(module, "-"))
		return module;
	if (!c->exe_read) {
		c->exe_read = 1;
		snprintf(name, sizeof(name), "proc/%u.exe", fn_who_of(c, 0).pid);
		if (trace_reader_file(c->r, name, &c->exe, &len) < 0)
			c->exe = NULL;
		else
			c->exe[strcspn(c->exe, "\n")] = 0;
	}
	return c->exe && c->exe[0] ? c->exe : module;
}

static int fn_note_thread(struct fn_ctx *c, const struct trace_event *ev)
{
	const struct rec_thread *t = (const struct rec_thread *)ev->rec;

	if (t->h.size < sizeof(*t))
		return 0;
	if (ev->thread >= c->nwho) {
		size_t n = (size_t)ev->thread + 1024;
		struct fn_who *v = realloc(c->who, n * sizeof(*v));

		if (!v)
			return -ENOMEM;
		memset(v + c->nwho, 0, (n - c->nwho) * sizeof(*v));
		c->who = v;
		c->nwho = n;
	}
	c->who[ev->thread] = (struct fn_who){t->tid, t->pid};
	return 0;
}

/* Count a call from caller `name`; returns its index in callers[] or
 * -ENOMEM. */
static int fn_add_caller(struct fn_stat *f, const char *name)
{
	struct fn_caller *nc;

	for (size_t i = 0; i < f->ncallers; i++)
		if (!strcmp(f->callers[i].name, name)) {
			f->callers[i].calls++;
			return (int)i;
		}
	nc = realloc(f->callers, (f->ncallers + 1) * sizeof(*nc));
	if (!nc)
		return -ENOMEM;
	f->callers = nc;
	nc[f->ncallers].name = strdup(name);
	if (!nc[f->ncallers].name)
		return -ENOMEM;
	nc[f->ncallers].calls = 1;
	return (int)f->ncallers++;
}

static struct fn_site *fn_site_slot(struct fn_site *v, size_t cap, uint32_t fn, uint32_t pid,
				    uint64_t addr)
{
	for (size_t i = fn_mix(addr ^ ((uint64_t)fn << 32 | pid)) & (cap - 1);;
	     i = (i + 1) & (cap - 1))
		if (!v[i].caller || (v[i].addr == addr && v[i].fn == fn && v[i].pid == pid))
			return &v[i];
}

/* The slot of a call site, grown when needed; NULL when out of memory. */
static struct fn_site *fn_site(struct fn_ctx *c, uint32_t fn, uint32_t pid, uint64_t addr)
{
	if (2 * (c->nsites + 1) > c->cap_sites) {
		size_t cap = c->cap_sites ? 2 * c->cap_sites : 256;
		struct fn_site *v = calloc(cap, sizeof(*v));

		if (!v)
			return NULL;
		for (size_t i = 0; i < c->cap_sites; i++)
			if (c->sites[i].caller)
				*fn_site_slot(v, cap, c->sites[i].fn, c->sites[i].pid,
					      c->sites[i].addr) = c->sites[i];
		free(c->sites);
		c->sites = v;
		c->cap_sites = cap;
	}
	return fn_site_slot(c->sites, c->cap_sites, fn, pid, addr);
}

/* The name of the module holding return address ret_ip when it is spool's
 * agent (libspool-agent.so, wherever installed), else NULL. */
static const char *fn_agent_module(struct symbolizer *sym, uint32_t pid, uint64_t ret_ip,
				   struct sym_info *si)
{
	const char *base;

	if (!ret_ip || symbolizer_lookup(sym, pid, ret_ip - 1, si) || !si->module[0])
		return NULL;
	base = strrchr(si->module, '/');
	base = base ? base + 1 : si->module;
	return !strncmp(base, "libspool-agent", 14) ? base : NULL;
}

/* Linux maps nothing below vm.mmap_min_addr (64 KiB by default): a
 * "return address" there is no return address. */
#define FN_NO_CODE_BELOW 0x10000u

static int fn_enter(void *ctx, uint32_t thread, const struct callstack_frame *fr,
		    const struct callstack_frame *parent, const struct rec_probe *p,
		    const struct trace_event *ev)
{
	struct fn_ctx *c = ctx;
	struct fn_stat *f = &c->fns[fr->fn];
	struct fn_pair *tp = fn_pair(c, thread, fr->fn);
	struct fn_site *site;
	char name[512];
	int idx;

	if (!tp)
		return -ENOMEM;
	f->calls++;
	tp->calls++;
	tp->depth++;
	site = parent ? fn_site(c, fr->fn, FN_SITE_PARENT, parent->fn)
		      : fn_site(c, fr->fn, fn_who_of(c, thread).pid, p->ret_ip);
	if (!site)
		return -ENOMEM;
	if (site->caller) {
		f->callers[site->caller - 1].calls++;
		return 0;
	}
	if (parent)
		snprintf(name, sizeof(name), "%s", c->fns[parent->fn].name);
	else if (p->ret_ip < FN_NO_CODE_BELOW)
		/* The kernel jumped to it (_start): the word where a return
		 * address would be is argc, no code can be there. */
		snprintf(name, sizeof(name), "(no caller)");
	else if (c->sym)
		symbolizer_format(c->sym, fn_who_of(c, thread).pid, p->ret_ip, name, sizeof(name));
	else
		snprintf(name, sizeof(name), "0x%llx", (unsigned long long)p->ret_ip);
	/* "func+0x12 (file.c:3)": the caller is the function; "libstdc++.so.6+0x9"
	 * (no symbol): the module. Demangled names have spaces and '+'. */
	if (strstr(name, "+0x"))
		*strstr(name, "+0x") = 0;
	if (!parent && c->sym) {
		struct sym_info si;
		const char *agent = fn_agent_module(c->sym, fn_who_of(c, thread).pid, p->ret_ip, &si);

		if (agent && si.func[0])
			snprintf(name, sizeof(name), "%.255s (%.200s)", si.func, agent);
	}
	idx = fn_add_caller(f, name);
	if (idx < 0)
		return -ENOMEM;
	*site = (struct fn_site){.addr = parent ? parent->fn : p->ret_ip,
				 .fn = fr->fn,
				 .pid = parent ? FN_SITE_PARENT : fn_who_of(c, thread).pid,
				 .caller = (uint32_t)idx + 1};
	c->nsites++;
	return 0;
}

static int fn_leave(void *ctx, uint32_t thread, const struct callstack_frame *fr,
		    struct callstack_frame *parent, uint64_t now, int seen_exit)
{
	struct fn_ctx *c = ctx;
	struct fn_stat *f = &c->fns[fr->fn];
	struct fn_pair *tp = fn_pair(c, thread, fr->fn);
	uint64_t d = now > fr->t0 ? now - fr->t0 : 0;

	if (!tp)
		return -ENOMEM;
	if (tp->depth)
		tp->depth--;
	if (seen_exit != CALLSTACK_EXIT_SEEN)
		f->unpaired++;
	if (seen_exit == CALLSTACK_EXIT_OPEN)
		f->open_end++;
	if (d < f->min)
		f->min = d;
	if (d > f->max)
		f->max = d;
	f->sum += d;
	if (!tp->depth)
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

	if (!*(const int *)arg && x->total != y->total) /* arg: untimed */
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

/* Pairs by function (its sorted place) then thread, or thread then function. */
static int fn_cmp_pair_fn(const void *a, const void *b)
{
	const struct fn_pair *x = a, *y = b;
	uint32_t tx = fn_pair_thread(x), ty = fn_pair_thread(y);

	if (x->pos != y->pos)
		return x->pos < y->pos ? -1 : 1;
	return tx < ty ? -1 : tx > ty;
}

static int fn_cmp_pair_thread(const void *a, const void *b)
{
	const struct fn_pair *x = a, *y = b;
	uint32_t tx = fn_pair_thread(x), ty = fn_pair_thread(y);

	if (tx != ty)
		return tx < ty ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* The most calls first; ties by thread and function, so the cut is the
 * same from run to run of the report. */
static int fn_cmp_pair_calls(const void *a, const void *b)
{
	const struct fn_pair *x = a, *y = b;

	if (x->calls != y->calls)
		return x->calls > y->calls ? -1 : 1;
	return fn_cmp_pair_thread(a, b);
}

/* How many functions the text table would show without --limit. */
static size_t fn_called(const struct fn_ctx *c)
{
	size_t n = 0;

	for (size_t i = 0; i < c->nfns; i++)
		n += c->fns[i].calls != 0;
	return n;
}

static void fn_print(struct fn_ctx *c, struct trace_reader *r, const struct funcs_opts *o,
		     const struct trace_loss *loss, const char *dir, FILE *out)
{
	static const char *const fhdr[] = {"function", "calls",	 "total ms", "self ms",
					   "min us",   "avg us", "max us"};
	static const char *const thdr[] = {"tid", "function", "calls"};
	struct table ft = {.ncols = 7, .hdr = fhdr, .indent = ""};
	struct table tt = {.ncols = 3, .hdr = thdr, .left_mask = 1u << 1, .indent = ""};
	size_t shown = 0, np = 0, k = 0, more = 0;
	int rc = 0;
	uint32_t *pos = calloc(c->nfns ? c->nfns : 1, sizeof(*pos));
	struct fn_pair *pv = NULL;
	/* no per-event time (--clock=none): the times summed are packet
	 * times, not the calls': no time column, no time key, sorted by
	 * calls, and the report says why */
	int untimed = trace_reader_untimed(r);

	if (untimed)
		ft.ncols = 2;
	qsort_r(c->fns, c->nfns, sizeof(*c->fns), fn_cmp_total, &untimed);
	for (size_t i = 0; i < c->nfns; i++)
		if (c->fns[i].ncallers)
			qsort(c->fns[i].callers, c->fns[i].ncallers, sizeof(struct fn_caller),
			      fn_cmp_caller);
	/* The pairs that made calls, each with its function's sorted place
	 * (packed at the front of the hash, which is not used again). */
	for (size_t i = 0; pos && i < c->nfns; i++)
		pos[c->fns[i].id] = (uint32_t)i;
	for (size_t i = 0; pos && i < c->cap_pairs; i++)
		if (c->pairs[i].key && c->pairs[i].calls) {
			c->pairs[np] = c->pairs[i];
			c->pairs[np].pos = pos[(c->pairs[np].key - 1) & 0xffffffffu];
			np++;
		}
	pv = c->pairs;
	if (!pos && c->npairs)
		log_warn("out of memory: the calls per thread are left out");
	free(pos);
	if (o->json) {
		if (np) /* pv is NULL when no pair was seen */
			qsort(pv, np, sizeof(*pv), fn_cmp_pair_fn);
		fprintf(out, "{%s\"functions\":[", untimed ? "\"event_time\":\"packet\"," : "");
		for (size_t i = 0; i < c->nfns; i++) {
			const struct fn_stat *f = &c->fns[i];

			fprintf(out, "%s{\"name\":", i ? "," : "");
			escape_json_str(out, f->name);
			fprintf(out, ",\"symbol\":");
			escape_json_str(out, f->raw);
			fprintf(out, ",\"module\":");
			escape_json_str(out, fn_module(c, f->module));
			if (untimed)
				fprintf(out,
					",\"calls\":%llu,\"no_exit\":%llu,\"open_at_end\":%llu,"
					"\"callers\":[",
					(unsigned long long)f->calls, (unsigned long long)f->unpaired,
					(unsigned long long)f->open_end);
			else
				fprintf(out,
					",\"calls\":%llu,\"total_ns\":%llu,\"self_ns\":%llu,"
					"\"min_ns\":%llu,\"avg_ns\":%llu,\"max_ns\":%llu,"
					"\"no_exit\":%llu,\"open_at_end\":%llu,\"callers\":[",
					(unsigned long long)f->calls, (unsigned long long)f->total,
					(unsigned long long)f->self,
					(unsigned long long)(f->min == UINT64_MAX ? 0 : f->min),
					/* over every activation, as min and max (and
					 * the text report): one closed without its
					 * exit too */
					(unsigned long long)(f->sum / (f->calls ? f->calls : 1)),
					(unsigned long long)f->max, (unsigned long long)f->unpaired,
					(unsigned long long)f->open_end);
			for (size_t k = 0; k < f->ncallers; k++) {
				fprintf(out, "%s{\"name\":", k ? "," : "");
				escape_json_str(out, f->callers[k].name);
				fprintf(out, ",\"calls\":%llu}", (unsigned long long)f->callers[k].calls);
			}
			fprintf(out, "],\"threads\":[");
			for (int first = 1; k < np && pv[k].pos == i; k++, first = 0)
				fprintf(out, "%s{\"tid\":%u,\"calls\":%llu}", first ? "" : ",",
					fn_who_of(c, fn_pair_thread(&pv[k])).tid,
					(unsigned long long)pv[k].calls);
			fprintf(out, "]}");
		}
		fprintf(out, "],");
		probe_changes_print(r, c->t0, 1, out);
		fprintf(out, "\"unmatched_exits\":%llu,\"trace\":{",
			(unsigned long long)callstack_unmatched_exits(c->cs));
		trace_loss_json(loss, out);
		fprintf(out, "}}\n");
		return;
	}
	if (o->header)
		trace_loss_print_header(loss, dir, NULL, out);
	if (untimed)
		fputs(ANALYZE_UNTIMED_NOTE, out);
	/* Both tables are as wide as their longest name (table.h): a C++
	 * name with its class and parameters keeps the columns in line. A
	 * function's callers are rows under it, their calls in its column. */
	for (size_t i = 0; i < c->nfns && !rc; i++) {
		const struct fn_stat *f = &c->fns[i];
		uint64_t n = f->calls ? f->calls : 1;
		char cell[6][32], caller[600];

		if (!f->calls || (o->limit && shown >= o->limit))
			continue;
		shown++;
		snprintf(cell[0], sizeof(cell[0]), "%llu", (unsigned long long)f->calls);
		snprintf(cell[1], sizeof(cell[1]), "%.3f", f->total / 1e6);
		snprintf(cell[2], sizeof(cell[2]), "%.3f", f->self / 1e6);
		snprintf(cell[3], sizeof(cell[3]), "%.3f",
			 (f->min == UINT64_MAX ? 0 : f->min) / 1e3);
		snprintf(cell[4], sizeof(cell[4]), "%.3f", (double)f->sum / n / 1e3);
		snprintf(cell[5], sizeof(cell[5]), "%.3f", f->max / 1e3);
		rc = table_row(&ft, f->name, cell[0], cell[1], cell[2], cell[3], cell[4], cell[5]);
		for (size_t k = 0; !rc && k < f->ncallers && (int)k < o->callers; k++) {
			snprintf(caller, sizeof(caller), "    <- %s", f->callers[k].name);
			snprintf(cell[0], sizeof(cell[0]), "%llu",
				 (unsigned long long)f->callers[k].calls);
			rc = table_row(&ft, caller, cell[0], NULL, NULL, NULL, NULL, NULL);
		}
		if (!rc && f->unpaired) {
			char *text = NULL;

			unsigned long long un = f->unpaired, op = f->open_end;
			int n;

			/* a call open where its thread's trace ends apart from one
			 * whose exit went missing inside it (CALLSTACK_EXIT_OPEN) */
			if (!op)
				n = asprintf(&text, "    (%llu call%s without a seen exit)\n", un,
					     un == 1 ? "" : "s");
			else if (op == un)
				n = asprintf(&text,
					     "    (%llu call%s without a seen exit: still open where "
					     "%s thread's trace ends)\n",
					     un, un == 1 ? "" : "s", un == 1 ? "its" : "their");
			else
				n = asprintf(&text,
					     "    (%llu calls without a seen exit, %llu of them still "
					     "open where their thread's trace ends)\n",
					     un, op);
			if (n < 0)
				rc = -ENOMEM;
			else
				rc = table_after(&ft, text);
		}
	}
	if (!rc)
		table_print(&ft, out);
	/* a table with no row reads as a failure: say what it means (lbzip2's
	 * func:* probes its only exported functions, warn and warnx) */
	if (!shown && c->nfns)
		fprintf(out, "(none of the %zu function%s probed was called)\n", c->nfns,
			c->nfns == 1 ? "" : "s");
	if (o->limit && shown >= o->limit && fn_called(c) > shown)
		fprintf(out, "  ... %zu more (--limit 0 shows all)\n", fn_called(c) - shown);
	/* --limit cuts this table too (rows per table): the rows with the
	 * most calls, shown in thread order as the whole table is */
	if (o->limit && np > o->limit) {
		qsort(pv, np, sizeof(*pv), fn_cmp_pair_calls);
		more = np - o->limit;
		np = o->limit;
	}
	if (np)
		qsort(pv, np, sizeof(*pv), fn_cmp_pair_thread);
	for (k = 0; k < np && !rc; k++) {
		char tid[16], calls[32];

		snprintf(tid, sizeof(tid), "%u", fn_who_of(c, fn_pair_thread(&pv[k])).tid);
		snprintf(calls, sizeof(calls), "%llu", (unsigned long long)pv[k].calls);
		rc = table_row(&tt, tid, c->fns[pv[k].pos].name, calls);
	}
	if (!rc) {
		fprintf(out, "\nper thread:\n");
		table_print(&tt, out);
	}
	if (rc)
		log_warn("out of memory: the function tables are left out");
	table_free(&ft);
	table_free(&tt);
	if (more)
		fprintf(out, "  ... %zu more (--limit 0 shows all)\n", more);
	if (callstack_unmatched_exits(c->cs))
		fprintf(out, "(%llu exit%s without an entry)\n",
			(unsigned long long)callstack_unmatched_exits(c->cs),
			callstack_unmatched_exits(c->cs) == 1 ? "" : "s");
	probe_changes_print(r, c->t0, 0, out);
}

struct funcs_pass {
	struct fn_ctx c;
	const char *dir;
};

static void funcs_pass_free(void *pv)
{
	struct funcs_pass *p = pv;
	struct fn_ctx *c;

	if (!p)
		return;
	c = &p->c;
	if (c->sym)
		symbolizer_close(c->sym);
	free(c->exe);
	free(c->pairs);
	free(c->sites);
	free(c->who);
	for (size_t i = 0; i < c->nfns && c->fns; i++) {
		for (size_t k = 0; k < c->fns[i].ncallers; k++)
			free(c->fns[i].callers[k].name);
		free(c->fns[i].callers);
	}
	free(c->fns);
	callstack_free(c->cs);
	free(p);
}

static int funcs_pass_new(void **out, struct trace_reader *r, const char *dir, const void *opts)
{
	struct funcs_pass *p = calloc(1, sizeof(*p));
	struct fn_ctx *c;
	int rc;

	*out = NULL;
	if (!p)
		return -ENOMEM;
	c = &p->c;
	p->dir = dir;
	c->r = r;
	rc = callstack_new(&c->cs, r, &fn_ops, c);
	if (rc < 0) {
		if (rc == -ENOMEM)
			log_err("%s: %s", dir, strerror(-rc));
		else
			log_err("%s has no probe table (\"probes\"): not a trace of spool probe",
				dir);
		goto out_free;
	}
	c->nfns = callstack_nfns(c->cs);
	c->fns = calloc(c->nfns ? c->nfns : 1, sizeof(*c->fns));
	if (!c->fns) {
		rc = -ENOMEM;
		goto out_free;
	}
	for (size_t i = 0; i < c->nfns; i++) {
		c->fns[i].name = callstack_fn(c->cs, (uint32_t)i)->name;
		c->fns[i].module = callstack_fn(c->cs, (uint32_t)i)->module;
		c->fns[i].raw = callstack_fn(c->cs, (uint32_t)i)->raw;
		c->fns[i].min = UINT64_MAX;
		c->fns[i].id = (uint32_t)i;
	}
	if (symbolizer_open(&c->sym, r) < 0)
		c->sym = NULL;
	*out = p;
	return 0;
out_free:
	funcs_pass_free(p);
	return rc;
}

static int funcs_pass_feed(void *pv, const struct trace_event *ev)
{
	struct funcs_pass *p = pv;
	int rc;

	if (!p->c.t0)
		p->c.t0 = ev->ns;
	if (ev_kind(ev->rec->word) == KIND_THREAD && (rc = fn_note_thread(&p->c, ev)) < 0)
		return rc;
	return callstack_feed(p->c.cs, ev);
}

/* a reading that stopped: no function report */
static int funcs_pass_end(void *pv, int read_rc, const void *opts, FILE *out)
{
	struct funcs_pass *p = pv;
	const struct funcs_opts *o = opts;
	struct trace_reader *r = p->c.r;
	struct trace_loss loss;
	int rc;

	if (read_rc < 0)
		return read_rc;

	/* Activations still open at the end of the trace: the program exited
	 * (or was killed) inside them. */
	rc = callstack_finish(p->c.cs);
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < trace_reader_nproblems(r); i++) {
		const struct trace_problem *pr = trace_reader_problem(r, i);

		log_warn("%s at offset %llu: %s", pr->file, (unsigned long long)pr->offset,
			 pr->msg);
	}
	/* every event was read: the packets have said what they miss */
	trace_reader_loss(r, &loss);
	fn_print(&p->c, r, o, &loss, p->dir, out);
	return 0;
}

const struct analyze_pass_ops funcs_pass_ops = {
    .open = funcs_pass_new,
    .feed = funcs_pass_feed,
    .end = funcs_pass_end,
    .free = funcs_pass_free,
};

int funcs_report_dir(const char *dir, const struct funcs_opts *o, FILE *out)
{
	return analyze_pass_dir(dir, &funcs_pass_ops, o, o->seen, out);
}
