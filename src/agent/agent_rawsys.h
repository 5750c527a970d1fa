// SPDX-License-Identifier: MIT
/*
 * agent_rawsys.h - a system call made by the agent's own instruction, not
 * libc's syscall(): where libc's would recurse into an interposer, run
 * before it is resolved, or set errno. Returns the kernel's result (-errno
 * on failure). The instruction is in the agent's text, outside libc's: under
 * syscall user dispatch (x86-64, agent_rr_dispatch.c) it raises SIGSYS
 * unless the caller's selector lets it through (rr_raw_syscall does; the
 * SIGSYS handler's own calls run with it set). Signal-safe.
 */
#ifndef SPOOL_AGENT_AGENT_RAWSYS_H
#define SPOOL_AGENT_AGENT_RAWSYS_H

static inline long agent_rawsys(long n, long a, long b, long c, long d, long e, long f)
{
	long r;
#if defined(__x86_64__)
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;

	__asm__ volatile("syscall"
			 : "=a"(r)
			 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
#elif defined(__aarch64__)
	register long x8 __asm__("x8") = n;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;
	register long x4 __asm__("x4") = e;
	register long x5 __asm__("x5") = f;

	__asm__ volatile("svc 0"
			 : "+r"(x0)
			 : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5)
			 : "memory");
	r = x0;
#else
#error "agent_rawsys: unsupported architecture"
#endif
	return r;
}

#endif
