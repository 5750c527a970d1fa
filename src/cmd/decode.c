// SPDX-License-Identifier: MIT
/*
 * decode.c - `spool decode`: the program's own trace events (spool:user) as
 * the unmodified program would have written them (doc/cc.md).
 *
 * A program built by spool cc emits merged events; the translation table in
 * its binary (section .spool_cc_table, format in src/cc/cc_table.h) says which
 * original events each one stands for and where their arguments come from.
 * The table is found through the trace's proc/<pid>.exe side file (inside
 * --sysroot DIR for a trace made on a board), or given with --binary or
 * --table. Every table-hash event in the trace must match a
 * loaded table, so a table from another build is refused rather than used to
 * print wrong events. Plain traces (no merged events) decode as they are.
 *
 * Output: one line per original event, "TIME TID ID ARG...", TIME being
 * nanoseconds with a ".N" suffix that orders equal timestamps so that times
 * strictly increase. An event of a merged call gets the call's time minus
 * the optimizer's cycle estimate (table d<c>) converted with the trace
 * clock, but never a time before the event printed before it. An untimed
 * record (table t<c>: the agent read no TSC, the collector gave it the time
 * of the thread's record before) gets that record's decoded time plus the
 * estimate first.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <getopt.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>

#include "../../include/spool/trace.h"
#include "../cc/cc_table.h"
#include "../trace/trace.h"
#include "../trace/untrusted.h"
#include "../util/escape.h"
#include "../util/log.h"
#include "../util/sysroot.h"
#include "cmd.h"
#include "run_opts.h"

#define DECODE_MAX_ARGS 6

#define DECODE_MAX_TOKENS 32 /* of one formula */

/* One step of a formula (postfix; src/cc/ccopt.c formula_walk). */
struct dec_tok {
	char op; /* 'a' value, 'p' previous record's value, 'c' constant, + - * ^ operation,
		  * s z t cast */
	uint8_t w;
	int64_t x;
};

enum { DEC_VAL, DEC_CONST, DEC_FORMULA, DEC_PREV };

struct dec_orig {
	uint32_t id;
	uint32_t nargs;
	uint32_t rep; /* times the event repeats (idempotent repeats collapsed), >= 1 */
	uint32_t cycles; /* estimated cycles before the merged call (d<c>, or s<c> - o<c>) */
	uint32_t off;	 /* version 5: cycles after the group's first call (o<c>) */
	uint8_t kind[DECODE_MAX_ARGS];
	int64_t v[DECODE_MAX_ARGS];	   /* the constant, or the emitted value's index */
	struct dec_tok *f[DECODE_MAX_ARGS]; /* DEC_FORMULA: its steps, ended by op 0 */
};

struct dec_merged {
	uint32_t nemit;
	uint32_t nev;
	char ref;	  /* 'm' or 'u' when values come from the previous record, else 0 */
	uint32_t ref_id;  /* which record that must be: merged index, or plain id */
	uint32_t need;	  /* values of it used: highest p index + 1 */
	uint32_t span;	  /* version 5: cycles from the group's first call to the record */
	int untimed;	  /* version 6 "t<c>": the record has no time of its own */
	uint32_t gap;	  /* its cycles after the thread's record before it */
	struct dec_orig *ev;
};

struct dec_unit {
	uint64_t hash;
	uint32_t key;
	uint32_t nmerged;
	struct dec_merged *m;
};

/* The tables of one binary (all its translation units). */
struct dec_tables {
	struct dec_unit *u;
	size_t n;
	struct spool_event_desc *names; /* the binary's spool_events section */
	size_t nnames;
	int loaded; /* looked for (even if none was found) */
	char origin[256];
};

static void tables_free(struct dec_tables *t)
{
	for (size_t i = 0; i < t->n; i++) {
		for (uint32_t j = 0; j < t->u[i].nmerged; j++) {
			for (uint32_t k = 0; t->u[i].m[j].ev && k < t->u[i].m[j].nev; k++)
				for (uint32_t a = 0; a < DECODE_MAX_ARGS; a++)
					free(t->u[i].m[j].ev[k].f[a]);
			free(t->u[i].m[j].ev);
		}
		free(t->u[i].m);
	}
	free(t->u);
	t->u = NULL;
	t->n = 0;
	free(t->names);
	t->names = NULL;
	t->nnames = 0;
}

/* The int64_t sign extension of the low w bits of x. */
static int64_t dec_canon(uint64_t x, unsigned w)
{
	if (w >= 64)
		return (int64_t)x;
	x &= (1ULL << w) - 1;
	return (int64_t)(x ^ (1ULL << (w - 1))) - (int64_t)(1ULL << (w - 1));
}

/* A formula "tok,tok,..." (after " f"); checks that it is well formed:
 * known steps, widths 1..64, values below nemit, the stack never empty and
 * one value at the end. NULL if not. */
static struct dec_tok *parse_formula(const char **pp, unsigned nemit)
{
	struct dec_tok *f = calloc(DECODE_MAX_TOKENS + 1, sizeof(*f));
	const char *p = *pp;
	int depth = 0, n;

	if (!f)
		return NULL;
	for (unsigned k = 0;; k++) {
		struct dec_tok *t = &f[k];
		unsigned w;

		if (k == DECODE_MAX_TOKENS)
			goto bad;
		t->op = *p++;
		n = 0;
		if (t->op == 'a' || t->op == 'c' || t->op == 'p') {
			if (sscanf(p, "%" SCNd64 "%n", &t->x, &n) < 1 ||
			    (t->op == 'a' && (t->x < 0 || t->x >= nemit)) ||
			    (t->op == 'p' && (t->x < 0 || t->x >= CC_MAX_EMIT)))
				goto bad;
			depth++;
		} else if (strchr("+-*^szt", t->op) && t->op) {
			if (sscanf(p, "%u%n", &w, &n) < 1 || w < 1 || w > 64)
				goto bad;
			t->w = (uint8_t)w;
			depth -= strchr("szt", t->op) ? 0 : 1;
			if (depth < 1)
				goto bad;
		} else {
			goto bad;
		}
		p += n;
		if (*p != ',')
			break;
		p++;
	}
	if (depth != 1)
		goto bad;
	*pp = p;
	return f;
bad:
	free(f);
	return NULL;
}

/* Compute a formula from the emitted values and the previous record's
 * (well formed: parse_formula; p indices checked by the caller). */
static int64_t dec_eval(const struct dec_tok *f, const int64_t *vals, const int64_t *prev)
{
	int64_t st[DECODE_MAX_TOKENS];
	int sp = 0;

	for (; f->op; f++) {
		uint64_t a, b;

		switch (f->op) {
		case 'a':
			st[sp++] = vals[f->x];
			continue;
		case 'p':
			st[sp++] = prev[f->x];
			continue;
		case 'c':
			st[sp++] = f->x;
			continue;
		case 's':
		case 't':
			st[sp - 1] = dec_canon((uint64_t)st[sp - 1], f->w);
			continue;
		case 'z':
			st[sp - 1] = f->w >= 64 ? st[sp - 1]
						: (int64_t)((uint64_t)st[sp - 1] & ((1ULL << f->w) - 1));
			continue;
		}
		b = (uint64_t)st[--sp];
		a = (uint64_t)st[sp - 1];
		/* Unsigned: wrapping, as the target's two's-complement arithmetic. */
		a = f->op == '+' ? a + b : f->op == '-' ? a - b : f->op == '*' ? a * b : a ^ b;
		st[sp - 1] = dec_canon(a, f->w);
	}
	return st[0];
}

/* A shared prefix (x<j>,<n>): m's first n events are copies of src's, which
 * must make sense in m too: values below m's count, values of the previous
 * record only if m names one (then m needs as many as they use). */
static int copy_shared(struct dec_merged *m, const struct dec_merged *src, uint32_t n)
{
	for (uint32_t k = 0; k < n; k++) {
		struct dec_orig *o = &m->ev[k];

		*o = src->ev[k];
		for (uint32_t a = 0; a < DECODE_MAX_ARGS; a++)
			o->f[a] = NULL;
		for (uint32_t a = 0; a < o->nargs; a++) {
			if (o->kind[a] == DEC_VAL && o->v[a] >= m->nemit)
				return -EINVAL;
			if (o->kind[a] == DEC_PREV) {
				if (!m->ref)
					return -EINVAL;
				if ((uint32_t)o->v[a] + 1 > m->need)
					m->need = (uint32_t)o->v[a] + 1;
			}
			if (o->kind[a] != DEC_FORMULA)
				continue;
			{
				size_t len = 0;

				while (src->ev[k].f[a][len].op)
					len++;
				o->f[a] = calloc(len + 1, sizeof(*o->f[a]));
				if (!o->f[a])
					return -ENOMEM;
				memcpy(o->f[a], src->ev[k].f[a], len * sizeof(*o->f[a]));
			}
			for (const struct dec_tok *t = o->f[a]; t->op; t++) {
				if (t->op == 'a' && t->x >= m->nemit)
					return -EINVAL;
				if (t->op != 'p')
					continue;
				if (!m->ref)
					return -EINVAL;
				if ((uint32_t)t->x + 1 > m->need)
					m->need = (uint32_t)t->x + 1;
			}
		}
	}
	return 0;
}

/* Parse one unit's table starting at *pp (the header line); advance *pp past
 * its "end" line. */
static int parse_unit(const char **pp, const char *end, struct dec_unit *u, const char *origin)
{
	const char *p = *pp, *body, *nl;
	unsigned version, nmerged;
	uint64_t hash;
	int n = 0;

	if (sscanf(p, CC_TABLE_MAGIC " %u %" SCNx64 " %u%n", &version, &hash, &nmerged, &n) < 3 ||
	    version < 1 || version > CC_TABLE_VERSION || p[n] != '\n' || nmerged > CC_MAX_MERGED) {
		log_err("%s: translation table has a bad header", origin);
		return -EINVAL;
	}
	body = p + n + 1;
	u->hash = hash;
	u->key = CC_KEY(hash);
	u->m = calloc(nmerged ? nmerged : 1, sizeof(*u->m));
	if (!u->m)
		return -ENOMEM;
	u->nmerged = nmerged;
	p = body;
	for (uint32_t i = 0; i < nmerged; i++) {
		struct dec_merged *m = &u->m[i];
		unsigned idx, nemit, nev;

		unsigned pj = 0, pn = 0;

		n = 0;
		if (p >= end || sscanf(p, "m %u %u %u%n", &idx, &nemit, &nev, &n) < 3 || idx != i ||
		    nemit > CC_MAX_EMIT || nev > CC_MAX_EMIT)
			goto bad;
		p += n;
		if (*p == ' ' && (p[1] == 'm' || p[1] == 'u')) {
			/* Version 3: the record before this one, which values come from. */
			unsigned rid;

			n = 0;
			if (sscanf(p, " %c%u%n", &m->ref, &rid, &n) < 2 ||
			    (m->ref != 'm' && m->ref != 'u') || (m->ref == 'm' && rid >= i))
				goto bad;
			m->ref_id = rid;
			p += n;
		}
		if (!strncmp(p, " s", 2)) {
			/* Version 5: the record's cycles after the group's first call. */
			n = 0;
			if (version < 5 || sscanf(p, " s%u%n", &m->span, &n) < 1 ||
			    m->span > CC_MAX_CYCLES)
				goto bad;
			p += n;
		}
		if (!strncmp(p, " x", 2)) {
			/* Version 5: the first pn events are those of merged event pj. */
			n = 0;
			if (version < 5 || sscanf(p, " x%u,%u%n", &pj, &pn, &n) < 2 || pj >= i ||
			    !pn || pn > u->m[pj].nev || pn + nev > CC_MAX_EMIT)
				goto bad;
			p += n;
		}
		if (!strncmp(p, " t", 2)) {
			/* Version 6: an untimed record, c cycles after the one before. */
			n = 0;
			if (version < 6 || sscanf(p, " t%u%n", &m->gap, &n) < 1 ||
			    m->gap > CC_MAX_CYCLES)
				goto bad;
			m->untimed = 1;
			p += n;
		}
		if (*p != '\n' || !(pn + nev))
			goto bad;
		p++;
		m->nemit = nemit;
		m->nev = pn + nev;
		m->ev = calloc(m->nev, sizeof(*m->ev));
		if (!m->ev)
			return -ENOMEM;
		if (pn && copy_shared(m, &u->m[pj], pn) < 0)
			goto bad;
		for (uint32_t k = pn; k < m->nev; k++) {
			struct dec_orig *o = &m->ev[k];
			unsigned id, na;

			n = 0;
			if (p >= end || sscanf(p, "e %u %u%n", &id, &na, &n) < 2 ||
			    na > DECODE_MAX_ARGS)
				goto bad;
			o->id = id;
			o->nargs = na;
			p += n;
			for (uint32_t a = 0; a < na; a++) {
				char kind;

				n = 0;
				if (!strncmp(p, " f", 2)) {
					p += 2;
					o->kind[a] = DEC_FORMULA;
					o->f[a] = parse_formula(&p, nemit);
					if (!o->f[a])
						goto bad;
					for (const struct dec_tok *t = o->f[a]; t->op; t++) {
						if (t->op != 'p')
							continue;
						if (!m->ref)
							goto bad;
						if ((uint32_t)t->x + 1 > m->need)
							m->need = (uint32_t)t->x + 1;
					}
					continue;
				}
				if (sscanf(p, " %c%" SCNd64 "%n", &kind, &o->v[a], &n) < 2 ||
				    (kind != 'c' && kind != 'a' && kind != 'p') ||
				    (kind == 'a' && (o->v[a] < 0 || o->v[a] >= nemit)) ||
				    (kind == 'p' && (!m->ref || o->v[a] < 0 ||
						     o->v[a] >= CC_MAX_EMIT)))
					goto bad;
				o->kind[a] = kind == 'c' ? DEC_CONST : kind == 'a' ? DEC_VAL : DEC_PREV;
				if (kind == 'p' && (uint32_t)o->v[a] + 1 > m->need)
					m->need = (uint32_t)o->v[a] + 1;
				p += n;
			}
			o->rep = 1;
			if (!strncmp(p, " r", 2)) {
				n = 0;
				if (sscanf(p, " r%u%n", &o->rep, &n) < 1 || o->rep < 2 ||
				    o->rep > CC_MAX_EMIT)
					goto bad;
				p += n;
			}
			if (!strncmp(p, " d", 2)) {
				n = 0;
				if (version > 4 || sscanf(p, " d%u%n", &o->cycles, &n) < 1 ||
				    o->cycles > CC_MAX_CYCLES)
					goto bad;
				p += n;
			}
			if (!strncmp(p, " o", 2)) {
				n = 0;
				if (version < 5 || sscanf(p, " o%u%n", &o->off, &n) < 1 ||
				    o->off > CC_MAX_CYCLES)
					goto bad;
				p += n;
			}
			if (*p != '\n')
				goto bad;
			p++;
		}
		if (version >= 5)
			for (uint32_t k = 0; k < m->nev; k++)
				m->ev[k].cycles =
					m->span > m->ev[k].off ? m->span - m->ev[k].off : 0;
	}
	if (end - p < 4 || strncmp(p, "end\n", 4))
		goto bad;
	p += 4;
	if (cc_hash(body, (uint64_t)(p - body)) != hash) {
		log_err("%s: translation table is corrupt (its hash does not match)", origin);
		return -EINVAL;
	}
	*pp = p;
	return 0;
bad:
	nl = memchr(p, '\n', (size_t)(end - p));
	log_err("%s: translation table is corrupt near '%.*s'", origin,
		(int)((nl ? nl : end) - p > 60 ? 60 : (nl ? nl : end) - p), p);
	return -EINVAL;
}

/* Parse concatenated tables (NUL bytes between them are skipped). */
static int parse_data(struct dec_tables *t, const char *p, const char *end, const char *origin)
{

	while (p < end) {
		struct dec_unit *u;
		int rc;

		if (*p == '\0' || *p == '\n') {
			p++;
			continue;
		}
		u = realloc(t->u, (t->n + 1) * sizeof(*u));
		if (!u)
			return -ENOMEM;
		t->u = u;
		memset(&t->u[t->n], 0, sizeof(*u));
		t->n++;
		rc = parse_unit(&p, end, &t->u[t->n - 1], origin);
		if (rc)
			return rc;
	}
	for (size_t i = 0; i < t->n; i++)
		for (size_t j = i + 1; j < t->n; j++)
			if (t->u[i].key == t->u[j].key && t->u[i].hash != t->u[j].hash) {
				log_err("%s: two translation units share merged ids (key %" PRIu32
					"); rebuild one of them",
					origin, t->u[i].key);
				return -EINVAL;
			}
	return 0;
}

static int parse_tables(struct dec_tables *t, const char *raw, size_t len, const char *origin)
{
	/* A copy with a NUL after it: sscanf must not run off a section's end. */
	char *data = malloc(len + 1);
	const char *p = data, *end = data + len;
	int rc = 0;

	if (!data)
		return -ENOMEM;
	memcpy(data, raw, len);
	data[len] = '\0';
	rc = parse_data(t, p, end, origin);
	free(data);
	return rc;
}

static int load_table_file(struct dec_tables *t, const char *path)
{
	FILE *f = fopen(path, "r");
	char *data = NULL;
	size_t len = 0;
	ssize_t n;
	int rc;

	if (!f) {
		log_err("cannot open %s: %s", path, strerror(errno));
		return -errno;
	}
	/* An empty file (n < 0 at end of file) leaves getdelim's buffer
	 * allocated but not terminated: only the n bytes it read count. */
	n = getdelim(&data, &len, '\0', f);
	rc = n < 0 && ferror(f) ? -EIO : 0;
	fclose(f);
	if (!rc)
		rc = parse_tables(t, n > 0 ? data : "", n > 0 ? strnlen(data, (size_t)n) : 0, path);
	free(data);
	return rc;
}

/* The tables in a binary's CC_TABLE_SECTION; none is not an error.
 * traced: path is the one the trace names, looked up in --sysroot DIR when
 * one is given (a board's program, on the host). */
static int load_binary(struct dec_tables *t, const char *path, int traced)
{
	Elf *e = NULL;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	int fd, rc = 0;

	elf_version(EV_CURRENT);
	/* often a path the trace names (proc/PID.exe): not a FIFO, not a device */
	if (traced && sysroot_get()) {
		fd = sysroot_open(path);
		if (fd < 0) {
			log_err("cannot open %s in the sysroot %s: %s", path, sysroot_get(),
				fd == -EXDEV ? "it leads out of the sysroot" : strerror(-fd));
			return fd;
		}
	} else {
		fd = trace_open_named(path);
		if (fd < 0) {
			log_err("cannot open %s: %s", path, trace_open_strerror(fd));
			return fd;
		}
	}
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF || elf_getshdrstrndx(e, &shstrndx)) {
		log_err("%s: not an ELF file", path);
		rc = -EINVAL;
		goto out_elf;
	}
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(e, shstrndx, sh.sh_name)))
			continue;
		if (!strcmp(name, CC_EVENTS_SECTION) && sh.sh_type == SHT_PROGBITS && !t->names) {
			/* Event names, for --json: best effort, never an error. */
			d = elf_getdata(scn, NULL);
			if (d && d->d_buf && d->d_size >= sizeof(*t->names)) {
				t->names = malloc(d->d_size);
				if (t->names) {
					memcpy(t->names, d->d_buf, d->d_size);
					t->nnames = d->d_size / sizeof(*t->names);
				}
			}
			continue;
		}
		if (strcmp(name, CC_TABLE_SECTION))
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf) {
			log_err("%s: cannot read section %s", path, CC_TABLE_SECTION);
			rc = -EINVAL;
			break;
		}
		rc = parse_tables(t, d->d_buf, d->d_size, path);
		if (rc)
			break;
	}
out_elf:
	if (e)
		elf_end(e);
	close(fd);
	return rc;
}

struct dec_pid {
	uint32_t pid;
	struct dec_tables t;
};

/* The last spool:user record of one stream (thread): a merged record may
 * take values from it (table "p<k>"), an untimed one its time. */
struct dec_last {
	uint32_t stream_id;
	uint32_t id;
	uint32_t nargs; /* of the record; only the first CC_MAX_EMIT are kept */
	int64_t args[CC_MAX_EMIT];
	uint64_t raw_tsc; /* its time in the trace */
	uint64_t est_tsc; /* its time as decoded: raw_tsc, or for an untimed record
			   * the estimate (then raw_tsc is the record's before it) */
};

/* --trace-out: one output stream per input stream. seq numbers shift by the
 * events decoding added, so gaps (lost records) stay gaps; times within a
 * merged record step by one TSC tick, kept strictly increasing. */
struct dec_out {
	uint32_t stream_id;
	struct trace_stream *s;
	int64_t seq_shift;
	uint64_t last_tsc;
};

/* --counts: how many original events of one id (spool cc --profile). */
struct dec_count {
	uint32_t id;
	uint64_t n;
};

struct decoder {
	struct trace_reader *r;
	struct trace_writer *w; /* --trace-out */
	struct dec_out *outs;
	size_t nouts;
	const struct trace_event *cur; /* the record being decoded */
	int64_t cur_events;		/* events it became so far */
	struct dec_last *last;
	size_t nlast;
	uint64_t unmatched; /* merged records whose previous record is not the one needed */
	int werr;	    /* first --trace-out write error */
	struct dec_tables given; /* --table / --binary: used for every process */
	int have_given;
	struct dec_pid *pids;
	size_t npids;
	uint64_t last_ns, records, bytes, events;
	uint32_t last_sub;
	int started, json, no_cycles, counts;
	uint64_t cur_cycles; /* the event being written: cycles before its record */
	uint64_t cur_tsc;    /* the record being decoded: its time (estimated if untimed) */
	struct dec_count *cnt; /* --counts: events per id, sorted by id */
	size_t ncnt;
};

static uint32_t stream_pid(struct decoder *d, uint32_t stream_id, uint32_t *tid)
{
	for (size_t i = 0; i < trace_reader_nstreams(d->r); i++) {
		const struct trace_stream_info *s = trace_reader_stream(d->r, i);

		if (s->stream_id == stream_id) {
			*tid = s->tid;
			return s->pid;
		}
	}
	*tid = 0;
	return 0;
}

/* The tables that apply to process pid; loaded on first need. */
static struct dec_tables *tables_for(struct decoder *d, uint32_t pid, int *err)
{
	struct dec_pid *p;
	char name[64], *exe = NULL;
	size_t len;

	*err = 0;
	if (d->have_given)
		return &d->given;
	for (size_t i = 0; i < d->npids; i++)
		if (d->pids[i].pid == pid)
			return &d->pids[i].t;
	p = realloc(d->pids, (d->npids + 1) * sizeof(*p));
	if (!p) {
		*err = -ENOMEM;
		return NULL;
	}
	d->pids = p;
	p = &d->pids[d->npids++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	snprintf(name, sizeof(name), "proc/%u.exe", pid);
	if (trace_reader_file(d->r, name, &exe, &len) == 0 && len) {
		snprintf(p->t.origin, sizeof(p->t.origin), "%s", exe);
		*err = load_binary(&p->t, exe, 1);
		/* A trace from a board names the program by its path there. */
		if (*err == -ENOENT)
			log_err("process %u's binary is not at the path it ran from; give it "
				"with --binary PATH, or the board's root with --sysroot DIR "
				"(a trace made on another machine)",
				pid);
	}
	free(exe);
	return *err ? NULL : &p->t;
}

/* s (at most max bytes, maybe not NUL-terminated) as a JSON string. */
static void json_str(const char *s, size_t max)
{
	escape_json(stdout, s, strnlen(s, max));
}

static const struct spool_event_desc *event_desc(const struct dec_tables *t, uint32_t id)
{
	for (size_t i = 0; t && i < t->nnames; i++)
		if (t->names[i].magic == SPOOL_EVENT_DESC_MAGIC && t->names[i].id == id)
			return &t->names[i];
	return NULL;
}

static void put_json(const struct dec_tables *t, uint64_t ns, uint32_t sub, uint32_t tid,
		     uint32_t id, uint32_t n, const int64_t *args, int first)
{
	const struct spool_event_desc *desc = event_desc(t, id);

	printf("%s{\"time_ns\":%" PRIu64 ",\"seq\":%" PRIu32 ",\"tid\":%" PRIu32
	       ",\"id\":%" PRIu32,
	       first ? "" : ",\n", ns, sub, tid, id);
	if (desc) {
		printf(",\"name\":");
		json_str(desc->name, sizeof(desc->name));
	}
	printf(",\"args\":[");
	for (uint32_t i = 0; i < n; i++)
		printf("%s%" PRId64, i ? "," : "", args[i]);
	putchar(']');
	if (desc && desc->args[0]) {
		/* Argument names: the comma-separated list, one string each. */
		const char *p = desc->args, *end = desc->args + strnlen(desc->args, sizeof(desc->args));

		printf(",\"arg_names\":[");
		for (int k = 0; p <= end; k++) {
			const char *c = memchr(p, ',', (size_t)(end - p));

			if (k)
				putchar(',');
			json_str(p, (size_t)((c ? c : end) - p));
			p = (c ? c : end) + 1;
		}
		putchar(']');
	}
	putchar('}');
}

static struct dec_out *out_of(struct decoder *d, uint32_t stream_id, int *err)
{
	struct dec_out *o;
	uint32_t tid, pid;

	*err = 0;
	for (size_t i = 0; i < d->nouts; i++)
		if (d->outs[i].stream_id == stream_id)
			return &d->outs[i];
	o = realloc(d->outs, (d->nouts + 1) * sizeof(*o));
	if (!o) {
		*err = -ENOMEM;
		return NULL;
	}
	d->outs = o;
	o = &d->outs[d->nouts];
	memset(o, 0, sizeof(*o));
	o->stream_id = stream_id;
	pid = stream_pid(d, stream_id, &tid);
	*err = trace_writer_stream(d->w, stream_id, pid, tid, &o->s);
	if (*err)
		return NULL;
	d->nouts++;
	return o;
}

/* Write one record to --trace-out: rec is the input record (non-user kinds
 * pass as they are) or a decoded user event (id, n, args). */
static int write_rec(struct decoder *d, const struct trace_event *ev, const struct rec_hdr *rec,
		     int64_t added)
{
	struct dec_out *o;
	union {
		struct rec_hdr h;
		uint8_t b[4096];
	} buf;
	int err;

	o = out_of(d, ev->stream_id, &err);
	if (!o)
		return err;
	if (rec->size > sizeof(buf)) {
		o->seq_shift += added;
		return trace_stream_write(o->s, rec); /* long records: as they are */
	}
	memcpy(&buf, rec, rec->size);
	o->seq_shift += added;
	buf.h.seq = (uint32_t)((int64_t)rec->seq + o->seq_shift);
	if (buf.h.tsc <= o->last_tsc && o->last_tsc)
		buf.h.tsc = o->last_tsc + 1;
	o->last_tsc = buf.h.tsc;
	return trace_stream_write(o->s, &buf.h);
}

/* A decoded event as a plain spool:user record, in the input record's place.
 * A merged call's events have at most DECODE_MAX_ARGS values, a plain one
 * what the program passed to spool_trace_emit (up to USER_MAX_ARGS): that
 * record is built in the heap. */
static int write_event(struct decoder *d, uint32_t id, uint32_t n, const int64_t *args)
{
	const struct trace_event *ev = d->cur;
	union {
		struct rec_user u;
		uint8_t b[sizeof(struct rec_user) + 8 * DECODE_MAX_ARGS];
	} small;
	size_t size = sizeof(struct rec_user) + 8 * (size_t)n;
	struct rec_user *u = &small.u;
	int rc;

	if (n > DECODE_MAX_ARGS) {
		u = malloc(size);
		if (!u)
			return -ENOMEM;
	}
	memset(u, 0, size);
	u->h = *ev->rec;
	u->h.tsc = d->cur_tsc;
	u->h.size = (uint32_t)size;
	/* The k-th event of a record: its cycle estimate before it (TSC ticks
	 * taken as cycles), or without one k ticks after it (write_rec keeps
	 * order, so a correction never goes back past the record before);
	 * every event after the first adds one to the stream's numbering
	 * (write_rec's seq_shift). */
	if (d->no_cycles || !d->cur_cycles)
		u->h.tsc += (uint64_t)d->cur_events;
	else if (u->h.tsc > d->cur_cycles)
		u->h.tsc -= d->cur_cycles;
	u->id = id;
	u->nargs = n;
	memcpy(u->args, args, 8 * (size_t)n);
	d->cur_events++;
	rc = write_rec(d, ev, &u->h, d->cur_events > 1 ? 1 : 0);
	if (u != &small.u)
		free(u);
	return rc;
}

/* Count one event of id (binary search in the sorted array, insert if new). */
static int count_event(struct decoder *d, uint32_t id)
{
	size_t lo = 0, hi = d->ncnt;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (d->cnt[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == d->ncnt || d->cnt[lo].id != id) {
		struct dec_count *c = realloc(d->cnt, (d->ncnt + 1) * sizeof(*c));

		if (!c)
			return -ENOMEM;
		d->cnt = c;
		memmove(&c[lo + 1], &c[lo], (d->ncnt - lo) * sizeof(*c));
		c[lo] = (struct dec_count){.id = id};
		d->ncnt++;
	}
	d->cnt[lo].n++;
	return 0;
}

static void put_event(struct decoder *d, const struct dec_tables *t, uint64_t ns, uint32_t tid,
		      uint32_t id, uint32_t n, const int64_t *args)
{
	if (d->counts) {
		d->events++;
		if (!d->werr)
			d->werr = count_event(d, id);
		return;
	}
	if (d->w) {
		d->events++;
		if (!d->werr)
			d->werr = write_event(d, id, n, args);
		return;
	}
	if (d->started && ns <= d->last_ns) {
		ns = d->last_ns;
		d->last_sub++;
	} else {
		d->last_sub = 0;
	}
	if (d->json) {
		put_json(t, ns, d->last_sub, tid, id, n, args, !d->started);
	} else {
		printf("%" PRIu64 ".%" PRIu32 " %" PRIu32 " %" PRIu32, ns, d->last_sub, tid, id);
		for (uint32_t i = 0; i < n; i++)
			printf(" %" PRId64, args[i]);
		putchar('\n');
	}
	d->started = 1;
	d->last_ns = ns;
	d->events++;
}

static struct dec_last *last_of(struct decoder *d, uint32_t stream_id)
{
	struct dec_last *l;

	for (size_t i = 0; i < d->nlast; i++)
		if (d->last[i].stream_id == stream_id)
			return &d->last[i];
	l = realloc(d->last, (d->nlast + 1) * sizeof(*l));
	if (!l)
		return NULL;
	d->last = l;
	l = &d->last[d->nlast++];
	memset(l, 0, sizeof(*l));
	l->stream_id = stream_id;
	l->id = UINT32_MAX; /* none yet */
	return l;
}

static int decode_record(struct decoder *d, const struct trace_event *ev,
			 const struct dec_last *prev, uint64_t *est);

/* Decode one record, then remember it as its stream's last. */
static int decode_event(struct decoder *d, const struct trace_event *ev)
{
	const struct rec_user *u = (const struct rec_user *)ev->rec;
	struct dec_last *l, prev;
	int rc;

	if (ev->rec->size < sizeof(*u) || ev->rec->size != sizeof(*u) + 8 * (uint64_t)u->nargs)
		return 0;
	l = last_of(d, ev->stream_id);
	if (!l)
		return -ENOMEM;
	prev = *l;
	l->id = u->id;
	l->nargs = u->nargs;
	memcpy(l->args, u->args, 8 * (u->nargs < CC_MAX_EMIT ? u->nargs : CC_MAX_EMIT));
	l->raw_tsc = l->est_tsc = d->cur_tsc = ev->rec->tsc;
	rc = decode_record(d, ev, &prev, &l->est_tsc);
	return rc;
}

/*
 * An untimed record's time (table t<c>): the collector gave it the time of
 * the thread's record before it; when that record is the stream's last
 * spool:user record (same time in the trace), it is that record's decoded
 * time plus the estimate, so a chain of untimed records adds up. Otherwise
 * (another kind of record in between, an agent without the untimed entry
 * that wrote a timed record, or the record before lost) the record's own
 * time is the best there is. --no-cycles: the record's own time.
 */
static uint64_t untimed_tsc(const struct decoder *d, const struct trace_event *ev,
			    const struct dec_last *prev, const struct dec_merged *m)
{
	if (d->no_cycles || prev->id == UINT32_MAX || prev->raw_tsc != ev->rec->tsc)
		return ev->rec->tsc;
	return prev->est_tsc + m->gap;
}

static int decode_record(struct decoder *d, const struct trace_event *ev,
			 const struct dec_last *prev, uint64_t *est)
{
	const struct rec_user *u = (const struct rec_user *)ev->rec;
	struct dec_tables *t;
	struct dec_unit *unit = NULL;
	uint32_t tid, pid, key, idx;
	int err;

	d->records++;
	d->bytes += ev->rec->size;
	pid = stream_pid(d, ev->stream_id, &tid);
	if (u->id < CC_ID_BASE) {
		/* Plain events need no table; --json wants names if there are any. */
		t = d->json ? tables_for(d, pid, &err) : NULL;
		put_event(d, t, ev->ns, tid, u->id, u->nargs, u->args);
		return 0;
	}
	t = tables_for(d, pid, &err);
	if (!t)
		return err;
	key = CC_ID_KEY(u->id);
	idx = CC_ID_INDEX(u->id);
	for (size_t i = 0; i < t->n && !unit; i++)
		if (t->u[i].key == key)
			unit = &t->u[i];
	if (idx == CC_HELLO_INDEX) {
		if (u->nargs != 1 || !unit || unit->hash != (uint64_t)u->args[0]) {
			log_err("process %u: the trace was written by a build whose translation "
				"table (hash %016" PRIx64 ") is not in %s",
				pid, u->nargs ? (uint64_t)u->args[0] : 0,
				d->have_given ? "the table given" : t->origin[0] ? t->origin : "its binary");
			return -EINVAL;
		}
		return 0;
	}
	if (!unit || idx >= unit->nmerged) {
		log_err("process %u: merged event %#" PRIx32 " is in no translation table (%s); "
			"give the binary with --binary",
			pid, u->id, t->origin[0] ? t->origin : "no binary recorded");
		return -EINVAL;
	}
	{
		const struct dec_merged *m = &unit->m[idx];

		const struct trace_clock *clk = trace_reader_clock(d->r);
		uint64_t rec_ns = ev->ns;

		if (u->nargs != m->nemit) {
			log_err("process %u: merged event %#" PRIx32 " has %u values, its table "
				"entry %u",
				pid, u->id, u->nargs, m->nemit);
			return -EINVAL;
		}
		if (m->untimed) {
			*est = d->cur_tsc = untimed_tsc(d, ev, prev, m);
			if (clk && clk->tsc_hz)
				rec_ns += (uint64_t)((unsigned __int128)(*est - ev->rec->tsc) *
						     1000000000u / clk->tsc_hz);
		}
		if (m->ref && (prev->id != (m->ref == 'm' ? CC_ID(unit->key, m->ref_id) : m->ref_id) ||
			       prev->nargs < m->need)) {
			/* Its previous record was lost (a full ring) or is not
			 * the one the optimizer saw: its events cannot be rebuilt. */
			d->unmatched++;
			return 0;
		}
		for (uint32_t k = 0; k < m->nev; k++) {
			const struct dec_orig *o = &m->ev[k];
			int64_t args[DECODE_MAX_ARGS];

			for (uint32_t a = 0; a < o->nargs; a++)
				args[a] = o->kind[a] == DEC_CONST   ? o->v[a]
					  : o->kind[a] == DEC_VAL ? u->args[o->v[a]]
					  : o->kind[a] == DEC_PREV
						  ? prev->args[o->v[a]]
						  : dec_eval(o->f[a], u->args, prev->args);
			uint64_t ns = rec_ns;

			if (o->cycles && !d->no_cycles) {
				/* Cycles to ns with the trace clock; put_event keeps
				 * times strictly increasing, so a correction stops
				 * at the event printed before. */
				uint64_t back = clk && clk->tsc_hz
							? (uint64_t)o->cycles * 1000000000ULL /
								  clk->tsc_hz
							: 0;

				ns = ns > back ? ns - back : 0;
			}
			d->cur_cycles = d->no_cycles ? 0 : o->cycles;
			for (uint32_t r = 0; r < o->rep; r++)
				put_event(d, t, ns, tid, o->id, o->nargs, args);
			d->cur_cycles = 0;
		}
	}
	return 0;
}

/* The input trace's side files (.spool/NAME and .spool/DIR/NAME), copied
 * into the output trace: process names, executables, what reports use. Not
 * a replay image (rr_img.c): it belongs to the input's streams, and a
 * replay of the output would find it stale. */
static int copy_side_files(struct decoder *d, const char *dir)
{
	char path[600];
	DIR *top, *sub;
	struct dirent *e, *f;
	int rc = 0;

	snprintf(path, sizeof(path), "%s/.spool", dir);
	top = opendir(path);
	if (!top)
		return 0; /* none */
	while (!rc && (e = readdir(top))) {
		char name[520], *data;
		size_t len;

		/* (state: the decoded trace's writer keeps its own) */
		if (e->d_name[0] == '.' || !strncmp(e->d_name, "replay.img", 10) ||
		    !strcmp(e->d_name, "state"))
			continue;
		snprintf(path, sizeof(path), "%s/.spool/%s", dir, e->d_name);
		sub = opendir(path);
		if (!sub) {
			if (trace_reader_file(d->r, e->d_name, &data, &len) == 0) {
				rc = trace_writer_add_file(d->w, e->d_name, data, len);
				free(data);
			}
			continue;
		}
		while (!rc && (f = readdir(sub))) {
			if (f->d_name[0] == '.')
				continue;
			snprintf(name, sizeof(name), "%.200s/%.200s", e->d_name, f->d_name);
			if (trace_reader_file(d->r, name, &data, &len) == 0) {
				rc = trace_writer_add_file(d->w, name, data, len);
				free(data);
			}
		}
		closedir(sub);
	}
	closedir(top);
	return rc;
}

/* Codes of spool decode's options: long-only, all of them. */
enum {
	DECODE_O_BINARY = RUN_OPT_LONG,
	DECODE_O_TABLE,
	DECODE_O_SYSROOT,
	DECODE_O_JSON,
	DECODE_O_STATS,
	DECODE_O_TRACE_OUT,
	DECODE_O_NO_CYCLES,
	DECODE_O_COUNTS,
};

/* spool decode's options, in the order --help lists them. */
static const struct run_opt_own decode_opts[] = {
    {"binary", required_argument, DECODE_O_BINARY,
     "  --binary PATH  take the translation table from this binary (default: the\n"
     "                 traced process's executable, recorded in the trace)\n"},
    {"table", required_argument, DECODE_O_TABLE,
     "  --table FILE   take it from a table file (spool-ccopt --table)\n"},
    {"sysroot", required_argument, DECODE_O_SYSROOT,
     "  --sysroot DIR  a trace made on a board: look the traced executable up\n"
     "                 inside DIR (the board's root or a copy of its files)\n"},
    {"json", no_argument, DECODE_O_JSON,
     "  --json         print a JSON array of events instead: time_ns, seq (orders\n"
     "                 equal times), tid, id, name, args, arg_names (names from\n"
     "                 the binary's SPOOL_TRACE_EVENT descriptions, when known)\n"},
    {"stats", no_argument, DECODE_O_STATS,
     "  --stats        print on stderr the trace records read, their bytes and\n"
     "                 the events decoded\n"},
    {"trace-out", required_argument, DECODE_O_TRACE_OUT,
     "  --trace-out DIR  write the trace again into DIR (which must not exist)\n"
     "                 with every spool:user event decoded, as the plain build\n"
     "                 writes them, so every other report and export reads it\n"},
    {"no-cycles", no_argument, DECODE_O_NO_CYCLES,
     "  --no-cycles    ignore the optimizer's cycle estimates: the events of a\n"
     "                 merged call get its time (an untimed one's: the time of\n"
     "                 the record before it), ordered by the suffix only\n"},
    {"counts", no_argument, DECODE_O_COUNTS,
     "  --counts       print 'ID COUNT' per event id instead of the events (a\n"
     "                 profile for spool cc --profile)\n"},
    {"help", no_argument, 'h', "  -h, --help     show this help\n"},
};

#define DECODE_NOPTS (sizeof(decode_opts) / sizeof(decode_opts[0]))

static void decode_usage(FILE *out)
{
	fprintf(out,
		"usage: spool decode [OPTIONS] [TRACE_DIR]\n"
		"\n"
		"Print the program's own trace events (spool/trace.h) of a trace (default\n"
		"spool.trace) as the program built without spool cc would have written\n"
		"them: one line per event, 'TIME TID ID ARG...', TIME in nanoseconds with a\n"
		"suffix that keeps times strictly increasing.\n"
		"\n"
		"options:\n");
	run_opts_own_usage(out, decode_opts, DECODE_NOPTS);
	fprintf(out,
		"\n"
		"Exit status: 0 when the events were printed (a trace with lost events too:\n"
		"the loss is reported on stderr, as by every command that reads a trace); 1\n"
		"when the trace cannot be read or written, is damaged, or has merged records\n"
		"that cannot be decoded; 2 on a usage error.\n");
}

/* A wrong option, said as spool decode always has (spec.bad_option). */
static void decode_bad_option(int c, char **argv)
{
	(void)c;
	log_err("unknown option or missing argument '%s' (see spool decode --help)",
		argv[optind - 1]);
}

static const struct run_opts_spec decode_spec = {
    .usage = decode_usage, .anywhere = 1, .bad_option = decode_bad_option};

/* What the command line of spool decode asks for, besides d's fields. */
struct decode_cli {
	struct decoder *d;
	const char *out_dir;
	int stats;
	int status; /* the exit status when an option fails (-1 of decode_opt) */
};

/* One of spool decode's options (run_opt_fn). */
static int decode_opt(void *arg, int c, const char *val)
{
	struct decode_cli *cl = arg;
	struct decoder *d = cl->d;

	switch (c) {
	case DECODE_O_BINARY:
	case DECODE_O_TABLE:
		/* a table that cannot be loaded is not a usage error */
		cl->status = 1;
		d->have_given = 1;
		snprintf(d->given.origin, sizeof(d->given.origin), "%s", val);
		if ((c == DECODE_O_BINARY ? load_binary(&d->given, val, 0)
					  : load_table_file(&d->given, val)) < 0)
			return -1;
		cl->status = EXIT_USAGE;
		return 0;
	case DECODE_O_STATS:
		cl->stats = 1;
		return 0;
	case DECODE_O_JSON:
		d->json = 1;
		return 0;
	case DECODE_O_NO_CYCLES:
		d->no_cycles = 1;
		return 0;
	case DECODE_O_COUNTS:
		d->counts = 1;
		return 0;
	case DECODE_O_SYSROOT:
		return sysroot_option(val) < 0 ? -1 : 0;
	case DECODE_O_TRACE_OUT:
		cl->out_dir = val;
		return 0;
	}
	return -1;
}

int cmd_decode(int argc, char **argv)
{
	const char *dir = "spool.trace", *out_dir;
	struct decoder d = {0};
	struct decode_cli cl = {.d = &d, .status = EXIT_USAGE};
	struct trace_problem prob = {0};
	struct trace_event ev;
	int rc, stats, ret = 1;

	rc = run_opts_own_parse("decode", argc, argv, decode_opts, DECODE_NOPTS, &decode_spec,
				decode_opt, &cl);
	if (rc) {
		ret = rc < 0 ? cl.status : 0;
		goto out;
	}
	out_dir = cl.out_dir;
	stats = cl.stats;
	if (optind < argc)
		dir = argv[optind++];
	if (optind < argc) {
		log_err("unexpected argument '%s'", argv[optind]);
		ret = EXIT_USAGE;
		goto out;
	}
	if (d.counts && (out_dir || d.json)) {
		log_err("--counts cannot be combined with --json or --trace-out");
		ret = EXIT_USAGE;
		goto out;
	}
	if (cmd_trace_arg_check(dir, "decode")) {
		ret = 1;
		goto out;
	}
	rc = trace_reader_open(&d.r, dir, &prob);
	if (rc < 0) {
		log_err("cannot read trace %s: %s", dir, prob.msg[0] ? prob.msg : strerror(-rc));
		goto out;
	}
	if (out_dir) {
		d.json = 0;
		rc = trace_writer_open(&d.w, out_dir, trace_reader_clock(d.r));
		if (rc < 0) {
			log_err("cannot create trace %s: %s", out_dir, strerror(-rc));
			goto out;
		}
	}
	if (d.json)
		printf("[\n");
	while ((rc = trace_reader_next(d.r, &ev)) == 1) {
		if (ev_kind(ev.rec->word) != KIND_USER) {
			if (d.w && (rc = write_rec(&d, &ev, ev.rec, 0)) < 0) {
				log_err("cannot write %s: %s", out_dir, strerror(-rc));
				goto out;
			}
			continue;
		}
		d.cur = &ev;
		d.cur_events = 0;
		if (decode_event(&d, &ev) < 0)
			goto out;
		if (d.w && !d.werr && !d.cur_events) {
			/* A record that became no event (the table-hash event,
			 * or one not decoded): later numbers close up. */
			struct dec_out *o = out_of(&d, ev.stream_id, &d.werr);

			if (o)
				o->seq_shift--;
		}
		if (d.werr) {
			log_err("cannot write %s: %s", out_dir ? out_dir : "the counts",
				strerror(-d.werr));
			goto out;
		}
	}
	if (d.w) {
		struct trace_loss loss;

		/* the decoded trace is missing what its input was missing */
		trace_reader_loss(d.r, &loss);
		if (loss.state != TRACE_STATE_FINISHED && loss.streams > loss.seq_gaps)
			loss.seq_gaps = loss.streams;
		loss.state = TRACE_STATE_FINISHED;
		trace_writer_note_loss(d.w, &loss);
		rc = copy_side_files(&d, dir);
		if (!rc)
			rc = trace_writer_close(d.w);
		else
			trace_writer_close(d.w);
		d.w = NULL;
		if (rc < 0) {
			log_err("cannot write %s: %s", out_dir, strerror(-rc));
			goto out;
		}
	}
	if (d.json)
		printf("%s]\n", d.started ? "\n" : "");
	for (size_t i = 0; i < d.ncnt; i++)
		printf("%" PRIu32 " %" PRIu64 "\n", d.cnt[i].id, d.cnt[i].n);
	for (size_t i = 0; i < trace_reader_nproblems(d.r); i++) {
		const struct trace_problem *p = trace_reader_problem(d.r, i);

		log_warn("%s at offset %" PRIu64 ": %s", p->file, p->offset, p->msg);
	}
	if (d.unmatched)
		log_warn("%" PRIu64 " merged records not decoded: the record before each, whose "
			 "values they reuse, is missing (lost) or not the expected one",
			 d.unmatched);
	if (stats)
		fprintf(stderr, "spool: decode: %" PRIu64 " records, %" PRIu64 " bytes, %" PRIu64
				" events\n",
			d.records, d.bytes, d.events);
	cmd_trace_loss(dir, d.r, NULL);
	ret = trace_reader_nproblems(d.r) || d.unmatched ? 1 : 0;
out:
	fflush(stdout);
	if (d.w)
		trace_writer_close(d.w);
	free(d.outs);
	if (d.r)
		trace_reader_close(d.r);
	tables_free(&d.given);
	for (size_t i = 0; i < d.npids; i++)
		tables_free(&d.pids[i].t);
	free(d.pids);
	free(d.last);
	free(d.cnt);
	return ret;
}
