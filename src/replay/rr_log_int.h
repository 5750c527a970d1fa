// SPDX-License-Identifier: MIT
/*
 * rr_log_int.h - the inside of struct rr_log, shared by rr_log.c (which
 * loads a recording from its trace) and rr_img.c (which keeps the loaded
 * log as a replay image and opens it again). Nothing else includes it.
 */
#ifndef SPOOL_REPLAY_RR_LOG_INT_H
#define SPOOL_REPLAY_RR_LOG_INT_H

#include <stddef.h>
#include <stdint.h>

#include "../common/event.h"
#include "rr_area.h"

/* Records are copied into big blocks, never moved or freed one by one: a
 * malloc and a free per record were most of the time a replay took to
 * load a recording of a few hundred thousand events. Blocks are mapped
 * populated (MAP_POPULATE): in a VM a page fault costs ~14 us, a page of a
 * populated mapping a fortieth of that. Sizes double from 256 KiB to 8 MiB. */
struct rr_block {
	struct rr_block *next;
	size_t used, cap, size; /* size: of the mapping */
	uint64_t data[];	/* records, 8-byte aligned */
};
#define RR_BLOCK_MIN (256u << 10)
#define RR_BLOCK_MAX (8u << 20)

struct rr_log {
	struct rec_hdr **recs; /* sched and input records, sorted by (thread, tseq, chunk) */
	size_t n, cap;
	size_t recs_map, thr_map; /* bytes mapped for recs and thr (rr_vec_map) */
	struct rr_block *blocks;  /* the newest first; recs point into them */
	uint32_t *thr;		  /* rec_thread(recs[i]), read while the record was hot */
	uint64_t *last;		  /* per thread: (tseq << 32 | chunk_off) of its last record */
	int unsorted;		  /* a thread's records came out of (tseq, chunk) order */
	int store_failed;	  /* rr_collect_store ran out of memory */
	size_t nswitch;		  /* token switches among recs (serial mode) */
	int packed;		  /* RR_INPUT_ZREF records: the agent unpacks (--compress) */
	void *scratch;		  /* an input record being decoded (rr_collect_store) */
	size_t scratch_cap;
	void *zcheck;		  /* a packed chunk unpacked to check it */
	size_t zcheck_cap;
	struct rr_switch *sw;	  /* serial: the holder of each token turn */
	uint64_t nsw;
	int serial;
	uint32_t proc;		  /* the process number whose records are loaded */
	uint32_t nthreads, nobjs, max_objs;
	uint64_t events, inputs, log_bytes, norder;
	/* A log opened from its replay image (rr_img.c) has counts and no
	 * records: the agent maps the image, and the area holds only what the
	 * replay writes. */
	struct rr_img_map *img;
	/* The stream files RR_INPUT_REF records read from (rr_area.h), and
	 * where they are. */
	uint32_t nstreams, streams_cap;
	uint32_t stream_id[RR_STREAMS_MAX];
	char trace_dir[1024];
	/* the stream files as opened by rr_log_check_streams */
	uint64_t stream_dev, stream_ino[RR_STREAMS_MAX];
};

/* Where each thread's log lies in the image (offsets from its start). */
struct rr_img_thread {
	uint64_t log_off, log_end;
	uint32_t nevents, pad;
};

/* An opened image: its path for the agent, and what the area needs. */
struct rr_img_map {
	char path[1024];
	uint64_t dev, ino; /* the file rr_img_open checked */
	uint64_t size, key;
	uint64_t first_off, order_off, log_off, sw_off;
	struct rr_img_thread *thr; /* [nthreads] */
};

uint64_t rr_log_align8(uint64_t v);
/* Open each stream file the log reads input data from as untrusted.h does
 * (no link, a regular file) and note its device and inode for the agent.
 * 0, or a negative errno with a message in err. */
int rr_log_check_streams(struct rr_log *log, char *err, size_t errlen);
/* Where first[], order[] and the records go when they start at off, in the
 * area and in the image alike (rr_img_write copies them in one piece);
 * returns the offset just past the records, 8-aligned. */
uint64_t rr_log_ro_layout(const struct rr_log *log, uint64_t off, uint64_t *first_off,
			  uint64_t *order_off, uint64_t *log_off);
/* Lay the loaded log out: first[] (max_objs + 1 words, zeroed here) and
 * order[] (norder entries) in memory; the records, from offset log_off on,
 * through put (runs of records that lie together, in increasing offsets,
 * each right after the previous); each thread's range into thr[]. Returns 0
 * or put's first error. */
int rr_log_place(const struct rr_log *log, uint32_t *first, struct rr_order *order,
		 uint64_t log_off, struct rr_img_thread *thr,
		 int (*put)(void *arg, const void *p, size_t len, uint64_t off), void *arg);

#endif
