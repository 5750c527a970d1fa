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
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/buildid.h"
#include "../util/log.h"
#include "collector.h"

/* A record the agent wrote without reading the TSC: only spool:user ones. */
#define COLLECT_UNTIMED(rec) ((rec)->tsc == 0 && ev_kind((rec)->word) == KIND_USER)

struct ring_state {
	struct trace_stream *stream;
	int no_stream; /* its stream could not be created: records are counted, not kept */
	uint32_t last_seq;
	int have_seq;
	int corrupt;
	uint64_t lost_seen;
	uint64_t last_tsc; /* of the last record written: an untimed record's time */
};

struct collector {
	struct shm_host *h;
	struct trace_writer *w;
	struct ring_state *rings; /* ctl->max_rings entries */
	uint32_t *proc_gen;	  /* maps_gen last written, per process slot */
	struct collector_stats st;
	uint32_t cur_ring;	  /* ring being drained, for the callback */
	struct rec_hdr *scratch;  /* an untimed record with its time filled in */
	size_t scratch_cap;
	struct trace_zinput z;	  /* --compress: packs input data (zinput.c) */
	int compress;
};

int collector_new(struct collector **out, struct shm_host *h, struct trace_writer *w)
{
	struct collector *c = calloc(1, sizeof(*c));

	if (!c)
		return -ENOMEM;
	c->h = h;
	c->w = w;
	c->rings = calloc(h->ctl->max_rings, sizeof(*c->rings));
	c->proc_gen = calloc(SHM_MAX_PROCS, sizeof(*c->proc_gen));
	if (!c->rings || !c->proc_gen) {
		collector_free(c);
		return -ENOMEM;
	}
	*out = c;
	return 0;
}

void collector_free(struct collector *c)
{
	if (!c)
		return;
	free(c->rings);
	free(c->proc_gen);
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

static int on_record(void *arg, const struct rec_hdr *rec)
{
	struct collector *c = arg;
	struct ring_state *rs = &c->rings[c->cur_ring];
	int rc;

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
		break;
	case KIND_SCHED:
		c->st.sched_events++;
		break;
	case KIND_THREAD:
		c->st.threads++;
		break;
	case KIND_PROC:
		c->st.procs++;
		break;
	}
	return 0;
}

/*
 * The thread of ring r has ended and the ring is drained: give it back to
 * the agent, which reuses it for a new thread (the handshake is described
 * in agent_thread.c). Only when everything up to head is in its stream;
 * the CAS leaves a ring alone whose state the target changed meanwhile.
 */
static void collector_release(struct shm_ring *r)
{
	uint32_t st = RING_EXITED;

	if (__atomic_load_n(&r->tail, __ATOMIC_RELAXED) !=
	    __atomic_load_n(&r->head, __ATOMIC_ACQUIRE))
		return;
	__atomic_compare_exchange_n(&r->state, &st, RING_FREE, 0, __ATOMIC_RELEASE,
				    __ATOMIC_RELAXED);
}

int collector_drain(struct collector *c)
{
	uint32_t n = shm_host_nrings(c->h);

	for (uint32_t i = 0; i < n; i++) {
		struct ring_state *rs = &c->rings[i];
		struct shm_ring *r = shm_ring_at(c->h->base, i);
		uint64_t lost;
		uint32_t state;
		int rc;

		if (rs->corrupt)
			continue;
		/* Loaded before the drain reads head: the agent stores
		 * RING_EXITED after the thread's last commit. */
		state = __atomic_load_n(&r->state, __ATOMIC_ACQUIRE);
		if (!rs->stream && !rs->no_stream) {
			uint32_t pid = __atomic_load_n(&r->pid, __ATOMIC_ACQUIRE);
			uint32_t tid = __atomic_load_n(&r->tid, __ATOMIC_ACQUIRE);

			if (__atomic_load_n(&r->head, __ATOMIC_ACQUIRE) == 0 &&
			    __atomic_load_n(&r->lost, __ATOMIC_RELAXED) == 0) {
				/* a thread that ended without a record (its
				 * KIND_THREAD always fits, so only in theory):
				 * its ring is free all the same */
				if (state == RING_EXITED)
					collector_release(r);
				continue;
			}
			rc = trace_writer_stream(c->w, i, pid, tid, &rs->stream);
			if (rc < 0) {
				/* The ring is still drained (its thread must not
				 * wait for room), into nothing: what it held is
				 * counted as not written, and the other rings go
				 * on. */
				log_err("cannot create trace stream for thread %u: %s; its events "
					"are counted as lost",
					tid, strerror(-rc));
				rs->no_stream = 1;
			}
		}
		c->cur_ring = i;
		rc = shm_host_drain_ring(c->h, i, on_record, c);
		if (rc == -EPROTO) {
			log_err("ring of thread %u (pid %u) is corrupt; its later events are lost",
				r->tid, r->pid);
			rs->corrupt = 1;
			c->st.corrupt_rings++;
		} else if (rc < 0) {
			return rc;
		}
		lost = __atomic_load_n(&r->lost, __ATOMIC_RELAXED);
		if (lost != rs->lost_seen) {
			rs->lost_seen = lost;
			if (rs->stream)
				trace_stream_discarded(rs->stream, lost);
		}
		if (state == RING_EXITED && rc >= 0)
			collector_release(r);
	}
	return 0;
}

/* The collector's part of the losses, for the trace's state file. */
static void note_loss(struct collector *c)
{
	struct trace_loss l = {
	    .no_ring = __atomic_load_n(&c->h->ctl->lost_no_ring, __ATOMIC_RELAXED),
	    .seq_gaps = c->st.seq_gaps,
	    .damaged_rings = c->st.corrupt_rings,
	    .rejected = c->st.rejected,
	    .write = c->st.unwritten,
	};

	/* the producers' drops of rings without a stream (the writer counts
	 * those of the others) */
	for (uint32_t i = 0; i < c->h->ctl->max_rings; i++)
		if (c->rings[i].no_stream)
			l.ring_full += c->rings[i].lost_seen;
	trace_writer_note_loss(c->w, &l);
}

int collector_flush(struct collector *c)
{
	int ret = 0;

	for (uint32_t i = 0; i < c->h->ctl->max_rings; i++) {
		int rc;

		if (!c->rings[i].stream)
			continue;
		rc = trace_stream_flush(c->rings[i].stream);
		if (rc < 0 && !ret)
			ret = rc;
	}
	/* what a killed spool leaves says what was lost up to here */
	note_loss(c);
	trace_writer_checkpoint(c->w);
	return ret;
}

/* Write proc/<pid>.{exe,cmdline,maps,buildids} for each process slot whose
 * maps changed since last time. */
static int write_proc_files(struct collector *c)
{
	uint32_t n = __atomic_load_n(&c->h->ctl->nprocs, __ATOMIC_ACQUIRE);
	char name[64];
	int ret = 0;

	if (n > SHM_MAX_PROCS)
		n = SHM_MAX_PROCS;
	for (uint32_t i = 0; i < n; i++) {
		struct shm_proc *p = shm_proc_at(c->h->base, i);
		uint32_t gen = __atomic_load_n(&p->maps_gen, __ATOMIC_ACQUIRE);
		size_t maps_len, cmd_len, exe_len;
		char *maps, *ids = NULL;
		size_t ids_len = 0;
		int rc;

		if (!p->pid || gen == c->proc_gen[i])
			continue;
		maps_len = p->maps_len < SHM_PROC_MAPS ? p->maps_len : SHM_PROC_MAPS;
		cmd_len = p->cmdline_len < SHM_PROC_CMDLINE ? p->cmdline_len : SHM_PROC_CMDLINE;
		exe_len = p->exe_len < sizeof(p->exe) ? p->exe_len : sizeof(p->exe);
		/* Copy out first: the agent may rewrite the slot after a dlopen. */
		maps = malloc(maps_len + 1);
		if (!maps)
			return -ENOMEM;
		memcpy(maps, p->maps, maps_len);
		maps[maps_len] = 0;
		snprintf(name, sizeof(name), "proc/%u.exe", p->pid);
		rc = trace_writer_add_file(c->w, name, p->exe, exe_len);
		snprintf(name, sizeof(name), "proc/%u.cmdline", p->pid);
		if (!rc)
			rc = trace_writer_add_file(c->w, name, p->cmdline, cmd_len);
		snprintf(name, sizeof(name), "proc/%u.maps", p->pid);
		if (!rc)
			rc = trace_writer_add_file(c->w, name, maps, maps_len);
		if (!rc && buildid_list_for_maps(maps, &ids, &ids_len) == 0) {
			snprintf(name, sizeof(name), "proc/%u.buildids", p->pid);
			rc = trace_writer_add_file(c->w, name, ids, ids_len);
		}
		free(ids);
		free(maps);
		if (rc < 0 && !ret)
			ret = rc;
		c->proc_gen[i] = gen;
	}
	return ret;
}

int collector_finish(struct collector *c, struct collector_stats *st)
{
	int rc = collector_drain(c);
	int rc2 = write_proc_files(c);
	struct trace_loss l;

	c->st.lost_ring = 0;
	for (uint32_t i = 0; i < c->h->ctl->max_rings; i++)
		c->st.lost_ring += c->rings[i].lost_seen;
	c->st.lost_no_ring = __atomic_load_n(&c->h->ctl->lost_no_ring, __ATOMIC_RELAXED);
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
	c->st.sched_events -= trace_writer_lost_kind(c->w, KIND_SCHED);
	c->st.lost_files = l.side_files;
	c->st.zsaved = c->z.saved;
	if (st)
		*st = c->st;
	return rc ? rc : rc2;
}

int collector_sync_procs(struct collector *c)
{
	return write_proc_files(c);
}
