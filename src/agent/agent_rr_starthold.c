// SPDX-License-Identifier: MIT
/*
 * agent_rr_starthold.c - record/replay: a new thread takes no signal
 * before spool numbers it (doc/record.md, "Signals").
 *
 * The signal wrapper (agent_rr_signal.c) can record a handler only on a
 * numbered thread. A new thread is numbered by the first code of the
 * agent it runs (agent_thread.c: agent_thread_start), but glibc unblocks
 * its signals earlier, in its own start code: a signal sent to the thread
 * at once (pthread_kill just after pthread_create) landed there and ran
 * its handler unrecorded, which a replay never ran (it hung or diverged).
 *
 * So the creator blocks every signal a program can handle around the real
 * pthread_create (glibc gives the new thread the creator's mask), and the
 * new thread unblocks exactly those it added once it has its number: a
 * signal that came in between stays pending in the kernel until then, and
 * is recorded like any other, at the thread's first recorded event.
 *
 * Not held: the faults (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP: the int3
 * probes, SIGSYS: syscall user dispatch), which must stay synchronous, and
 * glibc's own SIGCANCEL and SIGSETXID. A thread whose attributes carry a
 * mask of its own (pthread_attr_setsigmask_np) starts with that mask,
 * whatever its creator's: it is not held, and a signal that lands before
 * its number is counted as a loss (agent_rr_sig_unnumbered).
 *
 * Signal-safety and rules: raw rt_sigprocmask (the interposed one may be
 * a probe's), no new libc import (pthread_attr_getsigmask_np is looked up
 * with dlsym, once), errno as the caller left it.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "agent_rr.h"

#define BIT(sig) (1ull << ((sig) - 1))

/* The kernel's mask layout (bit sig - 1, 64 signals on x86-64 and arm64). */
static const uint64_t hold_set =
	~(BIT(SIGKILL) | BIT(SIGSTOP) | BIT(SIGSEGV) | BIT(SIGBUS) | BIT(SIGFPE) | BIT(SIGILL) |
	  BIT(SIGTRAP) | BIT(SIGSYS) | BIT(32) /* SIGCANCEL */ | BIT(33) /* SIGSETXID */);

static int (*hold_getmask)(const pthread_attr_t *, sigset_t *);
static int hold_resolved;

/* 1 when attr carries a mask of its own, else 0 (or glibc lacks the call:
 * before 2.32 the attribute does not exist either). */
static int hold_attr_mask(const pthread_attr_t *attr)
{
	sigset_t m;

	if (!attr)
		return 0;
	if (!__atomic_load_n(&hold_resolved, __ATOMIC_ACQUIRE)) {
		__atomic_store_n(&hold_getmask, dlsym(RTLD_DEFAULT, "pthread_attr_getsigmask_np"),
				 __ATOMIC_RELAXED);
		__atomic_store_n(&hold_resolved, 1, __ATOMIC_RELEASE);
	}
	return hold_getmask && hold_getmask(attr, &m) == 0;
}

int agent_rr_start_hold(const pthread_attr_t *attr, uint64_t *old, uint64_t *added)
{
	int saved = errno;
	uint64_t o = 0;

	*added = 0;
	if (!agent_rr_mode || hold_attr_mask(attr))
		goto out;
	if (syscall(SYS_rt_sigprocmask, SIG_BLOCK, &hold_set, &o, sizeof(o)) != 0)
		goto out;
	*old = o;
	*added = hold_set & ~o;
out:
	errno = saved;
	return *added != 0;
}

void agent_rr_start_unhold_creator(uint64_t old)
{
	int saved = errno;

	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &old, NULL, sizeof(old));
	errno = saved;
}

void agent_rr_start_unhold(uint64_t added)
{
	int saved = errno;

	/* Only what the creator added: the rest is the mask glibc gave. */
	if (added)
		syscall(SYS_rt_sigprocmask, SIG_UNBLOCK, &added, NULL, sizeof(added));
	errno = saved;
}
