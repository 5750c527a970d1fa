// SPDX-License-Identifier: MIT
/*
 * arch_onstack.h - call a function on another stack, for the program's
 * SA_ONSTACK signal handlers that the agent runs itself under record/replay
 * (src/agent/agent_rr_signal.c, doc/record.md "Signals").
 *
 * While recording or replaying, an asynchronous signal's handler runs at a
 * delivery point, called from the agent's code, not by the kernel: without
 * this it ran on the thread's normal stack whatever SA_ONSTACK said
 * (apache2 and Go's runtime check where their handlers run).
 *
 * arch_onstack_call(fn, arg, top): calls fn(arg) with the stack pointer at
 * top (16-aligned, the stack grows down from it) and comes back on the
 * caller's stack. The frame pointer chain links the new stack to the old
 * one (x86-64 rbp, aarch64 x29) and the CFI says the caller's frame is at
 * the saved frame pointer, so an unwinder (a cancellation, a backtrace)
 * walks through; a handler that leaves with siglongjmp restores its own
 * stack pointer. Defined once, in agent_rr_signal.c (ARCH_ONSTACK_DEFINE).
 *
 * Agent code: no allocation, async-signal-safe.
 */
#ifndef SPOOL_ARCH_ARCH_ONSTACK_H
#define SPOOL_ARCH_ARCH_ONSTACK_H

#include <stdint.h>

void arch_onstack_call(void (*fn)(void *), void *arg, uintptr_t top)
	__attribute__((visibility("hidden")));

#if defined(__x86_64__)
/* rdi = fn, rsi = arg, rdx = top */
#define ARCH_ONSTACK_DEFINE                                                                        \
	__asm__(".pushsection .text\n"                                                             \
		".balign 16\n"                                                                     \
		".globl arch_onstack_call\n"                                                       \
		".hidden arch_onstack_call\n"                                                      \
		".type arch_onstack_call, @function\n"                                             \
		"arch_onstack_call:\n"                                                             \
		".cfi_startproc\n"                                                                 \
		"\tpushq %rbp\n"                                                                   \
		".cfi_adjust_cfa_offset 8\n"                                                       \
		".cfi_rel_offset %rbp, 0\n"                                                        \
		"\tmovq %rsp, %rbp\n"                                                              \
		".cfi_def_cfa_register %rbp\n"                                                     \
		"\tmovq %rdx, %rsp\n"                                                              \
		"\tmovq %rdi, %rax\n"                                                              \
		"\tmovq %rsi, %rdi\n"                                                              \
		"\tcall *%rax\n"                                                                   \
		"\tmovq %rbp, %rsp\n"                                                              \
		".cfi_def_cfa_register %rsp\n"                                                     \
		"\tpopq %rbp\n"                                                                    \
		".cfi_adjust_cfa_offset -8\n"                                                      \
		".cfi_restore %rbp\n"                                                              \
		"\tret\n"                                                                          \
		".cfi_endproc\n"                                                                   \
		".size arch_onstack_call, .-arch_onstack_call\n"                                   \
		".popsection\n")
#elif defined(__aarch64__)
/* x0 = fn, x1 = arg, x2 = top */
#define ARCH_ONSTACK_DEFINE                                                                        \
	__asm__(".pushsection .text\n"                                                             \
		".balign 16\n"                                                                     \
		".globl arch_onstack_call\n"                                                       \
		".hidden arch_onstack_call\n"                                                      \
		".type arch_onstack_call, %function\n"                                             \
		"arch_onstack_call:\n"                                                             \
		".cfi_startproc\n"                                                                 \
		"\tstp x29, x30, [sp, #-16]!\n"                                                    \
		".cfi_def_cfa_offset 16\n"                                                         \
		".cfi_offset x29, -16\n"                                                           \
		".cfi_offset x30, -8\n"                                                            \
		"\tmov x29, sp\n"                                                                  \
		".cfi_def_cfa_register x29\n"                                                      \
		"\tmov sp, x2\n"                                                                   \
		"\tmov x16, x0\n"                                                                  \
		"\tmov x0, x1\n"                                                                   \
		"\tblr x16\n"                                                                      \
		"\tmov sp, x29\n"                                                                  \
		".cfi_def_cfa_register sp\n"                                                       \
		"\tldp x29, x30, [sp], #16\n"                                                      \
		".cfi_def_cfa_offset 0\n"                                                          \
		".cfi_restore x29\n"                                                               \
		".cfi_restore x30\n"                                                               \
		"\tret\n"                                                                          \
		".cfi_endproc\n"                                                                   \
		".size arch_onstack_call, .-arch_onstack_call\n"                                   \
		".popsection\n")
#else
#error "spool: unsupported architecture (x86-64 and aarch64 only)"
#endif

#endif
