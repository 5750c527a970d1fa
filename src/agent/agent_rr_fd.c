// SPDX-License-Identifier: MIT
/*
 * agent_rr_fd.c - the calls that allocate or free descriptors, ordered in
 * the descriptor table in sync mode (agent_rr_fdtab_enter/leave, agent_rr.h;
 * doc/record.md "Descriptor numbers"): dup, dup2, dup3, fcntl's F_DUPFD and
 * F_DUPFD_CLOEXEC, pipe, pipe2, socketpair, eventfd, epoll_create,
 * epoll_create1, timerfd_create, memfd_create, inotify_init, inotify_init1,
 * the mkstemp family, and the stdio calls whose open and close glibc makes
 * inside libc, where no interposer sees them: fopen, tmpfile, fclose.
 *
 * The other descriptor calls are ordered where they are interposed
 * already: open, openat, creat (agent_rr_fs.c), close and close_range
 * (agent_sys.c), accept (agent_rr_io.c), signalfd (agent_rr_signal.c).
 *
 * Every interposer here is the real call between enter and leave, and
 * nothing else while record/replay is off (one test of agent_rr_mode).
 * The real functions are found at startup; until then (another library's
 * constructor), the raw system calls stand in, or dlsym is asked at the
 * first call for the stdio ones.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "agent_rr.h"

/* The fdtab's enter when record/replay is on, else 0: the call is plain. */
#define FD_ENTER(call) (AGENT_UNLIKELY(agent_rr_mode) ? agent_rr_fdtab_enter(call) : 0)

static int fb_dup(int fd)
{
	return (int)syscall(SYS_dup, fd);
}
static int fb_dup2(int a, int b)
{
	return (int)arch_sys_dup2(a, b);
}
static int fb_dup3(int a, int b, int f)
{
	return (int)syscall(SYS_dup3, a, b, f);
}
static int fb_pipe2(int p[2], int f)
{
	return (int)syscall(SYS_pipe2, p, f);
}
static int fb_pipe(int p[2])
{
	return fb_pipe2(p, 0);
}
static int fb_socketpair(int d, int t, int p, int sv[2])
{
	return (int)syscall(SYS_socketpair, d, t, p, sv);
}
static int fb_eventfd(unsigned n, int f)
{
	return (int)syscall(SYS_eventfd2, n, f);
}
static int fb_epoll_create1(int f)
{
	return (int)syscall(SYS_epoll_create1, f);
}
static int fb_epoll_create(int n)
{
	return n <= 0 ? (errno = EINVAL, -1) : fb_epoll_create1(0);
}
static int fb_timerfd_create(int c, int f)
{
	return (int)syscall(SYS_timerfd_create, c, f);
}
static int fb_timerfd_settime(int fd, int f, const struct itimerspec *n, struct itimerspec *o)
{
	return (int)syscall(SYS_timerfd_settime, fd, f, n, o);
}
static int fb_memfd_create(const char *n, unsigned f)
{
	return (int)syscall(SYS_memfd_create, n, f);
}
static int fb_inotify_init1(int f)
{
	return (int)syscall(SYS_inotify_init1, f);
}
static int fb_inotify_init(void)
{
	return fb_inotify_init1(0);
}
static int fb_fcntl(int fd, int cmd, void *arg)
{
	return (int)syscall(SYS_fcntl, fd, cmd, arg);
}

static int (*real_dup)(int) = fb_dup;
static int (*real_dup2)(int, int) = fb_dup2;
static int (*real_dup3)(int, int, int) = fb_dup3;
static int (*real_pipe)(int[2]) = fb_pipe;
static int (*real_pipe2)(int[2], int) = fb_pipe2;
static int (*real_socketpair)(int, int, int, int[2]) = fb_socketpair;
static int (*real_eventfd)(unsigned, int) = fb_eventfd;
static int (*real_epoll_create)(int) = fb_epoll_create;
static int (*real_epoll_create1)(int) = fb_epoll_create1;
static int (*real_timerfd_create)(int, int) = fb_timerfd_create;
static int (*real_timerfd_settime)(int, int, const struct itimerspec *,
				   struct itimerspec *) = fb_timerfd_settime;
static int (*real_memfd_create)(const char *, unsigned) = fb_memfd_create;
static int (*real_inotify_init)(void) = fb_inotify_init;
static int (*real_inotify_init1)(int) = fb_inotify_init1;
static int (*real_fcntl)(int, int, ...) = (int (*)(int, int, ...))fb_fcntl;
static FILE *(*real_fopen)(const char *, const char *);
static FILE *(*real_tmpfile)(void);
static FILE *(*real_freopen)(const char *, const char *, FILE *);
static FILE *(*real_popen)(const char *, const char *);
static int (*real_pclose)(FILE *);
static int (*real_fflush)(FILE *); /* (resolved: the agent imports no stdio) */
static int (*real_fclose)(FILE *);
static int (*real_mkstemp)(char *);
static int (*real_mkostemp)(char *, int);
static int (*real_mkstemps)(char *, int);
static int (*real_mkostemps)(char *, int, int);

__attribute__((constructor)) static void agent_rr_fd_resolve(void)
{
	agent_self.busy++;
	AGENT_RESOLVE(real_dup, "dup");
	AGENT_RESOLVE(real_dup2, "dup2");
	AGENT_RESOLVE(real_dup3, "dup3");
	AGENT_RESOLVE(real_pipe, "pipe");
	AGENT_RESOLVE(real_pipe2, "pipe2");
	AGENT_RESOLVE(real_socketpair, "socketpair");
	AGENT_RESOLVE(real_eventfd, "eventfd");
	AGENT_RESOLVE(real_epoll_create, "epoll_create");
	AGENT_RESOLVE(real_epoll_create1, "epoll_create1");
	AGENT_RESOLVE(real_timerfd_create, "timerfd_create");
	AGENT_RESOLVE(real_timerfd_settime, "timerfd_settime");
	AGENT_RESOLVE(real_memfd_create, "memfd_create");
	AGENT_RESOLVE(real_inotify_init, "inotify_init");
	AGENT_RESOLVE(real_inotify_init1, "inotify_init1");
	/* glibc 2.28+: fcntl64 is the call whose F_GETLK etc. take struct
	 * flock64 on every ABI; on x86-64 both are the same function */
	AGENT_RESOLVE(real_fcntl, "fcntl64");
	if ((void *)real_fcntl == (void *)fb_fcntl)
		AGENT_RESOLVE(real_fcntl, "fcntl");
	AGENT_RESOLVE(real_fopen, "fopen");
	AGENT_RESOLVE(real_tmpfile, "tmpfile");
	AGENT_RESOLVE(real_freopen, "freopen");
	AGENT_RESOLVE(real_popen, "popen");
	AGENT_RESOLVE(real_pclose, "pclose");
	AGENT_RESOLVE(real_fflush, "fflush");
	AGENT_RESOLVE(real_fclose, "fclose");
	AGENT_RESOLVE(real_mkstemp, "mkstemp");
	AGENT_RESOLVE(real_mkostemp, "mkostemp");
	AGENT_RESOLVE(real_mkstemps, "mkstemps");
	AGENT_RESOLVE(real_mkostemps, "mkostemps");
	agent_self.busy--;
}

/* The stdio and mkstemp functions have no system call to stand in for
 * them: before the constructor ran, ask dlsym (busy: it may allocate). */
static void *fd_lazy(void *cur, const char *name)
{
	void *p;

	if (cur)
		return cur;
	agent_self.busy++;
	p = dlsym(RTLD_NEXT, name);
	agent_self.busy--;
	return p;
}
#define FD_REAL(var, name) ((var) ? (var) : ((var) = fd_lazy((void *)(var), name)))

/* ---- dup ---- */

AGENT_EXPORT int dup(int fd)
{
	uint32_t on = FD_ENTER(RR_FD_DUP);
	int r = real_dup(fd);

	return on ? agent_rr_fdtab_leave(r, &fd) : r;
}

/* dup2 and dup3 replace the target number: ordered as a call that frees
 * one (its turn comes before the kernel frees it). */
AGENT_EXPORT int dup2(int fd, int to)
{
	uint32_t on = fd != to ? FD_ENTER(RR_FD_DUP2) : 0;
	int r = real_dup2(fd, to);

	return on ? agent_rr_fdtab_leave(r, &fd) : r;
}

AGENT_EXPORT int dup3(int fd, int to, int flags)
{
	uint32_t on = FD_ENTER(RR_FD_DUP2);
	int r = real_dup3(fd, to, flags);

	return on ? agent_rr_fdtab_leave(r, &fd) : r;
}

/* fcntl takes one argument of any kind after cmd: passed on as a pointer,
 * as glibc's own fcntl reads it. Only F_DUPFD and F_DUPFD_CLOEXEC make a
 * descriptor; every other command is the plain call. */
AGENT_EXPORT int fcntl(int fd, int cmd, ...)
{
	va_list ap;
	void *arg;
	uint32_t on;
	int r;

	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (AGENT_LIKELY(cmd != F_DUPFD && cmd != F_DUPFD_CLOEXEC))
		return real_fcntl(fd, cmd, arg);
	on = FD_ENTER(RR_FD_DUP);
	r = real_fcntl(fd, cmd, arg);
	return on ? agent_rr_fdtab_leave(r, &fd) : r;
}

AGENT_EXPORT int fcntl64(int fd, int cmd, ...) __attribute__((alias("fcntl"), copy(fcntl)));

/* ---- pipes and pairs: two descriptors ---- */

static int fd_two(uint32_t on, int r, int p[2])
{
	int second;

	if (!on)
		return r;
	second = r == 0 ? p[1] : -1;
	r = agent_rr_fdtab_leave(r == 0 ? p[0] : r, &second);
	if (r < 0)
		return -1;
	p[0] = r;
	p[1] = second;
	return 0;
}

AGENT_EXPORT int pipe(int p[2])
{
	uint32_t on = FD_ENTER(RR_FD_PIPE);

	return fd_two(on, real_pipe(p), p);
}

AGENT_EXPORT int pipe2(int p[2], int flags)
{
	uint32_t on = FD_ENTER(RR_FD_PIPE);

	return fd_two(on, real_pipe2(p, flags), p);
}

/* ---- one new descriptor ---- */

#define FD_ONE(call, expr)                                                                         \
	do {                                                                                       \
		uint32_t on_ = FD_ENTER(call);                                                     \
		int r_ = (expr);                                                                   \
		return on_ ? agent_rr_fdtab_leave(r_, NULL) : r_;                                  \
	} while (0)

AGENT_EXPORT int eventfd(unsigned n, int flags)
{
	FD_ONE(RR_FD_EVENTFD, real_eventfd(n, flags));
}

/*
 * glibc's eventfd_read and eventfd_write call its own __read and __write,
 * which no interposer sees: the value read was not recorded (a replay read
 * the eventfd for real) and the write was no wake-up edge in sync mode.
 * These make the same calls through the agent's read and write (the
 * preloaded agent's symbols come first), which record them.
 */
AGENT_EXPORT int eventfd_read(int fd, eventfd_t *value)
{
	return read(fd, value, sizeof(*value)) != (ssize_t)sizeof(*value) ? -1 : 0;
}

AGENT_EXPORT int eventfd_write(int fd, eventfd_t value)
{
	return write(fd, &value, sizeof(value)) != (ssize_t)sizeof(value) ? -1 : 0;
}

AGENT_EXPORT int epoll_create(int size)
{
	FD_ONE(RR_FD_EPOLL, real_epoll_create(size));
}

AGENT_EXPORT int epoll_create1(int flags)
{
	FD_ONE(RR_FD_EPOLL, real_epoll_create1(flags));
}

AGENT_EXPORT int timerfd_create(int clock, int flags)
{
	FD_ONE(RR_FD_TIMERFD, real_timerfd_create(clock, flags));
}

/* Not an input (a replay arms its timer for real, and the reads and waits
 * that see it expire are replayed): counted as a write in sync mode, the
 * readiness another thread's loop gets when the timer expires comes after
 * it (agent_rr.c, RR_CALL_WAKE). */
AGENT_EXPORT int timerfd_settime(int fd, int flags, const struct itimerspec *n,
				 struct itimerspec *o)
{
	if (AGENT_UNLIKELY(agent_rr_mode))
		agent_rr_wake_write();
	return real_timerfd_settime(fd, flags, n, o);
}

AGENT_EXPORT int memfd_create(const char *name, unsigned flags)
{
	FD_ONE(RR_FD_MEMFD, real_memfd_create(name, flags));
}

AGENT_EXPORT int inotify_init(void)
{
	FD_ONE(RR_FD_OTHER, real_inotify_init());
}

AGENT_EXPORT int inotify_init1(int flags)
{
	FD_ONE(RR_FD_OTHER, real_inotify_init1(flags));
}

/* mkstemp and its forms open inside libc: the whole call is ordered. */
AGENT_EXPORT int mkstemp(char *tmpl)
{
	FD_ONE(RR_FD_MKSTEMP,
	       FD_REAL(real_mkstemp, "mkstemp") ? real_mkstemp(tmpl) : (errno = ENOSYS, -1));
}

AGENT_EXPORT int mkostemp(char *tmpl, int flags)
{
	FD_ONE(RR_FD_MKSTEMP, FD_REAL(real_mkostemp, "mkostemp") ? real_mkostemp(tmpl, flags)
								 : (errno = ENOSYS, -1));
}

AGENT_EXPORT int mkstemps(char *tmpl, int suffix)
{
	FD_ONE(RR_FD_MKSTEMP, FD_REAL(real_mkstemps, "mkstemps") ? real_mkstemps(tmpl, suffix)
								 : (errno = ENOSYS, -1));
}

AGENT_EXPORT int mkostemps(char *tmpl, int suffix, int flags)
{
	FD_ONE(RR_FD_MKSTEMP, FD_REAL(real_mkostemps, "mkostemps")
				  ? real_mkostemps(tmpl, suffix, flags)
				  : (errno = ENOSYS, -1));
}

AGENT_EXPORT int mkstemp64(char *tmpl) __attribute__((alias("mkstemp"), copy(mkstemp)));
AGENT_EXPORT int mkostemp64(char *tmpl, int flags)
    __attribute__((alias("mkostemp"), copy(mkostemp)));
AGENT_EXPORT int mkstemps64(char *tmpl, int suffix)
    __attribute__((alias("mkstemps"), copy(mkstemps)));
AGENT_EXPORT int mkostemps64(char *tmpl, int suffix, int flags)
    __attribute__((alias("mkostemps"), copy(mkostemps)));

/* ---- stdio ---- */

/* A FILE that fopen or tmpfile made, at its turn: the replay's leave puts
 * its descriptor at the recorded number, which the FILE must hold (glibc's
 * struct _IO_FILE: _fileno). A recorded failure closes what this replay
 * opened and fails as recorded. */
/* A FILE with output not yet written (stdio's writes are recorded,
 * agent_rr_stdio.c) is flushed before its close takes its turn: inside
 * glibc's close the write would come after the turn was taken and before
 * it is recorded, in another order in the log than a replay checks. */
static void fd_flush_first(FILE *f)
{
	if (!AGENT_UNLIKELY(agent_rr_mode) || !f || f->_IO_write_ptr <= f->_IO_write_base)
		return;
	/* sync mode, threads made: in the stream's turn, so its write is
	 * routed and recorded, stdout's in its place among the other writes
	 * to 1 and 2 (coreutils' close_stdout fcloses stdout at exit) */
	if (agent_rr_stdio_flushes)
		agent_rr_stdio_flush(f);
	else if (real_fflush)
		real_fflush(f);
}

static FILE *fd_file(uint32_t on, FILE *f)
{
	int fd, e;

	if (!on)
		return f;
	fd = agent_rr_fdtab_leave(f ? f->_fileno : -1, NULL);
	if (fd < 0) {
		if (f) {
			e = errno;
			real_fclose(f);
			errno = e;
		}
		return NULL;
	}
	if (f)
		f->_fileno = fd;
	return f;
}

AGENT_EXPORT FILE *fopen(const char *path, const char *mode)
{
	uint32_t on;

	if (!FD_REAL(real_fopen, "fopen")) {
		errno = ENOSYS;
		return NULL;
	}
	on = FD_ENTER(RR_FD_FOPEN);
	return fd_file(on, real_fopen(path, mode));
}

AGENT_EXPORT FILE *fopen64(const char *path, const char *mode)
    __attribute__((alias("fopen"), copy(fopen)));

AGENT_EXPORT FILE *tmpfile(void)
{
	uint32_t on;

	if (!FD_REAL(real_tmpfile, "tmpfile")) {
		errno = ENOSYS;
		return NULL;
	}
	on = FD_ENTER(RR_FD_FOPEN);
	return fd_file(on, real_tmpfile());
}

AGENT_EXPORT FILE *tmpfile64(void) __attribute__((alias("tmpfile"), copy(tmpfile)));

/* freopen closes the stream's descriptor and opens the file, at the same
 * number when the stream had one (glibc moves it there): one call that
 * makes a descriptor, ordered whole like fopen. */
AGENT_EXPORT FILE *freopen(const char *path, const char *mode, FILE *f)
{
	uint32_t on;

	if (!FD_REAL(real_freopen, "freopen")) {
		errno = ENOSYS;
		return NULL;
	}
	fd_flush_first(f);
	on = FD_ENTER(RR_FD_FOPEN);
	return fd_file(on, real_freopen(path, mode, f));
}

AGENT_EXPORT FILE *freopen64(const char *path, const char *mode, FILE *f)
    __attribute__((alias("freopen"), copy(freopen)));

/* popen makes a pipe inside libc and keeps one end, the FILE's (the
 * child's image is recorded as a spawned process: agent_rr_proc.c); pclose
 * frees it and waits for the child, whose status it returns (the real one
 * in a replay too: the replayed child ends as recorded). */
AGENT_EXPORT FILE *popen(const char *cmd, const char *mode)
{
	uint32_t on;
	FILE *f;

	if (!FD_REAL(real_popen, "popen")) {
		errno = ENOSYS;
		return NULL;
	}
	on = FD_ENTER(RR_FD_FOPEN);
	f = fd_file(on, real_popen(cmd, mode));
	/* its stream's reads (and serial mode's writes) through the agent */
	if (f && agent_rr_mode)
		agent_rr_stdio_adopt(f);
	return f;
}

AGENT_EXPORT int pclose(FILE *f)
{
	int fd = f ? f->_fileno : -1;
	uint32_t on;
	int r, e;

	if (!FD_REAL(real_pclose, "pclose")) {
		errno = ENOSYS;
		return -1;
	}
	fd_flush_first(f);
	on = fd >= 0 && fd != agent_shm_fd ? FD_ENTER(RR_FD_FCLOSE) : 0;
	r = real_pclose(f);
	e = errno;
	if (on && agent_rr_fdtab_leave(r < 0 ? -1 : 0, &fd) < 0)
		return -1;
	errno = e;
	return r;
}

/* fclose frees the FILE's descriptor (a FILE without one, fmemopen's or
 * fopencookie's, is not ordered). */
AGENT_EXPORT int fclose(FILE *f)
{
	int fd = f ? f->_fileno : -1;
	uint32_t on;
	int r;

	if (!FD_REAL(real_fclose, "fclose")) {
		errno = ENOSYS;
		return EOF;
	}
	fd_flush_first(f);
	on = fd >= 0 && fd != agent_shm_fd ? FD_ENTER(RR_FD_FCLOSE) : 0;
	/* the close inside is a wake-up like close's (a peer's end of file:
	 * agent_rr.c, RR_CALL_WAKE) */
	if (on)
		agent_rr_wake_write();
	r = real_fclose(f);
	return on ? agent_rr_fdtab_leave(r, &fd) : r;
}
