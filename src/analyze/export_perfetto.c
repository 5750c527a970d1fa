// SPDX-License-Identifier: MIT
/*
 * export_perfetto.c - lock traces as Perfetto traces (protobuf, written by
 * hand: a few varints and length-delimited fields need no library).
 *
 * The file is a perfetto.protos.Trace: a sequence of `packet` fields (1),
 * each a TracePacket. All packets are on one sequence
 * (trusted_packet_sequence_id 1) and use no incremental state: track
 * descriptors and full event names in every event, no interning, so any
 * prefix of the file is a valid trace. Tracks:
 *   process      uuid 1<<56 | pid     ProcessDescriptor
 *   thread       uuid 2<<56 | index   ThreadDescriptor (pid, tid, name): waits
 *   lock         uuid 3<<56 | obj     child of its process: holds, lane 0
 *   lock lane k  uuid 4<<56 | k<<32 | obj, child of the lock: overlapping holds
 *   functions    uuid 5<<56 | index   child of the thread: function slices
 *                                     (probe traces), described on first use
 * Field numbers are those of Perfetto's protos/perfetto/trace/
 * (trace.proto, trace_packet.proto, the track_event protos); the subset used
 * is in tests/data/perfetto/ and the unit test decodes our output with it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../util/escape.h"
#include "export.h"

enum {
	PB_VARINT = 0,
	PB_LEN = 2,
	/* Trace */
	F_TRACE_PACKET = 1,
	/* TracePacket */
	F_PACKET_TIMESTAMP = 8,
	F_PACKET_SEQ_ID = 10,
	F_PACKET_TRACK_EVENT = 11,
	F_PACKET_SEQ_FLAGS = 13,
	F_PACKET_TRACK_DESCRIPTOR = 60,
	SEQ_INCREMENTAL_STATE_CLEARED = 1,
	/* TrackDescriptor */
	F_TD_UUID = 1,
	F_TD_NAME = 2,
	F_TD_PROCESS = 3,
	F_TD_THREAD = 4,
	F_TD_PARENT_UUID = 5,
	/* ProcessDescriptor */
	F_PD_PID = 1,
	F_PD_PROCESS_NAME = 6,
	/* ThreadDescriptor */
	F_THD_PID = 1,
	F_THD_TID = 2,
	F_THD_THREAD_NAME = 5,
	/* TrackEvent */
	F_TE_DEBUG_ANNOTATIONS = 4,
	F_TE_TYPE = 9,
	F_TE_TRACK_UUID = 11,
	F_TE_CATEGORIES = 22,
	F_TE_NAME = 23,
	TE_SLICE_BEGIN = 1,
	TE_SLICE_END = 2,
	TE_INSTANT = 3,
	/* DebugAnnotation */
	F_DA_BOOL_VALUE = 2,
	F_DA_UINT_VALUE = 3,
	F_DA_STRING_VALUE = 6,
	F_DA_POINTER_VALUE = 7,
	F_DA_NAME = 10,
};

#define UUID_PROCESS(pid) ((1ull << 56) | (pid))
#define UUID_THREAD(idx) ((2ull << 56) | (idx))
#define UUID_LOCK(obj) ((3ull << 56) | (obj))
#define UUID_LANE(obj, lane) ((4ull << 56) | ((uint64_t)(lane) << 32) | (obj))
#define UUID_FUNCS(idx) ((5ull << 56) | (idx))
#define UUID_SPOOL (6ull << 56)

/* A message under construction; nested messages get their length prefix
 * when they end. pb_begin leaves one byte for it, the size of the prefix
 * of any message under 128 bytes (most nested ones); a longer one moves
 * its content up by the bytes the prefix needs beyond that. The bytes are
 * those of a prefix written after the content (minimal varints), only
 * fewer moves: the export of a 10M-event trace spent a third of its time
 * moving each message up by its prefix.
 *
 * The buffer holds several whole packets (up to PB_FLUSH bytes) before one
 * fwrite: a packet is never split, so a failed write still leaves whole
 * packets in the file. */
#define PB_FLUSH (256u << 10)

struct pb {
	uint8_t *buf;
	size_t len, cap;
	size_t open[8];
	int depth;
	int err;
};

/* Room for n more bytes; 0 or -ENOMEM (then p->err is set). */
static int pb_grow(struct pb *p, size_t n)
{
	size_t ncap;
	uint8_t *nb;

	if (p->err)
		return p->err;
	ncap = p->cap ? p->cap * 2 : 1024;
	while (ncap < p->len + n)
		ncap *= 2;
	nb = realloc(p->buf, ncap);
	if (!nb) {
		p->err = -ENOMEM;
		return p->err;
	}
	p->buf = nb;
	p->cap = ncap;
	return 0;
}

static inline int pb_reserve(struct pb *p, size_t n)
{
	if (p->err)
		return p->err;
	if (p->cap - p->len >= n)
		return 0;
	return pb_grow(p, n);
}

static void pb_bytes(struct pb *p, const void *data, size_t n)
{
	if (pb_reserve(p, n))
		return;
	memcpy(p->buf + p->len, data, n);
	p->len += n;
}

static size_t pb_encode_varint(uint8_t *out, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		out[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	out[n++] = (uint8_t)v;
	return n;
}

/* Encoded in place: an export writes several varints per event, and a
 * memcpy of each from a temporary was a tenth of its time. */
static inline void pb_varint(struct pb *p, uint64_t v)
{
	if (pb_reserve(p, 10))
		return;
	p->len += pb_encode_varint(p->buf + p->len, v);
}

static inline void pb_key(struct pb *p, unsigned field, unsigned wire)
{
	pb_varint(p, ((uint64_t)field << 3) | wire);
}

static inline void pb_uint(struct pb *p, unsigned field, uint64_t v)
{
	pb_key(p, field, PB_VARINT);
	pb_varint(p, v);
}

/* A string field. Names come from the trace (a thread's comm, a symbol, a
 * function of the probes file): a protobuf string must be UTF-8 (protoc
 * and Perfetto's UI reject or mangle other bytes), and a viewer shows it
 * to a person, so it is written as spool prints every such name
 * (util/escape.h: a byte that is not UTF-8, a control, a bidirectional
 * override as \xNN; valid UTF-8 as it is). */
static void pb_str(struct pb *p, unsigned field, const char *s)
{
	size_t n = strlen(s);
	char *e = NULL;

	if (escape_needed(s, n, 0)) {
		e = escape_dup(s, n, 0);
		s = e ? e : "?";
		n = strlen(s);
	}
	pb_key(p, field, PB_LEN);
	pb_varint(p, n);
	pb_bytes(p, s, n);
	free(e);
}

/* A string field of spool's own words (a category, an annotation's name):
 * plain ASCII, nothing to check; the macro takes its length at compile
 * time. Half the strings of an event are these. */
#define pb_lit(p, field, lit) pb_lit_n(p, field, "" lit, sizeof(lit) - 1)

static inline void pb_lit_n(struct pb *p, unsigned field, const char *s, size_t n)
{
	pb_key(p, field, PB_LEN);
	pb_varint(p, n);
	pb_bytes(p, s, n);
}

static void pb_begin(struct pb *p, unsigned field)
{
	pb_key(p, field, PB_LEN);
	if (p->depth >= (int)(sizeof(p->open) / sizeof(p->open[0]))) {
		p->err = -EOVERFLOW;
		return;
	}
	if (pb_reserve(p, 1))
		return;
	p->open[p->depth++] = p->len++; /* the prefix's first byte */
}

static void pb_end(struct pb *p)
{
	uint8_t tmp[10];
	size_t start, n, vn;

	if (p->err)
		return;
	start = p->open[--p->depth];
	n = p->len - start - 1;
	if (n < 0x80) {
		p->buf[start] = (uint8_t)n;
		return;
	}
	vn = pb_encode_varint(tmp, n);
	if (pb_reserve(p, vn - 1))
		return;
	memmove(p->buf + start + vn, p->buf + start + 1, n);
	memcpy(p->buf + start, tmp, vn);
	p->len += vn - 1;
}

struct export_perfetto {
	FILE *f;
	struct pb pb;
	struct export_model *m;
	int started; /* the first packet (with SEQ_INCREMENTAL_STATE_CLEARED) is out */
	unsigned char *func_track; /* per thread index: its function track is described */
	size_t nfunc_track;
	uint64_t written;
	struct trace_loss loss;
	int have_loss; /* export_perfetto_set_loss was called */
};

/* Start a packet: Trace.packet { timestamp, sequence id ... after the
 * whole packets not yet written (x->pb.len bytes). */
static void pf_packet_begin(struct export_perfetto *x, uint64_t ns)
{
	x->pb.depth = 0;
	pb_begin(&x->pb, F_TRACE_PACKET);
	pb_uint(&x->pb, F_PACKET_TIMESTAMP, ns);
	pb_uint(&x->pb, F_PACKET_SEQ_ID, 1);
	if (!x->started) {
		pb_uint(&x->pb, F_PACKET_SEQ_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
		x->started = 1;
	}
}

/* Write the whole packets in the buffer. */
static int pf_flush(struct export_perfetto *x)
{
	size_t n = x->pb.len;

	x->pb.len = 0;
	/* the failed write's errno says why (ENOSPC on a full disk) */
	if (n && fwrite(x->pb.buf, 1, n, x->f) != n)
		return errno ? -errno : -EIO;
	return 0;
}

static int pf_packet_end(struct export_perfetto *x)
{
	pb_end(&x->pb);
	if (x->pb.err)
		return x->pb.err;
	x->written++;
	return x->pb.len >= PB_FLUSH ? pf_flush(x) : 0;
}

static int pf_process(void *ctx, const struct export_proc *p, uint64_t ns)
{
	struct export_perfetto *x = ctx;

	pf_packet_begin(x, ns);
	pb_begin(&x->pb, F_PACKET_TRACK_DESCRIPTOR);
	pb_uint(&x->pb, F_TD_UUID, UUID_PROCESS(p->pid));
	pb_begin(&x->pb, F_TD_PROCESS);
	pb_uint(&x->pb, F_PD_PID, p->pid);
	pb_str(&x->pb, F_PD_PROCESS_NAME, p->name);
	pb_end(&x->pb);
	pb_end(&x->pb);
	return pf_packet_end(x);
}

static int pf_thread(void *ctx, const struct export_proc *p, const struct export_thread *t,
		     uint64_t ns)
{
	struct export_perfetto *x = ctx;

	pf_packet_begin(x, ns);
	pb_begin(&x->pb, F_PACKET_TRACK_DESCRIPTOR);
	pb_uint(&x->pb, F_TD_UUID, UUID_THREAD(t->idx));
	pb_begin(&x->pb, F_TD_THREAD);
	pb_uint(&x->pb, F_THD_PID, t->pid);
	pb_uint(&x->pb, F_THD_TID, t->tid);
	if (t->name[0])
		pb_str(&x->pb, F_THD_THREAD_NAME, t->name);
	pb_end(&x->pb);
	pb_end(&x->pb);
	return pf_packet_end(x);
}

static int pf_lock(void *ctx, const struct export_proc *p, const struct export_lock *l, uint64_t ns)
{
	struct export_perfetto *x = ctx;

	pf_packet_begin(x, ns);
	pb_begin(&x->pb, F_PACKET_TRACK_DESCRIPTOR);
	pb_uint(&x->pb, F_TD_UUID, UUID_LOCK(l->obj));
	pb_uint(&x->pb, F_TD_PARENT_UUID, UUID_PROCESS(p->pid));
	pb_str(&x->pb, F_TD_NAME, l->name);
	pb_end(&x->pb);
	return pf_packet_end(x);
}

static int pf_lane(void *ctx, const struct export_lock *l, unsigned lane, uint64_t ns)
{
	struct export_perfetto *x = ctx;
	char name[400];

	snprintf(name, sizeof(name), "%s, overlap %u", l->name, lane);
	pf_packet_begin(x, ns);
	pb_begin(&x->pb, F_PACKET_TRACK_DESCRIPTOR);
	pb_uint(&x->pb, F_TD_UUID, UUID_LANE(l->obj, lane));
	pb_uint(&x->pb, F_TD_PARENT_UUID, UUID_LOCK(l->obj));
	pb_str(&x->pb, F_TD_NAME, name);
	pb_end(&x->pb);
	return pf_packet_end(x);
}

/* The thread's function track, described before its first slice. */
static int pf_func_track(struct export_perfetto *x, const struct export_thread *t, uint64_t ns)
{
	if (t->idx >= x->nfunc_track) {
		size_t n = t->idx + 64;
		unsigned char *nf = realloc(x->func_track, n);

		if (!nf)
			return -ENOMEM;
		memset(nf + x->nfunc_track, 0, n - x->nfunc_track);
		x->func_track = nf;
		x->nfunc_track = n;
	}
	if (x->func_track[t->idx])
		return 0;
	x->func_track[t->idx] = 1;
	pf_packet_begin(x, ns);
	pb_begin(&x->pb, F_PACKET_TRACK_DESCRIPTOR);
	pb_uint(&x->pb, F_TD_UUID, UUID_FUNCS(t->idx));
	pb_uint(&x->pb, F_TD_PARENT_UUID, UUID_THREAD(t->idx));
	pb_lit(&x->pb, F_TD_NAME, "functions");
	pb_end(&x->pb);
	return pf_packet_end(x);
}

static uint64_t pf_slice_track(const struct export_slice *s)
{
	if (s->func)
		return UUID_FUNCS(s->thread->idx);
	if (!s->hold)
		return UUID_THREAD(s->thread->idx);
	return s->lane ? UUID_LANE(s->lock->obj, s->lane) : UUID_LOCK(s->lock->obj);
}

/* name: spool's own word (plain ASCII); value: from the trace */
static void pf_annotation_str(struct pb *p, const char *name, const char *value)
{
	pb_begin(p, F_TE_DEBUG_ANNOTATIONS);
	pb_lit_n(p, F_DA_NAME, name, strlen(name));
	pb_str(p, F_DA_STRING_VALUE, value);
	pb_end(p);
}

static int pf_begin(void *ctx, const struct export_slice *s)
{
	struct export_perfetto *x = ctx;
	int ret;

	if (s->func && (ret = pf_func_track(x, s->thread, s->begin_ns)))
		return ret;
	pf_packet_begin(x, s->begin_ns);
	pb_begin(&x->pb, F_PACKET_TRACK_EVENT);
	pb_uint(&x->pb, F_TE_TYPE, TE_SLICE_BEGIN);
	pb_uint(&x->pb, F_TE_TRACK_UUID, pf_slice_track(s));
	if (s->func)
		pb_lit(&x->pb, F_TE_CATEGORIES, "func");
	else if (s->hold)
		pb_lit(&x->pb, F_TE_CATEGORIES, "hold");
	else
		pb_lit(&x->pb, F_TE_CATEGORIES, "wait");
	pb_str(&x->pb, F_TE_NAME, s->name);
	if (s->site[0])
		pf_annotation_str(&x->pb, s->func ? "module" : "site", s->site);
	if (s->lock && s->lock->addr) {
		pb_begin(&x->pb, F_TE_DEBUG_ANNOTATIONS);
		pb_lit(&x->pb, F_DA_NAME, "lock");
		pb_uint(&x->pb, F_DA_POINTER_VALUE, s->lock->addr);
		pb_end(&x->pb);
	}
	pb_begin(&x->pb, F_TE_DEBUG_ANNOTATIONS);
	pb_lit(&x->pb, F_DA_NAME, "tid");
	pb_uint(&x->pb, F_DA_UINT_VALUE, s->thread->tid);
	pb_end(&x->pb);
	pb_end(&x->pb);
	return pf_packet_end(x);
}

static int pf_end(void *ctx, const struct export_slice *s)
{
	struct export_perfetto *x = ctx;

	pf_packet_begin(x, s->end_ns);
	pb_begin(&x->pb, F_PACKET_TRACK_EVENT);
	pb_uint(&x->pb, F_TE_TYPE, TE_SLICE_END);
	pb_uint(&x->pb, F_TE_TRACK_UUID, pf_slice_track(s));
	pb_end(&x->pb);
	return pf_packet_end(x);
}

static int pf_instant(void *ctx, const struct export_thread *t, const struct export_lock *l,
		      const char *name, uint64_t ns)
{
	struct export_perfetto *x = ctx;

	pf_packet_begin(x, ns);
	pb_begin(&x->pb, F_PACKET_TRACK_EVENT);
	pb_uint(&x->pb, F_TE_TYPE, TE_INSTANT);
	pb_uint(&x->pb, F_TE_TRACK_UUID, UUID_THREAD(t->idx));
	pb_lit(&x->pb, F_TE_CATEGORIES, "lock");
	pb_str(&x->pb, F_TE_NAME, name);
	pb_end(&x->pb);
	return pf_packet_end(x);
}

static const struct export_ops pf_ops = {
	.process = pf_process,
	.thread = pf_thread,
	.lock = pf_lock,
	.lane = pf_lane,
	.begin = pf_begin,
	.end = pf_end,
	.instant = pf_instant,
};

int export_perfetto_open(struct export_perfetto **out, FILE *f, const struct export_options *o)
{
	struct export_perfetto *x = calloc(1, sizeof(*x));
	int ret;

	if (!x)
		return -ENOMEM;
	x->f = f;
	ret = export_model_new(&x->m, &pf_ops, x, o ? o->sym : NULL, o ? o->r : NULL);
	if (ret) {
		free(x);
		return ret;
	}
	*out = x;
	return 0;
}

int export_perfetto_feed(struct export_perfetto *x, const struct trace_event *ev)
{
	return export_model_feed(x->m, ev);
}

struct export_model *export_perfetto_model(struct export_perfetto *x)
{
	return x->m;
}

void export_perfetto_set_loss(struct export_perfetto *x, const struct trace_loss *l)
{
	x->loss = *l;
	x->have_loss = 1;
}

/* name: spool's own word (plain ASCII) */
static void pf_annotation_uint(struct pb *p, const char *name, unsigned field, uint64_t v)
{
	pb_begin(p, F_TE_DEBUG_ANNOTATIONS);
	pb_lit_n(p, F_DA_NAME, name, strlen(name));
	pb_uint(p, field, v);
	pb_end(p);
}

/* A track "spool" (global) with one instant at the end saying what the
 * trace is missing, its numbers as the arguments every report has. */
static int pf_loss(struct export_perfetto *x, uint64_t ns)
{
	char why[512], name[560];
	int ret;

	trace_loss_describe(&x->loss, why, sizeof(why));
	snprintf(name, sizeof(name), "trace incomplete: %s", why);
	pf_packet_begin(x, ns);
	pb_begin(&x->pb, F_PACKET_TRACK_DESCRIPTOR);
	pb_uint(&x->pb, F_TD_UUID, UUID_SPOOL);
	pb_lit(&x->pb, F_TD_NAME, "spool");
	pb_end(&x->pb);
	if ((ret = pf_packet_end(x)))
		return ret;
	pf_packet_begin(x, ns);
	pb_begin(&x->pb, F_PACKET_TRACK_EVENT);
	pb_uint(&x->pb, F_TE_TYPE, TE_INSTANT);
	pb_uint(&x->pb, F_TE_TRACK_UUID, UUID_SPOOL);
	pb_lit(&x->pb, F_TE_CATEGORIES, "spool");
	pb_str(&x->pb, F_TE_NAME, name);
	pf_annotation_uint(&x->pb, "lost", F_DA_UINT_VALUE, trace_loss_events(&x->loss));
	pf_annotation_uint(&x->pb, "incomplete", F_DA_BOOL_VALUE, 1);
	pf_annotation_uint(&x->pb, "writer_finished", F_DA_BOOL_VALUE,
			   x->loss.state != TRACE_STATE_UNFINISHED);
	pf_annotation_str(&x->pb, "missing", why);
	pb_end(&x->pb);
	return pf_packet_end(x);
}

int export_perfetto_finish(struct export_perfetto *x, struct export_stats *st)
{
	struct export_stats s;
	int ret = export_model_finish(x->m);

	export_model_stats(x->m, &s);
	if (!ret && x->have_loss && trace_loss_incomplete(&x->loss))
		ret = pf_loss(x, s.last_ns);
	if (!ret)
		ret = pf_flush(x);
	if (st) {
		*st = s;
		st->written = x->written;
	}
	if (!ret && fflush(x->f))
		ret = errno ? -errno : -EIO;
	else if (!ret && ferror(x->f))
		ret = -EIO;
	return ret;
}

void export_perfetto_free(struct export_perfetto *x)
{
	if (!x)
		return;
	export_model_free(x->m);
	free(x->func_track);
	free(x->pb.buf);
	free(x);
}
