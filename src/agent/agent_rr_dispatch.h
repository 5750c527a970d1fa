// SPDX-License-Identifier: MIT
/*
 * agent_rr_dispatch.h - system calls the program makes with its own
 * `syscall` instruction (inline assembly, Go and other runtimes), caught
 * while recording or replaying with Linux syscall user dispatch
 * (agent_rr_dispatch.c, doc/record.md "What is not captured").
 */
#ifndef SPOOL_AGENT_AGENT_RR_DISPATCH_H
#define SPOOL_AGENT_AGENT_RR_DISPATCH_H

/* The constructor, after agent_rr_init (main thread): when recording or
 * replaying, find libc's text, install the SIGSYS handler and turn
 * dispatch on for the calling thread. Says in the area's raw_state whether
 * the kernel allowed it. */
void agent_rr_dispatch_init(void);
/* spool probe, launch mode, once int3 probes are in (main thread, before
 * main): the same, so that the program's own rt_sigprocmask (an inline
 * syscall instruction) cannot block SIGTRAP for real; its other raw calls
 * are made as they are. Nothing when a recording has it on already. */
void agent_rr_dispatch_probes(void);
/* Every thread the agent starts, before its user code: dispatch is per
 * thread and a new thread (like a fork child and an exec'd image) starts
 * without it. */
void agent_rr_dispatch_thread(void);

/* sigaction(SIGSYS) of the program (agent_rr_signal.c): while dispatch
 * is on, returns 1 after keeping act as the program's disposition (and
 * giving the previous one in oact); the agent's handler stays. */
struct sigaction;
int agent_rr_dispatch_sigsys(const struct sigaction *act, struct sigaction *oact);

/* agent_rr_syscall.c: an input call given by number and its six argument
 * registers, sent to the agent's interposer of the named call; *handled
 * says whether n is one the agent records. Returns the interposer's result
 * in syscall()'s convention (-1 and errno). */
long agent_rr_syscall_route(long n, const long *a, int *handled);

#endif
