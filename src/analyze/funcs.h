// SPDX-License-Identifier: MIT
/*
 * funcs.h - the function report of dynamic probes (spool report
 * --functions, and spool probe at exit): per function calls, total and
 * self time, min/avg/max per call, callers; and per thread.
 */
#ifndef SPOOL_ANALYZE_FUNCS_H
#define SPOOL_ANALYZE_FUNCS_H

#include <stdio.h>

struct funcs_opts {
	int json;
	unsigned limit; /* rows per table, 0 = all */
	int callers;	/* callers per function to show (text) */
	int header;	/* text: first the loss header (trace_loss_print_header);
			   JSON always has its "trace" loss block */
	struct trace_loss_seen *seen; /* not NULL: the loss this reading saw goes here
				     * (the command's loss line, trace.h) */
};

/* Print the report of the probes in trace directory dir, with what the
 * trace is missing (its "trace" object in JSON). Returns 0, or a
 * negative errno when the trace cannot be read (the reason is logged). */
int funcs_report_dir(const char *dir, const struct funcs_opts *o, FILE *out);

/* The same in parts, for one reading of a trace that feeds several
 * reports (spool report without --KIND): new with the open reader (the
 * probe table is read, the reason logged if it is missing), feed every
 * event the reader gives, end after its last (prints), free. dir names
 * the trace in messages and must outlive the pass. As an analyzer of
 * pass.h (opts: struct funcs_opts). */
struct analyze_pass_ops;
extern const struct analyze_pass_ops funcs_pass_ops;

#endif
