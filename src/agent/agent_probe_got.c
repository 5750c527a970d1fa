// SPDX-License-Identifier: MIT
/*
 * agent_probe_got.c - attach mode: the program's calls of pthread_sigmask
 * and sigprocmask reach the agent's interposers (agent_probe.c), so a
 * thread that blocks SIGTRAP after spool attached is not killed by its
 * first int3 probe hit.
 *
 * Why: launched, the agent is preloaded and its pthread_sigmask is the one
 * every module binds to; attached, it is dlopen'ed into a process whose
 * modules are bound to libc's already. A synchronous SIGTRAP the thread
 * blocks is fatal (the kernel resets the handler and kills the process),
 * and a block probe in a function with a jump table can only be an int3.
 * So while int3 probes are in, spool redirects the modules' GOT slots for
 * those two functions (their PLT jump slots and GLOB_DAT entries: the
 * program's calls and the addresses it took) to the agent's interposers,
 * which keep SIGTRAP out of the kernel's mask and give the program its own
 * view back. libc and the dynamic loader keep theirs (their own calls use
 * internal aliases; the interposers call libc's function). At detach each
 * slot gets its old value back.
 *
 * The same for the calls that install a mask for a while or set a
 * handler's (sigaction, signal, sigsuspend, ppoll, pselect, epoll_pwait):
 * their twins are in agent_probe_gotwrap.c.
 *
 * And pthread_create: a thread started meanwhile inherits its creator's
 * view and turns syscall user dispatch on (agent_probe_gotwrap.c), which
 * spool turned on in the threads it stopped, so that a mask set by the
 * program's own syscall instruction reaches the agent too.
 *
 * And clone: a thread the program makes with libc's clone() on its
 * creator's TLS keeps out of its creator's ring (agent_thread_raw_clone).
 *
 * And with sys:io or sys:mem (spool probe -p PID -e sys:io, or an add
 * sys:io under --commands), the read and write families, close, and the
 * allocator: to the agent's counting interposers, the ones a launched
 * program binds to (agent_sys.c, agent_rr_io.c, agent_sys_mem.c), which
 * call libc's (got_sys_targets). A change of those (an add or a delete
 * while attached) puts every slot back and redirects again.
 *
 * Not covered (doc/probe.md): a function pointer the program copied before
 * spool attached.
 *
 * Runs only while spool holds every thread stopped (ptrace), from
 * spool_agent_probe_commit and spool_agent_probe_detach: the 8-byte stores
 * race with nothing.
 */
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "agent.h"
#include "agent_probe.h"
#include "agent_sys.h"

#define GOT_MAX 4096 /* slots redirected: a few names (forty with sys:io and sys:mem), a few per module */

struct got_slot {
	uint64_t *slot;
	uint64_t old, now;
	int relro; /* the slot's page was read-only (RELRO): made so again */
};

static struct got_slot got_slots[GOT_MAX];
static uint32_t got_n;
static int got_all; /* every name redirected (int3 probes in), not only clone */
static int got_on; /* slots redirected: the interposers note the threads' views */
/* SYS_W_IO, SYS_W_MEM asked for at the last redirect, and those whose
 * names really went to the counting interposers (got_sys_targets) */
static unsigned got_sys, got_sys_done;
static uint32_t got_sys_n; /* slots of those names */

/* Threads whose own view blocks SIGTRAP (tid, 0 = free), for detach. Each
 * thread writes its own entry only; a free one is claimed with a CAS. */
static int32_t got_view_tid[PROBE_TRAP_VIEWS];
static uint8_t got_view_on[PROBE_TRAP_VIEWS];

/* real: the index in agent_probe_got_real of libc's function the twin
 * calls (-1: the mask interposers, which find theirs themselves); a name
 * whose libc function is not found is not redirected. sys: the system
 * probe (SYS_W_IO, SYS_W_MEM) whose counting interposer the slot goes to
 * while spool asked for it (fn NULL: the agent's exported function of
 * that name, which calls libc's); 0 for the others. */
static const struct {
	const char *name;
	void *fn;
	int real;
	unsigned sys;
} got_names[] = {
	{"pthread_sigmask", (void *)agent_probe_pthread_sigmask, -1, 0},
	{"sigprocmask", (void *)agent_probe_sigprocmask, -1, 0},
	{"__sigprocmask", (void *)agent_probe_sigprocmask, -1, 0},
	{"sigaction", (void *)agent_probe_got_sigaction, AGENT_PROBE_GOT_SIGACTION, 0},
	{"__sigaction", (void *)agent_probe_got_sigaction, AGENT_PROBE_GOT_SIGACTION, 0},
	{"signal", (void *)agent_probe_got_signal, AGENT_PROBE_GOT_SIGNAL, 0},
	{"bsd_signal", (void *)agent_probe_got_bsd_signal, AGENT_PROBE_GOT_BSD_SIGNAL, 0},
	{"sysv_signal", (void *)agent_probe_got_sysv_signal, AGENT_PROBE_GOT_SYSV_SIGNAL, 0},
	{"__sysv_signal", (void *)agent_probe_got___sysv_signal, AGENT_PROBE_GOT___SYSV_SIGNAL, 0},
	{"sigsuspend", (void *)agent_probe_got_sigsuspend, AGENT_PROBE_GOT_SIGSUSPEND, 0},
	{"ppoll", (void *)agent_probe_got_ppoll, AGENT_PROBE_GOT_PPOLL, 0},
	{"pselect", (void *)agent_probe_got_pselect, AGENT_PROBE_GOT_PSELECT, 0},
	{"epoll_pwait", (void *)agent_probe_got_epoll_pwait, AGENT_PROBE_GOT_EPOLL_PWAIT, 0},
	{"epoll_pwait2", (void *)agent_probe_got_epoll_pwait2, AGENT_PROBE_GOT_EPOLL_PWAIT2, 0},
	{"pthread_create", (void *)agent_probe_got_pthread_create, AGENT_PROBE_GOT_PTHREAD_CREATE, 0},
	{"clone", (void *)agent_probe_got_clone, AGENT_PROBE_GOT_CLONE, 0},
	/* sys:io: the read and write families, close for the kind cache */
	{"read", NULL, -1, SYS_W_IO},
	{"__read_chk", NULL, -1, SYS_W_IO},
	{"pread", NULL, -1, SYS_W_IO},
	{"pread64", NULL, -1, SYS_W_IO},
	{"readv", NULL, -1, SYS_W_IO},
	{"preadv", NULL, -1, SYS_W_IO},
	{"preadv64", NULL, -1, SYS_W_IO},
	{"recv", NULL, -1, SYS_W_IO},
	{"recvfrom", NULL, -1, SYS_W_IO},
	{"recvmsg", NULL, -1, SYS_W_IO},
	{"write", NULL, -1, SYS_W_IO},
	{"writev", NULL, -1, SYS_W_IO},
	{"pwrite", NULL, -1, SYS_W_IO},
	{"pwrite64", NULL, -1, SYS_W_IO},
	{"pwritev", NULL, -1, SYS_W_IO},
	{"pwritev64", NULL, -1, SYS_W_IO},
	{"send", NULL, -1, SYS_W_IO},
	{"sendto", NULL, -1, SYS_W_IO},
	{"sendmsg", NULL, -1, SYS_W_IO},
	{"close", NULL, -1, SYS_W_IO},
	{"close_range", NULL, -1, SYS_W_IO},
	/* sys:mem: the allocator, all of it or none (agent_sys_mem_next_is) */
	{"malloc", NULL, -1, SYS_W_MEM},
	{"calloc", NULL, -1, SYS_W_MEM},
	{"realloc", NULL, -1, SYS_W_MEM},
	{"free", NULL, -1, SYS_W_MEM},
	{"posix_memalign", NULL, -1, SYS_W_MEM},
	{"aligned_alloc", NULL, -1, SYS_W_MEM},
	{"memalign", NULL, -1, SYS_W_MEM},
	{"valloc", NULL, -1, SYS_W_MEM},
	{"pvalloc", NULL, -1, SYS_W_MEM},
};
#define GOT_NAMES (sizeof(got_names) / sizeof(got_names[0]))

/* A pointer from a module's dynamic section: glibc has made the ones it
 * uses absolute; the vdso's and some others are still module-relative. */
static uint64_t got_dyn_ptr(uint64_t base, uint64_t v)
{
	return v < base ? base + v : v;
}

static int got_write(uint64_t *slot, uint64_t val, int *relro)
{
	long pg = sysconf(_SC_PAGESIZE);
	uintptr_t page = (uintptr_t)slot & ~(uintptr_t)(pg - 1);
	size_t len = ((uintptr_t)slot + 8 > page + (uintptr_t)pg) ? 2 * (size_t)pg : (size_t)pg;

	if (mprotect((void *)page, len, PROT_READ | PROT_WRITE))
		return -1;
	__atomic_store_n(slot, val, __ATOMIC_RELEASE);
	if (*relro)
		mprotect((void *)page, len, PROT_READ);
	return 0;
}

struct got_walk {
	uintptr_t self; /* an address in the agent: its own module is skipped */
	int all;	/* every name, else clone only (and the sys names) */
	unsigned sys;	/* SYS_W_IO, SYS_W_MEM: their names too */
	uintptr_t libc_fn[GOT_NAMES]; /* libc's, by name */
	uintptr_t fn[GOT_NAMES];      /* where the slot goes, by name (0: nowhere) */
};

/* Whether a slot's value may be replaced: libc's function, or a lazy PLT
 * stub not resolved yet (an address in the module's own code). Anything
 * else is an interposer of the program's (a sanitizer's, its own hook):
 * left alone, so its calls still go through it. */
static int got_replaceable(const struct dl_phdr_info *info, uintptr_t cur, uintptr_t libc_fn)
{
	if (libc_fn && cur == libc_fn)
		return 1;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && cur >= lo &&
		    cur < lo + ph->p_memsz)
			return 1;
	}
	return 0;
}

static int got_in_relro(const struct dl_phdr_info *info, uint64_t addr)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_GNU_RELRO && addr >= info->dlpi_addr + ph->p_vaddr &&
		    addr < info->dlpi_addr + ph->p_vaddr + ph->p_memsz)
			return 1;
	}
	return 0;
}

static void got_relocs(struct dl_phdr_info *info, const struct got_walk *w, const ElfW(Rela) *r,
		       size_t n, const ElfW(Sym) *symtab, const char *strtab, uint64_t strsz)
{
	for (size_t i = 0; i < n && got_n < GOT_MAX; i++) {
		uint32_t type = ELF64_R_TYPE(r[i].r_info), sym = ELF64_R_SYM(r[i].r_info);
		const char *name;
		uint64_t *slot;
		int relro;

		if ((type != ARCH_R_JUMP_SLOT && type != ARCH_R_GLOB_DAT) || !sym)
			continue;
		if (symtab[sym].st_name >= strsz)
			continue;
		name = strtab + symtab[sym].st_name;
		for (size_t k = 0; k < sizeof(got_names) / sizeof(got_names[0]); k++) {
			if (strcmp(name, got_names[k].name))
				continue;
			if (got_names[k].sys ? !(w->sys & got_names[k].sys)
					     : !w->all && got_names[k].real != AGENT_PROBE_GOT_CLONE)
				break;
			if ((got_names[k].real >= 0 || got_names[k].sys) && !w->libc_fn[k])
				break; /* the twin would have nothing to call */
			if (!w->fn[k])
				break;
			slot = (uint64_t *)(info->dlpi_addr + r[i].r_offset);
			if (!got_replaceable(info, (uintptr_t)__atomic_load_n(slot, __ATOMIC_ACQUIRE),
					     w->libc_fn[k])) {
				agent_log("probe: %s: %s is not libc's: left alone",
					  info->dlpi_name, name);
				break;
			}
			relro = got_in_relro(info, (uint64_t)(uintptr_t)slot);
			got_slots[got_n].slot = slot;
			got_slots[got_n].old = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
			got_slots[got_n].now = (uint64_t)w->fn[k];
			got_slots[got_n].relro = relro;
			if (!got_write(slot, got_slots[got_n].now, &relro)) {
				got_n++;
				got_sys_n += got_names[k].sys != 0;
			}
			break;
		}
	}
}

static int got_module(struct dl_phdr_info *info, size_t size, void *arg)
{
	const struct got_walk *w = arg;
	const ElfW(Dyn) *dyn = NULL;
	const ElfW(Sym) *symtab = NULL;
	const char *strtab = NULL, *name = info->dlpi_name ? info->dlpi_name : "";
	const ElfW(Rela) *jmprel = NULL, *rela = NULL;
	uint64_t base = info->dlpi_addr, strsz = 0, pltsz = 0, relasz = 0;
	uint64_t relaent = sizeof(ElfW(Rela));
	int self = 0;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_DYNAMIC)
			dyn = (const ElfW(Dyn) *)(base + ph->p_vaddr);
		if (ph->p_type == PT_LOAD && w->self >= base + ph->p_vaddr &&
		    w->self < base + ph->p_vaddr + ph->p_memsz)
			self = 1;
	}
	/* libc and the loader call their own internals; the agent calls libc. */
	if (!dyn || self || strstr(name, "/libc.so") || strstr(name, "ld-linux") ||
	    strstr(name, "linux-vdso"))
		return 0;
	for (; dyn->d_tag != DT_NULL; dyn++) {
		switch (dyn->d_tag) {
		case DT_SYMTAB:
			symtab = (const ElfW(Sym) *)got_dyn_ptr(base, dyn->d_un.d_ptr);
			break;
		case DT_STRTAB:
			strtab = (const char *)got_dyn_ptr(base, dyn->d_un.d_ptr);
			break;
		case DT_STRSZ:
			strsz = dyn->d_un.d_val;
			break;
		case DT_JMPREL:
			jmprel = (const ElfW(Rela) *)got_dyn_ptr(base, dyn->d_un.d_ptr);
			break;
		case DT_PLTRELSZ:
			pltsz = dyn->d_un.d_val;
			break;
		case DT_RELA:
			rela = (const ElfW(Rela) *)got_dyn_ptr(base, dyn->d_un.d_ptr);
			break;
		case DT_RELASZ:
			relasz = dyn->d_un.d_val;
			break;
		case DT_RELAENT:
			relaent = dyn->d_un.d_val;
			break;
		}
	}
	if (!symtab || !strtab || relaent != sizeof(ElfW(Rela)))
		return 0;
	if (jmprel)
		got_relocs(info, w, jmprel, pltsz / sizeof(ElfW(Rela)), symtab, strtab, strsz);
	if (rela)
		got_relocs(info, w, rela, relasz / sizeof(ElfW(Rela)), symtab, strtab, strsz);
	return 0;
}

void agent_probe_got_view(int trap_blocked)
{
	int32_t tid, free_tid = 0;

	if (!__atomic_load_n(&got_on, __ATOMIC_ACQUIRE))
		return;
	tid = (int32_t)syscall(SYS_gettid);
	for (uint32_t i = 0; i < PROBE_TRAP_VIEWS; i++)
		if (__atomic_load_n(&got_view_tid[i], __ATOMIC_ACQUIRE) == tid) {
			__atomic_store_n(&got_view_on[i], (uint8_t)!!trap_blocked,
					 __ATOMIC_RELEASE);
			return;
		}
	if (!trap_blocked)
		return;
	for (uint32_t i = 0; i < PROBE_TRAP_VIEWS; i++) {
		free_tid = 0;
		if (__atomic_compare_exchange_n(&got_view_tid[i], &free_tid, tid, 0,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
			__atomic_store_n(&got_view_on[i], 1, __ATOMIC_RELEASE);
			return;
		}
	}
}

uint32_t agent_probe_got_views(int32_t *tids, uint32_t max)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < PROBE_TRAP_VIEWS && n < max; i++)
		if (__atomic_load_n(&got_view_on[i], __ATOMIC_ACQUIRE) && got_view_tid[i])
			tids[n++] = got_view_tid[i];
	return n;
}

/*
 * The system probes' names (sys:io, sys:mem while attached): each slot goes
 * to the agent's exported function of that name (looked up in the agent's
 * own handle: its GOT, like the program's, holds libc's), which counts and
 * calls libc's. Only where the process's global definition is libc's: a
 * program that interposes one of them (a preloaded allocator, its own
 * write) keeps every call going where it went, even through a lazy PLT
 * stub not resolved yet; for the allocator, all of it or none, and only
 * when the agent's next allocator is libc's too (agent_sys_mem_next_is): a
 * block must be freed by the allocator that made it.
 */
static void got_sys_targets(struct got_walk *w, unsigned sys)
{
	void *self = NULL;
	Dl_info di;
	void *lm = NULL;
	int mem_ok = 1;

	/* dladdr1, not dladdr: the agent's imports are an allowlist (test 20) */
	if (dladdr1((void *)agent_probe_got_redirect, &di, &lm, RTLD_DL_LINKMAP) && di.dli_fname)
		self = dlopen(di.dli_fname, RTLD_NOW | RTLD_NOLOAD);
	if (!self) {
		agent_log("probe: the agent's own handle is not found: sys:io and sys:mem count "
			  "nothing");
		return;
	}
	for (size_t k = 0; k < GOT_NAMES; k++) {
		void *global;

		if (!(got_names[k].sys & sys) || !w->libc_fn[k])
			continue;
		global = dlsym(RTLD_DEFAULT, got_names[k].name);
		if (global != (void *)w->libc_fn[k]) {
			agent_log("probe: %s is not libc's in this process: not counted",
				  got_names[k].name);
			if (got_names[k].sys == SYS_W_MEM)
				mem_ok = 0;
			continue;
		}
		w->fn[k] = (uintptr_t)dlsym(self, got_names[k].name);
	}
	if (sys & SYS_W_MEM) {
		uintptr_t lm = 0, lf = 0;

		for (size_t k = 0; k < GOT_NAMES; k++) {
			if (got_names[k].sys == SYS_W_MEM && !w->fn[k])
				mem_ok = 0;
			if (!strcmp(got_names[k].name, "malloc"))
				lm = w->libc_fn[k];
			if (!strcmp(got_names[k].name, "free"))
				lf = w->libc_fn[k];
		}
		if (mem_ok && !agent_sys_mem_next_is((void *)lm, (void *)lf))
			mem_ok = 0;
		if (!mem_ok) {
			agent_log("probe: the allocator is not libc's alone: sys:mem counts nothing");
			for (size_t k = 0; k < GOT_NAMES; k++)
				if (got_names[k].sys == SYS_W_MEM)
					w->fn[k] = 0;
		}
	}
	for (size_t k = 0; k < GOT_NAMES; k++)
		if (w->fn[k])
			got_sys_done |= got_names[k].sys;
	dlclose(self); /* only the reference NOLOAD took */
}

uint32_t agent_probe_got_redirect(void)
{
	/* (once every name, always: the views noted so far stay right) */
	int all = agent_probe_trap_live() || got_all;
	struct got_walk w = {(uintptr_t)(void *)agent_probe_got_redirect, all, 0, {0}, {0}};
	void *libc;

	if (__atomic_load_n(&agent_sys_io_on, __ATOMIC_ACQUIRE))
		w.sys |= SYS_W_IO;
	if (agent_sys_mem_on())
		w.sys |= SYS_W_MEM;
	if (got_n && (got_all || !all) && w.sys == got_sys)
		return got_n;
	/* clone only so far, or the system probes changed (an add or a
	 * delete of sys:io, sys:mem while attached): every slot back, then
	 * the names wanted now; every thread is stopped meanwhile */
	if (got_n)
		agent_probe_got_restore();
	libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	got_all = all;
	got_sys = w.sys;
	got_sys_done = 0;
	got_sys_n = 0;
	for (size_t k = 0; libc && k < GOT_NAMES; k++) {
		w.libc_fn[k] = (uintptr_t)dlsym(libc, got_names[k].name);
		w.fn[k] = (uintptr_t)got_names[k].fn;
		/* before any slot points at a twin that calls it */
		if (got_names[k].real >= 0 && w.libc_fn[k])
			agent_probe_got_real[got_names[k].real] = (void *)w.libc_fn[k];
	}
	if (libc && w.sys)
		got_sys_targets(&w, w.sys);
	__atomic_store_n(&got_on, all, __ATOMIC_RELEASE);
	dl_iterate_phdr(got_module, &w);
	if (libc)
		dlclose(libc); /* only the reference NOLOAD took */
	agent_log("probe: %u GOT slots of the signal-mask%s calls sent to the agent", got_n,
		  w.sys ? ", I/O and allocator" : "");
	return got_n;
}

void agent_probe_got_restore(void)
{
	for (uint32_t i = 0; i < got_n; i++) {
		struct got_slot *g = &got_slots[i];
		int relro = g->relro;

		/* A slot the program rewrote since (its own hook) stays its own. */
		if (__atomic_load_n(g->slot, __ATOMIC_ACQUIRE) == g->now)
			got_write(g->slot, g->old, &relro);
	}
	got_n = 0;
	got_all = 0;
	got_sys = got_sys_done = 0;
	got_sys_n = 0;
	__atomic_store_n(&got_on, 0, __ATOMIC_RELEASE);
}

unsigned agent_probe_got_sys(uint32_t *slots)
{
	*slots = got_sys_n;
	return got_sys_done;
}
