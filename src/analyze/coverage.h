// SPDX-License-Identifier: MIT
/*
 * coverage.h - the coverage report of block and branch probes (spool
 * report --coverage, and spool probe at exit): blocks and branches per
 * source line from the DWARF line tables, as a text summary, JSON, and an
 * lcov .info file that genhtml renders.
 */
#ifndef SPOOL_ANALYZE_COVERAGE_H
#define SPOOL_ANALYZE_COVERAGE_H

#include <stdio.h>

struct coverage_opts {
	int json;
	unsigned limit;		/* rows per table, 0 = all */
	const char *info_path;	/* write lcov .info here ("-" = stdout), NULL = none */
	int header;		/* text: first the loss header (trace_loss_print_header);
				   JSON always has its "trace" loss block */
	struct trace_loss_seen *seen; /* not NULL: the loss this reading saw goes here
				     * (the command's loss line, trace.h) */
};

/* Print the report of trace directory dir's "coverage" side file, with
 * what the trace is missing (its "trace" object in JSON). Returns
 * 0, or a negative errno (the reason is logged). */
int coverage_report_dir(const char *dir, const struct coverage_opts *o, FILE *out);
/* The same from a trace already open (spool report without --KIND reads it
 * once for every report): the caller fills o->seen and closes r. */
struct trace_reader;
int coverage_report_reader(struct trace_reader *r, const char *dir, const struct coverage_opts *o,
			   FILE *out);

#endif
