// SPDX-License-Identifier: MIT
/*
 * agent_probe_place.c - what placing a module's probes does the same way on
 * every architecture (agent_probe.c on x86-64, src/arch/aarch64/
 * a64_agent_probe.c on aarch64): find the probes area spool wrote, find a
 * module's load bias by its file name, and map a trampoline page within the
 * patch's jump reach of the probes. The reach and the search step are the
 * architecture's (ARCH_PROBE_REACH, ARCH_PROBE_STEP, ARCH_PROBE_STEPS in
 * src/arch/arch.h: a jmp rel32, a B imm26).
 *
 * Run before main (one thread) or after a dlopen, under the caller's lock;
 * never from a signal handler.
 */
#include <link.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>

#include "../arch/arch.h"
#include "agent.h"
#include "agent_probe.h"

struct probe_area_hdr *agent_probe_area_find(uint64_t *size)
{
	struct shm_ctl *c = agent.ctl;
	struct probe_area_hdr *h;
	uint64_t sz;

	if (!c || !(c->features & SHM_FEAT_PROBES))
		return NULL;
	h = agent_ext(SHM_EXT_PROBES, &sz);
	if (!h || sz < sizeof(*h))
		return NULL;
	if (h->magic != PROBE_AREA_MAGIC || h->version != PROBE_AREA_VERSION)
		return NULL;
	if (size)
		*size = sz;
	return h;
}

struct agent_probe_find {
	const char *name;
	uint64_t base;
	int found;
};

static int agent_probe_phdr_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct agent_probe_find *f = arg;
	const char *n = info->dlpi_name ? info->dlpi_name : "", *b = strrchr(n, '/');

	b = b ? b + 1 : n;
	/* The executable comes first, with an empty name. */
	if (!f->name[0] ? !n[0] : !strcmp(b, f->name)) {
		f->base = info->dlpi_addr;
		f->found = 1;
		return 1;
	}
	return 0;
}

int agent_probe_module_base(const char *name, uint64_t *base)
{
	struct agent_probe_find f = {name, 0, 0};

	dl_iterate_phdr(agent_probe_phdr_cb, &f);
	*base = f.base;
	return f.found;
}

void agent_probe_module_status(struct probe_area_module *m, struct probe_area_probe *ps,
			       uint32_t status)
{
	for (uint32_t i = 0; i < m->nprobes; i++)
		ps[m->first_probe + i].status = status;
}

uint64_t agent_probe_pgsz(void)
{
	static uint64_t pgsz;

	if (!pgsz) {
		uint64_t v = (uint64_t)getauxval(AT_PAGESZ);

		/* 4 KiB on x86-64; 4, 16 or 64 KiB on arm64 */
		pgsz = v && !(v & (v - 1)) ? v : 4096;
	}
	return pgsz;
}

int agent_probe_reach(uint64_t from, uint64_t to)
{
	int64_t d = (int64_t)(to - from);

	return d > -(int64_t)ARCH_PROBE_REACH && d < (int64_t)ARCH_PROBE_REACH;
}

/*
 * An RW anonymous mapping every byte of which the patch's jump reaches from
 * [lo, hi) and back: tried at ARCH_PROBE_STEP steps above hi and below lo.
 * MAP_FIXED_NOREPLACE never moves a mapping of the program; an older kernel
 * (or qemu-user) that takes it as a hint is caught by the distance check.
 */
void *agent_probe_page(uint64_t lo, uint64_t hi, size_t size)
{
	const uint64_t step = ARCH_PROBE_STEP, pg = agent_probe_pgsz();

	if (hi < lo || hi - lo >= ARCH_PROBE_REACH)
		return NULL;
	for (uint64_t k = 1; k <= ARCH_PROBE_STEPS; k++) {
		uint64_t cand[2] = {(hi + k * step) & ~(pg - 1),
				    (lo - k * step - size) & ~(pg - 1)};

		for (int j = 0; j < 2; j++) {
			void *p;

			if (j == 1 && lo < k * step + size)
				continue;
			p = mmap((void *)cand[j], size, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
			if (p == MAP_FAILED)
				continue;
			if (agent_probe_reach((uint64_t)p, lo) &&
			    agent_probe_reach((uint64_t)p + size, lo) &&
			    agent_probe_reach((uint64_t)p, hi) &&
			    agent_probe_reach((uint64_t)p + size, hi))
				return p;
			munmap(p, size);
		}
	}
	return NULL;
}
