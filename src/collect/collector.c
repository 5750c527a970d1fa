// SPDX-License-Identifier: MIT
/*
 * collector.c - from rings to trace streams.
 *
 * Each ring (one thread of one process) becomes one trace stream, created
 * the first time the ring has something to drain. The collector checks the
 * per-thread sequence numbers as it copies, so a loss is counted even if the
 * producer's own lost counter were wrong; both numbers end up in the trace
 * (events_discarded in the packet context) and in the summary.
 *
 * Process information (command line, maps) is written by the agent into the
 * control block's process slots; the collector turns it into side files of
 * the trace, with the build ids of every mapped file, so the trace can be
 * symbolized offline, on another machine, after the binaries changed.
 *
 * The program can write anything anywhere in the shared region. A ring it
 * damaged is dropped from then on and counted as a loss (its events after
 * the damage never reach the trace): the events its thread numbered since
 * the last good one, at least one. Counters that cannot be true (a ring's
 * lost counter going back or jumping by more than any thread could drop)
 * damage the ring the same way. At the end the control block's fixed
 * fields are compared with what spool wrote, and any change is reported.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../util/buildid.h"
#include "../common/ring_packet.h"
#include "../util/log.h"
#include "../util/procinfo.h"
#include "collector.h"
#include "maps_keep.h"
#include "stream_send.h"

/* A record the agent wrote without reading the TSC: only spool:user ones. */
#define COLLECT_UNTIMED(rec) ((rec)->tsc == 0 && ev_kind((rec)->word) == KIND_USER)
/* More events than 65536 threads could number: a damaged counter. */
#define COLLECT_MAX_NO_RING ((uint64_t)UINT32_MAX * EV_MAX_THREADS)
/* Events a producer may have numbered and not yet written or counted as
 * lost: its thread's one event in flight (collector_lost_ok). */
#define COLLECT_IN_FLIGHT 1

struct ring_state {
	struct trace_stream *stream;
	int no_stream; /* its stream could not be created: records are counted, not kept */
	uint32_t last_seq;
	int have_seq;
	int corrupt;
	int map_warned;	    /* the ring could not be mapped (said once) */
	uint64_t lost_seen; /* the producer's lost counter, last plausible value */
	uint64_t lost_now;  /* the value collector_lost_ok just accepted */
	uint32_t seq_seen;  /* the producer's last_seq just before lost_seen was read */
	uint64_t damaged;   /* events lost because the program damaged the ring */
	uint64_t last_tsc;  /* of the last record written: an untimed record's time */
	uint64_t cut; /* events a crash of the program cut short (last_seq - done_seq) */
	uint64_t filled; /* bytes of its data area collector_prefill allocated (first lap) */
	/* SHM_F_PACKETS: the provisional copy of the ring's open packet the
	 * last flush wrote (trace_stream_put_open), its bytes and the counts
	 * already added to the run's; 0 bytes: none */
	size_t prov_len;
	struct trace_pkt2_counts prov;
	/* SHM_F_PACKETS: the ring's owner (trace_pkt2_owner_check): as its
	 * header says until a whole packet of it is taken, then kept until
	 * the collector frees the ring (owned: the program may rewrite the
	 * header, not the owner), the last seq of its last whole packet, and
	 * the numbers its packets skipped so far (what its lost counter must
	 * account for: the ring's whole life, as lost) */
	uint32_t own_pid, own_tid, own_slot;
	uint32_t whole_seq;
	int owned;
	uint64_t gaps;
};

struct collector {
	struct shm_host *h;
	struct trace_writer *w;
	struct ring_state *rings; /* h->max_rings entries */
	uint32_t *proc_gen;	  /* maps_gen last written, per process slot */
	uint8_t *proc_cut;	  /* per process slot: its cut text was reported */
	uint8_t *proc_written;	  /* per process slot: its files are written (2: as an exec image) */
	char **proc_maps;	  /* per process slot: the maps text last kept (maps_keep.h) */
	size_t *proc_maps_len;
	uint32_t *proc_maps_gen;  /* maps_gen of the text last kept */
	uint32_t *proc_maps_pid;  /* the pid whose text it is */
	int *pidfd;		  /* per process slot: a pidfd on its process, or -1 */
	uint32_t *pidfd_pid;	  /* the pid that pidfd was opened for */
	uint32_t *foreign_pid;	  /* per process slot: a pid found not the program's */
	uint32_t *proc_rec;	  /* per process slot: its KIND_PROC was taken: ring + 1
				   * (a provisional copy), UINT32_MAX (whole); 0 none */
	int foreign_said;	  /* that was said once */
	struct pollfd *pfds;	  /* scratch for polling them, max_procs entries */
	uint32_t *pfd_slot;	  /* the slot of each entry of pfds */
	struct collector_stats st;
	uint32_t cur_ring;	  /* ring being drained, for the callback */
	uint32_t bad_kind;	  /* kind of the last record the writer refused */
	const char *bad_pkt;	  /* what trace_pkt2_check found wrong in a packet */
	int peek;		  /* collector_flush: copy live threads' open packets too */
	int finishing;		  /* collector_finish: the rings were read for the last time */
	struct rec_hdr *scratch;  /* an untimed record with its time filled in */
	size_t scratch_cap;
	struct trace_zinput z;	  /* --compress: packs input data (zinput.c) */
	int compress;
	int owner_gone;		  /* the ring being drained has no writer left */
	/* images that exec'd away, per pid: the next one's number in its
	 * proc/<pid>.exec<K>.* files (a small table: one entry per pid that
	 * exec'd) */
	struct collector_execs {
		uint32_t pid, n;
	} *execs;
	size_t nexecs, cap_execs;
};

int collector_new(struct collector **out, struct shm_host *h, struct trace_writer *w)
{
	struct collector *c = calloc(1, sizeof(*c));

	if (!c)
		return -ENOMEM;
	c->h = h;
	c->w = w;
	c->rings = calloc(h->max_rings, sizeof(*c->rings));
	c->proc_gen = calloc(h->max_procs, sizeof(*c->proc_gen));
	c->proc_cut = calloc(h->max_procs, 1);
	c->proc_written = calloc(h->max_procs, 1);
	c->proc_maps = calloc(h->max_procs, sizeof(*c->proc_maps));
	c->proc_maps_len = calloc(h->max_procs, sizeof(*c->proc_maps_len));
	c->proc_maps_gen = calloc(h->max_procs, sizeof(*c->proc_maps_gen));
	c->proc_maps_pid = calloc(h->max_procs, sizeof(*c->proc_maps_pid));
	c->pidfd = malloc(h->max_procs * sizeof(*c->pidfd));
	c->pidfd_pid = calloc(h->max_procs, sizeof(*c->pidfd_pid));
	c->foreign_pid = calloc(h->max_procs, sizeof(*c->foreign_pid));
	c->proc_rec = calloc(h->max_procs, sizeof(*c->proc_rec));
	c->pfds = calloc(h->max_procs, sizeof(*c->pfds));
	c->pfd_slot = calloc(h->max_procs, sizeof(*c->pfd_slot));
	if (!c->rings || !c->proc_gen || !c->proc_cut || !c->proc_written || !c->proc_maps ||
	    !c->proc_maps_len || !c->proc_maps_gen || !c->proc_maps_pid || !c->pidfd ||
	    !c->pidfd_pid || !c->foreign_pid || !c->proc_rec || !c->pfds || !c->pfd_slot) {
		collector_free(c);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < h->max_procs; i++)
		c->pidfd[i] = -1;
	*out = c;
	return 0;
}

void collector_free(struct collector *c)
{
	if (!c)
		return;
	free(c->rings);
	free(c->proc_gen);
	free(c->proc_cut);
	free(c->proc_written);
	for (uint32_t i = 0; c->proc_maps && i < c->h->max_procs; i++)
		free(c->proc_maps[i]);
	free(c->proc_maps);
	free(c->proc_maps_len);
	free(c->proc_maps_gen);
	free(c->proc_maps_pid);
	for (uint32_t i = 0; c->pidfd && i < c->h->max_procs; i++)
		if (c->pidfd[i] >= 0)
			close(c->pidfd[i]);
	free(c->pidfd);
	free(c->pidfd_pid);
	free(c->foreign_pid);
	free(c->proc_rec);
	free(c->pfds);
	free(c->pfd_slot);
	free(c->execs);
	free(c->scratch);
	if (c->compress)
		trace_zinput_free(&c->z);
	free(c);
}

int collector_compress(struct collector *c, int level)
{
	int rc = trace_zinput_init(&c->z, level);

	c->compress = rc == 0;
	return rc;
}

static int collector_proc_rec_ok(struct collector *c, uint32_t i, const struct trace_pkt2_counts *n,
				 int peek);

/*
 * The records mode's owner checks, as trace_pkt2_owner_check makes them
 * of packets: the ring is the program's memory, and a record it forged
 * there passes the writer's format check. A thread starts once in a ring
 * it was given, under the tid and pid its claim stored (read at its start,
 * then kept until the collector frees the ring); a process record names
 * its ring's process and slot, and is taken from the one ring the agent
 * named (collector_proc_rec_ok). Before, a second thread start naming the
 * main thread and a second process record were written as the program's.
 * 0, or -EPROTO with c->bad_pkt set (the ring is damaged).
 */
static int collector_rec_owner_ok(struct collector *c, struct ring_state *rs,
				  const struct rec_hdr *rec)
{
	struct shm_ring *r = shm_host_ring(c->h, c->cur_ring);
	uint32_t kind = ev_kind(rec->word);

	if (kind == KIND_THREAD && rec->size >= sizeof(struct rec_thread)) {
		const struct rec_thread *t = (const struct rec_thread *)rec;

		if (rs->owned) {
			c->bad_pkt = "a thread record starts a thread in a ring its thread already had";
			return -EPROTO;
		}
		if (r) {
			rs->own_pid = __atomic_load_n(&r->pid, __ATOMIC_RELAXED);
			rs->own_tid = __atomic_load_n(&r->tid, __ATOMIC_RELAXED);
			rs->own_slot = __atomic_load_n(&r->proc_slot, __ATOMIC_RELAXED);
			rs->owned = 1;
		}
		if (rs->owned && (t->tid != rs->own_tid || t->pid != rs->own_pid)) {
			c->bad_pkt = "a thread record names another thread than its ring's";
			return -EPROTO;
		}
	} else if (kind == KIND_PROC && rec->size >= sizeof(struct rec_proc)) {
		const struct rec_proc *p = (const struct rec_proc *)rec;
		struct trace_pkt2_counts n;

		if (rs->owned && (p->pid != rs->own_pid || p->proc_slot != rs->own_slot)) {
			c->bad_pkt = "a process record names another process than its ring's";
			return -EPROTO;
		}
		memset(&n, 0, sizeof(n));
		n.proc = 1;
		n.proc_slot = p->proc_slot;
		if (!collector_proc_rec_ok(c, c->cur_ring, &n, 0)) {
			c->bad_pkt = "a process record repeats one another ring gave";
			return -EPROTO;
		}
	}
	return 0;
}

static int on_record(void *arg, const struct rec_hdr *rec)
{
	struct collector *c = arg;
	struct ring_state *rs = &c->rings[c->cur_ring];
	int rc;

	if ((ev_kind(rec->word) == KIND_THREAD || ev_kind(rec->word) == KIND_PROC) &&
	    collector_rec_owner_ok(c, rs, rec) < 0)
		return -EPROTO;
	/* A ring is reused by one thread after another (the agent's claim,
	 * agent_thread.c): each opens with KIND_THREAD and counts its own seq. */
	if (ev_kind(rec->word) == KIND_THREAD)
		rs->have_seq = 0;
	if (rs->have_seq && rec->seq != rs->last_seq + 1)
		c->st.seq_gaps += (uint32_t)(rec->seq - rs->last_seq - 1);
	rs->last_seq = rec->seq;
	rs->have_seq = 1;
	if (COLLECT_UNTIMED(rec)) {
		/* An untimed spool:user record (spool_trace_emit_nt, doc/cc.md):
		 * it gets the time of the thread's record before it, so the
		 * stream's times never go back; spool decode adds the
		 * optimizer's estimate. The ring's bytes stay as they are. */
		if (rec->size > c->scratch_cap) {
			struct rec_hdr *p = realloc(c->scratch, rec->size);

			if (!p)
				return -ENOMEM;
			c->scratch = p;
			c->scratch_cap = rec->size;
		}
		memcpy(c->scratch, rec, rec->size);
		c->scratch->tsc = rs->last_tsc;
		rec = c->scratch;
	}
	rs->last_tsc = rec->tsc;
	if (rs->no_stream) {
		c->st.unwritten++; /* never reaches the disk: counted */
		return 0;
	}
	if (c->compress)
		rec = trace_zinput_pack(&c->z, rec);
	rc = trace_stream_write(rs->stream, rec);
	if (rc == -EINVAL) {
		/* A record no agent writes (a size that does not match its
		 * kind, an unknown kind): the program wrote over the ring.
		 * The ring is abandoned; collector_ring_damaged counts it. */
		c->bad_kind = ev_kind(rec->word);
		return -EPROTO;
	}
	if (rc < 0) {
		/* counted as lost; said once, not once a record */
		if (!c->st.rejected++)
			log_warn("ring %u: record of kind %u not written: %s (such records are "
				 "counted as lost)",
				 c->cur_ring, ev_kind(rec->word), strerror(-rc));
		return 0;
	}
	c->st.events++;
	switch (ev_kind(rec->word)) {
	case KIND_LOCK:
		c->st.lock_events++;
		c->st.thread_events += ev_op_is_thread(ev_op(rec->word));
		break;
	case KIND_SCHED:
		c->st.sched_events++;
		break;
	case KIND_THREAD:
		c->st.threads++;
		break;
	case KIND_PROC:
		c->st.procs++;
		/* (the writer took it: its size is a rec_proc's) */
		if (((const struct rec_proc *)rec)->proc_slot >= c->h->max_procs)
			c->st.no_proc_seen++;
		break;
	}
	return 0;
}

/* SHM_F_PACKETS: one packet of the ring being drained, checked, then
 * copied whole. Its events are checked here (trace_pkt2_check: the ring is
 * the program's memory): a damaged packet is never written, its ring is
 * abandoned and its loss counted (-EPROTO), as a damaged record is in the
 * records mode. The run's counts are the checked packets' own. */
static void collector_count_pkt(struct collector *c, const struct trace_pkt2_counts *n, int sign)
{
	c->st.events += (uint64_t)(int64_t)sign * n->events;
	c->st.lock_events += (uint64_t)(int64_t)sign * n->lock;
	c->st.thread_events += (uint64_t)(int64_t)sign * n->lock_thread;
	c->st.threads += (uint64_t)(int64_t)sign * n->thread;
	c->st.procs += (uint64_t)(int64_t)sign * n->proc;
}

/* A process record in a packet of ring i that passed the owner check: a
 * process slot's one KIND_PROC (the agent writes it once an image) comes
 * from one ring; another is a forgery. The agent names that ring in the
 * slot (shm_proc.proc_ring) before it writes the record, so a record from
 * any other ring is refused, whichever ring is drained first: before, the
 * second to arrive was, and that could be the main thread's ring rather
 * than the forger's. The slot is the program's memory too: a name out of
 * range, or none (an agent that wrote none), leaves the first to arrive
 * taken, as before. 1: taken. */
static int collector_proc_rec_ok(struct collector *c, uint32_t i, const struct trace_pkt2_counts *n,
				 int peek)
{
	uint32_t *o, named;

	if (!n->proc || n->proc_slot >= c->h->max_procs)
		return 1;
	named = __atomic_load_n(&shm_proc_at(c->h->ctl, n->proc_slot)->proc_ring, __ATOMIC_ACQUIRE);
	if (named && named <= shm_host_nrings(c->h) && named != i + 1)
		return 0;
	o = &c->proc_rec[n->proc_slot];
	if (*o && *o != i + 1)
		return 0;
	*o = peek ? i + 1 : UINT32_MAX;
	return 1;
}

static int on_packet(void *arg, uint8_t *pkt, size_t len, int open)
{
	struct collector *c = arg;
	struct ring_state *rs = &c->rings[c->cur_ring];
	struct shm_ring *r = shm_host_ring(c->h, c->cur_ring);
	struct trace_pkt2_counts n;
	struct trace_pkt2_owner o;
	uint64_t lost;
	uint32_t gap;
	int rc;

	if (open == SHM_DRAIN_PEEK && (rs->no_stream || len == rs->prov_len))
		return 0; /* (nothing new since the last flush wrote it) */
	/* loaded after the drain loaded head: a drop is counted before the
	 * event after it is written (ring_produce.h) */
	lost = r ? __atomic_load_n(&r->lost, __ATOMIC_ACQUIRE) : 0;
	o.pid = rs->own_pid;
	o.tid = rs->own_tid;
	o.proc_slot = rs->own_slot;
	o.fresh = !rs->owned;
	o.prev = rs->whole_seq;
	o.gap_room = lost > rs->gaps ? lost - rs->gaps : 0;
	if (trace_pkt2_check(pkt, len, open, &n, &c->bad_pkt) < 0 ||
	    trace_pkt2_owner_check(pkt, len, &n, &o, &gap, &c->bad_pkt) < 0)
		return -EPROTO;
	if (!collector_proc_rec_ok(c, c->cur_ring, &n, open == SHM_DRAIN_PEEK)) {
		c->bad_pkt = "a process record repeats one another ring gave";
		return -EPROTO;
	}
	if (open != SHM_DRAIN_PEEK) {
		rs->whole_seq = n.last_seq;
		rs->owned = 1;
		rs->gaps += gap;
	}
	/* the last seq taken: what a damage later is counted from */
	rs->last_seq = n.last_seq;
	rs->have_seq = 1;
	if (rs->no_stream) {
		c->st.unwritten += n.events;
		return 0;
	}
	/* a provisional copy of this packet is in the file: this one is
	 * written over it, and counted instead of it */
	if (rs->prov_len)
		collector_count_pkt(c, &rs->prov, -1);
	rs->prov_len = 0;
	if (open == SHM_DRAIN_PEEK) {
		uint32_t id;
		uint64_t end = trace_stream_whole_end(rs->stream, &id);

		/* --stream: the sender must know it is provisional first */
		stream_send_whole_end(id, end);
		if (trace_stream_put_open(rs->stream, pkt, len) < 0)
			return 0; /* (all of it comes again) */
		rs->prov_len = len;
		rs->prov = n;
		collector_count_pkt(c, &n, 1);
		return 0;
	}
	rc = trace_stream_put_packet(rs->stream, pkt, len);
	if (rc < 0) {
		if (!c->st.rejected++)
			log_warn("ring %u: a packet of %zu bytes not written: %s", c->cur_ring, len,
				 strerror(-rc));
		return 0;
	}
	collector_count_pkt(c, &n, 1);
	return 0;
}

/* SHM_F_PACKETS, a ring whose writer is gone: the event it was writing
 * when it died (numbered in last_seq, never committed nor counted as lost
 * in done_seq) is lost; counted with the ring's losses. */
static void collector_count_cut(struct collector *c, uint32_t i, struct shm_ring *r)
{
	struct ring_state *rs = &c->rings[i];
	uint32_t d = __atomic_load_n(&r->last_seq, __ATOMIC_ACQUIRE) -
		     __atomic_load_n(&r->done_seq, __ATOMIC_ACQUIRE);

	/* one event at most is being written; more is a damaged count */
	if (d == 0 || d > 1)
		return;
	rs->cut += d;
	/* taken once: the next owner starts from here */
	__atomic_store_n(&r->done_seq, __atomic_load_n(&r->last_seq, __ATOMIC_RELAXED),
			 __ATOMIC_RELAXED);
	if (rs->stream)
		trace_stream_discarded(rs->stream, rs->lost_seen + rs->damaged + rs->cut);
}

/* What a damaged ring i lost: the events its thread numbered after the
 * last record we took (the producer's last_seq, itself untrusted: an
 * implausible value counts as one), at least one. hdr gets the ring's
 * header (zeroed if unreadable). */
static uint64_t collector_damage_estimate(struct collector *c, uint32_t i, struct shm_ring *hdr)
{
	struct ring_state *rs = &c->rings[i];

	if (shm_host_ring_peek(c->h, i, hdr) == 0) {
		uint32_t d = hdr->last_seq - (rs->have_seq ? rs->last_seq : 0);

		if (d && d < (1u << 31))
			return d;
	} else {
		memset(hdr, 0, sizeof(*hdr));
	}
	return 1;
}

/* Ring i is damaged: nothing more is read from it; its loss is estimated
 * now and again at the end (its thread may go on numbering events). */
static void collector_ring_damaged(struct collector *c, uint32_t i, const char *what)
{
	struct ring_state *rs = &c->rings[i];
	struct shm_ring hdr;

	if (rs->corrupt)
		return;
	rs->corrupt = 1;
	c->st.corrupt_rings++;
	/* the copy of its open packet a flush wrote stays: whole events */
	if (rs->stream)
		trace_stream_seal(rs->stream);
	rs->prov_len = 0;
	rs->damaged = collector_damage_estimate(c, i, &hdr);
	if (rs->stream)
		trace_stream_discarded(rs->stream, rs->lost_seen + rs->damaged + rs->cut);
	log_warn("the program damaged the shared memory of thread %u (pid %u, ring %u): %s; "
		 "its events from there on are lost (%llu so far)",
		 hdr.tid, hdr.pid, i, what, (unsigned long long)rs->damaged);
}

/*
 * The producer's lost counter only grows, and by no more than the events
 * its thread numbered meanwhile, plus the one event it may have had in
 * flight at the previous look (numbered, then waiting for room in
 * agent_ring_full up to 100 ms, then dropped). last_seq counts every
 * attempt, dropped ones included, and is stored before a drop is counted
 * (a release store of lost). Anything else is damage, or a last_seq that
 * was itself overwritten.
 *
 * The two counters cannot be read at one instant: between two loads the
 * thread numbers and drops more events (27 were seen between adjacent
 * loads, the collector's vCPU preempted, the producer dropping at full
 * speed). A last_seq read after lost includes such events, and the next
 * look, with the thread then dropping everything or gone, found lost grown
 * more than last_seq (tests/integ/172, 1 run in 2). So last_seq is read on
 * both sides of lost: the one after bounds this look's lost; the one
 * before is the base of the next look, since every drop counted after this
 * lost is of an event numbered after that last_seq, or of the one in
 * flight. The producer does nothing more for it.
 */
static int collector_lost_ok(struct ring_state *rs, const struct shm_ring *r)
{
	uint32_t before = __atomic_load_n(&r->last_seq, __ATOMIC_ACQUIRE);
	uint64_t lost = __atomic_load_n(&r->lost, __ATOMIC_ACQUIRE);
	uint32_t after = __atomic_load_n(&r->last_seq, __ATOMIC_ACQUIRE);
	uint64_t dseq = (uint32_t)(after - rs->seq_seen);

	if (lost < rs->lost_seen || lost - rs->lost_seen > dseq + COLLECT_IN_FLIGHT)
		return 0;
	rs->seq_seen = before;
	rs->lost_now = lost;
	return 1;
}

/*
 * The thread of ring i has ended and the ring is drained: give it back to
 * the agent, which reuses it for a new thread (the handshake is described
 * in agent_thread.c). Only when everything up to head is in its stream (our
 * own tail, not the shared copy); the CAS leaves a ring alone whose state
 * the target changed meanwhile. The ring is ours to write: spool mapped it
 * at the offset it computed.
 */
static void collector_release(struct collector *c, uint32_t i, struct shm_ring *r)
{
	uint32_t st = RING_EXITED;

	if (c->h->tail[i] != __atomic_load_n(&r->head, __ATOMIC_ACQUIRE))
		return;
	if (__atomic_compare_exchange_n(&r->state, &st, RING_FREE, 0, __ATOMIC_RELEASE,
					__ATOMIC_RELAXED)) {
		c->rings[i].owned = 0; /* the next owner starts afresh */
		shm_host_ring_unmap(c->h, i); /* (r is gone with it) */
	}
}

/* Drain ring i into its stream (creating the stream first) and free it
 * when its thread has ended. 0, or a negative errno that stops the run's
 * collection (a damaged ring is not one: it is counted and skipped). */
/*
 * A ring's pages on its first lap, allocated ahead of its producer from
 * here: the agent faults its ring in with MADV_POPULATE_WRITE as it fills
 * (agent_ring_ready), and for a fresh page the kernel allocates and zeroes
 * it, on the program's thread: with 8 bytes an event in packets, that was
 * a nanosecond an event of a thread's first lap (bench/probe.sh). Pages
 * the memfd already holds are only mapped there. So each drain allocates
 * (fallocate, on spool's side) as far ahead of head as the thread has
 * written so far (at least 64 KiB, the agent's first chunk, at most 4 MiB), never past the ring:
 * a thread that writes little costs little more memory than before.
 * Errors change nothing (the agent faults the pages in as before).
 */
#define COLLECT_PREFILL_MIN (64u << 10)
#define COLLECT_PREFILL_MAX (4u << 20)

static void collector_prefill(struct collector *c, uint32_t i, struct shm_ring *r)
{
	struct ring_state *rs = &c->rings[i];
	uint64_t head = __atomic_load_n(&r->head, __ATOMIC_RELAXED), size = c->h->ring_bytes;
	uint64_t ahead = head < COLLECT_PREFILL_MIN ? COLLECT_PREFILL_MIN
			 : head > COLLECT_PREFILL_MAX ? COLLECT_PREFILL_MAX
						      : head;
	uint64_t to;

	/* (head is the program's: past the first lap, or nonsense, every page
	 * is the producer's to have touched; nothing to do) */
	if (rs->filled >= size || head >= size)
		return;
	to = head + ahead > size ? size : head + ahead;
	if (to <= rs->filled)
		return;
	if (fallocate(c->h->fd, 0,
		      (off_t)(shm_ring_offset(c->h->ring_bytes, c->h->max_procs, i) + SHM_RING_HDR +
			      rs->filled),
		      (off_t)(to - rs->filled)) == 0)
		rs->filled = to;
	else
		rs->filled = size; /* (not supported: not again) */
}

static int collector_drain_one(struct collector *c, uint32_t i)
{
	struct ring_state *rs = &c->rings[i];
	struct shm_ring *r = NULL;
	uint64_t lost;
	uint32_t state;
	int rc;

	if (rs->corrupt)
		return 0;
	if (!rs->stream && !rs->no_stream) {
		struct shm_ring hdr;

		/* Looked at without mapping it: a ring is mapped only
		 * once it has something for us. */
		if (shm_host_ring_peek(c->h, i, &hdr) < 0)
			return 0;
		if (hdr.head == 0 && hdr.lost == 0) {
			/* a thread that ended without a record (its
			 * KIND_THREAD always fits, so only in theory):
			 * its ring is free all the same */
			if (hdr.state == RING_EXITED && (r = shm_host_ring(c->h, i)))
				collector_release(c, i, r);
			return 0;
		}
		rc = trace_writer_stream(c->w, i, hdr.pid, hdr.tid, &rs->stream);
		if (rc < 0) {
			/* The ring is still drained (its thread must not
			 * wait for room), into nothing: what it held is
			 * counted as not written, and the other rings go
			 * on. */
			log_err("cannot create trace stream for thread %u: %s; its events "
				"are counted as lost",
				hdr.tid, strerror(-rc));
			rs->no_stream = 1;
		}
	}
	if (!shm_host_ring_mapped(c->h, i)) {
		struct shm_ring hdr;

		/* Unmapped since it was freed (or never had data): mapped
		 * again only once something new is in it. */
		if (shm_host_ring_peek(c->h, i, &hdr) < 0 ||
		    (hdr.head == c->h->tail[i] && hdr.lost == rs->lost_seen &&
		     hdr.state != RING_EXITED))
			return 0;
	}
	r = shm_host_ring(c->h, i);
	if (!r) {
		if (!rs->map_warned)
			log_warn("cannot map the ring of thread index %u yet: %s", i,
				 strerror(errno));
		rs->map_warned = 1;
		return 0;
	}
	/* Loaded before the drain reads head: the agent stores
	 * RING_EXITED after the thread's last commit. */
	state = __atomic_load_n(&r->state, __ATOMIC_ACQUIRE);
	c->cur_ring = i;
	c->bad_kind = UINT32_MAX;
	c->bad_pkt = NULL;
	if (c->h->packets) {
		/* RING_EXITED: its thread finished its last packet before
		 * storing it, or ended unseen (a raw SYS_exit) and another
		 * thread stored it once the kernel said the tid was gone: its
		 * open packet, if any, is taken as well */
		int gone = c->owner_gone || state == RING_EXITED;

		/* the owner its packets must name (the claim stored it; a ring
		 * is used again only once drained and freed): read until one
		 * of its whole packets is taken, then kept */
		if (!rs->owned) {
			rs->own_pid = __atomic_load_n(&r->pid, __ATOMIC_RELAXED);
			rs->own_tid = __atomic_load_n(&r->tid, __ATOMIC_RELAXED);
			rs->own_slot = __atomic_load_n(&r->proc_slot, __ATOMIC_RELAXED);
		}

		rc = shm_host_drain_packets(c->h, i,
					    gone     ? SHM_DRAIN_GONE
					    : c->peek ? SHM_DRAIN_PEEK
						      : SHM_DRAIN_LIVE,
					    on_packet, c);
		if (rc >= 0 && gone)
			collector_count_cut(c, i, r);
	} else {
		rc = shm_host_drain_ring(c->h, i, on_record, c);
	}
	if (rc == -EPROTO) {
		char what[80];

		if (c->bad_pkt)
			snprintf(what, sizeof(what), "%s", c->bad_pkt);
		else if (c->bad_kind != UINT32_MAX)
			snprintf(what, sizeof(what),
				 "a record of kind %u has a size no agent writes", c->bad_kind);
		else
			snprintf(what, sizeof(what), "its head or a record is out of bounds");
		collector_ring_damaged(c, i, what);
		return 0;
	} else if (rc < 0) {
		return rc;
	}
	if (!collector_lost_ok(rs, r)) {
		collector_ring_damaged(c, i, "its lost counter went back or jumped");
		return 0;
	}
	lost = rs->lost_now;
	if (lost != rs->lost_seen) {
		rs->lost_seen = lost;
		if (rs->stream)
			trace_stream_discarded(rs->stream, lost + rs->cut);
	}
	if (state == RING_EXITED)
		collector_release(c, i, r);
	else
		collector_prefill(c, i, r);
	return 0;
}

static void collector_reap_procs(struct collector *c);

int collector_drain(struct collector *c)
{
	uint32_t n = shm_host_nrings(c->h);

	for (uint32_t i = 0; i < n; i++) {
		int rc = collector_drain_one(c, i);

		if (rc < 0)
			return rc;
	}
	collector_reap_procs(c);
	return 0;
}

/* The producers' count of events lost for lack of a ring, read from the
 * control block the program can write: a count no run could reach is not
 * believed (said once, at the end, by collector_check_ctl). */
static uint64_t collector_lost_no_ring(struct collector *c)
{
	uint64_t n = __atomic_load_n(&c->h->ctl->lost_no_ring, __ATOMIC_RELAXED);

	return n > COLLECT_MAX_NO_RING ? 0 : n;
}

/* Events fork children dropped before they had a ring (the agents' count,
 * believed as far as lost_no_ring is). */
static uint64_t collector_lost_fork(struct collector *c)
{
	uint64_t n = __atomic_load_n(&c->h->ctl->lost_fork, __ATOMIC_RELAXED);

	return n > COLLECT_MAX_NO_RING ? 0 : n;
}

/* Events threads of the program's own clone dropped (the agents' count,
 * believed as far as lost_no_ring is). */
static uint64_t collector_lost_clone(struct collector *c)
{
	uint64_t n = __atomic_load_n(&c->h->ctl->lost_clone, __ATOMIC_RELAXED);

	return n > COLLECT_MAX_NO_RING ? 0 : n;
}

/* Events of processes in a pid namespace with a /proc of its own (the
 * agents' count, believed as far as lost_no_ring is). */
static uint64_t collector_lost_pidns(struct collector *c)
{
	uint64_t n = __atomic_load_n(&c->h->ctl->lost_pidns, __ATOMIC_RELAXED);

	return n > COLLECT_MAX_NO_RING ? 0 : n;
}

/* Processes without a process slot: the agents' count in the control block
 * (the program can write it: more than there can be pids is not believed),
 * and at least those whose own KIND_PROC record says so. */
static uint64_t collector_lost_no_proc(struct collector *c)
{
	uint64_t n = __atomic_load_n(&c->h->ctl->lost_no_proc, __ATOMIC_RELAXED);

	if (n > UINT32_MAX)
		n = 0;
	return n > c->st.no_proc_seen ? n : c->st.no_proc_seen;
}

/* The collector's part of the losses, for the trace's state file. */
static void note_loss(struct collector *c)
{
	struct trace_loss l = {
	    .no_ring = collector_lost_no_ring(c),
	    .fork = collector_lost_fork(c),
	    .clone = collector_lost_clone(c),
	    .pidns = collector_lost_pidns(c),
	    .seq_gaps = c->st.seq_gaps,
	    .damaged_rings = c->st.corrupt_rings,
	    .rejected = c->st.rejected,
	    .write = c->st.unwritten,
	    .no_proc = collector_lost_no_proc(c),
	    .still_running = c->st.still_running,
	};

	/* the producers' drops of rings without a stream (the writer counts
	 * those of the others) */
	for (uint32_t i = 0; i < c->h->max_rings; i++)
		if (!c->rings[i].stream)
			l.ring_full += c->rings[i].lost_seen + c->rings[i].damaged;
	trace_writer_note_loss(c->w, &l);
}

int collector_flush(struct collector *c)
{
	int ret = 0;

	/* SHM_F_PACKETS: a live thread's open packet stays in its ring until
	 * it fills or the thread ends (an idle or blocked thread's for good):
	 * a copy of it up to its last whole event goes to the file now, so a
	 * killed spool's trace and a live `list` see every event up to here.
	 * With --stream too: the sender is told where the finished packets
	 * end (stream_send_whole_end), counts only those, and sends the
	 * provisional one again each pass until it is finished
	 * (doc/trace-format.md, "Packets in the ring"). Not once
	 * collector_finish has taken the open packets as far as they go: a
	 * program left running (spool probe -p detached) may write on, and
	 * its head is then behind the tail the collector moved. */
	if (c->h->packets && !c->finishing) {
		c->peek = 1;
		ret = collector_drain(c);
		c->peek = 0;
	}
	for (uint32_t i = 0; i < c->h->max_rings; i++) {
		uint32_t id;
		uint64_t end;
		int rc;

		if (!c->rings[i].stream)
			continue;
		rc = trace_stream_flush(c->rings[i].stream);
		/* --stream: where its finished packets end now (behind is safe:
		 * what follows is sent again) */
		end = trace_stream_whole_end(c->rings[i].stream, &id);
		stream_send_whole_end(id, end);
		if (rc < 0 && !ret)
			ret = rc;
	}
	/* what a killed spool leaves says what was lost up to here */
	note_loss(c);
	trace_writer_checkpoint(c->w);
	return ret;
}

/* Is there a live slot other than i for pid (the image an exec of the
 * process in slot i started)? */
static int collector_pid_live_elsewhere(struct collector *c, uint32_t i, uint32_t pid)
{
	for (uint32_t j = 0; j < c->h->max_procs; j++) {
		struct shm_proc *q = shm_proc_at(c->h->ctl, j);

		if (j != i && __atomic_load_n(&q->state, __ATOMIC_ACQUIRE) == PROC_LIVE &&
		    __atomic_load_n(&q->pid, __ATOMIC_RELAXED) == pid)
			return 1;
	}
	return 0;
}

/* The number of pid's next image that exec'd away (0 for its first), or
 * -ENOMEM. */
static int collector_exec_number(struct collector *c, uint32_t pid, uint32_t *k)
{
	for (size_t j = 0; j < c->nexecs; j++)
		if (c->execs[j].pid == pid) {
			*k = c->execs[j].n++;
			return 0;
		}
	if (c->nexecs == c->cap_execs) {
		size_t cap = c->cap_execs ? 2 * c->cap_execs : 8;
		void *n = realloc(c->execs, cap * sizeof(*c->execs));

		if (!n)
			return -ENOMEM;
		c->execs = n;
		c->cap_execs = cap;
	}
	c->execs[c->nexecs].pid = pid;
	c->execs[c->nexecs++].n = 1;
	*k = 0;
	return 0;
}

/* The maps text last kept for slot i becomes maps (malloc'ed, owned by
 * the slot from now on; NULL forgets it): the text of process pid at
 * maps_gen gen. */
static void collector_maps_keep(struct collector *c, uint32_t i, uint32_t pid, uint32_t gen,
				char *maps, size_t len)
{
	free(c->proc_maps[i]);
	c->proc_maps[i] = maps;
	c->proc_maps_len[i] = maps ? len : 0;
	c->proc_maps_gen[i] = gen;
	c->proc_maps_pid[i] = pid;
}

/* *maps (slot i's text just read, of pid at gen) followed by the lines of
 * the files it mapped in the text kept before and unmapped since
 * (maps_keep.h): a library it dlclosed stays named in its trace. The text
 * kept may be of this very gen (collector_keep_maps read it first): it is
 * then this text already merged, and replaces it. Keeping the fresh text
 * as it was dropped the libraries unloaded before it: the exit's maps,
 * seen by collector_keep_maps and then written at the end, lost the
 * dlclose'd library (tests/integ/387, 1 run in 20 under load). */
static void collector_maps_merge(struct collector *c, uint32_t i, uint32_t pid, uint32_t gen,
				 char **maps, size_t *len)
{
	char *kept;

	if (c->proc_maps_pid[i] != pid || !c->proc_maps[i])
		return; /* none kept of this process */
	if (c->proc_maps_gen[i] == gen) {
		kept = malloc(c->proc_maps_len[i] + 1);
		if (!kept)
			return; /* the text as read: no worse than before */
		memcpy(kept, c->proc_maps[i], c->proc_maps_len[i]);
		kept[c->proc_maps_len[i]] = 0;
		free(*maps);
		*maps = kept;
		*len = c->proc_maps_len[i];
		return;
	}
	if (maps_keep_merge(c->proc_maps[i], c->proc_maps_len[i], maps, len) < 0)
		log_warn("process %u: out of memory keeping the maps of the libraries it "
			 "unloaded: their addresses may stay unsymbolized",
			 pid);
}

/* Write proc/<pid>.{exe,cmdline,maps,buildids} for process slot i if its
 * maps changed since last time. Everything is copied out of the slot first
 * and bounded (the program may rewrite it at any time); maps_gen is odd
 * while the agent rewrites the text, and a copy taken while it was odd or
 * changed is taken again next time, unless final (the process has ended:
 * then the text is what it is). An image that exec'd away (PROC_ENDED,
 * set by the next image's agent) is written once, at its end, as
 * proc/<pid>.exec<K>.* (K: 0 for the pid's first image, in the order they
 * exec'd away): the plain names are the pid's last image's, and a reader
 * symbolizes an address the last image does not map with the images before
 * it (src/util/symbolize.c). They used to be overwritten by the image after
 * the exec, so the events of the image before it were symbolized with the
 * new image's maps. */
static int write_proc_slot(struct collector *c, uint32_t i, int final)
{
	struct shm_proc *p = shm_proc_at(c->h->ctl, i);
	uint32_t state = __atomic_load_n(&p->state, __ATOMIC_ACQUIRE);
	uint32_t gen = __atomic_load_n(&p->maps_gen, __ATOMIC_ACQUIRE);
	uint32_t pid = __atomic_load_n(&p->pid, __ATOMIC_ACQUIRE);
	uint32_t exe_len = __atomic_load_n(&p->exe_len, __ATOMIC_RELAXED);
	char name[64], exe[SHM_PROC_EXE];
	char *maps = NULL, *cmd = NULL, *ids = NULL;
	size_t maps_len, cmd_len, ids_len = 0;
	int rc, cut_maps, cut_cmd;

	char img[24] = "";
	uint32_t k;

	if ((state != PROC_LIVE && state != PROC_ENDED) || !pid)
		return 0;
	if (state == PROC_ENDED) {
		/* once, at its end (collector_end_proc, or the run's) */
		if (!final || c->proc_written[i] == 2)
			return 0;
		rc = collector_exec_number(c, pid, &k);
		if (rc < 0)
			return rc;
		snprintf(img, sizeof(img), ".exec%u", k);
	} else if (c->proc_written[i] && gen == c->proc_gen[i]) {
		return 0;
	}
	if (gen % 2 && !final)
		return 0;
	if (exe_len >= sizeof(exe))
		exe_len = 0;
	memcpy(exe, p->exe, exe_len);
	rc = shm_host_proc_text(c->h, i, 1, &maps, &maps_len, &cut_maps);
	if (!rc)
		rc = shm_host_proc_text(c->h, i, 0, &cmd, &cmd_len, &cut_cmd);
	if (rc < 0) {
		free(maps);
		return rc;
	}
	if (__atomic_load_n(&p->maps_gen, __ATOMIC_ACQUIRE) != gen && !final) {
		free(maps);
		free(cmd);
		return 0; /* rewritten while we copied: next time */
	}
	/* the files it unmapped since (a dlclose'd library) stay named */
	collector_maps_merge(c, i, pid, gen, &maps, &maps_len);
	if ((cut_maps || cut_cmd) && !c->proc_cut[i]) {
		c->proc_cut[i] = 1;
		c->st.cut_procs++;
		log_warn("process %u: its %s%s%s could not be kept whole (more than %u MiB, or "
			 "a damaged slot): addresses past the cut stay unsymbolized",
			 pid, cut_cmd ? "command line" : "", cut_cmd && cut_maps ? " and " : "",
			 cut_maps ? "maps" : "", SHM_PROC_TEXT_BYTES >> 20);
	}
	snprintf(name, sizeof(name), "proc/%u%s.exe", pid, img);
	rc = trace_writer_add_file(c->w, name, exe, exe_len);
	snprintf(name, sizeof(name), "proc/%u%s.cmdline", pid, img);
	if (!rc)
		rc = trace_writer_add_file(c->w, name, cmd, cmd_len);
	snprintf(name, sizeof(name), "proc/%u%s.maps", pid, img);
	if (!rc)
		rc = trace_writer_add_file(c->w, name, maps, maps_len);
	if (!rc && buildid_list_for_maps(maps, &ids, &ids_len) == 0) {
		snprintf(name, sizeof(name), "proc/%u%s.buildids", pid, img);
		rc = trace_writer_add_file(c->w, name, ids, ids_len);
	}
	free(ids);
	collector_maps_keep(c, i, pid, gen, maps, maps_len);
	free(cmd);
	c->proc_gen[i] = gen;
	c->proc_written[i] = img[0] ? 2 : 1;
	return rc;
}

static int write_proc_files(struct collector *c, int final)
{
	int ret = 0;

	for (uint32_t i = 0; i < c->h->max_procs; i++) {
		int rc = write_proc_slot(c, i, final);

		if (rc < 0 && !ret)
			ret = rc;
	}
	return ret;
}

/*
 * The process of slot i has ended (pid) or exec'd away: drain what its
 * threads left in their rings and give the rings to any process (pid 0,
 * RING_FREE: agent_thread.c takes them), write its maps and command line
 * for the last time, then free the slot for the next process (the
 * handshake is in shm.h). pid 0 is stored before the state: a ring is
 * taken only in RING_FREE, so no new owner's pid is overwritten. Rings and
 * slot are spool's mappings at offsets spool computed; the header fields
 * read to choose them are a copy and only select, never address.
 */
/* Ring j's owner (a thread, or a whole process) has ended: drain what it
 * left and give the ring to any process (pid 0, RING_FREE). Kept when it
 * could not be drained to its head (no stream, a write error). */
static void collector_free_ring(struct collector *c, uint32_t j)
{
	struct shm_ring *r;
	uint32_t st;
	int rc;

	c->owner_gone = 1;
	rc = collector_drain_one(c, j);
	c->owner_gone = 0;
	if (rc < 0 || c->rings[j].corrupt || !(r = shm_host_ring(c->h, j)))
		return;
	if (c->h->tail[j] != __atomic_load_n(&r->head, __ATOMIC_ACQUIRE))
		return;
	st = __atomic_load_n(&r->state, __ATOMIC_ACQUIRE);
	__atomic_store_n(&r->pid, 0, __ATOMIC_RELEASE);
	if (st == RING_FREE || __atomic_compare_exchange_n(&r->state, &st, RING_FREE, 0,
							   __ATOMIC_RELEASE, __ATOMIC_RELAXED)) {
		c->rings[j].owned = 0;
		shm_host_ring_unmap(c->h, j);
	}
}

static void collector_end_proc(struct collector *c, uint32_t i, uint32_t pid)
{
	struct shm_proc *p = shm_proc_at(c->h->ctl, i);
	uint32_t n = shm_host_nrings(c->h), st;

	for (uint32_t j = 0; j < n; j++) {
		struct shm_ring hdr;

		if (c->rings[j].corrupt || shm_host_ring_peek(c->h, j, &hdr) < 0 ||
		    hdr.proc_slot != i || hdr.pid != pid)
			continue;
		collector_free_ring(c, j);
	}
	write_proc_slot(c, i, 1);
	c->proc_gen[i] = 0;
	c->proc_rec[i] = 0; /* the slot's next process records itself */
	c->proc_cut[i] = 0;
	c->proc_written[i] = 0;
	collector_maps_keep(c, i, 0, 0, NULL, 0);
	if (c->pidfd[i] >= 0)
		close(c->pidfd[i]);
	c->pidfd[i] = -1;
	/* (pid stays: spool record reads the first process's slot after the
	 * run; the next owner stores its own when it claims the slot) */
	st = __atomic_load_n(&p->state, __ATOMIC_ACQUIRE);
	if (st == PROC_LIVE || st == PROC_ENDED || st == PROC_CLAIMED)
		__atomic_compare_exchange_n(&p->state, &st, PROC_FREE, 0, __ATOMIC_RELEASE,
					    __ATOMIC_RELAXED);
	/* a process waiting for a slot may wait again */
	__atomic_store_n(&c->h->ctl->procs_stalled, 0, __ATOMIC_RELAXED);
	c->st.procs_ended++;
}

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

/*
 * A process that found no process slot (--max-procs exceeded) has no slot
 * to end, so collector_end_proc never frees its rings: a thread that ended
 * through exit_group (every process's last) leaves its ring RING_ACTIVE.
 * Such a ring is freed once the kernel says its thread is gone (tgkill
 * with signal 0: ESRCH; a zombie not yet reaped still counts as there).
 * A new thread that reuses the tid in another process fails the tgkill
 * match of pid and tid, or keeps the ring until it ends: the ring is kept
 * too long, never freed under a live owner. The header is a peeked copy
 * that only selects the ring; freeing it goes through spool's own mapping.
 */
static void collector_reap_slotless(struct collector *c)
{
	uint32_t n = shm_host_nrings(c->h);

	for (uint32_t j = 0; j < n; j++) {
		struct shm_ring hdr;

		if (c->rings[j].corrupt || shm_host_ring_peek(c->h, j, &hdr) < 0 ||
		    hdr.state != RING_ACTIVE || hdr.proc_slot < c->h->max_procs || !hdr.pid ||
		    hdr.pid > INT32_MAX || !hdr.tid || hdr.tid > INT32_MAX)
			continue;
		if (syscall(SYS_tgkill, (pid_t)hdr.pid, (pid_t)hdr.tid, 0) == 0 || errno != ESRCH)
			continue;
		collector_free_ring(c, j);
	}
}

/*
 * Which processes have ended? A pidfd on each slot's process, opened when
 * the collector first sees the slot live (within a drain, 50 ms, of the
 * process's start: its pid cannot have been reused by then), polls
 * readable once the process has exited, zombie or reaped; one poll covers
 * every slot. An image that exec'd away is marked PROC_ENDED by the next
 * image's agent. Where pidfds do not exist (before Linux 5.3) a process is
 * taken as alive until kill says its pid is gone.
 */
/*
 * Is pid one of the program's processes? It was read from a process slot,
 * which the program can write: a pid there could be any process of the
 * machine (even 1), and spool would wait for it to end and call the trace
 * incomplete while it runs. The program's processes descend from spool
 * (it is their subreaper) or, attached, map spool's shared memory: a
 * process that does neither is not the program's. Checked once per pid a
 * slot shows, when its pidfd is opened.
 */
static int collector_pid_ours(struct collector *c, pid_t pid)
{
	struct stat st;

	if (procinfo_descends(pid, getpid()))
		return 1;
	if (fstat(c->h->fd, &st) < 0)
		return 1; /* (cannot tell: trusted, as before) */
	return procinfo_maps_file(pid, st.st_dev, st.st_ino) != 0;
}

/* A slot whose pid is not the program's: it is not waited for nor counted
 * as running; what the program wrote stays in the region, the collector
 * only remembers not to believe it. */
static void collector_foreign_pid(struct collector *c, uint32_t i, uint32_t pid)
{
	close(c->pidfd[i]);
	c->pidfd[i] = -1;
	c->foreign_pid[i] = pid;
	c->st.foreign_pids++;
	if (!c->foreign_said++)
		log_warn("the program wrote pid %u, not one of its processes, into spool's "
			 "shared memory (process slot %u): spool does not wait for it",
			 pid, i);
}

static void collector_reap_procs(struct collector *c)
{
	uint32_t np = 0;

	for (uint32_t i = 0; i < c->h->max_procs; i++) {
		struct shm_proc *p = shm_proc_at(c->h->ctl, i);
		uint32_t st = __atomic_load_n(&p->state, __ATOMIC_ACQUIRE);
		uint32_t pid = __atomic_load_n(&p->pid, __ATOMIC_ACQUIRE);
		int alive_state = st == PROC_LIVE || st == PROC_CLAIMED;

		if (c->pidfd[i] >= 0 && (c->pidfd_pid[i] != pid || !alive_state)) {
			close(c->pidfd[i]);
			c->pidfd[i] = -1;
		}
		if (!pid || pid > INT32_MAX)
			continue;
		if (st == PROC_ENDED) {
			collector_end_proc(c, i, pid);
			continue;
		}
		if (!alive_state)
			continue;
		if (pid == c->foreign_pid[i])
			continue;
		if (c->pidfd[i] < 0) {
			c->pidfd[i] = (int)syscall(SYS_pidfd_open, (pid_t)pid, 0);
			c->pidfd_pid[i] = pid;
			if (c->pidfd[i] < 0) {
				if (errno == ESRCH || (kill((pid_t)pid, 0) < 0 && errno == ESRCH))
					collector_end_proc(c, i, pid);
				continue;
			}
			if (!collector_pid_ours(c, (pid_t)pid)) {
				collector_foreign_pid(c, i, pid);
				continue;
			}
		}
		c->pfds[np].fd = c->pidfd[i];
		c->pfds[np].events = POLLIN;
		c->pfds[np].revents = 0;
		c->pfd_slot[np++] = i;
	}
	collector_reap_slotless(c);
	if (!np || poll(c->pfds, np, 0) <= 0)
		return;
	for (uint32_t k = 0; k < np; k++) {
		uint32_t i = c->pfd_slot[k];

		if (c->pfds[k].revents)
			collector_end_proc(c, i, c->pidfd_pid[i]);
	}
}

/* A loss count the agent keeps in the control block, which the program
 * can write: above COLLECT_MAX_NO_RING it is not believed (said, the
 * control block marked damaged, counted as 0). */
static uint64_t collector_ctl_count(struct collector *c, const uint64_t *at, const char *what)
{
	uint64_t v = __atomic_load_n(at, __ATOMIC_RELAXED);

	if (v <= COLLECT_MAX_NO_RING)
		return v;
	c->st.ctl_damaged = 1;
	log_warn("the program overwrote the count of events lost %s (%llu): it is not "
		 "trusted, the true count is unknown",
		 what, (unsigned long long)v);
	return 0;
}

/* The control block's fixed fields as spool wrote them? A program that
 * overwrote them gets told (spool itself never reads them back). */
static void collector_check_ctl(struct collector *c)
{
	const struct shm_ctl *k = c->h->ctl;

	if (k->magic != SHM_MAGIC || k->version != SHM_VERSION || k->ctl_size != SHM_CTL_SIZE ||
	    k->total_size != c->h->size || k->procs_offset != SHM_CTL_SIZE ||
	    k->rings_offset != shm_rings_offset(c->h->max_procs) ||
	    k->ring_bytes != c->h->ring_bytes || k->max_rings != c->h->max_rings ||
	    k->watermark != c->h->watermark || k->max_procs != c->h->max_procs) {
		c->st.ctl_damaged = 1;
		log_warn("the program overwrote spool's control block in the shared memory "
			 "(sizes, offsets or its magic number); spool kept its own copy");
	}
	c->st.lost_no_ring = collector_ctl_count(c, &k->lost_no_ring, "for lack of a ring");
	c->st.lost_fork = collector_ctl_count(c, &k->lost_fork, "in fork children");
	c->st.lost_clone = collector_ctl_count(c, &k->lost_clone, "in threads of its own clone");
	c->st.lost_pidns = collector_ctl_count(c, &k->lost_pidns,
					       "in a pid namespace with its own /proc");
	/* a count (said, never used as a size): any value is only believed */
	c->st.raw_clones = __atomic_load_n(&k->raw_clones, __ATOMIC_RELAXED);
	c->st.unseen_clones = __atomic_load_n(&k->unseen_clones, __ATOMIC_RELAXED);
	if (c->st.unseen_clones > c->st.raw_clones)
		c->st.unseen_clones = c->st.raw_clones;
	c->st.lost_no_proc = collector_lost_no_proc(c);
}

int collector_use_packets(struct collector *c, uint32_t features)
{
	const char *v = getenv("SPOOL_RING_PACKETS");

	/* the default; SPOOL_RING_PACKETS=0 keeps the records mode */
	if ((v && !strcmp(v, "0")) || trace_writer_format(c->w) != 2 ||
	    (features & (SHM_FEAT_RECORD | SHM_FEAT_REPLAY)))
		return 0;
	c->h->packets = 1;
	c->h->ctl->flags |= SHM_F_PACKETS;
	return 1;
}

int collector_finish(struct collector *c, struct collector_stats *st)
{
	struct trace_loss l;
	int rc, rc2;

	/* The program has ended (or is left running: the trace ends here):
	 * the packets its threads had open are taken as far as they go. */
	c->owner_gone = c->h->packets;
	rc = collector_drain(c);
	c->owner_gone = 0;
	c->finishing = 1;
	rc2 = write_proc_files(c, 1);
	c->st.lost_ring = 0;
	c->st.lost_damaged = 0;
	for (uint32_t i = 0; i < c->h->max_rings; i++) {
		struct ring_state *rs = &c->rings[i];

		if (rs->corrupt) {
			struct shm_ring hdr;
			uint64_t d = collector_damage_estimate(c, i, &hdr);

			if (d > rs->damaged)
				rs->damaged = d;
			/* The trace says it too (events_discarded of the stream). */
			if (rs->stream)
				trace_stream_discarded(rs->stream,
						       rs->lost_seen + rs->damaged + rs->cut);
		}
		c->st.lost_ring += rs->lost_seen + rs->damaged + rs->cut;
		c->st.lost_damaged += rs->damaged;
	}
	collector_check_ctl(c);
	if (c->st.raw_clones)
		log_warn("the program made %u thread%s with its own clone system call (libc's "
			 "clone() or its own syscall instruction, not pthread_create): spool has "
			 "no thread state of %s own (%s %s creator's) and its syscall user "
			 "dispatch does not reach %s%s",
			 c->st.raw_clones, c->st.raw_clones == 1 ? "" : "s",
			 c->st.raw_clones == 1 ? "its" : "their",
			 c->st.raw_clones == 1 ? "it shares" : "they share",
			 c->st.raw_clones == 1 ? "its" : "their",
			 c->st.raw_clones == 1 ? "it" : "them",
			 c->st.lost_clone ? ", so their events are not recorded (counted as lost)" : "");
	/* Found by their stack (agent_thread_offstack): the first one only,
	 * the others then share a state already shared. */
	if (c->st.unseen_clones)
		log_warn("spool found %u of these threads running on %s creator's thread state "
			 "without having seen %s made (the program's own clone system call, which "
			 "neither spool's clone() wrapper nor its syscall user dispatch reached): "
			 "more may have run unseen, and %s events before that were written as %s "
			 "creator's",
			 c->st.unseen_clones, c->st.unseen_clones == 1 ? "its" : "their",
			 c->st.unseen_clones == 1 ? "it" : "them",
			 c->st.unseen_clones == 1 ? "its" : "their",
			 c->st.unseen_clones == 1 ? "its" : "their");
	if (c->st.corrupt_rings)
		log_warn("%llu ring%s damaged by the program: at least %llu events lost",
			 (unsigned long long)c->st.corrupt_rings, c->st.corrupt_rings > 1 ? "s" : "",
			 (unsigned long long)c->st.lost_damaged);
	if (!rc)
		rc = collector_flush(c);
	note_loss(c);
	trace_writer_loss(c->w, &l);
	c->st.lost_write = l.write;
	/* events and lock_events count what reached the disk */
	{
		/* (unwritten records were never counted in events) */
		uint64_t w = l.write - c->st.unwritten;

		c->st.events -= w < c->st.events ? w : c->st.events;
	}
	c->st.lock_events -= trace_writer_lost_kind(c->w, KIND_LOCK);
	/* which lock records the disk refused is not kept: the thread events
	 * stay at most what is left */
	if (c->st.thread_events > c->st.lock_events)
		c->st.thread_events = c->st.lock_events;
	c->st.sched_events -= trace_writer_lost_kind(c->w, KIND_SCHED);
	c->st.lost_files = l.side_files;
	c->st.zsaved = c->z.saved;
	if (st)
		*st = c->st;
	return rc ? rc : rc2;
}

uint32_t collector_live_procs(struct collector *c, uint32_t *pids, uint32_t max)
{
	uint32_t n = 0;

	/* slots of processes that have exited are freed first */
	collector_reap_procs(c);
	for (uint32_t i = 0; i < c->h->max_procs; i++) {
		struct shm_proc *p = shm_proc_at(c->h->ctl, i);
		uint32_t st = __atomic_load_n(&p->state, __ATOMIC_ACQUIRE);
		uint32_t pid = __atomic_load_n(&p->pid, __ATOMIC_ACQUIRE);

		if ((st != PROC_LIVE && st != PROC_CLAIMED) || !pid || pid > INT32_MAX ||
		    pid == c->foreign_pid[i])
			continue;
		/* (an exec'd image's slot and the next image's share the pid) */
		if (st == PROC_LIVE && collector_pid_live_elsewhere(c, i, pid) && pids) {
			int dup = 0;

			for (uint32_t k = 0; k < n && k < max; k++)
				dup |= pids[k] == pid;
			if (dup)
				continue;
		}
		if (pids && n < max)
			pids[n] = pid;
		n++;
	}
	return n;
}

void collector_still_running(struct collector *c, uint64_t n)
{
	c->st.still_running = n;
	note_loss(c);
}

int collector_sync_procs(struct collector *c)
{
	return write_proc_files(c, 0);
}

/*
 * The maps of every live process whose maps changed since they were last
 * kept, merged with those (maps_keep.h), without writing them: cheap
 * (a copy of the text when a dlopen changed it), so it runs every turn of
 * the collector's loop, where the files are written once a second. A
 * library loaded and unloaded between two looks (about 50 ms) is missed.
 */
void collector_keep_maps(struct collector *c)
{
	for (uint32_t i = 0; i < c->h->max_procs; i++) {
		struct shm_proc *p = shm_proc_at(c->h->ctl, i);
		uint32_t state = __atomic_load_n(&p->state, __ATOMIC_ACQUIRE);
		uint32_t gen = __atomic_load_n(&p->maps_gen, __ATOMIC_ACQUIRE);
		uint32_t pid = __atomic_load_n(&p->pid, __ATOMIC_ACQUIRE);
		char *maps = NULL;
		size_t len;
		int cut;

		if (state != PROC_LIVE || !pid || gen % 2 ||
		    (c->proc_maps_pid[i] == pid && c->proc_maps_gen[i] == gen))
			continue;
		if (shm_host_proc_text(c->h, i, 1, &maps, &len, &cut) < 0)
			continue;
		if (__atomic_load_n(&p->maps_gen, __ATOMIC_ACQUIRE) != gen) {
			free(maps); /* rewritten while we copied: next time */
			continue;
		}
		collector_maps_merge(c, i, pid, gen, &maps, &len);
		collector_maps_keep(c, i, pid, gen, maps, len);
	}
}
