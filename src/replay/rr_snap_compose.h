// SPDX-License-Identifier: MIT
/*
 * rr_snap_compose.h - a whole snapshot body from a chain of deltas and the
 * whole body it starts from (rr_snap_compose.c).
 */
#ifndef SPOOL_REPLAY_RR_SNAP_COMPOSE_H
#define SPOOL_REPLAY_RR_SNAP_COMPOSE_H
#include <stdint.h>

struct rr_snap_body;

/* Write to out_fd the whole body of the snapshot whose delta body is in
 * fds[0] (sizes[0] bytes): fds[1 .. n) hold the bodies of the snapshots it
 * is a delta of, newest first, each a delta of the next, the last whole
 * (n >= 2). *out_size: the bytes written. 0, -EBADMSG (a damaged delta or
 * base), -ENOMEM, -EIO. out_fd must be empty: zero pages are left as
 * holes. */
/* The same from bodies unpacked in memory (rr_snap_body.c): their zero
 * pages are holes of out_fd, which must be empty. */
int rr_snap_compose_bodies(const struct rr_snap_body *bodies, uint32_t n, int out_fd,
			   uint64_t *out_size);

int rr_snap_compose_chain(const int *fds, const uint64_t *sizes, uint32_t n, int out_fd,
			  uint64_t *out_size);

#endif
