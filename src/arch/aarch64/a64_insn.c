// SPDX-License-Identifier: MIT
/*
 * a64_insn.c - the A64 instruction classes dynamic probes care about and the
 * trampolines of aarch64 probes (a64_insn.h). Host side; plain C, built on
 * every architecture (the unit test runs it on x86-64 too).
 *
 * Encodings (Arm Architecture Reference Manual for A-profile, A64 base
 * instructions), as masks over the 32-bit word:
 *   B      0x14000000 /0xfc000000  imm26 << 2
 *   BL     0x94000000 /0xfc000000  imm26 << 2
 *   B.cond 0x54000000 /0xff000000  imm19 (bits 5-23) << 2 (bit 4: BC.cond)
 *   CBZ/CBNZ   0x34000000 /0x7e000000  imm19 << 2
 *   TBZ/TBNZ   0x36000000 /0x7e000000  imm14 (bits 5-18) << 2
 *   ADR    0x10000000 /0x9f000000  immhi:immlo (bits 5-23, 29-30)
 *   ADRP   0x90000000 /0x9f000000  (immhi:immlo) << 12 from PC & ~0xfff
 *   LDR literal 0x18000000 /0x3b000000  opc (30-31), V (26), imm19
 *   RET    0xd65f0000 /0xfffffc1f; RETAA 0xd65f0bff, RETAB 0xd65f0fff
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "a64_insn.h"


const char *a64_text(uint32_t w, uint64_t addr, char *buf, size_t cap)
{
	static const char *const names[] = {
	    [A64_PLAIN] = "insn",
	    [A64_B] = "b",
	    [A64_BL] = "bl",
	    [A64_BCOND] = "b.cond",
	    [A64_CBZ] = "cbz/cbnz",
	    [A64_TBZ] = "tbz/tbnz",
	    [A64_ADR] = "adr",
	    [A64_ADRP] = "adrp",
	    [A64_LDR_LIT] = "ldr literal",
	    [A64_PRFM_LIT] = "prfm literal",
	    [A64_LDR_LIT_SIMD] = "ldr literal (simd)",
	    [A64_RET] = "ret",
	};
	uint64_t t;
	int c = a64_class(w, addr, &t);

	if (c == A64_PLAIN || c == A64_RET)
		snprintf(buf, cap, "%s 0x%08x", names[c], w);
	else
		snprintf(buf, cap, "%s 0x%llx (0x%08x)", names[c], (unsigned long long)t, w);
	return buf;
}

const char *a64_unreloc(uint32_t w, uint64_t addr)
{
	int c = a64_class(w, addr, NULL);

	if (c == A64_LDR_LIT_SIMD && (w >> 30) == 3)
		return "an unallocated SIMD literal load encoding";
	if (c == A64_LDR_LIT && (w & 0x1f) == 31)
		return "a literal load into the zero register";
	return NULL;
}

/* ---- building a trampoline ---- */

#define A64_WORDS 128
#define A64_LITS 8

struct a64_build {
	uint32_t w[A64_WORDS];
	unsigned n;
	struct {
		uint32_t type; /* PROBE_R_ABS64 or PROBE_R_HANDLER64 */
		uint64_t target;
		unsigned use; /* the LDR (literal) word that loads it */
	} lit[A64_LITS];
	unsigned nlit;
	struct {
		unsigned at;
		uint64_t target;
	} b26[A64_LITS];
	unsigned nb26;
	int full;
};

static void a64_put(struct a64_build *b, uint32_t w)
{
	if (b->n < A64_WORDS)
		b->w[b->n++] = w;
	else
		b->full = 1;
}

/* LDR Xt, =(type, target): the literal goes to the pool after the code. */
static void a64_put_lit(struct a64_build *b, unsigned rt, uint32_t type, uint64_t target)
{
	if (b->nlit == A64_LITS) {
		b->full = 1;
		return;
	}
	b->lit[b->nlit].type = type;
	b->lit[b->nlit].target = target;
	b->lit[b->nlit].use = b->n;
	b->nlit++;
	a64_put(b, 0x58000000u | rt); /* imm19 filled by a64_finish */
}

/* B or BL (op) to a module offset. */
static void a64_put_b26(struct a64_build *b, uint32_t op, uint64_t target)
{
	if (b->nb26 == A64_LITS) {
		b->full = 1;
		return;
	}
	b->b26[b->nb26].at = b->n;
	b->b26[b->nb26].target = target;
	b->nb26++;
	a64_put(b, op);
}

static int a64_add_rel(struct x86_code *c, uint32_t at, uint32_t type, uint64_t target)
{
	struct probe_area_reloc *r;

	if (c->nrel == X86_RELOC_MAX)
		return -ENOSPC;
	r = &c->rel[c->nrel++];
	memset(r, 0, sizeof(*r));
	r->at = at;
	r->next = at + 4;
	r->type = type;
	r->target = target;
	return 0;
}

/* Lay the words, then the literal pool (8-aligned: the code starts 16-aligned
 * in the area and in the agent's page), into c with its relocations. */
static int a64_finish(struct a64_build *b, struct x86_code *c)
{
	unsigned pool;
	int rc;

	if (b->n & 1)
		a64_put(b, 0xd4200000u); /* BRK #0: padding, never reached */
	pool = b->n;
	if (b->full || (pool + 2 * b->nlit) * 4 > X86_CODE_MAX)
		return -ENOSPC;
	for (unsigned i = 0; i < b->nlit; i++) {
		unsigned at = b->lit[i].use, lw = pool + 2 * i;

		b->w[at] |= (uint32_t)(lw - at) << 5; /* imm19, words: always small */
	}
	c->len = c->nrel = c->nskip = c->nmark = 0;
	memcpy(c->buf, b->w, (size_t)pool * 4);
	memset(c->buf + pool * 4, 0, (size_t)b->nlit * 8);
	c->len = (pool + 2 * b->nlit) * 4;
	for (unsigned i = 0; i < b->nlit; i++) {
		rc = a64_add_rel(c, (pool + 2 * i) * 4, b->lit[i].type, b->lit[i].target);
		if (rc)
			return rc;
	}
	for (unsigned i = 0; i < b->nb26; i++) {
		rc = a64_add_rel(c, b->b26[i].at * 4, PROBE_R_A64_B26, b->b26[i].target);
		if (rc)
			return rc;
	}
	return 0;
}

/* w, from module offset addr, re-encoded to run in the trampoline; falls
 * through to what follows when it would have gone to addr + 4. */
static int a64_relocate(struct a64_build *b, uint32_t w, uint64_t addr)
{
	uint64_t t;
	unsigned rt = w & 0x1f;

	switch (a64_class(w, addr, &t)) {
	case A64_PLAIN:
	case A64_RET:
		a64_put(b, w);
		return 0;
	case A64_B:
		a64_put_b26(b, A64_B_OP, t);
		return 0;
	case A64_BL:
		/* LR = the original return address, then B: the callee returns
		 * into the original code, and an unwinder sees the real caller */
		a64_put_lit(b, 30, PROBE_R_ABS64, addr + 4);
		a64_put_b26(b, A64_B_OP, t);
		return 0;
	case A64_BCOND:
		/* b.cond +8; b +8; b target */
		a64_put(b, (w & 0xff00001fu) | (2u << 5));
		a64_put(b, A64_B_OP | 2u);
		a64_put_b26(b, A64_B_OP, t);
		return 0;
	case A64_CBZ:
		a64_put(b, (w & 0xff00001fu) | (2u << 5));
		a64_put(b, A64_B_OP | 2u);
		a64_put_b26(b, A64_B_OP, t);
		return 0;
	case A64_TBZ:
		a64_put(b, (w & 0xfff8001fu) | (2u << 5));
		a64_put(b, A64_B_OP | 2u);
		a64_put_b26(b, A64_B_OP, t);
		return 0;
	case A64_ADR:
	case A64_ADRP:
		if (rt == 31)
			a64_put(b, 0xd503201fu); /* to the zero register: nothing */
		else
			a64_put_lit(b, rt, PROBE_R_ABS64, t);
		return 0;
	case A64_LDR_LIT:
		if (rt == 31)
			return -ENOTSUP;
		/* the address into Rt, then the load through it */
		a64_put_lit(b, rt, PROBE_R_ABS64, t);
		if ((w >> 30) == 0)
			a64_put(b, 0xb9400000u | rt << 5 | rt); /* ldr wt, [xt] */
		else if ((w >> 30) == 1)
			a64_put(b, 0xf9400000u | rt << 5 | rt); /* ldr xt, [xt] */
		else
			a64_put(b, 0xb9800000u | rt << 5 | rt); /* ldrsw xt, [xt] */
		return 0;
	case A64_LDR_LIT_SIMD:
		/* no register of its own to hold the address: x16 lent from
		 * below sp (AAPCS64 on Linux: nothing below sp is live) */
		a64_put(b, 0xf81f0ff0u); /* str x16, [sp, #-16]! */
		a64_put_lit(b, 16, PROBE_R_ABS64, t);
		/* ldr St/Dt/Qt, [x16]: size by opc 00 S, 01 D, 10 Q */
		if ((w >> 30) == 0)
			a64_put(b, 0xbd400200u | rt);
		else if ((w >> 30) == 1)
			a64_put(b, 0xfd400200u | rt);
		else
			a64_put(b, 0x3dc00200u | rt);
		a64_put(b, 0xf84107f0u); /* ldr x16, [sp], #16 */
		return 0;
	case A64_PRFM_LIT:
		a64_put(b, 0xd503201fu); /* a prefetch hint: nop does the same */
		return 0;
	default:
		return -ENOTSUP;
	}
}

/* stp/ldp Xa, Xb, [sp, #off] and the q forms (signed offset). */
static uint32_t a64_pair(uint32_t op, unsigned a, unsigned b, unsigned off, unsigned scale)
{
	return op | ((off / scale) & 0x7f) << 15 | b << 10 | 31u << 5 | a;
}

/* w0 = id; x1 = the frame (x19: sp is below it, past the SVE registers,
 * on a core with SVE); x2 = sp at the probe; w3 = arg; blr handler. */
static void a64_put_call(struct a64_build *b, const struct a64_call *k)
{
	uint32_t id = k->id;

	a64_put(b, 0x52800000u | (id & 0xffff) << 5);	     /* movz w0, #lo */
	a64_put(b, 0x72a00000u | (id >> 16 & 0xffff) << 5);  /* movk w0, #hi, lsl 16 */
	if (k->arg) {
		a64_put(b, 0x52800003u | (k->arg & 0xffff) << 5);	/* movz w3, #lo */
		a64_put(b, 0x72a00003u | (k->arg >> 16 & 0xffff) << 5); /* movk w3, #hi */
	}
	a64_put(b, 0xaa1303e1u);			     /* mov x1, x19 */
	a64_put(b, 0x91000262u | (uint32_t)A64_FRAME << 10); /* add x2, x19, #FRAME */
	a64_put_lit(b, 16, PROBE_R_HANDLER64, k->handler);   /* ldr x16, =handler */
	a64_put(b, 0xd63f0200u);			     /* blr x16 */
}

int a64_code_probe(struct x86_code *c, uint32_t w, uint64_t addr, uint32_t probe_id,
		   uint32_t handler, uint32_t id2, uint32_t handler2)
{
	struct a64_call k[2] = {{probe_id, handler, 0}, {id2, handler2, 0}};

	return a64_code_probe_calls(c, w, addr, k, id2 ? 2 : 1);
}

int a64_code_probe_calls(struct x86_code *c, uint32_t w, uint64_t addr,
			 const struct a64_call *calls, unsigned n)
{
	struct a64_build b;
	unsigned at[A64_CALLS_MAX], end[A64_CALLS_MAX], moved;
	int rc;

	memset(&b, 0, sizeof(b));
	if (a64_unreloc(w, addr))
		return -ENOTSUP;
	if (!n || n > A64_CALLS_MAX)
		return -ENOSPC;
	/* sub sp, sp, #A64_FRAME (AAPCS64 on Linux has no red zone: nothing
	 * below sp is live) */
	a64_put(&b, 0xd10003ffu | (uint32_t)A64_FRAME << 10);
	for (unsigned r = 0; r < 30; r += 2)
		a64_put(&b, a64_pair(0xa9000000u, r, r + 1, r * 8, 8));
	a64_put(&b, 0xd53b4200u);			   /* mrs x0, nzcv */
	a64_put(&b, a64_pair(0xa9000000u, 30, 0, 240, 8)); /* stp x30, x0, [sp, #240] */
	/* x19 = the frame (saved above, kept by the handlers: AAPCS64);
	 * a64_vsave stores q0-q31 there and, on a core with SVE, Z, P and
	 * FFR below it, moving sp (a64_agent_sve.c) */
	a64_put(&b, 0x910003f3u); /* mov x19, sp */
	a64_put_lit(&b, 16, PROBE_R_HANDLER64, PROBE_H_A64_VSAVE);
	a64_put(&b, 0xd63f0200u); /* blr x16 */
	for (unsigned i = 0; i < n; i++) {
		at[i] = b.n;
		a64_put_call(&b, &calls[i]);
		end[i] = b.n;
	}
	/* the vector state back, sp at the frame again */
	a64_put_lit(&b, 16, PROBE_R_HANDLER64, PROBE_H_A64_VREST);
	a64_put(&b, 0xd63f0200u); /* blr x16 */
	a64_put(&b, a64_pair(0xa9400000u, 30, 0, 240, 8)); /* ldp x30, x0, [sp, #240] */
	a64_put(&b, 0xd51b4200u);			   /* msr nzcv, x0 */
	for (unsigned r = 0; r < 30; r += 2)
		a64_put(&b, a64_pair(0xa9400000u, r, r + 1, r * 8, 8));
	a64_put(&b, 0x910003ffu | (uint32_t)A64_FRAME << 10); /* add sp, sp, #FRAME */
	moved = b.n;
	rc = a64_relocate(&b, w, addr);
	if (rc)
		return rc;
	a64_put_b26(&b, A64_B_OP, addr + 4);
	rc = a64_finish(&b, c);
	if (rc)
		return rc;
	/* What a disabled probe flips (a64_code_skip): its call's first word,
	 * and, when every call of the trampoline is off, the first word. */
	for (unsigned i = 0; i < n; i++) {
		c->skip[i].at = at[i] * 4;
		c->skip[i].end = end[i] * 4;
		c->skip[i].id = calls[i].id;
	}
	c->nskip = n;
	c->mark[0].addr = addr;
	c->mark[0].off = moved * 4;
	c->nmark = 1;
	return 0;
}

void a64_code_skip(uint8_t *code, uint32_t at, uint32_t end)
{
	uint32_t w = A64_B_OP | (((end - at) >> 2) & 0x03ffffffu);

	memcpy(code + at, &w, 4);
}

/* ---- switch jump tables ---- */

#define A64_JT_BACK 16 /* words looked back from the BR */

static uint32_t a64_at(const uint8_t *code, uint64_t lo, uint64_t a)
{
	uint32_t w;

	memcpy(&w, code + (a - lo), 4);
	return w;
}

/* The nearest word in [from, at) (back from at) matching mask/value with
 * destination register rd; its address in *wa. 0 when none. */
static uint32_t a64_find_def(const uint8_t *code, uint64_t lo, uint64_t from, uint64_t at,
			     uint32_t mask, uint32_t value, unsigned rd, uint64_t *wa)
{
	for (uint64_t a = at; a >= from + 4;) {
		uint32_t w;

		a -= 4;
		w = a64_at(code, lo, a);
		if ((w & mask) == value && (w & 31) == rd) {
			*wa = a;
			return w;
		}
	}
	return 0;
}

int a64_jump_table(const uint8_t *code, uint64_t lo, size_t len, uint64_t at,
		   struct a64_jtab *jt)
{
	uint64_t from, wa, t;
	uint32_t w, add, ld;
	unsigned opt, amount, rn, rm, rt;
	int found_bound = 0;

	if (at < lo || at + 4 > lo + len || (at & 3))
		return -ENOENT;
	w = a64_at(code, lo, at);
	if ((w & 0xfffffc1fu) != 0xd61f0000u)
		return -ENOENT;
	from = at - lo > 4 * A64_JT_BACK ? at - 4 * A64_JT_BACK : lo;
	memset(jt, 0, sizeof(*jt));
	/* add xD, xB, xE/wE, <extend or lsl> #S */
	add = a64_find_def(code, lo, from, at, 0xff200000u, 0x8b000000u, w >> 5 & 31, &wa);
	if (add && !(add >> 22 & 3)) {
		opt = 3; /* lsl: the loaded value as it is */
		amount = add >> 10 & 63;
	} else {
		add = a64_find_def(code, lo, from, at, 0xffe00000u, 0x8b200000u, w >> 5 & 31, &wa);
		if (!add)
			return -ENOENT;
		opt = add >> 13 & 7;
		amount = add >> 10 & 7;
	}
	rn = add >> 5 & 31;
	rm = add >> 16 & 31;
	if (amount > 4)
		return -ENOENT;
	jt->shift = (uint8_t)amount;
	/* the base: adr xB, label */
	w = a64_find_def(code, lo, from, wa, 0x9f000000u, 0x10000000u, rn, &t);
	if (!w || a64_class(w, t, &jt->base) != A64_ADR)
		return -ENOENT;
	/* the entry: a load (register offset) into wE/xE */
	ld = a64_find_def(code, lo, from, wa, 0x3f200c00u, 0x38200800u, rm, &t);
	if (!ld)
		return -ENOENT;
	switch (ld >> 22 & 0x3ff) { /* size:V:opc of LDR (register) */
	case 0x0e1: jt->size = 1; break;		     /* ldrb */
	case 0x0e2: case 0x0e3: jt->size = 1, jt->is_signed = 1; break; /* ldrsb */
	case 0x1e1: jt->size = 2; break;		     /* ldrh */
	case 0x1e2: case 0x1e3: jt->size = 2, jt->is_signed = 1; break; /* ldrsh */
	case 0x2e1: jt->size = 4; break;		     /* ldr w */
	case 0x2e2: jt->size = 4, jt->is_signed = 1; break; /* ldrsw */
	default: return -ENOENT;
	}
	jt->ext = (uint8_t)opt;
	rt = ld >> 5 & 31;
	/* the table: adrp xT + add xT, xT, #lo12, or adr xT */
	w = a64_find_def(code, lo, from, t, 0xff800000u, 0x91000000u, rt, &wa);
	if (w && (w >> 5 & 31) == rt) {
		uint64_t page, off = (uint64_t)(w >> 10 & 0xfff) << ((w >> 22 & 1) ? 12 : 0);
		uint32_t p = a64_find_def(code, lo, from, wa, 0x9f000000u, 0x90000000u, rt, &wa);

		if (!p || a64_class(p, wa, &page) != A64_ADRP)
			return -ENOENT;
		jt->table = page + off;
	} else {
		w = a64_find_def(code, lo, from, t, 0x9f000000u, 0x10000000u, rt, &wa);
		if (!w || a64_class(w, wa, &jt->table) != A64_ADR)
			return -ENOENT;
	}
	/* the bound, before the BR: cmp wI/xI, #N-1 then b.hi to the default
	 * or b.ls to the table; or cmp #N then b.cs / b.cc */
	for (uint64_t a = at; a >= from + 4 && !found_bound;) {
		a -= 4;
		w = a64_at(code, lo, a);
		if ((w & 0xff00001eu) == 0x54000008u || (w & 0xff00001eu) == 0x54000002u) {
			unsigned cs = (w & 15) == 2 || (w & 15) == 3;

			for (uint64_t c = a; c >= from + 4;) {
				uint32_t x;

				c -= 4;
				x = a64_at(code, lo, c);
				if ((x & 0x7fc0001fu) == 0x7100001fu) { /* cmp, no shift */
					jt->entries = (x >> 10 & 0xfff) + (cs ? 0 : 1);
					found_bound = 1;
					break;
				}
			}
			break;
		}
	}
	if (!found_bound || !jt->entries || jt->entries > 4096)
		return -ENOENT;
	return 0;
}

uint64_t a64_jtab_target(const struct a64_jtab *jt, const uint8_t *e)
{
	uint64_t v = 0;

	memcpy(&v, e, jt->size); /* little-endian */
	if (jt->is_signed)
		v = (uint64_t)a64_sext(v, 8 * jt->size);
	switch (jt->ext) {
	case 0: v &= 0xff; break;
	case 1: v &= 0xffff; break;
	case 2: v &= 0xffffffffu; break;
	case 4: v = (uint64_t)a64_sext(v, 8); break;
	case 5: v = (uint64_t)a64_sext(v, 16); break;
	case 6: v = (uint64_t)a64_sext(v, 32); break;
	default: break; /* UXTX, SXTX, LSL: the register as loaded */
	}
	return jt->base + (v << jt->shift);
}

/* ---- load/store exclusive pairs ---- */

/* The load/store exclusive class (bits 29-24 001000) without the ordered
 * and compare-and-swap forms (o2, bit 23): L (bit 22) tells load from
 * store. */
static int a64_excl(uint32_t w, int load)
{
	return (w & 0x3f800000u) == 0x08000000u && !!(w & 0x00400000u) == load;
}

int a64_in_exclusive(const uint8_t *code, uint64_t lo, size_t len, uint64_t at)
{
	int after_load = 0;

	if (at < lo || at + 4 > lo + len)
		return 0;
	for (uint64_t a = at, k = 0; a >= lo + 4 && k < 16; k++) {
		uint32_t w;

		a -= 4;
		w = a64_at(code, lo, a);
		if (a64_excl(w, 0))
			break; /* a pair already closed before at */
		if (a64_excl(w, 1)) {
			after_load = 1;
			break;
		}
	}
	if (!after_load)
		return 0;
	for (uint64_t a = at, k = 0; a + 4 <= lo + len && k < 16; a += 4, k++) {
		uint32_t w = a64_at(code, lo, a);

		if (a64_excl(w, 0))
			return 1;
		if (a64_excl(w, 1))
			return 0;
	}
	return 0;
}
