// SPDX-License-Identifier: MIT
/*
 * a64_gdb_regs.h - gdb's aarch64 registers (a64_gdb_regs.c): where each of
 * gdb's register numbers lies in the kernel's register sets, and the target
 * description that names them. Pure: compiled on any host for the unit
 * tests (tests/unit/test_a64_gdb.c).
 */
#ifndef SPOOL_ARCH_AARCH64_A64_GDB_REGS_H
#define SPOOL_ARCH_AARCH64_A64_GDB_REGS_H

#include <stddef.h>
#include <stdint.h>

/* gdb's numbers: 0-30 x0..x30, 31 sp, 32 pc, 33 cpsr, 34-65 v0..v31,
 * 66 fpsr, 67 fpcr (org.gnu.gdb.aarch64.core, then .fpu) */
#define A64_GDB_NREGS 68
#define A64_GDB_SP 31
#define A64_GDB_PC 32
#define A64_GDB_CPSR 33
#define A64_GDB_V0 34
#define A64_GDB_FPSR 66
#define A64_GDB_FPCR 67

/* the kernel's register sets */
enum { A64_GDB_SET_GPR, A64_GDB_SET_FP };
/* NT_PRSTATUS (struct user_pt_regs: x0-x30, sp, pc, pstate) and NT_FPREGSET
 * (struct user_fpsimd_state: v0-v31, fpsr, fpcr, 8 reserved bytes) */
#define A64_GDB_GPR_BYTES (34 * 8)
#define A64_GDB_FP_BYTES (32 * 16 + 16)

/* Register regno: its set, its byte offset there and its size in gdb's
 * packets (cpsr: the low 4 bytes of pstate). 0, or -EINVAL. */
int a64_gdb_reg_loc(int regno, int *set, size_t *off, int *size);
/* The target description: architecture aarch64, the core and fpu
 * features in gdb's order (built once, static). */
const char *a64_gdb_target_xml(size_t *len);

/* The control word of a watchpoint register (DBGWCR) for len bytes at
 * addr (inside one aligned 8), of the Z packet's type (2 write, 3 read,
 * 4 access): enabled, EL0 only, load/store, the byte-address-select bits
 * of those bytes. */
uint32_t a64_gdb_watch_ctrl(uint64_t addr, uint32_t len, uint32_t type);

#endif
