// SPDX-License-Identifier: MIT
/*
 * rr_snap_pick.h - the snapshot spool replay --goto EVENT starts from,
 * checked and unpacked for the agent (rr_snap_pick.c).
 */
#ifndef SPOOL_REPLAY_RR_SNAP_PICK_H
#define SPOOL_REPLAY_RR_SNAP_PICK_H
#include <stddef.h>
#include <stdint.h>

#include "rr_snap_list.h" /* rr_snap_pos_fmt */

struct rr_snap_pick {
	int fd;		   /* the unpacked body (a memfd the program inherits), -1: none */
	uint64_t size;	   /* its bytes */
	uint64_t index;	   /* the snapshot's number */
	uint64_t turn;	   /* the token turn it was taken at */
	uint64_t count;	   /* ... and the taker's progress count then (rr_snap_hdr.count) */
	int shared_turn;   /* another snapshot was taken at that turn: count tells them apart */
	uint32_t nthreads; /* threads it holds */
	uint32_t nblocked; /* ... parked taking the run token back after a blocking call or a nap */
	uint32_t nout;	   /* ... out in a blocking call (RR_PARK_OUT) */
	uint32_t ndeltas;  /* deltas composed over a whole snapshot to make it (0: it was whole) */
	uint64_t unpack_ns; /* unpacking (and composing) it took */
	/* descriptors (above 2) open for writing on a file by its path: a
	 * restore gives each a /dev/null stand-in (agent_snap_restore.c),
	 * so what the program writes there from the snapshot on is lost;
	 * the first one's number and path, for the warning */
	uint32_t nwfiles;
	int32_t wfd;
	char wpath[256];
};

/* The latest restorable snapshot of trace dir taken at or before position
 * (event, count): at a turn before event, or at turn event with a progress
 * count at most count (UINT64_MAX: the latest at event), of the binary exe. Returns 0 (pick->fd -1
 * when there is none), or -errno after saying why on stderr: -EBADMSG a damaged snapshot, -ESTALE
 * one of another build, -ENOTSUP one holding a writable shared mapping. */
int rr_snap_pick(const char *dir, uint64_t event, uint64_t count, const char *exe,
		 struct rr_snap_pick *pick);

/* The turns of the snapshots of trace dir whose header is readable, in
 * increasing order (*turns malloc'd, *n of them; none: NULL, 0). Whether one
 * can be restored is rr_snap_pick's to say. 0 or -errno. */
int rr_snap_turns(const char *dir, uint64_t **turns, size_t *n);

#endif
