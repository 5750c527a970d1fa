// SPDX-License-Identifier: MIT
/*
 * a64_ptrace.c - the aarch64 side of attach mode's ptrace work
 * (arch_ptrace.h). arm64 has no PTRACE_GETREGS: every register set goes
 * through PTRACE_GETREGSET.
 *
 *   - NT_PRSTATUS: x0-x30, sp, pc, pstate (user_regs_struct).
 *   - NT_ARM_SYSTEM_CALL: the system call the thread is in. The kernel
 *     rewinds an interrupted call before the stop (pc back on its `svc`,
 *     x0 its first argument again) and forgets it, so a call normally
 *     finds -1 there; set to -1 for the call all the same (x86-64's
 *     orig_rax -1), so that no restart can run at the called function, and
 *     put back with the thread's registers after.
 *   - NT_ARM_SVE (the Z, P and FFR registers, in SVE or FPSIMD layout as
 *     the thread had them) or, without SVE, NT_FPREGSET (V0-V31, FPSR,
 *     FPCR): saved before a call and written back after, so the called
 *     code (dlopen, the agent) changes none of the thread's vector state.
 *   - a call: x0, x1 the arguments, LR (x30) 0, so the function's RET
 *     faults at address 0 (SIGSEGV, pc 0: the end of the call); sp 16-byte
 *     aligned (arm64 has no red zone; the caller leaves 1 KiB anyway);
 *     PSTATE.BTYPE cleared, so a BTI landing pad check cannot fire on the
 *     first instruction (pc is set, not branched to).
 *   - BRK: its SIGTRAP (TRAP_BRKPT) reports the pc of the BRK itself; a
 *     thread put back there runs it again (or the original instruction, if
 *     the probe was removed meanwhile).
 */
#include <elf.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "../arch_ptrace.h"

#ifndef NT_ARM_SYSTEM_CALL
#define NT_ARM_SYSTEM_CALL 0x404
#endif
#ifndef NT_ARM_TLS
#define NT_ARM_TLS 0x401
#endif
#ifndef NT_ARM_SVE
#define NT_ARM_SVE 0x405
#endif
#ifndef TRAP_BRKPT
#define TRAP_BRKPT 1
#endif

#define A64_PSTATE_BTYPE (3ull << 10)
#define A64_BRK_MASK 0xffe0001fu
#define A64_BRK_OP 0xd4200000u
#define A64_SVC0 0xd4000001u
/* the agent's BRK probe and slot return (src/arch/aarch64/a64_agent_brk.c) */
#define A64_BRK_PROBE (A64_BRK_OP | 0x5a1u << 5)
#define A64_BRK_BACK (A64_BRK_OP | 0x5a2u << 5)
#define A64_MOV_X8_SIGRETURN 0xd2801168u /* mov x8, #139 (rt_sigreturn) */

int arch_ptrace_get(pid_t tid, struct arch_ptrace_regs *r)
{
	struct iovec v = {&r->r, sizeof(r->r)};
	struct iovec s = {&r->syscallno, sizeof(r->syscallno)};

	if (ptrace(PTRACE_GETREGSET, tid, (void *)NT_PRSTATUS, &v) < 0)
		return -errno;
	r->have_syscallno = ptrace(PTRACE_GETREGSET, tid, (void *)NT_ARM_SYSTEM_CALL, &s) == 0;
	return 0;
}

int arch_ptrace_set(pid_t tid, const struct arch_ptrace_regs *r)
{
	struct iovec v = {(void *)&r->r, sizeof(r->r)};
	struct iovec s = {(void *)&r->syscallno, sizeof(r->syscallno)};

	if (ptrace(PTRACE_SETREGSET, tid, (void *)NT_PRSTATUS, &v) < 0)
		return -errno;
	/* after NT_PRSTATUS: the kernel keeps the call number apart */
	if (r->have_syscallno && ptrace(PTRACE_SETREGSET, tid, (void *)NT_ARM_SYSTEM_CALL, &s) < 0)
		return -errno;
	return 0;
}

uint64_t arch_ptrace_pc(const struct arch_ptrace_regs *r)
{
	return r->r.pc;
}

void arch_ptrace_set_pc(struct arch_ptrace_regs *r, uint64_t pc)
{
	r->r.pc = pc;
}

uint64_t arch_ptrace_sp(const struct arch_ptrace_regs *r)
{
	return r->r.sp;
}

uint64_t arch_ptrace_ret(const struct arch_ptrace_regs *r)
{
	return r->r.regs[0];
}

uint64_t arch_ptrace_tp(pid_t tid, const struct arch_ptrace_regs *r)
{
	uint64_t tp = 0;
	struct iovec v = {&tp, sizeof(tp)};

	(void)r;
	return ptrace(PTRACE_GETREGSET, tid, (void *)NT_ARM_TLS, &v) == 0 ? tp : 0;
}

int arch_ptrace_call_setup(pid_t tid, struct arch_ptrace_regs *r, uint64_t fn, uint64_t a0,
			   uint64_t a1, uint64_t sp,
			   int (*poke)(pid_t, uint64_t, const void *, size_t))
{
	(void)tid;
	(void)poke;
	r->r.sp = sp & ~15ull;
	r->r.pc = fn;
	r->r.regs[0] = a0;
	r->r.regs[1] = a1;
	r->r.regs[30] = 0; /* LR: the RET faults at 0 */
	r->r.pstate &= ~A64_PSTATE_BTYPE;
	r->syscallno = -1;
	return 0;
}

void arch_ptrace_ext_free(struct arch_ptrace_ext *x)
{
	free(x->buf);
	x->buf = NULL;
	x->len = 0;
	x->have = 0;
	x->have_fp = 0;
}

/* NT_ARM_SVE's header (struct user_sve_header) says the set's size for the
 * thread's vector length now: read first, then the whole set at that size
 * (a read cut short would make the set refuse, or lose the Z registers'
 * upper bits). */
int arch_ptrace_ext_save(pid_t tid, struct arch_ptrace_ext *x)
{
	uint32_t hdr[4] = {0};
	struct iovec h = {hdr, sizeof(hdr)};
	struct iovec v;
	size_t size;

	arch_ptrace_ext_free(x);
	if (ptrace(PTRACE_GETREGSET, tid, (void *)NT_ARM_SVE, &h) < 0) {
		struct iovec f = {&x->fp, sizeof(x->fp)};

		/* no SVE: V0-V31, FPSR, FPCR */
		if (ptrace(PTRACE_GETREGSET, tid, (void *)NT_FPREGSET, &f) < 0)
			return -errno;
		x->have_fp = 1;
		return 0;
	}
	size = hdr[0]; /* size: header and registers as the thread has them */
	if (size < sizeof(hdr) || size > (64u << 20))
		return -EOVERFLOW;
	x->buf = malloc(size);
	if (!x->buf)
		return -ENOMEM;
	v.iov_base = x->buf;
	v.iov_len = size;
	if (ptrace(PTRACE_GETREGSET, tid, (void *)NT_ARM_SVE, &v) < 0) {
		int err = errno;

		arch_ptrace_ext_free(x);
		return -err;
	}
	/* (the vector length changed between the reads: the header read
	 * with the set says the size the set needs) */
	memcpy(hdr, x->buf, sizeof(hdr));
	if (hdr[0] > v.iov_len) {
		arch_ptrace_ext_free(x);
		return -EOVERFLOW;
	}
	x->len = v.iov_len;
	x->have = 1;
	return 0;
}

int arch_ptrace_ext_restore(pid_t tid, const struct arch_ptrace_ext *x)
{
	struct iovec v = {(void *)x->buf, x->len};
	struct iovec f = {(void *)&x->fp, sizeof(x->fp)};

	if (x->have)
		return ptrace(PTRACE_SETREGSET, tid, (void *)NT_ARM_SVE, &v) < 0 ? -errno : 0;
	if (x->have_fp)
		return ptrace(PTRACE_SETREGSET, tid, (void *)NT_FPREGSET, &f) < 0 ? -errno : 0;
	return 0;
}

int arch_ptrace_is_trap(const siginfo_t *si)
{
	return si->si_signo == SIGTRAP && si->si_code == TRAP_BRKPT;
}

static int a64_ptrace_word(pid_t tid, uint64_t addr, uint32_t *w)
{
	struct iovec l = {w, 4}, r = {(void *)(uintptr_t)addr, 4};

	return !(addr & 3) && process_vm_readv(tid, &l, 1, &r, 1, 0) == 4 ? 0 : -EIO;
}

uint64_t arch_ptrace_trap_insn(pid_t tid, uint64_t pc)
{
	(void)tid;
	return pc & 3 ? 0 : pc;
}

int arch_ptrace_trap_at(pid_t tid, uint64_t addr)
{
	uint32_t w = 0;

	return !a64_ptrace_word(tid, addr, &w) && (w & A64_BRK_MASK) == A64_BRK_OP;
}

uint64_t arch_ptrace_syscall_before(pid_t tid, uint64_t pc)
{
	uint32_t w = 0;

	if (pc < 4 || a64_ptrace_word(tid, pc - 4, &w) || w != A64_SVC0)
		return 0;
	return pc - 4;
}

/* ---- system calls run in a stopped thread (gdbsrv_fork.c) ---- */

/* svc #0; brk #0 */
const uint8_t arch_ptrace_inject_code[ARCH_PTRACE_INJECT_LEN] = {0x01, 0x00, 0x00, 0xd4,
								 0x00, 0x00, 0x20, 0xd4};

void arch_ptrace_syscall_setup(struct arch_ptrace_regs *r, uint64_t code, long nr,
			       const uint64_t a[6])
{
	for (int i = 0; i < 6; i++)
		r->r.regs[i] = a[i];
	r->r.regs[8] = (uint64_t)nr;
	r->r.pc = code;
	r->r.pstate &= ~A64_PSTATE_BTYPE;
	r->syscallno = -1;
}

void arch_ptrace_clone_args(uint64_t a[6], uint64_t flags, uint64_t stack, uint64_t ptid,
			    uint64_t ctid, uint64_t tls)
{
	a[0] = flags;
	a[1] = stack;
	a[2] = ptid;
	a[3] = tls;
	a[4] = ctid;
	a[5] = 0;
}

/*
 * The kernel forgets the call (NT_ARM_SYSTEM_CALL -1) on the way to every
 * stop a signal makes (do_signal: the group stop, PTRACE_INTERRUPT, a trap)
 * and at every exception that is not a call; a number there means the
 * thread stopped inside its call (a ptrace event: clone, exec, exit).
 */
int arch_ptrace_in_syscall(const struct arch_ptrace_regs *r)
{
	return r->have_syscallno && r->syscallno >= 0;
}

/*
 * arm64 prepares an interrupted call's restart before the stop (do_signal
 * puts pc back on the `svc` and x0 back to its first argument, x8 keeps
 * its number), so the registers seen are the restart already: the copy
 * runs the call again. Unlike x86-64, -ERESTART_RESTARTBLOCK cannot be
 * told from the others there: a copy runs such a call (a relative sleep)
 * again with its first arguments instead of returning EINTR.
 */
int arch_ptrace_restart_for_copy(struct arch_ptrace_regs *r)
{
	if (arch_ptrace_in_syscall(r))
		return -EBUSY;
	r->syscallno = -1;
	return 0;
}

/*
 * glibc's aarch64 thread pointer is just after the thread's struct pthread
 * (TLS_DTV_AT_TP: tp = pthread_self() + sizeof(struct pthread)), whose
 * size changes with glibc's version. The program runs with the board's
 * libc, the one spool runs with: the distance from tp to the tid word is
 * read from spool's own thread (its struct pthread holds its own id), once.
 * The caller checks the word in the program all the same.
 */
uint64_t arch_ptrace_tid_word(uint64_t tp)
{
	static int64_t back = -1; /* tp - &tid, 0 when not found */

	if (back < 0) {
		const uint8_t *pd = (const uint8_t *)pthread_self();
		const uint8_t *self_tp = (const uint8_t *)__builtin_thread_pointer();
		int32_t me = (int32_t)syscall(SYS_gettid);

		back = 0;
		for (const uint8_t *p = pd; self_tp > pd && self_tp - pd <= 16384 && p + 4 <= self_tp;
		     p += 4) {
			int32_t w;

			memcpy(&w, p, 4);
			if (w == me) {
				back = self_tp - p;
				break;
			}
		}
	}
	return tp && back ? tp - (uint64_t)back : 0;
}

/*
 * The words at pc and around it: on `BRK #0x5a1` (a probe still in, or its
 * trap pending) or `BRK #0x5a2` (a slot's way back), on the probed word of
 * a slot (the next word `BRK #0x5a2`), or in the sigreturn trampoline
 * (`mov x8, #139; svc #0`: the vdso's, or a restorer's), where a handler's
 * frame may send the thread to a slot.
 */
int arch_ptrace_trap_ahead(pid_t tid, const struct arch_ptrace_regs *r)
{
	uint64_t pc = r->r.pc;
	uint32_t w = 0, next = 0, prev = 0;

	if (a64_ptrace_word(tid, pc, &w))
		return 0;
	if (w == A64_BRK_PROBE || w == A64_BRK_BACK || w == A64_MOV_X8_SIGRETURN)
		return 1;
	if (!a64_ptrace_word(tid, pc + 4, &next) && next == A64_BRK_BACK)
		return 1;
	return w == A64_SVC0 && pc >= 4 && !a64_ptrace_word(tid, pc - 4, &prev) &&
	       prev == A64_MOV_X8_SIGRETURN;
}

int arch_ptrace_release_stop(void)
{
	return 1;
}
