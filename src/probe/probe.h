// SPDX-License-Identifier: MIT
/*
 * probe.h - the host half of dynamic probes: the probe manager (define,
 * register, find, delete), the probe library (registry of standard probes
 * and their handlers), probe specs, probe points found in ELF symbols and
 * placed by disassembly, and the serialization into the feature area the
 * agent reads (probe_abi.h).
 *
 * Life of a probe (design 1, "dynamic probes for embedded performance
 * analysis"): a spec names functions; the manager resolves them to probe
 * points in modules (the executable and the libraries it loads), defines
 * one probe per point with a standard probe of the library (function entry,
 * function exit), plans its insertion (a jump to a trampoline, or an int3
 * when a jump cannot be placed safely: the reason is kept), and registers
 * it. Registered probes are what probe_mgr_fill_area() hands the agent.
 */
#ifndef SPOOL_PROBE_PROBE_H
#define SPOOL_PROBE_PROBE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../arch/x86_64/x86_insn.h"
#include "probe_abi.h"

/* The probe library: one entry per standard probe (and per user-defined
 * probe, later: a shared object exporting pre/post/error handlers). */
struct probe_lib_entry {
	unsigned index;
	const char *name;
	int user_defined;
	uint32_t pre;	/* PROBE_H_* run before the probed instruction, 0 = none */
	uint32_t post;	/* after it, 0 = none */
	uint32_t error; /* when pre or post faults, 0 = disable the probe only */
	const char *records;
};
const struct probe_lib_entry *probe_lib_find(const char *name);
const struct probe_lib_entry *probe_lib_at(unsigned i);

/* probe_userlib.c: user-defined probes (custom handler objects) stored in
 * $XDG_CONFIG_HOME/spool/probes (else ~/.config/spool/probes). */
int probe_userlib_dir(char *buf, size_t len);
/* Store the handler object at path so (absolute) as probe NAME (its file
 * name without .so, into name): 1 added, 2 replaced (it changed), 0 there
 * already; -ENOEXEC: not a handler object (exports none of the three),
 * -EINVAL: a name that is not a plain file name; other negative errnos. */
int probe_userlib_add(const char *so, char *name, size_t nlen);
/* The stored object of probe NAME into path: 0, or a negative errno. */
int probe_userlib_find(const char *name, char *path, size_t len);
/* The standard probes and the user's, with their handlers. */
void probe_userlib_list(FILE *out);

struct probe_sym {
	char *name;
	uint64_t addr, size;
};

struct probe_module {
	char *path;	/* file */
	char *name;	/* basename, as the agent matches it; "" for the executable */
	int is_main;
	int stripped;	/* no .symtab: .dynsym only */
	int fd;
	void *elf;	/* Elf * */
	struct probe_sym *syms; /* FUNC symbols with a size, sorted by address, unique */
	size_t nsyms;
	uint8_t *cfg_want; /* per sym: PROBE_CFG_* asked by block:/branch: specs */
	uint64_t *targets; /* every direct branch/call target and RIP-relative
			    * address in its code, sorted (NULL until analysed) */
	size_t ntargets;
	uint64_t *jumps;   /* indirect jmps whose jump table was read: their
			    * targets are in targets (sorted) */
	size_t njumps, njtabs;
	uint64_t *calls;   /* direct call targets (function entries), sorted */
	size_t ncalls;
	uint64_t *seeds;   /* code addresses: direct branch and call targets and
			    * jump-table entries (no RIP-relative operands:
			    * those may be data), sorted (probe_known.c) */
	size_t nseeds;
	uint8_t *data_said; /* per sym: its unknown bytes were reported */
	size_t ndata_said;  /* functions reported (a few are listed) */
	int analysed;
	char *dbg_path;	/* its separate debug file (src/util/debugfile.h), or NULL */
	int dbg_fd, dbg_tried;
	void *dbg_elf;	/* Elf * of dbg_path */
	void *dwarf;	/* Dwarf *, opened by the first variable probe */
	void *cfi;	/* Dwarf_CFI * of .eh_frame */
	int dwarf_tried, cfi_tried;
	/* Code the program copies to other addresses at run time, never
	 * patched: a copied jmp rel32 or int3 would lead nowhere. V8's
	 * embedded builtins (node, d8): probe_module_copied(). */
	uint64_t copied_lo, copied_hi;
	size_t ncopied;	/* functions (syms) in [copied_lo, copied_hi) */
	int copied_said; /* their warning was given */
	/* The PLT sections (.plt, .plt.sec, .plt.got): every stub in them
	 * is a function entry, the one a jmp to an imported function goes
	 * to, even when no call in the module targets that stub (libevent's
	 * event_mm_calloc_ only jumps to calloc@plt). */
	uint64_t plt_lo[3], plt_hi[3];
	size_t nplt;
};

/* probe_module.cfg_want */
#define PROBE_CFG_BLOCKS 0x1
#define PROBE_CFG_BRANCHES 0x2
#define PROBE_CFG_BEXITS 0x4 /* block-exit: before each block's last instruction */

/* probe_def.point: a counting probe at one instruction (probe_point.c),
 * op PROBE_OP_BLOCK like a block's counter, reported as a point. */
enum { PROBE_PT_JUMP = 1, PROBE_PT_LABEL = 2, PROBE_PT_BEXIT = 3 };

/* probe_def.op of block and branch probes (host side only: they record no
 * event, they count; the agent sees the cc in the area's op instead). */
#define PROBE_OP_BLOCK 16
#define PROBE_OP_BRANCH 17

/* One probe: a point, a standard probe, how it is inserted. */
struct probe_def {
	uint32_t id;
	uint32_t module;
	uint32_t sym;	   /* index into the module's syms */
	uint32_t op;	   /* PROBE_OP_* (event.h) */
	uint32_t handler;  /* PROBE_H_* */
	uint32_t method;   /* PROBE_M_* */
	uint64_t addr;	   /* probed instruction, module offset */
	uint64_t patch_off;
	uint32_t patch_len;
	char why[160];	   /* int3: why a jump could not be placed */
	char insn[64];	   /* the probed instruction, Intel syntax */
	uint8_t orig[PROBE_MAX_PATCH];
	struct x86_code *code;
	int registered;
	uint8_t point;	   /* PROBE_PT_*, 0 = not a point */
	char point_name[64]; /* label: its name */
	/* block: [addr, end) is the basic block; branch: addr is the jcc, end
	 * its target, fall the instruction after it, cc its condition */
	uint64_t end, fall;
	uint8_t cc;
	uint32_t shared;   /* != 0: counted in that probe's trampoline, not patched
			    * (method PROBE_M_RIDE: its handler runs there) */
	uint32_t carry;	   /* branch int3: also counts this block */
	uint32_t ret_id;   /* entry with PROBE_H_FUNC_ENTRY_RA: its PROBE_M_RETADDR exit */
	uint64_t count[2]; /* from the agent: block hits; branch taken, not taken */
	uint32_t status;   /* from the agent */
	uint64_t runtime_addr;
	/* Variable probes (PROBE_H_VAR): what the handler reads, and the
	 * address whose state it sees (the probe runs before the instructions
	 * it displaced, so that is patch_off, or addr for an int3). */
	struct probe_area_var *vars;
	uint32_t nvars;
	uint64_t eval_pc;
	int time_only;	   /* function probes a time: spec asked for, no func: */
	const char *spec;  /* the -e text that placed it (m->cur_spec then) */
	uint8_t disabled;  /* placed disabled (--disabled), or disabled since */
	uint8_t area_flags; /* PROBE_F_* the plan gives the agent (PROBE_F_A64_PAC_*) */
	/* Deleted alone (spool probe --commands) while other probes of its
	 * combined group (the probe whose code it is and those riding in
	 * it, `shared`) still run: its handler call is jumped over for good,
	 * the code stays until the last of the group is deleted. */
	uint8_t gone;
};

/* spool probe -q: the notes on the files probed (stripped, not loaded at
 * startup) are not printed; warnings and errors still are. Set before
 * probe_mgr_init. */
extern int probe_mgr_quiet;

struct probe_mgr {
	struct probe_module *mods;
	size_t nmods;
	struct probe_def *defs;
	size_t ndefs, defs_cap;
	char *exe;		/* resolved path of the program */
	const char *cur_spec;	/* the -e text being added (named by conflicts) */
	char **libs;		/* libraries it loads (DT_NEEDED, recursively), resolved */
	size_t nlibs;
	int libs_resolved;
	int attach;		/* attach mode: no call in a jump's window (a thread
				 * inside the callee would return into the patch) */
	int attach_pid;		/* attach mode: the process (its maps name the
				 * libraries loaded now, re-read by each lookup) */
	struct probe_vspec *vspecs; /* var:, assert:, time: specs (probe_var.c) */
	size_t nvspecs;
	struct probe_vvar *vvars;   /* every variable of every variable probe */
	size_t nvvars;
	struct probe_ovl *ovl;	    /* probe_plan_overlaps' index (probe_plan.c) */
	int exits;		    /* PROBE_EXITS_*: how function exits are hooked */
	int unwinder;		    /* attach mode: a C++ unwinder may run (probe_plan.c);
				     * 0 not looked yet, 1 none, 2 yes */
	/* ids kept free for probes added while the program runs (spool probe
	 * -p --commands): the area's counters and the agent's table cover them */
	uint32_t id_reserve;
	/* attach mode, while one added spec is planned (probe_live.c resets
	 * them): points of it that probes already placed in the running
	 * program cover, so that the answer names them. busy: a point that
	 * would have joined placed probe busy_owner's trampoline
	 * (probe_plan_ride -EBUSY), the last at busy_addr; dup: a function
	 * whose entry and exits placed probe dup_id already hooks.
	 * busy_ids: the distinct owners (the first PROBE_BUSY_IDS), which the
	 * answer says to delete before adding both specs at once. */
	uint32_t nbusy, busy_owner, ndup, dup_id;
	uint64_t busy_addr;
	uint32_t busy_ids[8], nbusy_ids;
};
#define PROBE_BUSY_IDS 8

/* probe_mgr.exits (spool probe --exits): AUTO patches each ret (a jump
 * window, else int3) unless one of the function's exits would be an int3
 * or go unprobed; then the function's exits are hooked through its return
 * address (PROBE_M_RETADDR). PATCH never swaps a return address; RETADDR
 * swaps it in every function whose entry is probed. */
enum { PROBE_EXITS_AUTO = 0, PROBE_EXITS_PATCH = 1, PROBE_EXITS_RETADDR = 2 };

/* A parsed spec: KIND:GLOB (the executable) or KIND:LIBGLOB:GLOB (libraries
 * whose file name matches LIBGLOB); KIND is func, block or branch. */
struct probe_spec {
	char kind[16];
	char lib[256]; /* "" = the executable */
	char pattern[256];
	const char *text;
	char arg[1024]; /* var:, assert:, time: everything after KIND: */
	char label[64]; /* label: the label's name (a glob) */
};
int probe_spec_parse(const char *text, struct probe_spec *out, char *err, size_t errlen);

int probe_mgr_init(struct probe_mgr *m, const char *exe);
void probe_mgr_free(struct probe_mgr *m);
/* Define (and register) the probes of one spec. Returns how many were
 * defined (0: nothing matched, with the reason logged) or a negative errno. */
int probe_mgr_add_spec(struct probe_mgr *m, const struct probe_spec *s);
struct probe_def *probe_mgr_find(struct probe_mgr *m, uint32_t module, uint64_t addr,
				 uint32_t op);
int probe_mgr_register(struct probe_mgr *m, struct probe_def *d);
int probe_mgr_unregister(struct probe_mgr *m, struct probe_def *d);
int probe_mgr_delete(struct probe_mgr *m, struct probe_def *d);

/* Plan the block and branch probes that block:/branch: specs asked for
 * (after every spec is added: a function asked for both gets them planned
 * together, so a branch can ride in its block's trampoline). */
int probe_mgr_plan_cfg(struct probe_mgr *m);
/* Any block or branch probe / any function probe registered? */
int probe_mgr_has_cfg(const struct probe_mgr *m);
int probe_mgr_has_func(const struct probe_mgr *m);
/* The "coverage" side file: one line per block and branch probe with its
 * counts (doc/trace-format.md, doc/probe.md). */
int probe_mgr_cfg_table(const struct probe_mgr *m, char **text, size_t *len);

/* Bytes the feature area needs, and filling it. */
uint64_t probe_mgr_area_size(const struct probe_mgr *m);
int probe_mgr_fill_area(struct probe_mgr *m, void *area, uint64_t size);
/* The same for the defs from index `from` on only: a batch of probes added
 * while the program runs (probe_live.c). Its header has no counters (the
 * first area's, whose ids id_reserve kept, count them). */
uint64_t probe_mgr_area_size_from(const struct probe_mgr *m, size_t from);
int probe_mgr_fill_area_from(struct probe_mgr *m, size_t from, void *area, uint64_t size);
/* Read back the agent's status of every probe from the area (size bytes,
 * spool's own figure): -EPROTO, nothing read, when the program rewrote the
 * area's offsets or counts out of its bounds. */
int probe_mgr_read_area(struct probe_mgr *m, const void *area, uint64_t size);
/* Copy the area's header into *copy and check its tables lie inside size
 * bytes: 0, or -EPROTO. */
struct probe_area_hdr;
int probe_area_check(const void *area, uint64_t size, struct probe_area_hdr *copy);

/* The "probes" side file of the trace: one line per registered probe,
 * "id op method module offset symbol function" (doc/trace-format.md). */
int probe_mgr_table(const struct probe_mgr *m, char **text, size_t *len);
/* A function as planning messages name it: "Bank::transfer(int, int, long)
 * (_ZN4Bank8transferEiil)" for a C++ symbol, else the symbol. Static
 * buffers: a few may be used in one message (probe_mgr.c). */
const char *probe_sym_shown(const struct probe_module *mod, uint32_t sym);
/* --list output. */
void probe_mgr_print_list(const struct probe_mgr *m, FILE *out);

/* probe_elf.c */
int probe_module_open(struct probe_module *mod, const char *path, int is_main);
void probe_module_close(struct probe_module *mod);
/* Code bytes at a module offset: pointer and how many follow in the same
 * section, or NULL. */
const uint8_t *probe_module_code(const struct probe_module *mod, uint64_t addr, size_t *avail);
/* Is addr in code the program copies at run time (V8's embedded builtins)?
 * Such code is never probed; the first time, a warning says why. */
int probe_module_copied(struct probe_module *mod, uint64_t addr);
int probe_module_analyse(struct probe_module *mod);
/* The Elf * of the module's separate debug file (found and opened on first
 * use), or NULL. */
void *probe_module_debug_elf(struct probe_module *mod);
int probe_module_is_target(const struct probe_module *mod, uint64_t addr);
/* An indirect jmp at addr whose targets are known (a switch's jump table
 * read by probe_module_analyse). */
int probe_module_jump_known(const struct probe_module *mod, uint64_t addr);
/* How many instructions of the module refer to addr (branches, calls,
 * RIP-relative operands, jump-table entries: targets keeps duplicates)? */
size_t probe_module_target_refs(const struct probe_module *mod, uint64_t addr);
/* Is addr the target of a direct call somewhere in the module? */
int probe_module_is_call(const struct probe_module *mod, uint64_t addr);
/* Is addr in one of the module's PLT sections (a stub: a function entry)? */
int probe_module_is_plt(const struct probe_module *mod, uint64_t addr);
/* Mark the tail calls (X86_F_TAIL) among the n decoded instructions of
 * function sym (code: its bytes); returns 1 when an indirect jmp of
 * unknown targets remains (its targets could be inside the function). */
int probe_plan_classify(const struct probe_module *mod, const struct probe_sym *sym,
			const uint8_t *code, struct x86_insn *in, size_t n);
/* Resolve the libraries a program loads (DT_NEEDED, recursively, searched as
 * ld.so does: RUNPATH/RPATH, LD_LIBRARY_PATH, ld.so.cache, default dirs). */
/* What probe (which -e spec) already covers addr of module mi and what to
 * drop; NULL when none does. Static buffer (probe_var.c). */
const char *probe_var_conflict(const struct probe_mgr *m, uint32_t mi, uint64_t addr);
int probe_resolve_libs(const char *exe, char ***libs, size_t *nlibs);
/* Library files a program may dlopen that match pattern (a path, or a
 * glob over LD_LIBRARY_PATH's files and the ld.so cache's sonames; then
 * the default directories, then exe's own directory). */
int probe_find_lib_files(const char *pattern, const char *exe, char ***libs, size_t *nlibs);

/* probe_known.c: decode function sym (code: its bytes, avail of them) into
 * in[] (at most cap): only instructions known to be code (reached from its
 * entry, a branch or call target, a jump-table entry or a line-table row
 * by following the control flow) are decoded; every other byte of its
 * range is a pseudo-instruction flagged X86_F_DATA that no probe patches
 * (unreloc says why). in[] stays contiguous. *complete: the whole range
 * fit. The first time a function has unknown bytes that are not padding,
 * spool says so (once per function). Returns 0 or -ENOMEM. */
int probe_decode_known(struct probe_module *mod, uint32_t sym, const uint8_t *code, size_t avail,
		       struct x86_insn *in, size_t cap, size_t *n, int *complete);

/* probe_plan.c: place the probes of function sym (entry and exit). */
int probe_plan_function(struct probe_mgr *m, uint32_t module, uint32_t sym, int entry, int exits);
struct probe_def *probe_plan_new_def(struct probe_mgr *m, uint32_t module, uint32_t sym);
int probe_plan_overlaps(const struct probe_mgr *m, uint32_t module, uint64_t lo, uint64_t hi);
/* The id of the probe whose patch overlaps [lo, hi), 0 none. */
uint32_t probe_plan_covering(const struct probe_mgr *m, uint32_t module, uint64_t lo, uint64_t hi);
/* The index that keeps probe_plan_overlaps fast (optional: without it,
 * after an allocation failure, queries scan every def). */
void probe_plan_init_index(struct probe_mgr *m);
void probe_plan_free_index(struct probe_mgr *m);

/* probe_cfg.c: basic blocks (leaders: the entry, every branch target, every
 * instruction after a branch) and conditional branches of function sym;
 * place a counting probe on each block (what) and/or each jcc. */
int probe_plan_cfg(struct probe_mgr *m, uint32_t module, uint32_t sym, unsigned what);

/* Counters of the passes at single instructions (probe_cfg.c too): every
 * unconditional jump and ret of function sym (jump:), the instruction at a
 * label's address (label:); block-exit: is PROBE_CFG_BEXITS. Return the
 * number of probes defined or a negative errno; a point no probe can take
 * is said and skipped. */
int probe_plan_jumps(struct probe_mgr *m, uint32_t module, uint32_t sym);
int probe_plan_label(struct probe_mgr *m, uint32_t module, uint32_t sym, uint64_t addr,
		     const char *name);
/* The labels (DW_TAG_label) of function sym whose name matches the glob:
 * names and addresses, malloc'ed. -ENODATA: no DWARF. */
struct probe_dw_label {
	char name[64];
	uint64_t addr; /* 0: the label has no address (optimized out) */
};
int probe_dwarf_labels(struct probe_module *mod, const struct probe_sym *sym, const char *glob,
		       struct probe_dw_label **out, size_t *n);

/* ---- variable, assertion and time probes (probe_var.c, probe_dwarf.c) ---- */

/* Value types of variable probes (var:TYPE:...). */
enum {
	PROBE_T_CHAR = 1, PROBE_T_INT, PROBE_T_LONG, PROBE_T_FLOAT, PROBE_T_DOUBLE,
	PROBE_T_LDOUBLE, PROBE_T_UCHAR, PROBE_T_UINT, PROBE_T_ULONG, PROBE_T_SHORT,
	PROBE_T_USHORT, PROBE_T_BOOL, PROBE_T_PTR,
	PROBE_T_F128, /* IEEE binary128: aarch64's long double (in a v register or memory) */
	PROBE_T_MAX
};
const char *probe_vtype_name(unsigned t);
unsigned probe_vtype_parse(const char *s); /* 0: unknown */
unsigned probe_vtype_size(unsigned t);	   /* bytes read */
int probe_vtype_is_float(unsigned t);
int probe_vtype_is_signed(unsigned t);

/* A variable found in DWARF, its location at a pc as a recipe. */
struct probe_dw_var {
	uint8_t how, reg; /* PROBE_V_*, DWARF register */
	int64_t off;
	unsigned type;	  /* PROBE_T_* of its DWARF type, 0 = not a supported one */
	char dwarf_type[64];
	char why[200];	  /* when it cannot be read */
};
int probe_dwarf_var(struct probe_module *mod, const struct probe_sym *sym, const char *name,
		    uint64_t pc, struct probe_dw_var *v);
/* The formal parameters of function sym, in order, and its return type
 * (args: probes). type: PROBE_T_* or 0 (not a scalar: dwarf_type names it).
 * *ret_type: 0 with ret_dwarf "void" for a void function. *params is
 * malloc'ed. -ENODATA: the module has no DWARF; -ENOENT: not this function. */
struct probe_dw_param {
	char name[128];
	unsigned type;
	char dwarf_type[64];
};
int probe_dwarf_params(struct probe_module *mod, const struct probe_sym *sym,
		       struct probe_dw_param **params, size_t *n, unsigned *ret_type,
		       char *ret_dwarf, size_t rlen);
/* The first statement after the prologue (where the parameters are in their
 * home), and the first address of a source line inside the function. */
int probe_dwarf_entry_pc(struct probe_module *mod, const struct probe_sym *sym, uint64_t *pc);
int probe_dwarf_line_pc(struct probe_module *mod, const struct probe_sym *sym, int line,
			uint64_t *pc);
void probe_dwarf_close(struct probe_module *mod);
/* Is addr a function's entry by .eh_frame (an FDE starts there, CFA = rsp+8)? */
int probe_dwarf_func_entry(const struct probe_module *mod, uint64_t addr);
/* The addresses of the line-table rows in [lo, hi) (statements of the CU
 * holding lo), malloc'ed into *v; none without DWARF. Returns 0 or -ENOMEM. */
int probe_dwarf_line_addrs(struct probe_module *mod, uint64_t lo, uint64_t hi, uint64_t **v,
			   size_t *n);

/* probe_plan.c: a probe that runs `handler` before the instruction at addr
 * (a ret: before the epilogue instructions its window displaces). Returns
 * the new probe or NULL (errno-style code in *err, reason logged by caller
 * via d->why). full: save every register (variable probes). */
struct probe_def *probe_plan_point(struct probe_mgr *m, uint32_t module, uint32_t sym,
				   uint64_t addr, uint32_t handler, uint32_t op, int full, int *err);
/* The same; flags PROBE_PLAN_RETVAL at a ret: the handler must see the
 * return value (rax, xmm0), so the window displaces no epilogue instruction
 * that may write them (else an int3 at the ret itself). */
#define PROBE_PLAN_RETVAL 1u
struct probe_def *probe_plan_point_flags(struct probe_mgr *m, uint32_t module, uint32_t sym,
					 uint64_t addr, uint32_t handler, uint32_t op, int full,
					 unsigned flags, int *err);
/* A probe run by the trampoline of the jump probe already covering addr
 * (its handler call inserted where the instruction at addr starts there):
 * probes of different kinds at one point combine. NULL with *err -ENOTSUP
 * when that probe cannot take it (probe_plan.c). */
struct probe_def *probe_plan_ride(struct probe_mgr *m, uint32_t module, uint32_t sym,
				  uint64_t addr, uint32_t handler, uint32_t op, int full, int *err);
/* The rets of a function (module offsets), malloc'ed: the exit points of
 * variable probes (on aarch64, where each RET's epilogue starts). */
int probe_plan_rets(struct probe_mgr *m, uint32_t module, uint32_t sym, uint64_t **rets,
		    size_t *n);

/* The main executable as a module (opened on first use). */
int probe_mgr_exe_module(struct probe_mgr *m, uint32_t *idx);
/* The modules of the libraries whose file name matches the glob lib: those
 * the program loads at startup, else files it may dlopen (said so). None:
 * *nmods = 0, logged with spec. *mods is malloc'ed. */
int probe_mgr_libs(struct probe_mgr *m);
int probe_mgr_lib_modules(struct probe_mgr *m, const char *lib, const char *spec, uint32_t **mods,
			  size_t *nmods);

/* probe_var.c */
int probe_var_add_spec(struct probe_mgr *m, const struct probe_spec *s);
void probe_var_free(struct probe_mgr *m);
int probe_mgr_has_vars(const struct probe_mgr *m);
/* --list: what each variable (var:, args:) probe reads, and from where. */
void probe_var_print_list(const struct probe_mgr *m, FILE *out);
/* The "vars" side file (doc/trace-format.md). */
int probe_mgr_var_table(const struct probe_mgr *m, char **text, size_t *len);

#endif
