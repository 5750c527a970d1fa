// SPDX-License-Identifier: MIT
/*
 * agent_rr_glob.c - record/replay of glob and glob64. glibc's glob reads
 * directories with its internal opendir and readdir, where no interposer
 * sees them, so its result is recorded as a whole: the names it added to
 * the glob_t, its return value and the glob_t's gl_flags. A replay builds
 * the same glob_t (malloc'ed as glibc's is: the program's globfree frees
 * it) without reading any directory.
 *
 * Two RR_CALL_REALPATH records (the call for names returned): the first,
 * kind RR_NAME_GLOB, has the result and in arg the kind, the number of
 * names, and gl_flags; the second, kind RR_NAME_GLOB_NAMES, has the names,
 * each with its NUL, and in result their bytes (so the replay knows how
 * much room to make before it reads them). Both are hostile input in a
 * replay: the names are cut at the bytes recorded, never more strings than
 * were stored are taken, and a size above RR_GLOB_MAX_BYTES diverges.
 *
 * Not recorded (passed to glibc as they are, in both runs): a glob with an
 * errfunc (glibc calls it on directories it cannot read, and what the
 * program does there cannot be replayed from a list of names) or with
 * GLOB_ALTDIRFUNC (the program's own directory functions, which use the
 * interposed calls themselves).
 */
#include <dlfcn.h>
#include <errno.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>

#include "agent_rr.h"

#define RR_IO_OFF(t) (AGENT_LIKELY(!agent_rr_mode) || !((t) = agent_rr_io_enter()))
#define RR_REPLAYING() (agent_rr_mode & RR_MODE_REPLAY)
#define RR_GLOB_MAX_BYTES (64u << 20)

/* x86-64 and arm64: glob64_t is glob_t but for its function pointers'
 * types. */
_Static_assert(sizeof(glob64_t) == sizeof(glob_t), "glob64_t is glob_t");

typedef int (*rr_glob_errfunc)(const char *, int);

static int (*real_glob)(const char *, int, rr_glob_errfunc, glob_t *);

static const char *const rr_glob_kinds[] = {[RR_NAME_REALPATH] = "realpath",
					    [RR_NAME_CWD] = "getcwd",
					    [RR_NAME_GLOB] = "glob",
					    [RR_NAME_GLOB_NAMES] = "glob"};

static void rr_glob_resolve(void)
{
	int saved;

	/* busy first: reading errno calls __errno_location, which a func:
	 * probe of libc may have patched (the agent's own call, not the
	 * program's) */
	agent_self.busy++;
	saved = errno;
	AGENT_RESOLVE(real_glob, "glob");
	errno = saved;
	agent_self.busy--;
}

__attribute__((constructor)) static void agent_rr_glob_resolve(void)
{
	rr_glob_resolve();
}

static size_t rr_glob_offs(int flags, const glob_t *g)
{
	return (flags & GLOB_DOOFFS) ? g->gl_offs : 0;
}

static int rr_glob_rec(struct agent_thread *t, const char *pat, int flags, glob_t *g)
{
	size_t before = (flags & GLOB_APPEND) ? g->gl_pathc : 0, offs, i, n, bytes = 0;
	struct agent_rr_seg seg[64];
	int rc, e, k = 0;

	rc = real_glob(pat, flags, NULL, g);
	e = errno;
	offs = rr_glob_offs(flags, g);
	n = g->gl_pathv && g->gl_pathc > before ? g->gl_pathc - before : 0;
	for (i = 0; i < n; i++)
		bytes += strnlen(g->gl_pathv[offs + before + i], RR_GLOB_MAX_BYTES) + 1;
	agent_rr_rec_input(t, RR_CALL_REALPATH, -1, rc, rc ? e : 0,
			   RR_NAME_GLOB | (uint64_t)(uint32_t)n << 8 |
			       (uint64_t)(uint32_t)g->gl_flags << 40,
			   NULL, 0);
	/* the names, in groups of up to 64 segments (one record each) */
	agent_rr_rec_input(t, RR_CALL_REALPATH, -1, (int64_t)bytes, 0, RR_NAME_GLOB_NAMES, NULL, 0);
	for (i = 0; i < n;) {
		size_t b = 0;

		for (k = 0; k < 64 && i < n; k++, i++) {
			seg[k].p = g->gl_pathv[offs + before + i];
			seg[k].n = strnlen(g->gl_pathv[offs + before + i], RR_GLOB_MAX_BYTES) + 1;
			b += seg[k].n;
		}
		agent_rr_rec_input(t, RR_CALL_REALPATH, -1, (int64_t)b, 0, RR_NAME_GLOB_NAMES, seg,
				   k);
	}
	errno = e;
	return rc;
}

/* Replay: the glob_t as glibc leaves it, from the recorded names. */
static int rr_glob_rep(struct agent_thread *t, int flags, glob_t *g)
{
	uint64_t arg = 0, garg = 0;
	size_t before, offs, n, total, got = 0, have, i;
	char **v, *buf = NULL;
	int64_t rc, bytes;
	int e;

	rc = agent_rr_rep_input(t, RR_CALL_REALPATH, -1, NULL, 0, &garg);
	e = errno;
	agent_rr_rep_kind(garg & 0xff, RR_NAME_GLOB, rr_glob_kinds, 4);
	n = (size_t)((garg >> 8) & 0xffffffffu);
	bytes = agent_rr_rep_input(t, RR_CALL_REALPATH, -1, NULL, 0, &arg);
	agent_rr_rep_kind(arg & 0xff, RR_NAME_GLOB_NAMES, rr_glob_kinds, 4);
	if (bytes < 0 || (uint64_t)bytes > RR_GLOB_MAX_BYTES)
		agent_rr_stop("replay diverged: a recorded glob result of more than 64 MiB", 0);
	buf = malloc((size_t)bytes + 1);
	if (!buf)
		return GLOB_NOSPACE;
	/* the groups of names, until the recorded bytes are in */
	while (got < (size_t)bytes) {
		struct agent_rr_seg s = {buf + got, (size_t)bytes - got};
		int64_t b = agent_rr_rep_input(t, RR_CALL_REALPATH, -1, &s, 1, &arg);

		agent_rr_rep_kind(arg & 0xff, RR_NAME_GLOB_NAMES, rr_glob_kinds, 4);
		if (b <= 0 || (uint64_t)b > (size_t)bytes - got)
			break;
		got += (size_t)b;
	}
	buf[got] = 0;
	have = got;

	if (!(flags & GLOB_APPEND)) {
		g->gl_pathc = 0;
		g->gl_pathv = NULL;
	}
	before = g->gl_pathc;
	offs = rr_glob_offs(flags, g);
	total = offs + before + n + 1;
	v = realloc(g->gl_pathv, total * sizeof(*v));
	if (!v) {
		free(buf);
		return GLOB_NOSPACE;
	}
	if (!g->gl_pathv)
		for (i = 0; i < offs; i++)
			v[i] = NULL;
	g->gl_pathv = v;
	/* at most n strings, and only those the recorded bytes hold */
	for (i = 0, got = 0; i < n && got < have; i++) {
		size_t len = strnlen(buf + got, have - got) + 1; /* buf[have] is a NUL */
		char *name = malloc(len);

		if (!name)
			break;
		memcpy(name, buf + got, len);
		v[offs + before + i] = name;
		got += len;
	}
	g->gl_pathc = before + i;
	v[offs + g->gl_pathc] = NULL;
	g->gl_flags = (int)(uint32_t)(garg >> 40);
	free(buf);
	errno = e;
	return (int)rc;
}

AGENT_EXPORT int glob(const char *pat, int flags, rr_glob_errfunc errfunc, glob_t *g)
{
	struct agent_thread *t;

	if (AGENT_UNLIKELY(!__atomic_load_n(&real_glob, __ATOMIC_RELAXED)))
		rr_glob_resolve();
	if (errfunc || (flags & GLOB_ALTDIRFUNC) || RR_IO_OFF(t))
		return real_glob(pat, flags, errfunc, g);
	if (RR_REPLAYING())
		return rr_glob_rep(t, flags, g);
	return rr_glob_rec(t, pat, flags, g);
}

AGENT_EXPORT int glob64(const char *pat, int flags, rr_glob_errfunc errfunc, glob64_t *g)
{
	return glob(pat, flags, errfunc, (glob_t *)g);
}
