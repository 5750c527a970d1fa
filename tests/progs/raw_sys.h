// SPDX-License-Identifier: MIT
/*
 * raw_sys.h - a system call made by the program's own syscall instruction,
 * not through libc: spool sees it only through syscall user dispatch, and
 * it touches no errno (safe on a thread without a TLS of its own). Apart
 * from raw_clone.h because a program that includes it gets no other code:
 * rr_rawsys.c's record test lists every syscall instruction of the
 * executable (tests/integ/69). x86-64 only; header-only.
 *
 *   long raw_sys(n, a, b, c, d): system call n with up to 4 arguments;
 *   its return (-errno on failure).
 */
#ifndef SPOOL_TESTS_PROGS_RAW_SYS_H
#define SPOOL_TESTS_PROGS_RAW_SYS_H

#if defined(__x86_64__)
static inline long raw_sys(long n, long a, long b, long c, long d)
{
	register long r10 __asm__("r10") = d;
	long r;

	__asm__ volatile("syscall"
			 : "=a"(r)
			 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10)
			 : "rcx", "r11", "memory");
	return r;
}
#endif

#endif
