// SPDX-License-Identifier: MIT
/*
 * probe_settle.h - spool probe -p's detach lets the probe hits in flight
 * finish writing before the rings are read for the last time
 * (probe_settle.c).
 */
#ifndef SPOOL_PROBE_PROBE_SETTLE_H
#define SPOOL_PROBE_PROBE_SETTLE_H

#include <stdint.h>
#include <sys/types.h>

#include "../collect/shm_host.h"

#define PROBE_SETTLE_MAX 64 /* threads stopped in the agent's code followed */

struct probe_settle {
	uint32_t n;
	struct probe_settle_ring {
		uint32_t ring, done_seq;
		uint64_t lost;
	} in[PROBE_SETTLE_MAX];
};

/* Every thread stopped, after the agent's detach: note the rings of the
 * threads tids (stopped inside the agent's code) as they are now. */
void probe_settle_note(struct probe_settle *s, struct shm_host *h, const pid_t *tids, size_t n);
/* The threads let go: wait at most ms milliseconds for the events in
 * flight to be committed. Returns how many rings still have one. */
uint32_t probe_settle_wait(const struct probe_settle *s, struct shm_host *h, unsigned ms);

#endif
