// SPDX-License-Identifier: MIT
/*
 * arch_ptrace.h - what attach mode (spool probe -p, src/probe/probe_attach.c)
 * needs of the CPU when it stops a thread with ptrace and runs a function
 * in it: its registers, its floating-point and vector state, how a call is
 * set up (arguments, stack, a return address of 0 that faults and so ends
 * the call), the system call it was in (its restart must not run the
 * called function), and the probe traps (int3, BRK) it may be stopped at.
 * Everything else in probe_attach.c is the same on every architecture.
 *
 *   x86-64   src/arch/x86_64/x86_ptrace.c: PTRACE_GETREGS (user_regs_struct),
 *            NT_X86_XSTATE; the return address pushed below the red zone;
 *            orig_rax -1 (no restart); int3 reports the ip after it
 *   aarch64  src/arch/aarch64/a64_ptrace.c: NT_PRSTATUS by PTRACE_GETREGSET,
 *            NT_FPREGSET and NT_ARM_SVE; LR (x30) 0; NT_ARM_SYSTEM_CALL -1
 *            (no restart); BRK reports the pc of the BRK itself
 *
 * Host side only (spool, not the agent). Functions return 0 or -errno.
 */
#ifndef SPOOL_ARCH_ARCH_PTRACE_H
#define SPOOL_ARCH_ARCH_PTRACE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

#if defined(__x86_64__)
struct arch_ptrace_regs {
	struct user_regs_struct r;
};
#elif defined(__aarch64__)
struct arch_ptrace_regs {
	struct user_regs_struct r; /* x0-x30, sp, pc, pstate (NT_PRSTATUS) */
	int syscallno;		   /* NT_ARM_SYSTEM_CALL: the call it is in, -1 none */
	int have_syscallno;
};
#else
#error "spool: attach mode is x86-64 and aarch64 only"
#endif

/*
 * The floating-point and vector state of a thread: saved around a call
 * (probe_attach.c), copied into another thread (a checkpoint's,
 * gdbsrv_fork.c). The area is sized from the kernel, never a guess: x86-64
 * reads the XSAVE area (AVX-512 about 2.7 KiB, AMX about 11 KiB) into a
 * buffer of cpuid leaf 0xd's size, and reads again with the size the
 * kernel wrote in the area's software bytes when the first was cut;
 * aarch64 reads NT_ARM_SVE's header for its size first. The kernel's set
 * takes only the whole area, so a cut read is an error, never a restore
 * that loses the vector registers without a word.
 */
struct arch_ptrace_ext {
	int have;	      /* the main set was read */
	size_t len;	      /* its bytes */
	uint8_t *buf;	      /* malloc'd, len bytes (arch_ptrace_ext_free) */
	int have_fp;	      /* the FP set only (x86-64 NT_PRFPREG without XSAVE,
				 aarch64 NT_FPREGSET without SVE) */
#if defined(__aarch64__)
	struct user_fpsimd_struct fp;
#else
	struct user_fpregs_struct fp;
#endif
};

int arch_ptrace_get(pid_t tid, struct arch_ptrace_regs *r);
int arch_ptrace_set(pid_t tid, const struct arch_ptrace_regs *r);
uint64_t arch_ptrace_pc(const struct arch_ptrace_regs *r);
void arch_ptrace_set_pc(struct arch_ptrace_regs *r, uint64_t pc);
uint64_t arch_ptrace_sp(const struct arch_ptrace_regs *r);
/* The function's return value (rax, x0). */
uint64_t arch_ptrace_ret(const struct arch_ptrace_regs *r);
/* The thread pointer (fs base, TPIDR_EL0); 0 when it cannot be read. */
uint64_t arch_ptrace_tp(pid_t tid, const struct arch_ptrace_regs *r);

/*
 * r (the thread's registers) becomes a call of fn(a0, a1) that returns to
 * address 0, with sp 16-byte aligned below everything of the thread's
 * (x86-64: the return address is written at sp - 8 by poke), and no system
 * call to restart. Then arch_ptrace_set.
 */
int arch_ptrace_call_setup(pid_t tid, struct arch_ptrace_regs *r, uint64_t fn, uint64_t a0,
			   uint64_t a1, uint64_t sp,
			   int (*poke)(pid_t, uint64_t, const void *, size_t));

/* Read tid's state into x (its buffer allocated, an earlier one freed):
 * 0, or -errno (-EOVERFLOW: the kernel's area did not fit, -ENOMEM) with
 * nothing kept. */
int arch_ptrace_ext_save(pid_t tid, struct arch_ptrace_ext *x);
/* Write x into tid (the thread it was read from, or a copy of it): 0, or
 * -errno (the kernel refused it: the thread's vector state is not x's,
 * which the caller says); 0 when x holds nothing (never read). */
int arch_ptrace_ext_restore(pid_t tid, const struct arch_ptrace_ext *x);
/* Free x's buffer; x holds nothing after. */
void arch_ptrace_ext_free(struct arch_ptrace_ext *x);

/* Is this SIGTRAP a trap instruction's (int3: SI_KERNEL; BRK: TRAP_BRKPT),
 * not a single step's or a sent one? */
int arch_ptrace_is_trap(const siginfo_t *si);
/* Where the trap instruction is, for the pc a trap reported (x86-64: the
 * ip after the int3; aarch64: the BRK's own pc); 0 when the instruction
 * there is not one to go back onto (x86-64 `int $3`, two bytes). */
uint64_t arch_ptrace_trap_insn(pid_t tid, uint64_t pc);
/* Is a trap instruction still at addr (not restored meanwhile)? */
int arch_ptrace_trap_at(pid_t tid, uint64_t addr);
/* The system call instruction that ends just before pc (x86-64 `syscall`,
 * aarch64 `svc #0`): its address, or 0. */
uint64_t arch_ptrace_syscall_before(pid_t tid, uint64_t pc);
/* Would the stopped thread (its registers r) trap into the agent's trap
 * handler when it runs, so that the handler must still be there: aarch64,
 * its pc on a BRK of the agent's probes or slots, or on the word before a
 * slot's BRK (the probed instruction run out of line), or in the kernel's
 * sigreturn trampoline (returning from a handler whose frame may send it
 * to a slot). Never on x86-64 (an int3 probe's handler returns to the
 * trampoline, no second trap: its detach has one stop). */
int arch_ptrace_trap_ahead(pid_t tid, const struct arch_ptrace_regs *r);
/* Does the agent's detach keep its trap handler until a second stop, where
 * spool calls spool_agent_probe_release (src/cmd/probe.c,
 * probe_attach_release)? aarch64: 1 (its BRK slots trap back into the
 * handler); x86-64: 0 (the detach gives everything back at once). */
int arch_ptrace_release_stop(void);

/*
 * System calls run in a stopped thread, for the copies of a stopped replay
 * (src/replay/gdbsrv_fork.c): a few bytes of the program's code become a
 * system call instruction then a trap (x86-64 `syscall; int3`, aarch64
 * `svc #0; brk #0`), put back after.
 */
#define ARCH_PTRACE_INJECT_LEN 8
extern const uint8_t arch_ptrace_inject_code[ARCH_PTRACE_INJECT_LEN];
/* r becomes system call nr(a[0..5]) at code (the injected bytes), with no
 * system call to restart; its result is arch_ptrace_ret at the trap. */
void arch_ptrace_syscall_setup(struct arch_ptrace_regs *r, uint64_t code, long nr,
			       const uint64_t a[6]);
/* clone's arguments in this kernel's order into a[0..5] (x86-64: flags,
 * stack, parent tid, child tid, tls; aarch64: flags, stack, parent tid,
 * tls, child tid). */
void arch_ptrace_clone_args(uint64_t a[6], uint64_t flags, uint64_t stack, uint64_t ptid,
			    uint64_t ctid, uint64_t tls);
/* Is the thread stopped inside a system call, at a ptrace event (not a
 * point a copy can start from)? */
int arch_ptrace_in_syscall(const struct arch_ptrace_regs *r);
/* r (a thread stopped where its call was interrupted) becomes what the
 * kernel's restart would make of it, for a copy of the thread that never
 * was in that call (x86-64: rip back over the `syscall`; aarch64: the
 * kernel did it before the stop). -EBUSY: inside a call at a ptrace event. */
int arch_ptrace_restart_for_copy(struct arch_ptrace_regs *r);
/* Where glibc keeps the thread id (struct pthread's tid) of the thread
 * whose thread pointer is tp: 0 when unknown. The caller checks that the
 * word there holds the thread's id. */
uint64_t arch_ptrace_tid_word(uint64_t tp);

#endif
