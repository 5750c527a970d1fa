// SPDX-License-Identifier: MIT
/*
 * probe_var.c - variable, assertion and time probes: the specs, the
 * points they probe, and the "vars" side file that tells the reports what
 * each recorded value is (doc/probe.md, doc/trace-format.md).
 *
 *   var:TYPE:NAME@POINT    TYPE char int long float double longdouble ...
 *                          or auto (DWARF)
 *   assert:EXPR@POINT      a C-like condition (probe_expr.h)
 *   time:[LIB:]FUNC        every call's duration
 *   time:POINT..POINT      from point A to the next B, per thread
 *   args:[LIB:]GLOB[:TYPES] each scalar parameter at the entry (DWARF, or
 *                          the SysV ABI from TYPES "int,double->long") and
 *                          the return value at each ret
 * where POINT is [LIB:]FUNC[:entry|:exit|:LINE]: a function of the
 * executable, or of the libraries whose file name matches the glob LIB (as
 * func:LIB:GLOB; a library the program only dlopens is probed when loaded).
 *
 * A point is one probe before an instruction: entry is the first statement
 * after the prologue (where -O0 code has stored its parameters; DWARF's
 * line table says where), exit is every ret (the probe runs before the
 * epilogue it displaces), LINE the first address of that source line in
 * the function. Every variable and assertion at the same point shares one
 * probe: its handler records each variable once per hit (the agent runs
 * no expression; the report evaluates assertions on the recorded values).
 * Each variable's DWARF location is evaluated here at the address whose
 * state the handler sees (probe_dwarf.c).
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/event.h"
#include "../trace/sideword.h"
#include "../util/demangle.h"
#include "../util/log.h"
#include "../arch/arch_dwarf.h"
#include "probe.h"
#include "probe_expr.h"

enum { VS_VAR = 1, VS_ASSERT, VS_TIME };

struct probe_vspec {
	int kind;
	char *text;
	char func[256], where[32];
	char *expr;	  /* assert */
	int time_func;	  /* time:FUNC (pair entries and exits by stack pointer) */
	uint32_t *ids;	  /* var/assert: its probes; time: start points */
	size_t nids;
	uint32_t *ids2;	  /* time: end points */
	size_t nids2;
};

struct probe_vvar {
	uint32_t probe_id;
	uint16_t index;
	unsigned type;
	int shown;	  /* asked by a var: spec (else only an assertion uses it) */
	char name[128];
	char func[256], where[32];
	char loc[64];
};

/* The constant a variable probe with no variable reads, so that its hits
 * are recorded (not an identifier: no expression can name it). */
#define PV_HIT_VAR "(hit)"

static int pv_push_id(uint32_t **ids, size_t *n, uint32_t id)
{
	uint32_t *ni;

	for (size_t i = 0; i < *n; i++)
		if ((*ids)[i] == id)
			return 0;
	ni = realloc(*ids, (*n + 1) * sizeof(*ni));
	if (!ni)
		return -ENOMEM;
	ni[(*n)++] = id;
	*ids = ni;
	return 0;
}

/* The function named name: its symbol, else a C++ function by its
 * demangled name ("Bank::transfer(int, int, long)") or that name without
 * the parameter list ("Bank::transfer"), as func: globs match it. -ENOENT:
 * none; -ENOTUNIQ: overloads share the name without parameters (*sym is
 * the first, *other the second's demangled name: the user gives the
 * parameter list). */
static int pv_find_sym(const struct probe_module *mod, const char *name, uint32_t *sym,
		       char *other, size_t olen)
{
	char d[1024], first[1024] = "";
	int found = 0;

	for (size_t i = 0; i < mod->nsyms; i++)
		if (!strcmp(mod->syms[i].name, name)) {
			*sym = (uint32_t)i;
			return 0;
		}
	for (size_t i = 0; i < mod->nsyms; i++) {
		if (!demangle_name(mod->syms[i].name, d, sizeof(d)))
			continue;
		if (!strcmp(d, name)) {
			*sym = (uint32_t)i;
			return 0;
		}
	}
	for (size_t i = 0; i < mod->nsyms; i++) {
		if (!demangle_name(mod->syms[i].name, d, sizeof(d)))
			continue;
		if (found && !strcmp(d, first))
			continue; /* a constructor's C1/C2 copies: one function */
		demangle_name(mod->syms[i].name, other, olen);
		demangle_strip_params(d);
		if (strcmp(d, name))
			continue;
		if (found)
			return -ENOTUNIQ;
		*sym = (uint32_t)i;
		demangle_name(mod->syms[i].name, first, sizeof(first));
		found = 1;
	}
	return found ? 0 : -ENOENT;
}

static int pv_is_where(const char *w)
{
	if (!strcmp(w, "entry") || !strcmp(w, "exit"))
		return 1;
	for (const char *p = w; *p; p++)
		if (*p < '0' || *p > '9')
			return 0;
	return w[0] != 0;
}

/* "[LIB:]FUNC[:entry|:exit|:LINE]" -> lib ("" = the executable), func,
 * where ("entry" by default). With one ':' the second part is a point when
 * it reads as one (entry, exit, a number), else a function of LIB: a
 * function named "exit" of a library is LIB:exit:entry. *explicit_where
 * (may be NULL): the text named the point. */
static int pv_split_point(const char *text, char *lib, size_t llen, char *func, size_t flen,
			  char *where, size_t wlen, int *explicit_where)
{
	/* (a C++ "::" is part of a name: "Bank::transfer:exit") */
	const char *c1 = demangle_colon(text), *c2 = c1 ? demangle_colon(c1 + 1) : NULL;
	const char *f = text, *w = NULL;
	size_t n;

	lib[0] = 0;
	if (c2 && demangle_colon(c2 + 1))
		return -EINVAL;
	if (c2 || (c1 && !pv_is_where(c1 + 1))) {
		n = (size_t)(c1 - text);
		if (!n || n >= llen)
			return -EINVAL;
		memcpy(lib, text, n);
		lib[n] = 0;
		f = c1 + 1;
		w = c2 ? c2 + 1 : NULL;
	} else if (c1) {
		w = c1 + 1;
	}
	n = w ? (size_t)(w - 1 - f) : strlen(f);
	if (!n || n >= flen)
		return -EINVAL;
	memcpy(func, f, n);
	func[n] = 0;
	if (explicit_where)
		*explicit_where = w != NULL;
	snprintf(where, wlen, "%s", w ? w : "entry");
	return pv_is_where(where) ? 0 : -EINVAL;
}

/* The module and symbol of function func of the executable (lib "") or of
 * the libraries matching lib (the first that has it). 0, -ENOENT (said so)
 * or a negative errno. */
static int pv_resolve(struct probe_mgr *m, const char *lib, const char *func, const char *spec,
		      uint32_t *mi, uint32_t *sym)
{
	uint32_t *mods = NULL;
	size_t nmods = 0;
	char other[1024];
	int rc;

	if (!lib[0]) {
		rc = probe_mgr_exe_module(m, mi);
		if (rc)
			return rc;
		rc = pv_find_sym(&m->mods[*mi], func, sym, other, sizeof(other));
		if (!rc)
			return 0;
		if (rc == -ENOTUNIQ)
			log_err("probe: '%s': %s names several functions (%s, %s, ...): give the "
				"one with its parameter list, as spool probe --list -e 'func:%s' "
				"shows them",
				spec, func, probe_sym_shown(&m->mods[*mi], *sym), other, func);
		else
			log_err("probe: '%s': no function %s in %s%s", spec, func, m->exe,
				m->mods[*mi].stripped
				    ? " (stripped, and no debug file with its .symtab)"
				    : "");
		return -ENOENT;
	}
	rc = probe_mgr_lib_modules(m, lib, spec, &mods, &nmods);
	if (rc)
		return rc;
	rc = -ENOENT;
	for (size_t i = 0; i < nmods && rc == -ENOENT; i++) {
		rc = pv_find_sym(&m->mods[mods[i]], func, sym, other, sizeof(other));
		if (rc != -ENOENT)
			*mi = mods[i];
	}
	if (rc == -ENOTUNIQ) {
		log_err("probe: '%s': %s names several functions (%s, %s, ...): give the one with "
			"its parameter list",
			spec, func, probe_sym_shown(&m->mods[*mi], *sym), other);
		rc = -ENOENT;
	} else if (rc && nmods)
		log_err("probe: '%s': no function %s in the libraries matching '%s'", spec, func,
			lib);
	free(mods);
	return rc;
}

/* The addresses of a point of function sym. */
static int pv_point_addrs(struct probe_mgr *m, uint32_t mi, uint32_t sym, const char *where,
			  uint64_t **addrs, size_t *n, const char *spec)
{
	struct probe_module *mod = &m->mods[mi];
	uint64_t pc;
	int rc;

	*addrs = NULL;
	*n = 0;
	if (!strcmp(where, "exit")) {
		rc = probe_plan_rets(m, mi, sym, addrs, n);
		if (!rc && !*n)
			log_err("probe: '%s': %s has no ret to probe", spec, probe_sym_shown(mod, sym));
		return rc ? rc : *n ? 0 : -ENOENT;
	}
	if (!strcmp(where, "entry"))
		rc = probe_dwarf_entry_pc(mod, &mod->syms[sym], &pc);
	else
		rc = probe_dwarf_line_pc(mod, &mod->syms[sym], atoi(where), &pc);
	if (rc == -ENODATA) {
		log_err("probe: '%s': %s has no DWARF (build it with -g)", spec, mod->path);
		return rc;
	}
	if (rc) {
		if (strcmp(where, "entry"))
			log_err("probe: '%s': no code of line %s in %s", spec, where,
				probe_sym_shown(mod, sym));
		else
			log_err("probe: '%s': no DWARF for %s", spec, probe_sym_shown(mod, sym));
		return rc;
	}
	*addrs = malloc(sizeof(**addrs));
	if (!*addrs)
		return -ENOMEM;
	(*addrs)[(*n)++] = pc;
	return 0;
}

/* Why no probe could go at addr of module mi: the spec and kind of the
 * probe already covering it, and what to do. One probe per instruction: a
 * func:/time: probe (entry, exits) and a var:/args:/assert: probe (which
 * reads the registers) do not share one. The text is in a static buffer
 * (host tool, one thread), valid until the next call. */
static const char *pv_conflict_at(const struct probe_mgr *m, uint32_t mi, uint64_t addr)
{
	static char buf[768];

	for (size_t i = 0; i < m->ndefs; i++) {
		const struct probe_def *d = &m->defs[i];
		const char *by = d->spec ? d->spec : "an earlier spec";

		if (d->module != mi || !d->registered ||
		    !(d->addr == addr || (addr >= d->patch_off && addr < d->patch_off + d->patch_len)))
			continue;
		if (m->attach && d->status != PROBE_S_PENDING) {
			/* probe_plan_ride: -EBUSY */
			snprintf(buf, sizeof(buf),
				 "'%s' put probe %u there, already placed in the running program; "
				 "its out-of-line code is not rewritten while the program may run it, so "
				 "a probe added now cannot join it: detach, and attach again with "
				 "both specs (-e '%s' -e ...)",
				 by, d->shared ? d->shared : d->id, by);
			return buf;
		}
		switch (d->handler) {
		case PROBE_H_FUNC_ENTRY:
		case PROBE_H_FUNC_EXIT:
			snprintf(buf, sizeof(buf),
				 "'%s' put a func:/time: probe of the function there, and one probe "
				 "cannot also read variables: drop '%s' (or narrow it so it does not "
				 "match this function) or give the two in two runs",
				 by, by);
			return buf;
		case PROBE_H_VAR:
			snprintf(buf, sizeof(buf),
				 "'%s' put a var:/args:/assert: probe there, and one probe cannot "
				 "also time the call: drop '%s' or give the two in two runs",
				 by, by);
			return buf;
		case PROBE_H_BLOCK:
		case PROBE_H_BRANCH:
			snprintf(buf, sizeof(buf),
				 "'%s' put a block:/branch: probe there: drop it or give the two in "
				 "two runs",
				 by);
			return buf;
		default:
			snprintf(buf, sizeof(buf), "'%s' put another probe there: drop it", by);
			return buf;
		}
	}
	return NULL;
}

const char *probe_var_conflict(const struct probe_mgr *m, uint32_t mi, uint64_t addr)
{
	return pv_conflict_at(m, mi, addr);
}

static const char *pv_conflict(const struct probe_mgr *m, uint32_t mi, uint64_t addr)
{
	const char *why = pv_conflict_at(m, mi, addr);

	return why ? why : "another probe covers it";
}

/* The probe at addr with a handler that records (var or hit), or a new one. */
static struct probe_def *pv_point_probe(struct probe_mgr *m, uint32_t mi, uint32_t sym,
					uint64_t addr, uint32_t handler, const char *spec)
{
	struct probe_def *d;
	int err;

	for (size_t i = 0; i < m->ndefs; i++) {
		d = &m->defs[i];
		/* (not one deleted while attached: its place is free) */
		if (d->module == mi && d->addr == addr && d->registered && !d->gone &&
		    d->status != PROBE_S_DELETED &&
		    (d->handler == PROBE_H_VAR || (d->handler == handler && handler == PROBE_H_HIT)))
			return d;
	}
	d = probe_plan_point(m, mi, sym, addr, handler,
			     handler == PROBE_H_VAR ? PROBE_OP_VAR : PROBE_OP_HIT,
			     handler == PROBE_H_VAR, &err);
	if (!d && err == -ENOTSUP)
		/* another kind of probe there (func:, block:): run in its
		 * trampoline, at this instruction */
		d = probe_plan_ride(m, mi, sym, addr, handler,
				    handler == PROBE_H_VAR ? PROBE_OP_VAR : PROBE_OP_HIT,
				    handler == PROBE_H_VAR, &err);
	if (!d) {
		log_err("probe: '%s': no probe can be placed at 0x%llx in %s: %s", spec,
			(unsigned long long)addr, probe_sym_shown(&m->mods[mi], sym),
			err == -ENOTSUP || err == -EBUSY ? pv_conflict(m, mi, addr)
							 : strerror(-err));
		return NULL;
	}
	d->registered = 1;
	return d;
}

static void pv_loc_text(const struct probe_area_var *v, char *buf, size_t len)
{
	static const char *const regs[] = {"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp",
					   "r8",  "r9",	 "r10", "r11", "r12", "r13", "r14", "r15"};
	char r[8];

#if defined(__aarch64__)
	/* AAPCS64's DWARF numbers: x0-x30, sp, v0-v31 */
	if (v->reg <= 30)
		snprintf(r, sizeof(r), "x%u", v->reg);
	else if (v->reg == 31)
		snprintf(r, sizeof(r), "sp");
	else if (v->reg >= 64 && v->reg <= 95)
		snprintf(r, sizeof(r), "v%u", v->reg - 64);
	else
		snprintf(r, sizeof(r), "dw%u", v->reg);
	(void)regs;
#else
	if (v->reg < 16)
		snprintf(r, sizeof(r), "%s", regs[v->reg]);
	else if (v->reg >= 17 && v->reg <= 32)
		snprintf(r, sizeof(r), "xmm%u", v->reg - 17);
	else if (v->reg == PROBE_V_REG_ST0)
		snprintf(r, sizeof(r), "st0");
	else
		snprintf(r, sizeof(r), "dw%u", v->reg);
#endif
	switch (v->how) {
	case PROBE_V_REG:
		snprintf(buf, len, "%s", r);
		break;
	case PROBE_V_MEM_REG:
		snprintf(buf, len, "[%s%+lld]", r, (long long)v->off);
		break;
	case PROBE_V_MEM_ABS:
		snprintf(buf, len, "[0x%llx]", (unsigned long long)v->off);
		break;
	case PROBE_V_VAL_REG:
		snprintf(buf, len, "%s%+lld", r, (long long)v->off);
		break;
	default:
		snprintf(buf, len, "const:%lld", (long long)v->off);
		break;
	}
}

static int pv_add_var_loc(struct probe_mgr *m, struct probe_def *d, const char *name,
			  unsigned type, int shown, const char *func, const char *where,
			  const struct probe_dw_var *dv);

/* Add variable name (type: PROBE_T_*, 0 = from DWARF) to probe d. */
static int pv_add_var(struct probe_mgr *m, struct probe_def *d, const char *name, unsigned type,
		      int shown, const char *func, const char *where, const char *spec)
{
	struct probe_module *mod = &m->mods[d->module];
	struct probe_dw_var dv;
	int rc;

	for (size_t i = 0; i < m->nvvars; i++)
		if (m->vvars[i].probe_id == d->id && !strcmp(m->vvars[i].name, name) &&
		    (!type || m->vvars[i].type == type)) {
			m->vvars[i].shown |= shown;
			return 0;
		}
	rc = probe_dwarf_var(mod, &mod->syms[d->sym], name, d->eval_pc, &dv);
	if (rc) {
		log_err("probe: '%s': %s", spec, dv.why);
		return rc;
	}
	if (!type) {
		if (!dv.type) {
			log_err("probe: '%s': '%s' is a %s, not a type variable probes read (give "
				"var:TYPE:...)",
				spec, name, dv.dwarf_type);
			return -ENOTSUP;
		}
		type = dv.type;
	} else if (dv.type && (probe_vtype_size(dv.type) != probe_vtype_size(type) ||
			       probe_vtype_is_float(dv.type) != probe_vtype_is_float(type))) {
		log_warn("probe: '%s': '%s' is a %s in DWARF; reading it as %s", spec, name,
			 dv.dwarf_type, probe_vtype_name(type));
	}
	if (type == PROBE_T_LDOUBLE && !ARCH_DW_LDOUBLE)
		type = PROBE_T_F128; /* var:longdouble: this machine's, binary128 */
	if (dv.how == PROBE_V_REG && !ARCH_DW_IS_FP(dv.reg) && dv.reg != PROBE_V_REG_ST0 &&
	    probe_vtype_is_float(type)) {
		log_err("probe: '%s': '%s' is in a general register, not a floating-point one",
			spec, name);
		return -ENOTSUP;
	}
	if (dv.how == PROBE_V_REG && ARCH_DW_IS_FP(dv.reg) && type == PROBE_T_LDOUBLE) {
		log_err("probe: '%s': a long double is never in an xmm register", spec);
		return -ENOTSUP;
	}
	return pv_add_var_loc(m, d, name, type, shown, func, where, &dv);
}

/* Add variable name of type `type` read by the recipe dv to probe d. */
static int pv_add_var_loc(struct probe_mgr *m, struct probe_def *d, const char *name,
			  unsigned type, int shown, const char *func, const char *where,
			  const struct probe_dw_var *dvp)
{
	const struct probe_dw_var dv = *dvp;
	struct probe_area_var *nv, *v;
	struct probe_vvar *nvv;

	nv = realloc(d->vars, (d->nvars + 1) * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	d->vars = nv;
	nvv = realloc(m->vvars, (m->nvvars + 1) * sizeof(*nvv));
	if (!nvv)
		return -ENOMEM;
	m->vvars = nvv;
	v = &d->vars[d->nvars];
	memset(v, 0, sizeof(*v));
	v->probe_id = d->id;
	v->index = (uint16_t)d->nvars;
	v->how = dv.how;
	v->reg = dv.reg;
	v->off = dv.off;
	v->size = (uint8_t)probe_vtype_size(type);
	nvv = &m->vvars[m->nvvars++];
	memset(nvv, 0, sizeof(*nvv));
	nvv->probe_id = d->id;
	nvv->index = v->index;
	nvv->type = type;
	nvv->shown = shown;
	snprintf(nvv->name, sizeof(nvv->name), "%s", name);
	snprintf(nvv->func, sizeof(nvv->func), "%s", func);
	snprintf(nvv->where, sizeof(nvv->where), "%s", where);
	pv_loc_text(v, nvv->loc, sizeof(nvv->loc));
	d->nvars++;
	return 0;
}

static struct probe_vspec *pv_new_spec(struct probe_mgr *m, int kind, const struct probe_spec *s)
{
	struct probe_vspec *n = realloc(m->vspecs, (m->nvspecs + 1) * sizeof(*n));

	if (!n)
		return NULL;
	m->vspecs = n;
	n = &m->vspecs[m->nvspecs];
	memset(n, 0, sizeof(*n));
	n->kind = kind;
	n->text = strdup(s->text);
	if (!n->text)
		return NULL;
	m->nvspecs++;
	return n;
}

/* var: and assert: */
static int pv_add_var_spec(struct probe_mgr *m, const struct probe_spec *s, int kind)
{
	char what[1024], lib[256], func[256], where[32];
	const char *at = strrchr(s->arg, '@');
	unsigned type = 0;
	struct probe_expr *ex = NULL;
	struct probe_vspec *vs;
	uint64_t *addrs = NULL;
	size_t naddrs = 0;
	uint32_t mi, sym;
	char err[256];
	const char *name = what;
	int rc;

	if (!at || at == s->arg ||
	    pv_split_point(at + 1, lib, sizeof(lib), func, sizeof(func), where, sizeof(where),
			   NULL)) {
		log_err("probe: '%s': want %s@[LIB:]FUNC[:entry|:exit|:LINE]", s->text,
			kind == VS_VAR ? "var:TYPE:NAME" : "assert:EXPR");
		return -EINVAL;
	}
	snprintf(what, sizeof(what), "%.*s", (int)(at - s->arg), s->arg);
	if (kind == VS_VAR) {
		char *c = strchr(what, ':');

		if (!c || !c[1]) {
			log_err("probe: '%s': want var:TYPE:NAME@FUNC (TYPE: char, int, long, "
				"float, double, longdouble or auto)",
				s->text);
			return -EINVAL;
		}
		*c = 0;
		name = c + 1;
		if (strcmp(what, "auto") && !(type = probe_vtype_parse(what))) {
			log_err("probe: '%s': unknown type '%s' (char, int, long, float, double, "
				"longdouble, uchar, uint, ulong, short, ushort, bool, ptr, auto)",
				s->text, what);
			return -EINVAL;
		}
	} else {
		rc = probe_expr_parse(what, &ex, err, sizeof(err));
		if (rc) {
			log_err("probe: '%s': %s", s->text, rc == -EINVAL ? err : strerror(-rc));
			return rc;
		}
	}
	rc = pv_resolve(m, lib, func, s->text, &mi, &sym);
	if (rc) {
		rc = rc == -ENOENT ? 0 : rc; /* matched nothing */
		goto out;
	}
	/* The trace's var table names it by its symbol, one word (reports
	 * demangle it): not "Bank::transfer(int, int, long)" as typed. */
	snprintf(func, sizeof(func), "%s", m->mods[mi].syms[sym].name);
	rc = pv_point_addrs(m, mi, sym, where, &addrs, &naddrs, s->text);
	if (rc) {
		rc = rc == -ENOMEM ? rc : 0;
		goto out;
	}
	vs = pv_new_spec(m, kind, s);
	if (!vs) {
		rc = -ENOMEM;
		goto out;
	}
	snprintf(vs->func, sizeof(vs->func), "%s", func);
	snprintf(vs->where, sizeof(vs->where), "%s", where);
	if (ex && !(vs->expr = strdup(what))) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < naddrs; i++) {
		struct probe_def *d = pv_point_probe(m, mi, sym, addrs[i], PROBE_H_VAR, s->text);

		if (!d) {
			rc = 0;
			goto out;
		}
		if (ex) {
			for (size_t k = 0; k < probe_expr_nidents(ex); k++) {
				rc = pv_add_var(m, d, probe_expr_ident(ex, k), 0, 0, func, where,
						s->text);
				if (rc)
					break;
			}
			/* A hit is the records of its values: a probe that reads
			 * none (assert:1 == 1) reads a constant, not shown. */
			if (!rc && !d->nvars) {
				struct probe_dw_var dv = {.how = PROBE_V_CONST, .off = 1};

				rc = pv_add_var_loc(m, d, PV_HIT_VAR, PROBE_T_INT, 0, func, where,
						    &dv);
			}
		} else {
			rc = pv_add_var(m, d, name, type, 1, func, where, s->text);
		}
		if (!rc)
			rc = pv_push_id(&vs->ids, &vs->nids, d->id);
		if (rc) {
			rc = rc == -ENOMEM ? rc : 0;
			goto out;
		}
	}
	rc = 1;
out:
	free(addrs);
	probe_expr_free(ex);
	return rc;
}

/* The probes of one time point: FUNC[:entry] (the function's entry probe),
 * FUNC:exit (its exit probes), FUNC:LINE (a hit). */
static int pv_time_point(struct probe_mgr *m, const char *text, const char *spec, uint32_t **ids,
			 size_t *nids)
{
	char lib[256], func[256], where[32];
	uint32_t mi, sym;
	int rc;

	if (pv_split_point(text, lib, sizeof(lib), func, sizeof(func), where, sizeof(where),
			   NULL)) {
		log_err("probe: '%s': '%s' is not [LIB:]FUNC, FUNC:entry, FUNC:exit or FUNC:LINE",
			spec, text);
		return -EINVAL;
	}
	rc = pv_resolve(m, lib, func, spec, &mi, &sym);
	if (rc)
		return rc;
	if (!strcmp(where, "entry") || !strcmp(where, "exit")) {
		uint32_t op = !strcmp(where, "entry") ? PROBE_OP_ENTRY : PROBE_OP_EXIT;
		int have = 0;
		size_t before = m->ndefs;

		for (size_t i = 0; i < m->ndefs; i++)
			if (m->defs[i].module == mi && m->defs[i].sym == sym &&
			    (m->defs[i].op == PROBE_OP_ENTRY || m->defs[i].op == PROBE_OP_EXIT))
				have = 1;
		/* A variable probe at the entry already records each call, with
		 * the entry's stack pointer: it is the entry point too. */
		for (size_t i = 0; !have && op == PROBE_OP_ENTRY && i < m->ndefs; i++)
			if (m->defs[i].module == mi && m->defs[i].registered &&
			    m->defs[i].addr == m->mods[mi].syms[sym].addr &&
			    (m->defs[i].op == PROBE_OP_VAR || m->defs[i].op == PROBE_OP_HIT))
				return pv_push_id(ids, nids, m->defs[i].id);
		/* ... and the variable probes of args: at its rets (the return
		 * value) are its exits: time: and args: of one function share
		 * them (args: is planned first, cmd/probe.c). */
		for (size_t i = 0; !have && op == PROBE_OP_EXIT && i < m->ndefs; i++)
			if (m->defs[i].module == mi && m->defs[i].sym == sym &&
			    m->defs[i].registered && m->defs[i].op == PROBE_OP_VAR &&
			    !strncmp(m->defs[i].insn, "ret", 3) &&
			    (rc = pv_push_id(ids, nids, m->defs[i].id)))
				return rc;
		if (!have && op == PROBE_OP_EXIT && *nids)
			return 0;
		if (!have) {
			rc = probe_plan_function(m, mi, sym, 1, 1);
			if (rc)
				return rc;
			for (size_t i = before; i < m->ndefs; i++) {
				m->defs[i].registered = 1;
				m->defs[i].time_only = 1;
			}
		}
		for (size_t i = 0; i < m->ndefs; i++)
			if (m->defs[i].module == mi && m->defs[i].sym == sym && m->defs[i].op == op &&
			    (rc = pv_push_id(ids, nids, m->defs[i].id)))
				return rc;
		if (!*nids) {
			log_err("probe: '%s': %s's %s could not be probed: %s", spec, func, where,
				pv_conflict(m, mi, m->mods[mi].syms[sym].addr));
			return -ENOENT;
		}
		return 0;
	} else {
		uint64_t *addrs;
		size_t n;
		struct probe_def *d;

		rc = pv_point_addrs(m, mi, sym, where, &addrs, &n, spec);
		if (rc)
			return rc;
		d = pv_point_probe(m, mi, sym, addrs[0], PROBE_H_HIT, spec);
		free(addrs);
		if (!d)
			return -ENOENT;
		return pv_push_id(ids, nids, d->id);
	}
}

static int pv_add_time_spec(struct probe_mgr *m, const struct probe_spec *s)
{
	const char *dots = strstr(s->arg, "..");
	struct probe_vspec *vs;
	char a[1100];
	int rc;

	if (!s->arg[0] || (dots && (dots == s->arg || !dots[2]))) {
		log_err("probe: '%s': want time:[LIB:]FUNC or time:A..B (A, B: [LIB:]FUNC, "
			"[LIB:]FUNC:entry, :exit, :LINE)",
			s->text);
		return -EINVAL;
	}
	vs = pv_new_spec(m, VS_TIME, s);
	if (!vs)
		return -ENOMEM;
	if (!dots) {
		char lib[256], func[256], where[32];
		int explicit_where = 0;

		if (!pv_split_point(s->arg, lib, sizeof(lib), func, sizeof(func), where,
				    sizeof(where), &explicit_where) &&
		    explicit_where) {
			log_err("probe: '%s': time:[LIB:]FUNC times whole calls; for points use "
				"time:A..B",
				s->text);
			return -EINVAL;
		}
		vs->time_func = 1;
		snprintf(a, sizeof(a), "%s:entry", s->arg);
		rc = pv_time_point(m, a, s->text, &vs->ids, &vs->nids);
		if (!rc) {
			snprintf(a, sizeof(a), "%s:exit", s->arg);
			rc = pv_time_point(m, a, s->text, &vs->ids2, &vs->nids2);
		}
	} else {
		snprintf(a, sizeof(a), "%.*s", (int)(dots - s->arg), s->arg);
		rc = pv_time_point(m, a, s->text, &vs->ids, &vs->nids);
		if (!rc)
			rc = pv_time_point(m, dots + 2, s->text, &vs->ids2, &vs->nids2);
	}
	if (rc == -ENOMEM || rc == -EINVAL)
		return rc;
	return rc ? 0 : 1;
}

/* ---- args: every scalar parameter at the entry, the return value at each exit ---- */

/* The integer argument registers (DWARF numbers): SysV x86-64 rdi rsi rdx
 * rcx r8 r9, AAPCS64 x0-x7 (arch_dwarf.h). */
static const uint8_t pv_int_regs[ARCH_DW_NGPR_ARGS] = ARCH_DW_GPR_ARGS;
#define PV_DW_RAX ARCH_DW_RET
#define PV_DW_RSP ARCH_DW_SP
#define PV_DW_XMM0 ARCH_DW_FP0
#define PV_MAX_ARGS 32

/* One C type name of a TYPES list: PROBE_T_*, 0 = unknown, -1 = void. */
static int pv_c_type(const char *t)
{
	static const struct {
		const char *name;
		int type;
	} names[] = {
		{"signed char", PROBE_T_CHAR},	     {"unsigned char", PROBE_T_UCHAR},
		{"short int", PROBE_T_SHORT},	     {"unsigned short", PROBE_T_USHORT},
		{"signed", PROBE_T_INT},	     {"signed int", PROBE_T_INT},
		{"unsigned", PROBE_T_UINT},	     {"unsigned int", PROBE_T_UINT},
		{"long int", PROBE_T_LONG},	     {"long long", PROBE_T_LONG},
		{"long long int", PROBE_T_LONG},     {"unsigned long", PROBE_T_ULONG},
		{"unsigned long long", PROBE_T_ULONG}, {"_Bool", PROBE_T_BOOL},
		{"enum", PROBE_T_INT},
	};
	char b[64];
	size_t n = 0;

	/* trim and squeeze blanks */
	for (const char *p = t; *p && n + 1 < sizeof(b); p++) {
		if (*p == ' ' || *p == '\t') {
			if (n && b[n - 1] != ' ')
				b[n++] = ' ';
			continue;
		}
		b[n++] = *p;
	}
	while (n && b[n - 1] == ' ')
		n--;
	b[n] = 0;
	if (!n)
		return 0;
	if (b[n - 1] == '*')
		return PROBE_T_PTR;
	if (!strcmp(b, "void"))
		return -1;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(b, names[i].name))
			return names[i].type;
	return (int)probe_vtype_parse(b);
}

/* "int,double,char*->long" -> types[], *nargs, *ret (0: void). */
static int pv_parse_types(const char *text, unsigned *types, size_t *nargs, unsigned *ret,
			  const char *spec)
{
	const char *arrow = strstr(text, "->"), *p = text;
	char one[64];
	int t;

	*nargs = 0;
	*ret = 0;
	if (!arrow || strstr(arrow + 2, "->"))
		goto bad;
	while (p < arrow) {
		const char *e = memchr(p, ',', (size_t)(arrow - p));
		size_t n = (size_t)((e ? e : arrow) - p);

		if (n >= sizeof(one) || *nargs >= PV_MAX_ARGS)
			goto bad;
		memcpy(one, p, n);
		one[n] = 0;
		t = pv_c_type(one);
		if (t == -1 && !e && !*nargs) /* f(void) */
			break;
		if (t <= 0) {
			log_err("probe: '%s': unknown argument type '%s' in TYPES (char, short, int, "
				"long, long long, their unsigned forms, _Bool, enum, float, double, "
				"long double, any pointer TYPE*)",
				spec, one);
			return -EINVAL;
		}
		if (t == PROBE_T_LDOUBLE && !ARCH_DW_LDOUBLE)
			t = PROBE_T_F128; /* this machine's long double */
		types[(*nargs)++] = (unsigned)t;
		p = e ? e + 1 : arrow;
		if (e && p == arrow)
			goto bad;
	}
	t = pv_c_type(arrow + 2);
	if (!t) {
		log_err("probe: '%s': unknown return type '%s' in TYPES (a scalar type or void)",
			spec, arrow + 2);
		return -EINVAL;
	}
	if (t == PROBE_T_LDOUBLE && !ARCH_DW_LDOUBLE)
		t = PROBE_T_F128;
	*ret = t < 0 ? 0 : (unsigned)t;
	return 0;
bad:
	log_err("probe: '%s': TYPES must read ARG,ARG,...->RET, e.g. int,double,char*->long "
		"(->void for no value, void->int for no arguments)",
		spec);
	return -EINVAL;
}

/* The recipe of the return value of type `type`, SysV x86-64: integers and
 * pointers in rax, float and double in xmm0 (AAPCS64: x0, v0), long double
 * in x87 st(0) (x86-64 only; no
 * epilogue instruction plan_keeps_retval lets run after the handler touches
 * x87, and the agent's handlers never do). */
static void pv_ret_loc(unsigned type, struct probe_dw_var *dv)
{
	memset(dv, 0, sizeof(*dv));
	dv->how = PROBE_V_REG;
	if (type == PROBE_T_LDOUBLE)
		dv->reg = PROBE_V_REG_ST0;
	else
		dv->reg = probe_vtype_is_float(type) ? PV_DW_XMM0 : PV_DW_RAX;
}

/* The variable probe at ret addr whose handler sees the return value: no
 * epilogue instruction that may write it is displaced (an existing probe
 * there is used only if it is so), NULL if none can be. */
static struct probe_def *pv_ret_probe(struct probe_mgr *m, uint32_t mi, uint32_t sym,
				      uint64_t addr, const char *spec)
{
	struct probe_def *d;
	int err;

	for (size_t i = 0; i < m->ndefs; i++) {
		d = &m->defs[i];
		if (d->module != mi || d->addr != addr || !d->registered || d->gone ||
		    d->status == PROBE_S_DELETED)
			continue;
		if (d->handler == PROBE_H_VAR &&
		    (d->method == PROBE_M_INT3 || d->patch_off == addr || d->method == PROBE_M_RIDE))
			return d;
		if (d->handler != PROBE_H_VAR) {
			/* a func: exit there: read the return value in its
			 * trampoline, at the ret itself */
			struct probe_def *r = probe_plan_ride(m, mi, sym, addr, PROBE_H_VAR,
							      PROBE_OP_VAR, 1, &err);

			if (r) {
				r->registered = 1;
				return r;
			}
			if (err == -EBUSY) {
				log_warn("probe: '%s': %s's return value at 0x%llx is skipped: %s",
					 spec, probe_sym_shown(&m->mods[mi], sym),
					 (unsigned long long)addr, pv_conflict(m, mi, addr));
				return NULL;
			}
		}
		log_warn("probe: '%s': the probe at %s's ret 0x%llx runs before its epilogue: "
			 "its return value is skipped there",
			 spec, probe_sym_shown(&m->mods[mi], sym), (unsigned long long)addr);
		return NULL;
	}
	d = probe_plan_point_flags(m, mi, sym, addr, PROBE_H_VAR, PROBE_OP_VAR, 1,
				   PROBE_PLAN_RETVAL, &err);
	if (!d) {
		log_warn("probe: '%s': no probe can be placed at %s's ret 0x%llx: %s", spec,
			 probe_sym_shown(&m->mods[mi], sym), (unsigned long long)addr,
			 err == -ENOTSUP ? pv_conflict(m, mi, addr) : strerror(-err));
		return NULL;
	}
	d->registered = 1;
	return d;
}

/* The return value at every ret of function sym. */
static int pv_args_return(struct probe_mgr *m, struct probe_vspec *vs, uint32_t mi, uint32_t sym,
			  unsigned type, const char *spec)
{
	const char *func = m->mods[mi].syms[sym].name;
	struct probe_dw_var dv;
	uint64_t *rets = NULL;
	size_t n = 0;
	int rc;

	if (type == PROBE_T_LDOUBLE && !ARCH_DW_LDOUBLE)
		type = PROBE_T_F128; /* binary128, in v0 */
	pv_ret_loc(type, &dv);
	rc = probe_plan_rets(m, mi, sym, &rets, &n);
	if (rc || !n) {
		log_warn("probe: '%s': %s has no ret to probe: its return value is skipped", spec,
			 func);
		free(rets);
		return rc == -ENOMEM ? rc : 0;
	}
	for (size_t i = 0; i < n; i++) {
		struct probe_def *d = pv_ret_probe(m, mi, sym, rets[i], spec);

		if (!d)
			continue;
		rc = pv_add_var_loc(m, d, "return", type, 1, func, "exit", &dv);
		if (!rc)
			rc = pv_push_id(&vs->ids, &vs->nids, d->id);
		if (rc)
			break;
	}
	free(rets);
	return rc;
}

/* args:GLOB:TYPES on one function: read by the ABI at its first
 * instruction, where the argument registers and the stack arguments (above
 * the return address) are as the caller left them. */
static int pv_args_abi(struct probe_mgr *m, struct probe_vspec *vs, uint32_t mi, uint32_t sym,
		       const unsigned *types, size_t nargs, unsigned ret, const char *spec)
{
	const char *func = m->mods[mi].syms[sym].name;
	struct probe_def *d = NULL;
	size_t ni = 0, nf = 0;
	int64_t stack = 0;
	int rc = 0;

	if (nargs) {
		d = pv_point_probe(m, mi, sym, m->mods[mi].syms[sym].addr, PROBE_H_VAR, spec);
		if (!d)
			return 0;
		rc = pv_push_id(&vs->ids, &vs->nids, d->id);
	}
	for (size_t i = 0; !rc && i < nargs; i++) {
		struct probe_dw_var dv;
		char name[32];

		memset(&dv, 0, sizeof(dv));
		if (types[i] == PROBE_T_F128 && nf >= ARCH_DW_NFP_ARGS) {
			/* past v7: 16 bytes aligned to 16 in the argument area */
			stack = (stack + 15) & ~(int64_t)15;
			dv.how = PROBE_V_MEM_REG;
			dv.reg = PV_DW_RSP;
			dv.off = ARCH_DW_STACK_ARGS + stack;
			stack += 16;
		} else if (types[i] == PROBE_T_LDOUBLE) {
			/* memory class: 16-byte aligned in the argument area */
			stack = (stack + 15) & ~(int64_t)15;
			dv.how = PROBE_V_MEM_REG;
			dv.reg = PV_DW_RSP;
			dv.off = ARCH_DW_STACK_ARGS + stack;
			stack += 16;
		} else if (probe_vtype_is_float(types[i]) ? nf < ARCH_DW_NFP_ARGS
							  : ni < ARCH_DW_NGPR_ARGS) {
			dv.how = PROBE_V_REG;
			dv.reg = probe_vtype_is_float(types[i]) ? (uint8_t)(PV_DW_XMM0 + nf++)
								: pv_int_regs[ni++];
		} else {
			dv.how = PROBE_V_MEM_REG;
			dv.reg = PV_DW_RSP;
			dv.off = ARCH_DW_STACK_ARGS + stack;
			stack += 8;
		}
		snprintf(name, sizeof(name), "arg%zu", i + 1);
		rc = pv_add_var_loc(m, d, name, types[i], 1, func, "entry", &dv);
	}
	if (!rc && ret)
		rc = pv_args_return(m, vs, mi, sym, ret, spec);
	return rc;
}

/* args:GLOB on one function with DWARF: each scalar parameter by its
 * location at the entry (after the prologue, as var:...@FUNC), the return
 * value by its DWARF type. -ENODATA: no DWARF for it. */
static int pv_args_dwarf(struct probe_mgr *m, struct probe_vspec *vs, uint32_t mi, uint32_t sym,
			 const char *spec)
{
	struct probe_module *mod = &m->mods[mi];
	const char *func = mod->syms[sym].name;
	struct probe_dw_param *ps = NULL;
	struct probe_def *d = NULL;
	char rname[64];
	unsigned ret;
	size_t np = 0;
	uint64_t pc;
	int rc;

	rc = probe_dwarf_params(mod, &mod->syms[sym], &ps, &np, &ret, rname, sizeof(rname));
	if (rc)
		return rc == -ENOMEM ? rc : -ENODATA;
	for (size_t i = 0; i < np; i++) {
		if (!ps[i].type) {
			log_warn("probe: '%s': %s: parameter %s is a %s, not a scalar: skipped",
				 spec, func, ps[i].name[0] ? ps[i].name : "(unnamed)",
				 ps[i].dwarf_type);
			continue;
		}
		if (!ps[i].name[0])
			continue;
		if (!d) {
			rc = probe_dwarf_entry_pc(mod, &mod->syms[sym], &pc);
			if (rc) {
				log_warn("probe: '%s': no entry point in DWARF for %s: its "
					 "parameters are skipped",
					 spec, func);
				break;
			}
			d = pv_point_probe(m, mi, sym, pc, PROBE_H_VAR, spec);
			if (!d)
				break;
			rc = pv_push_id(&vs->ids, &vs->nids, d->id);
			if (rc)
				goto out;
		}
		/* a parameter without a location there is said so and skipped */
		rc = pv_add_var(m, d, ps[i].name, ps[i].type, 1, func, "entry", spec);
		if (rc == -ENOMEM)
			goto out;
	}
	rc = 0;
	if (ret)
		rc = pv_args_return(m, vs, mi, sym, ret, spec);
	else if (strcmp(rname, "void"))
		log_warn("probe: '%s': %s returns a %s, not a scalar: skipped", spec, func, rname);
out:
	free(ps);
	return rc;
}

static int pv_add_args_spec(struct probe_mgr *m, const struct probe_spec *s)
{
	char lib[256] = "", glob[256], body[1024];
	unsigned types[PV_MAX_ARGS], ret = 0;
	const char *tys = NULL, *c;
	struct probe_vspec *vs;
	uint32_t *mods = NULL;
	size_t nargs = 0, nmods = 0;
	int matched = 0, nodw = 0, rc;

	snprintf(body, sizeof(body), "%s", s->arg);
	if (strstr(body, "->")) {
		char *last = strrchr(body, ':');

		if (!last) {
			log_err("probe: '%s': want args:[LIB:]GLOB or args:[LIB:]GLOB:TYPES", s->text);
			return -EINVAL;
		}
		*last = 0;
		tys = last + 1;
		rc = pv_parse_types(tys, types, &nargs, &ret, s->text);
		if (rc)
			return rc;
	}
	c = demangle_colon(body);
	if (c && (demangle_colon(c + 1) || c == body || !c[1] || (size_t)(c - body) >= sizeof(lib))) {
		log_err("probe: '%s': want args:[LIB:]GLOB or args:[LIB:]GLOB:TYPES (TYPES like "
			"int,double,char*->long)",
			s->text);
		return -EINVAL;
	}
	if (c)
		snprintf(lib, sizeof(lib), "%.*s", (int)(c - body), body);
	if (strlen(c ? c + 1 : body) >= sizeof(glob)) {
		log_err("probe: '%s': function pattern too long", s->text);
		return -EINVAL;
	}
	memcpy(glob, c ? c + 1 : body, strlen(c ? c + 1 : body) + 1);
	if (!glob[0]) {
		log_err("probe: '%s': no function pattern", s->text);
		return -EINVAL;
	}
	if (lib[0]) {
		rc = probe_mgr_lib_modules(m, lib, s->text, &mods, &nmods);
		if (rc)
			return rc;
	} else {
		mods = malloc(sizeof(*mods));
		if (!mods)
			return -ENOMEM;
		rc = probe_mgr_exe_module(m, &mods[0]);
		if (rc) {
			free(mods);
			return rc;
		}
		nmods = 1;
	}
	vs = pv_new_spec(m, VS_VAR, s);
	if (!vs) {
		rc = -ENOMEM;
		goto out;
	}
	snprintf(vs->func, sizeof(vs->func), "%s", glob);
	snprintf(vs->where, sizeof(vs->where), "entry");
	rc = 0;
	for (size_t k = 0; !rc && k < nmods; k++) {
		struct probe_module *mod = &m->mods[mods[k]];

		for (size_t i = 0; !rc && i < mod->nsyms; i++) {
			if (!demangle_match(glob, mod->syms[i].name))
				continue;
			matched++;
			if (tys) {
				rc = pv_args_abi(m, vs, mods[k], (uint32_t)i, types, nargs, ret,
						 s->text);
				continue;
			}
			rc = pv_args_dwarf(m, vs, mods[k], (uint32_t)i, s->text);
			if (rc == -ENODATA) {
				if (!nodw++)
					log_warn("probe: '%s': %s has no DWARF: skipped (give its "
						 "types: args:GLOB:TYPES)",
						 s->text, probe_sym_shown(mod, (uint32_t)i));
				rc = 0;
			}
		}
	}
	if (rc)
		goto out;
	if (nodw > 1)
		log_warn("probe: '%s': %d matched functions without DWARF skipped", s->text, nodw);
	if (!matched)
		log_err("probe: '%s' matches no function%s", s->text,
			nmods == 1 && m->mods[mods[0]].stripped ? " (stripped: .dynsym only)" : "");
	rc = vs->nids ? 1 : 0;
out:
	free(mods);
	return rc;
}

int probe_var_add_spec(struct probe_mgr *m, const struct probe_spec *s)
{
	if (!strcmp(s->kind, "var"))
		return pv_add_var_spec(m, s, VS_VAR);
	if (!strcmp(s->kind, "assert"))
		return pv_add_var_spec(m, s, VS_ASSERT);
	if (!strcmp(s->kind, "args"))
		return pv_add_args_spec(m, s);
	return pv_add_time_spec(m, s);
}

void probe_var_free(struct probe_mgr *m)
{
	for (size_t i = 0; i < m->nvspecs; i++) {
		free(m->vspecs[i].text);
		free(m->vspecs[i].expr);
		free(m->vspecs[i].ids);
		free(m->vspecs[i].ids2);
	}
	free(m->vspecs);
	free(m->vvars);
	m->vspecs = NULL;
	m->vvars = NULL;
	m->nvspecs = m->nvvars = 0;
}

int probe_mgr_has_vars(const struct probe_mgr *m)
{
	return m->nvspecs > 0;
}

static void pv_ids(FILE *f, const uint32_t *ids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%u", i ? "," : "", ids[i]);
	if (!n)
		fputc('-', f);
}

/* Two or three words, blank-separated, each one column (sideword.h). */
static void pv_words(FILE *f, const char *a, const char *b, const char *c)
{
	sideword_write(f, a);
	fputc(' ', f);
	sideword_write(f, b);
	if (c) {
		fputc(' ', f);
		sideword_write(f, c);
	}
}

int probe_mgr_var_table(const struct probe_mgr *m, char **text, size_t *len)
{
	char *buf = NULL;
	size_t sz = 0;
	FILE *f = open_memstream(&buf, &sz);

	if (!f)
		return -errno;
	/* Version 2: every name, place and text is one word (sideword.h): a
	 * C++ name holds blanks ("Pair<int, char>::hits"), a spec may. */
	fprintf(f, "# spool vars 2\n"
		   "# var PROBE_ID INDEX TYPE NAME FUNCTION WHERE SHOWN LOCATION\n"
		   "# assert N FUNCTION WHERE PROBE_IDS EXPR\n"
		   "# time N MODE START_IDS END_IDS SPEC\n");
	for (size_t i = 0; i < m->nvvars; i++) {
		const struct probe_vvar *v = &m->vvars[i];

		fprintf(f, "var %u %u %s ", v->probe_id, v->index, probe_vtype_name(v->type));
		pv_words(f, v->name, v->func, v->where);
		fprintf(f, " %d ", v->shown);
		sideword_write(f, v->loc);
		fputc('\n', f);
	}
	for (size_t i = 0, na = 0, nt = 0; i < m->nvspecs; i++) {
		const struct probe_vspec *s = &m->vspecs[i];

		if (s->kind == VS_ASSERT) {
			fprintf(f, "assert %zu ", na++);
			pv_words(f, s->func, s->where, NULL);
			fputc(' ', f);
			pv_ids(f, s->ids, s->nids);
			fputc(' ', f);
			sideword_write(f, s->expr);
			fputc('\n', f);
		} else if (s->kind == VS_TIME) {
			fprintf(f, "time %zu %s ", nt++, s->time_func ? "call" : "span");
			pv_ids(f, s->ids, s->nids);
			fputc(' ', f);
			pv_ids(f, s->ids2, s->nids2);
			fputc(' ', f);
			sideword_write(f, s->text);
			fputc('\n', f);
		}
	}
	if (fclose(f))
		return -ENOMEM;
	*text = buf;
	*len = sz;
	return 0;
}

void probe_var_print_list(const struct probe_mgr *m, FILE *out)
{
	for (size_t i = 0; i < m->nvvars; i++) {
		const struct probe_vvar *v = &m->vvars[i];

		if (i == 0)
			fprintf(out, "values read:\n");
		char func[512];

		demangle_name(v->func, func, sizeof(func));
		fprintf(out, "  probe %-4u %s (%s) at %s:%s from %s%s\n", v->probe_id, v->name,
			probe_vtype_name(v->type), func, v->where, v->loc,
			v->shown ? "" : " (for an assertion)");
	}
}
