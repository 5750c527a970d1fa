// SPDX-License-Identifier: MIT
/*
 * probe_settle.c - the end of spool probe -p: the probe hits a thread was
 * writing when spool stopped it finish before the collector reads the
 * rings for the last time.
 *
 * At the detach spool stops every thread, the agent takes the probes out
 * and stops recording (agent.active = 0), and spool lets the threads go.
 * A thread stopped inside a hit handler may be past the agent's "am I
 * recording" check: it writes its event once it runs again. Read before
 * that, its ring says the event was numbered (last_seq) but not committed
 * (done_seq), and the collector's last drain counted it lost ("cut": 1
 * run in ~10 of tests/integ/299 under load). So the detach waits, bounded,
 * until every live ring has committed what it numbered, and for the
 * threads stopped in the agent's code (which may be past the check and
 * not yet numbering) until their ring moved: a committed or a dropped
 * event. A thread that was not in a hit (in the agent's code elsewhere,
 * or already returning) keeps the wait to its bound, nothing more. What
 * is still in flight then is counted lost by the collector, as before:
 * the wait never hides a loss, it only lets a write finish.
 *
 * The ring headers are the target's to write: read by copy (pread), only
 * compared, and the wait is bounded whatever they say.
 */
#include <time.h>
#include <unistd.h>

#include "../common/shm.h"
#include "probe_settle.h"

void probe_settle_note(struct probe_settle *s, struct shm_host *h, const pid_t *tids, size_t n)
{
	uint32_t nr = shm_host_nrings(h);

	s->n = 0;
	for (size_t t = 0; t < n; t++)
		for (uint32_t i = 0; i < nr && s->n < PROBE_SETTLE_MAX; i++) {
			struct shm_ring r;

			if (shm_host_ring_peek(h, i, &r) < 0 || r.state != RING_ACTIVE ||
			    r.tid != (uint32_t)tids[t])
				continue;
			s->in[s->n].ring = i;
			s->in[s->n].done_seq = r.done_seq;
			s->in[s->n].lost = r.lost;
			s->n++;
			break;
		}
}

/* Rings with an event numbered and not committed, plus the noted rings
 * that have not moved since the stop. */
static uint32_t settle_pending(const struct probe_settle *s, struct shm_host *h, int noted)
{
	uint32_t nr = shm_host_nrings(h), n = 0;

	for (uint32_t i = 0; i < nr; i++) {
		struct shm_ring r;

		/* one event at most is in flight; more is damage (the
		 * collector's to count) */
		if (shm_host_ring_peek(h, i, &r) == 0 && r.state == RING_ACTIVE &&
		    r.last_seq - r.done_seq == 1)
			n++;
	}
	for (uint32_t k = 0; noted && k < s->n; k++) {
		struct shm_ring r;

		if (shm_host_ring_peek(h, s->in[k].ring, &r) == 0 && r.state == RING_ACTIVE &&
		    r.done_seq == s->in[k].done_seq && r.lost == s->in[k].lost)
			n++;
	}
	return n;
}

static uint64_t settle_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

uint32_t probe_settle_wait(const struct probe_settle *s, struct shm_host *h, unsigned ms)
{
	uint64_t start = settle_ms();
	/* a noted thread that was not in a hit never moves its ring: it
	 * holds the wait a tenth of the bound at most */
	unsigned noted_ms = ms / 10;
	uint32_t n;

	if (!h->packets) /* records mode: no done_seq, nothing counted cut */
		return 0;
	for (;;) {
		uint64_t el = settle_ms() - start;

		n = settle_pending(s, h, el < noted_ms);
		if (!n || el >= ms)
			return n;
		usleep(1000);
	}
}
