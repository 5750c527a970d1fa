// SPDX-License-Identifier: MIT
/*
 * probe_cfg.c - basic-block and branch probes (block:GLOB, branch:GLOB):
 * the control-flow graph of a function recovered by disassembly, and a
 * counting probe on each block and each conditional branch.
 *
 * Blocks. The function is decoded from its symbol's start to its end
 * (Zydis). Leaders are the first instruction, every address a direct
 * branch anywhere in the module targets (so the .cold part of a function
 * jumping back into it counts), and every instruction after a branch, ret
 * or trap. A block runs from a leader to the next one. Calls do not end a
 * block (as in GCC's CFG): a callee that does not return (exit, longjmp)
 * leaves the rest of its block counted as run. Bytes after an
 * unconditional transfer that are only nop/int3 padding and no branch
 * targets are not a block.
 *
 * Jump tables. The entries of a switch's jump table are read when the
 * module is analysed (probe_module_analyse, x86_jtab.c): they are branch
 * targets like any other, so leaders, and no window covers one. An indirect
 * jmp of another shape has unknown targets: since one could lie inside any
 * window, every probe of such a function is an int3 at a known leader (one
 * byte cannot straddle a target). --list says so.
 *
 * Where a block is counted. Every instruction of a block runs as often as
 * its first one, so the counting probe may sit anywhere in it: the first
 * window of whole instructions, at least 5 bytes, without a call (a call
 * in a trampoline would push a return address into it: unwinders and
 * exceptions would not find the function), not overlapping another probe.
 * Windows before the block's first call are preferred, so a callee that
 * does not return rarely matters. The trampoline saves the flags (they may
 * be live at a block start) and bumps the block's counter. When no window
 * fits the probe is an int3 at the block's first free instruction.
 *
 * Branches. For each jcc the condition's value at the jump (design 1:
 * "branch: the condition's value") is computed from the flags saved by
 * the trampoline: taken or not taken. When both are asked, the block's
 * window is first tried ending at its jcc: one trampoline then counts the
 * block, runs the block's tail, evaluates the branch and runs the jcc (the
 * branch probe is "shared": it has no patch of its own). Otherwise the jcc
 * gets its own window (the instructions before it in its block, the jcc
 * last) or an int3 on the jcc. loop/jrcxz (not flag conditions) are not
 * probed. Only counters are kept (no record per hit): spool reads them
 * from shared memory when the program ends.
 *
 * Points (jump:, label:, block-exit:) count the passes at one instruction:
 * an unconditional jump or ret, a label's address, a block's last
 * instruction. The counter sits in a window ending with that instruction
 * and starting in its block (no call in between: it runs as often), or,
 * for a label, starting at it; else an int3 on the instruction itself. A
 * point whose every byte is another probe's is said and skipped.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/event.h"
#include "../util/log.h"
#include "probe.h"
#if defined(__aarch64__)
#include "../arch/aarch64/a64_cfg.h"
#endif

#define CFG_MAX_INSNS 65536

struct cfg_fn {
	struct probe_module *mod;
	uint32_t module, sym;
	uint64_t start;
	const uint8_t *code;
	struct x86_insn *in;
	size_t n;
	uint8_t *leader;
	int indirect;
};

static const uint8_t *cfg_bytes(const struct cfg_fn *f, size_t i)
{
	return f->code + (f->in[i].addr - f->start);
}

/* The condition code of a jcc (70-7f rel8, 0f 80-8f rel32), after any
 * prefix; -1 for other conditional branches. */
static int cfg_jcc_cc(const struct cfg_fn *f, size_t i)
{
	const uint8_t *p = cfg_bytes(f, i);
	unsigned k = 0;

	while (k + 1 < f->in[i].len &&
	       (p[k] == 0x2e || p[k] == 0x3e || p[k] == 0xf2 || p[k] == 0xf3 || p[k] == 0x66))
		k++;
	if (p[k] >= 0x70 && p[k] <= 0x7f)
		return p[k] & 0xf;
	if (p[k] == 0x0f && k + 1 < f->in[i].len && p[k + 1] >= 0x80 && p[k + 1] <= 0x8f)
		return p[k + 1] & 0xf;
	return -1;
}

static int cfg_is_jcc(const struct cfg_fn *f, size_t i)
{
	return (f->in[i].flags & X86_F_COND) && !f->in[i].unreloc && cfg_jcc_cc(f, i) >= 0;
}

/* A jump window [a, b) of whole instructions: relocatable, no call, at
 * least a jump long, at most PROBE_MAX_PATCH, overlapping no probe. Only a
 * function without indirect jumps (no unknown targets). */
static int cfg_window_ok(const struct probe_mgr *m, const struct cfg_fn *f, size_t a, size_t b)
{
	uint64_t lo = f->in[a].addr, hi = f->in[b - 1].addr + f->in[b - 1].len;

	if (f->indirect || hi - lo < X86_JMP_LEN || hi - lo > PROBE_MAX_PATCH)
		return 0;
	for (size_t i = a; i < b; i++) {
		if (f->in[i].unreloc || (f->in[i].flags & (X86_F_CALL | X86_F_TRAP)))
			return 0;
		/* A transfer may only be the last: the trampoline would leave early. */
		if (i + 1 < b && (f->in[i].flags & (X86_F_BRANCH | X86_F_RET)))
			return 0;
		if (i > a && probe_module_is_target(f->mod, f->in[i].addr))
			return 0;
	}
	return !probe_plan_overlaps(m, f->module, lo, hi);
}

/* Shortest window ending with instruction j (inclusive) starting at or after
 * instruction first. */
static int cfg_window_ending(const struct probe_mgr *m, const struct cfg_fn *f, size_t first,
			     size_t j, size_t *a)
{
	for (size_t s = j + 1; s-- > first;) {
		uint64_t len = f->in[j].addr + f->in[j].len - f->in[s].addr;

		if (len > PROBE_MAX_PATCH)
			return 0;
		if (len >= X86_JMP_LEN) {
			if (!cfg_window_ok(m, f, s, j + 1))
				return 0; /* a longer one has the same obstacle */
			*a = s;
			return 1;
		}
	}
	return 0;
}

/* The first window starting in [i0, i1) and ending by i1: windows starting
 * before the block's first call first (they all do, calls are excluded). */
static int cfg_window_in(const struct probe_mgr *m, const struct cfg_fn *f, size_t i0, size_t i1,
			 size_t *a, size_t *b)
{
	for (size_t s = i0; s < i1; s++) {
		uint64_t len = 0;
		size_t e = s;

		while (e < i1 && len < X86_JMP_LEN)
			len += f->in[e++].len;
		if (len >= X86_JMP_LEN && cfg_window_ok(m, f, s, e)) {
			*a = s;
			*b = e;
			return 1;
		}
	}
	return 0;
}

static int cfg_finish_jump(struct probe_def *d, const struct cfg_fn *f, size_t a, size_t b,
			   const struct probe_def *br, size_t jcc)
{
	uint64_t lo = f->in[a].addr, hi = f->in[b - 1].addr + f->in[b - 1].len;
	const struct x86_insn *last = &f->in[b - 1];
	int rc = 0;

	d->method = PROBE_M_JUMP;
	d->patch_off = lo;
	d->patch_len = (uint32_t)(hi - lo);
	memcpy(d->orig, cfg_bytes(f, a), hi - lo);
	snprintf(d->insn, sizeof(d->insn), "%s", x86_insn_text(&f->in[a]));
	d->code->len = d->code->nrel = d->code->nskip = 0;
	if (d->op == PROBE_OP_BLOCK)
		rc = x86_code_call_handler(d->code, d->id, PROBE_H_BLOCK, 1);
	for (size_t i = a; !rc && i < b; i++) {
		if (br && i == jcc)
			rc = x86_code_call_handler(d->code, br->id | (uint32_t)br->cc << PROBE_CC_SHIFT,
						   PROBE_H_BRANCH, 1);
		if (!rc)
			rc = x86_code_relocate(d->code, &f->in[i], cfg_bytes(f, i));
	}
	if (!rc && !(last->flags & X86_F_RET) &&
	    !((last->flags & X86_F_BRANCH) && !(last->flags & X86_F_COND)))
		rc = x86_code_jmp(d->code, hi);
	if (rc)
		d->code->len = d->code->nrel = d->code->nskip = 0;
	return rc;
}

/* int3 at instruction i: the slot runs it relocated and jumps back. */
static int cfg_int3(struct probe_def *d, const struct cfg_fn *f, size_t i)
{
	const struct x86_insn *in = &f->in[i];
	int rc;

	d->method = PROBE_M_INT3;
	d->patch_off = in->addr;
	d->patch_len = 1;
	memcpy(d->orig, cfg_bytes(f, i), 1);
	snprintf(d->insn, sizeof(d->insn), "%s", x86_insn_text(in));
	d->code->len = d->code->nrel = d->code->nskip = 0;
	rc = x86_code_relocate(d->code, in, cfg_bytes(f, i));
	if (!rc && !(in->flags & X86_F_RET) &&
	    !((in->flags & X86_F_BRANCH) && !(in->flags & X86_F_COND)))
		rc = x86_code_jmp(d->code, in->addr + in->len);
	return rc;
}

static void cfg_drop(struct probe_mgr *m, struct probe_def *d)
{
	free(d->code);
	m->ndefs--;
}

/* Does a def id of the last ones still exist (defs only grow or lose their
 * last element here)? */
static struct probe_def *cfg_def(struct probe_mgr *m, uint32_t id)
{
	return id && id <= m->ndefs ? &m->defs[id - 1] : NULL;
}

static const char *const cfg_point_kinds[] = {"", "jump", "label", "block exit"};

/*
 * A point whose instruction another counter's window covers: that counter
 * counts it (d->shared), when the window starts at or before it. A window
 * is straight-line code whose instructions after the first are no branch
 * target and hold no call, so each of them runs exactly as often as the
 * first, where the counter is bumped; an int3 counter only for its own
 * instruction.
 */
static int cfg_share(struct probe_mgr *m, struct probe_def *d)
{
	uint32_t id = probe_plan_covering(m, d->module, d->addr, d->addr + 1);
	const struct probe_def *o = id && id <= m->ndefs ? &m->defs[id - 1] : NULL;

	if (!o || o == d || o->shared || o->handler != PROBE_H_BLOCK || o->op != PROBE_OP_BLOCK ||
	    !o->method || o->carry || (o->method == PROBE_M_INT3 && o->patch_off != d->addr) ||
	    o->patch_off > d->addr)
		return 0;
	d->shared = o->id;
	d->method = o->method;
	d->code->len = d->code->nrel = d->code->nskip = 0;
	return 1;
}

/* A counter of the passes at instruction at, in the block [from, end). */
static int cfg_point(struct probe_mgr *m, struct cfg_fn *f, size_t from, size_t at, size_t end,
		     unsigned kind, const char *name)
{
	struct probe_def *d = probe_plan_new_def(m, f->module, f->sym);
	size_t a = 0, b = 0;

	if (!d)
		return -ENOMEM;
	d->op = PROBE_OP_BLOCK;
	d->handler = PROBE_H_BLOCK;
	d->point = (uint8_t)kind;
	snprintf(d->point_name, sizeof(d->point_name), "%s", name ? name : "-");
	d->addr = f->in[at].addr;
	d->end = d->addr + f->in[at].len;
	if (kind == PROBE_PT_LABEL ? cfg_window_in(m, f, at, end, &a, &b) &&
					     !cfg_finish_jump(d, f, a, b, NULL, 0)
				   : cfg_window_ending(m, f, from, at, &a) &&
					     !cfg_finish_jump(d, f, a, at + 1, NULL, 0)) {
		snprintf(d->insn, sizeof(d->insn), "%s", x86_insn_text(&f->in[at]));
		return 1;
	}
	snprintf(d->why, sizeof(d->why), "%s",
		 f->indirect ? "the function has an indirect jump (a jump table): its targets "
			       "are unknown, a jump could cover one"
			     : "no 5-byte window at the instruction free of calls, targets and "
			       "other probes");
	if (!probe_plan_overlaps(m, f->module, d->addr, d->addr + 1) && !cfg_int3(d, f, at))
		return 1;
	if (cfg_share(m, d)) {
		snprintf(d->insn, sizeof(d->insn), "%s", x86_insn_text(&f->in[at]));
		return 1;
	}
	log_warn("probe: %s %s at %s+0x%llx: another probe covers the instruction: not counted",
		 cfg_point_kinds[kind], name ? name : "", probe_sym_shown(f->mod, f->sym),
		 (unsigned long long)(d->addr - f->start));
	cfg_drop(m, d);
	return 0;
}

static const char *cfg_why_block(const struct cfg_fn *f, size_t i0, size_t i1)
{
	uint64_t len = f->in[i1 - 1].addr + f->in[i1 - 1].len - f->in[i0].addr;

	if (f->indirect)
		return "the function has an indirect jump (a jump table): its targets are "
		       "unknown, a jump could cover one";
	if (len < X86_JMP_LEN)
		return "the block is shorter than a 5-byte jump";
	return "no 5-byte window of relocatable instructions without a call or another probe";
}

static int cfg_block(struct probe_mgr *m, struct cfg_fn *f, size_t i0, size_t i1, unsigned what)
{
	size_t j = i1 - 1, a = 0, b = 0;
	int want_br = (what & PROBE_CFG_BRANCHES) && cfg_is_jcc(f, j);
	struct probe_def *d = NULL, *br = NULL;
	uint32_t did = 0, bid = 0;
	int placed = 0;

	if (what & PROBE_CFG_BLOCKS) {
		d = probe_plan_new_def(m, f->module, f->sym);
		if (!d)
			return -ENOMEM;
		d->op = PROBE_OP_BLOCK;
		d->handler = PROBE_H_BLOCK;
		d->addr = f->in[i0].addr;
		d->end = f->in[j].addr + f->in[j].len;
		did = d->id;
	}
	if (want_br) {
		br = probe_plan_new_def(m, f->module, f->sym);
		if (!br)
			return -ENOMEM;
		br->op = PROBE_OP_BRANCH;
		br->handler = PROBE_H_BRANCH;
		br->addr = f->in[j].addr;
		br->end = f->in[j].target;
		br->fall = f->in[j].addr + f->in[j].len;
		br->cc = (uint8_t)cfg_jcc_cc(f, j);
		bid = br->id;
	}
	d = cfg_def(m, did);
	br = cfg_def(m, bid);
	/* Block and branch in one trampoline ending with the jcc. */
	if (d && br && cfg_window_ending(m, f, i0, j, &a) &&
	    !cfg_finish_jump(d, f, a, j + 1, br, j)) {
		br->method = PROBE_M_JUMP;
		br->shared = d->id;
		snprintf(br->insn, sizeof(br->insn), "%s", x86_insn_text(&f->in[j]));
		return 0;
	}
	if (d && cfg_window_in(m, f, i0, i1, &a, &b) && !cfg_finish_jump(d, f, a, b, NULL, 0))
		placed = 1;
	if (d && !placed)
		snprintf(d->why, sizeof(d->why), "%s", cfg_why_block(f, i0, i1));
	if (br) {
		if (cfg_window_ending(m, f, i0, j, &a) && !cfg_finish_jump(br, f, a, j + 1, br, j)) {
			if (d && !placed)
				goto block_int3; /* not reached: the same window failed above */
			return 0;
		}
		snprintf(br->why, sizeof(br->why), "%s",
			 f->indirect ? "the function has an indirect jump (a jump table): its "
				       "targets are unknown, a jump could cover one"
				     : "no 5-byte window ending with the jcc free of calls, targets "
				       "and other probes");
		if (!probe_plan_overlaps(m, f->module, br->addr, br->addr + 1) &&
		    !cfg_int3(br, f, j)) {
			if (d && !placed) {
				/* The jcc's int3 counts the block too (one trap). */
				br->carry = d->id;
				d->shared = br->id;
				d->method = PROBE_M_INT3;
				snprintf(d->insn, sizeof(d->insn), "%s", x86_insn_text(&f->in[j]));
			}
			return 0;
		}
		if (d && !placed) {
			/* keep the block: the branch is dropped */
			cfg_drop(m, br);
			br = NULL;
			goto block_int3;
		}
		cfg_drop(m, br);
		return 0;
	}
	if (!d || placed)
		return 0;
block_int3:
	for (size_t i = i0; i < i1; i++)
		if (!probe_plan_overlaps(m, f->module, f->in[i].addr, f->in[i].addr + 1) &&
		    !cfg_int3(d, f, i))
			return 0;
	/* Every byte is another probe's: the block is not counted. */
	if (br) {
		struct probe_def tmp = *br;

		free(d->code);
		*d = tmp;
		d->id--;
		m->ndefs--;
	} else {
		uint64_t at = d->addr, end = d->end;
		struct probe_def *r;
		int err;

		cfg_drop(m, d);
		/* Another kind of probe's jump covers the block's first
		 * instruction (func:, var:, assert: at a function's entry):
		 * its trampoline counts the block there too. */
		r = probe_plan_ride(m, f->module, f->sym, at, PROBE_H_BLOCK, PROBE_OP_BLOCK, 0,
				    &err);
		if (r) {
			r->end = end;
			r->registered = 1;
		} else if (err == -ENOMEM) {
			return err;
		}
	}
	return 0;
}

static void cfg_close(struct cfg_fn *f)
{
	free(f->in);
	free(f->leader);
	f->in = NULL;
	f->leader = NULL;
}

/* Decode function sym and find its leaders. */
static int cfg_open(struct probe_mgr *m, uint32_t module, uint32_t sym, struct cfg_fn *f)
{
	struct probe_module *mod = &m->mods[module];
	const struct probe_sym *s = &mod->syms[sym];
	size_t avail;
	int rc, complete;

	memset(f, 0, sizeof(*f));
	f->mod = mod;
	f->module = module;
	f->sym = sym;
	f->start = s->addr;
	f->code = probe_module_code(mod, s->addr, &avail);
	if (!f->code)
		return -ENOEXEC;
	rc = probe_module_analyse(mod);
	if (rc)
		return rc;
	f->in = calloc(CFG_MAX_INSNS, sizeof(*f->in));
	f->leader = calloc(CFG_MAX_INSNS, 1);
	if (!f->in || !f->leader) {
		cfg_close(f);
		return -ENOMEM;
	}
	/* Only bytes known to be instructions; the rest (data in the
	 * function's range) comes as X86_F_DATA pieces, never a block. */
	rc = probe_decode_known(mod, sym, f->code, avail, f->in, CFG_MAX_INSNS, &f->n, &complete);
	if (rc) {
		cfg_close(f);
		return rc;
	}
	f->indirect = probe_plan_classify(mod, s, f->code, f->in, f->n);
	for (size_t i = 0; i < f->n; i++) {
		if (!i || probe_module_is_target(mod, f->in[i].addr))
			f->leader[i] = 1;
		if (i + 1 < f->n &&
		    (f->in[i].flags & (X86_F_BRANCH | X86_F_RET | X86_F_TRAP | X86_F_DATA)))
			f->leader[i + 1] = 1;
		if (f->in[i].flags & X86_F_DATA)
			f->leader[i] = 1;
	}
	return 0;
}

/* The block [*i0, *i1) holding instruction k. */
static void cfg_block_of(const struct cfg_fn *f, size_t k, size_t *i0, size_t *i1)
{
	size_t a = k, b = k + 1;

	while (a && !f->leader[a])
		a--;
	while (b < f->n && !f->leader[b])
		b++;
	*i0 = a;
	*i1 = b;
}

int probe_plan_jumps(struct probe_mgr *m, uint32_t module, uint32_t sym)
{
	struct cfg_fn f;
	int rc, n = 0;

#if defined(__aarch64__)
	return a64_plan_jumps(m, module, sym);
#endif
	rc = cfg_open(m, module, sym, &f);

	for (size_t k = 0; !rc && k < f.n; k++) {
		const struct x86_insn *in = &f.in[k];
		size_t i0, i1;

		if ((in->flags & X86_F_DATA) ||
		    !((in->flags & X86_F_RET) ||
		      ((in->flags & X86_F_BRANCH) && !(in->flags & X86_F_COND))))
			continue;
		cfg_block_of(&f, k, &i0, &i1);
		rc = cfg_point(m, &f, i0, k, i1, PROBE_PT_JUMP, NULL);
		if (rc > 0)
			n += rc, rc = 0;
	}
	cfg_close(&f);
	return rc < 0 ? rc : n;
}

int probe_plan_label(struct probe_mgr *m, uint32_t module, uint32_t sym, uint64_t addr,
		     const char *name)
{
	struct cfg_fn f;
	size_t k, i0, i1;
	int rc;

#if defined(__aarch64__)
	return a64_plan_label(m, module, sym, addr, name);
#endif
	rc = cfg_open(m, module, sym, &f);
	if (rc)
		return rc;
	for (k = 0; k < f.n && f.in[k].addr != addr; k++)
		;
	if (k == f.n || (f.in[k].flags & X86_F_DATA)) {
		log_warn("probe: label %s of %s at 0x%llx is not an instruction of it: not counted",
			 name, probe_sym_shown(f.mod, sym), (unsigned long long)addr);
		cfg_close(&f);
		return 0;
	}
	cfg_block_of(&f, k, &i0, &i1);
	rc = cfg_point(m, &f, i0, k, i1, PROBE_PT_LABEL, name);
	cfg_close(&f);
	return rc;
}

int probe_plan_cfg(struct probe_mgr *m, uint32_t module, uint32_t sym, unsigned what)
{
	struct probe_module *mod;
	struct cfg_fn f;
	int rc;

#if defined(__aarch64__)
	/* one word per instruction, one B per probe: src/arch/aarch64/ */
	return a64_plan_cfg(m, module, sym, what);
#endif
	rc = cfg_open(m, module, sym, &f);

	if (rc)
		return rc;
	mod = f.mod;
	for (size_t i0 = 0, i1; i0 < f.n; i0 = i1) {
		int padding = 1;

		for (i1 = i0 + 1; i1 < f.n && !f.leader[i1]; i1++)
			;
		if (f.in[i0].flags & X86_F_DATA)
			continue; /* not code: never patched */
		for (size_t i = i0; i < i1; i++)
			if (!(f.in[i].flags & X86_F_NOP))
				padding = 0;
		/* Dead padding after an unconditional transfer, not a target. */
		if (padding && i0 && !probe_module_is_target(mod, f.in[i0].addr) &&
		    ((f.in[i0 - 1].flags & (X86_F_RET | X86_F_TRAP)) ||
		     ((f.in[i0 - 1].flags & X86_F_BRANCH) && !(f.in[i0 - 1].flags & X86_F_COND))))
			continue;
		if (what & (PROBE_CFG_BLOCKS | PROBE_CFG_BRANCHES)) {
			rc = cfg_block(m, &f, i0, i1, what);
			if (rc)
				break;
		}
		if (what & PROBE_CFG_BEXITS) {
			rc = cfg_point(m, &f, i0, i1 - 1, i1, PROBE_PT_BEXIT, NULL);
			if (rc < 0)
				break;
			rc = 0;
		}
	}
	if (!rc && what == PROBE_CFG_BRANCHES) {
		/* Nothing to count is not nothing to say: a user who asked
		 * for the branches of a wrapper (glibc's posix_spawn, whose
		 * work is in __spawnix) would see no probe and no report. */
		size_t njcc = 0;

		for (size_t i = 0; i < f.n; i++)
			if ((f.in[i].flags & X86_F_COND) && !(f.in[i].flags & X86_F_DATA))
				njcc++;
		if (!njcc) /* (the address: a versioned name has copies) */
			log_warn("probe: %s at 0x%llx in %s has no conditional branch: nothing to "
				 "count there",
				 probe_sym_shown(mod, sym), (unsigned long long)mod->syms[sym].addr,
				 mod->path);
	}
	cfg_close(&f);
	return rc;
}
