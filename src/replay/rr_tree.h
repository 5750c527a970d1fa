// SPDX-License-Identifier: MIT
/*
 * rr_tree.h - the host side of process trees (rr_tree.c): a feature area
 * with one record or replay area per process of a recorded program.
 */
#ifndef SPOOL_REPLAY_RR_TREE_H
#define SPOOL_REPLAY_RR_TREE_H

#include <stdint.h>

#include "rr_area.h"
#include "rr_log.h"

/* Record: bytes of the feature area for nprocs process numbers; lay it
 * out after area 0 was initialized (its settings are copied to the
 * others); the numbers handed out (at most nprocs; *wanted: how many the
 * program asked for); area k; the processes into info. */
uint64_t rr_tree_record_size(uint32_t max_objs, int serial, uint32_t nprocs);
void rr_tree_record_init(void *ext, uint32_t max_objs, int serial, uint32_t nprocs);
uint32_t rr_tree_record_procs(const void *ext, uint32_t max_objs, int serial, uint32_t nprocs,
			      uint32_t *wanted);
struct rr_area *rr_tree_record_area(void *ext, uint32_t max_objs, int serial, uint32_t k);
struct rr_tree *rr_tree_record_tree(void *ext, uint32_t max_objs, int serial);
void rr_tree_record_info(const void *ext, uint32_t max_objs, int serial, uint32_t n,
			 struct rr_info *info);

/* Replay: bytes of the feature area for the logs of n processes; fill it
 * (only: the number replayed alone, RR_NO_PROC for all); area k. */
uint64_t rr_tree_replay_size(struct rr_log *const *logs, uint32_t n);
int rr_tree_replay_fill(void *ext, struct rr_log *const *logs, uint32_t n,
			const struct rr_info *info, uint32_t only, uint32_t stuck_ms, uint32_t opts);
struct rr_area *rr_tree_replay_area(void *ext, struct rr_log *const *logs, uint32_t k);
struct rr_tree *rr_tree_replay_tree(void *ext, struct rr_log *const *logs);

/* "first", "fork", "exec", "spawn" */
const char *rr_tree_kind_name(uint32_t kind);

#endif
