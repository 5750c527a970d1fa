// SPDX-License-Identifier: MIT
/*
 * lockstat.h - the lock analyzer behind `spool locks` and `spool report --locks`.
 *
 * A pure state machine: it is fed trace events one at a time, in time order,
 * and knows nothing about files, so tests can drive it with synthetic records.
 * Per lock it keeps acquisitions, contention, wait and hold times (total, max,
 * p99), owner changes, the contended call-site pairs (waiter site, holder
 * site), and per thread the time spent waiting and holding. It also builds the
 * lock-order graph and reports its cycles as potential deadlocks.
 *
 * Cost: O(1) per event (O(locks held by the thread) for an acquisition, to
 * add lock-order edges). Lock and thread indices are dense, so they index
 * arrays directly; (thread, lock) pairs, edges and site pairs live in hash
 * tables. doc/report-locks.md describes the report and its JSON schema.
 *
 * Stacks (traces recorded with --stacks): kept only for what the report
 * shows, one waiter and one holder stack per contended site pair and the two
 * acquisition stacks of each lock-order edge, plus the stacks of the holds
 * in progress (per lock and per held lock) and of the holder each pending
 * wait is behind (per thread and lock), never per event: memory grows with
 * locks, threads, site pairs and edges, not with the trace.
 */
#ifndef SPOOL_ANALYZE_LOCKSTAT_H
#define SPOOL_ANALYZE_LOCKSTAT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../trace/trace.h"

struct lockstat;

struct lockstat_opts {
	int no_order_graph; /* skip the lock-order graph (and deadlock report) */
	/* Bytes of the input (the trace's stream files), 0 when not known. A
	 * lock index sizes tables (by index, and the lock-order graph's), so
	 * one beyond what this much input can number (a lock table entry is
	 * 45 bytes, LS_BYTES_PER_LOCK counts 8) is a malformed record: a
	 * crafted 18 KB trace cannot make the report take gigabytes. */
	uint64_t input_bytes;
};

/*
 * Prints the call site `addr` of process `pid` into buf, e.g.
 * "cache_get+0x12 (cache.c:41)". Returns 0, or a negative errno when it cannot
 * name the address: the report then prints the address in hex.
 */
typedef int (*lockstat_symbolize_fn)(void *ctx, uint32_t pid, uint64_t addr, char *buf, size_t len);

enum {
	LOCKSTAT_SORT_WAIT = 0, /* total wait time, the default */
	LOCKSTAT_SORT_ACQ,
	LOCKSTAT_SORT_CONTENDED,
	LOCKSTAT_SORT_HOLD,
	LOCKSTAT_SORT_NAME,
};

struct lockstat_print_opts {
	int json;	       /* JSON instead of text tables */
	int sort;	       /* LOCKSTAT_SORT_*: order of the lock and thread tables */
	unsigned limit;	       /* rows per text table, 0 = all (JSON is never limited) */
	unsigned top_sites;    /* rows of the contended call-site table (text) */
	int header;	       /* text: first print "spool: N lock events, M lost, trace in DIR/" */
	const char *trace_dir; /* DIR of that header line (set by lockstat_report_dir) */
	lockstat_symbolize_fn symbolize; /* NULL: call sites are printed in hex */
	void *symbolize_ctx;
	/* Names a data address, e.g. "cache_lock" or "table+0x40" (a lock that is
	 * a global variable); NULL or failing: locks are named by their init
	 * site instead. Same ctx. */
	lockstat_symbolize_fn symbolize_data;
	/* The mangled symbol of that variable (C++), for JSON's "symbol";
	 * NULL or failing: null. Same ctx. */
	lockstat_symbolize_fn symbolize_symbol;
	/* The trace is a recording made without --lock-events: its lock calls
	 * were not written, so "no lock" means "not recorded", not "none used"
	 * (set by lockstat_report_dir from .spool/record). */
	int locks_unrecorded;
	/* Text: also the locks that were initialized and never used (hidden
	 * by default; JSON always has them). */
	int all;
	/* lockstat_report_dir: print nothing when the trace used no lock (a
	 * probe trace whose lock events are thread events only), else first
	 * this heading (NULL: none). Set by `spool report` without --KIND. */
	int skip_if_none;
	const char *heading;
	struct trace_loss_seen *seen; /* not NULL: the loss this reading saw goes here
				     * (the command's loss line, trace.h) */
	/* The trace has no per-event time (trace_reader_untimed, --clock=none;
	 * set by lockstat_report_dir): every wait and hold time is printed
	 * "-" (text) or null (JSON), and sorting by them sorts by
	 * acquisitions. */
	int untimed;
};

/* The locks the program used (not threads, not locks only initialized). */
size_t lockstat_nused(const struct lockstat *ls);

/* Defaults: sort by wait, limit 20, top_sites 10, text, no header. */
void lockstat_print_opts_init(struct lockstat_print_opts *po);
/* "acq", "contended", "wait", "hold" or "name" -> po->sort; -EINVAL otherwise. */
int lockstat_parse_sort(const char *s, struct lockstat_print_opts *po);

/* o may be NULL (defaults). NULL on allocation failure. */
struct lockstat *lockstat_new(const struct lockstat_opts *o);
/* Events in time order. Returns 0; -EINVAL for a malformed record (it is
 * counted and skipped, feeding may go on); -ENOMEM; -EBUSY after finish. */
int lockstat_feed(struct lockstat *ls, const struct trace_event *ev);
/* What the trace is missing, as every command counts it (trace_reader_loss):
 * sets lost, incomplete and unfinished. */
void lockstat_set_loss(struct lockstat *ls, const struct trace_loss *l);
/* Close holds and waits still open at the last timestamp, compute the
 * percentiles and the lock-order cycles. Call once, after the last feed. */
int lockstat_finish(struct lockstat *ls);
int lockstat_print_text(struct lockstat *ls, FILE *out, const struct lockstat_print_opts *po);
int lockstat_print_json(struct lockstat *ls, FILE *out, const struct lockstat_print_opts *po);
void lockstat_free(struct lockstat *ls);

/*
 * Read a whole trace directory and print its lock report (text or JSON per
 * po) to out. Returns 0; -EBADMSG when the reader found damage (each problem
 * was printed as a warning naming file and offset, and the report of what
 * could be read was printed anyway); another negative errno when the trace
 * could not be read at all (already reported with log_err).
 * Lives in lockstat_dir.c, the only part that needs the trace reader.
 */
int lockstat_report_dir(const char *trace_dir, const struct lockstat_print_opts *po, FILE *out);

/* The same in parts, for one reading shared by several reports (spool
 * report without --KIND; as funcs_pass_ops in funcs.h): new with the open
 * reader, feed every event (a malformed record is skipped and said once;
 * another error is logged and returned), end after the last with the
 * reader's last return (negative: reading stopped, said) prints and
 * returns what lockstat_report_dir would; an analyzer of pass.h. Also in
 * lockstat_dir.c. */
struct analyze_pass_ops;
extern const struct analyze_pass_ops lockstat_pass_ops; /* opts: lockstat_print_opts (pass.h) */

/* Query interface (tests, other reports). Valid after lockstat_finish. */

struct lockstat_samples;

/* A distribution of durations in ns. p99 is nearest-rank; it is exact for up
 * to 1024 samples, and beyond that read from a log-linear histogram whose
 * relative error is at most 1/256 (see lockstat.c). */
struct lockstat_dist {
	uint64_t count, total_ns, max_ns, p99_ns;
	struct lockstat_samples *priv;
};

/* One side of a lock: the exclusive side (mutex, spinlock, rwlock write,
 * semaphore waits) or the rwlock read side. */
struct lockstat_side {
	uint64_t acquisitions;	   /* successful acquisitions, trylocks included */
	uint64_t try_acquisitions; /* of which trylocks */
	uint64_t try_failures;
	uint64_t contended;	   /* acquisitions preceded by a CONTEND of the same thread */
	uint64_t timeouts;	   /* requests that gave up (wait counted, no acquisition) */
	uint64_t waiting_at_end;   /* requests still waiting when the trace ended */
	struct lockstat_dist wait; /* contended acquisitions, timeouts, waits open at the end */
	struct lockstat_dist hold; /* always empty for semaphores */
};

struct lockstat_lock_info {
	uint32_t index;
	uint32_t type; /* LOCK_TYPE_*, 0 when no LOCKDEF was seen */
	uint32_t pid;
	int defined; /* a KIND_LOCKDEF was seen */
	uint64_t addr, init_ip;
	uint64_t events;
	struct lockstat_side write; /* exclusive side */
	struct lockstat_side read;  /* rwlock read side */
	uint64_t owner_changes;	    /* acquisitions by another thread than the previous one */
	uint64_t threads;	    /* distinct threads that used it */
	uint64_t max_readers;	    /* rwlock: most readers holding it at once */
	uint64_t held_at_end;	    /* holds closed by lockstat_finish */
	uint64_t unmatched_releases;
	uint64_t cond_reacquisitions; /* mutex acquisitions that ended a cond wait */
	uint64_t inits, destroys;
	uint64_t posts; /* semaphores */
	/* condition variables */
	uint64_t cond_waits, cond_wakeups, cond_timeouts, cond_errors;
	uint64_t cond_signals, cond_broadcasts, cond_waiting_at_end;
	struct lockstat_dist cond_wait;
	/* barriers */
	uint64_t barrier_waits, barrier_serial, barrier_waiting_at_end;
	struct lockstat_dist barrier_wait;
	/* futexes (LOCK_TYPE_FUTEX) use the cond_* counters: cond_waits =
	 * FUTEX_WAITs, cond_wakeups = woken, cond_errors = returned at once
	 * (EAGAIN: the word changed) or interrupted, cond_signals and
	 * cond_broadcasts = FUTEX_WAKEs of one and of more; plus the distinct
	 * threads that waited and that woke others. */
	uint64_t futex_waiters, futex_wakers;
};

struct lockstat_thread_info {
	uint32_t index, tid, pid;
	int defined; /* a KIND_THREAD was seen */
	char name[17];
	uint64_t acquisitions, contended, timeouts;
	uint64_t wait_ns;	  /* waiting for mutexes, spinlocks, rwlocks, semaphores */
	uint64_t hold_ns;	  /* holding locks (nested holds each count) */
	uint64_t cond_wait_ns;	  /* in pthread_cond_(timed)wait */
	uint64_t barrier_wait_ns; /* in pthread_barrier_wait */
	uint64_t futex_wait_ns;	  /* in FUTEX_WAIT (made through syscall()) */
};

/*
 * The frames a KIND_LOCK record carries when the trace was recorded with
 * --stacks N: the return addresses above its call site, innermost first (the
 * call site itself, the record's ip, is not among them). n = 0 without
 * --stacks, or when the frame-pointer walk found nothing. ip is owned by the
 * analyzer.
 */
struct lockstat_frames {
	uint64_t *ip;
	uint32_t n;
};

/* Contended acquisitions aggregated by (lock, waiter site, holder site). */
struct lockstat_site_pair {
	uint32_t lock;
	uint32_t pid;
	uint64_t waiter_ip; /* ip of the waiter's CONTEND */
	uint64_t holder_ip; /* ip of the acquisition of the holder at that moment, 0 unknown */
	int holder_read;    /* the holder was a reader */
	uint64_t count, wait_total_ns, wait_max_ns;
	/* The longest of these waits (the first of equal ones), with the
	 * stacks of both sides: the waiter's when it waited, the holder's
	 * when it acquired the lock it then held. Threads are indices;
	 * holder_thread is UINT32_MAX when unknown (or for semaphores). */
	uint64_t sample_wait_ns;
	uint32_t waiter_thread, holder_thread;
	struct lockstat_frames waiter_stack, holder_stack;
};

/* An edge of the lock-order graph: thread acquired `to` while holding `from`.
 * The sites, stacks and thread are those of the first time it was seen. */
struct lockstat_edge {
	uint32_t from, to;
	uint32_t thread;
	int from_read, to_read; /* acquired as rwlock readers */
	uint64_t from_ip, to_ip;
	uint64_t ns;
	uint64_t count;
	struct lockstat_frames from_stack, to_stack; /* above from_ip, above to_ip */
};

/* A cycle of the lock-order graph: edges[i] goes from locks[i] to locks[(i+1) % n]. */
struct lockstat_cycle {
	size_t n;
	uint32_t *locks;
	const struct lockstat_edge **edges;
	int has_read; /* some edge involves a read acquisition */
};

struct lockstat_totals {
	uint64_t events;      /* events fed */
	uint64_t lock_events; /* KIND_LOCK events of a lock (not thread events) */
	uint64_t thread_events; /* KIND_LOCK events of a thread's life (ev_op_is_thread) */
	uint64_t lost;	      /* trace_loss_events of the trace */
	int incomplete;	      /* trace_loss_incomplete */
	int unfinished;	      /* its writer did not finish */
	struct trace_loss loss; /* all of it, for the words (lockstat_set_loss) */
	uint64_t malformed;
	uint64_t first_ns, last_ns;
	uint64_t stack_events; /* KIND_LOCK events with stack frames (--stacks) */
};

const struct lockstat_totals *lockstat_totals(const struct lockstat *ls);
/* NULL for an index never seen. */
const struct lockstat_lock_info *lockstat_lock(const struct lockstat *ls, uint32_t index);
const struct lockstat_thread_info *lockstat_thread(const struct lockstat *ls, uint32_t index);
size_t lockstat_nsites(const struct lockstat *ls);
const struct lockstat_site_pair *lockstat_site(const struct lockstat *ls, size_t i);
size_t lockstat_nedges(const struct lockstat *ls);
const struct lockstat_edge *lockstat_edge_at(const struct lockstat *ls, size_t i);
size_t lockstat_ncycles(const struct lockstat *ls);
const struct lockstat_cycle *lockstat_cycle_at(const struct lockstat *ls, size_t i);

#endif
