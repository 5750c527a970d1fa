// SPDX-License-Identifier: MIT
/*
 * rr_snap_compose.h - a whole snapshot body from a chain of deltas and the
 * whole body it starts from (rr_snap_compose.c).
 */
#ifndef SPOOL_REPLAY_RR_SNAP_COMPOSE_H
#define SPOOL_REPLAY_RR_SNAP_COMPOSE_H
#include <stdint.h>

struct rr_snap_body;

/* Write to out_fd, which must be empty, the whole body of the snapshot
 * whose body is bodies[0] (unpacked in memory, rr_snap_body.c): a whole
 * snapshot (n 1), or a delta of bodies[1], itself a delta of the next, the
 * last whole. Only REGIONs with their data come out: a DELTA's pages come
 * from the chain, and a SPARSE's zero pages, like every page known to be
 * zeros, are holes of out_fd. *out_size: its bytes. 0, -EBADMSG (a damaged
 * body or chain), -ENOMEM, -EIO. */
int rr_snap_compose_bodies(const struct rr_snap_body *bodies, uint32_t n, int out_fd,
			   uint64_t *out_size);

/* The same from bodies in descriptors fds[0 .. n) (sizes[k] bytes each),
 * their zero pages looked for. */
int rr_snap_compose_chain(const int *fds, const uint64_t *sizes, uint32_t n, int out_fd,
			  uint64_t *out_size);

#endif
