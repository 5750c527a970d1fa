// SPDX-License-Identifier: MIT
/*
 * agent_rr_kstate.c - what the kernel says a thread of this process is
 * doing, for the replay's stuck reports (agent_rr.c rr_stuck).
 *
 * A thread that holds the next turn of an object but replays nothing may be
 * blocked (in a futex, a read: the kernel state is S or D and the thread is
 * in a system call) or starved (state R: runnable, waiting for a CPU other
 * programs hold) or running user code in a loop (R, no system call). The
 * report says which, from /proc/self/task/TID/stat (state, CPU time),
 * .../syscall (the call it is in) and .../wchan (where the kernel sleeps).
 *
 * Called only on the way to a report (the replay stops after it), never in
 * a signal handler; still, no malloc, no stdio: raw openat/read/close on a
 * stack buffer (descriptors the agent opens this way take no turn of the
 * descriptor table, agent_rr_fd.c).
 */
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "agent_rr.h"

/* /proc/self/task/TID/NAME into buf (agent_proc_read). */
static long rr_ks_read(int32_t tid, const char *name, char *buf, size_t cap)
{
	char path[64];
	struct rr_buf p = {path, 0, sizeof(path)};

	rr_puts(&p, "/proc/self/task/");
	rr_putu(&p, (uint64_t)(uint32_t)tid);
	rr_puts(&p, "/");
	rr_puts(&p, name);
	return agent_proc_read(path, buf, cap);
}

static uint64_t rr_ks_num(const char *s)
{
	uint64_t v = 0;

	while (s && *s >= '0' && *s <= '9')
		v = v * 10 + (uint64_t)(*s++ - '0');
	return v;
}

static const char *rr_ks_state_name(char c)
{
	switch (c) {
	case 'R':
		return "running or runnable";
	case 'S':
		return "sleeping";
	case 'D':
		return "in an uninterruptible wait";
	case 'T':
	case 't':
		return "stopped";
	case 'Z':
	case 'X':
		return "dead";
	default:
		return "?";
	}
}

/* The calls a stuck holder is likely to be in, by name (the others by
 * number). */
static const char *rr_ks_call_name(uint64_t nr)
{
	switch (nr) {
	case SYS_futex:
		return "futex";
	case SYS_read:
		return "read";
	case SYS_write:
		return "write";
#ifdef SYS_poll /* (not on aarch64) */
	case SYS_poll:
		return "poll";
#endif
	case SYS_ppoll:
		return "ppoll";
#ifdef SYS_epoll_wait /* (not on aarch64) */
	case SYS_epoll_wait:
		return "epoll_wait";
#endif
	case SYS_epoll_pwait:
		return "epoll_pwait";
	case SYS_nanosleep:
		return "nanosleep";
	case SYS_clock_nanosleep:
		return "clock_nanosleep";
	case SYS_sched_yield:
		return "sched_yield";
	case SYS_wait4:
		return "wait4";
	case SYS_accept:
		return "accept";
	case SYS_accept4:
		return "accept4";
	case SYS_recvfrom:
		return "recvfrom";
	case SYS_recvmsg:
		return "recvmsg";
#ifdef SYS_select /* (not on aarch64) */
	case SYS_select:
		return "select";
#endif
	case SYS_pselect6:
		return "pselect6";
	case SYS_rt_sigtimedwait:
		return "rt_sigtimedwait";
	case SYS_rt_sigsuspend:
		return "rt_sigsuspend";
#ifdef SYS_pause /* (not on aarch64) */
	case SYS_pause:
		return "pause";
#endif
	case SYS_openat:
		return "openat";
	default:
		return NULL;
	}
}

/*
 * Describe thread tid of this process into out: "kernel: state S
 * (sleeping), in system call 202 (futex), wchan futex_wait_queue, 3 ticks
 * of CPU time". What /proc does not give is left out; a thread that is
 * gone says so. Returns the length written.
 */
size_t agent_rr_kstate(int32_t tid, char *out, size_t cap)
{
	struct rr_buf b = {out, 0, cap};
	char stat[512], sc[160], wchan[96];
	const char *f;
	long n;

	if (!cap)
		return 0;
	out[0] = 0;
	if (tid <= 0) {
		rr_puts(&b, "kernel state unknown (no thread id)");
		return b.n;
	}
	rr_puts(&b, "kernel: tid ");
	rr_putu(&b, (uint64_t)(uint32_t)tid);
	n = rr_ks_read(tid, "stat", stat, sizeof(stat));
	if (n < 0) {
		rr_puts(&b, " gone from /proc");
		return b.n;
	}
	f = agent_proc_stat_field(stat, 3);
	if (f) {
		char st[2] = {*f, 0};

		rr_puts(&b, ", state ");
		rr_puts(&b, st);
		rr_puts(&b, " (");
		rr_puts(&b, rr_ks_state_name(*f));
		rr_puts(&b, ")");
	}
	n = rr_ks_read(tid, "syscall", sc, sizeof(sc));
	if (n > 0) {
		if (!strncmp(sc, "running", 7)) {
			rr_puts(&b, ", on a CPU");
		} else if (sc[0] == '-') {
			rr_puts(&b, ", in user space (no system call)");
		} else if (sc[0] >= '0' && sc[0] <= '9') {
			uint64_t nr = rr_ks_num(sc);
			const char *name = rr_ks_call_name(nr);

			rr_puts(&b, ", in system call ");
			rr_putu(&b, nr);
			if (name) {
				rr_puts(&b, " (");
				rr_puts(&b, name);
				rr_puts(&b, ")");
			}
		}
	}
	n = rr_ks_read(tid, "wchan", wchan, sizeof(wchan));
	if (n > 0 && strcmp(wchan, "0")) {
		rr_puts(&b, ", wchan ");
		rr_puts(&b, wchan);
	}
	/* utime + stime (fields 14, 15), in clock ticks: a thread that gains
	 * none between two reports never ran */
	f = agent_proc_stat_field(stat, 14);
	if (f) {
		rr_puts(&b, ", ");
		rr_putu(&b, rr_ks_num(f) + rr_ks_num(agent_proc_stat_field(stat, 15)));
		rr_puts(&b, " ticks of CPU time");
	}
	return b.n;
}
