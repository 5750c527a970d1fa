// SPDX-License-Identifier: MIT
/*
 * probe_a64.c - target of tests/arm64/quick/241-a64-probe.t: functions whose
 * first instruction is each kind an aarch64 entry probe must relocate, each
 * called N times from main and N times from each of 2 threads; one whose
 * entry cannot be probed (a_padloop: after its BTI landing pad, the next
 * instruction is a loop's branch target: refused); and strtoul, a function
 * of libc, as often. It prints
 * its results and how often it called each.
 *
 * First instructions (checked in the disassembly, aarch64 gcc -O2):
 *   c_ret    ret                (an entry and an exit in one trampoline)
 *   c_adrp   adrp x1, g_a64     (a global, PIE)
 *   a_tail   add; b c_other     (its exit is the tail call's B: assembly,
 *                               as the tests' -fno-omit-frame-pointer makes
 *                               a C tail call a BL)
 *   c_cbz    cbz x0, ...
 *   a_ldrlit ldr x0, literal    (assembly below)
 *   a_adr    adr x1, label
 *   a_tbz    tbz x0, #0, ...
 *   a_cbnz   cbnz x0, ...
 *   a_simd   ldr d0, literal    (x16 lent from below sp for the address)
 *   a_bcond  b.ge (on the flags its caller a_bcall set)
 *   a_blfirst bl a_inc (entered from a_blcall with its return point in x9:
 *            it returns by br x9, so its exit is not seen)
 *   a_padloop bti c; a loop back to its second instruction (refused)
 * On x86-64 only the C functions exist (built, not used by a test).
 *
 * usage: probe_a64 [N [LIB FN]]   (N default 1000)
 *   LIB FN: then dlopen LIB (after the probes were placed) and call its
 *   FN, a `const char *FN(void)` (zlibVersion of libz.so.1), N times;
 *   prints "LIB FN: N calls, RESULT"
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

long g_a64 = 5;

__attribute__((noipa)) void c_ret(void) {}

__attribute__((noipa)) long c_adrp(long x)
{
	return g_a64 + x;
}

__attribute__((noipa)) long c_other(long x)
{
	return x * 3;
}

__attribute__((noipa)) long c_cbz(const char *p)
{
	if (!p)
		return -1;
	return p[0];
}

#if defined(__aarch64__)
long a_ldrlit(void);
long a_adr(void);
long a_tbz(long x);
long a_cbnz(long x);
double a_simd(void);
long a_tail(long x);
long a_padloop(long x);
long a_bcall(long x);
long a_blcall(long x);

__asm__(".text\n"
	".p2align 3\n"
	".globl a_ldrlit\n.type a_ldrlit, %function\n"
	"a_ldrlit:\n"
	"	ldr x0, 1f\n"
	"	ret\n"
	"	.p2align 3\n"
	"1:	.quad 1000\n"
	".size a_ldrlit, .-a_ldrlit\n"
	".globl a_adr\n.type a_adr, %function\n"
	"a_adr:\n"
	"	adr x1, 2f\n"
	"	ldr x0, [x1]\n"
	"	ret\n"
	"	.p2align 3\n"
	"2:	.quad 42\n"
	".size a_adr, .-a_adr\n"
	".globl a_tbz\n.type a_tbz, %function\n"
	"a_tbz:\n"
	"	tbz x0, #0, 3f\n"
	"	add x0, x0, #100\n"
	"	ret\n"
	"3:	sub x0, x0, #1\n"
	"	ret\n"
	".size a_tbz, .-a_tbz\n"
	".globl a_cbnz\n.type a_cbnz, %function\n"
	"a_cbnz:\n"
	"	cbnz x0, 4f\n"
	"	mov x0, #99\n"
	"	ret\n"
	"4:	add x0, x0, #7\n"
	"	ret\n"
	".size a_cbnz, .-a_cbnz\n"
	".globl a_simd\n.type a_simd, %function\n"
	"a_simd:\n"
	"	ldr d0, 5f\n"
	"	ret\n"
	"	.p2align 3\n"
	"5:	.double 2.5\n"
	".size a_simd, .-a_simd\n"
	".globl a_tail\n.type a_tail, %function\n"
	"a_tail:\n"
	"	add x0, x0, #1\n"
	"	b c_other\n"
	".size a_tail, .-a_tail\n"
	".globl a_padloop\n.type a_padloop, %function\n"
	"a_padloop:\n"
	"	bti c\n"
	"6:	subs x0, x0, #1\n"
	"	b.gt 6b\n"
	"	mov x0, #5\n"
	"	ret\n"
	".size a_padloop, .-a_padloop\n"
	/* a_bcall(x): 1 if x >= 5, else 2, decided in a_bcond on its flags */
	".globl a_bcall\n.type a_bcall, %function\n"
	"a_bcall:\n"
	"	stp x29, x30, [sp, #-16]!\n"
	"	mov x29, sp\n"
	"	cmp x0, #5\n"
	"	bl a_bcond\n"
	"	ldp x29, x30, [sp], #16\n"
	"	ret\n"
	".size a_bcall, .-a_bcall\n"
	".globl a_bcond\n.type a_bcond, %function\n"
	"a_bcond:\n"
	"	b.ge 7f\n"
	"	mov x0, #2\n"
	"	ret\n"
	"7:	mov x0, #1\n"
	"	ret\n"
	".size a_bcond, .-a_bcond\n"
	/* a_blcall(x): x + 3, a_blfirst adding 1 by its first instruction's
	 * call of a_inc and 2 itself */
	".globl a_blcall\n.type a_blcall, %function\n"
	"a_blcall:\n"
	"	stp x29, x30, [sp, #-16]!\n"
	"	mov x29, sp\n"
	"	adr x9, 8f\n"
	"	bl a_blfirst\n"
	"8:	ldp x29, x30, [sp], #16\n"
	"	ret\n"
	".size a_blcall, .-a_blcall\n"
	".globl a_blfirst\n.type a_blfirst, %function\n"
	"a_blfirst:\n"
	"	bl a_inc\n"
	"	add x0, x0, #2\n"
	"	br x9\n"
	".size a_blfirst, .-a_blfirst\n"
	".globl a_inc\n.type a_inc, %function\n"
	"a_inc:\n"
	"	add x0, x0, #1\n"
	"	ret\n"
	".size a_inc, .-a_inc\n");
#endif

static long n_calls = 1000;
/* through a pointer: never inlined nor folded */
static unsigned long (*volatile a64_strtoul)(const char *, char **, int) = strtoul;

/* One round of every function; its result depends on each return value. */
static long a64_round(long i)
{
	long s = 0;

	c_ret();
	s += c_adrp(i);
	s += c_other(i);
	s += c_cbz((i & 1) ? "A" : NULL);
	s += (long)a64_strtoul("17", NULL, 10);
#if defined(__aarch64__)
	s += a_ldrlit();
	s += a_adr();
	s += a_tbz(i);
	s += a_cbnz(i & 3);
	s += a_tail(i);
	s += a_padloop(i & 7);
	s += a_bcall(i & 7) * 1000;
	s += a_blcall(i);
	s += (long)(a_simd() * 2);
#endif
	return s;
}

static void *a64_worker(void *arg)
{
	long s = 0;

	for (long i = 0; i < n_calls; i++)
		s += a64_round(i);
	*(long *)arg = s;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[2];
	long s[3] = {0, 0, 0};

	if (argc > 1)
		n_calls = atol(argv[1]);
	for (int k = 0; k < 2; k++)
		if (pthread_create(&th[k], NULL, a64_worker, &s[k + 1]))
			return 1;
	a64_worker(&s[0]);
	for (int k = 0; k < 2; k++)
		pthread_join(th[k], NULL);
	printf("sums %ld %ld %ld\n", s[0], s[1], s[2]);
	printf("calls %ld\n", 3 * n_calls);
	if (argc > 3) {
		void *h = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
		const char *(*fn)(void) = h ? (const char *(*)(void))dlsym(h, argv[3]) : NULL;
		const char *r = NULL;

		if (!fn) {
			fprintf(stderr, "probe_a64: %s\n", dlerror());
			return 1;
		}
		for (long i = 0; i < n_calls; i++)
			r = fn();
		printf("%s %s: %ld calls, %s\n", argv[2], argv[3], n_calls, r ? r : "(null)");
	}
	return s[0] == s[1] && s[1] == s[2] ? 0 : 2;
}
