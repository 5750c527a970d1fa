// SPDX-License-Identifier: MIT
/*
 * arch.h - the one interface between portable code and what differs per
 * CPU architecture at run time: the event timestamp counter. Everything
 * else architecture-specific (instruction decoding and trampolines, the
 * register context, raw system calls) stays in src/arch/<arch>/ or behind
 * #if in the few files that need it (doc/arm64.md lists them).
 *
 * ARCH_LIB_DIRS and ARCH_LDCACHE_TAG: how spool finds the libraries a
 * program loads (src/probe/probe_elf.c), as this machine's ld.so would.
 *
 * ARCH_R_JUMP_SLOT, ARCH_R_GLOB_DAT: the relocations of a module's GOT
 * slots for a function (its PLT calls, the addresses it took), which the
 * attached agent points at its interposers (src/agent/agent_probe_got.c).
 *
 * ARCH_PROBE_REACH, _STEP, _STEPS: a dynamic probe's patch jumps to its
 * trampoline (x86-64 jmp rel32, aarch64 B imm26): the distance it reaches
 * (with a margin on x86-64), and the search for a trampoline page near the
 * code, STEPS tries STEP apart above and below it
 * (src/agent/agent_probe_place.c).
 *
 * arch_ts() is the counter every event header's tsc field holds, read on
 * the agent's hot path: inline, no system call, async-signal-safe. The
 * trace clock (src/trace/clock.c) calibrates it against CLOCK_MONOTONIC
 * the same way on every architecture, so readers never need its nominal
 * frequency.
 *
 *   x86-64   RDTSC (invariant TSC)
 *   aarch64  CNTVCT_EL0, the generic timer's virtual count, which Linux
 *            lets user space read (CNTKCTL_EL1.EL0VCTEN); ISB first so
 *            the read is not speculated ahead of the event it stamps
 *            (events of two threads are ordered by this value).
 */
#ifndef SPOOL_ARCH_ARCH_H
#define SPOOL_ARCH_ARCH_H

#include <stdint.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>

#define ARCH_NAME "x86_64"
/* Where ld.so looks for libraries by default (after its cache), and the tag
 * `ldconfig -p` gives this machine's entries ("libc6,x86-64"). */
#define ARCH_LIB_DIRS "/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu:/lib:/usr/lib"
#define ARCH_LDCACHE_TAG "x86-64"
#define ARCH_R_JUMP_SLOT 7 /* R_X86_64_JUMP_SLOT */
#define ARCH_R_GLOB_DAT 6  /* R_X86_64_GLOB_DAT */
#define ARCH_PROBE_REACH ((1ull << 31) - (1ull << 24))
#define ARCH_PROBE_STEP (1ull << 24)
#define ARCH_PROBE_STEPS 95

static inline uint64_t arch_ts(void)
{
	return __rdtsc();
}

/* A spin-wait hint. */
static inline void arch_cpu_relax(void)
{
	_mm_pause();
}
#elif defined(__aarch64__)
#define ARCH_NAME "aarch64"
#define ARCH_LIB_DIRS "/lib/aarch64-linux-gnu:/usr/lib/aarch64-linux-gnu:/lib:/usr/lib"
#define ARCH_LDCACHE_TAG "AArch64"
#define ARCH_R_JUMP_SLOT 1026 /* R_AARCH64_JUMP_SLOT */
#define ARCH_R_GLOB_DAT 1025  /* R_AARCH64_GLOB_DAT */
#define ARCH_PROBE_REACH (1ull << 27)
#define ARCH_PROBE_STEP (1ull << 20)
#define ARCH_PROBE_STEPS 120

static inline uint64_t arch_ts(void)
{
	uint64_t v;

	__asm__ volatile("isb\n\tmrs %0, cntvct_el0" : "=r"(v) : : "memory");
	return v;
}

/* A spin-wait hint: YIELD tells an SMT core or a hypervisor we wait. */
static inline void arch_cpu_relax(void)
{
	__asm__ volatile("yield" : : : "memory");
}

/* The call sites written for x86-64 name these __rdtsc() and _mm_pause();
 * on aarch64 they get the two above through these aliases (x86intrin.h
 * does not exist there). */
#define __rdtsc() arch_ts()
#define _mm_pause() arch_cpu_relax()
#else
#error "spool: unsupported architecture (x86-64 and aarch64 only)"
#endif

#endif
