// SPDX-License-Identifier: MIT
/*
 * rr_scan.h - what spool record says about system calls made without libc
 * (doc/record.md, "What is not captured"): the names of x86-64 system call
 * numbers for the counts the agent keeps (agent_rr_dispatch.c), and a
 * static scan of an executable's code for the instructions a recording
 * cannot see: `rdtsc`/`rdtscp` always (no trap catches them), and
 * `syscall`/`sysenter`/`int 0x80` when syscall user dispatch was not
 * available.
 */
#ifndef SPOOL_REPLAY_RR_SCAN_H
#define SPOOL_REPLAY_RR_SCAN_H

#include <stddef.h>

/* The name of system call nr on this architecture ("openat"), or NULL. */
const char *rr_sys_name(long nr);
/* Whether the agent records system call nr like the named call. */
int rr_sys_recorded(long nr);

/* rr_scan_exe's classes */
#define RR_SCAN_SYSCALL 0 /* syscall, sysenter, int 0x80 */
#define RR_SCAN_TSC 1	  /* rdtsc, rdtscp */
#define RR_SCAN_CLASSES 2

struct rr_scan {
	unsigned n[RR_SCAN_CLASSES];	  /* instructions found */
	char where[RR_SCAN_CLASSES][400]; /* "rdtsc at main+0x1c, ..." (the first few) */
};

/* Scan the code of the ELF file path. Returns 0 or a negative errno (not an
 * ELF file, cannot read it); out is zeroed first. */
int rr_scan_exe(const char *path, struct rr_scan *out);

#endif
