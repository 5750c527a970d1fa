// SPDX-License-Identifier: MIT
/*
 * x86_jtab.c - recognizing the jump tables of switch statements from the
 * instructions before an indirect jmp (see x86_jump_table in x86_insn.h).
 *
 * The shapes GCC and clang emit on x86-64:
 *
 *   PIC (PIE, shared objects): entries are 32-bit offsets from the table
 *	lea    B, [rip + TABLE]
 *	movsxd R, dword [B + I*4]
 *	add    R, B                         (or lea R, [B + R])
 *	jmp    R
 *   non-PIC (-no-pie): entries are absolute 64-bit addresses
 *	jmp    qword [I*8 + TABLE]          or  mov R, qword [I*8 + TABLE]; jmp R
 *
   GCC -O0, PIC: the offset is loaded through a second copy of the table's
 *   address, then added to a third
 *	lea    O, [I*4]
 *	lea    A, [rip + TABLE]
 *	mov    R32, dword [O + A]          (either order of O and A)
 *	cdqe / movsxd R, R32
 *	lea    B, [rip + TABLE]
 *	add    R, B
 *	jmp    R
 *
 * and, before either, the bound of the index:
 *	cmp    I, N ; ja default           (N + 1 entries; jae: N entries)
 *	cmp    X, N ; ja default, with I a copy of X (mov I, X) made before or after
 *	cmp    M, N ; ja default; mov I, M  (GCC -O0: the variable's stack slot M,
 *					     no store to memory in between)
 *	mov M, X; sub X, N ; ja default; mov I, M  (clang -O0: X's copy in M)
 *	movzx  I, byte                     (256 entries at most)
 *
 * Each step walks backwards from the instruction that uses a register to
 * the nearest one that writes it, inside the straight line of code the
 * caller gives (the jmp's block, as far back as the caller decoded). Any
 * other writer of the register in between, a missing bound check, or an
 * unknown shape means "not a jump table we know": the caller then keeps
 * treating the jmp's targets as unknown. The caller validates the
 * entries themselves (each must land in code).
 */
#include <errno.h>
#include <string.h>

#include <Zydis/Zydis.h>

#include "x86_insn.h"

/* 32: zstd's BIT_initDStream has its bound check 24 instructions before
 * the jmp, the other way's code and a ret in between (jt_jump_bound) */
#define JT_MAX_INSNS 32
#define JT_MAX_ENTRIES 4096
/* How far back (instructions) the PIC shape's table base is looked for
 * when it is not in the last JT_MAX_INSNS: GCC -O2 hoists the lea of a
 * table read in a loop (sqlite3_str_vappendf: lea r15, [rip+T] 37
 * instructions before the jmp, over two calls). */
#define JT_FAR_INSNS 128

struct jt_insn {
	ZydisDecodedInstruction in;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	uint64_t addr;
};

static ZydisRegister jt_family(ZydisRegister r)
{
	return r == ZYDIS_REGISTER_NONE
		   ? r
		   : ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, r);
}

/* Does instruction k write (any part of) register family f? */
static int jt_writes(const struct jt_insn *k, ZydisRegister f)
{
	for (unsigned i = 0; i < k->in.operand_count; i++) {
		const ZydisDecodedOperand *o = &k->ops[i];

		if (o->type == ZYDIS_OPERAND_TYPE_REGISTER &&
		    (o->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE) && jt_family(o->reg.value) == f)
			return 1;
	}
	return 0;
}

/* The nearest instruction before `from` that writes family f, or -1. */
static int jt_def(const struct jt_insn *v, int from, ZydisRegister f)
{
	for (int k = from - 1; k >= 0; k--)
		if (jt_writes(&v[k], f))
			return k;
	return -1;
}

/* Explicit operand i, or NULL. */
static const ZydisDecodedOperand *jt_op(const struct jt_insn *k, unsigned i)
{
	return i < k->in.operand_count_visible ? &k->ops[i] : NULL;
}

static int jt_is_reg(const ZydisDecodedOperand *o)
{
	return o && o->type == ZYDIS_OPERAND_TYPE_REGISTER;
}

/* A memory operand [I*8 + disp] with no base: an absolute table. */
static int jt_abs8(const ZydisDecodedOperand *o, ZydisRegister *index, uint64_t *table)
{
	if (!o || o->type != ZYDIS_OPERAND_TYPE_MEMORY || o->mem.base != ZYDIS_REGISTER_NONE ||
	    o->mem.index == ZYDIS_REGISTER_NONE || o->mem.scale != 8 ||
	    !o->mem.disp.has_displacement || o->mem.disp.value <= 0 || o->size != 64 ||
	    o->mem.segment != ZYDIS_REGISTER_DS)
		return 0;
	*index = jt_family(o->mem.index);
	*table = (uint64_t)o->mem.disp.value;
	return 1;
}

/* An immediate compared with an operand of `bits` bits, as ja and jae see
 * it: unsigned at that width (the decoder sign-extends an imm8, so
 * cmp r15b, 0xb5 holds -75). */
static uint64_t jt_imm_unsigned(const ZydisDecodedOperand *imm, unsigned bits)
{
	uint64_t v = imm->imm.value.u;

	if (bits && bits < 64)
		v &= (1ull << bits) - 1;
	return v;
}

/* cmp X, imm at c directly followed by the ja/jae j: the entries it
 * allows (1 or more), 0 when it is not such a pair, -ERANGE too many. */
static int jt_cmp_bound(const struct jt_insn *c, const struct jt_insn *j, ZydisRegister *x,
			uint32_t *entries)
{
	const ZydisDecodedOperand *a = jt_op(c, 0), *b = jt_op(c, 1);
	uint64_t imm;

	if (j->in.meta.category != ZYDIS_CATEGORY_COND_BR || c->in.mnemonic != ZYDIS_MNEMONIC_CMP ||
	    !jt_is_reg(a) || !b || b->type != ZYDIS_OPERAND_TYPE_IMMEDIATE)
		return 0;
	if (j->in.mnemonic != ZYDIS_MNEMONIC_JNBE && j->in.mnemonic != ZYDIS_MNEMONIC_JNB)
		return 0;
	imm = jt_imm_unsigned(b, a->size);
	if (imm >= JT_MAX_ENTRIES)
		return -ERANGE;
	/* ja: unsigned index <= imm; jae: < imm */
	*entries = (uint32_t)imm + (j->in.mnemonic == ZYDIS_MNEMONIC_JNBE);
	*x = jt_family(a->reg.value);
	return *entries ? 1 : 0;
}

/* Two memory operands naming the same bytes by the same expression. */
static int jt_same_mem(const ZydisDecodedOperand *a, const ZydisDecodedOperand *b)
{
	return a && b && a->type == ZYDIS_OPERAND_TYPE_MEMORY &&
	       b->type == ZYDIS_OPERAND_TYPE_MEMORY && a->size == b->size &&
	       a->mem.base == b->mem.base && a->mem.index == b->mem.index &&
	       a->mem.scale == b->mem.scale && a->mem.segment == b->mem.segment &&
	       a->mem.disp.value == b->mem.disp.value && a->mem.base != ZYDIS_REGISTER_RIP;
}

/* Does instruction k write memory (or may it, a call)? */
static int jt_writes_mem(const struct jt_insn *k)
{
	if (k->in.meta.category == ZYDIS_CATEGORY_CALL)
		return 1;
	for (unsigned i = 0; i < k->in.operand_count; i++)
		if (k->ops[i].type == ZYDIS_OPERAND_TYPE_MEMORY &&
		    (k->ops[i].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE))
			return 1;
	return 0;
}

/* Is the instruction before `at` (back to the nearest store) mov M, X:
 * memory m was given register family x's value, x not written and no
 * other store in between, and did the check (of csize bits of x) see
 * every bit stored? */
static int jt_stored_before(const struct jt_insn *v, int at, ZydisRegister x, unsigned csize,
			    const ZydisDecodedOperand *m)
{
	for (int k = at - 1; k >= 0; k--) {
		const struct jt_insn *j = &v[k];
		const ZydisDecodedOperand *d = jt_op(j, 0), *s = jt_op(j, 1);

		if (j->in.mnemonic == ZYDIS_MNEMONIC_MOV && jt_same_mem(d, m) && jt_is_reg(s)) {
			ZydisRegister y = jt_family(s->reg.value);

			if (s->size != d->size)
				return 0;
			if (y == x) /* the check saw every bit stored */
				return csize >= s->size;
			/* mov Y32, X32 before (clang: mov ecx,eax; mov [M],rcx;
			 * sub eax,N): M holds X's zero-extended value too */
			for (int i = k - 1; i >= 0; i--) {
				const ZydisDecodedOperand *cd = jt_op(&v[i], 0), *cs = jt_op(&v[i], 1);

				if (v[i].in.mnemonic == ZYDIS_MNEMONIC_MOV && jt_is_reg(cd) &&
				    jt_is_reg(cs) && jt_family(cd->reg.value) == y &&
				    jt_family(cs->reg.value) == x && cd->size >= 32)
					/* a 32-bit copy zero-extends: a 32-bit check
					 * bounds all 64 bits stored */
					return csize >= (cd->size == 32 ? 32u : s->size);
				if (jt_writes(&v[i], x) || jt_writes(&v[i], y))
					return 0;
			}
			return 0;
		}
		if (jt_writes_mem(j) || jt_writes(j, x))
			return 0;
	}
	return 0;
}

/* The bound of an index loaded from memory m by instruction `load`: a
 * cmp m, imm directly followed by ja/jae before it, with nothing storing
 * to memory or writing m's registers in between. Entries or 0. */
static uint32_t jt_mem_bound(const struct jt_insn *v, int load, const ZydisDecodedOperand *m)
{
	ZydisRegister base = jt_family(m->mem.base), index = jt_family(m->mem.index);

	for (int k = load - 1; k >= 1; k--) {
		const struct jt_insn *j = &v[k], *c = &v[k - 1];
		const ZydisDecodedOperand *a = jt_op(c, 0), *b = jt_op(c, 1);

		if (jt_writes_mem(j) || (base != ZYDIS_REGISTER_NONE && jt_writes(j, base)) ||
		    (index != ZYDIS_REGISTER_NONE && jt_writes(j, index)))
			return 0;
		if (j->in.meta.category != ZYDIS_CATEGORY_COND_BR)
			continue;
		if ((c->in.mnemonic != ZYDIS_MNEMONIC_CMP && c->in.mnemonic != ZYDIS_MNEMONIC_SUB) ||
		    !a || !b || b->type != ZYDIS_OPERAND_TYPE_IMMEDIATE ||
		    jt_imm_unsigned(b, a->size) >= JT_MAX_ENTRIES ||
		    (j->in.mnemonic != ZYDIS_MNEMONIC_JNBE && j->in.mnemonic != ZYDIS_MNEMONIC_JNB))
			continue;
		if (jt_same_mem(a, m) && c->in.mnemonic == ZYDIS_MNEMONIC_CMP) {
			/* cmp [M], imm (GCC) */
		} else if (jt_is_reg(a) &&
			   jt_stored_before(v, k - 1, jt_family(a->reg.value), a->size, m)) {
			/* mov [M], X; sub (or cmp) X, imm (clang): M holds X's value
			 * before the check */
		} else {
			continue;
		}
		return (uint32_t)jt_imm_unsigned(b, a->size) +
		       (j->in.mnemonic == ZYDIS_MNEMONIC_JNBE);
	}
	return 0;
}

/* The block of the table's jmp starts at v[at] right after a ret or jmp
 * (GCC -O2 puts the bound check's other way first: cmp rax, 7; jbe L; ...
 * ret; L: lea r9, [rip+T]; ...; jmp r8, zstd's BIT_initDStream): no
 * fall-through reaches it, so the bound is a cmp f, imm directly followed
 * by jbe L (imm + 1 entries) or jb L (imm) earlier on the line, or such a
 * cmp of X when f was copied from X before it (zstd's ZSTD_initDStream
 * form). 0 when there is none. */
static uint32_t jt_jump_bound(const struct jt_insn *v, int at, int use, ZydisRegister f)
{
	/* alignment padding between the ret and the block */
	while (at < use && v[at].in.mnemonic == ZYDIS_MNEMONIC_NOP)
		at++;
	for (int c = at - 1; c >= 1; c--) {
		const struct jt_insn *j = &v[c], *cmp = &v[c - 1];
		const ZydisDecodedOperand *a = jt_op(cmp, 0), *b = jt_op(cmp, 1), *t = jt_op(j, 0);
		ZyanU64 dest;
		uint64_t imm;

		if ((j->in.mnemonic != ZYDIS_MNEMONIC_JBE && j->in.mnemonic != ZYDIS_MNEMONIC_JB) ||
		    !t || t->type != ZYDIS_OPERAND_TYPE_IMMEDIATE ||
		    !ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(&j->in, t, j->addr, &dest)) ||
		    dest != v[at].addr)
			continue;
		if (cmp->in.mnemonic != ZYDIS_MNEMONIC_CMP || !jt_is_reg(a) || !b ||
		    b->type != ZYDIS_OPERAND_TYPE_IMMEDIATE)
			return 0;
		if (jt_family(a->reg.value) != f) {
			/* cmp X, imm with f a copy of X made before it (mov f, X;
			 * ... cmp X, imm; jbe L), neither written in between */
			ZydisRegister x = jt_family(a->reg.value);
			int m = jt_def(v, c - 1, f);
			const ZydisDecodedOperand *d, *src;

			if (m < 0 || v[m].in.mnemonic != ZYDIS_MNEMONIC_MOV)
				return 0;
			d = jt_op(&v[m], 0);
			src = jt_op(&v[m], 1);
			if (!jt_is_reg(d) || d->size < 32 || !jt_is_reg(src) ||
			    jt_family(src->reg.value) != x)
				return 0;
			for (int i = m + 1; i < c - 1; i++)
				if (jt_writes(&v[i], x))
					return 0;
		}
		imm = jt_imm_unsigned(b, a->size);
		if (imm >= JT_MAX_ENTRIES)
			return 0;
		return (uint32_t)imm + (j->in.mnemonic == ZYDIS_MNEMONIC_JBE);
	}
	return 0;
}

/* The bound of index family f before instruction `use`, walking back:
 *  - cmp f, imm directly followed by ja (imm + 1 entries) or jae (imm);
 *  - such a cmp of another register X when f was copied from X before it
 *    (mov f, X; ... cmp X, imm; ja), neither written in between, or after
 *    it (cmp X, imm; ja; ... mov f, X: X's bound is f's);
 *  - a cmp of a copy X of f (mov X, f; ... cmp X, imm; ja);
 *  - movzx f, r8: at most 256 (a cmp before it, of f or of the byte's
 *    register, may say fewer); movzx f, byte [M]: a cmp [M], imm; ja
 *    before it, or 256;
 *  - at the start of a block only jumps reach (a ret or jmp before it), a
 *    cmp f, imm; jbe (or jb) to that start earlier on the line
 *    (jt_jump_bound).
 * Between the bound and `use`, f may only be extended into itself
 * (mov eax, eax; movsxd rax, eax; movzx eax, al). */
static int jt_bound(const struct jt_insn *v, int use, ZydisRegister f, uint32_t *entries)
{
	ZydisRegister px = ZYDIS_REGISTER_NONE; /* a cmp of another register, pending */
	uint32_t pending = 0, cap = 0, n;

	for (int k = use - 1; k >= 0; k--) {
		const struct jt_insn *j = &v[k];
		ZydisRegister x;
		int rc;

		if (!pending && !cap && (j->in.meta.category == ZYDIS_CATEGORY_RET ||
					 j->in.meta.category == ZYDIS_CATEGORY_UNCOND_BR)) {
			n = jt_jump_bound(v, k + 1, use, f);
			if (n)
				return (*entries = n), 0;
		}
		if (jt_writes(j, f)) {
			const ZydisDecodedOperand *d = jt_op(j, 0), *s = jt_op(j, 1);
			ZydisRegister sf =
			    jt_is_reg(s) ? jt_family(s->reg.value) : ZYDIS_REGISTER_NONE;

			if (j->in.mnemonic == ZYDIS_MNEMONIC_MOVZX && s && s->size == 8) {
				/* a byte: 256 entries at most; from another register
				 * X, a cmp of X before bounds it too (GCC -O2:
				 * cmp r15b, 0xb5; ja D; lea rcx, [rip+T];
				 * movzx edx, r15b; movsxd rax, [rcx+rdx*4]) */
				cap = 256;
				if (sf == ZYDIS_REGISTER_NONE) {
					/* movzx f, byte [M]: a cmp byte [M], imm; ja
					 * before it may say fewer */
					n = s->type == ZYDIS_OPERAND_TYPE_MEMORY && !pending
						? jt_mem_bound(v, k, s)
						: 0;
					return (*entries = n && n < cap ? n : cap), 0;
				}
				f = sf;
				continue;
			}
			if ((j->in.mnemonic == ZYDIS_MNEMONIC_MOV ||
			     j->in.mnemonic == ZYDIS_MNEMONIC_MOVSXD) &&
			    sf == f)
				continue;
			/* mov f, X: f is a copy of X from here back (a pending
			 * cmp X, imm bounds it; else look for a bound of X) */
			if (j->in.mnemonic == ZYDIS_MNEMONIC_MOV && jt_is_reg(d) && d->size >= 32 &&
			    sf != ZYDIS_REGISTER_NONE) {
				if (pending && sf == px)
					return (*entries = pending), 0;
				f = sf;
				continue;
			}
			/* mov f32, [M] (-O0: the switch variable's slot), bounded
			 * by a cmp [M], imm; ja before it */
			if (j->in.mnemonic == ZYDIS_MNEMONIC_MOV && jt_is_reg(d) && d->size >= 32 &&
			    s && s->type == ZYDIS_OPERAND_TYPE_MEMORY && s->size == d->size &&
			    !pending) {
				n = jt_mem_bound(v, k, s);
				if (n)
					return (*entries = cap && cap < n ? cap : n), 0;
			}
			break;
		}
		if (pending && jt_writes(j, px)) {
			const ZydisDecodedOperand *d = jt_op(j, 0), *s = jt_op(j, 1);

			/* mov X, f; ... cmp X, imm; ja (GCC -O2 keeps the index
			 * in f and tests a copy): X's bound is f's */
			if (j->in.mnemonic == ZYDIS_MNEMONIC_MOV && jt_is_reg(d) && d->size >= 32 &&
			    jt_is_reg(s) && jt_family(s->reg.value) == f)
				return (*entries = cap && cap < pending ? cap : pending), 0;
			pending = 0;
		}
		if (k == 0)
			break;
		rc = jt_cmp_bound(&v[k - 1], j, &x, &n);
		if (rc < 0)
			return rc;
		if (!rc)
			continue;
		if (x == f)
			return (*entries = cap && cap < n ? cap : n), 0;
		if (!pending) {
			pending = n;
			px = x;
		}
		k--; /* the cmp itself writes no register */
	}
	if (cap)
		return (*entries = cap), 0;
	return -ENOENT;
}

/* Instruction k is R += B: add R, B or lea R, [R + B] / [B + R]; B out. */
static int jt_add_base(const struct jt_insn *k, ZydisRegister r, ZydisRegister *b)
{
	const ZydisDecodedOperand *d = jt_op(k, 0), *s = jt_op(k, 1);

	if (!jt_is_reg(d) || jt_family(d->reg.value) != r || !s)
		return 0;
	if (k->in.mnemonic == ZYDIS_MNEMONIC_ADD && jt_is_reg(s)) {
		*b = jt_family(s->reg.value);
		return 1;
	}
	if (k->in.mnemonic == ZYDIS_MNEMONIC_LEA && s->type == ZYDIS_OPERAND_TYPE_MEMORY &&
	    s->mem.scale <= 1 && !(s->mem.disp.has_displacement && s->mem.disp.value) &&
	    s->mem.base != ZYDIS_REGISTER_NONE && s->mem.index != ZYDIS_REGISTER_NONE) {
		ZydisRegister x = jt_family(s->mem.base), y = jt_family(s->mem.index);

		if (x != r && y != r)
			return 0;
		*b = x == r ? y : x;
		return 1;
	}
	return 0;
}

/* Instruction k sign-extends R's low half into R: cdqe (R = rax), or
 * movsxd R, R32. */
static int jt_sext_self(const struct jt_insn *k, ZydisRegister r)
{
	const ZydisDecodedOperand *d = jt_op(k, 0), *s = jt_op(k, 1);

	if (k->in.mnemonic == ZYDIS_MNEMONIC_CDQE)
		return r == ZYDIS_REGISTER_RAX;
	return k->in.mnemonic == ZYDIS_MNEMONIC_MOVSXD && jt_is_reg(d) && jt_is_reg(s) &&
	       jt_family(d->reg.value) == r && jt_family(s->reg.value) == r && s->size == 32;
}

/* Instruction k is lea X, [rip + T]: T out. */
static int jt_lea_rip(const struct jt_insn *k, ZydisRegister x, uint64_t *t)
{
	const ZydisDecodedOperand *d = jt_op(k, 0), *m = jt_op(k, 1);
	ZyanU64 abs;

	if (k->in.mnemonic != ZYDIS_MNEMONIC_LEA || !jt_is_reg(d) || jt_family(d->reg.value) != x ||
	    !m || m->type != ZYDIS_OPERAND_TYPE_MEMORY || m->mem.base != ZYDIS_REGISTER_RIP ||
	    m->mem.index != ZYDIS_REGISTER_NONE ||
	    !ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(&k->in, m, k->addr, &abs)))
		return 0;
	*t = abs;
	return 1;
}

/* Callee-saved registers (SysV): a call in between leaves them as they were. */
static int jt_callee_saved(ZydisRegister f)
{
	return f == ZYDIS_REGISTER_RBX || f == ZYDIS_REGISTER_RBP || f == ZYDIS_REGISTER_R12 ||
	       f == ZYDIS_REGISTER_R13 || f == ZYDIS_REGISTER_R14 || f == ZYDIS_REGISTER_R15;
}

/* Does instruction k end the straight line that carries register family b
 * to the jmp: an instruction that does not fall through (jmp, ret, ud2,
 * hlt), or a call when b is not callee-saved (the callee may change it;
 * the decoder lists no such write). */
static int jt_breaks_line(const struct jt_insn *k, ZydisRegister b)
{
	switch (k->in.meta.category) {
	case ZYDIS_CATEGORY_UNCOND_BR:
	case ZYDIS_CATEGORY_RET:
		return 1;
	case ZYDIS_CATEGORY_CALL:
		return !jt_callee_saved(b);
	default:
		return k->in.mnemonic == ZYDIS_MNEMONIC_UD2 || k->in.mnemonic == ZYDIS_MNEMONIC_HLT;
	}
}

/*
 * The table base B of the PIC shape when its lea is not in the window v
 * (the last JT_MAX_INSNS instructions): walk back over the `far` earlier
 * instructions (bytes[far - 1] is the one just before v[0]), decoding each
 * on its own, up to JT_FAR_INSNS, to the nearest writer of B, which must be
 * lea B, [rip + T]. Bounded to the fall-through line: every instruction
 * from there to the table load `ld` must fall through to the next (no jmp,
 * ret) and keep B (no other writer; a call only if B is callee-saved), so
 * the lea is on the path that reaches the load in a straight line. Another
 * path into that line (a branch target in it) could bring another B only
 * from code that writes B elsewhere; the entries are still checked one by
 * one to land in code (probe_jump_table). T out; 0 found, -ENOENT not.
 */
static int jt_far_base(ZydisDecoder *dec, const uint8_t *const *bytes, const size_t *avail,
		       const uint64_t *addrs, size_t far, const struct jt_insn *v, int ld,
		       ZydisRegister b, uint64_t *t)
{
	struct jt_insn k;

	for (int i = 0; i < ld; i++)
		if (jt_breaks_line(&v[i], b))
			return -ENOENT;
	for (size_t i = far, seen = 0; i > 0 && seen < JT_FAR_INSNS; i--, seen++) {
		if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(dec, bytes[i - 1], avail[i - 1], &k.in,
							 k.ops)))
			return -ENOENT;
		k.addr = addrs[i - 1];
		/* the line must be contiguous: each instruction ends where
		 * the next begins */
		if (k.addr + k.in.length != addrs[i])
			return -ENOENT;
		if (jt_writes(&k, b))
			return jt_lea_rip(&k, b, t) ? 0 : -ENOENT;
		if (jt_breaks_line(&k, b))
			return -ENOENT;
	}
	return -ENOENT;
}

/*
 * GCC -O0's PIC shape, from its `add R, B` at k (see the top): R's
 * sign extension, R32 = dword [O + A] with A = lea [rip + TABLE] and
 * O = lea [I*4], B = lea [rip + TABLE] the same table.
 */
static int jt_gcc_o0(const struct jt_insn *v, int k, ZydisRegister r, ZydisRegister b,
		     struct x86_jtab *jt)
{
	const ZydisDecodedOperand *m, *d, *o;
	int sx = jt_def(v, k, r), ld, bdef, adef, odef;
	ZydisRegister x, y, a = ZYDIS_REGISTER_NONE, off = ZYDIS_REGISTER_NONE;
	uint64_t tb, ta;

	if (sx < 0 || b == r)
		return -ENOENT;
	bdef = jt_def(v, k, b);
	if (bdef < 0 || !jt_lea_rip(&v[bdef], b, &tb))
		return -ENOENT;
	ld = jt_def(v, sx, r);
	if (ld < 0 || v[ld].in.mnemonic != ZYDIS_MNEMONIC_MOV)
		return -ENOENT;
	d = jt_op(&v[ld], 0);
	m = jt_op(&v[ld], 1);
	if (!jt_is_reg(d) || d->size != 32 || !m || m->type != ZYDIS_OPERAND_TYPE_MEMORY ||
	    m->size != 32 || m->mem.scale > 1 || m->mem.base == ZYDIS_REGISTER_NONE ||
	    m->mem.index == ZYDIS_REGISTER_NONE ||
	    (m->mem.disp.has_displacement && m->mem.disp.value))
		return -ENOENT;
	x = jt_family(m->mem.base);
	y = jt_family(m->mem.index);
	/* which of the two holds the table */
	for (int t = 0; t < 2 && a == ZYDIS_REGISTER_NONE; t++) {
		ZydisRegister c = t ? y : x;

		adef = jt_def(v, ld, c);
		if (adef >= 0 && jt_lea_rip(&v[adef], c, &ta) && ta == tb) {
			a = c;
			off = t ? x : y;
		}
	}
	if (a == ZYDIS_REGISTER_NONE || off == a)
		return -ENOENT;
	/* O = lea [I*4] (no base, no displacement) */
	odef = jt_def(v, ld, off);
	if (odef < 0 || v[odef].in.mnemonic != ZYDIS_MNEMONIC_LEA)
		return -ENOENT;
	o = jt_op(&v[odef], 1);
	if (!o || o->type != ZYDIS_OPERAND_TYPE_MEMORY || o->mem.base != ZYDIS_REGISTER_NONE ||
	    o->mem.index == ZYDIS_REGISTER_NONE || o->mem.scale != 4 ||
	    (o->mem.disp.has_displacement && o->mem.disp.value))
		return -ENOENT;
	jt->table = tb;
	jt->entry_size = 4;
	return jt_bound(v, odef, jt_family(o->mem.index), &jt->entries);
}

int x86_jump_table(const uint8_t *const *bytes, const size_t *avail, const uint64_t *addrs,
		   size_t n, struct x86_jtab *jt)
{
	static ZydisDecoder dec;
	static int ready;
	struct jt_insn v[JT_MAX_INSNS];
	const ZydisDecodedOperand *o;
	ZydisRegister r, index, b;
	size_t skip = n > JT_MAX_INSNS ? n - JT_MAX_INSNS : 0;
	int last, k;

	if (!ready) {
		ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
		ready = 1;
	}
	memset(jt, 0, sizeof(*jt));
	n -= skip;
	if (!n)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&dec, bytes[skip + i], avail[skip + i],
							 &v[i].in, v[i].ops)))
			return -EINVAL;
		v[i].addr = addrs[skip + i];
	}
	last = (int)n - 1;
	if (v[last].in.mnemonic != ZYDIS_MNEMONIC_JMP)
		return -EINVAL;
	o = jt_op(&v[last], 0);
	if (jt_abs8(o, &index, &jt->table)) {
		/* jmp qword [I*8 + TABLE] */
		jt->entry_size = 8;
		return jt_bound(v, last, index, &jt->entries);
	}
	if (!jt_is_reg(o) || o->size != 64)
		return -ENOENT;
	r = jt_family(o->reg.value);
	k = jt_def(v, last, r);
	if (k < 0)
		return -ENOENT;
	if (v[k].in.mnemonic == ZYDIS_MNEMONIC_MOV &&
	    jt_abs8(jt_op(&v[k], 1), &index, &jt->table)) {
		/* mov R, qword [I*8 + TABLE]; jmp R */
		jt->entry_size = 8;
		return jt_bound(v, k, index, &jt->entries);
	}
	if (jt_add_base(&v[k], r, &b) && jt_def(v, k, r) >= 0 &&
	    jt_sext_self(&v[jt_def(v, k, r)], r))
		return jt_gcc_o0(v, k, r, b, jt);
	if (jt_add_base(&v[k], r, &b)) {
		/* add R, B (or lea R, [R + B]); R = movsxd [B + I*4]; B = lea [rip + TABLE] */
		const ZydisDecodedOperand *m;
		int ld = jt_def(v, k, r), lea;
		ZyanU64 abs;

		if (ld < 0 || v[ld].in.mnemonic != ZYDIS_MNEMONIC_MOVSXD || b == r)
			return -ENOENT;
		for (int x = ld + 1; x < k; x++)
			if (jt_writes(&v[x], b))
				return -ENOENT;
		m = jt_op(&v[ld], 1);
		if (!m || m->type != ZYDIS_OPERAND_TYPE_MEMORY || jt_family(m->mem.base) != b ||
		    m->mem.index == ZYDIS_REGISTER_NONE || m->mem.scale != 4 || m->size != 32 ||
		    (m->mem.disp.has_displacement && m->mem.disp.value))
			return -ENOENT;
		index = jt_family(m->mem.index);
		lea = jt_def(v, ld, b);
		if (lea < 0) {
			/* not in the window: further back on the line */
			if (!skip || jt_far_base(&dec, bytes, avail, addrs, skip, v, ld, b, &abs))
				return -ENOENT;
		} else {
			if (v[lea].in.mnemonic != ZYDIS_MNEMONIC_LEA)
				return -ENOENT;
			m = jt_op(&v[lea], 1);
			if (!m || m->type != ZYDIS_OPERAND_TYPE_MEMORY ||
			    m->mem.base != ZYDIS_REGISTER_RIP ||
			    m->mem.index != ZYDIS_REGISTER_NONE ||
			    !ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(&v[lea].in, m, v[lea].addr, &abs)))
				return -ENOENT;
		}
		jt->table = abs;
		jt->entry_size = 4;
		return jt_bound(v, ld, index, &jt->entries);
	}
	return -ENOENT;
}

/* A load of a pointer: mov R, qword [base + disp] with no index register
 * (a GOT slot, a global, a struct field, a vtable slot). */
static int jt_ptr_load(const struct jt_insn *k, ZydisRegister r)
{
	const ZydisDecodedOperand *d = jt_op(k, 0), *s = jt_op(k, 1);

	return k->in.mnemonic == ZYDIS_MNEMONIC_MOV && jt_is_reg(d) &&
	       jt_family(d->reg.value) == r && d->size == 64 && s &&
	       s->type == ZYDIS_OPERAND_TYPE_MEMORY && s->mem.index == ZYDIS_REGISTER_NONE &&
	       s->mem.segment != ZYDIS_REGISTER_FS && s->mem.segment != ZYDIS_REGISTER_GS;
}

/*
 * A tail call through memory or a register: the shapes of a call to a
 * function pointer turned into a jump (GOT slot, vtable, struct field),
 * which leave the function. Accepted, the pointer loaded without an index:
 *	jmp qword [rip + X]
 *	jmp qword [R + disp]	  R loaded by mov R, [M] (M without index) in
 *				  the straight line given
 *	jmp R			  the same
 * Anything that looks like a table (an index register, an add or lea
 * computing the address, R not written in the line) is refused: its
 * targets stay unknown and may be inside the function.
 */
int x86_tail_jump(const uint8_t *const *bytes, const size_t *avail, const uint64_t *addrs,
		  size_t n)
{
	static ZydisDecoder dec;
	static int ready;
	struct jt_insn v[JT_MAX_INSNS];
	const ZydisDecodedOperand *o;
	size_t skip = n > JT_MAX_INSNS ? n - JT_MAX_INSNS : 0;
	ZydisRegister r;
	int last, k;

	if (!ready) {
		ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
		ready = 1;
	}
	n -= skip;
	if (!n)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&dec, bytes[skip + i], avail[skip + i],
							 &v[i].in, v[i].ops)))
			return 0;
		v[i].addr = addrs[skip + i];
	}
	last = (int)n - 1;
	if (v[last].in.mnemonic != ZYDIS_MNEMONIC_JMP)
		return 0;
	o = jt_op(&v[last], 0);
	if (!o || o->size != 64)
		return 0;
	if (o->type == ZYDIS_OPERAND_TYPE_MEMORY) {
		if (o->mem.index != ZYDIS_REGISTER_NONE || o->mem.segment != ZYDIS_REGISTER_DS ||
		    o->mem.base == ZYDIS_REGISTER_NONE)
			return 0;
		if (o->mem.base == ZYDIS_REGISTER_RIP)
			return 1;
		r = jt_family(o->mem.base);
	} else if (jt_is_reg(o)) {
		r = jt_family(o->reg.value);
	} else {
		return 0;
	}
	k = jt_def(v, last, r);
	return k >= 0 && jt_ptr_load(&v[k], r);
}
