// SPDX-License-Identifier: MIT
/*
 * rr_snap_body.h - a snapshot's body unpacked into memory without its zero
 * pages, and written out sparsely (rr_snap_body.c), for spool replay --goto.
 */
#ifndef SPOOL_REPLAY_RR_SNAP_BODY_H
#define SPOOL_REPLAY_RR_SNAP_BODY_H
#include <stdint.h>
#include <sys/types.h>

/* An unpacked body: size bytes at b (an anonymous mapping: a page never
 * written reads as zeros and costs no memory). nz: a bit per page of b
 * (RR_SNAP_PAGE, counted from b), set when the page may hold a byte other
 * than zero; clear, it is all zeros. nz NULL: not known (look). */
struct rr_snap_body {
	uint8_t *b;
	uint64_t size;
	uint64_t *nz;
	int mapped; /* b is rr_snap_body_unpack's own mapping */
};

/* Unpack the zstd frame at offset off of fd, raw bytes when whole (the
 * header's raw_bytes, at most raw_max), into *out. -EBADMSG when the frame
 * is damaged, cut short, followed by other bytes or not raw bytes long;
 * -ENOMEM, -errno of a read. */
int rr_snap_body_unpack(int fd, off_t off, uint64_t raw, uint64_t raw_max,
			struct rr_snap_body *out);

void rr_snap_body_free(struct rr_snap_body *body);

/* len bytes at p (inside body->b) are all zeros: known from nz, or looked
 * at when nz is NULL. */
int rr_snap_body_zero(const struct rr_snap_body *body, const uint8_t *p, uint64_t len);

/* A writer that leaves holes where it is given zeros (a memfd reads them
 * back as zeros and holds no page for them; the agent's restore skips
 * them, lseek SEEK_DATA). The file must be empty when it starts. */
struct rr_snap_out {
	int fd;
	uint64_t pos;	 /* the file offset the next byte goes to */
	uint64_t buf_at; /* the file offset of buf[0] */
	uint32_t n;	 /* bytes in buf */
	int err;	 /* the first -errno */
	uint8_t buf[1 << 16];
};

void rr_snap_out_put(struct rr_snap_out *o, const void *p, uint64_t len);
/* len zero bytes: a hole. */
void rr_snap_out_hole(struct rr_snap_out *o, uint64_t len);
/* len bytes of body at p: holes for its pages known to be zero. */
void rr_snap_out_data(struct rr_snap_out *o, const struct rr_snap_body *body, const uint8_t *p,
		      uint64_t len);
/* Flush and give the file its size (pos). 0 or the first -errno. */
int rr_snap_out_end(struct rr_snap_out *o);

#endif
