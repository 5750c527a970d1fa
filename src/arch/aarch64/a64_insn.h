// SPDX-License-Identifier: MIT
/*
 * a64_insn.h - A64 (64-bit Arm) instruction classes and the trampolines of
 * dynamic probes on aarch64 (host side: spool plans, the agent only copies
 * the code and applies the relocation descriptors, probe_abi.h).
 *
 * Every A64 instruction is one aligned 32-bit word, so a probe displaces
 * exactly one instruction and is written as one `B` (a single-copy atomic
 * 4-byte store): there is no window, no branch into the middle of a patch.
 * What the planner must know is only whether that one instruction can run
 * from the trampoline. The PC-relative ones are a closed set in A64 (Arm
 * ARM, "Branches, exception generating and system instructions",
 * "PC-rel. addressing", "Load register (literal)"): B, BL, B.cond/BC.cond,
 * CBZ/CBNZ, TBZ/TBNZ, ADR, ADRP, LDR/LDRSW/PRFM literal and the SIMD LDR
 * literal. Those are re-encoded (a64_code_relocate); every other word
 * computes the same from any address and is copied. A hand decoder of those
 * masks is used, not LLVM's disassembler: the aarch64 spool runs on the
 * board, whose root has no LLVM, and nothing else needs decoding.
 *
 * Code is built into struct x86_code (the planner's code container: bytes
 * and relocation descriptors; only buf, len, rel and nrel are used here).
 */
#ifndef SPOOL_ARCH_AARCH64_A64_INSN_H
#define SPOOL_ARCH_AARCH64_A64_INSN_H

#include <stddef.h>
#include <stdint.h>

#include "../x86_64/x86_insn.h"

/* a64_class() results */
enum {
	A64_PLAIN = 0, /* not PC-relative: copied as is */
	A64_B,
	A64_BL,
	A64_BCOND, /* B.cond, BC.cond */
	A64_CBZ,   /* CBZ, CBNZ */
	A64_TBZ,   /* TBZ, TBNZ */
	A64_ADR,
	A64_ADRP,
	A64_LDR_LIT,	  /* LDR Wt/Xt, LDRSW Xt (literal) */
	A64_PRFM_LIT,	  /* PRFM (literal): a hint */
	A64_LDR_LIT_SIMD, /* LDR St/Dt/Qt (literal) */
	A64_RET,	  /* RET, RETAA, RETAB */
};

/* The class of instruction word w at module offset addr; *target its
 * PC-relative target (branch destination, ADR/ADRP value, literal
 * address) for the classes that have one. */
int a64_class(uint32_t w, uint64_t addr, uint64_t *target);

/* Short text for --list and messages ("b.cond 0x1234", "word 0xa9bf7bfd"),
 * into buf. */
const char *a64_text(uint32_t w, uint64_t addr, char *buf, size_t cap);

/* Why w at addr cannot run from a trampoline, or NULL when it can. */
const char *a64_unreloc(uint32_t w, uint64_t addr);

/*
 * The trampoline of a probe at module offset addr whose instruction is w:
 * save every general register, NZCV and q0-q31 on the stack, call the
 * agent's standard handler `handler` with (probe_id, the saved registers,
 * the stack pointer at the probe), restore them, run w relocated, and
 * branch back to addr + 4. id2 != 0: a second handler call (handler2 with
 * id2) follows the first, on the same saved registers (a function whose
 * first instruction returns: its entry and exit). Returns 0, -ENOTSUP (w cannot run elsewhere,
 * a64_unreloc says why) or -ENOSPC.
 */
int a64_code_probe(struct x86_code *c, uint32_t w, uint64_t addr, uint32_t probe_id,
		   uint32_t handler, uint32_t id2, uint32_t handler2);

/* The frame the trampoline saves, lowest address first (the handler's
 * second argument). sp at the probe is (uintptr_t)regs + A64_FRAME. */
struct a64_probe_regs {
	uint64_t x[31]; /* x0-x30 (x30 = LR) */
	uint64_t nzcv;
	uint64_t q[32][2];
};
#define A64_FRAME 768

/* The patch written over the probed instruction: B imm26, filled by the
 * agent (PROBE_R_A64_B26 reach: +-128 MiB). */
#define A64_B_OP 0x14000000u
#define A64_B_REACH (1ll << 27)

#endif
