// SPDX-License-Identifier: MIT
/*
 * kinds.h - record kinds described by a table instead of code.
 *
 * The first kinds (lock, thread, lockdef, proc, user) are encoded field by
 * field in writer.c and reader.c. Every later kind is described here once:
 * its CTF name, the TSDL of its fields, and its size; writer and reader then
 * copy the payload as it is. That works because the trace is little-endian
 * with byte-aligned fields, so a payload whose C struct has no implicit
 * padding has the same bytes in a ring and in a CTF event. A new kind is a
 * struct in src/common/event.h (explicit padding, a _Static_assert on its
 * size) plus one row in kinds.c, and a section in doc/trace-format.md.
 *
 * CTF layout of a table kind: event header (id, timestamp), then
 *   format 1: spool_word_t word; uint32_t seq; <payload bytes as the TSDL says>
 *   format 2: uint8_t op; uint32_t obj; <the same payload bytes>
 */
#ifndef SPOOL_TRACE_KINDS_H
#define SPOOL_TRACE_KINDS_H

#include <stdint.h>

struct trace_kind_desc {
	unsigned kind;		 /* KIND_* */
	const char *name;	 /* CTF event name, "spool:..." */
	uint32_t fixed;		 /* payload bytes after struct rec_hdr, tail excluded */
	int32_t tail_count_off;	 /* payload offset of a uint32 element count, or -1 */
	uint32_t tail_elem;	 /* bytes per tail element (0: no tail) */
	const char *tsdl_fields; /* TSDL field lines after word and seq, byte-aligned types */
};

/* NULL when the kind is not a table kind. */
const struct trace_kind_desc *trace_kind_find(unsigned kind);
/* Iterate: NULL after the last. */
const struct trace_kind_desc *trace_kind_at(unsigned i);

#endif
