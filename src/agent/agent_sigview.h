// SPDX-License-Identifier: MIT
/*
 * agent_sigview.h - the program's own view of the signals probes keep
 * (agent_sigview.c), shared by x86-64's int3 probes (agent_probe.c) and
 * aarch64's BRK probes (src/arch/aarch64/a64_agent_sig.c). The public half
 * (sigprocmask's work, the sigaction filters) is declared in agent_probe.h;
 * this is what the two ports call to take a signal that is not theirs.
 */
#ifndef SPOOL_AGENT_AGENT_SIGVIEW_H
#define SPOOL_AGENT_AGENT_SIGVIEW_H

#include <signal.h>
#include <stdint.h>

#define AGENT_SIG_BIT(sig) (1ull << ((sig)-1))
#define AGENT_SIG_FAULT_BITS                                                                       \
	(AGENT_SIG_BIT(SIGSEGV) | AGENT_SIG_BIT(SIGBUS) | AGENT_SIG_BIT(SIGFPE) |                  \
	 AGENT_SIG_BIT(SIGILL))

/* How a port gives a signal that is not the agent's to action o, as the
 * kernel would have (its handler, or the default action taken again). */
struct sigaction;
typedef void (*agent_sigview_chain_fn)(const struct sigaction *o, int sig, siginfo_t *si,
				       void *uc);

/* The signals never really blocked now (bits of the first word of a
 * mask): SIGTRAP while trap probes are in, the faults while custom
 * handlers are guarded, SIGSYS while syscall user dispatch is on. keep and
 * unkeep change them (release / acquire ordered). */
uint64_t agent_sigview_kept(void);
void agent_sigview_keep(uint64_t bits);
void agent_sigview_unkeep(uint64_t bits);

/* The calling thread may have been started with these signals blocked:
 * unblock them for real, keep them blocked in its view. */
void agent_sigview_unblock_here(uint64_t bits);
/* Send again the held signals the thread's view no longer blocks. */
void agent_sigview_release(void);
/* A kept signal arrived: 1 when the thread's view blocks it and it was
 * dealt with (held when sent, chain's default action for the thread's own
 * trap or fault), 0 otherwise. Signal-safe. */
int agent_sigview_blocked(int sig, siginfo_t *si, void *uc, agent_sigview_chain_fn chain);

/* SIGTRAP: our handler sa installed through install (the real sigaction,
 * not the interposer), the program's disposition kept as the one traps
 * that are not ours go to (agent_probe_sigtrap hands later calls here).
 * 0 or -errno. */
int agent_sigview_trap_install(const struct sigaction *sa,
			       int (*install)(int, const struct sigaction *, struct sigaction *));
/* A SIGTRAP that is not a probe's: the program's handler run as the kernel
 * would (its sa_mask in the view, SA_RESETHAND, SA_NODEFER), SIG_DFL and
 * SIG_IGN by chain. Signal-safe. */
void agent_sigview_trap_chain(siginfo_t *si, void *uc, agent_sigview_chain_fn chain);
/* The program's own SIGTRAP disposition, the one to give back at detach
 * (valid until the next change of it). Signal-safe. */
const struct sigaction *agent_sigview_prog_trap_get(void);

/* Per signal: the kept signals the program put in its handler's sa_mask,
 * and the program's handler and flags behind the sa_mask wrapper (x86-64's
 * attach mode sets them for handlers installed before it). */
extern uint64_t agent_sigview_samask[64];
extern void *agent_sigview_prog_handler[64];
extern int agent_sigview_prog_flags[64];

#endif
