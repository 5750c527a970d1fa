// SPDX-License-Identifier: MIT
/*
 * agent_sigshim.h - the entry of the agent's own signal handlers (the int3
 * probes' SIGTRAP, syscall user dispatch's SIGSYS, the sa_mask wrapper), so
 * that spool probe -p can detach while a thread is inside one of them
 * without the handler's return unblocking what the program blocked
 * (agent_sigshim.c).
 */
#ifndef SPOOL_AGENT_AGENT_SIGSHIM_H
#define SPOOL_AGENT_AGENT_SIGSHIM_H

#include <signal.h>
#include <stdint.h>

/* The handlers the kernel is given (x86-64): each calls its C handler,
 * then, once released, puts the released signals the thread's view blocks
 * into the mask its return installs. */
void agent_sigshim_trap(int sig, siginfo_t *si, void *uc);	/* agent_probe_trap */
void agent_sigshim_sys(int sig, siginfo_t *si, void *uc);	/* agent_rr_dispatch_handler */
void agent_sigshim_wrap(int sig, siginfo_t *si, void *uc);	/* agent_probe_samask_wrap */

/* The C handlers the shims call. */
void agent_probe_trap(int sig, siginfo_t *si, void *uc);
void agent_rr_dispatch_handler(int sig, siginfo_t *si, void *uc);
void agent_probe_samask_wrap(int sig, siginfo_t *si, void *uc);

/* spool_agent_probe_detach, every thread stopped: from now on the signals
 * in bits (SIGTRAP, SIGSYS) are blocked for real where the thread's view
 * blocks them. */
void agent_sigshim_release(uint64_t bits);
/* spool_agent_probe_thread_out, in a stopped thread after the release, rip
 * and rsp being where spool stopped it: a thread between a shim's last
 * look at the release and its sigreturn (or in libc's restorer) gets the
 * released bits its view blocks into the mask that sigreturn installs.
 * Returns those bits: spool blocks them in the thread's kernel mask. */
uint64_t agent_sigshim_thread_out(uint64_t rip, uint64_t rsp);

#endif
