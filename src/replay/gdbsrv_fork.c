// SPDX-License-Identifier: MIT
/*
 * gdbsrv_fork.c - a copy of the stopped replay, made under ptrace, for the
 * checkpoints of `spool replay --gdbserver` (gdbsrv_ckpt.c).
 *
 * When gdb sees a stop every thread of the replay is stopped under ptrace
 * (all-stop): the thread that stopped at a breakpoint, a watchpoint or a
 * step, and the others wherever they were, most of them parked in the
 * agent waiting for the serial token. A copy of that state is made the way
 * a debugger can make one without the program's help (the technique rr's
 * checkpoints use; written here from the kernel's interfaces):
 *
 *  - one thread of the process is made to run a raw clone with no exit
 *    signal and no CLONE_VM (a fork that a program's wait(NULL) never
 *    sees), through a system call and a trap (x86-64 `syscall; int3`,
 *    aarch64 `svc #0; brk #0`: arch_ptrace.h) written over a few bytes of
 *    the program's code and put back after; PTRACE_O_TRACECLONE attaches
 *    the copy, stopped;
 *  - in the copy, that one thread is made to clone one thread per other
 *    thread of the original (CLONE_THREAD | CLONE_SETTLS with the original
 *    thread's thread pointer, FS base or TPIDR_EL0, parent and child tid at
 *    its tid word in its struct pthread, so pthread_join works in the
 *    copy); each new thread is given its original's robust list
 *    (set_robust_list, run in it), its registers, its vector state
 *    (NT_X86_XSTATE; NT_ARM_SVE or NT_FPREGSET: read and set by
 *    arch_ptrace_ext_*, a cut read or a refused set fails the checkpoint)
 *    and its signal mask;
 *  - a thread that was stopped inside a system call (a futex wait) has the
 *    kernel's restart done by hand (x86-64: rip back over the syscall
 *    instruction; aarch64: done by the kernel before the stop), as the
 *    kernel would when resuming it: the copy's threads were never in that
 *    call;
 *  - every shared mapping (spool's memfd: the replay area, the rings; the
 *    program's own MAP_SHARED anonymous memory) becomes the copy's own, with
 *    the same contents: a copy must not move the replay's turns in memory
 *    that another copy, or the original, will run from later;
 *  - optionally its descriptors 1 and 2 go to /dev/null (a replay that goes
 *    back does not show the program's output twice).
 *
 * Limits: a thread's alternate signal stack and rseq registration are not
 * given to its copy (glibc then reads a stale CPU number from the rseq
 * area, nothing else); descriptors are shared with the original (one open
 * file description: a file the replay writes for real shares its offset).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <elf.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../arch/arch_ptrace.h"
#include "../util/log.h"
#include "gdbsrv_int.h"

#define FORK_CHUNK (1u << 20)

#ifndef PTRACE_GETSIGMASK
#define PTRACE_GETSIGMASK 0x420a
#define PTRACE_SETSIGMASK 0x420b
#endif

/* The injection site: arch_ptrace_inject_code at code, "/dev/null" at
 * code + ARCH_PTRACE_INJECT_LEN (fork_stub). */
struct fork_site {
	uint64_t code;
	uint8_t saved[24];
};

#define FORK_STUB_LEN 24

static void fork_stub(uint8_t stub[FORK_STUB_LEN])
{
	memset(stub, 0, FORK_STUB_LEN);
	memcpy(stub, arch_ptrace_inject_code, ARCH_PTRACE_INJECT_LEN);
	memcpy(stub + ARCH_PTRACE_INJECT_LEN, "/dev/null", 10);
}

static int mem_rw(int fd, int wr, uint64_t addr, void *buf, size_t len)
{
	ssize_t n = wr ? pwrite(fd, buf, len, (off_t)addr) : pread(fd, buf, len, (off_t)addr);

	return n == (ssize_t)len ? 0 : -EIO;
}

static int open_mem(pid_t pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	return open(path, O_RDWR | O_CLOEXEC);
}

/* Where the injected calls run: libc's code (the agent's syscall user
 * dispatch lets system calls from there through, not from the program's),
 * else the first executable mapping (not the vDSO). */
static int find_site(pid_t pid, struct fork_site *site)
{
	char path[64], line[512];
	FILE *f;
	int rc = -ENOENT;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		char perms[8];

		if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) != 3)
			continue;
		if (perms[2] != 'x' || hi - lo < FORK_STUB_LEN || strstr(line, "[vdso]") ||
		    strstr(line, "[vsyscall]"))
			continue;
		if (rc < 0 || strstr(line, "/libc.so") || strstr(line, "/libc-")) {
			site->code = lo;
			rc = 0;
		}
		if (strstr(line, "/libc.so") || strstr(line, "/libc-"))
			break;
	}
	fclose(f);
	return rc;
}

/*
 * 1 when a thread is stopped in the dynamic loader's code (pc one of
 * nth), 0 when none, -errno. There the loader's lock is held (gdb stops
 * at its library events inside dlopen: the agent's load of libzstd, in a
 * replay of a recording with snapshots, or the program's): a recursive
 * lock whose owner is the holder's thread id, which the copy's thread
 * does not have (its struct pthread's tid is its own), so the copy would
 * wait for the lock for good at its next load (tests/integ/224, 305).
 */
static int in_loader(pid_t pid, const uint64_t *pc, int nth)
{
	char path[64], line[512];
	FILE *f;
	int rc = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (!rc && fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		char perms[8];
		const char *name = strrchr(line, '/');

		if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) != 3 || perms[2] != 'x' || !name ||
		    (strncmp(name, "/ld-linux", 9) && strncmp(name, "/ld.so", 6) &&
		     strncmp(name, "/ld-2.", 6)))
			continue;
		for (int i = 0; i < nth; i++)
			rc |= pc[i] >= lo && pc[i] < hi;
	}
	fclose(f);
	return rc;
}

/* 1 when the agent has mapped spool's memory (a memfd) in pid. */
static int has_memfd(pid_t pid)
{
	char path[64], line[512];
	FILE *f;
	int rc = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (!rc && fgets(line, sizeof(line), f))
		rc = strstr(line, "/memfd:") != NULL;
	fclose(f);
	return rc;
}

/* Wait for tid's next stop (or end): its status, or -errno. A clone event
 * on the way gives the new thread's id in *child. */
static int wait_stop(pid_t tid, int *status)
{
	for (;;) {
		pid_t w = waitpid(tid, status, __WALL);

		if (w == tid)
			return 0;
		if (w < 0 && errno != EINTR)
			return -errno;
	}
}

/*
 * Run system call nr(a[0..5]) in thread tid, stopped, with its registers
 * base (no call to restart: the kernel restarts nothing on our behalf).
 * The result, or a negative errno from the call; *child gets the new task
 * of a clone.
 */
static long inject_v(pid_t tid, const struct arch_ptrace_regs *base,
		     const struct fork_site *site, long nr, const uint64_t a[6], pid_t *child)
{
	struct arch_ptrace_regs r = *base;
	int status, rc;

	arch_ptrace_syscall_setup(&r, site->code, nr, a);
	rc = arch_ptrace_set(tid, &r);
	if (rc < 0)
		return rc;
	if (ptrace(PTRACE_CONT, tid, 0, 0) < 0)
		return -errno;
	for (;;) {
		int rc = wait_stop(tid, &status);

		if (rc < 0)
			return rc;
		if (getenv("SPOOL_GDBSRV_DEBUG"))
			fprintf(stderr, "gdbsrv: inject %ld in %d: status %#x\n", nr, (int)tid, status);
		if (!WIFSTOPPED(status))
			return -ECHILD;
		if (status >> 16 == PTRACE_EVENT_CLONE) {
			unsigned long msg;

			if (child && ptrace(PTRACE_GETEVENTMSG, tid, 0, &msg) == 0)
				*child = (pid_t)msg;
		} else if (WSTOPSIG(status) == SIGTRAP && !(status >> 16)) {
			break;
		}
		/* anything else (a signal for the program): kept for later,
		 * the program's pending signals are not copied */
		if (ptrace(PTRACE_CONT, tid, 0, 0) < 0)
			return -errno;
	}
	rc = arch_ptrace_get(tid, &r);
	if (rc < 0)
		return rc;
	return (long)arch_ptrace_ret(&r);
}

static long inject(pid_t tid, const struct arch_ptrace_regs *base, const struct fork_site *site,
		   long nr, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5,
		   uint64_t a6, pid_t *child)
{
	const uint64_t a[6] = {a1, a2, a3, a4, a5, a6};

	return inject_v(tid, base, site, nr, a, child);
}

/* What a thread of the original is: registers, extended state, mask,
 * robust list, tid word. */
struct fork_thread {
	struct arch_ptrace_regs regs;
	uint64_t tp; /* its thread pointer (FS base, TPIDR_EL0) */
	/* NT_X86_XSTATE, NT_ARM_SVE, sized by the kernel: the set takes only
	 * the whole area (arch_ptrace.h, shared with attach mode) */
	struct arch_ptrace_ext ext;
	uint64_t mask;
	void *robust;
	size_t robust_len;
	uint64_t tidp;
};

static int read_thread(int memfd, pid_t tid, struct fork_thread *ft)
{
	int32_t word = 0;
	uint64_t at;
	int rc;

	rc = arch_ptrace_get(tid, &ft->regs);
	if (rc < 0)
		return rc;
	ft->tp = arch_ptrace_tp(tid, &ft->regs);
	rc = arch_ptrace_ext_save(tid, &ft->ext);
	if (rc < 0) {
		/* a copy without the thread's vector registers would run on
		 * with others: no checkpoint rather than a wrong one */
		log_warn("checkpoint: thread %d: its vector registers cannot be read: %s",
			 (int)tid, strerror(-rc));
		return rc;
	}
	ft->mask = 0;
	ptrace(PTRACE_GETSIGMASK, tid, (void *)sizeof(ft->mask), &ft->mask);
	ft->robust = NULL;
	ft->robust_len = 0;
	syscall(SYS_get_robust_list, tid, &ft->robust, &ft->robust_len);
	ft->tidp = 0;
	at = arch_ptrace_tid_word(ft->tp);
	if (at && mem_rw(memfd, 0, at, &word, sizeof(word)) == 0 && word == tid)
		ft->tidp = at;
	return 0;
}

/* Give the copy's thread ntid its original's state (it is stopped). */
static int write_thread(pid_t ntid, const struct arch_ptrace_regs *base,
			const struct fork_site *site, struct fork_thread *ft)
{
	struct arch_ptrace_regs r = ft->regs;
	long rc;

	if (ft->robust) {
		rc = inject(ntid, base, site, SYS_set_robust_list, (unsigned long)ft->robust,
			    ft->robust_len, 0, 0, 0, 0, NULL);
		if (rc < 0)
			return (int)rc;
	}
	rc = arch_ptrace_restart_for_copy(&r);
	if (rc < 0)
		return (int)rc;
	rc = arch_ptrace_set(ntid, &r);
	if (rc < 0)
		return (int)rc;
	rc = arch_ptrace_ext_restore(ntid, &ft->ext);
	if (rc < 0) {
		log_warn("checkpoint: a copy's thread did not take its vector registers: %s",
			 strerror((int)-rc));
		return (int)rc;
	}
	ptrace(PTRACE_SETSIGMASK, ntid, (void *)sizeof(ft->mask), &ft->mask);
	return 0;
}

static int page_zero(const uint8_t *p, size_t n)
{
	const uint64_t *w = (const uint64_t *)p;

	for (size_t i = 0; i < n / 8; i++)
		if (w[i])
			return 0;
	return 1;
}

/* The copy's new mapping is anonymous, zero already: only the pages with
 * something in them are written (a ring of 2 MiB with a few KiB used
 * costs a few KiB in each checkpoint, not 2 MiB). */
static void copy_nonzero(int dst_mem, uint64_t at, const uint8_t *buf, size_t len)
{
	size_t i = 0;

	while (i < len) {
		size_t j;

		while (i < len && page_zero(buf + i, len - i < 4096 ? len - i : 4096))
			i += 4096;
		j = i;
		while (j < len && !page_zero(buf + j, len - j < 4096 ? len - j : 4096))
			j += 4096;
		if (j > len)
			j = len;
		if (j > i)
			mem_rw(dst_mem, 1, at + i, (void *)(buf + i), j - i);
		i = j;
	}
}

/* Every shared mapping of the copy becomes its own, with the contents the
 * original has (read from the original: the copy's view is the same
 * memory). */
static int privatize(pid_t cpid, pid_t c0, const struct arch_ptrace_regs *base,
		     const struct fork_site *site, int src_mem, int dst_mem)
{
	char path[64], line[512];
	uint8_t *buf = NULL;
	FILE *f;
	int rc = 0, n = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)cpid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	buf = malloc(FORK_CHUNK);
	if (!buf) {
		fclose(f);
		return -ENOMEM;
	}
	while (rc == 0 && fgets(line, sizeof(line), f)) {
		unsigned long lo, hi, len;
		char perms[8];
		long a;
		int prot;

		if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) != 3 || perms[3] != 's')
			continue;
		/* a read-only mapping of a named file stays shared: nobody
		 * writes it (the replay's image, the trace's stream files) */
		if (perms[1] != 'w' && !strstr(line, "memfd:") && !strstr(line, "/dev/zero") &&
		    !strstr(line, "SYSV"))
			continue;
		len = hi - lo;
		prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
		       (perms[2] == 'x' ? PROT_EXEC : 0);
		a = inject(c0, base, site, SYS_mmap, 0, len, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, (unsigned long)-1, 0, NULL);
		if (a < 0 && a > -4096) {
			rc = (int)a;
			break;
		}
		for (unsigned long off = 0; off < len; off += FORK_CHUNK) {
			size_t k = len - off < FORK_CHUNK ? len - off : FORK_CHUNK;

			/* a page past the end of a memfd cannot be read: left 0 */
			if (mem_rw(src_mem, 0, lo + off, buf, k) == 0)
				copy_nonzero(dst_mem, (uint64_t)a + off, buf, k);
		}
		a = inject(c0, base, site, SYS_mremap, (unsigned long)a, len, len,
			   MREMAP_MAYMOVE | MREMAP_FIXED, lo, 0, NULL);
		if (a < 0 && a > -4096) {
			rc = (int)a;
			break;
		}
		if (prot != (PROT_READ | PROT_WRITE))
			inject(c0, base, site, SYS_mprotect, lo, len, (unsigned long)prot, 0, 0, 0,
			       NULL);
		n++;
	}
	free(buf);
	fclose(f);
	return rc < 0 ? rc : n;
}

void gdbsrv_reap(pid_t pid, const pid_t *tids, int nth)
{
	int st;

	kill(pid, SIGKILL);
	for (int i = 0; i < nth; i++) {
		if (tids[i] <= 0 || tids[i] == pid)
			continue;
		while (waitpid(tids[i], &st, __WALL) >= 0 || errno == EINTR)
			if (WIFEXITED(st) || WIFSIGNALED(st))
				break;
	}
	while (waitpid(pid, &st, __WALL) >= 0 || errno == EINTR)
		if (WIFEXITED(st) || WIFSIGNALED(st))
			break;
}

int gdbsrv_fork(pid_t pid, const pid_t *tids, int nth, int fresh, int quiet, pid_t *copy_pid,
		pid_t *copy_tids)
{
	const unsigned long thread_flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND |
					   CLONE_THREAD | CLONE_SYSVSEM | CLONE_SETTLS |
					   CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID;
	struct fork_thread *ft = NULL;
	struct fork_site site;
	struct arch_ptrace_regs base;
	uint8_t stub[FORK_STUB_LEN];
	uint64_t ca[6];
	int src_mem = -1, dst_mem = -1, status, rc;
	pid_t cpid = 0;
	long r;

	if (nth < 1)
		return -EINVAL;
	/* a fresh replay before its agent mapped spool's memory: a copy
	 * would map the memory every copy shares */
	rc = fresh ? has_memfd(pid) : 1;
	if (rc <= 0)
		return rc < 0 ? rc : -EAGAIN;
	src_mem = open_mem(pid);
	if (src_mem < 0)
		return -errno;
	for (int i = 0; i < nth; i++)
		copy_tids[i] = 0;
	rc = find_site(pid, &site);
	if (rc < 0)
		goto out;
	ft = calloc((size_t)nth, sizeof(*ft));
	if (!ft) {
		rc = -ENOMEM;
		goto out;
	}
	for (int i = 0; i < nth; i++) {
		rc = read_thread(src_mem, tids[i], &ft[i]);
		if (rc < 0)
			goto out;
		/* a thread at a ptrace event inside a call cannot be copied */
		if (arch_ptrace_in_syscall(&ft[i].regs)) {
			rc = -EBUSY;
			goto out;
		}
	}
	{
		uint64_t pc[GDBSRV_MAX_THREADS];
		int n = nth < GDBSRV_MAX_THREADS ? nth : GDBSRV_MAX_THREADS;

		for (int i = 0; i < n; i++)
			pc[i] = arch_ptrace_pc(&ft[i].regs);
		rc = in_loader(pid, pc, n);
		if (rc != 0) {
			rc = rc < 0 ? rc : -EBUSY;
			goto out;
		}
	}
	fork_stub(stub);
	if ((rc = mem_rw(src_mem, 0, site.code, site.saved, sizeof(site.saved))) < 0 ||
	    (rc = mem_rw(src_mem, 1, site.code, stub, sizeof(stub))) < 0)
		goto out;
	/* the fork, run by the first thread (the thread pointer: the copy
	 * keeps the one it has) */
	arch_ptrace_clone_args(ca, ft[0].tidp ? CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID : 0, 0, 0,
			       ft[0].tidp, 0);
	r = inject_v(tids[0], &ft[0].regs, &site, SYS_clone, ca, &cpid);
	arch_ptrace_set(tids[0], &ft[0].regs);
	mem_rw(src_mem, 1, site.code, site.saved, sizeof(site.saved));
	if (getenv("SPOOL_GDBSRV_DEBUG"))
		fprintf(stderr, "gdbsrv: fork of %d by %d at %#llx: %ld, copy %d\n", (int)pid,
			(int)tids[0], (unsigned long long)site.code, r, (int)cpid);
	if (r <= 0 || !cpid) {
		rc = r < 0 ? (int)r : -ECHILD;
		if (cpid)
			gdbsrv_reap(cpid, NULL, 0);
		goto out;
	}
	rc = wait_stop(cpid, &status);
	if (rc < 0 || !WIFSTOPPED(status)) {
		rc = rc < 0 ? rc : -ECHILD;
		gdbsrv_reap(cpid, NULL, 0);
		goto out;
	}
	copy_tids[0] = cpid;
	rc = arch_ptrace_get(cpid, &base);
	if (rc < 0)
		goto out_drop;
	dst_mem = open_mem(cpid);
	if (dst_mem < 0) {
		rc = -errno;
		goto out_drop;
	}
	/* the other threads, each cloned by the copy's first */
	for (int i = 1; i < nth; i++) {
		pid_t nt = 0;
		unsigned long fl = thread_flags;

		if (!ft[i].tidp)
			fl &= ~(unsigned long)(CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID);
		arch_ptrace_clone_args(ca, fl, arch_ptrace_sp(&ft[i].regs) & ~15ull, ft[i].tidp,
				       ft[i].tidp, ft[i].tp);
		r = inject_v(cpid, &base, &site, SYS_clone, ca, &nt);
		if (r <= 0 || !nt) {
			rc = r < 0 ? (int)r : -ECHILD;
			goto out_drop;
		}
		rc = wait_stop(nt, &status);
		if (rc < 0)
			goto out_drop;
		copy_tids[i] = nt;
		rc = write_thread(nt, &base, &site, &ft[i]);
		if (rc < 0)
			goto out_drop;
	}
	rc = privatize(cpid, cpid, &base, &site, src_mem, dst_mem);
	if (rc < 0)
		goto out_drop;
	if (quiet) {
		r = inject(cpid, &base, &site, SYS_openat, (uint64_t)(int64_t)AT_FDCWD,
			   site.code + ARCH_PTRACE_INJECT_LEN,
			   O_WRONLY | O_CLOEXEC, 0, 0, 0, NULL);
		if (r >= 0) {
			inject(cpid, &base, &site, SYS_dup3, (unsigned long)r, 1, 0, 0, 0, 0, NULL);
			inject(cpid, &base, &site, SYS_dup3, (unsigned long)r, 2, 0, 0, 0, 0, NULL);
			inject(cpid, &base, &site, SYS_close, (unsigned long)r, 0, 0, 0, 0, 0, NULL);
		}
	}
	rc = write_thread(cpid, &base, &site, &ft[0]);
	if (rc < 0)
		goto out_drop;
	mem_rw(dst_mem, 1, site.code, site.saved, sizeof(site.saved));
	*copy_pid = cpid;
	rc = 0;
	goto out;
out_drop:
	gdbsrv_reap(cpid, copy_tids, nth);
out:
	if (ft)
		for (int i = 0; i < nth; i++)
			arch_ptrace_ext_free(&ft[i].ext);
	free(ft);
	if (dst_mem >= 0)
		close(dst_mem);
	if (src_mem >= 0)
		close(src_mem);
	return rc;
}
