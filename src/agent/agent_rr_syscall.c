// SPDX-License-Identifier: MIT
/*
 * agent_rr_syscall.c - record/replay of input system calls a program makes
 * through glibc's syscall() function instead of the named wrappers
 * (syscall(SYS_getrandom, ...), syscall(SYS_read, ...)): while recording or
 * replaying, syscall() sends the numbers the agent records to the agent's
 * own interposer of that call (so they are recorded and replayed like the
 * named call), counts them, and the count is reported by spool record.
 * Everything else, and every call made from the agent's own code (which
 * uses syscall() for futexes and raw clocks on purpose), goes to the real
 * syscall() unchanged. The numbers (rr_direct): read, pread64, readv,
 * recvfrom, recvmsg, accept, accept4, poll, ppoll, select, pselect6,
 * epoll_wait, epoll_pwait, epoll_pwait2, rt_sigtimedwait, pause, rt_sigsuspend,
 * clock_gettime, gettimeofday, time, getrandom, getpid, gettid, nanosleep,
 * clock_nanosleep, write, writev, sched_yield, getdents64, readlink,
 * readlinkat, the socket calls of agent_rr_sock.c (socket, socketpair,
 * connect, bind, listen, shutdown, setsockopt, getsockopt, getsockname,
 * getpeername, recvmmsg, sendmmsg), sysinfo. In serial mode a futex wait
 * made through syscall() is emulated as a yield (agent_rr_futex_wait). A
 * `syscall` instruction in
 * the program's own code (inline assembly, a Go runtime) is caught by
 * syscall user dispatch (agent_rr_dispatch.c), whose SIGSYS handler uses
 * rr_direct() too.
 *
 * Until dlsym ran (another library's constructor calling syscall() before
 * ours), the fallback makes the system call with inline assembly.
 */
#include <dlfcn.h>
#include <errno.h>
#include <dirent.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "agent_probe.h"
#include "agent_futex.h"
#include "agent_rawsys.h"
#include "agent_rr.h"
#include "agent_rr_dispatch.h"

#if defined(__x86_64__)
extern __thread volatile unsigned char agent_sud_sel
	__attribute__((visibility("hidden"), tls_model("initial-exec")));
#endif

/* Used before libc's syscall() is resolved (the constructors' early
 * gettid). This instruction is outside libc's text, so with dispatch on it
 * would raise SIGSYS; the handler would run it correctly, but gdb stops at
 * every SIGSYS, so the selector lets the agent's own call through. */
static long rr_raw_syscall(long n, long a, long b, long c, long d, long e, long f)
{
	long r;
#if defined(__x86_64__)
	unsigned char sel = agent_sud_sel;

	agent_sud_sel = 0; /* SYSCALL_DISPATCH_FILTER_ALLOW */
	r = agent_rawsys(n, a, b, c, d, e, f);
	agent_sud_sel = sel;
#else
	r = agent_rawsys(n, a, b, c, d, e, f);
#endif
	if (r < 0 && r > -4096) {
		errno = (int)-r;
		return -1;
	}
	return r;
}

static long (*real_syscall)(long, ...);

__attribute__((constructor)) static void agent_rr_syscall_resolve(void)
{
	int saved;
	void *p;

	/* busy first: reading errno calls __errno_location, which a func:
	 * probe of libc may have patched (the agent's own call, not the
	 * program's) */
	agent_self.busy++;
	saved = errno;
	p = dlsym(RTLD_NEXT, "syscall");
	if (p)
		__atomic_store_n((void **)&real_syscall, p, __ATOMIC_RELAXED);
	errno = saved;
	agent_self.busy--;
}

static long rr_pass(long n, const long *a)
{
	long (*fn)(long, ...) = __atomic_load_n(&real_syscall, __ATOMIC_RELAXED);

	if (fn)
		return fn(n, a[0], a[1], a[2], a[3], a[4], a[5]);
	return rr_raw_syscall(n, a[0], a[1], a[2], a[3], a[4], a[5]);
}

/* An input call the agent records, made through syscall(): the named
 * interposer's result in syscall()'s convention (-1 and errno). */
static long rr_direct(long n, const long *a, int *handled)
{
	*handled = 1;
	switch (n) {
	case SYS_read:
		return read((int)a[0], (void *)a[1], (size_t)a[2]);
	case SYS_pread64:
		return pread64((int)a[0], (void *)a[1], (size_t)a[2], (off_t)a[3]);
	case SYS_readv:
		return readv((int)a[0], (const struct iovec *)a[1], (int)a[2]);
	case SYS_recvfrom:
		return recvfrom((int)a[0], (void *)a[1], (size_t)a[2], (int)a[3],
				(struct sockaddr *)a[4], (socklen_t *)a[5]);
	case SYS_recvmsg:
		return recvmsg((int)a[0], (struct msghdr *)a[1], (int)a[2]);
	case SYS_accept:
		return accept((int)a[0], (struct sockaddr *)a[1], (socklen_t *)a[2]);
	case SYS_accept4:
		return accept4((int)a[0], (struct sockaddr *)a[1], (socklen_t *)a[2], (int)a[3]);
#ifdef SYS_poll
	case SYS_poll:
		return poll((struct pollfd *)a[0], (nfds_t)a[1], (int)a[2]);
#endif
#ifdef SYS_select
	case SYS_select:
		return select((int)a[0], (fd_set *)a[1], (fd_set *)a[2], (fd_set *)a[3],
			      (struct timeval *)a[4]);
#endif
#ifdef SYS_epoll_wait
	case SYS_epoll_wait:
		return epoll_wait((int)a[0], (struct epoll_event *)a[1], (int)a[2], (int)a[3]);
#endif
	/* The mask-taking forms: only with the kernel's sigset size (another
	 * size fails with EINVAL, which the raw call gives). The remaining
	 * time the kernel writes back into a ppoll or pselect6 timeout is not
	 * (libc's ppoll and pselect pass it a copy). */
	case SYS_ppoll:
		if (a[3] && a[4] != _NSIG / 8)
			break;
		return ppoll((struct pollfd *)a[0], (nfds_t)a[1], (const struct timespec *)a[2],
			     (const sigset_t *)a[3]);
	case SYS_pselect6: {
		/* The sixth argument: {const sigset_t *, size_t}, or NULL. */
		const unsigned long *d = (const unsigned long *)a[5];
		const sigset_t *m = d ? (const sigset_t *)d[0] : NULL;

		if (m && d[1] != _NSIG / 8)
			break;
		return pselect((int)a[0], (fd_set *)a[1], (fd_set *)a[2], (fd_set *)a[3],
			       (const struct timespec *)a[4], m);
	}
	case SYS_epoll_pwait:
		if (a[4] && a[5] != _NSIG / 8)
			break;
		return epoll_pwait((int)a[0], (struct epoll_event *)a[1], (int)a[2], (int)a[3],
				   (const sigset_t *)a[4]);
#ifdef SYS_epoll_pwait2
	case SYS_epoll_pwait2:
		if (a[4] && a[5] != _NSIG / 8)
			break;
		return epoll_pwait2((int)a[0], (struct epoll_event *)a[1], (int)a[2],
				    (const struct timespec *)a[3], (const sigset_t *)a[4]);
#endif
	case SYS_rt_sigtimedwait:
		if (a[3] != _NSIG / 8)
			break;
		return sigtimedwait((const sigset_t *)a[0], (siginfo_t *)a[1],
				    (const struct timespec *)a[2]);
#ifdef SYS_pause
	case SYS_pause:
		return pause();
#endif
	case SYS_rt_sigsuspend:
		if (a[1] != _NSIG / 8)
			break;
		return sigsuspend((const sigset_t *)a[0]);
	case SYS_clock_gettime:
		return clock_gettime((clockid_t)a[0], (struct timespec *)a[1]);
	case SYS_gettimeofday:
		return gettimeofday((struct timeval *)a[0], (void *)a[1]);
#ifdef SYS_time
	case SYS_time:
		return time((time_t *)a[0]);
#endif
	case SYS_getrandom:
		return getrandom((void *)a[0], (size_t)a[1], (unsigned)a[2]);
	case SYS_getpid:
		return getpid();
	case SYS_gettid:
		return gettid();
	case SYS_nanosleep:
		return nanosleep((const struct timespec *)a[0], (struct timespec *)a[1]);
	case SYS_clock_nanosleep: {
		int r = clock_nanosleep((clockid_t)a[0], (int)a[1], (const struct timespec *)a[2],
					(struct timespec *)a[3]);

		if (r) {
			errno = r;
			return -1;
		}
		return 0;
	}
	case SYS_write:
		return write((int)a[0], (const void *)a[1], (size_t)a[2]);
	case SYS_writev:
		return writev((int)a[0], (const struct iovec *)a[1], (int)a[2]);
	case SYS_sched_yield:
		return sched_yield();
	case SYS_getdents64:
		return getdents64((int)a[0], (void *)a[1], (size_t)a[2]);
	case SYS_readlinkat:
		return readlinkat((int)a[0], (const char *)a[1], (char *)a[2], (size_t)a[3]);
#ifdef SYS_readlink
	case SYS_readlink:
		return readlink((const char *)a[0], (char *)a[1], (size_t)a[2]);
#endif
	case SYS_socket:
		return socket((int)a[0], (int)a[1], (int)a[2]);
	case SYS_socketpair:
		return socketpair((int)a[0], (int)a[1], (int)a[2], (int *)a[3]);
	case SYS_connect:
		return connect((int)a[0], (const struct sockaddr *)a[1], (socklen_t)a[2]);
	case SYS_bind:
		return bind((int)a[0], (const struct sockaddr *)a[1], (socklen_t)a[2]);
	case SYS_listen:
		return listen((int)a[0], (int)a[1]);
	case SYS_shutdown:
		return shutdown((int)a[0], (int)a[1]);
	case SYS_setsockopt:
		return setsockopt((int)a[0], (int)a[1], (int)a[2], (const void *)a[3],
				  (socklen_t)a[4]);
	case SYS_getsockopt:
		return getsockopt((int)a[0], (int)a[1], (int)a[2], (void *)a[3], (socklen_t *)a[4]);
	case SYS_getsockname:
		return getsockname((int)a[0], (struct sockaddr *)a[1], (socklen_t *)a[2]);
	case SYS_getpeername:
		return getpeername((int)a[0], (struct sockaddr *)a[1], (socklen_t *)a[2]);
	case SYS_recvmmsg:
		return recvmmsg((int)a[0], (struct mmsghdr *)a[1], (unsigned)a[2], (int)a[3],
				(struct timespec *)a[4]);
	case SYS_sendmmsg:
		return sendmmsg((int)a[0], (struct mmsghdr *)a[1], (unsigned)a[2], (int)a[3]);
	case SYS_sysinfo:
		return sysinfo((struct sysinfo *)a[0]);
	}
	*handled = 0;
	return 0;
}

long agent_rr_syscall_route(long n, const long *a, int *handled)
{
	return rr_direct(n, a, handled);
}

/* A fork through syscall(): SYS_fork, or SYS_clone or clone3 without
 * CLONE_VM (clone3 takes its flags from the program's memory). A child
 * with a stack of its own returns into code the program put on it, not
 * through agent_thread_raw_fork: it starts over on its first event
 * (agent_thread_forking); one with a TLS of its own has the agent's
 * state there (agent_thread_register). */
/* *flags: the clone flags (0 for fork) */
static int rr_is_raw_fork(long n, const long *a, unsigned long *flags)
{
	*flags = 0;
#ifdef SYS_fork
	if (n == SYS_fork)
		return 1;
#endif
	if (n == SYS_clone) {
		*flags = (unsigned long)a[0];
		return !(a[0] & CLONE_VM);
	}
#ifdef SYS_clone3
	/* struct clone_args: flags at 0, stack at 40, read as a copy through
	 * the kernel (a bad pointer the program passes gets EFAULT from
	 * clone3, never a fault here); only when the size says the program
	 * passed them all (64: version 0). The pid from the kernel: a
	 * replay's getpid() returns the recorded one (and a recording's
	 * records it, a call the program did not make). */
	if (n == SYS_clone3 && (unsigned long)a[1] >= 64) {
		uint64_t ca[8];
		struct iovec l = {ca, sizeof(ca)}, r = {(void *)a[0], sizeof(ca)};

		if (syscall(SYS_process_vm_readv, syscall(SYS_getpid), &l, 1L, &r, 1L, 0L) !=
		    (long)sizeof(ca))
			return 0;
		*flags = ca[0];
		return !(ca[0] & CLONE_VM);
	}
#endif
	return 0;
}

struct rr_fork_call {
	long n;
	const long *a;
};

static long rr_fork_pass(void *arg)
{
	const struct rr_fork_call *c = arg;

	return rr_pass(c->n, c->a);
}

/* glibc's syscall() passes six registers whatever the call takes; so do
 * we (reading unused variadic slots is what every syscall() wrapper does). */
AGENT_EXPORT long syscall(long n, ...)
{
	const char *ra = (const char *)(uintptr_t)AGENT_RET_IP(); /* the program's, past a stub */
	unsigned long cflags;
	long a[6], r;
	va_list ap;
	int handled, i;

	va_start(ap, n);
	for (i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	/* The program's raw mask change: int3 probes keep SIGTRAP unblocked
	 * (agent_probe.c; the agent's own calls pass). */
	if (AGENT_UNLIKELY(n == SYS_rt_sigprocmask) && !agent_own_text(ra) &&
	    agent_probe_trap_live() && a[3] == 8) {
		int e = agent_probe_sigmask((int)a[0], (const sigset_t *)a[1], (sigset_t *)a[2], 1);

		if (e) {
			errno = e;
			return -1;
		}
		return 0;
	}
	/* Before the agent's constructor: jemalloc reads /proc and /sys
	 * through syscall(SYS_read) in the first malloc (agent_rr_early.c). */
	if (AGENT_UNLIKELY(!agent_rr_started) && (n == SYS_read || n == SYS_getrandom) &&
	    !agent_own_text(ra))
		return n == SYS_read ? agent_rr_early_read((int)a[0], (void *)a[1], (size_t)a[2])
				     : agent_rr_early_getrandom((void *)a[0], (size_t)a[1],
								(unsigned)a[2]);
	/* GLib's, Rust's, ... locks: futex waits and wakes (agent_futex.c). */
	if (AGENT_UNLIKELY(n == SYS_futex) && !agent_rr_mode &&
	    !agent_own_text(ra))
		return agent_futex_call(a, (uint64_t)(uintptr_t)ra, __builtin_frame_address(0),
					rr_pass);
	/* A fork no fork handler sees: the child keeps out of the parent's
	 * ring (agent_thread_raw_fork) and starts on its own; recording or
	 * replaying, it is numbered and recorded as fork's child is. */
	if (AGENT_UNLIKELY(rr_is_raw_fork(n, a, &cflags)) && !agent_own_text(ra)) {
		struct rr_fork_call c = {n, a};

		if (agent_rr_mode)
			return agent_rr_raw_fork(rr_fork_pass, &c, cflags);
		return agent_thread_raw_fork(rr_fork_pass, &c, cflags);
	}
	if (AGENT_LIKELY(!agent_rr_mode) || agent_own_text(ra) ||
	    agent_self.busy)
		return rr_pass(n, a);
	/* Serial mode: a futex wait would keep the run token in the kernel
	 * (GLib's locks); not counted as an input call. Sync mode does not
	 * order them: counted, and the recording is refused by the replay. */
	if (n == SYS_futex) {
		if ((agent_rr_mode & RR_MODE_SERIAL) && agent_rr_futex_wait(a, &r))
			return r;
		agent_rr_note_futex();
	}
	r = rr_direct(n, a, &handled);
	if (!handled)
		return rr_pass(n, a);
	agent_rr_note_direct(n);
	return r;
}
