// SPDX-License-Identifier: MIT
/*
 * arch_snap.h - what the snapshots of serial mode (src/agent/agent_snap*.c,
 * doc/record.md "Snapshots") need to know of the CPU: a thread's saved
 * context (ucontext_t, getcontext/setcontext), its thread pointer, and
 * where glibc keeps its tid word when the kernel does not say.
 *
 * Every saved context is taken at a call of the agent (a park in the
 * serial scheduler, the holder's take): only what the calling convention
 * keeps across a call matters, and glibc's getcontext saves exactly that
 * (x86-64: rbx, rbp, r12-r15, rsp, the return address, the x87 and SSE
 * control words; aarch64: x19-x30, sp, d8-d15, FPSR, FPCR, in the
 * context's fpsimd record). The rest of the vector state (SVE's Z, P and
 * FFR beyond the low 64 bits of v8-v15) is the caller's to save, so a
 * context resumed from a snapshot needs none of it.
 *
 * The thread pointer: x86-64's FS base (arch_prctl), aarch64's TPIDR_EL0
 * (a register user space reads and writes: MRS/MSR). glibc's struct
 * pthread is at the FS base on x86-64 (TLS variant II) and below the
 * thread pointer on aarch64 (variant I), so the tid word is found from
 * pthread_self() on both.
 *
 * Agent code: static inline, no allocation, async-signal-safe.
 */
#ifndef SPOOL_ARCH_ARCH_SNAP_H
#define SPOOL_ARCH_ARCH_SNAP_H

#include <stdint.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <asm/prctl.h>
#endif

#if defined(__x86_64__)

/* offsetof(struct pthread, tid) from pthread_self(), glibc 2.2x-2.3x: after
 * the TCB header (tcbhead_t, padded to 24 pointers) and the list links. */
#define ARCH_SNAP_TID_OFF 0x2d0

/* glibc keeps the stack protector's canary and the pointer guard in the
 * TCB (fs:0x28, fs:0x30): restored with the thread's TLS. */
#define ARCH_SNAP_RELRO_GUARDS 0

/* The stack pointer the context resumes with. */
static inline uintptr_t arch_snap_ctx_sp(const ucontext_t *uc)
{
	return (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
}

/* A context copied from another place (a snapshot's record): its x87/SSE
 * state pointer named the recording's copy, it must name this one. */
static inline void arch_snap_ctx_fixup(ucontext_t *uc)
{
	uc->uc_mcontext.fpregs = &uc->__fpregs_mem;
}

/* A copy of the process (a fork by raw clone, on the same stack) whose
 * tid word ctid the kernel sets in the child and clears at its exit: the
 * thread's pthread_join-ers in the copy rely on it. x86-64's clone takes
 * (flags, stack, ptid, ctid, tls). Returns as syscall(). */
static inline long arch_snap_fork(unsigned long flags, int32_t *ctid)
{
	return syscall(SYS_clone, flags, NULL, NULL, ctid, 0);
}

static inline uint64_t arch_snap_tp(void)
{
	uint64_t fs = 0;

	syscall(SYS_arch_prctl, ARCH_GET_FS, &fs);
	return fs;
}

/* Set this thread's thread pointer (its TLS: __thread variables read
 * after it, in a function the compiler did not see set it, are the new
 * thread's). Returns 0 or -1. */
static inline long arch_snap_set_tp(uint64_t tp)
{
	return syscall(SYS_arch_prctl, ARCH_SET_FS, tp) < 0 ? -1 : 0;
}

/* Whether return addresses on the program's stacks are signed with keys
 * a new process does not have (aarch64's pointer authentication; below):
 * 1 and *who the object that signs them, or 0. */
static inline int arch_snap_signed_returns(const char **who)
{
	*who = "";
	return 0;
}

#elif defined(__aarch64__)

/* offsetof(struct pthread, tid) from pthread_self(), glibc 2.36 aarch64
 * (a header padded to 24 pointers, then the list links; measured), which
 * is 0x740 bytes below the thread pointer there. Checked against the
 * thread's tid before it is used (agent_snap.c): qemu-user refuses
 * PR_GET_TID_ADDRESS (EINVAL), so under qemu this is what is used. */
#define ARCH_SNAP_TID_OFF 0xd0

/* glibc keeps the stack protector's canary (__stack_chk_guard) and the
 * pointer guard (__pointer_chk_guard) in ld.so's RELRO pages, drawn anew
 * at each exec: a restore puts back the read-only library pages that
 * differ from the snapshot's (agent_snap_restore.c, rs_relro). */
#define ARCH_SNAP_RELRO_GUARDS 1

static inline uintptr_t arch_snap_ctx_sp(const ucontext_t *uc)
{
	return (uintptr_t)uc->uc_mcontext.sp;
}

/* aarch64's context holds no pointer into itself: the fpsimd record is in
 * uc_mcontext.__reserved, found by its magic number. */
static inline void arch_snap_ctx_fixup(ucontext_t *uc)
{
	(void)uc;
}

/* arm64's clone takes (flags, stack, ptid, tls, ctid): with x86-64's
 * order the copy's tid word was never set nor cleared, and a join of the
 * snapshot's taker in a copy waited for good (seen under qemu-user and on
 * the kernel alike). */
static inline long arch_snap_fork(unsigned long flags, int32_t *ctid)
{
	return syscall(SYS_clone, flags, NULL, NULL, 0, ctid);
}

static inline uint64_t arch_snap_tp(void)
{
	uint64_t tp;

	__asm__ volatile("mrs %0, tpidr_el0" : "=r"(tp));
	return tp;
}

/* The compiler may keep the thread pointer it read in a register for the
 * rest of a function: the caller switches TLS and then calls a function
 * (noinline) that uses the new TLS. */
static inline long arch_snap_set_tp(uint64_t tp)
{
	__asm__ volatile("msr tpidr_el0, %0" : : "r"(tp) : "memory");
	return 0;
}

/*
 * Pointer authentication: code built with -mbranch-protection (pac-ret)
 * signs the return address it saves (PACIASP, PACIBSP) with the process's
 * key and checks it before returning (AUTIASP ...). The kernel draws the
 * keys anew at each exec and no process can set them, so a replay restored
 * from a snapshot (a new exec) would fail the check in every frame older
 * than the snapshot. 1 when the CPU signs (HWCAP_PACA) and the code of a
 * loaded object has a PACIASP or PACIBSP. The code is looked at, not the
 * GNU property note: the linker keeps the note's PAC bit only when every
 * input has it, and Debian's crt files do not (a program built with
 * -mbranch-protection=standard there has no note). Debian's own libraries
 * sign nothing; its kernel's vDSO does, and is left out. Called at the
 * agent's start (dl_iterate_phdr: not in a signal handler); a word of data
 * in a text segment that reads as one of the two only refuses snapshots.
 */
#include <link.h>
#include <sys/auxv.h>
#define ARCH_SNAP_HWCAP_PACA (1ul << 30)
#define ARCH_SNAP_PACIASP 0xd503233fu
#define ARCH_SNAP_PACIBSP 0xd503237fu

static inline int arch_snap_pac_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	uintptr_t vdso = (uintptr_t)getauxval(AT_SYSINFO_EHDR);

	(void)size;
	/* The vDSO: Debian's arm64 kernel builds it with pac-ret (seen in
	 * the VM), but no thread is ever parked inside it (a call of
	 * clock_gettime returns before the thread reaches the agent). */
	if (vdso && (uintptr_t)info->dlpi_phdr >= vdso && (uintptr_t)info->dlpi_phdr < vdso + 65536)
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const uint32_t *w, *end;

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X) || !(ph->p_flags & PF_R))
			continue;
		w = (const uint32_t *)(uintptr_t)((info->dlpi_addr + ph->p_vaddr + 3) & ~3ull);
		end = (const uint32_t *)(uintptr_t)((info->dlpi_addr + ph->p_vaddr + ph->p_filesz) &
						    ~3ull);
		for (; w < end; w++)
			if (*w == ARCH_SNAP_PACIASP || *w == ARCH_SNAP_PACIBSP) {
				*(const char **)arg = info->dlpi_name;
				return 1;
			}
	}
	return 0;
}

/* 1 (and *who: the object, "" for the program) when return addresses are
 * signed; 0 when not. */
static inline int arch_snap_signed_returns(const char **who)
{
	*who = "";
	if (!(getauxval(AT_HWCAP) & ARCH_SNAP_HWCAP_PACA))
		return 0;
	return dl_iterate_phdr(arch_snap_pac_cb, (void *)who) == 1;
}

#else
#error "arch_snap.h: unsupported architecture"
#endif

#endif
