// SPDX-License-Identifier: MIT
/*
 * agent_snap_timer.c - the POSIX timers (timer_create) of a snapshot
 * (doc/record.md, "Snapshots" and "Replay from a snapshot").
 *
 * A timer belongs to the process, not to its memory: the copy a snapshot
 * makes (a clone, like fork) has none, and a replay restored from a
 * snapshot had none either, while the program's memory held the ids of
 * the recording's timers: Ruby's timer_delete at exit failed, its cleanup
 * raised, and the replay wrote to stderr what the recording had not
 * (tests/real/142-ruby-all.t).
 *
 * Taking: the token's holder, before its clone (every other numbered thread
 * parked), reads /proc/self/timers (each timer's id, signal, sigev_value,
 * notification and target, clock) and each one's setting (timer_gettime)
 * into a table in the agent's memory, which the copy writes as TIMER
 * records (agent_snap_img.c). A few microseconds: one read of a small file.
 *
 * Restoring (in the replay's first thread, agent_snap_restore.c): the fresh
 * process's own timers are deleted (the snapshot's are the program's at
 * that point), then each of the snapshot's is made again with its id:
 * - from Linux 6.16, PR_TIMER_CREATE_RESTORE_IDS makes timer_create take
 *   the id it is given (the interface CRIU asked for);
 * - before, the kernel hands out ids in increasing order per process
 *   (since Linux 3.10), so the timers are made in the order of their ids,
 *   with fillers for the ids in between, deleted at the end. An id below
 *   the process's next one cannot be had: such a timer is made with
 *   another id and counted as not matched.
 * A timer that signals a thread (SIGEV_THREAD_ID) signals the same thread
 * of the replay (its new tid); one whose thread is not in the snapshot
 * (glibc's helper thread of SIGEV_THREAD timers, which spool does not
 * number in serial mode) signals the process instead, and one on a
 * thread's CPU clock of a thread not in it gets the process's CPU clock:
 * both counted as not matched. What is left of each armed timer is armed
 * again (relative; an expiry in a replay is dropped like every signal the
 * kernel sends it); overrun counts and signals queued by a timer are not
 * put back.
 *
 * Signal safety: the taker and the restore use raw system calls and the
 * agent's static buffers only; the taker is the only thread running user
 * code then (serial mode), the restore's first thread the only one running.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../replay/rr_snap_fmt.h"
#include "agent_snap.h"

#ifndef PR_TIMER_CREATE_RESTORE_IDS
#define PR_TIMER_CREATE_RESTORE_IDS 77 /* linux/prctl.h, Linux 6.16 */
#define PR_TIMER_CREATE_RESTORE_IDS_OFF 0
#define PR_TIMER_CREATE_RESTORE_IDS_ON 1
#endif
#ifndef SIGEV_THREAD_ID
#define SIGEV_THREAD_ID 4
#endif

#define TM_BUF (48u << 10) /* /proc/self/timers: some 90 bytes a timer */
#define TM_FILLERS 1024	   /* ids skipped over, at most, without the prctl */

static char tm_buf[TM_BUF];
/* The taker's table (the copy writes it), or the snapshot's (a restore). */
static struct rr_snap_timer tm_tab[AGENT_SNAP_TIMERS];
static uint32_t tm_n, tm_over;
static int32_t tm_fill[TM_FILLERS];

/* A decimal number at *s (a leading '-' taken), *s left after it. */
static int64_t tm_dec(const char **s)
{
	int64_t v = 0;
	int neg = **s == '-';

	*s += neg;
	while (**s >= '0' && **s <= '9')
		v = v * 10 + (*(*s)++ - '0');
	return neg ? -v : v;
}

static int tm_starts(const char *s, const char *word)
{
	size_t n = strlen(word);

	return !memcmp(s, word, n);
}

/* /proc/self/timers into tm_buf; returns its length (0: none, or no file:
 * a kernel without CONFIG_CHECKPOINT_RESTORE). */
static size_t tm_read(void)
{
	long fd = syscall(SYS_openat, AT_FDCWD, "/proc/self/timers", O_RDONLY | O_CLOEXEC);
	size_t len = 0;

	if (fd < 0) {
		agent_log("snapshot: no /proc/self/timers (a kernel without "
			  "CONFIG_CHECKPOINT_RESTORE): the POSIX timers cannot be listed");
		return 0;
	}
	while (len < TM_BUF - 1) {
		long r = syscall(SYS_read, fd, tm_buf + len, TM_BUF - 1 - len);

		if (r <= 0)
			break;
		len += (size_t)r;
	}
	syscall(SYS_close, fd);
	tm_buf[len] = 0;
	return len;
}

/* Parse tm_buf into out (at most max entries); *over counts those past it.
 * The kernel writes, per timer: "ID: %d", "signal: %d/%px", "notify:
 * KIND/pid.%d" (or tid.), "ClockID: %d". */
static uint32_t tm_parse(struct rr_snap_timer *out, uint32_t max, uint32_t *over)
{
	const char *s = tm_buf;
	uint32_t n = 0;
	struct rr_snap_timer *t = NULL;

	*over = 0;
	while (*s) {
		const char *eol = strchr(s, '\n');

		if (tm_starts(s, "ID: ")) {
			s += 4;
			if (n < max) {
				t = &out[n++];
				memset(t, 0, sizeof(*t));
				t->id = (int32_t)tm_dec(&s);
			} else {
				t = NULL;
				(*over)++;
			}
		} else if (t && tm_starts(s, "signal: ")) {
			s += 8;
			t->signo = (int32_t)tm_dec(&s);
			if (*s == '/')
				s++, t->value = agent_snap_hex(&s);
		} else if (t && tm_starts(s, "notify: ")) {
			s += 8;
			t->notify = tm_starts(s, "none")     ? SIGEV_NONE
				    : tm_starts(s, "thread") ? SIGEV_THREAD
							     : SIGEV_SIGNAL;
			while (*s && *s != '/' && *s != '\n')
				s++;
			if (tm_starts(s, "/tid.")) {
				s += 5;
				t->notify |= SIGEV_THREAD_ID;
				t->tid = (int32_t)tm_dec(&s);
			}
		} else if (t && tm_starts(s, "ClockID: ")) {
			s += 9;
			t->clock = (int32_t)tm_dec(&s);
		}
		if (!eol)
			break;
		s = eol + 1;
	}
	return n;
}

void agent_snap_timers_take(void)
{
	tm_n = 0;
	tm_over = 0;
	if (!tm_read())
		return;
	tm_n = tm_parse(tm_tab, AGENT_SNAP_TIMERS, &tm_over);
	for (uint32_t i = 0; i < tm_n; i++) {
		struct rr_snap_timer *t = &tm_tab[i];
		struct itimerspec its;

		if (syscall(SYS_timer_gettime, t->id, &its) < 0)
			continue; /* (not the program's any more) */
		t->value_ns = (int64_t)its.it_value.tv_sec * 1000000000 + its.it_value.tv_nsec;
		t->interval_ns =
		    (int64_t)its.it_interval.tv_sec * 1000000000 + its.it_interval.tv_nsec;
		t->armed = t->value_ns != 0;
	}
}

uint32_t agent_snap_timers(const struct rr_snap_timer **tab, uint32_t *over)
{
	*tab = tm_tab;
	*over = tm_over;
	return tm_n;
}

/* ---- restoring ---- */

void agent_snap_timers_reset(void)
{
	tm_n = 0;
	tm_over = 0;
}

int agent_snap_timers_put(const struct rr_snap_timer *t)
{
	if (tm_n >= AGENT_SNAP_TIMERS || t->id < 0)
		return -EINVAL;
	tm_tab[tm_n++] = *t;
	return 0;
}

/* Its sigevent and clock in the replay: *off set when its target thread or
 * its thread CPU clock's thread is not in the snapshot. */
static void tm_sigevent(const struct rr_snap_timer *t, int32_t (*tid_of)(int32_t),
			struct sigevent *sev, clockid_t *clk, int *off)
{
	memset(sev, 0, sizeof(*sev));
	sev->sigev_notify = t->notify;
	sev->sigev_signo = t->signo;
	sev->sigev_value.sival_ptr = (void *)(uintptr_t)t->value;
	if (t->notify & SIGEV_THREAD_ID) {
		int32_t tid = tid_of(t->tid);

		if (tid > 0) {
			sev->_sigev_un._tid = tid;
		} else {
			sev->sigev_notify &= ~SIGEV_THREAD_ID;
			*off = 1;
		}
	}
	*clk = t->clock;
	/* A CPU clock (negative): ~pid << 3 | kind, bit 2 a thread's. pid 0
	 * is the caller's own process (as it was) or the thread that made
	 * the timer (not known: the replay's first thread's); another pid is
	 * the recorded tid of a thread (the first thread's is the pid). */
	if (t->clock < 0) {
		int32_t pid = ~(t->clock >> 3), tid;

		if (!pid) {
			*off |= (t->clock & 4) != 0;
		} else if ((tid = tid_of(pid)) > 0) {
			*clk =
			    (clockid_t)(int32_t)(((uint32_t)~tid << 3) | ((uint32_t)t->clock & 7));
		} else {
			*clk = CLOCK_PROCESS_CPUTIME_ID;
			*off = 1;
		}
	}
}

static long tm_create(clockid_t clk, struct sigevent *sev, int32_t *id)
{
	return syscall(SYS_timer_create, clk, sev, id);
}

/* Without PR_TIMER_CREATE_RESTORE_IDS: made until the kernel hands out id
 * (the ones before it kept as fillers, *nfill of them). Returns 0, or -1
 * when id cannot be had (the process's next id is past it, or too many
 * fillers): the timer is not made. */
static int tm_make_in_order(const struct rr_snap_timer *t, clockid_t clk, struct sigevent *sev,
			    uint32_t *nfill)
{
	for (;;) {
		int32_t got = -1;

		if (tm_create(clk, sev, &got) < 0)
			return -1;
		if (got == t->id)
			return 0;
		if (got > t->id || *nfill >= TM_FILLERS) {
			syscall(SYS_timer_delete, got);
			errno = ERANGE;
			return -1;
		}
		tm_fill[(*nfill)++] = got;
	}
}

int agent_snap_timers_restore(int32_t (*tid_of)(int32_t), int in_order, uint32_t *made,
			      uint32_t *off)
{
	struct rr_snap_timer fresh[64];
	uint32_t nfresh, over, nfill = 0;
	int exact = 0;

	*made = 0;
	*off = 0;
	/* the fresh process's own timers (a library's constructor): the
	 * snapshot's are the program's from here on */
	if (tm_read()) {
		nfresh = tm_parse(fresh, 64, &over);
		for (uint32_t i = 0; i < nfresh; i++)
			syscall(SYS_timer_delete, fresh[i].id);
	}
	if (!tm_n)
		return 0;
	/* in the order of their ids (the fillers' way needs it) */
	for (uint32_t i = 1; i < tm_n; i++)
		for (uint32_t j = i; j > 0 && tm_tab[j - 1].id > tm_tab[j].id; j--) {
			struct rr_snap_timer x = tm_tab[j];

			tm_tab[j] = tm_tab[j - 1];
			tm_tab[j - 1] = x;
		}
	if (!in_order && syscall(SYS_prctl, PR_TIMER_CREATE_RESTORE_IDS,
				 PR_TIMER_CREATE_RESTORE_IDS_ON, 0, 0, 0) == 0)
		exact = 1;
	for (uint32_t i = 0; i < tm_n; i++) {
		const struct rr_snap_timer *t = &tm_tab[i];
		struct sigevent sev;
		clockid_t clk;
		int moved = 0, rc;
		int32_t id = t->id;

		tm_sigevent(t, tid_of, &sev, &clk, &moved);
		if (exact)
			rc = tm_create(clk, &sev, &id) < 0 ? -1 : 0;
		else
			rc = tm_make_in_order(t, clk, &sev, &nfill);
		if (rc < 0) {
			agent_log("restore: timer %d (clock %d, notify %d, signal %d) not made "
				  "with its id: %d",
				  t->id, t->clock, t->notify, t->signo, errno);
			(*off)++;
			continue;
		}
		(*made)++;
		*off += moved;
		if (t->armed) {
			struct itimerspec its = {
			    {t->interval_ns / 1000000000, t->interval_ns % 1000000000},
			    {t->value_ns / 1000000000, t->value_ns % 1000000000}};

			syscall(SYS_timer_settime, t->id, 0, &its, NULL);
		}
		agent_log("restore: timer %d made (clock %d, notify %d, signal %d%s%s)", t->id,
			  (int)clk, sev.sigev_notify, t->signo, t->armed ? ", armed" : "",
			  moved ? ", its thread not in the snapshot" : "");
	}
	if (exact)
		syscall(SYS_prctl, PR_TIMER_CREATE_RESTORE_IDS, PR_TIMER_CREATE_RESTORE_IDS_OFF, 0,
			0, 0);
	for (uint32_t i = 0; i < nfill; i++)
		syscall(SYS_timer_delete, tm_fill[i]);
	return 0;
}
