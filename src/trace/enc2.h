// SPDX-License-Identifier: MIT
/*
 * enc2.h - encoding records as trace format 2 events (private to src/trace):
 * the compact or extended header, the short classes when they say the whole
 * record, the site table and the predictions of one packet
 * (doc/trace-format.md, "Version 2: compact events").
 */
#ifndef SPOOL_TRACE_ENC2_H
#define SPOOL_TRACE_ENC2_H

#include <stddef.h>
#include <stdint.h>

#include "../common/event.h"

struct trace_enc2_slot {
	uint64_t addr, caller;
	uint32_t probe;
	uint32_t gen; /* the packet it belongs to: older ones are empty */
	uint32_t idx;
};

/* One stream's encoder: what the reader will know at each point of the
 * packet being filled. */
struct trace_enc2 {
	struct trace_enc2_slot *slots; /* open addressing, cap a power of 2 */
	uint32_t cap;
	uint32_t nsites; /* sites defined in this packet */
	uint32_t gen;
	uint64_t prev_tsc; /* the previous event's TSC (timestamp_begin first) */
	uint32_t depth;	   /* predicted function depth */
	uint64_t sp;	   /* the previous probe event's stack pointer */
	uint32_t lock;	   /* the previous event's lock when it was a lock event, else 0 */
};

/* A new packet whose timestamp_begin is tsc: no sites, predictions at 0. */
void trace_enc2_packet(struct trace_enc2 *e, uint64_t tsc);
/* Bytes the record may take at most (a site definition and the full form),
 * given its version-1 size v1 (0: not writable). */
size_t trace_enc2_max(const struct rec_hdr *rec, size_t v1);
/* Encode rec at p; returns its bytes and adds the events written (1, or 2
 * with a site definition) to *events. */
size_t trace_enc2_put(struct trace_enc2 *e, uint8_t *p, const struct rec_hdr *rec, size_t v1,
		      uint32_t *events);
/* The short form of a probe entry, exit or hit (what trace_enc2_put writes
 * for one): its bytes, with a site definition first when the packet has
 * none for it (counted in *events; the event itself is not); 0 and nothing
 * written nor changed when the record needs the full form. At most
 * TRACE2_PROBE_SHORT_MAX bytes. */
#define TRACE2_PROBE_SHORT_MAX (2 * 13 + 24 + 4)
size_t trace_enc2_probe(struct trace_enc2 *e, uint8_t *p, const struct rec_probe *pr,
			uint32_t *events);
void trace_enc2_free(struct trace_enc2 *e);

#endif
