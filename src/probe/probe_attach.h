// SPDX-License-Identifier: MIT
/*
 * probe_attach.h - attach mode of spool probe (-p PID): stop a running
 * process's threads with ptrace, load the agent into it with its own
 * dlopen, call the agent's attach entry points, and let it go again.
 *
 * ptrace is used only here, to attach and to stop threads while code is
 * patched or restored; never per hit.
 */
#ifndef SPOOL_PROBE_PROBE_ATTACH_H
#define SPOOL_PROBE_PROBE_ATTACH_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PROBE_ATTACH_MAX_TASKS 4096

struct probe_attach {
	pid_t pid;
	pid_t tids[PROBE_ATTACH_MAX_TASKS]; /* seized threads */
	int sig[PROBE_ATTACH_MAX_TASKS];    /* signal held back, delivered at resume */
	/* a held SIGTRAP of an int3 (si_code SI_KERNEL): the ip after it */
	uint64_t trap_ip[PROBE_ATTACH_MAX_TASKS];
	uint8_t stopped[PROBE_ATTACH_MAX_TASKS];
	size_t ntids;
	uint64_t fn_prepare, fn_commit, fn_detach; /* the agent's entry points */
	uint64_t fn_ctl; /* spool_agent_probe_ctl (probe_live.c), 0 when absent */
	uint64_t fn_dispatch; /* spool_agent_probe_dispatch, 0 when absent */
	uint64_t fn_thread_out; /* spool_agent_probe_thread_out, 0 when absent */
	/* spool_agent_probe_release (aarch64: the detach's second stop), 0
	 * when absent or not called (x86-64: the detach is one stop,
	 * arch_ptrace_release_stop) */
	uint64_t fn_release;
};

/* Seize every thread of pid and stop them all. -ESRCH: no such process (or
 * it exited meanwhile); -EPERM: not allowed to trace it. */
int probe_attach_stop(struct probe_attach *a, pid_t pid);
/* Load the agent (its absolute path) with the target's dlopen, on the main
 * thread, and find its entry points. */
int probe_attach_load_agent(struct probe_attach *a, const char *agent);
/* Call fn(str) (str copied onto the thread's stack; NULL: fn()) on the main
 * thread, restore every register; *ret is the function's return value. */
int probe_attach_call(struct probe_attach *a, uint64_t fn, const char *str, int64_t *ret);
/* The same on thread tid (one of a's stopped threads); without str, the
 * first argument is arg. */
int probe_attach_call_in(struct probe_attach *a, pid_t tid, uint64_t fn, const char *str,
			 int64_t arg, int64_t *ret);
/* The same with two arguments (rdi, rsi). */
int probe_attach_call_in2(struct probe_attach *a, pid_t tid, uint64_t fn, int64_t arg,
			  int64_t arg2, int64_t *ret);
/* After the agent's detach, in each stopped thread: the agent's
 * spool_agent_probe_thread_out with the ip and stack pointer the thread
 * stopped at (a thread about to return from a signal handler gets the
 * released signals its view blocks into that frame), then those signals
 * blocked in the thread's kernel mask. Returns the threads that got a
 * signal blocked, or -errno (the first failure; the others are done). */
int probe_attach_threads_out(struct probe_attach *a);
/* Stopped threads that share their thread pointer (fs base) with another:
 * made by the program's own clone without TLS of their own. Returns how
 * many (the first in *tid, sharing with *with), or -errno. */
int probe_attach_shared_tls(const struct probe_attach *a, pid_t *tid, pid_t *with);
/* Step every thread out of the ranges [lo[i], hi[i]) (a thread exactly at
 * lo is fine: it will run the jump). -EBUSY if one does not leave. Each
 * thread's signal mask is as it was after (the step's forced SIGTRAP would
 * unblock SIGTRAP for good; an ignored one the kernel resets to the
 * default: the agent's commit puts the disposition back). */
int probe_attach_leave_ranges(struct probe_attach *a, const uint64_t *lo, const uint64_t *hi,
			      size_t n);
/* A thread stopped with the SIGTRAP of an int3 not yet handled: sent again
 * at resume it would come with a ptrace siginfo, which the agent does not
 * take for an int3 hit (the program's default action: killed), and after
 * detach the probe is gone. Such a thread is moved back onto the int3 (it
 * traps again, for real) or onto the instruction restored in its place,
 * and the signal dropped. Called by probe_attach_resume; returns the
 * threads moved. */
int probe_attach_unwind_traps(struct probe_attach *a);
/* After the agent's detach (the words put back), every thread stopped:
 * is one (*tid, *why) still to trap into the agent's BRK handler when it
 * runs (a SIGTRAP pending, its pc on a BRK, a slot or a sigreturn:
 * arch_ptrace_trap_ahead), or in the agent's code (agent: its path)? Then
 * the handler must stay until it has run on: 1. */
int probe_attach_trap_busy(const struct probe_attach *a, const char *agent, pid_t *tid,
			   const char **why);
/* Let every thread go (PTRACE_DETACH), with any signal held back. */
void probe_attach_resume(struct probe_attach *a);

/* The load bias of the module whose path is file (the target's view), from
 * /proc/PID/maps; 0 with -ENOENT when not mapped. */
int probe_attach_module_base(pid_t pid, const char *file, uint64_t *base);
/* The libraries mapped in the target (absolute paths, deduplicated). */
int probe_attach_libs(pid_t pid, char ***libs, size_t *nlibs);

/* The stopped threads whose pc is in a mapping of file (up to max tids
 * into out); how many (probe_settle.c). */
size_t probe_attach_threads_in(const struct probe_attach *a, const char *file, pid_t *out,
			       size_t max);

/* Is stopped thread tid (one of a's) inside the dynamic loader's code (a
 * program still starting: ld.so relocating it or running its libraries'
 * constructors; or a dlopen, a lazy binding)? 1, or 0 (also when that
 * cannot be read). A call into it then is not safe (probe_attach.c). */
int probe_attach_in_loader(const struct probe_attach *a, pid_t tid);
/* Does a stopped thread block SIGTRAP (an int3 probe hit would kill the
 * process: the agent is not interposed in attach mode)? 1 and *tid, or 0. */
int probe_attach_trap_blocked(const struct probe_attach *a, pid_t *tid);
/* Block SIGTRAP for real in stopped thread tid (one of a's): its own view
 * blocked it while int3 probes were in (the agent kept it out). 0, or
 * -ESRCH when tid is not one of a's stopped threads. */
int probe_attach_block_trap(const struct probe_attach *a, pid_t tid);
/* The same for signal sig (SIGSYS: the view of a thread that had syscall
 * user dispatch on). */
int probe_attach_block_sig(const struct probe_attach *a, pid_t tid, int sig);

#endif
