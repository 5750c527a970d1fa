// SPDX-License-Identifier: MIT
/*
 * test_x86_insert.c - inserting a second handler call into a trampoline
 * (x86_code_insert, src/arch/x86_64/x86_insn.c), which is how probes of
 * different kinds at one instruction combine: the call goes where the
 * displaced instruction's copy starts, and every relocation, skip and mark
 * after that point moves with the code, so each still names the same bytes.
 * The displaced instructions were assembled with GNU as from the Intel
 * syntax in the comments.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "arch/x86_64/x86_insn.h"
#include "probe/probe_abi.h"

/* mov rcx,[rip+0x2e59]; add rcx,rdi (a RIP-relative load, then a plain one) */
static const uint8_t code[] = {0x48, 0x8b, 0x0d, 0x59, 0x2e, 0x00, 0x00, 0x48, 0x01, 0xf9};

/* An entry trampoline of two displaced instructions at module offset 0x1000. */
static void build(struct x86_code *c, struct x86_insn in[2])
{
	memset(c, 0, sizeof(*c));
	assert_int_equal(x86_decode(code, sizeof(code), 0x1000, &in[0]), 0);
	assert_int_equal(x86_decode(code + in[0].len, sizeof(code) - in[0].len, 0x1000 + in[0].len,
				    &in[1]),
			 0);
	assert_int_equal(x86_code_call_handler(c, 1, PROBE_H_FUNC_ENTRY, 0), 0);
	assert_int_equal(x86_code_relocate(c, &in[0], code), 0);
	assert_int_equal(x86_code_relocate(c, &in[1], code + in[0].len), 0);
	assert_int_equal(x86_code_jmp(c, 0x1000 + sizeof(code)), 0);
}

static void test_insert_moves_what_follows(void **state)
{
	struct x86_code *c = calloc(2, sizeof(*c)), *o = c + 1;
	struct x86_insn in[2];
	uint32_t grow;

	(void)state;
	build(c, in);
	*o = *c;
	assert_int_equal(c->nmark, 2);
	assert_int_equal(x86_code_insert(c, 0x1000, 2, PROBE_H_VAR, 1), 0);
	grow = c->len - o->len;
	assert_true(grow > 0);
	/* the first handler call is untouched, the copy of the load moved */
	assert_memory_equal(c->buf, o->buf, o->mark[0].off);
	assert_memory_equal(c->buf + o->mark[0].off + grow, o->buf + o->mark[0].off,
			    o->len - o->mark[0].off);
	assert_int_equal(c->mark[0].off, o->mark[0].off + grow);
	/* relocations before the point stay, the others move with their bytes */
	for (uint32_t k = 0; k < o->nrel; k++)
		if (o->rel[k].at < o->mark[0].off)
			assert_int_equal(c->rel[k].at, o->rel[k].at);
		else
			assert_int_equal(c->rel[k].at, o->rel[k].at + grow);
	assert_int_equal(c->nrel, o->nrel + 1); /* the new call's handler address */
	assert_true(c->rel[o->nrel].at >= o->mark[0].off &&
		    c->rel[o->nrel].at < o->mark[0].off + grow);
	assert_int_equal(c->rel[o->nrel].target, PROBE_H_VAR);
	/* its call can be skipped (placed disabled) like the first one */
	assert_int_equal(c->nskip, 2);
	assert_int_equal(c->skip[0].at, o->skip[0].at);
	assert_int_equal(c->skip[1].id, 2);
	assert_int_equal(c->skip[1].at, o->mark[0].off);
	free(c);
}

static void test_insert_at_second_and_unknown(void **state)
{
	struct x86_code *c = calloc(1, sizeof(*c));
	struct x86_insn in[2];
	uint32_t at1;

	(void)state;
	build(c, in);
	at1 = c->mark[1].off;
	assert_int_equal(x86_code_insert(c, in[1].addr, 3, PROBE_H_BLOCK, 0), 0);
	assert_int_equal(c->mark[0].off < at1, 1); /* before the point: stays */
	assert_true(c->mark[1].off > at1);
	/* an address that is no displaced instruction's: refused */
	assert_int_equal(x86_code_insert(c, 0x1003, 4, PROBE_H_VAR, 1), -ENOENT);
	/* a rebuild from the start forgets the old marks */
	c->len = c->nrel = c->nskip = 0;
	assert_int_equal(x86_code_call_handler(c, 1, PROBE_H_FUNC_ENTRY, 0), 0);
	assert_int_equal(c->nmark, 0);
	free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_insert_moves_what_follows),
		cmocka_unit_test(test_insert_at_second_and_unknown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
