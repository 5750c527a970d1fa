// SPDX-License-Identifier: MIT
/*
 * a64_agent_probe.c - the agent's dynamic-probe runtime on aarch64
 * (agent_probe.h): place the trampolines spool planned (a64_plan.c,
 * a64_insn.c) near each module and write the `B` to them, before main.
 *
 * What differs from x86-64 (agent_probe.c, not built here):
 *   - every probe is one `B imm26` over one instruction: a single aligned
 *     4-byte store, so a thread never sees half a patch. The trampoline
 *     page must be within +-128 MiB of the probes and of every branch
 *     target of its trampolines (PROBE_R_A64_B26); a probe whose branch
 *     does not reach, or with no page within reach at all, becomes a BRK
 *     (a64_agent_brk.c).
 *   - after writing code, the instruction cache is made coherent with the
 *     data cache (__builtin___clear_cache: DC CVAU, IC IVAU, DSB, ISB)
 *     before anything can run it: the trampoline page before it is made
 *     executable, each patched word right after its store.
 *   - a point whose instruction cannot run from a trampoline is refused
 *     by spool. SIGTRAP is taken only by BRK probes; the program's own
 *     signal masks and SIGTRAP handler are kept from them (and from the
 *     custom handlers' fault handlers) by a64_agent_sig.c and
 *     src/agent/agent_sigview.c.
 *   - placing is done in the constructor, with one thread (launch mode),
 *     and after a dlopen for the libraries it loaded (agent_probe_dlopen).
 *   - attach mode (spool probe -p, every thread stopped by spool's ptrace):
 *     spool_agent_probe_prepare places the trampolines and BRK slots
 *     (a64_attach_defer: no word of the program is written), spool reads
 *     which probes are ready (a BRK one is flagged PROBE_F_A64_BRK, so that
 *     spool leaves it out when a thread blocks SIGTRAP, as an int3),
 *     spool_agent_probe_commit writes their B and BRK words,
 *     spool_agent_probe_detach puts every original word back. A patch is
 *     one word: no thread can be inside one, none is stepped out.
 *   - custom handlers (--handler SO): the object is dlopened here, before
 *     placing, and the entry, exit and hit trampolines call the handlers
 *     that run it after the record (a64_probe_user_*); a fault in it is
 *     caught by the SIGSEGV/SIGBUS/SIGFPE/SIGILL handlers installed then,
 *     and the probe is removed (a64_probe_fault). Block and branch probes
 *     count (a64_agent_probe_hot.c) in the area's counters.
 *
 * The handlers a hit runs are in a64_agent_probe_hot.c.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <setjmp.h>
#include <stdio.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../../agent/agent.h"
#include "../../agent/agent_probe.h"
#include "a64_agent_probe.h"

uint64_t *a64_probe_addr;
uint64_t *a64_probe_base;
uint32_t *a64_probe_ret;
struct probe_area_hdr *a64_probe_hdr;
uint32_t a64_probe_max_id;
const struct probe_area_var *a64_probe_vars;
uint32_t a64_probe_nvars;
/* The area, once the startup placing is done (dlopens follow then), and
 * the lock two dlopens placing probes at once take turns on. */
static struct probe_area_hdr *a64_area;
static int a64_lock;
/* attach mode: the detach's first stop done (the words put back,
 * a64_words_left of them could not be); the release done */
static int a64_detached, a64_released;
static uint32_t a64_words_left;
/* Attach mode, while spool_agent_probe_prepare places: B and BRK words
 * are written by the commit, not as they are placed. a64_probe_tramp: by
 * id, the trampoline a ready jump probe's B goes to. */
int a64_attach_defer;
static uint64_t *a64_probe_tramp;
/* B imm26's own range (the encoding's: the page search's margin is
 * agent_probe_reach's). */
static int a64_reach(uint64_t from, uint64_t to)
{
	int64_t d = (int64_t)(to - from);

	return d >= -A64_B_REACH && d < A64_B_REACH;
}

/* The address of standard handler h, 0 for one this runtime has not
 * (function entries, exits and hits run the custom handlers too when
 * --handler loaded an object). */
uint64_t a64_handler(uint64_t h)
{
	int user = agent_probe_user.pre || agent_probe_user.post;

	/* before any trampoline (and a64_ra_tramp, reached through an entry
	 * probe, a BRK one too) runs a64_vsave/a64_vrest */
	a64_sve_init();
	if (h == PROBE_H_FUNC_ENTRY)
		return (uint64_t)(uintptr_t)(user ? a64_probe_user_entry : a64_probe_entry);
	if (h == PROBE_H_FUNC_EXIT)
		return (uint64_t)(uintptr_t)(user ? a64_probe_user_exit : a64_probe_exit);
	if (h == PROBE_H_HIT && user)
		return (uint64_t)(uintptr_t)a64_probe_user_hit;
	if (h == PROBE_H_FUNC_ENTRY_RA)
		return (uint64_t)(uintptr_t)a64_probe_entry_ra; /* (runs the custom ones too) */
	if (h == PROBE_H_BLOCK)
		return (uint64_t)(uintptr_t)a64_probe_block;
	if (h == PROBE_H_BRANCH)
		return (uint64_t)(uintptr_t)a64_probe_branch;
	if (h == PROBE_H_HIT)
		return (uint64_t)(uintptr_t)a64_probe_hit;
	if (h == PROBE_H_VAR)
		return (uint64_t)(uintptr_t)a64_probe_var;
	if (h == PROBE_H_A64_VSAVE || h == PROBE_H_A64_VREST)
		return (uint64_t)(uintptr_t)(h == PROBE_H_A64_VSAVE ? a64_vsave : a64_vrest);
	return 0;
}

/* Apply p's relocations to its code at pc (module base `base`): 0, or -1
 * when a branch does not reach or a handler is unknown. */
static int a64_relocate(const struct probe_area_probe *p, const struct probe_area_reloc *rs,
			uint32_t nrelocs, uint8_t *pc, uint64_t base)
{
	if (p->reloc_first > nrelocs || p->reloc_count > nrelocs - p->reloc_first)
		return -1;
	for (uint32_t r = 0; r < p->reloc_count; r++) {
		const struct probe_area_reloc *rl = &rs[p->reloc_first + r];
		uint64_t v;
		uint32_t w;

		if (rl->at > p->code_len ||
		    p->code_len - rl->at < (rl->type == PROBE_R_A64_B26 ? 4 : 8))
			return -1;
		switch (rl->type) {
		case PROBE_R_A64_B26:
			v = base + rl->target;
			if (!a64_reach((uint64_t)(uintptr_t)(pc + rl->at), v))
				return -1;
			memcpy(&w, pc + rl->at, 4);
			w = (w & 0xfc000000u) |
			    ((uint32_t)((v - (uint64_t)(uintptr_t)(pc + rl->at)) >> 2) &
			     0x03ffffffu);
			memcpy(pc + rl->at, &w, 4);
			break;
		case PROBE_R_ABS64:
			v = base + rl->target;
			memcpy(pc + rl->at, &v, 8);
			break;
		case PROBE_R_HANDLER64:
			v = a64_handler(rl->target);
			if (!v)
				return -1;
			memcpy(pc + rl->at, &v, 8);
			break;
		default:
			return -1;
		}
	}
	return 0;
}

/* Write one 4-byte word of text: made writable for the store (and still
 * executable: the page may hold the libc code doing this), then r-x again,
 * then the instruction cache. One thread runs (before main), or the module
 * is new (dlopen). r-x drops PROT_BTI where ld.so had set it (a BTI core):
 * the page stops being guarded, nothing faults (doc/arm64.md). */
int a64_poke(uint64_t addr, uint32_t w)
{
	uint64_t pg = addr & ~(agent_probe_pgsz() - 1);

	if (mprotect((void *)pg, agent_probe_pgsz(), PROT_READ | PROT_WRITE | PROT_EXEC))
		return -errno;
	__atomic_store_n((uint32_t *)(uintptr_t)addr, w, __ATOMIC_RELAXED);
	mprotect((void *)pg, agent_probe_pgsz(), PROT_READ | PROT_EXEC);
	__builtin___clear_cache((char *)(uintptr_t)addr, (char *)(uintptr_t)addr + 4);
	return 0;
}

/* Probe p as a BRK (a64_agent_brk.c): its status, the tables by id. */
static void a64_place_brk(struct probe_area_hdr *h, struct probe_area_probe *ps, uint32_t first,
			  uint32_t end, struct probe_area_probe *p, uint64_t base)
{
	p->runtime_addr = base + p->addr_off;
	p->runtime_patch = base + p->patch_off;
	a64_probe_addr[p->id] = p->runtime_addr;
	a64_probe_base[p->id] = base;
	if (p->shared_exit && p->shared_exit <= a64_probe_max_id) {
		a64_probe_addr[p->shared_exit] = p->runtime_addr;
		a64_probe_base[p->shared_exit] = base;
	}
	/* READY: written with the module's other BRKs (a64_brk_flush) */
	p->status = a64_brk_place(h, ps, first, end, p, base, a64_handler);
}

#define A64_ALIGN(x) (((x) + 15u) & ~(size_t)15)

/*
 * Probes [from, to) of the module (base), whose trampolines go to page
 * (size bytes, RW): copy and relocate each, make the page coherent and
 * executable, then write each B. A probe that cannot be placed gets its
 * status; the others are patched.
 */
static void a64_place_run(struct probe_area_hdr *h, struct probe_area_probe *ps, uint32_t from,
			  uint32_t to, uint64_t base, uint8_t *page, size_t size, uint32_t first,
			  uint32_t end)
{
	const struct probe_area_reloc *rs = (const void *)((char *)h + h->relocs_off);
	const uint8_t *code = (const uint8_t *)h + h->code_off;
	size_t used = 0;

	for (uint32_t i = from; i < to; i++) {
		struct probe_area_probe *p = &ps[i];

		p->status = PROBE_S_NO_PAGE;
		p->runtime_patch = 0;
		if (p->id > a64_probe_max_id || p->method != PROBE_M_JUMP || p->patch_len != 4 ||
		    (p->patch_off & 3) || p->code_off > h->code_bytes ||
		    p->code_len > h->code_bytes - p->code_off || used + p->code_len > size)
			continue;
		memcpy(page + used, code + p->code_off, p->code_len);
		if (a64_relocate(p, rs, h->nrelocs, page + used, base)) {
			p->status = PROBE_S_PENDING; /* a branch of it does not reach: BRK below */
		} else {
			p->status = PROBE_S_READY;
			/* (runtime_patch is spool's to read after the patch; the
			 * trampoline's address is kept there meanwhile) */
			p->runtime_patch = (uint64_t)(uintptr_t)(page + used);
		}
		used += A64_ALIGN(p->code_len);
	}
	__builtin___clear_cache((char *)page, (char *)page + used);
	if (mprotect(page, size, PROT_READ | PROT_EXEC)) {
		for (uint32_t i = from; i < to; i++)
			if (ps[i].status == PROBE_S_READY)
				ps[i].status = PROBE_S_PROTECT;
		return;
	}
	for (uint32_t i = from; i < to; i++) {
		struct probe_area_probe *p = &ps[i];
		uint64_t at = base + p->patch_off, tramp = p->runtime_patch;
		uint32_t w;

		if (p->status == PROBE_S_PENDING) {
			a64_place_brk(h, ps, first, end, p, base);
			continue;
		}
		if (p->status != PROBE_S_READY)
			continue;
		p->runtime_addr = base + p->addr_off;
		p->runtime_patch = at;
		a64_probe_addr[p->id] = p->runtime_addr;
		a64_probe_base[p->id] = base;
		if (p->shared_exit && p->shared_exit <= a64_probe_max_id) {
			a64_probe_addr[p->shared_exit] = p->runtime_addr;
			a64_probe_base[p->shared_exit] = base;
		}
		if (memcmp((void *)(uintptr_t)at, p->orig, 4)) {
			p->status = PROBE_S_MISMATCH;
			continue;
		}
		if (!a64_reach(at, tramp)) {
			a64_place_brk(h, ps, first, end, p, base);
			continue;
		}
		if (a64_attach_defer) {
			/* READY: the commit writes the B (a64_commit) */
			a64_probe_tramp[p->id] = tramp;
			continue;
		}
		w = A64_B_OP | ((uint32_t)((tramp - at) >> 2) & 0x03ffffffu);
		if (a64_poke(at, w)) {
			p->status = PROBE_S_PROTECT;
			continue;
		}
		p->status = PROBE_S_PATCHED;
		h->patched++;
	}
}

/*
 * The probes of module m that patch nothing, once its jump and BRK probes
 * are written: those that ride in another's trampoline (PROBE_M_RIDE: a
 * variable read at a func: entry or exit) take their owner's status, and
 * exits through the return address (PROBE_M_RETADDR) their entry's,
 * recorded at the entry's address.
 */
static void a64_module_riders(struct probe_area_hdr *h, struct probe_area_module *m,
			      struct probe_area_probe *ps, uint64_t base)
{
	uint32_t end = m->first_probe + m->nprobes;

	for (uint32_t k = m->first_probe; k < end; k++) {
		struct probe_area_probe *p = &ps[k];

		if (p->method != PROBE_M_RIDE || p->id > a64_probe_max_id)
			continue;
		p->status = PROBE_S_NO_PAGE;
		for (uint32_t o = m->first_probe; o < end; o++)
			if (ps[o].id == p->owner && ps[o].method == PROBE_M_JUMP) {
				p->status = ps[o].status;
				break;
			}
		p->runtime_addr = base + p->addr_off;
		p->runtime_patch = base + p->patch_off;
		a64_probe_addr[p->id] = p->runtime_addr;
		a64_probe_base[p->id] = base;
	}
	for (uint32_t k = m->first_probe; k < end; k++) {
		struct probe_area_probe *p = &ps[k];

		if (p->method != PROBE_M_RETADDR || p->id > a64_probe_max_id)
			continue;
		p->status = PROBE_S_NO_PAGE;
		for (uint32_t o = m->first_probe; o < end; o++)
			if (ps[o].ret_id == p->id && ps[o].method == PROBE_M_JUMP &&
			    ps[o].handler == PROBE_H_FUNC_ENTRY_RA && ps[o].id <= a64_probe_max_id) {
				p->status = ps[o].status;
				if (p->status == PROBE_S_PATCHED) {
					/* the key LR is signed with, above the id */
					a64_probe_ret[ps[o].id] =
					    p->id | (ps[o].flags & PROBE_F_A64_PAC_A ? 1u << 30 : 0) |
					    (ps[o].flags & PROBE_F_A64_PAC_B ? 2u << 30 : 0);
					h->patched++;
				}
				break;
			}
		p->runtime_addr = base + p->addr_off;
		p->runtime_patch = 0;
		a64_probe_addr[p->id] = p->runtime_addr;
		a64_probe_base[p->id] = base;
	}
}

/*
 * Place one module's trampolines and patch its probes (sorted by address).
 * One page within a branch's reach of them all when there is one (the
 * usual case: a module's code spans less than 128 MiB); else, from the
 * first probe none reaches, another page near that probe for the rest,
 * and so on: every probe gets a trampoline near it, however large the
 * module (a page's unused tail is left).
 */
static void a64_module(struct probe_area_hdr *h, struct probe_area_module *m,
		       struct probe_area_probe *ps)
{
	uint32_t i = m->first_probe, end = m->first_probe + m->nprobes, npages = 0;
	uint64_t base;

	if (!agent_probe_module_base(m->name, &base)) {
		agent_probe_module_status(m, ps, PROBE_S_NO_MODULE);
		agent_log("probe: module '%s' is not loaded", m->name);
		return;
	}
	m->base = base;
	m->status = 1;
	while (i < end) {
		uint64_t at = base + ps[i].patch_off;
		size_t rest = 0, size;
		uint8_t *page = NULL;
		uint32_t j = i;

		for (uint32_t k = i; k < end; k++)
			rest += A64_ALIGN(ps[k].code_len);
		size = (rest + agent_probe_pgsz() - 1) & ~(size_t)(agent_probe_pgsz() - 1);
		if (!size)
			break;
		if (i == m->first_probe && m->hi > m->lo)
			page = agent_probe_page(base + m->lo, base + m->hi, size);
		if (!page)
			page = agent_probe_page(at, at + 4, size);
		if (!page) {
			/* the space around the code is taken: BRK probes */
			agent_log("probe: no trampoline page within a branch's reach in '%s': "
				  "BRK probes",
				  m->name);
			for (; i < end; i++)
				if (ps[i].method == PROBE_M_JUMP && ps[i].id <= a64_probe_max_id &&
				    ps[i].patch_len == 4)
					a64_place_brk(h, ps, m->first_probe, end, &ps[i], base);
				else if (ps[i].method != PROBE_M_RIDE)
					ps[i].status = PROBE_S_NO_PAGE;
			break;
		}
		if (!npages++)
			m->page = (uint64_t)(uintptr_t)page;
		while (j < end && a64_reach(base + ps[j].patch_off, (uint64_t)(uintptr_t)page) &&
		       a64_reach(base + ps[j].patch_off, (uint64_t)(uintptr_t)page + size))
			j++;
		if (j == i)
			j = i + 1; /* cannot be: placed near it; its B says NO_PAGE if so */
		a64_place_run(h, ps, i, j, base, page, size, m->first_probe, end);
		i = j;
	}
	/* the BRK probes' slots made executable, then their BRKs written */
	a64_brk_flush(h);
	a64_module_riders(h, m, ps, base);
	if (npages > 1)
		agent_log("probe: '%s': trampolines in %u pages (its probes span more than a "
			  "branch reaches)",
			  m->name, npages);
}

/* ---- custom handlers: loading, faults ---- */

#define A64_NFAULT 4
static const int a64_fault_sigs[A64_NFAULT] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};
static struct sigaction a64_old_fault[A64_NFAULT];

/*
 * A fault signal: in a custom handler (the guard is set on this thread and
 * the kernel raised it), back to a64_probe_user_run; else the program's:
 * its handler from before ours runs, or, for the default action, that
 * action is put back and the faulting instruction runs again (a signal
 * sent by kill is raised again). Signal-safe.
 */
static void a64_on_fault(int sig, siginfo_t *si, void *uc)
{
	struct agent_probe_guard *g = agent_probe_guard_cur;
	int e = errno;

	if (g && si->si_code > 0) {
		agent_probe_guard_cur = NULL;
		g->sig = sig;
		siglongjmp(g->jb, 1);
	}
	/* Not a handler's: with the signal blocked in the program's view,
	 * held when sent, the default action for its own fault. */
	if (!a64_sig_blocked(sig, si, uc))
		for (unsigned i = 0; i < A64_NFAULT; i++)
			if (a64_fault_sigs[i] == sig)
				a64_sig_chain(&a64_old_fault[i], sig, si, uc);
	errno = e;
}

/* dlopen the --handler object and install the fault handlers: 0, or -1
 * with h->handler_error said (spool reports it; no probe is placed). */
static int a64_user_load(struct probe_area_hdr *h)
{
	struct sigaction sa;
	void *so;

	h->handler_path[sizeof(h->handler_path) - 1] = 0;
	so = dlopen(h->handler_path, RTLD_NOW | RTLD_LOCAL);
	if (!so) {
		const char *e = dlerror();

		snprintf(h->handler_error, sizeof(h->handler_error), "%s", e ? e : "dlopen failed");
		agent_log("probe: cannot load %s: %s", h->handler_path, h->handler_error);
		return -1;
	}
	agent_probe_user.pre = (void (*)(const struct spool_probe_ctx *))dlsym(so, "spool_probe_pre");
	agent_probe_user.post =
	    (void (*)(const struct spool_probe_ctx *))dlsym(so, "spool_probe_post");
	agent_probe_user.error =
	    (void (*)(const struct spool_probe_ctx *, int))dlsym(so, "spool_probe_error");
	if (!agent_probe_user.pre && !agent_probe_user.post) {
		snprintf(h->handler_error, sizeof(h->handler_error), "%s",
			 "exports neither spool_probe_pre nor spool_probe_post");
		return -1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = a64_on_fault;
	/* NODEFER: the guard leaves with siglongjmp, restoring no mask.
	 * ONSTACK: the program's alternate stack, for its own faults. */
	sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
	for (unsigned i = 0; i < A64_NFAULT; i++)
		if (sigaction(a64_fault_sigs[i], &sa, &a64_old_fault[i]))
			agent_log("probe: cannot install the fault handler of signal %d",
				  a64_fault_sigs[i]);
	a64_sig_fault_keep();
	h->handler_loaded = 1;
	return 0;
}

/*
 * Probe id's custom handler faulted (a64_probe_user_run, back from the
 * guard): run the error handler under its own guard, then remove the
 * probe: its custom handlers stop (a64_probe_off), and the trampoline's
 * word is the original instruction again (one aligned store, made
 * coherent: other threads run the original code from then on; one already
 * in the trampoline finishes there). A trampoline with several probes
 * (a function whose first instruction returns) goes as a whole.
 */
void a64_probe_fault(uint32_t id, const struct spool_probe_ctx *ctx, int sig)
{
	struct probe_area_hdr *h = __atomic_load_n(&a64_area, __ATOMIC_ACQUIRE);
	struct agent_thread *t = &agent_self;
	struct probe_area_probe *ps;
	uint8_t busy = t->busy;
	int esig;

	agent_log("probe %u: its handler faulted (signal %d): removing it", id, sig);
	if (a64_probe_off)
		__atomic_store_n(&a64_probe_off[id], 1, __ATOMIC_RELAXED);
	if (agent_probe_user.error) {
		t->busy = 1;
		esig = agent_probe_guard_call(NULL, agent_probe_user.error, ctx, sig);
		t->busy = busy;
		if (esig)
			agent_log("probe %u: the error handler faulted too (signal %d)", id, esig);
	}
	if (!h)
		return;
	ps = (void *)((char *)h + h->probes_off);
	while (__atomic_exchange_n(&a64_lock, 1, __ATOMIC_ACQUIRE))
		sched_yield();
	for (uint32_t i = 0; i < h->nprobes; i++) {
		struct probe_area_probe *p = &ps[i];
		uint32_t w;

		if (p->method != PROBE_M_JUMP || (p->id != id && p->shared_exit != id) ||
		    p->status != PROBE_S_PATCHED)
			continue;
		memcpy(&w, p->orig, 4);
		if (a64_poke(p->runtime_patch, w))
			continue;
		if (a64_probe_off) {
			__atomic_store_n(&a64_probe_off[p->id], 1, __ATOMIC_RELAXED);
			if (p->shared_exit <= a64_probe_max_id)
				__atomic_store_n(&a64_probe_off[p->shared_exit], 1,
						 __ATOMIC_RELAXED);
		}
		__atomic_store_n(&p->status, PROBE_S_REMOVED, __ATOMIC_RELEASE);
		__atomic_fetch_add(&h->removed, 1, __ATOMIC_RELAXED);
	}
	__atomic_store_n(&a64_lock, 0, __ATOMIC_RELEASE);
}

static struct probe_area_hdr *a64_find_area(void)
{
	uint64_t size;
	struct probe_area_hdr *h = agent_probe_area_find(&size);

	if (!h)
		return NULL;
	/* spool wrote it, but bounds are checked all the same */
	if (h->probes_off > size ||
	    h->nprobes > (size - h->probes_off) / sizeof(struct probe_area_probe) ||
	    h->modules_off > size ||
	    h->nmodules > (size - h->modules_off) / sizeof(struct probe_area_module) ||
	    h->relocs_off > size ||
	    h->nrelocs > (size - h->relocs_off) / sizeof(struct probe_area_reloc) ||
	    h->code_off > size || h->code_bytes > size - h->code_off ||
	    h->counts_off > size || h->ncounts > (size - h->counts_off) / 16 ||
	    h->vars_off > size ||
	    h->nvars > (size - h->vars_off) / sizeof(struct probe_area_var))
		return NULL;
	return h;
}

/*
 * Set up the tables of area h and place every module's probes: launch mode
 * writes each B and BRK as it goes; attach mode (a64_attach_defer) leaves
 * them to the commit. 0, or -errno when nothing could be placed (no memory
 * for the tables, or the --handler object did not load: spool says why).
 */
static int a64_setup(struct probe_area_hdr *h)
{
	struct probe_area_module *ms;
	struct probe_area_probe *ps;
	size_t tsize;
	int rc = 0;

	h->placed_pid = agent.pid;
	a64_probe_hdr = h;
	ms = (void *)((char *)h + h->modules_off);
	ps = (void *)((char *)h + h->probes_off);
	for (uint32_t i = 0; i < h->nprobes; i++) {
		if (ps[i].id > a64_probe_max_id)
			a64_probe_max_id = ps[i].id;
		if (ps[i].shared_exit > a64_probe_max_id)
			a64_probe_max_id = ps[i].shared_exit;
	}
	if (h->ncounts && h->ncounts - 1 > a64_probe_max_id && h->ncounts - 1 < (1u << 24))
		a64_probe_max_id = h->ncounts - 1;
	if (h->ncounts && h->counts_off) {
		a64_probe_counts = (uint64_t *)((char *)h + h->counts_off);
		a64_probe_ncounts = h->ncounts;
	}
	if (h->nvars && h->vars_off) {
		a64_probe_vars = (const struct probe_area_var *)((char *)h + h->vars_off);
		a64_probe_nvars = h->nvars;
	}
	if (a64_probe_max_id >= (1u << 24))
		a64_probe_max_id = (1u << 24) - 1;
	/* five tables by id: the probed address, the module's base, the
	 * trampoline (attach mode), the exit of a return-address entry,
	 * whether its custom handlers are off */
	tsize = (((size_t)a64_probe_max_id + 1) * (3 * sizeof(uint64_t) + sizeof(uint32_t) + 1) +
		 agent_probe_pgsz() - 1) &
		~(size_t)(agent_probe_pgsz() - 1);
	agent_self.busy++;
	a64_probe_addr =
	    agent_vm_map(tsize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a64_probe_addr == MAP_FAILED) {
		a64_probe_addr = NULL;
		agent_log("probe: no memory for the probe table");
		agent_self.busy--;
		return -ENOMEM;
	}
	a64_probe_base = a64_probe_addr + a64_probe_max_id + 1;
	a64_probe_tramp = a64_probe_base + a64_probe_max_id + 1;
	a64_probe_ret = (uint32_t *)(a64_probe_tramp + a64_probe_max_id + 1);
	a64_probe_off = (uint8_t *)(a64_probe_ret + a64_probe_max_id + 1);
	if (h->handler_path[0] && a64_user_load(h)) {
		/* the object did not load: nothing placed (spool says why) */
		rc = -ENOEXEC;
		goto out;
	}
	for (uint32_t i = 0; i < h->nmodules; i++) {
		if (!ms[i].nprobes)
			continue;
		if (ms[i].first_probe > h->nprobes || ms[i].nprobes > h->nprobes - ms[i].first_probe)
			continue;
		a64_module(h, &ms[i], ps);
	}
	__atomic_store_n(&a64_area, h, __ATOMIC_RELEASE);
out:
	agent_self.busy--;
	return rc;
}

void agent_probe_init(void)
{
	struct probe_area_hdr *h = a64_find_area();

	if (!h || h->attach)
		return;
	if (h->done) {
		/* an image exec'd after the probes were placed: its code is
		 * not what they were planned for (spool says so) */
		__atomic_fetch_add(&h->execs_unprobed, 1, __ATOMIC_RELAXED);
		return;
	}
	a64_setup(h);
	__atomic_store_n(&h->done, 1, __ATOMIC_RELEASE);
	agent_log("probe: %u of %u probes patched", h->patched, h->nprobes);
}

/*
 * A dlopen returned: place the probes of the modules that were not loaded
 * at startup (or at an earlier dlopen). Other threads may run, but none has
 * run the new module's code yet (its constructors ran on this thread), and
 * each patch is one aligned word made coherent (DC CVAU, IC IVAU: broadcast
 * to every core) before dlopen returns the module to the program. Two
 * dlopens at once take turns on the lock. Not a hot path: dlopen is rare.
 */
void agent_probe_dlopen(void)
{
	struct probe_area_hdr *h = __atomic_load_n(&a64_area, __ATOMIC_ACQUIRE);
	struct probe_area_module *ms;
	struct probe_area_probe *ps;

	if (!h || h->placed_pid != agent.pid)
		return;
	ms = (void *)((char *)h + h->modules_off);
	ps = (void *)((char *)h + h->probes_off);
	agent_self.busy++;
	while (__atomic_exchange_n(&a64_lock, 1, __ATOMIC_ACQUIRE))
		sched_yield();
	for (uint32_t i = 0; i < h->nmodules; i++) {
		uint64_t base;

		if (ms[i].status || !ms[i].nprobes || ms[i].first_probe > h->nprobes ||
		    ms[i].nprobes > h->nprobes - ms[i].first_probe)
			continue;
		if (agent_probe_module_base(ms[i].name, &base)) {
			a64_module(h, &ms[i], ps);
			agent_log("probe: %s loaded: its probes placed", ms[i].name);
		}
	}
	__atomic_store_n(&a64_lock, 0, __ATOMIC_RELEASE);
	agent_self.busy--;
}

/* ---- attach mode (spool probe -p): every thread is stopped by spool ---- */

/*
 * Map spool's shared memory (shm: /proc/SPOOLPID/fd/N), start recording
 * and place the trampolines and BRK slots, writing nothing into the
 * program's code: spool reads which probes are ready (PROBE_S_READY; a BRK
 * one flagged PROBE_F_A64_BRK) and calls the commit. -EBUSY: the agent is
 * recording already (preloaded, or attached before).
 */
AGENT_EXPORT int spool_agent_probe_prepare(const char *shm)
{
	struct probe_area_hdr *h;
	int fd, rc;

	if (agent.ctl)
		return -EBUSY;
	fd = open(shm, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* kept open (close-on-exec): rings are mapped from it as threads
	 * claim them */
	rc = agent_map(fd);
	if (rc) {
		close(fd);
		return rc;
	}
	agent_shm_fd = fd;
	h = a64_find_area();
	if (!h || !h->attach)
		return -EPROTO;
	agent_thread_init();
	agent_proc_claim(0);
	agent.active = 1;
	a64_attach_defer = 1;
	rc = a64_setup(h);
	a64_attach_defer = 0;
	return rc;
}

/*
 * Write the B of every ready jump probe and the BRK of every ready BRK
 * probe (spool has set PROBE_S_NO_TRAP on those a thread blocking SIGTRAP
 * would die of), then the probes that patch nothing take their owner's
 * status. Each word is one aligned store made coherent; no thread runs.
 * Returns the probes patched.
 */
AGENT_EXPORT int spool_agent_probe_commit(void)
{
	struct probe_area_hdr *h = __atomic_load_n(&a64_area, __ATOMIC_ACQUIRE);
	struct probe_area_module *ms;
	struct probe_area_probe *ps;

	if (!h)
		return -EPROTO;
	ms = (void *)((char *)h + h->modules_off);
	ps = (void *)((char *)h + h->probes_off);
	agent_self.busy++;
	for (uint32_t i = 0; i < h->nprobes; i++) {
		struct probe_area_probe *p = &ps[i];
		uint64_t at = p->runtime_patch, tramp;
		uint32_t w;

		if (p->method != PROBE_M_JUMP || p->status != PROBE_S_READY ||
		    (p->flags & PROBE_F_A64_BRK) || p->id > a64_probe_max_id)
			continue;
		tramp = a64_probe_tramp[p->id];
		if (!tramp || !a64_reach(at, tramp) || memcmp((void *)(uintptr_t)at, p->orig, 4)) {
			p->status = PROBE_S_MISMATCH;
			continue;
		}
		w = A64_B_OP | ((uint32_t)((tramp - at) >> 2) & 0x03ffffffu);
		if (a64_poke(at, w)) {
			p->status = PROBE_S_PROTECT;
			continue;
		}
		p->status = PROBE_S_PATCHED;
		h->patched++;
	}
	a64_brk_commit(h);
	/* clone's GOT slots, and with BRK probes in the signal calls': the
	 * program's later pthread_sigmask or sigaction must not block or take
	 * SIGTRAP for real (agent_probe_got.c), or its next BRK hit would end
	 * it */
	agent_probe_got_redirect();
	for (uint32_t i = 0; i < h->nmodules; i++)
		if (ms[i].status && ms[i].nprobes && ms[i].first_probe <= h->nprobes &&
		    ms[i].nprobes <= h->nprobes - ms[i].first_probe)
			a64_module_riders(h, &ms[i], ps, ms[i].base);
	agent_self.busy--;
	__atomic_store_n(&h->done, 1, __ATOMIC_RELEASE);
	agent_log("probe: attached, %u of %u probes patched", h->patched, h->nprobes);
	return (int)h->patched;
}

/*
 * Put every original word back (the B and BRK of each patched probe) and
 * stop recording: the first stop of spool's detach. The trampolines, BRK
 * slots and rings stay mapped: a thread stopped inside a trampoline
 * finishes there and branches back to the code. SIGTRAP's handler and the
 * GOT slots of the signal calls stay too, until spool_agent_probe_release:
 * a thread stopped inside the BRK handler returns to an out-of-line slot
 * whose `BRK #0x5a2` needs it; one stopped on a slot's BRK, or with the
 * trap of a BRK it hit just before the stop still pending in the kernel,
 * traps once more when it runs. Given back here, SIGTRAP ended such a
 * thread's process by the default action (exit 133, 2 detaches in 5:
 * tests/arm64/283). The GOT slots stay so that no thread blocks SIGTRAP for
 * real meanwhile (a blocked trap kills as well). Returns the probes
 * restored.
 */
AGENT_EXPORT int spool_agent_probe_detach(void)
{
	struct probe_area_hdr *h = __atomic_load_n(&a64_area, __ATOMIC_ACQUIRE);
	struct probe_area_probe *ps;
	uint32_t n = 0, left = 0;

	if (!h)
		return -EPROTO;
	ps = (void *)((char *)h + h->probes_off);
	agent_self.busy++;
	while (__atomic_exchange_n(&a64_lock, 1, __ATOMIC_ACQUIRE))
		sched_yield();
	for (uint32_t i = 0; i < h->nprobes; i++) {
		struct probe_area_probe *p = &ps[i];
		uint32_t w;

		if (p->status != PROBE_S_PATCHED)
			continue;
		if (p->method == PROBE_M_JUMP) {
			memcpy(&w, p->orig, 4);
			if (a64_poke(p->runtime_patch, w)) {
				left++;
				continue;
			}
		}
		__atomic_store_n(&p->status, PROBE_S_RESTORED, __ATOMIC_RELEASE);
		n++;
	}
	__atomic_store_n(&a64_lock, 0, __ATOMIC_RELEASE);
	if (!left)
		/* no entry swaps LR any more (a frame swapped before returns
		 * through the trampoline, which stays) */
		memset(a64_probe_ret, 0, ((size_t)a64_probe_max_id + 1) * sizeof(*a64_probe_ret));
	a64_words_left = left;
	agent_self.busy--;
	/* Stop recording. The rings stay mapped: a thread stopped inside a
	 * handler finishes its record, and the collector drains them last. */
	agent.active = 0;
	a64_detached = 1;
	__atomic_store_n(&h->detached, 1, __ATOMIC_RELEASE);
	return (int)n;
}

/*
 * The second stop of spool's detach, every thread stopped again after the
 * program ran on: SIGTRAP's disposition and the GOT slots of the signal
 * calls are the program's again, and the threads that blocked SIGTRAP
 * meanwhile are named in the area (spool blocks it for real in them). Not
 * while a BRK handler of ours is running in a thread (a64_brk_busy:
 * -EBUSY, spool lets the program run a little and asks again) nor when a
 * word could not be put back (-ENOTRECOVERABLE: its BRK may trap, the
 * handler stays for good). Spool checks the rest in each thread's
 * registers first (a pc on a slot or a BRK of ours, a SIGTRAP pending).
 * 0 when done (again: 0), -EPROTO before the detach.
 */
AGENT_EXPORT int spool_agent_probe_release(void)
{
	struct probe_area_hdr *h = __atomic_load_n(&a64_area, __ATOMIC_ACQUIRE);

	if (!h || !a64_detached)
		return -EPROTO;
	if (a64_released)
		return 0;
	if (a64_words_left)
		return -ENOTRECOVERABLE;
	if (a64_brk_busy())
		return -EBUSY;
	agent_self.busy++;
	h->trap_views = agent_probe_got_views(h->trap_view_tid, PROBE_TRAP_VIEWS);
	agent_probe_got_restore();
	a64_brk_detach(); /* SIGTRAP the program's again */
	a64_released = 1;
	agent_self.busy--;
	return 0;
}

AGENT_EXPORT int spool_agent_probe_ctl(const char *cmd)
{
	return -ENOTSUP;
}

