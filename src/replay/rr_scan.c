// SPDX-License-Identifier: MIT
/*
 * rr_scan.c - system call names for spool record's report of the program's
 * own system calls, and the static scan of an executable for the
 * instructions a recording cannot see (rr_scan.h): the lookups and the walk
 * of the ELF file's executable sections, the same on every CPU. The tables
 * and the instruction classifier are the CPU's (rr_scan_arch.h,
 * src/arch/<cpu>/).
 */
#include <errno.h>
#include <gelf.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../probe/probe.h"
#include "rr_scan.h"
#include "rr_scan_arch.h"

const char *rr_sys_name(long nr)
{
	size_t n;
	const struct rr_scan_sys *t = rr_scan_arch_names(&n);

	for (size_t i = 0; i < n; i++)
		if (t[i].nr == nr)
			return t[i].name;
	return NULL;
}

int rr_sys_recorded(long nr)
{
	size_t n;
	const long *t = rr_scan_arch_recorded(&n);

	for (size_t i = 0; i < n; i++)
		if (t[i] == nr)
			return 1;
	return 0;
}

const struct probe_sym *rr_scan_sym(const struct probe_module *m, uint64_t addr)
{
	size_t lo = 0, hi = m->nsyms;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (m->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &m->syms[lo - 1] : NULL;
}

void rr_scan_note(struct rr_scan *out, int cls, const struct probe_sym *s, uint64_t addr,
		  const char *text)
{
	char *w = out->where[cls];
	size_t n = strlen(w), cap = sizeof(out->where[cls]);
	char loc[160];

	if (out->n[cls]++ >= 6) {
		if (out->n[cls] == 7 && n + 6 < cap)
			snprintf(w + n, cap - n, ", ...");
		return;
	}
	if (s && addr < s->addr + s->size)
		snprintf(loc, sizeof(loc), "%s+%#llx", s->name, (unsigned long long)(addr - s->addr));
	else if (s)
		snprintf(loc, sizeof(loc), "%#llx (after %s)", (unsigned long long)addr, s->name);
	else
		snprintf(loc, sizeof(loc), "%#llx", (unsigned long long)addr);
	if (n + strlen(loc) + strlen(text) + 8 < cap)
		snprintf(w + n, cap - n, "%s%s at %s", n ? ", " : "", text, loc);
}

int rr_scan_exe(const char *path, struct rr_scan *out)
{
	struct probe_module m;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = probe_module_open(&m, path, 1);
	if (rc < 0)
		goto out_close;
	while ((scn = elf_nextscn(m.elf, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR) ||
		    sh.sh_type != SHT_PROGBITS)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || d->d_size != sh.sh_size)
			continue;
		rr_scan_arch_section(&m, sh.sh_addr, d->d_buf, d->d_size, out);
	}
out_close:
	probe_module_close(&m);
	return rc < 0 ? rc : 0;
}
