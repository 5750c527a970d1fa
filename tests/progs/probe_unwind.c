// SPDX-License-Identifier: MIT
/*
 * probe_unwind.c - unwinding through probed functions
 * (tests/integ/48-probe-unwind.t). unwind_outer's first instruction is a
 * call: an entry probe's jump displaces it. Were the call run from the
 * trampoline, the callee's return address would point into the
 * trampoline, which no unwinder knows: backtraces stop there, C++
 * exceptions end in std::terminate. unwind_inner counts the frames
 * backtrace() finds above it (the same natively and probed).
 *
 *   probe_unwind [N]   (default 100)
 * Output: "frames F" (from the last call), "sum S".
 */
#include <execinfo.h>
#include <stdio.h>
#include <stdlib.h>

long unwind_inner(long x);
long unwind_outer(long x);

/* unwind_outer: a call first, with CFI so that unwinders walk it natively;
 * unwind_mid puts the stack back on the ABI's alignment for C. */
__asm__(".text\n"
	".globl unwind_outer\n"
	".type unwind_outer, @function\n"
	"unwind_outer:\n"
	".cfi_startproc\n"
	"\tcall unwind_mid\n"
	"\taddq $1, %rax\n"
	"\tret\n"
	".cfi_endproc\n"
	".size unwind_outer, .-unwind_outer\n"
	".type unwind_mid, @function\n"
	"unwind_mid:\n"
	".cfi_startproc\n"
	"\tsubq $16, %rsp\n"
	".cfi_adjust_cfa_offset 16\n"
	"\tcall unwind_inner\n"
	"\taddq $16, %rsp\n"
	".cfi_adjust_cfa_offset -16\n"
	"\tret\n"
	".cfi_endproc\n"
	".size unwind_mid, .-unwind_mid\n");

static int frames;

__attribute__((noinline)) long unwind_inner(long x)
{
	void *bt[64];

	frames = backtrace(bt, 64);
	return x * 2;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100, s = 0;

	for (long i = 0; i < n; i++)
		s += unwind_outer(i);
	printf("frames %d\nsum %ld\n", frames, s);
	return 0;
}
