// SPDX-License-Identifier: MIT
/*
 * a64_plan.c - where the probes of a function go on aarch64 (the x86-64
 * planner, src/probe/probe_plan.c, hands probe_plan_function here).
 *
 * An A64 instruction is one aligned word, so every probe replaces exactly
 * one instruction by a `B` to its trampoline (a64_insn.c): the entry at the
 * function's first instruction, an exit at every RET and at every tail call
 * (a direct B out of the function to another function's entry). A branch
 * to a patched word runs the probe, which is what it would run in place:
 * there is no window whose inside a branch could reach, so no branch-target
 * analysis is needed, unlike x86-64.
 *
 * BTI and pointer authentication: a function called indirectly on a BTI
 * core must start with a landing pad (BTI c, or PACIASP/PACIBSP, which act
 * as one); a B there would fault on every indirect call. The entry probe
 * then goes on the next instruction, refused if a branch of the function
 * targets that word (a loop back to just after the pad would count an
 * entry per iteration). PACIASP signs LR: the handler strips the signature
 * from the return address it records.
 *
 * What is refused, with its reason (spool warns; the function is then not
 * probed there, never patched wrongly): a point whose instruction cannot
 * run elsewhere (a64_unreloc: a SIMD literal load), a function that does
 * not start on a word. What is not seen: exits through BR Xn (an indirect
 * tail call cannot be told from a switch's jump here): a function with one
 * is warned about. Data in a function's range (no compiler for Linux puts
 * literal pools in .text; hand-written assembly may) is taken as code.
 */
#include <errno.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/event.h"
#include "../../probe/probe.h"
#include "../../util/log.h"
#include "a64_insn.h"
#include "a64_plan.h"

static uint32_t a64_word(const uint8_t *p)
{
	uint32_t w;

	memcpy(&w, p, 4); /* little-endian on both ends */
	return w;
}

/* BTI (c/j/jc) or PACIASP/PACIBSP: a landing pad for indirect calls. */
static int a64_is_pad(uint32_t w)
{
	return (w & 0xffffff3fu) == 0xd503241fu || w == 0xd503233fu || w == 0xd503237fu;
}

/* A symbol's start (not a .cold part: the rest of a function), or, in a
 * stripped library (a tail call to a hidden function), the start of an
 * .eh_frame FDE in the entry state (probe_dwarf.c). */
static int a64_is_start(const struct probe_module *mod, uint64_t addr)
{
	size_t lo = 0, hi = mod->nsyms;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (mod->syms[mid].addr == addr)
			return !strstr(mod->syms[mid].name, ".cold");
		if (mod->syms[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return probe_dwarf_func_entry(mod, addr);
}

/* Is addr in the module's PLT (.plt, .iplt: one stub per imported
 * function, so each stub is a function's entry)? A tail call into another
 * library is "b foo@plt". */
static int a64_in_plt(const struct probe_module *mod, uint64_t addr)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t stridx;

	if (!mod->elf || elf_getshdrstrndx(mod->elf, &stridx))
		return 0;
	while ((scn = elf_nextscn(mod->elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh) || addr < sh.sh_addr || addr >= sh.sh_addr + sh.sh_size)
			continue;
		name = elf_strptr(mod->elf, stridx, sh.sh_name);
		return name && (!strcmp(name, ".plt") || !strcmp(name, ".iplt"));
	}
	return 0;
}

/* A function's entry: its start, or the word after a hint (NOP, BTI,
 * PACIASP...) at its start: glibc's _setjmp ends in "b __sigsetjmp+4",
 * past __sigsetjmp's landing-pad slot, a tail call all the same. */
static int a64_is_func(const struct probe_module *mod, uint64_t addr)
{
	const uint8_t *p;
	size_t avail;

	if (a64_is_start(mod, addr) || a64_in_plt(mod, addr))
		return 1;
	if (addr < 4 || !a64_is_start(mod, addr - 4))
		return 0;
	p = probe_module_code(mod, addr - 4, &avail);
	return p && avail >= 4 && (a64_word(p) & 0xfffff01fu) == 0xd503201fu;
}

/* Does w at a end an activation of the function [lo, hi): RET, or a tail
 * call (a direct B out of it to a function's entry)? */
static int a64_is_exit(const struct probe_module *mod, uint32_t w, uint64_t a, uint64_t lo,
		       uint64_t hi)
{
	uint64_t t;
	int c = a64_class(w, a, &t);

	return c == A64_RET || (c == A64_B && (t < lo || t >= hi) && a64_is_func(mod, t));
}

/* Is the BR at a (word w) of the function starting at lo an indirect tail
 * call? GCC emits one as "mov x16, Xn; [epilogue;] br x16" (x16/x17: the
 * registers a BTI "c" landing pad accepts a BR from); a switch's jump
 * branches through the register its table arithmetic wrote. So: BR x16 or
 * x17 whose register was last written, at most 8 words back (the epilogue
 * may come between) with no branch between, by a MOV from another
 * register. */
static int a64_is_br_tail(const uint8_t *code, uint64_t lo, uint64_t a, uint32_t w)
{
	unsigned r = w >> 5 & 31;

	if ((w & 0xfffffc1fu) != 0xd61f0000u || (r != 16 && r != 17))
		return 0;
	for (uint64_t i = 1; i <= 8 && a >= lo + 4 * i; i++) {
		uint64_t pa = a - 4 * i, t;
		uint32_t p = a64_word(code + (pa - lo));

		if ((p & 0xffe0ffe0u) == 0xaa0003e0u && (p & 31) == r)
			return 1; /* mov xr, xN (orr xr, xzr, xN) */
		if ((p & 31) == r || a64_class(p, pa, &t) != A64_PLAIN ||
		    (p & 0xff9ffc1fu) == 0xd61f0000u)
			return 0; /* written otherwise, or a branch (BR, BLR) */
	}
	return 0;
}

static void a64_drop_def(struct probe_mgr *m)
{
	free(m->defs[m->ndefs - 1].code);
	m->ndefs--;
}

/* One probe at word i of the function: a jump to its trampoline. x: the
 * function's exit run in the same trampoline (a first word that returns).
 * Returns 0, -ENOTSUP (refused: why says it) or another -errno. */
static int a64_place(struct probe_mgr *m, uint32_t module, uint32_t sym, const uint8_t *code,
		     uint64_t addr, uint32_t op, uint32_t handler, int with_exit, char *why,
		     size_t cap)
{
	const struct probe_sym *s = &m->mods[module].syms[sym];
	uint32_t w = a64_word(code + (addr - s->addr));
	struct probe_def *d, *x = NULL;
	const char *no = a64_unreloc(w, addr);
	int rc;

	if (no) {
		snprintf(why, cap, "'%s' cannot run from a trampoline: %s",
			 a64_text(w, addr, (char[64]){0}, 64), no);
		return -ENOTSUP;
	}
	if (probe_plan_overlaps(m, module, addr, addr + 4)) {
		snprintf(why, cap, "another probe is on the instruction at 0x%llx",
			 (unsigned long long)addr);
		return -ENOTSUP;
	}
	d = probe_plan_new_def(m, module, sym);
	if (!d)
		return -ENOMEM;
	d->op = op;
	d->handler = handler;
	d->method = PROBE_M_JUMP;
	d->addr = d->patch_off = addr;
	d->patch_len = 4;
	memcpy(d->orig, &w, 4);
	a64_text(w, addr, d->insn, sizeof(d->insn));
	if (with_exit) {
		x = probe_plan_new_def(m, module, sym);
		if (!x) {
			a64_drop_def(m);
			return -ENOMEM;
		}
		d = &m->defs[m->ndefs - 2]; /* defs may have moved */
		x->op = PROBE_OP_EXIT;
		x->handler = PROBE_H_FUNC_EXIT;
		x->method = PROBE_M_JUMP;
		x->addr = addr;
		snprintf(x->insn, sizeof(x->insn), "%s", d->insn);
	}
	rc = a64_code_probe(d->code, w, addr, d->id, handler, x ? x->id : 0,
			    x ? PROBE_H_FUNC_EXIT : 0);
	if (rc) {
		if (x)
			a64_drop_def(m);
		a64_drop_def(m);
		if (rc == -ENOTSUP)
			snprintf(why, cap, "'%s' cannot run from a trampoline", d->insn);
		return rc == -ENOSPC ? -ENOTSUP : rc;
	}
	if (x)
		x->shared = d->id;
	return 0;
}

/* Does a direct branch of the function [lo, hi) target addr? */
static int a64_targeted(const uint8_t *code, uint64_t lo, uint64_t hi, uint64_t addr)
{
	for (uint64_t a = lo; a < hi; a += 4) {
		uint64_t t;
		int c = a64_class(a64_word(code + (a - lo)), a, &t);

		if ((c == A64_B || c == A64_BCOND || c == A64_CBZ || c == A64_TBZ) && t == addr)
			return 1;
	}
	return 0;
}

/*
 * --exits retaddr: can the program throw a C++ exception? An unwinder
 * cannot step over the agent's return trampoline (nothing of the agent's
 * is interposed on the unwinder on aarch64), so then every exit is
 * patched instead, said once. Seen: a C++ runtime among the modules spool
 * read, or the executable's own throw (a static libstdc++).
 */
static int a64_cxx_runtime(struct probe_mgr *m)
{
	const char *why = NULL;

	if (m->unwinder)
		return m->unwinder == 2;
	/* A spec that names no library left them unread: the program's C++
	 * runtime (DT_NEEDED) is among them. One the program dlopens later
	 * is not seen (doc/arm64.md). */
	if (!m->attach && probe_mgr_libs(m) < 0)
		log_warn("probe: cannot list %s's libraries: a C++ runtime among them would "
			 "not be seen",
			 m->exe);
	for (size_t i = 0; i < m->nmods && !why; i++) {
		const struct probe_module *mod = &m->mods[i];
		const char *n = mod->path ? mod->path : "";

		if (strstr(n, "libstdc++") || strstr(n, "libgcc_s") || strstr(n, "libunwind"))
			why = n;
		for (size_t k = 0; mod->is_main && k < mod->nsyms && !why; k++)
			if (!strcmp(mod->syms[k].name, "_Unwind_RaiseException") ||
			    !strcmp(mod->syms[k].name, "__cxa_throw"))
				why = mod->syms[k].name;
	}
	for (size_t i = 0; i < m->nlibs && !why; i++)
		if (strstr(m->libs[i], "libstdc++") || strstr(m->libs[i], "libgcc_s") ||
		    strstr(m->libs[i], "libunwind"))
			why = m->libs[i];
	m->unwinder = why ? 2 : 1;
	if (why)
		log_info("probe: the program can throw C++ exceptions (%s), which cannot unwind "
			 "through spool's return trampoline on aarch64: exits are patched, none "
			 "goes through the return address",
			 why);
	return m->unwinder == 2;
}

/*
 * --exits retaddr: the entry probe d (at the function's first word, or the
 * one after its landing pad: LR holds the return address, sp is the
 * caller's) becomes PROBE_H_FUNC_ENTRY_RA, which swaps LR for the agent's
 * return trampoline (a64_agent_ra.c); the exit is one probe that patches
 * nothing (PROBE_M_RETADDR), recorded by the trampoline. 0 or -errno.
 */
static int a64_plan_retaddr(struct probe_mgr *m, uint32_t module, uint32_t sym, uint32_t pad)
{
	struct probe_def *d, *x = probe_plan_new_def(m, module, sym);
	struct x86_code *c;

	if (!x)
		return -ENOMEM;
	d = &m->defs[m->ndefs - 2];
	x->op = PROBE_OP_EXIT;
	x->handler = PROBE_H_FUNC_EXIT;
	x->method = PROBE_M_RETADDR;
	x->addr = x->patch_off = d->addr;
	x->patch_len = 0;
	snprintf(x->insn, sizeof(x->insn), "(return address)");
	snprintf(x->why, sizeof(x->why), "%s", "--exits retaddr");
	c = d->code;
	for (uint32_t i = 0; i < c->nrel; i++)
		if (c->rel[i].type == PROBE_R_HANDLER64 && c->rel[i].target == PROBE_H_FUNC_ENTRY)
			c->rel[i].target = PROBE_H_FUNC_ENTRY_RA;
	d->handler = PROBE_H_FUNC_ENTRY_RA;
	d->ret_id = x->id;
	/* LR signed at the probe: what replaces it is signed the same way */
	if (pad == 0xd503233fu) /* PACIASP */
		d->area_flags |= PROBE_F_A64_PAC_A;
	else if (pad == 0xd503237fu) /* PACIBSP */
		d->area_flags |= PROBE_F_A64_PAC_B;
	return 0;
}

int a64_plan_function(struct probe_mgr *m, uint32_t module, uint32_t sym, int entry, int exits)
{
	const struct probe_module *mod = &m->mods[module];
	const struct probe_sym *s = &mod->syms[sym];
	const char *name = probe_sym_shown(mod, sym);
	const char *spec = m->cur_spec ? m->cur_spec : "?";
	uint64_t lo = s->addr, hi, at = s->addr;
	const uint8_t *code;
	size_t avail;
	char why[200];
	int rc, entry_done = 0, nbr = 0;

	code = probe_module_code(mod, s->addr, &avail);
	if (!code || (s->addr & 3) || avail < 4)
		return -ENOEXEC;
	hi = lo + (s->size < avail ? s->size : avail);
	hi &= ~3ull;
	if (hi <= lo)
		hi = lo + 4;
	if (entry) {
		int ret0;

		if (a64_is_pad(a64_word(code)) && lo + 4 < hi)
			at = lo + 4;
		ret0 = a64_is_exit(mod, a64_word(code + (at - lo)), at, lo, hi);
		if (a64_targeted(code, lo, hi, at)) {
			/* each pass of the loop would run the entry probe:
			 * counted as a call (glibc's wcschr loops to its
			 * first instruction) */
			snprintf(why, sizeof(why),
				 at != lo ? "its first instruction after the BTI/PAC landing pad "
					    "is a branch target in the function"
					  : "its first instruction is a branch target in the "
					    "function (a loop back to its entry: each pass would "
					    "count as a call)");
			rc = -ENOTSUP;
		} else {
			rc = a64_place(m, module, sym, code, at, PROBE_OP_ENTRY, PROBE_H_FUNC_ENTRY,
				       exits && ret0, why, sizeof(why));
			entry_done = !rc && ret0;
			if (!rc && !ret0 && exits && m->exits == PROBE_EXITS_RETADDR &&
			    !a64_cxx_runtime(m))
				return a64_plan_retaddr(m, module, sym,
							at != lo ? a64_word(code) : 0);
		}
		if (rc && rc != -ENOTSUP)
			return rc;
		if (rc) {
			/* its exits alone would be exits without an entry in
			 * every report: left out too */
			log_warn("probe: '%s': %s is not probed (entry refused): %s", spec, name,
				 why);
			return 0;
		}
	}
	if (!exits)
		return 0;
	for (uint64_t a = lo; a < hi; a += 4) {
		uint32_t w = a64_word(code + (a - lo));

		int br_tail = a64_is_br_tail(code, lo, a, w);

		if (((w & 0xfffffc1fu) == 0xd61f0000u || (w & 0xfefff800u) == 0xd61f0800u) &&
		    !br_tail)
			nbr++; /* BR Xn, BRAA/BRAB... */
		if (!br_tail && !a64_is_exit(mod, w, a, lo, hi))
			continue;
		if (a == at && entry_done)
			continue;
		rc = a64_place(m, module, sym, code, a, PROBE_OP_EXIT, PROBE_H_FUNC_EXIT, 0, why,
			       sizeof(why));
		if (rc && rc != -ENOTSUP)
			return rc;
		if (rc)
			log_warn("probe: '%s': an exit of %s (at 0x%llx) is not probed: %s", spec,
				 name, (unsigned long long)a, why);
	}
	if (nbr)
		log_debug("probe: %s has %d indirect branch%s (br): a tail call through one is "
			  "not seen as an exit",
			  name, nbr, nbr == 1 ? "" : "es");
	return 0;
}

/* ---- several probes on one word: variables, time, counters ---- */

int a64_plan_retramp(struct probe_mgr *m, uint32_t oid, uint32_t extra)
{
	struct probe_def *o = oid && oid <= m->ndefs ? &m->defs[oid - 1] : NULL;
	struct a64_call k[A64_CALLS_MAX];
	struct x86_code *c;
	unsigned n = 0;
	uint32_t w;
	int rc;

	if (!o || o->shared || o->method != PROBE_M_JUMP || o->patch_len != 4)
		return -ENOTSUP;
	memcpy(&w, o->orig, 4);
	for (size_t j = oid - 1; j < m->ndefs; j++) {
		const struct probe_def *s = &m->defs[j];

		if (j != oid - 1 && s->shared != oid && s->id != extra)
			continue;
		/* a point reading a block counter's count on this word has no
		 * call of its own (a64_cfg.c a64_point) */
		if (j != oid - 1 && s->id != extra && s->point && s->method != PROBE_M_RIDE)
			continue;
		if (n == A64_CALLS_MAX)
			return -ENOTSUP;
		k[n].id = s->id;
		k[n].handler = s->handler;
		k[n].arg = s->handler == PROBE_H_BRANCH ? w : 0;
		n++;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	rc = a64_code_probe_calls(c, w, o->patch_off, k, n);
	if (!rc)
		memcpy(o->code, c, sizeof(*c));
	free(c);
	return rc == -ENOMEM ? rc : rc ? -ENOTSUP : 0;
}

/* The word a probe "before addr" patches: addr, or the next word when addr
 * is a landing pad (an indirect branch must still land on the pad; the pad
 * changes no register a recipe reads but LR's signature). */
static uint64_t a64_point_word(const struct probe_module *mod, const struct probe_sym *s,
			       uint64_t addr)
{
	const uint8_t *p;
	size_t avail;

	p = probe_module_code(mod, addr, &avail);
	if (p && avail >= 8 && a64_is_pad(a64_word(p)) && addr + 4 < s->addr + s->size)
		return addr + 4;
	return addr;
}

struct probe_def *a64_plan_point(struct probe_mgr *m, uint32_t module, uint32_t sym,
				 uint64_t addr, uint32_t handler, uint32_t op, int *err)
{
	const struct probe_module *mod = &m->mods[module];
	const struct probe_sym *s = &mod->syms[sym];
	uint64_t at = a64_point_word(mod, s, addr);
	struct a64_call k = {0, handler, 0};
	const uint8_t *p;
	struct probe_def *d;
	size_t avail;
	uint32_t w;
	int rc;

	*err = -EINVAL; /* not an instruction of the function */
	p = probe_module_code(mod, at, &avail);
	if (!p || avail < 4 || (addr & 3) || addr < s->addr || at + 4 > s->addr + s->size)
		return NULL;
	w = a64_word(p);
	*err = -ENOTSUP;
	if (a64_unreloc(w, at) || probe_plan_overlaps(m, module, at, at + 4) ||
	    (at != addr && probe_module_is_target(mod, at)))
		return NULL;
	{
		size_t favail;
		const uint8_t *fc = probe_module_code(mod, s->addr, &favail);

		if (fc && a64_in_exclusive(fc, s->addr, favail < s->size ? favail : s->size, at)) {
			log_warn("probe: 0x%llx in %s is between a load-exclusive and its "
				 "store-exclusive: a probe there would make the store fail on every "
				 "try",
				 (unsigned long long)at, probe_sym_shown(mod, sym));
			*err = -EDEADLK;
			return NULL;
		}
	}
	d = probe_plan_new_def(m, module, sym);
	if (!d) {
		*err = -ENOMEM;
		return NULL;
	}
	d->op = op;
	d->handler = handler;
	d->addr = d->eval_pc = addr;
	d->method = PROBE_M_JUMP;
	d->patch_off = at;
	d->patch_len = 4;
	memcpy(d->orig, &w, 4);
	a64_text(w, at, d->insn, sizeof(d->insn));
	k.id = d->id;
	rc = a64_code_probe_calls(d->code, w, at, &k, 1);
	if (rc) {
		a64_drop_def(m);
		*err = rc == -ENOMEM ? rc : -ENOTSUP;
		return NULL;
	}
	*err = 0;
	return d;
}

struct probe_def *a64_plan_ride(struct probe_mgr *m, uint32_t module, uint32_t sym,
				uint64_t addr, uint32_t handler, uint32_t op, int *err)
{
	const struct probe_module *mod = &m->mods[module];
	uint64_t at = a64_point_word(mod, &mod->syms[sym], addr);
	uint32_t oid = probe_plan_covering(m, module, at, at + 4);
	struct probe_def *o = oid && oid <= m->ndefs ? &m->defs[oid - 1] : NULL, *d;
	int rc;

	*err = -ENOTSUP;
	if (!o || o->id != oid || o->method != PROBE_M_JUMP || o->shared || o->patch_off != at ||
	    o->patch_len != 4)
		return NULL;
	d = probe_plan_new_def(m, module, sym);
	if (!d) {
		*err = -ENOMEM;
		return NULL;
	}
	o = &m->defs[oid - 1]; /* defs may have moved */
	d->op = op;
	d->handler = handler;
	d->method = PROBE_M_RIDE;
	d->addr = d->eval_pc = addr;
	d->patch_off = at;
	d->patch_len = 0;
	d->shared = oid;
	snprintf(d->insn, sizeof(d->insn), "%s", o->insn);
	rc = a64_plan_retramp(m, oid, d->id);
	if (rc) {
		a64_drop_def(m);
		*err = rc;
		return NULL;
	}
	*err = 0;
	return d;
}

/*
 * Does w only undo the frame, as an epilogue before a RET does: a load of
 * callee-saved registers (x19-x30, d8-d15) from the stack, sp moved up (add
 * sp, sp, #imm; mov sp, x29), or LR's authentication (AUTIASP/AUTIBSP)? It
 * writes no argument or result register (x0-x7, v0-v7).
 */
static int a64_is_epilogue(uint32_t w)
{
	unsigned rt = w & 31, rn = w >> 5 & 31, rt2 = w >> 10 & 31, op = w & 0xffc00000u;

	if (w == 0xd50323bfu || w == 0xd50323ffu || w == 0x910003bfu ||
	    (w & 0xff8003ffu) == 0x910003ffu)
		return 1;
	if (rn != 31)
		return 0;
	if (op == 0xa9400000u || op == 0xa8c00000u) /* ldp x, x, [sp, #i] / [sp], #i */
		return rt >= 19 && rt2 >= 19 && rt != 31 && rt2 != 31;
	if (op == 0x6d400000u || op == 0x6cc00000u) /* ldp d, d */
		return rt >= 8 && rt <= 15 && rt2 >= 8 && rt2 <= 15;
	if (op == 0xf9400000u || (w & 0xffe00c00u) == 0xf8400400u) /* ldr x, [sp...] */
		return rt >= 19 && rt <= 30;
	if (op == 0xfd400000u) /* ldr d, [sp, #i] */
		return rt >= 8 && rt <= 15;
	return 0;
}

/*
 * The exit points of variable probes: for each RET, where its epilogue
 * starts (the frame and its variables still there: a probe on the RET
 * itself would run with the frame popped, below sp, where the trampoline
 * saves the registers). Back from the RET over epilogue words while the
 * word is not a branch target (every path to the RET then passes the
 * probe). The result registers are final there.
 */
int a64_plan_rets(struct probe_mgr *m, uint32_t module, uint32_t sym, uint64_t **rets, size_t *n)
{
	struct probe_module *mod = &m->mods[module];
	const struct probe_sym *s = &mod->syms[sym];
	const uint8_t *code;
	size_t avail, len;

	*rets = NULL;
	*n = 0;
	code = probe_module_code(mod, s->addr, &avail);
	if (!code || (s->addr & 3))
		return -ENOEXEC;
	len = (s->size < avail ? s->size : avail) & ~(size_t)3;
	*rets = calloc(len / 4 + 1, sizeof(**rets));
	if (!*rets)
		return -ENOMEM;
	/* (without the targets, analysed stays 0: only the RET itself) */
	(void)probe_module_analyse(mod);
	for (size_t i = 0; i < len; i += 4) {
		size_t k = i;

		if (a64_class(a64_word(code + i), s->addr + i, NULL) != A64_RET)
			continue;
		while (k >= 4 && mod->analysed && !probe_module_is_target(mod, s->addr + k) &&
		       a64_is_epilogue(a64_word(code + k - 4)))
			k -= 4;
		(*rets)[(*n)++] = s->addr + k;
	}
	return 0;
}
