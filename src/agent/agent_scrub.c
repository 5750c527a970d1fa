// SPDX-License-Identifier: MIT
/*
 * agent_scrub.c - where on a thread's stack the entry stubs may zero what
 * the agent left (doc/record.md, "The program's stack").
 *
 * While recording or replaying, an exported interposer is entered through a
 * stub (scripts/agent-stubs.sh, src/arch/<cpu>/agent_stub.h) that zeroes a
 * fixed span below its frame after the call: the agent does other work in a
 * recording than in its replay (a real read and a log write, or a copy from
 * the log), so without it the program would find other words below its
 * frames, and a conservative garbage collector scanning its stack (Ruby's)
 * would keep other objects alive and take other branches.
 *
 * Zeroing below the stack pointer is safe only on the thread's own stack,
 * above its lowest usable address: a coroutine's stack or a small stack of
 * the program's own may end right below its frames, and a signal handler
 * may run on an alternate stack. So each thread keeps its stack's bounds in
 * two initial-exec TLS words the stubs read, agent_scrub_lo and
 * agent_scrub_hi: a stub whose frame is not in [lo, hi] zeroes nothing, and
 * never below lo. They are 0 (nothing zeroed) until set: at the agent's
 * start for the main thread (its stack may grow down to RLIMIT_STACK below
 * __libc_stack_end), and at the start of each thread spool wraps (its stack
 * as glibc's descriptor of the thread names it, agent_scrub_thread). Threads spool did not see start (a raw
 * clone) are not scrubbed. A fork child keeps its thread's words (the same
 * stack); a snapshot restores them with the thread's TLS.
 *
 * A coroutine may also run on a buffer inside the thread's own stack (a
 * local array of main), above frames still live below it that the zeroing
 * would reach: so a thread that calls swapcontext (the ucontext way of
 * switching stacks) has its bounds cleared for good, in the recording and
 * the replay alike. Not seen: stacks switched by setcontext alone or by a
 * program's own assembly (Ruby's fibers are mmap'd: not on the thread's
 * stack, so never zeroed).
 *
 * Signal-safety: the words are written by their own thread only, before it
 * runs program code, and read by that thread's stubs.
 *
 * Check mode (SPOOL_SCRUB_CHECK=1, read once at the start, in the recording
 * and its replay alike): each stub fills AGENT_SCRUB_CHECK bytes below its
 * frame with a pattern before the call and, after it, finds the lowest word
 * the call changed, keeping the deepest per stub (spool_scrub_tab, one entry
 * a stub, made by the stub macros); at the process's exit the agent names
 * each stub whose call went deeper than it zeroes ("scrub check: NAME went
 * D bytes deep, its stub zeroes S"); SPOOL_SCRUB_CHECK=all names every stub
 * used with its depth. Deep paths that zero after themselves
 * (agent_stack_scrub) write the pattern instead, so what they cover counts
 * as clean (inside a checked stub call only: elsewhere they zero, as the
 * pattern would stay). tests/integ/374 runs the record/replay programs so: a frame
 * made deeper on a hot path fails a test instead of silently letting
 * replays differ. The depths are kept without atomics (racy: two threads
 * may lose one update; a check tool), and the fill and scan cost about a
 * 128 KiB memset a call: never on by default.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "agent.h"

/* read by the stubs: 1 check mode, 2 the same and name every stub used */
int agent_scrub_check;
/* check mode: how many checked stub calls this thread is in (a call
 * cancelled through its stub leaves it counted: the pattern may then stay
 * below the thread's frames, in check mode only) */
__thread int agent_scrub_in;

/* read by the stubs' assembly: initial-exec TLS (the agent's model) */
__thread uintptr_t agent_scrub_lo, agent_scrub_hi;

extern void *__libc_stack_end;

/* A margin above the lowest address: glibc's own guard and what a stack
 * overflow check of the program may leave unused. */
#define SCRUB_MARGIN 4096u

static void scrub_set(uintptr_t lo, uintptr_t hi)
{
	lo = (lo + SCRUB_MARGIN + 15) & ~(uintptr_t)15;
	if (hi <= lo)
		return;
	agent_scrub_lo = lo;
	agent_scrub_hi = hi;
}

/* The main thread, from the agent's constructor. */
void agent_scrub_main(void)
{
	uintptr_t hi = (uintptr_t)__libc_stack_end;
	struct rlimit rl;
	uintptr_t span;

	const char *chk = getenv("SPOOL_SCRUB_CHECK");

	if (chk && *chk && *chk != '0')
		agent_scrub_check = chk[0] == 'a' ? 2 : 1;
	/* (raw: the agent imports no getrlimit) */
	if (!hi || syscall(SYS_getrlimit, RLIMIT_STACK, &rl) != 0)
		return;
	span = rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > (1ul << 30) ? (1ul << 30)
									 : (uintptr_t)rl.rlim_cur;
	if (span <= 2 * 65536u || span >= hi)
		return;
	/* __libc_stack_end is near the top; the stack may grow down to
	 * RLIMIT_STACK below the top, which is above it: 64 KiB more is safe */
	scrub_set(hi - span + 65536u, hi);
}

/* The descriptor's span searched for the stack's words (glibc's struct
 * pthread is larger: 2304 bytes in 2.36 on x86-64; its stackblock words
 * lie about 1.7 KiB in). x86-64 keeps the descriptor at the thread
 * pointer, arm64 just below it. */
#define SCRUB_TCB_SPAN 2048

/*
 * A thread spool wrapped, at its start (its own stack, before the
 * program's function). Its stack is the block glibc's descriptor names
 * (stackblock, stackblock_size, guardsize: three words in a row), found
 * by a search as agent_thread.c finds the tid: the first three words with
 * the stack pointer inside [block + guard, block + size), the descriptor
 * itself inside the block, within 1 MiB of its top (glibc puts it at the
 * top, for a stack the program gave too), the guard below the size. The
 * same bounds as pthread_getattr_np's for glibc 2.36's default, sized,
 * guarded and program-given stacks (checked by hand on x86-64). Not pthread_getattr_np:
 * it allocates (the affinity mask), and a first malloc in a thread that
 * makes none of its own gives it an arena of its own (jemalloc, glibc):
 * redis-server under spool had 8 arenas and 4 jemalloc background threads
 * where it has 1 and 1 alone (tests/real/106). Not found (another libc):
 * the bounds stay 0 and the stubs zero nothing on this thread.
 */
void agent_scrub_thread(void)
{
	uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
	const char *tp = (const char *)__builtin_thread_pointer();
#if defined(__aarch64__)
	const uintptr_t *w = (const uintptr_t *)(tp - SCRUB_TCB_SPAN);
	uintptr_t desc = (uintptr_t)(tp - SCRUB_TCB_SPAN);
#else
	const uintptr_t *w = (const uintptr_t *)tp;
	uintptr_t desc = (uintptr_t)tp;
#endif
	size_t i, n = SCRUB_TCB_SPAN / sizeof(uintptr_t);

	for (i = 0; i + 2 < n; i++) {
		uintptr_t block = w[i], size = w[i + 1], guard = w[i + 2];

		if (!block || (block & 15) || size < 16384u || size > (1ul << 34) ||
		    guard >= size || (guard & 4095))
			continue;
		if (sp < block + guard || sp >= block + size)
			continue;
		/* the descriptor near the block's top (below it: arm64's static
		 * TLS, a few KiB usually): two words that only look like a block
		 * and a size span most of the address space */
		if (desc < block || desc >= block + size || block + size - desc > (1u << 20))
			continue;
		scrub_set(block + guard, block + size);
		return;
	}
}

/* Check mode, at the process's exit: the stubs whose calls went deeper
 * than they zero (said whatever SPOOL_DEBUG, like other losses). */
void agent_scrub_report(void)
{
	const struct agent_scrub_ent *e;
	int dbg = agent.debug;

	if (!agent_scrub_check)
		return;
	agent.debug = 1;
	for (e = __start_spool_scrub_tab; e < __stop_spool_scrub_tab; e++) {
		uint64_t d = __atomic_load_n(e->deep, __ATOMIC_RELAXED);

		if (d > e->span)
			agent_log("scrub check: %s went %lu bytes deep, its stub zeroes %lu",
				  e->name, (unsigned long)d, (unsigned long)e->span);
		else if (d && agent_scrub_check == 2)
			agent_log("scrub check: %s %lu of %lu", e->name, (unsigned long)d,
				  (unsigned long)e->span);
	}
	agent.debug = dbg;
}

static int (*real_swapcontext)(ucontext_t *, const ucontext_t *);

__attribute__((constructor)) static void agent_scrub_resolve(void)
{
	agent_self.busy++;
	AGENT_RESOLVE(real_swapcontext, "swapcontext");
	agent_self.busy--;
}

/* The program switches stacks itself: no more zeroing on this thread (see
 * the top of the file). */
AGENT_EXPORT int swapcontext(ucontext_t *o, const ucontext_t *u)
{
	agent_scrub_lo = 0;
	agent_scrub_hi = 0;
	if (AGENT_UNLIKELY(!real_swapcontext)) { /* (before the constructor) */
		errno = ENOSYS;
		return -1;
	}
	return real_swapcontext(o, u);
}
