// SPDX-License-Identifier: MIT
/*
 * agent_rr_outturn.c - sync mode orders the threads' writes to
 * descriptors 1 and 2 (doc/record.md "Standard output and error").
 *
 * Run as `prog >out 2>&1`, a program's stdout and stderr are one file,
 * and the order of two threads' lines in it is the order the kernel took
 * their writes in: nothing in the program orders them (stdio's turns,
 * agent_rr_stdio_turn.c, order each stream on its own; a raw write(2)
 * takes no lock at all). A sync replay let the threads write in whatever
 * order they reached the kernel, and the file held the recorded lines in
 * another order while spool said the replay was identical.
 *
 * So, once the process has more than one thread (agent_rr_threads_made,
 * at the same point in both runs), each write or writev to descriptor 1
 * or 2 takes a turn of one object, "the standard output", and is made
 * holding the agent's lock for it: the turn order is the order the
 * writes reached the file. The replay waits for the recorded turn, takes
 * the lock, passes the turn on and makes the write. Descriptor numbers
 * are the same in both runs, so the choice of which writes take a turn
 * is too; 1 and 2 are ordered together whether or not they are one file
 * (two threads writing to one terminal interleave the same way).
 *
 * The lock is the innermost the agent takes (inside a stdio turn, never
 * around another): a word holding the owner's thread id. A write made by
 * a signal handler that interrupted the owner takes no turn (it would
 * wait for itself); an owner that died holding it (cancelled in the
 * write, or a thread of the parent after fork) is found dead and the
 * lock taken from it.
 *
 * A thread still printing when another ends the process (exit) is killed
 * in its write, after the turn's record and before the write's: a replay
 * whose thread finds no record for the write that follows its replayed
 * turn (agent_rr_out_taken) waits there for good, as for a call that
 * blocks, and makes no write (the recorded write was most likely cut
 * short by the kill: a write to a file checks for it before it copies).
 *
 * Only when the recording says so (RR_F_OUT_TURN; its replay gets
 * RR_O_OUT_TURN): older recordings replay as they were made.
 */
#include <errno.h>
#include <linux/futex.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "agent_rr.h"

int agent_rr_out_turns;
__attribute__((tls_model("initial-exec"))) __thread int agent_rr_out_taken;

/* the lock: 0 free, else the owner's thread id */
static uint32_t rr_out_word;

static void rr_out_lock(uint32_t me)
{
	struct timespec ms = {0, 1000000};
	uint32_t cur;

	for (uint32_t spins = 1;; spins++) {
		cur = 0;
		if (__atomic_compare_exchange_n(&rr_out_word, &cur, me, 0, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			return;
		/* its owner died holding it: take it over */
		if (!(spins & 127) && syscall(SYS_tgkill, (pid_t)syscall(SYS_getpid), (pid_t)cur, 0) < 0 &&
		    errno == ESRCH) {
			__atomic_compare_exchange_n(&rr_out_word, &cur, 0, 0, __ATOMIC_RELAXED,
						    __ATOMIC_RELAXED);
			continue;
		}
		if (spins < 64) {
			syscall(SYS_sched_yield);
			continue;
		}
		syscall(SYS_futex, &rr_out_word, FUTEX_WAIT_PRIVATE, cur, &ms, NULL, 0);
	}
}

int agent_rr_out_begin(struct agent_thread *t, int fd)
{
	uint32_t obj, me;
	int mode, e, rc;

	if (AGENT_LIKELY(!agent_rr_out_turns) || (fd != 1 && fd != 2) ||
	    !__atomic_load_n(&agent_rr_threads_made, __ATOMIC_RELAXED))
		return 0;
	mode = __atomic_load_n(&agent_rr_mode, __ATOMIC_ACQUIRE);
	if (!(mode & (RR_MODE_RECORD | RR_MODE_REPLAY)) || (mode & RR_MODE_SERIAL))
		return 0;
	e = errno;
	me = (uint32_t)syscall(SYS_gettid);
	if (__atomic_load_n(&rr_out_word, __ATOMIC_RELAXED) == me)
		goto out_none;
	obj = agent_lock_index(t, &rr_out_word, LOCK_TYPE_MUTEX, AGENT_RET_IP());
	if (!obj)
		goto out_none;
	if (mode & RR_MODE_RECORD) {
		rr_out_lock(me);
		agent_rr_rec_sync(t, obj, OP_ACQUIRE, 0, 1);
	} else {
		rc = agent_rr_rep_begin(t, obj, OP_ACQUIRE, &rr_out_word, 1);
		if (!rc)
			rr_out_lock(me);
		agent_rr_rep_end(t, rc);
		if (rc)
			goto out_none;
		agent_rr_out_taken = 1;
	}
	errno = e;
	return 1;
out_none:
	errno = e;
	return 0;
}

void agent_rr_out_end(int on)
{
	int e;

	if (!on)
		return;
	e = errno;
	agent_rr_out_taken = 0;
	__atomic_store_n(&rr_out_word, 0, __ATOMIC_RELEASE);
	syscall(SYS_futex, &rr_out_word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	errno = e;
}
