// SPDX-License-Identifier: MIT
/*
 * x86_gdb.c - the x86-64 side of `spool replay --gdbserver` (arch_gdb.h):
 * the target description gdb reads (qXfer:features:read:target.xml, the
 * features org.gnu.gdb.i386.core, .sse, .linux and .segments, in gdb's
 * register order) and the register numbers of that order read and written
 * with PTRACE_GETREGS / PTRACE_GETFPREGS; int3 breakpoints; watchpoints in
 * the debug registers DR0-3 (PTRACE_POKEUSER). Register numbers:
 *   0-15 rax..r15, 16 rip, 17 eflags, 18-23 cs ss ds es fs gs,
 *   24-31 st0-7, 32-39 fctrl fstat ftag fiseg fioff foseg fooff fop,
 *   40-55 xmm0-15, 56 mxcsr, 57 orig_rax, 58 fs_base, 59 gs_base.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/user.h>

#include "../../replay/gdbsrv_int.h"
#include "../arch_gdb.h"

#define DR_OFF(i) (offsetof(struct user, u_debugreg) + (size_t)(i) * sizeof(long))

const uint8_t arch_gdb_bp_insn[ARCH_GDB_BP_LEN] = {0xcc};

/* user_regs_struct offsets of 0-23 and 57-59 */
static const int gpr_off[] = {
	offsetof(struct user_regs_struct, rax), offsetof(struct user_regs_struct, rbx),
	offsetof(struct user_regs_struct, rcx), offsetof(struct user_regs_struct, rdx),
	offsetof(struct user_regs_struct, rsi), offsetof(struct user_regs_struct, rdi),
	offsetof(struct user_regs_struct, rbp), offsetof(struct user_regs_struct, rsp),
	offsetof(struct user_regs_struct, r8),	offsetof(struct user_regs_struct, r9),
	offsetof(struct user_regs_struct, r10), offsetof(struct user_regs_struct, r11),
	offsetof(struct user_regs_struct, r12), offsetof(struct user_regs_struct, r13),
	offsetof(struct user_regs_struct, r14), offsetof(struct user_regs_struct, r15),
	offsetof(struct user_regs_struct, rip), offsetof(struct user_regs_struct, eflags),
	offsetof(struct user_regs_struct, cs),	offsetof(struct user_regs_struct, ss),
	offsetof(struct user_regs_struct, ds),	offsetof(struct user_regs_struct, es),
	offsetof(struct user_regs_struct, fs),	offsetof(struct user_regs_struct, gs),
};

int arch_gdb_reg_size(int regno)
{
	if (regno < 0 || regno >= ARCH_GDB_NREGS)
		return -EINVAL;
	if (regno < 17 || regno >= 57)
		return 8;
	if (regno < 24)
		return 4;
	if (regno < 32)
		return 10;
	if (regno < 40)
		return 4;
	if (regno < 56)
		return 16;
	return 4;
}

static uint64_t *gpr_slot(struct user_regs_struct *u, int regno)
{
	size_t off;

	if (regno < 24)
		off = (size_t)gpr_off[regno];
	else if (regno == 57)
		off = offsetof(struct user_regs_struct, orig_rax);
	else if (regno == 58)
		off = offsetof(struct user_regs_struct, fs_base);
	else
		off = offsetof(struct user_regs_struct, gs_base);
	return (uint64_t *)((char *)u + off);
}

static int is_gpr(int regno)
{
	return regno < 24 || regno >= 57;
}

/* The 32-bit values of fctrl..fop and mxcsr from the FXSAVE image. */
static uint32_t fp_get32(const struct user_fpregs_struct *f, int regno)
{
	uint32_t ftw = 0;

	switch (regno) {
	case 32:
		return f->cwd;
	case 33:
		return f->swd;
	case 34: /* the abridged tag (a bit per register) to i387's two bits */
		for (int i = 0; i < 8; i++)
			ftw |= (f->ftw & (1u << i) ? 0u : 3u) << (2 * i);
		return ftw;
	case 35:
		return (uint32_t)(f->rip >> 32) & 0xffff;
	case 36:
		return (uint32_t)f->rip;
	case 37:
		return (uint32_t)(f->rdp >> 32) & 0xffff;
	case 38:
		return (uint32_t)f->rdp;
	case 39:
		return f->fop;
	default:
		return f->mxcsr;
	}
}

static void fp_set32(struct user_fpregs_struct *f, int regno, uint32_t v)
{
	uint16_t ab = 0;

	switch (regno) {
	case 32:
		f->cwd = (uint16_t)v;
		break;
	case 33:
		f->swd = (uint16_t)v;
		break;
	case 34:
		for (int i = 0; i < 8; i++)
			if (((v >> (2 * i)) & 3) != 3)
				ab |= (uint16_t)(1u << i);
		f->ftw = ab;
		break;
	case 36:
		f->rip = (f->rip & ~0xffffffffull) | v;
		break;
	case 38:
		f->rdp = (f->rdp & ~0xffffffffull) | v;
		break;
	case 39:
		f->fop = (uint16_t)v;
		break;
	case 56:
		f->mxcsr = v;
		break;
	default: /* the segment halves: not kept */
		break;
	}
}

int arch_gdb_reg_get(pid_t tid, int regno, uint8_t *out)
{
	int size = arch_gdb_reg_size(regno);

	if (size < 0)
		return size;
	if (is_gpr(regno)) {
		struct user_regs_struct u;
		uint64_t v;

		if (ptrace(PTRACE_GETREGS, tid, 0, &u) < 0)
			return -errno;
		v = *gpr_slot(&u, regno);
		memcpy(out, &v, (size_t)size); /* little endian: the low bytes */
		return size;
	}
	struct user_fpregs_struct f;

	if (ptrace(PTRACE_GETFPREGS, tid, 0, &f) < 0)
		return -errno;
	if (regno < 32)
		memcpy(out, (char *)f.st_space + 16 * (regno - 24), 10);
	else if (regno >= 40 && regno < 56)
		memcpy(out, (char *)f.xmm_space + 16 * (regno - 40), 16);
	else {
		uint32_t v = fp_get32(&f, regno);

		memcpy(out, &v, 4);
	}
	return size;
}

int arch_gdb_reg_set(pid_t tid, int regno, const uint8_t *in)
{
	int size = arch_gdb_reg_size(regno);

	if (size < 0)
		return size;
	if (is_gpr(regno)) {
		struct user_regs_struct u;
		uint64_t v = 0;

		if (ptrace(PTRACE_GETREGS, tid, 0, &u) < 0)
			return -errno;
		memcpy(&v, in, (size_t)size);
		if (size == 4) /* keep the upper half of eflags and the selectors */
			v |= *gpr_slot(&u, regno) & ~0xffffffffull;
		*gpr_slot(&u, regno) = v;
		return ptrace(PTRACE_SETREGS, tid, 0, &u) < 0 ? -errno : 0;
	}
	struct user_fpregs_struct f;

	if (ptrace(PTRACE_GETFPREGS, tid, 0, &f) < 0)
		return -errno;
	if (regno < 32)
		memcpy((char *)f.st_space + 16 * (regno - 24), in, 10);
	else if (regno >= 40 && regno < 56)
		memcpy((char *)f.xmm_space + 16 * (regno - 40), in, 16);
	else {
		uint32_t v;

		memcpy(&v, in, 4);
		fp_set32(&f, regno, v);
	}
	return ptrace(PTRACE_SETFPREGS, tid, 0, &f) < 0 ? -errno : 0;
}

/* --- the target description --- */

static const char *const reg_names[ARCH_GDB_NREGS] = {
	"rax",	 "rbx",	  "rcx",   "rdx",   "rsi",    "rdi",	"rbp",	   "rsp",   "r8",
	"r9",	 "r10",	  "r11",   "r12",   "r13",    "r14",	"r15",	   "rip",   "eflags",
	"cs",	 "ss",	  "ds",	   "es",    "fs",     "gs",	"st0",	   "st1",   "st2",
	"st3",	 "st4",	  "st5",   "st6",   "st7",    "fctrl",	"fstat",   "ftag",  "fiseg",
	"fioff", "foseg", "fooff", "fop",   "xmm0",   "xmm1",	"xmm2",	   "xmm3",  "xmm4",
	"xmm5",	 "xmm6",  "xmm7",  "xmm8",  "xmm9",   "xmm10",	"xmm11",   "xmm12", "xmm13",
	"xmm14", "xmm15", "mxcsr", "orig_rax", "fs_base", "gs_base",
};

static const char *reg_type(int i)
{
	if (i == 6 || i == 7)
		return "data_ptr";
	if (i == 16)
		return "code_ptr";
	if (i < 16 || i >= 57)
		return "int64";
	if (i == 17)
		return "i386_eflags";
	if (i < 24)
		return "int32";
	if (i < 32)
		return "i387_ext";
	if (i < 40)
		return "int";
	if (i < 56)
		return "vec128";
	return "i386_mxcsr";
}

static char xml[16384];
static size_t xml_len;

static void xml_add(const char *fmt, const char *a, int b, const char *c, const char *d)
{
	int n = snprintf(xml + xml_len, sizeof(xml) - xml_len, fmt, a, b, c, d);

	if (n > 0 && (size_t)n < sizeof(xml) - xml_len)
		xml_len += (size_t)n;
}

static void xml_feature(const char *name, int from, int to, const char *types)
{
	xml_add("<feature name=\"%s\">%.0d%s%s\n", name, 0, types, "");
	for (int i = from; i <= to; i++) {
		const char *group = i >= 32 && i < 40 ? " group=\"float\""
				    : i == 56	      ? " group=\"vector\""
							: "";

		xml_add("<reg name=\"%s\" bitsize=\"%d\" type=\"%s\"%s/>\n", reg_names[i],
			8 * (arch_gdb_reg_size(i) == 10 ? 10 : arch_gdb_reg_size(i)), reg_type(i), group);
	}
	xml_add("%s%.0d%s%s", "</feature>\n", 0, "", "");
}

const char *arch_gdb_target_xml(size_t *len)
{
	static const char eflags[] =
		"<flags id=\"i386_eflags\" size=\"4\"><field name=\"CF\" start=\"0\" end=\"0\"/>"
		"<field name=\"\" start=\"1\" end=\"1\"/><field name=\"PF\" start=\"2\" end=\"2\"/>"
		"<field name=\"AF\" start=\"4\" end=\"4\"/><field name=\"ZF\" start=\"6\" end=\"6\"/>"
		"<field name=\"SF\" start=\"7\" end=\"7\"/><field name=\"TF\" start=\"8\" end=\"8\"/>"
		"<field name=\"IF\" start=\"9\" end=\"9\"/><field name=\"DF\" start=\"10\" end=\"10\"/>"
		"<field name=\"OF\" start=\"11\" end=\"11\"/></flags>\n";
	static const char sse[] =
		"<vector id=\"v4f\" type=\"ieee_single\" count=\"4\"/>"
		"<vector id=\"v2d\" type=\"ieee_double\" count=\"2\"/>"
		"<vector id=\"v16i8\" type=\"int8\" count=\"16\"/>"
		"<vector id=\"v8i16\" type=\"int16\" count=\"8\"/>"
		"<vector id=\"v4i32\" type=\"int32\" count=\"4\"/>"
		"<vector id=\"v2i64\" type=\"int64\" count=\"2\"/>"
		"<union id=\"vec128\"><field name=\"v4_float\" type=\"v4f\"/>"
		"<field name=\"v2_double\" type=\"v2d\"/><field name=\"v16_int8\" type=\"v16i8\"/>"
		"<field name=\"v8_int16\" type=\"v8i16\"/><field name=\"v4_int32\" type=\"v4i32\"/>"
		"<field name=\"v2_int64\" type=\"v2i64\"/><field name=\"uint128\" type=\"uint128\"/>"
		"</union><flags id=\"i386_mxcsr\" size=\"4\"><field name=\"IE\" start=\"0\" end=\"0\"/>"
		"<field name=\"DE\" start=\"1\" end=\"1\"/><field name=\"ZE\" start=\"2\" end=\"2\"/>"
		"<field name=\"OE\" start=\"3\" end=\"3\"/><field name=\"UE\" start=\"4\" end=\"4\"/>"
		"<field name=\"PE\" start=\"5\" end=\"5\"/></flags>\n";

	if (!xml_len) {
		xml_add("%s%.0d%s%s",
			"<?xml version=\"1.0\"?>\n<!DOCTYPE target SYSTEM \"gdb-target.dtd\">\n"
			"<target><architecture>i386:x86-64</architecture><osabi>GNU/Linux</osabi>\n",
			0, "", "");
		xml_feature("org.gnu.gdb.i386.core", 0, 39, eflags);
		xml_feature("org.gnu.gdb.i386.sse", 40, 56, sse);
		xml_feature("org.gnu.gdb.i386.linux", 57, 57, "");
		xml_feature("org.gnu.gdb.i386.segments", 58, 59, "");
		xml_add("%s%.0d%s%s", "</target>\n", 0, "", "");
	}
	*len = xml_len;
	return xml;
}

/* --- traps and watchpoints --- */

int arch_gdb_trap_sw(const siginfo_t *si)
{
	return si->si_code == SI_KERNEL || si->si_code == TRAP_BRKPT;
}

uint64_t arch_gdb_trap_bp_addr(uint64_t pc)
{
	return pc - 1;
}

/* a step over `syscall` ends with TRAP_BRKPT (x86's user_single_step_report) */
int arch_gdb_trap_sysstep(const siginfo_t *si)
{
	return si->si_code == TRAP_BRKPT;
}

int arch_gdb_trap_hw(const siginfo_t *si)
{
	return si->si_code == TRAP_TRACE || si->si_code == TRAP_HWBKPT;
}

/* CPUID faulting: the #GP of a cpuid comes as SIGSEGV, SI_KERNEL
 * (x86_agent_cpuid.c answers it) */
int arch_gdb_spool_segv(const siginfo_t *si, const uint8_t *insn, size_t n)
{
	return si->si_signo == SIGSEGV && si->si_code == SI_KERNEL && n >= 2 && insn[0] == 0x0f &&
	       insn[1] == 0xa2;
}

int arch_gdb_watch_ok(uint64_t addr, uint32_t len, uint32_t type)
{
	return 0;
}

static unsigned long dr7_of(const struct gdbsrv_wp *wp, uint32_t n)
{
	unsigned long dr7 = 0;

	for (uint32_t i = 0; i < n; i++) {
		unsigned long rw = wp[i].type == 2 ? 1 : 3; /* no read-only: access */
		unsigned long ln = wp[i].len == 1 ? 0 : wp[i].len == 2 ? 1
						: wp[i].len == 8	     ? 2
										: 3;

		dr7 |= (1ul << (2 * i)) | (rw << (16 + 4 * i)) | (ln << (18 + 4 * i));
	}
	return dr7;
}

void arch_gdb_watch_set(pid_t tid, const struct gdbsrv_wp *wp, uint32_t n)
{
	ptrace(PTRACE_POKEUSER, tid, DR_OFF(7), 0);
	for (uint32_t i = 0; i < n; i++)
		ptrace(PTRACE_POKEUSER, tid, DR_OFF(i), wp[i].addr);
	ptrace(PTRACE_POKEUSER, tid, DR_OFF(6), 0);
	if (n)
		ptrace(PTRACE_POKEUSER, tid, DR_OFF(7), dr7_of(wp, n));
}

int arch_gdb_watch_hit(pid_t tid, const struct gdbsrv_wp *wp, uint32_t n)
{
	unsigned long dr6;

	errno = 0;
	dr6 = (unsigned long)ptrace(PTRACE_PEEKUSER, tid, DR_OFF(6), 0);
	if (errno || !(dr6 & 0xf))
		return -1;
	ptrace(PTRACE_POKEUSER, tid, DR_OFF(6), 0);
	for (uint32_t i = 0; i < n; i++)
		if (dr6 & (1ul << i))
			return (int)i;
	return -1;
}
