// SPDX-License-Identifier: MIT
/*
 * agent_rr_fs.c - record/replay of what a program learns about names in
 * the file system: stat, lstat, fstatat (and their 64 forms), statx, access,
 * the extended attributes of a name (getxattr, lgetxattr, listxattr, llistxattr),
 * faccessat, and the result of mkdir and mkdirat.
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
 * Sync mode also orders every open and creat in the descriptor table
 * (agent_rr_fdtab_enter, agent_rr.h), so concurrent opens replay with the
 * recorded numbers. fstat of a descriptor is recorded when the program
 * calls it, like stat: a replay that answered stat of a name from the
 * recording and fstat of the same file from the kernel gave two inodes for
 * one file (the replay made it again), and sqlite3 then takes its database
 * for one that was moved and opens it read-only. glibc's stdio makes its
 * fstat inside libc, where no interposer sees it, in both runs alike.
 * Opens are recorded (their result, below); unlink and rename are not
 * (doc/record.md, "What is not captured"). Calls made by the agent itself
 * and by threads spool could not number pass through, as in agent_rr_io.c.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
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
	return (int)arch_sys_access(p, m);
}
static int fb_mkdirat(int d, const char *p, mode_t m)
{
	return (int)syscall(SYS_mkdirat, d, p, m);
}
static int fb_mkdir(const char *p, mode_t m)
{
	return fb_mkdirat(AT_FDCWD, p, m);
}

static int fb_statx(int d, const char *p, int fl, unsigned mask, struct statx *sx)
{
	return (int)syscall(SYS_statx, d, p, fl, mask, sx);
}
static int (*real_statx)(int, const char *, int, unsigned, struct statx *) = fb_statx;
static ssize_t fb_getxattr(const char *p, const char *n, void *v, size_t sz)
{
	return syscall(SYS_getxattr, p, n, v, sz);
}
static ssize_t fb_lgetxattr(const char *p, const char *n, void *v, size_t sz)
{
	return syscall(SYS_lgetxattr, p, n, v, sz);
}
static ssize_t fb_listxattr(const char *p, char *l, size_t sz)
{
	return syscall(SYS_listxattr, p, l, sz);
}
static ssize_t fb_llistxattr(const char *p, char *l, size_t sz)
{
	return syscall(SYS_llistxattr, p, l, sz);
}
static ssize_t (*real_getxattr)(const char *, const char *, void *, size_t) = fb_getxattr;
static ssize_t (*real_lgetxattr)(const char *, const char *, void *, size_t) = fb_lgetxattr;
static ssize_t (*real_listxattr)(const char *, char *, size_t) = fb_listxattr;
static ssize_t (*real_llistxattr)(const char *, char *, size_t) = fb_llistxattr;
static int fb_unlinkat(int d, const char *p, int fl)
{
	return (int)syscall(SYS_unlinkat, d, p, fl);
}
static int fb_renameat2(int od, const char *o, int nd, const char *n, unsigned fl)
{
	return (int)syscall(SYS_renameat2, od, o, nd, n, fl);
}
static int (*real_unlinkat)(int, const char *, int) = fb_unlinkat;
static int (*real_renameat2)(int, const char *, int, const char *, unsigned) = fb_renameat2;
static int fb_fstat(int fd, struct stat *st)
{
	return (int)syscall(SYS_fstat, fd, st);
}
static int (*real_fstat)(int, struct stat *) = fb_fstat;
static int (*real_fxstat)(int, int, struct stat *);

static int (*real_stat)(const char *, struct stat *) = fb_stat;
static int (*real_lstat)(const char *, struct stat *) = fb_lstat;
static int (*real_fstatat)(int, const char *, struct stat *, int) = fb_fstatat;
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
	AGENT_RESOLVE(real_statx, "statx");
	AGENT_RESOLVE(real_unlinkat, "unlinkat");
	AGENT_RESOLVE(real_renameat2, "renameat2");
	AGENT_RESOLVE(real_fstat, "fstat");
	AGENT_RESOLVE(real_fxstat, "__fxstat64");
	AGENT_RESOLVE(real_getxattr, "getxattr");
	AGENT_RESOLVE(real_lgetxattr, "lgetxattr");
	AGENT_RESOLVE(real_listxattr, "listxattr");
	AGENT_RESOLVE(real_llistxattr, "llistxattr");
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

/* fstat of a descriptor the program opened: what the file was when
 * recorded (git compares a file's size with its index's before reading
 * it; in a replay the file may be gone and its descriptor a stand-in).
 * Recorded as RR_CALL_STAT with the descriptor in fd. stdio's own fstat
 * is made inside libc and seen in neither run. */
static int rr_fstat(int ver, int fd, struct stat *st)
{
	struct agent_thread *t;
	struct agent_rr_seg s = {st, sizeof(*st)};
	int rc, e;

	if (RR_IO_OFF(t))
		return ver < 0 || !real_fxstat ? real_fstat(fd, st) : real_fxstat(ver, fd, st);
	if (RR_REPLAYING())
		return (int)agent_rr_rep_input(t, RR_CALL_STAT, fd, &s, 1, NULL);
	rc = ver < 0 || !real_fxstat ? real_fstat(fd, st) : real_fxstat(ver, fd, st);
	e = errno;
	if (rc < 0)
		s.n = 0;
	agent_rr_rec_input(t, RR_CALL_STAT, fd, rc, rc < 0 ? e : 0, 0, &s, 1);
	errno = e;
	return rc;
}

AGENT_EXPORT int fstat(int fd, struct stat *st)
{
	return rr_fstat(-1, fd, st);
}

AGENT_EXPORT int fstat64(int fd, struct stat64 *st)
{
	return rr_fstat(-1, fd, (struct stat *)st);
}

AGENT_EXPORT int __fxstat(int ver, int fd, struct stat *st)
{
	return rr_fstat(ver, fd, st);
}

AGENT_EXPORT int __fxstat64(int ver, int fd, struct stat64 *st)
{
	return rr_fstat(ver, fd, (struct stat *)st);
}

/* statx (coreutils' ls and stat ask with it): data = the struct statx. */
AGENT_EXPORT int statx(int dirfd, const char *path, int flags, unsigned mask, struct statx *sx)
{
	struct agent_thread *t;
	struct agent_rr_seg s = {sx, sizeof(*sx)};
	int rc, e;

	if (RR_IO_OFF(t))
		return real_statx(dirfd, path, flags, mask, sx);
	if (RR_REPLAYING())
		return (int)agent_rr_rep_input(t, RR_CALL_STATX, -1, &s, 1, NULL);
	rc = real_statx(dirfd, path, flags, mask, sx);
	e = errno;
	if (rc < 0)
		s.n = 0;
	agent_rr_rec_input(t, RR_CALL_STATX, -1, rc, rc < 0 ? e : 0, 0, &s, 1);
	errno = e;
	return rc;
}

/* Extended attributes of names (ls -l asks lgetxattr for an SELinux label
 * and an ACL of every entry it lists): data = the bytes returned. */

/* r: the real call's result (record), ignored when replaying. */
static ssize_t rr_xattr(struct agent_thread *t, void *buf, size_t n, ssize_t r)
{
	struct agent_rr_seg s = {buf, n};
	int e = errno;

	if (RR_REPLAYING())
		return (ssize_t)agent_rr_rep_input(t, RR_CALL_XATTR, -1, &s, buf ? 1 : 0, NULL);
	s.n = r > 0 && buf && n ? (size_t)r : 0;
	agent_rr_rec_input(t, RR_CALL_XATTR, -1, r, r < 0 ? e : 0, 0, &s, 1);
	errno = e;
	return r;
}

AGENT_EXPORT ssize_t getxattr(const char *path, const char *name, void *v, size_t n)
{
	struct agent_thread *t;

	if (RR_IO_OFF(t))
		return real_getxattr(path, name, v, n);
	return rr_xattr(t, v, n, RR_REPLAYING() ? 0 : real_getxattr(path, name, v, n));
}

AGENT_EXPORT ssize_t lgetxattr(const char *path, const char *name, void *v, size_t n)
{
	struct agent_thread *t;

	if (RR_IO_OFF(t))
		return real_lgetxattr(path, name, v, n);
	return rr_xattr(t, v, n, RR_REPLAYING() ? 0 : real_lgetxattr(path, name, v, n));
}

AGENT_EXPORT ssize_t listxattr(const char *path, char *list, size_t n)
{
	struct agent_thread *t;

	if (RR_IO_OFF(t))
		return real_listxattr(path, list, n);
	return rr_xattr(t, list, n, RR_REPLAYING() ? 0 : real_listxattr(path, list, n));
}

AGENT_EXPORT ssize_t llistxattr(const char *path, char *list, size_t n)
{
	struct agent_thread *t;

	if (RR_IO_OFF(t))
		return real_llistxattr(path, list, n);
	return rr_xattr(t, list, n, RR_REPLAYING() ? 0 : real_llistxattr(path, list, n));
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
 * (pigz's output without -f, Python's mkstemp): their result is recorded.
 * Replay: opened for real; when the name exists (the recorded run left it)
 * but the recording opened it, it is opened without O_EXCL, at the
 * recorded number; when the recording failed and this one made the file,
 * the file is removed again. Other opens: below.
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

/* Replay: the real open of a name the recorded run opened, again while
 * the name may still be made by another process of the tree
 * (agent_rr_tree_name_wait). */
static int rr_open_made(int dirfd, const char *path, int flags, mode_t mode)
{
	int fd, waited = 0;

	while ((fd = rr_open_real(dirfd, path, flags, mode)) < 0 &&
	       agent_rr_tree_name_wait(errno, &waited))
		;
	return fd;
}

/*
 * What stands in for a file or directory a replay does not find where the
 * recorded run opened it. Nothing is read from it (reads come from the
 * recording), but the program still acts on it: writes, fchmod, and
 * relative to a directory, unlinkat, renameat, openat with O_CREAT (`rm
 * -r` of a tree that is gone). So it must be inert: a directory of
 * /proc/self (nothing can be created, removed or chmod'ed in it, not even
 * by root) and, for a file, a sealed memfd of the process's own (writes
 * fail, nothing grows; fchmod and fchown touch only it). Never "/" or
 * /dev/null, which a replay running as root would change. -1 when /proc is
 * not there or no memfd can be made: the open then fails as it does for
 * real, and the replay diverges instead of acting on something else.
 */
int agent_rr_standin(int dir, int cloexec)
{
	int fd;

	if (dir)
		return (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/fdinfo",
				    O_RDONLY | O_DIRECTORY | O_NONBLOCK |
					(cloexec ? O_CLOEXEC : 0));
	fd = (int)syscall(SYS_memfd_create, "spool-standin",
			  MFD_ALLOW_SEALING | (cloexec ? MFD_CLOEXEC : 0));
	if (fd < 0)
		return -1;
	if (syscall(SYS_fcntl, fd, F_ADD_SEALS,
		    F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE) < 0) {
		syscall(SYS_close, fd);
		return -1;
	}
	return fd;
}

static int rr_open_standin(int flags)
{
	return agent_rr_standin((flags & O_DIRECTORY) && (flags & O_TMPFILE) != O_TMPFILE,
				flags & O_CLOEXEC);
}

/*
 * Every other open: whether it found the name is input too (find opens a
 * subdirectory it listed, git reads a file its index says changed, CPython
 * opens the modules it found). Recorded: the result and errno
 * (RR_CALL_OPEN). Replay: opened for real (a program's writes to files
 * happen in a replay, its reads come from the recording); when the name
 * is gone but the recording opened it, an inert stand-in takes the
 * recorded number (agent_rr_standin); when the recording failed, the
 * descriptor is closed and the recorded error returned. A descriptor
 * number that differs from the recorded one is moved to it when that
 * number is free.
 */
static int rr_open_rep(struct agent_thread *t, int dirfd, const char *path, int flags, mode_t mode)
{
	int fd, want, e;

	/* The recording first: a replay that diverged here stops before it
	 * creates or truncates anything, and an open the recorded run could
	 * not make is not made. */
	want = (int)agent_rr_rep_input(t, RR_CALL_OPEN, -1, NULL, 0, NULL);
	if (want < 0)
		return -1; /* errno: the recorded one */
	e = errno;
	fd = rr_open_made(dirfd, path, flags, mode);
	if (fd < 0)
		fd = rr_open_standin(flags);
	if (fd >= 0 && fd != want) {
		/* F_DUPFD: the lowest free number from want up, in one step
		 * (a number another thread takes meanwhile is not closed) */
		long got =
		    syscall(SYS_fcntl, fd, flags & O_CLOEXEC ? F_DUPFD_CLOEXEC : F_DUPFD, want);

		if (got == want) {
			syscall(SYS_close, fd);
			fd = want;
		} else if (got >= 0) {
			syscall(SYS_close, got);
		}
	}
	errno = e;
	return fd;
}

static int rr_open_excl(int dirfd, const char *path, int flags, mode_t mode)
{
	struct agent_thread *t;
	int fd, want, e;

	if (RR_IO_OFF(t))
		return rr_open_real(dirfd, path, flags, mode);
	if (!RR_REPLAYING()) {
		fd = rr_open_real(dirfd, path, flags, mode);
		return rr_res_rec(t, RR_CALL_OPEN_EXCL, fd);
	}
	/* The recording first (as rr_open_rep): an open the recorded run
	 * could not make (the name was taken) is not made; where it made the
	 * file, a directory another process makes may not be there yet. (It
	 * used to make the file and then remove it, and a file already there
	 * was opened without O_EXCL and removed: the recorded run's own, or
	 * one the user made since.) */
	want = (int)agent_rr_rep_input(t, RR_CALL_OPEN_EXCL, -1, NULL, 0, NULL);
	e = errno;
	if (want < 0)
		return -1; /* errno: the recorded one */
	fd = rr_open_made(dirfd, path, flags, mode);
	if (fd < 0 && errno == EEXIST) /* the file the recorded run left */
		fd = rr_open_real(dirfd, path, flags & ~O_EXCL, mode);
	if (fd >= 0 && fd != want) {
		arch_sys_dup2(fd, want);
		syscall(SYS_close, fd);
	}
	errno = e;
	return want;
}

static int rr_open_plain(int dirfd, const char *path, int flags, mode_t mode)
{
	struct agent_thread *t;

	if (RR_IO_OFF(t))
		return rr_open_real(dirfd, path, flags, mode);
	if (RR_REPLAYING())
		return rr_open_rep(t, dirfd, path, flags, mode);
	return rr_res_rec(t, RR_CALL_OPEN, rr_open_real(dirfd, path, flags, mode));
}

/*
 * Sync mode orders opens in the descriptor table (agent_rr_fdtab_enter):
 * the open takes its turn, then its result is recorded as without the
 * table (RR_CALL_OPEN, or RR_CALL_OPEN_EXCL). Replay: the open is made at
 * its turn (without O_EXCL when the recorded run left the name; a stand-in
 * when the name is gone), leave puts it at the recorded number or returns
 * the recorded failure, and a file this replay made where the recorded
 * open failed is removed again.
 */
static int rr_open(int dirfd, const char *path, int flags, mode_t mode)
{
	int excl = (flags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL);
	uint32_t on = agent_rr_fdtab_enter(RR_FD_OPEN);
	struct agent_thread *t;
	int fd, made = 0, e, want;

	if (!on)
		return excl ? rr_open_excl(dirfd, path, flags, mode)
			    : rr_open_plain(dirfd, path, flags, mode);
	/* (a replay: where the recorded run opened the name, a directory
	 * another process makes may not be there yet) */
	fd = agent_rr_fdtab_rep_made() ? rr_open_made(dirfd, path, flags, mode)
				       : rr_open_real(dirfd, path, flags, mode);
	if (RR_REPLAYING()) {
		e = errno;
		if (excl) {
			made = fd >= 0;
			if (fd < 0 && e == EEXIST)
				fd = rr_open_real(dirfd, path, flags & ~O_EXCL, mode);
		} else if (fd < 0) {
			fd = rr_open_standin(flags);
			if (fd < 0)
				errno = e;
		}
	}
	fd = agent_rr_fdtab_leave(fd, NULL);
	if (RR_IO_OFF(t))
		return fd;
	if (!RR_REPLAYING())
		return rr_res_rec(t, excl ? RR_CALL_OPEN_EXCL : RR_CALL_OPEN, fd);
	e = errno;
	if (!excl) {
		want = (int)agent_rr_rep_input(t, RR_CALL_OPEN, -1, NULL, 0, NULL);
		if (want < 0 && fd >= 0)
			syscall(SYS_close, fd);
		return want;
	}
	if (fd < 0 && made) /* the recorded run found the name taken */
		syscall(SYS_unlinkat, dirfd, path, 0);
	fd = (int)agent_rr_rep_input(t, RR_CALL_OPEN_EXCL, -1, NULL, 0, NULL);
	if (fd < 0 && !errno)
		errno = e;
	return fd;
}

/* creat is open with O_CREAT|O_WRONLY|O_TRUNC (glibc's own creat opens
 * without the PLT: only this interposer sees it). */
AGENT_EXPORT int creat(const char *path, mode_t mode)
{
	return rr_open(AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, mode);
}

AGENT_EXPORT int creat64(const char *path, mode_t mode)
    __attribute__((alias("creat"), copy(creat)));

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

/* _FORTIFY_SOURCE builds call these when the flags are not a constant (git's
 * open of the files it compares with its index): no O_CREAT, no mode. */
AGENT_EXPORT int __open_2(const char *path, int flags)
{
	return rr_open(AT_FDCWD, path, flags, 0);
}

AGENT_EXPORT int __open64_2(const char *path, int flags)
{
	return rr_open(AT_FDCWD, path, flags, 0);
}

AGENT_EXPORT int __openat_2(int dirfd, const char *path, int flags)
{
	return rr_open(dirfd, path, flags, 0);
}

AGENT_EXPORT int __openat64_2(int dirfd, const char *path, int flags)
{
	return rr_open(dirfd, path, flags, 0);
}

/* Replay: made for real, the recorded result returned (errno too). */
static int rr_mkdir_rep(struct agent_thread *t, int dirfd, const char *path, mode_t mode)
{
	int want = (int)agent_rr_rep_input(t, RR_CALL_MKDIR, -1, NULL, 0, NULL);
	int e = errno, waited = 0;

	/* (the parent may be another process's to make, when recorded it
	 * was there) */
	while (real_mkdirat(dirfd, path, mode) < 0 && want == 0 &&
	       agent_rr_tree_name_wait(errno, &waited))
		;
	errno = e;
	return want;
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

/*
 * unlink, unlinkat, rmdir, rename, renameat, renameat2: made for real in a
 * replay too (the file system ends as the recorded run left it), with the
 * recorded result returned: whether the name was there is input. `rm -r`
 * of a tree that is gone replays with the recorded exit status (its
 * unlinkat calls act on an inert stand-in, agent_rr_standin, and fail
 * there, harmlessly). All through unlinkat and renameat2 (the same system
 * calls glibc makes).
 */
static const char *const rr_nameop_kinds[] = {
    [RR_NAMEOP_UNLINK] = "unlink", [RR_NAMEOP_RMDIR] = "rmdir", [RR_NAMEOP_RENAME] = "rename"};

static int rr_nameop(unsigned kind, int od, const char *o, int nd, const char *n, unsigned fl)
{
	struct agent_thread *t;
	uint64_t arg = 0;
	int rc, e, want;

	if (RR_IO_OFF(t))
		return kind == RR_NAMEOP_RENAME ? real_renameat2(od, o, nd, n, fl)
						: real_unlinkat(od, o, (int)fl);
	if (RR_REPLAYING()) {
		/* the recording first: a replay that diverged here stops
		 * before it removes or renames anything */
		int waited = 0;

		want = (int)agent_rr_rep_input(t, RR_CALL_NAMEOP, -1, NULL, 0, &arg);
		e = errno;
		agent_rr_rep_kind(arg, kind, rr_nameop_kinds, 4);
		/* (a name another process makes may not be there yet) */
		while ((kind == RR_NAMEOP_RENAME ? real_renameat2(od, o, nd, n, fl)
						 : real_unlinkat(od, o, (int)fl)) < 0 &&
		       want == 0 && agent_rr_tree_name_wait(errno, &waited))
			;
		errno = e;
		return want;
	}
	rc = kind == RR_NAMEOP_RENAME ? real_renameat2(od, o, nd, n, fl)
				      : real_unlinkat(od, o, (int)fl);
	e = errno;
	agent_rr_rec_input(t, RR_CALL_NAMEOP, -1, rc, rc < 0 ? e : 0, kind, NULL, 0);
	errno = e;
	return rc;
}

AGENT_EXPORT int unlink(const char *path)
{
	return rr_nameop(RR_NAMEOP_UNLINK, AT_FDCWD, path, 0, NULL, 0);
}

AGENT_EXPORT int unlinkat(int dirfd, const char *path, int flags)
{
	return rr_nameop(flags & AT_REMOVEDIR ? RR_NAMEOP_RMDIR : RR_NAMEOP_UNLINK, dirfd, path, 0,
			 NULL, (unsigned)flags);
}

AGENT_EXPORT int rmdir(const char *path)
{
	return rr_nameop(RR_NAMEOP_RMDIR, AT_FDCWD, path, 0, NULL, AT_REMOVEDIR);
}

AGENT_EXPORT int rename(const char *from, const char *to)
{
	return rr_nameop(RR_NAMEOP_RENAME, AT_FDCWD, from, AT_FDCWD, to, 0);
}

AGENT_EXPORT int renameat(int fd, const char *from, int tofd, const char *to)
{
	return rr_nameop(RR_NAMEOP_RENAME, fd, from, tofd, to, 0);
}

AGENT_EXPORT int renameat2(int fd, const char *from, int tofd, const char *to, unsigned flags)
{
	return rr_nameop(RR_NAMEOP_RENAME, fd, from, tofd, to, flags);
}
