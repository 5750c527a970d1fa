// SPDX-License-Identifier: MIT
/*
 * pass.h - one reading of a trace, fed to analyzers: the driver every
 * event-reading report uses (functions, vars, locks), alone (KIND_report_dir)
 * or several sharing one reading (spool report without --KIND, report.c).
 */
#ifndef SPOOL_ANALYZE_PASS_H
#define SPOOL_ANALYZE_PASS_H

#include <stdio.h>

struct trace_event;
struct trace_loss_seen;
struct trace_reader;

/* The line every text report prints, in place of its time columns, for a
 * trace without per-event time (trace_reader_untimed: spool --clock=none);
 * JSON says "event_time":"packet" and leaves the time keys out. */
#define ANALYZE_UNTIMED_NOTE                                                                       \
	"(this trace has no per-event time, spool --clock=none: counts, order and call "           \
	"paths are exact; no duration, hold or wait time is shown)\n"

/* An analyzer of a reading. open starts it on the open reader (opts: the
 * report's options, as end gets them); feed takes every event in order
 * (negative: it stopped, said); end follows the last event with the
 * reader's last return (negative: the reading stopped) and prints the
 * report; free takes NULL. */
struct analyze_pass_ops {
	int (*open)(void **p, struct trace_reader *r, const char *dir, const void *opts);
	int (*feed)(void *p, const struct trace_event *ev);
	int (*end)(void *p, int read_rc, const void *opts, FILE *out);
	void (*free)(void *p);
	/* an unreadable trace is named by the file at fault ("FILE: why"),
	 * not "cannot read trace DIR: why" */
	int name_file;
};

/* Open DIR's reader, saying why not as ops->name_file asks. */
int analyze_pass_open_reader(struct trace_reader **r, const char *dir, int name_file);

/* One analyzer over a whole reading of DIR: open, feed, end, free; the loss
 * the reading saw goes to *seen (when not NULL). Returns what end returns,
 * or the first error. */
int analyze_pass_dir(const char *dir, const struct analyze_pass_ops *ops, const void *opts,
		     struct trace_loss_seen *seen, FILE *out);

#endif
