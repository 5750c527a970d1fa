// SPDX-License-Identifier: MIT
/*
 * x86_ptrace.c - the x86-64 side of attach mode's ptrace work
 * (arch_ptrace.h): the registers by PTRACE_GETREGS, the extended state by
 * NT_X86_XSTATE, a call set up with its return address (0) pushed below
 * the red zone and orig_rax -1 so that a thread stopped in a system call
 * does not restart it at the called function, int3 traps (SI_KERNEL, the
 * ip after the 0xcc byte).
 */
#include <elf.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>

#include "../arch_ptrace.h"

int arch_ptrace_get(pid_t tid, struct arch_ptrace_regs *r)
{
	return ptrace(PTRACE_GETREGS, tid, 0, &r->r) < 0 ? -errno : 0;
}

int arch_ptrace_set(pid_t tid, const struct arch_ptrace_regs *r)
{
	return ptrace(PTRACE_SETREGS, tid, 0, &r->r) < 0 ? -errno : 0;
}

uint64_t arch_ptrace_pc(const struct arch_ptrace_regs *r)
{
	return r->r.rip;
}

void arch_ptrace_set_pc(struct arch_ptrace_regs *r, uint64_t pc)
{
	r->r.rip = pc;
}

uint64_t arch_ptrace_sp(const struct arch_ptrace_regs *r)
{
	return r->r.rsp;
}

uint64_t arch_ptrace_ret(const struct arch_ptrace_regs *r)
{
	return r->r.rax;
}

uint64_t arch_ptrace_tp(pid_t tid, const struct arch_ptrace_regs *r)
{
	(void)tid;
	return r->r.fs_base;
}

int arch_ptrace_call_setup(pid_t tid, struct arch_ptrace_regs *r, uint64_t fn, uint64_t a0,
			   uint64_t a1, uint64_t sp,
			   int (*poke)(pid_t, uint64_t, const void *, size_t))
{
	uint64_t zero = 0;
	int rc;

	sp -= 8; /* the return address: at the entry, sp = 8 mod 16 */
	rc = poke(tid, sp, &zero, 8);
	if (rc)
		return rc;
	r->r.rsp = sp;
	r->r.rip = fn;
	r->r.rdi = a0;
	r->r.rsi = a1;
	r->r.rax = 0;
	r->r.orig_rax = (unsigned long long)-1;
	return 0;
}

/* The XSAVE area's size by cpuid leaf 0xd: the largest of every feature
 * the CPU supports (ecx) and of the enabled ones (ebx); 0 without it. */
static size_t x86_xsave_size(void)
{
	unsigned a, b, c, d;

	__asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(0), "c"(0));
	if (a < 0xd)
		return 0;
	__asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(0xd), "c"(0));
	return b > c ? b : c;
}

/* The area's size for the features the kernel says it holds: ptrace puts
 * the XCR0 bits it gives (its user features) in the first word of the
 * FXSAVE image's software bytes (464, USER_XSTATE_XCR0_WORD); the area is
 * in the standard format, so its end is the highest feature's offset and
 * size (cpuid leaf 0xd, subleaf i). 0 when the word is not there. */
static size_t x86_xsave_sw_size(const uint8_t *buf, size_t len)
{
	size_t end = 576; /* legacy area and XSAVE header */
	uint64_t xcr0;

	if (len < 472)
		return 0;
	memcpy(&xcr0, buf + 464, 8);
	for (unsigned i = 2; i < 64; i++) {
		unsigned a, b, c, d;

		if (!((xcr0 >> i) & 1))
			continue;
		__asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(0xd), "c"(i));
		if ((size_t)a + b > end)
			end = (size_t)a + b;
	}
	return end;
}

void arch_ptrace_ext_free(struct arch_ptrace_ext *x)
{
	free(x->buf);
	x->buf = NULL;
	x->len = 0;
	x->have = 0;
	x->have_fp = 0;
}

int arch_ptrace_ext_save(pid_t tid, struct arch_ptrace_ext *x)
{
	size_t size = x86_xsave_size(), want;
	struct iovec v;
	int err;

	arch_ptrace_ext_free(x);
	if (size < 4096)
		size = 4096; /* (no cpuid leaf 0xd: the legacy area and more) */
	for (int tries = 0; tries < 2; tries++) {
		x->buf = malloc(size);
		if (!x->buf)
			return -ENOMEM;
		v.iov_base = x->buf;
		v.iov_len = size;
		if (ptrace(PTRACE_GETREGSET, tid, (void *)NT_X86_XSTATE, &v) < 0) {
			err = errno;
			arch_ptrace_ext_free(x);
			if (err != ENODEV && err != EINVAL)
				return -err;
			/* no XSAVE: the FXSAVE image (x87, SSE) */
			if (ptrace(PTRACE_GETFPREGS, tid, 0, &x->fp) < 0)
				return -errno;
			x->have_fp = 1;
			return 0;
		}
		/* A read as long as the buffer may have been cut (the kernel
		 * copies what fits): the size it says is the whole area's. */
		want = x86_xsave_sw_size(x->buf, v.iov_len);
		if (v.iov_len < size || want <= v.iov_len) {
			x->len = v.iov_len;
			x->have = 1;
			return 0;
		}
		arch_ptrace_ext_free(x);
		size = want;
	}
	return -EOVERFLOW;
}

int arch_ptrace_ext_restore(pid_t tid, const struct arch_ptrace_ext *x)
{
	struct iovec v = {(void *)x->buf, x->len};

	if (x->have)
		return ptrace(PTRACE_SETREGSET, tid, (void *)NT_X86_XSTATE, &v) < 0 ? -errno : 0;
	if (x->have_fp)
		return ptrace(PTRACE_SETFPREGS, tid, 0, &x->fp) < 0 ? -errno : 0;
	return 0;
}

int arch_ptrace_is_trap(const siginfo_t *si)
{
	return si->si_signo == SIGTRAP && si->si_code == SI_KERNEL;
}

static int x86_ptrace_byte(pid_t tid, uint64_t addr, uint8_t *b)
{
	struct iovec l = {b, 1}, r = {(void *)(uintptr_t)addr, 1};

	return process_vm_readv(tid, &l, 1, &r, 1, 0) == 1 ? 0 : -EIO;
}

uint64_t arch_ptrace_trap_insn(pid_t tid, uint64_t pc)
{
	uint8_t b = 0;

	/* "int $3" (cd 03) is left to its signal */
	if (!pc || x86_ptrace_byte(tid, pc - 1, &b) || b == 0x03)
		return 0;
	return pc - 1;
}

int arch_ptrace_trap_at(pid_t tid, uint64_t addr)
{
	uint8_t b = 0;

	return !x86_ptrace_byte(tid, addr, &b) && b == 0xcc;
}

uint64_t arch_ptrace_syscall_before(pid_t tid, uint64_t pc)
{
	uint8_t b[2] = {0, 0};
	struct iovec l = {b, 2}, r = {(void *)(uintptr_t)(pc - 2), 2};

	if (pc < 2 || process_vm_readv(tid, &l, 1, &r, 1, 0) != 2 || b[0] != 0x0f || b[1] != 0x05)
		return 0;
	return pc - 2;
}

/* ---- system calls run in a stopped thread (gdbsrv_fork.c) ---- */

/* offsetof(struct pthread, tid), glibc 2.2x-2.3x x86-64 (the thread
 * pointer, fs base, is the struct pthread) */
#define X86_PTHREAD_TID_OFF 0x2d0

const uint8_t arch_ptrace_inject_code[ARCH_PTRACE_INJECT_LEN] = {0x0f, 0x05, 0xcc, 0x90,
								 0x90, 0x90, 0x90, 0x90};

void arch_ptrace_syscall_setup(struct arch_ptrace_regs *r, uint64_t code, long nr,
			       const uint64_t a[6])
{
	r->r.rip = code;
	r->r.rax = (unsigned long long)nr;
	r->r.orig_rax = (unsigned long long)-1;
	r->r.rdi = a[0];
	r->r.rsi = a[1];
	r->r.rdx = a[2];
	r->r.r10 = a[3];
	r->r.r8 = a[4];
	r->r.r9 = a[5];
}

void arch_ptrace_clone_args(uint64_t a[6], uint64_t flags, uint64_t stack, uint64_t ptid,
			    uint64_t ctid, uint64_t tls)
{
	a[0] = flags;
	a[1] = stack;
	a[2] = ptid;
	a[3] = ctid;
	a[4] = tls;
	a[5] = 0;
}

/* at a ptrace event inside a call, rax is the -ENOSYS of the entry */
int arch_ptrace_in_syscall(const struct arch_ptrace_regs *r)
{
	return (long long)r->r.orig_rax >= 0 && (long long)r->r.rax == -ENOSYS;
}

int arch_ptrace_restart_for_copy(struct arch_ptrace_regs *r)
{
	long long ret = (long long)r->r.rax;

	if ((long long)r->r.orig_rax >= 0) {
		if (ret == -512 || ret == -513 || ret == -514) { /* -ERESTART{SYS,NOINTR,NOHAND} */
			r->r.rip -= 2;
			r->r.rax = r->r.orig_rax;
		} else if (ret == -516) { /* -ERESTART_RESTARTBLOCK: the copy has no block */
			r->r.rax = (unsigned long long)-EINTR;
		} else if (ret == -ENOSYS) {
			return -EBUSY;
		}
	}
	r->r.orig_rax = (unsigned long long)-1;
	return 0;
}

uint64_t arch_ptrace_tid_word(uint64_t tp)
{
	return tp ? tp + X86_PTHREAD_TID_OFF : 0;
}

int arch_ptrace_trap_ahead(pid_t tid, const struct arch_ptrace_regs *r)
{
	(void)tid;
	(void)r;
	return 0;
}

int arch_ptrace_release_stop(void)
{
	return 0;
}
