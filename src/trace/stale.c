// SPDX-License-Identifier: MIT
/*
 * stale.c - the partial traces a killed spool leaves behind (trace.h:
 * trace_dir_stale_warn, trace_dir_stale, trace_dir_recover,
 * trace_dir_remove_stale).
 *
 * A trace is written as DIR.writing.PID and renamed to DIR once whole
 * (tracedir.c). A spool killed meanwhile (SIGKILL, the OOM killer, a power
 * cut) leaves DIR.writing.PID, and nothing used to tell the user: a spool
 * that starts writing DIR now says so, with how to read it and how to keep
 * or remove it. Nothing is ever removed or renamed here unless the user
 * asks (spool recover), and only a directory that tracedir.c recognizes as
 * a trace spool wrote (its metadata's signature, nothing but what the
 * writer creates), whose writer did not finish and no longer runs.
 *
 * Whether its writer still runs: the writer holds an exclusive flock on
 * the trace's state file for its whole life (writer.c); the kernel drops it
 * when the writer dies, whatever its pid namespace or a later reuse of its
 * pid. A trace whose state file is not locked is still taken as running
 * when PID is a live process named spool (a spool without that lock, or a
 * file system without flock).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/files.h"
#include "../util/log.h"
#include "../util/procinfo.h"
#include "trace.h"
#include "trace_int.h"
#include "untrusted.h"

#define STALE_STATE TRACE_SIDE_DIR "/" TRACE_STATE_NAME
#define STALE_SAY_MAX 5 /* stale traces named at the start of a run */

/* If name (a basename) is base.writing.PID or base.writing.PID.N (the name
 * a writer takes when PID's is taken), PID; else 0. base NULL: any base. */
static pid_t stale_name_pid(const char *name, const char *base)
{
	const char *p = base ? name : strstr(name, ".writing.");
	long pid = 0;

	if (base) {
		size_t bl = strlen(base);

		if (strncmp(name, base, bl) || strncmp(name + bl, ".writing.", 9))
			return 0;
		p = name + bl;
	} else if (!p) {
		return 0;
	}
	for (p += 9; *p >= '0' && *p <= '9' && pid < INT_MAX / 10; p++)
		pid = pid * 10 + (*p - '0');
	if (*p == '.' && p[1] >= '0' && p[1] <= '9') /* .N */
		for (p++; *p >= '0' && *p <= '9'; p++)
			;
	return *p || pid <= 0 ? 0 : (pid_t)pid;
}

/* Whether pid is a live process named spool. */
static int stale_pid_spool(pid_t pid)
{
	char comm[32];

	return procinfo_comm(pid, comm, sizeof(comm)) == 0 && !strcmp(comm, "spool");
}

int trace_dir_writer_running(const char *dir)
{
	const char *base = strrchr(dir, '/');
	pid_t pid = stale_name_pid(base ? base + 1 : dir, NULL);
	int fd = trace_open_dir_file(dir, STALE_STATE, TRACE_NO_MAX, NULL);

	if (fd >= 0) {
		int locked = flock(fd, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK;

		close(fd); /* (drops the shared lock taken, if any) */
		if (locked)
			return 1;
	}
	return pid > 0 && pid != getpid() && stale_pid_spool(pid);
}

/* 1 when the state file says finished, 0 when it does not (or is missing:
 * a trace is renamed from its .writing name only when whole). */
static int stale_finished(const char *dir)
{
	char *text = NULL;
	size_t len = 0;
	int fin;

	if (trace_read_dir_file(dir, STALE_STATE, TRACE_STATE_SIZE, &text, &len) < 0)
		return 0;
	fin = !strncmp(text, "format=spool-state-1\n", 21) && strstr(text, "\nstate=finished\n");
	free(text);
	return fin;
}

int trace_dir_stale(const char *dir, char *why, size_t len)
{
	char what[NAME_MAX + 128];
	int ours = trace_dir_ours(dir, what, sizeof(what));

	if (ours < 0) {
		snprintf(why, len, "%s", strerror(-ours));
		return ours;
	}
	if (!ours) {
		snprintf(why, len, "%s", what);
		return 0;
	}
	if (stale_finished(dir)) {
		snprintf(why, len, "is a finished trace");
		return 0;
	}
	if (trace_dir_writer_running(dir)) {
		snprintf(why, len, "is still being written by a running spool");
		return 0;
	}
	return 1;
}

void trace_dir_stale_warn(const char *path)
{
	static int said;
	char parent[PATH_MAX], full[PATH_MAX * 2], why[NAME_MAX + 128];
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	struct dirent *de;
	unsigned n = 0;
	DIR *d;

	if (said || !*base)
		return;
	said = 1;
	if (!slash)
		snprintf(parent, sizeof(parent), ".");
	else if (slash == path)
		snprintf(parent, sizeof(parent), "/");
	else
		snprintf(parent, sizeof(parent), "%.*s", (int)(slash - path), path);
	d = opendir(parent);
	if (!d)
		return;
	while ((de = readdir(d))) {
		pid_t pid = stale_name_pid(de->d_name, base);

		if (!pid || pid == getpid())
			continue;
		if (slash)
			snprintf(full, sizeof(full), "%s/%s", parent, de->d_name);
		else
			snprintf(full, sizeof(full), "%s", de->d_name);
		if (trace_dir_stale(full, why, sizeof(why)) != 1)
			continue;
		if (++n > STALE_SAY_MAX)
			continue;
		log_warn("%s/ is the unfinished trace of a spool that did not end (pid %d, "
			 "killed?): 'spool info %s' reads it, 'spool recover %s' keeps it "
			 "(marked unfinished, renamed), 'spool recover --remove %s' deletes it",
			 full, (int)pid, full, full, full);
	}
	closedir(d);
	if (n > STALE_SAY_MAX)
		log_warn("%u more unfinished traces of spools that did not end beside %s "
			 "(%s.writing.*)",
			 n - STALE_SAY_MAX, path, path);
}

/* The state file says "unfinished" (readers take anything but "finished"
 * as a writer that did not finish; this one says it was looked at). Its
 * other lines (what was lost) are kept; written in place, never through a
 * link. A trace without one gets one. */
static int stale_mark(const char *dir)
{
	char buf[TRACE_STATE_SIZE + 1], *text = NULL, *st;
	size_t len = 0;
	int dfd, fd, rc = 0;

	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	if (trace_read_dir_file(dir, STALE_STATE, TRACE_STATE_SIZE, &text, &len) == 0)
		while (len > 1 && text[len - 1] == '\n' && text[len - 2] == '\n')
			text[--len] = 0; /* the padding */
	if (text && !strncmp(text, "format=spool-state-1\n", 21) &&
	    (st = strstr(text, "\nstate="))) {
		size_t head = (size_t)(st - text) + 7, tail_at = head + strcspn(st + 7, "\n");
		int n = snprintf(buf, sizeof(buf), "%.*sunfinished%s", (int)head, text,
				 text + tail_at);

		if (n < 0 || (size_t)n > TRACE_STATE_SIZE) {
			rc = -EOVERFLOW;
			goto out;
		}
		len = (size_t)n;
	} else {
		len = (size_t)snprintf(buf, sizeof(buf), "format=spool-state-1\nstate=unfinished\n");
	}
	memset(buf + len, '\n', TRACE_STATE_SIZE - len);
	fd = openat(dfd, STALE_STATE, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK,
		    TRACE_FILE_MODE);
	if (fd < 0) {
		rc = -errno;
		goto out;
	}
	{
		struct stat sb;

		if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode))
			rc = -ENODEV;
		else if (pwrite(fd, buf, TRACE_STATE_SIZE, 0) != TRACE_STATE_SIZE)
			rc = errno ? -errno : -EIO;
	}
	if (close(fd) < 0 && !rc)
		rc = -errno;
out:
	free(text);
	close(dfd);
	return rc;
}

/* rename(from, to) unless something is at `to`. */
static int stale_rename_noreplace(const char *from, const char *to)
{
	struct stat st;

	if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -errno;
	/* a file system without RENAME_NOREPLACE: checked, then renamed */
	if (lstat(to, &st) == 0)
		return -EEXIST;
	return rename(from, to) < 0 ? -errno : 0;
}

int trace_dir_recover(const char *dir, char *out, size_t len, char *why, size_t wlen)
{
	char path[PATH_MAX], base[PATH_MAX];
	const char *slash;
	size_t plen = strlen(dir);
	char *w;
	int rc;

	while (plen > 1 && dir[plen - 1] == '/')
		plen--;
	if (plen >= sizeof(path))
		return -ENAMETOOLONG;
	memcpy(path, dir, plen);
	path[plen] = 0;
	slash = strrchr(path, '/');
	if (!stale_name_pid(slash ? slash + 1 : path, NULL)) {
		snprintf(why, wlen, "is not named as a trace being written (NAME.writing.PID)");
		return -EINVAL;
	}
	rc = trace_dir_stale(path, why, wlen);
	if (rc <= 0)
		return rc < 0 ? rc : -EPERM;
	rc = stale_mark(path);
	if (rc < 0) {
		snprintf(why, wlen, "cannot mark it unfinished: %s", strerror(-rc));
		return rc;
	}
	snprintf(base, sizeof(base), "%s", path);
	w = strrchr(base, '/');
	w = strstr(w ? w : base, ".writing.");
	*w = 0;
	for (int n = 0; n < 1000; n++) {
		if (n)
			rc = snprintf(out, len, "%s.unfinished.%d", base, n);
		else
			rc = snprintf(out, len, "%s.unfinished", base);
		if (rc < 0 || (size_t)rc >= len)
			return -ENAMETOOLONG;
		rc = stale_rename_noreplace(path, out);
		if (rc != -EEXIST && rc != -ENOTEMPTY)
			break;
	}
	if (rc < 0)
		snprintf(why, wlen, "cannot rename it: %s", strerror(-rc));
	return rc;
}

int trace_dir_remove_stale(const char *dir, char *why, size_t wlen)
{
	int rc = trace_dir_stale(dir, why, wlen);

	if (rc <= 0)
		return rc < 0 ? rc : -EPERM;
	rc = files_rm_tree(dir);
	if (rc < 0)
		snprintf(why, wlen, "cannot remove it: %s", strerror(-rc));
	return rc;
}
