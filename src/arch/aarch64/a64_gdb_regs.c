// SPDX-License-Identifier: MIT
/*
 * a64_gdb_regs.c - gdb's aarch64 register layout for `spool replay
 * --gdbserver` (src/arch/arch_gdb.h): each of gdb's register numbers as a
 * place in the kernel's NT_PRSTATUS or NT_FPREGSET set, and the target
 * description gdb reads (qXfer:features:read:target.xml) with the features
 * gdb's aarch64 port requires, org.gnu.gdb.aarch64.core (x0-x30, sp, pc,
 * cpsr) and org.gnu.gdb.aarch64.fpu (v0-v31, fpsr, fpcr), with the types of
 * gdb's own aarch64-core.xml and aarch64-fpu.xml. Pure (no ptrace), so the
 * x86-64 host's unit tests check it (tests/unit/test_a64_gdb.c); the
 * ptrace side is a64_gdb.c.
 */
#include <errno.h>
#include <stdio.h>

#include "a64_gdb_regs.h"

int a64_gdb_reg_loc(int regno, int *set, size_t *off, int *size)
{
	if (regno < 0 || regno >= A64_GDB_NREGS)
		return -EINVAL;
	if (regno <= A64_GDB_CPSR) { /* x0-x30, sp, pc, pstate: 8 bytes apart */
		*set = A64_GDB_SET_GPR;
		*off = (size_t)regno * 8;
		*size = regno == A64_GDB_CPSR ? 4 : 8;
		return 0;
	}
	*set = A64_GDB_SET_FP;
	if (regno < A64_GDB_FPSR) {
		*off = (size_t)(regno - A64_GDB_V0) * 16;
		*size = 16;
	} else {
		*off = 32 * 16 + (size_t)(regno - A64_GDB_FPSR) * 4;
		*size = 4;
	}
	return 0;
}

static char xml[12288];
static size_t xml_len;

static void xml_add(const char *s)
{
	int n = snprintf(xml + xml_len, sizeof(xml) - xml_len, "%s", s);

	if (n > 0 && (size_t)n < sizeof(xml) - xml_len)
		xml_len += (size_t)n;
}

static void xml_reg(const char *name, int bits, const char *type, int regnum)
{
	char line[160];

	snprintf(line, sizeof(line), "<reg name=\"%s\" bitsize=\"%d\"%s%s%s regnum=\"%d\"/>\n",
		 name, bits, type ? " type=\"" : "", type ? type : "", type ? "\"" : "", regnum);
	xml_add(line);
}

const char *a64_gdb_target_xml(size_t *len)
{
	static const char cpsr[] =
	    "<flags id=\"cpsr_flags\" size=\"4\"><field name=\"SP\" start=\"0\" end=\"0\"/>"
	    "<field name=\"EL\" start=\"2\" end=\"3\"/><field name=\"nRW\" start=\"4\" end=\"4\"/>"
	    "<field name=\"F\" start=\"6\" end=\"6\"/><field name=\"I\" start=\"7\" end=\"7\"/>"
	    "<field name=\"A\" start=\"8\" end=\"8\"/><field name=\"D\" start=\"9\" end=\"9\"/>"
	    "<field name=\"IL\" start=\"20\" end=\"20\"/><field name=\"SS\" start=\"21\" "
	    "end=\"21\"/>"
	    "<field name=\"V\" start=\"28\" end=\"28\"/><field name=\"C\" start=\"29\" end=\"29\"/>"
	    "<field name=\"Z\" start=\"30\" end=\"30\"/><field name=\"N\" start=\"31\" end=\"31\"/>"
	    "</flags>\n";
	static const char vec[] =
	    "<vector id=\"v2d\" type=\"ieee_double\" count=\"2\"/>"
	    "<vector id=\"v2u\" type=\"uint64\" count=\"2\"/>"
	    "<vector id=\"v2i\" type=\"int64\" count=\"2\"/>"
	    "<vector id=\"v4f\" type=\"ieee_single\" count=\"4\"/>"
	    "<vector id=\"v4u\" type=\"uint32\" count=\"4\"/>"
	    "<vector id=\"v4i\" type=\"int32\" count=\"4\"/>"
	    "<vector id=\"v8f\" type=\"ieee_half\" count=\"8\"/>"
	    "<vector id=\"v8u\" type=\"uint16\" count=\"8\"/>"
	    "<vector id=\"v8i\" type=\"int16\" count=\"8\"/>"
	    "<vector id=\"v16u\" type=\"uint8\" count=\"16\"/>"
	    "<vector id=\"v16i\" type=\"int8\" count=\"16\"/>"
	    "<vector id=\"v1u\" type=\"uint128\" count=\"1\"/>"
	    "<vector id=\"v1i\" type=\"int128\" count=\"1\"/>\n"
	    "<union id=\"vnd\"><field name=\"f\" type=\"v2d\"/><field name=\"u\" type=\"v2u\"/>"
	    "<field name=\"s\" type=\"v2i\"/></union>"
	    "<union id=\"vns\"><field name=\"f\" type=\"v4f\"/><field name=\"u\" type=\"v4u\"/>"
	    "<field name=\"s\" type=\"v4i\"/></union>"
	    "<union id=\"vnh\"><field name=\"f\" type=\"v8f\"/><field name=\"u\" type=\"v8u\"/>"
	    "<field name=\"s\" type=\"v8i\"/></union>"
	    "<union id=\"vnb\"><field name=\"u\" type=\"v16u\"/><field name=\"s\" type=\"v16i\"/>"
	    "</union>"
	    "<union id=\"vnq\"><field name=\"u\" type=\"v1u\"/><field name=\"s\" type=\"v1i\"/>"
	    "</union>"
	    "<union id=\"aarch64v\"><field name=\"d\" type=\"vnd\"/><field name=\"s\" "
	    "type=\"vns\"/>"
	    "<field name=\"h\" type=\"vnh\"/><field name=\"b\" type=\"vnb\"/>"
	    "<field name=\"q\" type=\"vnq\"/></union>\n";
	char name[8];

	if (!xml_len) {
		xml_add("<?xml version=\"1.0\"?>\n<!DOCTYPE target SYSTEM \"gdb-target.dtd\">\n"
			"<target><architecture>aarch64</architecture><osabi>GNU/Linux</osabi>\n"
			"<feature name=\"org.gnu.gdb.aarch64.core\">\n");
		xml_add(cpsr);
		for (int i = 0; i <= 30; i++) {
			snprintf(name, sizeof(name), "x%d", i);
			xml_reg(name, 64, NULL, i);
		}
		xml_reg("sp", 64, "data_ptr", A64_GDB_SP);
		xml_reg("pc", 64, "code_ptr", A64_GDB_PC);
		xml_reg("cpsr", 32, "cpsr_flags", A64_GDB_CPSR);
		xml_add("</feature>\n<feature name=\"org.gnu.gdb.aarch64.fpu\">\n");
		xml_add(vec);
		for (int i = 0; i < 32; i++) {
			snprintf(name, sizeof(name), "v%d", i);
			xml_reg(name, 128, "aarch64v", A64_GDB_V0 + i);
		}
		xml_reg("fpsr", 32, NULL, A64_GDB_FPSR);
		xml_reg("fpcr", 32, NULL, A64_GDB_FPCR);
		xml_add("</feature>\n</target>\n");
	}
	*len = xml_len;
	return xml;
}

uint32_t a64_gdb_watch_ctrl(uint64_t addr, uint32_t len, uint32_t type)
{
	uint32_t lsc = type == 2 ? 2 : type == 3 ? 1 : 3; /* store, load, both */
	uint32_t bas = ((1u << len) - 1) << (addr & 7);

	return 1u | (2u << 1) | (lsc << 3) | ((bas & 0xff) << 5);
}
