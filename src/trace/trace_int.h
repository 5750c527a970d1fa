// SPDX-License-Identifier: MIT
/*
 * trace_int.h - constants of the on-disk layout shared by the trace writer
 * and reader (private to src/trace). doc/trace-format.md is the specification;
 * every number here appears there.
 */
#ifndef SPOOL_TRACE_TRACE_INT_H
#define SPOOL_TRACE_TRACE_INT_H

#include <endian.h>
#include <stdint.h>
#include <string.h>

/* The version the writer writes (SPOOL_TRACE_FORMAT=1 in the environment:
 * version 1 again) and the oldest the reader reads. */
#define TRACE_FORMAT_VERSION 2
#define TRACE_FORMAT_MIN 1
#define TRACE_MAGIC 0xC1FC1FC1u
#define TRACE_METADATA "metadata"
#define TRACE_METADATA_TMP ".metadata.tmp"
#define TRACE_SIDE_DIR ".spool"
#define TRACE_STREAM_PREFIX "stream_"
/* The traces of a recording's replays: TRACE/replays/1, 2, ... (replaydir.c) */
#define TRACE_REPLAYS_DIR "replays"
/* The first bytes of every metadata file spool writes: how spool knows a
 * directory is its own trace before it replaces it (tracedir.c). */
#define TRACE_METADATA_SIGNATURE "/* CTF 1.8 */\n\n/* spool trace, format version "
/* A trace is private to its user: a record trace holds the program's
 * environment and every byte it read. */
#define TRACE_DIR_MODE 0700
#define TRACE_FILE_MODE 0600
/* The state file: side file "state", created before the metadata with this
 * fixed size and only ever rewritten in place, so marking a trace finished
 * needs no new space on a full disk. */
#define TRACE_STATE_NAME "state"
/* spool receive: how the --stream connection ended (receive.c) */
#define TRACE_STREAM_NAME "stream"
#define TRACE_STATE_SIZE 4096

/* Packet header (32 bytes) then packet context (56 bytes). */
#define TRACE_PH_MAGIC 0
#define TRACE_PH_UUID 4
#define TRACE_PH_STREAM_ID 20
#define TRACE_PH_INSTANCE 24
#define TRACE_PC_TS_BEGIN 32
#define TRACE_PC_TS_END 40
#define TRACE_PC_CONTENT 48
#define TRACE_PC_PACKET 56
#define TRACE_PC_SEQ_NUM 64
#define TRACE_PC_DISCARDED 72
#define TRACE_PC_PID 80
#define TRACE_PC_TID 84
#define TRACE_PKT_HDR_SIZE 88
/* Version 2: first_seq and events after tid. */
#define TRACE_PC_FIRST_SEQ 88
#define TRACE_PC_EVENTS 92
#define TRACE_PKT_HDR_SIZE2 96

/* Event header: uint8 id, uint64 timestamp. */
#define TRACE_EV_HDR_SIZE 9

/* Payload sizes (bytes after the event header). */
#define TRACE_PL_LOCK 32 /* + 8 * nstack */
#define TRACE_PL_THREAD 44
#define TRACE_PL_LOCKDEF 36
#define TRACE_PL_PROC 28
#define TRACE_PL_USER 20 /* + 8 * nargs */

#define TRACE_PACKET_SIZE (64 * 1024)
/* The largest packet the collector copies from a ring (packets mode):
 * the agent's largest slot, SHM_PKT_SLOT_MAX (a unit test checks they
 * agree). */
#define TRACE_RING_PACKET_MAX (256 * 1024)

/* Version 2 (doc/trace-format.md, "Version 2: compact events"): the
 * compact event header (5-bit id, 27 low bits of the TSC) or the extended
 * one (id 31, uint32 id, uint64 TSC), and the short classes. */
#define TRACE2_EXTENDED 31u
#define TRACE2_COMPACT_HDR 4
#define TRACE2_EXTENDED_HDR 13
#define TRACE2_TS_BITS 27
#define TRACE2_TS_MASK ((1ull << TRACE2_TS_BITS) - 1)
enum {
	TRACE2_SITE = 10,	 /* u32 index, u32 probe, u64 addr, u64 caller */
	TRACE2_LOCK_OP = 11,	 /* u8 op, u32 lock, u16 site */
	TRACE2_FUNC_ENTRY = 12,	 /* u16 site */
	TRACE2_FUNC_EXIT = 13,	 /* u16 site */
	TRACE2_PROBE_ENTRY = 14, /* u16 site, i16 sp_delta; EXIT and HIT follow in PROBE_OP order */
	TRACE2_PROBE_EXIT = 15,
	TRACE2_PROBE_HIT = 16,
	/* Full forms of record kinds whose number is taken by a class above
	 * (KIND_TNAME is 10, spool:site's id): their ids follow the short
	 * classes' (trace2_class_of, trace2_kind_of). */
	TRACE2_TNAME = 17,
	/* u16 site: OP_RELEASE of the lock the packet's previous event (site
	 * definitions aside) named, a spool:lock or spool:lock_op or this */
	TRACE2_LOCK_RELEASE = 18,
	/* u16 site, u16 lock: OP_RELEASE of that lock, non-zero (format 2.3;
	 * writers use it, not 18, whose lock babeltrace2 cannot show) */
	TRACE2_RELEASE = 19,
	TRACE2_NCLASSES
};
/* KIND_TNAME's number (src/common/event.h; not included here). */
#define TRACE2_KIND_TNAME 10u
/* The class id of a record kind's full form. */
static inline unsigned trace2_class_of(unsigned kind)
{
	return kind == TRACE2_KIND_TNAME ? (unsigned)TRACE2_TNAME : kind;
}
/* The record kind of a full form's class id; 0: the id is not one (a short
 * class, unknown). */
static inline unsigned trace2_kind_of(unsigned id)
{
	if (id == TRACE2_TNAME)
		return TRACE2_KIND_TNAME;
	return id < TRACE2_SITE ? id : 0;
}
#define TRACE2_SITE_SIZE 24
#define TRACE2_MAX_SITES 65536u
/* A full event: op (u8) and the object index (u32) before the record's
 * fields; spool:thread has its seq (u32) after them. */
#define TRACE2_FULL_HEAD 5

/* Bytes of the fields a record of a version-1 event of `need` bytes has
 * after word and seq (the part both versions store alike). */
#define TRACE_V1_REST(need) ((need)-TRACE_EV_HDR_SIZE - 12)
/* Write those fields (writer.c). */
void trace_v1_rest_put(uint8_t *p, const void *rec, size_t rest);

static inline void trace_put8(uint8_t *p, uint8_t v)
{
	*p = v;
}
static inline void trace_put32(uint8_t *p, uint32_t v)
{
	v = htole32(v);
	memcpy(p, &v, 4);
}
static inline void trace_put64(uint8_t *p, uint64_t v)
{
	v = htole64(v);
	memcpy(p, &v, 8);
}
static inline void trace_put16(uint8_t *p, uint16_t v)
{
	v = htole16(v);
	memcpy(p, &v, 2);
}
static inline uint16_t trace_get16(const uint8_t *p)
{
	uint16_t v;
	memcpy(&v, p, 2);
	return le16toh(v);
}
static inline uint32_t trace_get32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return le32toh(v);
}
static inline uint64_t trace_get64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return le64toh(v);
}

/* The names of the ops of each class (writer.c), for the metadata. */
#include <stdio.h>
extern const char *const trace_lock_op_names[];
extern const char *const trace_probe_op_names[];
extern const int trace_probe_ops;
extern const char *const trace_func_op_names[];
extern const int trace_func_ops;
extern const char *const trace_input_op_names[];
extern const int trace_input_ops;
/* Format 2's types, stream block and event classes (meta2.c): what the
 * metadata declares after the clock and the 5-bit spool_op enumeration. */
void trace_meta2_print(FILE *f);

/* Side-file names: at most one '/', no empty or dot-leading component. */
int trace_side_name_ok(const char *name);

#endif
