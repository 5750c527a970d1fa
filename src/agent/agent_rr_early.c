// SPDX-License-Identifier: MIT
/*
 * agent_rr_early.c - clock reads the program makes before the agent has
 * started. A library's constructor runs before the preloaded agent's
 * (libgpg-error's, loaded through libsystemd, calls bindtextdomain, whose
 * malloc is jemalloc's first): jemalloc then reads CLOCK_MONOTONIC_COARSE
 * and starts the purge epochs of its arenas from it. No log exists yet,
 * so the read went unrecorded and a replay's real clock, seconds later
 * than the recorded readings that follow, put every epoch deadline
 * elsewhere: redis-server with jemalloc's background thread diverged near
 * its end in every serial replay (tests/real/106-redis-bg-thread.t).
 *
 * Record: such a reading is the real one, kept here (at most
 * EARLY_CLOCK_MAX); when the agent has started it copies them into the
 * record area (rr_area.early_*), and spool record writes them in
 * .spool/record (early_clock=). Replay: spool replay passes them in
 * SPOOL_EARLY_CLOCK, and the program's reads before the agent started get
 * them back in order while the clock ids match (another read is the real
 * one, as with no recording). The constructor removes the variable from
 * the environment (agent_rr_early_start): the recorded program did not see
 * it, and an exec'd image must not take readings meant for this one.
 *
 * Runs in constructors, one thread, before anything of the agent is set
 * up: raw system calls, getenv only, no malloc.
 */
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "agent_rr.h"
#include "../common/early_clock.h"

_Static_assert(RR_EARLY_MAX == EARLY_CLOCK_MAX, "rr_area.early_* holds EARLY_CLOCK_MAX readings");

int agent_rr_started;

static int32_t early_clk[EARLY_CLOCK_MAX];
static uint64_t early_ns[EARLY_CLOCK_MAX];
static uint32_t early_n;    /* record: readings kept; replay: readings given */
static uint32_t early_next; /* replay: the next reading to give */
static int early_state;	    /* 0: not looked yet, 1: keep readings, 2: give them */

static void early_look(void)
{
	const char *e;

	if (early_state)
		return;
	e = getenv(EARLY_CLOCK_ENV);
	early_state = e ? 2 : 1;
	if (e)
		early_n = early_clock_parse(e, early_clk, early_ns);
}

int agent_rr_early_clock(clockid_t clk, struct timespec *ts)
{
	long r;

	early_look();
	if (early_state == 2 && ts && early_next < early_n && early_clk[early_next] == (int32_t)clk) {
		ts->tv_sec = (time_t)(early_ns[early_next] / 1000000000u);
		ts->tv_nsec = (long)(early_ns[early_next] % 1000000000u);
		early_next++;
		return 0;
	}
	r = syscall(SYS_clock_gettime, clk, ts);
	if (early_state == 1 && !r && ts && ts->tv_sec >= 0 && early_n < EARLY_CLOCK_MAX) {
		early_clk[early_n] = (int32_t)clk;
		early_ns[early_n] = (uint64_t)ts->tv_sec * 1000000000u + (uint64_t)ts->tv_nsec;
		early_n++;
	}
	return (int)r;
}

void agent_rr_early_start(void)
{
	agent_rr_started = 1;
	early_look();
	if (early_state == 2)
		unsetenv(EARLY_CLOCK_ENV);
}

void agent_rr_early_note(struct rr_area *a)
{
	if (early_state != 1)
		return;
	for (uint32_t i = 0; i < early_n; i++) {
		a->early_clk[i] = early_clk[i];
		a->early_ns[i] = early_ns[i];
	}
	a->early_n = early_n;
}
