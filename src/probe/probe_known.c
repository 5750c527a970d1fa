// SPDX-License-Identifier: MIT
/*
 * probe_known.c - which bytes of a function are instructions.
 *
 * A symbol's range is not all code: hand-written assembly keeps tables
 * there, some compilers put jump tables between a function's blocks, and
 * alignment padding sits between blocks. Decoding the range from its start
 * to its end treats such bytes as instructions, and a probe patched over a
 * table changes what the program computes. So only bytes known to be
 * instructions are offered to the planners (probe_plan.c, probe_cfg.c):
 * those reached by following the control flow (fall-through, direct
 * branches inside the function) from a seed: the function's entry, a
 * direct branch or call target anywhere in the module, an entry of a jump
 * table spool read (probe_module_analyse), or a line-table row of its
 * DWARF (code the flow does not reach by itself: computed-goto labels,
 * landing pads). The targets of indirect jumps spool could not read are
 * not followed. A path stops at bytes that do not decode and at an
 * instruction that would overlap one already known (two decodings of the
 * same bytes: neither is trusted further). RIP-relative operands are not
 * seeds: they point at data as often as at code.
 *
 * Every other byte becomes a pseudo-instruction flagged X86_F_DATA (runs
 * of at most 255 bytes), with unreloc set, so that no jump window covers
 * it and no int3 is put on it, and the decoded array stays contiguous for
 * the planners' windows. Runs that decode as nop or int3 are taken for
 * padding and not reported; others are said once per function.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../util/log.h"
#include "probe.h"

#define KNOWN_SAY_MAX 8 /* functions reported per module without -v */
#define KNOWN_DATA_WHY "not known to be an instruction (data in the function?)"

struct known_walk {
	const uint8_t *code;
	uint64_t start, size;
	uint8_t *start_at; /* an instruction starts here */
	uint8_t *covered;  /* byte of a known instruction */
	uint64_t *stack;
	size_t nstack, cap;
	/* The instructions the walk decoded, kept for the array it returns
	 * (decoding is most of planning's time: once per instruction).
	 * dec_at[off]: index + 1 into dec of the one starting there. */
	struct x86_insn *dec;
	uint32_t *dec_at;
	size_t ndec, capdec;
};

static int known_keep(struct known_walk *w, uint64_t off, const struct x86_insn *in)
{
	if (w->ndec == w->capdec) {
		size_t cap = w->capdec ? 2 * w->capdec : 256;
		struct x86_insn *nd = realloc(w->dec, cap * sizeof(*nd));

		if (!nd)
			return -ENOMEM;
		w->dec = nd;
		w->capdec = cap;
	}
	w->dec[w->ndec++] = *in;
	w->dec_at[off] = (uint32_t)w->ndec;
	return 0;
}

static int known_push(struct known_walk *w, uint64_t addr)
{
	if (addr < w->start || addr >= w->start + w->size)
		return 0;
	if (w->nstack == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 256;
		uint64_t *ns = realloc(w->stack, cap * sizeof(*ns));

		if (!ns)
			return -ENOMEM;
		w->stack = ns;
		w->cap = cap;
	}
	w->stack[w->nstack++] = addr;
	return 0;
}

/* Does the instruction end the straight line (nothing falls through)? */
static int known_stops(const struct x86_insn *in)
{
	if (in->flags & X86_F_RET)
		return 1;
	if ((in->flags & X86_F_BRANCH) && !(in->flags & X86_F_COND))
		return 1;
	/* int3, ud2, hlt, int, iret, sysret: a trap, not a fall-through
	 * (int3 padding included). */
	return (in->flags & X86_F_TRAP) != 0;
}

/* Follow the flow from every seed, marking instruction starts. */
static int known_walk_all(struct known_walk *w)
{
	int rc = 0;

	while (!rc && w->nstack) {
		uint64_t a = w->stack[--w->nstack];

		for (;;) {
			uint64_t off = a - w->start;
			struct x86_insn in;
			int clash = 0;

			if (a >= w->start + w->size || w->start_at[off] || w->covered[off])
				break;
			if (x86_decode(w->code + off, w->size - off, a, &in) < 0)
				break;
			for (unsigned k = 0; k < in.len; k++)
				if (w->covered[off + k])
					clash = 1;
			if (clash)
				break;
			rc = known_keep(w, off, &in);
			if (rc)
				break;
			w->start_at[off] = 1;
			memset(w->covered + off, 1, in.len);
			if ((in.flags & X86_F_RELATIVE) && (in.flags & (X86_F_BRANCH | X86_F_CALL))) {
				rc = known_push(w, in.target);
				if (rc)
					break;
			}
			if (known_stops(&in))
				break;
			a += in.len;
		}
	}
	return rc;
}

/* Seeds of the module (sorted) inside the function. */
static int known_seed_module(struct known_walk *w, const struct probe_module *mod)
{
	size_t lo = 0, hi = mod->nseeds;
	int rc = 0;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (mod->seeds[mid] < w->start)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; !rc && lo < mod->nseeds && mod->seeds[lo] < w->start + w->size; lo++)
		rc = known_push(w, mod->seeds[lo]);
	return rc;
}

static void known_say(struct probe_module *mod, uint32_t sym, uint64_t first, uint64_t bytes)
{
	const struct probe_sym *s = &mod->syms[sym];

	if (!mod->data_said || mod->data_said[sym])
		return;
	mod->data_said[sym] = 1;
	if (++mod->ndata_said > KNOWN_SAY_MAX && !log_verbose)
		return;
	log_warn("probe: %s%s%s: %llu bytes from %s+0x%llx are not reached from its code "
		 "(data in the function?): not probed",
		 mod->is_main ? "" : mod->name, mod->is_main ? "" : ":", s->name,
		 (unsigned long long)bytes, s->name, (unsigned long long)(first - s->addr));
	if (mod->ndata_said == KNOWN_SAY_MAX && !log_verbose)
		log_warn("probe: %s: further functions with such bytes are not listed "
			 "(SPOOL_DEBUG=1 lists them)",
			 mod->is_main ? "the executable" : mod->name);
}

int probe_decode_known(struct probe_module *mod, uint32_t sym, const uint8_t *code, size_t avail,
		       struct x86_insn *in, size_t cap, size_t *n, int *complete)
{
	const struct probe_sym *s = &mod->syms[sym];
	struct known_walk w = {.code = code, .start = s->addr};
	uint64_t *lines = NULL, off = 0, data_first = 0, data_bytes = 0;
	size_t nlines = 0;
	int rc;

	*n = 0;
	*complete = 1;
	w.size = s->size < avail ? s->size : avail;
	if (!w.size)
		return 0;
	w.start_at = calloc(w.size, 1);
	w.covered = calloc(w.size, 1);
	w.dec_at = w.size < UINT32_MAX ? calloc(w.size, sizeof(*w.dec_at)) : NULL;
	if (!w.start_at || !w.covered || !w.dec_at) {
		rc = -ENOMEM;
		goto out;
	}
	/* The entry's flow first, then the other seeds, the lines last: a
	 * seed inside an instruction already known is dropped (a target that
	 * decoding garbage elsewhere produced must not cut the real code). */
	rc = known_push(&w, s->addr);
	if (!rc)
		rc = known_walk_all(&w);
	if (!rc)
		rc = known_seed_module(&w, mod);
	if (!rc)
		rc = known_walk_all(&w);
	if (!rc)
		rc = probe_dwarf_line_addrs(mod, s->addr, s->addr + w.size, &lines, &nlines);
	for (size_t i = 0; !rc && i < nlines; i++)
		rc = known_push(&w, lines[i]);
	if (!rc)
		rc = known_walk_all(&w);
	if (rc)
		goto out;
	while (off < w.size) {
		struct x86_insn *x;

		if (*n == cap) {
			*complete = 0;
			break;
		}
		x = &in[*n];
		if (w.start_at[off] && w.dec_at[off]) {
			*x = w.dec[w.dec_at[off] - 1];
			off += x->len;
			(*n)++;
			continue;
		}
		if (w.start_at[off] && x86_decode(code + off, w.size - off, s->addr + off, x) == 0) {
			off += x->len;
			(*n)++;
			continue;
		}
		/* A run of unknown bytes, up to the next known instruction. */
		memset(x, 0, sizeof(*x));
		x->addr = s->addr + off;
		x->flags = X86_F_DATA;
		x->unreloc = KNOWN_DATA_WHY;
		{
			uint64_t end = off + 1, pad_end = off;

			while (end < w.size && !w.start_at[end] && end - off < 255)
				end++;
			x->len = (uint8_t)(end - off);
			/* nop and int3 padding is not worth a word */
			while (pad_end < end) {
				struct x86_insn p;

				if (x86_decode(code + pad_end, end - pad_end, s->addr + pad_end,
					       &p) < 0 ||
				    !(p.flags & X86_F_NOP))
					break;
				pad_end += p.len;
			}
			if (pad_end != end) {
				if (!data_bytes)
					data_first = s->addr + off;
				data_bytes += end - off;
			}
			off = end;
		}
		(*n)++;
	}
	if (data_bytes)
		known_say(mod, sym, data_first, data_bytes);
out:
	free(lines);
	free(w.stack);
	free(w.start_at);
	free(w.covered);
	free(w.dec);
	free(w.dec_at);
	return rc;
}
