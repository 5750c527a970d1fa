// SPDX-License-Identifier: MIT
/*
 * test_trace.c - the trace writer and reader: records written are read back
 * field for field and in time order, losses are counted, damaged traces are
 * read as far as they are whole, side files round-trip, and babeltrace2
 * reads what spool writes.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/event.h"
#include "trace/trace.h"

#define MAX_REC 512 /* bytes: room for a lock record with 59 frames */

/* A record as the agent would have written it, 8-byte aligned. */
struct xrec {
	uint32_t stream;
	uint64_t buf[MAX_REC / 8];
};

struct fixture {
	char root[64]; /* mkdtemp directory */
	char dir[128]; /* the trace inside it (must not exist before open) */
	struct xrec *recs;
	size_t nrecs;
};

static const struct trace_clock test_clock = {
    .tsc_hz = 3000000000ull,
    .tsc0 = 3000000000000ull, /* 1000 s of uptime */
    .mono_ns = 1000000000000ull,
    .real_ns = 1700000000000000000ull, /* 2023-11-14 22:13:20 UTC */
};

static int rm_cb(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	strcpy(f->root, "/tmp/spool-test-trace-XXXXXX");
	if (!mkdtemp(f->root)) {
		free(f);
		return -1;
	}
	snprintf(f->dir, sizeof(f->dir), "%s/t.trace", f->root);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	nftw(f->root, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
	unsetenv("SPOOL_TRACE_FORMAT"); /* a format 1 test that failed or skipped */
	free(f->recs);
	free(f);
	return 0;
}

static struct rec_hdr *add_rec(struct fixture *f, uint32_t stream)
{
	struct xrec *x;

	f->recs = realloc(f->recs, (f->nrecs + 1) * sizeof(*f->recs));
	assert_non_null(f->recs);
	x = &f->recs[f->nrecs++];
	memset(x, 0, sizeof(*x));
	x->stream = stream;
	return (struct rec_hdr *)x->buf;
}

static void mk_lock(struct fixture *f, uint32_t stream, uint64_t tsc, uint32_t seq, unsigned op,
		    uint32_t obj, unsigned nstack)
{
	struct rec_lock *l = (struct rec_lock *)add_rec(f, stream);

	l->h.word = ev_word(KIND_LOCK, stream, obj, op);
	l->h.tsc = tsc;
	l->h.seq = seq;
	l->h.size = (uint32_t)(sizeof(*l) + 8 * nstack);
	l->ip = 0x401000 + seq;
	l->arg = 0xdead0000ull + obj;
	for (unsigned i = 0; i < nstack; i++)
		l->stack[i] = 0x7f0000001000ull + 16 * i + seq;
}

static void mk_thread(struct fixture *f, uint32_t stream, uint64_t tsc, uint32_t seq,
		      const char *name)
{
	struct rec_thread *t = (struct rec_thread *)add_rec(f, stream);

	t->h.word = ev_word(KIND_THREAD, stream, 0, 0);
	t->h.tsc = tsc;
	t->h.seq = seq;
	t->h.size = sizeof(*t);
	t->tid = 1000 + stream;
	t->pid = 999;
	t->pthread = 0x7f1234560000ull + stream;
	memcpy(t->name, name, strnlen(name, sizeof(t->name))); /* NUL-padded, not terminated */
}

static void mk_lockdef(struct fixture *f, uint32_t stream, uint64_t tsc, uint32_t seq, uint32_t obj)
{
	struct rec_lockdef *d = (struct rec_lockdef *)add_rec(f, stream);

	d->h.word = ev_word(KIND_LOCKDEF, stream, obj, 0);
	d->h.tsc = tsc;
	d->h.seq = seq;
	d->h.size = sizeof(*d);
	d->addr = 0x555555558040ull + 64 * obj;
	d->init_ip = 0x401500;
	d->type = LOCK_TYPE_MUTEX;
	d->pid = 999;
}

static void mk_proc(struct fixture *f, uint32_t stream, uint64_t tsc, uint32_t seq)
{
	struct rec_proc *p = (struct rec_proc *)add_rec(f, stream);

	p->h.word = ev_word(KIND_PROC, stream, 0, 0);
	p->h.tsc = tsc;
	p->h.seq = seq;
	p->h.size = sizeof(*p);
	p->pid = 999;
	p->ppid = 998;
	p->proc_slot = 3;
	p->flags = PROC_F_EXEC;
}

/* Write every record of the fixture; streams are created on first use. */
static void write_all_recs(struct fixture *f, struct trace_writer *w, struct trace_stream **ss,
			   size_t nss)
{
	for (size_t i = 0; i < f->nrecs; i++) {
		const struct rec_hdr *h = (const struct rec_hdr *)f->recs[i].buf;
		uint32_t id = f->recs[i].stream;

		assert_true(id < nss);
		if (!ss[id])
			assert_int_equal(trace_writer_stream(w, id, 999, 1000 + id, &ss[id]), 0);
		assert_int_equal(trace_stream_write(ss[id], h), 0);
	}
}

/* The n-th record written to `stream`, or NULL. */
static const struct rec_hdr *nth_of_stream(const struct fixture *f, uint32_t stream, uint64_t n)
{
	for (size_t i = 0; i < f->nrecs; i++)
		if (f->recs[i].stream == stream && n-- == 0)
			return (const struct rec_hdr *)f->recs[i].buf;
	return NULL;
}

static void assert_same_rec(const struct rec_hdr *want, const struct rec_hdr *got)
{
	assert_int_equal(got->size, want->size);
	assert_memory_equal(got, want, want->size);
}

/*
 * A mixed trace: three threads, every kind, stacks of several depths, enough
 * lock events on stream 0 to span several packets, equal timestamps across
 * streams, and a flush in the middle.
 */
static void build_mixed(struct fixture *f)
{
	uint64_t t = test_clock.tsc0 + 3000;
	uint32_t seq[3] = {0, 0, 0};

	mk_proc(f, 0, t, seq[0]++);
	for (uint32_t s = 0; s < 3; s++) {
		static const char *names[] = {"main", "worker-1", "a-very-long-name"};

		mk_thread(f, s, t + s, seq[s]++, names[s]);
	}
	mk_lockdef(f, 0, t + 10, seq[0]++, 5);
	mk_lockdef(f, 2, t + 10, seq[2]++, 6); /* same TSC as stream 0's */
	for (unsigned i = 0; i < 3000; i++) {
		uint32_t s = i % 7 == 0 ? 1 : i % 11 == 0 ? 2 : 0;

		mk_lock(f, s, t + 20 + 3 * i, seq[s]++, OP_ACQUIRE + (i & 1) * 4, 5 + (s == 2),
			i % 5);
	}
}

static void test_roundtrip(void **state)
{
	struct fixture *f = *state;
	struct trace_stream *ss[3] = {0};
	struct trace_writer *w;
	struct trace_reader *r;
	struct trace_problem pb;
	struct trace_event ev;
	uint64_t per[3] = {0}, last_tsc = 0, n = 0;
	uint32_t last_stream = 0;
	struct trace_clock clk2 = test_clock;

	build_mixed(f);
	assert_int_equal(trace_writer_open(&w, f->dir, &test_clock), 0);
	write_all_recs(f, w, ss, 3);
	assert_int_equal(trace_stream_flush(ss[1]), 0);
	/* A refined clock replaces the first one. */
	clk2.tsc_hz = 3000000123ull;
	assert_int_equal(trace_writer_set_clock(w, &clk2), 0);
	/* Unknown kinds and duplicate streams are refused. */
	{
		struct rec_hdr bad = {.word = ev_word(KIND_PAD, 0, 0, 0), .size = 24};
		struct trace_stream *dup;

		assert_int_equal(trace_stream_write(ss[0], &bad), -EINVAL);
		assert_int_equal(trace_writer_stream(w, 1, 1, 1, &dup), -EEXIST);
	}
	assert_int_equal(trace_writer_close(w), 0);

	assert_int_equal(trace_reader_open(&r, f->dir, &pb), 0);
	assert_memory_equal(trace_reader_clock(r), &clk2, sizeof(clk2));
	assert_int_equal(trace_reader_nstreams(r), 3);
	while (trace_reader_next(r, &ev) == 1) {
		const struct rec_hdr *want;

		assert_true(ev.stream_id < 3);
		want = nth_of_stream(f, ev.stream_id, per[ev.stream_id]++);
		assert_non_null(want);
		assert_same_rec(want, ev.rec);
		assert_int_equal(ev.ns, trace_clock_ns(&clk2, ev.rec->tsc));
		/* Time order across streams; equal times keep stream order. */
		assert_true(ev.rec->tsc >= last_tsc);
		if (n && ev.rec->tsc == last_tsc)
			assert_true(ev.stream_id >= last_stream);
		last_tsc = ev.rec->tsc;
		last_stream = ev.stream_id;
		n++;
	}
	assert_int_equal(n, f->nrecs);
	for (uint32_t s = 0; s < 3; s++) {
		const struct trace_stream_info *si = trace_reader_stream(r, s);

		assert_int_equal(si->stream_id, s);
		assert_int_equal(si->pid, 999);
		assert_int_equal(si->tid, 1000 + s);
		assert_int_equal(si->events, per[s]);
		assert_int_equal(si->seq_gaps, 0);
		assert_int_equal(si->discarded, 0);
		assert_string_equal(si->file, s == 0   ? "stream_0"
					      : s == 1 ? "stream_1"
						       : "stream_2");
		assert_null(nth_of_stream(f, s, per[s]));
	}
	assert_int_equal(trace_reader_nproblems(r), 0);
	assert_int_equal(trace_reader_next(r, &ev), 0);
	trace_reader_close(r);
}

static void test_losses(void **state)
{
	struct fixture *f = *state;
	struct trace_stream *s0, *s1;
	struct trace_writer *w;
	struct trace_reader *r;
	struct trace_event ev;
	uint64_t t = test_clock.tsc0;
	/* Stream 0: 0 1 2 [3..6 lost] 7 8 [9 lost] 10; stream 1: no gap. */
	static const uint32_t seqs[] = {0, 1, 2, 7, 8, 10};

	for (size_t i = 0; i < sizeof(seqs) / sizeof(seqs[0]); i++)
		mk_lock(f, 0, t + i, seqs[i], OP_RELEASE, 1, 0);
	assert_int_equal(trace_writer_open(&w, f->dir, &test_clock), 0);
	assert_int_equal(trace_writer_stream(w, 0, 1, 2, &s0), 0);
	assert_int_equal(trace_writer_stream(w, 1, 1, 3, &s1), 0);
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(trace_stream_write(s0, (struct rec_hdr *)f->recs[i].buf), 0);
	trace_stream_discarded(s0, 4);
	assert_int_equal(trace_stream_flush(s0), 0);
	for (size_t i = 3; i < 6; i++)
		assert_int_equal(trace_stream_write(s0, (struct rec_hdr *)f->recs[i].buf), 0);
	trace_stream_discarded(s0, 5);
	trace_stream_discarded(s0, 2); /* a running total never goes back */
	mk_lock(f, 1, t + 1, 0, OP_RELEASE, 1, 0);
	mk_lock(f, 1, t + 2, 1, OP_RELEASE, 1, 0);
	assert_int_equal(trace_stream_write(s1, (struct rec_hdr *)f->recs[6].buf), 0);
	assert_int_equal(trace_stream_write(s1, (struct rec_hdr *)f->recs[7].buf), 0);
	assert_int_equal(trace_writer_close(w), 0);

	assert_int_equal(trace_reader_open(&r, f->dir, NULL), 0);
	while (trace_reader_next(r, &ev) == 1)
		;
	assert_int_equal(trace_reader_stream(r, 0)->events, 6);
	assert_int_equal(trace_reader_stream(r, 0)->seq_gaps, 5);
	assert_int_equal(trace_reader_stream(r, 0)->discarded, 5);
	assert_int_equal(trace_reader_stream(r, 1)->events, 2);
	assert_int_equal(trace_reader_stream(r, 1)->seq_gaps, 0);
	assert_int_equal(trace_reader_stream(r, 1)->discarded, 0);
	assert_int_equal(trace_reader_nproblems(r), 0);
	trace_reader_close(r);
}

/*
 * A ring reused by a later thread (the agent frees a ring once its thread
 * ended and the collector drained it): streams 3 and 7 (ids need not be
 * dense), stream 3 holding two threads one after the other, each opening
 * with KIND_THREAD and counting its seq from 1. The reader gives each
 * thread its own number, the words' thread index (the ring) notwithstanding,
 * and the restart of seq is no gap.
 */
static void test_reused_ring(void **state)
{
	struct fixture *f = *state;
	struct trace_stream *ss[8] = {0};
	struct trace_writer *w;
	struct trace_reader *r;
	struct trace_event ev;
	uint64_t t = test_clock.tsc0 + 100;
	uint32_t thread_of[6], n = 0;

	mk_thread(f, 3, t, 1, "first");
	mk_lock(f, 3, t + 1, 2, OP_ACQUIRE, 1, 0);
	mk_thread(f, 7, t + 2, 1, "other");
	mk_thread(f, 3, t + 3, 1, "second"); /* the ring's next thread */
	mk_lock(f, 3, t + 4, 2, OP_ACQUIRE, 1, 0);
	mk_lock(f, 7, t + 5, 2, OP_ACQUIRE, 1, 0);
	assert_int_equal(trace_writer_open(&w, f->dir, &test_clock), 0);
	write_all_recs(f, w, ss, 8);
	assert_int_equal(trace_writer_close(w), 0);

	assert_int_equal(trace_reader_open(&r, f->dir, NULL), 0);
	while (trace_reader_next(r, &ev) == 1) {
		assert_true(n < 6);
		thread_of[n++] = ev.thread;
	}
	assert_int_equal(n, 6);
	/* in time order: stream 3 is position 0, stream 7 position 1, the
	 * second thread of stream 3 the first number after the streams */
	assert_int_equal(thread_of[0], 0);
	assert_int_equal(thread_of[1], 0);
	assert_int_equal(thread_of[2], 1);
	assert_int_equal(thread_of[3], 2);
	assert_int_equal(thread_of[4], 2);
	assert_int_equal(thread_of[5], 1);
	assert_int_equal(trace_reader_nthreads(r), 3);
	assert_int_equal(trace_reader_stream(r, 0)->seq_gaps, 0);
	assert_int_equal(trace_reader_nproblems(r), 0);
	trace_reader_close(r);
}

/* The state file (doc/trace-format.md, "The state file and losses"): a
 * trace reads as unfinished until its writer closes it, with the losses
 * noted so far; as finished after; a crafted one cannot overflow the total;
 * a trace without one is an older spool's. */
static void test_state(void **state)
{
	struct fixture *f = *state;
	struct trace_loss noted = {.no_ring = 7,
				   .seq_gaps = 3,
				   .damaged_rings = 1,
				   .no_proc = 2,
				   .still_running = 3},
			  l;
	struct trace_stream *s0;
	struct trace_writer *w;
	struct trace_reader *r;
	struct trace_event ev;
	char path[256], why[512];
	FILE *fp;

	mk_lock(f, 0, test_clock.tsc0 + 1, 0, OP_RELEASE, 1, 0);
	assert_int_equal(trace_writer_open(&w, f->dir, &test_clock), 0);
	assert_int_equal(trace_writer_stream(w, 0, 1, 2, &s0), 0);
	assert_int_equal(trace_stream_write(s0, (struct rec_hdr *)f->recs[0].buf), 0);
	trace_stream_discarded(s0, 5);
	assert_int_equal(trace_stream_flush(s0), 0);
	trace_writer_note_loss(w, &noted);
	assert_int_equal(trace_writer_add_file(w, "state", "x", 1), -EINVAL);
	assert_int_equal(trace_writer_checkpoint(w), 0);

	/* while writing (as a killed spool leaves it) */
	assert_int_equal(trace_reader_open(&r, f->dir, NULL), 0);
	while (trace_reader_next(r, &ev) == 1)
		;
	trace_reader_loss(r, &l);
	trace_reader_close(r);
	assert_int_equal(l.state, TRACE_STATE_UNFINISHED);
	assert_int_equal(l.ring_full, 5);
	assert_int_equal(l.no_ring, 7);
	assert_int_equal(trace_loss_events(&l), 12);
	assert_true(trace_loss_incomplete(&l));
	trace_loss_describe(&l, why, sizeof(why));
	assert_non_null(strstr(why, "12 events lost"));
	assert_non_null(strstr(why, "did not finish"));

	assert_int_equal(trace_writer_close(w), 0);
	assert_int_equal(trace_reader_open(&r, f->dir, NULL), 0);
	trace_reader_loss(r, &l);
	trace_reader_close(r);
	assert_int_equal(l.state, TRACE_STATE_FINISHED);
	assert_int_equal(trace_loss_events(&l), 12);
	assert_int_equal(l.damaged_rings, 1);
	/* processes without a slot: not events, but the trace is incomplete */
	assert_int_equal(l.no_proc, 2);
	trace_loss_describe(&l, why, sizeof(why));
	assert_null(strstr(why, "did not finish"));
	assert_non_null(strstr(why, "2 processes found no process slot"));
	/* processes left running when it ended: the same */
	assert_int_equal(l.still_running, 3);
	assert_non_null(strstr(why, "3 processes were still running when the trace ended"));
	l = (struct trace_loss){.state = TRACE_STATE_FINISHED, .no_proc = 1};
	assert_int_equal(trace_loss_events(&l), 0);
	assert_true(trace_loss_incomplete(&l));
	l = (struct trace_loss){.state = TRACE_STATE_FINISHED, .still_running = 1};
	assert_int_equal(trace_loss_events(&l), 0);
	assert_true(trace_loss_incomplete(&l));
	trace_loss_describe(&l, why, sizeof(why));
	assert_string_equal(why, "1 process was still running when the trace ended: its events "
				 "from then on are not in it");

	/* crafted: numbers that would wrap around to "nothing lost" */
	snprintf(path, sizeof(path), "%s/.spool/state", f->dir);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs("format=spool-state-1\nstate=finished\nring_full=18446744073709551615\n"
	      "no_ring=1\n",
	      fp);
	fclose(fp);
	assert_int_equal(trace_reader_open(&r, f->dir, NULL), 0);
	trace_reader_loss(r, &l);
	assert_int_equal(trace_loss_events(&l), UINT64_MAX);
	trace_reader_close(r);

	/* no state file: an older spool's trace, only the packets tell */
	assert_int_equal(unlink(path), 0);
	assert_int_equal(trace_reader_open(&r, f->dir, NULL), 0);
	while (trace_reader_next(r, &ev) == 1)
		;
	trace_reader_loss(r, &l);
	trace_reader_close(r);
	assert_int_equal(l.state, TRACE_STATE_UNKNOWN);
	assert_int_equal(trace_loss_events(&l), 5);
}

/* Write the mixed trace and return the size of stream_0's first packet. */
/* The mixed trace in format fmt (1 or 2); the size of stream_0's first
 * packet. */
static uint64_t write_mixed_fmt(struct fixture *f, int fmt)
{
	struct trace_stream *ss[3] = {0};
	struct trace_writer *w;
	char path[256];
	uint8_t h[88];
	uint64_t bits;
	int fd;

	build_mixed(f);
	if (fmt == 1)
		setenv("SPOOL_TRACE_FORMAT", "1", 1);
	assert_int_equal(trace_writer_open(&w, f->dir, &test_clock), 0);
	unsetenv("SPOOL_TRACE_FORMAT");
	write_all_recs(f, w, ss, 3);
	assert_int_equal(trace_writer_close(w), 0);
	snprintf(path, sizeof(path), "%s/stream_0", f->dir);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, h, sizeof(h), 0), sizeof(h));
	close(fd);
	memcpy(&bits, h + 56, 8); /* packet_size, in bits (little-endian host) */
	return bits / 8;
}

/* The layout the tests of format 1's reader walk. */
static uint64_t write_mixed(struct fixture *f)
{
	return write_mixed_fmt(f, 1);
}

/* Read everything; check that stream 0 gives back a prefix of what was
 * written and the others everything. Returns stream 0's event count. */
static uint64_t read_damaged(struct fixture *f, struct trace_reader *r)
{
	struct trace_event ev;
	uint64_t per[3] = {0};

	while (trace_reader_next(r, &ev) == 1) {
		const struct rec_hdr *want = nth_of_stream(f, ev.stream_id, per[ev.stream_id]++);

		assert_non_null(want);
		assert_same_rec(want, ev.rec);
	}
	for (uint32_t s = 1; s < 3; s++) {
		assert_int_equal(trace_reader_stream(r, s)->events, per[s]);
		assert_null(nth_of_stream(f, s, per[s]));
	}
	return per[0];
}

static uint64_t events_in_first_packet(const char *dir)
{
	/* Count the events of stream_0's first packet by walking it. */
	char path[256];
	uint8_t *buf;
	uint64_t bits, n = 0;
	size_t pos = 88, len;
	int fd;

	snprintf(path, sizeof(path), "%s/stream_0", dir);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, &bits, 8, 56), 8);
	len = (size_t)(bits / 8);
	buf = malloc(len);
	assert_non_null(buf);
	assert_int_equal(pread(fd, buf, len, 0), (ssize_t)len);
	close(fd);
	while (pos < len) {
		uint32_t nstack;

		switch (buf[pos]) {
		case KIND_LOCK:
			memcpy(&nstack, buf + pos + 9 + 28, 4);
			pos += 9 + 32 + 8 * (size_t)nstack;
			break;
		case KIND_THREAD:
			pos += 9 + 44;
			break;
		case KIND_LOCKDEF:
			pos += 9 + 36;
			break;
		case KIND_PROC:
			pos += 9 + 28;
			break;
		default:
			fail();
		}
		n++;
	}
	assert_int_equal(pos, len);
	free(buf);
	return n;
}

static void test_truncated(void **state)
{
	struct fixture *f = *state;
	struct trace_reader *r;
	const struct trace_problem *p;
	uint64_t pkt = write_mixed(f), first = events_in_first_packet(f->dir), n;
	char path[256];

	/* format 1's layout: its reader is still tested (format2 tests below) */
	setenv("SPOOL_TRACE_FORMAT", "1", 1);

	/* Cut stream_0 in the middle of its second packet. */
	snprintf(path, sizeof(path), "%s/stream_0", f->dir);
	assert_int_equal(truncate(path, (off_t)(pkt + 1000)), 0);

	assert_int_equal(trace_reader_open(&r, f->dir, NULL), 0);
	n = read_damaged(f, r);
	/* Every event of the whole packet, plus the whole events of the cut one. */
	assert_true(n > first);
	assert_true(n < first + 1000 / 41);
	assert_int_equal(trace_reader_stream(r, 0)->events, n);
	assert_int_equal(trace_reader_nproblems(r), 1);
	p = trace_reader_problem(r, 0);
	assert_non_null(strstr(p->file, "stream_0"));
	assert_int_equal(p->offset, pkt);
	assert_non_null(strstr(p->msg, "truncated"));
	trace_reader_close(r);

	/* Cut inside the headers of the second packet: only the first is read. */
	assert_int_equal(truncate(path, (off_t)(pkt + 40)), 0);
	assert_int_equal(trace_reader_open(&r, f->dir, NULL), 0);
	assert_int_equal(read_damaged(f, r), first);
	assert_int_equal(trace_reader_nproblems(r), 1);
	assert_int_equal(trace_reader_problem(r, 0)->offset, pkt);
	trace_reader_close(r);
	unsetenv("SPOOL_TRACE_FORMAT");
}

static void test_bad_magic(void **state)
{
	struct fixture *f = *state;
	struct trace_reader *r;
	const struct trace_problem *p;
	uint64_t pkt = write_mixed(f), first = events_in_first_packet(f->dir);
	char path[256];
	int fd;

	/* format 1's layout: its reader is still tested (format2 tests below) */
	setenv("SPOOL_TRACE_FORMAT", "1", 1);

	snprintf(path, sizeof(path), "%s/stream_0", f->dir);
	fd = open(path, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, "XXXX", 4, (off_t)pkt), 4);
	close(fd);

	assert_int_equal(trace_reader_open(&r, f->dir, NULL), 0);
	assert_int_equal(read_damaged(f, r), first);
	assert_int_equal(trace_reader_nproblems(r), 1);
	p = trace_reader_problem(r, 0);
	assert_non_null(strstr(p->file, "stream_0"));
	assert_int_equal(p->offset, pkt);
	assert_non_null(strstr(p->msg, "magic"));
	trace_reader_close(r);
	unsetenv("SPOOL_TRACE_FORMAT");
}

static void test_bad_metadata(void **state)
{
	struct fixture *f = *state;
	struct trace_reader *r = (struct trace_reader *)1;
	struct trace_problem pb;
	char path[256];
	FILE *m;

	write_mixed(f);
	snprintf(path, sizeof(path), "%s/metadata", f->dir);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(trace_reader_open(&r, f->dir, &pb), -ENOENT);
	assert_null(r);
	assert_string_equal(pb.file, path);
	assert_non_null(strstr(pb.msg, "metadata"));

	/* A CTF trace that is not spool's. */
	m = fopen(path, "w");
	assert_non_null(m);
	fputs("/* CTF 1.8 */\ntrace {\n\tmajor = 1;\n\tminor = 8;\n\tbyte_order = le;\n};\n"
	      "env {\n\tdomain = \"ust\";\n};\n",
	      m);
	fclose(m);
	assert_int_equal(trace_reader_open(&r, f->dir, &pb), -EPROTO);
	assert_string_equal(pb.file, path);
	assert_non_null(strstr(pb.msg, "not a spool trace"));

	/* No directory at all. */
	snprintf(path, sizeof(path), "%s/nothing", f->root);
	assert_true(trace_reader_open(&r, path, &pb) < 0);
	assert_string_equal(pb.file, path);
}

static void test_side_files(void **state)
{
	struct fixture *f = *state;
	struct trace_writer *w;
	struct trace_reader *r;
	static const char maps[] = "00400000-00401000 r-xp 00000000 08:01 42 /usr/bin/x\n";
	static const char bin[5] = {1, 0, 2, 0, 3};
	char *data;
	size_t len;

	assert_int_equal(trace_writer_open(&w, f->dir, &test_clock), 0);
	assert_int_equal(trace_writer_add_file(w, "proc/123.maps", maps, strlen(maps)), 0);
	assert_int_equal(trace_writer_add_file(w, "proc/123.cmdline", bin, sizeof(bin)), 0);
	assert_int_equal(trace_writer_add_file(w, "summary", "first", 5), 0);
	assert_int_equal(trace_writer_add_file(w, "summary", "second", 6), 0); /* replaced */
	assert_int_equal(trace_writer_add_file(w, "empty", "", 0), 0);
	assert_int_equal(trace_writer_add_file(w, "a/b/c", "x", 1), -EINVAL);
	assert_int_equal(trace_writer_add_file(w, "../x", "x", 1), -EINVAL);
	assert_int_equal(trace_writer_add_file(w, ".x", "x", 1), -EINVAL);
	assert_int_equal(trace_writer_add_file(w, "", "x", 1), -EINVAL);
	assert_int_equal(trace_writer_close(w), 0);

	assert_int_equal(trace_reader_open(&r, f->dir, NULL), 0);
	assert_int_equal(trace_reader_nstreams(r), 0);
	assert_int_equal(trace_reader_file(r, "proc/123.maps", &data, &len), 0);
	assert_int_equal(len, strlen(maps));
	assert_string_equal(data, maps);
	free(data);
	assert_int_equal(trace_reader_file(r, "proc/123.cmdline", &data, &len), 0);
	assert_int_equal(len, sizeof(bin));
	assert_memory_equal(data, bin, sizeof(bin));
	free(data);
	assert_int_equal(trace_reader_file(r, "summary", &data, &len), 0);
	assert_string_equal(data, "second");
	free(data);
	assert_int_equal(trace_reader_file(r, "empty", &data, &len), 0);
	assert_int_equal(len, 0);
	assert_string_equal(data, "");
	free(data);
	assert_int_equal(trace_reader_file(r, "missing", &data, &len), -ENOENT);
	assert_null(data);
	assert_int_equal(trace_reader_file(r, "../metadata", &data, &len), -EINVAL);
	assert_string_equal(trace_reader_dir(r), f->dir);
	trace_reader_close(r);
}

static void test_clock_conv(void **state)
{
	struct trace_clock c = test_clock, cal;
	struct timespec ts;
	uint64_t now;

	/* 3e12 cycles after tsc0 is 1000 s: the product overflows 64 bits. */
	assert_int_equal(trace_clock_ns(&c, c.tsc0 + 3000000000000ull),
			 c.mono_ns + 1000000000000ull);
	assert_int_equal(trace_clock_ns(&c, c.tsc0 + 3), c.mono_ns + 1);
	assert_int_equal(trace_clock_ns(&c, c.tsc0 - 3000), c.mono_ns - 1000);
	c.tsc_hz = 2400000000ull;
	assert_int_equal(trace_clock_ns(&c, c.tsc0 + 24ull * 1000000000000ull),
			 c.mono_ns + 10000000000000ull);

	assert_int_equal(trace_clock_calibrate(&cal, 20000), 0);
	assert_true(cal.tsc_hz > 0);
	assert_true(cal.real_ns > cal.mono_ns);
	/* Converting a TSC value read now lands near CLOCK_MONOTONIC now. */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	{
		uint64_t ns = trace_clock_ns(&cal, __builtin_ia32_rdtsc());
		uint64_t d = ns > now ? ns - now : now - ns;

		assert_true(d < 100000000ull);
	}
}

static int have_babeltrace2(void)
{
	return system("babeltrace2 --version >/dev/null 2>&1") == 0;
}

static char *run_capture(const char *cmd, int *status)
{
	char *out = NULL;
	size_t len = 0, cap = 0;
	FILE *p = popen(cmd, "r");

	assert_non_null(p);
	for (;;) {
		if (len + 4096 > cap) {
			cap = cap ? cap * 2 : 65536;
			out = realloc(out, cap);
			assert_non_null(out);
		}
		size_t n = fread(out + len, 1, 4096, p);
		if (n == 0)
			break;
		len += n;
	}
	out[len] = 0;
	*status = pclose(p);
	return out;
}

static size_t count_lines_with(const char *text, const char *needle)
{
	size_t n = 0;

	for (const char *l = text; *l;) {
		const char *e = strchr(l, '\n');
		size_t ll = e ? (size_t)(e - l) : strlen(l);
		const char *hit = memmem(l, ll, needle, strlen(needle));

		n += hit != NULL;
		l += ll + (e != NULL);
	}
	return n;
}

static void test_babeltrace2(void **state)
{
	struct fixture *f = *state;
	struct trace_stream *ss[4] = {0};
	struct trace_writer *w;
	char cmd[512], *out;
	int status;
	uint64_t t = test_clock.tsc0 + 3000; /* 1 us after the clock sample */

	/* format 1's layout: its reader is still tested (format2 tests below) */
	setenv("SPOOL_TRACE_FORMAT", "1", 1);

	if (!have_babeltrace2())
		skip();
	mk_proc(f, 0, t, 0);
	mk_thread(f, 0, t + 3000, 1, "main");
	mk_lockdef(f, 0, t + 6000, 2, 5);
	mk_lock(f, 0, t + 9000, 3, OP_ACQUIRE, 5, 2);
	mk_thread(f, 1, t + 4500, 0, "worker");
	mk_lock(f, 1, t + 7500, 9, OP_CONTEND, 5, 0);
	for (unsigned i = 0; i < 200; i++)
		mk_lock(f, 2, t + 12000 + 30 * i, i, OP_RELEASE, 7, 0);
	assert_int_equal(trace_writer_open(&w, f->dir, &test_clock), 0);
	write_all_recs(f, w, ss, 4);
	/* A stream that never got an event, side files and a loss: CTF readers
	 * must cope with all three. */
	assert_int_equal(trace_writer_stream(w, 3, 999, 1003, &ss[3]), 0);
	assert_int_equal(trace_writer_add_file(w, "proc/999.maps", "x\n", 2), 0);
	assert_int_equal(trace_writer_add_file(w, "summary", "y\n", 2), 0);
	assert_int_equal(trace_stream_flush(ss[1]), 0);
	trace_stream_discarded(ss[1], 4);
	assert_int_equal(trace_writer_close(w), 0);

	snprintf(cmd, sizeof(cmd), "babeltrace2 --clock-gmt --clock-date '%s' 2>/dev/null", f->dir);
	out = run_capture(cmd, &status);
	assert_int_equal(status, 0);
	assert_int_equal(count_lines_with(out, "spool:"), f->nrecs);
	assert_int_equal(count_lines_with(out, "spool:lock:"), 202);
	assert_int_equal(count_lines_with(out, "op = ( \"RELEASE\" : container = 8 )"), 200);
	/* The first event: wall-clock date from the clock offset, decoded word. */
	assert_non_null(strstr(out,
			       "[2023-11-14 22:13:20.000001000] (+?.?\?\?\?\?\?\?\?\?) spool:proc: "
			       "{ pid = 999, tid = 1000 }, { word = { zero = 0, op = 0, "
			       "obj = 0, thread = 0, kind = 4 }, seq = 0, "
			       "pid = 999, ppid = 998, proc_slot = 3, flags = 2 }"));
	assert_non_null(strstr(out,
			       "[2023-11-14 22:13:20.000002500] (+0.000000500) spool:thread: "
			       "{ pid = 999, tid = 1001 }, { word = { zero = 0, op = 0, "
			       "obj = 0, thread = 1, kind = 2 }, seq = 0, "
			       "tid = 1001, pid = 999, pthread = 0x7F1234560001, "
			       "name = \"worker\" }"));
	assert_non_null(strstr(out,
			       "spool:lockdef: { pid = 999, tid = 1000 }, { word = { zero = 0, "
			       "op = 0, lock = 5, thread = 0, "
			       "kind = 3 }, seq = 2, addr = 0x555555558180, "
			       "init_ip = 0x401500, type = ( \"MUTEX\" : container = 1 ), "
			       "pid = 999 }"));
	assert_non_null(strstr(out,
			       "[2023-11-14 22:13:20.000004000] (+0.000000500) spool:lock: "
			       "{ pid = 999, tid = 1000 }, { word = { zero = 0, op = ( "
			       "\"ACQUIRE\" : container = 4 ), lock = 5, thread = 0, kind = 1 }, "
			       "seq = 3, ip = 0x401003, arg = 3735879685, nstack = 2, stack = "
			       "[ [0] = 0x7F0000001003, [1] = 0x7F0000001013 ] }"));
	free(out);

	/* spool's reader agrees, including the loss recorded in an empty packet. */
	{
		struct trace_reader *r;
		struct trace_event ev;
		size_t n = 0;

		assert_int_equal(trace_reader_open(&r, f->dir, NULL), 0);
		while (trace_reader_next(r, &ev) == 1)
			n++;
		assert_int_equal(n, f->nrecs);
		assert_int_equal(trace_reader_nstreams(r), 4);
		assert_int_equal(trace_reader_stream(r, 1)->discarded, 4);
		assert_int_equal(trace_reader_stream(r, 1)->events, 2);
		assert_int_equal(trace_reader_stream(r, 3)->events, 0);
		assert_int_equal(trace_reader_nproblems(r), 0);
		trace_reader_close(r);
	}

	/* The loss is reported too (on stderr). */
	snprintf(cmd, sizeof(cmd), "babeltrace2 '%s' 2>&1 >/dev/null", f->dir);
	out = run_capture(cmd, &status);
	assert_int_equal(status, 0);
	assert_non_null(strstr(out, "discarded 4 events"));
	free(out);
	unsetenv("SPOOL_TRACE_FORMAT");
}

/*
 * Table kinds (src/trace/kinds.c) are copied as they are: a fixed one
 * (KIND_FUNC) and one with a counted tail (KIND_INPUT) come back byte for
 * byte, a tail whose count disagrees with the record size is refused, and
 * babeltrace2 reads them by the TSDL of their rows.
 */
static void test_table_kinds(void **state)
{
	struct fixture *f = *state;
	struct trace_stream *ss[1] = {0};
	struct trace_writer *w;
	struct trace_reader *r;
	struct trace_problem pb;
	struct trace_event ev;
	uint64_t t = test_clock.tsc0 + 3000, n = 0;
	struct rec_func *fn;
	struct rec_input *in;

	fn = (struct rec_func *)add_rec(f, 0);
	fn->h.word = ev_word(KIND_FUNC, 0, 0, FUNC_OP_ENTER);
	fn->h.tsc = t;
	fn->h.seq = 1;
	fn->h.size = sizeof(*fn);
	fn->fn = 0x401136;
	fn->site = 0x4011a0;
	fn->depth = 3;
	in = (struct rec_input *)add_rec(f, 0);
	in->h.word = ev_word(KIND_INPUT, 0, 0, 0);
	in->h.tsc = t + 100;
	in->h.seq = 2;
	in->thread = 1;
	in->tseq = 7;
	in->fd = 5;
	in->result = 13;
	in->len = 13;
	in->nwords = 2;
	memcpy(in->data, "hello, world\n", 13);
	in->h.size = (uint32_t)(sizeof(*in) + 8 * in->nwords);
	assert_true(in->h.size <= MAX_REC);

	assert_int_equal(trace_writer_open(&w, f->dir, &test_clock), 0);
	write_all_recs(f, w, ss, 1);
	{
		/* A tail count that does not match the size: refused. */
		uint64_t buf[MAX_REC / 8];
		struct rec_input *bad = (struct rec_input *)buf;

		memcpy(buf, in, in->h.size);
		bad->nwords = 3;
		assert_int_equal(trace_stream_write(ss[0], &bad->h), -EINVAL);
	}
	assert_int_equal(trace_writer_close(w), 0);

	assert_int_equal(trace_reader_open(&r, f->dir, &pb), 0);
	while (trace_reader_next(r, &ev) == 1) {
		assert_true(n < 2);
		assert_same_rec(nth_of_stream(f, 0, n), ev.rec);
		n++;
	}
	assert_int_equal(n, 2);
	assert_int_equal(trace_reader_nproblems(r), 0);
	trace_reader_close(r);

	if (have_babeltrace2()) {
		char cmd[512], *out;
		int status;

		snprintf(cmd, sizeof(cmd), "babeltrace2 '%s' 2>&1", f->dir);
		out = run_capture(cmd, &status);
		assert_int_equal(status, 0);
		assert_non_null(strstr(out, "spool:func"));
		assert_non_null(strstr(out, "depth = 3"));
		assert_non_null(strstr(out, "spool:input"));
		assert_non_null(strstr(out, "nwords = 2"));
		free(out);
	}
}

/* trace_replay_dir: TRACE/replays/N, N one more than the largest number
 * there (other names ignored), TRACE/ as TRACE; a replays that is not a
 * directory (a file, a link) is refused; trace_replay_count counts. */
static void test_replay_dir(void **state)
{
	struct fixture *f = *state;
	char out[PATH_MAX], path[PATH_MAX + 64], want[PATH_MAX + 64];
	unsigned long last;

	assert_int_equal(mkdir(f->dir, 0700), 0);
	assert_int_equal(trace_replay_count(f->dir, &last), 0);
	assert_int_equal(trace_replay_dir(f->dir, out, sizeof(out)), 0);
	snprintf(want, sizeof(want), "%s/replays/1", f->dir);
	assert_string_equal(out, want);
	for (const char *n = "1\0003\0notes\0009999999999\0"; *n; n += strlen(n) + 1) {
		snprintf(path, sizeof(path), "%s/replays/%s", f->dir, n);
		assert_int_equal(mkdir(path, 0700), 0);
	}
	snprintf(path, sizeof(path), "%s/", f->dir);
	assert_int_equal(trace_replay_dir(path, out, sizeof(out)), 0);
	snprintf(want, sizeof(want), "%s/replays/4", f->dir);
	assert_string_equal(out, want);
	assert_int_equal(trace_replay_count(f->dir, &last), 2);
	assert_int_equal(last, 3);

	snprintf(path, sizeof(path), "%s/replays", f->dir);
	snprintf(want, sizeof(want), "%s/old-replays", f->root);
	assert_int_equal(rename(path, want), 0); /* out of the way */
	assert_int_equal(symlink(f->root, path), 0);
	assert_int_equal(trace_replay_dir(f->dir, out, sizeof(out)), -ENOTDIR);
	assert_int_equal(trace_replay_count(f->dir, &last), 0);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(close(open(path, O_CREAT | O_WRONLY, 0600)), 0);
	assert_int_equal(trace_replay_dir(f->dir, out, sizeof(out)), -ENOTDIR);
	assert_int_equal(unlink(path), 0);
}

/* Format 2 (doc/trace-format.md, "Version 2: compact events"). */

static void mk_func(struct fixture *f, uint32_t stream, uint64_t tsc, uint32_t seq, unsigned op,
		    uint64_t fn, uint32_t depth)
{
	struct rec_func *r = (struct rec_func *)add_rec(f, stream);

	r->h.word = ev_word(KIND_FUNC, stream, 0, op);
	r->h.tsc = tsc;
	r->h.seq = seq;
	r->h.size = sizeof(*r);
	r->fn = fn;
	r->site = fn + 0x55;
	r->depth = depth;
}

static void mk_probe(struct fixture *f, uint32_t stream, uint64_t tsc, uint32_t seq, unsigned op,
		     uint32_t id, uint64_t sp)
{
	struct rec_probe *r = (struct rec_probe *)add_rec(f, stream);

	r->h.word = ev_word(KIND_PROBE, stream, id, op);
	r->h.tsc = tsc;
	r->h.seq = seq;
	r->h.size = sizeof(*r);
	r->addr = 0x401200 + 16 * id;
	r->sp = sp;
	r->ret_ip = 0x401800 + (sp & 0xff);
	if (op == PROBE_OP_VAR) /* a value: kept, in the full form */
		r->args[0] = 0x1234;
}

/* Every record comes back as written (sequence numbers reconstructed, a
 * gap kept and counted, times past the 27-bit window and going back), and
 * the hot events take the sizes the format promises. */
static void test_format2_roundtrip(void **state)
{
	struct fixture *f = *state;
	struct trace_stream *ss[2] = {0};
	struct trace_writer *w;
	struct trace_reader *r;
	struct trace_problem pb;
	struct trace_event ev;
	uint64_t t = test_clock.tsc0 + 3000, per[2] = {0};
	uint32_t seq = 1;
	struct stat st;
	char path[300];

	mk_thread(f, 0, t, seq++, "main");
	for (unsigned i = 0; i < 1000; i++) {
		struct rec_lock *l;

		/* pairs: each release is spool:release, which names its lock */
		mk_lock(f, 0, t + 10 + 20 * i, seq++, i & 1 ? OP_RELEASE : OP_ACQUIRE,
			1 + (i / 2) % 3, 0);
		l = (struct rec_lock *)f->recs[f->nrecs - 1].buf;
		l->arg = 0;
		l->ip = 0x401000 + (i & 1) * 0x20; /* two call sites */
	}
	seq += 5;					   /* the producer dropped 5 */
	mk_lock(f, 0, t + 30000, seq++, OP_TIMEOUT, 1, 2); /* full: arg and stack */
	mk_lock(f, 0, t + 30000 + (1ull << 28), seq++, OP_ACQUIRE, 1, 0); /* extended header */
	mk_lock(f, 0, t + 30000, seq++, OP_RELEASE, 1, 0);		  /* time goes back */
	/* functions: predicted depths, then one that is not */
	mk_thread(f, 1, t, 1, "worker");
	mk_func(f, 1, t + 1, 2, FUNC_OP_ENTER, 0x401100, 0);
	mk_func(f, 1, t + 2, 3, FUNC_OP_ENTER, 0x401200, 1);
	mk_func(f, 1, t + 3, 4, FUNC_OP_EXIT, 0x401200, 1);
	mk_func(f, 1, t + 4, 5, FUNC_OP_EXIT, 0x401100, 0);
	mk_func(f, 1, t + 5, 6, FUNC_OP_ENTER, 0x401100, 7);
	mk_func(f, 1, t + 6, 7, FUNC_OP_MSG_SEND, 3, 8);
	mk_func(f, 1, t + 7, 8, FUNC_OP_EXIT, 0x401100, 7);
	/* probes: deltas that fit, one that does not, a variable */
	mk_probe(f, 1, t + 8, 9, PROBE_OP_ENTRY, 4, 0x7ffc0000f008);
	mk_probe(f, 1, t + 9, 10, PROBE_OP_ENTRY, 5, 0x7ffc0000efc8);
	mk_probe(f, 1, t + 10, 11, PROBE_OP_VAR, 5, 0x7ffc0000efc8);
	mk_probe(f, 1, t + 11, 12, PROBE_OP_EXIT, 5, 0x7ffc0000efc8);
	mk_probe(f, 1, t + 12, 13, PROBE_OP_HIT, 6, 0x7ffc0010efc8);
	mk_probe(f, 1, t + 13, 14, PROBE_OP_EXIT, 4, 0x7ffc0000f008);

	assert_int_equal(trace_writer_open(&w, f->dir, &test_clock), 0);
	write_all_recs(f, w, ss, 2);
	assert_int_equal(trace_writer_close(w), 0);

	assert_int_equal(trace_reader_open(&r, f->dir, &pb), 0);
	while (trace_reader_next(r, &ev) == 1) {
		const struct rec_hdr *want = nth_of_stream(f, ev.stream_id, per[ev.stream_id]++);

		assert_non_null(want);
		assert_same_rec(want, ev.rec);
	}
	assert_int_equal(per[0], 1004);
	assert_int_equal(per[1], 14);
	assert_int_equal(trace_reader_nproblems(r), 0);
	assert_int_equal(trace_reader_stream(r, 0)->seq_gaps, 5);
	assert_int_equal(trace_reader_stream(r, 1)->seq_gaps, 0);
	trace_reader_close(r);

	/* 500 short lock events of 11 bytes and 500 releases of 8 (format
	 * 2.3's spool:release: 6 would be format 2.2's), two
	 * sites, the thread, three full ones, two packets' headers (the gap
	 * starts one) */
	snprintf(path, sizeof(path), "%s/stream_0", f->dir);
	assert_int_equal(stat(path, &st), 0);
	assert_true(st.st_size <= 500 * 11 + 500 * 8 + 2 * 96 + 400);
}

/* A format 2 trace cut short, or with a site or an event count it does not
 * keep: a problem at the right place, the events before it read. */
static void test_format2_damage(void **state)
{
	struct fixture *f = *state;
	struct trace_reader *r;
	const struct trace_problem *p;
	uint64_t pkt = write_mixed_fmt(f, 2), n;
	char path[256];
	uint8_t b[4];
	int fd;

	snprintf(path, sizeof(path), "%s/stream_0", f->dir);
	assert_int_equal(truncate(path, (off_t)(pkt + 1000)), 0);
	assert_int_equal(trace_reader_open(&r, f->dir, NULL), 0);
	n = read_damaged(f, r);
	assert_true(n > 0);
	assert_int_equal(trace_reader_nproblems(r), 1);
	p = trace_reader_problem(r, 0);
	assert_int_equal(p->offset, pkt);
	assert_non_null(strstr(p->msg, "truncated"));
	trace_reader_close(r);

	/* the first packet's event count: one too many */
	fd = open(path, O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, b, 4, 92), 4);
	b[0]++;
	assert_int_equal(pwrite(fd, b, 4, 92), 4);
	close(fd);
	assert_int_equal(trace_reader_open(&r, f->dir, NULL), 0);
	read_damaged(f, r);
	assert_true(trace_reader_nproblems(r) >= 1);
	assert_non_null(strstr(trace_reader_problem(r, 0)->msg, "events"));
	trace_reader_close(r);
}

/* A short event naming a site its packet never defined. */
static void test_format2_bad_site(void **state)
{
	struct fixture *f = *state;
	struct trace_stream *ss[1] = {0};
	struct trace_writer *w;
	struct trace_reader *r;
	struct trace_event ev;
	uint64_t t = test_clock.tsc0 + 3000, n = 0;
	char path[256];
	uint8_t id;
	int fd;

	mk_thread(f, 0, t, 1, "main");
	for (unsigned i = 0; i < 4; i++) {
		mk_lock(f, 0, t + 10 * i + 10, 2 + i, OP_ACQUIRE, 1, 0);
		((struct rec_lock *)f->recs[f->nrecs - 1].buf)->arg = 0;
	}
	assert_int_equal(trace_writer_open(&w, f->dir, &test_clock), 0);
	write_all_recs(f, w, ss, 1);
	assert_int_equal(trace_writer_close(w), 0);

	/* 96 bytes of headers, the thread (4 + 5 + 4 + 32), a site (4 + 24),
	 * then spool:lock_op: header, op, lock, site (2 bytes) */
	snprintf(path, sizeof(path), "%s/stream_0", f->dir);
	fd = open(path, O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, &id, 1, 96 + 45 + 28), 1);
	assert_int_equal(id & 31, 11);
	assert_int_equal(pwrite(fd, "\x07", 1, 96 + 45 + 28 + 9), 1);
	close(fd);
	assert_int_equal(trace_reader_open(&r, f->dir, NULL), 0);
	while (trace_reader_next(r, &ev) == 1)
		n++;
	assert_int_equal(n, 1); /* the thread */
	assert_int_equal(trace_reader_nproblems(r), 1);
	assert_non_null(strstr(trace_reader_problem(r, 0)->msg, "site"));
	assert_int_equal(trace_reader_problem(r, 0)->offset, 96 + 45 + 28);
	trace_reader_close(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_roundtrip, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_losses, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_reused_ring, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_state, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_truncated, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_bad_magic, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_bad_metadata, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_side_files, setup, teardown),
	    cmocka_unit_test(test_clock_conv),
	    cmocka_unit_test_setup_teardown(test_babeltrace2, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_table_kinds, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_replay_dir, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_format2_roundtrip, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_format2_damage, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_format2_bad_site, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
