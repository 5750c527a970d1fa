// SPDX-License-Identifier: MIT
/*
 * test_jtab.c - recognizing switch jump tables before an indirect jmp
 * (src/arch/x86_64/x86_jtab.c): the shapes GCC and clang emit, with their
 * bound checks, and shapes that must not be taken for a table (no bound,
 * the index changed after the check, a tail call through a register), and
 * the tail calls x86_tail_jump accepts and the table shapes it refuses.
 * The byte sequences were assembled with GNU as from the Intel syntax in
 * the comments; each sequence is placed at a module offset and decoded
 * into instructions first, as probe_module_analyse does.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "arch/x86_64/x86_insn.h"

#define MAX_INSNS 64

/* Split code (at module offset base) into instructions and ask for the
 * table of the last one. */
static int jtab_of(const uint8_t *code, size_t len, uint64_t base, struct x86_jtab *jt)
{
	const uint8_t *bytes[MAX_INSNS];
	size_t avail[MAX_INSNS], n = 0, off = 0;
	uint64_t addrs[MAX_INSNS];
	struct x86_insn in;

	while (off < len) {
		assert_true(n < MAX_INSNS);
		assert_int_equal(x86_decode(code + off, len - off, base + off, &in), 0);
		bytes[n] = code + off;
		avail[n] = len - off;
		addrs[n++] = base + off;
		off += in.len;
	}
	return x86_jump_table(bytes, avail, addrs, n, jt);
}

/* cmp eax,8; ja +0x12; lea rdx,[rip+0x100]; mov eax,eax;
 * movsxd rax,[rdx+rax*4]; add rax,rdx; jmp rax  (GCC, PIE) */
static void test_pic(void **state)
{
	static const uint8_t code[] = {0x83, 0xf8, 0x08, 0x77, 0x12, 0x48, 0x8d, 0x15,
				       0x00, 0x01, 0x00, 0x00, 0x89, 0xc0, 0x48, 0x63,
				       0x04, 0x82, 0x48, 0x01, 0xd0, 0xff, 0xe0};
	struct x86_jtab jt;

	assert_int_equal(jtab_of(code, sizeof(code), 0x1000, &jt), 0);
	/* the lea's rip is 0x1000 + 12 */
	assert_int_equal(jt.table, 0x1000 + 12 + 0x100);
	assert_int_equal(jt.entries, 9);
	assert_int_equal(jt.entry_size, 4);
}

/* mov eax,edi; cmp eax,5; ja +7; jmp [rax*8+0x402008]  (-no-pie) */
static void test_nonpic(void **state)
{
	static const uint8_t code[] = {0x89, 0xf8, 0x83, 0xf8, 0x05, 0x77, 0x07,
				       0xff, 0x24, 0xc5, 0x08, 0x20, 0x40, 0x00};
	struct x86_jtab jt;

	assert_int_equal(jtab_of(code, sizeof(code), 0x401000, &jt), 0);
	assert_int_equal(jt.table, 0x402008);
	assert_int_equal(jt.entries, 6);
	assert_int_equal(jt.entry_size, 8);
}

/* mov edi,ebp; lea rsi,[rip+0x200]; cmp ebp,12; ja +10;
 * movsxd rcx,[rsi+rdi*4]; lea rcx,[rsi+rcx]; jmp rcx
 * (the bound checks the register the index was copied from; lea adds) */
static void test_copy_and_lea(void **state)
{
	static const uint8_t code[] = {0x89, 0xef, 0x48, 0x8d, 0x35, 0x00, 0x02, 0x00,
				       0x00, 0x83, 0xfd, 0x0c, 0x77, 0x0a, 0x48, 0x63,
				       0x0c, 0xbe, 0x48, 0x8d, 0x0c, 0x0e, 0xff, 0xe1};
	struct x86_jtab jt;

	assert_int_equal(jtab_of(code, sizeof(code), 0, &jt), 0);
	assert_int_equal(jt.table, 9 + 0x200);
	assert_int_equal(jt.entries, 13);
}

/* cmp edi,8; ja +0x12; mov eax,edi; lea rcx,[rip+0xea6];
 * movsxd rax,[rcx+rax*4]; add rax,rcx; jmp rax  (clang: copied after the check) */
static void test_copy_after(void **state)
{
	static const uint8_t code[] = {0x83, 0xff, 0x08, 0x77, 0x17, 0x89, 0xf8, 0x48,
				       0x8d, 0x0d, 0xa6, 0x0e, 0x00, 0x00, 0x48, 0x63,
				       0x04, 0x81, 0x48, 0x01, 0xc8, 0xff, 0xe0};
	struct x86_jtab jt;

	assert_int_equal(jtab_of(code, sizeof(code), 0x1150, &jt), 0);
	assert_int_equal(jt.table, 0x2004);
	assert_int_equal(jt.entries, 9);
}

/* lea rsi,[rip+0x300]; movzx eax,byte [rdi]; movsxd rax,[rsi+rax*4];
 * add rax,rsi; jmp rax  (an index that is a byte: 256 entries) */
static void test_byte_index(void **state)
{
	static const uint8_t code[] = {0x48, 0x8d, 0x35, 0x00, 0x03, 0x00, 0x00, 0x0f, 0xb6, 0x07,
				       0x48, 0x63, 0x04, 0x86, 0x48, 0x01, 0xf0, 0xff, 0xe0};
	struct x86_jtab jt;

	assert_int_equal(jtab_of(code, sizeof(code), 0, &jt), 0);
	assert_int_equal(jt.entries, 256);
}

/* cmp dword [rbp-4],8; ja +0xa1; mov eax,[rbp-4]; lea rdx,[rax*4+0];
 * lea rax,[rip+0xb66]; mov eax,[rdx+rax]; cdqe; lea rdx,[rip+0xb5a];
 * add rax,rdx; jmp rax  (GCC 12 -O0, PIE and -no-pie: bound on the slot) */
static const uint8_t gcc_o0[] = {0x83, 0x7d, 0xfc, 0x08, 0x0f, 0x87, 0xa1, 0x00, 0x00, 0x00,
				 0x8b, 0x45, 0xfc, 0x48, 0x8d, 0x14, 0x85, 0x00, 0x00, 0x00,
				 0x00, 0x48, 0x8d, 0x05, 0x66, 0x0b, 0x00, 0x00, 0x8b, 0x04,
				 0x02, 0x48, 0x98, 0x48, 0x8d, 0x15, 0x5a, 0x0b, 0x00, 0x00,
				 0x48, 0x01, 0xd0, 0xff, 0xe0};

static void test_gcc_o0(void **state)
{
	struct x86_jtab jt;

	assert_int_equal(jtab_of(gcc_o0, sizeof(gcc_o0), 0x1482, &jt), 0);
	assert_int_equal(jt.table, 0x2004);
	assert_int_equal(jt.entries, 9);
	assert_int_equal(jt.entry_size, 4);
}

/* The same with what must not pass: a store to the slot between the
 * check and the load (mov dword [rbp-4],20); the second lea naming
 * another table; the load from another slot than the one checked. */
static void test_gcc_o0_bad(void **state)
{
	uint8_t c[sizeof(gcc_o0) + 7];
	struct x86_jtab jt;

	memcpy(c, gcc_o0, 10);
	memcpy(c + 10, (const uint8_t[]){0xc7, 0x45, 0xfc, 0x14, 0x00, 0x00, 0x00}, 7);
	memcpy(c + 17, gcc_o0 + 10, sizeof(gcc_o0) - 10);
	assert_int_not_equal(jtab_of(c, sizeof(c), 0x1482, &jt), 0);
	memcpy(c, gcc_o0, sizeof(gcc_o0));
	c[36] = 0x5b; /* lea rdx,[rip+0xb5b]: not the table the entries came from */
	assert_int_not_equal(jtab_of(c, sizeof(gcc_o0), 0x1482, &jt), 0);
	memcpy(c, gcc_o0, sizeof(gcc_o0));
	c[12] = 0xf8; /* mov eax,[rbp-8] */
	assert_int_not_equal(jtab_of(c, sizeof(gcc_o0), 0x1482, &jt), 0);
}

/* mov eax,[rbp-4]; mov [rbp-0x18],rax; sub rax,9; ja +0x8f;
 * mov rax,[rbp-0x18]; lea rcx,[rip+0xd95]; movsxd rax,[rcx+rax*4];
 * add rax,rcx; jmp rax  (clang 14 -O0: the check on a copy kept in a slot) */
static void test_clang_o0(void **state)
{
	static const uint8_t code[] = {0x8b, 0x45, 0xfc, 0x48, 0x89, 0x45, 0xe8, 0x48, 0x83,
				       0xe8, 0x09, 0x0f, 0x87, 0x8f, 0x00, 0x00, 0x00, 0x48,
				       0x8b, 0x45, 0xe8, 0x48, 0x8d, 0x0d, 0x95, 0x0d, 0x00,
				       0x00, 0x48, 0x63, 0x04, 0x81, 0x48, 0x01, 0xc8, 0xff,
				       0xe0};
	struct x86_jtab jt;

	uint8_t c[sizeof(code)];

	assert_int_equal(jtab_of(code, sizeof(code), 0x1253, &jt), 0);
	assert_int_equal(jt.table, 0x2004);
	assert_int_equal(jt.entries, 10);
	/* sub eax,9 (no REX.W): a 32-bit check of a 64-bit copy bounds nothing */
	memcpy(c, code, sizeof(c));
	c[7] = 0x90; /* nop, then 83 e8 09 */
	assert_int_not_equal(jtab_of(c, sizeof(c), 0x1253, &jt), 0);
}

/* The PIC shape without any bound check: its size is unknown. */
static void test_no_bound(void **state)
{
	static const uint8_t code[] = {0x48, 0x8d, 0x15, 0x00, 0x01, 0x00, 0x00, 0x48,
				       0x63, 0x04, 0x82, 0x48, 0x01, 0xd0, 0xff, 0xe0};
	struct x86_jtab jt;

	assert_int_equal(jtab_of(code, sizeof(code), 0, &jt), -ENOENT);
}

/* cmp eax,8; ja; lea rdx,[rip+0x100]; add eax,1; movsxd ...: the index
 * changed after its check, so the check bounds nothing. */
static void test_index_changed(void **state)
{
	static const uint8_t code[] = {0x83, 0xf8, 0x08, 0x77, 0x13, 0x48, 0x8d, 0x15,
				       0x00, 0x01, 0x00, 0x00, 0x83, 0xc0, 0x01, 0x48,
				       0x63, 0x04, 0x82, 0x48, 0x01, 0xd0, 0xff, 0xe0};
	struct x86_jtab jt;

	assert_int_equal(jtab_of(code, sizeof(code), 0, &jt), -ENOENT);
}

/* mov rax,[rbx+0x18]; pop rbx; jmp rax: a tail call, not a table. */
static void test_tail_call(void **state)
{
	static const uint8_t code[] = {0x48, 0x8b, 0x43, 0x18, 0x5b, 0xff, 0xe0};
	struct x86_jtab jt;

	assert_int_equal(jtab_of(code, sizeof(code), 0, &jt), -ENOENT);
}

/* Split code into instructions and ask whether the last jmp is a tail call. */
static int tail_of(const uint8_t *code, size_t len)
{
	const uint8_t *bytes[MAX_INSNS];
	size_t avail[MAX_INSNS], n = 0, off = 0;
	uint64_t addrs[MAX_INSNS];
	struct x86_insn in;

	while (off < len) {
		assert_true(n < MAX_INSNS);
		assert_int_equal(x86_decode(code + off, len - off, 0x2000 + off, &in), 0);
		bytes[n] = code + off;
		avail[n] = len - off;
		addrs[n++] = 0x2000 + off;
		off += in.len;
	}
	return x86_tail_jump(bytes, avail, addrs, n);
}

/* Tail calls through a pointer loaded without an index are accepted; table
 * shapes (an index, an add of a base, a register not loaded) are not. */
static void test_tail_shapes(void **state)
{
	/* mov rax,[rbx+0x18]; pop rbx; jmp rax */
	static const uint8_t reg[] = {0x48, 0x8b, 0x43, 0x18, 0x5b, 0xff, 0xe0};
	/* mov rax,[rip+0x100]; jmp [rax+0x90]  (sqlite3_mutex_leave) */
	static const uint8_t field[] = {0x48, 0x8b, 0x05, 0x00, 0x01, 0x00, 0x00,
					0xff, 0xa0, 0x90, 0x00, 0x00, 0x00};
	/* jmp [rip+0x100]  (the GOT) */
	static const uint8_t got[] = {0xff, 0x25, 0x00, 0x01, 0x00, 0x00};
	/* mov rax,[rdx+rcx*8]; jmp rax  (an index: a table) */
	static const uint8_t idx[] = {0x48, 0x8b, 0x04, 0xca, 0xff, 0xe0};
	/* lea rax,[rip+0x100]; jmp rax  (not a load) */
	static const uint8_t lea[] = {0x48, 0x8d, 0x05, 0x00, 0x01, 0x00, 0x00, 0xff, 0xe0};
	/* jmp rax, rax set elsewhere */
	static const uint8_t bare[] = {0xff, 0xe0};
	/* the PIC table of test_pic; jmp [rax*8+0x402008] of test_nonpic */
	static const uint8_t pic[] = {0x83, 0xf8, 0x08, 0x77, 0x12, 0x48, 0x8d, 0x15,
				      0x00, 0x01, 0x00, 0x00, 0x89, 0xc0, 0x48, 0x63,
				      0x04, 0x82, 0x48, 0x01, 0xd0, 0xff, 0xe0};
	static const uint8_t abs8[] = {0xff, 0x24, 0xc5, 0x08, 0x20, 0x40, 0x00};

	assert_int_equal(tail_of(reg, sizeof(reg)), 1);
	assert_int_equal(tail_of(field, sizeof(field)), 1);
	assert_int_equal(tail_of(got, sizeof(got)), 1);
	assert_int_equal(tail_of(idx, sizeof(idx)), 0);
	assert_int_equal(tail_of(lea, sizeof(lea)), 0);
	assert_int_equal(tail_of(bare, sizeof(bare)), 0);
	assert_int_equal(tail_of(pic, sizeof(pic)), 0);
	assert_int_equal(tail_of(abs8, sizeof(abs8)), 0);
}

/* GCC -O2 shapes from Debian's libsqlite3 (sqlite3VdbeExec, sqlite3Parser,
 * sqlite3Pragma). Each was refused, which left the code its table reaches
 * unknown to the planners ("not reached from its code").
 *
 * cmp r15b,0xb5; ja +0x14; lea rcx,[rip+0x100]; movzx edx,r15b;
 * movsxd rax,[rcx+rdx*4]; add rax,rcx; jmp rax
 * (the imm8 0xb5 is -75 to the decoder: ja compares unsigned bytes) */
static void test_byte_cmp_other_reg(void **state)
{
	static const uint8_t code[] = {0x41, 0x80, 0xff, 0xb5, 0x77, 0x14, 0x48, 0x8d, 0x0d,
				       0x00, 0x01, 0x00, 0x00, 0x41, 0x0f, 0xb6, 0xd7, 0x48,
				       0x63, 0x04, 0x91, 0x48, 0x01, 0xc8, 0xff, 0xe0};
	struct x86_jtab jt;

	assert_int_equal(jtab_of(code, sizeof(code), 0x1000, &jt), 0);
	assert_int_equal(jt.table, 0x1000 + 13 + 0x100);
	assert_int_equal(jt.entries, 0xb6);
}

/* mov rax,r12; test bl,bl; jne +0; cmp eax,0x155; ja +0x10;
 * lea rdx,[rip+0x100]; movsxd rax,[rdx+r12*4]; add rax,rdx; jmp rax
 * (the bound is checked on a copy of the index) */
static void test_cmp_of_copy(void **state)
{
	static const uint8_t code[] = {0x4c, 0x89, 0xe0, 0x84, 0xdb, 0x75, 0x00, 0x3d,
				       0x55, 0x01, 0x00, 0x00, 0x77, 0x10, 0x48, 0x8d,
				       0x15, 0x00, 0x01, 0x00, 0x00, 0x4a, 0x63, 0x04,
				       0xa2, 0x48, 0x01, 0xd0, 0xff, 0xe0};
	struct x86_jtab jt;

	assert_int_equal(jtab_of(code, sizeof(code), 0x1000, &jt), 0);
	assert_int_equal(jt.table, 0x1000 + 21 + 0x100);
	assert_int_equal(jt.entries, 0x156);
}

/* cmp byte [r10+8],0x2b; ja +0x15; movzx eax,byte [r10+8];
 * lea rdx,[rip+0x100]; movsxd rax,[rdx+rax*4]; add rax,rdx; jmp rax
 * (the byte in memory is checked, then loaded: 0x2c entries, not 256) */
static void test_byte_mem_bound(void **state)
{
	static const uint8_t code[] = {0x41, 0x80, 0x7a, 0x08, 0x2b, 0x77, 0x15, 0x41, 0x0f, 0xb6,
				       0x42, 0x08, 0x48, 0x8d, 0x15, 0x00, 0x01, 0x00, 0x00, 0x48,
				       0x63, 0x04, 0x82, 0x48, 0x01, 0xd0, 0xff, 0xe0};
	struct x86_jtab jt;

	assert_int_equal(jtab_of(code, sizeof(code), 0x1000, &jt), 0);
	assert_int_equal(jt.table, 0x1000 + 19 + 0x100);
	assert_int_equal(jt.entries, 0x2c);
}

/*
 * GCC -O2 hoists a table's base out of a loop (Debian's
 * sqlite3_str_vappendf: lea r15, [rip+T] 37 instructions before the jmp,
 * two calls in between). Built here: lea B,[rip+0x200]; mov r13,r11;
 * MIDDLE; 14 x (mov rdi,[rsp+8]; xor r10d,r10d); lea edx,[rax-0x20];
 * cmp edx,0x4c; ja +0x3e; movsxd rdx,[B+rdx*4]; add rdx,B; jmp rdx:
 * 35 instructions, the lea 34 before the jmp (outside the 24 looked at
 * first). B = r15 or rcx.
 */
static size_t far_base_code(uint8_t *code, int r15, const uint8_t *mid, size_t nmid)
{
	static const uint8_t fill[] = {0x48, 0x8b, 0x7c, 0x24, 0x08, 0x45, 0x31, 0xd2};
	static const uint8_t cmp[] = {0x8d, 0x50, 0xe0, 0x83, 0xfa, 0x4c, 0x77, 0x3e};
	const uint8_t lea[] = {r15 ? 0x4c : 0x48, 0x8d, r15 ? 0x3d : 0x0d, 0x00, 0x02, 0x00, 0x00,
			       0x4d, 0x89, 0xdd};
	const uint8_t tail[] = {r15 ? 0x49 : 0x48, 0x63, 0x14, r15 ? 0x97 : 0x91,
				r15 ? 0x4c : 0x48, 0x01, r15 ? 0xfa : 0xca, 0xff, 0xe2};
	size_t n = 0;

	memcpy(code + n, lea, sizeof(lea)), n += sizeof(lea);
	memcpy(code + n, mid, nmid), n += nmid;
	for (int i = 0; i < 14; i++)
		memcpy(code + n, fill, sizeof(fill)), n += sizeof(fill);
	memcpy(code + n, cmp, sizeof(cmp)), n += sizeof(cmp);
	memcpy(code + n, tail, sizeof(tail)), n += sizeof(tail);
	return n;
}

static void test_far_base(void **state)
{
	static const uint8_t call[] = {0xe8, 0xfb, 0x0f, 0x00, 0x00}; /* call .+0x1000 */
	static const uint8_t jmp[] = {0xeb, 0x00};		      /* jmp .+2 */
	static const uint8_t nop[] = {0x90};
	static const uint8_t mov15[] = {0x49, 0x89, 0xc7};	      /* mov r15, rax */
	uint8_t code[256];
	struct x86_jtab jt;
	size_t n;

	/* r15 (callee-saved) over a call: the lea is found, 0x4d entries */
	n = far_base_code(code, 1, call, sizeof(call));
	assert_int_equal(jtab_of(code, n, 0x1000, &jt), 0);
	assert_int_equal(jt.table, 0x1000 + 7 + 0x200);
	assert_int_equal(jt.entries, 0x4d);
	assert_int_equal(jt.entry_size, 4);
	/* rcx over a call: the callee may have changed it */
	n = far_base_code(code, 0, call, sizeof(call));
	assert_int_equal(jtab_of(code, n, 0x1000, &jt), -ENOENT);
	/* rcx without a call: found */
	n = far_base_code(code, 0, nop, sizeof(nop));
	assert_int_equal(jtab_of(code, n, 0x1000, &jt), 0);
	assert_int_equal(jt.table, 0x1000 + 7 + 0x200);
	/* a jmp in between: the lea is not on the line that reaches the load */
	n = far_base_code(code, 1, jmp, sizeof(jmp));
	assert_int_equal(jtab_of(code, n, 0x1000, &jt), -ENOENT);
	/* r15 written in between (not by a lea [rip]): no table */
	n = far_base_code(code, 1, mov15, sizeof(mov15));
	assert_int_equal(jtab_of(code, n, 0x1000, &jt), -ENOENT);
}

/* zstd's BIT_initDStream (Debian's /usr/bin/zstd, libzstd linked in, at
 * 0x91f0): the bound check jumps to the table's code, whose other way
 * ends in a ret before it:
 *	mov rcx,rsi; mov rax,rdx; test rdx,rdx; je; ...; cmp rax,7; jbe L;
 *	...; ret; nop; L: lea r9,[rip+T]; mov [rdi+0x10],rcx;
 *	movzx edx,byte [rcx]; movsxd r8,[r9+rax*4]; mov [rdi],rdx;
 *	add r8,r9; jmp r8
 * and a copy of it (0xda350) that checks rdx, of which rax is a copy:
 *	mov rax,rdx; ...; cmp rdx,7; jbe L; ...; ret; nopw; L: ... */
static const uint8_t zstd_init1[] = {
    0x48, 0x89, 0xf1, 0x48, 0x89, 0xd0, 0x48, 0x85, 0xd2, 0x0f, 0x84, 0xf9, 0x00, 0x00, 0x00,
    0x48, 0x8d, 0x56, 0x08, 0x48, 0x89, 0x77, 0x18, 0x48, 0x8d, 0x74, 0x06, 0xff, 0x48, 0x89,
    0x57, 0x20, 0x48, 0x83, 0xf8, 0x07, 0x76, 0x2a, 0x48, 0x8d, 0x54, 0x01, 0xf8, 0x48, 0x89,
    0x57, 0x10, 0x48, 0x8b, 0x12, 0x48, 0x89, 0x17, 0x0f, 0xb6, 0x16, 0x84, 0xd2, 0x0f, 0x85,
    0xb8, 0x00, 0x00, 0x00, 0xc7, 0x47, 0x08, 0x00, 0x00, 0x00, 0x00, 0x48, 0xc7, 0xc0, 0xff,
    0xff, 0xff, 0xff, 0xc3, 0x90, 0x4c, 0x8d, 0x0d, 0x19, 0x66, 0x0f, 0x00, 0x48, 0x89, 0x4f,
    0x10, 0x0f, 0xb6, 0x11, 0x4d, 0x63, 0x04, 0x81, 0x48, 0x89, 0x17, 0x4d, 0x01, 0xc8, 0x41,
    0xff, 0xe0};
static const uint8_t zstd_init2[] = {
    0x48, 0x89, 0xf9, 0x48, 0x89, 0xd0, 0x48, 0x85, 0xd2, 0x0f, 0x84, 0xf1, 0x00, 0x00, 0x00,
    0x48, 0x8d, 0x7c, 0x16, 0xff, 0x48, 0x83, 0xfa, 0x07, 0x76, 0x36, 0x48, 0x8d, 0x54, 0x16,
    0xf8, 0x48, 0x89, 0x71, 0x18, 0x48, 0x89, 0x51, 0x10, 0x48, 0x8b, 0x12, 0x48, 0x89, 0x11,
    0x0f, 0xb6, 0x17, 0x84, 0xd2, 0x0f, 0x84, 0xb8, 0x00, 0x00, 0x00, 0x0f, 0xbd, 0xf2, 0xba,
    0x08, 0x00, 0x00, 0x00, 0x29, 0xf2, 0x89, 0x51, 0x08, 0xc3, 0x66, 0x2e, 0x0f, 0x1f, 0x84,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x4c, 0x8d, 0x0d, 0x19, 0xfe, 0x03, 0x00, 0x66, 0x48, 0x0f,
    0x6e, 0xc6, 0x4d, 0x63, 0x04, 0x81, 0x66, 0x0f, 0x6c, 0xc0, 0x0f, 0x11, 0x41, 0x10, 0x0f,
    0xb6, 0x16, 0x4d, 0x01, 0xc8, 0x48, 0x89, 0x11, 0x41, 0xff, 0xe0};

static void test_bound_jumps_to_table(void **state)
{
	uint8_t code[sizeof(zstd_init2)];
	struct x86_jtab jt;

	assert_int_equal(jtab_of(zstd_init1, sizeof(zstd_init1), 0x91f0, &jt), 0);
	assert_int_equal(jt.table, 0x9240 + 7 + 0xf6619);
	assert_int_equal(jt.entries, 8);
	assert_int_equal(jt.entry_size, 4);
	assert_int_equal(jtab_of(zstd_init2, sizeof(zstd_init2), 0xda350, &jt), 0);
	assert_int_equal(jt.table, 0xda3a0 + 7 + 0x3fe19);
	assert_int_equal(jt.entries, 8);
	/* the jbe to the nop before the table's code: that is not where the
	 * table's block starts, and the line before it writes rax (mov
	 * rax,-1): no table */
	memcpy(code, zstd_init1, sizeof(zstd_init1));
	code[37] = 0x29;
	assert_int_equal(jtab_of(code, sizeof(zstd_init1), 0x91f0, &jt), -ENOENT);
	/* rax written between its copy's check and the jbe (mov rax,rdx
	 * becomes mov rax,rsi): rdx's bound says nothing of rax */
	memcpy(code, zstd_init2, sizeof(zstd_init2));
	code[5] = 0xf0;
	assert_int_not_equal(jtab_of(code, sizeof(zstd_init2), 0xda350, &jt), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_pic),		 cmocka_unit_test(test_nonpic),
	    cmocka_unit_test(test_gcc_o0),	 cmocka_unit_test(test_gcc_o0_bad),
	    cmocka_unit_test(test_clang_o0),
	    cmocka_unit_test(test_copy_and_lea), cmocka_unit_test(test_byte_index),
	    cmocka_unit_test(test_no_bound),	 cmocka_unit_test(test_index_changed),
	    cmocka_unit_test(test_tail_call),	 cmocka_unit_test(test_copy_after),
	    cmocka_unit_test(test_tail_shapes),
	    cmocka_unit_test(test_byte_cmp_other_reg), cmocka_unit_test(test_cmp_of_copy),
	    cmocka_unit_test(test_byte_mem_bound), cmocka_unit_test(test_far_base),
	    cmocka_unit_test(test_bound_jumps_to_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
