// SPDX-License-Identifier: MIT
/*
 * agent_rr_cputime.c - the CPU time and resource counts the kernel keeps
 * for the program are inputs: getrusage (RR_CALL_RUSAGE: the struct
 * rusage), times (RR_CALL_TIMES: its result, the ticks since boot, and
 * the struct tms) and clock(). libgcrypt's fast entropy poll mixes
 * getrusage(RUSAGE_SELF) and clock() into its pool at every random read
 * (gpg --gen-random printed other bytes in each replay,
 * tests/real/138-gpg-rdrand-replay.t); a program that prints its own CPU
 * time replays as it ran (tests/integ/408-rr-cputime.t).
 *
 * clock() is glibc's clock_gettime(CLOCK_PROCESS_CPUTIME_ID) made inside
 * libc (glibc 2.36: __clock_gettime64, no PLT, so the agent's
 * clock_gettime never saw it). libc calls the vDSO's clock_gettime, which
 * has no fast path for the CPU-time clocks and makes the system call
 * itself, from the vDSO's text: syscall user dispatch traps it but lets it
 * through unrecorded (agent_rr_dispatch.c, sud_is_program: the agent's own
 * clock_gettime reaches it too, and would be recorded twice). So the
 * agent's clock() makes that clock_gettime through its own
 * interposer (recorded as RR_CALL_CLOCK_GETTIME with clock 2, as a
 * program's own clock_gettime of that clock always was) and converts as
 * glibc does. clock_gettime of CLOCK_PROCESS_CPUTIME_ID and
 * CLOCK_THREAD_CPUTIME_ID called by the program was recorded before this
 * file existed (agent_rr_io.c), as are raw getrusage and times system
 * calls now (agent_rr_syscall.c, agent_rr_dispatch.c).
 *
 * Recordings made before this file carry none of these records: a replay
 * of one (no RR_F_CPUTIME in its flags, so no RR_O_CPUTIME) runs the three
 * for real, as then (agent_rr_cputime is 0).
 *
 * Agent rules: errno as the real call leaves it (the recorded one in a
 * replay); the real functions are found at startup, raw system calls
 * until then; nothing here allocates or locks.
 */
#include <dlfcn.h>
#include <errno.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/times.h>
#include <time.h>
#include <unistd.h>

#include "agent_rr.h"

int agent_rr_cputime;

static int fb_getrusage(__rusage_who_t who, struct rusage *ru)
{
	return (int)syscall(SYS_getrusage, (int)who, ru);
}
static clock_t fb_times(struct tms *buf) { return (clock_t)syscall(SYS_times, buf); }
static clock_t fb_clock(void)
{
	struct timespec ts;

	if (syscall(SYS_clock_gettime, CLOCK_PROCESS_CPUTIME_ID, &ts))
		return (clock_t)-1;
	return (clock_t)(ts.tv_sec * CLOCKS_PER_SEC + ts.tv_nsec / (1000000000 / CLOCKS_PER_SEC));
}

static int (*real_getrusage)(__rusage_who_t, struct rusage *) = fb_getrusage;
static clock_t (*real_times)(struct tms *) = fb_times;
static clock_t (*real_clock)(void) = fb_clock;

__attribute__((constructor)) static void agent_rr_cputime_resolve(void)
{
	int saved;

	/* (busy: errno's __errno_location may be probed, agent_rr_io.c) */
	agent_self.busy++;
	saved = errno;
	AGENT_RESOLVE(real_getrusage, "getrusage");
	AGENT_RESOLVE(real_times, "times");
	AGENT_RESOLVE(real_clock, "clock");
	errno = saved;
	agent_self.busy--;
}

/* The calling thread when these inputs are recorded or replayed now. */
static struct agent_thread *cpu_enter(void)
{
	if (AGENT_LIKELY(!agent_rr_mode) || !agent_rr_cputime)
		return NULL;
	return agent_rr_io_enter();
}

/* (glibc's prototype: an enum under _GNU_SOURCE) */
AGENT_EXPORT int getrusage(__rusage_who_t who, struct rusage *ru)
{
	struct agent_thread *t = cpu_enter();
	struct agent_rr_seg s = {ru, ru ? sizeof(*ru) : 0};
	int r, e;

	if (!t)
		return real_getrusage(who, ru);
	if (agent_rr_mode & RR_MODE_REPLAY)
		return (int)agent_rr_rep_input(t, RR_CALL_RUSAGE, (int)who, &s, 1, NULL);
	r = real_getrusage(who, ru);
	e = errno;
	if (r < 0)
		s.n = 0;
	agent_rr_rec_input(t, RR_CALL_RUSAGE, (int)who, r, r < 0 ? e : 0, 0, &s, 1);
	errno = e;
	return r;
}

/* times: the result is the ticks since boot (an input too); buf may be
 * NULL (Linux accepts it). The kernel's -1 is an error only with errno
 * set, glibc's wrapper says: the recorded errno is given back either way. */
AGENT_EXPORT clock_t times(struct tms *buf)
{
	struct agent_thread *t = cpu_enter();
	struct agent_rr_seg s = {buf, buf ? sizeof(*buf) : 0};
	clock_t v;
	int e0 = errno, e;

	if (!t)
		return real_times(buf);
	if (agent_rr_mode & RR_MODE_REPLAY)
		return (clock_t)agent_rr_rep_input(t, RR_CALL_TIMES, -1, &s, 1, NULL);
	errno = 0;
	v = real_times(buf);
	e = v == (clock_t)-1 ? errno : 0;
	if (e)
		s.n = 0;
	agent_rr_rec_input(t, RR_CALL_TIMES, -1, v, e, 0, &s, 1);
	errno = e ? e : e0; /* (the program's errno untouched on success) */
	return v;
}

/* clock: glibc's, through the agent's clock_gettime (see the top). */
AGENT_EXPORT clock_t clock(void)
{
	struct timespec ts;

	if (!cpu_enter())
		return real_clock();
	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts))
		return (clock_t)-1;
	return (clock_t)(ts.tv_sec * CLOCKS_PER_SEC + ts.tv_nsec / (1000000000 / CLOCKS_PER_SEC));
}
