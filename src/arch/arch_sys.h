// SPDX-License-Identifier: MIT
/*
 * arch_sys.h - the raw system calls the agent makes that x86-64 has and
 * aarch64 does not: aarch64 (like every architecture since) has only the
 * *at, 2/3, p* and clone forms. On x86-64 each is the same syscall() the
 * call site made before; on aarch64 the equivalent call with the same
 * result and errno.
 *
 * For the agent's raw paths (fallbacks before dlsym, signal handlers, a
 * snapshot's copy): static inline, no allocation, async-signal-safe.
 * Return as syscall(): the result, or -1 with errno set.
 */
#ifndef SPOOL_ARCH_ARCH_SYS_H
#define SPOOL_ARCH_ARCH_SYS_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__)

static inline long arch_sys_dup2(int a, int b)
{
	return syscall(SYS_dup2, a, b);
}
static inline long arch_sys_access(const char *p, int m)
{
	return syscall(SYS_access, p, m);
}
static inline long arch_sys_poll(struct pollfd *p, unsigned long n, int t)
{
	return syscall(SYS_poll, p, n, t);
}
static inline long arch_sys_select(int n, fd_set *r, fd_set *w, fd_set *e, struct timeval *t)
{
	return syscall(SYS_select, n, r, w, e, t);
}
static inline long arch_sys_epoll_wait(int fd, void *ev, int n, int t)
{
	return syscall(SYS_epoll_wait, fd, ev, n, t);
}
static inline long arch_sys_time(time_t *t)
{
	return syscall(SYS_time, t);
}
static inline long arch_sys_fork(void)
{
	return syscall(SYS_fork);
}
static inline long arch_sys_stat(const char *p, struct stat *st)
{
	return syscall(SYS_stat, p, st);
}
static inline long arch_sys_rename(const char *a, const char *b)
{
	return syscall(SYS_rename, a, b);
}

#elif defined(__aarch64__)

/* dup3 refuses a == b; dup2 returns a when it is open. */
static inline long arch_sys_dup2(int a, int b)
{
	if (a == b)
		return syscall(SYS_fcntl, a, F_GETFD) < 0 ? -1 : a;
	return syscall(SYS_dup3, a, b, 0);
}
static inline long arch_sys_access(const char *p, int m)
{
	return syscall(SYS_faccessat, AT_FDCWD, p, m);
}
static inline long arch_sys_poll(struct pollfd *p, unsigned long n, int t)
{
	struct timespec ts = {t / 1000, (long)(t % 1000) * 1000000L};

	return syscall(SYS_ppoll, p, n, t < 0 ? NULL : &ts, NULL, 0);
}
/* pselect6 writes the time left back, as select does to its timeval. */
static inline long arch_sys_select(int n, fd_set *r, fd_set *w, fd_set *e, struct timeval *t)
{
	struct timespec ts;
	long rc;

	if (t) {
		ts.tv_sec = t->tv_sec;
		ts.tv_nsec = (long)t->tv_usec * 1000L;
	}
	rc = syscall(SYS_pselect6, n, r, w, e, t ? &ts : NULL, NULL);
	if (t) {
		int saved = errno;

		t->tv_sec = ts.tv_sec;
		t->tv_usec = ts.tv_nsec / 1000;
		errno = saved;
	}
	return rc;
}
static inline long arch_sys_epoll_wait(int fd, void *ev, int n, int t)
{
	return syscall(SYS_epoll_pwait, fd, ev, n, t, NULL, 0);
}
static inline long arch_sys_time(time_t *t)
{
	struct timespec ts;

	if (syscall(SYS_clock_gettime, CLOCK_REALTIME, &ts) < 0)
		return -1;
	if (t)
		*t = ts.tv_sec;
	return ts.tv_sec;
}
/* fork is clone with only the exit signal (as the kernel's own fork). */
static inline long arch_sys_fork(void)
{
	return syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);
}
/* glibc's struct stat is the kernel's on aarch64 (asm-generic). */
static inline long arch_sys_stat(const char *p, struct stat *st)
{
	return syscall(SYS_newfstatat, AT_FDCWD, p, st, 0);
}
static inline long arch_sys_rename(const char *a, const char *b)
{
	return syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, 0);
}

#else
#error "arch_sys.h: unsupported architecture"
#endif

#endif
