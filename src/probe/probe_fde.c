// SPDX-License-Identifier: MIT
/*
 * probe_fde.c - functions of a stripped module from .eh_frame (probe_fde.h).
 *
 * .eh_frame_hdr (what the unwinder binary-searches) holds a table of every
 * FDE's initial location, sorted; GCC and clang write it as pairs of signed
 * 32-bit offsets from the start of the section (DW_EH_PE_datarel |
 * DW_EH_PE_sdata4). An FDE whose first row is the entry state (CFA = rsp +
 * 8, checked by probe_dwarf_func_entry) starts a function; a .cold part
 * starts inside its function's frame and is left out, unless that function
 * has no frame (it then looks like an entry: the path shows it as a call).
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe_fde.h"

#define EH_PE_OMIT 0xff
#define EH_PE_DATAREL_SDATA4 0x3b

/* Bytes of a pointer encoded with enc (the low nibble), 0 = unsupported. */
static size_t probe_fde_enc_size(uint8_t enc)
{
	switch (enc & 0x0f) {
	case 0x02: /* udata2 */
	case 0x0a: /* sdata2 */
		return 2;
	case 0x03: /* udata4 */
	case 0x0b: /* sdata4 */
		return 4;
	case 0x04: /* udata8 */
	case 0x0c: /* sdata8 */
	case 0x00: /* absptr */
		return 8;
	default:
		return 0;
	}
}

static uint64_t probe_fde_read(const uint8_t *p, size_t n)
{
	uint64_t v = 0;

	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* The .eh_frame_hdr section: its data and link-time address. */
static const uint8_t *probe_fde_hdr(Elf *elf, uint64_t *addr, size_t *size)
{
	Elf_Scn *scn = NULL;
	size_t shstr;

	if (elf_getshdrstrndx(elf, &shstr))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstr, sh.sh_name)) ||
		    strcmp(name, ".eh_frame_hdr"))
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || d->d_size != sh.sh_size)
			return NULL;
		*addr = sh.sh_addr;
		*size = sh.sh_size;
		return d->d_buf;
	}
	return NULL;
}

static int probe_fde_sym_cmp(const void *a, const void *b)
{
	const struct probe_sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Does a symbol of the module (sorted by address) cover addr? */
static int probe_fde_covered(const struct probe_module *mod, size_t nsyms, uint64_t addr)
{
	size_t lo = 0, hi = nsyms;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (mod->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && addr < mod->syms[lo - 1].addr + mod->syms[lo - 1].size;
}

int probe_module_add_fde_funcs(struct probe_module *mod)
{
	const uint8_t *h;
	uint64_t haddr, count;
	size_t hsize, ptr_size, cnt_size, off, base = mod->nsyms, cap = mod->nsyms;
	const char *file = strrchr(mod->path, '/');
	int added = 0;

	file = file ? file + 1 : mod->path;
	h = probe_fde_hdr(mod->elf, &haddr, &hsize);
	if (!h || hsize < 4 || h[0] != 1)
		return -ENOENT;
	if (h[2] == EH_PE_OMIT || h[3] != EH_PE_DATAREL_SDATA4)
		return -ENOTSUP;
	ptr_size = probe_fde_enc_size(h[1]);
	cnt_size = probe_fde_enc_size(h[2]);
	if (!ptr_size || !cnt_size || 4 + ptr_size + cnt_size > hsize)
		return -ENOTSUP;
	count = probe_fde_read(h + 4 + ptr_size, cnt_size);
	off = 4 + ptr_size + cnt_size;
	if (count > (hsize - off) / 8)
		return -EINVAL;
	for (uint64_t i = 0; i < count; i++) {
		int32_t rel = (int32_t)(uint32_t)probe_fde_read(h + off + 8 * i, 4);
		uint64_t at = haddr + (uint64_t)(int64_t)rel;
		Dwarf_Frame *fr = NULL;
		Dwarf_Addr start, end;
		bool signalp;
		char name[512];
		struct probe_sym *s;

		if (probe_fde_covered(mod, base, at) || !probe_dwarf_func_entry(mod, at))
			continue;
		if (!mod->cfi || dwarf_cfi_addrframe(mod->cfi, at, &fr))
			continue;
		if (dwarf_frame_info(fr, &start, &end, &signalp) < 0 || start != at || end <= at) {
			free(fr);
			continue;
		}
		free(fr);
		if (mod->nsyms == cap) {
			cap = cap ? cap * 2 : 256;
			s = realloc(mod->syms, cap * sizeof(*s));
			if (!s)
				return -ENOMEM;
			mod->syms = s;
		}
		snprintf(name, sizeof(name), "%s+%#llx", file, (unsigned long long)at);
		s = &mod->syms[mod->nsyms];
		s->name = strdup(name);
		if (!s->name)
			return -ENOMEM;
		s->addr = at;
		s->size = end - at;
		mod->nsyms++;
		added++;
	}
	if (added)
		qsort(mod->syms, mod->nsyms, sizeof(*mod->syms), probe_fde_sym_cmp);
	return added;
}
