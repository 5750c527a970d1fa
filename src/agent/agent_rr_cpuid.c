// SPDX-License-Identifier: MIT
/*
 * agent_rr_cpuid.c - the program's cpuid instructions, recorded and
 * replayed (the portable half; the CPU's half, the SIGSEGV handler and the
 * real instruction, is src/arch/x86_64/x86_agent_cpuid.c).
 *
 * A program asks the CPU for its features with cpuid and then uses them:
 * libgcrypt mixes rdrand's bytes into its random numbers, so a replay
 * printed other bytes than its recording (tests/real/138), and a recording
 * replayed on another CPU took other paths. As rr does, while recording the
 * agent turns Linux's CPUID faulting on (arch_prctl ARCH_SET_CPUID 0, per
 * thread, inherited by threads and fork children, reset by execve: the
 * kernel's arch_setup_new_exec): each cpuid of the program raises SIGSEGV,
 * the agent's handler answers with the CPU's result with rdrand (leaf 1
 * ecx bit 30) and rdseed (leaf 7 ebx bit 18) cleared, so their users fall
 * back on the system's random numbers, which are recorded, and with the
 * time stamp counter and rdtscp cleared (rdtsc is not recorded: libgcrypt
 * then leaves out its jitter entropy collector, tests/real/161), and
 * records the answer (RR_CALL_CPUID). A replay of such a recording (RR_O_CPUID) turns
 * faulting on too and answers each cpuid from the log, on any CPU.
 *
 * ld.so and libc run cpuid before the agent starts (their answer includes
 * rdrand; glibc itself does not use it for the program's random numbers).
 * The agent keeps SIGSEGV (agent_sigview.c): the kernel never blocks it,
 * the program's masks are its view; the program's own handler is kept as
 * its disposition, which a fault that is not a cpuid goes to.
 *
 * Signal-safety: agent_rr_cpuid_value runs in the SIGSEGV handler, at the
 * program's own instruction, as a named input call would (the same entry,
 * agent_rr_io_enter). A cpuid made inside the agent (busy) or by a thread
 * spool has not numbered is answered unrecorded.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "agent.h"
#include "agent_rr.h"
#include "agent_rr_cpuid.h"
#include "agent_sigview.h"

static int cpuid_on; /* the agent keeps SIGSEGV and answers cpuid */
/* The program's SIGSEGV disposition: two copies, the current one published
 * by pointer (the handler reads it without a lock). */
static struct sigaction cpuid_prog_act[2];
static struct sigaction *cpuid_prog_cur = &cpuid_prog_act[0];
/* Replay: the first feature the recording's CPU had and this one lacks. */
static uint32_t cpuid_miss_leaf, cpuid_miss_reg, cpuid_miss_bits;
static uint32_t cpuid_checked; /* bit 0: leaf 1 looked at, bit 1: leaf 7 */

void agent_rr_cpuid_init(void)
{
	struct rr_area *a;
	struct sigaction old;
	int rc;

	if (!agent_rr_mode || !agent.ctl || !(a = agent_rr_area()))
		return;
	if (agent_rr_mode & RR_MODE_REPLAY) {
		if (!(agent_rr_opts() & RR_O_CPUID))
			return; /* recorded without it: the cpuid runs for real */
	} else if (getenv("SPOOL_NO_CPUID")) {
		/* read once, at startup: a way to test a recording without it */
		agent_log("cpuid faulting off (SPOOL_NO_CPUID)");
		return;
	}
	if (agent_sigview_kept() & AGENT_SIG_BIT(SIGSEGV)) {
		agent_log("cpuid faulting off: SIGSEGV is taken");
		return;
	}
	rc = agent_rr_cpuid_arch_on(&old);
	if (rc) {
		/* spool record says so (no RR_F_CPUID); a replay that needed it
		 * diverges at the first cpuid, which finds no record */
		agent_log("cpuid faulting unavailable (%d): rdrand and rdseed not hidden", rc);
		return;
	}
	cpuid_prog_act[0] = old;
	/* From now on the kernel never blocks SIGSEGV (a blocked fault would
	 * kill): the program's masks block it in its view only. */
	agent_sigview_keep(AGENT_SIG_BIT(SIGSEGV));
	agent_sigview_unblock_here(AGENT_SIG_BIT(SIGSEGV));
	__atomic_store_n(&cpuid_on, 1, __ATOMIC_RELEASE);
	if (agent_rr_mode & RR_MODE_RECORD)
		__atomic_fetch_or(&a->flags, RR_F_CPUID, __ATOMIC_RELAXED);
	agent_log("cpuid faulting on: rdrand, rdseed and the tsc hidden, cpuid recorded");
}

int agent_rr_cpuid_sigsegv(const struct sigaction *act, struct sigaction *oact)
{
	struct sigaction *cur, *next;

	if (!__atomic_load_n(&cpuid_on, __ATOMIC_ACQUIRE))
		return 0;
	cur = __atomic_load_n(&cpuid_prog_cur, __ATOMIC_ACQUIRE);
	if (oact)
		*oact = *cur;
	if (act) {
		/* (two threads changing it at once: one of the two wins, as
		 * with the kernel's own lock) */
		next = cur == &cpuid_prog_act[0] ? &cpuid_prog_act[1] : &cpuid_prog_act[0];
		*next = *act;
		__atomic_store_n(&cpuid_prog_cur, next, __ATOMIC_RELEASE);
	}
	return 1;
}

const struct sigaction *agent_rr_cpuid_prog(void)
{
	return __atomic_load_n(&cpuid_prog_cur, __ATOMIC_ACQUIRE);
}

/*
 * Under gdb (spool replay --gdb, gdb's record-mode and replay-mode),
 * spool-gdb.py has gdb pass SIGSEGV on without stopping: each cpuid of the
 * program raises one, and the user must not see spool's. A real fault must
 * still stop gdb where it happened, as without spool: the agent's handler
 * calls this function on each SIGSEGV that is not a cpuid, where the
 * extension keeps an internal breakpoint; it has gdb stop at SIGSEGV again
 * and sets *stop. The handler then returns, the faulting instruction runs
 * again (a SIGSEGV that was sent is sent again) and gdb stops at it,
 * "Program received signal SIGSEGV"; the extension goes back to passing
 * SIGSEGV silently, and the user's `continue` delivers that one to the
 * agent, which finds cpuid_gdb_pass set and gives it to the program's
 * disposition. Without gdb, or a gdb without the extension, nothing sets
 * *stop: the fault goes to the program's disposition at once. noinline and
 * the empty asm keep the call (and its address) in the library.
 */
__attribute__((noinline, used)) void agent_rr_cpuid_gdb_fault(volatile int *stop)
{
	__asm__ volatile("" : : "r"(stop) : "memory");
}

/* this thread's next SIGSEGV that is not a cpuid goes to the program: gdb
 * has been asked to stop at it (signal handler only; initial-exec TLS) */
static __thread int cpuid_gdb_pass;

int agent_rr_cpuid_gdb_refault(const siginfo_t *si)
{
	volatile int stop = 0;
	int saved;

	if (cpuid_gdb_pass) {
		cpuid_gdb_pass = 0;
		return 0;
	}
	agent_rr_cpuid_gdb_fault(&stop);
	if (!stop)
		return 0;
	cpuid_gdb_pass = 1;
	/* a fault happens again by itself; a sent SIGSEGV is sent again
	 * (SA_NODEFER: it comes at the system call's return, gdb stops in
	 * the agent's frame, the program's below it) */
	if (si->si_code <= 0) {
		saved = errno;
		syscall(SYS_tgkill, syscall(SYS_getpid), syscall(SYS_gettid), SIGSEGV);
		errno = saved;
	}
	return 1;
}

/* Replay, leaves 1 and 7: the features the recording's CPU reported and
 * this one lacks (the program may use them: SIGILL, or other results). */
static void cpuid_check(uint32_t leaf, uint32_t sub, const uint32_t rec[4])
{
	uint32_t real[4], bit = leaf == 1 ? 1 : 2;
	int first = leaf == 1 ? 2 : 1;

	/* once a leaf (the real instruction costs two arch_prctl calls; a
	 * race between threads only looks twice) */
	if (!(leaf == 1 || (leaf == 7 && sub == 0)) ||
	    (__atomic_fetch_or(&cpuid_checked, bit, __ATOMIC_RELAXED) & bit))
		return;
	agent_rr_cpuid_arch_real(leaf, sub, real);
	for (int i = first; i < 4; i++)
		if (rec[i] & ~real[i]) {
			cpuid_miss_leaf = leaf;
			cpuid_miss_reg = (uint32_t)i;
			cpuid_miss_bits = rec[i] & ~real[i];
			agent_log("cpuid leaf %u: the recording's CPU had features this one lacks",
				  leaf);
			return;
		}
}

void agent_rr_cpuid_note(struct rr_buf *b)
{
	static const char *const reg[4] = {"eax", "ebx", "ecx", "edx"};
	char hex[9];

	if (!cpuid_miss_bits)
		return;
	rr_puts(b, "\n  note: the recording's CPU reported features this CPU lacks (cpuid leaf ");
	rr_putu(b, cpuid_miss_leaf);
	rr_puts(b, " ");
	rr_puts(b, reg[cpuid_miss_reg & 3]);
	rr_puts(b, " bits 0x");
	for (int i = 28; i >= 0; i -= 4)
		hex[7 - i / 4] = "0123456789abcdef"[(cpuid_miss_bits >> i) & 15];
	hex[8] = 0;
	rr_puts(b, hex);
	rr_puts(b, "), and the program was given the recorded ones");
}

void agent_rr_cpuid_value(uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	struct agent_thread *t;
	struct agent_rr_seg s = {r, 4 * sizeof(uint32_t)};
	uint64_t arg = (uint64_t)leaf << 32 | sub, got = 0;
	int saved = errno;

	if (!agent_rr_mode || !(t = agent_rr_io_enter())) {
		agent_rr_cpuid_arch_real(leaf, sub, r);
		goto out;
	}
	if (agent_rr_mode & RR_MODE_REPLAY) {
		memset(r, 0, 4 * sizeof(uint32_t)); /* (a short record: zeros) */
		agent_rr_rep_input(t, RR_CALL_CPUID, -1, &s, 1, &got);
		if (got != arg)
			agent_rr_diverge_text("cpuid",
					      "a cpuid of another leaf or subleaf than recorded");
		cpuid_check(leaf, sub, r);
		goto out;
	}
	agent_rr_cpuid_arch_real(leaf, sub, r);
	agent_rr_rec_input(t, RR_CALL_CPUID, -1, 0, 0, arg, &s, 1);
out:
	errno = saved;
}
