// SPDX-License-Identifier: MIT
/*
 * check2.c - the collector's check of a format 2 packet the agent wrote in
 * its ring (SHM_F_PACKETS) before the packet is copied to a stream file.
 * The ring is the target's memory, so a packet is hostile input: this walks
 * its event headers with the rules of the reader (dec2.c) without decoding
 * or re-encoding anything - each event's id and length, a site definition's
 * index, a short event's site below the packet's count of sites, an op in
 * range, times from timestamp_begin (its first event's) to timestamp_end
 * (its last event's), and the count of events the header claims. A packet
 * that passes reads in every reader the way the agent wrote it (but for
 * values a program rewrote in place with others of the same shape, as in
 * the records mode); one that fails makes the collector abandon the ring
 * and count its loss, so a run never writes a damaged packet as good data
 * (doc/trace-format.md, "Packets in the ring"). A few nanoseconds per event.
 */
#include <errno.h>

#include "reader_int.h"
#include "trace.h"
#include "trace_int.h"

int trace_pkt2_check(uint8_t *pkt, size_t len, int open, struct trace_pkt2_counts *c,
		     const char **why)
{
	const uint8_t *p = pkt + TRACE_PKT_HDR_SIZE2, *e = pkt + len;
	uint64_t ts_begin, prev;
	uint32_t nev = 0, nsites = 0, seq, last, nlock = 0, nthread = 0, nproc = 0, nlockth = 0;
	/* the lock prediction: the lock of the previous event when it was a
	 * lock event, else 0 (format 2.2's class 18 names it) */
	uint32_t lockp = 0;
	/* what a thread start and a process record in the packet claim
	 * (trace_pkt2_owner_check judges it) */
	uint32_t th_tid = 0, th_pid = 0, pr_pid = 0, pr_slot = 0;
	int th_moved = 0, pr_early = 0;
	int ret = -EPROTO;

	if (len <= TRACE_PKT_HDR_SIZE2) {
		*why = "a packet has no events";
		return -EPROTO;
	}
	ts_begin = trace_get64(pkt + TRACE_PC_TS_BEGIN);
	prev = ts_begin;
	seq = trace_get32(pkt + TRACE_PC_FIRST_SEQ);
	last = seq;
	while (p < e) {
		size_t left, need;
		uint64_t tsc;
		unsigned id;
		uint32_t v;

		/* The common run: probe events, 8 bytes each (a compact header
		 * and the site and stack pointer delta), after the first event
		 * (whose time is timestamp_begin, checked below), in a loop of
		 * their own: no switch, and the last seq in a register, stored
		 * through c once (callgrind counted 38 instructions per event
		 * in the collector's check before). The same rules as below. */
		if (nev && e - p >= 8) {
			const uint8_t *p0 = p, *last8 = e - 8;
			uint32_t k;

			for (; p <= last8; p += 8) {
				v = trace_get32(p);
				if ((v & 31) - TRACE2_PROBE_ENTRY > TRACE2_PROBE_HIT - TRACE2_PROBE_ENTRY)
					break;
				if (trace_get16(p + TRACE2_COMPACT_HDR) >= nsites)
					goto out_site;
				/* the first time at or after prev with these low bits,
				 * as below */
				prev += ((v >> 5) - prev) & TRACE2_TS_MASK;
			}
			k = (uint32_t)((p - p0) / 8);
			if (k) {
				nev += k;
				seq += k;
				last = seq - 1;
				lockp = 0;
			}
			if (p >= e)
				break;
		}
		/* The lock run: spool:lock_op (11 bytes), spool:lock_release (8)
		 * and format 2.2's class 18 (6) with compact
		 * headers, as an uncontended lock/unlock pair writes them, in a loop of their own for the same reason and
		 * with the same rules as below (perf put the check at 10 % of
		 * the CPU of `spool locks` on bench_locks own 2 2000000). An
		 * event it does not take (another id, an op out of range, a
		 * release with no lock before it, the end of the packet) is left
		 * to the general path, which judges it. */
		if (nev && e - p >= 6) {
			uint32_t k = 0;

			for (;;) {
				size_t room = (size_t)(e - p);

				if (room < 6)
					break;
				v = trace_get32(p);
				if ((v & 31) == TRACE2_LOCK_OP) {
					if (room < 11 || p[4] > EV_OP_MASK)
						break;
					if (trace_get16(p + 9) >= nsites)
						goto out_site;
					nlockth += ev_op_is_thread(p[4]);
					lockp = trace_get32(p + 5);
					p += 11;
				} else if ((v & 31) == TRACE2_RELEASE) {
					if (room < 8 || !trace_get16(p + 6))
						break;
					if (trace_get16(p + 4) >= nsites)
						goto out_site;
					lockp = trace_get16(p + 6);
					p += 8;
				} else if ((v & 31) == TRACE2_LOCK_RELEASE && lockp) {
					if (trace_get16(p + 4) >= nsites)
						goto out_site;
					p += 6;
				} else {
					break;
				}
				prev += ((v >> 5) - prev) & TRACE2_TS_MASK;
				k++;
			}
			if (k) {
				nev += k;
				nlock += k;
				seq += k;
				last = seq - 1;
			}
			if (p >= e)
				break;
		}
		left = (size_t)(e - p);
		if (left < TRACE2_COMPACT_HDR)
			goto out_short;
		v = trace_get32(p);
		if ((v & 31) != TRACE2_EXTENDED) {
			id = v & 31;
			tsc = (prev & ~TRACE2_TS_MASK) | (v >> 5);
			if (tsc < prev)
				tsc += TRACE2_TS_MASK + 1;
			p += TRACE2_COMPACT_HDR;
			left -= TRACE2_COMPACT_HDR;
		} else {
			if (left < TRACE2_EXTENDED_HDR)
				goto out_short;
			if (p[0] != TRACE2_EXTENDED || trace_get32(p + 1) > 0xff)
				goto out_id;
			id = (unsigned)trace_get32(p + 1);
			/* A time that goes back is not refused: the records
			 * mode writes one as it comes too (an event stamped
			 * before a signal handler's, committed after it), and
			 * the agent writes it in this form. */
			tsc = trace_get64(p + 5);
			p += TRACE2_EXTENDED_HDR;
			left -= TRACE2_EXTENDED_HDR;
		}
		/* the agent sets timestamp_begin to its first event's time */
		if (!nev && tsc != ts_begin) {
			*why = "timestamp_begin is not its first event's time";
			goto out;
		}
		prev = tsc;
		nev++;
		switch (id) {
		case TRACE2_SITE:
			if (left < TRACE2_SITE_SIZE)
				goto out_short;
			if (trace_get32(p) != nsites) {
				*why = "a site is defined out of order";
				goto out;
			}
			nsites++;
			p += TRACE2_SITE_SIZE;
			continue; /* not a record: no seq */
		case TRACE2_LOCK_OP:
			if (left < 7)
				goto out_short;
			if (p[0] > EV_OP_MASK)
				goto out_op;
			if (trace_get16(p + 5) >= nsites)
				goto out_site;
			nlock++;
			nlockth += ev_op_is_thread(p[0]);
			lockp = trace_get32(p + 1);
			p += 7;
			break;
		case TRACE2_LOCK_RELEASE:
			if (left < 2)
				goto out_short;
			if (!lockp) {
				*why = "a lock release follows no lock event";
				goto out;
			}
			if (trace_get16(p) >= nsites)
				goto out_site;
			nlock++; /* OP_RELEASE: not a thread's */
			p += 2;
			break;
		case TRACE2_RELEASE:
			if (left < 4)
				goto out_short;
			if (!trace_get16(p + 2)) {
				*why = "a release of lock 0";
				goto out;
			}
			if (trace_get16(p) >= nsites)
				goto out_site;
			nlock++; /* OP_RELEASE: not a thread's */
			lockp = trace_get16(p + 2);
			p += 4;
			break;
		case TRACE2_FUNC_ENTRY:
		case TRACE2_FUNC_EXIT:
			if (left < 2)
				goto out_short;
			if (trace_get16(p) >= nsites)
				goto out_site;
			lockp = 0;
			p += 2;
			break;
		case TRACE2_PROBE_ENTRY:
		case TRACE2_PROBE_EXIT:
		case TRACE2_PROBE_HIT:
			if (left < 4)
				goto out_short;
			if (trace_get16(p) >= nsites)
				goto out_site;
			lockp = 0;
			p += 4;
			break;
		default: {
			size_t head = TRACE2_FULL_HEAD + (id == KIND_THREAD ? 4 : 0), rest;
			unsigned kind = trace2_kind_of(id);

			if (kind == 0 || kind >= KIND_MAX)
				goto out_id;
			if (left < head)
				goto out_short;
			rest = trace_rd_rest_len(kind, p + head, left - head);
			if (!rest)
				goto out_id;
			need = head + rest;
			if (need > left)
				goto out_short;
			if (p[0] > EV_OP_MASK)
				goto out_op;
			lockp = id == KIND_LOCK ? trace_get32(p + 1) : 0;
			if (id == KIND_THREAD) {
				uint32_t ts = trace_get32(p + TRACE2_FULL_HEAD);

				/* the reader numbers on from the thread's seq: one
				 * that is not the next in the packet moves the
				 * numbering without a packet header's first_seq */
				if (!nthread) {
					th_tid = trace_get32(p + head);
					th_pid = trace_get32(p + head + 4);
					th_moved = ts != seq;
				}
				seq = ts;
				nthread++;
			} else if (id == KIND_LOCK) {
				nlock++;
				nlockth += ev_op_is_thread(p[0]);
			} else if (id == KIND_PROC) {
				if (!nproc) {
					pr_pid = trace_get32(p + head);
					pr_slot = trace_get32(p + head + 8);
					pr_early = !nthread;
				}
				nproc++;
			}
			p += need;
			break;
		}
		}
		/* a record: the reader numbers it from first_seq */
		last = seq++;
	}
	if (open) {
		/* A packet whose writer died, cut at head: its count and end
		 * time may already name the event it was writing. */
		trace_put32(pkt + TRACE_PC_EVENTS, nev);
		trace_put64(pkt + TRACE_PC_TS_END, prev);
	} else if (trace_get32(pkt + TRACE_PC_EVENTS) != nev) {
		*why = "a packet's event count is not its events'";
		goto out;
	} else if (trace_get64(pkt + TRACE_PC_TS_END) != prev) {
		*why = "timestamp_end is not its last event's time";
		goto out;
	}
	c->events = nev - nsites;
	c->lock = nlock;
	c->lock_thread = nlockth;
	c->thread = nthread;
	c->proc = nproc;
	c->thread_tid = th_tid;
	c->thread_pid = th_pid;
	c->thread_moved = th_moved;
	c->proc_pid = pr_pid;
	c->proc_slot = pr_slot;
	c->proc_early = pr_early;
	ret = 0;
	goto out;

out_short:
	*why = "an event overruns its packet";
	goto out;
out_id:
	*why = "an event has an unknown id";
	goto out;
out_op:
	*why = "an event's op is out of range";
	goto out;
out_site:
	*why = "an event names a site its packet did not define";
out:
	c->last_seq = last;
	return ret;
}

int trace_pkt2_owner_check(const uint8_t *pkt, size_t len, const struct trace_pkt2_counts *c,
			   const struct trace_pkt2_owner *o, uint32_t *gap, const char **why)
{
	uint32_t first, prev, d;

	*gap = 0;
	if (len < TRACE_PKT_HDR_SIZE2) {
		*why = "a packet has no header";
		return -EPROTO;
	}
	if (trace_get32(pkt + TRACE_PC_PID) != o->pid || trace_get32(pkt + TRACE_PC_TID) != o->tid) {
		*why = "a packet names another thread than its ring's";
		return -EPROTO;
	}
	if (c->thread > 1) {
		*why = "a packet starts more than one thread";
		return -EPROTO;
	}
	/* A thread starts once in a ring it was given: in the first packets
	 * the collector takes from it, under its own tid and pid, numbered
	 * as the packet is. */
	if (c->thread && !o->fresh) {
		*why = "a packet starts a thread in a ring its thread already had";
		return -EPROTO;
	}
	if (c->thread && (c->thread_tid != o->tid || c->thread_pid != o->pid)) {
		*why = "a thread record names another thread than its ring's";
		return -EPROTO;
	}
	if (c->thread && c->thread_moved) {
		*why = "a thread record renumbers its packet";
		return -EPROTO;
	}
	/* A process is recorded once, by the first thread the agent gives a
	 * ring, right after that thread's start (agent_thread.c). */
	if (c->proc > 1 || (c->proc && (!c->thread || c->proc_early))) {
		*why = "a process record is not at its thread's start";
		return -EPROTO;
	}
	if (c->proc && (c->proc_pid != o->pid || c->proc_slot != o->proc_slot)) {
		*why = "a process record names another process than its ring's";
		return -EPROTO;
	}
	/* (serial numbers: a thread's seq may wrap) A thread numbers its
	 * events from 1; every number skipped is an event it dropped and
	 * counted in its ring's lost (ring_produce.h), never more. */
	first = trace_get32(pkt + TRACE_PC_FIRST_SEQ);
	prev = o->fresh ? 0 : o->prev;
	d = first - prev;
	if ((int32_t)d <= 0) {
		*why = "a packet's numbering goes back";
		return -EPROTO;
	}
	if (d - 1 > o->gap_room) {
		*why = "a packet's numbering skips events its thread did not count as lost";
		return -EPROTO;
	}
	*gap = d - 1;
	return 0;
}
