// SPDX-License-Identifier: MIT
/*
 * a64_fill.c - a library for tests/arm64/268-a64-probe-brk.t: its
 * constructor (run before the preloaded agent's: the program needs it, the
 * agent does not) takes every free page within 136 MiB of the program's
 * code (PROT_NONE, reserved, never touched), so no trampoline page can be
 * placed within a `B`'s +-128 MiB of it and spool's probes there must
 * fall back to BRK. Prints what it took on stderr.
 *
 *   aarch64-linux-gnu-gcc -shared -fPIC -O2 -o libfill.so a64_fill.c
 */
#define _GNU_SOURCE
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>

#define FILL_REACH (136ull << 20)

static uint64_t fill_lo = UINT64_MAX, fill_hi;

static int fill_main_range(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	(void)data;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD)
			continue;
		if (info->dlpi_addr + ph->p_vaddr < fill_lo)
			fill_lo = info->dlpi_addr + ph->p_vaddr;
		if (info->dlpi_addr + ph->p_vaddr + ph->p_memsz > fill_hi)
			fill_hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
	}
	return 1; /* the first object is the program */
}

__attribute__((constructor)) static void fill_start(void)
{
	uint64_t lo, hi, prev, taken = 0;
	unsigned long a, b;
	char line[512];
	FILE *f;

	dl_iterate_phdr(fill_main_range, NULL);
	if (fill_lo == UINT64_MAX)
		return;
	lo = fill_lo > FILL_REACH ? fill_lo - FILL_REACH : 0x10000;
	hi = fill_hi + FILL_REACH;
	f = fopen("/proc/self/maps", "r");
	if (!f)
		return;
	/* the gaps between the mappings, within [lo, hi) */
	prev = lo;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx", &a, &b) != 2)
			continue;
		if (a > prev && prev < hi) {
			uint64_t end = a < hi ? a : hi;

			if (mmap((void *)prev, end - prev, PROT_NONE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1,
				 0) == (void *)prev)
				taken += end - prev;
		}
		if (b > prev)
			prev = b;
	}
	fclose(f);
	if (prev < hi && mmap((void *)prev, hi - prev, PROT_NONE,
			      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE,
			      -1, 0) == (void *)prev)
		taken += hi - prev;
	fprintf(stderr, "fill: %llu MiB taken around the program\n",
		(unsigned long long)(taken >> 20));
}
