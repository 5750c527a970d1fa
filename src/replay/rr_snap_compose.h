// SPDX-License-Identifier: MIT
/*
 * rr_snap_compose.h - a whole snapshot body from a delta and its base
 * (rr_snap_compose.c).
 */
#ifndef SPOOL_REPLAY_RR_SNAP_COMPOSE_H
#define SPOOL_REPLAY_RR_SNAP_COMPOSE_H
#include <stdint.h>

/* Write to out_fd the whole body of the snapshot whose delta body is in
 * delta_fd (delta_size bytes), base_fd holding the whole body of the
 * snapshot it is a delta of. *out_size: the bytes written. 0, -EBADMSG (a
 * damaged delta or base), -ENOMEM, -EIO. */
int rr_snap_compose(int delta_fd, uint64_t delta_size, int base_fd, uint64_t base_size, int out_fd,
		    uint64_t *out_size);

#endif
