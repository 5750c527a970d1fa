// SPDX-License-Identifier: MIT
/*
 * rr_cpuid.c - a program that asks the CPU for its features with cpuid and
 * uses what it finds, as libgcrypt and OpenSSL do: rdrand when leaf 1 says
 * the CPU has it. Under spool record and replay (x86-64, CPUID faulting)
 * the agent hides rdrand and rdseed and records each cpuid's answer, so the
 * output says "hidden" and a replay prints the same lines
 * (tests/integ/366-rr-cpuid.t); without the hiding, rdrand's value differs
 * in each run.
 *
 *   rr_cpuid             leaves 0, 1 and 7: the vendor, rdrand, rdseed, and
 *                        rdrand's value when it is there; then the time
 *                        stamp counter (leaf 1 edx bit 4: libgcrypt runs its
 *                        jitter entropy collector, rdtsc, where it is set)
 *   rr_cpuid segv        the program's own SIGSEGV handler (siglongjmp out
 *                        of a real fault) and SIGSEGV blocked around a cpuid:
 *                        both keep working, the mask reads back as set
 *   rr_cpuid crash       a cpuid, then a real fault with no handler: killed
 *                        by SIGSEGV (gdb must stop at the fault, not at the
 *                        cpuid, tests/integ/406-gdb-cpuid-segv.t)
 *   rr_cpuid loop N      N cpuid of leaf 1; nanoseconds per cpuid on stderr
 *                        (the cost of the emulation, doc/record.md)
 */
#include <cpuid.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	__cpuid_count(leaf, sub, r[0], r[1], r[2], r[3]);
}

static int rdrand(uint64_t *v)
{
	unsigned char ok;

	__asm__ volatile("rdrand %0; setc %1" : "=r"(*v), "=qm"(ok));
	return ok;
}

static int features(void)
{
	uint32_t r[4], max;
	char vendor[13];
	int has_rdrand, has_rdseed = 0;
	uint64_t v = 0;

	cpuid(0, 0, r);
	max = r[0];
	memcpy(vendor, &r[1], 4);
	memcpy(vendor + 4, &r[3], 4);
	memcpy(vendor + 8, &r[2], 4);
	vendor[12] = 0;
	printf("vendor: %s\n", vendor);
	cpuid(1, 0, r);
	has_rdrand = !!(r[2] & (1u << 30));
	if (max >= 7) {
		cpuid(7, 0, r);
		has_rdseed = !!(r[1] & (1u << 18));
	}
	printf("rdrand: %s\n", has_rdrand ? "present" : "hidden");
	printf("rdseed: %s\n", has_rdseed ? "present" : "hidden");
	cpuid(1, 0, r);
	printf("tsc: %s\n", r[3] & (1u << 4) ? "present" : "hidden");
	if (has_rdrand) {
		for (int i = 0; i < 10 && !rdrand(&v); i++)
			;
		printf("rdrand value: %016llx\n", (unsigned long long)v);
	} else {
		printf("rdrand value: none\n");
	}
	return 0;
}

static sigjmp_buf jb;
static volatile int faults;

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	faults++;
	if (si->si_code > 0) /* a real fault: out of it */
		siglongjmp(jb, 1);
}

static int segv(void)
{
	struct sigaction sa, o;
	sigset_t s, cur;
	uint32_t r[4];

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSEGV, &sa, NULL))
		return 1;
	if (sigaction(SIGSEGV, NULL, &o))
		return 1;
	printf("handler kept: %s\n", o.sa_sigaction == on_segv ? "yes" : "no");
	sigemptyset(&s);
	sigaddset(&s, SIGSEGV);
	sigprocmask(SIG_BLOCK, &s, NULL);
	cpuid(1, 0, r);
	printf("cpuid with SIGSEGV blocked: rdrand %s\n", r[2] & (1u << 30) ? "present" : "hidden");
	sigprocmask(SIG_BLOCK, NULL, &cur);
	printf("SIGSEGV blocked in the mask: %s\n", sigismember(&cur, SIGSEGV) ? "yes" : "no");
	sigprocmask(SIG_UNBLOCK, &s, NULL);
	if (!sigsetjmp(jb, 1)) {
		*(volatile int *)(uintptr_t)8 = 1; /* a real fault */
		printf("no fault\n");
	} else {
		printf("fault caught by the program's handler: %d\n", faults);
	}
	cpuid(1, 0, r); /* after the siglongjmp: cpuid still answered */
	printf("cpuid after the fault: rdrand %s\n", r[2] & (1u << 30) ? "present" : "hidden");
	return 0;
}

static int loop(long n)
{
	struct timespec a, b;
	uint32_t r[4] = {0}, x = 0;

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++) {
		cpuid(1, 0, r);
		x ^= r[0];
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	fprintf(stderr, "%.0f ns per cpuid\n",
		((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / (double)(n ? n : 1));
	printf("signature: %08x\n", r[0] | (x & 0));
	return 0;
}

static int crash(void)
{
	uint32_t r[4] = {0};

	cpuid(1, 0, r);
	printf("rdrand %s\n", r[2] & (1u << 30) ? "present" : "hidden");
	fflush(stdout);
	*(volatile int *)(uintptr_t)8 = 1; /* a real fault */
	printf("no fault\n");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "crash"))
		return crash();
	if (argc > 1 && !strcmp(argv[1], "segv"))
		return segv();
	if (argc > 2 && !strcmp(argv[1], "loop"))
		return loop(atol(argv[2]));
	return features();
}
