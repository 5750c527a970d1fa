// SPDX-License-Identifier: MIT
/*
 * agent_futex.c - futexes as lock-like objects: the waits and wakes a
 * program makes through glibc's syscall(SYS_futex, ...) (GLib's GMutex,
 * GCond, GRWLock and everything built on them, Rust's std::sync, ...).
 *
 * glibc's own pthread functions make their futex calls inline, never
 * through syscall(), so nothing here counts a pthread lock twice. The
 * futex word's address is the object (LOCK_TYPE_FUTEX in the lock table):
 * FUTEX_WAIT(_BITSET) is COND_WAIT before the call and COND_WAKE after it
 * (arg 0 when woken, else the errno: EAGAIN = the word had changed, the
 * thread never slept; ETIMEDOUT; EINTR); FUTEX_WAKE(_BITSET) is
 * COND_SIGNAL (one) or COND_BROADCAST (more) with the count asked, written
 * before the call so it precedes the wake-up of the thread it wakes. What
 * cannot be known: an uncontended lock or unlock is an atomic instruction
 * in user space and never gets here, so there are no acquisitions or hold
 * times, only the contended part. Other futex operations (requeue, PI,
 * wait on several) pass unrecorded.
 *
 * Called from the syscall() interposer (agent_rr_syscall.c) outside
 * record/replay, for the program's calls only; errno is preserved.
 */
#include <errno.h>
#include <linux/futex.h>
#include <sys/syscall.h>

#include "agent.h"
#include "agent_futex.h"

extern int agent_lock_quiet;

long agent_futex_call(const long *a, uint64_t ip, void *frame,
		      long (*pass)(long n, const long *a))
{
	int cmd = (int)(a[1] & ~(long)(FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME));
	int wait = cmd == FUTEX_WAIT || cmd == FUTEX_WAIT_BITSET;
	struct agent_thread *t;
	uint32_t obj;
	long r;
	int e;

	if ((!wait && cmd != FUTEX_WAKE && cmd != FUTEX_WAKE_BITSET) || agent_lock_quiet || !a[0])
		return pass(SYS_futex, a);
	t = agent_enter();
	if (!t)
		return pass(SYS_futex, a);
	obj = agent_lock_index(t, (const void *)a[0], LOCK_TYPE_FUTEX, ip);
	if (!wait) {
		agent_emit(t, obj, a[2] == 1 ? OP_COND_SIGNAL : OP_COND_BROADCAST, ip,
			   (uint64_t)(uint32_t)a[2], frame);
		return pass(SYS_futex, a);
	}
	agent_emit(t, obj, OP_COND_WAIT, ip, 0, frame);
	r = pass(SYS_futex, a);
	e = errno;
	agent_emit(t, obj, OP_COND_WAKE, ip, r < 0 ? (uint64_t)e : 0, frame);
	errno = e;
	return r;
}
