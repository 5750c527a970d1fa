// SPDX-License-Identifier: MIT
/*
 * path_prog.c - the functions of a program, for `spool path --check` and for
 * the "data" object of the thread path: DWARF subprograms (elfutils libdw)
 * when the executable has debug info, else the ELF symbol table (libelf),
 * .symtab or, in a stripped binary, .dynsym.
 *
 * Only functions that -finstrument-functions could have reported count: with
 * DWARF, subprograms that have code (a low_pc) in compile units whose
 * producer string shows the flag (gcc records the switches by default,
 * -grecord-gcc-switches; a producer without switches is taken as
 * instrumented), or in every unit when the entries come from probes. From a
 * symbol table, C run-time start-up functions are left out by name.
 *
 * A C++ function is named as its programmer writes it: its mangled name
 * (DWARF's linkage name, or the symbol) demangled, "Bank::transfer(int,
 * int, long)", not "_ZN4Bank8transferEiil", nor DWARF's bare "transfer"
 * (two classes' transfer would look the same); the mangled one is kept
 * for JSON (symbol).
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../trace/untrusted.h"
#include "../util/demangle.h"
#include "path.h"

static int path_func_cmp(const void *a, const void *b)
{
	const struct path_func *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void path_func_free(struct path_func *f)
{
	free(f->name);
	free(f->symbol);
	free(f->file);
}

/* name: DWARF's or the symbol table's; a mangled one is demangled. */
static int path_prog_add(struct path_prog *p, size_t *cap, uint64_t addr, const char *name,
			 const char *file, int line, int data_param)
{
	struct path_func *f;
	char dm[1024];
	int cxx = demangle_name(name, dm, sizeof(dm));

	if (p->nfuncs == *cap) {
		size_t n = *cap ? *cap * 2 : 64;

		f = realloc(p->funcs, n * sizeof(*f));
		if (!f)
			return -ENOMEM;
		p->funcs = f;
		*cap = n;
	}
	f = &p->funcs[p->nfuncs];
	memset(f, 0, sizeof(*f));
	f->addr = addr;
	f->name = strdup(cxx ? dm : name);
	f->symbol = cxx ? strdup(name) : NULL;
	f->file = file ? strdup(file) : NULL;
	f->line = line;
	f->data_param = data_param;
	if (!f->name || (file && !f->file) || (cxx && !f->symbol)) {
		path_func_free(f);
		return -ENOMEM;
	}
	p->nfuncs++;
	return 0;
}

/* ---- DWARF ---- */

/* Strip typedefs and cv-qualifiers; the name of the first typedef met is
 * kept in *tname (sem_t, pthread_mutex_t are typedefs). */
static int path_peel(Dwarf_Die *die, const char **tname)
{
	Dwarf_Attribute a;

	for (int i = 0; i < 16; i++) {
		int tag = dwarf_tag(die);

		if (tag != DW_TAG_typedef && tag != DW_TAG_const_type &&
		    tag != DW_TAG_volatile_type && tag != DW_TAG_restrict_type)
			return tag;
		if (tag == DW_TAG_typedef && tname && !*tname)
			*tname = dwarf_diename(die);
		if (!dwarf_attr_integrate(die, DW_AT_type, &a) || !dwarf_formref_die(&a, die))
			return 0; /* void */
	}
	return 0;
}

static int path_sync_type(const char *n)
{
	return n && (!strcmp(n, "sem_t") || !strncmp(n, "pthread_", 8) || !strcmp(n, "mqd_t"));
}

/* A parameter that points to data: a pointer or reference whose pointee is
 * not void, not a function and not a synchronization type. */
static int path_param_is_data(Dwarf_Die *param)
{
	Dwarf_Attribute a;
	Dwarf_Die t;
	const char *tname = NULL;
	int tag;

	if (!dwarf_attr_integrate(param, DW_AT_type, &a) || !dwarf_formref_die(&a, &t))
		return 0;
	tag = path_peel(&t, NULL);
	if (tag != DW_TAG_pointer_type && tag != DW_TAG_reference_type &&
	    tag != DW_TAG_rvalue_reference_type)
		return 0;
	if (!dwarf_attr_integrate(&t, DW_AT_type, &a) || !dwarf_formref_die(&a, &t))
		return 0; /* void * */
	tag = path_peel(&t, &tname);
	if (!tag || tag == DW_TAG_subroutine_type)
		return 0;
	if (path_sync_type(tname) || path_sync_type(dwarf_diename(&t)))
		return 0;
	return 1;
}

static int path_subprogram(struct path_prog *p, size_t *cap, Dwarf_Die *die)
{
	Dwarf_Attribute a;
	Dwarf_Addr lo;
	Dwarf_Die child;
	const char *name, *lname, *file;
	int line = 0, data = 0;

	if (dwarf_lowpc(die, &lo) != 0)
		return 0; /* a declaration, or only ever inlined */
	if (!dwarf_attr_integrate(die, DW_AT_name, &a) || !(name = dwarf_formstring(&a)))
		return 0;
	/* C++: the linkage name says the class, namespace and parameters */
	if ((dwarf_attr_integrate(die, DW_AT_linkage_name, &a) ||
	     dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a)) &&
	    (lname = dwarf_formstring(&a)) && *lname)
		name = lname;
	file = dwarf_decl_file(die);
	dwarf_decl_line(die, &line);
	if (dwarf_child(die, &child) == 0) {
		do {
			if (dwarf_tag(&child) == DW_TAG_formal_parameter &&
			    path_param_is_data(&child))
				data = 1;
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	return path_prog_add(p, cap, lo, name, file, line, data);
}

/* Subprograms at the top of a CU, and inside namespaces (C++). */
static int path_scope(struct path_prog *p, size_t *cap, Dwarf_Die *scope, size_t *count)
{
	Dwarf_Die d;
	int rc = 0;

	if (dwarf_child(scope, &d) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&d);

		if (tag == DW_TAG_subprogram) {
			size_t before = p->nfuncs;

			rc = path_subprogram(p, cap, &d);
			*count += p->nfuncs - before;
		} else if (tag == DW_TAG_namespace) {
			rc = path_scope(p, cap, &d, count);
		}
	} while (rc == 0 && dwarf_siblingof(&d, &d) == 0);
	return rc;
}

/* Whether a CU was built with -finstrument-functions, as far as its
 * producer string says: 1 yes or unknown (no switches recorded), 0 no. */
static int path_cu_instrumented(Dwarf_Die *cu)
{
	Dwarf_Attribute a;
	const char *prod;

	if (!dwarf_attr(cu, DW_AT_producer, &a) || !(prod = dwarf_formstring(&a)))
		return 1;
	if (!strstr(prod, " -"))
		return 1;
	return strstr(prod, "-finstrument-functions") && !strstr(prod, "-fno-instrument-functions");
}

static int path_load_dwarf(struct path_prog *p, Dwarf *dw, int all_units)
{
	Dwarf_Off off = 0, next;
	size_t hsize, cap = 0, ncu = 0;
	Dwarf_Die cu;
	int rc = 0;

	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(dw, off + hsize, &cu) && dwarf_tag(&cu) == DW_TAG_compile_unit) {
			size_t count = 0, before = p->nfuncs;

			ncu++;
			rc = path_scope(p, &cap, &cu, &count);
			if (rc < 0)
				return rc;
			if (!all_units && !path_cu_instrumented(&cu)) {
				/* keep the count, drop the functions */
				for (size_t i = before; i < p->nfuncs; i++)
					path_func_free(&p->funcs[i]);
				p->nfuncs = before;
				p->uninst_cus++;
				p->uninst_funcs += count;
			}
		}
		off = next;
	}
	return ncu ? 0 : -ENOENT;
}

/* ---- ELF symbol tables ---- */

int path_prog_crt_name(const char *n)
{
	static const char *const crt[] = {
		"_start", "_init", "_fini", "deregister_tm_clones", "register_tm_clones",
		"__do_global_dtors_aux", "frame_dummy", "__libc_csu_init", "__libc_csu_fini",
		"_dl_relocate_static_pie",
	};

	for (size_t i = 0; i < sizeof(crt) / sizeof(crt[0]); i++)
		if (!strcmp(n, crt[i]))
			return 1;
	return !strncmp(n, "__x86.get_pc_thunk", 18);
}

static int path_load_symtab(struct path_prog *p, Elf *elf, Elf64_Word type)
{
	Elf_Scn *scn = NULL;
	size_t cap = 0;
	int found = 0, rc;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != type || !sh.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data)
			continue;
		found = 1;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *name;

			if (!gelf_getsym(data, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    sym.st_shndx == SHN_UNDEF || !sym.st_size)
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (!name || !*name || path_prog_crt_name(name))
				continue;
			rc = path_prog_add(p, &cap, sym.st_value, name, NULL, 0, 0);
			if (rc < 0)
				return rc;
		}
	}
	return found ? 0 : -ENOENT;
}

/*
 * DWARF functions without a linkage name (GCC gives a C++ constructor's or
 * destructor's out-of-line copies none: "~unique_ptr") are named by the
 * symbol table's symbol at their address, demangled, when it has one.
 * 0, or -ENOMEM.
 */
static int path_names_from_symtab(struct path_prog *p, Elf *elf)
{
	struct path_prog t;
	int rc;

	memset(&t, 0, sizeof(t));
	rc = path_load_symtab(&t, elf, SHT_SYMTAB);
	if (rc < 0)
		return rc == -ENOMEM ? rc : 0;
	if (!t.nfuncs) { /* no function symbol: nothing to name (and no array to sort) */
		path_prog_free(&t);
		return 0;
	}
	qsort(t.funcs, t.nfuncs, sizeof(*t.funcs), path_func_cmp);
	for (size_t i = 0; i < p->nfuncs; i++) {
		struct path_func *f = &p->funcs[i];
		const struct path_func *s;
		char *name, *symbol;

		if (f->symbol)
			continue;
		s = bsearch(f, t.funcs, t.nfuncs, sizeof(*t.funcs), path_func_cmp);
		if (!s || !s->symbol)
			continue;
		name = strdup(s->name);
		symbol = strdup(s->symbol);
		if (!name || !symbol) {
			free(name);
			free(symbol);
			rc = -ENOMEM;
			break;
		}
		free(f->name);
		f->name = name;
		f->symbol = symbol;
	}
	path_prog_free(&t);
	return rc < 0 ? rc : 0;
}

int path_prog_load(struct path_prog *p, const char *path, int all_units)
{
	Dwarf *dw = NULL;
	Elf *elf;
	int fd, rc;

	memset(p, 0, sizeof(*p));
	elf_version(EV_CURRENT);
	fd = trace_open_named(path); /* a trace's binary: regular, no blocking open */
	if (fd < 0)
		return fd;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		rc = -ENOEXEC;
		goto out_elf;
	}
	dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	rc = dw ? path_load_dwarf(p, dw, all_units) : -ENOENT;
	if (rc == 0) {
		p->source = PATH_SRC_DWARF;
		rc = path_names_from_symtab(p, elf);
		if (rc < 0)
			goto out_dw;
		goto out_sort;
	}
	if (rc != -ENOENT)
		goto out_dw;
	path_prog_free(p);
	rc = path_load_symtab(p, elf, SHT_SYMTAB);
	p->source = PATH_SRC_SYMTAB;
	if (rc == -ENOENT) {
		rc = path_load_symtab(p, elf, SHT_DYNSYM);
		p->source = PATH_SRC_DYNSYM;
	}
	if (rc < 0)
		goto out_dw;
out_sort:
	/* one entry per address (aliases, or a function in two tables) */
	if (p->nfuncs) {
		size_t o = 1;

		qsort(p->funcs, p->nfuncs, sizeof(*p->funcs), path_func_cmp);

		for (size_t i = 1; i < p->nfuncs; i++) {
			if (p->funcs[i].addr == p->funcs[o - 1].addr) {
				path_func_free(&p->funcs[i]);
				continue;
			}
			p->funcs[o++] = p->funcs[i];
		}
		p->nfuncs = o;
	}
out_dw:
	if (dw)
		dwarf_end(dw);
out_elf:
	if (elf)
		elf_end(elf);
	close(fd);
	if (rc < 0)
		path_prog_free(p);
	return rc;
}

/* An undefined __cyg_profile_func_enter in either symbol table: the code
 * calls the hook (glibc's no-op, or the agent's). */
static int path_elf_imports_hook(Elf *elf)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_DYNSYM && sh.sh_type != SHT_SYMTAB) ||
		    !sh.sh_entsize || !(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *name;

			if (!gelf_getsym(data, (int)i, &sym) || sym.st_shndx != SHN_UNDEF)
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (name && !strcmp(name, "__cyg_profile_func_enter"))
				return 1;
		}
	}
	return 0;
}

int path_prog_instrumented(const char *path)
{
	Elf *elf;
	int fd, rc;

	elf_version(EV_CURRENT);
	fd = trace_open_named(path);
	if (fd < 0)
		return fd;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	rc = elf && elf_kind(elf) == ELF_K_ELF ? path_elf_imports_hook(elf) : -ENOEXEC;
	if (elf)
		elf_end(elf);
	close(fd);
	return rc;
}

struct path_func *path_prog_find(struct path_prog *p, uint64_t addr)
{
	size_t lo = 0, hi = p->nfuncs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->funcs[mid].addr == addr)
			return &p->funcs[mid];
		if (p->funcs[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

void path_prog_free(struct path_prog *p)
{
	for (size_t i = 0; i < p->nfuncs; i++)
		path_func_free(&p->funcs[i]);
	free(p->funcs);
	p->funcs = NULL;
	p->nfuncs = 0;
}
