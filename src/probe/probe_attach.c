// SPDX-License-Identifier: MIT
/*
 * probe_attach.c - ptrace side of spool probe -p PID (probe_attach.h).
 *
 * Stopping: every task of /proc/PID/task is seized (PTRACE_SEIZE) and
 * interrupted (PTRACE_INTERRUPT), the list re-read until no new thread
 * appears. A thread that reports a signal instead of the interrupt stop is
 * stopped too; the signal is held back and handed over when it is let go.
 *
 * Calling a function in the target: on the main thread, with its registers
 * and its whole extended state saved; a string argument is written below
 * the red zone of its stack, and the return address is 0, so that the
 * function's return faults at address 0 (SIGSEGV): that stop is the end of
 * the call. The system call a thread was interrupted in is forgotten for
 * the call, so that its restart does not run at the function; the saved
 * registers (and the restart) come back afterwards. What differs per CPU
 * (registers, the extended state, how the return address is given, the
 * trap instructions' pc) is behind src/arch/arch_ptrace.h: x86-64 and
 * aarch64. dlopen is found in the target's libc (glibc >= 2.34) or as
 * __libc_dlopen_mode (older), from its .dynsym and the load bias read in
 * /proc/PID/maps.
 */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../arch/arch_ptrace.h"
#include "../util/log.h"
#include "../util/procinfo.h"
#include "probe_attach.h"

/* ---- maps and symbols ---- */

struct attach_map {
	uint64_t start, offset;
	char path[PATH_MAX];
};

/* Calls cb for each file-backed line of /proc/PID/maps; stops when it
 * returns non-zero and returns that. */
static int attach_maps(pid_t pid, int (*cb)(const struct attach_map *m, void *arg), void *arg)
{
	char fn[64], line[PATH_MAX + 128];
	FILE *f;
	int rc = 0;

	snprintf(fn, sizeof(fn), "/proc/%d/maps", (int)pid);
	f = fopen(fn, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	while (!rc && fgets(line, sizeof(line), f)) {
		struct attach_map m;
		unsigned long long s, e, off;
		int pos = 0;

		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %n", &s, &e, &off, &pos) < 3 || !pos)
			continue;
		if (line[pos] != '/')
			continue;
		m.start = s;
		m.offset = off;
		snprintf(m.path, sizeof(m.path), "%s", line + pos);
		m.path[strcspn(m.path, "\n")] = 0;
		rc = cb(&m, arg);
	}
	fclose(f);
	return rc;
}

struct attach_find {
	const char *file; /* exact path, or NULL */
	const char *base; /* basename to match when file is NULL */
	uint64_t start;
	char path[PATH_MAX];
};

static int attach_find_cb(const struct attach_map *m, void *arg)
{
	struct attach_find *f = arg;
	const char *b = strrchr(m->path, '/');

	if (m->offset)
		return 0;
	if (f->file ? strcmp(m->path, f->file) : strcmp(b ? b + 1 : m->path, f->base))
		return 0;
	f->start = m->start;
	snprintf(f->path, sizeof(f->path), "%s", m->path);
	return 1;
}

/* Open an ELF file of the target (through /proc/PID/root: its mount
 * namespace may differ from ours). */
static int attach_elf_open(pid_t pid, const char *path, int *fd, Elf **elf)
{
	char p[PATH_MAX + 32];

	snprintf(p, sizeof(p), "/proc/%d/root%s", (int)pid, path);
	*fd = open(p, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	*elf = elf_begin(*fd, ELF_C_READ, NULL);
	if (!*elf) {
		close(*fd);
		return -ENOEXEC;
	}
	return 0;
}

/* Lowest PT_LOAD address, page aligned: the bias is its mapping's start
 * minus this. */
static uint64_t attach_elf_vbase(Elf *elf)
{
	size_t n = 0;
	uint64_t lo = UINT64_MAX;

	if (elf_getphdrnum(elf, &n))
		return 0;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && ph.p_vaddr < lo)
			lo = ph.p_vaddr;
	}
	return lo == UINT64_MAX ? 0 : lo & ~4095ull;
}

static uint64_t attach_elf_dynsym(Elf *elf, const char *name)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *n;

			if (!gelf_getsym(d, (int)i, &s) || !s.st_value ||
			    GELF_ST_TYPE(s.st_info) != STT_FUNC)
				continue;
			n = elf_strptr(elf, sh.sh_link, s.st_name);
			if (n && !strcmp(n, name))
				return s.st_value;
		}
	}
	return 0;
}

/* Address of an exported function of the module mapped from file (or
 * whose basename is base) in the target; 0 if not found. */
static uint64_t attach_sym(pid_t pid, const char *file, const char *base, const char *name)
{
	struct attach_find f = {.file = file, .base = base};
	uint64_t v = 0;
	Elf *elf;
	int fd;

	if (attach_maps(pid, attach_find_cb, &f) != 1)
		return 0;
	if (attach_elf_open(pid, f.path, &fd, &elf))
		return 0;
	v = attach_elf_dynsym(elf, name);
	if (v)
		v = f.start - attach_elf_vbase(elf) + v;
	elf_end(elf);
	close(fd);
	return v;
}

int probe_attach_module_base(pid_t pid, const char *file, uint64_t *base)
{
	struct attach_find f = {.file = file};
	Elf *elf;
	int fd, rc;

	*base = 0;
	rc = attach_maps(pid, attach_find_cb, &f);
	if (rc < 0)
		return rc;
	if (rc != 1)
		return -ENOENT;
	rc = attach_elf_open(pid, f.path, &fd, &elf);
	if (rc)
		return rc;
	*base = f.start - attach_elf_vbase(elf);
	elf_end(elf);
	close(fd);
	return 0;
}

struct attach_libs {
	char **v;
	size_t n;
	const char *exe;
	int err;
};

static int attach_libs_cb(const struct attach_map *m, void *arg)
{
	struct attach_libs *l = arg;
	char **nv;

	if (m->offset || !strcmp(m->path, l->exe) || !strstr(m->path, ".so"))
		return 0;
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], m->path))
			return 0;
	nv = realloc(l->v, (l->n + 1) * sizeof(*nv));
	if (!nv || !(nv[l->n] = strdup(m->path))) {
		if (nv)
			l->v = nv;
		l->err = -ENOMEM;
		return 1;
	}
	l->v = nv;
	l->n++;
	return 0;
}

int probe_attach_libs(pid_t pid, char ***libs, size_t *nlibs)
{
	char fn[64], exe[PATH_MAX];
	struct attach_libs l = {.exe = exe};
	ssize_t n;
	int rc;

	snprintf(fn, sizeof(fn), "/proc/%d/exe", (int)pid);
	n = readlink(fn, exe, sizeof(exe) - 1);
	if (n < 0)
		return -errno;
	exe[n] = 0;
	rc = attach_maps(pid, attach_libs_cb, &l);
	if (rc < 0 || l.err) {
		for (size_t i = 0; i < l.n; i++)
			free(l.v[i]);
		free(l.v);
		return rc < 0 ? rc : l.err;
	}
	*libs = l.v;
	*nlibs = l.n;
	return 0;
}

/* ---- stopping and resuming ---- */

static int attach_has(const struct probe_attach *a, pid_t tid)
{
	for (size_t i = 0; i < a->ntids; i++)
		if (a->tids[i] == tid)
			return 1;
	return 0;
}

#define ATTACH_SI_SUD 2 /* SIGSYS si_code SYS_USER_DISPATCH */

/*
 * A SIGSYS of syscall user dispatch (on while int3 probes are in: the
 * agent's handler makes the call) that reached a stop: held back and sent
 * again at the detach it would come with a ptrace siginfo, which the
 * agent's handler takes for a foreign SIGSYS (the program's disposition: a
 * core dump by default), and dispatch may be off by then. The kernel rolled
 * the call back (rax is its number again, nothing ran): the thread is
 * moved back onto its `syscall` instruction, which runs again at resume,
 * dispatched or not. *ip is the thread's ip (after the instruction);
 * returns 1 when moved.
 */
static int attach_sud_rewind(pid_t tid, uint64_t *ip)
{
	uint64_t at = arch_ptrace_syscall_before(tid, *ip);

	if (!at)
		return 0;
	*ip = at;
	return 1;
}

/* Wait until tid is in a stop; a signal it reports instead is held back
 * (sig). Returns -ESRCH if it exited. */
static int attach_wait_stop(pid_t tid, int *sig, uint64_t *trap_ip)
{
	int st;

	for (;;) {
		pid_t r = waitpid(tid, &st, __WALL);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno == -ECHILD ? -ESRCH : -errno;
		}
		if (WIFEXITED(st) || WIFSIGNALED(st))
			return -ESRCH;
		if (!WIFSTOPPED(st))
			continue;
		if ((st >> 16) == PTRACE_EVENT_STOP)
			return 0; /* the interrupt (or a group-stop) */
		/* A signal-delivery stop: stopped all the same; keep the signal. */
		if (sig && !*sig) {
			siginfo_t si;
			struct arch_ptrace_regs regs;

			*sig = WSTOPSIG(st);
			if (trap_ip && *sig == SIGTRAP && !ptrace(PTRACE_GETSIGINFO, tid, 0, &si) &&
			    arch_ptrace_is_trap(&si) && !arch_ptrace_get(tid, &regs))
				*trap_ip = arch_ptrace_pc(&regs);
			if (*sig == SIGSYS && !ptrace(PTRACE_GETSIGINFO, tid, 0, &si) &&
			    si.si_code == ATTACH_SI_SUD && !arch_ptrace_get(tid, &regs)) {
				uint64_t ip = arch_ptrace_pc(&regs);

				if (attach_sud_rewind(tid, &ip)) {
					arch_ptrace_set_pc(&regs, ip);
					if (!arch_ptrace_set(tid, &regs))
						*sig = 0; /* dropped: the call runs again */
				}
			}
		}
		return 0;
	}
}

/*
 * A task of pid that has ended: gone from /proc, or a zombie the kernel has
 * not reaped yet (state Z or X). PTRACE_SEIZE of such a thread fails with
 * EPERM, not ESRCH (the kernel refuses a task with an exit state), which is
 * not the user's permission problem: a program that makes and ends threads
 * all the time has one of them at almost any moment.
 */
static int attach_task_ended(pid_t pid, pid_t tid)
{
	int st = procinfo_task_state(pid, tid);

	return st == -ENOENT || st == -ESRCH || st == 'Z' || st == 'X';
}

/*
 * Seize and interrupt every task of /proc/PID/task not in a yet, the list
 * re-read until no new one appears; then wait for each new one's stop.
 * Returns the tasks added, or -errno.
 */
static int attach_seize_new(struct probe_attach *a, const char *dir)
{
	size_t first = a->ntids;
	int added, total = 0, rc;

	do {
		DIR *d = opendir(dir);
		struct dirent *e;

		if (!d)
			return errno == ENOENT ? -ESRCH : -errno;
		added = 0;
		while ((e = readdir(d))) {
			pid_t tid = (pid_t)atoi(e->d_name);

			if (tid <= 0 || attach_has(a, tid))
				continue;
			if (a->ntids == PROBE_ATTACH_MAX_TASKS) {
				closedir(d);
				return -E2BIG;
			}
			if (ptrace(PTRACE_SEIZE, tid, 0, 0) < 0) {
				rc = -errno;
				if (rc == -ESRCH ||
				    (rc == -EPERM && tid != a->pid && attach_task_ended(a->pid, tid)))
					continue; /* the thread just exited */
				closedir(d);
				return rc;
			}
			a->tids[a->ntids] = tid;
			a->sig[a->ntids] = 0;
			a->stopped[a->ntids] = 0;
			a->ntids++;
			added++;
			ptrace(PTRACE_INTERRUPT, tid, 0, 0);
		}
		closedir(d);
		total += added;
	} while (added);
	if (!a->ntids || !attach_has(a, a->pid))
		return -ESRCH;
	for (size_t i = first; i < a->ntids; i++) {
		a->trap_ip[i] = 0;
		rc = attach_wait_stop(a->tids[i], &a->sig[i], &a->trap_ip[i]);
		if (rc == -ESRCH && a->tids[i] != a->pid) {
			/* a thread that exited while stopping: forget it */
			a->tids[i] = a->tids[--a->ntids];
			a->sig[i] = a->sig[a->ntids];
			a->trap_ip[i] = a->trap_ip[a->ntids];
			i--;
			continue;
		}
		if (rc)
			return rc;
		a->stopped[i] = 1;
	}
	return total;
}

/*
 * A thread in the middle of a clone when it was seized stops only once the
 * call returns, and its child (not traced: no PTRACE_O_TRACECLONE) may
 * have been missing from the list read before. Once every task seen is
 * stopped none can make another, and a child made meanwhile is in the
 * list: it is read again until a pass adds nobody.
 */
int probe_attach_stop(struct probe_attach *a, pid_t pid)
{
	char dir[64];
	int rc;

	a->pid = pid;
	a->ntids = 0;
	snprintf(dir, sizeof(dir), "/proc/%d/task", (int)pid);
	if (kill(pid, 0) < 0)
		return -errno;
	do
		rc = attach_seize_new(a, dir);
	while (rc > 0);
	return rc;
}

int probe_attach_unwind_traps(struct probe_attach *a)
{
	int n = 0;

	for (size_t i = 0; i < a->ntids; i++) {
		struct arch_ptrace_regs regs;
		uint64_t at;

		if (a->sig[i] != SIGTRAP || !a->trap_ip[i] || !a->stopped[i])
			continue;
		/* int3 (BRK) still there: it traps again, with its own siginfo;
		 * gone (one of ours, restored): the instruction runs. x86-64's
		 * "int $3" (cd 03) is left to its signal. On aarch64 the pc is
		 * on the BRK already: only the signal is dropped. */
		at = arch_ptrace_trap_insn(a->tids[i], a->trap_ip[i]);
		if (!at)
			continue;
		if (arch_ptrace_get(a->tids[i], &regs) < 0 || arch_ptrace_pc(&regs) != a->trap_ip[i])
			continue;
		arch_ptrace_set_pc(&regs, at);
		if (arch_ptrace_set(a->tids[i], &regs) < 0)
			continue;
		a->sig[i] = 0;
		a->trap_ip[i] = 0;
		n++;
	}
	return n;
}

void probe_attach_resume(struct probe_attach *a)
{
	probe_attach_unwind_traps(a);
	for (size_t i = 0; i < a->ntids; i++)
		ptrace(PTRACE_DETACH, a->tids[i], 0, (void *)(long)a->sig[i]);
	a->ntids = 0;
}

/* ---- calling a function in the target ---- */

static int attach_poke(pid_t pid, uint64_t addr, const void *buf, size_t len)
{
	struct iovec l = {(void *)buf, len}, r = {(void *)addr, len};
	char fn[64];
	int fd;
	ssize_t n;

	if (process_vm_writev(pid, &l, 1, &r, 1, 0) == (ssize_t)len)
		return 0;
	/* /proc/PID/mem writes through the page protections (a traced task) */
	snprintf(fn, sizeof(fn), "/proc/%d/mem", (int)pid);
	fd = open(fn, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = pwrite(fd, buf, len, (off_t)addr);
	close(fd);
	return n == (ssize_t)len ? 0 : -EIO;
}

static int attach_call(struct probe_attach *a, pid_t tid, uint64_t fn, const char *str,
		       int64_t arg, int64_t arg2, int64_t *ret);

int probe_attach_call(struct probe_attach *a, uint64_t fn, const char *str, int64_t *ret)
{
	return probe_attach_call_in(a, a->pid, fn, str, 0, ret);
}

int probe_attach_call_in(struct probe_attach *a, pid_t tid, uint64_t fn, const char *str,
			 int64_t arg, int64_t *ret)
{
	return attach_call(a, tid, fn, str, arg, 2, ret);
}

int probe_attach_call_in2(struct probe_attach *a, pid_t tid, uint64_t fn, int64_t arg,
			  int64_t arg2, int64_t *ret)
{
	return attach_call(a, tid, fn, NULL, arg, arg2, ret);
}

/*
 * The siginfo of the signal held back for thread t (a->sig[t]) while the
 * thread still sits in the stop that reported it: the detach delivers the
 * signal from the stop the thread is in then (PTRACE_DETACH with it), with
 * that stop's siginfo when the numbers match. A call made in the thread
 * (it ends in a SIGSEGV at address 0) or a single step (a SIGTRAP) leaves
 * it in another stop: a held SIGSEGV of the program's own then reached its
 * handler with si_addr 0, or as SI_USER (tests/integ/281, status 70; 299).
 * So the siginfo is read before and put back after (attach_keep_si_put),
 * and a signal held during the call or the steps has its own read there.
 * 1 when kept.
 */
static int attach_keep_si(struct probe_attach *a, size_t t, siginfo_t *si)
{
	return a->sig[t] && ptrace(PTRACE_GETSIGINFO, a->tids[t], 0, si) == 0 &&
	       si->si_signo == a->sig[t];
}

static void attach_keep_si_put(struct probe_attach *a, size_t t, const siginfo_t *si, int kept)
{
	if (kept && a->sig[t] == si->si_signo)
		ptrace(PTRACE_SETSIGINFO, a->tids[t], 0, si);
}

/* A fault reported at the called function's first instruction is the
 * thread's own, pending from before, unless it is the call's first push
 * (its address near the call's stack pointer sp) or a signal sent. */
static int attach_fault_before(const siginfo_t *si, uint64_t sp)
{
	uint64_t at = (uint64_t)(uintptr_t)si->si_addr;

	if (si->si_code <= 0)
		return 1; /* sent (kill, tgkill, sigqueue): not the call's */
	return si->si_signo != SIGSEGV || at > sp + 64 || at + 4096 < sp;
}

static size_t attach_tid_index(const struct probe_attach *a, pid_t tid)
{
	for (size_t i = 0; i < a->ntids; i++)
		if (a->tids[i] == tid)
			return i;
	return SIZE_MAX;
}

/* fn(arg or str, arg2) in tid (probe_attach_call_in). */
static int attach_call(struct probe_attach *a, pid_t tid, uint64_t fn, const char *str,
		       int64_t arg, int64_t arg2, int64_t *ret)
{
	struct arch_ptrace_ext xs = {0};
	struct arch_ptrace_regs saved, r;
	uint64_t sp, mask = 0, a0 = (uint64_t)arg, saved_pc;
	int have_mask, rc, rc2, held = 0, kept = 0, fault_before = 0;
	size_t t = attach_tid_index(a, tid);
	siginfo_t keep;

	rc = arch_ptrace_get(tid, &saved);
	if (rc)
		return rc;
	saved_pc = arch_ptrace_pc(&saved);
	log_debug("pid %d: a call into thread %d, stopped at pc 0x%llx", (int)a->pid, (int)tid,
		  (unsigned long long)saved_pc);
	if (t != SIZE_MAX)
		kept = attach_keep_si(a, t, &keep);
	/* Its floating-point and vector state, put back after the call: a
	 * call whose state spool cannot read is not made (the called code
	 * would change registers the program has live) */
	rc = arch_ptrace_ext_save(tid, &xs);
	if (rc < 0) {
		log_err("pid %d: thread %d: its vector registers cannot be read (%s): no call "
			"into it",
			(int)a->pid, (int)tid, strerror(-rc));
		return rc;
	}
	/* The call ends with a SIGSEGV at address 0. Were SIGSEGV blocked,
	 * the kernel would unblock it for good and reset the program's
	 * handler to the default: it is unblocked for the call only, and the
	 * thread's mask put back after. */
	have_mask = ptrace(PTRACE_GETSIGMASK, tid, (void *)sizeof(mask), &mask) == 0;
	if (have_mask && ((mask >> (SIGSEGV - 1)) & 1)) {
		uint64_t m = mask & ~(1ull << (SIGSEGV - 1));

		ptrace(PTRACE_SETSIGMASK, tid, (void *)sizeof(m), &m);
	}
	r = saved;
	sp = (arch_ptrace_sp(&saved) - 1024) & ~15ull;
	if (str) {
		size_t len = strlen(str) + 1;

		sp = (sp - len) & ~15ull;
		rc = attach_poke(tid, sp, str, len);
		if (rc)
			goto out_restore;
		a0 = sp;
	}
	/* arg2 2: RTLD_NOW, for dlopen */
	rc = arch_ptrace_call_setup(tid, &r, fn, a0, (uint64_t)arg2, sp, attach_poke);
	if (rc)
		goto out_restore;
	sp = arch_ptrace_sp(&r);
	rc = arch_ptrace_set(tid, &r);
	if (rc)
		goto out_restore;
	for (int pass = 0;;) {
		int st, sig;
		siginfo_t si;

		if (ptrace(PTRACE_CONT, tid, 0, (void *)(long)pass) < 0) {
			rc = -errno;
			goto out_restore;
		}
		if (waitpid(tid, &st, __WALL) < 0) {
			rc = errno == ECHILD ? -ESRCH : -errno;
			goto out_free;
		}
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			rc = -ESRCH;
			goto out_free;
		}
		if (!WIFSTOPPED(st))
			continue;
		sig = WSTOPSIG(st);
		if ((st >> 16) == PTRACE_EVENT_STOP)
			continue;
		rc = arch_ptrace_get(tid, &r);
		if (rc)
			goto out_restore;
		if (sig == SIGSEGV && arch_ptrace_pc(&r) == 0)
			break; /* returned to 0: done */
		if ((sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE) &&
		    arch_ptrace_pc(&r) == fn && !fault_before && !ptrace(PTRACE_GETSIGINFO, tid, 0, &si) &&
		    attach_fault_before(&si, sp)) {
			/* The thread's own fault, pending from before the stop
			 * (the interrupt was reported first; fault_spin, tests/
			 * integ/299): not the call's. Held with its siginfo and
			 * delivered at the detach, where the thread is back on
			 * the faulting instruction; before, spool gave up the
			 * attach ("the call faulted"). One already held: this
			 * one comes again when the instruction runs again. Once:
			 * the same fault again is the call's. */
			fault_before = 1;
			if (t != SIZE_MAX && !a->sig[t]) {
				a->sig[t] = sig;
				keep = si;
				kept = 1;
			}
			held = 1;
			pass = 0;
			continue;
		}
		if (sig == SIGSEGV || sig == SIGBUS || sig == SIGILL) {
			log_err("the call into pid %d faulted (signal %d at 0x%llx)", (int)a->pid, sig,
				(unsigned long long)arch_ptrace_pc(&r));
			rc = -EFAULT;
			goto out_restore;
		}
		pass = 0;
		if (sig == SIGSYS && !ptrace(PTRACE_GETSIGINFO, tid, 0, &si) &&
		    si.si_code == ATTACH_SI_SUD) {
			/* Pending from before the stop (the thread's own call,
			 * rolled back): it runs again after the call (see
			 * attach_sud_rewind). Raised by the called code (the
			 * agent's, with dispatch on): its handler makes it. */
			if (arch_ptrace_pc(&r) == fn) {
				attach_sud_rewind(tid, &saved_pc);
			} else {
				pass = SIGSYS;
			}
			continue;
		}
		if (sig == SIGTRAP && !ptrace(PTRACE_GETSIGINFO, tid, 0, &si) &&
		    arch_ptrace_is_trap(&si)) {
			/* An int3's (BRK's) trap. Pending from before the stop
			 * (the thread's own code hit it; the interrupt was
			 * reported first): kept, and the thread goes back onto
			 * the int3 at resume (probe_attach_unwind_traps), since a
			 * trap sent again would come with a ptrace siginfo the
			 * agent does not take for an int3. Hit by the call
			 * itself (a probe in code it runs): the agent's handler
			 * takes it now. */
			if (arch_ptrace_pc(&r) == fn) {
				for (size_t i = 0; i < a->ntids; i++) {
					uint64_t at;

					if (a->tids[i] != tid)
						continue;
					at = arch_ptrace_trap_insn(tid, saved_pc);
					if (!a->sig[i]) {
						a->sig[i] = SIGTRAP;
						a->trap_ip[i] = saved_pc;
					} else if (at && arch_ptrace_trap_at(tid, at)) {
						/* a signal is held already: back
						 * onto the int3 now (as unwind) */
						saved_pc = at;
					}
				}
				held = 1;
			} else {
				pass = SIGTRAP;
			}
			continue;
		}
		/* Another signal: hold it back (delivered at the detach), with
		 * its siginfo (put back in the stop the call ends in) */
		if (!held) {
			if (t != SIZE_MAX && !a->sig[t]) {
				a->sig[t] = sig;
				kept = ptrace(PTRACE_GETSIGINFO, tid, 0, &keep) == 0;
			}
			held = 1;
		}
	}
	*ret = (int64_t)arch_ptrace_ret(&r);
	rc = 0;
out_restore:
	if (have_mask)
		ptrace(PTRACE_SETSIGMASK, tid, (void *)sizeof(mask), &mask);
	if (t != SIZE_MAX)
		attach_keep_si_put(a, t, &keep, kept);
	arch_ptrace_set_pc(&saved, saved_pc);
	rc2 = arch_ptrace_set(tid, &saved);
	if (rc2 < 0) {
		rc = rc2;
		goto out_free;
	}
	rc2 = arch_ptrace_ext_restore(tid, &xs);
	if (rc2 < 0) {
		/* said: its vector registers are the called code's now */
		log_err("pid %d: thread %d: its vector registers could not be put back after "
			"a call (%s)",
			(int)a->pid, (int)tid, strerror(-rc2));
		if (!rc)
			rc = rc2;
	}
out_free:
	arch_ptrace_ext_free(&xs);
	return rc;
}

int probe_attach_load_agent(struct probe_attach *a, const char *agent)
{
	uint64_t fn = attach_sym(a->pid, NULL, "libc.so.6", "dlopen");
	int64_t h = 0;
	int rc;

	if (!fn)
		fn = attach_sym(a->pid, NULL, "libc.so.6", "__libc_dlopen_mode");
	if (!fn) {
		log_err("pid %d: no dlopen in its libc (a static program, or not glibc)",
			(int)a->pid);
		return -ENOEXEC;
	}
	rc = probe_attach_call(a, fn, agent, &h);
	if (rc)
		return rc;
	if (!h) {
		log_err("pid %d: dlopen(\"%s\") failed in the target (static TLS exhausted, or "
			"the file is not readable from its mount namespace)",
			(int)a->pid, agent);
		return -ENOEXEC;
	}
	a->fn_prepare = attach_sym(a->pid, agent, NULL, "spool_agent_probe_prepare");
	a->fn_commit = attach_sym(a->pid, agent, NULL, "spool_agent_probe_commit");
	a->fn_detach = attach_sym(a->pid, agent, NULL, "spool_agent_probe_detach");
	a->fn_ctl = attach_sym(a->pid, agent, NULL, "spool_agent_probe_ctl");
	a->fn_dispatch = attach_sym(a->pid, agent, NULL, "spool_agent_probe_dispatch");
	a->fn_thread_out = attach_sym(a->pid, agent, NULL, "spool_agent_probe_thread_out");
	a->fn_release = arch_ptrace_release_stop() ?
			    attach_sym(a->pid, agent, NULL, "spool_agent_probe_release") :
			    0;
	if (!a->fn_prepare || !a->fn_commit || !a->fn_detach) {
		log_err("pid %d: the agent loaded but its attach entry points are missing",
			(int)a->pid);
		return -ENOEXEC;
	}
	return 0;
}

/*
 * Single-step tid until it is outside every range. A step ends with a
 * SIGTRAP the kernel forces on the thread: were SIGTRAP blocked, the
 * kernel would unblock it for good and reset the program's handler to the
 * default (force_sig_info_to_task), and spool drops the signal, so the
 * program would run on with its mask and its handler changed (a mask read
 * back wrong, 1 attach in 10 under load: tests/integ/46). So SIGTRAP is
 * left out of the thread's mask while it steps, and the mask it had comes
 * back after; a SIGTRAP the program ignores (also reset by the kernel) is
 * put back by the agent at commit (agent_probe.c, spool_agent_probe_commit).
 */
static int attach_step_out(struct probe_attach *a, size_t t, const uint64_t *lo,
			   const uint64_t *hi, size_t n)
{
	pid_t tid = a->tids[t];
	uint64_t mask = 0, m;
	int have_mask = 0, rc = 0, steps = 0, kept;
	siginfo_t keep;

	kept = attach_keep_si(a, t, &keep);
	for (int step = 0; step < 10000; step++) {
		struct arch_ptrace_regs r;
		int inside = 0, st;
		uint64_t pc;

		rc = arch_ptrace_get(tid, &r);
		if (rc)
			goto out_mask;
		pc = arch_ptrace_pc(&r);
		for (size_t i = 0; i < n && !inside; i++)
			inside = pc > lo[i] && pc < hi[i];
		if (!inside)
			break;
		if (step == 9999) {
			rc = -EBUSY;
			goto out_mask;
		}
		if (!have_mask && ptrace(PTRACE_GETSIGMASK, tid, (void *)sizeof(mask), &mask) == 0) {
			have_mask = 1;
			m = mask & ~(1ull << (SIGTRAP - 1));
			if (m != mask)
				ptrace(PTRACE_SETSIGMASK, tid, (void *)sizeof(m), &m);
		}
		if (ptrace(PTRACE_SINGLESTEP, tid, 0, 0) < 0) {
			rc = -errno;
			goto out_mask;
		}
		steps++;
		if (waitpid(tid, &st, __WALL) < 0 || WIFEXITED(st) || WIFSIGNALED(st))
			return -ESRCH;
		if (WIFSTOPPED(st) && WSTOPSIG(st) != SIGTRAP && !a->sig[t]) {
			a->sig[t] = WSTOPSIG(st);
			kept = ptrace(PTRACE_GETSIGINFO, tid, 0, &keep) == 0;
		}
	}
	if (steps)
		log_debug("pid %d: thread %d single-stepped %d times out of a probed range",
			  (int)a->pid, (int)tid, steps);
out_mask:
	/* The mask the thread had, SIGTRAP included. */
	if (have_mask)
		ptrace(PTRACE_SETSIGMASK, tid, (void *)sizeof(mask), &mask);
	attach_keep_si_put(a, t, &keep, kept);
	return rc;
}

int probe_attach_leave_ranges(struct probe_attach *a, const uint64_t *lo, const uint64_t *hi,
			      size_t n)
{
	for (size_t t = 0; t < a->ntids; t++) {
		int rc = attach_step_out(a, t, lo, hi, n);

		if (rc < 0)
			return rc;
	}
	return 0;
}

/* The path of the mapping of /proc/PID/maps that holds addr ("" when none,
 * or an anonymous one). */
static void attach_path_at(pid_t pid, uint64_t addr, char *path, size_t size)
{
	char fn[64], line[PATH_MAX + 128];
	FILE *f;

	path[0] = 0;
	snprintf(fn, sizeof(fn), "/proc/%d/maps", (int)pid);
	f = fopen(fn, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long s, e;
		int pos = 0;

		if (sscanf(line, "%llx-%llx %*s %*s %*s %*s %n", &s, &e, &pos) < 2 || !pos)
			continue;
		if (addr < s || addr >= e)
			continue;
		if (line[pos] == '/') {
			snprintf(path, size, "%s", line + pos);
			path[strcspn(path, "\n")] = 0;
		}
		break;
	}
	fclose(f);
}

/*
 * The stopped threads whose pc is inside a mapping of file (its real
 * path, as the kernel names it in /proc/PID/maps): up to max of their
 * tids into out; returns how many. The detach (spool probe -p) waits for
 * the probe hits of the threads stopped in the agent's code to finish
 * (probe_settle.c). The ranges are read once: at most 32 mappings.
 */
size_t probe_attach_threads_in(const struct probe_attach *a, const char *file, pid_t *out,
			       size_t max)
{
	char fn[64], real[PATH_MAX], line[PATH_MAX + 128];
	uint64_t lo[32], hi[32];
	size_t nr = 0, n = 0;
	FILE *f;

	if (!realpath(file, real))
		return 0;
	snprintf(fn, sizeof(fn), "/proc/%d/maps", (int)a->pid);
	f = fopen(fn, "re");
	if (!f)
		return 0;
	while (nr < 32 && fgets(line, sizeof(line), f)) {
		unsigned long long s, e;
		int pos = 0;

		if (sscanf(line, "%llx-%llx %*s %*s %*s %*s %n", &s, &e, &pos) < 2 || !pos)
			continue;
		line[strcspn(line, "\n")] = 0;
		if (strcmp(line + pos, real))
			continue;
		lo[nr] = s;
		hi[nr++] = e;
	}
	fclose(f);
	for (size_t t = 0; t < a->ntids && n < max && nr; t++) {
		struct arch_ptrace_regs r;
		uint64_t pc;
		int in = 0;

		if (!a->stopped[t] || arch_ptrace_get(a->tids[t], &r) < 0)
			continue;
		pc = arch_ptrace_pc(&r);
		for (size_t i = 0; i < nr && !in; i++)
			in = pc >= lo[i] && pc < hi[i];
		if (in)
			out[n++] = a->tids[t];
	}
	return n;
}

/*
 * Called before the dlopen of the agent: ffmpeg attached 0.1 s after its
 * start was stopped in ld.so (relocating its 137 libraries); the dlopen
 * called there faulted in libc (not ready yet) holding gettext's lock,
 * spool gave up the attach, and ffmpeg hung for good at its next
 * bindtextdomain (tests/real/146-ffmpeg-threads-all.t). The loader is
 * found by AT_BASE of /proc/PID/auxv: the file mapped there.
 */
int probe_attach_in_loader(const struct probe_attach *a, pid_t tid)
{
	char fn[64], ld[PATH_MAX], at[PATH_MAX];
	uint64_t aux[2], base = 0;
	struct arch_ptrace_regs r;
	FILE *f;

	if (arch_ptrace_get(tid, &r) < 0)
		return 0;
	snprintf(fn, sizeof(fn), "/proc/%d/auxv", (int)a->pid);
	f = fopen(fn, "re");
	if (!f)
		return 0;
	while (fread(aux, sizeof(aux), 1, f) == 1 && aux[0] != AT_NULL) {
		if (aux[0] == AT_BASE) {
			base = aux[1];
			break;
		}
	}
	fclose(f);
	if (!base)
		return 0; /* a static program: no loader */
	attach_path_at(a->pid, base, ld, sizeof(ld));
	attach_path_at(a->pid, arch_ptrace_pc(&r), at, sizeof(at));
	return ld[0] && !strcmp(ld, at);
}

/* SigPnd (signals pending for the thread itself) and SigBlk of
 * /proc/PID/task/TID/status, 0 where the file or a line is missing (a
 * thread gone: nothing pending, nothing blocked). SigPnd comes before
 * SigBlk in the file. */
static void attach_sig_masks(pid_t pid, pid_t tid, unsigned long long *pnd,
			     unsigned long long *blk)
{
	char fn[96], line[256];
	FILE *f;

	*pnd = *blk = 0;
	snprintf(fn, sizeof(fn), "/proc/%d/task/%d/status", (int)pid, (int)tid);
	f = fopen(fn, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "SigPnd: %llx", pnd) == 1)
			continue;
		if (sscanf(line, "SigBlk: %llx", blk) == 1)
			break;
	}
	fclose(f);
}

/* Does the thread block SIGTRAP? */
static int attach_blocks_trap(pid_t pid, pid_t tid)
{
	unsigned long long pnd, blk;

	attach_sig_masks(pid, tid, &pnd, &blk);
	return (blk >> (SIGTRAP - 1)) & 1;
}

/* A SIGTRAP pending for the thread itself and not blocked: the trap of a
 * BRK it hit just before the stop, which the kernel delivers when it runs. */
static int attach_trap_pending(pid_t pid, pid_t tid)
{
	unsigned long long pnd, blk;

	attach_sig_masks(pid, tid, &pnd, &blk);
	return ((pnd & ~blk) >> (SIGTRAP - 1)) & 1;
}

int probe_attach_trap_busy(const struct probe_attach *a, const char *agent, pid_t *tid,
			   const char **why)
{
	pid_t in_agent;

	for (size_t i = 0; i < a->ntids; i++) {
		struct arch_ptrace_regs r;

		if (!a->stopped[i])
			continue;
		*tid = a->tids[i];
		if (attach_trap_pending(a->pid, a->tids[i])) {
			*why = "has a SIGTRAP pending";
			return 1;
		}
		if (arch_ptrace_get(a->tids[i], &r) == 0 && arch_ptrace_trap_ahead(a->tids[i], &r)) {
			*why = "is on a BRK, an out-of-line slot or a sigreturn";
			return 1;
		}
	}
	if (probe_attach_threads_in(a, agent, &in_agent, 1)) {
		*tid = in_agent;
		*why = "is in the agent's code";
		return 1;
	}
	return 0;
}

int probe_attach_block_trap(const struct probe_attach *a, pid_t tid)
{
	return probe_attach_block_sig(a, tid, SIGTRAP);
}

int probe_attach_block_sig(const struct probe_attach *a, pid_t tid, int sig)
{
	uint64_t mask;

	for (size_t i = 0; i < a->ntids; i++) {
		if (a->tids[i] != tid || !a->stopped[i])
			continue;
		if (ptrace(PTRACE_GETSIGMASK, tid, (void *)sizeof(mask), &mask) < 0)
			return -errno;
		mask |= 1ull << (sig - 1);
		if (ptrace(PTRACE_SETSIGMASK, tid, (void *)sizeof(mask), &mask) < 0)
			return -errno;
		return 0;
	}
	return -ESRCH;
}

int probe_attach_trap_blocked(const struct probe_attach *a, pid_t *tid)
{
	for (size_t i = 0; i < a->ntids; i++)
		if (attach_blocks_trap(a->pid, a->tids[i])) {
			*tid = a->tids[i];
			return 1;
		}
	return 0;
}

int probe_attach_threads_out(struct probe_attach *a)
{
	int n = 0, rc = 0;

	if (!a->fn_thread_out)
		return -ENOENT;
	for (size_t i = 0; i < a->ntids; i++) {
		struct arch_ptrace_regs regs;
		int64_t bits = 0;
		uint64_t mask;
		int e;

		if (!a->stopped[i])
			continue;
		e = arch_ptrace_get(a->tids[i], &regs);
		if (!e) {
			e = attach_call(a, a->tids[i], a->fn_thread_out, NULL,
					(int64_t)arch_ptrace_pc(&regs), (int64_t)arch_ptrace_sp(&regs),
					&bits);
			if (!e && bits < 0)
				e = (int)bits;
		}
		if (!e && bits > 0) {
			/* after the call: it puts back the mask it found */
			if (ptrace(PTRACE_GETSIGMASK, a->tids[i], (void *)sizeof(mask), &mask) < 0)
				e = -errno;
			mask |= (uint64_t)bits;
			if (!e && ptrace(PTRACE_SETSIGMASK, a->tids[i], (void *)sizeof(mask), &mask) < 0)
				e = -errno;
			n += !e;
		}
		if (e && !rc)
			rc = e;
	}
	return rc ? rc : n;
}

int probe_attach_shared_tls(const struct probe_attach *a, pid_t *tid, pid_t *with)
{
	uint64_t *fs = calloc(a->ntids ? a->ntids : 1, sizeof(*fs));
	int n = 0;

	if (!fs)
		return -ENOMEM;
	for (size_t i = 0; i < a->ntids; i++) {
		struct arch_ptrace_regs r;

		if (a->stopped[i] && arch_ptrace_get(a->tids[i], &r) == 0)
			fs[i] = arch_ptrace_tp(a->tids[i], &r);
	}
	for (size_t i = 0; i < a->ntids; i++)
		for (size_t j = 0; j < i && fs[i]; j++)
			if (fs[j] == fs[i]) {
				if (!n++) {
					*tid = a->tids[i];
					*with = a->tids[j];
				}
				break;
			}
	free(fs);
	return n;
}
