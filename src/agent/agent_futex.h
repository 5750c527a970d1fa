// SPDX-License-Identifier: MIT
/*
 * agent_futex.h - futex waits and wakes made through syscall() recorded as
 * lock-like objects (agent_futex.c).
 */
#ifndef SPOOL_AGENT_FUTEX_H
#define SPOOL_AGENT_FUTEX_H

#include <stdint.h>

/* a: syscall()'s six arguments after the number SYS_futex; ip: the
 * program's call site; frame: the interposer's frame (--stacks); pass:
 * makes the real call (-1 and errno on failure). */
long agent_futex_call(const long *a, uint64_t ip, void *frame,
		      long (*pass)(long n, const long *a));

#endif
