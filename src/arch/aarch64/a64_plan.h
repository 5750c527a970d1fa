// SPDX-License-Identifier: MIT
/*
 * a64_plan.h - the aarch64 planner of function probes (a64_plan.c), called
 * by probe_plan_function on an aarch64 build.
 */
#ifndef SPOOL_ARCH_AARCH64_A64_PLAN_H
#define SPOOL_ARCH_AARCH64_A64_PLAN_H

#include <stddef.h>
#include <stdint.h>

struct probe_mgr;

/* The entry (entry != 0) and exits (exits != 0) of function sym of module:
 * 0, -ENOEXEC (no code) or another -errno; a point that cannot be probed
 * is warned about and left out. */
int a64_plan_function(struct probe_mgr *m, uint32_t module, uint32_t sym, int entry, int exits);

/* Rebuild the trampoline of probe oid (a jump on one word) with the handler
 * calls of oid, of every probe counted in it (shared == oid) and of probe
 * extra (0 none), in id order: 0, -ENOTSUP (not such a probe, or more calls
 * than a trampoline takes), -ENOMEM. */
int a64_plan_retramp(struct probe_mgr *m, uint32_t oid, uint32_t extra);

/* probe_plan_point, probe_plan_ride and probe_plan_rets on aarch64 (a point
 * is one B on the word at addr, or after a landing pad there; a ride is one
 * more handler call in the trampoline of the probe on that word, method
 * PROBE_M_RIDE; rets are the RET words). */
struct probe_def;
struct probe_def *a64_plan_point(struct probe_mgr *m, uint32_t module, uint32_t sym,
				 uint64_t addr, uint32_t handler, uint32_t op, int *err);
struct probe_def *a64_plan_ride(struct probe_mgr *m, uint32_t module, uint32_t sym,
				uint64_t addr, uint32_t handler, uint32_t op, int *err);
int a64_plan_rets(struct probe_mgr *m, uint32_t module, uint32_t sym, uint64_t **rets,
		  size_t *n);

#endif
