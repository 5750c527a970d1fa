// SPDX-License-Identifier: MIT
/*
 * agent_sigshim.c - the entry of the agent's own signal handlers, for
 * spool probe -p's detach (tests/integ/145, late-inline-busy).
 *
 * While int3 probes are in (and syscall user dispatch is on), the agent
 * keeps SIGTRAP and SIGSYS out of the kernel's masks and keeps the
 * program's view of them per thread (agent_probe.c). At the detach spool
 * blocks for real what each thread's view blocks. A thread stopped inside
 * one of the agent's handlers defeated that: the handler's return
 * (rt_sigreturn) installs the mask saved in its frame (uc_sigmask), which
 * lacks the kept signals, so the program went on with SIGTRAP unblocked
 * while it had blocked it (1 detach in 5 under constant inline calls).
 *
 * So the kernel runs a shim, which calls the C handler and then, once the
 * detach released the kept signals (agent_sigshim_released, set while
 * every thread is stopped), puts the released signals the thread's view
 * blocks into uc_sigmask. A thread stopped before that look does it after
 * the detach itself. One stopped after it (the look's last instructions,
 * the shim's return, libc's restorer) cannot: spool calls
 * agent_sigshim_thread_out in each thread with the ip and stack pointer it
 * stopped at, which finds that frame from the shim's fixed stack layout
 * and fixes it in place.
 *
 * Stack at a shim's entry (the kernel's rt_sigframe): rsp points at the
 * return address (the restorer), the ucontext right above it, rsp = 8 mod
 * 16. The shim keeps uc at (rsp) after its one 8-byte adjustment.
 * Signal-safety: the tail touches only this thread's TLS and its own frame.
 */
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <ucontext.h>
#include <unistd.h>

#include "agent_probe.h"
#include "agent_sigshim.h"

#if defined(__x86_64__)

/* Read by the shims (asm); written once, with every thread stopped. */
__attribute__((visibility("hidden"))) volatile uint64_t agent_sigshim_released;

/* The tail, once released: the view's released bits into the frame. */
__attribute__((visibility("hidden"))) void agent_sigshim_tail(ucontext_t *uc)
{
	uint64_t *m = (uint64_t *)&uc->uc_sigmask;

	*m |= agent_probe_trap_view() & agent_sigshim_released;
}

/*
 * name: sub 8 (aligned for the call), uc kept at (rsp), the C handler,
 * then the look at the release. name_win is the first instruction after
 * the load: from there to name_ret (excluded) rsp is the shim's (uc at
 * rsp + 16); at name_ret, uc is at rsp + 8.
 */
#define AGENT_SIGSHIM(name, target)                                                                \
	__asm__(".pushsection .text\n"                                                             \
		".balign 16\n"                                                                     \
		".globl " #name "\n"                                                               \
		".hidden " #name "\n"                                                              \
		".type " #name ", @function\n" #name ":\n"                                         \
		".cfi_startproc\n"                                                                 \
		"\tsubq $8, %rsp\n"                                                                \
		".cfi_adjust_cfa_offset 8\n"                                                       \
		"\tmovq %rdx, (%rsp)\n"                                                            \
		"\tcall " #target "\n"                                                             \
		"\tmovq agent_sigshim_released(%rip), %rax\n" #name "_win:\n"                      \
		"\ttestq %rax, %rax\n"                                                             \
		"\tjz 1f\n"                                                                        \
		"\tmovq (%rsp), %rdi\n"                                                            \
		"\tcall agent_sigshim_tail\n"                                                      \
		"1:\taddq $8, %rsp\n"                                                              \
		".cfi_adjust_cfa_offset -8\n" #name "_ret:\n"                                      \
		"\tret\n"                                                                          \
		".cfi_endproc\n"                                                                   \
		".size " #name ", .-" #name "\n"                                                   \
		".popsection\n")

AGENT_SIGSHIM(agent_sigshim_trap, agent_probe_trap);
AGENT_SIGSHIM(agent_sigshim_sys, agent_rr_dispatch_handler);
AGENT_SIGSHIM(agent_sigshim_wrap, agent_probe_samask_wrap);

extern const char agent_sigshim_trap_win[], agent_sigshim_trap_ret[];
extern const char agent_sigshim_sys_win[], agent_sigshim_sys_ret[];
extern const char agent_sigshim_wrap_win[], agent_sigshim_wrap_ret[];

void agent_sigshim_release(uint64_t bits)
{
	__atomic_store_n(&agent_sigshim_released, bits, __ATOMIC_RELEASE);
}

/* The kernel's struct sigaction (rt_sigaction). */
struct agent_sigshim_ksa {
	uint64_t handler, flags, restorer, mask;
};

#define AGENT_SIGSHIM_SA_RESTORER 0x04000000ull

/* glibc's __restore_rt (mov $15, %rax (7 bytes); syscall), the restorer
 * of ours for SIGTRAP, installed through libc; 0 if it is not that. */
static uint64_t agent_sigshim_restorer(void)
{
	static const uint8_t code[9] = {0x48, 0xc7, 0xc0, 0x0f, 0, 0, 0, 0x0f, 0x05};
	struct agent_sigshim_ksa k;

	if (syscall(SYS_rt_sigaction, SIGTRAP, NULL, &k, 8) < 0 ||
	    !(k.flags & AGENT_SIGSHIM_SA_RESTORER) || !k.restorer)
		return 0;
	if (memcmp((const void *)(uintptr_t)k.restorer, code, sizeof(code)))
		return 0;
	return k.restorer;
}

/* Reads len bytes at addr of this process without faulting (a guard page
 * or another mapping above a stack): 0 or -1. */
static int agent_sigshim_peek(uint64_t addr, void *buf, size_t len)
{
	struct iovec l = {buf, len}, r = {(void *)(uintptr_t)addr, len};

	return syscall(SYS_process_vm_readv, (long)getpid(), &l, 1L, &r, 1L, 0L) == (long)len ? 0
												 : -1;
}

#define AGENT_SIGSHIM_SCAN (8ull << 20) /* bytes of stack above rsp looked at */

/*
 * The frames of signal handlers the thread is inside, the program's own
 * included, not yet at their return: each holds the mask the kernel saved
 * at the delivery, without the kept signals (they were out of the kernel's
 * mask then), and its return installs it. Found by their return address,
 * the restorer, at the frame's start (the kernel's rt_sigframe: pretcode,
 * then the ucontext), checked (uc_link 0, only the flags the kernel sets,
 * the FP state just above), and given the released signals the thread's
 * view blocks, as the shims do for the agent's own frames. The view is the
 * one the thread had at the delivery unless the handler changed its mask
 * itself (a program's handler runs with the kept signals stripped from
 * its sa_mask, so the delivery did not change the view). A thread on an
 * alternate signal stack has its frames there: scanned from its rsp too,
 * until the first address that cannot be read.
 */
static void agent_sigshim_fix_frames(uint64_t rsp, uint64_t restorer, uint64_t bits)
{
	uint64_t buf[512];

	for (uint64_t at = rsp & ~7ull; at - rsp < AGENT_SIGSHIM_SCAN; at += sizeof(buf)) {
		if (agent_sigshim_peek(at, buf, sizeof(buf)))
			return;
		for (size_t i = 0; i < sizeof(buf) / 8; i++) {
			uint64_t f = at + 8 * i, fp;
			ucontext_t uc;

			if (buf[i] != restorer || agent_sigshim_peek(f + 8, &uc, sizeof(uc)))
				continue;
			fp = (uint64_t)(uintptr_t)uc.uc_mcontext.fpregs;
			if (uc.uc_link || (uc.uc_flags & ~7ul) || fp <= f || fp - f > 65536)
				continue;
			((uint64_t *)&((ucontext_t *)(uintptr_t)(f + 8))->uc_sigmask)[0] |= bits;
		}
	}
}

uint64_t agent_sigshim_thread_out(uint64_t rip, uint64_t rsp)
{
	const char *const win[3] = {agent_sigshim_trap_win, agent_sigshim_sys_win,
				    agent_sigshim_wrap_win};
	const char *const ret[3] = {agent_sigshim_trap_ret, agent_sigshim_sys_ret,
				    agent_sigshim_wrap_ret};
	uint64_t bits = agent_probe_trap_view() & agent_sigshim_released;
	ucontext_t *uc = NULL;

	for (int i = 0; i < 3 && !uc; i++) {
		if (rip >= (uintptr_t)win[i] && rip < (uintptr_t)ret[i])
			uc = (ucontext_t *)(uintptr_t)(rsp + 16);
		else if (rip == (uintptr_t)ret[i])
			uc = (ucontext_t *)(uintptr_t)(rsp + 8);
	}
	uint64_t restorer = agent_sigshim_restorer();

	/* Any handler's return, the program's too: its mask comes back
	 * from this frame a few instructions from now. */
	if (!uc && restorer && (rip == restorer || rip == restorer + 7))
		uc = (ucontext_t *)(uintptr_t)rsp;
	if (uc && bits)
		((uint64_t *)&uc->uc_sigmask)[0] |= bits;
	/* and every handler's frame further up, not yet at its return */
	if (restorer && bits)
		agent_sigshim_fix_frames(rsp, restorer, bits);
	return bits;
}

#else /* !__x86_64__ */

void agent_sigshim_release(uint64_t bits)
{
	(void)bits;
}

uint64_t agent_sigshim_thread_out(uint64_t rip, uint64_t rsp)
{
	(void)rip;
	(void)rsp;
	return 0;
}

#endif
