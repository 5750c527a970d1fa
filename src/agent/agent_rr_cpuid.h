// SPDX-License-Identifier: MIT
/*
 * agent_rr_cpuid.h - the CPU's own inputs while recording or replaying:
 * the program's cpuid instructions fault (x86-64 CPUID faulting), the agent
 * emulates them with rdrand and rdseed hidden and records their results;
 * a replay gives the recorded ones (agent_rr_cpuid.c, the portable half;
 * src/arch/x86_64/x86_agent_cpuid.c, the CPU's half; doc/record.md "The
 * CPU's own inputs").
 */
#ifndef SPOOL_AGENT_AGENT_RR_CPUID_H
#define SPOOL_AGENT_AGENT_RR_CPUID_H

#include <signal.h>
#include <stdint.h>

/* The constructor, after agent_rr_dispatch_init (main thread, before the
 * program's main): recording (unless SPOOL_NO_CPUID is set), or replaying
 * a recording that had it, turn CPUID faulting on; a recording notes it
 * in its area's flags (RR_F_CPUID). */
void agent_rr_cpuid_init(void);

/* sigaction(SIGSEGV) of the program (agent_rr_signal.c, and the raw
 * rt_sigaction of agent_rr_dispatch.c): while the agent keeps SIGSEGV,
 * returns 1 after keeping act as the program's disposition (the previous
 * one in oact); the agent's handler stays. 0 otherwise. */
int agent_rr_cpuid_sigsegv(const struct sigaction *act, struct sigaction *oact);

/* The program's SIGSEGV disposition while the agent keeps SIGSEGV (a fault
 * that is not a cpuid goes to it). Signal-safe. */
const struct sigaction *agent_rr_cpuid_prog(void);

/* The agent's SIGSEGV handler has a SIGSEGV that is not a cpuid: 1 when gdb
 * (spool-gdb.py, which passes SIGSEGV silently) asked to see it, and the
 * handler must return so that it comes again (a fault runs its instruction
 * again; a sent one was sent again); 0: give it to the program's
 * disposition. Signal-safe. */
int agent_rr_cpuid_gdb_refault(const siginfo_t *si);
/* Where spool-gdb.py's internal breakpoint is (it sets *stop). */
void agent_rr_cpuid_gdb_fault(volatile int *stop);

/* The agent's SIGSEGV handler found the program's cpuid of leaf, sub:
 * r[] gets what the program sees (eax, ebx, ecx, edx): recording, the
 * CPU's result with rdrand and rdseed cleared, recorded; replaying, the
 * recorded result. Signal-safe (the handler is synchronous: it runs where
 * the program's instruction is, as a named call would). */
void agent_rr_cpuid_value(uint32_t leaf, uint32_t sub, uint32_t r[4]);

/* The CPU's half (src/arch/x86_64/x86_agent_cpuid.c; aarch64 has no such
 * faulting, its stub says -ENOSYS): */
/* Install the SIGSEGV handler (the program's disposition until then in
 * *old) and turn CPUID faulting on in the calling thread (its later
 * threads and fork children inherit it; execve turns it off). 0, or
 * -errno (-ENODEV: the CPU or kernel refuses; the handler is removed). */
int agent_rr_cpuid_arch_on(struct sigaction *old);
/* CPUID faulting off in the calling thread: a snapshot's copy
 * (agent_snap.c), which records nothing; its image writer's libraries run
 * cpuid (zstd), which would otherwise come to the recording's switch
 * points and take a snapshot of the copy, and so on. Signal-safe. */
void agent_rr_cpuid_arch_off(void);
/* The CPU's own result of leaf, sub (faulting off around it, in this
 * thread only), the hidden features cleared. Signal-safe. */
void agent_rr_cpuid_arch_real(uint32_t leaf, uint32_t sub, uint32_t r[4]);

/* Replay: a line for the divergence report when the recording's CPU had
 * features (cpuid leaf 1 or 7) that this one lacks, else nothing. */
struct rr_buf;
void agent_rr_cpuid_note(struct rr_buf *b);

#endif
