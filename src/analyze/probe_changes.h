// SPDX-License-Identifier: MIT
/*
 * probe_changes.h - the probes changed while `spool probe -p` was attached
 * (added, disabled, enabled, deleted, or an add whose points other probes
 * already cover), from the trace's "probe_changes" side file, for the
 * function report (spool report --functions, text and JSON).
 */
#ifndef SPOOL_ANALYZE_PROBE_CHANGES_H
#define SPOOL_ANALYZE_PROBE_CHANGES_H

#include <stdint.h>
#include <stdio.h>

struct trace_reader;

/* Print them, times relative to t0 (ns of the trace's clock; 0: the first
 * change). Text: a section after a blank line, nothing when there are no
 * changes. JSON: the member "probe_changes":[...] followed by a comma,
 * always. A malformed line is skipped (the file is hostile input). */
void probe_changes_print(struct trace_reader *r, uint64_t t0, int json, FILE *out);

#endif
