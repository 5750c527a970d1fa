// SPDX-License-Identifier: MIT
/*
 * agent_rr_ftw.c - record and replay of glibc's tree walks, ftw and nftw
 * (ftw64, nftw64; doc/record.md, "Directory contents and names").
 *
 * glibc walks the tree with its internal opendir, readdir and stat, which
 * no interposer sees, and calls the program's function for each entry. So
 * the walk is recorded at the level the program sees it: while recording,
 * glibc's walk runs with a function of the agent's in place of the
 * program's, which writes one input record (the path, the struct stat, the
 * type flag, the struct FTW, and with FTW_CHDIR the directory the walk is
 * in) and then calls the program's; when the walk returns, one more record
 * says what it returned. The program's function runs as usual in between,
 * its own calls recorded as themselves. A replay reads no directory: it
 * calls the program's function once per recorded entry, with the recorded
 * arguments (with FTW_CHDIR it goes to the recorded directory first), until
 * the end record, and returns what the walk returned. With FTW_ACTIONRETVAL
 * the program's answers steer glibc's walk; they are the same in the
 * replay, so the recorded entries are the ones that follow.
 *
 * The program's function is found through a thread-local pointer to the
 * walk in progress (struct rr_walk, on the stack of the ftw call; a walk
 * inside the function links to the outer one). Records come from the
 * trace, which is untrusted: every length is checked.
 */
#include <dlfcn.h>
#include <errno.h>
/* ftw.h declares the 64 forms with struct stat64 (the same layout on
 * 64-bit targets): keep its declarations out of the way of ours. */
#define nftw64 rr_libc_nftw64
#define ftw64 rr_libc_ftw64
#include <ftw.h>
#undef nftw64
#undef ftw64
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "agent.h"
#include "agent_rr.h"

enum { RR_FTW_ENTRY = 1, RR_FTW_END = 2 };

struct rr_ftw_ent {
	int32_t flag, base, level;
	uint32_t pathlen, cwdlen, has_stat; /* lengths with their NUL */
	struct stat st;
};

typedef int (*rr_nftw_fn)(const char *, const struct stat *, int, struct FTW *);
typedef int (*rr_ftw_fn)(const char *, const struct stat *, int);

struct rr_walk {
	rr_nftw_fn fn;	   /* nftw's, or NULL ... */
	rr_ftw_fn old_fn;  /* ... and ftw's */
	struct agent_thread *t;
	int chdir;	   /* FTW_CHDIR: the directory goes into each record */
	struct rr_walk *outer;
};
static __thread struct rr_walk *rr_walk_now;

static int (*real_nftw)(const char *, rr_nftw_fn, int, int);
static int (*real_ftw)(const char *, rr_ftw_fn, int);

/* Record: the directory the walk is in (raw: not the program's getcwd). */
static size_t rr_cwd(char *buf, size_t cap)
{
	long n = syscall(SYS_getcwd, buf, cap);

	return n > 0 ? (size_t)n : 0; /* with its NUL */
}

static void rr_ftw_rec(struct rr_walk *w, unsigned kind, int64_t result, int err,
		       const char *path, const struct stat *st, int flag, const struct FTW *f)
{
	char cwd[PATH_MAX];
	struct rr_ftw_ent e;
	struct agent_rr_seg s[3];
	size_t plen = path ? strnlen(path, PATH_MAX - 1) + 1 : 0;

	memset(&e, 0, sizeof(e));
	e.flag = flag;
	e.base = f ? f->base : 0;
	e.level = f ? f->level : 0;
	e.pathlen = (uint32_t)plen;
	e.cwdlen = w->chdir ? (uint32_t)rr_cwd(cwd, sizeof(cwd)) : 0;
	if (st) {
		e.has_stat = 1;
		memcpy(&e.st, st, sizeof(e.st));
	}
	s[0] = (struct agent_rr_seg){&e, sizeof(e)};
	s[1] = (struct agent_rr_seg){(void *)path, plen};
	s[2] = (struct agent_rr_seg){cwd, e.cwdlen};
	agent_rr_rec_input(w->t, RR_CALL_FTW, -1, result, err,
			   kind | (uint64_t)(sizeof(e) + plen + e.cwdlen) << 32, s, 3);
}

/* Record: glibc calls this for each entry. */
static int rr_ftw_entry(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	struct rr_walk *w = rr_walk_now;
	int r, e = errno;

	rr_ftw_rec(w, RR_FTW_ENTRY, 0, 0, path, st, flag, f);
	errno = e;
	if (w->fn)
		return w->fn(path, st, flag, f);
	r = w->old_fn(path, st, flag);
	return r;
}

static int rr_ftw_entry_old(const char *path, const struct stat *st, int flag)
{
	return rr_ftw_entry(path, st, flag, NULL);
}

/* Replay: the recorded entries to the program's function, then the walk's
 * result. */
static int rr_ftw_replay(struct rr_walk *w)
{
	static const char *const kinds[] = {[RR_FTW_ENTRY] = "an entry of ftw/nftw",
					    [RR_FTW_END] = "the end of ftw/nftw"};
	union {
		struct rr_ftw_ent e;
		char b[sizeof(struct rr_ftw_ent) + 2 * PATH_MAX];
	} u;
	struct agent_rr_seg s = {&u, sizeof(u)};
	struct FTW f;
	uint64_t arg;
	size_t len;
	int64_t r;
	int e;

	for (;;) {
		char *path, *cwd;

		arg = 0;
		r = agent_rr_rep_input(w->t, RR_CALL_FTW, -1, &s, 1, &arg);
		e = errno;
		len = (size_t)(arg >> 32);
		if ((arg & 0xff) != RR_FTW_ENTRY && (arg & 0xff) != RR_FTW_END)
			agent_rr_rep_kind(arg & 0xff, RR_FTW_END, kinds, 3);
		if (len < sizeof(u.e) || len > sizeof(u) || u.e.pathlen > PATH_MAX ||
		    u.e.cwdlen > PATH_MAX || sizeof(u.e) + u.e.pathlen + u.e.cwdlen != len)
			agent_rr_stop("replay stopped: a damaged ftw/nftw record (its lengths do not "
				      "add up)",
				      0);
		path = u.b + sizeof(u.e);
		cwd = path + u.e.pathlen;
		if ((u.e.pathlen && path[u.e.pathlen - 1]) || (u.e.cwdlen && cwd[u.e.cwdlen - 1]))
			agent_rr_stop("replay stopped: a damaged ftw/nftw record (a name without "
				      "its end)",
				      0);
		if (u.e.cwdlen)
			syscall(SYS_chdir, cwd); /* where glibc's walk was; gone: stay */
		if ((arg & 0xff) == RR_FTW_END) {
			errno = e;
			return (int)r;
		}
		f.base = u.e.base;
		f.level = u.e.level;
		errno = e;
		if (w->fn)
			w->fn(u.e.pathlen ? path : "", u.e.has_stat ? &u.e.st : NULL, u.e.flag, &f);
		else
			w->old_fn(u.e.pathlen ? path : "", u.e.has_stat ? &u.e.st : NULL, u.e.flag);
	}
}

static int rr_walk(const char *dir, rr_nftw_fn fn, rr_ftw_fn old_fn, int nopen, int flags)
{
	struct rr_walk w = {fn, old_fn, NULL, !!(flags & FTW_CHDIR), rr_walk_now};
	int r, e;

	if (AGENT_LIKELY(!agent_rr_mode) || !(w.t = agent_rr_io_enter()))
		return fn ? AGENT_RESOLVE_LAZY(real_nftw, "nftw")(dir, fn, nopen, flags)
			  : AGENT_RESOLVE_LAZY(real_ftw, "ftw")(dir, old_fn, nopen);
	rr_walk_now = &w;
	if (agent_rr_mode & RR_MODE_REPLAY) {
		r = rr_ftw_replay(&w);
	} else {
		r = fn ? AGENT_RESOLVE_LAZY(real_nftw, "nftw")(dir, rr_ftw_entry, nopen, flags)
		       : AGENT_RESOLVE_LAZY(real_ftw, "ftw")(dir, rr_ftw_entry_old, nopen);
		e = errno;
		rr_ftw_rec(&w, RR_FTW_END, r, e, NULL, NULL, 0, NULL);
		errno = e;
	}
	rr_walk_now = w.outer;
	return r;
}

AGENT_EXPORT int nftw(const char *dir, rr_nftw_fn fn, int nopen, int flags)
{
	return rr_walk(dir, fn, NULL, nopen, flags);
}

AGENT_EXPORT int nftw64(const char *dir, rr_nftw_fn fn, int nopen, int flags)
{
	return rr_walk(dir, fn, NULL, nopen, flags);
}

AGENT_EXPORT int ftw(const char *dir, rr_ftw_fn fn, int nopen)
{
	return rr_walk(dir, NULL, fn, nopen, 0);
}

AGENT_EXPORT int ftw64(const char *dir, rr_ftw_fn fn, int nopen)
{
	return rr_walk(dir, NULL, fn, nopen, 0);
}
