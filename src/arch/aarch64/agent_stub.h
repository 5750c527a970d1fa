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
 * No check mode (SPOOL_SCRUB_CHECK) here yet (aarch64's frames are not
 * measured): the spans are x86-64's; each stub has its entry in the table
 * all the same, so agent_scrub.c builds.
 */
#define AGENT_SCRUB_LEAF 4096
#define AGENT_SCRUB_FAST 4096
#define AGENT_SCRUB_WIDE 16384
#define AGENT_SCRUB_DEEP 65536

/* Zero [max(top - span, lo), top) when frame <= hi; top (in x9 on entry)
 * and lo are 16-aligned. Clobbers x9-x11 and the flags. */
	.macro AGENT_SCRUB frame, span
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
	stp xzr, xzr, [x10], #16
	cmp x10, x9
	b.lo 2b
3:
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
	mov x9, sp
	AGENT_SCRUB x9, AGENT_SCRUB_DEEP
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
	bl spool_i_\name
	sub x9, x29, #64
	AGENT_SCRUB x29, \span
	mov sp, x29
	.cfi_def_cfa sp, 16
	ldp x29, x30, [sp], #16
	.cfi_restore x29
	.cfi_restore x30
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
	.size \name, . - \name
	/* the check mode's table (agent_scrub.c): no check on aarch64 yet,
	 * the depth stays 0 */
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
