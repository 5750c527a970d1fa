// SPDX-License-Identifier: MIT
/*
 * maps_keep.c - keep the files a process unmapped in the maps a trace
 * holds for it (maps_keep.h says why).
 *
 * Both texts are untrusted (the program can write its slot): every line is
 * parsed bounded (buildid_parse_maps_line), a line that does not parse is
 * skipped, and the ranges of the new text are sorted here rather than
 * trusted to be, so a garbled text costs names, never memory safety.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../util/buildid.h"
#include "maps_keep.h"

struct maps_keep_range {
	uint64_t start, end;
};

static int maps_keep_range_cmp(const void *a, const void *b)
{
	const struct maps_keep_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* The next line of [p, end): its length without the newline. */
static size_t maps_keep_line(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));

	return nl ? (size_t)(nl - p) : (size_t)(end - p);
}

/* The ranges of every line of text that parses, sorted by start. */
static int maps_keep_ranges(const char *text, size_t len, struct buildid_map *m,
			    struct maps_keep_range **out, size_t *n)
{
	const char *p = text, *end = text + len;
	struct maps_keep_range *v = NULL, *nv;
	size_t cap = 0;

	*n = 0;
	while (p < end) {
		size_t l = maps_keep_line(p, end);

		if (!buildid_parse_maps_line(p, l, m) && m->start < m->end) {
			if (*n == cap) {
				cap = cap ? cap * 2 : 64;
				nv = realloc(v, cap * sizeof(*v));
				if (!nv) {
					free(v);
					return -ENOMEM;
				}
				v = nv;
			}
			v[(*n)++] = (struct maps_keep_range){m->start, m->end};
		}
		p += l + 1;
	}
	if (*n)
		qsort(v, *n, sizeof(*v), maps_keep_range_cmp);
	/* each range's end becomes the largest end so far: a binary search
	 * on start then finds any overlap, whatever the ranges' nesting */
	for (size_t i = 1; i < *n; i++)
		if (v[i].end < v[i - 1].end)
			v[i].end = v[i - 1].end;
	*out = v;
	return 0;
}

/* Whether [s, e) overlaps a range of v (sorted, ends made cumulative). */
static int maps_keep_overlaps(const struct maps_keep_range *v, size_t n, uint64_t s, uint64_t e)
{
	size_t lo = 0, hi = n;

	/* the last range that starts before e */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].start < e)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && v[lo - 1].end > s;
}

int maps_keep_merge(const char *old, size_t old_len, char **text, size_t *len)
{
	struct maps_keep_range *v = NULL;
	struct buildid_map *m;
	const char *p, *end;
	char *add = NULL, *nt;
	size_t nv = 0, nadd = 0;
	int rc = 0;

	if (!old || !old_len)
		return 0;
	m = malloc(sizeof(*m));
	if (!m)
		return -ENOMEM;
	add = malloc(old_len + 1);
	if (!add) {
		rc = -ENOMEM;
		goto out;
	}
	rc = maps_keep_ranges(*text, *len, m, &v, &nv);
	if (rc)
		goto out;
	for (p = old, end = old + old_len; p < end;) {
		size_t l = maps_keep_line(p, end);

		if (!buildid_parse_maps_line(p, l, m) && m->start < m->end &&
		    buildid_is_file_path(m->path) && !maps_keep_overlaps(v, nv, m->start, m->end) &&
		    nadd + l + 1 <= MAPS_KEEP_MAX_BYTES) {
			memcpy(add + nadd, p, l);
			add[nadd + l] = '\n';
			nadd += l + 1;
		}
		p += l + 1;
	}
	if (!nadd)
		goto out;
	/* the new text ends with its newline (as /proc's), else one goes first */
	nt = realloc(*text, *len + 1 + nadd + 1);
	if (!nt) {
		rc = -ENOMEM;
		goto out;
	}
	if (*len && nt[*len - 1] != '\n')
		nt[(*len)++] = '\n';
	memcpy(nt + *len, add, nadd);
	*len += nadd;
	nt[*len] = 0;
	*text = nt;
out:
	free(v);
	free(add);
	free(m);
	return rc;
}
