// SPDX-License-Identifier: MIT
/*
 * a64_agent_cpuid.c - aarch64's half of src/agent/agent_rr_cpuid.c: none.
 * A program reads its features from the ID registers (emulated by the
 * kernel, the same on every run of one machine) and random numbers with
 * MRS RNDR (FEAT_RNG), which user space cannot be made to trap on: nothing
 * is hidden or recorded (doc/arm64.md).
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>

#include "../../agent/agent_rr_cpuid.h"

int agent_rr_cpuid_arch_on(struct sigaction *old)
{
	(void)old;
	return -ENOSYS;
}

void agent_rr_cpuid_arch_off(void)
{
}

void agent_rr_cpuid_arch_real(uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	(void)leaf;
	(void)sub;
	memset(r, 0, 4 * sizeof(uint32_t));
}
