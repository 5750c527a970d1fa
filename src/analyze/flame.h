// SPDX-License-Identifier: MIT
/*
 * flame.h - flame graphs of a probe trace: the calling contexts of the
 * probed functions (func: entry/exit probes), merged over every thread,
 * weighted by self time or by calls. Written as folded stacks (one line
 * "main;f;g WEIGHT" per context, the input of flamegraph.pl, speedscope,
 * inferno) or as a self-contained SVG drawn by spool itself.
 */
#ifndef SPOOL_ANALYZE_FLAME_H
#define SPOOL_ANALYZE_FLAME_H

#include <stdio.h>

enum { FLAME_WEIGHT_TIME = 0, FLAME_WEIGHT_CALLS = 1 };
enum { FLAME_FOLDED = 0, FLAME_SVG = 1 };

struct flame_opts {
	int weight; /* FLAME_WEIGHT_*: self ns of each context, or its calls */
	int format; /* FLAME_* */
	const char *title; /* SVG title; NULL = a default naming the trace */
	struct trace_loss_seen *seen; /* not NULL: the loss this reading saw goes here
				     * (the command's loss line, trace.h) */
};

/* Read the probe trace in dir and write the graph to out. Returns 0, or a
 * negative errno (the reason is logged): -ENOENT when dir has no probe
 * table, -ENODATA when no function entry was recorded. */
int flame_export_dir(const char *dir, const struct flame_opts *o, FILE *out);

#endif
