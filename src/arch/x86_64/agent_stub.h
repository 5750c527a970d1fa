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
 * process creation: deep paths in the agent and in libc under them), and
 * AGENT_STUB_LEAF AGENT_SCRUB_LEAF (the hottest: locks that do not time
 * out, clocks, getpid; 4 KiB for now, see below). The spans are a trade between cost (rep stosq of
 * 4 KiB: about 30 ns on an idle 2-vCPU VM, 150 ns under load, two calls a
 * lock/unlock pair) and depth, measured with SPOOL_SCRUB_CHECK (check mode,
 * below; tests/integ/374 fails when a call goes deeper than its stub
 * zeroes): a recorded or replayed lock or clock read goes less than 800
 * bytes deep, a replayed read 5 KiB (agent_rr_tree_drain). Below a lazily
 * bound call's first run ld.so's resolver saved the vector registers (3 KiB
 * on an AVX-512 CPU, what the agent left in them): 4 KiB covers it; a
 * smaller span needs the calls' PLT slots bound (agent_scrub_bind.c). After the call
 * only rax (restored), rdi, rcx, r11 and the flags are touched (r8-r10 too
 * in check mode): rdx, xmm0, xmm1 and st0 carry the
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
/* The hottest calls measured less than 800 bytes deep (SPOOL_SCRUB_CHECK,
 * tests/integ/374), but with 1 KiB here the sync replays of rr_cancel
 * (tests/integ/129) failed in 3 of 6 runs under load ("replay stuck"),
 * against none of 7 with 4 KiB: something reads stack words it did not
 * write and counts on the zeros (the check mode's pattern, left below
 * main's frames, crashed rr_dirs' replay too). 4 KiB until that is found;
 * then 1 KiB, with agent_scrub_bind.c binding these calls' PLT slots. */
#define AGENT_SCRUB_LEAF 4096
#define AGENT_SCRUB_FAST 4096
#define AGENT_SCRUB_WIDE 16384
#define AGENT_SCRUB_DEEP 65536
/* check mode: how far below a stub its call's depth is measured, and the
 * fill (agent_scrub.c) */
#define AGENT_SCRUB_CHECK 131072
#define AGENT_SCRUB_PATTERN 0x5c5c5c5c5c5c5c5c

/* Zero [max(base+off - span, lo), base+off) when frame <= hi (base+off is
 * 8-aligned, lo 16-aligned), or fill it with the word FILL. Clobbers rcx,
 * rdi, rax and the flags. */
	.macro AGENT_SCRUB frame, base, off, span, fill=0
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
	.if \fill
	movabsq $\fill, %rax
	.else
	xorl %eax, %eax
	.endif
	rep stosq
3:
	.endm

/* Check mode (agent_scrub_check, SPOOL_SCRUB_CHECK: agent_scrub.c), before
 * the call: fill AGENT_SCRUB_CHECK bytes below the stub's frame (within the
 * same bounds) with AGENT_SCRUB_PATTERN, and count the thread in a checked
 * call (agent_scrub_in: agent_stack_scrub then writes the pattern, which the
 * stub's scan takes for untouched and then zeroes, instead of zeros that
 * would read as the deepest use); rax, rcx and rdi (arguments) are kept.
 * The 32 bytes right below the frame hold them meanwhile. */
	.macro AGENT_CHECK_FILL
	pushq %rax
	pushq %rcx
	pushq %rdi
	subq $8, %rsp
	movq agent_scrub_hi@gottpoff(%rip), %rcx
	cmpq %fs:(%rcx), %rbp
	ja 7f
	movq agent_scrub_lo@gottpoff(%rip), %rcx
	movq %fs:(%rcx), %rcx
	leaq -AGENT_SCRUB_CHECK(%rsp), %rdi
	cmpq %rcx, %rdi
	jae 8f
	movq %rcx, %rdi
8:
	movq %rsp, %rcx
	subq %rdi, %rcx
	jbe 7f
	shrq $3, %rcx
	movabsq $AGENT_SCRUB_PATTERN, %rax
	rep stosq
7:
	movq agent_scrub_in@gottpoff(%rip), %rcx
	incl %fs:(%rcx)
	addq $8, %rsp
	popq %rdi
	popq %rcx
	popq %rax
	.endm

/* Check mode, after the call: the lowest word that is no longer the
 * pattern is as deep as the call went below the stub's stack pointer
 * (rbp - 64); the deepest seen is kept in DEEP (racy between threads:
 * a check tool). Then the filled part is zeroed, so the program sees the
 * same in a recording and its replay in check mode too. Clobbers rax, rcx,
 * rdi, r8-r10 and the flags (rdx, the return value's upper half, is kept). */
	.macro AGENT_CHECK_SCAN deep
	movq agent_scrub_in@gottpoff(%rip), %rcx
	decl %fs:(%rcx)
	movq agent_scrub_hi@gottpoff(%rip), %rcx
	cmpq %fs:(%rcx), %rbp
	ja 7f
	movq agent_scrub_lo@gottpoff(%rip), %rcx
	movq %fs:(%rcx), %rcx
	leaq (-96 - AGENT_SCRUB_CHECK)(%rbp), %rdi
	cmpq %rcx, %rdi
	jae 8f
	movq %rcx, %rdi
8:
	movq %rdi, %r10
	leaq -96(%rbp), %rcx
	subq %rdi, %rcx
	jbe 7f
	shrq $3, %rcx
	movq %rcx, %r9
	movabsq $AGENT_SCRUB_PATTERN, %rax
	repe scasq
	je 9f
	leaq -8(%rdi), %rdi
	leaq -64(%rbp), %rax
	subq %rdi, %rax
	cmpq \deep(%rip), %rax
	jbe 9f
	movq %rax, \deep(%rip)
9:
	movq %r10, %rdi
	movq %r9, %rcx
	xorl %eax, %eax
	rep stosq
7:
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
	cmpl $0, agent_scrub_check(%rip)
	jne 1f
4:
	AGENT_SCRUB %rsp, %rsp, 0, AGENT_SCRUB_DEEP
	ret
1:
	movq agent_scrub_in@gottpoff(%rip), %rcx
	cmpl $0, %fs:(%rcx)
	je 4b
	AGENT_SCRUB %rsp, %rsp, 0, AGENT_SCRUB_DEEP, AGENT_SCRUB_PATTERN
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
	cmpl $0, agent_scrub_check(%rip)
	jne 5f
	call spool_i_\name
	movq %rax, %r11
4:
	AGENT_SCRUB %rbp, %rbp, -64, \span
	movq %r11, %rax
	.cfi_remember_state
	leave
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_restore_state
5:
	AGENT_CHECK_FILL
	call spool_i_\name
	movq %rax, %r11
	AGENT_CHECK_SCAN .Ldeep_\name
	jmp 4b
	.cfi_endproc
	.size \name, . - \name
	.pushsection .data.spool_scrub,"aw",@progbits
	.p2align 3
.Ldeep_\name:
	.quad 0
	.popsection
	.pushsection .rodata.spool_scrub,"a",@progbits
.Lname_\name:
	.asciz "\name"
	.popsection
	.pushsection spool_scrub_tab,"aw",@progbits
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
	.section .note.GNU-stack,"",@progbits
	.endm
