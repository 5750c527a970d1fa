// SPDX-License-Identifier: MIT
/*
 * vars.c - the report of variable, assertion and time probes, from the
 * trace's "vars" side file (what each probe records) and its KIND_PROBE
 * events (doc/trace-format.md).
 *
 * A hit of a variable probe is one PROBE_OP_VAR record per variable, in
 * index order, with the same timestamp, consecutive in its thread's
 * stream; a hit whose records are not all there (a ring overflowed) is
 * skipped. Values are formatted by the variable's type: integers in
 * decimal, float with 9 significant digits, double with 17, long double
 * with 21 (x87's 80 bits), float128 (aarch64's long double, IEEE binary128)
 * with 36, from its bytes (util/f128.c: the same text on any host): enough
 * to tell any two values of the type apart.
 *
 * Assertions are evaluated here on the recorded values (probe_expr.c); a
 * hit where the expression cannot be evaluated (division by zero) counts
 * as neither. Time probes: "call" (time:FUNC) pairs each exit with the
 * open entry of the same stack pointer on its thread, as the function
 * report does; "span" (time:A..B) measures from a hit of A to the next hit
 * of B on the same thread (a second A before B restarts the span).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../common/event.h"
#include "../probe/probe.h"
#include "../probe/probe_expr.h"
#include "../trace/sideword.h"
#include "../trace/trace.h"
#include "../util/escape.h"
#include "../util/f128.h"
#include "../util/log.h"
#include "../util/demangle.h"
#include "pass.h"
#include "vars.h"

struct vr_point {
	uint64_t ns;
	uint32_t tid;
	uint8_t raw[16];
};

struct vr_var {
	uint32_t probe_id, index;
	unsigned type;
	int shown;
	char name[128], func[256], where[32];
	struct vr_point *pts;
	size_t npts, cap;
	int have_minmax;
	uint8_t min[16], max[16];
};

struct vr_assert {
	char func[256], where[32];
	char *text;
	struct probe_expr *ex;
	uint32_t *ids;
	size_t nids;
	uint64_t ntrue, nfalse, nundef;
	int failed;
	uint64_t fail_ns;
	uint32_t fail_tid;
	char fail_vals[512];
};

struct vr_frame {
	uint64_t sp, t0;
};

struct vr_tstate {
	struct vr_frame *st; /* call mode */
	size_t n, cap;
	int open;	     /* span mode */
	uint64_t t0;
	uint64_t count, total, min, max;
};

struct vr_time {
	int call;
	char *text;
	uint32_t *start, *end;
	size_t nstart, nend;
	uint64_t count, total, min, max;
};

/* A time probe's state on one stream: kept for the (time, stream) pairs
 * that saw one of its points, found by hash. Tables of every time by every
 * stream id were sized by the input's numbers: a 41 KB vars file of 2000
 * time lines and a stream numbered 60000 took 8 GB. */
struct vr_tpair {
	uint32_t time, stream;
	struct vr_tstate s;
};
/* Pairs beyond this many plus one per probe event are not kept (their
 * hits are counted as untimed): each pair is paid for by input. */
#define VR_TPAIRS_FREE 4096

/* The hit being assembled on each stream. */
struct vr_hit {
	uint32_t id, nvars, next;
	uint64_t ns;
	uint8_t (*raw)[16];
	size_t cap;
};

struct vr_ctx {
	struct vr_var *vars;
	size_t nvars;
	struct vr_assert *asserts;
	size_t nasserts;
	struct vr_time *times;
	size_t ntimes;
	struct vr_hit *hits;
	size_t nstreams;
	uint64_t t_first;
	int have_first;
	struct vr_tpair *tp; /* sorted by (time, stream) once the events are read */
	size_t ntp, captp;
	uint32_t *tph; /* open addressing: index + 1 into tp, 0 free */
	size_t tph_cap;
	uint64_t nprobe_events, untimed;
	/* Values kept per variable: all for JSON and --limit 0, else the
	 * --limit the text shows (the rest are counted), so the memory of a
	 * report follows what it prints, not the number of hits. */
	size_t keep;
};

/* A C++ function's name as the user writes it (the side file has the
 * symbol as the ELF file has it). */
static void vr_demangle(char *func, size_t len)
{
	char d[256];

	if (demangle_name(func, d, sizeof(d)))
		snprintf(func, len, "%s", d);
}

static int vr_parse_ids(const char *s, uint32_t **ids, size_t *n)
{
	*ids = NULL;
	*n = 0;
	if (!strcmp(s, "-"))
		return 0;
	while (*s) {
		char *end;
		unsigned long v = strtoul(s, &end, 10);
		uint32_t *ni;

		if (end == s)
			return -EINVAL;
		ni = realloc(*ids, (*n + 1) * sizeof(*ni));
		if (!ni)
			return -ENOMEM;
		*ids = ni;
		ni[(*n)++] = (uint32_t)v;
		s = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return -EINVAL;
	}
	return 0;
}

static int vr_has(const uint32_t *ids, size_t n, uint32_t id)
{
	for (size_t i = 0; i < n; i++)
		if (ids[i] == id)
			return 1;
	return 0;
}

/* A word of a "vars" line into DST: version 2 wrote it with
 * sideword_write (a name may hold blanks: "Pair<int, char>::hits"),
 * version 1 as it is. Longer than DST: cut, as the writer cuts it. */
static void vr_word(char *dst, size_t len, char *word, int version)
{
	size_t n;

	if (version >= 2)
		sideword_unescape(word);
	n = strnlen(word, len - 1);
	memcpy(dst, word, n);
	dst[n] = 0;
}

/* The version of the "vars" file from its first line (1: version 1, or
 * no such line). */
static int vr_version(const char *text)
{
	int v;

	return sscanf(text, "# spool vars %d", &v) == 1 && v > 0 ? v : 1;
}

static int vr_load(struct vr_ctx *c, char *text)
{
	int version = vr_version(text);
	char *line, *save = NULL;

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		/* words as they are in the file: an escaped byte takes 4 */
		char type[32], ids[4096], ids2[4096], mode[16], w1[1024], w2[1024], w3[128];
		int pos = 0;
		unsigned n;

		if (!strncmp(line, "var ", 4)) {
			struct vr_var v, *nv;

			memset(&v, 0, sizeof(v));
			if (sscanf(line, "var %u %u %31s %1023s %1023s %127s %d", &v.probe_id,
				   &v.index, type, w1, w2, w3, &v.shown) != 7)
				continue;
			vr_word(v.name, sizeof(v.name), w1, version);
			vr_word(v.func, sizeof(v.func), w2, version);
			vr_word(v.where, sizeof(v.where), w3, version);
			v.type = probe_vtype_parse(type);
			vr_demangle(v.func, sizeof(v.func));
			nv = realloc(c->vars, (c->nvars + 1) * sizeof(*nv));
			if (!nv)
				return -ENOMEM;
			c->vars = nv;
			nv[c->nvars++] = v;
		} else if (!strncmp(line, "assert ", 7)) {
			struct vr_assert a, *na;
			char err[256];

			memset(&a, 0, sizeof(a));
			if (sscanf(line, "assert %u %1023s %127s %4095s %n", &n, w1, w3, ids, &pos) !=
				    4 ||
			    !pos)
				continue;
			vr_word(a.func, sizeof(a.func), w1, version);
			vr_word(a.where, sizeof(a.where), w3, version);
			if (version >= 2) /* the expression too: one word */
				sideword_unescape(line + pos);
			vr_demangle(a.func, sizeof(a.func));
			if (vr_parse_ids(ids, &a.ids, &a.nids) ||
			    probe_expr_parse(line + pos, &a.ex, err, sizeof(err)) ||
			    !(a.text = strdup(line + pos))) {
				free(a.ids);
				probe_expr_free(a.ex);
				continue;
			}
			na = realloc(c->asserts, (c->nasserts + 1) * sizeof(*na));
			if (!na) {
				free(a.ids);
				free(a.text);
				probe_expr_free(a.ex);
				return -ENOMEM;
			}
			c->asserts = na;
			na[c->nasserts++] = a;
		} else if (!strncmp(line, "time ", 5)) {
			struct vr_time t, *nt;

			memset(&t, 0, sizeof(t));
			if (sscanf(line, "time %u %15s %4095s %4095s %n", &n, mode, ids, ids2, &pos) !=
				    4 ||
			    !pos)
				continue;
			if (version >= 2) /* the spec: one word */
				sideword_unescape(line + pos);
			t.call = !strcmp(mode, "call");
			t.min = UINT64_MAX;
			if (vr_parse_ids(ids, &t.start, &t.nstart) ||
			    vr_parse_ids(ids2, &t.end, &t.nend) || !(t.text = strdup(line + pos))) {
				free(t.start);
				free(t.end);
				free(t.text);
				continue;
			}
			nt = realloc(c->times, (c->ntimes + 1) * sizeof(*nt));
			if (!nt) {
				free(t.start);
				free(t.end);
				free(t.text);
				return -ENOMEM;
			}
			c->times = nt;
			nt[c->ntimes++] = t;
		}
	}
	return 0;
}

/* ---- values ---- */

static long double vr_ld(unsigned type, const uint8_t *raw)
{
	union {
		uint8_t b[16];
		float f;
		double d;
		long double ld;
		int8_t i8;
		uint8_t u8;
		int16_t i16;
		uint16_t u16;
		int32_t i32;
		uint32_t u32;
		int64_t i64;
		uint64_t u64;
	} u;

	memset(&u, 0, sizeof(u));
	memcpy(u.b, raw, 16);
	switch (type) {
	case PROBE_T_CHAR: return u.i8;
	case PROBE_T_UCHAR: case PROBE_T_BOOL: return u.u8;
	case PROBE_T_SHORT: return u.i16;
	case PROBE_T_USHORT: return u.u16;
	case PROBE_T_INT: return u.i32;
	case PROBE_T_UINT: return u.u32;
	case PROBE_T_LONG: return (long double)u.i64;
	case PROBE_T_ULONG: case PROBE_T_PTR: return (long double)u.u64;
	case PROBE_T_FLOAT: return u.f;
	case PROBE_T_DOUBLE: return u.d;
	case PROBE_T_LDOUBLE:
		memset(u.b + 10, 0, 6);
		return u.ld;
	case PROBE_T_F128: return f128_to_ld(u.b);
	default: return 0;
	}
}

/* a < b as values of type (float128 exactly, on any host) */
static int vr_less(unsigned type, const uint8_t *a, const uint8_t *b)
{
	if (type == PROBE_T_F128)
		return f128_less(a, b);
	return vr_ld(type, a) < vr_ld(type, b);
}

static void vr_value(unsigned type, const uint8_t *raw, struct probe_value *v)
{
	memset(v, 0, sizeof(*v));
	if (probe_vtype_is_float(type)) {
		v->is_float = 1;
		v->f = vr_ld(type, raw);
	} else if (type == PROBE_T_ULONG || type == PROBE_T_PTR) {
		memcpy(&v->i, raw, 8);
	} else {
		v->i = (int64_t)vr_ld(type, raw);
	}
}

/* Text of a value; with_char: chars also as 'c'. */
static void vr_format(unsigned type, const uint8_t *raw, char *buf, size_t len, int with_char)
{
	long double x = vr_ld(type, raw);
	uint64_t u;

	switch (type) {
	case PROBE_T_FLOAT:
		snprintf(buf, len, "%.9g", (double)x);
		break;
	case PROBE_T_DOUBLE:
		snprintf(buf, len, "%.17g", (double)x);
		break;
	case PROBE_T_LDOUBLE:
		snprintf(buf, len, "%.21Lg", x);
		break;
	case PROBE_T_F128:
		/* from the bytes, not x: exact on a host whose long double is
		 * x87's (the board's traces read on the x86-64 host) */
		f128_format(raw, buf, len);
		break;
	case PROBE_T_ULONG:
		memcpy(&u, raw, 8);
		snprintf(buf, len, "%llu", (unsigned long long)u);
		break;
	case PROBE_T_PTR:
		memcpy(&u, raw, 8);
		snprintf(buf, len, "0x%llx", (unsigned long long)u);
		break;
	case PROBE_T_CHAR:
	case PROBE_T_UCHAR:
		if (with_char && x >= 32 && x < 127)
			snprintf(buf, len, "%lld '%c'", (long long)x, (char)(int)x);
		else
			snprintf(buf, len, "%lld", (long long)x);
		break;
	default:
		snprintf(buf, len, "%lld", (long long)x);
		break;
	}
}

/* ---- events ---- */

static size_t vr_tp_slot(uint32_t time, uint32_t stream, size_t cap)
{
	uint64_t h = ((uint64_t)time << 32 | stream) * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 20) & (cap - 1);
}

/* The state of time probe TIME on STREAM, made on first use; NULL past the
 * bound (VR_TPAIRS_FREE) or without memory. */
static struct vr_tstate *vr_tstate(struct vr_ctx *c, uint32_t time, uint32_t stream)
{
	size_t k;

	if (c->tph_cap) {
		for (k = vr_tp_slot(time, stream, c->tph_cap); c->tph[k];
		     k = (k + 1) & (c->tph_cap - 1)) {
			struct vr_tpair *p = &c->tp[c->tph[k] - 1];

			if (p->time == time && p->stream == stream)
				return &p->s;
		}
	}
	if (c->ntp >= VR_TPAIRS_FREE + c->nprobe_events || c->ntp >= UINT32_MAX - 1)
		return NULL;
	if (c->ntp == c->captp) {
		size_t nc = c->captp ? 2 * c->captp : 64;
		struct vr_tpair *np = realloc(c->tp, nc * sizeof(*np));

		if (!np)
			return NULL;
		c->tp = np;
		c->captp = nc;
	}
	if (2 * (c->ntp + 1) > c->tph_cap) {
		size_t nc = c->tph_cap ? 2 * c->tph_cap : 128;
		uint32_t *nh = calloc(nc, sizeof(*nh));

		if (!nh)
			return NULL;
		for (size_t i = 0; i < c->ntp; i++) {
			for (k = vr_tp_slot(c->tp[i].time, c->tp[i].stream, nc); nh[k];
			     k = (k + 1) & (nc - 1))
				;
			nh[k] = (uint32_t)i + 1;
		}
		free(c->tph);
		c->tph = nh;
		c->tph_cap = nc;
	}
	for (k = vr_tp_slot(time, stream, c->tph_cap); c->tph[k]; k = (k + 1) & (c->tph_cap - 1))
		;
	c->tph[k] = (uint32_t)c->ntp + 1;
	c->tp[c->ntp] = (struct vr_tpair){time, stream, {.min = UINT64_MAX}};
	return &c->tp[c->ntp++].s;
}

static int vr_tpair_cmp(const void *a, const void *b)
{
	const struct vr_tpair *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->stream < y->stream ? -1 : x->stream > y->stream;
}

static void vr_time_point(struct vr_ctx *c, size_t stream, uint32_t id, unsigned op, uint64_t sp,
			  uint64_t ns)
{
	c->nprobe_events++;
	for (size_t i = 0; i < c->ntimes; i++) {
		struct vr_time *t = &c->times[i];
		struct vr_tstate *s;
		uint64_t d = 0;
		int closed = 0;

		if (!vr_has(t->end, t->nend, id) && !vr_has(t->start, t->nstart, id))
			continue;
		s = vr_tstate(c, (uint32_t)i, (uint32_t)stream);
		if (!s) {
			c->untimed++;
			continue;
		}

		if (vr_has(t->end, t->nend, id)) {
			if (t->call) {
				size_t k = s->n;

				while (k && s->st[k - 1].sp < sp)
					k--;
				if (k && s->st[k - 1].sp == sp) {
					d = ns - s->st[k - 1].t0;
					s->n = k - 1;
					closed = 1;
				}
			} else if (s->open) {
				d = ns - s->t0;
				s->open = 0;
				closed = 1;
			}
		}
		if (closed) {
			t->count++;
			t->total += d;
			t->min = d < t->min ? d : t->min;
			t->max = d > t->max ? d : t->max;
			s->count++;
			s->total += d;
			s->min = d < s->min ? d : s->min;
			s->max = d > s->max ? d : s->max;
		}
		if (vr_has(t->start, t->nstart, id)) {
			if (t->call) {
				if (s->n == s->cap) {
					size_t nc = s->cap ? s->cap * 2 : 16;
					struct vr_frame *nf = realloc(s->st, nc * sizeof(*nf));

					if (!nf)
						continue;
					s->st = nf;
					s->cap = nc;
				}
				s->st[s->n++] = (struct vr_frame){sp, ns};
			} else {
				s->open = 1;
				s->t0 = ns;
			}
		}
	}
	(void)op;
}

static int vr_var_at(const struct vr_ctx *c, uint32_t id, const char *name)
{
	for (size_t i = 0; i < c->nvars; i++)
		if (c->vars[i].probe_id == id && !strcmp(c->vars[i].name, name))
			return (int)i;
	return -1;
}

static int vr_hit_done(struct vr_ctx *c, const struct vr_hit *h, uint32_t tid)
{
	for (size_t i = 0; i < c->nvars; i++) {
		struct vr_var *v = &c->vars[i];
		const uint8_t *raw;

		if (v->probe_id != h->id || v->index >= h->nvars)
			continue;
		raw = h->raw[v->index];
		if (!v->have_minmax || vr_less(v->type, raw, v->min))
			memcpy(v->min, raw, 16);
		if (!v->have_minmax || vr_less(v->type, v->max, raw))
			memcpy(v->max, raw, 16);
		v->have_minmax = 1;
		if (v->npts >= c->keep) {
			v->npts++;
			continue;
		}
		if (v->npts == v->cap) {
			size_t nc = v->cap ? v->cap * 2 : 64;
			struct vr_point *np = realloc(v->pts, nc * sizeof(*np));

			if (!np)
				return -ENOMEM;
			v->pts = np;
			v->cap = nc;
		}
		v->pts[v->npts].ns = h->ns;
		v->pts[v->npts].tid = tid;
		memcpy(v->pts[v->npts++].raw, raw, 16);
	}
	for (size_t i = 0; i < c->nasserts; i++) {
		struct vr_assert *a = &c->asserts[i];
		size_t ni = probe_expr_nidents(a->ex);
		struct probe_value vals[64], res;
		int vi[64], ok = 1;

		if (!vr_has(a->ids, a->nids, h->id) || ni > 64)
			continue;
		for (size_t k = 0; k < ni; k++) {
			vi[k] = vr_var_at(c, h->id, probe_expr_ident(a->ex, k));
			if (vi[k] < 0 || c->vars[vi[k]].index >= h->nvars) {
				ok = 0;
				break;
			}
			vr_value(c->vars[vi[k]].type, h->raw[c->vars[vi[k]].index], &vals[k]);
		}
		if (!ok || probe_expr_eval(a->ex, vals, &res)) {
			a->nundef++;
			continue;
		}
		if (probe_value_true(&res)) {
			a->ntrue++;
			continue;
		}
		a->nfalse++;
		if (a->failed)
			continue;
		a->failed = 1;
		a->fail_ns = h->ns;
		a->fail_tid = tid;
		a->fail_vals[0] = 0;
		for (size_t k = 0, o = 0; k < ni && o < sizeof(a->fail_vals); k++) {
			char b[96];

			vr_format(c->vars[vi[k]].type, h->raw[c->vars[vi[k]].index], b, sizeof(b), 0);
			o += (size_t)snprintf(a->fail_vals + o, sizeof(a->fail_vals) - o, "%s%s=%s",
					      k ? " " : "", probe_expr_ident(a->ex, k), b);
		}
	}
	return 0;
}

static int vr_event(struct vr_ctx *c, const struct trace_event *ev, uint32_t tid)
{
	const struct rec_probe *p = (const void *)ev->rec;
	uint32_t id = ev_obj(p->h.word);
	unsigned op = ev_op(p->h.word);
	struct vr_hit *h;

	if (p->h.size < sizeof(*p) || ev->stream_id >= c->nstreams)
		return 0;
	if (!c->have_first) {
		c->t_first = ev->ns;
		c->have_first = 1;
	}
	if (op != PROBE_OP_VAR) {
		vr_time_point(c, ev->stream_id, id, op, p->sp, ev->ns);
		return 0;
	}
	h = &c->hits[ev->stream_id];
	{
		uint32_t index = (uint32_t)(p->ret_ip & 0xffff), n = (uint32_t)(p->ret_ip >> 16 & 0xffff);

		if (!n || index >= n)
			return 0;
		if (index == 0) {
			h->id = id;
			h->nvars = n;
			h->next = 0;
			h->ns = ev->ns;
			vr_time_point(c, ev->stream_id, id, op, p->sp, ev->ns);
		}
		if (h->id != id || h->nvars != n || h->next != index)
			return 0; /* a record of this hit was lost */
		if (index >= h->cap) {
			/* grown as the hit's records come, not by the count the
			 * first one claims (up to 65535): memory follows input */
			uint32_t nc = h->cap ? h->cap * 2 : 8;
			uint8_t(*nr)[16];

			if (nc > n)
				nc = n;
			nr = realloc(h->raw, nc * sizeof(*nr));
			if (!nr)
				return -ENOMEM;
			h->raw = nr;
			h->cap = nc;
		}
		memcpy(h->raw[index], p->args, 16);
		h->next++;
		if (h->next == n) {
			h->next = UINT32_MAX;
			return vr_hit_done(c, h, tid);
		}
	}
	return 0;
}

/* ---- printing ---- */

/* The tid of a stream's (last) thread; 0 for an id without a stream. */
static uint32_t vr_stream_tid(const struct trace_reader *r, uint32_t stream)
{
	const struct trace_stream_info *si = trace_reader_stream_by_id(r, stream);

	return si ? si->tid : 0;
}

/* A time in JSON: the number, or null in a trace without per-event time
 * (trace_reader_untimed: spool --clock=none). */
static const char *vr_json_ns(const struct trace_reader *r, uint64_t ns, char *buf)
{
	if (trace_reader_untimed(r))
		return "null";
	snprintf(buf, 24, "%llu", (unsigned long long)ns);
	return buf;
}

/* A time in the text: ms (or us, unit 1e3) with 3 or 6 decimals, or "-"
 * without per-event time. */
static const char *vr_text_ms(const struct trace_reader *r, double ns, double unit, int prec,
			      char *buf)
{
	if (trace_reader_untimed(r))
		return "-";
	snprintf(buf, 40, "%.*f", prec, ns / unit);
	return buf;
}

static void vr_print_json(const struct vr_ctx *c, const struct trace_reader *r,
			  const struct trace_loss *loss, FILE *out)
{
	char b[96], b2[96], nb[24];
	size_t k = 0; /* the next (time, stream) pair */
	int first = 1;

	fprintf(out, "{%s\"vars\":[", trace_reader_untimed(r) ? "\"event_time\":\"packet\"," : "");
	for (size_t i = 0; i < c->nvars; i++) {
		const struct vr_var *v = &c->vars[i];

		if (!v->shown)
			continue;
		fprintf(out, "%s{\"name\":", first ? "" : ",");
		first = 0;
		escape_json_str(out, v->name);
		fprintf(out, ",\"type\":\"%s\",\"function\":", probe_vtype_name(v->type));
		escape_json_str(out, v->func);
		fprintf(out, ",\"where\":");
		escape_json_str(out, v->where);
		fprintf(out, ",\"probe\":%u,\"count\":%zu", v->probe_id, v->npts);
		if (v->have_minmax) {
			vr_format(v->type, v->min, b, sizeof(b), 0);
			vr_format(v->type, v->max, b2, sizeof(b2), 0);
			fprintf(out, ",\"min\":\"%s\",\"max\":\"%s\"", b, b2);
		}
		fprintf(out, ",\"values\":[");
		for (size_t k = 0; k < v->npts; k++) {
			vr_format(v->type, v->pts[k].raw, b, sizeof(b), 0);
			fprintf(out, "%s{\"ns\":%s,\"tid\":%u,\"value\":\"%s\"}", k ? "," : "",
				vr_json_ns(r, v->pts[k].ns - c->t_first, nb), v->pts[k].tid, b);
		}
		fprintf(out, "]}");
	}
	fprintf(out, "],\"asserts\":[");
	for (size_t i = 0; i < c->nasserts; i++) {
		const struct vr_assert *a = &c->asserts[i];

		fprintf(out, "%s{\"expr\":", i ? "," : "");
		escape_json_str(out, a->text);
		fprintf(out, ",\"function\":");
		escape_json_str(out, a->func);
		fprintf(out, ",\"where\":");
		escape_json_str(out, a->where);
		fprintf(out, ",\"true\":%llu,\"false\":%llu,\"undefined\":%llu",
			(unsigned long long)a->ntrue, (unsigned long long)a->nfalse,
			(unsigned long long)a->nundef);
		if (a->failed) {
			fprintf(out, ",\"first_failure\":{\"ns\":%s,\"tid\":%u,\"values\":",
				vr_json_ns(r, a->fail_ns - c->t_first, nb), a->fail_tid);
			escape_json_str(out, a->fail_vals);
			fputc('}', out);
		}
		fputc('}', out);
	}
	fprintf(out, "],\"times\":[");
	for (size_t i = 0; i < c->ntimes; i++) {
		const struct vr_time *t = &c->times[i];
		int tf = 1;

		fprintf(out, "%s{\"spec\":", i ? "," : "");
		escape_json_str(out, t->text);
		fprintf(out, ",\"count\":%llu,\"total_ns\":%s", (unsigned long long)t->count,
			vr_json_ns(r, t->total, nb));
		fprintf(out, ",\"min_ns\":%s", vr_json_ns(r, t->count ? t->min : 0, nb));
		fprintf(out, ",\"avg_ns\":%s", vr_json_ns(r, t->count ? t->total / t->count : 0, nb));
		fprintf(out, ",\"max_ns\":%s,\"threads\":[", vr_json_ns(r, t->max, nb));
		for (; k < c->ntp && c->tp[k].time <= i; k++) {
			const struct vr_tstate *s = &c->tp[k].s;

			if (c->tp[k].time < i || !s->count)
				continue;
			fprintf(out, "%s{\"tid\":%u,\"count\":%llu,\"total_ns\":%s}",
				tf ? "" : ",", vr_stream_tid(r, c->tp[k].stream),
				(unsigned long long)s->count, vr_json_ns(r, s->total, nb));
			tf = 0;
		}
		fprintf(out, "]}");
	}
	fprintf(out, "],\"trace\":{");
	trace_loss_json(loss, out);
	fprintf(out, "}}\n");
}

/* Do a and b read as the same variable ("return (long) at write:exit")?
 * args: gives a function one return value per ret, each its own probe. */
static int vr_same_label(const struct vr_var *a, const struct vr_var *b)
{
	return a->shown && b->shown && !strcmp(a->name, b->name) && !strcmp(a->func, b->func) &&
	       !strcmp(a->where, b->where);
}

static void vr_print(const struct vr_ctx *c, const struct trace_reader *r,
		     const struct vars_opts *o, FILE *out)
{
	char b[96], b2[96], t1[40], t2[40], t3[40], t4[40];
	size_t k = 0; /* the next (time, stream) pair */

	if (trace_reader_untimed(r))
		fputs(ANALYZE_UNTIMED_NOTE, out);
	for (size_t i = 0; i < c->nvars; i++) {
		const struct vr_var *v = &c->vars[i];

		if (!v->shown)
			continue;
		fprintf(out, "variable %s (%s) at %s:%s", escape_str(v->name),
			probe_vtype_name(v->type), escape_str(v->func), escape_str(v->where));
		/* The probes of one spec are planned together, so variables
		 * with the same label are neighbours: the probe number (as
		 * spool probe --list shows it) tells them apart. */
		if ((i && vr_same_label(v, &c->vars[i - 1])) ||
		    (i + 1 < c->nvars && vr_same_label(v, &c->vars[i + 1])))
			fprintf(out, " (probe %u)", v->probe_id);
		fprintf(out, ": %zu values", v->npts);
		if (v->have_minmax) {
			vr_format(v->type, v->min, b, sizeof(b), 1);
			vr_format(v->type, v->max, b2, sizeof(b2), 1);
			fprintf(out, ", min %s, max %s", b, b2);
		}
		fprintf(out, "\n");
		if (v->npts)
			fprintf(out, "  %14s %10s  %s\n", "time ms", "tid", "value");
		for (size_t k = 0; k < v->npts; k++) {
			if (o->limit && k >= o->limit) {
				fprintf(out, "  ... %zu more (--limit 0 shows all)\n", v->npts - k);
				break;
			}
			vr_format(v->type, v->pts[k].raw, b, sizeof(b), 1);
			fprintf(out, "  %14s %10u  %s\n",
				vr_text_ms(r, (double)(v->pts[k].ns - c->t_first), 1e6, 6, t1),
				v->pts[k].tid, b);
		}
	}
	for (size_t i = 0; i < c->nasserts; i++) {
		const struct vr_assert *a = &c->asserts[i];

		fprintf(out, "assertion %s at %s:%s: %llu true, %llu false", escape_str(a->text),
			escape_str(a->func), escape_str(a->where), (unsigned long long)a->ntrue,
			(unsigned long long)a->nfalse);
		if (a->nundef)
			fprintf(out, ", %llu undefined (division by zero)",
				(unsigned long long)a->nundef);
		fprintf(out, "\n");
		/* (without per-event time, the first in the reading's order:
		 * exact within a thread, by packet between threads) */
		if (a->failed)
			fprintf(out, "  first false at %s ms, tid %u%s%s\n",
				vr_text_ms(r, (double)(a->fail_ns - c->t_first), 1e6, 6, t1),
				a->fail_tid, a->fail_vals[0] ? ": " : "",
				escape_str(a->fail_vals));
	}
	if (c->ntimes)
		fprintf(out, "%-32s %10s %12s %12s %12s %12s\n", "time", "count", "total ms",
			"min us", "avg us", "max us");
	for (size_t i = 0; i < c->ntimes; i++) {
		const struct vr_time *t = &c->times[i];

		fprintf(out, "%-32s %10llu %12s %12s %12s %12s\n", escape_str(t->text),
			(unsigned long long)t->count, vr_text_ms(r, (double)t->total, 1e6, 3, t1),
			vr_text_ms(r, (double)(t->count ? t->min : 0), 1e3, 3, t2),
			vr_text_ms(r, t->count ? (double)t->total / t->count : 0, 1e3, 3, t3),
			vr_text_ms(r, (double)t->max, 1e3, 3, t4));
		for (; k < c->ntp && c->tp[k].time <= i; k++) {
			const struct vr_tstate *s = &c->tp[k].s;

			if (c->tp[k].time < i || !s->count)
				continue;
			fprintf(out, "    tid %-24u %10llu %12s %12s %12s %12s\n",
				vr_stream_tid(r, c->tp[k].stream), (unsigned long long)s->count,
				vr_text_ms(r, (double)s->total, 1e6, 3, t1),
				vr_text_ms(r, (double)s->min, 1e3, 3, t2),
				vr_text_ms(r, (double)s->total / s->count, 1e3, 3, t3),
				vr_text_ms(r, (double)s->max, 1e3, 3, t4));
		}
	}
}

struct vars_pass {
	struct vr_ctx c;
	struct trace_reader *r;
	const char *dir;
	char *text;
	uint32_t *cur_tid; /* the tid of each stream's current thread */
};

static void vars_pass_free(void *pv)
{
	struct vars_pass *p = pv;
	struct vr_ctx *c;

	if (!p)
		return;
	c = &p->c;
	free(p->text);
	free(p->cur_tid);
	for (size_t i = 0; i < c->nvars; i++)
		free(c->vars[i].pts);
	free(c->vars);
	for (size_t i = 0; i < c->nasserts; i++) {
		free(c->asserts[i].ids);
		free(c->asserts[i].text);
		probe_expr_free(c->asserts[i].ex);
	}
	free(c->asserts);
	for (size_t k = 0; k < c->ntp; k++)
		free(c->tp[k].s.st);
	free(c->tp);
	free(c->tph);
	for (size_t i = 0; i < c->ntimes; i++) {
		free(c->times[i].start);
		free(c->times[i].end);
		free(c->times[i].text);
	}
	free(c->times);
	for (size_t s = 0; s < c->nstreams && c->hits; s++)
		free(c->hits[s].raw);
	free(c->hits);
	free(p);
}

static int vars_pass_new(void **out, struct trace_reader *r, const char *dir, const void *opts)
{
	const struct vars_opts *o = opts;
	struct vars_pass *p = calloc(1, sizeof(*p));
	struct vr_ctx *c;
	size_t len;
	int rc;

	*out = NULL;
	if (!p)
		return -ENOMEM;
	c = &p->c;
	p->r = r;
	p->dir = dir;
	c->keep = o->json || !o->limit ? SIZE_MAX : o->limit;
	rc = trace_reader_file(r, "vars", &p->text, &len);
	if (rc < 0) {
		log_err("%s has no \"vars\" file: not a trace of spool probe with var:, assert: or "
			"time: probes",
			dir);
		goto out_free;
	}
	/* tables by stream id: ids need not be dense, and are below
	 * EV_MAX_THREADS */
	c->nstreams = trace_reader_nstreams(r) ? (size_t)trace_reader_max_stream_id(r) + 1 : 0;
	c->hits = calloc(c->nstreams ? c->nstreams : 1, sizeof(*c->hits));
	if (!c->hits) {
		rc = -ENOMEM;
		goto out_free;
	}
	rc = vr_load(c, p->text);
	if (rc < 0)
		goto out_free;
	/* The tid of each stream's current thread: a ring serves one thread
	 * after another, each opening its part with KIND_THREAD. */
	p->cur_tid = calloc(c->nstreams ? c->nstreams : 1, sizeof(*p->cur_tid));
	if (!p->cur_tid) {
		rc = -ENOMEM;
		goto out_free;
	}
	for (size_t i = 0; i < c->nstreams; i++) /* (ids need not be dense) */
		p->cur_tid[i] = vr_stream_tid(r, (uint32_t)i);
	*out = p;
	return 0;
out_free:
	vars_pass_free(p);
	return rc;
}

static int vars_pass_feed(void *pv, const struct trace_event *ev)
{
	struct vars_pass *p = pv;

	if (ev_kind(ev->rec->word) == KIND_THREAD && ev->stream_id < p->c.nstreams &&
	    ev->rec->size >= sizeof(struct rec_thread))
		p->cur_tid[ev->stream_id] = ((const struct rec_thread *)ev->rec)->tid;
	if (ev_kind(ev->rec->word) != KIND_PROBE)
		return 0;
	return vr_event(&p->c, ev, ev->stream_id < p->c.nstreams ? p->cur_tid[ev->stream_id] : 0);
}

/* a reading that stopped: no report */
static int vars_pass_end(void *pv, int read_rc, const void *opts, FILE *out)
{
	struct vars_pass *p = pv;
	const struct vars_opts *o = opts;
	struct vr_ctx *c = &p->c;
	struct trace_loss loss;

	if (read_rc < 0)
		return read_rc;

	/* the printers walk each time's threads in stream order */
	if (c->ntp)
		qsort(c->tp, c->ntp, sizeof(*c->tp), vr_tpair_cmp);
	if (c->untimed)
		log_warn("%s: %llu time probe points not timed: more threads by time probes than "
			 "the trace's events pay for (a crafted vars file?)",
			 p->dir, (unsigned long long)c->untimed);
	/* every event was read: the packets have said what they miss */
	trace_reader_loss(p->r, &loss);
	if (o->json) {
		vr_print_json(c, p->r, &loss, out);
	} else {
		if (o->header)
			trace_loss_print_header(&loss, p->dir, NULL, out);
		vr_print(c, p->r, o, out);
	}
	return 0;
}

const struct analyze_pass_ops vars_pass_ops = {
    .open = vars_pass_new,
    .feed = vars_pass_feed,
    .end = vars_pass_end,
    .free = vars_pass_free,
};

int vars_report_dir(const char *dir, const struct vars_opts *o, FILE *out)
{
	return analyze_pass_dir(dir, &vars_pass_ops, o, o->seen, out);
}
