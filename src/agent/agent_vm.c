// SPDX-License-Identifier: MIT
/*
 * agent_vm.c - where the agent's own mappings go: a fixed window of the
 * address space far from the program's.
 *
 * A replay gives the program the addresses it got when recorded (mmap
 * results, pointers it wrote to a pipe or kept in epoll_event.data) only if
 * the program's mappings land where they did. With ADDR_NO_RANDOMIZE (spool
 * sets it for record and replay) the kernel places them deterministically,
 * top-down from below the stack; but a mapping the agent made on the way
 * (a ring when a thread starts, the record area, a replay's image and
 * stream files, of other sizes in a replay than in the recording) would
 * shift every later one of the program's. So the agent maps everything it
 * needs at fixed addresses in [AGENT_VM_BASE, AGENT_VM_END): 1 TiB, ending
 * 1 TiB below the lowest place a randomized mmap base starts (about
 * 0x7eff...; without randomization 0x7ffff7ff...), far above a program's
 * break and executable (0x55..., 0x4...), and outside the ranges the
 * sanitizers' runtimes fix (ASan's shadow ends at 0x1000_7fff_7fff; TSan
 * leaves 0x7c00... to 0x7e80... unused). The program's own top-down or
 * bottom-up mmap search never reaches it.
 *
 * A bump pointer (atomic: threads map rings concurrently) hands the window
 * out; what is unmapped is not reused (a hole is harmless, and 1 TiB is far
 * more than the rings of 131,072 threads). MAP_FIXED_NOREPLACE never
 * clobbers a mapping that is there; when the place is taken, or the kernel
 * is older than 4.17 (the flag is then a hint it may ignore), the mapping
 * goes wherever the kernel puts it: correct, only the layout guarantee is
 * lost. Async-signal-safe (mmap and an atomic add).
 */
#include <errno.h>
#include <stdint.h>
#include <sys/mman.h>

#include "agent.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

#define AGENT_VM_BASE 0x7d0000000000ull
#define AGENT_VM_END 0x7e0000000000ull
#define AGENT_VM_PAGE 4096ull

static uint64_t agent_vm_next = AGENT_VM_BASE;

void *agent_vm_map(size_t len, int prot, int flags, int fd, off_t off)
{
	uint64_t size = ((uint64_t)len + AGENT_VM_PAGE - 1) & ~(AGENT_VM_PAGE - 1);
	uint64_t at;
	void *p;
	int saved = errno;

	if (!size)
		return MAP_FAILED;
	/* a guard page after each piece: an overrun faults, as it would
	 * between two mappings of the kernel's choice */
	at = __atomic_fetch_add(&agent_vm_next, size + AGENT_VM_PAGE, __ATOMIC_RELAXED);
	if (at < AGENT_VM_END && size <= AGENT_VM_END - at) {
		p = mmap((void *)(uintptr_t)at, len, prot, flags | MAP_FIXED_NOREPLACE, fd, off);
		if (p != MAP_FAILED) {
			errno = saved;
			return p;
		}
		if (errno != EEXIST && errno != EINVAL)
			return MAP_FAILED;
	}
	p = mmap(NULL, len, prot, flags, fd, off);
	if (p != MAP_FAILED)
		errno = saved;
	return p;
}
