// SPDX-License-Identifier: MIT
/*
 * agent_snap_fill.c - a --goto restore's copy of a snapshot's data into the
 * fresh process's memory with userfaultfd's UFFDIO_COPY (doc/record.md,
 * "The restore's cost").
 *
 * The restore (agent_snap_restore.c) maps each region of the snapshot as
 * fresh anonymous memory and copies its data in from the body spool hands
 * it (a memfd with a hole for each page of zeros). Faulting the fresh pages
 * in and then copying over them zeroes every page before writing it: half
 * of that copy's CPU. UFFDIO_COPY allocates each page and fills it from the
 * source in one step, without the zeroing, and leaves an ordinary anonymous
 * mapping behind (a private file mapping of the memfd would need no copy at
 * all, but reads the file again, not zeros, after madvise(MADV_DONTNEED),
 * which allocators count on). The source is the body mapped read-only in
 * the agent's window; only its data is read (a read of a hole of a memfd
 * through a mapping would allocate a page for it).
 *
 * Invariants: a region is registered with the userfaultfd only between
 * agent_snap_fill_begin and agent_snap_fill_end, and nothing touches it in
 * between but UFFDIO_COPY: a fault from user space on a missing page of a
 * registered range raises SIGBUS (UFFD_FEATURE_SIGBUS; there is no handler
 * to wait for), and one from the kernel (a pread into it, the read of the
 * syscall user dispatch selector) fails, since the object is made with
 * UFFD_USER_MODE_ONLY where the kernel has it. The caller keeps the
 * restoring thread's own TLS out of every registered range
 * (agent_snap_restore.c, rs_fill): the fresh process's first thread has it
 * where the recording's had its own, inside a region of the snapshot. Single-threaded: the restore's first
 * thread only, signals blocked, raw system calls only (libc's data is being
 * replaced). Every failure is the caller's cue to copy the old way
 * (kernels without userfaultfd, seccomp filters that refuse it, qemu-user):
 * nothing here is needed for a restore to be right.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "agent.h"
#include "agent_snap.h"

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22 /* Linux 5.14 */
#endif
#ifndef UFFD_USER_MODE_ONLY
#define UFFD_USER_MODE_ONLY 1 /* Linux 5.11 */
#endif

static long sf_uffd = -1;
static const char *sf_src; /* the body, read-only, in the agent's window */
static uint64_t sf_src_len;

int agent_snap_fill_open(int fd, uint64_t size, int (*in_window)(uint64_t lo, uint64_t hi))
{
	/* SIGBUS: a fault on a missing page of a registered range (the
	 * restore touching what it has not filled yet) kills the replay
	 * with a signal spool reports, instead of waiting forever for a
	 * handler nobody runs (Linux 4.14; before, the copy is used) */
	struct uffdio_api api = {.api = UFFD_API, .features = UFFD_FEATURE_SIGBUS};
	void *p;

	if (!size || size > (1ull << 46))
		return -EINVAL;
	p = agent_vm_map(size, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	/* outside the window, a region restored later could be mapped over it */
	if (!in_window((uint64_t)(uintptr_t)p, (uint64_t)(uintptr_t)p + size)) {
		syscall(SYS_munmap, p, size);
		return -ENOMEM;
	}
	sf_src = p;
	sf_src_len = size;
	sf_uffd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK | UFFD_USER_MODE_ONLY);
	if (sf_uffd < 0 && errno == EINVAL) /* before 5.11 */
		sf_uffd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (sf_uffd < 0 || syscall(SYS_ioctl, sf_uffd, UFFDIO_API, &api) < 0) {
		int e = errno;

		agent_snap_fill_close();
		return -e;
	}
	return 0;
}

int agent_snap_fill_on(void)
{
	return sf_uffd >= 0;
}

int agent_snap_fill_begin(uint64_t start, uint64_t len)
{
	struct uffdio_register rg = {.range = {.start = start, .len = len},
				     .mode = UFFDIO_REGISTER_MODE_MISSING};

	if (sf_uffd < 0)
		return -ENOSYS;
	if ((start | len) & 4095)
		return -EINVAL;
	if (syscall(SYS_ioctl, sf_uffd, UFFDIO_REGISTER, &rg) < 0)
		return -errno;
	return 0;
}

int64_t agent_snap_fill_copy(uint64_t dst, uint64_t src_off, uint64_t len)
{
	uint64_t done = 0;
	int again = 0;

	if ((dst | len) & 4095 || src_off > sf_src_len || len > sf_src_len - src_off)
		return -EINVAL;
	/* the source's pages mapped first, in one call: a copy that meets an
	 * unmapped one leaves its fast path for that page (Linux 5.14; before,
	 * the copy faults them in) */
	{
		uint64_t lo = (uint64_t)(uintptr_t)(sf_src + src_off) & ~4095ull;
		uint64_t hi = ((uint64_t)(uintptr_t)(sf_src + src_off + len) + 4095) & ~4095ull;

		syscall(SYS_madvise, lo, hi - lo, MADV_POPULATE_READ);
	}
	while (done < len) {
		struct uffdio_copy c = {.dst = dst + done,
					.src = (uint64_t)(uintptr_t)(sf_src + src_off + done),
					.len = len - done,
					.mode = UFFDIO_COPY_MODE_DONTWAKE};

		if (syscall(SYS_ioctl, sf_uffd, UFFDIO_COPY, &c) < 0) {
			/* EAGAIN: the mappings changed under it (not here:
			 * one thread), or a part was copied; go on after it */
			if (c.copy > 0) {
				done += (uint64_t)c.copy;
				continue;
			}
			if (errno == EAGAIN && ++again < 16)
				continue;
			return done ? (int64_t)done : -errno;
		}
		done += (uint64_t)c.copy > 0 ? (uint64_t)c.copy : len - done;
	}
	return (int64_t)done;
}

void agent_snap_fill_end(uint64_t start, uint64_t len)
{
	struct uffdio_range r = {.start = start, .len = len};

	if (sf_uffd >= 0 && syscall(SYS_ioctl, sf_uffd, UFFDIO_UNREGISTER, &r) < 0) {
		/* still registered: no copy into it again, and the caller's
		 * own copy would fault forever; the descriptor closed takes
		 * the registration with it */
		syscall(SYS_close, sf_uffd);
		sf_uffd = -1;
	}
}

void agent_snap_fill_close(void)
{
	if (sf_uffd >= 0)
		syscall(SYS_close, sf_uffd);
	sf_uffd = -1;
	if (sf_src)
		syscall(SYS_munmap, sf_src, sf_src_len);
	sf_src = NULL;
	sf_src_len = 0;
}
