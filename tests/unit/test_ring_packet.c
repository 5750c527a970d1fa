// SPDX-License-Identifier: MIT
/*
 * test_ring_packet.c - packets in the ring (SHM_F_PACKETS,
 * src/common/ring_packet.h): records written the way the agent writes them
 * (ring_prod_reserve/commit in packet mode, the lock fast path, and the
 * probe fast path with its in-place site definitions), the
 * collector's shm_host_drain_packets, the writer's trace_stream_put_packet,
 * then spool's reader: every record comes back as it was written, seq, time
 * and fields; a gap in seq starts a packet. And the collector's checks of a
 * hostile packet header: bad magic or sizes damage the ring; an open packet
 * is taken only once its writer is gone.
 */
#include <errno.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "collect/shm_host.h"
#include "common/ring_produce.h"
#include "trace/trace.h"
#include "trace/trace_int.h"

static const struct trace_clock test_clock = {
    .tsc_hz = 3000000000ull,
    .tsc0 = 1000ull,
    .mono_ns = 1000000000000ull,
    .real_ns = 1700000000000000000ull,
};

static struct ring_sites sites;

struct prod {
	struct ring_prod p;
	uint32_t seq;
};

static void prod_open(struct shm_host *h, struct prod *pr)
{
	struct shm_ring *r = shm_host_ring(h, 0);

	h->ctl->nrings = 1;
	r->state = RING_ACTIVE;
	ring_prod_init(&pr->p, r, h->ring_bytes, 0);
	ring_prod_packets(&pr->p, shm_pkt_slot(h->ring_bytes), &sites, 11, 12);
	pr->seq = 0;
}

/* Record i of the test: a lock event, every field derived from i; some
 * with an arg, a stack, a far jump in time, or a seq skipped before it. */
static uint64_t rec_tsc(uint32_t i)
{
	return 5000 + (uint64_t)i * 100 + (i % 97 == 0 ? (1ull << 30) * (i / 97) : 0) +
	       (i >= 97 ? (1ull << 30) * ((i - 1) / 97) : 0);
}
static uint32_t rec_nstack(uint32_t i) { return i % 13 == 0 ? i % 5 : 0; }
static uint64_t rec_arg(uint32_t i) { return i % 7 == 0 ? i : 0; }
static uint64_t rec_ip(uint32_t i) { return 0x400000 + i % 9; }
/* a lock index with all four bytes in use: ring_pkt_lock writes it across
 * its two stores (bytes 5-7 and 8 of the event); records go in pairs, an
 * acquisition and the release of the same lock. One pair in three has an
 * index below 65536: its release is spool:release (format 2.3, the lock
 * in its last two bytes); a larger one's is spool:lock_op. */
static uint32_t rec_obj(uint32_t i)
{
	return (i / 2) % 3 == 0 ? 1 + (i / 2) % 65535 : (i / 2) * 0x9e3779b9u | 1;
}
static unsigned rec_op(uint32_t i) { return i & 1 ? OP_RELEASE : OP_ACQUIRE; }

static void produce(struct prod *pr, uint32_t i)
{
	uint32_t n = rec_nstack(i), len = (uint32_t)sizeof(struct rec_lock) + 8 * n;
	struct rec_lock *r;
	int wake;

	/* untimed: the open packet's time, as agent_now passes it */
	uint64_t now = pr->p.pkt.untimed ? pr->p.pkt.prev_tsc : rec_tsc(i);

	pr->seq += i % 31 == 30 ? 2 : 1; /* a gap now and then (a drop) */
	pr->p.ring->last_seq = pr->seq;
	if (!n && !rec_arg(i) &&
	    ring_pkt_lock(&pr->p, rec_op(i), rec_obj(i), pr->seq, rec_ip(i), now, &wake))
		return;
	r = ring_prod_reserve(&pr->p, len);
	assert_non_null(r);
	r->h.word = ev_word(KIND_LOCK, 0, rec_obj(i), rec_op(i));
	r->h.tsc = rec_tsc(i);
	r->h.seq = pr->seq;
	r->h.size = len;
	r->ip = rec_ip(i);
	r->arg = rec_arg(i);
	for (uint32_t k = 0; k < n; k++)
		r->stack[k] = (uint64_t)i << 8 | k;
	ring_prod_commit(&pr->p, len);
}

static int put_cb(void *arg, uint8_t *pkt, size_t len, int open)
{
	struct trace_pkt2_counts c;
	const char *why;

	/* what the agent writes passes the collector's check */
	if (trace_pkt2_check(pkt, len, open, &c, &why))
		return -EPROTO;
	return trace_stream_put_packet(arg, pkt, len) ? -EIO : 0;
}

static int rm_cb(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

/* The writing both round trips share: records 0 to n - 1 (produce) into a
 * one-ring shared memory with packets, drained as the collector does, into
 * a trace with one stream in dir (root: the new directory above it, made
 * here; the test removes it). untimed: --clock=none, the writer told and
 * the producer's packets stamped with their opening time. */
static void rpkt_write(char *root, char *dir, size_t dlen, uint32_t n, int untimed)
{
	struct trace_writer *w;
	struct trace_stream *s;
	struct shm_host h;
	struct prod pr;

	assert_non_null(mkdtemp(root));
	snprintf(dir, dlen, "%s/t", root);
	unsetenv("SPOOL_TRACE_FORMAT");
	assert_int_equal(trace_writer_open(&w, dir, &test_clock), 0);
	if (untimed)
		assert_int_equal(trace_writer_set_untimed(w), 0);
	assert_int_equal(trace_writer_stream(w, 0, 11, 12, &s), 0);
	assert_int_equal(shm_host_create(&h, 16384, 1, 0), 0);
	h.packets = 1;
	prod_open(&h, &pr);
	pr.p.pkt.untimed = untimed;
	for (uint32_t i = 0; i < n; i++) {
		produce(&pr, i);
		if (i % 50 == 49) /* the collector drains now and then */
			assert_true(shm_host_drain_packets(&h, 0, 0, put_cb, s) >= 0);
	}
	/* the last packet is open: taken once the writer is gone */
	assert_true(shm_host_drain_packets(&h, 0, 1, put_cb, s) >= 1);
	assert_int_equal(h.tail[0] % shm_pkt_slot(h.ring_bytes), 0);
	shm_host_destroy(&h);
	assert_int_equal(trace_writer_close(w), 0);
}

static void test_round_trip(void **state)
{
	char root[] = "/tmp/spool-test-rpkt-XXXXXX", dir[64];
	const uint32_t N = 3000;
	struct trace_reader *rd;
	struct trace_event ev;
	uint32_t i = 0, seq = 0, got = 0, bad = 0;
	int rc;

	rpkt_write(root, dir, sizeof(dir), N, 0);
	assert_int_equal(trace_reader_open(&rd, dir, NULL), 0);
	i = 0;
	while ((rc = trace_reader_next(rd, &ev)) > 0) {
		const struct rec_lock *l = (const struct rec_lock *)ev.rec;
		uint32_t n = rec_nstack(i);

		seq += i % 31 == 30 ? 2 : 1;
		if (ev_kind(ev.rec->word) != KIND_LOCK || ev_obj(ev.rec->word) != rec_obj(i) ||
		    ev_op(ev.rec->word) != rec_op(i) || ev.rec->seq != seq ||
		    ev.rec->tsc != rec_tsc(i) || l->ip != rec_ip(i) || l->arg != rec_arg(i) ||
		    ev.rec->size != sizeof(*l) + 8 * n)
			bad++;
		for (uint32_t k = 0; k < n && ev.rec->size == sizeof(*l) + 8 * n; k++)
			bad += l->stack[k] != ((uint64_t)i << 8 | k);
		got++;
		i++;
	}
	assert_int_equal(rc, 0);
	assert_int_equal(trace_reader_nproblems(rd), 0);
	assert_int_equal(got, N);
	assert_int_equal(bad, 0);
	trace_reader_close(rd);
	nftw(root, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

/*
 * --clock=none (struct ring_pkt's untimed): the producer passes the open
 * packet's time to the fast path, as agent_now does, and a staged record's
 * own time (rec_tsc, which the agent would not have read) is replaced by
 * the packet's in ring_pkt_commit. Read back: every event exact but its
 * time, which is its packet's opening time (a clock read, never a
 * record's), the same for a packet's events, never going back; the
 * packets pass the collector's check (put_cb).
 */
static void test_untimed_round_trip(void **state)
{
	char root[] = "/tmp/spool-test-rpkt-XXXXXX", dir[64];
	const uint32_t N = 3000;
	struct trace_reader *rd;
	struct trace_event ev;
	uint32_t i = 0, seq = 0, got = 0, bad = 0, stamped = 0, changes = 0;
	uint64_t prev = 0;
	int rc;

	rpkt_write(root, dir, sizeof(dir), N, 1);
	assert_int_equal(trace_reader_open(&rd, dir, NULL), 0);
	assert_int_equal(trace_reader_untimed(rd), 1);
	i = 0;
	while ((rc = trace_reader_next(rd, &ev)) > 0) {
		const struct rec_lock *l = (const struct rec_lock *)ev.rec;

		seq += i % 31 == 30 ? 2 : 1;
		if (ev_obj(ev.rec->word) != rec_obj(i) || ev.rec->seq != seq || l->ip != rec_ip(i) ||
		    l->arg != rec_arg(i) || ev.rec->size != sizeof(*l) + 8 * rec_nstack(i))
			bad++;
		stamped += ev.rec->tsc == rec_tsc(i);
		if (ev.rec->tsc < prev)
			bad++;
		changes += ev.rec->tsc != prev;
		prev = ev.rec->tsc;
		got++;
		i++;
	}
	assert_int_equal(rc, 0);
	assert_int_equal(trace_reader_nproblems(rd), 0);
	assert_int_equal(got, N);
	assert_int_equal(bad, 0);
	assert_int_equal(stamped, 0);
	/* a time per packet: a packet ends at each seq gap (every 31st
	 * event) or when its 4 KiB slot is full, so about 100 times, not 3000 */
	assert_true(changes > 1 && changes * 10 < N);
	trace_reader_close(rd);
	nftw(root, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

/* Probe hit i: probe id, op, address, caller and stack pointer derived
 * from i; 185 x 11 sites, so that packets define many of them. A probe id
 * names one address, as in the agent (struct ring_psite). */
static uint32_t pr_id(uint32_t i) { return 1 + i % 185; }
static unsigned pr_op(uint32_t i) { return PROBE_OP_ENTRY + i % 3; }
static uint64_t pr_addr(uint32_t i) { return 0x500000 + (uint64_t)pr_id(i) * 16; }
static uint64_t pr_ret(uint32_t i) { return 0x600000 + (i % 11) * 8; }
static uint64_t pr_sp(uint32_t i) { return 0x7ffe0000 + (i % 50) * 16; }

/*
 * Probe events the way agent_probe_emit writes them: ring_pkt_probe in
 * place (a site its packet has not defined is defined there first), the
 * general path (a staged rec_probe) when it says no. Read back: every
 * hit's probe, op, seq, time, address, caller and stack pointer.
 */
static void test_probe_round_trip(void **state)
{
	char root[] = "/tmp/spool-test-rpkt-XXXXXX", dir[64];
	const uint32_t N = 6000;
	struct trace_writer *w;
	struct trace_stream *s;
	struct trace_reader *rd;
	struct trace_event ev;
	struct shm_host h;
	struct prod pr;
	uint32_t i, got = 0, bad = 0, fast = 0;
	int rc, wake;

	assert_non_null(mkdtemp(root));
	snprintf(dir, sizeof(dir), "%s/t", root);
	unsetenv("SPOOL_TRACE_FORMAT");
	assert_int_equal(trace_writer_open(&w, dir, &test_clock), 0);
	assert_int_equal(trace_writer_stream(w, 0, 11, 12, &s), 0);
	assert_int_equal(shm_host_create(&h, 65536, 1, 0), 0);
	h.packets = 1;
	prod_open(&h, &pr);
	for (i = 0; i < N; i++) {
		struct rec_probe *r;
		uint64_t a = pr_addr(i);

		pr.seq++;
		pr.p.ring->last_seq = pr.seq;
		if (ring_pkt_probe(&pr.p, pr_op(i), pr_id(i), &a, pr_sp(i), pr_ret(i),
				   pr.seq, 5000 + (uint64_t)i * 40, &wake)) {
			fast++;
		} else {
			r = ring_prod_reserve(&pr.p, sizeof(*r));
			assert_non_null(r);
			memset(r, 0, sizeof(*r));
			r->h.word = ev_word(KIND_PROBE, 0, pr_id(i), pr_op(i));
			r->h.tsc = 5000 + (uint64_t)i * 40;
			r->h.seq = pr.seq;
			r->h.size = sizeof(*r);
			r->addr = pr_addr(i);
			r->sp = pr_sp(i);
			r->ret_ip = pr_ret(i);
			ring_prod_commit(&pr.p, sizeof(*r));
		}
		if (i % 50 == 49)
			assert_true(shm_host_drain_packets(&h, 0, 0, put_cb, s) >= 0);
	}
	assert_true(shm_host_drain_packets(&h, 0, 1, put_cb, s) >= 1);
	shm_host_destroy(&h);
	assert_int_equal(trace_writer_close(w), 0);
	/* nearly all in place, new sites included: the general path only
	 * opens a packet (its first event) */
	assert_true(fast > N * 9 / 10);

	assert_int_equal(trace_reader_open(&rd, dir, NULL), 0);
	i = 0;
	while ((rc = trace_reader_next(rd, &ev)) > 0) {
		const struct rec_probe *p = (const struct rec_probe *)ev.rec;

		if (ev_kind(ev.rec->word) != KIND_PROBE)
			continue;
		if (ev_obj(ev.rec->word) != pr_id(i) || ev_op(ev.rec->word) != pr_op(i) ||
		    ev.rec->seq != i + 1 || ev.rec->tsc != 5000 + (uint64_t)i * 40 ||
		    p->addr != pr_addr(i) || p->sp != pr_sp(i) || p->ret_ip != pr_ret(i))
			bad++;
		got++;
		i++;
	}
	assert_int_equal(rc, 0);
	assert_int_equal(trace_reader_nproblems(rd), 0);
	assert_int_equal(got, N);
	assert_int_equal(bad, 0);
	trace_reader_close(rd);
	nftw(root, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

static int count_cb(void *arg, uint8_t *pkt, size_t len, int open)
{
	struct trace_pkt2_counts c;
	const char *why;

	if (trace_pkt2_check(pkt, len, open, &c, &why))
		return -EPROTO;
	(*(int *)arg)++;
	return 0;
}

/* One finished packet, then its bytes changed at off to val (nb bytes). */
static int drain_poked_n(size_t off, uint64_t val, size_t nb)
{
	struct shm_host h;
	struct prod pr;
	int n = 0, rc;

	assert_int_equal(shm_host_create(&h, 16384, 1, 0), 0);
	h.packets = 1;
	prod_open(&h, &pr);
	produce(&pr, 1);
	ring_prod_flush(&pr.p);
	if (off != SIZE_MAX)
		memcpy(shm_ring_data(pr.p.ring) + off, &val, nb);
	rc = shm_host_drain_packets(&h, 0, 0, count_cb, &n);
	shm_host_destroy(&h);
	return rc;
}

static int drain_poked(size_t off, uint64_t val)
{
	return drain_poked_n(off, val, 8);
}

/* Bytes a program scribbled inside a packet's events: the collector's
 * check (trace_pkt2_check) refuses the packet, the ring is damaged. */
static void test_hostile_events(void **state)
{
	assert_int_equal(drain_poked_n(RING_PKT_EVENTS, 99, 4), -EPROTO);   /* event count */
	assert_int_equal(drain_poked(RING_PKT_TS_END, UINT64_MAX), -EPROTO); /* last time */
	assert_int_equal(drain_poked(RING_PKT_TS_BEGIN, UINT64_MAX), -EPROTO);
	assert_int_equal(drain_poked_n(RING_PKT_HDR, 0, 1), -EPROTO); /* the first event's id */
	assert_int_equal(drain_poked_n(RING_PKT_HDR + 1, 0xff, 1), -EPROTO);
}

/* A compact event header of class id at tsc, at p: its length. */
static size_t lr_hdr(uint8_t *p, unsigned id, uint64_t tsc)
{
	uint32_t v = (uint32_t)((tsc & TRACE2_TS_MASK) << 5) | id;

	memcpy(p, &v, 4);
	return 4;
}

/* The packet of test_lock_release_check: a site, then the events of kinds
 * (L: a lock_op ACQUIRE of lock 7, R: a lock_release, F: a func_entry, S:
 * another site) naming site 'site' (the releases too); its length. */
static size_t lr_packet(uint8_t *pkt, const char *kinds, uint16_t site)
{
	size_t n = RING_PKT_HDR;
	uint64_t t = 1000;
	uint32_t nsites = 1, seven = 7;

	memset(pkt, 0, RING_PKT_HDR);
	memcpy(pkt + RING_PKT_TS_BEGIN, &t, 8);
	n += lr_hdr(pkt + n, RING_PKT_SITE, t);
	memset(pkt + n, 0, 24);
	pkt[n + 8] = 0x40; /* addr */
	n += 24;
	for (const char *k = kinds; *k; k++) {
		t += 10;
		switch (*k) {
		case 'L':
			n += lr_hdr(pkt + n, RING_PKT_LOCK_OP, t);
			pkt[n] = OP_ACQUIRE;
			memcpy(pkt + n + 1, &seven, 4);
			memcpy(pkt + n + 5, &site, 2);
			n += 7;
			break;
		case 'R':
			n += lr_hdr(pkt + n, RING_PKT_LOCK_RELEASE, t);
			memcpy(pkt + n, &site, 2);
			n += 2;
			break;
		case 'F':
			n += lr_hdr(pkt + n, RING_PKT_FUNC_ENTRY, t);
			memcpy(pkt + n, &site, 2);
			n += 2;
			break;
		case 'S':
			n += lr_hdr(pkt + n, RING_PKT_SITE, t);
			memset(pkt + n, 0, 24);
			memcpy(pkt + n, &nsites, 4);
			nsites++;
			n += 24;
			break;
		}
	}
	return n;
}

/* The collector's check of spool:lock_release (format 2.2), in its lock
 * run and in its general path: a release needs a lock event before it in
 * the packet (a site definition between does not count), a defined site,
 * and counts as a lock event. */
static void test_lock_release_check(void **state)
{
	static const struct {
		const char *kinds;
		uint16_t site;
		int ok;
		uint32_t lock;
	} cases[] = {
	    {"LRLRLRRL", 0, 1, 8}, {"LSRLR", 0, 1, 4}, {"R", 0, 0, 0},	  {"LRFR", 0, 0, 0},
	    {"LRLR", 1, 0, 0},	   {"FLR", 0, 1, 2},   {"LLRRFLR", 0, 1, 6}, {"SLR", 1, 1, 2},
	};
	uint8_t pkt[1024];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t len = lr_packet(pkt, cases[i].kinds, cases[i].site);
		struct trace_pkt2_counts c;
		const char *why = NULL;
		int rc = trace_pkt2_check(pkt, len, 1, &c, &why);

		if (cases[i].ok) {
			if (rc)
				print_error("case %zu: %s\n", i, why);
			assert_int_equal(rc, 0);
			assert_int_equal(c.lock, cases[i].lock);
		} else {
			assert_int_equal(rc, -EPROTO);
			assert_non_null(why);
		}
	}
}

static void test_hostile_header(void **state)
{
	uint64_t slot_bits = (uint64_t)shm_pkt_slot(16384) * 8;

	assert_int_equal(drain_poked(SIZE_MAX, 0), 1);
	assert_int_equal(drain_poked(0, 0x1234), -EPROTO);		 /* magic */
	assert_int_equal(drain_poked(RING_PKT_CONTENT, slot_bits + 8), -EPROTO); /* past the slot */
	assert_int_equal(drain_poked(RING_PKT_CONTENT, 8 * 40), -EPROTO); /* inside the headers */
	assert_int_equal(drain_poked(RING_PKT_CONTENT, 8 * 200 + 3), -EPROTO); /* not whole bytes */
	assert_int_equal(drain_poked(RING_PKT_PACKET, 8 * 200), -EPROTO); /* packet != content */
}

/* A forged but well-formed packet: the collector's owner check
 * (trace_pkt2_owner_check) against the ring's pid 11, tid 12, process
 * slot 3. */
struct owner_arg {
	struct trace_pkt2_owner o;
	uint32_t gap;
	int n;
};

static int owner_cb(void *arg, uint8_t *pkt, size_t len, int open)
{
	struct owner_arg *a = arg;
	struct trace_pkt2_counts c;
	const char *why;

	if (trace_pkt2_check(pkt, len, open, &c, &why) ||
	    trace_pkt2_owner_check(pkt, len, &c, &a->o, &a->gap, &why))
		return -EPROTO;
	a->n++;
	return 0;
}

/* Metadata records as the agent writes them (agent_thread.c). */
static void produce_thread(struct prod *pr, uint32_t tid, uint32_t pid, uint32_t seq)
{
	struct rec_thread *t = ring_prod_reserve(&pr->p, sizeof(*t));

	pr->seq++;
	pr->p.ring->last_seq = pr->seq;
	assert_non_null(t);
	memset(t, 0, sizeof(*t));
	t->h.word = ev_word(KIND_THREAD, 0, 0, 0);
	t->h.tsc = 4000 + pr->seq;
	t->h.seq = seq ? seq : pr->seq;
	t->h.size = sizeof(*t);
	t->tid = tid;
	t->pid = pid;
	ring_prod_commit(&pr->p, sizeof(*t));
}

static void produce_proc(struct prod *pr, uint32_t pid, uint32_t slot)
{
	struct rec_proc *r;

	pr->seq++;
	pr->p.ring->last_seq = pr->seq;
	r = ring_prod_reserve(&pr->p, sizeof(*r));
	assert_non_null(r);
	memset(r, 0, sizeof(*r));
	r->h.word = ev_word(KIND_PROC, 0, 0, 0);
	r->h.tsc = 4000 + pr->seq;
	r->h.seq = pr->seq;
	r->h.size = sizeof(*r);
	r->pid = pid;
	r->ppid = 1;
	r->proc_slot = slot;
	ring_prod_commit(&pr->p, sizeof(*r));
}

/*
 * One packet: "T" a thread start (tid 12, pid 11), "t" one naming tid 13,
 * "s" one whose seq is then changed to 7 (not its place's: the agent's
 * encoder starts a packet at a thread whose seq does not follow), "P" a process record (pid 11,
 * slot 3), "p" one naming pid 99, "q" one naming slot 4, "L" a lock event;
 * its first_seq then set to first (0: as written). Checked against o.
 */
static int drain_owner(const char *recs, uint32_t first, struct trace_pkt2_owner o, uint32_t *gap)
{
	struct owner_arg a = {o, 0, 0};
	struct shm_host h;
	struct prod pr;
	uint32_t lockno = 1;
	int rc;

	assert_int_equal(shm_host_create(&h, 16384, 1, 0), 0);
	h.packets = 1;
	prod_open(&h, &pr);
	for (const char *k = recs; *k; k++) {
		switch (*k) {
		case 'T': produce_thread(&pr, 12, 11, 0); break;
		case 't': produce_thread(&pr, 13, 11, 0); break;
		case 's': produce_thread(&pr, 12, 11, 0); break; /* renumbered below */
		case 'P': produce_proc(&pr, 11, 3); break;
		case 'p': produce_proc(&pr, 99, 3); break;
		case 'q': produce_proc(&pr, 11, 4); break;
		default: produce(&pr, lockno++ * 31); break; /* (no seq skipped) */
		}
	}
	ring_prod_flush(&pr.p);
	if (strchr(recs, 's')) {
		/* the thread start's seq, tid and pid, in the packet's bytes */
		static const uint8_t at[12] = {1, 0, 0, 0, 12, 0, 0, 0, 11, 0, 0, 0};
		uint8_t *b = shm_ring_data(pr.p.ring), *q = memmem(b, 512, at, sizeof(at));

		assert_non_null(q);
		q[0] = 7;
	}
	if (first)
		memcpy(shm_ring_data(pr.p.ring) + RING_PKT_FIRST_SEQ, &first, 4);
	rc = shm_host_drain_packets(&h, 0, 0, owner_cb, &a);
	shm_host_destroy(&h);
	if (gap)
		*gap = a.gap;
	return rc;
}

static struct trace_pkt2_owner own(int fresh, uint32_t prev, uint64_t room)
{
	struct trace_pkt2_owner o = {11, 12, 3, fresh, prev, room};

	return o;
}

static void test_forged_owner(void **state)
{
	assert_int_equal(drain_owner("LL", 0, own(1, 0, 0), NULL), 1); /* the ring's own */
	assert_int_equal(drain_owner("LL", 0, own(0, 0, 0), NULL), 1); /* after the last */
	assert_int_equal(drain_owner("LL", 0, own(0, 1, 0), NULL), -EPROTO); /* numbering back */
	assert_int_equal(drain_owner("LL", 0, own(0, 1000, 0), NULL), -EPROTO);
	{
		/* another thread's or process's packet header */
		struct trace_pkt2_owner o = own(1, 0, 0);

		o.tid = 13;
		assert_int_equal(drain_owner("LL", 0, o, NULL), -EPROTO);
		o = own(1, 0, 0);
		o.pid = 99;
		assert_int_equal(drain_owner("LL", 0, o, NULL), -EPROTO);
	}
}

/* Numbering that jumps forward: only as far as the events its thread
 * counted as lost, and the skip is said (*gap) to be counted. */
static void test_forged_jump(void **state)
{
	uint32_t gap = 1;

	assert_int_equal(drain_owner("LL", 0, own(1, 0, 0), &gap), 1);
	assert_int_equal(gap, 0);
	assert_int_equal(drain_owner("LL", 1000, own(0, 0, 0), NULL), -EPROTO);
	assert_int_equal(drain_owner("LL", 1000, own(0, 0, 998), NULL), -EPROTO);
	assert_int_equal(drain_owner("LL", 1000, own(0, 0, 999), &gap), 1);
	assert_int_equal(gap, 999);
	/* a fresh ring numbers from 1 */
	assert_int_equal(drain_owner("TL", 50, own(1, 0, 0), NULL), -EPROTO);
	assert_int_equal(drain_owner("LL", 50, own(1, 0, 0), NULL), -EPROTO);
	assert_int_equal(drain_owner("LL", 50, own(1, 0, 49), &gap), 1);
	assert_int_equal(gap, 49);
	/* (serial numbers) a forward jump of 2^31 or more is a step back */
	assert_int_equal(drain_owner("LL", 0x80000001u, own(0, 0, UINT32_MAX), NULL), -EPROTO);
}

/* Thread starts and process records: once, at the owner's start, naming
 * the owner. */
static void test_forged_thread_proc(void **state)
{
	assert_int_equal(drain_owner("TPLL", 0, own(1, 0, 0), NULL), 1); /* as the agent writes */
	assert_int_equal(drain_owner("TLL", 0, own(1, 0, 0), NULL), 1);
	assert_int_equal(drain_owner("TLL", 0, own(0, 0, 0), NULL), -EPROTO); /* not its start */
	assert_int_equal(drain_owner("tLL", 0, own(1, 0, 0), NULL), -EPROTO); /* another tid */
	assert_int_equal(drain_owner("sLL", 0, own(1, 0, 100), NULL), -EPROTO); /* renumbers */
	assert_int_equal(drain_owner("TLTL", 0, own(1, 0, 0), NULL), -EPROTO); /* two starts */
	assert_int_equal(drain_owner("LPL", 0, own(1, 0, 0), NULL), -EPROTO); /* no start */
	assert_int_equal(drain_owner("PTL", 0, own(1, 0, 0), NULL), -EPROTO); /* before it */
	assert_int_equal(drain_owner("TPPL", 0, own(1, 0, 0), NULL), -EPROTO); /* twice */
	assert_int_equal(drain_owner("TpL", 0, own(1, 0, 0), NULL), -EPROTO); /* another pid */
	assert_int_equal(drain_owner("TqL", 0, own(1, 0, 0), NULL), -EPROTO); /* another slot */
}

static void test_open_packet_waits(void **state)
{
	struct shm_host h;
	struct prod pr;
	int n = 0;

	assert_int_equal(shm_host_create(&h, 16384, 1, 0), 0);
	h.packets = 1;
	prod_open(&h, &pr);
	produce(&pr, 1);
	produce(&pr, 2);
	/* the writer is alive: its open packet stays in the ring */
	assert_int_equal(shm_host_drain_packets(&h, 0, 0, count_cb, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(shm_host_drain_packets(&h, 0, 1, count_cb, &n), 1);
	assert_int_equal(n, 1);
	/* head and tail moved to the next slot together */
	assert_int_equal(__atomic_load_n(&pr.p.ring->head, __ATOMIC_RELAXED), h.tail[0]);
	shm_host_destroy(&h);
}

static void test_constants(void **state)
{
	assert_int_equal(RING_PKT_MAGIC, TRACE_MAGIC);
	assert_int_equal(RING_PKT_HDR, TRACE_PKT_HDR_SIZE2);
	assert_int_equal(RING_PKT_TS_BEGIN, TRACE_PC_TS_BEGIN);
	assert_int_equal(RING_PKT_TS_END, TRACE_PC_TS_END);
	assert_int_equal(RING_PKT_CONTENT, TRACE_PC_CONTENT);
	assert_int_equal(RING_PKT_PACKET, TRACE_PC_PACKET);
	assert_int_equal(RING_PKT_PID, TRACE_PC_PID);
	assert_int_equal(RING_PKT_TID, TRACE_PC_TID);
	assert_int_equal(RING_PKT_FIRST_SEQ, TRACE_PC_FIRST_SEQ);
	assert_int_equal(RING_PKT_EVENTS, TRACE_PC_EVENTS);
	assert_int_equal(RING_PKT_SITE, TRACE2_SITE);
	assert_int_equal(RING_PKT_LOCK_OP, TRACE2_LOCK_OP);
	assert_int_equal(RING_PKT_FUNC_ENTRY, TRACE2_FUNC_ENTRY);
	assert_int_equal(RING_PKT_FUNC_EXIT, TRACE2_FUNC_EXIT);
	assert_int_equal(RING_PKT_PROBE_ENTRY, TRACE2_PROBE_ENTRY);
	assert_int_equal(RING_PKT_TNAME, TRACE2_TNAME);
	assert_int_equal(KIND_TNAME, TRACE2_KIND_TNAME);
	assert_int_equal(RING_PKT_EXTENDED, TRACE2_EXTENDED);
	assert_int_equal(RING_PKT_MAX_SITES, TRACE2_MAX_SITES);
	assert_int_equal(SHM_PKT_SLOT_MAX, TRACE_RING_PACKET_MAX);
	/* a slot of site definitions alone numbers them all in 16 bits */
	assert_true(SHM_PKT_SLOT_MAX / 28 < RING_PKT_MAX_SITES);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_constants),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_untimed_round_trip),
		cmocka_unit_test(test_probe_round_trip),
		cmocka_unit_test(test_hostile_header),
		cmocka_unit_test(test_hostile_events),
		cmocka_unit_test(test_lock_release_check),
		cmocka_unit_test(test_open_packet_waits),
		cmocka_unit_test(test_forged_owner),
		cmocka_unit_test(test_forged_jump),
		cmocka_unit_test(test_forged_thread_proc),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
