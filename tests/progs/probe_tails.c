// SPDX-License-Identifier: MIT
/*
 * probe_tails.c - target of tests/integ/88-probe-tails.t: functions that
 * leave by a tail call (a jmp to another function, direct or through a
 * function pointer) and tiny functions followed by padding, in assembly so
 * that their shapes do not depend on the compiler's mood. Each is called a
 * number of times the program counts itself and prints at the end, so the
 * test compares spool's call counts and exits with the program's own.
 *
 *   probe_tails [N]   (default 1000)
 *
 * pt_direct    jmp pt_leaf (a direct tail call)
 * pt_ptr       mov rax, [rip+pt_ops_p]; jmp [rax+8] (a struct of pointers)
 * pt_got       jmp [rip+pt_fnptr] (a pointer variable: the GOT shape)
 * pt_reg       mov rax, [rip+pt_fnptr]; jmp rax
 * pt_tiny      mov eax, [rdi]; ret, then padding to the next function
 * pt_max       cmp; jge 1f; mov [rip+pt_hi], rdi; 1: ret, the next function
 *              right after: the ret's window holds the jge that targets it
 * pt_jcc       test edi, edi; jne pt_other (rel32: a conditional tail call)
 * pt_jcc8      the same with jne rel8 to pt_max, a few instructions before
 * pt_cond      test edi, edi; je 1f; xor eax, eax; ret; 1: jmp pt_leaf (the
 *              ret's window must displace the je: the next byte is a target)
 * pt_leaf      called by each tail call and by main
 * Output: one "name calls" line per function.
 */
#include <stdio.h>
#include <stdlib.h>

int pt_leaf(int x);
int pt_other(int x);
int pt_direct(int x);
int pt_ptr(int x);
int pt_got(int x);
int pt_reg(int x);
int pt_tiny(const int *p);
int pt_cond(int x);
long pt_max(long x);
int pt_jcc(int x);
int pt_jcc8(long x);
long pt_hi;

struct pt_ops {
	int (*first)(int);
	int (*second)(int);
};

static long n_leaf, n_other;

__attribute__((noinline)) int pt_leaf(int x)
{
	n_leaf++;
	__asm__ volatile("" ::: "memory");
	return x + 1;
}

__attribute__((noinline)) int pt_other(int x)
{
	n_other++;
	__asm__ volatile("" ::: "memory");
	return x * 2;
}

struct pt_ops pt_ops_v = {pt_leaf, pt_other};
struct pt_ops *pt_ops_p = &pt_ops_v;
int (*pt_fnptr)(int) = pt_leaf;

__asm__(".text\n"
	".p2align 4\n"
	".globl pt_direct\n"
	".type pt_direct, @function\n"
	"pt_direct:\n"
	"\tmovl %edi, %eax\n"
	"\timull $3, %eax, %eax\n"
	"\tleal 1(%rax), %edi\n"
	"\tjmp pt_leaf\n"
	".size pt_direct, .-pt_direct\n"
	".p2align 4\n"
	".globl pt_ptr\n"
	".type pt_ptr, @function\n"
	"pt_ptr:\n"
	"\tmovl %edi, %eax\n"
	"\timull $5, %eax, %eax\n"
	"\tmovl %eax, %edi\n"
	"\tmovq pt_ops_p(%rip), %rax\n"
	"\tjmp *8(%rax)\n"
	".size pt_ptr, .-pt_ptr\n"
	".p2align 4\n"
	".globl pt_got\n"
	".type pt_got, @function\n"
	"pt_got:\n"
	"\tmovl %edi, %eax\n"
	"\timull $7, %eax, %eax\n"
	"\tmovl %eax, %edi\n"
	"\tjmp *pt_fnptr(%rip)\n"
	".size pt_got, .-pt_got\n"
	".p2align 4\n"
	".globl pt_reg\n"
	".type pt_reg, @function\n"
	"pt_reg:\n"
	"\tmovl %edi, %eax\n"
	"\timull $9, %eax, %eax\n"
	"\tmovl %eax, %edi\n"
	"\tmovq pt_fnptr(%rip), %rax\n"
	"\tjmp *%rax\n"
	".size pt_reg, .-pt_reg\n"
	".p2align 4\n"
	".globl pt_tiny\n"
	".type pt_tiny, @function\n"
	"pt_tiny:\n"
	"\tmovl (%rdi), %eax\n"
	"\tret\n"
	".size pt_tiny, .-pt_tiny\n"
	".p2align 4\n"
	".globl pt_max\n"
	".type pt_max, @function\n"
	"pt_max:\n"
	"\tmovq pt_hi(%rip), %rax\n"
	"\tcmpq %rdi, %rax\n"
	"\tjge 1f\n"
	"\tmovq %rdi, pt_hi(%rip)\n"
	"1:\tret\n"
	".size pt_max, .-pt_max\n"
	".globl pt_jcc8\n"
	".type pt_jcc8, @function\n"
	"pt_jcc8:\n"
	"\tmovl %edi, %eax\n"
	"\timull $3, %eax, %eax\n"
	"\ttestq %rdi, %rdi\n"
	"\tjne pt_max\n"
	"\txorl %eax, %eax\n"
	"\tret\n"
	".size pt_jcc8, .-pt_jcc8\n"
	".p2align 4\n"
	".globl pt_jcc\n"
	".type pt_jcc, @function\n"
	"pt_jcc:\n"
	"\tmovl %edi, %eax\n"
	"\timull $3, %eax, %eax\n"
	"\ttestl %edi, %edi\n"
	"\t{disp32} jne pt_other\n"
	"\txorl %eax, %eax\n"
	"\tret\n"
	".size pt_jcc, .-pt_jcc\n"
	".p2align 4\n"
	".globl pt_cond\n"
	".type pt_cond, @function\n"
	"pt_cond:\n"
	"\tmovl %edi, %eax\n"
	"\timull $3, %eax, %eax\n"
	"\ttestl %edi, %edi\n"
	"\tje 1f\n"
	"\txorl %eax, %eax\n"
	"\tret\n"
	"1:\tjmp pt_leaf\n"
	".size pt_cond, .-pt_cond\n"
	".p2align 4\n");

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000;
	long sum = 0, n_direct = 0, n_ptr = 0, n_got = 0, n_reg = 0, n_tiny = 0, n_cond = 0;
	long n_max = 0, n_jcc = 0, n_jcc8 = 0;

	for (int i = 0; i < n; i++) {
		sum += pt_direct(i);
		n_direct++;
		sum += pt_ptr(i);
		n_ptr++;
		if (i % 2) {
			sum += pt_got(i);
			n_got++;
		} else {
			sum += pt_reg(i);
			n_reg++;
		}
		sum += pt_tiny(&i);
		n_tiny++;
		sum += pt_leaf(i);
		sum += pt_cond(i % 3);
		n_cond++;
		pt_max(i % 2 ? i : i / 2);
		n_max++;
		sum += pt_jcc(i % 2);
		n_jcc++;
		sum += pt_jcc8(i % 4 == 1 ? i : 0);
		n_jcc8++;
		n_max += i % 4 == 1;
	}
	printf("pt_cond %ld\npt_direct %ld\npt_got %ld\npt_jcc %ld\npt_jcc8 %ld\npt_leaf %ld\n"
	       "pt_max %ld\npt_other %ld\npt_ptr %ld\npt_reg %ld\npt_tiny %ld\n",
	       n_cond, n_direct, n_got, n_jcc, n_jcc8, n_leaf, n_max, n_other, n_ptr, n_reg,
	       n_tiny);
	fprintf(stderr, "max %ld\n", pt_hi);
	fprintf(stderr, "sum %ld\n", sum);
	return 0;
}
