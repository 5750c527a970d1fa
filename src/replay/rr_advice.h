// SPDX-License-Identifier: MIT
/*
 * rr_advice.h - what spool replay tells the user after a replay diverged,
 * from what the agent found different (RR_CAUSE_*, rr_area.h): a
 * descriptor number, a result, the calls themselves. A data race is named
 * only where it can be the cause: sync mode, with more than one thread.
 */
#ifndef SPOOL_REPLAY_RR_ADVICE_H
#define SPOOL_REPLAY_RR_ADVICE_H

#include <stdint.h>

struct rr_advice_in {
	uint32_t cause;	  /* RR_CAUSE_* */
	uint32_t threads; /* threads the replay had created (main included), 0: not said */
	uint32_t running; /* other threads still running then */
	int sync;	  /* the recording was made in sync mode */
	int fdtab;	  /* ... and it ordered the descriptor calls */
};

/* The advice (a static string, without a final newline), or NULL when the
 * report says all there is. */
const char *rr_advice(const struct rr_advice_in *in);

#endif
