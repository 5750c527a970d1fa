// SPDX-License-Identifier: MIT
/*
 * agent_full.c - what a thread does when its ring is full.
 *
 * Dropping an event makes hold and wait times wrong from then on, so by
 * default a thread whose ring is full wakes the collector and waits for it
 * to make room, for at most AGENT_FULL_WAIT_NS. On a machine with fewer
 * cores than busy threads this is also what lets the collector run at all:
 * the waiting threads give it their CPU. If the collector does not make
 * room in time (it is stalled or gone), the thread drops events, counted as
 * lost, until the collector has emptied half the ring: a dead collector
 * costs one wait, not one per event. --on-full drop (SHM_F_DROP_WHEN_FULL)
 * never waits.
 *
 * Runs on the thread's own slow path, possibly inside a signal handler (a
 * probe hit by int3): only async-signal-safe system calls, no libc locks.
 */
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"

#define AGENT_FULL_WAIT_NS 100000000ull /* 100 ms */
#define AGENT_FULL_NAP_NS 50000		/* between looks at the tail */

static uint64_t full_now_ns(void)
{
	struct timespec ts;

	/* The raw call: clock_gettime may be interposed for record/replay. */
	syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int full_has_room(struct ring_prod *p, uint32_t len)
{
	p->tail = __atomic_load_n(&p->ring->tail, __ATOMIC_ACQUIRE);
	/* 2 * len covers a pad to the end of the ring plus the record. */
	return p->head + 2ull * len - p->tail <= p->size;
}

int agent_ring_full(struct ring_prod *p, uint32_t len)
{
	uint64_t start;

	if (p->dropping) {
		p->tail = __atomic_load_n(&p->ring->tail, __ATOMIC_ACQUIRE);
		if (p->head - p->tail > p->size / 2)
			return 0;
		p->dropping = 0;
		return 1;
	}
	/* Spool is gone: nothing will ever free room (asked at the end of a
	 * wait, below: 100 ms, once per thread). */
	if (__atomic_load_n(&agent_gone, __ATOMIC_RELAXED)) {
		p->dropping = 1;
		return 0;
	}
	start = full_now_ns();
	for (;;) {
		struct timespec nap = {0, AGENT_FULL_NAP_NS};

		/* Force a wake-up even if this fill level already sent one. */
		__atomic_store_n(&p->ring->woke, 0, __ATOMIC_RELAXED);
		agent_wake();
		syscall(SYS_nanosleep, &nap, NULL);
		if (full_has_room(p, len))
			return 1;
		if (full_now_ns() - start > AGENT_FULL_WAIT_NS) {
			p->dropping = 1;
			if (agent_host_gone())
				return 0;
			agent_log("ring of tid %d stayed full for 100 ms: dropping events", (int)gettid());
			return 0;
		}
	}
}
