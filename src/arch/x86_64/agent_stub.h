/* SPDX-License-Identifier: MIT
 * agent_stub.h - x86-64 assembly of the agent's entry stubs, included by the
 * .S file scripts/agent-stubs.sh makes from agent.map (the Makefile builds
 * it into the agent). A stub is the exported name of an interposer whose C
 * definition objcopy renamed spool_i_NAME (src/agent/agent_scrub.c says why).
 *
 * Off (agent_rr_mode 0: plain runs, spool locks, spool probe): one compare
 * and a tail jump; registers, stack arguments and the return address are
 * the caller's, as if the stub were not there.
 *
 * Recording or replaying: the stub makes a frame (rbp chain intact, CFI
 * for unwinders: a cancellation unwinds through it), copies 8 words of
 * stack arguments (a 7th argument and more; no exported function takes
 * more than 14 words of arguments: the variadic printf and scanf families
 * are left out by the script), calls the C function, then zeroes SPAN
 * bytes below its frame, never below the thread's agent_scrub_lo and not
 * at all when its frame is above agent_scrub_hi (another stack): whatever
 * the agent did under the call, in whichever mode, the program finds zeros
 * there afterwards. AGENT_STUB uses AGENT_SCRUB_FAST (the hot calls: locks,
 * clocks, one-character stdio), AGENT_STUB_WIDE AGENT_SCRUB_WIDE (the
 * others), AGENT_STUB_DEEP AGENT_SCRUB_DEEP (name lookups, tree walks,
 * process creation: deep paths in the agent and in libc under them). The
 * spans are a trade between cost (rep stosq of 4 KiB: about 30 ns on an
 * idle 2-vCPU VM, 150 ns under load) and depth: a replayed clock_gettime
 * goes 3 KiB deep (agent_rr_rep_input's frame is 1.3 KiB), a lock's first
 * use more than 2 KiB, a replayed read 4.5 KiB (agent_rr_tree_drain). After the call only rax (restored), rdi,
 * rcx, r11 and the flags are touched: rdx, xmm0, xmm1 and st0 carry the
 * rest of a return value. A signal that lands during the zeroing has its
 * frame below rsp, as always; the zeroing resumes over the dead frame.
 *
 * agent_stub_start/agent_stub_end bound the stubs: an interposer that
 * looks at its return address (AGENT_RET_IP, agent.h) finds the caller's
 * one frame up when it was called through a stub.
 *
 * agent_stack_scrub(): zeroes AGENT_SCRUB_DEEP below its return address,
 * within the same bounds (a thread's start before the program's function,
 * the end of the agent's constructor, after a snapshot).
 */
#define AGENT_SCRUB_FAST 4096
#define AGENT_SCRUB_WIDE 16384
#define AGENT_SCRUB_DEEP 65536

/* Zero [max(base+off - span, lo), base+off) when frame <= hi (base+off is
 * 8-aligned, lo 16-aligned). Clobbers rcx, rdi, rax and the flags. */
	.macro AGENT_SCRUB frame, base, off, span
	movq agent_scrub_hi@gottpoff(%rip), %rcx
	cmpq %fs:(%rcx), \frame
	ja 3f
	movq agent_scrub_lo@gottpoff(%rip), %rcx
	movq %fs:(%rcx), %rcx
	leaq (\off - \span)(\base), %rdi
	cmpq %rcx, %rdi
	jae 2f
	movq %rcx, %rdi
2:
	leaq \off(\base), %rcx
	subq %rdi, %rcx
	jbe 3f
	shrq $3, %rcx
	xorl %eax, %eax
	rep stosq
3:
	.endm

	.macro AGENT_STUB_BEGIN
	.section .text.spool_stubs,"ax",@progbits
	.globl agent_stub_start
	.hidden agent_stub_start
agent_stub_start:
	.globl agent_stack_scrub
	.hidden agent_stack_scrub
	.type agent_stack_scrub, @function
agent_stack_scrub:
	.cfi_startproc
	AGENT_SCRUB %rsp, %rsp, 0, AGENT_SCRUB_DEEP
	ret
	.cfi_endproc
	.size agent_stack_scrub, . - agent_stack_scrub
	.endm

	.macro AGENT_STUB_SPAN name, span
	.globl \name
	.type \name, @function
	.p2align 4
\name:
	.cfi_startproc
	cmpl $0, agent_rr_mode(%rip)
	jne 1f
	jmp spool_i_\name
1:
	pushq %rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	movq %rsp, %rbp
	.cfi_def_cfa_register %rbp
	subq $64, %rsp
	movq 16(%rbp), %r11
	movq %r11, 0(%rsp)
	movq 24(%rbp), %r11
	movq %r11, 8(%rsp)
	movq 32(%rbp), %r11
	movq %r11, 16(%rsp)
	movq 40(%rbp), %r11
	movq %r11, 24(%rsp)
	movq 48(%rbp), %r11
	movq %r11, 32(%rsp)
	movq 56(%rbp), %r11
	movq %r11, 40(%rsp)
	movq 64(%rbp), %r11
	movq %r11, 48(%rsp)
	movq 72(%rbp), %r11
	movq %r11, 56(%rsp)
	call spool_i_\name
	movq %rax, %r11
	AGENT_SCRUB %rbp, %rbp, -64, \span
	movq %r11, %rax
	leave
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size \name, . - \name
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
	.section .note.GNU-stack,"",@progbits
	.endm
