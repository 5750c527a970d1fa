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

/* The section called name: its data and link-time address. */
static const uint8_t *probe_fde_section(Elf *elf, const char *want, uint64_t *addr, size_t *size)
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
		    strcmp(name, want) || sh.sh_type == SHT_NOBITS)
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
	h = probe_fde_section(mod->elf, ".eh_frame_hdr", &haddr, &hsize);
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

/* ---- landing pads: .eh_frame FDEs and their LSDAs (.gcc_except_table) ---- */

/* A cursor over a section mapped at link-time address base. */
struct fde_rd {
	const uint8_t *start, *p, *end;
	uint64_t base;
};

static int fde_uleb(struct fde_rd *r, uint64_t *v)
{
	unsigned shift = 0;

	*v = 0;
	while (r->p < r->end && shift < 64) {
		uint8_t b = *r->p++;

		*v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			return 0;
	}
	return -1;
}

static int fde_sleb(struct fde_rd *r, int64_t *v)
{
	unsigned shift = 0;
	uint8_t b = 0x80;
	uint64_t x = 0;

	while (r->p < r->end && shift < 64 && (b & 0x80)) {
		b = *r->p++;
		x |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	}
	if (b & 0x80)
		return -1;
	if (shift < 64 && (b & 0x40))
		x |= ~0ull << shift;
	*v = (int64_t)x;
	return 0;
}

/* A pointer encoded with enc (DW_EH_PE_*): absolute or pc-relative values
 * only (what GCC and clang write for code addresses); *ok = 0 for others
 * (the bytes are still consumed when their size is known). */
static int fde_ptr(struct fde_rd *r, uint8_t enc, uint64_t *v, int *ok)
{
	uint64_t at = r->base + (uint64_t)(r->p - r->start);
	size_t n;

	*ok = 1;
	if ((enc & 0x0f) == 0x01 || (enc & 0x0f) == 0x09) {
		int64_t sv;

		if ((enc & 0x0f) == 0x01 ? fde_uleb(r, v) : fde_sleb(r, &sv))
			return -1;
		if ((enc & 0x0f) == 0x09)
			*v = (uint64_t)sv;
	} else {
		n = probe_fde_enc_size(enc);
		if (!n || (size_t)(r->end - r->p) < n)
			return -1;
		*v = probe_fde_read(r->p, n);
		if ((enc & 0x08) && n < 8 && (*v >> (8 * n - 1)) & 1)
			*v |= ~0ull << (8 * n); /* sdata2, sdata4 */
		r->p += n;
	}
	if ((enc & 0x70) == 0x10)
		*v += at;
	else if (enc & 0x70)
		*ok = 0; /* datarel, textrel, funcrel, aligned */
	if (enc & 0x80)
		*ok = 0; /* indirect */
	return 0;
}

/* The landing pads named by the call-site table of the LSDA at lsda. */
static int fde_lsda(const uint8_t *gx, uint64_t gaddr, size_t gsize, uint64_t lsda,
		    uint64_t func, uint64_t **v, size_t *n, size_t *cap)
{
	struct fde_rd r = {gx, gx, gx + gsize, gaddr};
	uint64_t lpstart = func, x, cs_len;
	uint8_t enc, cs_enc;
	const uint8_t *cs_end;
	int ok;

	if (lsda < gaddr || lsda >= gaddr + gsize)
		return 0;
	r.p = gx + (lsda - gaddr);
	enc = *r.p++;
	if (enc != EH_PE_OMIT && (fde_ptr(&r, enc, &lpstart, &ok) || !ok))
		return 0;
	if (r.p >= r.end)
		return 0;
	enc = *r.p++;
	if (enc != EH_PE_OMIT && fde_uleb(&r, &x))
		return 0;
	if (r.p >= r.end)
		return 0;
	cs_enc = *r.p++;
	if (fde_uleb(&r, &cs_len) || cs_len > (uint64_t)(r.end - r.p))
		return 0;
	cs_end = r.p + cs_len;
	r.end = cs_end;
	while (r.p < cs_end) {
		uint64_t start, len, lp, action;

		if (fde_ptr(&r, cs_enc & 0x0f, &start, &ok) || fde_ptr(&r, cs_enc & 0x0f, &len, &ok) ||
		    fde_ptr(&r, cs_enc & 0x0f, &lp, &ok) || fde_uleb(&r, &action))
			return 0;
		if (!lp)
			continue;
		if (*n == *cap) {
			uint64_t *nv;

			*cap = *cap ? 2 * *cap : 256;
			nv = realloc(*v, *cap * sizeof(*nv));
			if (!nv)
				return -ENOMEM;
			*v = nv;
		}
		(*v)[(*n)++] = lpstart + lp;
	}
	return 0;
}

int probe_fde_landing_pads(struct probe_module *mod, uint64_t **v, size_t *n)
{
	uint64_t eaddr, gaddr;
	size_t esize, gsize, cap = 0;
	const uint8_t *eh = probe_fde_section(mod->elf, ".eh_frame", &eaddr, &esize);
	const uint8_t *gx = probe_fde_section(mod->elf, ".gcc_except_table", &gaddr, &gsize);
	size_t off = 0;
	int rc = 0;

	*v = NULL;
	*n = 0;
	if (!eh || !gx)
		return 0;
	while (!rc && off + 8 <= esize) {
		uint32_t len = (uint32_t)probe_fde_read(eh + off, 4), id;
		size_t rec = off + 4, next;
		struct fde_rd r, c;
		char aug[16] = "";
		uint8_t fde_enc = 0, lsda_enc = EH_PE_OMIT;
		uint64_t x, pc, lsda, cie_off;
		int64_t sx;
		int ok;

		if (!len || len == 0xffffffffu || len > esize - rec)
			break; /* the terminator, or a 64-bit length: not written by GCC */
		next = rec + len;
		id = (uint32_t)probe_fde_read(eh + rec, 4);
		if (!id) {
			off = next; /* a CIE: read through its FDEs */
			continue;
		}
		/* The FDE's CIE: id bytes back from the id field. */
		if (id > rec)
			break;
		cie_off = rec - id;
		c = (struct fde_rd){eh, eh + cie_off + 8, eh + esize, eaddr};
		if (cie_off + 9 > esize || (eh[cie_off + 8] != 1 && eh[cie_off + 8] != 3))
			goto skip; /* CIE versions 1 and 3 */
		c.p++;
		for (size_t k = 0; c.p < c.end && *c.p; k++, c.p++)
			if (k + 1 < sizeof(aug))
				aug[k] = (char)*c.p, aug[k + 1] = 0;
		if (c.p >= c.end || aug[0] != 'z')
			goto skip;
		c.p++;
		if (fde_uleb(&c, &x) || fde_sleb(&c, &sx))
			goto skip;
		if (c.p >= c.end)
			goto skip;
		if (eh[cie_off + 8] == 1)
			c.p++; /* return register, a byte in version 1 */
		else if (fde_uleb(&c, &x))
			goto skip;
		if (fde_uleb(&c, &x))
			goto skip;
		for (const char *a = aug + 1; *a; a++) {
			if (c.p >= c.end)
				goto skip;
			if (*a == 'L') {
				lsda_enc = *c.p++;
			} else if (*a == 'R') {
				fde_enc = *c.p++;
			} else if (*a == 'P') {
				uint8_t penc = *c.p++;

				if (fde_ptr(&c, penc, &x, &ok))
					goto skip;
			} else if (*a != 'S' && *a != 'B') {
				goto skip; /* an augmentation we cannot step over */
			}
		}
		if (lsda_enc == EH_PE_OMIT)
			goto skip;
		r = (struct fde_rd){eh, eh + rec + 4, eh + next, eaddr};
		if (fde_ptr(&r, fde_enc, &pc, &ok) || !ok || fde_ptr(&r, fde_enc & 0x0f, &x, &ok) ||
		    fde_uleb(&r, &x) || fde_ptr(&r, lsda_enc, &lsda, &ok) || !ok || !lsda)
			goto skip;
		rc = fde_lsda(gx, gaddr, gsize, lsda, pc, v, n, &cap);
skip:
		off = next;
	}
	if (rc) {
		free(*v);
		*v = NULL;
		*n = 0;
	}
	return rc;
}
