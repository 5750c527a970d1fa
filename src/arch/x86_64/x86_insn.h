// SPDX-License-Identifier: MIT
/*
 * x86_insn.h - x86-64 instruction decoding, relocation and the jump and
 * trampoline encodings dynamic probes need (host side, Zydis).
 *
 * Addresses here are module offsets (see src/probe/probe_abi.h): code
 * emitted for a trampoline refers to the original code through REL32
 * relocation descriptors that the agent resolves once it knows where the
 * module and the trampoline are. Nothing here assumes a load address.
 */
#ifndef SPOOL_ARCH_X86_64_X86_INSN_H
#define SPOOL_ARCH_X86_64_X86_INSN_H

#include <stddef.h>
#include <stdint.h>

#include "../../probe/probe_abi.h"

/* x86_insn.flags */
#define X86_F_RET 0x1u	     /* ret / ret imm16 */
#define X86_F_BRANCH 0x2u    /* any control transfer but call and ret */
#define X86_F_COND 0x4u	     /* conditional (jcc, loop, jrcxz) */
#define X86_F_CALL 0x8u
#define X86_F_INDIRECT 0x10u /* jmp/call through a register or memory */
#define X86_F_RIPREL 0x20u   /* a memory operand relative to RIP */
#define X86_F_RELATIVE 0x40u /* an immediate relative branch/call: target valid */
#define X86_F_TRAP 0x80u     /* int3, ud2, hlt, syscall-like: ends a straight line */
#define X86_F_NOP 0x100u     /* nop or int3 padding */
#define X86_F_TAIL 0x200u    /* set by the probe planner, not the decoder: a jmp that
			      * leaves the function for another one (a tail call) */
#define X86_F_DATA 0x400u    /* set by the probe planner: bytes not known to be an
			      * instruction (data in a function): never patched */

struct x86_insn {
	uint64_t addr;	 /* module offset of the instruction */
	uint8_t len;
	uint32_t flags;	 /* X86_F_* */
	uint64_t target; /* X86_F_RELATIVE: branch target; X86_F_RIPREL: memory address */
	const char *unreloc; /* non-NULL: why it cannot run elsewhere */
	uint8_t bytes[15];   /* the instruction, for x86_insn_text */
};

/* Decode one instruction at p (avail bytes), located at module offset addr.
 * Returns 0 or -EINVAL when the bytes are not an instruction. */
int x86_decode(const uint8_t *p, size_t avail, uint64_t addr, struct x86_insn *out);

/* The instruction in Intel syntax, for --list and messages. Formatted on
 * demand (decoding is planning's hot loop, and most decoded instructions
 * are never shown): the text is in one of 8 rotating thread-local buffers,
 * valid until 8 more calls. "(data)" for an X86_F_DATA run. */
const char *x86_insn_text(const struct x86_insn *in);

/* Trampoline code being built: bytes and relocation descriptors. */
#define X86_CODE_MAX 512
#define X86_RELOC_MAX 32
#define X86_SKIP_MAX 4
#define X86_MARK_MAX 16
struct x86_code {
	uint8_t buf[X86_CODE_MAX];
	uint32_t len;
	struct probe_area_reloc rel[X86_RELOC_MAX];
	uint32_t nrel;
	/* Handler calls (x86_code_call_handler*): each starts with a 5-byte
	 * nop that becomes a jmp to `end` while the probe `id` is disabled
	 * (spool probe -p: disable ID, --disabled): a flip of the
	 * trampoline's first instruction, no re-planning. */
	struct {
		uint32_t at, end, id;
	} skip[X86_SKIP_MAX];
	uint32_t nskip;
	/* Where each displaced instruction starts in the trampoline (module
	 * offset addr -> buf offset off), recorded by x86_code_relocate and
	 * x86_code_call_moved: a handler call inserted there (x86_code_insert)
	 * sees the thread's state at that instruction. Cleared whenever the
	 * code is rebuilt from len 0. */
	struct {
		uint64_t addr;
		uint32_t off;
	} mark[X86_MARK_MAX];
	uint32_t nmark;
};

/* Append insn (its bytes at p) so that it does the same thing from the
 * trampoline: RIP-relative operands and relative branches are re-targeted
 * through REL32 relocations, rel8 branches widened to rel32. Returns 0,
 * -ENOTSUP (reason in insn->unreloc) or -ENOSPC. */
int x86_code_relocate(struct x86_code *c, const struct x86_insn *insn, const uint8_t *p);
/* A call displaced as the last instruction of a window, emitted as "push
 * the original return address (the byte after the call in the module),
 * jmp to the callee": the callee returns to the original code, and an
 * unwinder (a C++ exception, a backtrace) sees the original return address,
 * never one in the trampoline. Direct calls (e8) and calls through
 * [rip+X] only; -ENOTSUP for others. Flags are kept. */
int x86_code_call_moved(struct x86_code *c, const struct x86_insn *insn, const uint8_t *p);
/* Can x86_code_call_moved move this call (its bytes at p)? */
int x86_call_movable(const struct x86_insn *insn, const uint8_t *p);
/* Insert the handler call of probe_id (x86_code_call_handler_full when
 * full, else x86_code_call_handler with the flags saved) at the mark of
 * module offset addr, moving the code after it: relocations, skips and
 * marks from there on move with it; relative jumps inside the code are
 * not rewritten, so the caller inserts only where none crosses the mark
 * (a jump to the mark itself lands on the inserted call, which is what a
 * branch to that instruction should run). -ENOENT: no mark at addr;
 * -ENOSPC: no room. */
int x86_code_insert(struct x86_code *c, uint64_t addr, uint32_t probe_id, uint32_t handler,
		    int full);
/* jmp rel32 to a module offset. */
int x86_code_jmp(struct x86_code *c, uint64_t target);
/* Save the caller-saved registers, call standard handler `handler` with
 * (probe_id, struct probe_regs *, stack pointer at the probe), restore.
 * how: X86_CALL_SAVE_FLAGS keeps the flags (else clobbered);
 * X86_CALL_NO_REDZONE does not step over the 128-byte red zone below the
 * stack pointer, for a call where it is dead: at a function's first
 * instruction (the call that got there pushed over the caller's), at a
 * ret or a tail jump (the function's frame is gone). Two instructions
 * less a hit. */
#define X86_CALL_SAVE_FLAGS 1
#define X86_CALL_NO_REDZONE 2
int x86_code_call_handler(struct x86_code *c, uint32_t probe_id, uint32_t handler, int how);
/* The same with every register saved for the handler to read (variable
 * probes): flags, the 9 caller-saved and 6 callee-saved general registers
 * and xmm0-15, laid out as struct probe_var_regs (probe_abi.h). Only the
 * caller-saved ones and the flags are restored: the handler is C and keeps
 * the callee-saved ones, and it is general-regs-only, so the xmm copies are
 * for reading. */
int x86_code_call_handler_full(struct x86_code *c, uint32_t probe_id, uint32_t handler);

/* The jump table a switch's indirect jmp reads (x86_jtab.c). */
struct x86_jtab {
	uint64_t table;	    /* module offset of the table */
	uint32_t entries;   /* from the index's bound check */
	uint8_t entry_size; /* 4: int32 offsets from the table (PIC); 8: addresses */
};
/* Recognize the jump table of the indirect jmp that is the last of n
 * consecutive instructions (bytes[i], avail[i] bytes readable there,
 * module offset addrs[i]; the last 24 are looked at, and up to 128 before
 * them for the base register of a PIC table: the line must fall through
 * from there to the jmp). Returns 0,
 * -ENOENT (not a table shape spool knows), -EINVAL (not a jmp / bad bytes)
 * or -ERANGE (a bound too large). */
int x86_jump_table(const uint8_t *const *bytes, const size_t *avail, const uint64_t *addrs,
		   size_t n, struct x86_jtab *jt);
/* Is the indirect jmp ending the n instructions (a straight line, as
 * above) a tail call through a pointer loaded without an index (GOT slot,
 * struct field, vtable): 1, else 0 (x86_jtab.c). */
int x86_tail_jump(const uint8_t *const *bytes, const size_t *avail, const uint64_t *addrs,
		  size_t n);

/* The patch written over the probed bytes: jmp rel32 to the trampoline
 * followed by int3 filler; the agent fills the displacement. */
#define X86_JMP_LEN 5
#define X86_INT3 0xcc

#endif
