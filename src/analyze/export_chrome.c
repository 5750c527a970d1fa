// SPDX-License-Identifier: MIT
/*
 * export_chrome.c - lock traces in the Chrome trace event format (JSON), for
 * chrome://tracing, Perfetto UI and other tools that read it.
 *
 * {"traceEvents":[...],"displayTimeUnit":"ns"}: "M" events name processes
 * and threads, "X" (complete) events are the slices, written when they end,
 * "i" events the instants. Timestamps are microseconds with three decimals,
 * so nanoseconds survive. Holds go on a pseudo-thread per lock (and per lane
 * when holds overlap, see export.h): tid LOCK_TID_BASE + obj * 64 + lane, in
 * the lock's process. Function slices of probe traces (cat "func") go on
 * their thread, where calls nest by time. JSON is for small traces: the whole file is parsed in
 * memory by the viewers, so past a limit (1M events) the export stops
 * unless forced.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../util/escape.h"
#include "export.h"

#define LOCK_TID_BASE 0x40000000u
#define LOCK_LANES 64u

struct export_chrome {
	FILE *f;
	struct export_model *m;
	uint64_t written;
	uint64_t max_events; /* 0: no limit */
	struct trace_loss loss;
	int have_loss; /* export_chrome_set_loss was called */
};

/* 0, or why writing failed: the failed write's errno (ENOSPC on a full
 * disk; checked right after each event, so it is still that write's), else
 * EIO. */
static int ch_write_err(FILE *f)
{
	return ferror(f) ? (errno ? -errno : -EIO) : 0;
}

/* Numbers by hand: an export writes tens of millions of them, and
 * fprintf's parsing of the format was most of its time. */
static void ch_u64(FILE *f, uint64_t v)
{
	char b[24], *p = b + sizeof(b);

	do
		*--p = (char)('0' + v % 10);
	while (v /= 10);
	fwrite(p, 1, (size_t)(b + sizeof(b) - p), f);
}

/* "%#" PRIx64 of a non-zero value. */
static void ch_hex(FILE *f, uint64_t v)
{
	char b[24], *p = b + sizeof(b);

	do
		*--p = "0123456789abcdef"[v & 15];
	while (v >>= 4);
	*--p = 'x';
	*--p = '0';
	fwrite(p, 1, (size_t)(b + sizeof(b) - p), f);
}

static void ch_us(FILE *f, uint64_t ns)
{
	char b[4] = {'.', (char)('0' + ns % 1000 / 100), (char)('0' + ns % 100 / 10),
		     (char)('0' + ns % 10)};

	ch_u64(f, ns / 1000);
	fwrite(b, 1, sizeof(b), f);
}

static uint32_t ch_lock_tid(const struct export_lock *l, unsigned lane)
{
	/* Beyond 63 overlapping holds (never seen in practice) lanes share the
	 * last pseudo-thread; the indices would also wrap past 2^24 locks. */
	if (lane >= LOCK_LANES)
		lane = LOCK_LANES - 1;
	return LOCK_TID_BASE + ((l->obj * LOCK_LANES) & 0x3fffffffu) + lane;
}

/* Start one event; -EFBIG once the limit is passed. */
static int ch_event(struct export_chrome *x)
{
	if (x->max_events && x->written >= x->max_events)
		return -EFBIG;
	fputs(x->written ? ",\n" : "\n", x->f);
	x->written++;
	return 0;
}

static int ch_meta(struct export_chrome *x, const char *what, uint32_t pid, uint32_t tid,
		   const char *name)
{
	int ret = ch_event(x);

	if (ret)
		return ret;
	fprintf(x->f, "{\"ph\":\"M\",\"name\":\"%s\",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32
		      ",\"args\":{\"name\":",
		what, pid, tid);
	escape_json_str(x->f, name);
	fputs("}}", x->f);
	return ch_write_err(x->f);
}

static int ch_process(void *ctx, const struct export_proc *p, uint64_t ns)
{
	return ch_meta(ctx, "process_name", p->pid, 0, p->name);
}

static int ch_thread(void *ctx, const struct export_proc *p, const struct export_thread *t,
		     uint64_t ns)
{
	char name[64];

	snprintf(name, sizeof(name), "%s", t->name[0] ? t->name : "thread");
	return ch_meta(ctx, "thread_name", t->pid, t->tid, name);
}

static int ch_lock(void *ctx, const struct export_proc *p, const struct export_lock *l, uint64_t ns)
{
	return ch_meta(ctx, "thread_name", l->pid, ch_lock_tid(l, 0), l->name);
}

static int ch_lane(void *ctx, const struct export_lock *l, unsigned lane, uint64_t ns)
{
	char name[400];

	if (lane >= LOCK_LANES)
		return 0;
	snprintf(name, sizeof(name), "%s, overlap %u", l->name, lane);
	return ch_meta(ctx, "thread_name", l->pid, ch_lock_tid(l, lane), name);
}

static int ch_end(void *ctx, const struct export_slice *s)
{
	struct export_chrome *x = ctx;
	uint32_t pid = s->hold ? s->lock->pid : s->thread->pid;
	uint32_t tid = s->hold ? ch_lock_tid(s->lock, s->lane) : s->thread->tid;
	int ret = ch_event(x);

	if (ret)
		return ret;
	fputs("{\"ph\":\"X\",\"cat\":", x->f);
	escape_json_str(x->f, s->func ? "func" : s->hold ? "hold" : "wait");
	fputs(",\"name\":", x->f);
	escape_json_str(x->f, s->name);
	fputs(",\"ts\":", x->f);
	ch_us(x->f, s->begin_ns);
	fputs(",\"dur\":", x->f);
	ch_us(x->f, s->end_ns - s->begin_ns);
	fputs(",\"pid\":", x->f);
	ch_u64(x->f, pid);
	fputs(",\"tid\":", x->f);
	ch_u64(x->f, tid);
	fputs(",\"args\":{\"tid\":", x->f);
	ch_u64(x->f, s->thread->tid);
	if (s->site[0]) {
		fputs(s->func ? ",\"module\":" : ",\"site\":", x->f);
		escape_json_str(x->f, s->site);
	}
	if (s->lock && s->lock->addr) {
		fputs(",\"lock\":\"", x->f);
		ch_hex(x->f, s->lock->addr);
		fputc('"', x->f);
	}
	if (s->unfinished)
		fputs(",\"unfinished\":true", x->f);
	fputs("}}", x->f);
	return ch_write_err(x->f);
}

static int ch_instant(void *ctx, const struct export_thread *t, const struct export_lock *l,
		      const char *name, uint64_t ns)
{
	struct export_chrome *x = ctx;
	int ret = ch_event(x);

	if (ret)
		return ret;
	fputs("{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"lock\",\"name\":", x->f);
	escape_json_str(x->f, name);
	fputs(",\"ts\":", x->f);
	ch_us(x->f, ns);
	fputs(",\"pid\":", x->f);
	ch_u64(x->f, t->pid);
	fputs(",\"tid\":", x->f);
	ch_u64(x->f, t->tid);
	fputc('}', x->f);
	return ch_write_err(x->f);
}

static const struct export_ops ch_ops = {
	.process = ch_process,
	.thread = ch_thread,
	.lock = ch_lock,
	.lane = ch_lane,
	.end = ch_end,
	.instant = ch_instant,
};

int export_chrome_open(struct export_chrome **out, FILE *f, const struct export_options *o)
{
	struct export_chrome *x = calloc(1, sizeof(*x));
	int ret;

	if (!x)
		return -ENOMEM;
	x->f = f;
	x->max_events = EXPORT_CHROME_MAX_EVENTS;
	if (o && o->max_events)
		x->max_events = o->max_events;
	if (o && o->force)
		x->max_events = 0;
	ret = export_model_new(&x->m, &ch_ops, x, o ? o->sym : NULL, o ? o->r : NULL);
	if (ret) {
		free(x);
		return ret;
	}
	fputs("{\"traceEvents\":[", f);
	*out = x;
	return 0;
}

int export_chrome_feed(struct export_chrome *x, const struct trace_event *ev)
{
	return export_model_feed(x->m, ev);
}

struct export_model *export_chrome_model(struct export_chrome *x)
{
	return x->m;
}

void export_chrome_set_loss(struct export_chrome *x, const struct trace_loss *l)
{
	x->loss = *l;
	x->have_loss = 1;
}

/* A global instant at the end saying what the trace is missing; past the
 * event limit too (it is one event, and the one a viewer must not miss). */
static void ch_loss_instant(struct export_chrome *x, uint64_t ns)
{
	char why[512], name[560];

	trace_loss_describe(&x->loss, why, sizeof(why));
	snprintf(name, sizeof(name), "trace incomplete: %s", why);
	fputs(x->written ? ",\n" : "\n", x->f);
	x->written++;
	fputs("{\"ph\":\"i\",\"s\":\"g\",\"cat\":\"spool\",\"name\":", x->f);
	escape_json_str(x->f, name);
	fputs(",\"ts\":", x->f);
	ch_us(x->f, ns);
	fputs(",\"pid\":0,\"tid\":0,\"args\":{", x->f);
	trace_loss_json(&x->loss, x->f);
	fputs("}}", x->f);
}

int export_chrome_finish(struct export_chrome *x, struct export_stats *st)
{
	struct export_stats s;
	int ret = export_model_finish(x->m);

	export_model_stats(x->m, &s);
	if (!ret && x->have_loss && trace_loss_incomplete(&x->loss))
		ch_loss_instant(x, s.last_ns);
	if (st) {
		*st = s;
		st->written = x->written;
	}
	if (ret)
		return ret;
	fputs("\n],\"displayTimeUnit\":\"ns\"", x->f);
	if (x->have_loss) {
		/* top-level keys besides traceEvents are the trace's metadata
		 * to the viewers; to scripts, the block every report has */
		fputs(",\"trace\":{", x->f);
		trace_loss_json(&x->loss, x->f);
		fputc('}', x->f);
	}
	fputs("}\n", x->f);
	if (fflush(x->f))
		return errno ? -errno : -EIO;
	return ch_write_err(x->f);
}

void export_chrome_free(struct export_chrome *x)
{
	if (!x)
		return;
	export_model_free(x->m);
	free(x);
}
