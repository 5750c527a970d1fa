// SPDX-License-Identifier: MIT
/*
 * a64_agent_probe.c - the agent's dynamic-probe interface (agent_probe.h)
 * on aarch64, where this stage has no dynamic probes: agent_probe.c,
 * agent_probe_hot.c and agent_probe_got.c are x86-64 code (int3 traps,
 * the x86 register context, xsave) and are not built
 * (src/arch/aarch64/aarch64.mk). spool refuses `spool probe` with a
 * dynamic probe there before anything reaches the agent
 * (src/arch/aarch64/a64_noprobe.c), so no probe area ever exists.
 *
 * What the rest of the agent asks of this interface is then its "nothing
 * kept" answer: no signal is held out of the kernel's masks, masks and
 * handlers pass through unchanged, attach entry points say ENOTSUP. These
 * are the same paths agent_probe.c takes while no probe is in.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../../agent/agent.h"
#include "../../agent/agent_probe.h"

void agent_probe_init(void) {}

void agent_probe_dlopen(void) {}

int agent_probe_sigtrap(const struct sigaction *act, struct sigaction *oact)
{
	return 0; /* not handled: the program's sigaction goes through */
}

int agent_probe_trap_live(void)
{
	return 0;
}

const sigset_t *agent_probe_mask_arg(const sigset_t *m, sigset_t *buf)
{
	return m;
}

/* sigprocmask's work (0 or an errno value); raw: the system call as
 * syscall() made it, else glibc's pthread_sigmask (which keeps its two
 * internal signals unblocked). Not reached while trap_live() is 0. */
int agent_probe_sigmask(int how, const sigset_t *set, sigset_t *old, int raw)
{
	if (raw)
		return syscall(SYS_rt_sigprocmask, how, set, old, _NSIG / 8) ? errno : 0;
	return pthread_sigmask(how, set, old);
}

/* The change made to *mask, a SIGSYS handler's return mask. */
int agent_probe_sigmask_in(int how, const sigset_t *set, sigset_t *old, uint64_t *mask)
{
	uint64_t s = 0;

	if (set) {
		if (how != SIG_BLOCK && how != SIG_UNBLOCK && how != SIG_SETMASK)
			return EINVAL;
		s = ((const uint64_t *)set)[0]; /* before old is written: they may alias */
	}
	if (old)
		((uint64_t *)old)[0] = *mask;
	if (!set)
		return 0;
	if (how == SIG_BLOCK)
		*mask |= s;
	else if (how == SIG_UNBLOCK)
		*mask &= ~s;
	else
		*mask = s;
	return 0;
}

const struct sigaction *agent_probe_action_in(int sig, const struct sigaction *act,
					      struct sigaction *buf)
{
	return act;
}

void agent_probe_action_out(int sig, struct sigaction *oact, uint64_t had) {}

uint64_t agent_probe_action_marks(int sig)
{
	return 0;
}

uint64_t agent_probe_trap_view(void)
{
	return 0;
}

void agent_probe_trap_view_set(uint64_t blocked) {}

/* Syscall user dispatch is x86-64 only here (agent_rr_dispatch.c). */
void agent_probe_keep_sigsys(void) {}

int agent_probe_sigsys_blocked(siginfo_t *si, void *uc)
{
	return 0;
}

/* Attach mode (spool probe -p): refused. */
AGENT_EXPORT int spool_agent_probe_prepare(const char *shm)
{
	return -ENOTSUP;
}

AGENT_EXPORT int spool_agent_probe_commit(void)
{
	return -ENOTSUP;
}

AGENT_EXPORT int spool_agent_probe_detach(void)
{
	return -ENOTSUP;
}

AGENT_EXPORT int spool_agent_probe_ctl(const char *cmd)
{
	return -ENOTSUP;
}

/* Exits through the return address (agent_probe_ra.c, x86-64): no frame is
 * ever swapped here, so there is nothing to resolve, put back or free. */
void agent_probe_ra_resolve(void) {}

void agent_probe_ra_thread_end(void) {}

void agent_probe_ra_unhook(uint64_t from) {}
