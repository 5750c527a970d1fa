// SPDX-License-Identifier: MIT
/*
 * tracedir.c - making room for a new trace directory without ever harming
 * what the user keeps there (trace.h: trace_dir_prepare).
 *
 * `-o DIR` used to move whatever was at DIR to DIR.old and delete an older
 * DIR.old recursively: `-o proj` twice deleted a project. Now spool moves or
 * removes only what it recognizes as its own trace, and is strict about it:
 * a real directory (not a link) owned by the user, whose top level holds
 * nothing but what the writer creates (metadata, .metadata.tmp, stream_N,
 * the .spool side directory, and replays/, where each entry is a replay's
 * trace named by its number that passes the same test), whose .spool holds
 * nothing but what spool writes there, at every depth (td_side_known), and
 * whose metadata is a regular file that starts with spool's signature. An empty directory is removed (nothing is
 * lost). Everything else is an error naming it; the user decides.
 *
 * Nothing here follows a symbolic link: the directory is lstat'ed and opened
 * with O_NOFOLLOW, its entries are looked at with AT_SYMLINK_NOFOLLOW, and
 * the metadata is opened as every file of a trace is (untrusted.h: no link,
 * and a FIFO there cannot hang us). The removal of an old trace does not follow links either
 * (files_rm_tree: nftw with FTW_PHYS).
 *
 * A new trace is written beside DIR, as DIR.writing.PID, and renamed to
 * DIR only once its writer has finished (trace_dir_install, from
 * trace_writer_close): a spool killed mid-run leaves DIR as it was (the
 * previous trace, or nothing) and its partial trace under the .writing
 * name, which every reader says is incomplete, and which the next spool
 * writing DIR names at its start (stale.c; spool recover keeps or removes
 * it, on request only). The checks run at the start too (trace_dir_check),
 * so a refused DIR is said before the program runs, not after.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/files.h"
#include "../util/log.h"
#include "trace.h"
#include "trace_int.h"
#include "untrusted.h"

enum td_kind { TD_ABSENT, TD_EMPTY, TD_SPOOL, TD_OTHER };

/* A stranger's name below the trace: .spool/proc/NAME at most */
#define TD_STRANGER_MAX (2 * NAME_MAX + 16)

/* Whether `name` is one the writer puts at a trace's top level, and of
 * which type it must be (S_IFREG or S_IFDIR); 0 if none. */
static mode_t td_known(const char *name)
{
	const char *p;

	if (!strcmp(name, TRACE_METADATA) || !strcmp(name, TRACE_METADATA_TMP))
		return S_IFREG;
	if (!strcmp(name, TRACE_SIDE_DIR) || !strcmp(name, TRACE_REPLAYS_DIR))
		return S_IFDIR;
	if (strncmp(name, TRACE_STREAM_PREFIX, strlen(TRACE_STREAM_PREFIX)))
		return 0;
	p = name + strlen(TRACE_STREAM_PREFIX);
	if (!*p)
		return 0;
	for (; *p; p++)
		if (*p < '0' || *p > '9')
			return 0;
	return S_IFREG;
}

/* Whether the metadata file at dfd starts with spool's signature. Opened
 * as any file of a trace is (untrusted.h): no link, no FIFO, regular. */
static int td_metadata_ours(int dfd)
{
	static const char sig[] = TRACE_METADATA_SIGNATURE;
	char buf[sizeof(sig)];
	size_t got = 0;
	int fd, ours;

	fd = trace_open_in(dfd, TRACE_METADATA, TRACE_NO_MAX, NULL);
	if (fd < 0)
		return 0;
	while (got < sizeof(sig) - 1) {
		ssize_t n = read(fd, buf + got, sizeof(sig) - 1 - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	ours = got == sizeof(sig) - 1 && !memcmp(buf, sig, got);
	close(fd);
	return ours;
}

/*
 * What spool writes inside a trace's .spool directory, by name: a user file
 * planted there (a note, a copy of the project, a link to elsewhere) was
 * removed with the trace without a word while only the top level was
 * checked. The list is every name a writer makes (trace-format.md "Side
 * files"; a new side file is added here, or a trace holding it is refused
 * as not spool's own, which loses nothing):
 *   .spool/NAME[.tmp]                    NAME among td_side_names
 *   .spool/replay.img.PID.tmp            a replay's image being written
 *   .spool/proc/PID[.execK].KIND[.tmp]   KIND exe, cmdline, maps, buildids
 *   .spool/snap/snap_N.zst, snap_N.tmp   the snapshots (agent_snap_img.c)
 * Regular files and those two directories only, nothing deeper, owned by
 * the user; no link of any kind is followed or accepted.
 */
static const char *const td_side_names[] = {
    "state", "summary", "record", "environ", "output", "argv", "early_io", "coverage", "exec",
    "sys", "probe_changes", "probes", "vars", "stdin", "stdin.kind", "stream", "replay.img",
};

/* s starts with a decimal number: the rest of s, or NULL. */
static const char *td_digits(const char *s)
{
	const char *p = s;

	while (*p >= '0' && *p <= '9')
		p++;
	return p == s ? NULL : p;
}

/* s is exactly `word`, or `word` followed by ".tmp" */
static int td_word_tmp(const char *s, const char *word)
{
	size_t n = strlen(word);

	return !strncmp(s, word, n) && (!s[n] || !strcmp(s + n, ".tmp"));
}

/* Whether `name` in .spool/`sub` (NULL: in .spool itself) is one spool
 * writes, and of which type: S_IFREG, S_IFDIR or 0. */
static mode_t td_side_known(const char *sub, const char *name)
{
	static const char *const kinds[] = {".exe", ".cmdline", ".maps", ".buildids"};
	const char *p;

	if (!sub) {
		for (size_t i = 0; i < sizeof(td_side_names) / sizeof(td_side_names[0]); i++)
			if (td_word_tmp(name, td_side_names[i]))
				return S_IFREG;
		if (!strcmp(name, "proc") || !strcmp(name, "snap"))
			return S_IFDIR;
		if (!strncmp(name, "replay.img.", 11) && (p = td_digits(name + 11)) &&
		    !strcmp(p, ".tmp"))
			return S_IFREG;
		return 0;
	}
	if (!strcmp(sub, "snap"))
		return !strncmp(name, "snap_", 5) && (p = td_digits(name + 5)) &&
			       (!strcmp(p, ".zst") || !strcmp(p, ".tmp"))
			   ? S_IFREG
			   : 0;
	/* proc */
	p = td_digits(name);
	if (!p)
		return 0;
	if (!strncmp(p, ".exec", 5) && !(p = td_digits(p + 5)))
		return 0;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (td_word_tmp(p, kinds[i]))
			return S_IFREG;
	return 0;
}

/*
 * Whether everything under the directory at dfd (.spool, or one of its
 * two directories when sub is set) is what spool writes there (above).
 * 1 when it is; 0 with the first stranger's path below the trace in
 * stranger. Takes dfd (closed here).
 */
static int td_side_ours(int dfd, const char *sub, char *stranger, size_t len)
{
	DIR *d = fdopendir(dfd);
	struct dirent *de;
	int ours = 1;

	if (!d) {
		close(dfd);
		snprintf(stranger, len, "%s%s%s", TRACE_SIDE_DIR, sub ? "/" : "", sub ? sub : "");
		return 0;
	}
	while (ours && (de = readdir(d))) {
		struct stat st;
		mode_t want;
		int sfd;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		want = td_side_known(sub, de->d_name);
		if (!want || fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    (st.st_mode & S_IFMT) != want || st.st_uid != geteuid()) {
			snprintf(stranger, len, "%s/%s%s%s", TRACE_SIDE_DIR, sub ? sub : "",
				 sub ? "/" : "", de->d_name);
			ours = 0;
		} else if (want == S_IFDIR) {
			/* (only at the first level: td_side_known names no
			 * directory inside proc/ or snap/) */
			sfd = openat(dirfd(d), de->d_name,
				     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sfd < 0) {
				snprintf(stranger, len, "%s/%s", TRACE_SIDE_DIR, de->d_name);
				ours = 0;
			} else {
				ours = td_side_ours(sfd, de->d_name, stranger, len);
			}
		}
	}
	closedir(d);
	return ours;
}

static int td_kind(const char *dir, char *why, size_t len, int depth, char *where,
		   size_t wlen);

/* Whether dir/replays holds only what spool replay writes there: traces
 * (or empty directories) named by their number. A replay's trace never
 * has replays of its own (depth 1). When not, the first stranger's path
 * below dir goes to where ("replays/2/.spool/notes"). */
static int td_replays_ours(const char *dir, char *where, size_t wlen)
{
	char path[PATH_MAX], why[TD_STRANGER_MAX + 128], sub[TD_STRANGER_MAX];
	struct dirent *de;
	int ours = 1, kind;
	const char *p;
	DIR *d;

	snprintf(where, wlen, "%s", TRACE_REPLAYS_DIR);
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, TRACE_REPLAYS_DIR) >= sizeof(path))
		return 0;
	d = opendir(path);
	if (!d)
		return 0;
	while (ours && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(where, wlen, "%s/%s", TRACE_REPLAYS_DIR, de->d_name);
		for (p = de->d_name; *p >= '0' && *p <= '9'; p++)
			;
		if (p == de->d_name || *p) {
			ours = 0;
			break;
		}
		if ((size_t)snprintf(path, sizeof(path), "%s/%s/%s", dir, TRACE_REPLAYS_DIR,
				     de->d_name) >= sizeof(path)) {
			ours = 0;
			break;
		}
		sub[0] = 0;
		kind = td_kind(path, why, sizeof(why), 1, sub, sizeof(sub));
		ours = kind == TD_SPOOL || kind == TD_EMPTY;
		if (!ours && sub[0])
			snprintf(where, wlen, "%s/%.*s/%s", TRACE_REPLAYS_DIR, NAME_MAX, de->d_name,
				 sub);
	}
	closedir(d);
	return ours;
}

/* What is at `dir`: TD_* or a negative errno; for TD_OTHER, why (a phrase
 * after the name: "is a regular file") and, when it holds something spool
 * did not write, that thing's path below dir in where (when not NULL).
 * depth 1: a replay's trace inside a recording (no replays/ of its own). */
static int td_kind(const char *dir, char *why, size_t len, int depth, char *where,
		   size_t wlen)
{
	char stranger[TD_STRANGER_MAX] = "", side[TD_STRANGER_MAX];
	int dfd, n = 0, kind, wrong_type = 0;
	struct dirent *de;
	struct stat st;
	DIR *d;

	if (lstat(dir, &st) < 0)
		return errno == ENOENT ? TD_ABSENT : -errno;
	if (S_ISLNK(st.st_mode)) {
		snprintf(why, len, "is a symbolic link");
		return TD_OTHER;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(why, len, "is %s",
			 S_ISREG(st.st_mode) ? "a regular file" : "not a directory");
		return TD_OTHER;
	}
	if (st.st_uid != geteuid()) {
		snprintf(why, len, "belongs to another user");
		return TD_OTHER;
	}
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	d = fdopendir(dfd);
	if (!d) {
		int err = -errno;

		close(dfd);
		return err;
	}
	while ((de = readdir(d))) {
		mode_t want;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		n++;
		want = td_known(de->d_name);
		if (want && !strcmp(de->d_name, TRACE_REPLAYS_DIR) && depth)
			want = 0;
		if (!want) {
			if (!stranger[0])
				snprintf(stranger, sizeof(stranger), "%s", de->d_name);
			continue;
		}
		if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    (st.st_mode & S_IFMT) != want) {
			if (!stranger[0])
				snprintf(stranger, sizeof(stranger), "%s", de->d_name);
			wrong_type = 1;
		} else if (!strcmp(de->d_name, TRACE_REPLAYS_DIR) && !td_replays_ours(dir, side,
										sizeof(side))) {
			/* removed with the trace: only replays' traces */
			if (!stranger[0]) {
				snprintf(stranger, sizeof(stranger), "%s", side);
				wrong_type = 2;
			}
		} else if (!strcmp(de->d_name, TRACE_SIDE_DIR)) {
			/* removed with the trace too: only what spool writes
			 * there, at every depth */
			int sfd = openat(dfd, de->d_name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			if (sfd < 0)
				snprintf(side, sizeof(side), "%s", TRACE_SIDE_DIR);
			if ((sfd < 0 || !td_side_ours(sfd, NULL, side, sizeof(side))) &&
			    !stranger[0])
				snprintf(stranger, sizeof(stranger), "%s", side);
		}
	}
	if (!n) {
		kind = TD_EMPTY;
	} else if (!td_metadata_ours(dfd)) {
		kind = TD_OTHER;
		if (stranger[0])
			snprintf(why, len,
				 "is a directory that is not a spool trace (it holds '%s')",
				 stranger);
		else
			snprintf(why, len,
				 "is a directory that is not a spool trace (no spool metadata)");
	} else if (stranger[0]) {
		kind = TD_OTHER;
		snprintf(why, len, "is a spool trace that also holds '%s'%s", stranger,
			 wrong_type == 2 && !strchr(stranger, '/')
			     ? " with files that are not replays' traces"
			 : wrong_type == 1 ? " of a type spool does not write there"
					   : ", which spool did not write");
		if (where)
			snprintf(where, wlen, "%s", stranger);
	} else {
		kind = TD_SPOOL;
	}
	closedir(d); /* closes dfd */
	return kind;
}

/* `dir` without its trailing slashes ("-o out/" is out: its .old is
 * out.old, not out/.old), and its .old name. */
static int td_names(const char *dir, char *path, size_t plen, char *old, size_t olen)
{
	size_t len = strlen(dir);

	while (len > 1 && dir[len - 1] == '/')
		len--;
	if (len >= plen || len + 5 > olen)
		return -ENAMETOOLONG;
	memcpy(path, dir, len);
	path[len] = 0;
	snprintf(old, olen, "%s.old", path);
	return 0;
}

static int td_same(const char *a, const struct stat *b)
{
	struct stat st;

	return stat(a, &st) == 0 && st.st_dev == b->st_dev && st.st_ino == b->st_ino;
}

int trace_dir_replaces(const char *dir, const char *keep)
{
	char path[PATH_MAX], old[PATH_MAX + 8];
	struct stat st;

	if (stat(keep, &st) < 0 || td_names(dir, path, sizeof(path), old, sizeof(old)) < 0)
		return 0;
	return td_same(path, &st) || td_same(old, &st);
}

/* The rename on the disk (a power cut after it keeps it). */
static void td_sync_parent(const char *path)
{
	char parent[PATH_MAX];
	char *slash;
	int fd;

	snprintf(parent, sizeof(parent), "%s", path);
	slash = strrchr(parent, '/');
	if (!slash)
		snprintf(parent, sizeof(parent), ".");
	else if (slash == parent)
		parent[1] = 0;
	else
		*slash = 0;
	fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

int trace_dir_partial(const char *dir, char *buf, size_t len)
{
	char path[PATH_MAX], old[PATH_MAX + 8];
	int rc = td_names(dir, path, sizeof(path), old, sizeof(old));

	if (rc < 0)
		return rc;
	if ((size_t)snprintf(buf, len, "%s.writing.%d", path, (int)getpid()) >= len)
		return -ENAMETOOLONG;
	return 0;
}

/* trace_dir_prepare's work; dry: only the checks (nothing moved or
 * removed), for the start of a run. */
static int td_prepare(const char *dir, int quiet, int dry)
{
	char path[PATH_MAX], old[PATH_MAX + 8], why[TD_STRANGER_MAX + 128];
	int kind, rc;

	rc = td_names(dir, path, sizeof(path), old, sizeof(old));
	if (rc < 0) {
		log_err("%s: %s", dir, strerror(-rc));
		return rc;
	}
	kind = td_kind(path, why, sizeof(why), 0, NULL, 0);
	if (kind < 0) {
		log_err("cannot use %s for the trace: %s", path, strerror(-kind));
		return kind;
	}
	if (kind == TD_ABSENT || (dry && kind == TD_EMPTY))
		return 0;
	if (kind == TD_EMPTY) {
		if (rmdir(path) < 0) {
			log_err("cannot use %s for the trace: %s", path, strerror(errno));
			return -errno;
		}
		return 0;
	}
	if (kind == TD_OTHER) {
		log_err("%s %s: spool writes its trace only where nothing is or over a trace it "
			"wrote; move it away or choose another trace directory",
			path, why);
		return -EEXIST;
	}

	kind = td_kind(old, why, sizeof(why), 0, NULL, 0);
	if (kind == TD_OTHER) {
		log_err("%s %s: spool keeps the previous trace %s there and removes only a trace "
			"it wrote; move %s away or choose another trace directory",
			old, why, path, old);
		return -EEXIST;
	}
	if (kind < 0) {
		log_err("cannot keep the previous trace as %s: %s", old, strerror(-kind));
		return kind;
	}
	if (dry)
		return 0;
	if (kind == TD_EMPTY && rmdir(old) < 0) {
		rc = -errno;
		log_err("cannot remove %s: %s", old, strerror(-rc));
		return rc;
	}
	if (kind == TD_SPOOL && (rc = files_rm_tree(old)) < 0) {
		log_err("cannot remove %s: %s", old, strerror(-rc));
		return rc;
	}
	if (rename(path, old) < 0) {
		rc = -errno;
		log_err("cannot move %s to %s: %s", path, old, strerror(-rc));
		return rc;
	}
	if (!quiet)
		log_info("previous trace kept as %s/", old);
	return 0;
}

int trace_dir_ours(const char *dir, char *why, size_t len)
{
	int kind = td_kind(dir, why, len, 0, NULL, 0);

	if (kind == TD_ABSENT)
		snprintf(why, len, "does not exist");
	else if (kind == TD_EMPTY)
		snprintf(why, len, "is an empty directory");
	return kind < 0 ? kind : kind == TD_SPOOL;
}

int trace_dir_prepare(const char *dir, int quiet)
{
	return td_prepare(dir, quiet, 0);
}

int trace_dir_check(const char *dir)
{
	int rc = td_prepare(dir, 1, 1);
	char path[PATH_MAX], old[PATH_MAX + 8];

	if (!rc && td_names(dir, path, sizeof(path), old, sizeof(old)) == 0)
		trace_dir_stale_warn(path);
	return rc;
}

int trace_dir_usable(const char *dir)
{
	return td_prepare(dir, 1, 1);
}

int trace_dir_install(const char *partial, const char *dir, int quiet)
{
	char path[PATH_MAX], old[PATH_MAX + 8];
	int rc = td_names(dir, path, sizeof(path), old, sizeof(old));

	if (rc < 0)
		return rc;
	rc = td_prepare(dir, quiet, 0);
	if (rc < 0)
		return rc;
	if (rename(partial, path) < 0)
		return -errno;
	td_sync_parent(path);
	return 0;
}
