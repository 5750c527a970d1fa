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

#define TRACE_FORMAT_VERSION 1
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

/* Event header: uint8 id, uint64 timestamp. */
#define TRACE_EV_HDR_SIZE 9

/* Payload sizes (bytes after the event header). */
#define TRACE_PL_LOCK 32 /* + 8 * nstack */
#define TRACE_PL_THREAD 44
#define TRACE_PL_LOCKDEF 36
#define TRACE_PL_PROC 28
#define TRACE_PL_USER 20 /* + 8 * nargs */

#define TRACE_PACKET_SIZE (64 * 1024)

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

/* Side-file names: at most one '/', no empty or dot-leading component. */
int trace_side_name_ok(const char *name);

#endif
