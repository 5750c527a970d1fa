// SPDX-License-Identifier: MIT
/*
 * probe_abi.h - layout of the probes feature area (SHM_EXT_PROBES) that
 * spool fills and the agent reads: which modules to patch, where, with
 * which bytes, and the ready-made trampoline code.
 *
 * Division of work: spool does all decoding and relocation (Zydis, on the
 * host), so the agent stays small and links nothing new. What only the
 * target knows is the load bias of each module; spool therefore writes
 * trampolines as position-independent templates plus relocation
 * descriptors, and the agent, once it knows a module's base and where its
 * trampoline page landed, applies them (a subtraction and a 4- or 8-byte
 * store each). Addresses in this area are module-relative ("offsets": the
 * link-time virtual address; for a non-PIE executable the base is 0).
 *
 * The agent writes back each probe's status and runtime address, and each
 * module's base, so spool can say what was patched and name addresses.
 *
 * Layout from the start of the area:
 *   struct probe_area_hdr
 *   struct probe_area_module  x nmodules
 *   struct probe_area_probe   x nprobes     (sorted by module, then patch_off)
 *   struct probe_area_reloc   x nrelocs
 *   code bytes                code_bytes
 *   uint64_t counts[2 * ncounts] (block and branch counters, 8-aligned)
 *   struct probe_area_var     x nvars       (sorted by probe id, then index)
 *
 * Libc-free: included by the agent.
 */
#ifndef SPOOL_PROBE_PROBE_ABI_H
#define SPOOL_PROBE_PROBE_ABI_H

#include <stdint.h>

#define PROBE_AREA_MAGIC 0x31425250u /* "PRB1" */
#define PROBE_AREA_VERSION 9
#define PROBE_MOD_NAME 256
#define PROBE_MAX_PATCH 32 /* bytes a jump probe may displace */
#define PROBE_PATH_MAX 4096
#define PROBE_TRAP_VIEWS 64 /* threads spool blocks SIGTRAP for at detach */

/* probe_area_probe.method */
/* PROBE_M_RETADDR: an exit probe that patches nothing. The function's
 * entry probe (handler PROBE_H_FUNC_ENTRY_RA, ret_id naming this probe)
 * replaces the return address with the agent's return trampoline and keeps
 * the real one on the thread's shadow stack; the trampoline records the
 * exit and returns to the real address (agent_probe_ra.c). Used where a
 * ret has no 5-byte window (it would be an int3). */
/* PROBE_M_RIDE: a probe that patches nothing either; its handler call is
 * in the trampoline of probe `owner` (another kind of probe at the same
 * instruction: func: and args: of one entry). The agent only registers its
 * id (address, variables, return-address exit) for the handler. */
enum { PROBE_M_JUMP = 1, PROBE_M_INT3 = 2, PROBE_M_RETADDR = 3, PROBE_M_RIDE = 4 };

/* probe_area_probe.handler: the standard handlers the agent knows (the
 * probe library's runtime half, src/agent/agent_probe.c). */
enum {
	PROBE_H_FUNC_ENTRY = 1,
	PROBE_H_FUNC_EXIT = 2,
	PROBE_H_HIT = 3,
	/* Counters, no record: counts[2 * id] += 1. Called with the flags saved
	 * (x86_code_call_handler save_flags): the block may start where they
	 * are live. */
	PROBE_H_BLOCK = 4,
	/* counts[2 * id + (taken ? 0 : 1)] += 1, taken = the jcc's condition
	 * (cc, 0-15) evaluated on the saved flags. The handler's first argument
	 * is id | cc << PROBE_CC_SHIFT; the saved flags sit just above the
	 * struct probe_regs. For an int3 probe the agent takes cc from op. */
	PROBE_H_BRANCH = 5,
	/* Variable probes: read the probe's variables (struct probe_area_var,
	 * vars_off) and record one KIND_PROBE PROBE_OP_VAR event per variable.
	 * Called by x86_code_call_handler_full: the second argument is a
	 * struct probe_var_regs. */
	PROBE_H_VAR = 6,
	/* A function entry whose exits are hooked through the return address:
	 * records as PROBE_H_FUNC_ENTRY, then swaps the return address for the
	 * agent's return trampoline (probe_area_probe.ret_id: the exit probe,
	 * method PROBE_M_RETADDR, the trampoline records). */
	PROBE_H_FUNC_ENTRY_RA = 7,
	/* aarch64, not handlers: what every trampoline calls around its
	 * handlers to save (VSAVE) and restore (VREST) the vector state, SVE's
	 * Z, P and FFR on a core that has it (src/arch/aarch64/a64_agent_sve.c) */
	PROBE_H_A64_VSAVE = 8,
	PROBE_H_A64_VREST = 9,
	PROBE_H_MAX
};
#define PROBE_CC_SHIFT 28
#define PROBE_ID_MASK ((1u << PROBE_CC_SHIFT) - 1)

/* probe_area_probe.status, written by the agent */
enum {
	PROBE_S_PENDING = 0,
	PROBE_S_PATCHED = 1,
	PROBE_S_NO_MODULE = 2,	/* the module was not loaded at startup */
	PROBE_S_MISMATCH = 3,	/* the bytes in memory are not the ones spool decoded */
	PROBE_S_NO_PAGE = 4,	/* no trampoline page within +-2 GB of the module */
	PROBE_S_PROTECT = 5,	/* mprotect of the text refused */
	PROBE_S_REMOVED = 6,	/* its handler faulted: disabled (error handler ran) */
	PROBE_S_NO_TRAP = 7,	/* int3 probe but the SIGTRAP handler could not be installed */
	PROBE_S_READY = 8,	/* trampoline placed, text not patched yet (attach: prepare) */
	PROBE_S_RESTORED = 9,	/* was patched; original bytes put back at detach */
	PROBE_S_DELETED = 10,	/* attach: deleted while the program ran, bytes put back */
	PROBE_S_OFF = 11,	/* an int3 probe placed disabled: its int3 not written */
};

/* probe_area_probe.flags */
#define PROBE_F_DISABLED 0x1u /* placed disabled (spool probe --disabled) */
/* aarch64, an entry with PROBE_H_FUNC_ENTRY_RA after a PACIASP (PACIBSP)
 * landing pad: LR is signed with key A (B) and sp, and so must be what
 * replaces it (src/arch/aarch64/a64_agent_ra.c) */
#define PROBE_F_A64_PAC_A 0x2u
#define PROBE_F_A64_PAC_B 0x4u
/* aarch64, attach mode: set by the agent at prepare on a probe that will be
 * a BRK (no branch reaches a trampoline): spool treats it as an int3 probe
 * (left out, PROBE_S_NO_TRAP, when a thread blocks SIGTRAP) */
#define PROBE_F_A64_BRK 0x8u
#define PROBE_SKIPS 4	      /* handler calls of a trampoline that can be skipped */

/* probe_area_reloc.type */
enum {
	/* 4 bytes at code+at = (module base + target) - (trampoline + next) */
	PROBE_R_REL32 = 1,
	/* 8 bytes at code+at = address of the agent's standard handler `target` */
	PROBE_R_HANDLER64 = 2,
	/* aarch64: the B or BL word at code+at gets imm26 = ((module base +
	 * target) - (trampoline + at)) / 4; out of +-128 MiB the probe is not
	 * placed (PROBE_S_NO_PAGE) */
	PROBE_R_A64_B26 = 3,
	/* aarch64: 8 bytes at code+at = module base + target (a literal the
	 * trampoline loads: relocated ADR, ADRP, LDR literal, BL's return) */
	PROBE_R_ABS64 = 4,
};

struct probe_area_hdr {
	uint32_t magic;
	uint32_t version;
	uint32_t nmodules;
	uint32_t nprobes;
	uint32_t nrelocs;
	uint32_t code_bytes;
	uint64_t modules_off; /* from the start of the area */
	uint64_t probes_off;
	uint64_t relocs_off;
	uint64_t code_off;
	uint64_t counts_off; /* counters of block and branch probes, by id */
	uint32_t ncounts;    /* ids covered: counts has 2 * ncounts entries */
	uint32_t placed_pid; /* agent: the process that placed the probes (launch mode) */
	/* written by the agent */
	uint32_t done;	   /* 1 once the agent has gone through every probe */
	uint32_t patched;  /* probes patched */
	uint32_t removed;  /* probes disabled after a handler fault */
	uint32_t attach;   /* spool: attach mode, the constructor must not patch */
	uint32_t detached; /* agent: attach mode, every original byte restored */
	uint32_t handler_loaded; /* agent: the custom handlers are in */
	char handler_path[PROBE_PATH_MAX]; /* spool: custom handlers (--handler), "" = none */
	char handler_error[256];	   /* agent: why they could not be loaded */
	uint64_t vars_off; /* variable recipes of PROBE_H_VAR probes */
	uint32_t nvars;
	/* agent: images exec'd after the probes were placed (the program's, or
	 * its children's) and not probed: the probes are planned for the
	 * executable spool started, so only that process exec'ing that same
	 * file again is probed again (agent_probe_init) */
	uint32_t execs_unprobed;
	/* agent, attach mode, at detach: threads whose own view blocks
	 * SIGTRAP while the agent kept it out of their kernel mask
	 * (agent_probe_got.c); spool blocks it for them for real once the int3
	 * probes are out, so the program reads back the mask it set */
	uint32_t trap_views;
	int32_t trap_view_tid[PROBE_TRAP_VIEWS];
	/* agent: return-address exits (PROBE_M_RETADDR). ra_full: calls whose
	 * return address was left alone because the thread's shadow stack was
	 * full (their exits are not recorded); ra_lost: frames dropped from a
	 * shadow stack without their exit (longjmp, exceptions, a thread or a
	 * stack the program left) */
	uint64_t ra_full;
	uint64_t ra_lost;
	/* agent: threads the program made with its own clone system call
	 * (seen through syscall user dispatch while int3 probes are in), not
	 * pthread_create: no thread state of the agent's of their own (they
	 * share their creator's TLS, or have a runtime's), no dispatch. No
	 * longer written: the control block's raw_clones counts them for
	 * every command (kept for the area's layout) */
	uint32_t raw_threads;
};

struct probe_area_module {
	char name[PROBE_MOD_NAME]; /* basename of the file ("" = the main executable) */
	uint64_t lo, hi;	   /* offsets spanned by its probes (to place the page) */
	uint32_t code_bytes;	   /* trampoline bytes of this module's probes */
	uint32_t first_probe;
	uint32_t nprobes;
	uint32_t status; /* agent: 1 found, 0 not */
	uint64_t base;	 /* agent: load bias */
	uint64_t page;	 /* agent: where its trampolines landed */
};

struct probe_area_probe {
	uint32_t id;	 /* the probe's id: object index of its KIND_PROBE records */
	uint32_t module; /* index into the module table */
	uint64_t addr_off;  /* the probed instruction */
	uint64_t patch_off; /* start of the bytes replaced (<= addr_off for exit windows) */
	uint32_t patch_len; /* 1 for int3, >= 5 for a jump */
	uint32_t method;    /* PROBE_M_* */
	uint32_t handler;   /* PROBE_H_* */
	uint32_t op;	    /* PROBE_OP_* recorded (event.h); PROBE_H_BRANCH: the cc */
	uint8_t orig[PROBE_MAX_PATCH]; /* expected bytes at patch_off */
	/* Trampoline (jump) or out-of-line slot (int3): code_len bytes at
	 * code_off of the code blob, relocs [reloc_first, +reloc_count). The
	 * jump goes to code+0; an int3 hit resumes at code+0 after the handler. */
	uint32_t code_off;
	uint32_t code_len;
	uint32_t reloc_first;
	uint32_t reloc_count;
	/* written by the agent */
	uint32_t status; /* PROBE_S_* */
	/* spool: the id of an exit probe this probe's trampoline also runs (a
	 * function that returns within its first 5 bytes: "shared"), 0 none.
	 * That id is in no probe_area_probe of its own. */
	uint32_t shared_exit;
	uint32_t ret_id; /* spool: PROBE_H_FUNC_ENTRY_RA, the id of its PROBE_M_RETADDR exit */
	uint32_t flags;  /* PROBE_F_* */
	/* The trampoline's handler calls (jump probes; its own, its shared
	 * exit's, those of the probes riding in it: PROBE_M_RIDE): at
	 * code+skip_at[k] a 5-byte nop, or while probe skip_id[k] is disabled
	 * a jmp to code+skip_end[k] over its call. skip_end 0: none. */
	uint32_t skip_id[PROBE_SKIPS];
	uint16_t skip_at[PROBE_SKIPS];
	uint16_t skip_end[PROBE_SKIPS];
	uint32_t owner;		/* PROBE_M_RIDE: the probe whose trampoline runs it */
	uint32_t pad;
	uint64_t runtime_addr;	/* base + addr_off */
	uint64_t runtime_patch; /* base + patch_off */
};

struct probe_area_reloc {
	uint32_t at;   /* offset in the probe's code */
	uint32_t next; /* end of the instruction holding it (REL32) */
	uint32_t type; /* PROBE_R_* */
	uint32_t pad;
	uint64_t target; /* module offset (REL32) or handler id (HANDLER64) */
};

/*
 * What the trampoline hands the handler: the caller-saved registers it
 * pushed, lowest address first. The probed thread's stack pointer at the
 * probe is (uintptr_t)(regs + 1) + PROBE_REDZONE for jump probes; the int3
 * path fills the same struct from the signal context. The trampoline
 * realigns the stack to 16 bytes for the call (a probe may run with any
 * rsp), so the handler is entered as the ABI says.
 */
struct probe_regs {
	uint64_t r11, r10, r9, r8, rdi, rsi, rdx, rcx, rax;
};
#define PROBE_REDZONE 128

/*
 * Variable probes. spool evaluates each variable's DWARF location at the
 * probed address into one recipe the agent runs at each hit; the agent
 * copies `size` raw bytes (at most 16) into the record, spool formats them.
 * Registers use the DWARF x86-64 numbering: 0 rax, 1 rdx, 2 rcx, 3 rbx,
 * 4 rsi, 5 rdi, 6 rbp, 7 rsp (the stack pointer at the probe), 8-15 r8-r15,
 * 17-32 xmm0-15, 33 st0 (x87 st(0): a long double return value, 10 bytes).
 */
#define PROBE_V_REG_ST0 33
enum {
	PROBE_V_REG = 1,     /* the register's low `size` bytes */
	PROBE_V_MEM_REG = 2, /* memory at reg + off */
	PROBE_V_MEM_ABS = 3, /* memory at module base + off (a global) */
	PROBE_V_VAL_REG = 4, /* the value reg + off (DW_OP_stack_value) */
	PROBE_V_CONST = 5,   /* the value off (a constant) */
};

struct probe_area_var {
	uint32_t probe_id;
	uint16_t index;	 /* among the probe's variables */
	uint16_t nvars;	 /* how many the probe has */
	uint8_t how;	 /* PROBE_V_* */
	uint8_t reg;	 /* DWARF register number */
	uint8_t size;	 /* bytes to copy, 1-16 */
	uint8_t pad[5];
	int64_t off;
};

/* What x86_code_call_handler_full saves, lowest address first. */
struct probe_var_regs {
	uint64_t xmm[16][2];
	uint64_t r15, r14, r13, r12, rbp, rbx;
	struct probe_regs gp; /* r11 ... rax */
	uint64_t flags;
};

#endif
