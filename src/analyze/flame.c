// SPDX-License-Identifier: MIT
/*
 * flame.c - folded stacks and an SVG flame graph from the function entry
 * and exit probes of a trace (KIND_PROBE records named by the "probes" side
 * file).
 *
 * Entries and exits are paired per thread by callstack.c, as for the
 * function report and the timeline exports (an exit closes the open frame
 * with the same stack pointer, frames above it that never saw their exit
 * are closed with it, tail callers end with it). Each activation is
 * a node of one calling-context tree shared by all threads (the contexts of
 * all threads merged, as flamegraph.pl merges identical folded lines): the
 * path from the root is the chain of probed functions open on that thread
 * when it was entered. A node keeps its calls and its self time (its
 * activations' time minus their probed children's); unprobed callees count
 * as self time of the probed function that called them.
 *
 * Memory is proportional to the number of distinct contexts, not to the
 * trace. Deep recursion makes one context per depth, as in any flame graph.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../common/event.h"
#include "../trace/trace.h"
#include "../util/escape.h"
#include "../util/log.h"
#include "callstack.h"
#include "flame.h"

#define FLAME_NONE UINT32_MAX

struct flame_node {
	uint32_t fn;	      /* frame name number; FLAME_NONE for the root */
	uint32_t parent;
	uint32_t first_child; /* FLAME_NONE if none */
	uint32_t next;	      /* next sibling */
	uint64_t calls;
	uint64_t self_ns;
	uint64_t incl; /* inclusive weight, computed before drawing */
};

/* The nodes of a thread's open frames, in step with callstack's stack of
 * them: enter pushes, leave pops (activations nest by construction). */
struct flame_thread {
	uint32_t *node;
	size_t n, cap;
};

struct flame {
	struct callstack *cs;
	char **names; /* frame name number -> name */
	size_t nnames, capnames;
	/* name -> number + 1, open addressing (a power of two, at least twice
	 * nnames): 100,000 names of a probes file took 15 s to number by
	 * linear search */
	uint32_t *name_slot;
	size_t nname_slot;
	uint32_t *fn_name; /* callstack function number -> frame name number */
	struct flame_node *nodes;
	size_t nnodes, capnodes;
	struct flame_thread *th; /* by stream id */
	size_t nth;
	uint64_t entries;
};

static size_t flame_name_hash(const char *name, size_t nslot)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 1099511628211ULL;
	return (size_t)h & (nslot - 1);
}

static int flame_name_number(struct flame *g, const char *name, uint32_t *out)
{
	size_t i;

	if (2 * (g->nnames + 1) > g->nname_slot) {
		size_t n = g->nname_slot ? g->nname_slot * 2 : 256;
		uint32_t *v = calloc(n, sizeof(*v));

		if (!v)
			return -ENOMEM;
		for (size_t k = 0; k < g->nnames; k++) {
			size_t j = flame_name_hash(g->names[k], n);

			while (v[j])
				j = (j + 1) & (n - 1);
			v[j] = (uint32_t)k + 1;
		}
		free(g->name_slot);
		g->name_slot = v;
		g->nname_slot = n;
	}
	for (i = flame_name_hash(name, g->nname_slot); g->name_slot[i];
	     i = (i + 1) & (g->nname_slot - 1))
		if (!strcmp(g->names[g->name_slot[i] - 1], name)) {
			*out = g->name_slot[i] - 1;
			return 0;
		}
	if (g->nnames == g->capnames) {
		size_t cap = g->capnames ? g->capnames * 2 : 64;
		char **nn = realloc(g->names, cap * sizeof(*nn));

		if (!nn)
			return -ENOMEM;
		g->names = nn;
		g->capnames = cap;
	}
	g->names[g->nnames] = strdup(name);
	if (!g->names[g->nnames])
		return -ENOMEM;
	*out = (uint32_t)g->nnames++;
	g->name_slot[i] = (uint32_t)g->nnames;
	return 0;
}

/* Functions of the same name in different modules are merged: one frame
 * name (callstack keeps them apart by module). */
static int flame_map_names(struct flame *g)
{
	size_t n = callstack_nfns(g->cs);

	g->fn_name = malloc((n ? n : 1) * sizeof(*g->fn_name));
	if (!g->fn_name)
		return -ENOMEM;
	for (size_t f = 0; f < n; f++)
		if (flame_name_number(g, callstack_fn(g->cs, (uint32_t)f)->name, &g->fn_name[f]) < 0)
			return -ENOMEM;
	return 0;
}

static int flame_child(struct flame *g, uint32_t parent, uint32_t fn, uint32_t *out)
{
	struct flame_node *n;
	uint32_t c;

	for (c = g->nodes[parent].first_child; c != FLAME_NONE; c = g->nodes[c].next)
		if (g->nodes[c].fn == fn) {
			*out = c;
			return 0;
		}
	if (g->nnodes == g->capnodes) {
		size_t nc = g->capnodes ? g->capnodes * 2 : 256;

		n = realloc(g->nodes, nc * sizeof(*n));
		if (!n)
			return -ENOMEM;
		g->nodes = n;
		g->capnodes = nc;
	}
	c = (uint32_t)g->nnodes++;
	g->nodes[c] = (struct flame_node){fn, parent, FLAME_NONE, g->nodes[parent].first_child, 0,
					  0, 0};
	g->nodes[parent].first_child = c;
	*out = c;
	return 0;
}

static struct flame_thread *flame_thread(struct flame *g, uint32_t stream)
{
	if (stream >= g->nth) {
		size_t n = (size_t)stream + 16;
		struct flame_thread *nt = realloc(g->th, n * sizeof(*nt));

		if (!nt)
			return NULL;
		memset(nt + g->nth, 0, (n - g->nth) * sizeof(*nt));
		g->th = nt;
		g->nth = n;
	}
	return &g->th[stream];
}

/* callstack: an activation begins, under the thread's innermost open one. */
static int flame_enter(void *ctx, uint32_t stream, const struct callstack_frame *fr,
		       const struct callstack_frame *parent, const struct rec_probe *p,
		       const struct trace_event *ev)
{
	struct flame *g = ctx;
	struct flame_thread *t = flame_thread(g, stream);
	uint32_t node;
	int rc;

	if (!t)
		return -ENOMEM;
	rc = flame_child(g, t->n ? t->node[t->n - 1] : 0, g->fn_name[fr->fn], &node);
	if (rc < 0)
		return rc;
	if (t->n == t->cap) {
		size_t nc = t->cap ? t->cap * 2 : 64;
		uint32_t *ns = realloc(t->node, nc * sizeof(*ns));

		if (!ns)
			return -ENOMEM;
		t->node = ns;
		t->cap = nc;
	}
	t->node[t->n++] = node;
	g->nodes[node].calls++;
	g->entries++;
	return 0;
}

/* callstack: the thread's innermost activation ends (with or without its
 * exit: the program exited inside it, or a longjmp went past it). Its self
 * time is its time minus its probed children's. */
static int flame_leave(void *ctx, uint32_t stream, const struct callstack_frame *fr,
		       struct callstack_frame *parent, uint64_t now, int seen_exit)
{
	struct flame *g = ctx;
	struct flame_thread *t = stream < g->nth ? &g->th[stream] : NULL;
	uint64_t d = now > fr->t0 ? now - fr->t0 : 0;

	if (!t || !t->n)
		return -EINVAL; /* callstack pairs every leave with an enter */
	g->nodes[t->node[--t->n]].self_ns += d > fr->child ? d - fr->child : 0;
	if (parent)
		parent->child += d;
	return 0;
}

static const struct callstack_ops flame_cs_ops = {flame_enter, flame_leave};

static uint64_t flame_self_weight(const struct flame *g, const struct flame_node *n, int weight)
{
	return weight == FLAME_WEIGHT_CALLS ? n->calls : n->self_ns;
}

/* Children of a node sorted by name, for stable output. The caller frees. */
static uint32_t *flame_sorted_children(const struct flame *g, uint32_t node, size_t *count)
{
	size_t n = 0, i = 0;
	uint32_t *v, c;

	for (c = g->nodes[node].first_child; c != FLAME_NONE; c = g->nodes[c].next)
		n++;
	*count = n;
	v = malloc((n ? n : 1) * sizeof(*v));
	if (!v)
		return NULL;
	for (c = g->nodes[node].first_child; c != FLAME_NONE; c = g->nodes[c].next)
		v[i++] = c;
	/* Insertion sort: sibling lists are short. */
	for (i = 1; i < n; i++) {
		uint32_t x = v[i];
		size_t j = i;

		while (j && strcmp(g->names[g->nodes[v[j - 1]].fn], g->names[g->nodes[x].fn]) > 0) {
			v[j] = v[j - 1];
			j--;
		}
		v[j] = x;
	}
	return v;
}

static uint64_t flame_compute_incl(struct flame *g, uint32_t node, int weight)
{
	uint64_t w = node ? flame_self_weight(g, &g->nodes[node], weight) : 0;

	/* Iterative enough: recursion depth is the context depth. */
	for (uint32_t c = g->nodes[node].first_child; c != FLAME_NONE; c = g->nodes[c].next)
		w += flame_compute_incl(g, c, weight);
	g->nodes[node].incl = w;
	return w;
}

static int flame_folded(const struct flame *g, uint32_t node, char *path, size_t len, size_t cap,
			int weight, FILE *out)
{
	size_t nc, l = len;
	uint32_t *kids;
	int rc = 0;

	if (node) {
		const char *name = g->names[g->nodes[node].fn];
		uint64_t w = flame_self_weight(g, &g->nodes[node], weight);
		size_t nl = strlen(name);

		if (len + nl + 2 > cap)
			return -ENAMETOOLONG;
		if (len)
			path[l++] = ';';
		memcpy(path + l, name, nl + 1);
		l += nl;
		/* names from the probes file: a newline would make a line
		 * of its own, an escape sequence reach a terminal */
		if (w)
			fprintf(out, "%s %llu\n", escape_str(path), (unsigned long long)w);
	}
	kids = flame_sorted_children(g, node, &nc);
	if (!kids)
		return -ENOMEM;
	for (size_t i = 0; i < nc && !rc; i++)
		rc = flame_folded(g, kids[i], path, l, cap, weight, out);
	free(kids);
	return rc;
}

/* ---- SVG ---- */

#define FLAME_SVG_W 1200.0
#define FLAME_SVG_PAD 10.0
#define FLAME_SVG_ROW 17.0
#define FLAME_SVG_TOP 44.0
#define FLAME_SVG_CHAR 6.6 /* average glyph width at font-size 11 */

/* s as XML text, at most max bytes of it. The names come from the trace:
 * escaped first as spool prints them (util/escape.h: a byte that is not
 * UTF-8 or a control as \xNN), so the SVG is valid UTF-8 and XML 1.0
 * whatever the bytes; then cut only between characters. */
static void flame_xml(FILE *out, const char *raw, size_t max)
{
	size_t n = strlen(raw);
	char *e = escape_needed(raw, n, 0) ? escape_dup(raw, n, 0) : NULL;
	const char *s = e ? e : raw;

	if (!e && escape_needed(raw, n, 0))
		s = "?"; /* no memory for the copy */
	n = strlen(s);
	if (max < n) {
		while (max > 0 && ((unsigned char)s[max] & 0xc0) == 0x80)
			max--; /* s[max] continues a character: cut before it */
	}
	for (size_t i = 0; s[i] && i < max; i++) {
		switch (s[i]) {
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '&':
			fputs("&amp;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		default:
			/* Control bytes are not allowed in XML 1.0 (escaped
			 * above; kept as a second guard). */
			fputc((unsigned char)s[i] < 0x20 ? '?' : s[i], out);
		}
	}
	free(e);
}

/* The bytes flame_xml's escaping makes of s (before the XML entities). */
static size_t flame_shown_len(const char *s)
{
	size_t n = strlen(s), shown;
	char *e;

	if (!escape_needed(s, n, 0))
		return n;
	e = escape_dup(s, n, 0);
	shown = e ? strlen(e) : 1;
	free(e);
	return shown;
}

static unsigned flame_depth(const struct flame *g, uint32_t node)
{
	unsigned d = 0;

	for (uint32_t c = g->nodes[node].first_child; c != FLAME_NONE; c = g->nodes[c].next) {
		unsigned k = flame_depth(g, c) + 1;

		if (k > d)
			d = k;
	}
	return d;
}

static void flame_svg_frame(const struct flame *g, FILE *out, const char *name, uint64_t w,
			    uint64_t total, double x, double y, double width, int weight)
{
	uint32_t h = 2166136261u;
	double pct = total ? 100.0 * (double)w / (double)total : 0;
	size_t fit;

	for (const char *s = name; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	fprintf(out, "<g><title>");
	flame_xml(out, name, SIZE_MAX);
	if (weight == FLAME_WEIGHT_CALLS)
		fprintf(out, " (%llu calls, %.2f%%)", (unsigned long long)w, pct);
	else
		fprintf(out, " (%.3f ms, %.2f%%)", (double)w / 1e6, pct);
	fprintf(out,
		"</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" "
		"fill=\"rgb(%u,%u,%u)\" rx=\"2\" ry=\"2\"/>",
		x, y, width, FLAME_SVG_ROW - 1, 205 + h % 50, (h >> 8) % 230, (h >> 16) % 55);
	fit = width > 2 * FLAME_SVG_CHAR ? (size_t)((width - 6) / FLAME_SVG_CHAR) : 0;
	if (fit >= 3) {
		size_t nl = flame_shown_len(name);

		fprintf(out, "<text x=\"%.2f\" y=\"%.1f\">", x + 3, y + FLAME_SVG_ROW - 5);
		flame_xml(out, name, nl <= fit ? nl : fit - 2);
		if (nl > fit)
			fputs("..", out);
		fputs("</text>", out);
	}
	fputs("</g>\n", out);
}

static int flame_svg_node(const struct flame *g, FILE *out, uint32_t node, double x,
			  unsigned level, unsigned maxdepth, uint64_t total, int weight)
{
	const double scale = (FLAME_SVG_W - 2 * FLAME_SVG_PAD) / (double)total;
	double y = FLAME_SVG_TOP + (double)(maxdepth - level) * FLAME_SVG_ROW;
	size_t nc;
	uint32_t *kids;

	if ((double)g->nodes[node].incl * scale < 0.1)
		return 0; /* narrower than a tenth of a pixel: not drawn */
	flame_svg_frame(g, out, node ? g->names[g->nodes[node].fn] : "all", g->nodes[node].incl,
			total, x, y, (double)g->nodes[node].incl * scale, weight);
	kids = flame_sorted_children(g, node, &nc);
	if (!kids)
		return -ENOMEM;
	for (size_t i = 0; i < nc; i++) {
		int rc = flame_svg_node(g, out, kids[i], x, level + 1, maxdepth, total, weight);

		if (rc < 0) {
			free(kids);
			return rc;
		}
		x += (double)g->nodes[kids[i]].incl * scale;
	}
	free(kids);
	return 0;
}

static int flame_svg(struct flame *g, const struct flame_opts *o, const char *dir,
		     const struct trace_loss *loss, FILE *out)
{
	uint64_t total = flame_compute_incl(g, 0, o->weight);
	unsigned maxdepth = flame_depth(g, 0);
	double bottom = FLAME_SVG_TOP + (maxdepth + 1) * FLAME_SVG_ROW + 2 * FLAME_SVG_PAD;
	/* an incomplete trace gets a line under the graph saying so */
	double height = bottom + (trace_loss_incomplete(loss) ? FLAME_SVG_ROW : 0);
	char why[512];

	if (!total)
		return -ENODATA;
	fprintf(out,
		"<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n"
		"<style>text { font-family: Verdana, sans-serif; font-size: 11px; fill: #000; }\n"
		"rect:hover { stroke: #000; stroke-width: 0.5; }</style>\n"
		"<rect x=\"0\" y=\"0\" width=\"100%%\" height=\"100%%\" fill=\"#f8f8f0\"/>\n"
		"<text x=\"%.0f\" y=\"24\" text-anchor=\"middle\" style=\"font-size: 17px\">",
		FLAME_SVG_W, height, FLAME_SVG_W, height, FLAME_SVG_W / 2);
	if (o->title)
		flame_xml(out, o->title, SIZE_MAX);
	else {
		fputs("Flame graph of ", out);
		flame_xml(out, dir, SIZE_MAX);
	}
	fprintf(out,
		"</text>\n<text x=\"%.0f\" y=\"38\" text-anchor=\"middle\" fill=\"#555\">width: %s "
		"of the probed functions, all threads merged (spool)</text>\n",
		FLAME_SVG_W / 2, o->weight == FLAME_WEIGHT_CALLS ? "calls" : "self time");
	if (flame_svg_node(g, out, 0, FLAME_SVG_PAD, 0, maxdepth, total, o->weight) < 0)
		return -ENOMEM;
	if (trace_loss_incomplete(loss)) {
		trace_loss_describe(loss, why, sizeof(why));
		fprintf(out, "<text x=\"%.0f\" y=\"%.1f\" fill=\"#b00\">trace incomplete: ",
			FLAME_SVG_PAD, bottom + FLAME_SVG_ROW - 5);
		flame_xml(out, why, SIZE_MAX);
		fputs("</text>\n", out);
	}
	fputs("</svg>\n", out);
	return 0;
}

static void flame_free(struct flame *g)
{
	for (size_t s = 0; s < g->nth; s++)
		free(g->th[s].node);
	free(g->th);
	for (size_t i = 0; i < g->nnames; i++)
		free(g->names[i]);
	free(g->names);
	free(g->name_slot);
	free(g->fn_name);
	free(g->nodes);
	callstack_free(g->cs);
}

int flame_export_dir(const char *dir, const struct flame_opts *o, FILE *out)
{
	struct trace_reader *r = NULL;
	struct trace_problem prob;
	struct trace_event ev;
	struct trace_loss loss;
	struct flame g;
	char *path = NULL;
	int rc;

	memset(&g, 0, sizeof(g));
	rc = trace_reader_open(&r, dir, &prob);
	if (rc < 0) {
		log_err("cannot read trace %s: %s", dir, prob.msg[0] ? prob.msg : strerror(-rc));
		return rc;
	}
	if (o->weight == FLAME_WEIGHT_TIME && trace_reader_untimed(r)) {
		log_err("%s: this trace has no per-event time (spool --clock=none): weigh the "
			"graph by calls (--weight calls)",
			dir);
		rc = -ENODATA;
		goto out;
	}
	rc = callstack_new(&g.cs, r, &flame_cs_ops, &g);
	if (rc < 0) {
		log_err("%s has no probe table (\"probes\"): not a trace of spool probe", dir);
		goto out;
	}
	rc = flame_map_names(&g);
	g.nodes = malloc(256 * sizeof(*g.nodes));
	if (rc < 0 || !g.nodes) {
		rc = -ENOMEM;
		goto out;
	}
	g.capnodes = 256;
	g.nnodes = 1;
	g.nodes[0] = (struct flame_node){FLAME_NONE, FLAME_NONE, FLAME_NONE, FLAME_NONE, 0, 0, 0};
	while ((rc = trace_reader_next(r, &ev)) > 0) {
		rc = callstack_feed(g.cs, &ev);
		if (rc < 0)
			goto out;
	}
	if (rc < 0)
		goto out;
	/* Activations open at the end: the program exited inside them. */
	rc = callstack_finish(g.cs);
	if (rc < 0)
		goto out;
	for (size_t i = 0; i < trace_reader_nproblems(r); i++) {
		const struct trace_problem *p = trace_reader_problem(r, i);

		log_warn("%s at offset %llu: %s", p->file, (unsigned long long)p->offset, p->msg);
	}
	if (!g.entries) {
		log_err("%s: no function entry was recorded (probe functions with -e func:...)",
			dir);
		rc = -ENODATA;
		goto out;
	}
	if (o->format == FLAME_SVG) {
		/* every event was read: the packets have said what they miss */
		trace_reader_loss(r, &loss);
		rc = flame_svg(&g, o, dir, &loss, out);
	} else {
		path = malloc(1 << 20);
		rc = path ? flame_folded(&g, 0, path, 0, 1 << 20, o->weight, out) : -ENOMEM;
	}
	if (rc < 0)
		log_err("flame graph of %s: %s", dir, strerror(-rc));
out:
	free(path);
	flame_free(&g);
	trace_loss_seen_fill(o->seen, r);
	trace_reader_close(r);
	return rc;
}
