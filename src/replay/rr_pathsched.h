// SPDX-License-Identifier: MIT
/*
 * rr_pathsched.h - `spool replay --path FILE`: a thread path (the text
 * `spool path` writes, doc/path.md) as the schedule of a serial replay.
 * Each run of consecutive records of one thread becomes a turn of the run
 * token: the thread runs until it has made its calls of that run and
 * gives the token up at its next function entry (or exit, when the path
 * lists exits), or earlier where it would wait for another thread. The
 * inputs still come from the recording. The agent side is in
 * src/agent/agent_serial.c (RR_O_PATH).
 *
 * Also `spool replay --record-path`: the replay records function entries
 * and exits (and lock events) so `spool path` of the replay's trace prints
 * the recorded run's path.
 */
#ifndef SPOOL_REPLAY_RR_PATHSCHED_H
#define SPOOL_REPLAY_RR_PATHSCHED_H

#include <stddef.h>
#include <stdint.h>

#include "../collect/session.h"
#include "rr_log.h"

struct rr_pathsched;

/* One parsed record of a path file. */
struct rr_path_rec {
	uint32_t line;	 /* in the file, from 1 */
	uint32_t thread; /* the N of T<N> */
	int exit;	 /* '<' record (paths with --show-exits) */
	char *function;	 /* without the main '*' mark */
	char *object;
};

struct rr_path_text {
	struct rr_path_rec *recs;
	size_t n;
	int exits; /* the records carry '>' / '<' marks */
};

/* Parse path text (the format of `spool path`, with or without --show-exits).
 * name is used in messages. Returns 0, or a negative errno with a message
 * naming the line in err. */
int rr_path_parse(const char *text, size_t len, const char *name, struct rr_path_text *out,
		  char *err, size_t errlen);
void rr_path_text_free(struct rr_path_text *t);

/*
 * Set up a replay session: path_file (NULL: none, only record the path)
 * is read and turned into the token's schedule for the serial recording
 * loaded in log (nthreads threads); serial = 0 (a sync recording) is
 * refused. so gets SHM_FEAT_PATH, a bigger replay area and hooks that wrap
 * its prepare/finish (set those before calling). Logs what is wrong and
 * returns a negative errno; *out is freed with rr_pathsched_free.
 */
int rr_pathsched_setup(struct rr_pathsched **out, const char *path_file,
		       const struct rr_log *log, int serial, struct session_opts *so);

/* After the replay: compare the path of the replay's trace with the file
 * (thread, function, entry or exit; not seq, time, tid or object) and log
 * the first difference with its line. 0 when they agree (or no file). */
int rr_pathsched_verify(struct rr_pathsched *ps, const char *replay_trace);

void rr_pathsched_free(struct rr_pathsched *ps);

#endif
