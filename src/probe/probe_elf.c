// SPDX-License-Identifier: MIT
/*
 * probe_elf.c - probe points from ELF files (libelf): the function symbols
 * of a module (.symtab, or .dynsym when the file is stripped), its code
 * bytes, the set of addresses its code branches to (found by decoding every
 * function, used to refuse a jump over a branch target), and the libraries
 * a program will load, resolved the way ld.so resolves them.
 */
#include <dirent.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../arch/arch.h"
#if defined(__aarch64__)
#include "../arch/aarch64/a64_insn.h"
#endif
#include "../util/debugfile.h"
#include "../util/log.h"
#include "probe.h"
#include "probe_fde.h"

static int probe_sym_cmp(const void *a, const void *b)
{
	const struct probe_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* Among aliases keep the shortest name, then the first alphabetically. */
	if (strlen(x->name) != strlen(y->name))
		return strlen(x->name) < strlen(y->name) ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int probe_u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int probe_read_syms(struct probe_module *mod, Elf *elf, uint32_t type)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t cap = 0;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;
		size_t n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != type || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d)
			continue;
		n = sh.sh_size / sh.sh_entsize;
		for (size_t i = 0; i < n; i++) {
			GElf_Sym s;
			const char *name;

			if (!gelf_getsym(d, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC ||
			    s.st_shndx == SHN_UNDEF || !s.st_size)
				continue;
			name = elf_strptr(elf, sh.sh_link, s.st_name);
			if (!name || !*name || *name == '@')
				continue;
			if (mod->nsyms == cap) {
				struct probe_sym *ns;

				cap = cap ? cap * 2 : 256;
				ns = realloc(mod->syms, cap * sizeof(*ns));
				if (!ns)
					return -ENOMEM;
				mod->syms = ns;
			}
			/* A .symtab of a shared library (its debug file: libc6-dbg)
			 * names the exported functions with their version,
			 * "pthread_mutex_lock@@GLIBC_2.2.5"; the user and .dynsym
			 * say "pthread_mutex_lock". No C or C++ name has an '@'. */
			mod->syms[mod->nsyms].name = strndup(name, strcspn(name, "@"));
			if (!mod->syms[mod->nsyms].name)
				return -ENOMEM;
			mod->syms[mod->nsyms].addr = s.st_value;
			mod->syms[mod->nsyms].size = s.st_size;
			mod->nsyms++;
		}
	}
	return 0;
}

void *probe_module_debug_elf(struct probe_module *mod)
{
	char dbg[PATH_MAX];
	Elf *elf;

	if (mod->dbg_tried)
		return mod->dbg_elf;
	mod->dbg_tried = 1;
	if (debugfile_find(mod->path, dbg, sizeof(dbg)))
		return NULL;
	mod->dbg_fd = open(dbg, O_RDONLY | O_CLOEXEC);
	if (mod->dbg_fd < 0)
		return NULL;
	elf = elf_begin(mod->dbg_fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		close(mod->dbg_fd);
		mod->dbg_fd = -1;
		return NULL;
	}
	mod->dbg_elf = elf;
	mod->dbg_path = strdup(dbg);
	log_info("probe: %s: debug information from %s", mod->path, dbg);
	return elf;
}

static int probe_has_symtab(Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			return 1;
	return 0;
}

static void probe_find_copied(struct probe_module *mod, Elf *elf);

/* The PLT sections' ranges (section headers survive strip). */
static void probe_find_plt(struct probe_module *mod, Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return;
	while ((scn = elf_nextscn(elf, scn)) && mod->nplt < 3) {
		const char *name;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR) || !sh.sh_size)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || (strcmp(name, ".plt") && strcmp(name, ".plt.sec") &&
			      strcmp(name, ".plt.got")))
			continue;
		mod->plt_lo[mod->nplt] = sh.sh_addr;
		mod->plt_hi[mod->nplt++] = sh.sh_addr + sh.sh_size;
	}
}

int probe_module_open(struct probe_module *mod, const char *path, int is_main)
{
	const char *base = strrchr(path, '/');
	Elf *elf;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int has_symtab = 0, rc;
	size_t j;

	memset(mod, 0, sizeof(*mod));
	mod->fd = mod->dbg_fd = -1;
	elf_version(EV_CURRENT);
	mod->path = strdup(path);
	mod->name = strdup(is_main ? "" : base ? base + 1 : path);
	mod->is_main = is_main;
	if (!mod->path || !mod->name)
		return -ENOMEM;
	mod->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (mod->fd < 0)
		return -errno;
	elf = elf_begin(mod->fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		return -ENOEXEC;
	}
	mod->elf = elf;
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			has_symtab = 1;
	mod->stripped = !has_symtab;
	probe_find_plt(mod, elf);
	/* Libraries are matched in the target by the name ld.so loaded them
	 * under, which is their DT_SONAME (the DT_NEEDED entry), not the file
	 * the symlink points to. */
	scn = NULL;
	while (!is_main && (scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Dyn dyn;
			const char *so;

			if (!gelf_getdyn(d, (int)i, &dyn) || dyn.d_tag != DT_SONAME)
				continue;
			so = elf_strptr(elf, sh.sh_link, dyn.d_un.d_val);
			if (so && *so) {
				free(mod->name);
				mod->name = strdup(so);
				if (!mod->name)
					return -ENOMEM;
			}
		}
	}
	/* A stripped file's full symbol table may be in its debug file. */
	if (!has_symtab && probe_module_debug_elf(mod) && probe_has_symtab(mod->dbg_elf)) {
		rc = probe_read_syms(mod, mod->dbg_elf, SHT_SYMTAB);
		mod->stripped = 0;
	} else {
		rc = probe_read_syms(mod, elf, has_symtab ? SHT_SYMTAB : SHT_DYNSYM);
	}
	if (rc)
		return rc;
	if (has_symtab) {
		/* Exported functions missing from .symtab are rare; merging
		 * both would only add aliases. */
	}
	if (mod->nsyms)
		qsort(mod->syms, mod->nsyms, sizeof(*mod->syms), probe_sym_cmp);
	/* One symbol per address: aliases (weak names, versioned copies)
	 * would otherwise probe the same code twice. */
	for (size_t i = j = 0; i < mod->nsyms; i++) {
		if (j && mod->syms[j - 1].addr == mod->syms[i].addr) {
			free(mod->syms[i].name);
			continue;
		}
		mod->syms[j++] = mod->syms[i];
	}
	mod->nsyms = j;
	probe_find_copied(mod, mod->stripped || !has_symtab ? mod->dbg_elf : elf);
	return 0;
}

void probe_module_close(struct probe_module *mod)
{
	for (size_t i = 0; i < mod->nsyms; i++)
		free(mod->syms[i].name);
	free(mod->syms);
	free(mod->targets);
	free(mod->jumps);
	free(mod->calls);
	free(mod->seeds);
	free(mod->data_said);
	free(mod->cfg_want);
	probe_dwarf_close(mod);
	if (mod->elf)
		elf_end(mod->elf);
	if (mod->fd >= 0)
		close(mod->fd);
	if (mod->dbg_elf)
		elf_end(mod->dbg_elf);
	if (mod->dbg_fd >= 0)
		close(mod->dbg_fd);
	free(mod->dbg_path);
	free(mod->path);
	free(mod->name);
	memset(mod, 0, sizeof(*mod));
	mod->fd = mod->dbg_fd = -1;
}

/* Bytes at a link-time address in a section with contents whose flags
 * include want (SHF_EXECINSTR: code; SHF_ALLOC: any loaded section, .rodata
 * for jump tables), or NULL. */
static const uint8_t *probe_module_bytes(const struct probe_module *mod, uint64_t addr,
					 uint64_t want, size_t *avail)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(mod->elf, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & want) ||
		    sh.sh_type != SHT_PROGBITS || addr < sh.sh_addr || addr >= sh.sh_addr + sh.sh_size)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || d->d_size != sh.sh_size)
			return NULL;
		*avail = sh.sh_addr + sh.sh_size - addr;
		return (const uint8_t *)d->d_buf + (addr - sh.sh_addr);
	}
	return NULL;
}

const uint8_t *probe_module_code(const struct probe_module *mod, uint64_t addr, size_t *avail)
{
	return probe_module_bytes(mod, addr, SHF_EXECINSTR, avail);
}

static const uint8_t *probe_module_data(const struct probe_module *mod, uint64_t addr,
					size_t *avail)
{
	return probe_module_bytes(mod, addr, SHF_ALLOC, avail);
}

/*
 * V8's embedded builtins. V8 (node, d8, ...) links its builtins into the
 * executable's .text between the label v8_<variant>_embedded_blob_code_
 * (a symbol without a type or size) and that plus the 32-bit constant
 * v8_<variant>_embedded_blob_code_size_ (.rodata), each a Builtins_NAME
 * function. With short builtin calls (node 20's default on a machine with
 * 4 GB or more), V8 memcpy()s the whole blob next to its JIT code at start
 * and calls the copy: a probe patched into the original is copied too, and
 * its jmp rel32 (or int3) then leads to an address that holds nothing -
 * node died of SIGSEGV under `spool probe -e 'func:*'` and `spool path`.
 * The range is kept so that nothing is patched there (probe_module_copied).
 * Without the size constant, the range ends with the last Builtins_*
 * function after the label. elf is the file whose .symtab was read (the
 * debug file's for a stripped one), or NULL.
 */
static void probe_find_copied(struct probe_module *mod, Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	uint64_t lo = 0, size_at = 0, hi = 0;
	int have_lo = 0;

	while (elf && (scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *name;

			if (!gelf_getsym(d, (int)i, &s) || s.st_shndx == SHN_UNDEF)
				continue;
			name = elf_strptr(elf, sh.sh_link, s.st_name);
			if (!name || strncmp(name, "v8_", 3))
				continue;
			if (!fnmatch("v8_*_embedded_blob_code_", name, 0)) {
				lo = s.st_value;
				have_lo = 1;
			} else if (!fnmatch("v8_*_embedded_blob_code_size_", name, 0)) {
				size_at = s.st_value;
			}
		}
	}
	if (!have_lo)
		return;
	if (size_at) {
		size_t avail = 0;
		const uint8_t *p = probe_module_data(mod, size_at, &avail);
		uint32_t size;

		if (p && avail >= sizeof(size)) {
			memcpy(&size, p, sizeof(size));
			hi = lo + size;
		}
	}
	if (!hi)
		for (size_t i = 0; i < mod->nsyms; i++)
			if (mod->syms[i].addr >= lo && !strncmp(mod->syms[i].name, "Builtins_", 9) &&
			    mod->syms[i].addr + mod->syms[i].size > hi)
				hi = mod->syms[i].addr + mod->syms[i].size;
	if (hi <= lo)
		return;
	mod->copied_lo = lo;
	mod->copied_hi = hi;
	for (size_t i = 0; i < mod->nsyms; i++)
		mod->ncopied += mod->syms[i].addr >= lo && mod->syms[i].addr < hi;
}

int probe_module_copied(struct probe_module *mod, uint64_t addr)
{
	if (addr < mod->copied_lo || addr >= mod->copied_hi)
		return 0;
	if (!mod->copied_said) {
		mod->copied_said = 1;
		log_warn("probe: %s: its %zu functions at 0x%llx-0x%llx are V8's embedded builtins "
			 "(Builtins_*), which V8 copies to other addresses when it starts (short "
			 "builtin calls) and runs there: a probe would be copied with them and jump "
			 "nowhere; they are not probed",
			 mod->path, mod->ncopied, (unsigned long long)mod->copied_lo,
			 (unsigned long long)mod->copied_hi);
	}
	return 1;
}

static int probe_push_u64(uint64_t **v, size_t *n, size_t *cap, uint64_t x)
{
	if (*n == *cap) {
		uint64_t *nv;

		*cap = *cap ? *cap * 2 : 4096;
		nv = realloc(*v, *cap * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		*v = nv;
	}
	(*v)[(*n)++] = x;
	return 0;
}

/* The targets of the switch jump table read by the indirect jmp that ends
 * the n instructions given (x86_jump_table); each must land in code. They
 * are added to the module's targets and the jmp to its known jumps. */
static int probe_jump_table(struct probe_module *mod, const uint8_t *const *bytes,
			    const size_t *avail, const uint64_t *addrs, size_t n, size_t *cap,
			    size_t *jcap, size_t *scap)
{
	struct x86_jtab jt;
	const uint8_t *p;
	size_t have, before = mod->ntargets, sbefore = mod->nseeds;
	int rc;

	if (x86_jump_table(bytes, avail, addrs, n, &jt))
		return 0;
	p = probe_module_data(mod, jt.table, &have);
	if (!p || have / jt.entry_size < jt.entries)
		return 0;
	for (uint32_t i = 0; i < jt.entries; i++) {
		uint64_t t;
		size_t code_avail;

		if (jt.entry_size == 4) {
			int32_t e;

			memcpy(&e, p + 4 * i, 4);
			t = jt.table + (uint64_t)(int64_t)e;
		} else {
			memcpy(&t, p + 8 * i, 8);
		}
		if (!probe_module_code(mod, t, &code_avail)) {
			mod->ntargets = before; /* not what it seemed: targets unknown */
			mod->nseeds = sbefore;
			return 0;
		}
		rc = probe_push_u64(&mod->targets, &mod->ntargets, cap, t);
		if (!rc)
			rc = probe_push_u64(&mod->seeds, &mod->nseeds, scap, t);
		if (rc)
			return rc;
	}
	mod->njtabs++;
	return probe_push_u64(&mod->jumps, &mod->njumps, jcap, addrs[n - 1]);
}

#if defined(__aarch64__)
/* The targets of the switch jump table the BR at `at` of function s reads
 * (a64_jump_table: GCC's and clang's forms), each in the function: added
 * to the targets, the BR to the known jumps. Another shape: nothing. */
static int probe_a64_jump_table(struct probe_module *mod, const struct probe_sym *s,
				const uint8_t *code, size_t len, uint64_t at, size_t *cap,
				size_t *jcap, size_t *scap)
{
	struct a64_jtab jt;
	const uint8_t *p;
	size_t have, before = mod->ntargets, sbefore = mod->nseeds;
	int rc;

	if (a64_jump_table(code, s->addr, len, at, &jt))
		return 0;
	p = probe_module_data(mod, jt.table, &have);
	if (!p || have / jt.size < jt.entries)
		return 0;
	for (uint32_t i = 0; i < jt.entries; i++) {
		uint64_t t = a64_jtab_target(&jt, p + (size_t)jt.size * i);

		if (t < s->addr || t >= s->addr + len || (t & 3)) {
			mod->ntargets = before; /* not what it seemed: targets unknown */
			mod->nseeds = sbefore;
			return 0;
		}
		rc = probe_push_u64(&mod->targets, &mod->ntargets, cap, t);
		if (!rc)
			rc = probe_push_u64(&mod->seeds, &mod->nseeds, scap, t);
		if (rc)
			return rc;
	}
	mod->njtabs++;
	return probe_push_u64(&mod->jumps, &mod->njumps, jcap, at);
}
#endif

/*
 * Decode every function of the module once and keep every address its
 * code can jump to directly (branch and call targets) or takes the address
 * of (RIP-relative operands: function pointers, computed labels), and the
 * entries of the switch jump tables its indirect jmps read (recognized
 * from the instructions before each jmp). A jump patch may not cover any
 * of them except at its first byte. Branches from other functions count
 * too: GCC's .cold parts jump back into the middle of their function.
 */
/* The line before an indirect jmp handed to x86_jump_table: its window of
 * 32 (JT_MAX_INSNS) and 128 more where a table's base may be loaded
 * (JT_FAR_INSNS), kept in a ring and copied out in order at an indirect jmp
 * only. */
#define PROBE_JT_BACK (32 + 128)
int probe_module_analyse(struct probe_module *mod)
{
	size_t cap = 0, jcap = 0, ccap = 0, scap = 0, nind = 0;
	int rc;

	if (mod->analysed)
		return 0;
	for (size_t i = 0; i < mod->nsyms; i++) {
		const struct probe_sym *s = &mod->syms[i];
		size_t avail, nb = 0;
		const uint8_t *p = probe_module_code(mod, s->addr, &avail);
		const uint8_t *back[PROBE_JT_BACK], *line[PROBE_JT_BACK];
		size_t back_avail[PROBE_JT_BACK], line_avail[PROBE_JT_BACK], head = 0;
		uint64_t back_addr[PROBE_JT_BACK], line_addr[PROBE_JT_BACK];
		uint64_t off = 0;

		if (!p)
			continue;
		if (avail > s->size)
			avail = s->size;
#if defined(__aarch64__)
		/* One word per instruction: the direct branch, call and ADR
		 * targets (a switch's ADR base, a label's address), no decoder,
		 * and the entries of the switch tables BRs read (GCC's and
		 * clang's forms: a64_jump_table); another BR's targets stay
		 * unknown (a64_cfg.c says so). */
		for (off = (s->addr & 3) ? avail : 0; off + 4 <= avail; off += 4) {
			uint32_t w;
			uint64_t t;
			int c;

			memcpy(&w, p + off, 4);
			c = a64_class(w, s->addr + off, &t);
			if ((w & 0xfffffc1fu) == 0xd61f0000u) {
				nind++;
				rc = probe_a64_jump_table(mod, s, p, avail, s->addr + off, &cap,
							  &jcap, &scap);
				if (rc)
					return rc;
				continue;
			}
			if (c != A64_B && c != A64_BL && c != A64_BCOND && c != A64_CBZ &&
			    c != A64_TBZ && c != A64_ADR)
				continue;
			rc = probe_push_u64(&mod->targets, &mod->ntargets, &cap, t);
			if (!rc && c != A64_ADR)
				rc = probe_push_u64(&mod->seeds, &mod->nseeds, &scap, t);
			if (!rc && c == A64_BL)
				rc = probe_push_u64(&mod->calls, &mod->ncalls, &ccap, t);
			if (rc)
				return rc;
		}
		continue;
#endif
		while (off < avail) {
			struct x86_insn in;

			if (x86_decode(p + off, avail - off, s->addr + off, &in) < 0) {
				off++;
				nb = 0;
				continue;
			}
			if (in.flags & (X86_F_RELATIVE | X86_F_RIPREL)) {
				rc = probe_push_u64(&mod->targets, &mod->ntargets, &cap, in.target);
				if (rc)
					return rc;
			}
			if ((in.flags & (X86_F_CALL | X86_F_BRANCH)) && (in.flags & X86_F_RELATIVE)) {
				rc = probe_push_u64(&mod->seeds, &mod->nseeds, &scap, in.target);
				if (rc)
					return rc;
			}
			if ((in.flags & X86_F_CALL) && (in.flags & X86_F_RELATIVE)) {
				rc = probe_push_u64(&mod->calls, &mod->ncalls, &ccap, in.target);
				if (rc)
					return rc;
			}
			/* The straight line before each instruction (a ring: the
			 * newest at head - 1; nb of them, back to the last byte
			 * that did not decode). */
			back[head] = p + off;
			back_avail[head] = avail - off;
			back_addr[head] = s->addr + off;
			head = (head + 1) % PROBE_JT_BACK;
			if (nb < PROBE_JT_BACK)
				nb++;
			if ((in.flags & X86_F_INDIRECT) && (in.flags & X86_F_BRANCH)) {
				for (size_t j = 0; j < nb; j++) {
					size_t r = (head + PROBE_JT_BACK - nb + j) % PROBE_JT_BACK;

					line[j] = back[r];
					line_avail[j] = back_avail[r];
					line_addr[j] = back_addr[r];
				}
				nind++;
				rc = probe_jump_table(mod, line, line_avail, line_addr, nb, &cap,
						      &jcap, &scap);
				if (rc)
					return rc;
			}
			off += in.len;
		}
	}
	/* Landing pads: the unwinder enters them, no branch does. */
	{
		uint64_t *lp = NULL;
		size_t nlp = 0;

		/* ...and a jump window must not cover one but at its first byte
		 * (the unwinder would land inside the patch): targets too. */
		rc = probe_fde_landing_pads(mod, &lp, &nlp);
		for (size_t i = 0; !rc && i < nlp; i++) {
			rc = probe_push_u64(&mod->seeds, &mod->nseeds, &scap, lp[i]);
			if (!rc)
				rc = probe_push_u64(&mod->targets, &mod->ntargets, &cap, lp[i]);
		}
		free(lp);
		if (rc)
			return rc;
	}
	if (mod->ntargets)
		qsort(mod->targets, mod->ntargets, sizeof(uint64_t), probe_u64_cmp);
	if (mod->njumps)
		qsort(mod->jumps, mod->njumps, sizeof(uint64_t), probe_u64_cmp);
	if (mod->ncalls)
		qsort(mod->calls, mod->ncalls, sizeof(uint64_t), probe_u64_cmp);
	if (mod->nseeds)
		qsort(mod->seeds, mod->nseeds, sizeof(uint64_t), probe_u64_cmp);
	mod->data_said = calloc(mod->nsyms ? mod->nsyms : 1, 1);
	if (!mod->data_said)
		return -ENOMEM;
	log_debug("probe: %s: %zu indirect jmps of %zu (jump tables) have known targets", mod->path,
		  mod->njumps, nind);
	mod->analysed = 1;
	return 0;
}

static int probe_u64_find(const uint64_t *v, size_t n, uint64_t x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (v[mid] == x)
			return 1;
		if (v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

int probe_module_jump_known(const struct probe_module *mod, uint64_t addr)
{
	return probe_u64_find(mod->jumps, mod->njumps, addr);
}

int probe_module_is_call(const struct probe_module *mod, uint64_t addr)
{
	return probe_u64_find(mod->calls, mod->ncalls, addr);
}

size_t probe_module_target_refs(const struct probe_module *mod, uint64_t addr)
{
	size_t lo = 0, hi = mod->ntargets, n = 0;

	while (lo < hi) { /* first entry >= addr */
		size_t mid = (lo + hi) / 2;

		if (mod->targets[mid] < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo + n < mod->ntargets && mod->targets[lo + n] == addr)
		n++;
	return n;
}

int probe_module_is_plt(const struct probe_module *mod, uint64_t addr)
{
	for (size_t i = 0; i < mod->nplt; i++)
		if (addr >= mod->plt_lo[i] && addr < mod->plt_hi[i])
			return 1;
	return 0;
}

int probe_module_is_target(const struct probe_module *mod, uint64_t addr)
{
	return probe_u64_find(mod->targets, mod->ntargets, addr);
}

/* ---- library resolution ---- */

struct probe_libset {
	char **v;
	size_t n;
	char *cache; /* `ldconfig -p` output */
};

static int probe_libset_has(struct probe_libset *ls, const char *path)
{
	for (size_t i = 0; i < ls->n; i++)
		if (!strcmp(ls->v[i], path))
			return 1;
	return 0;
}

static char *probe_read_cache(void)
{
	FILE *f = popen("/sbin/ldconfig -p 2>/dev/null", "r");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!f)
		return NULL;
	for (;;) {
		if (len + 4096 + 1 > cap) {
			char *nb;

			cap = cap ? cap * 2 : 65536;
			nb = realloc(buf, cap);
			if (!nb)
				break;
			buf = nb;
		}
		n = fread(buf + len, 1, 4096, f);
		if (!n)
			break;
		len += n;
	}
	pclose(f);
	if (buf)
		buf[len] = 0;
	return buf;
}

/* "\tlibz.so.1 (libc6,x86-64) => /lib/x86_64-linux-gnu/libz.so.1" (on
 * aarch64 "(libc6,AArch64)": ARCH_LDCACHE_TAG) */
static int probe_cache_lookup(const char *cache, const char *soname, char *out, size_t len)
{
	const char *p = cache;
	size_t sl = strlen(soname);

	while (p && *p) {
		const char *eol = strchr(p, '\n'), *arrow;

		while (*p == '\t' || *p == ' ')
			p++;
		if (!strncmp(p, soname, sl) && p[sl] == ' ' &&
		    (!eol || strstr(p, ARCH_LDCACHE_TAG) < eol) && strstr(p, ARCH_LDCACHE_TAG) &&
		    (arrow = strstr(p, "=> ")) && (!eol || arrow < eol)) {
			size_t n = eol ? (size_t)(eol - arrow - 3) : strlen(arrow + 3);

			if (n >= len)
				return -ENAMETOOLONG;
			memcpy(out, arrow + 3, n);
			out[n] = 0;
			return 0;
		}
		p = eol ? eol + 1 : NULL;
	}
	return -ENOENT;
}

static int probe_search_dirs(const char *dirs, const char *origin, const char *soname, char *out,
			     size_t len)
{
	char *copy, *save = NULL, *d;
	int rc = -ENOENT;

	if (!dirs || !*dirs)
		return -ENOENT;
	copy = strdup(dirs);
	if (!copy)
		return -ENOMEM;
	for (d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		char dir[PATH_MAX];

		if (!strncmp(d, "$ORIGIN", 7))
			snprintf(dir, sizeof(dir), "%s%s", origin, d + 7);
		else
			snprintf(dir, sizeof(dir), "%s", d);
		/* open, not access: the same answer for a file to read, and
		 * qemu-user (make check-arm64) maps open to its library root
		 * but not access */
		if ((size_t)snprintf(out, len, "%s/%s", dir, soname) < len) {
			int fd = open(out, O_RDONLY | O_CLOEXEC);

			if (fd >= 0) {
				close(fd);
				rc = 0;
				break;
			}
		}
	}
	free(copy);
	return rc;
}

static int probe_add_deps(struct probe_libset *ls, const char *path)
{
	Elf *elf;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	char origin[PATH_MAX], *slash;
	char *needed[64];
	size_t nneeded = 0;
	char *runpath = NULL;
	int fd, rc = 0, is_runpath = 0;

	snprintf(origin, sizeof(origin), "%s", path);
	slash = strrchr(origin, '/');
	if (slash)
		*slash = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	while (elf && (scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC)
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Dyn dyn;
			const char *s;

			if (!gelf_getdyn(d, (int)i, &dyn))
				break;
			if (dyn.d_tag != DT_NEEDED && dyn.d_tag != DT_RUNPATH && dyn.d_tag != DT_RPATH)
				continue;
			s = elf_strptr(elf, sh.sh_link, dyn.d_un.d_val);
			if (!s)
				continue;
			if (dyn.d_tag == DT_NEEDED && nneeded < 64)
				needed[nneeded++] = strdup(s);
			else if (dyn.d_tag != DT_NEEDED && (!runpath || dyn.d_tag == DT_RUNPATH)) {
				/* DT_RUNPATH wins over DT_RPATH (ld.so ignores RPATH then) */
				free(runpath);
				runpath = strdup(s);
				is_runpath |= dyn.d_tag == DT_RUNPATH;
			}
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
	for (size_t i = 0; i < nneeded; i++) {
		char found[PATH_MAX], real[PATH_MAX];

		if (!needed[i])
			continue;
		if (strchr(needed[i], '/'))
			snprintf(found, sizeof(found), "%s", needed[i]);
		/* As ld.so: DT_RPATH, LD_LIBRARY_PATH, DT_RUNPATH, the cache, the
		 * default directories. */
		else if ((is_runpath ||
			  probe_search_dirs(runpath, origin, needed[i], found, sizeof(found))) &&
			 probe_search_dirs(getenv("LD_LIBRARY_PATH"), origin, needed[i], found,
					   sizeof(found)) &&
			 (!is_runpath ||
			  probe_search_dirs(runpath, origin, needed[i], found, sizeof(found))) &&
			 (!ls->cache ||
			  probe_cache_lookup(ls->cache, needed[i], found, sizeof(found))) &&
			 probe_search_dirs(ARCH_LIB_DIRS,
					   origin, needed[i], found, sizeof(found))) {
			log_debug("probe: cannot find %s needed by %s", needed[i], path);
			continue;
		}
		if (!realpath(found, real))
			continue;
		if (!probe_libset_has(ls, real)) {
			char **nv = realloc(ls->v, (ls->n + 1) * sizeof(*nv));

			if (!nv) {
				rc = -ENOMEM;
				break;
			}
			ls->v = nv;
			ls->v[ls->n] = strdup(real);
			if (!ls->v[ls->n]) {
				rc = -ENOMEM;
				break;
			}
			ls->n++;
			rc = probe_add_deps(ls, real);
			if (rc)
				break;
		}
	}
	for (size_t i = 0; i < nneeded; i++)
		free(needed[i]);
	free(runpath);
	return rc;
}

int probe_resolve_libs(const char *exe, char ***libs, size_t *nlibs)
{
	struct probe_libset ls = {0};
	int rc;

	elf_version(EV_CURRENT);
	ls.cache = probe_read_cache();
	rc = probe_add_deps(&ls, exe);
	free(ls.cache);
	*libs = ls.v;
	*nlibs = ls.n;
	return rc;
}

/*
 * Libraries a program may dlopen later: files on disk matching a spec's
 * library pattern. A pattern with a '/' is a path. Otherwise the pattern
 * is matched against the file names in LD_LIBRARY_PATH's directories and
 * the sonames of the ld.so cache (this machine's entries), then, when
 * neither has one, the default directories: the places dlopen searches
 * for a bare name. Last, the executable's own directory: a program that
 * loads its plugins by a full path beside it (Debian's 7z: 7z.so in
 * /usr/lib/p7zip) names them by file, not by a place dlopen searches.
 * Each file is listed once (by real path).
 */
static int probe_libset_add_real(struct probe_libset *ls, const char *path)
{
	char real[PATH_MAX], **nv;

	if (!realpath(path, real) || probe_libset_has(ls, real))
		return 0;
	nv = realloc(ls->v, (ls->n + 1) * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	ls->v = nv;
	ls->v[ls->n] = strdup(real);
	if (!ls->v[ls->n])
		return -ENOMEM;
	ls->n++;
	return 0;
}

/* Add the files matching pattern in the directories of dirs (a
 * colon-separated list) to ls. */
static int probe_libset_scan(struct probe_libset *ls, const char *dirs, const char *pattern)
{
	char *copy = strdup(dirs), *save = NULL, *d;
	int rc = 0;

	if (!copy)
		return -ENOMEM;
	for (d = strtok_r(copy, ":", &save); d && !rc; d = strtok_r(NULL, ":", &save)) {
		DIR *dir = opendir(d);
		struct dirent *e;
		char path[PATH_MAX];

		while (dir && !rc && (e = readdir(dir))) {
			struct stat st;

			/* files only: a pattern 'ruby' also names the
			 * directories /usr/lib/ruby and /usr/lib/x86_64-linux-gnu/ruby
			 * ("cannot read" each) */
			if (!fnmatch(pattern, e->d_name, 0) &&
			    (size_t)snprintf(path, sizeof(path), "%s/%s", d, e->d_name) < sizeof(path) &&
			    !stat(path, &st) && S_ISREG(st.st_mode))
				rc = probe_libset_add_real(ls, path);
		}
		if (dir)
			closedir(dir);
	}
	free(copy);
	return rc;
}

int probe_find_lib_files(const char *pattern, const char *exe, char ***libs, size_t *nlibs)
{
	struct probe_libset ls = {0};
	const char *env = getenv("LD_LIBRARY_PATH");
	int rc = 0;

	if (strchr(pattern, '/')) {
		/* open, not access: qemu-user maps open to its root (probe_search_dirs) */
		int fd = open(pattern, O_RDONLY | O_CLOEXEC);

		if (fd < 0) {
			rc = -errno;
		} else {
			close(fd);
			rc = probe_libset_add_real(&ls, pattern);
		}
		goto out;
	}
	if (env && *env)
		rc = probe_libset_scan(&ls, env, pattern);
	ls.cache = probe_read_cache();
	for (const char *p = ls.cache; !rc && p && *p;) {
		const char *eol = strchr(p, '\n'), *sp, *arrow;
		char name[PATH_MAX], path[PATH_MAX];
		size_t n;

		if (!eol)
			eol = p + strlen(p);
		while (*p == '\t' || *p == ' ')
			p++;
		sp = memchr(p, ' ', (size_t)(eol - p));
		arrow = sp ? memmem(sp, (size_t)(eol - sp), "=> ", 3) : NULL;
		if (sp && arrow &&
		    memmem(sp, (size_t)(arrow - sp), ARCH_LDCACHE_TAG, strlen(ARCH_LDCACHE_TAG)) &&
		    (size_t)(sp - p) < sizeof(name) && (n = (size_t)(eol - arrow - 3)) < sizeof(path)) {
			memcpy(name, p, (size_t)(sp - p));
			name[sp - p] = 0;
			memcpy(path, arrow + 3, n);
			path[n] = 0;
			if (!fnmatch(pattern, name, 0))
				rc = probe_libset_add_real(&ls, path);
		}
		p = *eol ? eol + 1 : eol;
	}
	free(ls.cache);
	/* As dlopen: after the cache, the default directories (the only
	 * place an aarch64 program's libraries are found under qemu-user,
	 * whose ld.so cache is the host's) */
	if (!rc && !ls.n)
		rc = probe_libset_scan(&ls, ARCH_LIB_DIRS, pattern);
	if (!rc && !ls.n && exe) {
		char real[PATH_MAX], *slash;

		if (realpath(exe, real) && (slash = strrchr(real, '/')) && slash != real) {
			*slash = 0;
			rc = probe_libset_scan(&ls, real, pattern);
			/* the executable is in its own directory but is no
			 * library it dlopens: args:haproxy:FUNC must say LIB
			 * names the program (probe_mgr_names_exe), not "not
			 * loaded at startup" (tests/real/143) */
			*slash = '/';
			for (size_t i = 0; !rc && i < ls.n;) {
				if (strcmp(ls.v[i], real)) {
					i++;
					continue;
				}
				free(ls.v[i]);
				ls.v[i] = ls.v[--ls.n];
			}
		}
	}
out:
	if (rc) {
		for (size_t i = 0; i < ls.n; i++)
			free(ls.v[i]);
		free(ls.v);
		return rc;
	}
	*libs = ls.v;
	*nlibs = ls.n;
	return 0;
}

