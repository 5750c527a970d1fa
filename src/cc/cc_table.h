// SPDX-License-Identifier: MIT
/*
 * cc_table.h - the translation table spool-ccopt writes and spool decode
 * reads (doc/cc.md is the specification). Included by the optimizer (which
 * links LLVM) and by the host tool (which must not), so it holds only the
 * numbers both must agree on and the hash; no code that needs either side.
 *
 * One table per translation unit, as text, in the non-allocated ELF section
 * CC_TABLE_SECTION; the linker concatenates the tables of all objects:
 *
 *	spool-cc-table 6 <hash, 16 hex digits> <number of merged events>\n
 *	m <index> <values emitted> <lines> [<before>] [s<c>] [x<j>,<n>] [t<c>]\n
 *							one per merged event, then
 *	e <event id> <nargs> <arg>... [r<n>] [o<c>]\n	one per original event, where
 *							<arg> is c<int64> (a constant),
 *							a<k> (the k-th emitted value),
 *							p<k> (the k-th value of the
 *							record <before>: m<index> or
 *							u<id>) or f... (a formula)
 *	end\n
 *
 * o<c>: the optimizer's estimate of how many cycles after the group's first
 * call the original call would have run, s<c> the same for the merged call
 * (CC_CYCLES_PER_INSN per instruction between them); absent: 0. So the
 * event ran s - o cycles before the merged record. (Version 4 had d<c>, the
 * cycles before the merged call, on the e line.)
 *
 * t<c>: an untimed record (spool_trace_emit_nt: the agent reads no TSC, the
 * collector gives it the time of the thread's record before it); the
 * record ran about c cycles after that record (CC_CYCLES_PER_INSN per
 * instruction between the two calls in their block).
 *
 * x<j>,<n>: the event's first n original events are the first n of merged
 * event j (j < index, as expanded), and <lines> lines of its own follow:
 * a table stores a shared prefix once.
 *
 * (doc/cc.md has the details: formulas, repeats.)
 *
 * The hash is FNV-1a 64 over every byte after the first line up to and
 * including "end\n". A merged event's id at run time is
 * CC_ID(key, index), key = CC_KEY(hash); the unit's hash itself is emitted
 * once per process as event CC_ID(key, CC_HELLO_INDEX) with the 64-bit hash as
 * its one argument, so a decoder can refuse a table from another build.
 */
#ifndef SPOOL_CC_CC_TABLE_H
#define SPOOL_CC_CC_TABLE_H

#include <stdint.h>

#define CC_TABLE_SECTION ".spool_cc_table"
#define CC_TABLE_MAGIC "spool-cc-table"
#define CC_TABLE_VERSION 6 /* 2: formulas (f...); 3: p<k>, r<n>, m ... <ref>; 4: d<cycles>;
			    * 5: o<cycles>, s<cycles>, x<j>,<n>; 6: t<cycles> */
#define CC_EVENTS_SECTION "spool_events" /* struct spool_event_desc, spool/trace.h */

#define CC_ID_BASE 0x80000000u
#define CC_INDEX_BITS 12
#define CC_KEY_BITS 19
#define CC_HELLO_INDEX ((1u << CC_INDEX_BITS) - 1) /* the table-hash event */
#define CC_MAX_MERGED CC_HELLO_INDEX		   /* merged events per unit */
#define CC_MAX_EMIT 64				   /* values per merged call */
#define CC_CYCLES_PER_INSN 1 /* the d<c> estimate: cycles per IR instruction */
#define CC_MAX_CYCLES 1000000u /* a d<c> the decoder accepts */

#define CC_KEY(hash) ((uint32_t)((hash) >> 20) & ((1u << CC_KEY_BITS) - 1))
#define CC_ID(key, index) (CC_ID_BASE | ((uint32_t)(key) << CC_INDEX_BITS) | (uint32_t)(index))
#define CC_ID_KEY(id) (((id) >> CC_INDEX_BITS) & ((1u << CC_KEY_BITS) - 1))
#define CC_ID_INDEX(id) ((id) & ((1u << CC_INDEX_BITS) - 1))

static inline uint64_t cc_hash(const char *p, uint64_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (uint64_t i = 0; i < len; i++) {
		h ^= (unsigned char)p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

#endif
