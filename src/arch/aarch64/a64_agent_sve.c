// SPDX-License-Identifier: MIT
/*
 * a64_agent_sve.c - what every aarch64 trampoline (a64_code_probe_calls)
 * calls around its handlers to save and restore the vector state: q0-q31,
 * and on a core with SVE (HWCAP_SVE: qemu's "max" cpu, Neoverse V1/N2,
 * A64FX...) all of Z0-Z31, P0-P15 and FFR.
 *
 * Why: a probe may sit inside a loop that keeps SVE values in Z and P
 * registers (a block, branch or var: probe anywhere in a function; an entry
 * probe of a function taking SVE vectors in z0-z7/p0-p3). Any write of a V
 * register, the trampoline's own "ldp q" restore included, zeroes the upper
 * bits of its Z register; the handlers (C, libc) use V registers freely.
 * Saving q0-q31 alone therefore corrupted the program: tests/arm64/274's
 * SVE sum came out 12520 for 47995 with a block probe in its loop.
 *
 * The layout (VL = the vector length in bytes, read by the instructions
 * themselves: no size is computed here): a64_vsave is called with sp at the
 * trampoline's frame (struct a64_probe_regs, A64_FRAME bytes) and x19 = sp;
 * it stores q0-q31 into the frame and, with SVE, lowers sp by 35 VL and
 * stores P0-P15 and FFR (17 slots of VL / 8 bytes) in the first 3 VL and Z0-Z31 in the next 32 VL. The handlers run with that
 * sp (the trampoline gives them x19, the frame, not sp). a64_vrest undoes
 * it: with SVE it loads FFR, P and Z (Z's low 128 bits are V, so the
 * frame's q slots are not loaded: no handler writes them) and puts sp back;
 * without SVE it loads q0-q31 from the frame. Both may change x16 and x17
 * only (the trampoline has saved and restores every general register).
 *
 * Cost on an SVE core: 35 VL of stack per nested probe hit (2,240 bytes
 * at qemu-user's 512-bit default, 8,960 at the architecture's largest
 * 2048 bits) and 49 loads/stores more than q0-q31 alone.
 *
 * Not covered: SME's streaming mode and ZA (a probe hit in streaming mode
 * would save with the streaming vector length; ZA is left as it is, no
 * handler touching it).
 *
 * --exits retaddr's return trampoline (a64_agent_ra.c) calls both too,
 * with the same frame in x19: an SVE function returns z0-z7/p0-p3 there.
 */
#include <stdint.h>
#include <sys/auxv.h>

#include "a64_agent_probe.h"

#ifndef HWCAP_SVE
#define HWCAP_SVE (1ul << 22)
#endif

/* 1 when the core has SVE: set by a64_sve_init before the first
 * trampoline is placed, read by a64_vsave/a64_vrest; later calls find it
 * set and write nothing (no ordering needed between threads). */
uint8_t a64_sve_on;

void a64_sve_init(void)
{
	if (!a64_sve_on && (getauxval(AT_HWCAP) & HWCAP_SVE))
		a64_sve_on = 1;
}

__asm__(".text\n"
	".arch_extension sve\n"
	".p2align 4\n"
	".globl a64_vsave\n"
	".hidden a64_vsave\n"
	".type a64_vsave, %function\n"
	"a64_vsave:\n"
	"\tstp q0, q1, [sp, #256]\n"
	"\tstp q2, q3, [sp, #288]\n"
	"\tstp q4, q5, [sp, #320]\n"
	"\tstp q6, q7, [sp, #352]\n"
	"\tstp q8, q9, [sp, #384]\n"
	"\tstp q10, q11, [sp, #416]\n"
	"\tstp q12, q13, [sp, #448]\n"
	"\tstp q14, q15, [sp, #480]\n"
	"\tstp q16, q17, [sp, #512]\n"
	"\tstp q18, q19, [sp, #544]\n"
	"\tstp q20, q21, [sp, #576]\n"
	"\tstp q22, q23, [sp, #608]\n"
	"\tstp q24, q25, [sp, #640]\n"
	"\tstp q26, q27, [sp, #672]\n"
	"\tstp q28, q29, [sp, #704]\n"
	"\tstp q30, q31, [sp, #736]\n"
	"\tadrp x16, a64_sve_on\n"
	"\tldrb w16, [x16, #:lo12:a64_sve_on]\n"
	"\tcbz w16, 1f\n"
	"\taddvl sp, sp, #-32\n" /* 35 VL: the immediate stops at 31 */
	"\taddvl sp, sp, #-3\n"
	"\tstr p0, [sp, #0, mul vl]\n"
	"\tstr p1, [sp, #1, mul vl]\n"
	"\tstr p2, [sp, #2, mul vl]\n"
	"\tstr p3, [sp, #3, mul vl]\n"
	"\tstr p4, [sp, #4, mul vl]\n"
	"\tstr p5, [sp, #5, mul vl]\n"
	"\tstr p6, [sp, #6, mul vl]\n"
	"\tstr p7, [sp, #7, mul vl]\n"
	"\tstr p8, [sp, #8, mul vl]\n"
	"\tstr p9, [sp, #9, mul vl]\n"
	"\tstr p10, [sp, #10, mul vl]\n"
	"\tstr p11, [sp, #11, mul vl]\n"
	"\tstr p12, [sp, #12, mul vl]\n"
	"\tstr p13, [sp, #13, mul vl]\n"
	"\tstr p14, [sp, #14, mul vl]\n"
	"\tstr p15, [sp, #15, mul vl]\n"
	"\trdffr p0.b\n"
	"\tstr p0, [sp, #16, mul vl]\n"
	"\tstr z0, [sp, #3, mul vl]\n"
	"\tstr z1, [sp, #4, mul vl]\n"
	"\tstr z2, [sp, #5, mul vl]\n"
	"\tstr z3, [sp, #6, mul vl]\n"
	"\tstr z4, [sp, #7, mul vl]\n"
	"\tstr z5, [sp, #8, mul vl]\n"
	"\tstr z6, [sp, #9, mul vl]\n"
	"\tstr z7, [sp, #10, mul vl]\n"
	"\tstr z8, [sp, #11, mul vl]\n"
	"\tstr z9, [sp, #12, mul vl]\n"
	"\tstr z10, [sp, #13, mul vl]\n"
	"\tstr z11, [sp, #14, mul vl]\n"
	"\tstr z12, [sp, #15, mul vl]\n"
	"\tstr z13, [sp, #16, mul vl]\n"
	"\tstr z14, [sp, #17, mul vl]\n"
	"\tstr z15, [sp, #18, mul vl]\n"
	"\tstr z16, [sp, #19, mul vl]\n"
	"\tstr z17, [sp, #20, mul vl]\n"
	"\tstr z18, [sp, #21, mul vl]\n"
	"\tstr z19, [sp, #22, mul vl]\n"
	"\tstr z20, [sp, #23, mul vl]\n"
	"\tstr z21, [sp, #24, mul vl]\n"
	"\tstr z22, [sp, #25, mul vl]\n"
	"\tstr z23, [sp, #26, mul vl]\n"
	"\tstr z24, [sp, #27, mul vl]\n"
	"\tstr z25, [sp, #28, mul vl]\n"
	"\tstr z26, [sp, #29, mul vl]\n"
	"\tstr z27, [sp, #30, mul vl]\n"
	"\tstr z28, [sp, #31, mul vl]\n"
	"\tstr z29, [sp, #32, mul vl]\n"
	"\tstr z30, [sp, #33, mul vl]\n"
	"\tstr z31, [sp, #34, mul vl]\n"
	"1:\tret\n"
	".size a64_vsave, .-a64_vsave\n"
	"\n"
	".p2align 4\n"
	".globl a64_vrest\n"
	".hidden a64_vrest\n"
	".type a64_vrest, %function\n"
	"a64_vrest:\n"
	"\tadrp x16, a64_sve_on\n"
	"\tldrb w16, [x16, #:lo12:a64_sve_on]\n"
	"\tcbz w16, 1f\n"
	"\tldr p0, [sp, #16, mul vl]\n"
	"\twrffr p0.b\n"
	"\tldr p0, [sp, #0, mul vl]\n"
	"\tldr p1, [sp, #1, mul vl]\n"
	"\tldr p2, [sp, #2, mul vl]\n"
	"\tldr p3, [sp, #3, mul vl]\n"
	"\tldr p4, [sp, #4, mul vl]\n"
	"\tldr p5, [sp, #5, mul vl]\n"
	"\tldr p6, [sp, #6, mul vl]\n"
	"\tldr p7, [sp, #7, mul vl]\n"
	"\tldr p8, [sp, #8, mul vl]\n"
	"\tldr p9, [sp, #9, mul vl]\n"
	"\tldr p10, [sp, #10, mul vl]\n"
	"\tldr p11, [sp, #11, mul vl]\n"
	"\tldr p12, [sp, #12, mul vl]\n"
	"\tldr p13, [sp, #13, mul vl]\n"
	"\tldr p14, [sp, #14, mul vl]\n"
	"\tldr p15, [sp, #15, mul vl]\n"
	"\tldr z0, [sp, #3, mul vl]\n"
	"\tldr z1, [sp, #4, mul vl]\n"
	"\tldr z2, [sp, #5, mul vl]\n"
	"\tldr z3, [sp, #6, mul vl]\n"
	"\tldr z4, [sp, #7, mul vl]\n"
	"\tldr z5, [sp, #8, mul vl]\n"
	"\tldr z6, [sp, #9, mul vl]\n"
	"\tldr z7, [sp, #10, mul vl]\n"
	"\tldr z8, [sp, #11, mul vl]\n"
	"\tldr z9, [sp, #12, mul vl]\n"
	"\tldr z10, [sp, #13, mul vl]\n"
	"\tldr z11, [sp, #14, mul vl]\n"
	"\tldr z12, [sp, #15, mul vl]\n"
	"\tldr z13, [sp, #16, mul vl]\n"
	"\tldr z14, [sp, #17, mul vl]\n"
	"\tldr z15, [sp, #18, mul vl]\n"
	"\tldr z16, [sp, #19, mul vl]\n"
	"\tldr z17, [sp, #20, mul vl]\n"
	"\tldr z18, [sp, #21, mul vl]\n"
	"\tldr z19, [sp, #22, mul vl]\n"
	"\tldr z20, [sp, #23, mul vl]\n"
	"\tldr z21, [sp, #24, mul vl]\n"
	"\tldr z22, [sp, #25, mul vl]\n"
	"\tldr z23, [sp, #26, mul vl]\n"
	"\tldr z24, [sp, #27, mul vl]\n"
	"\tldr z25, [sp, #28, mul vl]\n"
	"\tldr z26, [sp, #29, mul vl]\n"
	"\tldr z27, [sp, #30, mul vl]\n"
	"\tldr z28, [sp, #31, mul vl]\n"
	"\tldr z29, [sp, #32, mul vl]\n"
	"\tldr z30, [sp, #33, mul vl]\n"
	"\tldr z31, [sp, #34, mul vl]\n"
	"\taddvl sp, sp, #31\n"
	"\taddvl sp, sp, #4\n"
	"\tret\n"
	"1:\n"
	"\tldp q0, q1, [sp, #256]\n"
	"\tldp q2, q3, [sp, #288]\n"
	"\tldp q4, q5, [sp, #320]\n"
	"\tldp q6, q7, [sp, #352]\n"
	"\tldp q8, q9, [sp, #384]\n"
	"\tldp q10, q11, [sp, #416]\n"
	"\tldp q12, q13, [sp, #448]\n"
	"\tldp q14, q15, [sp, #480]\n"
	"\tldp q16, q17, [sp, #512]\n"
	"\tldp q18, q19, [sp, #544]\n"
	"\tldp q20, q21, [sp, #576]\n"
	"\tldp q22, q23, [sp, #608]\n"
	"\tldp q24, q25, [sp, #640]\n"
	"\tldp q26, q27, [sp, #672]\n"
	"\tldp q28, q29, [sp, #704]\n"
	"\tldp q30, q31, [sp, #736]\n"
	"\tret\n"
	".size a64_vrest, .-a64_vrest\n");
