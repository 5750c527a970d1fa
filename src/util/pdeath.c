// SPDX-License-Identifier: MIT
/*
 * pdeath.c - PR_SET_PDEATHSIG for the helper processes spool starts
 * (pdeath.h). The kernel sends the signal when the *thread* that forked the
 * child ends, not the process: so only children forked by spool's main
 * thread, which lives as long as spool, use it. The signal survives the
 * child's exec (not a set-user-ID one) and is not inherited by the child's
 * own children: a helper's children are its own to end (a shell ends with
 * its command, gdb kills its inferior on SIGTERM). Not for the traced
 * program, which spool must never harm: it runs on, or ends itself, as
 * doc/record.md says.
 */
#include <errno.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "pdeath.h"

int pdeath_arm(pid_t parent, int sig)
{
	if (prctl(PR_SET_PDEATHSIG, sig) < 0)
		return -errno;
	/* spool ended between the fork and the prctl: nothing will fire */
	if (getppid() != parent) {
		raise(sig);
		return -ESRCH;
	}
	return 0;
}
