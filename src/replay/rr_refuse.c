// SPDX-License-Identifier: MIT
/*
 * rr_refuse.c - the recordings spool replay refuses (rr_refuse.h): an
 * unknown mode, processes that ran unrecorded, a sync recording of a
 * program with its own futexes, an incomplete log. One list, so spool info
 * and spool replay never disagree about a recording.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "rr_refuse.h"

int rr_refuse_reason(const struct rr_info *info, char *why, size_t len)
{
	if (strcmp(info->mode, "sync") && strcmp(info->mode, "serial")) {
		snprintf(why, len, "recording mode '%s' is not supported", info->mode);
		return 1;
	}
	if (info->flags & (RR_F_FORKED | RR_F_EXEC)) {
		snprintf(why, len,
			 "processes of the recorded program ran unrecorded (%s), so this "
			 "recording cannot be replayed",
			 info->nprocs ? "it started more than a recording holds"
				      : "made by a spool that recorded the first process only");
		return 1;
	}
	/* A sync replay does not order them: it could differ from the
	 * recording without noticing (GLib's GAsyncQueue handed its items
	 * over in another order), and a replay that is wrong without saying
	 * so is worse than none. */
	if (!strcmp(info->mode, "sync") && info->own_futex) {
		snprintf(why, len,
			 "refusing to replay a sync recording of a program that synchronizes "
			 "through its own futexes (%llu futex call%s: GLib's, libgomp's, Rust's or "
			 "abseil's locks), which sync mode does not order: its replay could "
			 "differ without a divergence report; record it in serial mode (the "
			 "default), which replays them",
			 (unsigned long long)info->own_futex, info->own_futex == 1 ? "" : "s");
		return 1;
	}
	/* Their calls were recorded as their creator's, in its numbering:
	 * a replay runs them unscheduled and could differ without noticing. */
	if (info->clones) {
		snprintf(why, len,
			 "the program made %" PRIu32 " thread%s with its own clone (libc's clone() "
			 "or its own clone system call, not pthread_create), which spool record "
			 "does not number: %s; cannot replay it",
			 info->clones, info->clones == 1 ? "" : "s",
			 info->flags & RR_F_CLONE_STOP
				 ? "the recording stopped where the first one was made"
				 : "their calls were recorded as their creator's, and a replay "
				   "could differ without a divergence report");
		return 1;
	}
	/* where glibc's thread of the timer's function took part in the
	 * schedule was the kernel's timing: no replay can follow it */
	if (info->flags & RR_F_SEV_STOP) {
		snprintf(why, len, "%s; cannot replay it",
			 info->report[0] ? info->report
					 : "the function of a SIGEV_THREAD timer took a lock in serial "
					   "mode, which runs it outside the schedule");
		return 1;
	}
	if (info->flags & RR_F_LOST || info->lost) {
		snprintf(why, len, "the recording is incomplete (%s): cannot replay it",
			 info->report[0] ? info->report : "events were lost");
		return 1;
	}
	return 0;
}
