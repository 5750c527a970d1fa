// SPDX-License-Identifier: MIT
/*
 * export_int.h - what the export model (export_model.c) lends to the parts
 * of it kept in other files (export_funcs.c): threads and slice output, so
 * every part announces threads and counts slices the same way.
 */
#ifndef SPOOL_ANALYZE_EXPORT_INT_H
#define SPOOL_ANALYZE_EXPORT_INT_H

#include "export.h"

/* The thread of index idx, announced (ops->thread) if it was not yet. */
int export_model_thread_ref(struct export_model *m, uint32_t idx, uint64_t ns,
			    const struct export_thread **out);
/* Hand a slice to the sink: begin, or end (counting unfinished ones). */
int export_model_slice_begin(struct export_model *m, const struct export_slice *s);
int export_model_slice_end(struct export_model *m, const struct export_slice *s);

/* Function slices from entry/exit probes (export_funcs.c). new returns
 * -ENOENT when the trace has no probe table (then there is nothing to do). */
struct export_funcs;
int export_funcs_new(struct export_funcs **out, struct export_model *m,
		     const struct trace_reader *r);
int export_funcs_feed(struct export_funcs *x, const struct trace_event *ev);
int export_funcs_finish(struct export_funcs *x);
void export_funcs_free(struct export_funcs *x);

#endif
