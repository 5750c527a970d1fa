// SPDX-License-Identifier: MIT
/*
 * table.h - the text tables of spool report (locks, threads, functions, and
 * the other kinds of lock): cells are collected first, then printed with
 * each column as wide as its widest cell, so a long name (a C++ function
 * with its class and parameters, a lock named by its init site) widens its
 * column and never pushes the columns after it out of line. Names are
 * never cut: a reader copies them into a glob or a debugger
 * (doc/report.md, "Tables").
 */
#ifndef SPOOL_ANALYZE_TABLE_H
#define SPOOL_ANALYZE_TABLE_H

#include <stddef.h>
#include <stdio.h>

/* Cells are copied escaped (util/escape.h: names come from the trace and
 * the binaries it names), widths measured in characters (µ is two bytes);
 * column 0 and the columns in left_mask are left-aligned, the others
 * right-aligned. A row may be followed by free text (after[row], whole
 * lines), e.g. its stacks. Every line starts with indent ("  " when NULL).
 * Trailing empty cells print nothing (no trailing blanks). */
struct table {
	unsigned ncols; /* at most TABLE_MAX_COLS */
	const char *const *hdr;
	unsigned left_mask;
	const char *indent;
	char **cells;
	size_t nrows, cap;
	char **after;
	size_t capafter;
};

#define TABLE_MAX_COLS 16

/* One row of ncols cells (NULL: empty): 0 or -ENOMEM. */
int table_row_v(struct table *t, const char *const *cell);

/* The same, the cells as arguments (const char *, ncols of them). */
int table_row(struct table *t, ...);

/* Text to print under the last row; takes text (malloc'd) in all cases. */
int table_after(struct table *t, char *text);

void table_print(const struct table *t, FILE *out);

void table_free(struct table *t);

#endif
