// SPDX-License-Identifier: MIT
/*
 * rr_snap_list.h - the snapshots of a recording (TRACE/.spool/snap/, rr_snap_fmt.h)
 * as spool info lists them.
 */
#ifndef SPOOL_REPLAY_RR_SNAP_LIST_H
#define SPOOL_REPLAY_RR_SNAP_LIST_H
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>

/* TRACE/.spool/snap opened (O_NOFOLLOW) as *dp, NULL when there is none.
 * 0 or -errno. */
int rr_snap_opendir(const char *dir, DIR **dp);

/* Print the snapshots of trace dir to out (nothing when it has none).
 * Returns how many are whole, or -errno. Damaged ones are named. */
int rr_snap_list(FILE *out, const char *dir);

/* A snapshot's position: turn, and when another snapshot shares the turn
 * (a thread that held the token alone while they were taken), ":count",
 * the taker's progress count, as spool info and --goto write it: "80006",
 * "28:1536". Into out (at least RR_SNAP_POS_MAX bytes). */
#define RR_SNAP_POS_MAX 48
void rr_snap_pos_fmt(char *out, uint64_t turn, uint64_t count, int shared_turn);

/* The snapshots' disk budget (spool record --snap-max) as spool record's
 * summary and spool info say it: "their budget of 1 GiB" takes bytes as
 * "1 GiB", "512 MiB", "300 KiB" (whole units) or "1.5 GiB". rr_snap_stopped_fmt:
 * the one line both print when it stopped the snapshots, kept of them. */
void rr_snap_budget_fmt(char *out, size_t len, uint64_t bytes);
void rr_snap_stopped_fmt(char *out, size_t len, uint64_t kept, uint64_t budget);
/* The next line, when copies writing at once passed it: how many of those
 * taken had their image removed. */
void rr_snap_removed_fmt(char *out, size_t len, uint64_t removed, uint64_t taken);

#endif
