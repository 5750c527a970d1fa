// SPDX-License-Identifier: MIT
/*
 * agent_probe.c - the runtime half of dynamic probes (spool probe): place
 * the trampolines spool built (src/probe/probe_abi.h) near each module,
 * patch the probed code, take int3 hits, absorb faults of custom handlers
 * and remove probes. The handlers a hit runs are in agent_probe_hot.c.
 *
 * When: launch mode, in the constructor before main, when the process has
 * one thread (agent_probe_init). Attach mode (spool probe -p), when spool
 * has stopped every thread with ptrace and calls the exported entry points
 * below in the target: prepare (map spool's memory, place the trampolines),
 * commit (write the patches: spool has checked that no thread is inside a
 * patched range), detach (restore every original byte). Launch mode, a
 * library loaded later with dlopen: its probes are in the area from the
 * start (spool found the file on disk); the thread whose dlopen loaded it
 * places them right after (agent_probe_dlopen), while other threads run.
 *
 * Jump probes: the trampoline (spool's code, relocated here with the
 * module's load bias and the page's address) saves the caller-saved general
 * registers, calls a handler, restores them and runs the displaced
 * instructions.
 *
 * int3 probes: a SIGTRAP handler finds the probe by address, runs the same
 * handler with registers from the signal context, and resumes at the
 * probe's out-of-line slot, which runs the displaced instruction and jumps
 * back: the original instruction runs exactly once per hit. An int3 that is
 * no longer in the text when its signal arrives was one of ours, removed
 * meanwhile: the thread re-executes the restored instruction. A SIGTRAP that
 * is not ours goes to the program's handler (the one installed before
 * ours, or one it installed since), or, if that is the default,
 * re-executes with the default action. The program's later sigaction and
 * signal calls for SIGTRAP do not replace ours: the sigaction interposer
 * (agent_rr_signal.c) hands them to agent_probe_sigtrap, which keeps the
 * new disposition as the one to chain to and reports it back as the old
 * action, as if it had been installed.
 *
 * Removing a probe while other threads run (a custom handler faulted): the
 * first byte becomes int3, then the rest of the original bytes are written,
 * then the first byte, each step followed by a core serialization of every
 * thread (membarrier) when the kernel has it. A thread that reaches the
 * probe meanwhile either jumps to the trampoline (which stays mapped
 * forever, and whose handler no longer runs), traps on the int3 and
 * retries, or runs the original code.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <linux/membarrier.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "agent.h"
#include "agent_probe.h"
#include "agent_sys.h"
#include "agent_rr_dispatch.h"
#include "agent_sigshim.h"
#include "agent_sigview.h"

struct agent_probe_rt *agent_probe_by_id;
uint32_t agent_probe_max_id;
struct agent_probe_user agent_probe_user;

struct probe_area_hdr *agent_probe_area;
const agent_probe_fn *agent_probe_table = agent_probe_handlers;
/* int3 probes: [0] = how many, then their ids sorted by address. Replaced
 * whole (a new copy, published with a release store) when a dlopen adds
 * some, because the SIGTRAP handler reads it without a lock. */
static uint32_t *agent_probe_traps;
static uint8_t *agent_probe_mod_seen; /* per module: this process looked for it */
/* Launch mode, the startup patching is over: later dlopens are followed.
 * (The --handler object is dlopened during it, through our own dlopen.) */
static int agent_probe_follow;
static int agent_probe_lock;	      /* text writes and removals */
static uint64_t agent_probe_poking;   /* first byte of the code being rewritten, or 0 */
static int agent_probe_membarrier;    /* 1 registered, -1 unavailable */
/* The fault signals custom handlers are guarded against, and the
 * program's actions for them (chained to). */
static const int agent_probe_fault_sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};
#define AGENT_PROBE_NFAULT (sizeof(agent_probe_fault_sigs) / sizeof(agent_probe_fault_sigs[0]))
static struct sigaction agent_probe_old_fault[AGENT_PROBE_NFAULT];
static int (*agent_probe_real_sigaction)(int, const struct sigaction *, struct sigaction *);

/* ---- signal chaining ---- */

/* Give a signal that is not ours to the handler installed before ours. A
 * default action is taken by reinstalling it: a fault re-executes and
 * takes it; a sent signal is sent again. */
static void agent_probe_chain(const struct sigaction *o, int sig, siginfo_t *si, void *uc)
{
	if (o->sa_flags & SA_SIGINFO) {
		if (o->sa_sigaction) {
			o->sa_sigaction(sig, si, uc);
			return;
		}
	} else if (o->sa_handler == SIG_IGN) {
		return;
	} else if (o->sa_handler != SIG_DFL) {
		o->sa_handler(sig);
		return;
	}
	if (sig == SIGTRAP && agent_probe_real_sigaction) {
		/* Not through our interposer; ours is gone from here on. */
		agent_sigview_unkeep(AGENT_SIG_BIT(SIGTRAP));
		agent_probe_real_sigaction(sig, o, NULL);
	} else
		sigaction(sig, o, NULL);
	if (sig == SIGTRAP && si->si_code == SI_KERNEL)
		((ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP]--; /* the int3 again */
	else if (si->si_code <= 0)
		raise(sig);
}

/* ---- int3 ---- */

static struct agent_probe_rt *agent_probe_trap_find(uint64_t addr)
{
	const uint32_t *t = __atomic_load_n(&agent_probe_traps, __ATOMIC_ACQUIRE);
	uint32_t lo = 0, hi = t ? t[0] : 0;

	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;
		struct agent_probe_rt *p = &agent_probe_by_id[t[1 + mid]];

		/* By the int3's own address: a block's int3 may sit after the
		 * block's first instruction (another probe covers that one). */
		if (p->patch_addr == addr)
			return p;
		if (p->patch_addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static void agent_probe_trap_hit(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	greg_t *g = uc->uc_mcontext.gregs;
	struct agent_probe_rt *p = NULL;
	struct {
		struct probe_regs r;
		uint64_t flags; /* where a trampoline with save_flags has them */
	} regs;
	struct probe_var_regs vr;
	uint32_t id;
	int saved = errno;

	if (si->si_code == SI_KERNEL) {
		uint64_t at = (uint64_t)g[REG_RIP] - 1;

		p = agent_probe_trap_find(at);
		if (!p && agent_probe_area) {
			/* The transient int3 of a probe being rewritten: wait for
			 * the writer (another thread), then run what is there. */
			while (__atomic_load_n(&agent_probe_poking, __ATOMIC_ACQUIRE) == at)
				sched_yield();
			/* No longer an int3: one of ours, removed since the
			 * thread hit it. Run the restored instruction. */
			if (*(const volatile uint8_t *)at != 0xcc) {
				g[REG_RIP]--;
				errno = saved;
				return;
			}
		}
	}
	/* Not ours, and the program blocked SIGTRAP: held when sent, the
	 * default action when it is its own trap. */
	if (!p && agent_sigview_blocked(SIGTRAP, si, ucv, agent_probe_chain)) {
		errno = saved;
		return;
	}
	if (!p) {
		agent_sigview_trap_chain(si, ucv, agent_probe_chain);
		errno = saved;
		return;
	}
	if (!__atomic_load_n(&p->disabled, __ATOMIC_RELAXED)) {
		regs.r.rax = (uint64_t)g[REG_RAX];
		regs.r.rcx = (uint64_t)g[REG_RCX];
		regs.r.rdx = (uint64_t)g[REG_RDX];
		regs.r.rsi = (uint64_t)g[REG_RSI];
		regs.r.rdi = (uint64_t)g[REG_RDI];
		regs.r.r8 = (uint64_t)g[REG_R8];
		regs.r.r9 = (uint64_t)g[REG_R9];
		regs.r.r10 = (uint64_t)g[REG_R10];
		regs.r.r11 = (uint64_t)g[REG_R11];
		regs.flags = (uint64_t)g[REG_EFL];
		id = p->id;
		if (p->handler == PROBE_H_BRANCH) {
			/* op: the jcc's cc, and the block this int3 counts too */
			uint32_t blk = p->op >> 4;

			id |= (p->op & 0xf) << PROBE_CC_SHIFT;
			if (blk && blk < agent_probe_ncounts)
				__atomic_fetch_add(&agent_probe_counts[2 * blk], 1,
						   __ATOMIC_RELAXED);
		}
		if (p->handler == PROBE_H_VAR) {
			/* The layout x86_code_call_handler_full gives the handler. */
			vr.gp = regs.r;
			vr.flags = regs.flags;
			vr.rbx = (uint64_t)g[REG_RBX];
			vr.rbp = (uint64_t)g[REG_RBP];
			vr.r12 = (uint64_t)g[REG_R12];
			vr.r13 = (uint64_t)g[REG_R13];
			vr.r14 = (uint64_t)g[REG_R14];
			vr.r15 = (uint64_t)g[REG_R15];
			for (int i = 0; i < 16; i++) {
				if (uc->uc_mcontext.fpregs)
					memcpy(vr.xmm[i], &uc->uc_mcontext.fpregs->_xmm[i], 16);
				else
					vr.xmm[i][0] = vr.xmm[i][1] = 0;
			}
			agent_probe_st0 = uc->uc_mcontext.fpregs
					      ? (const void *)&uc->uc_mcontext.fpregs->_st[0]
					      : (const void *)vr.xmm; /* zeroed above */
			agent_probe_st0_regs = &vr;
			agent_probe_table[p->handler](id, (struct probe_regs *)&vr,
						      (uint64_t)g[REG_RSP]);
			agent_probe_st0_regs = NULL;
		} else {
			agent_probe_table[p->handler](id, &regs.r, (uint64_t)g[REG_RSP]);
		}
	}
	g[REG_RIP] = (greg_t)p->slot;
	errno = saved;
}

/* The SIGTRAP handler, behind agent_sigshim_trap: in attach mode a thread
 * that spool stopped inside it while it detached gets, from the shim, the
 * SIGTRAP its own view blocks into the mask its return installs
 * (agent_sigshim.c). */
void agent_probe_trap(int sig, siginfo_t *si, void *ucv)
{
	agent_probe_trap_hit(sig, si, ucv);
}

int agent_probe_trap_install(void)
{
	struct sigaction sa;

	if (agent_sigview_kept() & AGENT_SIG_BIT(SIGTRAP))
		return 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = agent_sigshim_trap;
	sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_NODEFER;
	if (!agent_probe_real_sigaction)
		agent_probe_real_sigaction = dlsym(RTLD_NEXT, "sigaction");
	if (!agent_probe_real_sigaction)
		return -ENOSYS;
	/* In attach mode the other threads keep the SIGTRAP they block
	 * (doc/probe.md): only this one is unblocked. */
	return agent_sigview_trap_install(&sa, agent_probe_real_sigaction);
}

void agent_probe_keep_sigsys(void)
{
	agent_sigview_keep(AGENT_SIG_BIT(SIGSYS));
}

void agent_probe_keep_sigsys_off(void)
{
	agent_sigview_unkeep(AGENT_SIG_BIT(SIGSYS));
}

int agent_probe_sigsys_blocked(siginfo_t *si, void *uc)
{
	return agent_sigview_blocked(SIGSYS, si, uc, agent_probe_chain);
}

/* ---- faults of custom handlers ---- */

/*
 * Leaving a signal handler with siglongjmp skips the kernel's restore of
 * the vector state it saved in the signal frame, and the handler ran with
 * a fresh one: the probed function's floating-point arguments (or any
 * vector register live at a block) would come back zeroed. Put the
 * frame's copy back first. The kernel writes an xsave area (64-byte
 * aligned) when the fxsave part's software-reserved bytes (offset 464)
 * start with FP_XSTATE_MAGIC1, followed by the features it holds (472);
 * otherwise an fxsave area.
 */
#define AGENT_PROBE_FP_XSTATE_MAGIC1 0x46505853u

static void agent_probe_fpu_back(const ucontext_t *uc)
{
	const uint8_t *fp = (const uint8_t *)uc->uc_mcontext.fpregs;
	uint32_t magic;
	uint64_t feat;

	if (!fp)
		return;
	memcpy(&magic, fp + 464, 4);
	memcpy(&feat, fp + 472, 8);
	if (magic == AGENT_PROBE_FP_XSTATE_MAGIC1 && !((uintptr_t)fp & 63))
		__asm__ volatile("xrstor64 %0"
				 :
				 : "m"(*(const uint8_t(*)[576])fp), "a"((uint32_t)feat),
				   "d"((uint32_t)(feat >> 32)));
	else if (!((uintptr_t)fp & 15))
		__asm__ volatile("fxrstor64 %0" : : "m"(*(const uint8_t(*)[512])fp));
}

static void agent_probe_on_fault(int sig, siginfo_t *si, void *uc)
{
	struct agent_probe_guard *g = agent_probe_guard_cur;

	if (g && si->si_code > 0) {
		agent_probe_guard_cur = NULL;
		g->sig = sig;
		/* Nothing after this may touch a vector register. */
		agent_probe_fpu_back(uc);
		siglongjmp(g->jb, 1);
	}
	/* Not a handler's: with the signal blocked in the program's view,
	 * held when sent, the default action for its own fault. */
	if (agent_sigview_blocked(sig, si, uc, agent_probe_chain))
		return;
	for (unsigned i = 0; i < AGENT_PROBE_NFAULT; i++)
		if (agent_probe_fault_sigs[i] == sig)
			agent_probe_chain(&agent_probe_old_fault[i], sig, si, uc);
}

static int agent_probe_fault_install(void)
{
	struct sigaction sa;

	if (agent_sigview_kept() & AGENT_SIG_FAULT_BITS)
		return 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = agent_probe_on_fault;
	/* NODEFER: the guard leaves the handler with siglongjmp without
	 * restoring a mask, so the signal must not be blocked in it. ONSTACK:
	 * the program's alternate stack, if it has one, for its own faults. */
	sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
	for (unsigned i = 0; i < AGENT_PROBE_NFAULT; i++)
		if (sigaction(agent_probe_fault_sigs[i], &sa, &agent_probe_old_fault[i]))
			return -errno;
	agent_sigview_keep(AGENT_SIG_FAULT_BITS);
	agent_sigview_unblock_here(AGENT_SIG_FAULT_BITS);
	return 0;
}

/* ---- writing text ---- */

void agent_probe_lock_take(void)
{
	while (__atomic_exchange_n(&agent_probe_lock, 1, __ATOMIC_ACQUIRE))
		sched_yield();
}

void agent_probe_lock_drop(void)
{
	__atomic_store_n(&agent_probe_lock, 0, __ATOMIC_RELEASE);
}

/* Make every thread see the new code before the next step (cross-modifying
 * code). Without membarrier, the steps are still ordered stores. */
static void agent_probe_sync_cores(void)
{
	if (!agent_probe_membarrier)
		agent_probe_membarrier =
			syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE,
				0, 0) == 0 ? 1 : -1;
	if (agent_probe_membarrier > 0)
		syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE, 0, 0);
	else
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

/* Write len bytes of code at addr. live: other threads may be running
 * (needs the SIGTRAP handler, see the top of the file). */
int agent_probe_poke(uint64_t addr, const uint8_t *bytes, uint32_t len, int live)
{
	uint64_t pg = addr & ~4095ull, end = (addr + len + 4095) & ~4095ull;
	volatile uint8_t *at = (volatile uint8_t *)addr;

	if (!len) /* no bytes of its own (a rider, an exit through the return address) */
		return 0;
	if (mprotect((void *)pg, end - pg, PROT_READ | PROT_WRITE | PROT_EXEC))
		return -errno;
	if (live && len > 1) {
		__atomic_store_n(&agent_probe_poking, addr, __ATOMIC_RELEASE);
		*at = 0xcc;
		agent_probe_sync_cores();
	}
	for (uint32_t i = 1; i < len; i++)
		at[i] = bytes[i];
	if (live && len > 1)
		agent_probe_sync_cores();
	*at = bytes[0];
	if (live)
		agent_probe_sync_cores();
	__atomic_store_n(&agent_probe_poking, 0, __ATOMIC_RELEASE);
	mprotect((void *)pg, end - pg, PROT_READ | PROT_EXEC);
	return 0;
}

/* Put the original bytes back; the probe's handler no longer runs. */
void agent_probe_remove(struct agent_probe_rt *p, uint32_t status, int live)
{
	if (__atomic_exchange_n(&p->disabled, 1, __ATOMIC_ACQ_REL) && !p->placed)
		return;
	agent_probe_lock_take();
	if (p->placed && !agent_probe_poke(p->patch_addr, p->orig, p->patch_len, live))
		p->placed = 0;
	agent_probe_lock_drop();
	if (p->area && !p->placed)
		__atomic_store_n(&p->area->status, status, __ATOMIC_RELEASE);
}

/* Run the custom error handler under its own guard, then remove the probe.
 * Called by agent_probe_hot.c with the extended state saved. */
void agent_probe_fault(struct agent_probe_rt *p, const struct spool_probe_ctx *ctx, int sig)
{
	struct agent_thread *t = &agent_self;
	uint8_t busy = t->busy;
	int esig;

	agent_log("probe %u: its handler faulted (signal %d): removing it", p->id, sig);
	if (agent_probe_user.error) {
		t->busy = 1;
		esig = agent_probe_guard_call(NULL, agent_probe_user.error, ctx, sig);
		t->busy = busy;
		if (esig)
			agent_log("probe %u: the error handler faulted too (signal %d)", p->id,
				  esig);
	}
	if (p->owner && p->owner <= agent_probe_max_id) {
		/* a shared exit: its trampoline is its owner's */
		__atomic_store_n(&p->disabled, 1, __ATOMIC_RELAXED);
		agent_probe_remove(&agent_probe_by_id[p->owner], PROBE_S_REMOVED, 1);
	} else {
		agent_probe_remove(p, PROBE_S_REMOVED, 1);
	}
	if (agent_probe_area)
		__atomic_fetch_add(&agent_probe_area->removed, 1, __ATOMIC_RELAXED);
}

/* ---- placing ---- */

/* strncpy that always terminates (no stdio in the agent). */
static void agent_probe_copy(char *dst, size_t cap, const char *src)
{
	size_t i = 0;

	for (; src && src[i] && i + 1 < cap; i++)
		dst[i] = src[i];
	dst[i] = 0;
}

/* Place one module's trampolines and fill the run-time table; the text is
 * not touched yet (agent_probe_commit_all). */
void agent_probe_module(struct probe_area_module *m, struct probe_area_probe *ps,
			const struct probe_area_reloc *rs, const uint8_t *code)
{
	size_t size = ((size_t)m->code_bytes + 4095) & ~(size_t)4095;
	uint64_t base;
	uint8_t *page;
	uint32_t i;

	if (!agent_probe_module_base(m->name, &base)) {
		agent_probe_module_status(m, ps, PROBE_S_NO_MODULE);
		agent_log("probe: module '%s' is not loaded", m->name);
		return;
	}
	m->base = base;
	m->status = 1;
	page = size ? agent_probe_page(base + m->lo, base + m->hi, size) : NULL;
	if (!page) {
		agent_probe_module_status(m, ps, PROBE_S_NO_PAGE);
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
				int64_t v = (int64_t)(base + rl->target) -
					    (int64_t)(uintptr_t)(pc + rl->next);
				int32_t v32 = (int32_t)v;

				memcpy(pc + rl->at, &v32, 4);
			} else if (rl->type == PROBE_R_HANDLER64 && rl->target < PROBE_H_MAX) {
				uint64_t fn = (uint64_t)(uintptr_t)agent_probe_table[rl->target];

				memcpy(pc + rl->at, &fn, 8);
			}
		}
	}
	if (mprotect(page, size, PROT_READ | PROT_EXEC)) {
		agent_probe_module_status(m, ps, PROBE_S_PROTECT);
		return;
	}
	for (i = 0; i < m->nprobes; i++) {
		struct probe_area_probe *p = &ps[m->first_probe + i];
		uint8_t *pc = page + (p->code_off - ps[m->first_probe].code_off);
		struct agent_probe_rt *rt;

		if (p->id > agent_probe_max_id || p->patch_len > PROBE_MAX_PATCH ||
		    (p->patch_len < 1 && p->method != PROBE_M_RETADDR &&
		     p->method != PROBE_M_RIDE) ||
		    p->handler >= PROBE_H_MAX || !p->handler)
			continue;
		rt = &agent_probe_by_id[p->id];
		rt->addr = base + p->addr_off;
		rt->patch_addr = base + p->patch_off;
		rt->patch_len = (uint8_t)p->patch_len;
		rt->id = p->id;
		rt->handler = p->handler;
		rt->op = p->op;
		rt->ret_id = p->ret_id;
		rt->area = p;
		rt->base = base;
		if (p->method == PROBE_M_RIDE) {
			/* its handler call is in the owner's trampoline: a fault
			 * there removes the owner; nothing of its own to write */
			if (!p->owner || p->owner > agent_probe_max_id)
				continue;
			rt->owner = p->owner;
			rt->area = NULL;
			p->runtime_addr = rt->addr;
			p->runtime_patch = rt->patch_addr;
			p->status = PROBE_S_READY;
			continue;
		}
		memcpy(rt->orig, p->orig, p->patch_len);
		p->runtime_addr = rt->addr;
		p->runtime_patch = rt->patch_addr;
		if (p->shared_exit && p->shared_exit <= agent_probe_max_id &&
		    p->shared_exit != p->id) {
			/* run in this trampoline: a fault of its handler removes
			 * this probe; its records name the function's entry */
			struct agent_probe_rt *x = &agent_probe_by_id[p->shared_exit];

			x->id = p->shared_exit;
			x->handler = PROBE_H_FUNC_EXIT;
			x->op = PROBE_OP_EXIT;
			x->addr = rt->addr;
			x->base = base;
			x->owner = p->id;
		}
		if (memcmp((void *)rt->patch_addr, p->orig, p->patch_len)) {
			p->status = PROBE_S_MISMATCH;
			continue;
		}
		if (p->method == PROBE_M_INT3) {
			rt->int3 = 1;
			rt->slot = (uint64_t)(uintptr_t)pc;
		} else {
			rt->slot = (uint64_t)(uintptr_t)pc; /* the trampoline */
		}
		p->status = PROBE_S_READY;
	}
}

/* Read the area and place every module's trampolines. */
static int agent_probe_setup(struct probe_area_hdr *h)
{
	struct probe_area_module *ms;
	struct probe_area_probe *ps;
	size_t rt_size;

	agent_probe_area = h;
	ms = (void *)((char *)h + h->modules_off);
	ps = (void *)((char *)h + h->probes_off);
	for (uint32_t i = 0; i < h->nprobes; i++)
		if (ps[i].id > agent_probe_max_id)
			agent_probe_max_id = ps[i].id;
	/* Ids not in the table are shared probes, counted in another's
	 * trampoline (a short function's exit): the last id may be one, and
	 * its events must not be dropped as out of range. ncounts covers
	 * every id spool defined. */
	if (h->ncounts && h->ncounts - 1 > agent_probe_max_id &&
	    h->ncounts - 1 < (1u << 24))
		agent_probe_max_id = h->ncounts - 1;
	rt_size = (((size_t)agent_probe_max_id + 1) * sizeof(*agent_probe_by_id) +
		   ((size_t)h->nprobes + 1) * 4 + h->nmodules + 4095) &
		  ~(size_t)4095;
	agent_probe_by_id =
		agent_vm_map(rt_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (agent_probe_by_id == MAP_FAILED) {
		agent_probe_by_id = NULL;
		agent_log("probe: no memory for the probe table");
		return -ENOMEM;
	}
	agent_probe_traps = (uint32_t *)(agent_probe_by_id + agent_probe_max_id + 1);
	agent_probe_mod_seen = (uint8_t *)(agent_probe_traps + h->nprobes + 1);
	if (h->ncounts && h->counts_off) {
		agent_probe_counts = (uint64_t *)((char *)h + h->counts_off);
		agent_probe_ncounts = h->ncounts;
	}
	if (h->handler_path[0]) {
		/* Custom handlers: loaded once, here (not a hot path). */
		void *so = dlopen(h->handler_path, RTLD_NOW | RTLD_LOCAL);

		if (!so) {
			const char *e = dlerror();

			agent_probe_copy(h->handler_error, sizeof(h->handler_error),
					 e ? e : "dlopen failed");
			agent_log("probe: cannot load %s: %s", h->handler_path, h->handler_error);
			return -ENOENT;
		}
		agent_probe_user.pre = (void (*)(const struct spool_probe_ctx *))dlsym(
			so, "spool_probe_pre");
		agent_probe_user.post = (void (*)(const struct spool_probe_ctx *))dlsym(
			so, "spool_probe_post");
		agent_probe_user.error = (void (*)(const struct spool_probe_ctx *, int))dlsym(
			so, "spool_probe_error");
		if (!agent_probe_user.pre && !agent_probe_user.post) {
			agent_probe_copy(h->handler_error, sizeof(h->handler_error),
					 "exports neither spool_probe_pre nor spool_probe_post");
			return -ENOENT;
		}
		agent_probe_table = agent_probe_user_handlers;
		if (agent_probe_fault_install() || agent_probe_trap_install())
			agent_log("probe: cannot install the fault handlers");
		h->handler_loaded = 1;
	}
	if (h->nvars && h->vars_off) {
		const struct probe_area_var *v = (const void *)((char *)h + h->vars_off);

		for (uint32_t i = 0; i < h->nvars; i++)
			if (v[i].index == 0 && v[i].probe_id <= agent_probe_max_id &&
			    i + v[i].nvars <= h->nvars) {
				agent_probe_by_id[v[i].probe_id].var_first = i;
				agent_probe_by_id[v[i].probe_id].var_count = v[i].nvars;
			}
		agent_probe_vars = v;
	}
	for (uint32_t i = 0; i < h->nmodules; i++)
		if (ms[i].nprobes) {
			agent_probe_module(&ms[i], ps, (void *)((char *)h + h->relocs_off),
					   (uint8_t *)h + h->code_off);
			/* Not loaded yet: a later dlopen may bring it. */
			agent_probe_mod_seen[i] = ms[i].status ? 1 : 0;
		}
	return 0;
}

/* int3 probes by the int3's address for the SIGTRAP handler (insertion
 * sort: once per module load). */
static void agent_probe_traps_sort(uint32_t *v, uint32_t n)
{
	for (uint32_t i = 1; i < n; i++) {
		uint32_t x = v[i], j = i;

		while (j &&
		       agent_probe_by_id[v[j - 1]].patch_addr > agent_probe_by_id[x].patch_addr) {
			v[j] = v[j - 1];
			j--;
		}
		v[j] = x;
	}
}

/*
 * Pages made writable for agent_probe_commit_all: one window of pages, grown
 * while the patches (taken in address order) stay in it or next to it, so a
 * library with 3,000 probes costs one mprotect per page run instead of two
 * per patch (6,000 mprotects splitting its mapping took most of the agent's
 * start). Every page in the window holds a patch, so it is code, and it goes
 * back to r-x as agent_probe_poke leaves it. Not for live patching: no int3
 * first, no core sync (one thread, or every other thread stopped).
 */
struct agent_probe_wwin {
	uint64_t lo, hi; /* hi 0: no window */
};

static void agent_probe_wwin_close(struct agent_probe_wwin *w)
{
	if (w->hi)
		mprotect((void *)w->lo, w->hi - w->lo, PROT_READ | PROT_EXEC);
	w->lo = w->hi = 0;
}

static int agent_probe_wwin_write(struct agent_probe_wwin *w, uint64_t addr,
				  const uint8_t *bytes, uint32_t len)
{
	uint64_t pg = addr & ~4095ull, end = (addr + len + 4095) & ~4095ull;
	volatile uint8_t *at = (volatile uint8_t *)addr;

	if (!w->hi || pg < w->lo || pg > w->hi) {
		agent_probe_wwin_close(w);
		if (mprotect((void *)pg, end - pg, PROT_READ | PROT_WRITE | PROT_EXEC))
			return -errno;
		w->lo = pg;
		w->hi = end;
	} else if (end > w->hi) {
		if (mprotect((void *)w->hi, end - w->hi, PROT_READ | PROT_WRITE | PROT_EXEC))
			return -errno;
		w->hi = end;
	}
	for (uint32_t i = 1; i < len; i++)
		at[i] = bytes[i];
	*at = bytes[0];
	return 0;
}

/* Write one ready patch (a jump or an int3): through the window when there
 * is one (agent_probe_commit_all), else by agent_probe_poke. */
static void agent_probe_commit_one(struct probe_area_hdr *h, struct probe_area_probe *p,
				   struct agent_probe_wwin *win)
{
	struct agent_probe_rt *rt = &agent_probe_by_id[p->id];
	uint8_t patch[PROBE_MAX_PATCH];
	int rc;

	if (rt->int3) {
		patch[0] = 0xcc;
	} else {
		int32_t rel = (int32_t)((int64_t)rt->slot - (int64_t)(rt->patch_addr + 5));

		memset(patch, 0xcc, sizeof(patch));
		patch[0] = 0xe9;
		memcpy(patch + 1, &rel, 4);
	}
	if (win)
		rc = agent_probe_wwin_write(win, rt->patch_addr, patch, rt->patch_len);
	else
		rc = agent_probe_poke(rt->patch_addr, patch, rt->patch_len, 0);
	if (rc) {
		p->status = PROBE_S_PROTECT;
		return;
	}
	rt->placed = 1;
	p->status = PROBE_S_PATCHED;
	h->patched++;
}

/* Probe indices by patch address (heap sort: thousands of probes, no libc). */
static void agent_probe_order_sift(uint32_t *v, const struct probe_area_probe *ps, uint32_t i,
				   uint32_t n)
{
	for (;;) {
		uint32_t c = 2 * i + 1, x;

		if (c >= n)
			return;
		if (c + 1 < n && agent_probe_by_id[ps[v[c + 1]].id].patch_addr >
				     agent_probe_by_id[ps[v[c]].id].patch_addr)
			c++;
		if (agent_probe_by_id[ps[v[i]].id].patch_addr >=
		    agent_probe_by_id[ps[v[c]].id].patch_addr)
			return;
		x = v[i];
		v[i] = v[c];
		v[c] = x;
		i = c;
	}
}

static void agent_probe_order_sort(uint32_t *v, const struct probe_area_probe *ps, uint32_t n)
{
	for (uint32_t i = n / 2; i-- > 0;)
		agent_probe_order_sift(v, ps, i, n);
	for (uint32_t k = n; k-- > 1;) {
		uint32_t x = v[0];

		v[0] = v[k];
		v[k] = x;
		agent_probe_order_sift(v, ps, 0, k);
	}
}

/* Write every ready patch. Either before main (one thread) or with every
 * other thread stopped by spool: no thread can be inside a patched range. */
static void agent_probe_commit_all(struct probe_area_hdr *h)
{
	struct probe_area_probe *ps = (void *)((char *)h + h->probes_off);
	uint32_t *traps = agent_probe_traps, ntraps = 0, *order, norder = 0;
	size_t order_size = ((size_t)h->nprobes + 1) * sizeof(*order);
	struct agent_probe_wwin win = {0, 0};

	/* The trap table and the SIGTRAP handler are ready before the first
	 * int3 is written: placing the rest runs libc code (mprotect, memset,
	 * and dlsym and sigaction to install the handler) which may carry one
	 * of these int3s already (block:libc.so.6:*). A probe whose patch then
	 * fails keeps its table entry: no int3 of it is ever hit. */
	for (uint32_t i = 0; i < h->nprobes; i++)
		if (ps[i].status == PROBE_S_READY && agent_probe_by_id[ps[i].id].int3)
			traps[1 + ntraps++] = ps[i].id;
	agent_probe_traps_sort(traps + 1, ntraps);
	__atomic_store_n(&traps[0], ntraps, __ATOMIC_RELEASE);
	if (ntraps && agent_probe_trap_install())
		agent_log("probe: cannot install the SIGTRAP handler");
	/* No memory for the order: the patches go one by one, in table order. */
	order = agent_vm_map(order_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (order == MAP_FAILED)
		order = NULL;
	for (uint32_t i = 0; i < h->nprobes; i++) {
		struct probe_area_probe *p = &ps[i];
		struct agent_probe_rt *rt;

		if (p->status != PROBE_S_READY)
			continue;
		if (p->method == PROBE_M_RIDE) {
			p->status = PROBE_S_PATCHED; /* placed with its owner (spool
						      * reads the owner's status) */
			continue;
		}
		if (p->method == PROBE_M_RETADDR) {
			/* nothing to write: the entry's trampoline does the work */
			agent_probe_ra_enable();
			p->status = PROBE_S_PATCHED;
			h->patched++;
			continue;
		}
		rt = &agent_probe_by_id[p->id];
		if (rt->int3 && (p->flags & PROBE_F_DISABLED)) {
			p->status = PROBE_S_OFF; /* enabled later: agent_probe_live.c */
			continue;
		}
		if (order)
			order[norder++] = i;
		else
			agent_probe_commit_one(h, p, NULL);
	}
	if (order) {
		agent_probe_order_sort(order, ps, norder);
		for (uint32_t k = 0; k < norder; k++)
			agent_probe_commit_one(h, &ps[order[k]], &win);
		agent_probe_wwin_close(&win);
		munmap(order, order_size);
	}
}

/*
 * An exec'd image (constructors do not run in a fork child) of the process
 * that placed the probes, running the same file again (a program that
 * re-execs itself): that process's earlier image, and its probes, are gone,
 * and the plan is for this file, so the probes are placed again. Compared by
 * the executable's path in the process slots (this pid's earlier image).
 */
static int agent_probe_reexec_same(const struct probe_area_hdr *h)
{
	/* (agent_proc_claim compared the executables when it ended the
	 * earlier image's slot) */
	return h->placed_pid == agent.pid && agent.reexec_same;
}

void agent_probe_init(void)
{
	struct probe_area_hdr *h = agent_probe_area_find(NULL);

	if (h && h->done && !h->attach) {
		if (!agent_probe_reexec_same(h)) {
			/* An image exec'd after the probes were placed, of
			 * another file or by another process: its code is not
			 * what they were planned for. Counted; spool says so. */
			__atomic_fetch_add(&h->execs_unprobed, 1, __ATOMIC_RELAXED);
			return;
		}
		/* what the earlier image of this process placed is gone */
		struct probe_area_module *ms = (void *)((char *)h + h->modules_off);
		struct probe_area_probe *ps = (void *)((char *)h + h->probes_off);

		for (uint32_t i = 0; i < h->nmodules; i++)
			ms[i].status = 0;
		for (uint32_t i = 0; i < h->nprobes; i++)
			ps[i].status = PROBE_S_PENDING;
		h->patched = 0;
		h->removed = 0;
		h->handler_loaded = 0;
		agent_log("probe: pid %u exec'd %s again: placing the probes again", agent.pid,
			  shm_proc_at(agent.ctl, agent.proc_slot)->exe);
	} else if (!h || h->done || h->attach) {
		return; /* attach mode: spool places them */
	}
	h->placed_pid = agent.pid;
	agent_self.busy++;
	if (!agent_probe_setup(h)) {
		agent_probe_commit_all(h);
		__atomic_store_n(&agent_probe_follow, 1, __ATOMIC_RELEASE);
	}
	/* int3 probes in: the program's own syscall instruction must not
	 * block SIGTRAP for real either (agent_rr_dispatch.c). */
	if (agent_probe_trap_live())
		agent_rr_dispatch_probes();
	agent_self.busy--;
	__atomic_store_n(&h->done, 1, __ATOMIC_RELEASE);
	agent_log("probe: %u of %u probes patched", h->patched, h->nprobes);
}

/*
 * A dlopen returned: place the probes of the modules that were not loaded
 * before (launch mode only; called on the thread that loaded them). Other
 * threads may run, but none has been inside the new module's probed code
 * before this dlopen returns, except through the module's own constructors
 * (run by this thread) or a concurrent dlopen of the same file, which waits
 * for the lock here; the patches still use the int3-first sequence. The
 * new int3 probes go into a new sorted copy of the trap table, published
 * before their int3 is written. Not a hot path: dlopen is rare.
 */
void agent_probe_dlopen(void)
{
	struct probe_area_hdr *h = agent_probe_area;
	struct probe_area_module *ms;
	struct probe_area_probe *ps;
	uint32_t *old, *nt, n = 0, nnew = 0;
	size_t size;
	int any = 0;

	if (!__atomic_load_n(&agent_probe_follow, __ATOMIC_ACQUIRE) || !h || h->attach ||
	    !agent_probe_by_id || !agent.active)
		return;
	ms = (void *)((char *)h + h->modules_off);
	ps = (void *)((char *)h + h->probes_off);
	agent_self.busy++;
	agent_probe_lock_take();
	for (uint32_t i = 0; i < h->nmodules; i++) {
		uint64_t base;

		if (!ms[i].nprobes || agent_probe_mod_seen[i])
			continue;
		if (!agent_probe_module_base(ms[i].name, &base))
			continue;
		agent_probe_mod_seen[i] = 1;
		agent_probe_module(&ms[i], ps, (void *)((char *)h + h->relocs_off),
				   (uint8_t *)h + h->code_off);
		any = 1;
	}
	if (!any)
		goto out;
	/* The new int3 probes first: the trap table must know them before a
	 * thread can hit them. */
	old = agent_probe_traps;
	for (uint32_t i = 0; i < h->nprobes; i++)
		if (ps[i].status == PROBE_S_READY && agent_probe_by_id[ps[i].id].int3)
			nnew++;
	if (nnew) {
		size = ((size_t)old[0] + nnew + 1) * 4;
		nt = agent_vm_map(size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (nt == MAP_FAILED) {
			agent_log("probe: no memory for the trap table");
			for (uint32_t i = 0; i < h->nprobes; i++)
				if (ps[i].status == PROBE_S_READY &&
				    agent_probe_by_id[ps[i].id].int3)
					ps[i].status = PROBE_S_NO_TRAP;
		} else {
			memcpy(nt + 1, old + 1, (size_t)old[0] * 4);
			n = old[0];
			for (uint32_t i = 0; i < h->nprobes; i++)
				if (ps[i].status == PROBE_S_READY &&
				    agent_probe_by_id[ps[i].id].int3)
					nt[1 + n++] = ps[i].id;
			agent_probe_traps_sort(nt + 1, n);
			nt[0] = n;
			/* The old copy stays mapped: a handler may be reading it. */
			__atomic_store_n(&agent_probe_traps, nt, __ATOMIC_RELEASE);
		}
	}
	/* The live sequence needs the SIGTRAP handler (a thread may hit the
	 * transient int3). */
	if (agent_probe_trap_install()) {
		agent_log("probe: cannot install the SIGTRAP handler");
		goto out;
	}
	for (uint32_t i = 0; i < h->nprobes; i++) {
		struct probe_area_probe *p = &ps[i];
		struct agent_probe_rt *rt;
		uint8_t patch[PROBE_MAX_PATCH];

		if (p->status != PROBE_S_READY)
			continue;
		if (p->method == PROBE_M_RETADDR) {
			agent_probe_ra_enable();
			p->status = PROBE_S_PATCHED;
			__atomic_fetch_add(&h->patched, 1, __ATOMIC_RELAXED);
			continue;
		}
		rt = &agent_probe_by_id[p->id];
		memset(patch, 0xcc, sizeof(patch));
		if (!rt->int3) {
			int32_t rel = (int32_t)((int64_t)rt->slot - (int64_t)(rt->patch_addr + 5));

			patch[0] = 0xe9;
			memcpy(patch + 1, &rel, 4);
		}
		if (agent_probe_poke(rt->patch_addr, patch, rt->patch_len, 1)) {
			p->status = PROBE_S_PROTECT;
			continue;
		}
		rt->placed = 1;
		p->status = PROBE_S_PATCHED;
		__atomic_fetch_add(&h->patched, 1, __ATOMIC_RELAXED);
	}
	agent_log("probe: a dlopen: %u probes patched in all", h->patched);
out:
	agent_probe_lock_drop();
	agent_self.busy--;
}

/* Add n int3 probes (ids) to the SIGTRAP handler's table: a new sorted
 * copy, published before any of their int3 is written (the old copy stays
 * mapped: a handler may be reading it). 0 or -ENOMEM. */
int agent_probe_traps_add(const uint32_t *ids, uint32_t n)
{
	uint32_t *old = agent_probe_traps, *nt, k;
	size_t size;

	if (!n)
		return 0;
	size = ((size_t)(old ? old[0] : 0) + n + 1) * 4;
	nt = agent_vm_map(size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (nt == MAP_FAILED)
		return -ENOMEM;
	k = old ? old[0] : 0;
	if (k)
		memcpy(nt + 1, old + 1, (size_t)k * 4);
	for (uint32_t i = 0; i < n; i++)
		nt[1 + k++] = ids[i];
	agent_probe_traps_sort(nt + 1, k);
	nt[0] = k;
	__atomic_store_n(&agent_probe_traps, nt, __ATOMIC_RELEASE);
	return 0;
}

/* Take int3 probe id out of the SIGTRAP handler's table (deleted: a later
 * probe may take its address), the same way. A trap of it still pending
 * finds no probe and no int3 there, and runs the restored instruction. */
int agent_probe_traps_del(uint32_t id)
{
	uint32_t *old = agent_probe_traps, *nt, k = 0;

	if (!old || !old[0])
		return 0;
	nt = agent_vm_map(((size_t)old[0] + 1) * 4, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (nt == MAP_FAILED)
		return -ENOMEM;
	for (uint32_t i = 0; i < old[0]; i++)
		if (old[1 + i] != id)
			nt[1 + k++] = old[1 + i];
	nt[0] = k;
	__atomic_store_n(&agent_probe_traps, nt, __ATOMIC_RELEASE);
	return 0;
}

/* ---- attach mode: called by spool in the stopped target ---- */

/*
 * The kernel's SIGTRAP disposition as prepare found it. spool single-steps
 * a thread out of a range about to be patched (probe_attach.c) after
 * prepare and before commit, and the kernel resets an ignored SIGTRAP to
 * the default when it forces the step's trap: commit (or a detach without
 * one) puts it back, exactly (the raw call: flags and restorer as they
 * were). No program code runs in between: every thread is stopped.
 */
struct agent_probe_ksigaction {
	uint64_t handler, flags, restorer, mask;
};
static struct agent_probe_ksigaction agent_probe_trap_k;
static int agent_probe_trap_k_saved;

static void agent_probe_trap_k_save(void)
{
	agent_probe_trap_k_saved =
		syscall(SYS_rt_sigaction, SIGTRAP, NULL, &agent_probe_trap_k, 8) == 0;
}

static void agent_probe_trap_k_restore(void)
{
	if (agent_probe_trap_k_saved)
		syscall(SYS_rt_sigaction, SIGTRAP, &agent_probe_trap_k, NULL, 8);
	agent_probe_trap_k_saved = 0;
}

/* A handler the kernel runs with the kept signals blocked (sa_mask) would
 * die of a probe it hits. Raw calls: flags and restorer stay exactly as the
 * program set them. SIGTRAP's own handler is ours (trap_install). */
void agent_probe_samask_strip(void)
{
	uint64_t kept = agent_sigview_kept();

	for (int sig = 1; sig < 64 && kept; sig++) {
		struct agent_probe_ksigaction k;
		uint64_t in;

		if (sig == SIGKILL || sig == SIGSTOP || sig == SIGTRAP ||
		    syscall(SYS_rt_sigaction, sig, NULL, &k, 8) < 0)
			continue;
		if (k.handler == (uint64_t)(uintptr_t)SIG_DFL ||
		    k.handler == (uint64_t)(uintptr_t)SIG_IGN || !(k.mask & kept))
			continue;
		in = k.mask & kept;
		k.mask &= ~kept;
		if ((in & AGENT_SIG_BIT(SIGTRAP)) &&
		    k.handler != (uint64_t)(uintptr_t)agent_sigshim_wrap) {
			/* its mask as the program set it while it runs */
			__atomic_store_n(&agent_sigview_prog_flags[sig], (int)k.flags,
					 __ATOMIC_RELAXED);
			__atomic_store_n(&agent_sigview_prog_handler[sig], (void *)(uintptr_t)k.handler,
					 __ATOMIC_RELEASE);
			k.handler = (uint64_t)(uintptr_t)agent_sigshim_wrap;
			k.flags |= SA_SIGINFO;
		}
		if (syscall(SYS_rt_sigaction, sig, &k, NULL, 8) == 0)
			__atomic_store_n(&agent_sigview_samask[sig], in, __ATOMIC_RELAXED);
	}
}

void agent_probe_samask_restore(void)
{
	for (int sig = 1; sig < 64; sig++) {
		uint64_t in = __atomic_exchange_n(&agent_sigview_samask[sig], 0, __ATOMIC_RELAXED);
		struct agent_probe_ksigaction k;

		if (!in || sig == SIGTRAP || syscall(SYS_rt_sigaction, sig, NULL, &k, 8) < 0)
			continue;
		/* a handler the program installed since keeps what it gave */
		if (k.handler == (uint64_t)(uintptr_t)SIG_DFL ||
		    k.handler == (uint64_t)(uintptr_t)SIG_IGN)
			continue;
		k.mask |= in;
		if (k.handler == (uint64_t)(uintptr_t)agent_sigshim_wrap) {
			int f = __atomic_load_n(&agent_sigview_prog_flags[sig], __ATOMIC_RELAXED);

			k.handler = (uint64_t)(uintptr_t)__atomic_load_n(
			    &agent_sigview_prog_handler[sig], __ATOMIC_ACQUIRE);
			k.flags = (k.flags & ~(uint64_t)SA_SIGINFO) | (uint64_t)(f & SA_SIGINFO);
		}
		syscall(SYS_rt_sigaction, sig, &k, NULL, 8);
	}
}

AGENT_EXPORT int spool_agent_probe_prepare(const char *shm)
{
	struct probe_area_hdr *h;
	int fd, rc;

	if (agent.ctl)
		return -EBUSY; /* already recording: preloaded, or attached before */
	if (strnlen(shm, 5) == 5 && !memcmp(shm, "unix:", 5)) {
		/* handed over a socket: a process that cannot open spool's
		 * /proc/SPOOL/fd/N (agent_shm_recv.c) */
		fd = agent_shm_recv(shm + 5);
		if (fd < 0)
			return fd;
	} else {
		fd = open(shm, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			return -errno;
	}
	/* Kept open (close-on-exec): rings are mapped from it as threads
	 * claim them, so the program's close and closefrom leave it open
	 * (agent_sys.c). */
	rc = agent_map(fd);
	if (rc) {
		close(fd);
		return rc;
	}
	agent_shm_fd = fd;
	h = agent_probe_area_find(NULL);
	if (!h || !h->attach)
		return -EPROTO;
	agent_thread_init();
	agent_proc_claim(0);
	agent.active = 1;
	/* sys:io, sys:mem: their counters (the GOT slots go to the
	 * interposers at the commit: agent_probe_got.c) */
	agent_sys_init();
	agent_self.busy++;
	rc = agent_probe_setup(h);
	agent_probe_trap_k_save();
	agent_self.busy--;
	return rc;
}

AGENT_EXPORT int spool_agent_probe_commit(void)
{
	struct probe_area_hdr *h = agent_probe_area;

	if (!h)
		return -EPROTO;
	agent_self.busy++;
	agent_probe_trap_k_restore();
	agent_probe_commit_all(h);
	/* clone's GOT slots, and with int3 probes in the signal-mask calls':
	 * the program's later pthread_sigmask calls must not block SIGTRAP
	 * for real (agent_probe_got.c). */
	agent_probe_got_redirect();
	if (agent_probe_trap_live()) {
		/* nor its own syscall instruction, once spool has turned
		 * dispatch on in each thread (spool_agent_probe_dispatch);
		 * before the strip, which then takes SIGSYS out of the
		 * handlers' sa_mask too */
		if (agent_rr_dispatch_attach())
			agent_log("probe: no syscall user dispatch: a mask set by the program's own "
				  "syscall instruction is not seen");
		agent_probe_samask_strip();
	}
	agent_self.busy--;
	__atomic_store_n(&h->done, 1, __ATOMIC_RELEASE);
	return (int)h->patched;
}

/* spool probe -p, in each stopped thread after the commit (on) and before
 * the detach (off): agent_rr_dispatch_attach_thread. */
AGENT_EXPORT int spool_agent_probe_dispatch(int on)
{
	int rc;

	agent_self.busy++;
	rc = agent_rr_dispatch_attach_thread(on);
	agent_self.busy--;
	return rc;
}

AGENT_EXPORT int spool_agent_probe_detach(void)
{
	struct probe_area_hdr *h = agent_probe_area;
	uint32_t n = 0;

	if (!h)
		return -EPROTO;
	agent_self.busy++;
	agent_probe_trap_k_restore(); /* not committed: spool gave up after stepping */
	h->trap_views = agent_probe_got_views(h->trap_view_tid, PROBE_TRAP_VIEWS);
	agent_probe_got_restore();
	agent_probe_samask_restore();
	agent_rr_dispatch_attach_end(); /* spool turned dispatch off in every thread */
	for (uint32_t id = 0; id <= agent_probe_max_id; id++) {
		struct agent_probe_rt *p = &agent_probe_by_id[id];

		if (p->placed) {
			agent_probe_remove(p, PROBE_S_RESTORED, 0);
			n += !p->placed;
		}
	}
	/* SIGTRAP (int3 probes out) and SIGSYS (dispatch off) are blocked
	 * for real from now on where a thread's view blocks them; a thread
	 * inside one of the agent's handlers puts them into the mask its
	 * return installs (agent_sigshim.c). */
	agent_sigshim_release(AGENT_SIG_BIT(SIGTRAP) | AGENT_SIG_BIT(SIGSYS));
	agent_self.busy--;
	/* Stop recording. The rings stay mapped: a thread stopped inside a
	 * handler finishes its record, and the collector drains them last. */
	agent.active = 0;
	__atomic_store_n(&h->detached, 1, __ATOMIC_RELEASE);
	return (int)n;
}

/* aarch64's agent gives SIGTRAP back at a second stop of the detach
 * (a64_agent_probe.c: its out-of-line slots trap back into the handler);
 * here the detach gave everything back already (an int3's handler returns
 * to the trampoline, no second trap). Exported as the map lists it; spool
 * does not call it on x86-64 (arch_ptrace_release_stop). */
AGENT_EXPORT int spool_agent_probe_release(void)
{
	return agent_probe_area ? 0 : -EPROTO;
}

/* spool probe -p, in each stopped thread after the detach: rip and rsp are
 * where spool stopped it. Returns the signals spool must block for real in
 * its kernel mask (the released ones its view blocks), having put them in
 * the frame a sigreturn is about to install, if any (agent_sigshim.c). */
AGENT_EXPORT int64_t spool_agent_probe_thread_out(uint64_t rip, uint64_t rsp)
{
	int64_t bits;

	if (!__atomic_load_n(&agent_probe_area, __ATOMIC_ACQUIRE))
		return -EPROTO;
	agent_self.busy++;
	bits = (int64_t)agent_sigshim_thread_out(rip, rsp);
	agent_self.busy--;
	return bits;
}
