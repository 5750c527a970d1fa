// SPDX-License-Identifier: MIT
/*
 * a64_cfg.h - block and branch probes on aarch64 (a64_cfg.c), called by
 * probe_plan_cfg on an aarch64 build.
 */
#ifndef SPOOL_ARCH_AARCH64_A64_CFG_H
#define SPOOL_ARCH_AARCH64_A64_CFG_H

#include <stdint.h>

struct probe_mgr;

/* The blocks and/or conditional branches (what: PROBE_CFG_*) of function
 * sym of module: 0, -ENOEXEC (no code) or another -errno; a block or
 * branch that cannot be counted is warned about and left out. */
int a64_plan_cfg(struct probe_mgr *m, uint32_t module, uint32_t sym, unsigned what);

/* jump: and label: points on aarch64 (probe_plan_jumps, probe_plan_label):
 * the points counted (>= 0), or -errno. */
int a64_plan_jumps(struct probe_mgr *m, uint32_t module, uint32_t sym);
int a64_plan_label(struct probe_mgr *m, uint32_t module, uint32_t sym, uint64_t addr,
		   const char *name);

#endif
