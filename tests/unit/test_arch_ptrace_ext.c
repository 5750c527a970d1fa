// SPDX-License-Identifier: MIT
/*
 * test_arch_ptrace_ext.c - a thread's floating-point and vector state read
 * and written by ptrace (arch_ptrace_ext_*, src/arch/x86_64/x86_ptrace.c),
 * the one implementation attach mode's calls and the replay checkpoints'
 * copies use: the area is read whole (the size the kernel says in its
 * software bytes, AMX's ~11 KiB included), a value written into it reaches
 * the thread, and a set the kernel refuses is an error (it was ignored:
 * the thread then ran on with the called code's vector registers).
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "arch/arch_ptrace.h"

#if defined(__x86_64__)

static const uint8_t pat_a[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
static const uint8_t pat_b[16] = {0xa5, 0x5a, 0xa5, 0x5a, 0xa5, 0x5a, 0xa5, 0x5a,
				  0xa5, 0x5a, 0xa5, 0x5a, 0xa5, 0x5a, 0xa5, 0x5a};

/* The child: xmm0 = pat_a, stops itself (a raw kill: no libc code between
 * that could use xmm0), then exits 0 when xmm0 is pat_b (the parent wrote
 * it), 1 when it is still pat_a, 2 otherwise. */
static void child(void)
{
	uint8_t out[16];
	long pid = getpid();

	if (ptrace(PTRACE_TRACEME, 0, 0, 0) < 0)
		_exit(3);
	__asm__ volatile("movdqu (%[in]), %%xmm0\n\t"
			 "mov $62, %%eax\n\t" /* SYS_kill */
			 "mov %[pid], %%rdi\n\t"
			 "mov $19, %%esi\n\t" /* SIGSTOP */
			 "syscall\n\t"
			 "movdqu %%xmm0, (%[out])"
			 :
			 : [in] "r"(pat_a), [out] "r"(out), [pid] "r"(pid)
			 : "rax", "rdi", "rsi", "rcx", "r11", "xmm0", "memory");
	_exit(!memcmp(out, pat_b, 16) ? 0 : !memcmp(out, pat_a, 16) ? 1 : 2);
}

static void save_set_roundtrip(void **state)
{
	struct arch_ptrace_ext x = {0}, cut;
	uint64_t xcr0;
	size_t end = 576;
	pid_t pid;
	int st;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		child();
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFSTOPPED(st) && WSTOPSIG(st) == SIGSTOP);

	assert_int_equal(arch_ptrace_ext_save(pid, &x), 0);
	assert_true(x.have);
	/* whole: as long as the area of the features the kernel gives (their
	 * XCR0 bits in the software bytes, each feature's end by cpuid) */
	memcpy(&xcr0, x.buf + 464, 8);
	assert_true(xcr0 & 3); /* x87, SSE */
	for (unsigned i = 2; i < 64; i++)
		if ((xcr0 >> i) & 1) {
			unsigned a, b, c, d;

			__asm__ volatile("cpuid"
					 : "=a"(a), "=b"(b), "=c"(c), "=d"(d)
					 : "a"(0xd), "c"(i));
			if (a + b > end)
				end = a + b;
		}
	assert_int_equal(x.len, end);
	/* xmm0 at 160 of the FXSAVE image */
	assert_memory_equal(x.buf + 160, pat_a, 16);
	memcpy(x.buf + 160, pat_b, 16);

	/* a cut area: the kernel refuses it, and the caller is told */
	cut = x;
	cut.len = x.len - 64;
	assert_true(arch_ptrace_ext_restore(pid, &cut) < 0);

	assert_int_equal(arch_ptrace_ext_restore(pid, &x), 0);
	arch_ptrace_ext_free(&x);
	assert_null(x.buf);
	assert_int_equal(arch_ptrace_ext_restore(pid, &x), 0); /* holds nothing */

	assert_int_equal(ptrace(PTRACE_CONT, pid, 0, 0), 0);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0); /* the thread has pat_b */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(save_set_roundtrip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

#else

int main(void)
{
	return 0; /* x86-64 only (aarch64: tests/arm64) */
}

#endif
