// SPDX-License-Identifier: MIT
/*
 * agent_rr_path.c - record/replay of the names a program learns from the
 * file system: readlink and readlinkat (and their _chk forms), realpath
 * (__realpath_chk) and canonicalize_file_name, getcwd (__getcwd_chk) and
 * get_current_dir_name.
 *
 * A link's target and a resolved name are input: the replay may run where
 * a link was changed or removed, in a copy of the tree, or in a directory
 * reached through other links. CPython resolves its executable and its
 * script with them and puts the result into sys.path. glibc's realpath
 * and get_current_dir_name call their readlink and getcwd inside libc,
 * where no interposer sees them, so each is recorded as a whole.
 *
 * Recording: the real call, then a KIND_INPUT record with its result and
 * errno and the name it returned. Replay: the recorded name, in the
 * caller's buffer or, where the call allocates one (realpath with a NULL
 * buffer, getcwd(NULL, ...), canonicalize_file_name,
 * get_current_dir_name), in a malloc'ed one the program frees; the kernel
 * is not asked. A recorded name longer than the replay's buffer is a
 * divergence (the recorded call had a buffer that size). Same rules as
 * agent_rr_io.c.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "agent_rr.h"

#define RR_IO_OFF(t) (AGENT_LIKELY(!agent_rr_mode) || !((t) = agent_rr_io_enter()))
#define RR_REPLAYING() (agent_rr_mode & RR_MODE_REPLAY)
/* A bound on a name to record (PATH_MAX in practice; getcwd may go beyond) */
#define RR_NAME_MAX ((size_t)1 << 20)

static ssize_t fb_readlinkat(int d, const char *p, char *buf, size_t n)
{
	return syscall(SYS_readlinkat, d, p, buf, n);
}
static ssize_t fb_readlink(const char *p, char *buf, size_t n)
{
	return fb_readlinkat(AT_FDCWD, p, buf, n);
}
static char *fb_getcwd(char *buf, size_t n)
{
	/* the raw call needs a buffer; the constructors that run first
	 * and ask for the directory pass one */
	return buf && syscall(SYS_getcwd, buf, n) >= 0 ? buf : NULL;
}

static ssize_t (*real_readlink)(const char *, char *, size_t) = fb_readlink;
static ssize_t (*real_readlinkat)(int, const char *, char *, size_t) = fb_readlinkat;
static char *(*real_getcwd)(char *, size_t) = fb_getcwd;
static char *(*real_realpath)(const char *, char *);
static char *(*real_canonicalize)(const char *);
static char *(*real_cur_dir_name)(void);
static char *(*real_realpath_chk)(const char *, char *, size_t);

static void rr_path_resolve_all(void)
{
	int saved;

	/* busy first: reading errno calls __errno_location, which a func:
	 * probe of libc may have patched (the agent's own call, not the
	 * program's) */
	agent_self.busy++;
	saved = errno;
	AGENT_RESOLVE(real_readlink, "readlink");
	AGENT_RESOLVE(real_readlinkat, "readlinkat");
	AGENT_RESOLVE(real_getcwd, "getcwd");
	AGENT_RESOLVE(real_realpath, "realpath");
	AGENT_RESOLVE(real_canonicalize, "canonicalize_file_name");
	AGENT_RESOLVE(real_cur_dir_name, "get_current_dir_name");
	AGENT_RESOLVE(real_realpath_chk, "__realpath_chk");
	errno = saved;
	agent_self.busy--;
}

__attribute__((constructor)) static void agent_rr_path_resolve(void)
{
	rr_path_resolve_all();
}

/* realpath and the others have no raw system call to fall back on. */
static inline void rr_path_ready(void)
{
	if (AGENT_UNLIKELY(!__atomic_load_n(&real_realpath, __ATOMIC_RELAXED)))
		rr_path_resolve_all();
}

/* ---- readlink ---- */

static ssize_t rr_readlink(int at, const char *path, char *buf, size_t n)
{
	struct agent_thread *t;
	struct agent_rr_seg s = {buf, n};
	ssize_t r;
	int e;

	if (RR_IO_OFF(t))
		return at == -1 ? real_readlink(path, buf, n) : real_readlinkat(at, path, buf, n);
	if (RR_REPLAYING())
		return (ssize_t)agent_rr_rep_input(t, RR_CALL_READLINK, -1, &s, 1, NULL);
	r = at == -1 ? real_readlink(path, buf, n) : real_readlinkat(at, path, buf, n);
	e = errno;
	s.n = r > 0 ? (size_t)r : 0;
	agent_rr_rec_input(t, RR_CALL_READLINK, -1, r, r < 0 ? e : 0, 0, &s, 1);
	errno = e;
	return r;
}

AGENT_EXPORT ssize_t readlink(const char *path, char *buf, size_t n)
{
	return rr_readlink(-1, path, buf, n);
}

/* AT_FDCWD is -100, never -1: -1 above means readlink itself. */
AGENT_EXPORT ssize_t readlinkat(int dirfd, const char *path, char *buf, size_t n)
{
	return rr_readlink(dirfd == -1 ? -2 : dirfd, path, buf, n);
}

/* _FORTIFY_SOURCE builds call these when the buffer size is known (the
 * real ones abort when n > buflen; never be the reason: clamp). */
AGENT_EXPORT ssize_t __readlink_chk(const char *path, char *buf, size_t n, size_t buflen)
{
	return rr_readlink(-1, path, buf, n < buflen ? n : buflen);
}

AGENT_EXPORT ssize_t __readlinkat_chk(int dirfd, const char *path, char *buf, size_t n,
				      size_t buflen)
{
	return rr_readlink(dirfd == -1 ? -2 : dirfd, path, buf, n < buflen ? n : buflen);
}

/* ---- names returned as strings ---- */

void agent_rr_rep_kind(uint64_t recorded, uint64_t replay, const char *const *names,
		       unsigned nnames)
{
	char text[160];
	size_t n = 0;
	const char *parts[5];

	if (recorded == replay)
		return;
	parts[0] = "replay diverged: a different call\n  recorded: ";
	parts[1] = recorded < nnames && names[recorded] ? names[recorded] : "?";
	parts[2] = "\n  replay:   ";
	parts[3] = replay < nnames && names[replay] ? names[replay] : "?";
	parts[4] = "";
	for (int i = 0; i < 5; i++)
		for (const char *p = parts[i]; *p && n + 1 < sizeof(text); p++)
			text[n++] = *p;
	text[n] = 0;
	agent_rr_stop(text, 0);
}

static const char *const rr_name_kinds[] = {
    [RR_NAME_REALPATH] = "realpath", [RR_NAME_CWD] = "getcwd"};

/* Record a name a call of kind RR_NAME_* returned (or its failure). */
static char *rr_name_rec(struct agent_thread *t, unsigned kind, char *name)
{
	int e = errno;
	struct agent_rr_seg s = {name, name ? strnlen(name, RR_NAME_MAX) + 1 : 0};

	agent_rr_rec_input(t, RR_CALL_REALPATH, -1, name ? (int64_t)s.n : -1, name ? 0 : e, kind,
			   &s, 1);
	errno = e;
	return name;
}

/* Replay a recorded name of kind RR_NAME_* into buf (cap bytes), or into a
 * malloc'ed copy when buf is NULL; NULL with the recorded errno when the
 * call failed.
 * The recorded bytes land in a zeroed buffer of ours first: a name from a
 * trace (hostile input) without its NUL is cut, and the caller's buffer
 * gets the name and one NUL, nothing more, as from the real call. */
static char *rr_name_rep(struct agent_thread *t, unsigned kind, char *buf, size_t cap)
{
	char tmp[PATH_MAX];
	struct agent_rr_seg s;
	uint64_t arg = 0;
	int64_t r;
	size_t len;
	char *out;

	if (buf && cap == 0) {
		errno = EINVAL;
		return NULL;
	}
	memset(tmp, 0, sizeof(tmp));
	s.p = tmp;
	s.n = buf && cap < sizeof(tmp) ? cap : sizeof(tmp) - 1; /* tmp ends with a NUL */
	r = agent_rr_rep_input(t, RR_CALL_REALPATH, -1, &s, 1, &arg);
	agent_rr_rep_kind(arg, kind, rr_name_kinds, 2);
	if (r < 0)
		return NULL;
	len = strnlen(tmp, s.n);
	if (buf && len >= cap)
		len = cap - 1;
	out = buf ? buf : malloc(len + 1);
	if (!out) {
		errno = ENOMEM;
		return NULL;
	}
	memcpy(out, tmp, len);
	out[len] = 0;
	return out;
}

AGENT_EXPORT char *realpath(const char *path, char *resolved)
{
	struct agent_thread *t;

	rr_path_ready();
	if (RR_IO_OFF(t))
		return real_realpath(path, resolved);
	if (RR_REPLAYING())
		return rr_name_rep(t, RR_NAME_REALPATH, resolved, PATH_MAX);
	return rr_name_rec(t, RR_NAME_REALPATH, real_realpath(path, resolved));
}

/* _FORTIFY_SOURCE builds call this when the buffer's size is known. A
 * buffer below PATH_MAX goes to the real one, which stops the program as
 * it would without spool; the others are realpath's. */
AGENT_EXPORT char *__realpath_chk(const char *path, char *resolved, size_t len)
{
	rr_path_ready();
	if (resolved && len < PATH_MAX && real_realpath_chk)
		return real_realpath_chk(path, resolved, len);
	return realpath(path, resolved);
}

AGENT_EXPORT char *canonicalize_file_name(const char *path)
{
	struct agent_thread *t;

	rr_path_ready();
	if (RR_IO_OFF(t))
		return real_canonicalize(path);
	if (RR_REPLAYING())
		return rr_name_rep(t, RR_NAME_REALPATH, NULL, 0);
	return rr_name_rec(t, RR_NAME_REALPATH, real_canonicalize(path));
}

AGENT_EXPORT char *getcwd(char *buf, size_t n)
{
	struct agent_thread *t;
	char *r;

	if (RR_IO_OFF(t))
		return real_getcwd(buf, n);
	if (!RR_REPLAYING())
		return rr_name_rec(t, RR_NAME_CWD, real_getcwd(buf, n));
	if (buf)
		return rr_name_rep(t, RR_NAME_CWD, buf, n);
	/* glibc: a NULL buffer is allocated, n bytes (or as needed when 0) */
	if (n) {
		buf = malloc(n);
		if (!buf) {
			errno = ENOMEM;
			return NULL;
		}
		r = rr_name_rep(t, RR_NAME_CWD, buf, n);
		if (!r)
			free(buf);
		return r;
	}
	return rr_name_rep(t, RR_NAME_CWD, NULL, 0);
}

AGENT_EXPORT char *__getcwd_chk(char *buf, size_t n, size_t buflen)
{
	return getcwd(buf, n < buflen ? n : buflen);
}

AGENT_EXPORT char *get_current_dir_name(void)
{
	struct agent_thread *t;

	rr_path_ready();
	if (RR_IO_OFF(t))
		return real_cur_dir_name();
	if (RR_REPLAYING())
		return rr_name_rep(t, RR_NAME_CWD, NULL, 0);
	return rr_name_rec(t, RR_NAME_CWD, real_cur_dir_name());
}
