// SPDX-License-Identifier: MIT
/*
 * agent_probe.c - the runtime half of dynamic probes (spool probe): at
 * startup, place the trampolines spool built (src/probe/probe_abi.h) near
 * each module, patch the probed code, and record a KIND_PROBE event per hit.
 *
 * When: in the constructor, before main, when the process has one thread,
 * so the text can be rewritten without stopping anyone. Libraries loaded
 * later with dlopen are not probed yet.
 *
 * Jump probes: the trampoline (spool's code, relocated here with the
 * module's load bias and the page's address) saves the caller-saved
 * registers, calls a handler below, restores them and runs the displaced
 * instructions. The handlers are compiled general-regs-only: they never
 * touch vector or x87 registers, which at a function entry may hold
 * arguments and at a ret the return value, so the trampoline need not save
 * them. The only call out (registering a thread on its first event) is
 * wrapped in fxsave/fxrstor.
 *
 * int3 probes: a SIGTRAP handler finds the probe by address, runs the same
 * handler with registers from the signal context, and resumes at the
 * probe's out-of-line slot, which runs the displaced instruction and jumps
 * back: the original instruction runs exactly once per hit. A SIGTRAP that
 * is not ours goes to the handler installed before ours, or, if that was
 * the default, re-executes with the default action. A handler the program
 * installs later replaces ours (doc/probe.md: the int3 probes then stop).
 */
#include <link.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include "../probe/probe_abi.h"
#include "agent.h"
#include "agent_probe.h"

struct agent_probe_rt {
	uint64_t addr;	  /* probed instruction */
	uint64_t slot;	  /* int3: where to resume */
	uint32_t id;
	uint32_t handler;
	uint8_t int3;
	uint8_t disabled;
};

static struct probe_area_hdr *agent_probe_area;
static struct agent_probe_rt *agent_probe_by_id; /* index: probe id */
static uint32_t agent_probe_max_id;
static uint32_t *agent_probe_traps; /* ids of int3 probes sorted by address */
static uint32_t agent_probe_ntraps;
static struct sigaction agent_probe_old_trap;

typedef void (*agent_probe_fn)(uint32_t id, struct probe_regs *regs, uint64_t sp);

/* ---- the handlers: general registers only ---- */

/* First event of a thread: registration calls into libc, which may use
 * vector registers that still hold the probed function's arguments. Out
 * of the general-regs-only region (agent_enter is not), and nothing vector
 * runs before the fxsave. */
__attribute__((noinline)) static struct agent_thread *agent_probe_slow(void)
{
	uint8_t area[512 + 16];
	uint8_t *fx = (uint8_t *)(((uintptr_t)area + 15) & ~(uintptr_t)15);
	struct agent_thread *t;

	__asm__ volatile("fxsave64 %0" : "=m"(*(uint8_t(*)[512])fx));
	t = agent_enter();
	__asm__ volatile("fxrstor64 %0" : : "m"(*(uint8_t(*)[512])fx));
	return t;
}

#pragma GCC push_options
#pragma GCC target("general-regs-only")

static inline __attribute__((always_inline)) void
agent_probe_emit(uint32_t id, unsigned op, uint64_t sp, uint64_t a0, uint64_t a1, uint64_t a2)
{
	struct agent_thread *t = &agent_self;
	struct rec_probe *r;
	uint32_t seq;

	if (AGENT_UNLIKELY(!(agent.active && t->state == AGENT_T_ON && !t->busy))) {
		if (!agent.active || t->busy)
			return;
		t = agent_probe_slow();
		if (!t)
			return;
	}
	if (AGENT_UNLIKELY(id > agent_probe_max_id || agent_probe_by_id[id].disabled))
		return;
	seq = ++t->seq;
	t->busy = 1;
	t->prod.ring->last_seq = seq;
	r = ring_prod_reserve(&t->prod, sizeof(*r));
	if (AGENT_UNLIKELY(!r))
		goto out;
	r->h.word = ev_word(KIND_PROBE, t->index, id, op);
	r->h.tsc = __rdtsc();
	r->h.seq = seq;
	r->h.size = sizeof(*r);
	r->addr = agent_probe_by_id[id].addr;
	r->sp = sp;
	r->ret_ip = *(const uint64_t *)sp;
	r->args[0] = a0;
	r->args[1] = a1;
	r->args[2] = a2;
	if (AGENT_UNLIKELY(ring_prod_commit(&t->prod, sizeof(*r))))
		agent_wake();
out:
	t->busy = 0;
}

static void agent_probe_entry(uint32_t id, struct probe_regs *regs, uint64_t sp)
{
	agent_probe_emit(id, PROBE_OP_ENTRY, sp, regs->rdi, regs->rsi, regs->rdx);
}

static void agent_probe_exit(uint32_t id, struct probe_regs *regs, uint64_t sp)
{
	agent_probe_emit(id, PROBE_OP_EXIT, sp, regs->rax, regs->rdx, 0);
}

static void agent_probe_hit(uint32_t id, struct probe_regs *regs, uint64_t sp)
{
	agent_probe_emit(id, PROBE_OP_HIT, sp, regs->rdi, regs->rsi, regs->rdx);
}

#pragma GCC pop_options

static const agent_probe_fn agent_probe_handlers[PROBE_H_MAX] = {
	[PROBE_H_FUNC_ENTRY] = agent_probe_entry,
	[PROBE_H_FUNC_EXIT] = agent_probe_exit,
	[PROBE_H_HIT] = agent_probe_hit,
};

/* ---- int3 ---- */

static struct agent_probe_rt *agent_probe_trap_find(uint64_t addr)
{
	uint32_t lo = 0, hi = agent_probe_ntraps;

	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;
		struct agent_probe_rt *p = &agent_probe_by_id[agent_probe_traps[mid]];

		if (p->addr == addr)
			return p;
		if (p->addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static void agent_probe_trap(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	greg_t *g = uc->uc_mcontext.gregs;
	struct agent_probe_rt *p = agent_probe_trap_find((uint64_t)g[REG_RIP] - 1);
	struct probe_regs regs;

	if (!p) {
		const struct sigaction *o = &agent_probe_old_trap;

		if (o->sa_flags & SA_SIGINFO) {
			if (o->sa_sigaction) {
				o->sa_sigaction(sig, si, ucv);
				return;
			}
		} else if (o->sa_handler == SIG_IGN) {
			return;
		} else if (o->sa_handler != SIG_DFL) {
			o->sa_handler(sig);
			return;
		}
		/* Not ours and nobody else's: let it happen as without us. */
		sigaction(SIGTRAP, o, NULL);
		if (si->si_code == SI_KERNEL)
			g[REG_RIP]--;
		return;
	}
	regs.rax = (uint64_t)g[REG_RAX];
	regs.rcx = (uint64_t)g[REG_RCX];
	regs.rdx = (uint64_t)g[REG_RDX];
	regs.rsi = (uint64_t)g[REG_RSI];
	regs.rdi = (uint64_t)g[REG_RDI];
	regs.r8 = (uint64_t)g[REG_R8];
	regs.r9 = (uint64_t)g[REG_R9];
	regs.r10 = (uint64_t)g[REG_R10];
	regs.r11 = (uint64_t)g[REG_R11];
	agent_probe_handlers[p->handler](p->id, &regs, (uint64_t)g[REG_RSP]);
	g[REG_RIP] = (greg_t)p->slot;
}

/* ---- startup ---- */

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

static int agent_probe_near(uint64_t a, uint64_t b)
{
	uint64_t d = a > b ? a - b : b - a;

	return d < (1ull << 31) - (1ull << 24);
}

/* An RW anonymous mapping within rel32 reach of [lo, hi). */
static void *agent_probe_page(uint64_t lo, uint64_t hi, size_t size)
{
	const uint64_t step = 1ull << 24;

	for (uint64_t k = 1; k < 96; k++) {
		uint64_t cand[2] = {((hi + k * step) & ~4095ull), (lo - k * step - size) & ~4095ull};

		for (int j = 0; j < 2; j++) {
			void *p;

			if (j == 1 && lo < k * step + size)
				continue;
			p = mmap((void *)cand[j], size, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
			if (p == MAP_FAILED)
				continue;
			if (agent_probe_near((uint64_t)p, lo) &&
			    agent_probe_near((uint64_t)p + size, hi))
				return p;
			munmap(p, size);
		}
	}
	return NULL;
}

static int agent_probe_write_text(uint64_t addr, const uint8_t *bytes, uint32_t len)
{
	uint64_t pg = addr & ~4095ull, end = (addr + len + 4095) & ~4095ull;

	if (mprotect((void *)pg, end - pg, PROT_READ | PROT_WRITE | PROT_EXEC))
		return -1;
	/* Before main: this is the only thread, so byte order does not
	 * matter; the jump's first byte goes last anyway. */
	if (len > 1)
		memcpy((void *)(addr + 1), bytes + 1, len - 1);
	*(volatile uint8_t *)addr = bytes[0];
	mprotect((void *)pg, end - pg, PROT_READ | PROT_EXEC);
	return 0;
}

static void agent_probe_module(struct probe_area_module *m, struct probe_area_probe *ps,
			       const struct probe_area_reloc *rs, const uint8_t *code, int *need_trap)
{
	struct agent_probe_find f = {m->name, 0, 0};
	size_t size = ((size_t)m->code_bytes + 4095) & ~(size_t)4095;
	uint8_t *page;
	uint32_t i;

	dl_iterate_phdr(agent_probe_phdr_cb, &f);
	if (!f.found) {
		for (i = 0; i < m->nprobes; i++)
			ps[m->first_probe + i].status = PROBE_S_NO_MODULE;
		agent_log("probe: module '%s' is not loaded", m->name);
		return;
	}
	m->base = f.base;
	m->status = 1;
	page = size ? agent_probe_page(f.base + m->lo, f.base + m->hi, size) : NULL;
	if (!page) {
		for (i = 0; i < m->nprobes; i++)
			ps[m->first_probe + i].status = PROBE_S_NO_PAGE;
		agent_log("probe: no trampoline page near '%s'", m->name);
		return;
	}
	m->page = (uint64_t)page;
	/* The module's trampolines are contiguous in the code blob. */
	memcpy(page, code + ps[m->first_probe].code_off, m->code_bytes);
	for (i = 0; i < m->nprobes; i++) {
		struct probe_area_probe *p = &ps[m->first_probe + i];
		uint8_t *pc = page + (p->code_off - ps[m->first_probe].code_off);

		for (uint32_t r = 0; r < p->reloc_count; r++) {
			const struct probe_area_reloc *rl = &rs[p->reloc_first + r];

			if (rl->type == PROBE_R_REL32) {
				int64_t v = (int64_t)(f.base + rl->target) - (int64_t)(uintptr_t)(pc + rl->next);
				int32_t v32 = (int32_t)v;

				memcpy(pc + rl->at, &v32, 4);
			} else if (rl->type == PROBE_R_HANDLER64 && rl->target < PROBE_H_MAX) {
				uint64_t fn = (uint64_t)(uintptr_t)agent_probe_handlers[rl->target];

				memcpy(pc + rl->at, &fn, 8);
			}
		}
	}
	if (mprotect(page, size, PROT_READ | PROT_EXEC)) {
		for (i = 0; i < m->nprobes; i++)
			ps[m->first_probe + i].status = PROBE_S_PROTECT;
		return;
	}
	for (i = 0; i < m->nprobes; i++) {
		struct probe_area_probe *p = &ps[m->first_probe + i];
		uint8_t *pc = page + (p->code_off - ps[m->first_probe].code_off);
		uint64_t at = f.base + p->patch_off;
		uint8_t patch[PROBE_MAX_PATCH];
		struct agent_probe_rt *rt;

		if (p->id > agent_probe_max_id || p->patch_len > PROBE_MAX_PATCH ||
		    p->handler >= PROBE_H_MAX || !p->handler)
			continue;
		rt = &agent_probe_by_id[p->id];
		rt->addr = f.base + p->addr_off;
		rt->id = p->id;
		rt->handler = p->handler;
		p->runtime_addr = rt->addr;
		if (memcmp((void *)at, p->orig, p->patch_len)) {
			p->status = PROBE_S_MISMATCH;
			continue;
		}
		if (p->method == PROBE_M_JUMP) {
			int32_t rel = (int32_t)((int64_t)(uintptr_t)pc - (int64_t)(at + 5));

			memset(patch, 0xcc, sizeof(patch));
			patch[0] = 0xe9;
			memcpy(patch + 1, &rel, 4);
		} else {
			patch[0] = 0xcc;
			rt->int3 = 1;
			rt->slot = (uint64_t)(uintptr_t)pc;
			agent_probe_traps[agent_probe_ntraps++] = p->id;
			*need_trap = 1;
		}
		if (agent_probe_write_text(at, patch, p->patch_len)) {
			p->status = PROBE_S_PROTECT;
			if (rt->int3)
				agent_probe_ntraps--;
			continue;
		}
		p->status = PROBE_S_PATCHED;
		agent_probe_area->patched++;
	}
}

void agent_probe_init(void)
{
	struct shm_ctl *c = agent.ctl;
	struct probe_area_hdr *h;
	struct probe_area_module *ms;
	struct probe_area_probe *ps;
	size_t rt_size;
	int need_trap = 0;

	if (!c || !(c->features & SHM_FEAT_PROBES) || !c->ext_offset[SHM_EXT_PROBES] ||
	    c->ext_size[SHM_EXT_PROBES] < sizeof(*h))
		return;
	h = (void *)((char *)agent.base + c->ext_offset[SHM_EXT_PROBES]);
	if (h->magic != PROBE_AREA_MAGIC || h->version != PROBE_AREA_VERSION || h->done)
		return; /* a fork child or an exec'd image: already done, or not ours */
	agent_probe_area = h;
	ms = (void *)((char *)h + h->modules_off);
	ps = (void *)((char *)h + h->probes_off);
	for (uint32_t i = 0; i < h->nprobes; i++)
		if (ps[i].id > agent_probe_max_id)
			agent_probe_max_id = ps[i].id;
	rt_size = (((size_t)agent_probe_max_id + 1) * sizeof(*agent_probe_by_id) +
		   (size_t)h->nprobes * 4 + 4095) & ~(size_t)4095;
	agent_probe_by_id = mmap(NULL, rt_size, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (agent_probe_by_id == MAP_FAILED) {
		agent_probe_by_id = NULL;
		agent_log("probe: no memory for the probe table");
		return;
	}
	agent_probe_traps = (uint32_t *)(agent_probe_by_id + agent_probe_max_id + 1);
	agent_self.busy++;
	for (uint32_t i = 0; i < h->nmodules; i++)
		if (ms[i].nprobes)
			agent_probe_module(&ms[i], ps, (void *)((char *)h + h->relocs_off),
					   (uint8_t *)h + h->code_off, &need_trap);
	/* int3 probes by address for the SIGTRAP handler (insertion sort:
	 * startup only). */
	for (uint32_t i = 1; i < agent_probe_ntraps; i++) {
		uint32_t v = agent_probe_traps[i], j = i;

		while (j && agent_probe_by_id[agent_probe_traps[j - 1]].addr >
				    agent_probe_by_id[v].addr) {
			agent_probe_traps[j] = agent_probe_traps[j - 1];
			j--;
		}
		agent_probe_traps[j] = v;
	}
	if (need_trap) {
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = agent_probe_trap;
		sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_NODEFER;
		if (sigaction(SIGTRAP, &sa, &agent_probe_old_trap))
			agent_log("probe: cannot install the SIGTRAP handler");
	}
	agent_self.busy--;
	__atomic_store_n(&h->done, 1, __ATOMIC_RELEASE);
	agent_log("probe: %u of %u probes patched", h->patched, h->nprobes);
}
