// SPDX-License-Identifier: MIT
/*
 * arch_dwarf.h - what variable probes (src/probe/probe_dwarf.c,
 * probe_var.c) and the agent's variable handler need to know of this
 * machine's DWARF registers and calling convention: the register numbers
 * of the DWARF ABI supplement, where arguments and return values are at a
 * function's first instruction and at its return, and which registers a
 * recipe may read (the trampoline saves them).
 *
 *   x86-64  SysV ABI: integer arguments rdi rsi rdx rcx r8 r9 (DWARF 5 4 1
 *           2 8 9), floating ones xmm0-7 (17-24), the rest on the stack
 *           above the return address (rsp + 8); results in rax (0), xmm0,
 *           x87 st(0) for long double (33); rsp 7, rbp 6.
 *   aarch64 AAPCS64: integer arguments x0-x7 (DWARF 0-7), floating ones
 *           v0-v7 (64-71), the rest on the stack at sp (no return address
 *           there: it is in x30); a struct returned in memory has its
 *           address in x8, not in an argument register; results in x0 and
 *           v0; sp 31, the frame pointer x29; long double is IEEE binary128
 *           (in a v register, or 16-aligned on the stack): PROBE_T_F128,
 *           printed exactly by the reports on any host (util/f128.c).
 */
#ifndef SPOOL_ARCH_ARCH_DWARF_H
#define SPOOL_ARCH_ARCH_DWARF_H

#include <stdint.h>

#if defined(__aarch64__)
#define ARCH_DW_NGPR_ARGS 8
#define ARCH_DW_GPR_ARGS {0, 1, 2, 3, 4, 5, 6, 7}
#define ARCH_DW_FP0 64	     /* v0 */
#define ARCH_DW_NFP_ARGS 8
#define ARCH_DW_RET 0	     /* x0 */
#define ARCH_DW_SP 31
#define ARCH_DW_FP_REG 29    /* the frame pointer (x29) */
#define ARCH_DW_STACK_ARGS 0 /* the first stack argument, from sp at the entry */
#define ARCH_DW_STRUCT_RET_IN_ARG 0
#define ARCH_DW_LDOUBLE 0    /* no x87 long double: binary128 (PROBE_T_F128) */
/* a register a recipe may read as a value: x0-x30, sp, v0-v31 */
#define ARCH_DW_REG_OK(r) ((r) <= 31 || ((r) >= 64 && (r) <= 95))
#define ARCH_DW_IS_FP(r) ((r) >= 64 && (r) <= 95)
/* a register an address may be based on (DW_OP_bregN): x0-x30, sp */
#define ARCH_DW_BREG_MAX 31
#else
#define ARCH_DW_NGPR_ARGS 6
#define ARCH_DW_GPR_ARGS {5, 4, 1, 2, 8, 9}
#define ARCH_DW_FP0 17 /* xmm0 */
#define ARCH_DW_NFP_ARGS 8
#define ARCH_DW_RET 0 /* rax */
#define ARCH_DW_SP 7
#define ARCH_DW_FP_REG 6 /* rbp */
#define ARCH_DW_STACK_ARGS 8 /* above the return address */
#define ARCH_DW_STRUCT_RET_IN_ARG 1 /* rdi */
#define ARCH_DW_LDOUBLE 1
#define ARCH_DW_REG_OK(r) ((r) <= 32 && (r) != 16)
#define ARCH_DW_IS_FP(r) ((r) >= 17 && (r) <= 32)
#define ARCH_DW_BREG_MAX 16
#endif

#endif
