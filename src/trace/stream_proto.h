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
 *   receiver: after STREAM_END, STREAM_ACK (8 bytes) once every file is on
 *             its disk at its name; nothing else, ever.
 *
 * The receiver takes all of it as hostile input (stream_proto_path_ok, the
 * STREAM_MAX_* bounds): a frame that breaks a rule ends the connection,
 * counted as a cut stream.
 */
#ifndef SPOOL_TRACE_STREAM_PROTO_H
#define SPOOL_TRACE_STREAM_PROTO_H

#include <stdint.h>
#include <string.h>

#define STREAM_MAGIC "SPOOLST1"
#define STREAM_ACK "SPOOLOK1"
#define STREAM_HDR_SIZE 24

enum {
	STREAM_RESET = 1,  /* a new trace (record --until-fail runs again): forget the files */
	STREAM_DATA = 2,   /* write data at offset of path (created when new) */
	STREAM_SIZE = 3,   /* set path's size to offset */
	STREAM_REMOVE = 4, /* path is gone (a temporary file renamed away) */
	STREAM_END = 5,	   /* the trace is complete; offset: the data bytes sent since RESET */
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
