// SPDX-License-Identifier: MIT
/*
 * rr_img.h - the replay image of a recording (.spool/replay.img): its log
 * as a replay reads it, written by the first replay and mapped by the agent
 * in the later ones (rr_img.c says why and how it stays true to the trace).
 */
#ifndef SPOOL_REPLAY_RR_IMG_H
#define SPOOL_REPLAY_RR_IMG_H

#include <stdint.h>

struct rr_log;

/* A hash of the trace files a load reads (names, sizes, inodes, times):
 * an image made under another key is stale. Returns 0 or a negative errno. */
int rr_img_key(const char *dir, uint64_t *key);
/* Open the image of dir if it was made under key for a recording of this
 * mode: *out is then a log with the counts of the recording and no records,
 * for rr_log_fill and the agent's mapping. -ENOENT: none, or stale or
 * malformed; other negative errnos for errors. */
int rr_img_open(const char *dir, uint64_t key, int serial, struct rr_log **out);
/* Write the image of a log loaded from dir's trace (rr_log_load_mode).
 * Returns 0 or a negative errno (nothing is left behind then). */
int rr_img_write(const char *dir, const struct rr_log *log, uint64_t key);

#endif
