// SPDX-License-Identifier: MIT
/*
 * stream_recv.h - the receiving end of the --stream wire format
 * (stream_proto.h): frames read from a descriptor and written as files
 * into one directory, all of it taken as hostile input. spool receive
 * (src/cmd/receive.c) runs it on its connection; fuzz/fuzz_stream.c on
 * files.
 */
#ifndef SPOOL_TRACE_STREAM_RECV_H
#define SPOOL_TRACE_STREAM_RECV_H

#include <limits.h>
#include <signal.h>
#include <stdint.h>

#define STREAM_MAX_PATH_BUF 256 /* STREAM_MAX_PATH + 1 */

struct stream_recv {
	int sock;		  /* read with read(2): a socket, or a file */
	char partial[PATH_MAX];	  /* the directory the files go into */
	int dirfd;		  /* -1 until the first STREAM_RESET */
	uint64_t max_bytes;	  /* every offset, and the data in all */
	uint64_t data;		  /* DATA bytes since the last RESET */
	uint64_t total;		  /* bytes read */
	uint64_t files;		  /* files created since the last RESET */
	char why[PATH_MAX + 256]; /* why the stream ended early */
	unsigned char *buf;	  /* STREAM_MAX_DATA bytes */
	int confirm;		  /* send STREAM_CONFIRM on sock (a connection) */
	/* Events (STREAM_EVENTS): announced by the board, and those whose
	 * packets arrived; since the last RESET, and (_all) since the
	 * connection began (what STREAM_CONFIRM says). */
	uint64_t announced, got, got_all;
	char pend_path[STREAM_MAX_PATH_BUF]; /* the announcement not yet arrived */
	uint64_t pend_events, pend_end;
	int draining;	     /* stopped by a signal: reading what is already here */
	uint64_t drain_left; /* bytes that were here then */
};

/* Set by a signal handler (spool receive's SIGINT and SIGTERM, installed
 * without SA_RESTART): a read interrupted then ends the stream as a cut. */
extern volatile sig_atomic_t stream_recv_interrupted;

/* One frame. Returns 1 after STREAM_END, 0 to go on, <0 to stop (c->why
 * says why). The directory is (re)made empty by the stream's RESET. */
int stream_recv_frame(struct stream_recv *c);
/* The stream's first bytes are STREAM_MAGIC: 0, or -EPROTO. */
int stream_recv_magic(struct stream_recv *c);
/* A cut copy says so in .spool/stream (trace/loss.c reads it), with the
 * events announced that did not arrive. Returns 0 or a negative errno.
 * While the stream goes on, the same note is kept up to date (a receiver
 * killed outright leaves it saying how far it got); the end of a whole
 * trace removes it (stream_recv_unmark). */
int stream_recv_mark_cut(struct stream_recv *c);
void stream_recv_unmark(struct stream_recv *c);

#endif
