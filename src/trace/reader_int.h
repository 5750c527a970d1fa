// SPDX-License-Identifier: MIT
/*
 * reader_int.h - the trace reader's state, shared by reader.c (files,
 * packets, the merge, format 1 events) and dec2.c (format 2 events). Private
 * to src/trace.
 */
#ifndef SPOOL_TRACE_READER_INT_H
#define SPOOL_TRACE_READER_INT_H

#include <stddef.h>
#include <stdint.h>

#include "trace.h"

/* Format 2's decoding state of one packet (doc/trace-format.md, "Version 2:
 * compact events"): what the writer predicted from. */
struct trace_dec2 {
	uint64_t prev_tsc;
	uint32_t next_seq;
	uint32_t nev;	 /* CTF events decoded in the packet, site definitions too */
	uint32_t depth;	 /* predicted function depth */
	uint64_t sp;	 /* the previous probe event's stack pointer */
	uint32_t lock;	 /* the previous event's lock when it was a lock event, else 0 */
	uint64_t *sites; /* 3 words a site: probe, addr, caller */
	uint32_t nsites, sites_cap;
};

struct rd_stream {
	struct trace_stream_info info;
	int fd;
	uint64_t file_size;
	uint64_t pkt_off; /* file offset of the packet in buf */
	uint8_t *buf;	  /* the packet (or the part of it the file has) */
	size_t buf_cap;
	size_t pkt_len; /* bytes of buf holding events (content end) */
	size_t pos;	/* next event in buf */
	int truncated;	/* the packet in buf is cut short by the end of file */
	uint64_t next_seq_num;
	int have_seq;
	uint32_t last_seq;
	int done;
	uint64_t rec_off; /* file offset of the decoded next event */
	/* The decoded next event: in own (8-byte aligned storage), or where
	 * the reader's store hook put it. */
	uint64_t *rec;
	uint64_t *own;
	size_t own_cap;
	uint32_t thread;     /* trace_event.thread of the decoded next event */
	int thread_seen;     /* a KIND_THREAD was decoded: the next one is a new thread */
	uint64_t fields_off; /* file offset of the decoded event's fields (after word
			      * and seq, or op and obj): trace_event_file_off */
	/* format 2: the packet context's numbers and the packet's decoding state */
	uint64_t ts_begin;
	uint32_t first_seq, events;
	struct trace_dec2 dec;
};

struct trace_reader {
	char *dir;
	int dirfd;
	uint8_t uuid[16];
	struct trace_clock clk;
	struct rd_stream *streams;
	size_t nstreams;
	size_t *heap; /* indexes into streams, min-heap on (tsc, index) */
	size_t nheap;
	struct rd_stream *pending; /* returned last; advance it on the next call */
	struct trace_problem *problems;
	size_t nproblems;
	size_t cap_problems;
	void *(*store)(void *arg, unsigned kind, size_t size); /* trace_reader_open_store */
	void *store_arg;
	int by_stream;		 /* TRACE_READER_BY_STREAM: stream after stream, not by time */
	uint32_t shard, nshards; /* TRACE_READER_SHARD: streams whose id % nshards == shard */
	uint32_t next_thread;	 /* trace_event.thread of the next thread that reuses a ring */
	int format;		 /* the metadata's spool_format_version: 1 or 2 */
	size_t pkt_hdr;		 /* its packet headers' size */
	int untimed;		 /* spool_event_time = "packet": trace_reader_untimed */
};

__attribute__((format(printf, 4, 5))) void
trace_rd_problem(struct trace_reader *r, const char *file, uint64_t off, const char *fmt, ...);
/* Bytes of a kind's fields after word and seq (format 1) or op and obj
 * (format 2), read from the `left` bytes at rest: 0 for an unknown kind; when
 * left is too short to hold an element count, at least more than left. */
size_t trace_rd_rest_len(unsigned kind, const uint8_t *rest, size_t left);
/* Decode those fields into s->rec (its header but size left to the
 * caller); 0 or -ENOMEM. */
int trace_rd_rest(struct trace_reader *r, struct rd_stream *s, unsigned kind, const uint8_t *rest,
		  size_t len);
/* Storage for the next record of kind (size bytes) in s->rec, zeroed when
 * asked; 0 or -ENOMEM. */
int trace_rd_reserve(struct trace_reader *r, struct rd_stream *s, unsigned kind, size_t size,
		     int zero);
/* Format 2: a packet was loaded; decode the event at s->pos (1), a site
 * definition (2: call again), or the stream is over (0, its problem
 * recorded). */
void trace_dec2_packet(struct rd_stream *s);
int trace_dec2_next(struct trace_reader *r, struct rd_stream *s);
void trace_dec2_free(struct trace_dec2 *d);

#endif
