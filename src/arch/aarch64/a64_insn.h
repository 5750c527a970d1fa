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

static inline int64_t a64_sext(uint64_t v, unsigned bits)
{
	uint64_t m = 1ull << (bits - 1);

	v &= (1ull << bits) - 1;
	return (int64_t)((v ^ m) - m);
}

/* The class of instruction word w at module offset (or run-time address)
 * addr; *target its PC-relative target (branch destination, ADR/ADRP
 * value, literal address) for the classes that have one. Header-only: the
 * agent's BRK probes emulate these classes (a64_agent_brk.c). */
static inline int a64_class(uint32_t w, uint64_t addr, uint64_t *target)
{
	uint64_t t = 0;
	int c = A64_PLAIN;

	if ((w & 0x7c000000u) == 0x14000000u) {
		c = (w & 0x80000000u) ? A64_BL : A64_B;
		t = addr + (uint64_t)(a64_sext(w, 26) * 4);
	} else if ((w & 0xff000000u) == 0x54000000u) {
		c = A64_BCOND;
		t = addr + (uint64_t)(a64_sext(w >> 5, 19) * 4);
	} else if ((w & 0x7e000000u) == 0x34000000u) {
		c = A64_CBZ;
		t = addr + (uint64_t)(a64_sext(w >> 5, 19) * 4);
	} else if ((w & 0x7e000000u) == 0x36000000u) {
		c = A64_TBZ;
		t = addr + (uint64_t)(a64_sext(w >> 5, 14) * 4);
	} else if ((w & 0x1f000000u) == 0x10000000u) {
		uint64_t imm = ((uint64_t)((w >> 5) & 0x7ffff) << 2) | ((w >> 29) & 3);

		if (w & 0x80000000u) {
			c = A64_ADRP;
			t = (addr & ~0xfffull) + ((uint64_t)a64_sext(imm, 21) << 12);
		} else {
			c = A64_ADR;
			t = addr + (uint64_t)a64_sext(imm, 21);
		}
	} else if ((w & 0x3b000000u) == 0x18000000u) {
		t = addr + (uint64_t)(a64_sext(w >> 5, 19) * 4);
		if (w & 0x04000000u)
			c = A64_LDR_LIT_SIMD;
		else if ((w >> 30) == 3)
			c = A64_PRFM_LIT;
		else
			c = A64_LDR_LIT;
	} else if ((w & 0xfffffc1fu) == 0xd65f0000u || w == 0xd65f0bffu || w == 0xd65f0fffu) {
		c = A64_RET;
	}
	if (target)
		*target = t;
	return c;
}


/* Short text for --list and messages ("b.cond 0x1234", "word 0xa9bf7bfd"),
 * into buf. */
const char *a64_text(uint32_t w, uint64_t addr, char *buf, size_t cap);

/*
 * Is the word at `at` (module offset; code holds [lo, lo + len)) between a
 * load-exclusive (LDXR, LDAXR, LDXP...) and the store-exclusive after it,
 * the store included? A probe there would run its trampoline (stores to
 * the stack) inside the exclusive pair, which clears the exclusive monitor
 * on real cores: the store-exclusive would fail on every try, the loop
 * never ending (an LL/SC atomic on a core without LSE, as libgcc's
 * outline atomics' fallback). Looked for within 16 words either side.
 */
int a64_in_exclusive(const uint8_t *code, uint64_t lo, size_t len, uint64_t at);

/* Why w at addr cannot run from a trampoline, or NULL when it can. */
const char *a64_unreloc(uint32_t w, uint64_t addr);

/*
 * The trampoline of a probe at module offset addr whose instruction is w:
 * save every general register, NZCV and the vector state (q0-q31, and
 * SVE's Z, P and FFR: a64_agent_sve.c) on the stack, call the
 * agent's standard handler `handler` with (probe_id, the saved registers,
 * the stack pointer at the probe), restore them, run w relocated, and
 * branch back to addr + 4. id2 != 0: a second handler call (handler2 with
 * id2) follows the first, on the same saved registers (a function whose
 * first instruction returns: its entry and exit). Returns 0, -ENOTSUP (w cannot run elsewhere,
 * a64_unreloc says why) or -ENOSPC.
 */
int a64_code_probe(struct x86_code *c, uint32_t w, uint64_t addr, uint32_t probe_id,
		   uint32_t handler, uint32_t id2, uint32_t handler2);

/* One handler call of a trampoline: w0 = id, x1 = the saved registers,
 * x2 = sp at the probe, w3 = arg (a branch probe: the instruction word,
 * whose condition the handler evaluates on the saved registers). */
struct a64_call {
	uint32_t id, handler, arg;
};
#define A64_CALLS_MAX 4

/* a64_code_probe with n (1..A64_CALLS_MAX) handler calls, in order, on
 * the same saved registers: several probes of one instruction (a block's
 * counter, its branch, a function's entry or exit) in one trampoline. */
int a64_code_probe_calls(struct x86_code *c, uint32_t w, uint64_t addr,
			 const struct a64_call *calls, unsigned n);

/*
 * A trampoline's handler calls are skippable (--disabled): c->skip[k] is
 * call k's words [at, end) and its probe id, c->mark[0].off the relocated
 * instruction's offset. A disabled probe's call starts with `B end`
 * instead (a64_code_skip(code, at, end)); when every call is off, the
 * trampoline's first word is `B mark[0].off` instead of the `sub sp`: the
 * probe then costs its two branches and nothing is saved or called.
 */
void a64_code_skip(uint8_t *code, uint32_t at, uint32_t end);

/* The value a conditional branch w (B.cond, BC.cond, CBZ/CBNZ, TBZ/TBNZ)
 * tests, from the registers x[0..30] and NZCV (bits 31-28) it runs with:
 * 1 taken, 0 not taken, -1 not a conditional branch. Shared by the planner's
 * unit test and the agent's branch handler (header-only: the agent links
 * nothing of the host side). */
static inline int a64_branch_taken(uint32_t w, const uint64_t *x, uint64_t nzcv)
{
	unsigned n = nzcv >> 31 & 1, z = nzcv >> 30 & 1, c = nzcv >> 29 & 1, v = nzcv >> 28 & 1;
	unsigned rt = w & 31, r;
	uint64_t val = rt == 31 ? 0 : x[rt];

	if ((w & 0xff000000u) == 0x54000000u) {
		switch (w >> 1 & 7) {
		case 0: r = z; break;			/* EQ / NE */
		case 1: r = c; break;			/* CS / CC */
		case 2: r = n; break;			/* MI / PL */
		case 3: r = v; break;			/* VS / VC */
		case 4: r = c && !z; break;		/* HI / LS */
		case 5: r = n == v; break;		/* GE / LT */
		case 6: r = n == v && !z; break;	/* GT / LE */
		default: return 1;			/* AL, NV: always */
		}
		return (int)(r ^ (w & 1));
	}
	if ((w & 0x7e000000u) == 0x34000000u) { /* CBZ (op 0) / CBNZ (op 1) */
		if (!(w >> 31))
			val = (uint32_t)val;
		return (val != 0) == (int)(w >> 24 & 1);
	}
	if ((w & 0x7e000000u) == 0x36000000u) { /* TBZ (op 0) / TBNZ (op 1) */
		unsigned bit = (w >> 31) << 5 | (w >> 19 & 31);

		return (int)(val >> bit & 1) == (int)(w >> 24 & 1);
	}
	return -1;
}

/*
 * A switch's jump table read by the BR at `at` (module offset) of the code
 * starting at lo (bytes code, len bytes), in the forms GCC and clang emit:
 *
 *   cmp wI, #N-1 ; b.hi default              the bound: N entries
 *   adrp xT, table ; add xT, xT, :lo12:table  (or adr xT, table)
 *   ldrb/ldrh/ldr/ldrsb/ldrsh/ldrsw wE, [xT, ...]
 *   adr xB, base
 *   add xD, xB, wE, {sxtb|sxth|sxtw|uxtb|uxth|uxtw|lsl} #S
 *   br xD                                    target = base + (entry << S)
 *
 * 0 and *jt filled, or -ENOENT (another shape: its targets stay unknown).
 */
struct a64_jtab {
	uint64_t table;	  /* module offset of the entries */
	uint64_t base;	  /* what an entry (shifted) is added to */
	uint32_t entries; /* from the bound check */
	uint8_t size;	  /* bytes per entry: 1, 2, 4 */
	uint8_t is_signed; /* the load sign-extends it */
	uint8_t ext;	  /* the add's extension: 0-7 UXTB..SXTX, 3 also LSL */
	uint8_t shift;
};
int a64_jump_table(const uint8_t *code, uint64_t lo, size_t len, uint64_t at,
		   struct a64_jtab *jt);
/* The target of the table entry whose jt->size bytes are at e. */
uint64_t a64_jtab_target(const struct a64_jtab *jt, const uint8_t *e);

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
