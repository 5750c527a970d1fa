// SPDX-License-Identifier: MIT
/*
 * agent_dlsym.c - threads created through a pthread_create found with
 * dlsym are the agent's too (doc/record.md, "Threads").
 *
 * A library loaded after the agent that looks pthread_create up with
 * dlsym(RTLD_NEXT, ...) gets glibc's, not the agent's: jemalloc does so
 * for its background thread (redis-server). Such a thread is never
 * wrapped, so record/replay cannot number it ("a thread spool could not
 * number") and `spool locks` sees it only from its first lock. The agent
 * interposes dlsym: a lookup of "pthread_create" made outside the agent,
 * with any handle, returns the agent's pthread_create, which creates the
 * thread with glibc's. Every other lookup is glibc's own dlsym, reached by
 * a tail jump so that it sees its caller's return address: RTLD_NEXT is
 * relative to the object that called, and a C wrapper calling it would
 * make every RTLD_NEXT lookup relative to the agent. The agent's own
 * lookups (AGENT_RESOLVE) are left alone: its RTLD_NEXT must find glibc's.
 *
 * The jump needs assembly: x86-64 only (elsewhere the agent does not
 * interpose dlsym, and such threads stay unnumbered).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "agent.h"

#if defined(__x86_64__)

/* The agent's own mapping, from its ELF header to the end of its bss. */
extern const char __ehdr_start[] __attribute__((visibility("hidden")));
extern const char _end[] __attribute__((visibility("hidden")));

static void *agent_dlsym_none(void *h, const char *name)
{
	(void)h;
	(void)name;
	return NULL;
}

/* glibc's dlsym, jumped to by the trampoline below. */
void *(*agent_dlsym_real)(void *, const char *);

/*
 * Called by the trampoline with the caller's return address: the
 * replacement for this lookup, or NULL for glibc's own. Makes sure
 * agent_dlsym_real is set first (the agent's first lookup comes here too,
 * from its own constructor).
 */
void *agent_dlsym_override(void *h, const char *name, const void *caller)
{
	void *(*real)(void *, const char *) = __atomic_load_n(&agent_dlsym_real, __ATOMIC_ACQUIRE);

	(void)h;
	if (!real) {
		/* dlvsym is not interposed; dlsym has two versions. */
		real = (void *(*)(void *, const char *))dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
		if (!real)
			real = (void *(*)(void *, const char *))dlvsym(RTLD_NEXT, "dlsym",
								       "GLIBC_2.2.5");
		if (!real)
			real = agent_dlsym_none;
		__atomic_store_n(&agent_dlsym_real, real, __ATOMIC_RELEASE);
	}
	if ((const char *)caller >= __ehdr_start && (const char *)caller < _end)
		return NULL;
	if (name && !strcmp(name, "pthread_create"))
		return (void *)pthread_create;
	return NULL;
}

/* dlsym: ask agent_dlsym_override, then return its answer or jump to glibc
 * with the caller's frame intact (its return address on top). */
__asm__(".text\n"
	".globl dlsym\n"
	".type dlsym, @function\n"
	"dlsym:\n"
	".cfi_startproc\n"
	"	push %rdi\n"
	".cfi_adjust_cfa_offset 8\n"
	"	push %rsi\n"
	".cfi_adjust_cfa_offset 8\n"
	"	sub $8, %rsp\n"
	".cfi_adjust_cfa_offset 8\n"
	"	mov 24(%rsp), %rdx\n"
	"	call agent_dlsym_override\n"
	"	add $8, %rsp\n"
	".cfi_adjust_cfa_offset -8\n"
	"	pop %rsi\n"
	".cfi_adjust_cfa_offset -8\n"
	"	pop %rdi\n"
	".cfi_adjust_cfa_offset -8\n"
	"	test %rax, %rax\n"
	"	jnz 1f\n"
	"	jmp *agent_dlsym_real(%rip)\n"
	"1:	ret\n"
	".cfi_endproc\n"
	".size dlsym, .-dlsym\n");

#endif
