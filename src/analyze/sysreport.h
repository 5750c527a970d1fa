// SPDX-License-Identifier: MIT
/*
 * sysreport.h - the report of the system probes (spool report --sys, and
 * spool probe -e sys:... at exit): per thread CPU time, I/O calls and bytes
 * per descriptor kind, resident set over time per process.
 */
#ifndef SPOOL_ANALYZE_SYSREPORT_H
#define SPOOL_ANALYZE_SYSREPORT_H

#include <stdio.h>

struct sysreport_opts {
	int json;
	int header; /* text: first the loss header (trace_loss_print_header);
		       JSON always has its "trace" loss block */
	struct trace_loss_seen *seen; /* not NULL: the loss this reading saw goes here
				     * (the command's loss line, trace.h) */
};

/* Print the report of the "sys" side file of trace dir, with what the trace
 * is missing (its "trace" object in JSON). 0, or a negative
 * errno (logged): -ENOENT when the trace has no system probes. */
int sysreport_dir(const char *dir, const struct sysreport_opts *o, FILE *out);
/* The same from a trace already open (spool report without --KIND reads it
 * once for every report): the caller fills o->seen and closes r. */
struct trace_reader;
int sysreport_reader(struct trace_reader *r, const char *dir, const struct sysreport_opts *o,
		     FILE *out);

#endif
