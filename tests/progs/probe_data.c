// SPDX-License-Identifier: MIT
/*
 * probe_data.c - functions with data inside their symbol's range, as
 * hand-written assembly (and some compilers) put it
 * (tests/integ/47-probe-data-in-code.t). Probes must patch only bytes that
 * are instructions: a table patched as code changes what the program
 * computes.
 *
 *   probe_data [N]   (default 1000)
 *
 * data_lookup(i)  table[i & 7] from a table of 8 quads placed right after
 *                 its ret (a branch target: an exit window could only grow
 *                 over the bytes after it); i < 0: -1, from code after the
 *                 table that a branch reaches
 * data_switch(i)  a switch through a jump table of 32-bit offsets inside
 *                 the function, between the jump and the cases
 * Output: "sum S", the same natively and probed.
 */
#include <stdio.h>
#include <stdlib.h>

__asm__(".text\n"
	".globl data_lookup\n"
	".type data_lookup, @function\n"
	"data_lookup:\n"
	"\ttestq %rdi, %rdi\n"
	"\tjs 1f\n"
	"\tandq $7, %rdi\n"
	"\tleaq data_lookup(%rip), %rax\n"
	"\tmovq .Ldata_tab-data_lookup(%rax,%rdi,8), %rax\n"
	"2:\n"
	"\tret\n"
	".Ldata_tab:\n"
	"\t.quad 1, 2, 3, 5, 8, 13, 21, 34\n"
	"1:\n"
	"\tmovq $-1, %rax\n"
	"\tjmp 2b\n"
	".size data_lookup, .-data_lookup\n"

	".globl data_switch\n"
	".type data_switch, @function\n"
	"data_switch:\n"
	"\tmovl $100, %eax\n"
	"\tcmpq $3, %rdi\n"
	"\tja 9f\n"
	"\tleaq .Ldata_jt(%rip), %rdx\n"
	"\tmovslq (%rdx,%rdi,4), %rcx\n"
	"\taddq %rdx, %rcx\n"
	"\tjmp *%rcx\n"
	".Ldata_jt:\n"
	"\t.long 5f-.Ldata_jt, 6f-.Ldata_jt, 7f-.Ldata_jt, 8f-.Ldata_jt\n"
	"\t.quad 0x0102030405060708, 0x1112131415161718\n"
	"5:\n"
	"\tmovl $10, %eax\n"
	"\tret\n"
	"6:\n"
	"\tmovl $20, %eax\n"
	"\tret\n"
	"7:\n"
	"\tmovl $30, %eax\n"
	"\tret\n"
	"8:\n"
	"\tmovq .Ldata_jt+16(%rip), %rax\n"
	"\tshrq $56, %rax\n"
	"9:\n"
	"\tret\n"
	".size data_switch, .-data_switch\n");
long data_lookup(long i);
long data_switch(long i);

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, s = 0;

	for (long i = 0; i < n; i++) {
		s += data_lookup(i) * 3 + data_switch(i % 5);
		if (i % 100 == 0)
			s += data_lookup(-i - 1);
	}
	printf("sum %ld\n", s);
	return 0;
}
