// SPDX-License-Identifier: MIT
/*
 * export.h - trace exports for timeline viewers: Perfetto (protobuf) and
 * Chrome JSON (the trace event format).
 *
 * Both exports are fed one event at a time, in the reader's timestamp order,
 * and write as they go: memory stays proportional to the number of threads,
 * locks and open slices, not to the trace. Both share one model of what a
 * lock trace shows on a timeline (export_model_*): processes, threads, locks,
 * and slices derived from pairs of events:
 *
 *   wait  (on the waiting thread)  CONTEND(_RD) -> ACQUIRE* / TIMEOUT,
 *                                  COND_WAIT -> COND_WAKE,
 *                                  BARRIER_ENTER -> BARRIER_LEAVE,
 *                                  THREAD_JOIN_BEGIN -> THREAD_JOIN_END
 *   hold  (on the lock)            ACQUIRE* -> RELEASE (mutex, rwlock, spin;
 *                                  recursive re-acquisitions do not nest)
 *   func  (on the thread's function track)  probe entry -> exit of a
 *                                  function (spool probe -e func:...), paired
 *                                  by callstack.c: export_funcs.c
 *
 * Holds of one lock may overlap in time (rwlock readers; a hand-off whose
 * release is stamped after the next acquisition), and timeline slices on
 * one track must nest. So every lock has "lanes": a hold takes the lowest
 * lane that has no open hold, lane 0 being the lock's own track and lanes
 * 1, 2, ... child tracks created on first use. doc/export.md explains.
 */
#ifndef SPOOL_ANALYZE_EXPORT_H
#define SPOOL_ANALYZE_EXPORT_H

#include <stdint.h>
#include <stdio.h>

#include "../trace/trace.h"

struct symbolizer;

struct export_proc {
	uint32_t pid;
	char name[64]; /* from proc/<pid>.cmdline, else "pid <pid>" */
};

struct export_thread {
	uint32_t idx; /* thread index (ring number) */
	uint32_t pid;
	uint32_t tid;
	uint64_t pthread;
	char name[17];
};

struct export_lock {
	uint32_t obj; /* lock index */
	uint32_t pid;
	uint32_t type; /* LOCK_TYPE_*, 0 if its KIND_LOCKDEF was never seen */
	uint64_t addr;
	uint64_t init_ip;
	char name[320]; /* its type and one name (lockname.h): "mutex acct",
			 * "mutex cache_init+0x1f#3", "futex#4" */
};

struct export_slice {
	const struct export_thread *thread; /* the waiter, or the holder */
	const struct export_lock *lock;	    /* what is waited for / held; NULL for func */
	int hold;			    /* 1 hold (lock track), 0 wait (thread track) */
	int func;			    /* 1 function activation (the thread's function
					       track; nested by call depth), lock NULL */
	unsigned lane;			    /* holds: the lock's lane */
	uint64_t begin_ns;
	uint64_t end_ns; /* valid in ops->end */
	const char *name;
	const char *site; /* symbolized call site of the beginning, or "";
			     func: the function's module */
	int unfinished;	  /* still open at the end of the trace */
};

struct export_ops {
	/* First sight of each object; always before any slice on it. */
	int (*process)(void *ctx, const struct export_proc *p, uint64_t ns);
	int (*thread)(void *ctx, const struct export_proc *p, const struct export_thread *t,
		      uint64_t ns);
	int (*lock)(void *ctx, const struct export_proc *p, const struct export_lock *l, uint64_t ns);
	/* A lane >= 1 of a lock is used for the first time. */
	int (*lane)(void *ctx, const struct export_lock *l, unsigned lane, uint64_t ns);
	int (*begin)(void *ctx, const struct export_slice *s);
	int (*end)(void *ctx, const struct export_slice *s);
	/* A point event on a thread: trylock failed, sem post, cond signal. */
	int (*instant)(void *ctx, const struct export_thread *t, const struct export_lock *l,
		       const char *name, uint64_t ns);
};

struct export_stats {
	uint64_t events; /* events fed */
	uint64_t procs, threads, locks;
	uint64_t waits, holds, instants;
	uint64_t funcs;	     /* function slices */
	uint64_t unfinished; /* slices closed at the end of the trace */
	unsigned max_lanes;  /* most lanes any lock needed */
	uint64_t written;    /* records written by the exporter (packets / JSON events) */
	uint64_t last_ns;    /* the last timestamp fed */
};

struct export_model;

/* sym and r may be NULL (raw addresses; no process names). */
int export_model_new(struct export_model **out, const struct export_ops *ops, void *ctx,
		     struct symbolizer *sym, const struct trace_reader *r);
/* What the reader knows of a stream, used if its KIND_THREAD record is lost. */
int export_model_thread_hint(struct export_model *m, uint32_t idx, uint32_t pid, uint32_t tid);
/* Returns 0 or the first negative value an op returned. */
int export_model_feed(struct export_model *m, const struct trace_event *ev);
/* Close what is still open at the last timestamp seen. */
int export_model_finish(struct export_model *m);
void export_model_stats(const struct export_model *m, struct export_stats *st);
void export_model_free(struct export_model *m);

struct export_options {
	struct symbolizer *sym;	       /* may be NULL */
	const struct trace_reader *r;  /* may be NULL */
	uint64_t max_events;	       /* Chrome: refuse beyond this many (0: default) */
	int force;		       /* Chrome: no limit */
};

#define EXPORT_CHROME_MAX_EVENTS 1000000ull

/*
 * An exporter: open on a FILE, feed every event, finish. finish writes the
 * end of the file and returns 0 or a negative errno (-EIO on a write error);
 * feed returns -EFBIG when the Chrome export passes its limit.
 * free releases everything (finish or not); it never closes the FILE.
 */
struct export_perfetto;
int export_perfetto_open(struct export_perfetto **out, FILE *f, const struct export_options *o);
int export_perfetto_feed(struct export_perfetto *x, const struct trace_event *ev);
/* What the trace is missing (trace_reader_loss), given before finish, which
 * writes it: an instant "trace incomplete: <the words>" at the last
 * timestamp on a track "spool" when it is incomplete (doc/export.md). */
void export_perfetto_set_loss(struct export_perfetto *x, const struct trace_loss *l);
int export_perfetto_finish(struct export_perfetto *x, struct export_stats *st);
struct export_model *export_perfetto_model(struct export_perfetto *x);
void export_perfetto_free(struct export_perfetto *x);

struct export_chrome;
int export_chrome_open(struct export_chrome **out, FILE *f, const struct export_options *o);
int export_chrome_feed(struct export_chrome *x, const struct trace_event *ev);
/* The same for Chrome JSON: a global instant when the trace is incomplete,
 * and always a top-level "trace" object with the loss block of every report
 * (lost, incomplete, writer_finished, missing). */
void export_chrome_set_loss(struct export_chrome *x, const struct trace_loss *l);
int export_chrome_finish(struct export_chrome *x, struct export_stats *st);
struct export_model *export_chrome_model(struct export_chrome *x);
void export_chrome_free(struct export_chrome *x);

#endif
