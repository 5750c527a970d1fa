// SPDX-License-Identifier: MIT
/*
 * raw_clone.h - threads made with the program's own clone system call
 * instruction, not glibc's clone() or pthread_create: spool sees such a
 * thread only through syscall user dispatch, and it runs on its creator's
 * TLS (no errno, no stdio in it). One copy for the programs that make them
 * (clone_busy.c, clone_locks.c, thread_churn.c). The functions are x86-64
 * only, RAW_CLONE_THREAD is for glibc's clone() too; header-only, as each
 * program is one file.
 *
 *   long raw_clone(unsigned long flags, void *sp, volatile int *ctid)
 *     sp holds fn and arg (sp[0], sp[1]); the child pops them, calls
 *     fn(arg) on its 16-aligned stack and exits with a raw exit of fn's
 *     value. Returns the child's tid, or -errno.
 *   raw_clone_push(top, fn, arg): the sp for a stack ending at top.
 *   raw_sys (raw_sys.h): a system call of the program's own.
 *   RAW_CLONE_THREAD: the flags of a thread (no TLS of its own) whose exit
 *   clears *ctid and wakes its futex (a waiter: while (*ctid)
 *   futex(ctid, FUTEX_WAIT, 1)).
 */
#ifndef SPOOL_TESTS_PROGS_RAW_CLONE_H
#define SPOOL_TESTS_PROGS_RAW_CLONE_H

#include <sched.h>

#include "raw_sys.h"

#define RAW_CLONE_THREAD                                                                           \
	(CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM |         \
	 CLONE_CHILD_CLEARTID)

#if defined(__x86_64__)

__asm__(".text\n"
	".globl raw_clone\n"
	".type raw_clone, @function\n"
	"raw_clone:\n"
	"\tmovq %rdx, %r10\n" /* ctid */
	"\txorl %edx, %edx\n" /* ptid */
	"\txorl %r8d, %r8d\n" /* tls */
	"\tmovl $56, %eax\n"
	"\tsyscall\n"
	"\ttestq %rax, %rax\n"
	"\tjnz 1f\n"
	"\tpopq %rax\n"
	"\tpopq %rdi\n"
	"\tandq $-16, %rsp\n"
	"\tcall *%rax\n"
	"\tmovl %eax, %edi\n"
	"\tmovl $60, %eax\n"
	"\tsyscall\n"
	"\thlt\n"
	"1:\tret\n"
	".size raw_clone, .-raw_clone\n");
long raw_clone(unsigned long flags, void *sp, volatile int *ctid);

static inline void *raw_clone_push(char *top, int (*fn)(void *), void *arg)
{
	void **sp = (void **)top - 2;

	sp[0] = (void *)fn;
	sp[1] = arg;
	return sp;
}
#endif

#endif
