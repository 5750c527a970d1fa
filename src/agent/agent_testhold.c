// SPDX-License-Identifier: MIT
/*
 * agent_testhold.c - a hook for tests only: it holds a thread inside spool
 * (busy, its state on) for as long as the program asks, so that a race
 * with another thread on its TLS happens on purpose, not 1 run in 100
 * (tests/integ/349: a thread of the program's own clone whose events were
 * dropped uncounted while its creator was inside spool).
 *
 * SPOOL_TEST_HOLD=FILE (an absolute path): at the first sight of a lock
 * (agent_lock_slow, busy held) after FILE exists, the agent removes FILE
 * (the program's sign that the thread is held) and waits until FILE exists
 * again (the program's sign that it is done), removes it and goes on. Once
 * per process; at most AGENT_TESTHOLD_MAX_MS. Nothing happens without the
 * variable: one load of agent_testhold_on on a path taken once per lock.
 * Raw system calls only (no errno, no libc function a probe may be on).
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>

#include "agent.h"
#include "agent_rawsys.h"

#define AGENT_TESTHOLD_MAX_MS 60000

int agent_testhold_on;
static char agent_testhold_path[256];

/* From the constructor, before any thread but the first runs. */
void agent_testhold_init(void)
{
	const char *p = getenv("SPOOL_TEST_HOLD");

	if (!p || p[0] != '/' || strlen(p) >= sizeof(agent_testhold_path))
		return;
	memcpy(agent_testhold_path, p, strlen(p) + 1);
	agent_testhold_on = 1;
}

static int agent_testhold_exists(void)
{
	return agent_rawsys(SYS_faccessat, AT_FDCWD, (long)agent_testhold_path, F_OK, 0, 0, 0) == 0;
}

void agent_testhold(void)
{
	static int done;
	struct timespec ms = {0, 1000000};

	if (!agent_testhold_exists() || __atomic_exchange_n(&done, 1, __ATOMIC_ACQ_REL))
		return;
	if (agent_rawsys(SYS_unlinkat, AT_FDCWD, (long)agent_testhold_path, 0, 0, 0, 0))
		return;
	for (int n = 0; n < AGENT_TESTHOLD_MAX_MS && !agent_testhold_exists(); n++)
		agent_rawsys(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, (long)&ms, 0, 0, 0);
	agent_rawsys(SYS_unlinkat, AT_FDCWD, (long)agent_testhold_path, 0, 0, 0, 0);
}
