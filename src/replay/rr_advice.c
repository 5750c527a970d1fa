// SPDX-License-Identifier: MIT
/*
 * rr_advice.c - the advice spool replay prints after a divergence
 * (rr_advice.h). One sentence per cause; a data race is suggested only for
 * a sync recording whose replay had more than one thread when it went
 * another way, since sync mode orders synchronization calls and nothing
 * else. With a single thread, or in serial mode (which replays data races),
 * the program saw something spool does not record, or it changed.
 */
#include <stddef.h>

#include "rr_advice.h"
#include "rr_area.h"

#define UNRECORDED                                                                                 \
	"something spool does not record (a file read through mmap, or by stdio's reads "          \
	"inside libc; fstat, lseek, a directory listing), or the program or its files "           \
	"changed since the recording"

/* What can make a replay compute other output with the same calls: */
#define UNRECORDED_OUT                                                                             \
	"something spool does not record (an instruction such as rdrand, rdseed or rdtsc, a "      \
	"file read through mmap, memory shared with another process), or the program, its "      \
	"files or its arguments differ from the recording's"

const char *rr_advice(const struct rr_advice_in *in)
{
	switch (in->cause) {
	case RR_CAUSE_FD:
		if (in->sync && !in->fdtab)
			return "the same call was made on another descriptor number: this sync "
			       "recording was made before spool ordered the calls that make and "
			       "close descriptors, so threads that open files at once can get "
			       "their numbers in another order; record it again";
		return "the same call was made on another descriptor number: a descriptor was "
		       "made or closed where spool does not see it (inside a library that makes "
		       "its own system calls, by a raw system call), or the replay inherited "
		       "other descriptors than the recording; this is not a data race";
	case RR_CAUSE_RESULT:
		return "a call returned something else than when it was recorded: the files or "
		       "the system around the program differ from the recorded run's (a file it "
		       "opened is gone or changed, other permissions or limits); replay where "
		       "and as it was recorded; this is not a data race";
	case RR_CAUSE_OUTPUT:
		if (in->sync && in->threads > 1)
			return "the replay computed other bytes than the recorded run: sync mode "
			       "orders the synchronization calls only, so threads that share data "
			       "without a lock (a data race) are a likely cause; record it in serial "
			       "mode (the default). Otherwise the program used " UNRECORDED_OUT;
		return "the replay computed other bytes than the recorded run: the program used " UNRECORDED_OUT;
	case RR_CAUSE_CALLS:
		if (!in->sync)
			return "serial mode replays data races too: the program saw " UNRECORDED;
		if (in->threads == 1)
			return "only one thread had been created when the replay went another way, "
			       "so no data race explains it: the program saw " UNRECORDED;
		return "this recording was made in sync mode, which orders the synchronization "
		       "calls only: if the program was not changed, threads that share data "
		       "without a lock (a data race, or atomics used for synchronization) are the "
		       "likely cause; record it in serial mode (the default), which replays those "
		       "too. Otherwise the program saw " UNRECORDED;
	case RR_CAUSE_NONE:
		if (in->sync)
			return "this recording was made in sync mode, which orders the "
			       "synchronization calls only: if the program was not changed, threads "
			       "that share data without a lock (a data race, or atomics used for "
			       "synchronization) are the likely cause; record it in serial mode (the "
			       "default), which replays those too";
		return NULL;
	default:
		return NULL;
	}
}
