// SPDX-License-Identifier: MIT
/*
 * agent_rr_dir.c - record/replay of directory contents: opendir,
 * fdopendir, readdir (readdir64, readdir_r, readdir64_r), scandir
 * (scandir64, scandirat, scandirat64), telldir, closedir, and getdents64.
 *
 * What a directory holds is input like the bytes of a file: the replay
 * runs where the recorded run left its files (and, before the replay's
 * trace went into the recording, beside the replay's own output), so a
 * listing there differs. CPython lists its script's directory when it
 * imports, `ls` and `find` print theirs, `git status` compares its index
 * with one. glibc's readdir calls getdents64 inside libc, where no
 * interposer sees it, so the streams are recorded at their own level:
 *
 * - opendir/fdopendir record whether they succeeded and the stream's
 *   descriptor. A replay opens the real directory (a later openat relative
 *   to dirfd() needs it) or, when it is gone, an inert stand-in (a
 *   directory of /proc/self: `rm -r` replayed on a tree that is gone
 *   removes nothing), at the recorded descriptor number, and makes a real DIR of it (so closedir,
 *   dirfd and rewinddir work as they do on any stream);
 * - each readdir records the entry it returned (the struct dirent64 up to
 *   its name's NUL) or the end (0, errno 0) or an error. A replay returns
 *   the recorded entry from a buffer of the stream's own (a slot keyed by
 *   the DIR, released by closedir; slots come in chunks of 64, mapped as
 *   needed; a thread-local buffer only when no chunk can be mapped),
 *   valid until the next readdir of that stream as POSIX says, and never
 *   reads the directory;
 * - readdir_r is readdir plus a copy; scandir is opendir, readdir and the
 *   program's filter and comparison here, since glibc's scandir calls its
 *   internal opendir and readdir;
 * - telldir records its result (a hash cookie on ext4); seekdir and
 *   rewinddir only move the real stream, which a replay never reads;
 * - getdents64 (the wrapper glibc exports since 2.30, and
 *   syscall(SYS_getdents64)) records the bytes the call returned.
 *
 * scandirat is scandir with openat and fdopendir. glob: agent_rr_glob.c;
 * ftw and nftw: agent_rr_ftw.c. Not seen: glibc's fts, which reads
 * directories inside libc (doc/record.md, "What is not captured"). Same
 * rules as agent_rr_io.c: one predictable branch when neither recording
 * nor replaying, calls made by the agent itself and by threads spool could
 * not number pass through.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "agent_rr.h"

#define RR_IO_OFF(t) (AGENT_LIKELY(!agent_rr_mode) || !((t) = agent_rr_io_enter()))
#define RR_REPLAYING() (agent_rr_mode & RR_MODE_REPLAY)

/* x86-64 and arm64: struct dirent is struct dirent64, the 64 forms are the
 * same functions. */
_Static_assert(sizeof(struct dirent) == sizeof(struct dirent64), "dirent64 is dirent");

static DIR *(*real_opendir)(const char *);
static DIR *(*real_fdopendir)(int);
static int (*real_closedir)(DIR *);
static struct dirent64 *(*real_readdir64)(DIR *);
static long (*real_telldir)(DIR *);

static ssize_t fb_getdents64(int fd, void *buf, size_t n)
{
	return syscall(SYS_getdents64, fd, buf, n);
}
static ssize_t (*real_getdents64)(int, void *, size_t) = fb_getdents64;

static void rr_dir_resolve_all(void)
{
	int saved;

	/* busy first: reading errno calls __errno_location, which a func:
	 * probe of libc may have patched (the agent's own call, not the
	 * program's) */
	agent_self.busy++;
	saved = errno;
	AGENT_RESOLVE(real_opendir, "opendir");
	AGENT_RESOLVE(real_fdopendir, "fdopendir");
	AGENT_RESOLVE(real_closedir, "closedir");
	AGENT_RESOLVE(real_readdir64, "readdir64");
	AGENT_RESOLVE(real_telldir, "telldir");
	AGENT_RESOLVE(real_getdents64, "getdents64");
	errno = saved;
	agent_self.busy--;
}

__attribute__((constructor)) static void agent_rr_dir_resolve(void)
{
	rr_dir_resolve_all();
}

/* Another library's constructor may list a directory before ours ran:
 * there is no raw system call that makes a DIR, so resolve then. */
static inline void rr_dir_ready(void)
{
	if (AGENT_UNLIKELY(!__atomic_load_n(&real_readdir64, __ATOMIC_RELAXED)))
		rr_dir_resolve_all();
}

/* ---- replay: an entry buffer per stream ---- */

#define RR_DIR_SLOTS 64
struct rr_dir_slot {
	DIR *d; /* the stream that owns ent, NULL when free */
	struct dirent64 ent;
};
/* Slots come in chunks: the first is static, more are mapped when a
 * program keeps more streams open at once (and never unmapped: a chunk
 * is reused as its streams close). */
struct rr_dir_chunk {
	struct rr_dir_slot slot[RR_DIR_SLOTS];
	struct rr_dir_chunk *next;
};
static struct rr_dir_chunk rr_dir_first;
static __thread struct dirent64 rr_dir_spare; /* when no chunk can be mapped */

static struct dirent64 *rr_dir_buf(DIR *d)
{
	struct rr_dir_chunk *c, *n;
	int i;

	for (c = &rr_dir_first; c; c = __atomic_load_n(&c->next, __ATOMIC_ACQUIRE))
		for (i = 0; i < RR_DIR_SLOTS; i++)
			if (__atomic_load_n(&c->slot[i].d, __ATOMIC_ACQUIRE) == d)
				return &c->slot[i].ent;
	for (c = &rr_dir_first;; c = n) {
		for (i = 0; i < RR_DIR_SLOTS; i++) {
			DIR *none = NULL;

			if (__atomic_compare_exchange_n(&c->slot[i].d, &none, d, 0,
							__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
				return &c->slot[i].ent;
		}
		n = __atomic_load_n(&c->next, __ATOMIC_ACQUIRE);
		if (n)
			continue;
		n = (struct rr_dir_chunk *)syscall(SYS_mmap, NULL, sizeof(*n),
						   PROT_READ | PROT_WRITE,
						   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (n == MAP_FAILED)
			return &rr_dir_spare;
		if (!__atomic_compare_exchange_n(&c->next, &(struct rr_dir_chunk *){NULL}, n, 0,
						 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
			/* another thread appended one first: use that */
			syscall(SYS_munmap, n, sizeof(*n));
			n = __atomic_load_n(&c->next, __ATOMIC_ACQUIRE);
		}
	}
}

static void rr_dir_release(DIR *d)
{
	struct rr_dir_chunk *c;
	int i;

	for (c = &rr_dir_first; c; c = __atomic_load_n(&c->next, __ATOMIC_ACQUIRE))
		for (i = 0; i < RR_DIR_SLOTS; i++)
			if (__atomic_load_n(&c->slot[i].d, __ATOMIC_ACQUIRE) == d)
				__atomic_store_n(&c->slot[i].d, NULL, __ATOMIC_RELEASE);
}

/* ---- replay: a real stream at the recorded descriptor ---- */

#define RR_DIR_FLAGS (O_RDONLY | O_NONBLOCK | O_DIRECTORY | O_CLOEXEC)

/* Put fd at number want when that number is free here (it was when
 * recorded); returns the descriptor to use. F_DUPFD takes the lowest free
 * number from want up in one step: a number another thread takes at the
 * same time is never closed under it (dup3 would). */
static int rr_dir_move(int fd, int want)
{
	long got;

	if (want < 0 || fd == want)
		return fd;
	got = syscall(SYS_fcntl, fd, F_DUPFD_CLOEXEC, want);
	if (got == want) {
		syscall(SYS_close, fd);
		return want;
	}
	if (got >= 0)
		syscall(SYS_close, got);
	return fd;
}

/* A directory to stand in for one the replay does not find: the stream is
 * never read (its entries come from the recording), and nothing done
 * relative to it changes anything (agent_rr_standin, agent_rr_fs.c). */
static int rr_dir_standin(void)
{
	return agent_rr_standin(1, 1);
}

static DIR *rr_opendir_rep(struct agent_thread *t, const char *path)
{
	int want, fd, e;
	DIR *d;

	want = (int)agent_rr_rep_input(t, RR_CALL_OPENDIR, -1, NULL, 0, NULL);
	if (want < 0)
		return NULL; /* errno: the recorded one */
	e = errno;
	fd = (int)syscall(SYS_openat, AT_FDCWD, path, RR_DIR_FLAGS);
	if (fd < 0)
		fd = rr_dir_standin();
	if (fd < 0) {
		errno = EMFILE;
		return NULL;
	}
	fd = rr_dir_move(fd, want);
	d = real_fdopendir(fd);
	if (!d)
		syscall(SYS_close, fd);
	errno = e;
	return d;
}

AGENT_EXPORT DIR *opendir(const char *path)
{
	struct agent_thread *t;
	DIR *d;
	int e;

	rr_dir_ready();
	if (RR_IO_OFF(t))
		return real_opendir(path);
	if (RR_REPLAYING())
		return rr_opendir_rep(t, path);
	d = real_opendir(path);
	e = errno;
	agent_rr_rec_input(t, RR_CALL_OPENDIR, -1, d ? dirfd(d) : -1, d ? 0 : e, 0, NULL, 0);
	errno = e;
	return d;
}

AGENT_EXPORT DIR *fdopendir(int fd)
{
	struct agent_thread *t;
	DIR *d;
	int e, sub;

	rr_dir_ready();
	if (RR_IO_OFF(t))
		return real_fdopendir(fd);
	if (!RR_REPLAYING()) {
		d = real_fdopendir(fd);
		e = errno;
		agent_rr_rec_input(t, RR_CALL_OPENDIR, fd, d ? fd : -1, d ? 0 : e, 0, NULL, 0);
		errno = e;
		return d;
	}
	if (agent_rr_rep_input(t, RR_CALL_OPENDIR, fd, NULL, 0, NULL) < 0)
		return NULL;
	e = errno;
	d = real_fdopendir(fd);
	if (!d && fd >= 0 && (sub = rr_dir_standin()) >= 0) {
		/* The recorded run had a directory at fd; this one has
		 * nothing there or a file: the stand-in takes its place. */
		if (syscall(SYS_dup3, sub, fd, O_CLOEXEC) >= 0)
			d = real_fdopendir(fd);
		syscall(SYS_close, sub);
	}
	errno = d ? e : EBADF;
	return d;
}

AGENT_EXPORT int closedir(DIR *d)
{
	rr_dir_ready();
	if (AGENT_UNLIKELY(agent_rr_mode & RR_MODE_REPLAY))
		rr_dir_release(d);
	return real_closedir(d);
}

/* The bytes of an entry worth keeping: up to its name's NUL. */
static size_t rr_dirent_len(const struct dirent64 *de)
{
	size_t n = offsetof(struct dirent64, d_name) + strnlen(de->d_name, sizeof(de->d_name)) + 1;

	return n < sizeof(*de) ? n : sizeof(*de);
}

AGENT_EXPORT struct dirent64 *readdir64(DIR *d)
{
	struct agent_thread *t;
	struct dirent64 *de;
	struct agent_rr_seg s;
	int saved, e;

	rr_dir_ready();
	if (RR_IO_OFF(t))
		return real_readdir64(d);
	if (RR_REPLAYING()) {
		de = rr_dir_buf(d);
		memset(de, 0, sizeof(*de));
		s.p = de;
		s.n = sizeof(*de) - 1; /* the last byte stays a NUL: the name ends */
		return agent_rr_rep_input(t, RR_CALL_READDIR, -1, &s, 1, NULL) > 0 ? de : NULL;
	}
	/* readdir says "end" by NULL with errno unchanged, "error" by NULL
	 * with errno set: clear it to tell them apart, give it back after. */
	saved = errno;
	errno = 0;
	de = real_readdir64(d);
	e = errno;
	s.p = de;
	s.n = de ? rr_dirent_len(de) : 0;
	agent_rr_rec_input(t, RR_CALL_READDIR, -1, (int64_t)s.n, de ? 0 : e, 0, &s, de ? 1 : 0);
	errno = !de && e ? e : saved;
	return de;
}

AGENT_EXPORT struct dirent *readdir(DIR *d)
{
	return (struct dirent *)readdir64(d);
}

static int rr_readdir_r(DIR *d, struct dirent64 *entry, struct dirent64 **result)
{
	struct dirent64 *de;
	int saved = errno, e;

	errno = 0;
	de = readdir64(d);
	e = errno;
	errno = saved;
	if (!de) {
		*result = NULL;
		return e;
	}
	memcpy(entry, de, rr_dirent_len(de));
	*result = entry;
	return 0;
}

AGENT_EXPORT int readdir_r(DIR *d, struct dirent *entry, struct dirent **result)
{
	return rr_readdir_r(d, (struct dirent64 *)entry, (struct dirent64 **)result);
}

AGENT_EXPORT int readdir64_r(DIR *d, struct dirent64 *entry, struct dirent64 **result)
{
	return rr_readdir_r(d, entry, result);
}

AGENT_EXPORT long telldir(DIR *d)
{
	struct agent_thread *t;
	long r;
	int e;

	rr_dir_ready();
	if (RR_IO_OFF(t))
		return real_telldir(d);
	if (RR_REPLAYING())
		return (long)agent_rr_rep_input(t, RR_CALL_TELLDIR, -1, NULL, 0, NULL);
	r = real_telldir(d);
	e = errno;
	agent_rr_rec_input(t, RR_CALL_TELLDIR, -1, r, r < 0 ? e : 0, 0, NULL, 0);
	errno = e;
	return r;
}

/*
 * scandir: glibc's reads the directory with its internal opendir and
 * readdir, so while recording or replaying it is made here of the
 * interposed ones (each recorded as itself), with the program's filter and
 * comparison, and the same result: an array of malloc'ed entries the
 * program frees.
 */
typedef int (*rr_scan_filter)(const struct dirent64 *);
typedef int (*rr_scan_cmp)(const struct dirent64 **, const struct dirent64 **);

static int rr_scandir(int dfd, const char *path, struct dirent64 ***list, rr_scan_filter filter,
		      rr_scan_cmp cmp)
{
	struct dirent64 **v = NULL, **nv, *de, *copy;
	size_t n = 0, cap = 0, i, len;
	int saved = errno, e = 0, fd;
	DIR *d;

	if (dfd == AT_FDCWD || (path && path[0] == '/')) {
		d = opendir(path);
	} else {
		/* scandirat: the interposed openat and fdopendir, each
		 * recorded as itself (the flags are glibc's). */
		fd = openat(dfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			return -1;
		d = fdopendir(fd);
		if (!d) {
			e = errno;
			close(fd);
			errno = e;
			return -1;
		}
	}
	if (!d)
		return -1;
	for (;;) {
		errno = 0;
		de = readdir64(d);
		if (!de) {
			e = errno;
			break;
		}
		if (filter && !filter(de))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				e = ENOMEM;
				break;
			}
			v = nv;
		}
		len = rr_dirent_len(de);
		copy = malloc(len);
		if (!copy) {
			e = ENOMEM;
			break;
		}
		memcpy(copy, de, len);
		v[n++] = copy;
	}
	closedir(d);
	if (e) {
		for (i = 0; i < n; i++)
			free(v[i]);
		free(v);
		errno = e;
		return -1;
	}
	if (cmp && n > 1)
		qsort(v, n, sizeof(*v), (int (*)(const void *, const void *))cmp);
	*list = v;
	errno = saved;
	return (int)n;
}

static int (*real_scandir64)(const char *, struct dirent64 ***, rr_scan_filter, rr_scan_cmp);

AGENT_EXPORT int scandir64(const char *path, struct dirent64 ***list, rr_scan_filter filter,
			   rr_scan_cmp cmp)
{
	if (AGENT_LIKELY(!agent_rr_mode) || agent_self.busy) {
		if (!__atomic_load_n(&real_scandir64, __ATOMIC_RELAXED)) {
			agent_self.busy++;
			AGENT_RESOLVE(real_scandir64, "scandir64");
			agent_self.busy--;
		}
		if (real_scandir64)
			return real_scandir64(path, list, filter, cmp);
	}
	return rr_scandir(AT_FDCWD, path, list, filter, cmp);
}

AGENT_EXPORT int scandir(const char *path, struct dirent ***list,
			 int (*filter)(const struct dirent *),
			 int (*cmp)(const struct dirent **, const struct dirent **))
{
	return scandir64(path, (struct dirent64 ***)list, (rr_scan_filter)filter, (rr_scan_cmp)cmp);
}

static int (*real_scandirat64)(int, const char *, struct dirent64 ***, rr_scan_filter,
			       rr_scan_cmp);

AGENT_EXPORT int scandirat64(int dfd, const char *path, struct dirent64 ***list,
			     rr_scan_filter filter, rr_scan_cmp cmp)
{
	if (AGENT_LIKELY(!agent_rr_mode) || agent_self.busy) {
		if (!__atomic_load_n(&real_scandirat64, __ATOMIC_RELAXED)) {
			agent_self.busy++;
			AGENT_RESOLVE(real_scandirat64, "scandirat64");
			agent_self.busy--;
		}
		if (real_scandirat64)
			return real_scandirat64(dfd, path, list, filter, cmp);
	}
	return rr_scandir(dfd, path, list, filter, cmp);
}

AGENT_EXPORT int scandirat(int dfd, const char *path, struct dirent ***list,
			   int (*filter)(const struct dirent *),
			   int (*cmp)(const struct dirent **, const struct dirent **))
{
	return scandirat64(dfd, path, (struct dirent64 ***)list, (rr_scan_filter)filter,
			   (rr_scan_cmp)cmp);
}

/* ---- getdents64 ---- */

AGENT_EXPORT ssize_t getdents64(int fd, void *buf, size_t n)
{
	struct agent_thread *t;
	struct agent_rr_seg s = {buf, n};
	ssize_t r;
	int e;

	if (RR_IO_OFF(t))
		return real_getdents64(fd, buf, n);
	if (RR_REPLAYING())
		return (ssize_t)agent_rr_rep_input(t, RR_CALL_GETDENTS, fd, &s, 1, NULL);
	r = real_getdents64(fd, buf, n);
	e = errno;
	s.n = r > 0 ? (size_t)r : 0;
	agent_rr_rec_input(t, RR_CALL_GETDENTS, fd, r, r < 0 ? e : 0, 0, &s, 1);
	errno = e;
	return r;
}
