// SPDX-License-Identifier: MIT
/*
 * vars.h - reports of variable, assertion and time probes (spool report
 * --vars, and spool probe at exit): per variable a value timeline with
 * min/max/count; per assertion how often it held and the first hit where
 * it did not; per time probe count/total/min/avg/max of its durations.
 */
#ifndef SPOOL_ANALYZE_VARS_H
#define SPOOL_ANALYZE_VARS_H

#include <stdio.h>

struct vars_opts {
	int json;
	unsigned limit; /* timeline rows per variable in the text report, 0 = all */
	int header;	/* text: first the loss header (trace_loss_print_header);
			   JSON always has its "trace" loss block */
	struct trace_loss_seen *seen; /* not NULL: the loss this reading saw goes here
				     * (the command's loss line, trace.h) */
};

/* Print the report of trace directory dir, with what the trace is missing
 * (its "trace" object in JSON). Returns 0, or a negative errno
 * when the trace cannot be read or has no "vars" side file (logged). */
int vars_report_dir(const char *dir, const struct vars_opts *o, FILE *out);

/* The same in parts, for one reading shared by several reports (as
 * funcs_pass_ops in funcs.h): new reads the "vars" side file (the reason
 * logged if it is missing), feed takes every event, end prints; an analyzer
 * of pass.h. */
struct analyze_pass_ops;
extern const struct analyze_pass_ops vars_pass_ops; /* opts: struct vars_opts (pass.h) */

#endif
