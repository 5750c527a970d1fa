// SPDX-License-Identifier: MIT
/*
 * a64_cfg.c - block and branch probes on aarch64 (block:GLOB, branch:GLOB;
 * src/probe/probe_cfg.c hands probe_plan_cfg here on an aarch64 build).
 *
 * Blocks. The rules are probe_cfg.c's: leaders are the function's first
 * word, every address a direct branch, call or ADR anywhere in the module
 * targets (probe_module_analyse: a .cold part jumping back counts), and
 * every word after a branch (B, B.cond, CBZ/CBNZ, TBZ/TBNZ, BR), a RET or
 * a trap (BRK, HLT, UDF). A block runs from a leader to the next. Calls
 * (BL, BLR) do not end a block. NOP/UDF padding after an unconditional
 * transfer that nothing targets is not a block.
 *
 * Where a block is counted. Every word of a block runs as often as its
 * first (no branch lands inside it), so its counter goes on the first word
 * that can take a `B` to a trampoline: not a BTI/PAC landing pad (an
 * indirect branch must land on the pad itself), not a word another probe
 * patches, not between a load-exclusive and its store-exclusive (the
 * trampoline's stores would clear the exclusive monitor: an LL/SC loop
 * would never end; a64_in_exclusive), one that runs from a trampoline
 * (a64_unreloc), and no later
 * than the block's first BL (a callee that does not return would leave
 * the count of a later word short). One word, one `B`: no window, so none
 * of x86-64's int3 fallbacks.
 *
 * Branches. A conditional branch (B.cond, BC.cond, CBZ/CBNZ, TBZ/TBNZ)
 * gets a probe on its own word: the trampoline calls the branch handler
 * with the instruction word (w3), which evaluates its condition on the
 * saved registers and NZCV (a64_branch_taken) and counts taken or not
 * taken; then the branch runs relocated. A block whose counter word is its
 * branch (a block of one CBZ) counts both in one trampoline.
 *
 * Sharing a word. When the word is another probe's (a func: entry or exit,
 * planned first), the counter rides in that probe's trampoline: it is
 * rebuilt with one more handler call (up to A64_CALLS_MAX), on the same
 * saved registers, before the relocated instruction.
 *
 * Points (jump:, label:, block-exit:) count the passes at one word: an
 * unconditional B, RET or BR; a label's address; a block's last word
 * (a64_point).
 *
 * Jump tables: the entries of the switch tables GCC and clang emit are read
 * when the module is analysed (a64_jump_table): leaders like any target.
 * In a function with an indirect BR of another shape (not a tail call), a
 * case label that nothing else targets is inside a block, whose counter
 * then counts the passes at its own word only (said at debug level;
 * doc/arm64.md).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/event.h"
#include "../../probe/probe.h"
#include "../../util/log.h"
#include "a64_cfg.h"
#include "a64_insn.h"
#include "a64_plan.h"

struct a64_fn {
	struct probe_module *mod;
	uint32_t module, sym;
	uint64_t lo;
	const uint8_t *code;
	size_t n; /* words */
	uint8_t *leader;
};

static uint32_t a64_w(const struct a64_fn *f, size_t i)
{
	uint32_t w;

	memcpy(&w, f->code + 4 * i, 4);
	return w;
}

/* BR, BRAA/BRAB/BRAAZ/BRABZ: an indirect jump. */
static int a64_is_br(uint32_t w)
{
	return (w & 0xfffffc1fu) == 0xd61f0000u || (w & 0xfefff800u) == 0xd61f0800u;
}

/* BRK, HLT, UDF: a trap, the end of a block. */
static int a64_is_trap(uint32_t w)
{
	return (w & 0xffe0001fu) == 0xd4200000u || (w & 0xffe0001fu) == 0xd4400000u ||
	       (w >> 16) == 0;
}

/* Control never goes to the next word after it. */
static int a64_no_fall(uint32_t w)
{
	int c = a64_class(w, 0, NULL);

	return c == A64_B || c == A64_RET || a64_is_br(w) || a64_is_trap(w);
}

static int a64_is_cond(uint32_t w)
{
	int c = a64_class(w, 0, NULL);

	return c == A64_BCOND || c == A64_CBZ || c == A64_TBZ;
}

/* BTI (c/j/jc) or PACIASP/PACIBSP: where an indirect branch must land. */
static int a64_is_pad(uint32_t w)
{
	return (w & 0xffffff3fu) == 0xd503241fu || w == 0xd503233fu || w == 0xd503237fu;
}

static int a64_open(struct probe_mgr *m, uint32_t module, uint32_t sym, struct a64_fn *f)
{
	struct probe_module *mod = &m->mods[module];
	const struct probe_sym *s = &mod->syms[sym];
	size_t avail, len;
	int rc;

	memset(f, 0, sizeof(*f));
	f->mod = mod;
	f->module = module;
	f->sym = sym;
	f->lo = s->addr;
	f->code = probe_module_code(mod, s->addr, &avail);
	if (!f->code || (s->addr & 3) || avail < 4)
		return -ENOEXEC;
	rc = probe_module_analyse(mod);
	if (rc)
		return rc;
	len = s->size < avail ? s->size : avail;
	f->n = len / 4 ? len / 4 : 1;
	f->leader = calloc(f->n, 1);
	if (!f->leader)
		return -ENOMEM;
	for (size_t i = 0; i < f->n; i++) {
		uint32_t w = a64_w(f, i);

		if (!i || probe_module_is_target(mod, f->lo + 4 * i))
			f->leader[i] = 1;
		if (i + 1 < f->n && (a64_is_cond(w) || a64_no_fall(w)))
			f->leader[i + 1] = 1;
	}
	return 0;
}

/* Does a BR of the function leave its targets unknown (not a tail call
 * through x16/x17 set by a mov just before: a64_plan.c's rule, roughly)? */
static int a64_has_switch(const struct a64_fn *f)
{
	for (size_t i = 0; i < f->n; i++) {
		uint32_t w = a64_w(f, i);

		if (a64_is_br(w) && !((w >> 5 & 31) == 16 || (w >> 5 & 31) == 17) &&
		    !probe_module_jump_known(f->mod, f->lo + 4 * i))
			return 1;
	}
	return 0;
}

static void a64_drop_last(struct probe_mgr *m)
{
	free(m->defs[m->ndefs - 1].code);
	m->ndefs--;
}

static struct probe_def *a64_def(struct probe_mgr *m, uint32_t id)
{
	return id && id <= m->ndefs ? &m->defs[id - 1] : NULL;
}

static void a64_call_of(const struct probe_def *d, uint32_t w, struct a64_call *k)
{
	k->id = d->id;
	k->handler = d->handler;
	k->arg = d->handler == PROBE_H_BRANCH ? w : 0;
}

/* The trampoline at word i whose handler calls are ids[0..n) (in order):
 * ids[0] patches the word, the others are counted in its trampoline. */
static int a64_tramp(struct probe_mgr *m, const struct a64_fn *f, size_t i, const uint32_t *ids,
		     unsigned n)
{
	uint64_t addr = f->lo + 4 * i;
	uint32_t w = a64_w(f, i);
	struct a64_call k[A64_CALLS_MAX];
	struct probe_def *d = a64_def(m, ids[0]);
	int rc;

	for (unsigned j = 0; j < n; j++)
		a64_call_of(a64_def(m, ids[j]), w, &k[j]);
	rc = a64_code_probe_calls(d->code, w, addr, k, n);
	if (rc)
		return rc;
	d->method = PROBE_M_JUMP;
	d->patch_off = addr;
	d->patch_len = 4;
	memcpy(d->orig, &w, 4);
	a64_text(w, addr, d->insn, sizeof(d->insn));
	for (unsigned j = 1; j < n; j++) {
		struct probe_def *o = a64_def(m, ids[j]);

		o->method = PROBE_M_JUMP;
		o->shared = ids[0];
		snprintf(o->insn, sizeof(o->insn), "%s", d->insn);
	}
	return 0;
}

/*
 * Count def id in the trampoline of the probe already on word i (a func:
 * entry or exit, another block's branch): that trampoline is rebuilt with
 * one more handler call. 0, or -ENOTSUP (no probe there that takes one
 * more), -ENOMEM.
 */
static int a64_ride(struct probe_mgr *m, const struct a64_fn *f, size_t i, uint32_t id)
{
	uint64_t addr = f->lo + 4 * i;
	uint32_t oid = probe_plan_covering(m, f->module, addr, addr + 4);
	struct probe_def *o = a64_def(m, oid), *d;
	int rc;

	if (!o || o->patch_off != addr)
		return -ENOTSUP;
	rc = a64_plan_retramp(m, oid, id);
	if (rc)
		return rc;
	o = a64_def(m, oid);
	d = a64_def(m, id);
	d->method = PROBE_M_JUMP;
	d->shared = oid;
	snprintf(d->insn, sizeof(d->insn), "%s", o->insn);
	return 0;
}

/* The word of [i0, i1) the block's counter goes on (see the top), or -1;
 * *ride: the first such word another probe has (-1 none). */
static long a64_block_word(struct probe_mgr *m, const struct a64_fn *f, size_t i0, size_t i1,
			   long *ride)
{
	*ride = -1;
	for (size_t i = i0; i < i1; i++) {
		uint32_t w = a64_w(f, i);
		uint64_t a = f->lo + 4 * i;

		if (!a64_is_pad(w) && !a64_unreloc(w, a) &&
		    !a64_in_exclusive(f->code, f->lo, 4 * f->n, a)) {
			if (!probe_plan_overlaps(m, f->module, a, a + 4))
				return (long)i;
			if (*ride < 0)
				*ride = (long)i;
		}
		if (a64_class(w, a, NULL) == A64_BL)
			break;
	}
	return -1;
}

/* Why block id is counted after its first word (--list says it). The
 * first word is another probe's only when planning it saw it so. */
static void a64_why_moved(struct probe_mgr *m, const struct a64_fn *f, size_t i0, uint32_t id)
{
	struct probe_def *d = a64_def(m, id);
	uint64_t a = f->lo + 4 * i0;
	uint32_t w = a64_w(f, i0);

	snprintf(d->why, sizeof(d->why), "%s",
		 a64_is_pad(w)	     ? "its first word is a BTI/PAC landing pad"
		 : a64_unreloc(w, a) ? "its first word cannot run from a trampoline"
		 : a64_in_exclusive(f->code, f->lo, 4 * f->n, a)
		     ? "its start is between a load- and a store-exclusive"
		     : "its first word is another probe's");
}

static struct probe_def *a64_new(struct probe_mgr *m, const struct a64_fn *f, uint32_t op,
				 size_t i0, size_t i1)
{
	struct probe_def *d = probe_plan_new_def(m, f->module, f->sym);
	uint64_t t;

	if (!d)
		return NULL;
	d->op = op;
	if (op == PROBE_OP_BLOCK) {
		d->handler = PROBE_H_BLOCK;
		d->addr = f->lo + 4 * i0;
		d->end = f->lo + 4 * i1;
	} else {
		/* i0: the branch; end its target, fall the next word */
		d->handler = PROBE_H_BRANCH;
		d->addr = f->lo + 4 * i0;
		a64_class(a64_w(f, i0), d->addr, &t);
		d->end = t;
		d->fall = d->addr + 4;
	}
	return d;
}

static int a64_block(struct probe_mgr *m, const struct a64_fn *f, size_t i0, size_t i1,
		     unsigned what)
{
	size_t j = i1 - 1;
	int want_br = (what & PROBE_CFG_BRANCHES) && a64_is_cond(a64_w(f, j));
	const char *name = probe_sym_shown(f->mod, f->sym);
	long k = -1, ride = -1;
	int rc;

	if (what & PROBE_CFG_BLOCKS) {
		struct probe_def *d;
		uint32_t ids[2];

		k = a64_block_word(m, f, i0, i1, &ride);
		d = a64_new(m, f, PROBE_OP_BLOCK, i0, i1);
		if (!d)
			return -ENOMEM;
		ids[0] = d->id;
		if (k >= 0 && want_br && (size_t)k == j) {
			/* a block whose counter is on its branch: one trampoline */
			struct probe_def *br = a64_new(m, f, PROBE_OP_BRANCH, j, j + 1);

			if (!br)
				return -ENOMEM;
			ids[1] = br->id;
			rc = a64_tramp(m, f, j, ids, 2);
			if (!rc)
				return 0;
			a64_drop_last(m);
			k = -1;
		} else if (k >= 0) {
			rc = a64_tramp(m, f, (size_t)k, ids, 1);
			if (rc)
				k = -1;
			else if ((size_t)k != i0)
				a64_why_moved(m, f, i0, ids[0]);
		}
		if (k < 0) {
			rc = ride >= 0 ? a64_ride(m, f, (size_t)ride, ids[0]) : -ENOTSUP;
			if (rc == -ENOMEM)
				return rc;
			if (rc) {
				log_warn("probe: block at %s+0x%llx is not counted: no word of it "
					 "before its first call can take a branch (landing pads, "
					 "words between a load- and a store-exclusive, other "
					 "probes' words that take no more handlers)",
					 name, (unsigned long long)(4 * i0));
				a64_drop_last(m);
			}
		}
	}
	if (want_br) {
		struct probe_def *br = a64_new(m, f, PROBE_OP_BRANCH, j, j + 1);
		uint64_t a = f->lo + 4 * j;
		uint32_t id;

		if (!br)
			return -ENOMEM;
		id = br->id;
		if (a64_in_exclusive(f->code, f->lo, 4 * f->n, a))
			rc = -EDEADLK;
		else
			rc = probe_plan_overlaps(m, f->module, a, a + 4)
				 ? a64_ride(m, f, j, id)
				 : a64_tramp(m, f, j, &id, 1);
		if (rc == -ENOMEM)
			return rc;
		if (rc) {
			log_warn("probe: branch at %s+0x%llx is not counted: %s", name,
				 (unsigned long long)(4 * j),
				 rc == -EDEADLK ? "it is between a load-exclusive and its "
						  "store-exclusive (a probe there would make the "
						  "store fail on every try)"
				 : a64_unreloc(a64_w(f, j), a) ? a64_unreloc(a64_w(f, j), a)
							       : "another probe's word takes no "
								 "more handlers");
			a64_drop_last(m);
		}
	}
	return 0;
}

static const char *const a64_point_kinds[] = {"", "jump", "label", "block exit"};

/*
 * A counter of the passes at word i (jump:, label:, block-exit:): a B of
 * its own; on a word a block counter has, that counter's count (it counts
 * the passes at that very word); on another probe's word (a func: exit on
 * a RET), one more handler call in its trampoline (PROBE_M_RIDE). A label
 * on a landing pad is counted at the next word (no branch lands there but
 * through the pad). 1 counted, 0 not (said), or -ENOMEM.
 */
static int a64_point(struct probe_mgr *m, const struct a64_fn *f, size_t i, unsigned kind,
		     const char *name)
{
	uint64_t a = f->lo + 4 * i;
	uint32_t w = a64_w(f, i), oid;
	const char *fn = probe_sym_shown(f->mod, f->sym), *no = NULL;
	struct probe_def *d, *o;
	int err;

	if (kind == PROBE_PT_LABEL && a64_is_pad(w) && i + 1 < f->n && !f->leader[i + 1]) {
		i++;
		a += 4;
		w = a64_w(f, i);
	}
	if (a64_in_exclusive(f->code, f->lo, 4 * f->n, a))
		no = "it is between a load-exclusive and its store-exclusive";
	else if (a64_unreloc(w, a))
		no = a64_unreloc(w, a);
	else if (a64_is_pad(w))
		no = "it is a BTI/PAC landing pad";
	if (no) {
		log_warn("probe: %s %s at %s+0x%llx is not counted: %s", a64_point_kinds[kind],
			 name ? name : "", fn, (unsigned long long)(a - f->lo), no);
		return 0;
	}
	oid = probe_plan_covering(m, f->module, a, a + 4);
	o = a64_def(m, oid);
	if (o && o->patch_off == a && o->op == PROBE_OP_BLOCK && o->handler == PROBE_H_BLOCK &&
	    !o->point && !o->shared) {
		d = a64_new(m, f, PROBE_OP_BLOCK, i, i + 1);
		if (!d)
			return -ENOMEM;
		o = a64_def(m, oid);
		d->shared = oid;
		d->method = o->method;
		snprintf(d->insn, sizeof(d->insn), "%s", o->insn);
	} else if (o) {
		d = probe_plan_ride(m, f->module, f->sym, a, PROBE_H_BLOCK, PROBE_OP_BLOCK, 0,
				    &err);
		if (!d) {
			if (err == -ENOMEM)
				return err;
			log_warn("probe: %s %s at %s+0x%llx is not counted: another probe's word "
				 "takes no more handlers",
				 a64_point_kinds[kind], name ? name : "", fn,
				 (unsigned long long)(a - f->lo));
			return 0;
		}
		d->end = a + 4;
	} else {
		uint32_t id;

		d = a64_new(m, f, PROBE_OP_BLOCK, i, i + 1);
		if (!d)
			return -ENOMEM;
		id = d->id;
		if (a64_tramp(m, f, i, &id, 1)) {
			a64_drop_last(m);
			return 0;
		}
		d = a64_def(m, id);
	}
	d->point = (uint8_t)kind;
	snprintf(d->point_name, sizeof(d->point_name), "%s", name ? name : "-");
	return 1;
}

int a64_plan_jumps(struct probe_mgr *m, uint32_t module, uint32_t sym)
{
	struct a64_fn f;
	int rc = a64_open(m, module, sym, &f), n = 0;

	for (size_t i = 0; !rc && i < f.n; i++) {
		uint32_t w = a64_w(&f, i);
		int c = a64_class(w, f.lo + 4 * i, NULL);

		if (c != A64_B && c != A64_RET && !a64_is_br(w))
			continue;
		rc = a64_point(m, &f, i, PROBE_PT_JUMP, NULL);
		if (rc > 0)
			n += rc, rc = 0;
	}
	free(f.leader);
	return rc < 0 ? rc : n;
}

int a64_plan_label(struct probe_mgr *m, uint32_t module, uint32_t sym, uint64_t addr,
		   const char *name)
{
	struct a64_fn f;
	int rc = a64_open(m, module, sym, &f);

	if (rc)
		return rc;
	if (addr < f.lo || addr >= f.lo + 4 * f.n || (addr & 3)) {
		log_warn("probe: label %s of %s at 0x%llx is not an instruction of it: not counted",
			 name, probe_sym_shown(f.mod, sym), (unsigned long long)addr);
		rc = 0;
	} else {
		rc = a64_point(m, &f, (addr - f.lo) / 4, PROBE_PT_LABEL, name);
	}
	free(f.leader);
	return rc;
}

int a64_plan_cfg(struct probe_mgr *m, uint32_t module, uint32_t sym, unsigned what)
{
	struct a64_fn f;
	int rc = a64_open(m, module, sym, &f);

	if (rc)
		return rc;
	if (a64_has_switch(&f))
		log_debug("probe: %s has an indirect branch (br) whose targets are unknown: a "
			  "block holding one counts the passes at its own word",
			  probe_sym_shown(f.mod, sym));
	for (size_t i0 = 0, i1; !rc && i0 < f.n; i0 = i1) {
		int padding = 1;

		for (i1 = i0 + 1; i1 < f.n && !f.leader[i1]; i1++)
			;
		for (size_t i = i0; i < i1 && padding; i++) {
			uint32_t w = a64_w(&f, i);

			padding = w == 0xd503201fu || (w >> 16) == 0; /* NOP, UDF */
		}
		/* dead padding after an unconditional transfer, not a target */
		if (padding && i0 && a64_no_fall(a64_w(&f, i0 - 1)) &&
		    !probe_module_is_target(f.mod, f.lo + 4 * i0))
			continue;
		if (what & (PROBE_CFG_BLOCKS | PROBE_CFG_BRANCHES))
			rc = a64_block(m, &f, i0, i1, what);
		if (!rc && (what & PROBE_CFG_BEXITS)) {
			rc = a64_point(m, &f, i1 - 1, PROBE_PT_BEXIT, NULL);
			rc = rc < 0 ? rc : 0;
		}
	}
	free(f.leader);
	return rc;
}
