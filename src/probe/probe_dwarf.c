// SPDX-License-Identifier: MIT
/*
 * probe_dwarf.c - what variable probes need from DWARF (elfutils libdw):
 * the address of a point of a function (after its prologue, a source
 * line), and a variable's type and location at an address, turned into
 * one recipe the agent runs at each hit (struct probe_area_var).
 *
 * Locations are evaluated here, on the host, at the probed address: the
 * location list entry in effect there, and for DW_OP_fbreg the frame base,
 * which GCC emits as DW_OP_call_frame_cfa: the CFA at that address comes
 * from the call frame information (.eh_frame, else .debug_frame), which
 * libdw gives as one DW_OP_bregN. What a recipe can say: a register, memory
 * at a register plus an offset, memory at a link-time address (a global,
 * the agent adds the load bias), a register plus an offset as a value
 * (DW_OP_stack_value), a constant. Anything else (pieces, entry values,
 * computed expressions, x87 registers) is refused with the reason.
 */
#include <dwarf.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <elfutils/libdw.h>

#include "../util/demangle.h"
#include "../arch/arch_dwarf.h"
#include "probe.h"

static const struct {
	const char *name;
	uint8_t size, is_float, is_signed;
} probe_vtypes[] = {
	[PROBE_T_CHAR] = {"char", 1, 0, 1},	    [PROBE_T_INT] = {"int", 4, 0, 1},
	[PROBE_T_LONG] = {"long", 8, 0, 1},	    [PROBE_T_FLOAT] = {"float", 4, 1, 1},
	[PROBE_T_DOUBLE] = {"double", 8, 1, 1},	    [PROBE_T_LDOUBLE] = {"longdouble", 10, 1, 1},
	[PROBE_T_UCHAR] = {"uchar", 1, 0, 0},	    [PROBE_T_UINT] = {"uint", 4, 0, 0},
	[PROBE_T_ULONG] = {"ulong", 8, 0, 0},	    [PROBE_T_SHORT] = {"short", 2, 0, 1},
	[PROBE_T_USHORT] = {"ushort", 2, 0, 0},	    [PROBE_T_BOOL] = {"bool", 1, 0, 0},
	[PROBE_T_PTR] = {"ptr", 8, 0, 0},	    [PROBE_T_F128] = {"float128", 16, 1, 1},
};

const char *probe_vtype_name(unsigned t)
{
	return t && t < PROBE_T_MAX ? probe_vtypes[t].name : "?";
}

unsigned probe_vtype_size(unsigned t)
{
	return t && t < PROBE_T_MAX ? probe_vtypes[t].size : 0;
}

int probe_vtype_is_float(unsigned t)
{
	return t && t < PROBE_T_MAX && probe_vtypes[t].is_float;
}

int probe_vtype_is_signed(unsigned t)
{
	return t && t < PROBE_T_MAX && probe_vtypes[t].is_signed;
}

unsigned probe_vtype_parse(const char *s)
{
	/* this machine's long double: x87's on x86-64, binary128 on aarch64
	 * (the trace's own names are "longdouble" and "float128") */
	if (!strcmp(s, "long double") || !strcmp(s, "long_double"))
		return ARCH_DW_LDOUBLE ? PROBE_T_LDOUBLE : PROBE_T_F128;
	for (unsigned t = 1; t < PROBE_T_MAX; t++)
		if (!strcmp(s, probe_vtypes[t].name))
			return t;
	return 0;
}

static Dwarf *probe_dw(struct probe_module *mod)
{
	if (!mod->dwarf_tried) {
		mod->dwarf_tried = 1;
		mod->dwarf = dwarf_begin_elf(mod->elf, DWARF_C_READ, NULL);
		/* No DWARF in the file itself: its separate debug file's. */
		if (!mod->dwarf && probe_module_debug_elf(mod))
			mod->dwarf = dwarf_begin_elf(mod->dbg_elf, DWARF_C_READ, NULL);
	}
	return mod->dwarf;
}

void probe_dwarf_close(struct probe_module *mod)
{
	if (mod->cfi)
		dwarf_cfi_end(mod->cfi);
	if (mod->dwarf)
		dwarf_end(mod->dwarf);
	mod->cfi = NULL;
	mod->dwarf = NULL;
}

/* The CU holding addr: by .debug_aranges, else (clang emits none) by
 * every CU's ranges. */
static int probe_dw_addrdie(Dwarf *dw, uint64_t addr, Dwarf_Die *cu)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	if (dwarf_addrdie(dw, addr, cu))
		return 1;
	while (!dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL)) {
		if (dwarf_offdie(dw, off + hsize, cu) && dwarf_haspc(cu, addr) > 0)
			return 1;
		off = next;
	}
	return 0;
}

/* The subprogram DIE whose code starts at addr, and its CU. */
static int probe_dw_func(struct probe_module *mod, uint64_t addr, Dwarf_Die *cu, Dwarf_Die *fn)
{
	Dwarf *dw = probe_dw(mod);
	Dwarf_Die *scopes = NULL;
	int n, rc = -ENOENT;

	if (!dw)
		return -ENODATA;
	if (!probe_dw_addrdie(dw, addr, cu))
		return -ENOENT;
	n = dwarf_getscopes(cu, addr, &scopes);
	for (int i = 0; i < n; i++)
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram) {
			*fn = scopes[i];
			rc = 0;
			break;
		}
	free(scopes);
	return rc;
}

int probe_dwarf_entry_pc(struct probe_module *mod, const struct probe_sym *sym, uint64_t *pc)
{
	Dwarf_Die cu, fn;
	Dwarf_Lines *lines;
	size_t nl;
	int first_line = -1, rc;
	uint64_t best = UINT64_MAX, lo = sym->addr, hi = sym->addr + sym->size;

	rc = probe_dw_func(mod, sym->addr, &cu, &fn);
	if (rc)
		return rc;
	*pc = lo;
	if (dwarf_getsrclines(&cu, &lines, &nl))
		return 0;
	/* The line of the row at the entry (the opening brace); the first
	 * address after it whose row is another line ends the prologue. A
	 * function whose first statement shares the entry address has none. */
	for (size_t i = 0; i < nl; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr a;
		int ln;

		if (!l || dwarf_lineaddr(l, &a) || dwarf_lineno(l, &ln) || a != lo)
			continue;
		if (first_line < 0)
			first_line = ln;
		else if (ln != first_line)
			return 0; /* a statement at the entry itself */
	}
	for (size_t i = 0; i < nl; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr a;
		int ln;
		bool stmt;

		if (!l || dwarf_lineaddr(l, &a) || dwarf_lineno(l, &ln) || a <= lo || a >= hi)
			continue;
		if (dwarf_linebeginstatement(l, &stmt) || !stmt || ln == first_line)
			continue;
		if (a < best)
			best = a;
	}
	if (best != UINT64_MAX)
		*pc = best;
	return 0;
}

int probe_dwarf_line_addrs(struct probe_module *mod, uint64_t lo, uint64_t hi, uint64_t **v,
			   size_t *n)
{
	Dwarf *dw = probe_dw(mod);
	Dwarf_Die cu;
	Dwarf_Lines *lines;
	size_t nl, cap = 0;

	*v = NULL;
	*n = 0;
	if (!dw || !probe_dw_addrdie(dw, lo, &cu) || dwarf_getsrclines(&cu, &lines, &nl))
		return 0;
	for (size_t i = 0; i < nl; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr a;
		bool stmt, end;

		if (!l || dwarf_lineaddr(l, &a) || a < lo || a >= hi ||
		    dwarf_linebeginstatement(l, &stmt) || !stmt ||
		    (!dwarf_lineendsequence(l, &end) && end))
			continue;
		if (*n == cap) {
			uint64_t *nv;

			cap = cap ? 2 * cap : 64;
			nv = realloc(*v, cap * sizeof(*nv));
			if (!nv) {
				free(*v);
				*v = NULL;
				*n = 0;
				return -ENOMEM;
			}
			*v = nv;
		}
		(*v)[(*n)++] = a;
	}
	return 0;
}

int probe_dwarf_line_pc(struct probe_module *mod, const struct probe_sym *sym, int line,
			uint64_t *pc)
{
	Dwarf_Die cu, fn;
	Dwarf_Lines *lines;
	size_t nl;
	uint64_t best = UINT64_MAX, lo = sym->addr, hi = sym->addr + sym->size;
	int rc = probe_dw_func(mod, sym->addr, &cu, &fn);

	if (rc)
		return rc;
	if (dwarf_getsrclines(&cu, &lines, &nl))
		return -ENODATA;
	for (size_t i = 0; i < nl; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr a;
		int ln;
		bool stmt;

		if (!l || dwarf_lineaddr(l, &a) || dwarf_lineno(l, &ln) || ln != line || a < lo ||
		    a >= hi)
			continue;
		if (dwarf_linebeginstatement(l, &stmt) || !stmt)
			continue;
		if (a < best)
			best = a;
	}
	if (best == UINT64_MAX)
		return -ENOENT;
	*pc = best;
	return 0;
}

/* The base type of a variable: its probe type, or 0. */
static unsigned probe_dw_type(Dwarf_Die *var, char *tname, size_t tlen)
{
	Dwarf_Attribute a;
	Dwarf_Die t, peeled;
	Dwarf_Word enc;
	int size;
	const char *n;

	snprintf(tname, tlen, "?");
	if (!dwarf_attr_integrate(var, DW_AT_type, &a) || !dwarf_formref_die(&a, &t))
		return 0;
	if (dwarf_peel_type(&t, &peeled))
		return 0;
	n = dwarf_diename(&peeled);
	snprintf(tname, tlen, "%s", n ? n : "?");
	if (dwarf_tag(&peeled) == DW_TAG_pointer_type) {
		snprintf(tname, tlen, "pointer");
		return PROBE_T_PTR;
	}
	if (dwarf_tag(&peeled) == DW_TAG_enumeration_type)
		return dwarf_bytesize(&peeled) == 4 ? PROBE_T_INT : 0;
	if (dwarf_tag(&peeled) != DW_TAG_base_type || !dwarf_attr(&peeled, DW_AT_encoding, &a) ||
	    dwarf_formudata(&a, &enc))
		return 0;
	size = dwarf_bytesize(&peeled);
	switch (enc) {
	case DW_ATE_float:
		return size == 4 ? PROBE_T_FLOAT : size == 8 ? PROBE_T_DOUBLE
			     : size == 12 || (size == 16 && ARCH_DW_LDOUBLE) ? PROBE_T_LDOUBLE
			     : size == 16 ? PROBE_T_F128 : 0;
	case DW_ATE_boolean:
		return size == 1 ? PROBE_T_BOOL : 0;
	case DW_ATE_signed_char:
	case DW_ATE_unsigned_char:
		return size != 1 ? 0 : enc == DW_ATE_signed_char ? PROBE_T_CHAR : PROBE_T_UCHAR;
	case DW_ATE_signed:
		return size == 1 ? PROBE_T_CHAR : size == 2 ? PROBE_T_SHORT : size == 4 ? PROBE_T_INT
		     : size == 8 ? PROBE_T_LONG : 0;
	case DW_ATE_unsigned:
		return size == 1 ? PROBE_T_UCHAR : size == 2 ? PROBE_T_USHORT
		     : size == 4 ? PROBE_T_UINT : size == 8 ? PROBE_T_ULONG : 0;
	default:
		return 0;
	}
}

/* The CFA at pc as register + offset. */
/* The highest register a CFA may be based on: x86-64 rip (16); aarch64 sp
 * (31, which libdw gives as DW_OP_bregx 31). */
#if defined(__aarch64__)
#define PROBE_DW_CFA_REG_MAX 31
#else
#define PROBE_DW_CFA_REG_MAX 16
#endif

static int probe_dw_cfa(struct probe_module *mod, uint64_t pc, uint8_t *reg, int64_t *off)
{
	Dwarf_CFI *cfis[2];
	Dwarf_Frame *fr = NULL;
	Dwarf_Op *ops;
	size_t nops;
	int rc = -ENOENT;

	if (!mod->cfi_tried) {
		mod->cfi_tried = 1;
		mod->cfi = dwarf_getcfi_elf(mod->elf);
	}
	cfis[0] = mod->cfi;
	cfis[1] = mod->dwarf ? dwarf_getcfi(mod->dwarf) : NULL;
	for (int i = 0; i < 2 && rc; i++) {
		if (!cfis[i] || dwarf_cfi_addrframe(cfis[i], pc, &fr))
			continue;
		/* libdw gives "def_cfa reg, off" as DW_OP_bregx reg, off */
		if (!dwarf_frame_cfa(fr, &ops, &nops) && nops == 1 && ops[0].atom >= DW_OP_breg0 &&
		    ops[0].atom <= DW_OP_breg31) {
			*reg = (uint8_t)(ops[0].atom - DW_OP_breg0);
			*off = (int64_t)ops[0].number;
			rc = 0;
		} else if (nops == 1 && ops[0].atom == DW_OP_bregx &&
			   ops[0].number <= PROBE_DW_CFA_REG_MAX) {
			*reg = (uint8_t)ops[0].number;
			*off = (int64_t)ops[0].number2;
			rc = 0;
		}
		free(fr);
		fr = NULL;
	}
	return rc;
}

/*
 * Is addr a function's entry by the unwind tables: the start of an
 * .eh_frame FDE with the entry state there (CFA = rsp + 8)? Static
 * functions of a stripped file have no symbol but have their FDE. A .cold
 * part has an FDE too, but starts with its function's frame (CFA above
 * rsp + 8), unless that function has no frame. The CFI is a lazy cache of
 * the module: hence the cast.
 */
int probe_dwarf_func_entry(const struct probe_module *cmod, uint64_t addr)
{
	struct probe_module *mod = (struct probe_module *)cmod;
	Dwarf_Frame *fr = NULL;
	Dwarf_Addr start, end;
	bool signalp;
	uint8_t reg;
	int64_t off;
	int ok;

	if (!mod->cfi_tried) {
		mod->cfi_tried = 1;
		mod->cfi = dwarf_getcfi_elf(mod->elf);
	}
	if (!mod->cfi || dwarf_cfi_addrframe(mod->cfi, addr, &fr))
		return 0;
	ok = dwarf_frame_info(fr, &start, &end, &signalp) >= 0 && start == addr;
	free(fr);
#if defined(__aarch64__)
	/* the entry state on aarch64: CFA = sp (DWARF 31) + 0, LR in x30 */
	return ok && !probe_dw_cfa(mod, addr, &reg, &off) && reg == 31 && off == 0;
#else
	return ok && !probe_dw_cfa(mod, addr, &reg, &off) && reg == 7 && off == 8;
#endif
}

static void probe_dw_why(struct probe_dw_var *v, const char *fmt, const char *name, unsigned op)
{
	snprintf(v->why, sizeof(v->why), fmt, name, op);
}

/* Evaluate one location expression at pc into a recipe. */
static int probe_dw_expr(struct probe_module *mod, Dwarf_Die *fn, uint64_t pc, const Dwarf_Op *e,
			 size_t n, const char *name, struct probe_dw_var *v)
{
	unsigned a0 = n ? e[0].atom : 0;
	int stack_value = n >= 2 && e[n - 1].atom == DW_OP_stack_value;
	size_t core = stack_value ? n - 1 : n;

	if (!n) {
		probe_dw_why(v, "'%s' is optimized out at this point%.0u", name, 0);
		return -ENODATA;
	}
	if (core == 1 && ((a0 >= DW_OP_reg0 && a0 <= DW_OP_reg31) || a0 == DW_OP_regx)) {
		unsigned r = a0 == DW_OP_regx ? (unsigned)e[0].number : a0 - DW_OP_reg0;

		if (ARCH_DW_LDOUBLE && r >= 33 && r <= 40) {
			probe_dw_why(v, "'%s' is in an x87 register (st%u): not readable", name,
				     r - 33);
			return -ENOTSUP;
		}
		if (!ARCH_DW_REG_OK(r)) {
			probe_dw_why(v, "'%s' is in DWARF register %u: not readable", name, r);
			return -ENOTSUP;
		}
		v->how = PROBE_V_REG;
		v->reg = (uint8_t)r;
		return 0;
	}
	if (core == 1 && ((a0 >= DW_OP_breg0 && a0 <= DW_OP_breg31) || a0 == DW_OP_bregx)) {
		unsigned r = a0 == DW_OP_bregx ? (unsigned)e[0].number : a0 - DW_OP_breg0;

		if (r > ARCH_DW_BREG_MAX) {
			probe_dw_why(v, "'%s' is relative to DWARF register %u: not readable", name, r);
			return -ENOTSUP;
		}
		v->how = stack_value ? PROBE_V_VAL_REG : PROBE_V_MEM_REG;
		v->reg = (uint8_t)r;
		v->off = (int64_t)(a0 == DW_OP_bregx ? e[0].number2 : e[0].number);
		return 0;
	}
	if (core == 1 && a0 == DW_OP_fbreg && !stack_value) {
		Dwarf_Attribute fa;
		Dwarf_Op *fe;
		size_t fn_n;

		if (!dwarf_attr_integrate(fn, DW_AT_frame_base, &fa) ||
		    dwarf_getlocation_addr(&fa, pc, &fe, &fn_n, 1) < 1 || fn_n != 1) {
			probe_dw_why(v, "'%s': its function's frame base is unknown here%.0u", name, 0);
			return -ENOTSUP;
		}
		v->how = PROBE_V_MEM_REG;
		if (fe[0].atom == DW_OP_call_frame_cfa) {
			if (probe_dw_cfa(mod, pc, &v->reg, &v->off)) {
				probe_dw_why(v, "'%s': no call frame information at this point%.0u",
					     name, 0);
				return -ENOTSUP;
			}
		} else if (fe[0].atom >= DW_OP_breg0 &&
			   fe[0].atom <= DW_OP_breg0 + ARCH_DW_BREG_MAX) {
			v->reg = (uint8_t)(fe[0].atom - DW_OP_breg0);
			v->off = (int64_t)fe[0].number;
		} else if (fe[0].atom >= DW_OP_reg0 && fe[0].atom <= DW_OP_reg0 + ARCH_DW_BREG_MAX) {
			/* clang -O0: the frame base is rbp's (x29's) value */
			v->reg = (uint8_t)(fe[0].atom - DW_OP_reg0);
			v->off = 0;
		} else {
			probe_dw_why(v, "'%s': frame base expression 0x%x not supported", name,
				     fe[0].atom);
			return -ENOTSUP;
		}
		v->off += (int64_t)e[0].number;
		return 0;
	}
	if (core == 1 && a0 == DW_OP_addr && !stack_value) {
		v->how = PROBE_V_MEM_ABS;
		v->off = (int64_t)e[0].number;
		return 0;
	}
	if (stack_value && core == 1 &&
	    ((a0 >= DW_OP_lit0 && a0 <= DW_OP_lit31) || a0 == DW_OP_constu || a0 == DW_OP_consts ||
	     (a0 >= DW_OP_const1u && a0 <= DW_OP_const8s))) {
		v->how = PROBE_V_CONST;
		v->off = a0 >= DW_OP_lit0 && a0 <= DW_OP_lit31 ? (int64_t)(a0 - DW_OP_lit0)
							      : (int64_t)e[0].number;
		return 0;
	}
	if (core == 1 && a0 == DW_OP_implicit_value && e[0].number <= 8 && e[0].number2) {
		v->how = PROBE_V_CONST;
		v->off = 0;
		memcpy(&v->off, (const void *)(uintptr_t)e[0].number2, e[0].number);
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		if (e[i].atom == DW_OP_entry_value || e[i].atom == DW_OP_GNU_entry_value) {
			probe_dw_why(v, "'%s' is not kept at this point (only its value at the "
				     "function's entry, DW_OP_entry_value)%.0u", name, 0);
			return -ENOTSUP;
		}
	if (a0 == DW_OP_piece || (n > 1 && e[1].atom == DW_OP_piece)) {
		probe_dw_why(v, "'%s' is split in pieces here%.0u", name, 0);
		return -ENOTSUP;
	}
	probe_dw_why(v, "'%s': location expression (DW_OP 0x%x...) not supported", name, a0);
	return -ENOTSUP;
}

/* Is the variable DIE v the one named name? A plain name is its DW_AT_name;
 * a C++ qualified one ("ns::counter", "Bank::count") is its scope (prefix:
 * the namespaces it is defined in, "" at the top) and name, or its
 * demangled linkage name (a static member, defined at the top of the CU
 * with DW_AT_specification pointing into its class). */
static int probe_dw_var_named(Dwarf_Die *v, const char *prefix, const char *name)
{
	const char *n = dwarf_diename(v), *ln;
	size_t pl = strlen(prefix);
	Dwarf_Attribute a;
	char d[512];

	if (!n)
		return 0;
	if (!strchr(name, ':'))
		return !prefix[0] && !strcmp(n, name);
	if (pl && !strncmp(name, prefix, pl) && !strcmp(name + pl, n))
		return 1;
	ln = dwarf_formstring(dwarf_attr_integrate(v, DW_AT_linkage_name, &a));
	if (!ln)
		ln = dwarf_formstring(dwarf_attr_integrate(v, DW_AT_MIPS_linkage_name, &a));
	return ln && demangle_name(ln, d, sizeof(d)) && !strcmp(d, name);
}

/* The definition of the declaration decl among the children of cu: a
 * variable whose DW_AT_specification is decl and that has a location. A
 * variable of an anonymous namespace is declared inside the namespace and
 * defined at the top of the CU with no linkage name (g++ -g). */
static int probe_dw_defined(Dwarf_Die *cu, Dwarf_Die *decl, Dwarf_Die *out)
{
	Dwarf_Die child, spec;
	Dwarf_Attribute a;

	if (dwarf_child(cu, &child))
		return -ENOENT;
	do {
		if (dwarf_tag(&child) == DW_TAG_variable &&
		    dwarf_attr(&child, DW_AT_specification, &a) && dwarf_formref_die(&a, &spec) &&
		    dwarf_dieoffset(&spec) == dwarf_dieoffset(decl) &&
		    (dwarf_hasattr(&child, DW_AT_location) ||
		     dwarf_hasattr(&child, DW_AT_const_value))) {
			*out = child;
			return 0;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return -ENOENT;
}

/* The variable named name among the children of scope, and of the
 * namespaces in it (depth: how deep to go), prefix their qualified name;
 * cu: the unit (where a declaration's definition is). */
static int probe_dw_global_in(Dwarf_Die *cu, Dwarf_Die *scope, const char *prefix,
			      const char *name, int depth, Dwarf_Die *out)
{
	Dwarf_Die child;

	if (dwarf_child(scope, &child))
		return -ENOENT;
	do {
		int tag = dwarf_tag(&child);

		if (tag == DW_TAG_namespace && depth > 0 && strchr(name, ':')) {
			const char *ns = dwarf_diename(&child);
			char sub[512];

			/* An anonymous namespace adds nothing to a name, or
			 * "(anonymous namespace)::", as c++filt and nm -C
			 * write it (and the lock report: the name a user
			 * copies). */
			snprintf(sub, sizeof(sub), "%s%s%s", prefix, ns ? ns : "", ns ? "::" : "");
			if (!probe_dw_global_in(cu, &child, sub, name, depth - 1, out))
				return 0;
			snprintf(sub, sizeof(sub), "%s(anonymous namespace)::", prefix);
			if (!ns && !probe_dw_global_in(cu, &child, sub, name, depth - 1, out))
				return 0;
			continue;
		}
		if (tag != DW_TAG_variable || !probe_dw_var_named(&child, prefix, name))
			continue;
		if (dwarf_hasattr_integrate(&child, DW_AT_location) ||
		    dwarf_hasattr_integrate(&child, DW_AT_const_value)) {
			*out = child;
			return 0;
		}
		if (dwarf_hasattr(&child, DW_AT_declaration) && !probe_dw_defined(cu, &child, out))
			return 0;
	} while (dwarf_siblingof(&child, &child) == 0);
	return -ENOENT;
}

/* A global variable of any CU, by name (the CU of the function first). */
static int probe_dw_global(Dwarf *dw, const char *name, Dwarf_Die *out)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	while (!dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL)) {
		Dwarf_Die cu;

		if (dwarf_offdie(dw, off + hsize, &cu) && !probe_dw_global_in(&cu, &cu, "", name, 8, out))
			return 0;
		off = next;
	}
	return -ENOENT;
}

/* The SysV x86-64 class of a parameter's type: 1 INTEGER (one general
 * register), 2 SSE (one xmm register), 3 MEMORY of 16 bytes aligned to 16
 * (long double), 0 anything else (a struct, __int128, _Complex: its class
 * needs more than the type's name). */
static int probe_dw_abi_class(Dwarf_Die *var)
{
	Dwarf_Attribute a;
	Dwarf_Die t, peeled;
	Dwarf_Word enc;
	int size, tag;
	const char *n;

	if (!dwarf_attr_integrate(var, DW_AT_type, &a) || !dwarf_formref_die(&a, &t) ||
	    dwarf_peel_type(&t, &peeled))
		return 0;
	tag = dwarf_tag(&peeled);
	if (tag == DW_TAG_pointer_type || tag == DW_TAG_reference_type ||
	    tag == DW_TAG_rvalue_reference_type)
		return 1;
	size = dwarf_bytesize(&peeled);
	if (tag == DW_TAG_enumeration_type)
		return size > 0 && size <= 8 ? 1 : 0;
	if (tag != DW_TAG_base_type || !dwarf_attr(&peeled, DW_AT_encoding, &a) ||
	    dwarf_formudata(&a, &enc))
		return 0;
	n = dwarf_diename(&peeled);
	switch (enc) {
	case DW_ATE_float:
		if (size == 4 || size == 8)
			return 2;
		return n && !strcmp(n, "long double") ? 3 : 0;
	case DW_ATE_boolean:
	case DW_ATE_signed:
	case DW_ATE_unsigned:
	case DW_ATE_signed_char:
	case DW_ATE_unsigned_char:
	case DW_ATE_UTF:
		return size > 0 && size <= 8 ? 1 : 0;
	default:
		return 0;
	}
}

/*
 * Where parameter `var` of fn is at fn's first instruction, by the SysV
 * x86-64 ABI (AAPCS64 on aarch64: arch_dwarf.h): the caller has just put it there, so this is exact where
 * the DWARF location is not yet true (an -O0 function's frame slot before
 * the prologue stored it: a one-line function has no later point to
 * probe). Integer and pointer arguments in rdi rsi rdx rcx r8 r9, float
 * and double in xmm0-7, in their own order; the rest on the stack above
 * the return address (8 bytes each, long double 16 aligned). A struct
 * before it (or a struct return of unknown passing) makes it unknown.
 */
static int probe_dw_abi_param(Dwarf_Die *cu, Dwarf_Die *fn, Dwarf_Die *var, const char *name,
			      struct probe_dw_var *v)
{
	static const uint8_t gprs[ARCH_DW_NGPR_ARGS] = ARCH_DW_GPR_ARGS;
	Dwarf_Attribute a;
	Dwarf_Die child, t, peeled;
	unsigned ngpr = 0, nsse = 0;
	uint64_t stack = 0;

	/* A struct returned in memory takes rdi for its address. */
	if (dwarf_attr_integrate(fn, DW_AT_type, &a) && dwarf_formref_die(&a, &t) &&
	    !dwarf_peel_type(&t, &peeled)) {
		int tag = dwarf_tag(&peeled);

		if (tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
		    tag == DW_TAG_class_type) {
			Dwarf_Word lang = 0;
			Dwarf_Attribute la;

			if (dwarf_attr(cu, DW_AT_language, &la))
				dwarf_formudata(&la, &lang);
			if (dwarf_bytesize(&peeled) > 16)
				ngpr = ARCH_DW_STRUCT_RET_IN_ARG; /* x86-64 rdi; aarch64 x8 */
			else if (lang != DW_LANG_C89 && lang != DW_LANG_C99 &&
				 lang != DW_LANG_C11 && lang != DW_LANG_C)
				goto out_unknown; /* C++ may return it by invisible reference */
		}
	}
	if (dwarf_child(fn, &child))
		goto out_unknown;
	do {
		int cls;

		if (dwarf_tag(&child) != DW_TAG_formal_parameter)
			continue;
		cls = probe_dw_abi_class(&child);
		if (!cls)
			goto out_unknown;
		if (cls == 3 && !ARCH_DW_LDOUBLE && nsse < ARCH_DW_NFP_ARGS)
			cls = 2; /* AAPCS64: binary128 in the next v register (past v7:
				  * 16 bytes aligned to 16 on the stack, as below) */
		if (cls == 1 && ngpr < ARCH_DW_NGPR_ARGS) {
			if (child.addr == var->addr) {
				v->how = PROBE_V_REG;
				v->reg = gprs[ngpr];
				return 0;
			}
			ngpr++;
			continue;
		}
		if (cls == 2 && nsse < ARCH_DW_NFP_ARGS) {
			if (child.addr == var->addr) {
				v->how = PROBE_V_REG;
				v->reg = (uint8_t)(ARCH_DW_FP0 + nsse);
				return 0;
			}
			nsse++;
			continue;
		}
		if (cls == 3)
			stack = (stack + 15) & ~(uint64_t)15;
		if (child.addr == var->addr) {
			v->how = PROBE_V_MEM_REG;
			/* x86-64 rsp: the return address, then the arguments;
			 * aarch64 sp: the arguments */
			v->reg = ARCH_DW_SP;
			v->off = ARCH_DW_STACK_ARGS + (int64_t)stack;
			return 0;
		}
		stack += cls == 3 ? 16 : 8;
	} while (dwarf_siblingof(&child, &child) == 0);
out_unknown:
	snprintf(v->why, sizeof(v->why),
		 "'%s' is read at the function's first instruction (no statement after its "
		 "prologue), where it is not in its frame slot yet, and its argument register "
		 "is not known (a struct argument or return before it)",
		 name);
	return -ENOTSUP;
}

/* Is the location e, at the function's first instruction, a frame slot
 * the prologue has not written yet: below the CFA (DW_OP_fbreg with a
 * negative offset from DW_OP_call_frame_cfa), or relative to rbp (still
 * the caller's there)? */
static int probe_dw_unstored(Dwarf_Die *fn, uint64_t pc, const Dwarf_Op *e, size_t n)
{
	Dwarf_Attribute fa;
	Dwarf_Op *fe;
	size_t fn_n;

	if (n < 1)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (e[i].atom == DW_OP_entry_value || e[i].atom == DW_OP_GNU_entry_value)
			return 1; /* its entry value is where it is now */
	if (e[0].atom == DW_OP_breg0 + ARCH_DW_FP_REG)
		return 1;
	if (e[0].atom != DW_OP_fbreg || !dwarf_attr_integrate(fn, DW_AT_frame_base, &fa) ||
	    dwarf_getlocation_addr(&fa, pc, &fe, &fn_n, 1) < 1 || fn_n != 1)
		return 0;
	if (fe[0].atom == DW_OP_breg0 + ARCH_DW_FP_REG || fe[0].atom == DW_OP_reg0 + ARCH_DW_FP_REG)
		return 1;
	return fe[0].atom == DW_OP_call_frame_cfa && (int64_t)e[0].number < 0;
}

/* A parameter or a function-level local of fn named name (fn's direct
 * children). 1 when found (in *out). */
static int probe_dw_own_var(Dwarf_Die *fn, const char *name, Dwarf_Die *out)
{
	Dwarf_Die child;

	if (dwarf_child(fn, &child))
		return 0;
	do {
		int tag = dwarf_tag(&child);
		const char *n;

		if (tag != DW_TAG_formal_parameter && tag != DW_TAG_variable)
			continue;
		n = dwarf_diename(&child);
		if (n && !strcmp(n, name)) {
			*out = child;
			return 1;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

int probe_dwarf_var(struct probe_module *mod, const struct probe_sym *sym, const char *name,
		    uint64_t pc, struct probe_dw_var *v)
{
	Dwarf_Die cu, fn, var, *scopes = NULL;
	Dwarf_Attribute la;
	Dwarf_Op *e;
	size_t n;
	int ns, rc, found = -1, is_param = 0;

	memset(v, 0, sizeof(*v));
	rc = probe_dw_func(mod, sym->addr, &cu, &fn);
	if (rc == -ENODATA) {
		snprintf(v->why, sizeof(v->why), "%s has no DWARF (build it with -g)", mod->path);
		return rc;
	}
	if (rc) {
		snprintf(v->why, sizeof(v->why), "no DWARF for function %s", sym->name);
		return rc;
	}
	ns = dwarf_getscopes(&cu, pc, &scopes);
	if (ns > 0)
		found = dwarf_getscopevar(scopes, ns, name, 0, NULL, 0, 0, &var);
	/* A parameter of the function itself (not of code inlined there)? */
	if (found >= 0 && dwarf_tag(&var) == DW_TAG_formal_parameter &&
	    dwarf_tag(&scopes[found]) == DW_TAG_subprogram && scopes[found].addr == fn.addr)
		is_param = 1;
	free(scopes);
	/* pc inside code inlined into fn: dwarf_getscopes goes on from the
	 * inlined_subroutine through its abstract definition's scopes, not
	 * fn's, so fn's own parameters and locals were not searched */
	if (found < 0 && probe_dw_own_var(&fn, name, &var)) {
		found = 0;
		is_param = dwarf_tag(&var) == DW_TAG_formal_parameter;
	}
	if (found < 0 && probe_dw_global(mod->dwarf, name, &var)) {
		char shown[sizeof(v->why) / 2];

		/* the function as the user named it (Bank::transfer(int)),
		 * not its mangled symbol */
		if (!demangle_name(sym->name, shown, sizeof(shown)))
			snprintf(shown, sizeof(shown), "%s", sym->name);
		snprintf(v->why, sizeof(v->why),
			 "no variable '%s' in %s (its parameters, locals in scope at 0x%llx, or "
			 "globals)",
			 name, shown, (unsigned long long)pc);
		return -ENOENT;
	}
	v->type = probe_dw_type(&var, v->dwarf_type, sizeof(v->dwarf_type));
	if (dwarf_attr_integrate(&var, DW_AT_const_value, &la)) {
		Dwarf_Word w;

		if (dwarf_formudata(&la, &w)) {
			snprintf(v->why, sizeof(v->why), "'%s' is a constant of an unsupported form",
				 name);
			return -ENOTSUP;
		}
		v->how = PROBE_V_CONST;
		v->off = (int64_t)w;
		return 0;
	}
	if (!dwarf_attr_integrate(&var, DW_AT_location, &la)) {
		snprintf(v->why, sizeof(v->why), "'%s' is optimized out (no location)", name);
		return -ENODATA;
	}
	rc = dwarf_getlocation_addr(&la, pc, &e, &n, 1);
	/* At the first instruction an argument is where the caller put it. */
	if (is_param && pc == sym->addr && (rc < 1 || probe_dw_unstored(&fn, pc, e, n)))
		return probe_dw_abi_param(&cu, &fn, &var, name, v);
	if (rc < 1) {
		snprintf(v->why, sizeof(v->why), "'%s' is optimized out at 0x%llx", name,
			 (unsigned long long)pc);
		return -ENODATA;
	}
	return probe_dw_expr(mod, &fn, pc, e, n, name, v);
}

int probe_dwarf_params(struct probe_module *mod, const struct probe_sym *sym,
		       struct probe_dw_param **params, size_t *n, unsigned *ret_type,
		       char *ret_dwarf, size_t rlen)
{
	struct probe_dw_param *p = NULL, *np;
	Dwarf_Die cu, fn, child;
	Dwarf_Attribute a;
	int rc;

	*params = NULL;
	*n = 0;
	rc = probe_dw_func(mod, sym->addr, &cu, &fn);
	if (rc)
		return rc;
	*ret_type = 0;
	snprintf(ret_dwarf, rlen, "void");
	if (dwarf_attr_integrate(&fn, DW_AT_type, &a))
		*ret_type = probe_dw_type(&fn, ret_dwarf, rlen);
	if (dwarf_child(&fn, &child) == 0)
		do {
			const char *name = dwarf_diename(&child);

			if (dwarf_tag(&child) != DW_TAG_formal_parameter)
				continue;
			np = realloc(p, (*n + 1) * sizeof(*np));
			if (!np) {
				free(p);
				*n = 0;
				return -ENOMEM;
			}
			p = np;
			np = &p[(*n)++];
			memset(np, 0, sizeof(*np));
			snprintf(np->name, sizeof(np->name), "%s", name ? name : "");
			np->type = probe_dw_type(&child, np->dwarf_type, sizeof(np->dwarf_type));
		} while (dwarf_siblingof(&child, &child) == 0);
	*params = p;
	return 0;
}

/* Collect the labels under die (lexical blocks too, not inlined code). */
static int probe_dw_labels_in(Dwarf_Die *die, const char *glob, struct probe_dw_label **out,
			      size_t *n, size_t *cap)
{
	Dwarf_Die child;

	if (dwarf_child(die, &child))
		return 0;
	do {
		int tag = dwarf_tag(&child), rc;
		const char *name;
		Dwarf_Addr a = 0;

		if (tag == DW_TAG_lexical_block) {
			rc = probe_dw_labels_in(&child, glob, out, n, cap);
			if (rc)
				return rc;
			continue;
		}
		if (tag != DW_TAG_label || !(name = dwarf_diename(&child)) ||
		    fnmatch(glob, name, 0))
			continue;
		if (*n == *cap) {
			size_t nc = *cap ? 2 * *cap : 8;
			struct probe_dw_label *nl = realloc(*out, nc * sizeof(*nl));

			if (!nl)
				return -ENOMEM;
			*out = nl;
			*cap = nc;
		}
		if (dwarf_lowpc(&child, &a))
			a = 0;
		snprintf((*out)[*n].name, sizeof((*out)[*n].name), "%s", name);
		(*out)[(*n)++].addr = a;
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

int probe_dwarf_labels(struct probe_module *mod, const struct probe_sym *sym, const char *glob,
		       struct probe_dw_label **out, size_t *n)
{
	Dwarf_Die cu, fn;
	size_t cap = 0;
	int rc;

	*out = NULL;
	*n = 0;
	rc = probe_dw_func(mod, sym->addr, &cu, &fn);
	if (rc)
		return rc;
	rc = probe_dw_labels_in(&fn, glob, out, n, &cap);
	if (rc) {
		free(*out);
		*out = NULL;
		*n = 0;
	}
	return rc;
}
