// SPDX-License-Identifier: MIT
/*
 * gdbsrv_bp.h - the program's bytes under the gdb server's software
 * breakpoints (gdbsrv_bp.c): what gdb reads is the program's code, what it
 * writes under a breakpoint is kept as the program's.
 */
#ifndef SPOOL_REPLAY_GDBSRV_BP_H
#define SPOOL_REPLAY_GDBSRV_BP_H

#include <stddef.h>
#include <stdint.h>

/* Does the breakpoint at bp (bplen bytes) share a byte with [addr, +len)? */
int gdbsrv_bp_overlaps(uint64_t bp, size_t bplen, uint64_t addr, size_t len);
/* buf (the memory at addr, len bytes, as read) gets the saved bytes where
 * a breakpoint is. */
void gdbsrv_bp_hide(const uint64_t *bp, uint32_t n, const uint8_t *orig, size_t bplen,
		    uint64_t addr, uint8_t *buf, size_t len);
/* buf (written at addr) becomes the saved bytes where a breakpoint is. */
void gdbsrv_bp_learn(const uint64_t *bp, uint32_t n, uint8_t *orig, size_t bplen, uint64_t addr,
		     const uint8_t *buf, size_t len);

#endif
