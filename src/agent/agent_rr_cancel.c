// SPDX-License-Identifier: MIT
/*
 * agent_rr_cancel.c - pthread_cancel under record/replay (doc/record.md,
 * "Threads"): what makes a cancelled thread record and replay like any
 * other.
 *
 * Where a cancellation lands is decided by two threads: the canceller
 * (pthread_cancel) and the victim (its next cancellation point). In serial
 * mode only the token holder runs, so a cancellation acted on by a running
 * thread (pthread_testcancel, an emulated condition or semaphore wait, a
 * call that does not block) lands where it lands in a replay. Two cases
 * need the agent:
 *
 * - a victim that waits in a real blocking call (read, poll, a sleep,
 *   pthread_join, in sync mode a condition or semaphore wait) is unwound
 *   out of it by glibc's SIGCANCEL handler. The wrapper's cleanup
 *   (AGENT_RR_CANCEL_PUSH, agent_rr.h) runs during that unwinding, before
 *   the program's own cleanup handlers: it takes the run token back (serial
 *   mode) and records that the call was cancelled (an RR_CALL_CANCEL input,
 *   or the sync record of the call with result ECANCELED). A replay that
 *   meets that record cancels the thread there (agent_rr_rep_cancel).
 * - every unwinding calls pthread_once inside libgcc (uw_init_context:
 *   its table of register sizes). Made by a victim before its guard runs,
 *   that call would be recorded before the cancel record, and a replay,
 *   which learns of the cancel only from that record, would meet it first
 *   (and in serial mode the victim makes it without the run token). The
 *   interposed pthread_cancel makes an unwinding itself (an
 *   _Unwind_Backtrace of one frame, libgcc loaded as glibc loads it for
 *   pthread_cancel anyway) before it cancels anything, in a recording and
 *   in a replay alike; the once control that unwinding uses is noted
 *   (agent_rr_unwind_once) and calls on it are not recorded from then on.
 */
/* AGENT_RR_CANCEL_PUSH is a setjmp (agent_rr.h) */
#pragma GCC diagnostic ignored "-Wclobbered"
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "agent_rr.h"
#include "agent_serial.h"

static int (*real_cancel)(pthread_t);
static void (*real_testcancel)(void);
static int rr_cancel_warm_done;
pthread_once_t *agent_rr_unwind_once;
__thread int agent_rr_cancel_warming;
__thread int agent_rr_cancel_seen;

void agent_rr_cancel_unwind(void *guard)
{
	struct agent_rr_cancel_guard *g = guard;
	struct agent_thread *t = g->t;
	int e;

	if (!(agent_rr_mode & RR_MODE_RECORD))
		return;
	e = errno;
	agent_rr_cancel_seen = 1;
	/* The program's cleanup handlers run next: user code, token first. */
	if (g->serial_out)
		agent_serial_block_end();
	if (g->hook)
		g->hook(g);
	else if (t->state == AGENT_T_ON && !t->busy)
		agent_rr_rec_input(t, RR_CALL_CANCEL, (int)g->call, 0, 0, 0, NULL, 0);
	errno = e;
}

static uint64_t rr_cancel_now_ms(void)
{
	struct timespec ts;

	syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

void agent_rr_rep_cancel(const char *what)
{
	uint64_t start = rr_cancel_now_ms(), seen = agent_rr_progress_mark(), mark;

	for (;;) {
		/* Acts on a pending cancellation: never returns then. */
		agent_rr_testcancel_real();
		/* Serial mode: the canceller ran before this thread got the
		 * token back, as recorded. */
		if (agent_rr_mode & RR_MODE_SERIAL)
			agent_rr_diverge_text(what,
					      "the recording has the thread cancelled here "
					      "(pthread_cancel); in the replay no cancellation "
					      "is pending (or the thread disabled it)");
		/* Sync mode: its canceller runs in parallel; wait for it, as
		 * long as the replay moves on (agent_rr_progress_mark). */
		mark = agent_rr_progress_mark();
		if (mark != seen) {
			seen = mark;
			start = rr_cancel_now_ms();
		} else if (rr_cancel_now_ms() - start > agent_rr_stuck_ms)
			agent_rr_diverge_text(what,
					      "replay stuck: the recording has the thread "
					      "cancelled here (pthread_cancel); in the replay no "
					      "cancellation came for --stuck-ms (or the thread "
					      "disabled it)");
		{
			struct timespec nap = {0, 200000};

			syscall(SYS_nanosleep, &nap, NULL);
		}
	}
}

static int rr_cancel_frame(void *ctx, void *arg)
{
	(void)ctx;
	(void)arg;
	return 5; /* _URC_END_OF_STACK: one frame is enough */
}

/* The process's first unwinding, made here, unrecorded (see the top). */
static void rr_cancel_warm(void)
{
	void *h;
	int (*bt)(int (*)(void *, void *), void *);

	if (__atomic_exchange_n(&rr_cancel_warm_done, 1, __ATOMIC_ACQ_REL))
		return;
	agent_self.busy++;
	h = dlopen("libgcc_s.so.1", RTLD_NOW | RTLD_LOCAL);
	bt = h ? (int (*)(int (*)(void *, void *), void *))dlsym(h, "_Unwind_Backtrace") : NULL;
	if (bt) {
		agent_rr_cancel_warming = 1;
		bt(rr_cancel_frame, NULL);
		agent_rr_cancel_warming = 0;
	}
	agent_self.busy--;
}

AGENT_EXPORT int pthread_cancel(pthread_t th)
{
	int e;

	if (!real_cancel) {
		e = errno;
		agent_self.busy++;
		AGENT_RESOLVE(real_cancel, "pthread_cancel");
		agent_self.busy--;
		errno = e;
		if (!real_cancel)
			return ESRCH;
	}
	if (AGENT_UNLIKELY(agent_rr_mode) && !rr_cancel_warm_done) {
		e = errno;
		rr_cancel_warm();
		errno = e;
	}
	return real_cancel(th);
}

void agent_rr_testcancel_real(void)
{
	if (!real_testcancel) {
		int e = errno;

		agent_self.busy++;
		AGENT_RESOLVE(real_testcancel, "pthread_testcancel");
		agent_self.busy--;
		errno = e;
		if (!real_testcancel)
			return;
	}
	real_testcancel();
}

/*
 * pthread_testcancel in sync mode: where it acts on a cancellation depends
 * on when the canceller ran, so a recording notes the call that acted (an
 * RR_CALL_CANCEL of RR_CALL_TESTCANCEL) and a replay acts there and only
 * there (a cancellation its canceller sent earlier than recorded waits).
 * Serial mode needs nothing: only the token holder runs.
 */
AGENT_EXPORT void pthread_testcancel(void)
{
	struct agent_thread *t;

	if (AGENT_LIKELY(!agent_rr_mode) || (agent_rr_mode & RR_MODE_SERIAL) ||
	    !(t = agent_rr_io_enter())) {
		agent_rr_testcancel_real();
		return;
	}
	if (agent_rr_mode & RR_MODE_REPLAY) {
		if (agent_rr_rep_next_cancel(RR_CALL_TESTCANCEL))
			agent_rr_rep_cancel_input("pthread_testcancel");
		return;
	}
	{
		struct agent_rr_cancel_guard g = {t, RR_CALL_TESTCANCEL, 0, 0, NULL};

		AGENT_RR_CANCEL_PUSH(&g);
		agent_rr_testcancel_real();
		AGENT_RR_CANCEL_POP();
	}
}

/*
 * Serial mode: the asynchronous cancel type is emulated
 * (agent_serial_set_async): glibc's cancellation signal would unwind the
 * thread wherever it lands, in the agent's wait for the run token too, and
 * at a moment a replay cannot reproduce. Acted on at the thread's next
 * switch point instead (a moment POSIX allows: "at any time").
 */
AGENT_EXPORT int pthread_setcanceltype(int type, int *old)
{
	static int (*real_type)(int, int *);
	int was;

	if (AGENT_UNLIKELY(agent_rr_mode & RR_MODE_SERIAL) && agent_self.state == AGENT_T_ON &&
	    (type == PTHREAD_CANCEL_ASYNCHRONOUS || type == PTHREAD_CANCEL_DEFERRED) &&
	    (was = agent_serial_set_async(type == PTHREAD_CANCEL_ASYNCHRONOUS)) >= 0) {
		if (old)
			*old = was ? PTHREAD_CANCEL_ASYNCHRONOUS : PTHREAD_CANCEL_DEFERRED;
		return 0;
	}
	if (!real_type) {
		int e = errno;

		agent_self.busy++;
		AGENT_RESOLVE(real_type, "pthread_setcanceltype");
		agent_self.busy--;
		errno = e;
		if (!real_type)
			return EINVAL;
	}
	return real_type(type, old);
}

/* A replay restored from a snapshot that held the thread out in a blocking
 * call glibc makes a cancellation point (agent_serial_out_saved): glibc's
 * asynchronous-cancel bit is as the call had set it at the take (in the
 * kernel), and the call never returns to clear it; a pthread_cancel would
 * act at once. Deferred again, as serial mode keeps it. */
void agent_rr_cancel_deferred(void)
{
	static int (*real_type)(int, int *);
	int e = errno, old;

	if (!real_type) {
		agent_self.busy++;
		AGENT_RESOLVE(real_type, "pthread_setcanceltype");
		agent_self.busy--;
	}
	if (real_type)
		real_type(PTHREAD_CANCEL_DEFERRED, &old);
	errno = e;
}
