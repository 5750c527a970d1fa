// SPDX-License-Identifier: MIT
/*
 * callstack.h - function activations rebuilt from the entry and exit probes
 * of a trace (KIND_PROBE records, named by the "probes" side file), shared
 * by the function report (funcs.c) and the timeline exports
 * (export_funcs.c): one stack of open frames per thread, entries pushed,
 * exits paired with their entry by stack pointer (callstack.c says how).
 *
 * The user sees each activation through two callbacks, always in order on a
 * thread: enter when it is pushed, leave when it is popped (innermost
 * first), so activations nest by construction.
 */
#ifndef SPOOL_ANALYZE_CALLSTACK_H
#define SPOOL_ANALYZE_CALLSTACK_H

#include <stdint.h>

#include "../common/event.h"
#include "../trace/trace.h"

struct callstack_fn {
	char *name;   /* demangled (util/demangle.h): what reports show */
	char *module;
	char *raw;    /* the symbol as the "probes" side file has it (mangled) */
	/* Its exits go through the return address (method retaddr): an entry
	 * at its open frame's stack pointer is a tail callee (the swapped slot
	 * is shared), not a new call after an unseen exit. */
	int retaddr;
};

struct callstack_frame {
	uint32_t fn; /* index into the function table */
	uint64_t sp, t0;
	uint64_t child; /* free for the user (funcs.c: time of direct children) */
};

/* How a frame was closed (callstack_ops.leave). OPEN: no later event of
 * its thread closed it, so nothing in the trace says the call returned:
 * it had not when the recording stopped (spool probe -p detached while the
 * thread was inside it, the program exited or was killed in it), or its
 * exit went unseen as its thread's last event. Kept apart from UNSEEN so
 * that a report can tell a call cut off by the trace's end from an exit
 * missing inside the trace (tests/integ/397). */
#define CALLSTACK_EXIT_UNSEEN 0
#define CALLSTACK_EXIT_SEEN 1
#define CALLSTACK_EXIT_OPEN 2

struct callstack_ops {
	/* parent: the enclosing open frame on the thread, or NULL. */
	int (*enter)(void *ctx, uint32_t thread, const struct callstack_frame *fr,
		     const struct callstack_frame *parent, const struct rec_probe *p,
		     const struct trace_event *ev);
	/* seen_exit: CALLSTACK_EXIT_SEEN, _UNSEEN (closed without its exit
	 * by a later event of its thread: a longjmp past it, an unprobed
	 * exit) or _OPEN (still open where its thread's trace ends:
	 * callstack_finish). parent may be updated (the child field). */
	int (*leave)(void *ctx, uint32_t thread, const struct callstack_frame *fr,
		     struct callstack_frame *parent, uint64_t now, int seen_exit);
};

struct callstack;

/* Reads the probe table of r; -ENOENT (or another negative errno) when the
 * trace has none. The callbacks' thread is the reader's thread number
 * (trace_event.thread: a stream holds one thread after another when a
 * ring was reused); the table grows as higher ones are seen. */
int callstack_new(struct callstack **out, const struct trace_reader *r,
		  const struct callstack_ops *ops, void *ctx);
size_t callstack_nfns(const struct callstack *cs);
const struct callstack_fn *callstack_fn(const struct callstack *cs, uint32_t fn);
/* Feeds one event; events other than entry/exit probes are ignored.
 * Returns 0 or the first negative value a callback returned. */
int callstack_feed(struct callstack *cs, const struct trace_event *ev);
/* Closes every open frame at its thread's last probe time
 * (CALLSTACK_EXIT_OPEN). */
int callstack_finish(struct callstack *cs);
uint64_t callstack_unmatched_exits(const struct callstack *cs);
void callstack_free(struct callstack *cs);

#endif
