// SPDX-License-Identifier: MIT
/*
 * a64_plan.h - the aarch64 planner of function probes (a64_plan.c), called
 * by probe_plan_function on an aarch64 build.
 */
#ifndef SPOOL_ARCH_AARCH64_A64_PLAN_H
#define SPOOL_ARCH_AARCH64_A64_PLAN_H

#include <stdint.h>

struct probe_mgr;

/* The entry (entry != 0) and exits (exits != 0) of function sym of module:
 * 0, -ENOEXEC (no code) or another -errno; a point that cannot be probed
 * is warned about and left out. */
int a64_plan_function(struct probe_mgr *m, uint32_t module, uint32_t sym, int entry, int exits);

#endif
