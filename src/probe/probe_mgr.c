// SPDX-License-Identifier: MIT
/*
 * probe_mgr.c - the probe manager (define, register, find, delete), the
 * probe library of standard probes, spec parsing, and the feature area the
 * agent reads.
 *
 * Spec grammar (doc/probe.md):
 *   func:GLOB            functions of the executable whose name matches GLOB
 *   func:LIBGLOB:GLOB    functions of the loaded libraries whose file name
 *                        matches LIBGLOB (libz.so*, libc.so.6)
 *   block:[LIBGLOB:]GLOB every basic block of the matched functions
 *   branch:[LIBGLOB:]GLOB every conditional branch of the matched functions
 * GLOB is an fnmatch(3) pattern. Each function matched by func: gets an
 * entry probe and one exit probe per ret; block: and branch: only mark the
 * functions, probe_mgr_plan_cfg() plans them once every spec is in.
 */
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "../common/event.h"
#include "../trace/sideword.h"
#include "../util/demangle.h"
#include "../util/log.h"
#include "../util/target.h"
#include "probe.h"
#if defined(__aarch64__)
#include "../arch/aarch64/a64_insn.h"
#endif

/* The probe library. Handlers are the agent's (PROBE_H_*); the error
 * handler of a standard probe is the agent's default: disable the probe. */
int probe_mgr_quiet;

static const struct probe_lib_entry probe_library[] = {
	{0, "func", 0, PROBE_H_FUNC_ENTRY, 0, 0,
	 "entry: probe id, time, rdi rsi rdx, stack pointer, return address (caller)"},
	{1, "func-exit", 0, PROBE_H_FUNC_EXIT, 0, 0,
	 "at each ret: probe id, time, rax rdx, stack pointer, return address"},
	{2, "hit", 0, PROBE_H_HIT, 0, 0, "a point: probe id, time, rdi rsi rdx"},
	{3, "block", 0, PROBE_H_BLOCK, 0, 0,
	 "basic block: a counter (hits), owning function, address range"},
	{4, "branch", 0, PROBE_H_BRANCH, 0, 0,
	 "conditional branch: the condition's value, counted taken / not taken"},
};

const struct probe_lib_entry *probe_lib_at(unsigned i)
{
	return i < sizeof(probe_library) / sizeof(probe_library[0]) ? &probe_library[i] : NULL;
}

const struct probe_lib_entry *probe_lib_find(const char *name)
{
	const struct probe_lib_entry *e;

	for (unsigned i = 0; (e = probe_lib_at(i)); i++)
		if (!strcmp(e->name, name))
			return e;
	return NULL;
}

int probe_spec_parse(const char *text, struct probe_spec *out, char *err, size_t errlen)
{
	const char *c1 = strchr(text, ':'), *c2;
	char rest[1024];

	memset(out, 0, sizeof(*out));
	out->text = text;
	if (!c1 || c1 == text || (size_t)(c1 - text) >= sizeof(out->kind)) {
		snprintf(err, errlen, "'%s': want KIND:WHAT, e.g. func:main or func:libz.so*:deflate*",
			 text);
		return -EINVAL;
	}
	memcpy(out->kind, text, (size_t)(c1 - text));
	if (!strcmp(out->kind, "var") || !strcmp(out->kind, "assert") || !strcmp(out->kind, "time") ||
	    !strcmp(out->kind, "args")) {
		/* probe_var.c parses the rest: it has ':' and '@' of its own */
		if (strlen(c1 + 1) >= sizeof(out->arg) || !c1[1]) {
			snprintf(err, errlen, "'%s': empty or too long", text);
			return -EINVAL;
		}
		snprintf(out->arg, sizeof(out->arg), "%s", c1 + 1);
		return 0;
	}
	if (strcmp(out->kind, "func") && strcmp(out->kind, "block") &&
	    strcmp(out->kind, "branch") && strcmp(out->kind, "jump") &&
	    strcmp(out->kind, "label") && strcmp(out->kind, "block-exit")) {
		snprintf(err, errlen,
			 "'%s': unknown probe kind '%s' (this version knows func:, block:, "
			 "block-exit:, branch:, jump:, label:, var:, assert:, time:, args:)",
			 text, out->kind);
		return -EINVAL;
	}
	if (!strcmp(out->kind, "label")) {
		/* label:[LIB:]FUNC:NAME: the last ':' (not of a "::") names the label */
		const char *l = strrchr(c1 + 1, ':');

		if (!l || l[1] == 0 || l == c1 + 1 || l[-1] == ':' ||
		    strlen(l + 1) >= sizeof(out->label) ||
		    (size_t)(l - c1 - 1) >= sizeof(rest)) {
			snprintf(err, errlen, "'%s': want label:[LIB:]FUNC:NAME", text);
			return -EINVAL;
		}
		snprintf(out->label, sizeof(out->label), "%s", l + 1);
		memcpy(rest, c1, (size_t)(l - c1));
		rest[l - c1] = 0;
		c1 = rest;
	}
	c2 = demangle_colon(c1 + 1); /* "Bank::transfer" is a name, not LIB:GLOB */
	if (c2) {
		if ((size_t)(c2 - c1 - 1) >= sizeof(out->lib) || c2 == c1 + 1) {
			snprintf(err, errlen, "'%s': bad library pattern", text);
			return -EINVAL;
		}
		memcpy(out->lib, c1 + 1, (size_t)(c2 - c1 - 1));
		c1 = c2;
	}
	if (!c1[1] || strlen(c1 + 1) >= sizeof(out->pattern) || demangle_colon(c1 + 1)) {
		snprintf(err, errlen, "'%s': bad function pattern", text);
		return -EINVAL;
	}
	snprintf(out->pattern, sizeof(out->pattern), "%s", c1 + 1);
	return 0;
}

int probe_mgr_init(struct probe_mgr *m, const char *exe)
{
	char real[PATH_MAX];

	memset(m, 0, sizeof(*m));
	if (!realpath(exe, real))
		return -errno;
	m->exe = strdup(real);
	probe_plan_init_index(m); /* none: overlap queries scan */
	return m->exe ? 0 : -ENOMEM;
}

void probe_mgr_free(struct probe_mgr *m)
{
	for (size_t i = 0; i < m->ndefs; i++) {
		free(m->defs[i].code);
		free(m->defs[i].vars);
	}
	free(m->defs);
	probe_plan_free_index(m);
	probe_var_free(m);
	for (size_t i = 0; i < m->nmods; i++)
		probe_module_close(&m->mods[i]);
	free(m->mods);
	for (size_t i = 0; i < m->nlibs; i++)
		free(m->libs[i]);
	free(m->libs);
	free(m->exe);
	memset(m, 0, sizeof(*m));
}

static int probe_mgr_module(struct probe_mgr *m, const char *path, int is_main, uint32_t *idx)
{
	struct probe_module *nm;
	int rc;

	for (size_t i = 0; i < m->nmods; i++)
		if (!strcmp(m->mods[i].path, path)) {
			*idx = (uint32_t)i;
			return 0;
		}
	nm = realloc(m->mods, (m->nmods + 1) * sizeof(*nm));
	if (!nm)
		return -ENOMEM;
	m->mods = nm;
	rc = probe_module_open(&m->mods[m->nmods], path, is_main);
	if (rc) {
		probe_module_close(&m->mods[m->nmods]);
		return rc;
	}
	if (m->mods[m->nmods].stripped && !probe_mgr_quiet)
		log_info("probe: %s has no .symtab (stripped) and no debug file was found "
			 "(--debug-dir): using .dynsym, %zu functions; static functions cannot "
			 "be probed by name",
			 path, m->mods[m->nmods].nsyms);
	*idx = (uint32_t)m->nmods++;
	return 0;
}

/* label: the labels of function sym matching the spec's name: one counter
 * each; *matched counts the labels found. */
static int probe_mgr_spec_labels(struct probe_mgr *m, const struct probe_spec *s, uint32_t mi,
				 uint32_t sym, int *matched)
{
	struct probe_module *mod = &m->mods[mi];
	struct probe_dw_label *ls;
	size_t n;
	int rc = probe_dwarf_labels(mod, &mod->syms[sym], s->label, &ls, &n);

	if (rc == -ENODATA) {
		log_warn("probe: '%s': %s has no DWARF (build it with -g): no labels", s->text,
			 mod->path);
		return 0;
	}
	if (rc)
		return rc == -ENOENT ? 0 : rc;
	for (size_t k = 0; k < n; k++) {
		(*matched)++;
		if (!ls[k].addr) {
			log_warn("probe: '%s': label %s of %s has no address (optimized out): "
				 "not counted",
				 s->text, ls[k].name, probe_sym_shown(mod, sym));
			continue;
		}
		rc = probe_plan_label(m, mi, sym, ls[k].addr, ls[k].name);
		if (rc < 0)
			break;
		rc = 0;
	}
	free(ls);
	return rc;
}

static int probe_mgr_spec_module(struct probe_mgr *m, const struct probe_spec *s, uint32_t mi,
				 int *matched, int *copied)
{
	struct probe_module *mod = &m->mods[mi];
	unsigned cfg = !strcmp(s->kind, "block")	? PROBE_CFG_BLOCKS
		       : !strcmp(s->kind, "branch")	? PROBE_CFG_BRANCHES
		       : !strcmp(s->kind, "block-exit") ? PROBE_CFG_BEXITS
							: 0;
	int rc;

	if (cfg && !mod->cfg_want) {
		mod->cfg_want = calloc(mod->nsyms ? mod->nsyms : 1, 1);
		if (!mod->cfg_want)
			return -ENOMEM;
	}
	for (size_t i = 0; i < mod->nsyms; i++) {
		int dup = 0;

		if (!demangle_match(s->pattern, mod->syms[i].name))
			continue;
		if (probe_module_copied(mod, mod->syms[i].addr)) {
			/* never patched: the warning says why */
			(*copied)++;
			continue;
		}
		if (!strcmp(s->kind, "label")) {
			rc = probe_mgr_spec_labels(m, s, mi, (uint32_t)i, matched);
			if (rc)
				return rc;
			continue;
		}
		(*matched)++;
		if (cfg) {
			mod->cfg_want[i] |= (uint8_t)cfg;
			continue;
		}
		if (!strcmp(s->kind, "jump")) {
			rc = probe_plan_jumps(m, mi, (uint32_t)i);
			if (rc == -ENOEXEC)
				log_warn("probe: %s in %s: no code to probe", probe_sym_shown(mod, (uint32_t)i),
					 mod->path);
			else if (rc < 0)
				return rc;
			continue;
		}
		for (size_t j = 0; j < m->ndefs; j++)
			if (m->defs[j].module == mi && m->defs[j].sym == i &&
			    m->defs[j].status != PROBE_S_DELETED && /* deleted while attached */
			    (m->defs[j].op == PROBE_OP_ENTRY || m->defs[j].op == PROBE_OP_EXIT)) {
				if (!dup && m->attach && m->defs[j].status != PROBE_S_PENDING) {
					m->ndup++;
					m->dup_id = m->defs[j].id;
				}
				dup = 1;
				m->defs[j].time_only = 0; /* a time: spec placed it first */
			}
		if (dup)
			continue;
		rc = probe_plan_function(m, mi, (uint32_t)i, 1, 1);
		if (rc == -ENOEXEC)
			log_warn("probe: %s in %s: no code to probe", probe_sym_shown(mod, (uint32_t)i), mod->path);
		else if (rc)
			return rc;
	}
	return 0;
}

/* Is path (a real path) one of the libraries the program loads at
 * startup (m->libs: real paths of the DT_NEEDED closure)? */
static int probe_mgr_is_startup_lib(const struct probe_mgr *m, const char *path)
{
	for (size_t i = 0; i < m->nlibs; i++)
		if (!strcmp(m->libs[i], path))
			return 1;
	return 0;
}

/* Whether the LIB pattern of a spec names the executable: its file name
 * (the path as given, or the file it resolves to), or a command of PATH
 * that is the same file (ruby is a link to ruby3.1). */
static int probe_mgr_names_exe(const char *exe, const char *lib)
{
	char real[PATH_MAX], cand[PATH_MAX], cr[PATH_MAX];
	const char *base = strrchr(exe, '/'), *path = getenv("PATH");

	if (!fnmatch(lib, base ? base + 1 : exe, 0))
		return 1;
	if (!realpath(exe, real))
		return 0;
	base = strrchr(real, '/');
	if (!fnmatch(lib, base ? base + 1 : real, 0))
		return 1;
	while (path && *path && !strchr(lib, '/')) {
		const char *end = strchr(path, ':');
		size_t n = end ? (size_t)(end - path) : strlen(path);

		if (n && (size_t)snprintf(cand, sizeof(cand), "%.*s/%s", (int)n, path, lib) <
			     sizeof(cand) &&
		    realpath(cand, cr) && !strcmp(cr, real))
			return 1;
		path = end ? end + 1 : NULL;
	}
	return 0;
}


/* m->libs, resolved the first time they are asked for: the real paths of
 * the executable's DT_NEEDED closure (launch mode; attach mode sets them
 * from the process's maps). 0 or -errno. */
int probe_mgr_libs(struct probe_mgr *m)
{
	int rc;

	if (m->libs_resolved)
		return 0;
	rc = probe_resolve_libs(m->exe, &m->libs, &m->nlibs);
	if (rc)
		return rc;
	m->libs_resolved = 1;
	return 0;
}

int probe_mgr_lib_modules(struct probe_mgr *m, const char *lib, const char *spec, uint32_t **mods,
			  size_t *nmods)
{
	uint32_t mi, *nm;
	int rc;

	*mods = NULL;
	*nmods = 0;
	rc = probe_mgr_libs(m);
	if (rc)
		return rc;
	for (size_t i = 0; i < m->nlibs; i++) {
		const char *base = strrchr(m->libs[i], '/');

		base = base ? base + 1 : m->libs[i];
		if (fnmatch(lib, base, 0))
			continue;
		rc = probe_mgr_module(m, m->libs[i], 0, &mi);
		if (rc) {
			log_warn("probe: cannot read %s: %s", m->libs[i], strerror(-rc));
			continue;
		}
		nm = realloc(*mods, (*nmods + 1) * sizeof(*nm));
		if (!nm)
			return -ENOMEM;
		*mods = nm;
		nm[(*nmods)++] = mi;
	}
	if (!*nmods) {
		/* Not loaded at startup: a library the program may dlopen,
		 * probed when it is loaded (the agent's dlopen). */
		char **files = NULL;
		size_t nfiles = 0;

		rc = probe_find_lib_files(lib, m->exe, &files, &nfiles);
		for (size_t i = 0; !rc && i < nfiles; i++) {
			/* Attach mode: only a library the process has mapped
			 * (by real path: the maps name the file, the pattern
			 * may name its soname, as dlopen would). */
			if (m->attach && !probe_mgr_is_startup_lib(m, files[i]))
				continue;
			if (probe_mgr_module(m, files[i], 0, &mi)) {
				log_warn("probe: cannot read %s", files[i]);
				continue;
			}
			nm = realloc(*mods, (*nmods + 1) * sizeof(*nm));
			if (!nm) {
				rc = -ENOMEM;
				break;
			}
			*mods = nm;
			nm[(*nmods)++] = mi;
			/* Matched by its soname (the pattern names no file of the
			 * startup set): it may still be one of them, by real path. */
			if (!probe_mgr_is_startup_lib(m, files[i]) && !probe_mgr_quiet)
				log_info("probe: %s is not loaded at startup: probed if the "
					 "program dlopens it",
					 files[i]);
		}
		for (size_t i = 0; i < nfiles; i++)
			free(files[i]);
		free(files);
		if (rc && rc != -ENOENT)
			return rc;
	}
	if (!*nmods && m->attach)
		/* The agent was loaded by spool, not preloaded: the program's
		 * dlopen is libc's and nothing follows it. A library loaded
		 * later is probed by an `add` once it is loaded (probe_live.c
		 * reads the maps again for it). */
		log_err("probe: '%s': pid %d has no library matching '%s' loaded: not probed "
			 "(spool probe -p probes the libraries loaded when it attaches, not one "
			 "the program loads later: attach once it is loaded, or attach with "
			 "--commands and `add` the spec then)",
			 spec, m->attach_pid, lib);
	else if (!*nmods && probe_mgr_names_exe(m->exe, lib))
		/* LIB is for libraries: the program's own functions are
		 * named without it (a user wrote args:haproxy:FUNC) */
		log_err("probe: '%s': '%s' names the program itself (%s), not a library it "
			"loads: leave LIB out for its functions (e.g. func:GLOB, args:GLOB, "
			"var:TYPE:NAME@FUNC)",
			spec, lib, m->exe);
	else if (!*nmods)
		log_err("probe: '%s': %s loads no library matching '%s', and no such file "
			"was found for a dlopen",
			spec, m->exe, lib);
	return 0;
}

int probe_mgr_add_spec(struct probe_mgr *m, const struct probe_spec *s)
{
	size_t before = m->ndefs;
	int matched = 0, copied = 0, rc;
	uint32_t mi;

	m->cur_spec = s->text;
	if (s->arg[0])
		return probe_var_add_spec(m, s);
	if (!s->lib[0]) {
		rc = probe_mgr_module(m, m->exe, 1, &mi);
		if (rc) {
			char why[400];

			log_err("probe: cannot read %s: %s", m->exe,
				target_unreadable_why(m->exe, rc, why, sizeof(why)));
			return rc;
		}
		rc = probe_mgr_spec_module(m, s, mi, &matched, &copied);
		if (rc)
			return rc;
		if (!matched && copied)
			log_err("probe: '%s' matches only functions of %s that are not probed (above)",
				s->text, m->exe);
		else if (!matched && s->label[0])
			log_err("probe: '%s': no function of %s matching '%s' has a label '%s'",
				s->text, m->exe, s->pattern, s->label);
		else if (!matched)
			log_err("probe: '%s' matches no function of %s%s", s->text, m->exe,
				m->mods[mi].stripped
					? " (stripped: only .dynsym was searched; --debug-dir names "
					  "where its debug file is; the functions its libraries "
					  "export can be probed: func:LIB:GLOB)"
					: "");
	} else {
		uint32_t *mods;
		size_t nmods;

		rc = probe_mgr_lib_modules(m, s->lib, s->text, &mods, &nmods);
		for (size_t i = 0; !rc && i < nmods; i++)
			rc = probe_mgr_spec_module(m, s, mods[i], &matched, &copied);
		free(mods);
		if (rc)
			return rc;
		if (nmods && !matched && copied)
			log_err("probe: '%s' matches only functions of the libraries matching '%s' "
				"that are not probed (above)",
				s->text, s->lib);
		else if (nmods && !matched)
			log_err("probe: '%s' matches no function of the libraries matching '%s'",
				s->text, s->lib);
	}
	for (size_t i = before; i < m->ndefs; i++)
		m->defs[i].registered = 1;
	return matched;
}

int probe_mgr_plan_cfg(struct probe_mgr *m)
{
	for (size_t mi = 0; mi < m->nmods; mi++) {
		struct probe_module *mod = &m->mods[mi];

		for (size_t i = 0; mod->cfg_want && i < mod->nsyms; i++) {
			size_t before = m->ndefs;
			int rc;

			if (!mod->cfg_want[i])
				continue;
			rc = probe_plan_cfg(m, (uint32_t)mi, (uint32_t)i, mod->cfg_want[i]);
			if (rc == -ENOEXEC)
				log_warn("probe: %s in %s: no code to probe", probe_sym_shown(mod, (uint32_t)i),
					 mod->path);
			else if (rc)
				return rc;
			for (size_t k = before; k < m->ndefs; k++)
				m->defs[k].registered = 1;
			mod->cfg_want[i] = 0;
		}
	}
	return 0;
}

static int probe_is_cfg(const struct probe_def *d)
{
	return d->op == PROBE_OP_BLOCK || d->op == PROBE_OP_BRANCH;
}

int probe_mgr_has_cfg(const struct probe_mgr *m)
{
	for (size_t i = 0; i < m->ndefs; i++)
		if (m->defs[i].registered && probe_is_cfg(&m->defs[i]))
			return 1;
	return 0;
}

int probe_mgr_has_func(const struct probe_mgr *m)
{
	for (size_t i = 0; i < m->ndefs; i++)
		if (m->defs[i].registered && !m->defs[i].time_only &&
		    (m->defs[i].op == PROBE_OP_ENTRY || m->defs[i].op == PROBE_OP_EXIT))
			return 1;
	return 0;
}

/* Messages and --list name a C++ function as the user wrote it, with the
 * symbol after it (what the ELF file, nm and a mangled glob use): a few
 * rotating static buffers (host tool, one thread), valid for the next
 * three calls. */
const char *probe_sym_shown(const struct probe_module *mod, uint32_t sym)
{
	static char bufs[4][768];
	static unsigned next;
	char *b = bufs[next++ % 4], dem[512];
	const char *name = sym < mod->nsyms ? mod->syms[sym].name : "?";

	if (demangle_name(name, dem, sizeof(dem)))
		snprintf(b, sizeof(bufs[0]), "%s (%s)", dem, name);
	else
		snprintf(b, sizeof(bufs[0]), "%s", name);
	return b;
}

/* --list's function column: the demangled name only (the symbol is in the
 * probes side file and in planning messages). */
static const char *probe_sym_column(const struct probe_module *mod, uint32_t sym)
{
	static char b[512];

	demangle_name(mod->syms[sym].name, b, sizeof(b));
	return b;
}

int probe_mgr_exe_module(struct probe_mgr *m, uint32_t *idx)
{
	int rc = probe_mgr_module(m, m->exe, 1, idx);
	char why[400];

	if (rc)
		log_err("probe: cannot read %s: %s", m->exe,
			target_unreadable_why(m->exe, rc, why, sizeof(why)));
	return rc;
}

/* Patched in the text: by itself, or inside the probe that carries it. */
static int probe_placed(const struct probe_mgr *m, const struct probe_def *d)
{
	if (d->shared && d->shared <= m->ndefs)
		d = &m->defs[d->shared - 1];
	return d->status == PROBE_S_PATCHED || d->status == PROBE_S_RESTORED ||
	       d->status == PROBE_S_REMOVED;
}

static const char *probe_method_name(const struct probe_def *d)
{
	if (d->shared)
		return "shared";
	return d->method == PROBE_M_JUMP ? "jump" : d->method == PROBE_M_RETADDR ? "retaddr" : "int3";
}

/* A point's kind as the coverage file and --list name it. */
static const char *probe_point_kind(const struct probe_def *d)
{
	return d->point == PROBE_PT_JUMP    ? "jump"
	       : d->point == PROBE_PT_LABEL ? "label"
					    : "block-exit";
}

int probe_mgr_cfg_table(const struct probe_mgr *m, char **text, size_t *len)
{
	char *buf = NULL;
	size_t sz = 0;
	FILE *f = open_memstream(&buf, &sz);

	if (!f)
		return -errno;
	/* Version 2: MODULE and FUNCTION are sidewords (a path with a space
	 * keeps the columns where they are); version 1 wrote them as they are. */
	fprintf(f,
		"# spool coverage 2\n"
		"# block ID METHOD START END COUNT MODULE FUNCTION\n"
		"# branch ID METHOD ADDR TARGET FALLTHROUGH TAKEN NOT_TAKEN MODULE FUNCTION\n"
		"# point ID METHOD ADDR KIND NAME COUNT MODULE FUNCTION\n"
		"# (offsets are link-time addresses; a count of - : the probe was not placed)\n");
	for (size_t i = 0; i < m->ndefs; i++) {
		const struct probe_def *d = &m->defs[i];
		const struct probe_module *mod = &m->mods[d->module];
		int ok = probe_placed(m, d);

		if (!d->registered || !probe_is_cfg(d))
			continue;
		if (d->point) {
			fprintf(f, "point %u %s 0x%llx %s %s ", d->id, probe_method_name(d),
				(unsigned long long)d->addr, probe_point_kind(d), d->point_name);
			if (ok)
				fprintf(f, "%llu", (unsigned long long)d->count[0]);
			else
				fputc('-', f);
		} else if (d->op == PROBE_OP_BLOCK) {
			fprintf(f, "block %u %s 0x%llx 0x%llx ", d->id, probe_method_name(d),
				(unsigned long long)d->addr, (unsigned long long)d->end);
			if (ok)
				fprintf(f, "%llu", (unsigned long long)d->count[0]);
			else
				fputc('-', f);
		} else {
			fprintf(f, "branch %u %s 0x%llx 0x%llx 0x%llx ", d->id, probe_method_name(d),
				(unsigned long long)d->addr, (unsigned long long)d->end,
				(unsigned long long)d->fall);
			if (ok)
				fprintf(f, "%llu %llu", (unsigned long long)d->count[0],
					(unsigned long long)d->count[1]);
			else
				fputs("- -", f);
		}
		fputc(' ', f);
		sideword_write(f, mod->path);
		fputc(' ', f);
		sideword_write(f, mod->syms[d->sym].name);
		fputc('\n', f);
	}
	if (fclose(f))
		return -ENOMEM;
	*text = buf;
	*len = sz;
	return 0;
}

struct probe_def *probe_mgr_find(struct probe_mgr *m, uint32_t module, uint64_t addr, uint32_t op)
{
	for (size_t i = 0; i < m->ndefs; i++)
		if (m->defs[i].module == module && m->defs[i].addr == addr &&
		    (!op || m->defs[i].op == op))
			return &m->defs[i];
	return NULL;
}

/* register/unregister are mutually exclusive states of a defined probe. */
int probe_mgr_register(struct probe_mgr *m, struct probe_def *d)
{
	if (d->registered)
		return -EALREADY;
	d->registered = 1;
	return 0;
}

int probe_mgr_unregister(struct probe_mgr *m, struct probe_def *d)
{
	if (!d->registered)
		return -ENOENT;
	d->registered = 0;
	return 0;
}

int probe_mgr_delete(struct probe_mgr *m, struct probe_def *d)
{
	size_t i = (size_t)(d - m->defs);

	if (i >= m->ndefs)
		return -EINVAL;
	free(d->code);
	memmove(d, d + 1, (m->ndefs - i - 1) * sizeof(*d));
	m->ndefs--;
	return 0;
}

/* ---- the feature area ---- */

#define PROBE_CODE_ALIGN 16

static void probe_area_counts(const struct probe_mgr *m, size_t from, size_t *np, size_t *nr,
			      size_t *code)
{
	*np = *nr = *code = 0;
	for (size_t i = from; i < m->ndefs; i++) {
		const struct probe_def *d = &m->defs[i];

		if (!d->registered || (d->shared && d->method != PROBE_M_RIDE))
			continue;
		(*np)++;
		*nr += d->code->nrel;
		*code += (d->code->len + PROBE_CODE_ALIGN - 1) & ~(size_t)(PROBE_CODE_ALIGN - 1);
	}
}

/* Counters for every id (ids are 1..ndefs, and the reserve); a batch
 * (from > 0) has none. */
static size_t probe_ncounts(const struct probe_mgr *m, size_t from)
{
	return from ? 0 : m->ndefs + 1 + m->id_reserve;
}

static size_t probe_nvars(const struct probe_mgr *m, size_t from)
{
	size_t n = 0;

	for (size_t i = from; i < m->ndefs; i++)
		if (m->defs[i].registered)
			n += m->defs[i].nvars;
	return n;
}

uint64_t probe_mgr_area_size_from(const struct probe_mgr *m, size_t from)
{
	size_t np, nr, code;

	probe_area_counts(m, from, &np, &nr, &code);
	return sizeof(struct probe_area_hdr) + m->nmods * sizeof(struct probe_area_module) +
	       np * sizeof(struct probe_area_probe) + nr * sizeof(struct probe_area_reloc) + code +
	       64 + probe_ncounts(m, from) * 2 * sizeof(uint64_t) + 8 +
	       probe_nvars(m, from) * sizeof(struct probe_area_var) + 8;
}

uint64_t probe_mgr_area_size(const struct probe_mgr *m)
{
	return probe_mgr_area_size_from(m, 0);
}

int probe_mgr_fill_area(struct probe_mgr *m, void *area, uint64_t size)
{
	return probe_mgr_fill_area_from(m, 0, area, size);
}

/* One slot per handler call a trampoline can have (x86_code.skip). */
_Static_assert(PROBE_SKIPS >= X86_SKIP_MAX, "a trampoline's handler calls need a slot each");

/* The skippable handler calls of d's trampoline into ap, a slot each: its
 * own, its shared exit's, those of the probes of other kinds riding in it
 * (PROBE_M_RIDE: each disabled and enabled on its own, probe_live.c); a
 * disabled one's nop becomes the jmp over it. */
static void probe_area_skips(const struct probe_mgr *m, const struct probe_def *d,
			     struct probe_area_probe *ap, uint8_t *code)
{
	const struct x86_code *c = d->code;
	uint32_t n = 0, off = 0;

	for (uint32_t k = 0; k < c->nskip && k < X86_SKIP_MAX; k++) {
		uint32_t id = c->skip[k].id, j;
		const struct probe_def *who = id && id <= m->ndefs ? &m->defs[id - 1] : NULL;

		if (c->skip[k].end > c->len || c->skip[k].at + 5 > c->skip[k].end || !who ||
		    who->id != id)
			continue;
		for (j = 0; j < n && ap->skip_id[j] != id; j++)
			;
		if (j < n)
			continue; /* (one call per probe) */
		ap->skip_id[n] = id;
		ap->skip_at[n] = (uint16_t)c->skip[k].at;
		ap->skip_end[n] = (uint16_t)c->skip[k].end;
		n++;
		if (who->disabled) {
#if defined(__aarch64__)
			a64_code_skip(code, c->skip[k].at, c->skip[k].end);
			off++;
#else
			int32_t rel = (int32_t)(c->skip[k].end - (c->skip[k].at + 5));

			code[c->skip[k].at] = 0xe9;
			memcpy(code + c->skip[k].at + 1, &rel, 4);
			(void)off;
#endif
		}
	}
#if defined(__aarch64__)
	/* every call off: the first word goes straight to the moved one */
	if (n && off == n && c->nmark && c->mark[0].off + 4 <= c->len)
		a64_code_skip(code, 0, c->mark[0].off);
#endif
	if (d->disabled && d->method == PROBE_M_INT3)
		ap->flags |= PROBE_F_DISABLED;
}

int probe_mgr_fill_area_from(struct probe_mgr *m, size_t from, void *area, uint64_t size)
{
	struct probe_area_hdr *h = area;
	struct probe_area_module *am;
	struct probe_area_probe *ap;
	struct probe_area_reloc *ar;
	uint8_t *code;
	size_t np, nr, ncode, pi = 0, ri = 0, co = 0;
	uint32_t *sx;

	if (size < probe_mgr_area_size_from(m, from))
		return -ENOSPC;
	probe_area_counts(m, from, &np, &nr, &ncode);
	memset(area, 0, size);
	h->magic = PROBE_AREA_MAGIC;
	h->version = PROBE_AREA_VERSION;
	h->nmodules = (uint32_t)m->nmods;
	h->nprobes = (uint32_t)np;
	h->nrelocs = (uint32_t)nr;
	h->code_bytes = (uint32_t)ncode;
	h->modules_off = sizeof(*h);
	h->probes_off = h->modules_off + m->nmods * sizeof(*am);
	h->relocs_off = h->probes_off + np * sizeof(*ap);
	h->code_off = (h->relocs_off + nr * sizeof(*ar) + 15) & ~15ull;
	h->counts_off = (h->code_off + ncode + 63) & ~63ull;
	h->ncounts = (uint32_t)probe_ncounts(m, from);
	h->nvars = (uint32_t)probe_nvars(m, from);
	h->vars_off = (h->counts_off + h->ncounts * 2 * sizeof(uint64_t) + 7) & ~7ull;
	{
		/* by probe id (defs are in id order), then index */
		struct probe_area_var *av = (void *)((char *)area + h->vars_off);
		size_t vi = 0;

		for (size_t i = from; i < m->ndefs; i++)
			for (uint32_t k = 0; m->defs[i].registered && k < m->defs[i].nvars; k++) {
				av[vi] = m->defs[i].vars[k];
				av[vi].index = (uint16_t)k;
				av[vi++].nvars = (uint16_t)m->defs[i].nvars;
			}
	}
	am = (void *)((char *)area + h->modules_off);
	ap = (void *)((char *)area + h->probes_off);
	ar = (void *)((char *)area + h->relocs_off);
	code = (uint8_t *)area + h->code_off;
	/* by owner id: the exit counted in its trampoline (a short function's) */
	sx = calloc(m->ndefs + 1, sizeof(*sx));
	if (!sx)
		return -ENOMEM;
	for (size_t i = 0; i < m->ndefs; i++) {
		const struct probe_def *d = &m->defs[i];

		if (d->shared && d->shared <= m->ndefs && d->registered && d->op == PROBE_OP_EXIT)
			sx[d->shared] = d->id;
	}
	/* Probes grouped by module; each module's trampolines are one block. */
	for (size_t mi = 0; mi < m->nmods; mi++) {
		snprintf(am[mi].name, sizeof(am[mi].name), "%s", m->mods[mi].name);
		am[mi].first_probe = (uint32_t)pi;
		am[mi].lo = UINT64_MAX;
		for (size_t i = from; i < m->ndefs; i++) {
			const struct probe_def *d = &m->defs[i];
			size_t clen = (d->code->len + PROBE_CODE_ALIGN - 1) &
				      ~(size_t)(PROBE_CODE_ALIGN - 1);

			if (!d->registered || d->module != mi ||
			    (d->shared && d->method != PROBE_M_RIDE))
				continue;
			ap[pi].id = d->id;
			ap[pi].owner = d->method == PROBE_M_RIDE ? d->shared : 0;
			ap[pi].module = (uint32_t)mi;
			ap[pi].addr_off = d->addr;
			ap[pi].patch_off = d->patch_off;
			ap[pi].patch_len = d->patch_len;
			ap[pi].method = d->method;
			ap[pi].handler = d->handler;
			ap[pi].op = d->op;
			ap[pi].ret_id = d->ret_id;
			if (d->op == PROBE_OP_BRANCH)
				ap[pi].op = d->cc | d->carry << 4;
			else if (d->op == PROBE_OP_BLOCK)
				ap[pi].op = PROBE_OP_HIT;
			memcpy(ap[pi].orig, d->orig, sizeof(ap[pi].orig));
			ap[pi].code_off = (uint32_t)co;
			ap[pi].code_len = d->code->len;
			ap[pi].reloc_first = (uint32_t)ri;
			ap[pi].reloc_count = d->code->nrel;
			ap[pi].shared_exit = sx[d->id];
			memcpy(code + co, d->code->buf, d->code->len);
			memset(code + co + d->code->len, X86_INT3, clen - d->code->len);
			probe_area_skips(m, d, &ap[pi], code + co);
			ap[pi].flags |= d->area_flags;
			memcpy(ar + ri, d->code->rel, d->code->nrel * sizeof(*ar));
			ri += d->code->nrel;
			co += clen;
			am[mi].code_bytes += (uint32_t)clen;
			if (d->patch_off < am[mi].lo)
				am[mi].lo = d->patch_off;
			if (d->patch_off + d->patch_len > am[mi].hi)
				am[mi].hi = d->patch_off + d->patch_len;
			pi++;
		}
		am[mi].nprobes = (uint32_t)pi - am[mi].first_probe;
		if (!am[mi].nprobes)
			am[mi].lo = 0;
	}
	free(sx);
	return 0;
}

int probe_area_check(const void *area, uint64_t size, struct probe_area_hdr *copy)
{
	if (!area || size < sizeof(*copy))
		return -EPROTO;
	/* One copy, then checked: the program can rewrite the area. */
	memcpy(copy, area, sizeof(*copy));
	if (copy->probes_off > size ||
	    (uint64_t)copy->nprobes * sizeof(struct probe_area_probe) > size - copy->probes_off ||
	    copy->counts_off > size || 16ull * copy->ncounts > size - copy->counts_off)
		return -EPROTO;
	return 0;
}

int probe_mgr_read_area(struct probe_mgr *m, const void *area, uint64_t size)
{
	struct probe_area_hdr h;
	const struct probe_area_probe *ap;
	const uint64_t *counts;
	size_t *first, *next;
	uint32_t max_id = 0;

	if (probe_area_check(area, size, &h) < 0)
		return -EPROTO;
	ap = (const void *)((const char *)area + h.probes_off);
	counts = (const void *)((const char *)area + h.counts_off);
	/* The defs of each id (several may share one), found through an index
	 * by id: thousands of probes (every function of a library) made the
	 * search of every def for every probe a visible part of spool's time.
	 * The area's ids come from the program's memory: any value. */
	for (size_t j = 0; j < m->ndefs; j++)
		if (m->defs[j].id > max_id)
			max_id = m->defs[j].id;
	first = malloc(((size_t)max_id + 1) * sizeof(*first));
	next = malloc((m->ndefs + 1) * sizeof(*next));
	if (!first || !next) {
		free(first);
		free(next);
		return -ENOMEM;
	}
	for (size_t k = 0; k <= max_id; k++)
		first[k] = SIZE_MAX;
	for (size_t j = m->ndefs; j-- > 0;) {
		next[j] = first[m->defs[j].id];
		first[m->defs[j].id] = j;
	}
	for (uint32_t i = 0; i < h.nprobes; i++) {
		uint32_t id = ap[i].id;

		if (id > max_id)
			continue;
		for (size_t j = first[id]; j != SIZE_MAX; j = next[j]) {
			m->defs[j].status = __atomic_load_n(&ap[i].status, __ATOMIC_ACQUIRE);
			m->defs[j].runtime_addr = ap[i].runtime_addr;
		}
	}
	free(first);
	free(next);
	for (size_t j = 0; j < m->ndefs; j++) {
		struct probe_def *d = &m->defs[j];

		/* a point counted by another counter's window has its count (one
		 * riding in another kind of probe's trampoline counts itself) */
		uint32_t cid = d->point && d->shared && d->method != PROBE_M_RIDE ? d->shared
										  : d->id;

		if (cid < h.ncounts && probe_is_cfg(d)) {
			d->count[0] = __atomic_load_n(&counts[2 * cid], __ATOMIC_RELAXED);
			d->count[1] = __atomic_load_n(&counts[2 * cid + 1], __ATOMIC_RELAXED);
		}
	}
	return 0;
}

static const char *probe_op_name(uint32_t op)
{
	switch (op) {
	case PROBE_OP_ENTRY:
		return "entry";
	case PROBE_OP_EXIT:
		return "exit";
	case PROBE_OP_BLOCK:
		return "block";
	case PROBE_OP_BRANCH:
		return "branch";
	case PROBE_OP_VAR:
		return "var";
	default:
		return "hit";
	}
}

static const char *probe_def_op_name(const struct probe_def *d)
{
	return d->point ? probe_point_kind(d) : probe_op_name(d->op);
}

int probe_mgr_table(const struct probe_mgr *m, char **text, size_t *len)
{
	char *buf = NULL;
	size_t sz = 0;
	FILE *f = open_memstream(&buf, &sz);

	if (!f)
		return -errno;
	/* Version 2: the executable's own path in the module column (version
	 * 1 wrote "-"), named once by the "# exe" line, and the function as a
	 * user writes it (demangled) after the symbol: the rest of the line,
	 * as it may hold spaces. Version 3: the module (and the "# exe" path)
	 * and the symbol are sidewords, so a path with a space keeps the
	 * columns where they are. */
	fputs("# spool probes 3\n# id op method module offset symbol function\n# exe ", f);
	sideword_write(f, m->exe);
	fputc('\n', f);
	for (size_t i = 0; i < m->ndefs; i++) {
		const struct probe_def *d = &m->defs[i];
		const struct probe_module *mod = &m->mods[d->module];
		const char *sym = mod->syms[d->sym].name;
		char dem[1024];

		if (!d->registered)
			continue;
		demangle_name(sym, dem, sizeof(dem));
		fprintf(f, "%u %s %s ", d->id, probe_op_name(d->op), probe_method_name(d));
		sideword_write(f, mod->is_main ? m->exe : mod->path);
		fprintf(f, " 0x%llx ", (unsigned long long)d->addr);
		sideword_write(f, sym);
		fprintf(f, " %s\n", dem);
	}
	if (fclose(f))
		return -ENOMEM;
	*text = buf;
	*len = sz;
	return 0;
}

/*
 * A block whose first instructions another probe's window covers (a
 * function's entry jump at the block's start) is counted at the first
 * instruction after that window: --list shows that offset, the instruction
 * there (d->insn is the patched one), and the block's own start in the
 * last column, so that offset and instruction always agree.
 */
static void probe_list_block_moved(const struct probe_mgr *m, const struct probe_def *d,
				   char *off, size_t offlen, char *why, size_t whylen)
{
	const struct probe_module *mod = &m->mods[d->module];
	uint64_t base = mod->syms[d->sym].addr;
	size_t n = strlen(why);
	uint32_t by;

	if (d->op != PROBE_OP_BLOCK || d->point || d->patch_off <= d->addr ||
	    (d->method != PROBE_M_JUMP && d->method != PROBE_M_INT3))
		return;
	snprintf(off, offlen, "+0x%llx", (unsigned long long)(d->patch_off - base));
#if defined(__aarch64__)
	/* one word per probe: a64_cfg.c kept why the counter moved */
	(void)by;
	snprintf(why + n, whylen - n, "%sthe block at +0x%llx (%s)", n ? "; " : "",
		 (unsigned long long)(d->addr - base), d->why);
	return;
#endif
	by = probe_plan_covering(m, d->module, d->addr, d->addr + 1);
	snprintf(why + n, whylen - n, "%sthe block at +0x%llx (its start is in %s%.0u's window)",
		 n ? "; " : "", (unsigned long long)(d->addr - base), by ? "probe " : "another probe",
		 by);
}

void probe_mgr_print_list(const struct probe_mgr *m, FILE *out)
{
	size_t njump = 0, nint3 = 0, nshared = 0, nblock = 0, nbranch = 0, npoint = 0, nra = 0;

	int w = 28; /* the function column: as wide as the longest name shown */

	for (size_t i = 0; i < m->ndefs; i++)
		if (m->defs[i].registered) {
			int n = (int)strlen(probe_sym_column(&m->mods[m->defs[i].module],
							     m->defs[i].sym));

			if (n > w)
				w = n < 72 ? n : 72;
		}
	fprintf(out, "%-*s %-6s %-7s %-10s %-24s %s\n", w, "function", "probe", "method", "offset",
		"instruction", "module / why not a jump");
	for (size_t i = 0; i < m->ndefs; i++) {
		const struct probe_def *d = &m->defs[i];
		const struct probe_module *mod = &m->mods[d->module];
		char off[24];

		if (!d->registered)
			continue;
		snprintf(off, sizeof(off), "+0x%llx",
			 (unsigned long long)(d->addr - mod->syms[d->sym].addr));
		if (d->shared) {
			const struct probe_def *o = &m->defs[d->shared - 1];
			char why[320];

			if (d->method == PROBE_M_RIDE)
				snprintf(why, sizeof(why), "runs in probe %u's %s (%s %s%s%s)",
					 d->shared,
					 o->method == PROBE_M_JUMP ? "trampoline" : "int3 slot",
					 probe_def_op_name(o),
					 o->method == PROBE_M_JUMP ? "jump" : "int3",
					 o->spec ? " of " : "", o->spec ? o->spec : "");
			else
				snprintf(why, sizeof(why), "counted by probe %u (%s)", d->shared,
					 o->method == PROBE_M_JUMP ? "jump" : "int3");
			fprintf(out, "%-*s %-6s %-7s %-10s %-24s %s\n", w, probe_sym_column(mod, d->sym),
				probe_def_op_name(d), "shared", off, d->insn, why);
			nshared++;
		} else {
			char why[256];

			/* retaddr: "+0x0" is the entry whose trampoline swaps the
			 * return address; the reason says which ret needed it */
			if (d->method == PROBE_M_JUMP)
				snprintf(why, sizeof(why), "%s", mod->is_main ? "" : mod->name);
			else if (d->method == PROBE_M_INT3 || mod->is_main)
				snprintf(why, sizeof(why), "%s", d->why);
			else
				snprintf(why, sizeof(why), "%s (%s)", d->why, mod->name);
			probe_list_block_moved(m, d, off, sizeof(off), why, sizeof(why));
			fprintf(out, "%-*s %-6s %-7s %-10s %-24s %s\n", w, probe_sym_column(mod, d->sym),
				probe_def_op_name(d), probe_method_name(d), off, d->insn, why);
			if (d->method == PROBE_M_JUMP)
				njump++;
			else if (d->method == PROBE_M_RETADDR)
				nra++;
			else
				nint3++;
		}
		nblock += d->op == PROBE_OP_BLOCK && !d->point;
		npoint += d->point != 0;
		nbranch += d->op == PROBE_OP_BRANCH;
	}
	fprintf(out, "%zu probes: %zu jump, %zu int3", njump + nint3 + nra, njump, nint3);
	if (nra)
		fprintf(out, ", %zu retaddr (exits through the return address)", nra);
	if (nblock || nbranch || npoint)
		fprintf(out, ", %zu shared (%zu blocks, %zu branches%s", nshared, nblock, nbranch,
			npoint ? "" : ")");
	if (npoint)
		fprintf(out, ", %zu points)", npoint);
	fputc('\n', out);
	probe_var_print_list(m, out);
}
