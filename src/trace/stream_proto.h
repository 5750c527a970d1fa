// SPDX-License-Identifier: MIT
/*
 * stream_proto.h - the wire format of `--stream HOST:PORT` (the board's
 * spool, src/collect/stream_send.c) to `spool receive` (the host,
 * src/cmd/receive.c).
 *
 * It moves a trace directory's files as the writer makes them, whatever is
 * in them: (file, offset, bytes) frames, so a change of the trace format
 * changes nothing here. All numbers little-endian.
 *
 *   sender:   STREAM_MAGIC (8 bytes), then frames:
 *             u32 type, u32 path_len, u64 offset, u64 data_len,
 *             path (path_len bytes, no NUL, relative to the trace
 *             directory), data (data_len bytes)
 *   receiver: STREAM_CONFIRM (8 bytes) and a u64, the events it has on its
 *             disk (the sum of the STREAM_EVENTS whose packets arrived,
 *             since the connection began), now and then; after STREAM_END,
 *             STREAM_ACK (8 bytes) once every file is on its disk at its
 *             name.
 *
 * Counting events (so a cut connection is a number of lost events, not
 * only "incomplete"): before the DATA frames of a stream file, the sender
 * announces (STREAM_EVENTS) how many events the whole version-2 packets in
 * the bytes it is about to send hold, and where those packets end. The
 * receiver adds up what was announced and what arrived; a copy cut short
 * says the difference (.spool/stream, trace/loss.c).
 *
 * The receiver takes all of it as hostile input (stream_proto_path_ok, the
 * STREAM_MAX_* bounds): a frame that breaks a rule ends the connection,
 * counted as a cut stream.
 */
#ifndef SPOOL_TRACE_STREAM_PROTO_H
#define SPOOL_TRACE_STREAM_PROTO_H

#include <stdint.h>
#include <string.h>

#include "trace_int.h"

#define STREAM_MAGIC "SPOOLST1"
#define STREAM_ACK "SPOOLOK1"
#define STREAM_CONFIRM "SPOOLCF1"
#define STREAM_HDR_SIZE 24

enum {
	STREAM_RESET = 1,  /* a new trace (record --until-fail runs again): forget the files */
	STREAM_DATA = 2,   /* write data at offset of path (created when new) */
	STREAM_SIZE = 3,   /* set path's size to offset */
	STREAM_REMOVE = 4, /* path is gone (a temporary file renamed away) */
	STREAM_END = 5,	   /* the trace is complete; offset: the data bytes sent since RESET */
	STREAM_EVENTS = 6, /* path's next DATA frames complete offset events; data: u64, the
			    * file offset where their packets end */
};

#define STREAM_MAX_PATH 255		       /* bytes of a relative path */
#define STREAM_MAX_DEPTH 4		       /* directories in it */
#define STREAM_MAX_DATA (16u << 20)	       /* bytes in one frame */
#define STREAM_MAX_FILES 65536		       /* files in one trace */
#define STREAM_CHUNK (1u << 20)		       /* what a sender puts in one frame */
#define STREAM_DEFAULT_MAX_BYTES (64ull << 30) /* spool receive --max-size */

/* Whether a path from the wire may name a file in the trace directory:
 * relative, components of [A-Za-z0-9._-] that are not "." or "..", at most
 * STREAM_MAX_DEPTH slashes, no empty component. */
static inline int stream_proto_path_ok(const char *p, size_t len)
{
	size_t comp = 0, depth = 0;

	if (!len || len > STREAM_MAX_PATH)
		return 0;
	for (size_t i = 0; i <= len; i++) {
		char c = i < len ? p[i] : '/';

		if (c == '/') {
			if (!comp || (comp == 1 && p[i - 1] == '.') ||
			    (comp == 2 && p[i - 1] == '.' && p[i - 2] == '.'))
				return 0;
			if (i < len && ++depth > STREAM_MAX_DEPTH)
				return 0;
			comp = 0;
			continue;
		}
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '.' || c == '_' || c == '-'))
			return 0;
		comp++;
	}
	return 1;
}

/* The version-2 packet header at b (TRACE_PKT_HDR_SIZE2 bytes, read from a
 * stream file): 1 with its size in bytes and its events, 0 when it is not
 * one (a version-1 trace, or damage). b may be anything. */
static inline int stream_proto_packet(const unsigned char *b, uint64_t *size, uint64_t *events)
{
	uint32_t magic, ev;
	uint64_t bits;

	memcpy(&magic, b + TRACE_PH_MAGIC, 4);
	memcpy(&bits, b + TRACE_PC_CONTENT, 8);
	memcpy(&ev, b + TRACE_PC_EVENTS, 4);
	magic = le32toh(magic);
	bits = le64toh(bits);
	if (magic != TRACE_MAGIC || bits % 8 || bits / 8 < TRACE_PKT_HDR_SIZE2)
		return 0;
	*size = bits / 8;
	*events = le32toh(ev);
	return 1;
}

static inline void stream_put_u32(unsigned char *b, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		b[i] = (unsigned char)(v >> (8 * i));
}

static inline void stream_put_u64(unsigned char *b, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		b[i] = (unsigned char)(v >> (8 * i));
}

static inline uint32_t stream_get_u32(const unsigned char *b)
{
	uint32_t v = 0;

	for (int i = 3; i >= 0; i--)
		v = v << 8 | b[i];
	return v;
}

static inline uint64_t stream_get_u64(const unsigned char *b)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | b[i];
	return v;
}

#endif
