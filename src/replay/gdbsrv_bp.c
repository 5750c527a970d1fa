// SPDX-License-Identifier: MIT
/*
 * gdbsrv_bp.c - the program's bytes under the gdb server's software
 * breakpoints (`spool replay --gdbserver`): gdb reads and writes the
 * program's own code, never spool's breakpoint instructions (int3, one
 * byte on x86-64; BRK #0, four on aarch64), so what it reads is patched
 * with the saved bytes, and what it writes under a breakpoint becomes the
 * saved bytes (the breakpoint is written again over it by the caller).
 * A range may cover a breakpoint only in part (gdb reads a 4-byte
 * instruction's neighbours): byte by byte. Pure functions, any CPU
 * (tests/unit/test_gdbsrv_bp.c checks both lengths).
 *
 * bp[n] the breakpoints' addresses; orig the saved bytes, bplen per
 * breakpoint, breakpoint i's at orig + i * bplen.
 */
#include "gdbsrv_bp.h"

int gdbsrv_bp_overlaps(uint64_t bp, size_t bplen, uint64_t addr, size_t len)
{
	return bp < addr + len && addr < bp + bplen;
}

void gdbsrv_bp_hide(const uint64_t *bp, uint32_t n, const uint8_t *orig, size_t bplen,
		    uint64_t addr, uint8_t *buf, size_t len)
{
	for (uint32_t i = 0; i < n; i++)
		for (size_t j = 0; j < bplen; j++)
			if (bp[i] + j >= addr && bp[i] + j < addr + len)
				buf[bp[i] + j - addr] = orig[i * bplen + j];
}

void gdbsrv_bp_learn(const uint64_t *bp, uint32_t n, uint8_t *orig, size_t bplen, uint64_t addr,
		     const uint8_t *buf, size_t len)
{
	for (uint32_t i = 0; i < n; i++)
		for (size_t j = 0; j < bplen; j++)
			if (bp[i] + j >= addr && bp[i] + j < addr + len)
				orig[i * bplen + j] = buf[bp[i] + j - addr];
}
