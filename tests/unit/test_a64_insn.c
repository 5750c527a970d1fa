// SPDX-License-Identifier: MIT
/*
 * test_a64_insn.c - the aarch64 probe trampolines (src/arch/aarch64/
 * a64_insn.c), checked word by word on any host: the class and target of
 * each PC-relative A64 instruction, and what a trampoline runs in place of
 * each (the words after the register restore, and the relocations the
 * agent applies). The instruction words come from GNU as / objdump
 * (aarch64-linux-gnu), with the addresses in the comments.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "probe/probe_abi.h"
#if defined(__aarch64__)
#include "arch/aarch64/a64_insn.h"
#else
/* not in the x86-64 build's objects: compiled here */
#include "../../src/arch/aarch64/a64_insn.c"
#endif

#define ADD_SP_FRAME 0x910c03ffu /* add sp, sp, #768: the last restore */

static uint32_t word(const struct x86_code *c, uint32_t at)
{
	uint32_t w;

	memcpy(&w, c->buf + at, 4);
	return w;
}

/* Byte offset of the first word after the register restore. */
static uint32_t after_restore(const struct x86_code *c)
{
	for (uint32_t at = 0; at + 4 <= c->len; at += 4)
		if (word(c, at) == ADD_SP_FRAME)
			return at + 4;
	fail_msg("no add sp, sp, #768 in the trampoline");
	return 0;
}

/* The relocation at byte offset at, or NULL. */
static const struct probe_area_reloc *rel_at(const struct x86_code *c, uint32_t at)
{
	for (uint32_t i = 0; i < c->nrel; i++)
		if (c->rel[i].at == at)
			return &c->rel[i];
	return NULL;
}

/* The literal an LDR (literal) word at byte offset at loads: its reloc. */
static const struct probe_area_reloc *lit_of(const struct x86_code *c, uint32_t at)
{
	uint32_t w = word(c, at);

	assert_int_equal(w & 0xbf000000u, 0x18000000u); /* ldr Xt/Wt, literal */
	return rel_at(c, at + ((w >> 5) & 0x7ffff) * 4);
}

static void build(struct x86_code *c, uint32_t w, uint64_t addr)
{
	memset(c, 0, sizeof(*c));
	assert_int_equal(a64_code_probe(c, w, addr, 7, PROBE_H_FUNC_ENTRY, 0, 0), 0);
	assert_int_equal(c->len % 8, 0);
}

static void test_classes(void **state)
{
	uint64_t t;

	/* 8bc: 14000006  b 8d4 */
	assert_int_equal(a64_class(0x14000006u, 0x8bc, &t), A64_B);
	assert_int_equal(t, 0x8d4);
	/* 1000: 97ffffff  bl 0xffc */
	assert_int_equal(a64_class(0x97ffffffu, 0x1000, &t), A64_BL);
	assert_int_equal(t, 0xffc);
	/* 8ec: b4000060  cbz x0, 8f8 */
	assert_int_equal(a64_class(0xb4000060u, 0x8ec, &t), A64_CBZ);
	assert_int_equal(t, 0x8f8);
	/* 880: 36000060  tbz w0, #0, 88c */
	assert_int_equal(a64_class(0x36000060u, 0x880, &t), A64_TBZ);
	assert_int_equal(t, 0x88c);
	/* 8bc: 90000101  adrp x1, 20000 */
	assert_int_equal(a64_class(0x90000101u, 0x8bc, &t), A64_ADRP);
	assert_int_equal(t, 0x20000);
	/* 494e4: d0000aa4  adrp x4, 19f000 */
	assert_int_equal(a64_class(0xd0000aa4u, 0x494e4, &t), A64_ADRP);
	assert_int_equal(t, 0x19f000);
	/* 8a8: 5c000040  ldr d0, 8b0 */
	assert_int_equal(a64_class(0x5c000040u, 0x8a8, &t), A64_LDR_LIT_SIMD);
	assert_int_equal(t, 0x8b0);
	/* 2000: 54ffffea  b.ge 1ffc */
	assert_int_equal(a64_class(0x54ffffeau, 0x2000, &t), A64_BCOND);
	assert_int_equal(t, 0x1ffc);
	/* 2000: 10000041  adr x1, 2008 */
	assert_int_equal(a64_class(0x10000041u, 0x2000, &t), A64_ADR);
	assert_int_equal(t, 0x2008);
	assert_int_equal(a64_class(0xd65f03c0u, 0, NULL), A64_RET);   /* ret */
	assert_int_equal(a64_class(0xd65f0bffu, 0, NULL), A64_RET);   /* retaa */
	assert_int_equal(a64_class(0xa9bf7bfdu, 0, NULL), A64_PLAIN); /* stp x29, x30, [sp,#-16]! */
	assert_int_equal(a64_class(0xd503233fu, 0, NULL), A64_PLAIN); /* paciasp */
	assert_int_equal(a64_class(0xd61f0200u, 0, NULL), A64_PLAIN); /* br x16 */
}

/* The vector state's save and restore calls (a64_agent_sve.c) are
 * handler literals too, not probe handlers. */
static int is_vstate(const struct probe_area_reloc *r)
{
	return r->target == PROBE_H_A64_VSAVE || r->target == PROBE_H_A64_VREST;
}

/* Each trampoline loads VSAVE's address once, before every handler's, and
 * VREST's once, after them (the literals sit in the pool in that order:
 * a64_put_lit appends them as the code asks). */
static void vstate_around(const struct x86_code *c)
{
	int save = -1, rest = -1, first = -1, last = -1;

	for (uint32_t i = 0; i < c->nrel; i++) {
		const struct probe_area_reloc *r = &c->rel[i];

		if (r->type != PROBE_R_HANDLER64)
			continue;
		if (r->target == PROBE_H_A64_VSAVE) {
			assert_int_equal(save, -1);
			save = (int)i;
		} else if (r->target == PROBE_H_A64_VREST) {
			assert_int_equal(rest, -1);
			rest = (int)i;
		} else {
			if (first < 0)
				first = (int)i;
			last = (int)i;
		}
	}
	assert_true(save >= 0 && rest >= 0 && first >= 0);
	assert_true(save < first && last < rest);
}

static void test_plain_and_call(void **state)
{
	struct x86_code c;
	uint32_t at;
	int handlers = 0;

	build(&c, 0xa9bf7bfdu, 0x1000);
	at = after_restore(&c);
	assert_int_equal(word(&c, at), 0xa9bf7bfdu); /* copied */
	assert_int_equal(word(&c, at + 4), 0x14000000u);
	assert_int_equal(rel_at(&c, at + 4)->type, PROBE_R_A64_B26);
	assert_int_equal(rel_at(&c, at + 4)->target, 0x1004); /* back after it */
	for (uint32_t i = 0; i < c.nrel; i++)
		if (c.rel[i].type == PROBE_R_HANDLER64) {
			assert_int_equal(c.rel[i].at % 8, 0);
			if (is_vstate(&c.rel[i]))
				continue;
			handlers++;
			assert_int_equal(c.rel[i].target, PROBE_H_FUNC_ENTRY);
		}
	assert_int_equal(handlers, 1);
	vstate_around(&c);
	/* a second handler call (an entry whose first instruction returns) */
	memset(&c, 0, sizeof(c));
	assert_int_equal(
	    a64_code_probe(&c, 0xd65f03c0u, 0x2000, 7, PROBE_H_FUNC_ENTRY, 8, PROBE_H_FUNC_EXIT),
	    0);
	handlers = 0;
	for (uint32_t i = 0; i < c.nrel; i++)
		handlers += c.rel[i].type == PROBE_R_HANDLER64 && !is_vstate(&c.rel[i]);
	assert_int_equal(handlers, 2);
	vstate_around(&c);
	assert_int_equal(word(&c, after_restore(&c)), 0xd65f03c0u); /* the ret itself */
}

static void test_branches(void **state)
{
	struct x86_code c;
	uint32_t at;

	/* cbz x0, 8f8 at 8ec: cbz +8; b +8; b 8f8 */
	build(&c, 0xb4000060u, 0x8ec);
	at = after_restore(&c);
	assert_int_equal(word(&c, at), 0xb4000040u);
	assert_int_equal(word(&c, at + 4), 0x14000002u);
	assert_int_equal(rel_at(&c, at + 8)->type, PROBE_R_A64_B26);
	assert_int_equal(rel_at(&c, at + 8)->target, 0x8f8);
	assert_int_equal(rel_at(&c, at + 12)->target, 0x8f0);
	/* tbnz x5, #33, -0x10 at 3000 (b5=1, b40=1): the bit kept */
	build(&c, 0xb70fff85u, 0x3000);
	at = after_restore(&c);
	assert_int_equal(word(&c, at), 0xb7080045u);
	assert_int_equal(rel_at(&c, at + 8)->target, 0x3000 - 0x10);
	/* b.ge 1ffc at 2000 */
	build(&c, 0x54ffffeau, 0x2000);
	at = after_restore(&c);
	assert_int_equal(word(&c, at), 0x5400004au);
	assert_int_equal(rel_at(&c, at + 8)->target, 0x1ffc);
	/* bl 0xffc at 1000: x30 = 0x1004 (module offset, relocated), b 0xffc */
	build(&c, 0x97ffffffu, 0x1000);
	at = after_restore(&c);
	assert_int_equal(word(&c, at) & 0x1f, 30);
	assert_int_equal(lit_of(&c, at)->type, PROBE_R_ABS64);
	assert_int_equal(lit_of(&c, at)->target, 0x1004);
	assert_int_equal(rel_at(&c, at + 4)->type, PROBE_R_A64_B26);
	assert_int_equal(rel_at(&c, at + 4)->target, 0xffc);
}

static void test_addresses(void **state)
{
	struct x86_code c;
	uint32_t at;

	/* adrp x1, 20000 at 8bc: ldr x1, =base+0x20000 */
	build(&c, 0x90000101u, 0x8bc);
	at = after_restore(&c);
	assert_int_equal(word(&c, at) & 0xff00001fu, 0x58000001u);
	assert_int_equal(lit_of(&c, at)->type, PROBE_R_ABS64);
	assert_int_equal(lit_of(&c, at)->target, 0x20000);
	assert_int_equal(lit_of(&c, at)->at % 8, 0);
	/* ldr w3, 2010 at 2000 (0x18000083): x3 = address, ldr w3, [x3] */
	build(&c, 0x18000083u, 0x2000);
	at = after_restore(&c);
	assert_int_equal(lit_of(&c, at)->target, 0x2010);
	assert_int_equal(word(&c, at + 4), 0xb9400063u);
	/* ldrsw x2, 2008 at 2000 (0x98000042) */
	build(&c, 0x98000042u, 0x2000);
	at = after_restore(&c);
	assert_int_equal(lit_of(&c, at)->target, 0x2008);
	assert_int_equal(word(&c, at + 4), 0xb9800042u);
	/* ldr d0, 8b0 at 8a8: x16 lent from below sp */
	build(&c, 0x5c000040u, 0x8a8);
	at = after_restore(&c);
	assert_int_equal(word(&c, at), 0xf81f0ff0u); /* str x16, [sp, #-16]! */
	assert_int_equal(lit_of(&c, at + 4)->target, 0x8b0);
	assert_int_equal(word(&c, at + 8), 0xfd400200u);  /* ldr d0, [x16] */
	assert_int_equal(word(&c, at + 12), 0xf84107f0u); /* ldr x16, [sp], #16 */
	/* prfm pldl1keep, literal: a nop */
	build(&c, 0xd8000040u, 0x2000);
	assert_int_equal(word(&c, after_restore(&c)), 0xd503201fu);
}

static void test_refused(void **state)
{
	struct x86_code c;

	memset(&c, 0, sizeof(c));
	/* ldr xzr, literal */
	assert_int_equal(a64_code_probe(&c, 0x5800005fu, 0x2000, 7, PROBE_H_FUNC_ENTRY, 0, 0),
			 -ENOTSUP);
	assert_non_null(a64_unreloc(0x5800005fu, 0x2000));
	/* the unallocated SIMD literal size (opc 11) */
	assert_int_equal(a64_code_probe(&c, 0xdc000040u, 0x2000, 7, PROBE_H_FUNC_ENTRY, 0, 0),
			 -ENOTSUP);
	assert_null(a64_unreloc(0x5c000040u, 0x2000));
}

/* a64_branch_taken: the condition of each conditional branch kind, on
 * registers and NZCV (what the agent's branch handler counts). */
static void test_branch_taken(void **state)
{
	uint64_t x[31] = {0};
	const uint64_t N = 1ull << 31, Z = 1ull << 30, C = 1ull << 29, V = 1ull << 28;

	assert_int_equal(a64_branch_taken(0x54000040u, x, Z), 1); /* b.eq */
	assert_int_equal(a64_branch_taken(0x54000040u, x, 0), 0);
	assert_int_equal(a64_branch_taken(0x54000041u, x, 0), 1); /* b.ne */
	assert_int_equal(a64_branch_taken(0x5400004au, x, N | V), 1); /* b.ge: N == V */
	assert_int_equal(a64_branch_taken(0x5400004au, x, N), 0);
	assert_int_equal(a64_branch_taken(0x5400004bu, x, N), 1);	/* b.lt */
	assert_int_equal(a64_branch_taken(0x54000048u, x, C), 1);	/* b.hi: C && !Z */
	assert_int_equal(a64_branch_taken(0x54000048u, x, C | Z), 0);
	assert_int_equal(a64_branch_taken(0x54000049u, x, C | Z), 1); /* b.ls */
	assert_int_equal(a64_branch_taken(0x5400004cu, x, 0), 1);	/* b.gt */
	assert_int_equal(a64_branch_taken(0x5400004du, x, Z), 1);	/* b.le */
	assert_int_equal(a64_branch_taken(0x5400004eu, x, 0), 1);	/* b.al */
	x[0] = 0;
	x[1] = 1ull << 32; /* zero in its low 32 bits */
	x[2] = 1ull << 33;
	assert_int_equal(a64_branch_taken(0xb4000040u, x, 0), 1); /* cbz x0 */
	assert_int_equal(a64_branch_taken(0x35000041u, x, 0), 0); /* cbnz w1 */
	assert_int_equal(a64_branch_taken(0xb5000041u, x, 0), 1); /* cbnz x1 */
	assert_int_equal(a64_branch_taken(0xb400005fu, x, 0), 1); /* cbz xzr */
	assert_int_equal(a64_branch_taken(0x36000040u, x, 0), 1); /* tbz x0, #0 */
	assert_int_equal(a64_branch_taken(0xb7080042u, x, 0), 1); /* tbnz x2, #33 */
	assert_int_equal(a64_branch_taken(0xb7080041u, x, 0), 0); /* tbnz x1, #33 */
	assert_int_equal(a64_branch_taken(0x14000002u, x, 0), -1); /* b: not conditional */
}

/* Several handler calls in one trampoline; the branch's word in w3. */
static void test_calls(void **state)
{
	struct a64_call k[A64_CALLS_MAX + 1] = {
	    {7, PROBE_H_FUNC_ENTRY, 0},
	    {8, PROBE_H_BLOCK, 0},
	    {9, PROBE_H_BRANCH, 0xb4000060u},
	    {10, PROBE_H_FUNC_EXIT, 0},
	    {11, PROBE_H_BLOCK, 0},
	};
	struct x86_code c;
	int handlers = 0, w3lo = 0, w3hi = 0;

	memset(&c, 0, sizeof(c));
	assert_int_equal(a64_code_probe_calls(&c, 0xb4000060u, 0x2000, k, A64_CALLS_MAX), 0);
	for (uint32_t i = 0; i < c.nrel; i++)
		handlers += c.rel[i].type == PROBE_R_HANDLER64 && !is_vstate(&c.rel[i]);
	assert_int_equal(handlers, A64_CALLS_MAX);
	vstate_around(&c);
	for (uint32_t at = 0; at + 4 <= c.len; at += 4) {
		w3lo += word(&c, at) == (0x52800003u | 0x0060u << 5);	/* movz w3, #0x60 */
		w3hi += word(&c, at) == (0x72a00003u | 0xb400u << 5); /* movk w3, #0xb400, lsl 16 */
	}
	assert_int_equal(w3lo, 1);
	assert_int_equal(w3hi, 1);
	/* the cbz, relocated, after the restore */
	assert_int_equal(word(&c, after_restore(&c)), 0xb4000040u);
	assert_int_equal(a64_code_probe_calls(&c, 0xb4000060u, 0x2000, k, A64_CALLS_MAX + 1),
			 -ENOSPC);
}

/* Switch jump tables in GCC's and clang's forms (aarch64-linux-gnu-gcc
 * -O2, clang-14 --target=aarch64-linux-gnu -O2; objdump). */
static void test_jump_table(void **state)
{
	static const uint32_t gcc[] = {
	    0x7100441fu, /* 900 cmp w0, #0x11 */
	    0x54000089u, /* 904 b.ls 914 */
	    0x12800003u, 0x2a0303e0u, 0xd65f03c0u, 0xa9bf7bfdu,
	    0x90000001u, /* 918 adrp x1, 0 */
	    0x91291021u, /* 91c add x1, x1, #0xa44 */
	    0x910003fdu,
	    0x38604821u, /* 924 ldrb w1, [x1, w0, uxtw] */
	    0x10000060u, /* 928 adr x0, 934 */
	    0x8b218801u, /* 92c add x1, x0, w1, sxtb #2 */
	    0xd61f0020u, /* 930 br x1 */
	};
	static const uint32_t clang[] = {
	    0x7100241fu, /* 10a84 cmp w0, #0x9 */
	    0x54000388u, /* 10a88 b.hi */
	    0x90ffff89u, /* 10a8c adrp x9, 0 */
	    0x2a0003e8u,
	    0x9119f129u, /* 10a94 add x9, x9, #0x67c */
	    0xaa1f03f3u,
	    0x1000008au, /* 10a9c adr x10, 10aac */
	    0x3868692bu, /* 10aa0 ldrb w11, [x9, x8] */
	    0x8b0b094au, /* 10aa4 add x10, x10, x11, lsl #2 */
	    0xd61f0140u, /* 10aa8 br x10 */
	};
	struct a64_jtab jt;
	uint8_t e = 0xff;

	assert_int_equal(a64_jump_table((const uint8_t *)gcc, 0x900, sizeof(gcc), 0x930, &jt), 0);
	assert_int_equal(jt.table, 0xa44);
	assert_int_equal(jt.base, 0x934);
	assert_int_equal(jt.entries, 18);
	assert_int_equal(jt.size, 1);
	assert_int_equal(jt.shift, 2);
	assert_int_equal(a64_jtab_target(&jt, &e), 0x930); /* sxtb: -1 word */
	e = 3;
	assert_int_equal(a64_jtab_target(&jt, &e), 0x940);
	assert_int_equal(
	    a64_jump_table((const uint8_t *)clang, 0x10a84, sizeof(clang), 0x10aa8, &jt), 0);
	assert_int_equal(jt.table, 0x67c);
	assert_int_equal(jt.base, 0x10aac);
	assert_int_equal(jt.entries, 10);
	e = 0xff; /* ldrb, lsl: unsigned */
	assert_int_equal(a64_jtab_target(&jt, &e), 0x10aac + 0xff * 4);
	/* a BR of another shape (a tail call through x16): unknown */
	assert_int_equal(a64_jump_table((const uint8_t *)gcc, 0x900, sizeof(gcc), 0x92c, &jt),
			 -ENOENT);
}

/* No probe between a load-exclusive and its store-exclusive. */
static void test_exclusive(void **state)
{
	static const uint32_t cas[] = {
	    0xc85ffc03u, /* 8a0 ldaxr x3, [x0] */
	    0xeb01007fu, /* 8a4 cmp x3, x1 */
	    0x54000061u, /* 8a8 b.ne 8b4 */
	    0xc804fc02u, /* 8ac stlxr w4, x2, [x0] */
	    0x35ffff84u, /* 8b0 cbnz w4, 8a0 */
	    0x1a9f17e0u, /* 8b4 cset w0, eq */
	    0xd65f03c0u, /* 8b8 ret */
	    0xc85f7c03u, /* 8bc ldxr x3, [x0]: no store after it */
	    0xd65f03c0u, /* 8c0 ret */
	};
	const uint8_t *c = (const uint8_t *)cas;

	assert_int_equal(a64_in_exclusive(c, 0x8a0, sizeof(cas), 0x8a0), 0); /* before it */
	assert_int_equal(a64_in_exclusive(c, 0x8a0, sizeof(cas), 0x8a4), 1);
	assert_int_equal(a64_in_exclusive(c, 0x8a0, sizeof(cas), 0x8a8), 1);
	assert_int_equal(a64_in_exclusive(c, 0x8a0, sizeof(cas), 0x8ac), 1); /* the store */
	assert_int_equal(a64_in_exclusive(c, 0x8a0, sizeof(cas), 0x8b0), 0);
	assert_int_equal(a64_in_exclusive(c, 0x8a0, sizeof(cas), 0x8b4), 0);
	assert_int_equal(a64_in_exclusive(c, 0x8a0, sizeof(cas), 0x8c0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_classes),  cmocka_unit_test(test_plain_and_call),
	    cmocka_unit_test(test_branches), cmocka_unit_test(test_addresses),
	    cmocka_unit_test(test_refused), cmocka_unit_test(test_branch_taken),
	    cmocka_unit_test(test_calls), cmocka_unit_test(test_jump_table),
	    cmocka_unit_test(test_exclusive),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
