// SPDX-License-Identifier: MIT
/*
 * agent_rr_fs.c - record/replay of what a program learns about names in
 * the file system: stat, lstat, fstatat, fstat (and their 64 forms),
 * access, faccessat, and the result of mkdir and mkdirat.
 *
 * A replay runs on the file system as it is then, which the recorded run
 * changed: `pigz -k file` looks whether file.gz exists before it writes
 * it, Python's tempfile makes a directory whose name must not exist yet.
 * Replayed, both found what the recorded run left and took another path.
 * Recording: the real call, then a KIND_INPUT record with its result,
 * errno and, for the stat family, the struct stat. Replay: the stat family
 * and access return what was recorded without asking the kernel; mkdir is
 * made for real (a later open in the directory needs it to exist) and
 * returns the recorded result, so a directory the recorded run left costs
 * nothing.
 *
 * fstat on a descriptor is recorded when the program calls it, like stat:
 * a replay that answered stat of a name from the recording and fstat of
 * the same file from the kernel gave two inodes for one file (the replay
 * made it again), and sqlite3 then takes its database for one that was
 * moved and opens it read-only. glibc's stdio makes its fstat inside libc,
 * where no interposer sees it: that one stays real. Neither are other
 * opens, unlink or rename
 * (doc/record.md, "What is not captured"). Calls made by the agent itself
 * and by threads spool could not number pass through, as in agent_rr_io.c.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "agent_rr.h"

#define RR_IO_OFF(t) (AGENT_LIKELY(!agent_rr_mode) || !((t) = agent_rr_io_enter()))
#define RR_REPLAYING() (agent_rr_mode & RR_MODE_REPLAY)

/* Until the constructor ran (another library's constructor calling stat
 * first): the raw system calls. */
static int fb_fstatat(int d, const char *p, struct stat *st, int fl)
{
	return (int)syscall(SYS_newfstatat, d, p, st, fl);
}
static int fb_fstat(int d, struct stat *st)
{
	return (int)syscall(SYS_fstat, d, st);
}

static int fb_stat(const char *p, struct stat *st)
{
	return fb_fstatat(AT_FDCWD, p, st, 0);
}
static int fb_lstat(const char *p, struct stat *st)
{
	return fb_fstatat(AT_FDCWD, p, st, AT_SYMLINK_NOFOLLOW);
}
static int fb_faccessat(int d, const char *p, int m, int fl)
{
	return (int)syscall(SYS_faccessat2, d, p, m, fl);
}
static int fb_access(const char *p, int m)
{
	return (int)syscall(SYS_access, p, m);
}
static int fb_mkdirat(int d, const char *p, mode_t m)
{
	return (int)syscall(SYS_mkdirat, d, p, m);
}
static int fb_mkdir(const char *p, mode_t m)
{
	return fb_mkdirat(AT_FDCWD, p, m);
}

static int (*real_stat)(const char *, struct stat *) = fb_stat;
static int (*real_lstat)(const char *, struct stat *) = fb_lstat;
static int (*real_fstatat)(int, const char *, struct stat *, int) = fb_fstatat;
static int (*real_fstat)(int, struct stat *) = fb_fstat;
static int (*real_access)(const char *, int) = fb_access;
static int (*real_faccessat)(int, const char *, int, int) = fb_faccessat;
static int (*real_mkdir)(const char *, mode_t) = fb_mkdir;
static int (*real_mkdirat)(int, const char *, mode_t) = fb_mkdirat;
static int (*real_openat)(int, const char *, int, ...);
/* ver is _STAT_VER; NULL until resolved: the raw calls above */
static int (*real_xstat)(int, const char *, struct stat *);
static int (*real_lxstat)(int, const char *, struct stat *);
static int (*real_fxstatat)(int, int, const char *, struct stat *, int);
static int (*real_fxstat)(int, int, struct stat *);

__attribute__((constructor)) static void agent_rr_fs_resolve(void)
{
	agent_self.busy++;
	AGENT_RESOLVE(real_stat, "stat");
	AGENT_RESOLVE(real_lstat, "lstat");
	AGENT_RESOLVE(real_fstatat, "fstatat");
	AGENT_RESOLVE(real_fstat, "fstat");
	AGENT_RESOLVE(real_access, "access");
	AGENT_RESOLVE(real_faccessat, "faccessat");
	AGENT_RESOLVE(real_mkdir, "mkdir");
	AGENT_RESOLVE(real_mkdirat, "mkdirat");
	AGENT_RESOLVE(real_openat, "openat");
	AGENT_RESOLVE(real_xstat, "__xstat64");
	AGENT_RESOLVE(real_lxstat, "__lxstat64");
	AGENT_RESOLVE(real_fxstatat, "__fxstatat64");
	AGENT_RESOLVE(real_fxstat, "__fxstat64");
	agent_self.busy--;
}

/* Record a stat-like call's result and, when it succeeded, its struct. */
static int rr_stat_rec(struct agent_thread *t, int rc, struct stat *st)
{
	int e = errno;
	struct agent_rr_seg s = {st, rc == 0 ? sizeof(*st) : 0};

	agent_rr_rec_input(t, RR_CALL_STAT, -1, rc, rc < 0 ? e : 0, 0, &s, 1);
	errno = e;
	return rc;
}

static int rr_stat_rep(struct agent_thread *t, struct stat *st)
{
	struct agent_rr_seg s = {st, sizeof(*st)};

	return (int)agent_rr_rep_input(t, RR_CALL_STAT, -1, &s, 1, NULL);
}

/* Record the result of a call that returns 0 or -1 with errno. */
static int rr_res_rec(struct agent_thread *t, unsigned call, int rc)
{
	int e = errno;

	agent_rr_rec_input(t, call, -1, rc, rc < 0 ? e : 0, 0, NULL, 0);
	errno = e;
	return rc;
}

AGENT_EXPORT int stat(const char *path, struct stat *st)
{
	struct agent_thread *t;

	if (RR_IO_OFF(t))
		return real_stat(path, st);
	if (RR_REPLAYING())
		return rr_stat_rep(t, st);
	return rr_stat_rec(t, real_stat(path, st), st);
}

/* x86-64: struct stat64 is struct stat, and the 64 forms are the same calls. */
_Static_assert(sizeof(struct stat64) == sizeof(struct stat), "stat64 is stat");

AGENT_EXPORT int stat64(const char *path, struct stat64 *st)
{
	return stat(path, (struct stat *)st);
}

AGENT_EXPORT int lstat(const char *path, struct stat *st)
{
	struct agent_thread *t;

	if (RR_IO_OFF(t))
		return real_lstat(path, st);
	if (RR_REPLAYING())
		return rr_stat_rep(t, st);
	return rr_stat_rec(t, real_lstat(path, st), st);
}

AGENT_EXPORT int lstat64(const char *path, struct stat64 *st)
{
	return lstat(path, (struct stat *)st);
}

AGENT_EXPORT int fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
	struct agent_thread *t;

	if (RR_IO_OFF(t))
		return real_fstatat(dirfd, path, st, flags);
	if (RR_REPLAYING())
		return rr_stat_rep(t, st);
	return rr_stat_rec(t, real_fstatat(dirfd, path, st, flags), st);
}

AGENT_EXPORT int fstatat64(int dirfd, const char *path, struct stat64 *st, int flags)
{
	return fstatat(dirfd, path, (struct stat *)st, flags);
}

AGENT_EXPORT int fstat(int fd, struct stat *st)
{
	struct agent_thread *t;

	if (RR_IO_OFF(t))
		return real_fstat(fd, st);
	if (RR_REPLAYING())
		return rr_stat_rep(t, st);
	return rr_stat_rec(t, real_fstat(fd, st), st);
}

AGENT_EXPORT int fstat64(int fd, struct stat64 *st)
{
	return fstat(fd, (struct stat *)st);
}

/* Binaries built against glibc before 2.33 (Debian 12's pigz among them)
 * call the __xstat family, which glibc still exports (below). */

static int rr_xstat(int which, int ver, int dirfd, const char *path, struct stat *st, int flags)
{
	struct agent_thread *t = NULL;
	int rc;

	if (!RR_IO_OFF(t) && RR_REPLAYING())
		return rr_stat_rep(t, st);
	if (which == 0)
		rc = real_xstat ? real_xstat(ver, path, st) : fb_stat(path, st);
	else if (which == 1)
		rc = real_lxstat ? real_lxstat(ver, path, st) : fb_lstat(path, st);
	else if (which == 2)
		rc = real_fxstatat ? real_fxstatat(ver, dirfd, path, st, flags)
				   : fb_fstatat(dirfd, path, st, flags);
	else
		rc = real_fxstat ? real_fxstat(ver, dirfd, st) : fb_fstat(dirfd, st);
	if (!agent_rr_mode || !t)
		return rc;
	return rr_stat_rec(t, rc, st);
}

AGENT_EXPORT int __xstat(int ver, const char *path, struct stat *st)
{
	return rr_xstat(0, ver, AT_FDCWD, path, st, 0);
}

AGENT_EXPORT int __xstat64(int ver, const char *path, struct stat64 *st)
{
	return rr_xstat(0, ver, AT_FDCWD, path, (struct stat *)st, 0);
}

AGENT_EXPORT int __lxstat(int ver, const char *path, struct stat *st)
{
	return rr_xstat(1, ver, AT_FDCWD, path, st, 0);
}

AGENT_EXPORT int __lxstat64(int ver, const char *path, struct stat64 *st)
{
	return rr_xstat(1, ver, AT_FDCWD, path, (struct stat *)st, 0);
}

AGENT_EXPORT int __fxstatat(int ver, int dirfd, const char *path, struct stat *st, int flags)
{
	return rr_xstat(2, ver, dirfd, path, st, flags);
}

AGENT_EXPORT int __fxstatat64(int ver, int dirfd, const char *path, struct stat64 *st, int flags)
{
	return rr_xstat(2, ver, dirfd, path, (struct stat *)st, flags);
}

AGENT_EXPORT int __fxstat(int ver, int fd, struct stat *st)
{
	return rr_xstat(3, ver, fd, NULL, st, 0);
}

AGENT_EXPORT int __fxstat64(int ver, int fd, struct stat64 *st)
{
	return rr_xstat(3, ver, fd, NULL, (struct stat *)st, 0);
}

AGENT_EXPORT int access(const char *path, int mode)
{
	struct agent_thread *t;

	if (RR_IO_OFF(t))
		return real_access(path, mode);
	if (RR_REPLAYING())
		return (int)agent_rr_rep_input(t, RR_CALL_ACCESS, -1, NULL, 0, NULL);
	return rr_res_rec(t, RR_CALL_ACCESS, real_access(path, mode));
}

AGENT_EXPORT int faccessat(int dirfd, const char *path, int mode, int flags)
{
	struct agent_thread *t;

	if (RR_IO_OFF(t))
		return real_faccessat(dirfd, path, mode, flags);
	if (RR_REPLAYING())
		return (int)agent_rr_rep_input(t, RR_CALL_ACCESS, -1, NULL, 0, NULL);
	return rr_res_rec(t, RR_CALL_ACCESS, real_faccessat(dirfd, path, mode, flags));
}

/*
 * open and openat with O_CREAT|O_EXCL: a name that must not exist yet
 * (pigz's output without -f, Python's mkstemp). Only those opens are
 * recorded (their result). Replay: opened for real; when the name exists
 * (the recorded run left it) but the recording opened it, it is opened
 * without O_EXCL, at the recorded number; when the recording failed and
 * this one made the file, the file is removed again. Other opens pass
 * through, in every mode.
 */

static int fb_openat(int d, const char *p, int fl, mode_t m)
{
	return (int)syscall(SYS_openat, d, p, fl, m);
}

static int rr_open_real(int dirfd, const char *path, int flags, mode_t mode)
{
	return real_openat ? real_openat(dirfd, path, flags, mode)
			   : fb_openat(dirfd, path, flags, mode);
}

static int rr_open(int dirfd, const char *path, int flags, mode_t mode)
{
	struct agent_thread *t;
	int fd, want, e;

	if ((flags & (O_CREAT | O_EXCL)) != (O_CREAT | O_EXCL) || RR_IO_OFF(t))
		return rr_open_real(dirfd, path, flags, mode);
	if (!RR_REPLAYING()) {
		fd = rr_open_real(dirfd, path, flags, mode);
		return rr_res_rec(t, RR_CALL_OPEN_EXCL, fd);
	}
	fd = rr_open_real(dirfd, path, flags, mode);
	e = errno;
	if (fd < 0 && e == EEXIST)
		fd = rr_open_real(dirfd, path, flags & ~O_EXCL, mode);
	want = (int)agent_rr_rep_input(t, RR_CALL_OPEN_EXCL, -1, NULL, 0, NULL);
	e = errno;
	if (want < 0 && fd >= 0) {
		/* the recorded run found the name taken; this one made it */
		syscall(SYS_close, fd);
		syscall(SYS_unlinkat, dirfd, path, 0);
	} else if (want >= 0 && fd >= 0 && fd != want) {
		syscall(SYS_dup2, fd, want);
		syscall(SYS_close, fd);
	}
	errno = e;
	return want;
}

static mode_t rr_open_mode(int flags, va_list ap)
{
	return (flags & (O_CREAT | __O_TMPFILE)) ? (mode_t)va_arg(ap, int) : 0;
}

AGENT_EXPORT int open(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = rr_open_mode(flags, ap);
	va_end(ap);
	return rr_open(AT_FDCWD, path, flags, mode);
}

/* x86-64: the 64 forms are the same calls, with the same prototypes. */
AGENT_EXPORT int open64(const char *path, int flags, ...)
    __attribute__((alias("open"), copy(open)));

AGENT_EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = rr_open_mode(flags, ap);
	va_end(ap);
	return rr_open(dirfd, path, flags, mode);
}

AGENT_EXPORT int openat64(int dirfd, const char *path, int flags, ...)
    __attribute__((alias("openat"), copy(openat)));

/* Replay: made for real, the recorded result returned (errno too). */
static int rr_mkdir_rep(struct agent_thread *t, int dirfd, const char *path, mode_t mode)
{
	int e = errno;

	real_mkdirat(dirfd, path, mode);
	errno = e;
	return (int)agent_rr_rep_input(t, RR_CALL_MKDIR, -1, NULL, 0, NULL);
}

AGENT_EXPORT int mkdir(const char *path, mode_t mode)
{
	struct agent_thread *t;

	if (RR_IO_OFF(t))
		return real_mkdir(path, mode);
	if (RR_REPLAYING())
		return rr_mkdir_rep(t, AT_FDCWD, path, mode);
	return rr_res_rec(t, RR_CALL_MKDIR, real_mkdir(path, mode));
}

AGENT_EXPORT int mkdirat(int dirfd, const char *path, mode_t mode)
{
	struct agent_thread *t;

	if (RR_IO_OFF(t))
		return real_mkdirat(dirfd, path, mode);
	if (RR_REPLAYING())
		return rr_mkdir_rep(t, dirfd, path, mode);
	return rr_res_rec(t, RR_CALL_MKDIR, real_mkdirat(dirfd, path, mode));
}
