// SPDX-License-Identifier: MIT
/*
 * agent_rr_sevthread.c - SIGEV_THREAD timers while recording or replaying
 * in sync mode: the timer's function runs in a thread spool numbers, at
 * points the log orders (doc/record.md "SIGEV_THREAD timers").
 *
 * glibc runs a SIGEV_THREAD timer's function in a thread of its own helper,
 * made by its internal pthread_create, which no interposer sees: the thread
 * had no number, its calls were not recorded ("a thread spool could not
 * number made recorded calls"), and a sync replay diverged at once (the
 * function's lock and printf turns were missing).
 *
 * Here timer_create of a SIGEV_THREAD timer, in a thread the agent
 * numbered, makes a notifier thread through the agent's own pthread_create
 * (numbered in the program's creation order, in the recording and the
 * replay alike) and a kernel timer that sends SEV_SIG to that thread alone
 * (SIGEV_THREAD_ID), which blocks it from its first instruction (the
 * creator blocks it around the creation; the new thread inherits the
 * mask). The notifier waits with sigwaitinfo, a recorded input: each
 * expiry (si_code SI_TIMER) calls the function with the timer's value, in
 * the notifier thread (glibc makes a thread per expiry: one at a time
 * here, as if each started after the last ended). timer_delete deletes the
 * kernel timer, then pthread_kill sends SEV_SIG to the notifier (a recorded
 * send; si_code SI_TKILL), which ends. A replay answers the sigwaitinfo
 * from the log: the function runs after the recorded expiries, whatever
 * the replay's own timer does (its signals stay pending in the blocked
 * notifier, or are dropped by the replay's quieting of waited signals).
 * The arm (timer_settime) counts as a send of SEV_SIG (agent_rr_timer.c),
 * so a sync replay's receipt waits for the arm that caused it.
 *
 * Sync mode only. In serial mode the notifier would need the run token to
 * run the function, and the usual function sets a flag that a thread
 * computing without a switch point polls (vim's search timeout): that
 * thread would keep the token for good, and the recording stopped stuck.
 * Serial mode keeps glibc's way: the function runs outside the schedule,
 * called through sev_ser_fn, and a recording whose function reaches a
 * switch point is stopped and refused (below, sev_ser_create).
 *
 * timer_getoverrun is an input (agent_rr_timer.c). The program's own
 * SEV_SIG sent to the process and taken by a notifier goes back to the
 * process (sev_forward). Not covered: a SIGEV_THREAD timer created in a
 * thread spool could not number or past SEV_SLOTS timers at once (glibc's
 * way, as before).
 *
 * Agent rules: no malloc (a fixed table, slots claimed by compare-and-
 * swap); the creator's mask is changed with raw rt_sigprocmask (the
 * interposed one may be a probe's); errno as the real calls leave it.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "agent_rr.h"
#include "agent_serial.h"

#define SEV_SLOTS 256 /* timers at once: a thread each (was 32: rr_sevmany makes 40) */
/* The notifiers' signal: SIGRTMAX, the last one, which programs rarely use
 * (64 on Linux; the constant, not glibc's __libc_current_sigrtmax()). */
#define SEV_SIG 64

/* A slot is claimed by timer_create, live while its timer exists, ended by
 * timer_delete, and freed by its notifier as it ends (which reads the slot
 * at its start: a slot freed by timer_delete could be another timer's by
 * then). */
enum { SEV_FREE = 0, SEV_CLAIMED, SEV_LIVE, SEV_ENDED };

struct sev_slot {
	uint32_t state; /* SEV_* */
	void (*fn)(union sigval);
	union sigval value;
	timer_t id; /* the kernel timer */
	pthread_t th; /* its notifier */
};

static struct sev_slot sev_slots[SEV_SLOTS];

static struct sev_slot *sev_claim(void)
{
	for (int i = 0; i < SEV_SLOTS; i++) {
		uint32_t z = SEV_FREE;

		if (__atomic_compare_exchange_n(&sev_slots[i].state, &z, SEV_CLAIMED, 0,
						__ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			return &sev_slots[i];
	}
	return NULL;
}

static struct sev_slot *sev_find(timer_t id)
{
	for (int i = 0; i < SEV_SLOTS; i++)
		if (__atomic_load_n(&sev_slots[i].state, __ATOMIC_ACQUIRE) == SEV_LIVE &&
		    sev_slots[i].id == id)
			return &sev_slots[i];
	return NULL;
}

/*
 * The program's own SEV_SIG, sent to the process (kill, sigqueue), which
 * the kernel gave the notifier because it waits for that signal too: a
 * program that waits for SIGRTMAX itself (sigwaitinfo, a signalfd) or
 * handles it lost it, and the notifier ended as if its timer were deleted.
 * Recording, it goes back to the process with the same siginfo
 * (rt_sigqueueinfo to itself keeps any si_code), then the notifier sleeps
 * 1 ms so that a thread of the program waiting for it takes it rather than
 * the notifier again (it would only come round once more). A replay
 * forwards nothing: the notifier's waits and the program's return what
 * they returned when recorded.
 */
static void sev_forward(siginfo_t *si)
{
	struct timespec ms = {0, 1000000};

	if (agent_rr_mode & RR_MODE_REPLAY)
		return;
	si->si_signo = SEV_SIG;
	syscall(SYS_rt_sigqueueinfo, (pid_t)syscall(SYS_getpid), SEV_SIG, si);
	syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, &ms, NULL);
}

/* The notifier: each expiry runs the function; the send of timer_delete
 * (pthread_kill: SI_TKILL) ends it, and it frees its slot. Anything else
 * is the program's (sev_forward). */
static void *sev_notifier(void *arg)
{
	struct sev_slot *s = arg;
	void (*fn)(union sigval) = s->fn;
	union sigval v = s->value;
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SEV_SIG);
	for (;;) {
		siginfo_t si;
		int r;

		memset(&si, 0, sizeof(si));
		r = sigwaitinfo(&set, &si);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			break; /* (a recorded failure: nothing more will come) */
		}
		if (r == SEV_SIG && si.si_code != SI_TIMER && si.si_code != SI_TKILL) {
			sev_forward(&si);
			continue;
		}
		if (r != SEV_SIG || si.si_code != SI_TIMER)
			break; /* timer_delete's send */
		fn(v);
	}
	__atomic_store_n(&s->state, SEV_FREE, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * Serial mode: glibc's way, watched while recording. The timer's function is called
 * through sev_ser_fn, which marks its thread (agent_rr_sev_fn) for the
 * length of the call: the thread's first switch point (a lock, an input
 * call, a thread call, a progress point) stops the recording with a report
 * naming the function and its timer_create (agent_rr_sev_stop): glibc
 * starts that thread when the kernel's timer fires, so where it takes part
 * in the schedule is not the program's doing, and a replay diverged ("a
 * different switch point"). A function that makes no such call (vim's,
 * which sets a flag) records and replays as before.
 *
 * The table is never freed (a thread glibc started for an expiry may call
 * in after timer_delete, even much later): SEV_SER_SLOTS timers a process;
 * past them a timer is glibc's way, unwatched, as before.
 */
#define SEV_SER_SLOTS 256

struct sev_ser {
	void (*fn)(union sigval);
	union sigval value;
	uint64_t site; /* timer_create's call site */
};

static struct sev_ser sev_ser[SEV_SER_SLOTS];
static uint32_t sev_ser_next;
__thread uint32_t agent_rr_sev_fn;

static void sev_ser_fn(union sigval v)
{
	uintptr_t i = (uintptr_t)v.sival_ptr;
	const struct sev_ser *s;
	uint32_t outer = agent_rr_sev_fn;

	if (i >= SEV_SER_SLOTS)
		return; /* (only sev_ser_create makes these values) */
	s = &sev_ser[i];
	agent_rr_sev_fn = (uint32_t)i + 1;
	/* the next switch point takes the slow path, which looks at the mark
	 * (the count cannot pass the limit without it: the limit is at least
	 * count + 1 between switch points) */
	if (agent_serial_on == RR_MODE_RECORD)
		agent_ser.limit = agent_ser.count + 1;
	s->fn(s->value);
	agent_rr_sev_fn = outer;
}

/* The first switch point of a marked thread (agent_serial.c, serial
 * record). */
void agent_rr_sev_switch(void)
{
	uint32_t i = agent_rr_sev_fn;

	if (!i || i > SEV_SER_SLOTS)
		return;
	agent_rr_sev_stop((uint64_t)(uintptr_t)sev_ser[i - 1].fn, sev_ser[i - 1].site);
}

static int sev_ser_create(clockid_t clock, const struct sigevent *sev, timer_t *id,
			  int (*real_create)(clockid_t, struct sigevent *, timer_t *), uint64_t site)
{
	struct sigevent k = *sev;
	uint32_t i = __atomic_fetch_add(&sev_ser_next, 1, __ATOMIC_RELAXED);

	if (i >= SEV_SER_SLOTS)
		return -ENOSYS; /* glibc's way, unwatched */
	/* written before the timer exists: no thread of it can read them
	 * earlier (timer_create's thread creation orders them) */
	sev_ser[i].fn = sev->sigev_notify_function;
	sev_ser[i].value = sev->sigev_value;
	sev_ser[i].site = site;
	k.sigev_notify_function = sev_ser_fn;
	k.sigev_value.sival_ptr = (void *)(uintptr_t)i;
	return real_create(clock, &k, id);
}

int agent_rr_sev_thread_create(clockid_t clock, const struct sigevent *sev, timer_t *id,
			       int (*real_create)(clockid_t, struct sigevent *, timer_t *),
			       uint64_t site)
{
	struct sigevent k;
	struct sev_slot *s;
	uint64_t one = 1ull << (SEV_SIG - 1), old = 0;
	pid_t tid;
	int r, e;

	/* (a serial replay calls the function the same way: the same frames
	 * under it as recorded) */
	if (sev && sev->sigev_notify == SIGEV_THREAD && sev->sigev_notify_function &&
	    agent_serial_on)
		return sev_ser_create(clock, sev, id, real_create, site);
	if (!sev || sev->sigev_notify != SIGEV_THREAD || !id || !agent_rr_numbered() ||
	    (agent_rr_mode & RR_MODE_SERIAL) || !sev->sigev_notify_function ||
	    !(s = sev_claim()))
		return -ENOSYS; /* glibc's way */
	s->fn = sev->sigev_notify_function;
	s->value = sev->sigev_value;
	/* blocked in the notifier from its first instruction: a timer signal
	 * that reached it unblocked would end the process */
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, &one, &old, sizeof(one));
	r = pthread_create(&s->th, sev->sigev_notify_attributes, sev_notifier, s);
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &old, NULL, sizeof(old));
	if (r) {
		__atomic_store_n(&s->state, SEV_FREE, __ATOMIC_RELEASE);
		errno = r; /* (EAGAIN: timer_create's error too) */
		return -1;
	}
	pthread_detach(s->th); /* (EINVAL if the attributes made it detached) */
	tid = agent_thread_tid_of(s->th);
	memset(&k, 0, sizeof(k));
	k.sigev_notify = SIGEV_THREAD_ID;
	k.sigev_signo = SEV_SIG;
	k.sigev_value = sev->sigev_value;
	k._sigev_un._tid = tid;
	r = tid > 0 ? real_create(clock, &k, id) : (errno = ESRCH, -1);
	e = errno;
	if (r) {
		/* no timer: the notifier is told to end as timer_delete would */
		__atomic_store_n(&s->state, SEV_ENDED, __ATOMIC_RELEASE);
		pthread_kill(s->th, SEV_SIG);
		errno = e;
		return -1;
	}
	s->id = *id;
	__atomic_store_n(&s->state, SEV_LIVE, __ATOMIC_RELEASE);
	errno = e;
	return 0;
}

int agent_rr_sev_thread_sig(timer_t id)
{
	return sev_find(id) ? SEV_SIG : 0;
}

void agent_rr_sev_thread_deleted(timer_t id, int rc)
{
	struct sev_slot *s = sev_find(id);
	int e = errno;

	if (!s || rc)
		return;
	__atomic_store_n(&s->state, SEV_ENDED, __ATOMIC_RELEASE);
	pthread_kill(s->th, SEV_SIG);
	errno = e;
}
