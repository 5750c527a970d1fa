// SPDX-License-Identifier: MIT
/*
 * test_a64_gdb.c - the aarch64 gdb server's layout, checked on any host
 * (src/arch/aarch64/a64_gdb_regs.c, src/replay/gdbsrv_bp.c): where each of
 * gdb's aarch64 register numbers lies in the kernel's NT_PRSTATUS and
 * NT_FPREGSET sets, the `g` packet those give (gdb's order: x0-x30, sp, pc,
 * cpsr in 4 bytes, v0-v31, fpsr, fpcr), the target description's features
 * and register numbers, and the program's bytes under 4-byte BRK #0
 * breakpoints (0xd4200000) read and written across them in part, the
 * watchpoints' control words (NT_ARM_HW_WATCH). The x86
 * side's description is counted too (60 registers, unchanged).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "arch/arch_gdb.h"
#include "replay/gdbsrv_bp.h"
#include "replay/gdbsrv_int.h"
#if defined(__aarch64__)
#include "arch/aarch64/a64_gdb_regs.h"
#else
/* not in the x86-64 build's objects: compiled here */
#include "../../src/arch/aarch64/a64_gdb_regs.c"
#endif

#define BRK0 0xd4200000u

static int count(const char *s, const char *what)
{
	int n = 0;

	for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

static void test_loc(void **state)
{
	int set, size;
	size_t off;

	assert_int_equal(a64_gdb_reg_loc(0, &set, &off, &size), 0);
	assert_int_equal(set, A64_GDB_SET_GPR);
	assert_int_equal(off, 0);
	assert_int_equal(size, 8);
	assert_int_equal(a64_gdb_reg_loc(30, &set, &off, &size), 0);
	assert_int_equal(off, 240);
	assert_int_equal(a64_gdb_reg_loc(A64_GDB_SP, &set, &off, &size), 0);
	assert_int_equal(off, 248); /* user_pt_regs.sp */
	assert_int_equal(a64_gdb_reg_loc(A64_GDB_PC, &set, &off, &size), 0);
	assert_int_equal(off, 256);
	assert_int_equal(size, 8);
	assert_int_equal(a64_gdb_reg_loc(A64_GDB_CPSR, &set, &off, &size), 0);
	assert_int_equal(off, 264); /* pstate's low half: little endian */
	assert_int_equal(size, 4);
	assert_int_equal(a64_gdb_reg_loc(A64_GDB_V0, &set, &off, &size), 0);
	assert_int_equal(set, A64_GDB_SET_FP);
	assert_int_equal(off, 0);
	assert_int_equal(size, 16);
	assert_int_equal(a64_gdb_reg_loc(A64_GDB_V0 + 31, &set, &off, &size), 0);
	assert_int_equal(off, 31 * 16);
	assert_int_equal(a64_gdb_reg_loc(A64_GDB_FPSR, &set, &off, &size), 0);
	assert_int_equal(off, 512); /* user_fpsimd_state.fpsr */
	assert_int_equal(size, 4);
	assert_int_equal(a64_gdb_reg_loc(A64_GDB_FPCR, &set, &off, &size), 0);
	assert_int_equal(off, 516);
	assert_int_equal(a64_gdb_reg_loc(A64_GDB_NREGS, &set, &off, &size), -EINVAL);
	assert_int_equal(a64_gdb_reg_loc(-1, &set, &off, &size), -EINVAL);
	assert_true(A64_GDB_GPR_BYTES >= 264 + 8);
	assert_true(A64_GDB_FP_BYTES >= 516 + 4);
}

/* The `g` packet of a thread whose register sets are known, as gdbsrv.c
 * builds it (each register's bytes in hex, in gdb's order). */
static void test_g_packet(void **state)
{
	uint8_t gpr[A64_GDB_GPR_BYTES], fp[A64_GDB_FP_BYTES];
	static char g[4096];
	size_t o = 0;

	for (int i = 0; i < 34; i++) {
		uint64_t v = 0x1000000000000000ull * (uint64_t)(i % 16) + (uint64_t)i;

		memcpy(gpr + 8 * i, &v, 8);
	}
	{
		uint64_t pstate = 0xffffffff60001000ull; /* upper half not gdb's */

		memcpy(gpr + 264, &pstate, 8);
	}
	for (size_t i = 0; i < sizeof(fp); i++)
		fp[i] = (uint8_t)i;
	for (int r = 0; r < A64_GDB_NREGS; r++) {
		int set, size;
		size_t off;

		assert_int_equal(a64_gdb_reg_loc(r, &set, &off, &size), 0);
		gdbsrv_hex(g + o, (set == A64_GDB_SET_GPR ? gpr : fp) + off, (size_t)size);
		o += 2 * (size_t)size;
	}
	/* 31*8 + 8 + 8 + 4 + 32*16 + 4 + 4 bytes */
	assert_int_equal(o, 2 * 788);
	assert_memory_equal(g, "0000000000000000", 16);				  /* x0 */
	assert_memory_equal(g + 16, "0100000000000010", 16);			  /* x1 */
	assert_memory_equal(g + 2 * 8 * 31, "1f000000000000f0", 16);		  /* sp */
	assert_memory_equal(g + 2 * 8 * 32, "2000000000000000", 16);		  /* pc */
	assert_memory_equal(g + 2 * 8 * 33, "00100060", 8);			  /* cpsr */
	assert_memory_equal(g + 2 * 268, "000102030405060708090a0b0c0d0e0f", 32); /* v0 */
	assert_memory_equal(g + 2 * (268 + 16 * 31), "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff", 32);
	assert_memory_equal(g + 2 * 780, "00010203", 8); /* fpsr: byte 512 (mod 256) */
	assert_memory_equal(g + 2 * 784, "04050607", 8); /* fpcr */
}

static void test_xml(void **state)
{
	size_t len;
	const char *x = a64_gdb_target_xml(&len);

	assert_int_equal(strlen(x), len);
	assert_non_null(strstr(x, "<architecture>aarch64</architecture>"));
	assert_non_null(strstr(x, "<feature name=\"org.gnu.gdb.aarch64.core\">"));
	assert_non_null(strstr(x, "<feature name=\"org.gnu.gdb.aarch64.fpu\">"));
	assert_int_equal(count(x, "<reg "), A64_GDB_NREGS);
	assert_non_null(strstr(x, "<reg name=\"x30\" bitsize=\"64\" regnum=\"30\"/>"));
	assert_non_null(
	    strstr(x, "<reg name=\"sp\" bitsize=\"64\" type=\"data_ptr\" regnum=\"31\"/>"));
	assert_non_null(
	    strstr(x, "<reg name=\"pc\" bitsize=\"64\" type=\"code_ptr\" regnum=\"32\"/>"));
	assert_non_null(
	    strstr(x, "<reg name=\"cpsr\" bitsize=\"32\" type=\"cpsr_flags\" regnum=\"33\"/>"));
	assert_non_null(
	    strstr(x, "<reg name=\"v0\" bitsize=\"128\" type=\"aarch64v\" regnum=\"34\"/>"));
	assert_non_null(
	    strstr(x, "<reg name=\"v31\" bitsize=\"128\" type=\"aarch64v\" regnum=\"65\"/>"));
	assert_non_null(strstr(x, "<reg name=\"fpcr\" bitsize=\"32\" regnum=\"67\"/>"));
	/* the types it names are defined before */
	assert_true(strstr(x, "id=\"aarch64v\"") < strstr(x, "type=\"aarch64v\""));
	assert_true(strstr(x, "id=\"cpsr_flags\"") < strstr(x, "type=\"cpsr_flags\""));
	/* the same text again (built once) */
	assert_ptr_equal(a64_gdb_target_xml(&len), x);
}

/* This build's own description: every register of its count, once. */
static void test_host_xml(void **state)
{
	size_t len;
	const char *x = arch_gdb_target_xml(&len);

	assert_int_equal(count(x, "<reg "), ARCH_GDB_NREGS);
	for (int r = 0; r < ARCH_GDB_NREGS; r++)
		assert_true(arch_gdb_reg_size(r) > 0 && arch_gdb_reg_size(r) <= ARCH_GDB_REG_MAX);
	assert_int_equal(arch_gdb_reg_size(ARCH_GDB_NREGS), -EINVAL);
#if defined(__aarch64__)
	assert_int_equal(ARCH_GDB_BP_LEN, 4);
	assert_memory_equal(arch_gdb_bp_insn, "\x00\x00\x20\xd4", 4);
	assert_int_equal(arch_gdb_trap_bp_addr(0x400100), 0x400100);
#else
	assert_int_equal(ARCH_GDB_NREGS, 60);
	assert_int_equal(arch_gdb_bp_insn[0], 0xcc);
	assert_int_equal(arch_gdb_trap_bp_addr(0x400101), 0x400100);
#endif
}

/* 4-byte breakpoints at 0x1004 and 0x100c over code words: what gdb reads
 * of any range is the code, what it writes under one is kept as the code. */
static void test_brk_bytes(void **state)
{
	uint32_t code[6] = {0xa9bf7bfd, 0x910003fd, 0x52800540, 0x94000010, 0xa8c17bfd, 0xd65f03c0};
	uint8_t mem[24], orig[2][4], buf[24];
	uint64_t bp[2] = {0x1004, 0x100c};
	const uint64_t base = 0x1000;
	uint32_t brk = BRK0, w;

	memcpy(mem, code, sizeof(mem));
	for (int i = 0; i < 2; i++) { /* insert: save, write BRK */
		memcpy(orig[i], mem + (bp[i] - base), 4);
		memcpy(mem + (bp[i] - base), &brk, 4);
	}
	memcpy(&w, mem + 4, 4);
	assert_int_equal(w, BRK0);
	/* every range, every length: the code comes back */
	for (size_t a = 0; a < sizeof(mem); a++)
		for (size_t n = 1; a + n <= sizeof(mem); n++) {
			memcpy(buf, mem + a, n);
			gdbsrv_bp_hide(bp, 2, &orig[0][0], 4, base + a, buf, n);
			assert_memory_equal(buf, (uint8_t *)code + a, n);
		}
	assert_true(gdbsrv_bp_overlaps(0x1004, 4, 0x1007, 1));
	assert_false(gdbsrv_bp_overlaps(0x1004, 4, 0x1008, 4));
	assert_false(gdbsrv_bp_overlaps(0x1004, 4, 0x1000, 4));
	assert_true(gdbsrv_bp_overlaps(0x1004, 4, 0x1000, 5));
	/* gdb writes 2 bytes across the first breakpoint's end: those are
	 * the program's now, the other two stay the saved ones */
	{
		const uint8_t two[2] = {0x11, 0x22};

		gdbsrv_bp_learn(bp, 2, &orig[0][0], 4, 0x1007, two, 2);
		assert_int_equal(orig[0][3], 0x11);
		assert_int_equal(orig[0][2], ((uint8_t *)&code[1])[2]);
		assert_memory_equal(orig[1], &code[3], 4);
	}
	/* one byte breakpoints (x86-64 int3) the same way */
	{
		uint8_t o1 = 0x55, b[3] = {0x90, 0xcc, 0x90};
		uint64_t at = 0x2001;

		gdbsrv_bp_hide(&at, 1, &o1, 1, 0x2000, b, 3);
		assert_int_equal(b[1], 0x55);
	}
}

/* DBGWCR of a watchpoint (gdb's aarch64-linux-hw-point.c encodes the
 * same): E bit 0, PAC EL0 (2) at bits 1-2, LSC at 3-4 (load 1, store 2,
 * both 3), BAS at 5-12: the bytes of the aligned 8 watched */
static void test_watch_ctrl(void **state)
{
	(void)state;
	/* 8 bytes at an aligned address, written: BAS 0xff, LSC store */
	assert_int_equal(a64_gdb_watch_ctrl(0x1000, 8, 2), 1u | 4u | (2u << 3) | (0xffu << 5));
	/* 4 bytes at +4, read: BAS 0xf0, LSC load */
	assert_int_equal(a64_gdb_watch_ctrl(0x1004, 4, 3), 1u | 4u | (1u << 3) | (0xf0u << 5));
	/* 1 byte at +7, accessed: BAS 0x80, LSC both */
	assert_int_equal(a64_gdb_watch_ctrl(0x1007, 1, 4), 1u | 4u | (3u << 3) | (0x80u << 5));
	/* 2 bytes at +2 */
	assert_int_equal(a64_gdb_watch_ctrl(0x1002, 2, 2) >> 5, 0x0cu);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_loc),	      cmocka_unit_test(test_g_packet),
	    cmocka_unit_test(test_xml),	      cmocka_unit_test(test_host_xml),
	    cmocka_unit_test(test_brk_bytes), cmocka_unit_test(test_watch_ctrl),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
