// SPDX-License-Identifier: MIT
/*
 * table.c - the text tables of spool report (table.h): collected, then
 * printed with every column as wide as its widest cell.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../util/escape.h"
#include "../util/grow.h"
#include "table.h"

/* Characters, not bytes: a UTF-8 continuation byte adds none. */
static size_t text_width(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			n++;
	return n;
}

int table_row_v(struct table *t, const char *const *cell)
{
	size_t base = t->nrows * t->ncols;
	int rc = 0;

	if ((rc = grow_zeroed((void **)&t->cells, &t->cap, base + t->ncols, sizeof(*t->cells))))
		return rc;
	for (unsigned c = 0; c < t->ncols; c++) {
		/* names come from the trace and the binaries it names:
		 * cells are kept escaped, so widths are of what is shown */
		t->cells[base + c] = strdup(cell[c] ? escape_str(cell[c]) : "");
		if (!t->cells[base + c])
			rc = -ENOMEM;
	}
	t->nrows++;
	return rc;
}

int table_row(struct table *t, ...)
{
	const char *cell[TABLE_MAX_COLS];
	va_list ap;

	va_start(ap, t);
	for (unsigned c = 0; c < t->ncols && c < TABLE_MAX_COLS; c++)
		cell[c] = va_arg(ap, const char *);
	va_end(ap);
	return table_row_v(t, cell);
}

static void table_cell(FILE *out, const char *s, size_t w, bool left, bool last)
{
	size_t n = text_width(s);

	if (!left)
		for (; n < w; n++)
			fputc(' ', out);
	fputs(s, out);
	if (left && !last)
		for (; n < w; n++)
			fputc(' ', out);
}

void table_print(const struct table *t, FILE *out)
{
	size_t w[TABLE_MAX_COLS] = {0};
	unsigned ncols = t->ncols < TABLE_MAX_COLS ? t->ncols : TABLE_MAX_COLS;

	for (unsigned c = 0; c < ncols; c++) {
		w[c] = text_width(t->hdr[c]);
		for (size_t r = 0; r < t->nrows; r++) {
			size_t n = text_width(t->cells[r * t->ncols + c]);
			if (n > w[c])
				w[c] = n;
		}
	}
	for (size_t r = 0; r <= t->nrows; r++) {
		const char *const *row = r ? (const char *const *)t->cells + (r - 1) * t->ncols
					   : t->hdr;
		unsigned last = ncols;

		/* the cells after the last non-empty one print nothing */
		while (last > 1 && !row[last - 1][0])
			last--;
		fputs(t->indent ? t->indent : "  ", out);
		for (unsigned c = 0; c < last; c++) {
			bool left = c == 0 || (t->left_mask & (1u << c));

			if (c)
				fputs("  ", out);
			table_cell(out, row[c], w[c], left, c + 1 == last);
		}
		fputc('\n', out);
		if (r && r - 1 < t->capafter && t->after[r - 1])
			escape_write(out, t->after[r - 1], strlen(t->after[r - 1]), ESCAPE_LINES);
	}
}

int table_after(struct table *t, char *text)
{
	int rc;

	if ((rc = grow_zeroed((void **)&t->after, &t->capafter, t->nrows, sizeof(*t->after)))) {
		free(text);
		return rc;
	}
	free(t->after[t->nrows - 1]);
	t->after[t->nrows - 1] = text;
	return 0;
}

void table_free(struct table *t)
{
	for (size_t i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	for (size_t i = 0; i < t->capafter; i++)
		free(t->after[i]);
	free(t->after);
	t->cells = NULL;
	t->after = NULL;
	t->nrows = t->cap = t->capafter = 0;
}
