// SPDX-License-Identifier: MIT
/*
 * probe_plan.c - where and how each probe of a function is inserted.
 *
 * Entry: the first instructions covering at least 5 bytes are displaced by
 * a jmp rel32 to a trampoline that calls the handler, runs the displaced
 * instructions (relocated) and jumps back. Exit: every ret is probed, or,
 * where one would need an int3, the function's return address is swapped
 * at the entry (plan_retaddr, agent_probe_ra.c). A ret is one byte, so its jump covers
 * a straight-line window around it: the instructions just before it (the
 * epilogue) and, when those are not enough, dead bytes after it (padding
 * no symbol owns). Its trampoline runs the displaced epilogue, calls the
 * handler with the stack pointer at the return address, and returns.
 *
 * A jump is placed only when it is safe: every displaced instruction is
 * relocatable, no branch anywhere in the module targets a byte of the
 * window but the first, and the window does not overlap another probe.
 * Functions with indirect jumps whose targets are unknown (not a switch
 * jump table probe_module_analyse could read) get int3 for their exits,
 * and their entry is trusted not to be such a target (doc/probe.md). Otherwise the probe
 * falls back to int3 at the instruction itself, with the reason kept for
 * --list; the int3 slot runs the one displaced instruction out of line.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/event.h"
#include "../util/log.h"
#include "probe.h"
#if defined(__aarch64__)
#include "../arch/aarch64/a64_plan.h"
#endif

#define PLAN_MAX_INSNS 4096

struct plan_fn {
	const struct probe_module *mod;
	const struct probe_sym *sym;
	const uint8_t *code;
	uint64_t avail;	  /* decodable bytes from sym->addr (to the section end) */
	uint64_t limit;	  /* module offset no window may reach: the next symbol */
	struct x86_insn *in;
	size_t n;	  /* instructions decoded up to the first failure */
	int complete;	  /* the whole body decoded */
	int indirect;	  /* has an indirect jmp (not a call) */
};

struct probe_def *probe_plan_new_def(struct probe_mgr *m, uint32_t module, uint32_t sym)
{
	struct probe_def *d;

	/* Geometric growth: a large library has 10^5 probes. */
	if (m->ndefs == m->defs_cap) {
		size_t cap = m->defs_cap ? m->defs_cap * 2 : 64;
		struct probe_def *nd = realloc(m->defs, cap * sizeof(*nd));

		if (!nd)
			return NULL;
		m->defs = nd;
		m->defs_cap = cap;
	}
	d = &m->defs[m->ndefs];
	memset(d, 0, sizeof(*d));
	d->code = calloc(1, sizeof(*d->code));
	if (!d->code)
		return NULL;
	d->id = (uint32_t)m->ndefs + 1;
	d->spec = m->cur_spec;
	d->module = module;
	d->sym = sym;
	m->ndefs++;
	return d;
}

/*
 * Overlap queries. Planning asks, for every window it considers, whether a
 * probe already covers a byte of it: a scan of every def made planning all
 * blocks of a large library quadratic (71 000 blocks of libc: 10 s). The
 * ranges of the defs but the last PLAN_OVL_RECENT ones are kept sorted in
 * an index, rebuilt as defs are added; the recent ones, whose ranges the
 * planner may still change (a window tried, then an int3), are scanned.
 * Older defs keep their ranges; one removed from the middle (not done
 * while planning) would leave a stale entry, which can only make a window
 * look taken, never free.
 */
#define PLAN_OVL_RECENT 1024

struct probe_ovl {
	struct probe_ovl_range {
		uint32_t module, id;
		uint64_t lo, hi;
	} *v;
	size_t n, covers; /* ranges of defs [0, covers) */
	uint64_t max_len;
};

static int plan_ovl_cmp(const void *a, const void *b)
{
	const struct probe_ovl_range *x = a, *y = b;

	if (x->module != y->module)
		return x->module < y->module ? -1 : 1;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static void plan_ovl_build(struct probe_ovl *o, const struct probe_mgr *m, size_t covers)
{
	struct probe_ovl_range *v = realloc(o->v, (covers ? covers : 1) * sizeof(*v));

	o->n = o->covers = 0;
	if (!v)
		return; /* no index: every query scans */
	o->v = v;
	o->max_len = 0;
	for (size_t i = 0; i < covers; i++) {
		const struct probe_def *d = &m->defs[i];

		if (!d->patch_len)
			continue;
		v[o->n].module = d->module;
		v[o->n].id = d->id;
		v[o->n].lo = d->patch_off;
		v[o->n++].hi = d->patch_off + d->patch_len;
		if (d->patch_len > o->max_len)
			o->max_len = d->patch_len;
	}
	qsort(v, o->n, sizeof(*v), plan_ovl_cmp);
	o->covers = covers;
}

/* The id of an indexed range overlapping [lo, hi), or 0. */
static uint32_t plan_ovl_hit(const struct probe_ovl *o, uint32_t module, uint64_t lo,
			     uint64_t hi)
{
	struct probe_ovl_range key = {module, 0, lo > o->max_len ? lo - o->max_len : 0, 0};
	size_t a = 0, b = o->n;

	while (a < b) { /* first range at or after key */
		size_t mid = (a + b) / 2;

		if (plan_ovl_cmp(&o->v[mid], &key) < 0)
			a = mid + 1;
		else
			b = mid;
	}
	for (; a < o->n && o->v[a].module == module && o->v[a].lo < hi; a++)
		if (lo < o->v[a].hi)
			return o->v[a].id;
	return 0;
}

void probe_plan_init_index(struct probe_mgr *m)
{
	m->ovl = calloc(1, sizeof(*m->ovl));
}

void probe_plan_free_index(struct probe_mgr *m)
{
	if (m->ovl) {
		free(m->ovl->v);
		free(m->ovl);
		m->ovl = NULL;
	}
}

/* The id of a probe already planned in this module whose patch overlaps
 * [lo, hi), or 0 (probes never overlap each other: at most one covers a
 * byte). */
uint32_t probe_plan_covering(const struct probe_mgr *m, uint32_t module, uint64_t lo, uint64_t hi)
{
	struct probe_ovl *o = m->ovl;
	size_t from = 0;
	uint32_t id;

	if (o && o->covers > m->ndefs)
		o->covers = o->n = 0; /* defs were removed: rebuild */
	if (o && m->ndefs - o->covers > 2 * PLAN_OVL_RECENT)
		plan_ovl_build(o, m, m->ndefs - PLAN_OVL_RECENT);
	if (o && o->covers) {
		id = plan_ovl_hit(o, module, lo, hi);
		if (id)
			return id;
		from = o->covers;
	}
	for (size_t i = from; i < m->ndefs; i++) {
		const struct probe_def *d = &m->defs[i];

		if (d->module == module && d->patch_len && lo < d->patch_off + d->patch_len &&
		    d->patch_off < hi)
			return d->id;
	}
	return 0;
}

/* Does [lo, hi) overlap a probe already planned in this module? */
int probe_plan_overlaps(const struct probe_mgr *m, uint32_t module, uint64_t lo, uint64_t hi)
{
	return probe_plan_covering(m, module, lo, hi) != 0;
}

static int plan_has_target(const struct probe_module *mod, uint64_t lo, uint64_t hi)
{
	for (uint64_t a = lo + 1; a < hi; a++)
		if (probe_module_is_target(mod, a))
			return 1;
	return 0;
}

/* The function starting at addr, by symbol (not a .cold part: that is the
 * rest of a function, not another one), or NULL. */
static const struct probe_sym *plan_sym_at(const struct probe_module *mod, uint64_t addr)
{
	size_t lo = 0, hi = mod->nsyms;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (mod->syms[mid].addr == addr)
			return strstr(mod->syms[mid].name, ".cold") ? NULL : &mod->syms[mid];
		if (mod->syms[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

#define PLAN_TAIL_BACK 24

/*
 * Tail calls. A jmp leaves the function for another one when it is
 *  - direct, to outside the function's symbol, at a function entry: a
 *    symbol's start, a direct call's target elsewhere in the module, a PLT
 *    stub (an import only ever tail-called has no call to its stub), or an
 *    .eh_frame FDE's start in the entry state (stripped files name few
 *    functions; a .cold part is none of these, see probe_dwarf_func_entry);
 *  - indirect, of a shape x86_tail_jump accepts (a pointer loaded without
 *    an index, in the straight line before the jmp: from the nearest
 *    branch target or transfer back).
 * Such a jmp ends the activation (the exit probes fire there) and, being
 * no jump table, puts no target inside the function. Any other indirect
 * jmp of unknown targets makes the function "indirect".
 */
int probe_plan_classify(const struct probe_module *mod, const struct probe_sym *sym,
			const uint8_t *code, struct x86_insn *in, size_t n)
{
	int indirect = 0;

	for (size_t k = 0; k < n; k++) {
		const uint8_t *bytes[PLAN_TAIL_BACK];
		size_t avail[PLAN_TAIL_BACK], s = k, nb = 0;
		uint64_t addrs[PLAN_TAIL_BACK];

		in[k].flags &= ~X86_F_TAIL;
		if (!(in[k].flags & X86_F_BRANCH))
			continue;
		/* A jcc to another function is a conditional tail call. */
		if ((in[k].flags & X86_F_COND) && !(in[k].flags & X86_F_RELATIVE))
			continue;
		if (in[k].flags & X86_F_RELATIVE) {
			uint64_t t = in[k].target;

			if ((t < sym->addr || t >= sym->addr + sym->size) &&
			    (plan_sym_at(mod, t) || probe_module_is_call(mod, t) ||
			     probe_module_is_plt(mod, t) || probe_dwarf_func_entry(mod, t)))
				in[k].flags |= X86_F_TAIL;
			continue;
		}
		if (!(in[k].flags & X86_F_INDIRECT) || probe_module_jump_known(mod, in[k].addr))
			continue;
		while (s > 0 && k - s + 1 < PLAN_TAIL_BACK &&
		       !probe_module_is_target(mod, in[s].addr) &&
		       !(in[s - 1].flags & (X86_F_RET | X86_F_TRAP)) &&
		       !((in[s - 1].flags & X86_F_BRANCH) && !(in[s - 1].flags & X86_F_COND)))
			s--;
		for (size_t i = s; i <= k; i++) {
			bytes[nb] = code + (in[i].addr - sym->addr);
			avail[nb] = in[i].len;
			addrs[nb++] = in[i].addr;
		}
		if (x86_tail_jump(bytes, avail, addrs, nb))
			in[k].flags |= X86_F_TAIL;
		else
			indirect = 1;
	}
	return indirect;
}

/* int3 at insn: slot = the instruction relocated, then a jump back. */
static int plan_int3(struct probe_def *d, const struct plan_fn *f, const struct x86_insn *in)
{
	const uint8_t *p = f->code + (in->addr - f->sym->addr);
	int rc;

	d->method = PROBE_M_INT3;
	d->addr = d->patch_off = in->addr;
	d->patch_len = 1;
	memcpy(d->orig, p, 1);
	snprintf(d->insn, sizeof(d->insn), "%s", x86_insn_text(in));
	d->code->len = d->code->nrel = d->code->nskip = 0;
	rc = x86_code_relocate(d->code, in, p);
	if (rc)
		return rc;
	if (!(in->flags & X86_F_RET) && !((in->flags & X86_F_BRANCH) && !(in->flags & X86_F_COND)))
		rc = x86_code_jmp(d->code, in->addr + in->len);
	return rc;
}

/* Is an instruction known to be code (not X86_F_DATA) decoded at addr? */
static int plan_known_at(const struct plan_fn *f, uint64_t addr)
{
	size_t lo = 0, hi = f->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (f->in[mid].addr == addr)
			return !(f->in[mid].flags & X86_F_DATA);
		if (f->in[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/*
 * Extend a window [lo, hi) that ends after a ret over the dead bytes that
 * follow it, until it holds a jump: the function's own code that is known
 * to be instructions but not reached from before (up to fend, its symbol's
 * end; never bytes of unknown nature: they may be a table) and then only
 * padding (nops) up to the next symbol (f->limit). Returns the new hi.
 */
static uint64_t plan_extend_dead(const struct plan_fn *f, uint64_t lo, uint64_t hi, uint64_t fend)
{
	while (hi - lo < X86_JMP_LEN && hi < f->limit) {
		struct x86_insn pad;
		size_t avail;
		const uint8_t *p = probe_module_code(f->mod, hi, &avail);

		if (!p || x86_decode(p, avail, hi, &pad) < 0)
			break;
		/* inside the function: an instruction of its own, or
		 * alignment padding the decoder did not reach (a nop after
		 * the unconditional jump or ret before it: not fallen into;
		 * the caller's plan_has_target refuses it if branched to) */
		if (hi < fend && !plan_known_at(f, hi) && !(pad.flags & X86_F_NOP))
			break;
		if (hi >= fend && !(pad.flags & X86_F_NOP))
			break;
		if (hi + pad.len > f->limit)
			break;
		hi += pad.len;
	}
	return hi;
}

/*
 * A function that leaves (ret or tail jump: instruction k) within its first
 * 5 bytes, followed by dead bytes (its own unreachable code or padding up
 * to the next symbol): one jump window [start, hi) may cover the body, the
 * ret and the padding. The same for a jump into the function's own body
 * (`xor ecx,ecx; jmp L; nop...`, the entry of a loop compiled with its
 * test at the bottom: sqlite3StrICmp): the jump, relocated, leaves the
 * trampoline for L, outside the window (plan_has_target refuses a target
 * inside it); there is no exit to share. Its trampoline runs the entry handler, the body, the
 * exit handler of that ret (when exits are probed: the exit probe is
 * "shared", counted in this trampoline) and the ret, relocated: it returns
 * to the caller from the trampoline. *exit_k is set to k when the exit is
 * taken care of. Returns 0 or -ENOTSUP (the caller falls back to int3).
 */
static int plan_entry_whole(struct probe_mgr *m, uint32_t module, uint32_t sym, struct plan_fn *f,
			    size_t k, int exits, size_t *exit_k)
{
	uint64_t start = f->sym->addr, fend = start + f->sym->size;
	uint64_t hi = f->in[k].addr + f->in[k].len;
	uint32_t did = m->ndefs, xid = 0;
	struct probe_def *d, *x;
	size_t avail;
	const uint8_t *p;
	int rc = 0;

	for (size_t i = 0; i <= k; i++)
		if (f->in[i].unreloc || (f->in[i].flags & (X86_F_CALL | X86_F_TRAP)) ||
		    (i < k && (f->in[i].flags & (X86_F_BRANCH | X86_F_RET))))
			return -ENOTSUP;
	if (!(f->in[k].flags & (X86_F_RET | X86_F_TAIL)))
		exits = 0; /* a jump inside the function: no exit here */
	hi = plan_extend_dead(f, start, hi, fend);
	p = probe_module_code(f->mod, start, &avail);
	if (hi - start < X86_JMP_LEN || hi - start > PROBE_MAX_PATCH || !p || avail < hi - start ||
	    plan_has_target(f->mod, start, hi) || probe_plan_overlaps(m, module, start, hi))
		return -ENOTSUP;
	if (exits) {
		x = probe_plan_new_def(m, module, sym);
		if (!x)
			return -ENOMEM;
		x->op = PROBE_OP_EXIT;
		x->handler = PROBE_H_FUNC_EXIT;
		x->method = PROBE_M_JUMP;
		x->addr = f->in[k].addr;
		snprintf(x->insn, sizeof(x->insn), "%s", x86_insn_text(&f->in[k]));
		xid = x->id;
	}
	d = &m->defs[did - 1]; /* defs may have moved */
	x = xid ? &m->defs[xid - 1] : NULL;
	d->method = PROBE_M_JUMP;
	d->addr = d->patch_off = start;
	d->patch_len = (uint32_t)(hi - start);
	memcpy(d->orig, p, hi - start);
	snprintf(d->insn, sizeof(d->insn), "%s", x86_insn_text(&f->in[0]));
	d->code->len = d->code->nrel = d->code->nskip = 0;
	/* the entry and the ret of a whole function: its red zone is dead
	 * (not at a .cold part's start, inside its function's frame) */
	rc = x86_code_call_handler(d->code, d->id, d->handler,
				   strstr(f->sym->name, ".cold") ? 0 : X86_CALL_NO_REDZONE);
	for (size_t i = 0; !rc && i < k; i++)
		rc = x86_code_relocate(d->code, &f->in[i], f->code + (f->in[i].addr - start));
	if (!rc && x)
		rc = x86_code_call_handler(d->code, x->id, x->handler, X86_CALL_NO_REDZONE);
	if (!rc)
		rc = x86_code_relocate(d->code, &f->in[k], f->code + (f->in[k].addr - start));
	if (rc) {
		d->code->len = d->code->nrel = d->code->nskip = 0;
		d->method = 0;
		d->patch_len = 0;
		if (x) {
			free(x->code);
			m->ndefs--;
		}
		return -ENOTSUP;
	}
	if (x) {
		x->shared = d->id;
		*exit_k = k;
	}
	return 0;
}

static int plan_entry(struct probe_mgr *m, uint32_t module, uint32_t sym, struct plan_fn *f,
		      int exits, size_t *exit_k)
{
	struct probe_def *d = probe_plan_new_def(m, module, sym);
	uint64_t start = f->sym->addr, wlen = 0;
	size_t k = 0;
	const char *why = NULL;
	char buf[160];
	int rc;

	if (!d)
		return -ENOMEM;
	f = f; /* realloc of defs does not move f */
	d->op = PROBE_OP_ENTRY;
	d->handler = PROBE_H_FUNC_ENTRY;
	if (!f->n)
		return -ENOEXEC;
	while (k < f->n && wlen < X86_JMP_LEN) {
		const struct x86_insn *in = &f->in[k];

		if (in->unreloc) {
			snprintf(buf, sizeof(buf), "'%s' cannot be relocated: %s", x86_insn_text(in),
				 in->unreloc);
			why = buf;
			break;
		}
		if (m->attach && (in->flags & X86_F_CALL) && wlen < X86_JMP_LEN) {
			snprintf(buf, sizeof(buf),
				 "'%s' in the first %d bytes: a running thread could return into "
				 "the jump (attach mode)",
				 x86_insn_text(in), X86_JMP_LEN);
			why = buf;
			break;
		}
		/* A call runs from the trampoline as "push the original return
		 * address; jmp": only the last instruction of the window can
		 * (the callee returns past the window), of a form that can. */
		if ((in->flags & X86_F_CALL) &&
		    (wlen + in->len < X86_JMP_LEN || !x86_call_movable(in, f->code + (in->addr - start)))) {
			snprintf(buf, sizeof(buf),
				 "'%s' in the first %d bytes: its return address cannot stay in "
				 "the function",
				 x86_insn_text(in), X86_JMP_LEN);
			why = buf;
			break;
		}
		if ((in->flags & (X86_F_RET | X86_F_TRAP)) ||
		    ((in->flags & X86_F_BRANCH) && !(in->flags & X86_F_COND) && k + 1 < f->n &&
		     wlen + in->len < X86_JMP_LEN)) {
			if (((in->flags & (X86_F_RET | X86_F_TAIL)) ||
			     ((in->flags & X86_F_BRANCH) && !(in->flags & (X86_F_COND | X86_F_INDIRECT)))) &&
			    !m->attach) {
				rc = plan_entry_whole(m, module, sym, f, k, exits, exit_k);
				if (rc != -ENOTSUP)
					return rc;
				d = &m->defs[m->ndefs - 1];
			}
			snprintf(buf, sizeof(buf), "the function leaves within its first %d bytes ('%s')",
				 X86_JMP_LEN, x86_insn_text(in));
			why = buf;
			break;
		}
		wlen += in->len;
		k++;
	}
	if (!why && wlen < X86_JMP_LEN) {
		snprintf(buf, sizeof(buf), "the function is %llu bytes, shorter than a %d-byte jump",
			 (unsigned long long)f->sym->size, X86_JMP_LEN);
		why = buf;
	}
	if (!why && start + wlen > start + f->sym->size) {
		snprintf(buf, sizeof(buf), "the function is %llu bytes, shorter than a %d-byte jump",
			 (unsigned long long)f->sym->size, X86_JMP_LEN);
		why = buf;
	}
	if (!why && plan_has_target(f->mod, start, start + wlen)) {
		snprintf(buf, sizeof(buf), "a branch targets the first %llu bytes the jump would replace",
			 (unsigned long long)wlen);
		why = buf;
	}
	if (!why && probe_plan_overlaps(m, module, start, start + wlen)) {
		snprintf(buf, sizeof(buf), "another probe covers these bytes");
		why = buf;
	}
	if (!why) {
		d->method = PROBE_M_JUMP;
		d->addr = d->patch_off = start;
		d->patch_len = (uint32_t)wlen;
		memcpy(d->orig, f->code, wlen);
		snprintf(d->insn, sizeof(d->insn), "%s", x86_insn_text(&f->in[0]));
		/* at a function's first instruction the red zone is dead; not
		 * at a .cold part's, which runs inside its function's frame */
		rc = x86_code_call_handler(d->code, d->id, d->handler,
					   strstr(f->sym->name, ".cold") ? 0 : X86_CALL_NO_REDZONE);
		for (size_t i = 0; !rc && i < k; i++) {
			const uint8_t *ip = f->code + (f->in[i].addr - start);

			/* A call returns to the original code: no jump back. */
			if (f->in[i].flags & X86_F_CALL)
				rc = x86_code_call_moved(d->code, &f->in[i], ip);
			else
				rc = x86_code_relocate(d->code, &f->in[i], ip);
		}
		if (!rc && !(f->in[k - 1].flags & X86_F_CALL))
			rc = x86_code_jmp(d->code, start + wlen);
		if (!rc)
			return 0;
		snprintf(buf, sizeof(buf), "relocation failed (%s)", strerror(-rc));
		why = buf;
		d->code->len = d->code->nrel = d->code->nskip = 0;
	}
	snprintf(d->why, sizeof(d->why), "%s", why);
	if (probe_plan_overlaps(m, module, start, start + 1))
		goto refuse;
	rc = plan_int3(d, f, &f->in[0]);
	if (rc)
		goto refuse;
	return 0;
refuse:
	/* Not probed at all: forget the definition. */
	free(d->code);
	m->ndefs--;
	return -ENOTSUP;
}

/*
 * Branch targets inside an exit window [lo, hi) (instructions a..r, the
 * ret or tail jump r last, then dead bytes): allowed only when every
 * reference to the target in the module is a jcc displaced with the window
 * (`jge L; mov [rax],rsi; L: ret`): the trampoline then branches to its own
 * copy. module targets keeps one entry per referring instruction, so the
 * counts compare. A target in the dead bytes after r is never allowed.
 */
static int plan_exit_targets_ok(const struct plan_fn *f, size_t a, size_t r, uint64_t lo,
				uint64_t hi)
{
	for (uint64_t x = lo + 1; x < hi; x++) {
		size_t refs, inner = 0;
		int at_insn = 0;

		if (!probe_module_is_target(f->mod, x))
			continue;
		for (size_t i = a + 1; i <= r; i++)
			at_insn |= f->in[i].addr == x;
		if (!at_insn)
			return 0;
		refs = probe_module_target_refs(f->mod, x);
		for (size_t i = a; i < r; i++)
			if ((f->in[i].flags & X86_F_RELATIVE) && (f->in[i].flags & X86_F_COND) &&
			    f->in[i].target == x)
				inner++;
		if (refs != inner)
			return 0;
	}
	return 1;
}

/*
 * Trampoline of an exit window: instructions a..r-1 relocated, the exit
 * handler, the ret (or tail jump) r. A jcc whose target is in the window
 * (checked by plan_exit_targets_ok) branches inside the trampoline: to its
 * copy of the target, or for the ret, to the handler call before it.
 */
static int plan_exit_code(struct probe_def *d, const struct plan_fn *f, size_t a, size_t r)
{
	struct x86_code *c = d->code;
	uint32_t off[8], fix_at[8];
	uint64_t fix_to[8];
	size_t nfix = 0;
	int rc = 0;

	if (r - a + 1 > 8)
		return -ENOSPC;
	for (size_t i = a; !rc && i < r; i++) {
		const struct x86_insn *in = &f->in[i];
		int inner = (in->flags & X86_F_RELATIVE) && (in->flags & X86_F_COND) &&
			    in->target > f->in[a].addr && in->target <= f->in[r].addr;

		off[i - a] = c->len;
		rc = x86_code_relocate(c, in, f->code + (in->addr - f->sym->addr));
		if (!rc && inner) {
			/* its rel32 is the last relocation: resolved here instead */
			if (!c->nrel || c->rel[c->nrel - 1].target != in->target ||
			    c->rel[c->nrel - 1].at + 4 != c->len)
				return -ENOTSUP;
			c->nrel--;
			fix_at[nfix] = c->len - 4;
			fix_to[nfix++] = in->target;
		}
	}
	off[r - a] = c->len; /* a branch to the ret lands on the handler call */
	if (!rc) /* at the ret (or tail jump): the frame is gone, its red zone dead */
		rc = x86_code_call_handler(c, d->id, d->handler, X86_CALL_NO_REDZONE);
	if (!rc)
		rc = x86_code_relocate(c, &f->in[r], f->code + (f->in[r].addr - f->sym->addr));
	/* A rider (probe_plan_ride) may go only at the ret, before the exit
	 * handler: the inner jcc above jump to copies before that point or to
	 * it, never across it. */
	c->nmark = 1;
	c->mark[0].addr = f->in[r].addr;
	c->mark[0].off = off[r - a];
	for (size_t k = 0; !rc && k < nfix; k++) {
		size_t j = a + 1;
		int32_t disp;

		while (j <= r && f->in[j].addr != fix_to[k])
			j++;
		if (j > r)
			return -ENOTSUP;
		disp = (int32_t)((int64_t)off[j - a] - (int64_t)(fix_at[k] + 4));
		memcpy(c->buf + fix_at[k], &disp, 4);
	}
	return rc;
}

/* Exit probe for the ret f->in[r]. */
static int plan_exit(struct probe_mgr *m, uint32_t module, uint32_t sym, struct plan_fn *f,
		     size_t r)
{
	struct probe_def *d = probe_plan_new_def(m, module, sym);
	const struct x86_insn *ret = &f->in[r];
	uint64_t fstart = f->sym->addr, fend = fstart + f->sym->size;
	const char *why = NULL;
	char buf[160];
	int rc;

	if (!d)
		return -ENOMEM;
	d->op = PROBE_OP_EXIT;
	d->handler = PROBE_H_FUNC_EXIT;
	if (f->indirect)
		why = "the function has indirect jumps (a jump table could target its epilogue)";
	/* Try windows with b instructions before the ret and dead bytes after
	 * it, fewest displaced instructions first. */
	for (size_t b = 0; !why && b <= 4 && b <= r; b++) {
		uint64_t lo = f->in[r - b].addr, hi = ret->addr + ret->len;
		int ok = 1;

		/* A jcc may be displaced (relocated: taken, it leaves the
		 * trampoline for its target before the handler runs, as the
		 * original leaves before the ret): `je L; xor eax,eax; ret; L:`
		 * leaves no room otherwise. Other transfers and calls may not. */
		for (size_t i = r - b; i < r; i++)
			if (f->in[i].unreloc ||
			    (f->in[i].flags & (X86_F_CALL | X86_F_RET | X86_F_TRAP)) ||
			    ((f->in[i].flags & X86_F_BRANCH) && !(f->in[i].flags & X86_F_COND)))
				ok = 0;
		if (!ok)
			break; /* going further back crosses it too */
		/* Dead bytes after the ret: the function's own unreachable
		 * code (not a target) or padding up to the next symbol. */
		hi = plan_extend_dead(f, lo, hi, fend);
		if (hi - lo < X86_JMP_LEN || !plan_exit_targets_ok(f, r - b, r, lo, hi) ||
		    probe_plan_overlaps(m, module, lo, hi))
			continue;
		if (hi - lo > PROBE_MAX_PATCH)
			continue;
		d->method = PROBE_M_JUMP;
		d->addr = ret->addr;
		d->patch_off = lo;
		d->patch_len = (uint32_t)(hi - lo);
		memcpy(d->orig, f->code + (lo - fstart), 0);
		{
			size_t avail;
			const uint8_t *p = probe_module_code(f->mod, lo, &avail);

			if (!p || avail < hi - lo)
				continue;
			memcpy(d->orig, p, hi - lo);
		}
		snprintf(d->insn, sizeof(d->insn), "%s", x86_insn_text(ret));
		rc = plan_exit_code(d, f, r - b, r);
		if (!rc)
			return 0;
		d->code->len = d->code->nrel = d->code->nskip = 0;
	}
	if (!why) {
		snprintf(buf, sizeof(buf),
			 "no 5-byte straight-line window around the %s without a branch target",
			 (ret->flags & X86_F_RET) ? "ret" : "tail jump");
		why = buf;
	}
	snprintf(d->why, sizeof(d->why), "%s", why);
	if (probe_plan_overlaps(m, module, ret->addr, ret->addr + 1))
		goto refuse;
	rc = plan_int3(d, f, ret);
	if (rc)
		goto refuse;
	return 0;
refuse:
	free(d->code);
	m->ndefs--;
	/* a var:/args: probe at the ret: its trampoline runs the exit too */
	if (probe_plan_ride(m, module, sym, ret->addr, PROBE_H_FUNC_EXIT, PROBE_OP_EXIT, 0, &rc))
		return 0;
	return rc == -ENOMEM ? rc : -ENOTSUP;
}

/* The condition code of a jcc (70-7f rel8, 0f 80-8f rel32) after any
 * prefix; -1 for loop/jrcxz. */
static int plan_jcc_cc(const uint8_t *p, unsigned len)
{
	unsigned k = 0;

	while (k + 1 < len && (p[k] == 0x2e || p[k] == 0x3e || p[k] == 0xf2 || p[k] == 0xf3 ||
			       p[k] == 0x66))
		k++;
	if (p[k] >= 0x70 && p[k] <= 0x7f)
		return p[k] & 0xf;
	if (p[k] == 0x0f && k + 1 < len && p[k + 1] >= 0x80 && p[k + 1] <= 0x8f)
		return p[k + 1] & 0xf;
	return -1;
}

/*
 * Exit probe for a conditional tail call f->in[k] (jcc to another
 * function): a window of up to 4 straight-line instructions ending with the
 * jcc, whose trampoline runs them, then "j!cc over; exit handler; jmp
 * target; over: jmp back". The handler runs only when the call is taken.
 * No int3 fallback (an int3 would run the handler on both paths): without
 * a window the exit is not probed, and the report closes the function with
 * its callee (same stack pointer: a tail caller).
 */
static int plan_exit_jcc(struct probe_mgr *m, uint32_t module, uint32_t sym, struct plan_fn *f,
			 size_t k)
{
	const struct x86_insn *j = &f->in[k];
	const uint8_t *jb = f->code + (j->addr - f->sym->addr);
	int cc = plan_jcc_cc(jb, j->len);
	struct probe_def *d;

	if (cc < 0 || j->unreloc)
		return -ENOTSUP;
	d = probe_plan_new_def(m, module, sym);
	if (!d)
		return -ENOMEM;
	d->op = PROBE_OP_EXIT;
	d->handler = PROBE_H_FUNC_EXIT;
	for (size_t b = 0; b <= 4 && b <= k && !f->indirect; b++) {
		uint64_t lo = f->in[k - b].addr, hi = j->addr + j->len;
		struct x86_code *c = d->code;
		uint32_t at;
		int ok = 1, rc = 0;
		uint8_t op[2];

		for (size_t i = k - b; i < k; i++)
			if (f->in[i].unreloc ||
			    (f->in[i].flags & (X86_F_CALL | X86_F_RET | X86_F_TRAP | X86_F_BRANCH)))
				ok = 0;
		if (!ok)
			break;
		if (hi - lo < X86_JMP_LEN)
			continue;
		if (hi - lo > PROBE_MAX_PATCH || plan_has_target(f->mod, lo, hi) ||
		    probe_plan_overlaps(m, module, lo, hi))
			break; /* a longer window has the same obstacle */
		c->len = c->nrel = c->nskip = 0;
		for (size_t i = k - b; !rc && i < k; i++)
			rc = x86_code_relocate(c, &f->in[i], f->code + (f->in[i].addr - f->sym->addr));
		/* j!cc rel8 over the handler call and the jump */
		op[0] = (uint8_t)(0x70 | (cc ^ 1));
		op[1] = 0;
		at = c->len + 1;
		if (!rc && c->len + 2 <= X86_CODE_MAX) {
			memcpy(c->buf + c->len, op, 2);
			c->len += 2;
		} else {
			rc = -ENOSPC;
		}
		if (!rc) /* the tail call taken: the frame is gone */
			rc = x86_code_call_handler(c, d->id, d->handler, X86_CALL_NO_REDZONE);
		if (!rc)
			rc = x86_code_jmp(c, j->target);
		if (!rc && c->len - (at + 1) > 127)
			rc = -ENOSPC;
		if (!rc) {
			c->buf[at] = (uint8_t)(c->len - (at + 1));
			rc = x86_code_jmp(c, hi);
		}
		if (rc) {
			c->len = c->nrel = c->nskip = 0;
			break;
		}
		c->nmark = 0; /* its internal jumps cross every point: no rider */
		d->method = PROBE_M_JUMP;
		d->addr = j->addr;
		d->patch_off = lo;
		d->patch_len = (uint32_t)(hi - lo);
		memcpy(d->orig, f->code + (lo - f->sym->addr), hi - lo);
		snprintf(d->insn, sizeof(d->insn), "%s", x86_insn_text(j));
		return 0;
	}
	free(d->code);
	m->ndefs--;
	return -ENOTSUP;
}

/*
 * Exits through the return address (PROBE_M_RETADDR). The entry probe
 * entry_id, which runs at the function's first instruction where the
 * stack pointer is at the return address, becomes PROBE_H_FUNC_ENTRY_RA:
 * after recording the entry it swaps the return address for the agent's
 * return trampoline, which records the exit (one probe def, patching
 * nothing) and returns to the real address. So no ret of the function is
 * patched: its exits cost a few nanoseconds where a ret without a 5-byte
 * window would trap (an int3 costs about 8 us here).
 */
static int plan_retaddr(struct probe_mgr *m, uint32_t module, uint32_t sym, uint32_t entry_id,
			const char *why)
{
	struct probe_def *d, *x = probe_plan_new_def(m, module, sym);
	struct x86_code *c;

	if (!x)
		return -ENOMEM;
	d = &m->defs[entry_id - 1];
	x->op = PROBE_OP_EXIT;
	x->handler = PROBE_H_FUNC_EXIT;
	x->method = PROBE_M_RETADDR;
	x->addr = x->patch_off = d->addr;
	x->patch_len = 0;
	snprintf(x->insn, sizeof(x->insn), "(return address)");
	snprintf(x->why, sizeof(x->why), "%s", why);
	/* The entry's trampoline calls the entry handler through a HANDLER64
	 * relocation (an int3 entry's handler is looked up by the agent). */
	c = d->code;
	for (uint32_t i = 0; i < c->nrel; i++)
		if (c->rel[i].type == PROBE_R_HANDLER64 && c->rel[i].target == PROBE_H_FUNC_ENTRY)
			c->rel[i].target = PROBE_H_FUNC_ENTRY_RA;
	d->handler = PROBE_H_FUNC_ENTRY_RA;
	d->ret_id = x->id;
	return 0;
}

/*
 * Can an exception be thrown that the agent's interposed unwinder calls
 * (agent_probe_ra.c) do not see? Then a swapped frame on its way would end
 * it in std::terminate, and exits are patched instead.
 * - An executable with the C++ runtime linked in (g++ -static-libstdc++,
 *   -static-libgcc: __cxa_throw or _Unwind_RaiseException among its own
 *   symbols) calls its unwinder directly, in both modes.
 * - Attach mode: the agent is dlopen'ed, so no call of the program's
 *   reaches its interposers (unwinder, longjmp, pthread_exit): any C++
 *   runtime mapped (libstdc++, libgcc_s, libunwind) can throw through a
 *   swapped frame. Without one, a longjmp over a swapped frame only leaves
 *   a stale shadow-stack frame, and glibc's forced unwinding (pthread_exit,
 *   cancellation) stops at the trampoline after the C cleanup handlers.
 * A stripped executable's own static runtime is not seen (doc/probe.md).
 */
static int plan_unwinder(struct probe_mgr *m)
{
	if (!m->unwinder) {
		const char *why = NULL;

		for (size_t i = 0; m->attach && i < m->nlibs && !why; i++)
			if (strstr(m->libs[i], "libstdc++") || strstr(m->libs[i], "libgcc_s") ||
			    strstr(m->libs[i], "libunwind"))
				why = m->libs[i];
		for (size_t i = 0; i < m->nmods && !why; i++)
			for (size_t k = 0; m->mods[i].is_main && k < m->mods[i].nsyms && !why; k++)
				if (!strcmp(m->mods[i].syms[k].name, "_Unwind_RaiseException") ||
				    !strcmp(m->mods[i].syms[k].name, "__cxa_throw"))
					why = m->mods[i].syms[k].name;
		m->unwinder = why ? 2 : 1;
		if (why && m->exits != PROBE_EXITS_PATCH)
			log_info("probe: %s can throw C++ exceptions past spool's unwinder hooks "
				 "(%s): exits are patched, none goes through the return address",
				 m->attach ? "the attached process" : m->exe, why);
	}
	return m->unwinder == 2;
}

/* Can the entry entry_id hook the exits (its handler is the plain function
 * entry, placed alone at the first instruction)? */
static int plan_retaddr_ok(struct probe_mgr *m, uint32_t entry_id, size_t exit_k)
{
	const struct probe_def *d = &m->defs[entry_id - 1];
	const struct probe_module *mod = &m->mods[d->module];

	/* The stack pointer must be at a return address there: a real
	 * entry by the unwind tables (CFA = rsp + 8), never a .cold part,
	 * which starts inside its function's frame (swapping "its return
	 * address" would overwrite the function's data). */
	if (strstr(mod->syms[d->sym].name, ".cold") || !probe_dwarf_func_entry(mod, d->addr))
		return 0;

	/* A shared entry/exit trampoline already has its exit. */
	return m->exits != PROBE_EXITS_PATCH && exit_k == (size_t)-1 &&
	       d->handler == PROBE_H_FUNC_ENTRY && !d->shared &&
	       !plan_unwinder(m);
}

static int plan_retaddr_only(struct probe_mgr *m, uint32_t entry_id, size_t exit_k)
{
	return m->exits == PROBE_EXITS_RETADDR && plan_retaddr_ok(m, entry_id, exit_k);
}

/*
 * After the exits [first_exit, ndefs) of a function were planned: when one
 * is an int3 or could not be probed at all, drop them all and hook the
 * exits through the return address instead (one way for the whole
 * function: a ret probed both ways would count twice).
 */
static int plan_retaddr_maybe(struct probe_mgr *m, uint32_t module, uint32_t sym,
			      uint32_t entry_id, size_t exit_k, size_t first_exit, size_t unprobed)
{
	const char *why = NULL;
	char buf[sizeof(((struct probe_def *)0)->why) + 256];

	if (!entry_id || !plan_retaddr_ok(m, entry_id, exit_k))
		return 0;
	for (size_t i = first_exit; i < m->ndefs && !why; i++)
		if (m->defs[i].method == PROBE_M_INT3) {
			snprintf(buf, sizeof(buf), "instead of an int3 at %s: %s", m->defs[i].insn,
				 m->defs[i].why);
			why = buf;
		}
	if (!why && unprobed) {
		snprintf(buf, sizeof(buf), "%zu exits had no window", unprobed);
		why = buf;
	}
	if (!why)
		return 0;
	while (m->ndefs > first_exit) {
		free(m->defs[m->ndefs - 1].code);
		m->ndefs--;
	}
	return plan_retaddr(m, module, sym, entry_id, why);
}

int probe_plan_function(struct probe_mgr *m, uint32_t module, uint32_t sym, int entry, int exits)
{
	struct probe_module *mod = &m->mods[module];
	struct plan_fn f = {.mod = mod, .sym = &mod->syms[sym]};
	size_t avail, exit_k = (size_t)-1; /* a ret probed by the entry's trampoline */
	size_t first_exit, unprobed = 0;
	uint32_t entry_id = 0;
	int rc = 0, nret = 0;

	/* Code the program copies (V8's builtins): nothing is patched there;
	 * no definition, said once (path counts it as refused). */
	if (probe_module_copied(mod, f.sym->addr))
		return 0;
#if defined(__aarch64__)
	/* one word per instruction, one B per probe: src/arch/aarch64/ */
	return a64_plan_function(m, module, sym, entry, exits);
#endif
	f.code = probe_module_code(mod, f.sym->addr, &avail);
	if (!f.code)
		return -ENOEXEC;
	f.avail = avail;
	f.limit = sym + 1 < mod->nsyms ? mod->syms[sym + 1].addr : f.sym->addr + avail;
	if (f.limit > f.sym->addr + avail)
		f.limit = f.sym->addr + avail;
	rc = probe_module_analyse(mod);
	if (rc)
		return rc;
	f.in = calloc(PLAN_MAX_INSNS, sizeof(*f.in));
	if (!f.in)
		return -ENOMEM;
	/* Only bytes known to be instructions: data in the function's range
	 * comes as X86_F_DATA pieces that no window covers (probe_known.c). */
	rc = probe_decode_known(mod, sym, f.code, avail, f.in, PLAN_MAX_INSNS, &f.n, &f.complete);
	if (rc)
		goto out;
	f.indirect = probe_plan_classify(mod, f.sym, f.code, f.in, f.n);
	if (entry) {
		size_t before = m->ndefs;

		rc = plan_entry(m, module, sym, &f, exits, &exit_k);
		if (rc && rc != -ENOTSUP)
			goto out;
		if (!rc && m->ndefs > before && m->defs[before].op == PROBE_OP_ENTRY &&
		    m->defs[before].addr == f.sym->addr)
			entry_id = m->defs[before].id;
		if (rc == -ENOTSUP &&
		    probe_plan_ride(m, module, sym, f.sym->addr, PROBE_H_FUNC_ENTRY, PROBE_OP_ENTRY,
				    0, &rc))
			/* a var:/args: probe there: its trampoline runs the entry
			 * handler too (exits are patched: no return address swap) */
			rc = 0;
		if (rc == -EBUSY)
			rc = -ENOTSUP; /* a placed probe there (attach): said below */
		if (rc && rc != -ENOTSUP)
			goto out;
		if (rc == -ENOTSUP) {
			/* Not silently: the user asked for this function. */
			const char *why = probe_var_conflict(m, module, mod->syms[sym].addr);

			if (why)
				log_warn("probe: '%s': %s is not timed: %s",
					 m->cur_spec ? m->cur_spec : "?", probe_sym_shown(mod, sym),
					 why);
		}
		rc = 0;
	}
	first_exit = m->ndefs;
	if (exits && entry_id && plan_retaddr_only(m, entry_id, exit_k)) {
		rc = plan_retaddr(m, module, sym, entry_id, "every exit (--exits retaddr)");
		goto out;
	}
	if (exits) {
		for (size_t i = 0; i < f.n; i++) {
			/* A tail call ends the activation too: its exit fires
			 * before the jump (the stack pointer is at the return
			 * address, as at a ret). */
			if (!(f.in[i].flags & (X86_F_RET | X86_F_TAIL)) || i == exit_k)
				continue;
			nret++;
			if (f.in[i].flags & X86_F_COND)
				rc = plan_exit_jcc(m, module, sym, &f, i);
			else
				rc = plan_exit(m, module, sym, &f, i);
			if (rc && rc != -ENOTSUP)
				goto out;
			if (rc == -ENOTSUP)
				unprobed++;
			rc = 0;
		}
		rc = plan_retaddr_maybe(m, module, sym, entry_id, exit_k, first_exit, unprobed);
	}
out:
	free(f.in);
	return rc;
}

/* ---- probes at a point of a function (variable, assertion, time probes) ---- */

static int plan_decode(struct probe_mgr *m, uint32_t module, uint32_t sym, struct plan_fn *f)
{
	struct probe_module *mod = &m->mods[module];
	size_t avail;
	int rc;

	memset(f, 0, sizeof(*f));
	f->mod = mod;
	f->sym = &mod->syms[sym];
	if (probe_module_copied(mod, f->sym->addr))
		return -EPERM; /* said once; see probe_plan_function */
	f->code = probe_module_code(mod, f->sym->addr, &avail);
	if (!f->code)
		return -ENOEXEC;
	f->avail = avail;
	f->limit = sym + 1 < mod->nsyms ? mod->syms[sym + 1].addr : f->sym->addr + avail;
	if (f->limit > f->sym->addr + avail)
		f->limit = f->sym->addr + avail;
	rc = probe_module_analyse(mod);
	if (rc)
		return rc;
	f->in = calloc(PLAN_MAX_INSNS, sizeof(*f->in));
	if (!f->in)
		return -ENOMEM;
	rc = probe_decode_known(mod, sym, f->code, avail, f->in, PLAN_MAX_INSNS, &f->n,
				&f->complete);
	if (rc) {
		free(f->in);
		f->in = NULL;
		return rc;
	}
	f->indirect = probe_plan_classify(mod, f->sym, f->code, f->in, f->n);
	return 0;
}

int probe_plan_rets(struct probe_mgr *m, uint32_t module, uint32_t sym, uint64_t **rets,
		    size_t *n)
{
	struct plan_fn f;
	int rc;

#if defined(__aarch64__)
	return a64_plan_rets(m, module, sym, rets, n);
#endif
	rc = plan_decode(m, module, sym, &f);

	*rets = NULL;
	*n = 0;
	if (rc)
		return rc;
	*rets = calloc(f.n + 1, sizeof(**rets));
	if (!*rets) {
		free(f.in);
		return -ENOMEM;
	}
	for (size_t i = 0; i < f.n; i++)
		if (f.in[i].flags & X86_F_RET)
			(*rets)[(*n)++] = f.in[i].addr;
	free(f.in);
	return 0;
}

static int plan_point_call(struct probe_def *d, int full)
{
	return full ? x86_code_call_handler_full(d->code, d->id, d->handler)
		    : x86_code_call_handler(d->code, d->id, d->handler, 1);
}

/* A jump window before instruction k: [a, b) with the handler first. */
static int plan_point_jump(struct probe_mgr *m, uint32_t module, struct probe_def *d,
			   const struct plan_fn *f, size_t a, size_t b, uint64_t hi_patch, int full)
{
	uint64_t lo = f->in[a].addr, hi = f->in[b - 1].addr + f->in[b - 1].len;
	const struct x86_insn *last = &f->in[b - 1];
	size_t avail;
	const uint8_t *p = probe_module_code(f->mod, lo, &avail);
	int rc;

	if (hi_patch > hi)
		hi = hi_patch; /* dead padding after a ret: patched, never run */
	if (!p || avail < hi - lo || hi - lo > PROBE_MAX_PATCH || hi - lo < X86_JMP_LEN)
		return -ENOTSUP;
	d->method = PROBE_M_JUMP;
	d->patch_off = lo;
	d->patch_len = (uint32_t)(hi - lo);
	memcpy(d->orig, p, hi - lo);
	d->code->len = d->code->nrel = d->code->nskip = 0;
	rc = plan_point_call(d, full);
	for (size_t i = a; !rc && i < b; i++)
		rc = x86_code_relocate(d->code, &f->in[i], f->code + (f->in[i].addr - f->sym->addr));
	hi = f->in[b - 1].addr + f->in[b - 1].len;
	/* Padding after a ret is not displaced code: nothing to run. */
	if (!rc && !(last->flags & X86_F_RET) &&
	    !((last->flags & X86_F_BRANCH) && !(last->flags & X86_F_COND)))
		rc = x86_code_jmp(d->code, hi);
	if (rc)
		d->code->len = d->code->nrel = d->code->nskip = 0;
	d->eval_pc = lo;
	return rc;
}

/* May an instruction of an epilogue run after a handler that reads the
 * return value (rax, xmm0, x87 st0)? Only those known to leave them alone. */
static int plan_keeps_retval(const struct x86_insn *in)
{
	const char *t = x86_insn_text(in);

	return !strcmp(t, "leave") || !strncmp(t, "add rsp,", 8) || !strncmp(t, "lea rsp,", 8) ||
	       (!strncmp(t, "pop ", 4) && strcmp(t + 4, "rax"));
}

struct probe_def *probe_plan_point(struct probe_mgr *m, uint32_t module, uint32_t sym,
				   uint64_t addr, uint32_t handler, uint32_t op, int full, int *err)
{
	return probe_plan_point_flags(m, module, sym, addr, handler, op, full, 0, err);
}

struct probe_def *probe_plan_point_flags(struct probe_mgr *m, uint32_t module, uint32_t sym,
					 uint64_t addr, uint32_t handler, uint32_t op, int full,
					 unsigned flags, int *err)
{
	struct plan_fn f;
	struct probe_def *d;
	size_t k;
	int rc, placed = 0;

#if defined(__aarch64__)
	/* one B on one word: the handler sees every register (a64_plan.c) */
	return a64_plan_point(m, module, sym, addr, handler, op, err);
#endif
	rc = plan_decode(m, module, sym, &f);
	*err = rc;
	if (rc)
		return NULL;
	for (k = 0; k < f.n && f.in[k].addr != addr; k++)
		;
	if (k == f.n) {
		free(f.in);
		*err = -EINVAL; /* not an instruction boundary */
		return NULL;
	}
	d = probe_plan_new_def(m, module, sym);
	if (!d) {
		free(f.in);
		*err = -ENOMEM;
		return NULL;
	}
	d->op = op;
	d->handler = handler;
	d->addr = addr;
	snprintf(d->insn, sizeof(d->insn), "%s", x86_insn_text(&f.in[k]));
	if (f.indirect) {
		snprintf(d->why, sizeof(d->why),
			 "the function has indirect jumps (a jump table could target the window)");
	} else if (f.in[k].flags & X86_F_RET) {
		/* Up to 4 epilogue instructions before the ret, then the ret,
		 * then dead padding, as exit probes do; the handler runs first. */
		for (size_t b = 0; !placed && b <= 4 && b <= k; b++) {
			uint64_t lo = f.in[k - b].addr, hi = f.in[k].addr + f.in[k].len;
			int ok = 1;

			for (size_t i = k - b; i < k; i++)
				if (f.in[i].unreloc ||
				    (f.in[i].flags &
				     (X86_F_BRANCH | X86_F_CALL | X86_F_RET | X86_F_TRAP)) ||
				    ((flags & PROBE_PLAN_RETVAL) && !plan_keeps_retval(&f.in[i])))
					ok = 0;
			if (!ok)
				break;
			while (hi - lo < X86_JMP_LEN && hi < f.limit) {
				struct x86_insn pad;
				size_t avail;
				const uint8_t *p = probe_module_code(f.mod, hi, &avail);

				if (!p || x86_decode(p, avail, hi, &pad) < 0)
					break;
				if (hi < f.sym->addr + f.sym->size && !plan_known_at(&f, hi))
					break; /* maybe a table: never patched */
				if (hi >= f.sym->addr + f.sym->size && !(pad.flags & X86_F_NOP))
					break;
				if (hi + pad.len > f.limit)
					break;
				hi += pad.len;
			}
			if (hi - lo < X86_JMP_LEN || hi - lo > PROBE_MAX_PATCH ||
			    plan_has_target(f.mod, lo, hi) || probe_plan_overlaps(m, module, lo, hi))
				continue;
			if (!plan_point_jump(m, module, d, &f, k - b, k + 1, hi, full))
				placed = 1;
		}
		if (!placed)
			snprintf(d->why, sizeof(d->why), "%s",
				 (flags & PROBE_PLAN_RETVAL)
					 ? "the return value is read at the ret itself"
					 : "no 5-byte straight-line window around the ret without a "
					   "branch target");
	} else {
		uint64_t len = 0;
		size_t e = k;
		const char *why = NULL;

		while (e < f.n && len < X86_JMP_LEN) {
			const struct x86_insn *in = &f.in[e];

			if (in->unreloc || (in->flags & (X86_F_CALL | X86_F_TRAP)))
				why = "a call or an instruction that cannot be relocated is too close";
			else if (e > k && probe_module_is_target(f.mod, in->addr))
				why = "a branch targets an instruction the jump would replace";
			else if ((in->flags & (X86_F_BRANCH | X86_F_RET)) &&
				 len + in->len < X86_JMP_LEN)
				why = "a jump or ret is too close";
			if (why)
				break;
			len += in->len;
			e++;
		}
		if (!why && len < X86_JMP_LEN)
			why = "the function ends too close";
		if (!why && probe_plan_overlaps(m, module, addr, addr + len))
			why = "another probe covers these bytes";
		if (!why && !plan_point_jump(m, module, d, &f, k, e, 0, full))
			placed = 1;
		else if (!why)
			why = "relocation failed";
		if (why)
			snprintf(d->why, sizeof(d->why), "%s", why);
	}
	if (!placed) {
		d->code->len = d->code->nrel = d->code->nskip = 0;
		if (probe_plan_overlaps(m, module, addr, addr + 1) || plan_int3(d, &f, &f.in[k])) {
			free(d->code);
			m->ndefs--;
			free(f.in);
			*err = -ENOTSUP;
			return NULL;
		}
		if (full) {
			/* plan_int3 relocated the instruction: nothing else to do,
			 * the SIGTRAP handler saves every register itself. */
		}
		d->eval_pc = addr;
	}
	free(f.in);
	*err = 0;
	return d;
}

/*
 * A probe that runs `handler` before the instruction at addr inside the
 * trampoline of the jump probe that already covers addr (func: and args:
 * of one entry, an exit and a return value, a block at a function's first
 * instruction): its handler call is inserted at the point of the
 * trampoline where the displaced instruction at addr starts, so it sees
 * the thread's state at addr, as a probe of its own would. The new probe
 * patches nothing (method PROBE_M_RIDE, shared = the owner's id: --list
 * says where it runs). An int3 owner takes it in its out-of-line slot,
 * where the SIGTRAP handler resumes the thread after the owner's handler
 * with the registers of addr: the rider's call goes before the displaced
 * instruction there. In attach mode the owner must be one of the probes
 * not placed yet (the batch being planned): the trampoline of one already
 * in the program may be running, and is never rewritten (*err -EBUSY).
 * Returns the probe or NULL, *err -ENOTSUP when no probe can take it (none
 * covers addr, a trampoline without that point).
 */
struct probe_def *probe_plan_ride(struct probe_mgr *m, uint32_t module, uint32_t sym,
				  uint64_t addr, uint32_t handler, uint32_t op, int full, int *err)
{
	uint32_t oid = probe_plan_covering(m, module, addr, addr + 1);
	struct probe_def *o = oid && oid <= m->ndefs ? &m->defs[oid - 1] : NULL, *d;
	struct plan_fn f;
	int found = 0, rc;

#if defined(__aarch64__)
	return a64_plan_ride(m, module, sym, addr, handler, op, err);
#endif
	*err = -ENOTSUP;
	if (!o || o->id != oid || (o->method != PROBE_M_JUMP && o->method != PROBE_M_INT3) ||
	    o->shared)
		return NULL;
	/* (before the code: a probe placed by an earlier add keeps none) */
	if (m->attach && o->status != PROBE_S_PENDING) {
		uint32_t k = 0;

		m->nbusy++;
		m->busy_owner = oid;
		m->busy_addr = addr;
		while (k < m->nbusy_ids && m->busy_ids[k] != oid)
			k++;
		if (k == m->nbusy_ids && k < PROBE_BUSY_IDS)
			m->busy_ids[m->nbusy_ids++] = oid;
		*err = -EBUSY;
		return NULL;
	}
	if (!o->code)
		return NULL;
	for (uint32_t k = 0; k < o->code->nmark; k++)
		found |= o->code->mark[k].addr == addr;
	if (!found)
		return NULL;
	rc = plan_decode(m, module, sym, &f);
	if (rc) {
		*err = rc;
		return NULL;
	}
	d = probe_plan_new_def(m, module, sym);
	if (!d) {
		free(f.in);
		*err = -ENOMEM;
		return NULL;
	}
	o = &m->defs[oid - 1]; /* defs may have moved */
	d->op = op;
	d->handler = handler;
	d->method = PROBE_M_RIDE;
	d->addr = d->eval_pc = addr;
	d->patch_off = o->patch_off;
	d->patch_len = 0;
	d->shared = oid;
	for (size_t k = 0; k < f.n; k++)
		if (f.in[k].addr == addr)
			snprintf(d->insn, sizeof(d->insn), "%s", x86_insn_text(&f.in[k]));
	free(f.in);
	rc = x86_code_insert(o->code, addr, d->id, handler, full);
	if (rc) {
		free(d->code);
		m->ndefs--;
		*err = rc == -ENOENT ? -ENOTSUP : rc;
		return NULL;
	}
	*err = 0;
	return d;
}
