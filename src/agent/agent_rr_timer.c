// SPDX-License-Identifier: MIT
/*
 * agent_rr_timer.c - arming a timer is a send of its signal, in sync mode
 * (doc/record.md "Signals order threads in sync mode"): setitimer, alarm,
 * ualarm and timer_settime.
 *
 * A timer armed by one thread expires into another's sigwait, signalfd
 * read or handler. The kernel sends the signal, not the program: no send
 * was counted, so a sync replay returned the recorded sigwait or read at
 * once, before the thread that armed the timer had armed it (and before
 * what it did first). So an arm (a new value that is not zero) counts as a
 * send of the timer's signal (agent_rr_sig_sent: the receipt's recorded
 * count of sends makes a replayed receipt wait for it) and as a write
 * (agent_rr_wake_write: a read of a signalfd, or a poll that found one
 * ready, waits for it). Counted before the real call, so whoever gets the
 * expiry sees the count; in the recording and the replay alike (a replay
 * arms its timers for real: the signals the kernel sends it are dropped or
 * drained, agent_rr_signal.c).
 *
 * timer_settime needs the timer's signal: timer_create notes it in a
 * small table (TM_SLOTS timers; one past it counts as a write only).
 * SIGEV_THREAD timers, while recording or replaying in sync mode, send
 * SIGRTMAX to a notifier thread spool numbers (agent_rr_sevthread.c),
 * noted here like any other timer's signal; in serial mode their function
 * runs in a thread glibc makes, outside the schedule: only the write is
 * counted (and a function that takes a lock stops the recording,
 * agent_rr_sevthread.c).
 *
 * timer_getoverrun is an input (RR_CALL_TIMER_OVERRUN): the kernel counts
 * the expiries of the replay's own timer, whose signals the replay drops
 * or drains, so a replay gives back the recorded count.
 *
 * Agent rules: errno as the real call leaves it; the table is lock-free
 * (a slot is claimed with a compare-and-swap); the real functions are
 * found at startup, raw system calls until then.
 */
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "agent_rr.h"

#define TM_SLOTS 512

static int (*real_setitimer)(__itimer_which_t, const struct itimerval *, struct itimerval *);
static unsigned (*real_alarm)(unsigned);
static useconds_t (*real_ualarm)(useconds_t, useconds_t);
static int (*real_timer_create)(clockid_t, struct sigevent *, timer_t *);
static int (*real_timer_settime)(timer_t, int, const struct itimerspec *, struct itimerspec *);
static int (*real_timer_delete)(timer_t);
static int (*real_timer_getoverrun)(timer_t);

__attribute__((constructor)) static void agent_rr_timer_resolve(void)
{
	AGENT_RESOLVE(real_setitimer, "setitimer");
	AGENT_RESOLVE(real_alarm, "alarm");
	AGENT_RESOLVE(real_ualarm, "ualarm");
	AGENT_RESOLVE(real_timer_create, "timer_create");
	AGENT_RESOLVE(real_timer_settime, "timer_settime");
	AGENT_RESOLVE(real_timer_delete, "timer_delete");
	AGENT_RESOLVE(real_timer_getoverrun, "timer_getoverrun");
}

/* timer_create's timers: id + 1 (0: a free slot) and the signal (0: none) */
static uintptr_t tm_id[TM_SLOTS];
static int tm_sig[TM_SLOTS];

static void tm_note(timer_t id, int sig)
{
	uintptr_t want = (uintptr_t)id + 1;

	for (int i = 0; i < TM_SLOTS; i++) {
		uintptr_t cur = __atomic_load_n(&tm_id[i], __ATOMIC_ACQUIRE);

		/* (the kernel reuses a deleted timer's id: the slot is its) */
		if (cur == want ||
		    (!cur && __atomic_compare_exchange_n(&tm_id[i], &cur, want, 0, __ATOMIC_ACQ_REL,
							 __ATOMIC_RELAXED))) {
			__atomic_store_n(&tm_sig[i], sig, __ATOMIC_RELEASE);
			return;
		}
	}
}

static int tm_sig_of(timer_t id)
{
	uintptr_t want = (uintptr_t)id + 1;

	for (int i = 0; i < TM_SLOTS; i++)
		if (__atomic_load_n(&tm_id[i], __ATOMIC_ACQUIRE) == want)
			return __atomic_load_n(&tm_sig[i], __ATOMIC_ACQUIRE);
	return 0;
}

/* An arm of a timer whose expiry sends sig (0: none, or not known) */
static void tm_armed(int sig)
{
	int e = errno;

	if (sig > 0 && sig < 65)
		agent_rr_sig_sent(sig);
	agent_rr_wake_write();
	errno = e;
}

/* (glibc's prototype: an enum under _GNU_SOURCE) */
AGENT_EXPORT int setitimer(__itimer_which_t which, const struct itimerval *nv,
			   struct itimerval *ov)
{
	if (AGENT_UNLIKELY(agent_rr_mode) && nv &&
	    (nv->it_value.tv_sec || nv->it_value.tv_usec))
		tm_armed(which == ITIMER_REAL ? SIGALRM : which == ITIMER_VIRTUAL ? SIGVTALRM
						    : which == ITIMER_PROF  ? SIGPROF
									    : 0);
	if (real_setitimer)
		return real_setitimer(which, nv, ov);
	return (int)syscall(SYS_setitimer, which, nv, ov);
}

AGENT_EXPORT unsigned alarm(unsigned secs)
{
	if (AGENT_UNLIKELY(agent_rr_mode) && secs)
		tm_armed(SIGALRM);
	if (real_alarm)
		return real_alarm(secs);
#ifdef SYS_alarm
	return (unsigned)syscall(SYS_alarm, secs);
#else
	/* (aarch64 has no alarm call: glibc makes it of setitimer) */
	{
		struct itimerval nv = {{0, 0}, {(time_t)secs, 0}}, ov;

		if (syscall(SYS_setitimer, ITIMER_REAL, &nv, &ov) < 0)
			return 0;
		return (unsigned)ov.it_value.tv_sec + (ov.it_value.tv_usec >= 500000 ||
						       (!ov.it_value.tv_sec && ov.it_value.tv_usec));
	}
#endif
}

AGENT_EXPORT useconds_t ualarm(useconds_t usecs, useconds_t interval)
{
	struct itimerval nv = {{0, 0}, {0, 0}}, ov;

	if (AGENT_UNLIKELY(agent_rr_mode) && usecs)
		tm_armed(SIGALRM);
	if (real_ualarm)
		return real_ualarm(usecs, interval);
	nv.it_interval.tv_sec = interval / 1000000, nv.it_interval.tv_usec = interval % 1000000;
	nv.it_value.tv_sec = usecs / 1000000, nv.it_value.tv_usec = usecs % 1000000;
	if (syscall(SYS_setitimer, ITIMER_REAL, &nv, &ov))
		return (useconds_t)-1;
	return (useconds_t)(ov.it_value.tv_sec * 1000000 + ov.it_value.tv_usec);
}

static int tm_real_create(clockid_t clock, struct sigevent *sev, timer_t *id)
{
	int r, kid = -1;

	if (real_timer_create)
		return real_timer_create(clock, sev, id);
	r = (int)syscall(SYS_timer_create, clock, sev, &kid);
	if (!r && id)
		*id = (timer_t)(intptr_t)kid;
	return r;
}

AGENT_EXPORT int timer_create(clockid_t clock, struct sigevent *sev, timer_t *id)
{
	int r, e, sig = SIGALRM; /* no sigevent: SIGEV_SIGNAL with SIGALRM */

	/* SIGEV_THREAD: a notifier thread spool numbers (agent_rr_sevthread.c) */
	if (AGENT_UNLIKELY(agent_rr_mode) && sev && sev->sigev_notify == SIGEV_THREAD) {
		r = agent_rr_sev_thread_create(clock, sev, id, tm_real_create, AGENT_RET_IP());
		if (r != -ENOSYS) {
			e = errno;
			if (!r)
				tm_note(*id, agent_rr_sev_thread_sig(*id));
			errno = e;
			return r;
		}
	}
	r = tm_real_create(clock, sev, id);
	if (r || !id || !AGENT_UNLIKELY(agent_rr_mode))
		return r;
	e = errno;
	if (sev && sev->sigev_notify != SIGEV_SIGNAL && sev->sigev_notify != SIGEV_THREAD_ID)
		sig = 0;
	else if (sev)
		sig = sev->sigev_signo;
	tm_note(*id, sig);
	errno = e;
	return r;
}

AGENT_EXPORT int timer_settime(timer_t id, int flags, const struct itimerspec *nv,
			       struct itimerspec *ov)
{
	if (AGENT_UNLIKELY(agent_rr_mode) && nv &&
	    (nv->it_value.tv_sec || nv->it_value.tv_nsec))
		tm_armed(tm_sig_of(id));
	if (real_timer_settime)
		return real_timer_settime(id, flags, nv, ov);
	return (int)syscall(SYS_timer_settime, (int)(intptr_t)id, flags, nv, ov);
}

/* A SIGEV_THREAD timer's notifier ends (agent_rr_sevthread.c). */
AGENT_EXPORT int timer_delete(timer_t id)
{
	int r;

	if (real_timer_delete)
		r = real_timer_delete(id);
	else
		r = (int)syscall(SYS_timer_delete, (int)(intptr_t)id);
	if (AGENT_UNLIKELY(agent_rr_mode))
		agent_rr_sev_thread_deleted(id, r);
	return r;
}

/* An input: the recorded count in a replay (see the top of the file). */
AGENT_EXPORT int timer_getoverrun(timer_t id)
{
	struct agent_thread *t;
	int r, e;

	if (AGENT_LIKELY(!agent_rr_mode) || !(t = agent_rr_io_enter())) {
		if (real_timer_getoverrun)
			return real_timer_getoverrun(id);
		return (int)syscall(SYS_timer_getoverrun, (int)(intptr_t)id);
	}
	if (agent_rr_mode & RR_MODE_REPLAY)
		return (int)agent_rr_rep_input(t, RR_CALL_TIMER_OVERRUN, -1, NULL, 0, NULL);
	r = real_timer_getoverrun ? real_timer_getoverrun(id)
				  : (int)syscall(SYS_timer_getoverrun, (int)(intptr_t)id);
	e = errno;
	agent_rr_rec_input(t, RR_CALL_TIMER_OVERRUN, -1, r, r < 0 ? e : 0, 0, NULL, 0);
	errno = e;
	return r;
}
