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

int arch_ptrace_ext_save(pid_t tid, struct arch_ptrace_ext *x)
{
	struct iovec v = {x->buf, sizeof(x->buf)};

	x->have = ptrace(PTRACE_GETREGSET, tid, (void *)NT_X86_XSTATE, &v) == 0;
	x->len = x->have ? v.iov_len : 0;
	return x->have ? 0 : -errno;
}

void arch_ptrace_ext_restore(pid_t tid, const struct arch_ptrace_ext *x)
{
	struct iovec v = {(void *)x->buf, x->len};

	if (x->have)
		ptrace(PTRACE_SETREGSET, tid, (void *)NT_X86_XSTATE, &v);
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
