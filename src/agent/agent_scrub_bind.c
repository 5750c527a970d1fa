// SPDX-License-Identifier: MIT
/*
 * agent_scrub_bind.c - the PLT slots of the calls whose entry stubs zero
 * little are bound before the program makes them (record/replay, x86-64;
 * doc/record.md, "The program's stack").
 *
 * A lazily bound call's first run goes through ld.so's resolver, which
 * saves the whole vector register state on the program's stack (3 KiB on
 * an AVX-512 CPU: 352's first clock_gettime left 3144 bytes) before it
 * jumps to the stub. The registers hold what the agent last left in them,
 * which differs between a recording and its replay: a stub that zeroes
 * less than that (under SCRUB_BIND_BELOW) would leave that residue. So
 * while recording or replaying, the agent binds every module's PLT slots
 * of those stubs' calls at its start and after each dlopen, to what ld.so
 * would bind them to (the global scope's definition: the program's own if
 * it exports one, else the agent's), and the resolver never runs for them.
 * Today every stub zeroes 4 KiB or more (AGENT_SCRUB_LEAF went back to
 * 4 KiB: src/arch/x86_64/agent_stub.h says why) and this does nothing; it
 * is what a smaller span needs (with 1 KiB, tests/integ/352 failed
 * without it and passed with it).
 *
 * Left alone: libc, ld.so and the vDSO (their calls are internal), the
 * agent, modules bound at load (BIND_NOW: their slots are read-only), slots
 * inside a module's RELRO range. Not seen: modules glibc loads itself,
 * without the program's dlopen (libgcc_s at a C program's first
 * pthread_cancel, NSS and gconv modules), whose first such call may still
 * leave the resolver's registers (under a name lookup, the lookup's stub
 * zeroes 64 KiB after it), nor a RTLD_DEEPBIND module's own scope (its
 * slots get the global scope's definition). Storing the address the
 * resolver would store is what a concurrent resolution does: one aligned
 * 8-byte store. Cost: a compare of each module's PLT relocations' names
 * against the table's, at the start and after each dlopen, while
 * recording or replaying only.
 */
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <string.h>

#include "agent.h"

#if defined(__x86_64__)

/* stubs that zero less than the resolver's footprint may leave */
#define SCRUB_BIND_BELOW 4096u

static uintptr_t bind_dyn_ptr(uintptr_t base, uintptr_t p)
{
	/* ld.so relocates the d_ptr entries of most modules (not the vDSO's) */
	return p < base ? base + p : p;
}

static int bind_wanted(const char *name)
{
	const struct agent_scrub_ent *e;

	for (e = __start_spool_scrub_tab; e < __stop_spool_scrub_tab; e++)
		if (e->span < SCRUB_BIND_BELOW && e->name[0] == name[0] && !strcmp(e->name, name))
			return 1;
	return 0;
}

static int bind_module(struct dl_phdr_info *info, size_t size, void *arg)
{
	uintptr_t base = info->dlpi_addr, relro = 0, relro_end = 0;
	const char *name = info->dlpi_name ? info->dlpi_name : "";
	const ElfW(Dyn) *dyn = NULL;
	const ElfW(Sym) *symtab = NULL;
	const ElfW(Rela) *jmprel = NULL;
	const char *strtab = NULL;
	size_t pltsz = 0, strsz = 0, n, i;
	int now = 0;

	(void)size;
	(void)arg;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_DYNAMIC)
			dyn = (const ElfW(Dyn) *)(base + ph->p_vaddr);
		if (ph->p_type == PT_GNU_RELRO) {
			relro = base + ph->p_vaddr;
			relro_end = relro + ph->p_memsz;
		}
		if (ph->p_type == PT_LOAD && (uintptr_t)bind_module >= base + ph->p_vaddr &&
		    (uintptr_t)bind_module < base + ph->p_vaddr + ph->p_memsz)
			return 0; /* the agent */
	}
	if (!dyn || strstr(name, "/libc.so") || strstr(name, "ld-linux") ||
	    strstr(name, "linux-vdso"))
		return 0;
	for (; dyn->d_tag != DT_NULL; dyn++) {
		switch (dyn->d_tag) {
		case DT_SYMTAB:
			symtab = (const ElfW(Sym) *)bind_dyn_ptr(base, dyn->d_un.d_ptr);
			break;
		case DT_STRTAB:
			strtab = (const char *)bind_dyn_ptr(base, dyn->d_un.d_ptr);
			break;
		case DT_STRSZ:
			strsz = dyn->d_un.d_val;
			break;
		case DT_JMPREL:
			jmprel = (const ElfW(Rela) *)bind_dyn_ptr(base, dyn->d_un.d_ptr);
			break;
		case DT_PLTRELSZ:
			pltsz = dyn->d_un.d_val;
			break;
		case DT_BIND_NOW:
			now = 1;
			break;
		case DT_FLAGS:
			now |= !!(dyn->d_un.d_val & DF_BIND_NOW);
			break;
		case DT_FLAGS_1:
			now |= !!(dyn->d_un.d_val & DF_1_NOW);
			break;
		}
	}
	if (now || !symtab || !strtab || !jmprel)
		return 0;
	n = pltsz / sizeof(ElfW(Rela));
	for (i = 0; i < n; i++) {
		const ElfW(Rela) *r = &jmprel[i];
		const ElfW(Sym) *s;
		uintptr_t slot;
		void *to;

		if (ELF64_R_TYPE(r->r_info) != R_X86_64_JUMP_SLOT)
			continue;
		s = &symtab[ELF64_R_SYM(r->r_info)];
		if (!s->st_name || s->st_name >= strsz || !bind_wanted(strtab + s->st_name))
			continue;
		slot = base + r->r_offset;
		if (slot >= relro && slot < relro_end)
			continue;
		to = dlsym(RTLD_DEFAULT, strtab + s->st_name);
		if (to)
			__atomic_store_n((void **)slot, to, __ATOMIC_RELAXED);
	}
	return 0;
}

void agent_scrub_bind(void)
{
	const struct agent_scrub_ent *e;

	/* nothing to do while every stub zeroes 4 KiB or more (x86-64's
	 * AGENT_SCRUB_LEAF is 4 KiB for now: agent_stub.h says why) */
	for (e = __start_spool_scrub_tab; e < __stop_spool_scrub_tab; e++)
		if (e->span < SCRUB_BIND_BELOW)
			break;
	if (e == __stop_spool_scrub_tab)
		return;
	dl_iterate_phdr(bind_module, NULL);
}

#else

void agent_scrub_bind(void)
{
	/* aarch64: its stubs zero 4 KiB under these calls too, more than its
	 * resolver's footprint (the argument registers) */
}

#endif
