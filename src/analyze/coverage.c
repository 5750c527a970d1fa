// SPDX-License-Identifier: MIT
/*
 * coverage.c - coverage from block and branch probes: the trace's
 * "coverage" side file (one line per probed block and conditional branch,
 * with its counts) joined with the DWARF line tables of each module.
 *
 * Per source line (the definition the lcov DA records and the test use):
 * a block "touches" a line when a line-table row of that line starts at an
 * address inside the block, or when the row in effect at the block's first
 * instruction is that line. A line's count is the largest count of the
 * blocks that touch it: every instruction of a block runs as often as the
 * block, and a line split over several blocks (a for header: init, test,
 * increment) ran as often as its most executed part. Lines no probed block
 * touches are not reported. Blocks whose probe could not be placed are
 * left out (their lines are not claimed either way).
 *
 * Functions: a function's count is its entry block's (the block at the
 * lowest address), its line the one in effect there. Branches: each jcc is
 * an lcov BRDA of the line in effect at the jcc, branch 0 "taken" (the
 * jump's condition was true), branch 1 "not taken"; "-" when the jcc never
 * ran. The text report also names the lines each direction goes to.
 */
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../trace/sideword.h"
#include "../trace/trace.h"
#include "../trace/untrusted.h"
#include "../util/debugfile.h"
#include "../util/escape.h"
#include "../util/log.h"
#include "../util/outfile.h"
#include "../util/demangle.h"
#include "coverage.h"
#include "pass.h"
#include "table.h"

struct cov_row {
	uint64_t addr;
	uint32_t file, line;
	int end; /* end of a sequence: no line from here */
};

struct cov_mod {
	char *path;
	struct cov_row *rows;
	size_t nrows;
	int loaded, dwarf;
};

struct cov_fn {
	char *name;	  /* the symbol (C++: mangled), lcov's FN (genhtml --demangle-cpp) */
	char *shown;	  /* demangled: the text and JSON reports */
	uint32_t mod;
	uint64_t entry;	  /* lowest block start */
	int64_t count;	  /* of the entry block, -1 unknown */
	uint32_t file, line;
	uint32_t blocks, blocks_hit, branches, taken, not_taken, both;
};

struct cov_block {
	uint32_t id, mod, fn;
	uint64_t start, end;
	int64_t count; /* -1: not placed */
};

struct cov_branch {
	uint32_t id, mod, fn;
	uint64_t addr, target, fall;
	int64_t taken, not_taken; /* -1: not placed */
	uint32_t file, line, tline, fline;
	uint32_t blockno;
};

/* A counter of the passes at one instruction (jump:, label:, block-exit:). */
struct cov_point {
	uint32_t id, mod, fn;
	uint64_t addr;
	char kind[16], name[64];
	int64_t count; /* -1: not placed */
	uint32_t file, line;
};

struct cov_line {
	uint32_t file, line;
	int64_t count;
};

struct cov_ctx {
	struct cov_mod *mods;
	size_t nmods;
	struct cov_fn *fns;
	size_t nfns;
	struct cov_block *blocks;
	size_t nblocks;
	struct cov_branch *branches;
	size_t nbranches;
	struct cov_point *points;
	size_t npoints, cappoints;
	char **files;
	size_t nfiles;
	struct cov_line *lines;
	size_t nlines, caplines;
};

#define COV_GROW(arr, n, cap)                                                                      \
	({                                                                                         \
		int _ok = 1;                                                                       \
		if ((n) == (cap)) {                                                                \
			size_t _nc = (cap) ? (cap) * 2 : 64;                                       \
			void *_p = realloc((arr), _nc * sizeof(*(arr)));                           \
			if (_p) {                                                                  \
				(arr) = _p;                                                        \
				(cap) = _nc;                                                       \
			} else {                                                                   \
				_ok = 0;                                                           \
			}                                                                          \
		}                                                                                  \
		_ok;                                                                               \
	})

static int cov_intern(struct cov_ctx *c, const char *s, uint32_t *idx)
{
	char **nf;

	for (size_t i = c->nfiles; i-- > 0;)
		if (!strcmp(c->files[i], s)) {
			*idx = (uint32_t)i;
			return 0;
		}
	nf = realloc(c->files, (c->nfiles + 1) * sizeof(*nf));
	if (!nf)
		return -ENOMEM;
	c->files = nf;
	nf[c->nfiles] = strdup(s);
	if (!nf[c->nfiles])
		return -ENOMEM;
	*idx = (uint32_t)c->nfiles++;
	return 0;
}

static int cov_mod_index(struct cov_ctx *c, const char *path, uint32_t *idx)
{
	struct cov_mod *nm;

	for (size_t i = 0; i < c->nmods; i++)
		if (!strcmp(c->mods[i].path, path)) {
			*idx = (uint32_t)i;
			return 0;
		}
	nm = realloc(c->mods, (c->nmods + 1) * sizeof(*nm));
	if (!nm)
		return -ENOMEM;
	c->mods = nm;
	memset(&nm[c->nmods], 0, sizeof(*nm));
	nm[c->nmods].path = strdup(path);
	if (!nm[c->nmods].path)
		return -ENOMEM;
	*idx = (uint32_t)c->nmods++;
	return 0;
}

static int cov_fn_index(struct cov_ctx *c, uint32_t mod, const char *name, uint32_t *idx)
{
	struct cov_fn *nf;

	for (size_t i = c->nfns; i-- > 0;)
		if (c->fns[i].mod == mod && !strcmp(c->fns[i].name, name)) {
			*idx = (uint32_t)i;
			return 0;
		}
	nf = realloc(c->fns, (c->nfns + 1) * sizeof(*nf));
	if (!nf)
		return -ENOMEM;
	c->fns = nf;
	memset(&nf[c->nfns], 0, sizeof(*nf));
	nf[c->nfns].name = strdup(name);
	{
		char d[1024];

		demangle_name(name, d, sizeof(d));
		nf[c->nfns].shown = strdup(d);
	}
	nf[c->nfns].mod = mod;
	nf[c->nfns].entry = UINT64_MAX;
	nf[c->nfns].count = -1;
	if (!nf[c->nfns].name || !nf[c->nfns].shown) {
		free(nf[c->nfns].name);
		free(nf[c->nfns].shown);
		return -ENOMEM;
	}
	*idx = (uint32_t)c->nfns++;
	return 0;
}

/* A point's function: its demangled name, kept in the string table
 * (not a function of the block report: it may have no block probed). */
static int cov_fn_name(struct cov_ctx *c, const char *name, uint32_t *idx)
{
	char d[1024];

	demangle_name(name, d, sizeof(d));
	return cov_intern(c, d, idx);
}

static int64_t cov_num(const char *s)
{
	return strcmp(s, "-") ? (int64_t)strtoull(s, NULL, 10) : -1;
}

/* A MODULE or FUNCTION word of a coverage file of that version: version 2
 * writes them as sidewords (sideword.h), version 1 as they are. */
static char *cov_word(int version, char *w)
{
	return version >= 2 ? sideword_unescape(w) : w;
}

static int cov_parse(struct cov_ctx *c, char *text)
{
	char *save = NULL, *line;
	size_t capb = 0, capr = 0;
	int rc, v = 1;

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char kind[16], method[16], n1[32], n2[64], mod[4096], fn[1024];
		unsigned long long a, b, f;
		unsigned id;
		uint32_t mi, fi;

		if (sscanf(line, "# spool coverage %d", &v) == 1)
			continue;
		if (line[0] == '#')
			continue;
		if (sscanf(line, "block %u %15s %llx %llx %31s %4095s %1023s", &id, method, &a, &b,
			   n1, mod, fn) == 7) {
			if ((rc = cov_mod_index(c, cov_word(v, mod), &mi)) ||
			    (rc = cov_fn_index(c, mi, cov_word(v, fn), &fi)))
				return rc;
			if (!COV_GROW(c->blocks, c->nblocks, capb))
				return -ENOMEM;
			c->blocks[c->nblocks++] =
				(struct cov_block){id, mi, fi, a, b, cov_num(n1)};
			if (a < c->fns[fi].entry) {
				c->fns[fi].entry = a;
				c->fns[fi].count = cov_num(n1);
			}
		} else if (sscanf(line, "branch %u %15s %llx %llx %llx %31s %31s %4095s %1023s", &id,
				  method, &a, &b, &f, n1, n2, mod, fn) == 9) {
			if ((rc = cov_mod_index(c, cov_word(v, mod), &mi)) ||
			    (rc = cov_fn_index(c, mi, cov_word(v, fn), &fi)))
				return rc;
			if (!COV_GROW(c->branches, c->nbranches, capr))
				return -ENOMEM;
			memset(&c->branches[c->nbranches], 0, sizeof(c->branches[0]));
			c->branches[c->nbranches++] = (struct cov_branch){
				.id = id, .mod = mi, .fn = fi, .addr = a, .target = b, .fall = f,
				.taken = cov_num(n1), .not_taken = cov_num(n2)};
		} else if (sscanf(line, "point %u %15s %llx %15s %63s %31s %4095s %1023s", &id,
				  method, &a, kind, n2, n1, mod, fn) == 8) {
			struct cov_point *pt;

			if ((rc = cov_mod_index(c, cov_word(v, mod), &mi)) ||
			    (rc = cov_fn_name(c, cov_word(v, fn), &fi)))
				return rc;
			if (!COV_GROW(c->points, c->npoints, c->cappoints))
				return -ENOMEM;
			pt = &c->points[c->npoints++];
			memset(pt, 0, sizeof(*pt));
			pt->id = id;
			pt->mod = mi;
			pt->fn = fi;
			pt->addr = a;
			pt->count = cov_num(n1);
			snprintf(pt->kind, sizeof(pt->kind), "%s", kind);
			snprintf(pt->name, sizeof(pt->name), "%s", n2);
		} else {
			log_warn("coverage: cannot parse '%s'", line);
		}
	}
	return 0;
}

static int cov_row_cmp(const void *a, const void *b)
{
	const struct cov_row *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The line table of a module, every CU, sorted by address (stable enough:
 * rows of one address keep no meaningful order between CUs). */
static int cov_load_lines(struct cov_ctx *c, struct cov_mod *m)
{
	Dwarf *dw;
	Dwarf_Off off = 0, next;
	size_t hsize, cap = 0;
	int fd, rc = 0;

	m->loaded = 1;
	/* a path from the trace's maps: not a FIFO, not a device */
	fd = trace_open_named(m->path);
	if (fd < 0) {
		log_warn("coverage: cannot open %s: %s (no source lines for it)", m->path,
			 trace_open_strerror(fd));
		return 0;
	}
	dw = dwarf_begin(fd, DWARF_C_READ);
	if (!dw) {
		/* Stripped: its separate debug file (src/util/debugfile.h). */
		char dbg[PATH_MAX];

		if (!debugfile_find(m->path, dbg, sizeof(dbg))) {
			close(fd);
			fd = trace_open_named(dbg);
			dw = fd >= 0 ? dwarf_begin(fd, DWARF_C_READ) : NULL;
		}
	}
	if (!dw) {
		log_warn("coverage: %s has no DWARF (build it with -g, or give its debug file: "
			 "SPOOL_DEBUG_DIR): no source lines for it",
			 m->path);
		if (fd >= 0)
			close(fd);
		return 0;
	}
	while (!rc && dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		Dwarf_Lines *lines;
		size_t n;

		if (dwarf_offdie(dw, off + hsize, &cu) && dwarf_getsrclines(&cu, &lines, &n) == 0) {
			for (size_t i = 0; i < n; i++) {
				Dwarf_Line *l = dwarf_onesrcline(lines, i);
				Dwarf_Addr addr;
				int lineno = 0;
				bool end = false;
				const char *src;
				struct cov_row *r;

				if (!l || dwarf_lineaddr(l, &addr) || dwarf_lineno(l, &lineno))
					continue;
				dwarf_lineendsequence(l, &end);
				src = dwarf_linesrc(l, NULL, NULL);
				if (!COV_GROW(m->rows, m->nrows, cap)) {
					rc = -ENOMEM;
					break;
				}
				r = &m->rows[m->nrows];
				r->addr = addr;
				r->end = end || !src || lineno <= 0;
				r->line = (uint32_t)(lineno > 0 ? lineno : 0);
				r->file = 0;
				if (!r->end && (rc = cov_intern(c, src, &r->file)))
					break;
				m->nrows++;
			}
		}
		off = next;
	}
	dwarf_end(dw);
	close(fd);
	if (!m->nrows && !rc)
		log_warn("coverage: %s has no line table: no source lines for it", m->path);
	m->dwarf = m->nrows > 0;
	if (m->nrows)
		qsort(m->rows, m->nrows, sizeof(*m->rows), cov_row_cmp);
	return rc;
}

/* Index of the last row at or before addr, or SIZE_MAX. */
static size_t cov_row_at(const struct cov_mod *m, uint64_t addr)
{
	size_t lo = 0, hi = m->nrows;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (m->rows[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? lo - 1 : SIZE_MAX;
}

/* The line in effect at addr: 0 when unknown. */
static uint32_t cov_line_of(const struct cov_mod *m, uint64_t addr, uint32_t *file)
{
	size_t i = cov_row_at(m, addr);

	if (i == SIZE_MAX || m->rows[i].end)
		return 0;
	*file = m->rows[i].file;
	return m->rows[i].line;
}

static int cov_add_line(struct cov_ctx *c, uint32_t file, uint32_t line, int64_t count)
{
	if (!COV_GROW(c->lines, c->nlines, c->caplines))
		return -ENOMEM;
	c->lines[c->nlines++] = (struct cov_line){file, line, count};
	return 0;
}

/* The first row at or after addr (nrows when none). */
static size_t cov_row_from(const struct cov_mod *m, uint64_t addr)
{
	size_t lo = 0, hi = m->nrows;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (m->rows[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The rows [a, b) of a module's line table that a block covers: the row in
 * effect at its start, and every row after it below its end. */
struct cov_span {
	size_t a, b;
	int64_t count;
};

static int cov_span_cmp(const void *x, const void *y)
{
	const struct cov_span *p = x, *q = y;

	return p->a < q->a ? -1 : p->a > q->a;
}

/* A max-heap of spans by count. */
static void cov_heap_push(struct cov_span *h, size_t *n, struct cov_span s)
{
	size_t i = (*n)++;

	for (; i && h[(i - 1) / 2].count < s.count; i = (i - 1) / 2)
		h[i] = h[(i - 1) / 2];
	h[i] = s;
}

static void cov_heap_pop(struct cov_span *h, size_t *n)
{
	struct cov_span last = h[--(*n)];
	size_t i = 0;

	for (;;) {
		size_t k = 2 * i + 1;

		if (k >= *n)
			break;
		if (k + 1 < *n && h[k + 1].count > h[k].count)
			k++;
		if (h[k].count <= last.count)
			break;
		h[i] = h[k];
		i = k;
	}
	if (*n)
		h[i] = last;
}

/*
 * The lines of module mi that its blocks cover, each with the largest count
 * of a block covering it: one line per row of the line table, found by a
 * sweep over the rows with the covering blocks in a heap. Adding a line for
 * every row of every block took memory of blocks times rows: a 200 KB
 * coverage file of blocks spanning a large binary took 5 GB.
 */
static int cov_module_lines(struct cov_ctx *c, uint32_t mi)
{
	const struct cov_mod *m = &c->mods[mi];
	struct cov_span *spans, *heap;
	size_t n = 0, nh = 0, j = 0;
	int rc = 0;

	if (!m->dwarf || !m->nrows)
		return 0;
	spans = calloc(c->nblocks ? c->nblocks : 1, sizeof(*spans));
	heap = calloc(c->nblocks ? c->nblocks : 1, sizeof(*heap));
	if (!spans || !heap) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < c->nblocks; i++) {
		const struct cov_block *b = &c->blocks[i];
		size_t at, a, e;

		if (b->mod != mi || b->count < 0)
			continue;
		at = cov_row_at(m, b->start);
		a = at == SIZE_MAX ? 0 : at;
		e = cov_row_from(m, b->end);
		if (at != SIZE_MAX && e < at + 1)
			e = at + 1;
		if (a < e)
			spans[n++] = (struct cov_span){a, e, b->count};
	}
	qsort(spans, n, sizeof(*spans), cov_span_cmp);
	for (size_t k = 0; k < m->nrows && (j < n || nh);) {
		if (!nh && spans[j].a > k)
			k = spans[j].a; /* no block covers the rows before it */
		for (; j < n && spans[j].a <= k; j++)
			cov_heap_push(heap, &nh, spans[j]);
		while (nh && heap[0].b <= k)
			cov_heap_pop(heap, &nh);
		if (nh && !m->rows[k].end &&
		    (rc = cov_add_line(c, m->rows[k].file, m->rows[k].line, heap[0].count)))
			goto out;
		k++;
	}
out:
	free(spans);
	free(heap);
	return rc;
}

static int cov_line_cmp(const void *a, const void *b, void *arg)
{
	const struct cov_line *x = a, *y = b;
	char **files = arg;
	int k = x->file == y->file ? 0 : strcmp(files[x->file], files[y->file]);

	if (k)
		return k;
	return x->line < y->line ? -1 : x->line > y->line;
}

static int cov_branch_cmp(const void *a, const void *b, void *arg)
{
	const struct cov_branch *x = a, *y = b;
	char **files = arg;
	int k;

	if (!x->line != !y->line)
		return x->line ? -1 : 1;
	k = x->file == y->file ? 0 : strcmp(files[x->file], files[y->file]);
	if (k)
		return k;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int cov_compute(struct cov_ctx *c)
{
	int rc;

	for (size_t i = 0; i < c->nmods; i++)
		if (!c->mods[i].loaded && (rc = cov_load_lines(c, &c->mods[i])))
			return rc;
	for (size_t i = 0; i < c->nblocks; i++) {
		struct cov_fn *f = &c->fns[c->blocks[i].fn];

		f->blocks++;
		f->blocks_hit += c->blocks[i].count > 0;
	}
	for (size_t i = 0; i < c->nmods; i++)
		if ((rc = cov_module_lines(c, (uint32_t)i)))
			return rc;
	/* one entry per (file, line): the largest count */
	if (c->nlines) {
		size_t o = 0;

		qsort_r(c->lines, c->nlines, sizeof(*c->lines), cov_line_cmp, c->files);
		for (size_t i = 1; i < c->nlines; i++) {
			if (c->lines[i].file == c->lines[o].file && c->lines[i].line == c->lines[o].line) {
				if (c->lines[i].count > c->lines[o].count)
					c->lines[o].count = c->lines[i].count;
			} else {
				c->lines[++o] = c->lines[i];
			}
		}
		c->nlines = o + 1;
	}
	for (size_t i = 0; i < c->nfns; i++) {
		struct cov_fn *f = &c->fns[i];

		if (c->mods[f->mod].dwarf && f->entry != UINT64_MAX)
			f->line = cov_line_of(&c->mods[f->mod], f->entry, &f->file);
	}
	for (size_t i = 0; i < c->nbranches; i++) {
		struct cov_branch *br = &c->branches[i];
		const struct cov_mod *m = &c->mods[br->mod];
		struct cov_fn *f = &c->fns[br->fn];
		uint32_t dummy;

		f->branches++;
		f->taken += br->taken > 0;
		f->not_taken += br->not_taken > 0;
		f->both += br->taken > 0 && br->not_taken > 0;
		if (!m->dwarf)
			continue;
		br->line = cov_line_of(m, br->addr, &br->file);
		br->tline = cov_line_of(m, br->target, &dummy);
		br->fline = cov_line_of(m, br->fall, &dummy);
	}
	for (size_t i = 0; i < c->npoints; i++) {
		struct cov_point *pt = &c->points[i];

		if (c->mods[pt->mod].dwarf)
			pt->line = cov_line_of(&c->mods[pt->mod], pt->addr, &pt->file);
	}
	if (c->nbranches) {
		qsort_r(c->branches, c->nbranches, sizeof(*c->branches), cov_branch_cmp, c->files);
		for (size_t i = 1; i < c->nbranches; i++) {
			const struct cov_branch *p = &c->branches[i - 1];
			struct cov_branch *b = &c->branches[i];

			if (b->line && b->file == p->file && b->line == p->line)
				b->blockno = p->blockno + 1;
		}
	}
	return 0;
}

static const char *cov_base(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

static void cov_print_json(const struct cov_ctx *c, const struct trace_loss *loss, FILE *out)
{
	fprintf(out, "{\"functions\":[");
	for (size_t i = 0; i < c->nfns; i++) {
		const struct cov_fn *f = &c->fns[i];

		fprintf(out, "%s{\"name\":", i ? "," : "");
		escape_json_str(out, f->shown);
		fprintf(out, ",\"symbol\":");
		escape_json_str(out, f->name);
		fprintf(out, ",\"module\":");
		escape_json_str(out, c->mods[f->mod].path);
		fprintf(out,
			",\"count\":%" PRId64 ",\"blocks\":%u,\"blocks_hit\":%u,\"branches\":%u,"
			"\"taken\":%u,\"not_taken\":%u,\"both_ways\":%u}",
			f->count, f->blocks, f->blocks_hit, f->branches, f->taken, f->not_taken,
			f->both);
	}
	fprintf(out, "],\"blocks\":[");
	for (size_t i = 0; i < c->nblocks; i++) {
		const struct cov_block *b = &c->blocks[i];

		fprintf(out, "%s{\"id\":%u,\"function\":", i ? "," : "", b->id);
		escape_json_str(out, c->fns[b->fn].shown);
		fprintf(out, ",\"start\":%" PRIu64 ",\"end\":%" PRIu64 ",\"count\":%" PRId64 "}",
			b->start, b->end, b->count);
	}
	fprintf(out, "],\"branches\":[");
	for (size_t i = 0; i < c->nbranches; i++) {
		const struct cov_branch *b = &c->branches[i];

		fprintf(out, "%s{\"id\":%u,\"function\":", i ? "," : "", b->id);
		escape_json_str(out, c->fns[b->fn].shown);
		fprintf(out, ",\"file\":");
		escape_json_str(out, b->line ? c->files[b->file] : "");
		fprintf(out,
			",\"line\":%u,\"addr\":%" PRIu64 ",\"taken\":%" PRId64
			",\"not_taken\":%" PRId64 ",\"taken_line\":%u,\"fall_line\":%u}",
			b->line, b->addr, b->taken, b->not_taken, b->tline, b->fline);
	}
	fprintf(out, "],\"points\":[");
	for (size_t i = 0; i < c->npoints; i++) {
		const struct cov_point *pt = &c->points[i];

		fprintf(out, "%s{\"id\":%u,\"kind\":", i ? "," : "", pt->id);
		escape_json_str(out, pt->kind);
		fprintf(out, ",\"name\":");
		escape_json_str(out, pt->name);
		fprintf(out, ",\"function\":");
		escape_json_str(out, c->files[pt->fn]);
		fprintf(out, ",\"file\":");
		escape_json_str(out, pt->line ? c->files[pt->file] : "");
		fprintf(out, ",\"line\":%u,\"addr\":%" PRIu64 ",\"count\":%" PRId64 "}",
			pt->line, pt->addr, pt->count);
	}
	fprintf(out, "],\"lines\":[");
	for (size_t i = 0; i < c->nlines; i++) {
		fprintf(out, "%s{\"file\":", i ? "," : "");
		escape_json_str(out, c->files[c->lines[i].file]);
		fprintf(out, ",\"line\":%u,\"count\":%" PRId64 "}", c->lines[i].line,
			c->lines[i].count);
	}
	fprintf(out, "],\"trace\":{");
	trace_loss_json(loss, out);
	fprintf(out, "}}\n");
}

static double cov_pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0;
}

/* Points: how often the program passed each jump, label, block exit. */
static void cov_print_points(const struct cov_ctx *c, const struct coverage_opts *o, FILE *out)
{
	if (!c->npoints)
		return;
	static const char *const hdr[] = {"point", "name", "function", "where", "passes"};
	/* as wide as the longest name (table.h) */
	struct table t = {.ncols = 5, .hdr = hdr, .left_mask = 0xf, .indent = ""};
	size_t i;
	int rc = 0;

	for (i = 0; i < c->npoints && !rc && !(o->limit && i >= o->limit); i++) {
		const struct cov_point *pt = &c->points[i];
		char where[300], n[24];

		if (pt->line)
			snprintf(where, sizeof(where), "%s:%u", cov_base(c->files[pt->file]),
				 pt->line);
		else
			snprintf(where, sizeof(where), "0x%" PRIx64, pt->addr);
		if (pt->count < 0)
			snprintf(n, sizeof(n), "not placed");
		else
			snprintf(n, sizeof(n), "%" PRId64, pt->count);
		rc = table_row(&t, pt->kind, pt->name, c->files[pt->fn], where, n);
	}
	if (rc) {
		log_warn("out of memory: the coverage points are left out");
	} else {
		fputc('\n', out);
		table_print(&t, out);
		if (i < c->npoints)
			fprintf(out, "  ... %zu more (--limit 0 shows all)\n", c->npoints - i);
	}
	table_free(&t);
}

static void cov_print_text(const struct cov_ctx *c, const struct coverage_opts *o, FILE *out)
{
	static const char *const fhdr[] = {"function", "calls", "blocks hit", "branches 2-way",
					   "module"};
	/* as wide as the longest name (table.h) */
	struct table ft = {.ncols = 5, .hdr = fhdr, .left_mask = 1u << 4, .indent = ""};
	uint64_t bh = 0, bt = 0, brt = 0, tk = 0, nt = 0, both = 0, lh = 0;
	size_t shown = 0;
	int rc = 0;

	for (size_t i = 0; i < c->nfns; i++) {
		bt += c->fns[i].blocks;
		bh += c->fns[i].blocks_hit;
		brt += c->fns[i].branches;
		tk += c->fns[i].taken;
		nt += c->fns[i].not_taken;
		both += c->fns[i].both;
	}
	for (size_t i = 0; i < c->nlines; i++)
		lh += c->lines[i].count > 0;
	if (!c->nfns && c->npoints) {
		/* only jump:, label:, block-exit: points */
		fprintf(out, "coverage: %zu point%s\n", c->npoints, c->npoints == 1 ? "" : "s");
		cov_print_points(c, o, out);
		return;
	}
	/* a kind of probe not placed gets no figure: "blocks 0 of 0 hit
	 * (0.0%)" in a branch-only report reads as blocks missed */
	fprintf(out, "coverage: %zu function%s", c->nfns, c->nfns == 1 ? "" : "s");
	if (bt)
		fprintf(out, "; blocks %llu of %llu hit (%.1f%%)", (unsigned long long)bh,
			(unsigned long long)bt, cov_pct(bh, bt));
	if (brt)
		fprintf(out, "; branches %llu: %llu taken, %llu not taken, %llu both ways (%.1f%%)",
			(unsigned long long)brt, (unsigned long long)tk, (unsigned long long)nt,
			(unsigned long long)both, cov_pct(both, brt));
	if (!bt && !brt)
		fprintf(out, "; no block or branch probed");
	if (c->nlines)
		fprintf(out, "; lines %llu of %zu hit", (unsigned long long)lh, c->nlines);
	fprintf(out, "\n");
	cov_print_points(c, o, out);
	if (!c->nfns)
		return;
	for (size_t i = 0; i < c->nfns && !rc; i++) {
		const struct cov_fn *f = &c->fns[i];
		char calls[24], blk[32], br[32];

		if (o->limit && shown++ >= o->limit)
			break;
		if (f->count < 0)
			snprintf(calls, sizeof(calls), "-");
		else
			snprintf(calls, sizeof(calls), "%" PRId64, f->count);
		snprintf(blk, sizeof(blk), "%u/%u", f->blocks_hit, f->blocks);
		snprintf(br, sizeof(br), "%u/%u", f->both, f->branches);
		rc = table_row(&ft, f->shown, calls, blk, br, cov_base(c->mods[f->mod].path));
	}
	if (rc) {
		log_warn("out of memory: the coverage of the functions is left out");
	} else {
		fputc('\n', out);
		table_print(&ft, out);
	}
	table_free(&ft);
	if (!c->nbranches)
		return;
	fprintf(out, "\nbranches (taken: the jump's condition was true):\n");
	shown = 0;
	for (size_t i = 0; i < c->nbranches; i++) {
		const struct cov_branch *b = &c->branches[i];
		char where[300];

		if (o->limit && shown++ >= o->limit) {
			fprintf(out, "  ... %zu more (--limit 0 shows all)\n", c->nbranches - o->limit);
			break;
		}
		/* b->addr is the module's address (as objdump shows it), not an
		 * offset in its function: without DWARF lines the jump and its
		 * two ways are named by those addresses ("line 0" says nothing) */
		if (b->line)
			snprintf(where, sizeof(where), "%s:%u", cov_base(c->files[b->file]), b->line);
		else
			snprintf(where, sizeof(where), "%s+0x%" PRIx64,
				 cov_base(c->mods[b->mod].path), b->addr);
		if (b->taken < 0)
			fprintf(out, "  %-24s not placed\n", escape_str(where));
		else if (b->line)
			fprintf(out,
				"  %-24s taken %10" PRId64 " -> line %-5u not taken %10" PRId64
				" -> line %u\n",
				escape_str(where), b->taken, b->tline, b->not_taken, b->fline);
		else
			fprintf(out,
				"  %-24s taken %10" PRId64 " -> 0x%-8" PRIx64 " not taken %10" PRId64
				" -> 0x%" PRIx64 "\n",
				escape_str(where), b->taken, b->target, b->not_taken, b->fall);
	}
}

/* The lcov file is written beside its destination and renamed when whole
 * (util/outfile.h); "-" is stdout. */
static int cov_write_info(const struct cov_ctx *c, const char *path)
{
	struct outfile of;
	FILE *f;
	int rc;

	rc = outfile_open(&of, path, 0666, 1);
	if (rc < 0)
		return rc;
	f = of.f;
	for (uint32_t fi = 0; fi < c->nfiles; fi++) {
		unsigned fnf = 0, fnh = 0, brf = 0, brh = 0, lf = 0, lh = 0;
		int any = 0;

		for (size_t i = 0; i < c->nlines && !any; i++)
			any = c->lines[i].file == fi;
		if (!any)
			continue;
		/* names from DWARF and the probes file: a newline in one
		 * would start a record of its own */
		fprintf(f, "TN:\nSF:%s\n", escape_str(c->files[fi]));
		for (size_t i = 0; i < c->nfns; i++) {
			const struct cov_fn *fn = &c->fns[i];

			if (fn->line && fn->file == fi && fn->count >= 0)
				fprintf(f, "FN:%u,%s\n", fn->line, escape_str(fn->name));
		}
		for (size_t i = 0; i < c->nfns; i++) {
			const struct cov_fn *fn = &c->fns[i];

			if (fn->line && fn->file == fi && fn->count >= 0) {
				fprintf(f, "FNDA:%" PRId64 ",%s\n", fn->count,
					escape_str(fn->name));
				fnf++;
				fnh += fn->count > 0;
			}
		}
		fprintf(f, "FNF:%u\nFNH:%u\n", fnf, fnh);
		for (size_t i = 0; i < c->nbranches; i++) {
			const struct cov_branch *b = &c->branches[i];
			int ran = b->taken > 0 || b->not_taken > 0;

			if (!b->line || b->file != fi || b->taken < 0)
				continue;
			if (ran)
				fprintf(f, "BRDA:%u,%u,0,%" PRId64 "\nBRDA:%u,%u,1,%" PRId64 "\n",
					b->line, b->blockno, b->taken, b->line, b->blockno,
					b->not_taken);
			else
				fprintf(f, "BRDA:%u,%u,0,-\nBRDA:%u,%u,1,-\n", b->line, b->blockno,
					b->line, b->blockno);
			brf += 2;
			brh += (b->taken > 0) + (b->not_taken > 0);
		}
		fprintf(f, "BRF:%u\nBRH:%u\n", brf, brh);
		for (size_t i = 0; i < c->nlines; i++) {
			if (c->lines[i].file != fi)
				continue;
			fprintf(f, "DA:%u,%" PRId64 "\n", c->lines[i].line, c->lines[i].count);
			lf++;
			lh += c->lines[i].count > 0;
		}
		fprintf(f, "LF:%u\nLH:%u\nend_of_record\n", lf, lh);
	}
	return outfile_commit(&of);
}

static void cov_free(struct cov_ctx *c)
{
	for (size_t i = 0; i < c->nmods; i++) {
		free(c->mods[i].path);
		free(c->mods[i].rows);
	}
	for (size_t i = 0; i < c->nfns; i++) {
		free(c->fns[i].name);
		free(c->fns[i].shown);
	}
	for (size_t i = 0; i < c->nfiles; i++)
		free(c->files[i]);
	free(c->mods);
	free(c->fns);
	free(c->blocks);
	free(c->branches);
	free(c->points);
	free(c->files);
	free(c->lines);
}

int coverage_report_reader(struct trace_reader *r, const char *dir, const struct coverage_opts *o,
			   FILE *out)
{
	struct cov_ctx c = {0};
	struct trace_loss loss;
	char *text = NULL;
	size_t len;
	int rc;

	rc = trace_reader_file(r, "coverage", &text, &len);
	/* the counters are a side file; the losses are the trace's */
	trace_reader_loss_read(r, &loss);
	if (rc < 0) {
		/* the counts are written when the run ends: a killed spool's
		 * partial trace never has them, whatever it probed */
		if (!trace_loss_end_file_lost(dir, &loss, "block or branch counts", "coverage"))
			log_err("trace %s has no block or branch probes (no 'coverage' file: record "
				"with spool probe -e 'block:FUNC' -e 'branch:FUNC')",
				dir);
		return rc;
	}
	rc = cov_parse(&c, text);
	if (!rc)
		rc = cov_compute(&c);
	if (rc) {
		log_err("coverage: %s", strerror(-rc));
		goto out;
	}
	if (o->info_path && (rc = cov_write_info(&c, o->info_path)))
		goto out;
	if (o->json) {
		cov_print_json(&c, &loss, out);
	} else {
		if (o->header)
			trace_loss_print_header(&loss, dir, NULL, out);
		cov_print_text(&c, o, out);
	}
out:
	free(text);
	cov_free(&c);
	return rc;
}

int coverage_report_dir(const char *dir, const struct coverage_opts *o, FILE *out)
{
	struct trace_reader *r;
	int rc;

	rc = analyze_pass_open_reader(&r, dir, 0);
	if (rc < 0)
		return rc;
	rc = coverage_report_reader(r, dir, o, out);
	trace_loss_seen_fill(o->seen, r);
	trace_reader_close(r);
	return rc;
}
