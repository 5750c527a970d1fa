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
/* In a child no fork handler runs in: what the fork handler does. */
void agent_rr_dispatch_raw_fork_child(void);
/* spool probe -p (attach mode), at commit with int3 probes in (the
 * thread spool calls into): install the SIGSYS handler and keep SIGSYS
 * out of every mask the agent sees, so that the program's own
 * rt_sigprocmask cannot block SIGTRAP for real once each thread has
 * dispatch on. Turns it on for no thread: the dlopen'ed agent cannot
 * start code in threads that already run, so spool calls
 * agent_rr_dispatch_attach_thread in each stopped thread. 0, or -errno
 * (-ENOSYS: the kernel or SPOOL_NO_DISPATCH said no). */
int agent_rr_dispatch_attach(void);
/* In the calling thread (spool calls it in each): on, turn dispatch on
 * (0; -EAGAIN when its kernel mask blocks SIGSYS, which a dispatched call
 * would turn into a kill; -ENOENT when attach set nothing up); off, turn
 * it off and return 1 when the thread's own view blocks SIGSYS (spool
 * blocks it for real then), else 0. */
int agent_rr_dispatch_attach_thread(int on);
/* spool_agent_probe_detach, every thread's dispatch off: the program's
 * SIGSYS disposition back, SIGSYS no longer kept. */
void agent_rr_dispatch_attach_end(void);
/* Every thread the agent starts, before its user code: dispatch is per
 * thread and a new thread (like a fork child and an exec'd image) starts
 * without it. */
void agent_rr_dispatch_thread(void);
/* A thread a restore from a snapshot recreated (agent_snap_restore.c), on
 * its own TLS, before it returns into its saved context: dispatch on as
 * for a new thread, its selector left as the snapshot has it. Without it a
 * restored thread's own futex wait (libgomp's) blocked in the kernel while
 * it held the run token: the replay was reported stuck. */
void agent_rr_dispatch_restored_thread(void);
/* 1 while syscall user dispatch is on in this process (x86-64: a raw
 * clone is then seen made); 0 where there is none. */
int agent_rr_dispatch_on(void);

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
