// SPDX-License-Identifier: MIT
/*
 * a64_agent_brk.c - the aarch64 probes that cannot be a branch: no page for
 * their trampoline within a `B`'s +-128 MiB (the address space around the
 * code is taken), or a relocated branch of the trampoline that would not
 * reach back. The probed word becomes `BRK #0x5a1` (one aligned store, as
 * a `B` is); its SIGTRAP runs the calls the trampoline would have made, in
 * its order, on the registers of the signal frame, then the probed
 * instruction:
 *   - a PC-relative one (B, BL, B.cond, CBZ/CBNZ, TBZ/TBNZ, ADR, ADRP,
 *     LDR/LDRSW literal, SIMD LDR literal, PRFM literal) is emulated on the
 *     frame: its result written, pc set to its target or the next word;
 *   - any other runs out of line: a slot anywhere in memory holds the word
 *     and `BRK #0x5a2`, whose trap sends pc back to the word after the
 *     probe (no branch: nothing has to reach).
 * A disabled call (--disabled: its first word a B in the planned code) is
 * skipped, as in the trampoline.
 *
 * The table is append-only (entries written before the count that
 * publishes them), read without a lock by the trap handler: placing is
 * before main with one thread, at a dlopen under a64_lock, or in attach
 * mode with every thread stopped by spool (the BRKs then written by
 * a64_brk_commit, at spool's commit). The
 * program's own SIGTRAP handler and masks are kept apart (a64_agent_sig.c):
 * a SIGTRAP that is not a probe's goes to the program's disposition, and
 * SIGTRAP is never really blocked while BRK probes are in.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include "../../agent/agent.h"
#include "../../agent/agent_probe.h"
#include "a64_agent_probe.h"

#define A64_BRK_PROBE (0xd4200000u | 0x5a1u << 5)
#define A64_BRK_BACK (0xd4200000u | 0x5a2u << 5)
#define A64_FPSIMD_MAGIC 0x46508001u
#define A64_SVE_MAGIC 0x53564501u

typedef void (*a64_fn)(uint32_t id, struct a64_probe_regs *regs, uint64_t sp, uint32_t arg);

struct a64_brk {
	uint64_t addr;	 /* the probed word */
	uint32_t w;	 /* its instruction */
	uint32_t ncalls;
	uint32_t *ool;	 /* out of line: w, BRK #0x5a2, this entry's index (NULL: emulated) */
	struct probe_area_probe *p; /* its probe (status written when the BRK is) */
	struct {
		uint32_t id, arg;
		a64_fn fn;
	} calls[A64_CALLS_MAX];
};

/*
 * The table, and an open-addressing index of it by address (index + 1, 0
 * empty; twice the capacity, a power of two), for the trap handler: a
 * function's entry and every exit of every probed function can be BRKs
 * (func:* on a program of 500 functions, 1,000 and more).
 */
static struct a64_brk *a64_brks;
static uint32_t a64_nbrks, a64_brk_cap;
static uint32_t *a64_brk_index;
static uint32_t a64_brk_mask;
/*
 * Out-of-line slots share pages: A64_SLOT_WORDS words each (the word,
 * `BRK #0x5a2`, the entry's index, padding), filled in the open page
 * (read-write) while a module's probes are placed; a64_brk_flush makes it
 * executable, then writes the BRKs of the probes placed since (a BRK is
 * written only once its slot can run). The next module's slots go on in
 * a new page (a sealed page is never written again: another thread may be
 * running in it). a64_brk_from: the first entry whose BRK is not written.
 */
#define A64_SLOT_WORDS 4u
static uint32_t *a64_slot_page;
static size_t a64_slot_used, a64_slot_cap; /* in slots */
static uint32_t a64_brk_from;
static uint32_t a64_slot_pages, a64_slots;
/*
 * Handlers of ours running (a64_brk_trap, any thread, nested ones counted
 * each): one may have set its frame's pc to an out-of-line slot, whose
 * `BRK #0x5a2` must find this handler still installed, or the kernel's
 * default action for SIGTRAP ends the process. Counted from the handler's
 * first instruction to its last (not in a call of the program's own
 * SIGTRAP handler, which returns to the program's code); spool sees the
 * rest (the first and last instructions, the kernel's sigreturn
 * trampoline) in the thread's pc. Read by spool_agent_probe_release with
 * every other thread stopped.
 */
static uint32_t a64_brk_inflight;

static uint32_t a64_brk_hash(uint64_t addr)
{
	return (uint32_t)((addr >> 2) * 0x9e3779b97f4a7c15ull >> 32) & a64_brk_mask;
}

/* The entry of the BRK probe at addr among the first n, or NULL. */
static const struct a64_brk *a64_brk_find(uint64_t addr, uint32_t n)
{
	if (!a64_brk_index)
		return NULL;
	for (uint32_t k = a64_brk_hash(addr), i = 0; i <= a64_brk_mask;
	     k = (k + 1) & a64_brk_mask, i++) {
		uint32_t v = __atomic_load_n(&a64_brk_index[k], __ATOMIC_ACQUIRE);

		if (!v)
			return NULL;
		if (v - 1 < n && a64_brks[v - 1].addr == addr)
			return &a64_brks[v - 1];
	}
	return NULL;
}

/* The frame's record `magic` of at least min bytes, or NULL. */
static struct _aarch64_ctx *a64_record(ucontext_t *uc, uint32_t magic, size_t min)
{
	uint8_t *p = (uint8_t *)uc->uc_mcontext.__reserved;
	uint8_t *end = p + sizeof(uc->uc_mcontext.__reserved);

	while (p + sizeof(struct _aarch64_ctx) <= end) {
		struct _aarch64_ctx *c = (struct _aarch64_ctx *)p;

		if (!c->magic || c->size < sizeof(*c) || c->size > (size_t)(end - p))
			return NULL;
		if (c->magic == magic && c->size >= min)
			return c;
		p += c->size;
	}
	return NULL;
}

/* The frame's vector registers (the fpsimd record), or NULL. */
static struct fpsimd_context *a64_fpsimd(ucontext_t *uc)
{
	return (struct fpsimd_context *)a64_record(uc, A64_FPSIMD_MAGIC,
						    sizeof(struct fpsimd_context));
}

/*
 * Write V[rt] (16 bytes, v) into the frame: the fpsimd record, and, when
 * the frame also holds the SVE registers (an SVE record with a payload:
 * sigreturn then restores Z from it, not V from fpsimd, as qemu-user's
 * "max" cpu does), the low 16 bytes of Z[rt], its upper bytes cleared as
 * a SIMD load clears them.
 */
static void a64_set_vreg(ucontext_t *uc, struct fpsimd_context *fp, unsigned rt, __uint128_t v)
{
	struct _aarch64_ctx *sve = a64_record(uc, A64_SVE_MAGIC, 16);

	if (fp)
		fp->vregs[rt] = v;
	if (sve) {
		uint16_t vl;
		size_t vq, at;

		memcpy(&vl, (uint8_t *)sve + 8, 2);
		vq = vl / 16;
		at = 16 + (size_t)rt * vq * 16; /* SVE_SIG_ZREG_OFFSET */
		if (vq && sve->size >= 16 + 32 * vq * 16) {
			memset((uint8_t *)sve + at, 0, vq * 16);
			memcpy((uint8_t *)sve + at, &v, 16);
		}
	}
}

/* Run the probed instruction w of e on the frame: emulated, or out of line. */
static void a64_brk_step(const struct a64_brk *e, ucontext_t *uc, struct fpsimd_context *fp)
{
	mcontext_t *mc = &uc->uc_mcontext;
	uint32_t w = e->w;
	unsigned rt = w & 31;
	uint64_t t, *x = (uint64_t *)mc->regs;
	int taken;

	switch (a64_class(w, e->addr, &t)) {
	case A64_B:
		mc->pc = t;
		return;
	case A64_BL:
		x[30] = e->addr + 4;
		mc->pc = t;
		return;
	case A64_BCOND:
	case A64_CBZ:
	case A64_TBZ:
		taken = a64_branch_taken(w, x, mc->pstate);
		mc->pc = taken > 0 ? t : e->addr + 4;
		return;
	case A64_ADR:
	case A64_ADRP:
		if (rt != 31)
			x[rt] = t;
		break;
	case A64_LDR_LIT:
		if (rt == 31)
			break;
		if ((w >> 30) == 0)
			x[rt] = *(const volatile uint32_t *)t;
		else if ((w >> 30) == 1)
			x[rt] = *(const volatile uint64_t *)t;
		else
			x[rt] = (uint64_t)(int64_t)*(const volatile int32_t *)t;
		break;
	case A64_LDR_LIT_SIMD: {
		__uint128_t v = 0;

		memcpy(&v, (const void *)t, (w >> 30) == 0 ? 4 : (w >> 30) == 1 ? 8 : 16);
		a64_set_vreg(uc, fp, rt, v);
		break;
	}
	case A64_PRFM_LIT:
		break;
	default:
		mc->pc = (uint64_t)(uintptr_t)e->ool;
		return;
	}
	mc->pc = e->addr + 4;
}

/* SIGTRAP: one of our BRKs, else the program's (a64_sig_trap_other: its
 * handler, or the default action put back and the BRK run again). */
static void a64_brk_trap(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	uint64_t pc = uc->uc_mcontext.pc;
	uint32_t n, w = 0;
	const struct a64_brk *b;
	int e = errno;

	__atomic_fetch_add(&a64_brk_inflight, 1, __ATOMIC_SEQ_CST);
	n = __atomic_load_n(&a64_nbrks, __ATOMIC_ACQUIRE);
	if (si->si_code > 0 && !(pc & 3))
		w = *(const volatile uint32_t *)pc;
	b = w == A64_BRK_PROBE ? a64_brk_find(pc, n) : NULL;
	if (b) {
		struct fpsimd_context *fp = a64_fpsimd(uc);
		struct a64_probe_regs r;

		memcpy(r.x, uc->uc_mcontext.regs, sizeof(r.x));
		r.nzcv = uc->uc_mcontext.pstate & 0xf0000000u;
		if (fp)
			memcpy(r.q, fp->vregs, sizeof(r.q));
		else
			memset(r.q, 0, sizeof(r.q));
		for (uint32_t k = 0; k < b->ncalls; k++)
			b->calls[k].fn(b->calls[k].id, &r, uc->uc_mcontext.sp, b->calls[k].arg);
		/* LR as a return-address entry left it (a64_probe_entry_ra) */
		uc->uc_mcontext.regs[30] = r.x[30];
		a64_brk_step(b, uc, fp);
		goto out;
	}
	if (w == A64_BRK_BACK) {
		/* a slot's BRK: the entry's index is the word after it */
		uint32_t i = *(const volatile uint32_t *)(pc + 4);

		if (i < n && (uint64_t)(uintptr_t)(a64_brks[i].ool + 1) == pc) {
			uc->uc_mcontext.pc = a64_brks[i].addr + 4;
			goto out;
		}
	}
	/* Our BRK, put back meanwhile (its handler faulted, a64_probe_fault;
	 * or spool's detach, the trap pending from before its stop): the
	 * original word runs when this returns. */
	if (si->si_code > 0 && w != A64_BRK_PROBE && a64_brk_find(pc, n))
		goto out;
	__atomic_fetch_sub(&a64_brk_inflight, 1, __ATOMIC_SEQ_CST);
	a64_sig_trap_other(si, ucv);
	errno = e;
	return;
out:
	__atomic_fetch_sub(&a64_brk_inflight, 1, __ATOMIC_SEQ_CST);
	errno = e;
}

/* Is call `id` of p's planned trampoline skipped (--disabled)? */
static int a64_brk_call_off(const struct probe_area_hdr *h, const struct probe_area_probe *p,
			    unsigned k)
{
	const uint8_t *code = (const uint8_t *)h + h->code_off + p->code_off;
	uint32_t w;

	if ((uint32_t)p->skip_at[k] + 4 > p->code_len)
		return 0;
	memcpy(&w, code + p->skip_at[k], 4);
	return (w & 0xfc000000u) == A64_B_OP;
}

/* The standard handler of probe id (p, its shared exit, a rider of it). */
static uint32_t a64_brk_handler_of(const struct probe_area_probe *ps, uint32_t first,
				   uint32_t end, const struct probe_area_probe *p, uint32_t id)
{
	if (id == p->id)
		return p->handler;
	if (id == p->shared_exit)
		return PROBE_H_FUNC_EXIT;
	for (uint32_t i = first; i < end; i++)
		if (ps[i].id == id && ps[i].method == PROBE_M_RIDE && ps[i].owner == p->id)
			return ps[i].handler;
	return 0;
}

/* A slot in the open page (a new page when it is full or sealed), or
 * NULL. */
static uint32_t *a64_slot_take(struct probe_area_hdr *h)
{
	size_t pg = agent_probe_pgsz();

	if (a64_slot_page && a64_slot_used == a64_slot_cap)
		a64_brk_flush(h);
	if (!a64_slot_page) {
		a64_slot_page =
		    agent_vm_map(pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (a64_slot_page == MAP_FAILED) {
			a64_slot_page = NULL;
			return NULL;
		}
		a64_slot_used = 0;
		a64_slot_cap = pg / (A64_SLOT_WORDS * 4);
		a64_slot_pages++;
	}
	a64_slots++;
	return a64_slot_page + A64_SLOT_WORDS * a64_slot_used++;
}

int a64_brk_place(struct probe_area_hdr *h, struct probe_area_probe *ps, uint32_t first,
		  uint32_t end, struct probe_area_probe *p, uint64_t base,
		  uint64_t (*handler)(uint64_t))
{
	uint64_t at = base + p->patch_off, t;
	struct a64_brk *b;
	size_t pg = agent_probe_pgsz();
	uint32_t k;

	if (memcmp((void *)(uintptr_t)at, p->orig, 4))
		return PROBE_S_MISMATCH;
	if (!a64_brks) {
		uint32_t slots = 2;
		size_t tsz, isz;

		while (slots < 2 * (uint64_t)h->nprobes && slots < (1u << 30))
			slots <<= 1;
		tsz = ((size_t)h->nprobes * sizeof(*b) + pg - 1) & ~(pg - 1);
		isz = ((size_t)slots * 4 + pg - 1) & ~(pg - 1);
		a64_brks = agent_vm_map(tsz + isz, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (a64_brks == MAP_FAILED) {
			a64_brks = NULL;
			return PROBE_S_NO_PAGE;
		}
		a64_brk_index = (uint32_t *)((char *)a64_brks + tsz);
		a64_brk_mask = slots - 1;
		a64_brk_cap = h->nprobes < slots / 2 ? h->nprobes : slots / 2;
	}
	if (a64_nbrks >= a64_brk_cap || a64_brk_find(at, a64_nbrks))
		return PROBE_S_NO_PAGE;
	if (a64_sig_trap_install(a64_brk_trap))
		return PROBE_S_NO_TRAP;
	b = &a64_brks[a64_nbrks];
	memset(b, 0, sizeof(*b));
	b->addr = at;
	b->p = p;
	memcpy(&b->w, p->orig, 4);
	/* the calls, in the trampoline's order (its skip slots), else the
	 * probe's own and its shared exit's */
	for (k = 0; k < PROBE_SKIPS && p->skip_id[k]; k++) {
		uint32_t hd = a64_brk_handler_of(ps, first, end, p, p->skip_id[k]);

		if (!hd || a64_brk_call_off(h, p, k) || b->ncalls >= A64_CALLS_MAX)
			continue;
		b->calls[b->ncalls].id = p->skip_id[k];
		b->calls[b->ncalls].arg = hd == PROBE_H_BRANCH ? b->w : 0;
		b->calls[b->ncalls].fn = (a64_fn)(uintptr_t)handler(hd);
		if (b->calls[b->ncalls].fn)
			b->ncalls++;
	}
	if (!p->skip_id[0]) {
		b->calls[0].id = p->id;
		b->calls[0].arg = p->handler == PROBE_H_BRANCH ? b->w : 0;
		b->calls[0].fn = (a64_fn)(uintptr_t)handler(p->handler);
		b->ncalls = b->calls[0].fn ? 1 : 0;
		if (p->shared_exit) {
			b->calls[b->ncalls].id = p->shared_exit;
			b->calls[b->ncalls].fn = (a64_fn)(uintptr_t)handler(PROBE_H_FUNC_EXIT);
			b->ncalls += b->calls[b->ncalls].fn != NULL;
		}
	}
	switch (a64_class(b->w, at, &t)) {
	case A64_B:
	case A64_BL:
	case A64_BCOND:
	case A64_CBZ:
	case A64_TBZ:
	case A64_ADR:
	case A64_ADRP:
	case A64_LDR_LIT:
	case A64_LDR_LIT_SIMD:
	case A64_PRFM_LIT:
		break; /* emulated on the frame (a64_brk_step): no slot */
	default:
		b->ool = a64_slot_take(h);
		if (!b->ool)
			return PROBE_S_NO_PAGE;
		b->ool[0] = b->w;
		b->ool[1] = A64_BRK_BACK;
		b->ool[2] = a64_nbrks;
		b->ool[3] = 0;
	}
	__atomic_store_n(&a64_nbrks, a64_nbrks + 1, __ATOMIC_RELEASE);
	for (k = a64_brk_hash(at); a64_brk_index[k]; k = (k + 1) & a64_brk_mask)
		;
	__atomic_store_n(&a64_brk_index[k], a64_nbrks, __ATOMIC_RELEASE);
	if (a64_attach_defer)
		p->flags |= PROBE_F_A64_BRK; /* spool: an int3 probe */
	return PROBE_S_READY;
}

/*
 * Seal the open slot page (coherent, then executable) and write the BRKs
 * of the entries placed since the last flush: their probes' status
 * PROBE_S_PATCHED (h->patched counted), or why not. One thread places
 * (before main, or a dlopen under a64_lock).
 */
void a64_brk_flush(struct probe_area_hdr *h)
{
	uint32_t n = a64_nbrks, sealed = 1;

	if (a64_slot_page && a64_slot_used) {
		__builtin___clear_cache((char *)a64_slot_page,
					(char *)(a64_slot_page + A64_SLOT_WORDS * a64_slot_used));
		sealed = !mprotect(a64_slot_page, agent_probe_pgsz(), PROT_READ | PROT_EXEC);
		a64_slot_page = NULL; /* never written again */
	}
	if (a64_attach_defer) {
		/* attach mode: the slots are sealed now (a failure says so by
		 * status), the BRKs written at commit (a64_brk_commit) */
		for (uint32_t i = a64_brk_from; i < n; i++)
			if (a64_brks[i].ool && !sealed)
				a64_brks[i].p->status = PROBE_S_PROTECT;
		a64_brk_from = n;
		return;
	}
	for (uint32_t i = a64_brk_from; i < n; i++) {
		struct a64_brk *b = &a64_brks[i];
		struct probe_area_probe *p = b->p;

		if (b->ool && !sealed)
			p->status = PROBE_S_PROTECT;
		else if (a64_poke(b->addr, A64_BRK_PROBE))
			p->status = PROBE_S_PROTECT;
		else {
			p->status = PROBE_S_PATCHED;
			h->patched++;
			agent_log("probe %u: a BRK at 0x%llx (no branch reaches a trampoline)",
				  p->id, (unsigned long long)b->addr);
		}
	}
	if (n > a64_brk_from)
		agent_log("probe: %u BRK probes, %u of them with an out-of-line slot, in %u "
			  "page(s) so far",
			  n, a64_slots, a64_slot_pages);
	a64_brk_from = n;
}

/*
 * Attach mode, spool's commit (every thread stopped): the BRK of each entry
 * whose probe is still PROBE_S_READY (spool set PROBE_S_NO_TRAP on those
 * a thread blocking SIGTRAP would die of). Returns the BRKs written.
 */
uint32_t a64_brk_commit(struct probe_area_hdr *h)
{
	uint32_t n = __atomic_load_n(&a64_nbrks, __ATOMIC_ACQUIRE), done = 0;

	for (uint32_t i = 0; i < n; i++) {
		struct a64_brk *b = &a64_brks[i];
		struct probe_area_probe *p = b->p;

		if (__atomic_load_n(&p->status, __ATOMIC_ACQUIRE) != PROBE_S_READY)
			continue;
		if (a64_poke(b->addr, A64_BRK_PROBE)) {
			p->status = PROBE_S_PROTECT;
			continue;
		}
		p->status = PROBE_S_PATCHED;
		h->patched++;
		done++;
	}
	if (done)
		agent_log("probe: %u BRK probes written at the commit", done);
	return done;
}

uint32_t a64_brk_busy(void)
{
	return __atomic_load_n(&a64_brk_inflight, __ATOMIC_SEQ_CST);
}

void a64_brk_detach(void)
{
	/* spool's release: every BRK word was put back at the detach's first
	 * stop, the program ran on with this handler until no thread was in
	 * it, in a slot or with a trap pending (spool checks at its second
	 * stop): no trap of ours comes after this */
	a64_sig_trap_uninstall(a64_brk_trap);
}
