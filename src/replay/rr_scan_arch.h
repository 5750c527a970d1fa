// SPDX-License-Identifier: MIT
/*
 * rr_scan_arch.h - what rr_scan.c (the system call names, the ELF walk of
 * spool record's scan) asks of the CPU's code under src/arch/<cpu>/: the
 * system calls it has beyond the generic table, and its per-section
 * classifier of the
 * instructions a recording cannot see. x86-64: x86_rr_scan.c (Zydis
 * decodes from the function around each candidate); aarch64: a64_rr_scan.c
 * (fixed 4-byte words, no decoder).
 */
#ifndef SPOOL_REPLAY_RR_SCAN_ARCH_H
#define SPOOL_REPLAY_RR_SCAN_ARCH_H

#include <stddef.h>
#include <stdint.h>

#include "rr_scan.h"

struct probe_module;
struct probe_sym;

/* One named system call of this CPU. */
struct rr_scan_sys {
	long nr;
	const char *name;
};

#define RR_SCAN_SYS(n) {SYS_##n, #n}

/* The CPU's own system calls with their names, beside the generic table
 * of rr_scan.c (the calls every CPU has), for the counts of spool record's
 * report; and which of them agent_rr_syscall.c sends to the named
 * interposers. */
extern const struct rr_scan_sys rr_scan_arch_names[];
extern const size_t rr_scan_arch_nnames;
extern const long rr_scan_arch_recorded[];
extern const size_t rr_scan_arch_nrecorded;
/* Find the instructions of the RR_SCAN_* classes in the executable
 * section code (size bytes at address base of module m) and note each
 * (rr_scan_note). */
void rr_scan_arch_section(const struct probe_module *m, uint64_t base, const uint8_t *code,
			  size_t size, struct rr_scan *out);

/* For the CPU's code: the function symbol at or before addr (NULL if
 * none), and the note of one instruction (text, at addr) in out's list. */
const struct probe_sym *rr_scan_sym(const struct probe_module *m, uint64_t addr);
void rr_scan_note(struct rr_scan *out, int cls, const struct probe_sym *s, uint64_t addr,
		  const char *text);

#endif
