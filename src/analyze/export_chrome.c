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

/* The hot events (slices, instants) are built in this buffer and reach
 * stdio a block at a time: one fwrite per field was most of an export's
 * time (tens of millions of small calls). Every other write flushes it
 * first, so the output keeps its order. */
#define CH_BUF_SIZE 65536

struct export_chrome {
	FILE *f;
	char *buf;
	size_t len;
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

/* A failed write shows in ferror(x->f), which every event checks: a full
 * disk stops the export at most a block (and stdio's buffer) later. */
static void ch_flush(struct export_chrome *x)
{
	if (x->len)
		fwrite(x->buf, 1, x->len, x->f);
	x->len = 0;
}

static void ch_put(struct export_chrome *x, const char *s, size_t n)
{
	if (n > CH_BUF_SIZE - x->len) {
		ch_flush(x);
		if (n > CH_BUF_SIZE) {
			fwrite(s, 1, n, x->f);
			return;
		}
	}
	memcpy(x->buf + x->len, s, n);
	x->len += n;
}

#define ch_lit(x, s) ch_put((x), (s), sizeof(s) - 1)

/* A JSON string: as it is when every byte is plain printable ASCII (the
 * names spool makes), else through escape_json (after a flush). */
static void ch_json(struct export_chrome *x, const char *s)
{
	size_t n = strlen(s);

	if (!escape_json_plain(s, n)) {
		ch_flush(x);
		escape_json(x->f, s, n);
		return;
	}
	if (n + 2 > CH_BUF_SIZE - x->len)
		ch_flush(x);
	if (n + 2 > CH_BUF_SIZE) {
		escape_json(x->f, s, n);
		return;
	}
	x->buf[x->len++] = '"';
	memcpy(x->buf + x->len, s, n);
	x->len += n;
	x->buf[x->len++] = '"';
}

/* Numbers by hand: an export writes tens of millions of them, and
 * fprintf's parsing of the format was most of its time. */
static void ch_u64(struct export_chrome *x, uint64_t v)
{
	char b[24], *p = b + sizeof(b);

	do
		*--p = (char)('0' + v % 10);
	while (v /= 10);
	ch_put(x, p, (size_t)(b + sizeof(b) - p));
}

/* "%#" PRIx64 of a non-zero value. */
static void ch_hex(struct export_chrome *x, uint64_t v)
{
	char b[24], *p = b + sizeof(b);

	do
		*--p = "0123456789abcdef"[v & 15];
	while (v >>= 4);
	*--p = 'x';
	*--p = '0';
	ch_put(x, p, (size_t)(b + sizeof(b) - p));
}

static void ch_us(struct export_chrome *x, uint64_t ns)
{
	char b[4] = {'.', (char)('0' + ns % 1000 / 100), (char)('0' + ns % 100 / 10),
		     (char)('0' + ns % 10)};

	ch_u64(x, ns / 1000);
	ch_put(x, b, sizeof(b));
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
	if (x->written)
		ch_lit(x, ",\n");
	else
		ch_lit(x, "\n");
	x->written++;
	return 0;
}

static int ch_meta(struct export_chrome *x, const char *what, uint32_t pid, uint32_t tid,
		   const char *name)
{
	int ret = ch_event(x);

	if (ret)
		return ret;
	ch_flush(x);
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
	ch_lit(x, "{\"ph\":\"X\",\"cat\":");
	ch_json(x, s->func ? "func" : s->hold ? "hold" : "wait");
	ch_lit(x, ",\"name\":");
	ch_json(x, s->name);
	ch_lit(x, ",\"ts\":");
	ch_us(x, s->begin_ns);
	ch_lit(x, ",\"dur\":");
	ch_us(x, s->end_ns - s->begin_ns);
	ch_lit(x, ",\"pid\":");
	ch_u64(x, pid);
	ch_lit(x, ",\"tid\":");
	ch_u64(x, tid);
	ch_lit(x, ",\"args\":{\"tid\":");
	ch_u64(x, s->thread->tid);
	if (s->site[0]) {
		if (s->func)
			ch_lit(x, ",\"module\":");
		else
			ch_lit(x, ",\"site\":");
		ch_json(x, s->site);
	}
	if (s->lock && s->lock->addr) {
		ch_lit(x, ",\"lock\":\"");
		ch_hex(x, s->lock->addr);
		ch_lit(x, "\"");
	}
	if (s->unfinished)
		ch_lit(x, ",\"unfinished\":true");
	ch_lit(x, "}}");
	return ch_write_err(x->f); /* a failed flush of an earlier block */
}

static int ch_instant(void *ctx, const struct export_thread *t, const struct export_lock *l,
		      const char *name, uint64_t ns)
{
	struct export_chrome *x = ctx;
	int ret = ch_event(x);

	if (ret)
		return ret;
	ch_lit(x, "{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"lock\",\"name\":");
	ch_json(x, name);
	ch_lit(x, ",\"ts\":");
	ch_us(x, ns);
	ch_lit(x, ",\"pid\":");
	ch_u64(x, t->pid);
	ch_lit(x, ",\"tid\":");
	ch_u64(x, t->tid);
	ch_lit(x, "}");
	return ch_write_err(x->f); /* a failed flush of an earlier block */
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
	x->buf = malloc(CH_BUF_SIZE);
	if (!x->buf) {
		free(x);
		return -ENOMEM;
	}
	x->f = f;
	x->max_events = EXPORT_CHROME_MAX_EVENTS;
	if (o && o->max_events)
		x->max_events = o->max_events;
	if (o && o->force)
		x->max_events = 0;
	ret = export_model_new(&x->m, &ch_ops, x, o ? o->sym : NULL, o ? o->r : NULL);
	if (ret) {
		free(x->buf);
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
	ch_flush(x);
	fputs(x->written ? ",\n" : "\n", x->f);
	x->written++;
	fputs("{\"ph\":\"i\",\"s\":\"g\",\"cat\":\"spool\",\"name\":", x->f);
	escape_json_str(x->f, name);
	fputs(",\"ts\":", x->f);
	fprintf(x->f, "%" PRIu64 ".%03u", ns / 1000, (unsigned)(ns % 1000));
	fputs(",\"pid\":0,\"tid\":0,\"args\":{", x->f);
	trace_loss_json(&x->loss, x->f);
	fputs("}}", x->f);
}

int export_chrome_finish(struct export_chrome *x, struct export_stats *st)
{
	struct export_stats s;
	int ret = export_model_finish(x->m);

	ch_flush(x);
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
	free(x->buf);
	free(x);
}
