/* SPDX-License-Identifier: MIT
 * agent_stub.h - aarch64 assembly of the agent's entry stubs, included by
 * the .S file scripts/agent-stubs.sh makes from agent.map (see
 * src/arch/x86_64/agent_stub.h for what a stub does, and
 * src/agent/agent_scrub.c for why).
 *
 * Off: a load of agent_rr_mode (x16, the intra-procedure scratch register)
 * and a tail branch. Recording or replaying: a frame record (x29, x30: the
 * frame chain and CFI intact), 8 words of stack arguments copied, the call,
 * then SPAN bytes below the frame zeroed within the thread's agent_scrub_lo
 * and agent_scrub_hi, with x9-x11 only (x0-x7, x8 and v0-v7 carry the
 * return value untouched).
 *
 * Check mode (SPOOL_SCRUB_CHECK, agent_scrub.c), as on x86-64: before the
 * call the stub fills AGENT_SCRUB_CHECK bytes below its stack pointer with
 * AGENT_SCRUB_PATTERN (x9-x12 only: x0-x7, x8 and v0-v7 carry the
 * arguments), after it finds the lowest word the call changed and keeps the
 * deepest per stub, then zeroes the filled part (x9-x15 only). The spans
 * are x86-64's; tests/arm64/284 measures them under qemu-user.
 */
#define AGENT_SCRUB_LEAF 4096
#define AGENT_SCRUB_FAST 4096
#define AGENT_SCRUB_WIDE 16384
#define AGENT_SCRUB_DEEP 65536
/* check mode: how far below a stub its call's depth is measured, and the
 * fill (the same as x86-64's) */
#define AGENT_SCRUB_CHECK 131072

/* x12 = the check mode's fill word, 0x5c5c5c5c5c5c5c5c (not a logical
 * immediate: four moves) */
	.macro AGENT_SCRUB_PATTERN_X12
	mov x12, #0x5c5c
	movk x12, #0x5c5c, lsl #16
	movk x12, #0x5c5c, lsl #32
	movk x12, #0x5c5c, lsl #48
	.endm

/* Zero [max(top - span, lo), top) when frame <= hi, or with fill=1 write
 * x12 there; top (in x9 on entry) and lo are 16-aligned. Clobbers x9-x11
 * and the flags. */
	.macro AGENT_SCRUB frame, span, fill=0
	mrs x10, tpidr_el0
	adrp x11, :gottprel:agent_scrub_hi
	ldr x11, [x11, #:gottprel_lo12:agent_scrub_hi]
	ldr x11, [x10, x11]
	cmp \frame, x11
	b.hi 3f
	adrp x11, :gottprel:agent_scrub_lo
	ldr x11, [x11, #:gottprel_lo12:agent_scrub_lo]
	ldr x11, [x10, x11]
	mov x10, #\span
	sub x10, x9, x10
	cmp x10, x11
	csel x10, x10, x11, hs
	cmp x10, x9
	b.hs 3f
2:
	.if \fill
	stp x12, x12, [x10], #16
	.else
	stp xzr, xzr, [x10], #16
	.endif
	cmp x10, x9
	b.lo 2b
3:
	.endm

/* x11 = the address of this thread's agent_scrub_in (x10: the thread
 * pointer) */
	.macro AGENT_SCRUB_IN_X11
	mrs x10, tpidr_el0
	adrp x11, :gottprel:agent_scrub_in
	ldr x11, [x11, #:gottprel_lo12:agent_scrub_in]
	add x11, x10, x11
	.endm

/* Check mode, before the call (sp: the stub's stack pointer at the call):
 * fill AGENT_SCRUB_CHECK bytes below sp (within the same bounds) with the
 * pattern, and count the thread in a checked call (agent_scrub_in:
 * agent_stack_scrub then writes the pattern, which the scan takes for
 * untouched, instead of zeros that would read as the deepest use).
 * Clobbers x9-x12 and the flags: no argument register. */
	.macro AGENT_CHECK_FILL
	mov x9, sp
	AGENT_SCRUB_PATTERN_X12
	AGENT_SCRUB x29, AGENT_SCRUB_CHECK, 1
	AGENT_SCRUB_IN_X11
	ldr w12, [x11]
	add w12, w12, #1
	str w12, [x11]
	.endm

/* Check mode, after the call: the lowest word that is no longer the
 * pattern is as deep as the call went below the stub's stack pointer
 * (x29 - 64); the deepest seen is kept in DEEP (racy between threads: a
 * check tool). Then the filled part is zeroed, so the program sees the
 * same in a recording and its replay in check mode too. Clobbers x9-x15
 * and the flags (x0-x7 and v0-v7, the return value, are kept). */
	.macro AGENT_CHECK_SCAN deep
	AGENT_SCRUB_IN_X11
	ldr w12, [x11]
	sub w12, w12, #1
	str w12, [x11]
	adrp x11, :gottprel:agent_scrub_hi
	ldr x11, [x11, #:gottprel_lo12:agent_scrub_hi]
	ldr x11, [x10, x11]
	cmp x29, x11
	b.hi 7f
	adrp x11, :gottprel:agent_scrub_lo
	ldr x11, [x11, #:gottprel_lo12:agent_scrub_lo]
	ldr x11, [x10, x11]
	sub x9, x29, #64
	mov x10, #AGENT_SCRUB_CHECK
	sub x10, x9, x10
	cmp x10, x11
	csel x10, x10, x11, hs
	cmp x10, x9
	b.hs 7f
	AGENT_SCRUB_PATTERN_X12
	mov x13, x10
8:
	ldr x14, [x13]
	cmp x14, x12
	b.ne 9f
	add x13, x13, #8
	cmp x13, x9
	b.lo 8b
	b 6f
9:
	sub x14, x9, x13
	adrp x15, \deep
	ldr x11, [x15, #:lo12:\deep]
	cmp x14, x11
	b.ls 6f
	str x14, [x15, #:lo12:\deep]
6:
	stp xzr, xzr, [x10], #16
	cmp x10, x9
	b.lo 6b
7:
	.endm

	.macro AGENT_STUB_BEGIN
	.section .text.spool_stubs,"ax",%progbits
	.globl agent_stub_start
	.hidden agent_stub_start
agent_stub_start:
	.globl agent_stack_scrub
	.hidden agent_stack_scrub
	.type agent_stack_scrub, %function
agent_stack_scrub:
	.cfi_startproc
	adrp x9, agent_scrub_check
	ldr w9, [x9, :lo12:agent_scrub_check]
	cbnz w9, 1f
4:
	mov x9, sp
	AGENT_SCRUB x9, AGENT_SCRUB_DEEP
	ret
1:
	AGENT_SCRUB_IN_X11
	ldr w11, [x11]
	cbz w11, 4b
	mov x9, sp
	AGENT_SCRUB_PATTERN_X12
	AGENT_SCRUB x9, AGENT_SCRUB_DEEP, 1
	ret
	.cfi_endproc
	.size agent_stack_scrub, . - agent_stack_scrub
	.endm

	.macro AGENT_STUB_SPAN name, span
	.globl \name
	.type \name, %function
	.p2align 4
\name:
	.cfi_startproc
	adrp x16, agent_rr_mode
	ldr w16, [x16, :lo12:agent_rr_mode]
	cbnz w16, 1f
	b spool_i_\name
1:
	stp x29, x30, [sp, #-16]!
	.cfi_def_cfa_offset 16
	.cfi_offset x29, -16
	.cfi_offset x30, -8
	mov x29, sp
	.cfi_def_cfa x29, 16
	sub sp, sp, #64
	ldp x9, x10, [x29, #16]
	stp x9, x10, [sp]
	ldp x9, x10, [x29, #32]
	stp x9, x10, [sp, #16]
	ldp x9, x10, [x29, #48]
	stp x9, x10, [sp, #32]
	ldp x9, x10, [x29, #64]
	stp x9, x10, [sp, #48]
	adrp x9, agent_scrub_check
	ldr w9, [x9, :lo12:agent_scrub_check]
	cbnz w9, 5f
	bl spool_i_\name
4:
	sub x9, x29, #64
	AGENT_SCRUB x29, \span
	.cfi_remember_state
	mov sp, x29
	.cfi_def_cfa sp, 16
	ldp x29, x30, [sp], #16
	.cfi_restore x29
	.cfi_restore x30
	.cfi_def_cfa_offset 0
	ret
	.cfi_restore_state
5:
	AGENT_CHECK_FILL
	bl spool_i_\name
	AGENT_CHECK_SCAN .Ldeep_\name
	b 4b
	.cfi_endproc
	.size \name, . - \name
	/* the check mode's table (agent_scrub.c): the deepest a call of
	 * this stub went */
	.pushsection .data.spool_scrub,"aw",%progbits
	.p2align 3
.Ldeep_\name:
	.quad 0
	.popsection
	.pushsection .rodata.spool_scrub,"a",%progbits
.Lname_\name:
	.asciz "\name"
	.popsection
	.pushsection spool_scrub_tab,"aw",%progbits
	.p2align 3
	.quad .Lname_\name, .Ldeep_\name, \span
	.popsection
	.endm

	.macro AGENT_STUB_LEAF name
	AGENT_STUB_SPAN \name, AGENT_SCRUB_LEAF
	.endm

	.macro AGENT_STUB name
	AGENT_STUB_SPAN \name, AGENT_SCRUB_FAST
	.endm

	.macro AGENT_STUB_WIDE name
	AGENT_STUB_SPAN \name, AGENT_SCRUB_WIDE
	.endm

	.macro AGENT_STUB_DEEP name
	AGENT_STUB_SPAN \name, AGENT_SCRUB_DEEP
	.endm

	.macro AGENT_STUB_END
	.globl agent_stub_end
	.hidden agent_stub_end
agent_stub_end:
	.section .note.GNU-stack,"",%progbits
	.endm
