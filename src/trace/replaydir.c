// SPDX-License-Identifier: MIT
/*
 * replaydir.c - where a replay writes its own trace by default: inside the
 * recording, TRACE/replays/N, N one more than the largest number there
 * (trace.h: trace_replay_dir).
 *
 * The replay used to write spool.replay.trace into the directory it was
 * started in, which is often the recorded program's own directory: the
 * program then listed one more entry than when it was recorded (CPython
 * scans its script's directory when it imports) and the replay diverged.
 * Inside the recording the replay's output is where the program never
 * looked, and it stays with the recording it belongs to.
 *
 * The recording is untrusted (it may come from someone else): replays/ is
 * made and opened relative to the trace's directory without following a
 * link, and must be a directory of ours; otherwise the caller is told
 * (-errno) and writes elsewhere. The replay's directory itself is created
 * by the trace writer with mkdir, which never writes into anything that is
 * already there (tracedir.c, writer.c).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace.h"
#include "trace_int.h"

/* The entries named N (below 10^9) of the directory open at fd, which this
 * takes (closed here); *max the largest N, 0 if none. */
static unsigned long rd_scan(int fd, unsigned long *max)
{
	unsigned long n = 0, v;
	struct dirent *de;
	char *end;
	DIR *d;

	*max = 0;
	if (fd < 0)
		return 0;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return 0;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		errno = 0;
		v = strtoul(de->d_name, &end, 10);
		if (errno || *end || v >= 1000000000ul)
			continue;
		n++;
		if (v > *max)
			*max = v;
	}
	closedir(d);
	return n;
}

int trace_replay_count(const char *trace, unsigned long *last)
{
	unsigned long n;
	int tfd, rfd;

	*last = 0;
	tfd = open(trace, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (tfd < 0)
		return 0;
	rfd = openat(tfd, TRACE_REPLAYS_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	close(tfd);
	n = rd_scan(rfd, last);
	return n > INT32_MAX ? INT32_MAX : (int)n;
}

int trace_replay_dir(const char *trace, char *out, size_t len)
{
	struct stat st;
	int tfd, rfd, rc = 0;
	unsigned long n;
	size_t tlen;

	/* TRACE itself is what the user named (a link there is theirs). */
	tfd = open(trace, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (tfd < 0)
		return -errno;
	if (mkdirat(tfd, TRACE_REPLAYS_DIR, TRACE_DIR_MODE) < 0 && errno != EEXIST) {
		rc = -errno;
		goto out_trace;
	}
	if (fstatat(tfd, TRACE_REPLAYS_DIR, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		rc = -errno;
		goto out_trace;
	}
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid()) {
		rc = S_ISDIR(st.st_mode) ? -EPERM : -ENOTDIR;
		goto out_trace;
	}
	rfd = openat(tfd, TRACE_REPLAYS_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (rfd < 0) {
		rc = -errno;
		goto out_trace;
	}
	if (faccessat(rfd, ".", W_OK, AT_EACCESS) < 0) {
		rc = -errno;
		goto out_replays;
	}
	rd_scan(dup(rfd), &n);
	n++;
	tlen = strlen(trace);
	while (tlen > 1 && trace[tlen - 1] == '/') /* "TRACE/" names TRACE */
		tlen--;
	if ((size_t)snprintf(out, len, "%.*s/%s/%lu", (int)tlen, trace, TRACE_REPLAYS_DIR, n) >=
	    len)
		rc = -ENAMETOOLONG;
out_replays:
	close(rfd);
out_trace:
	close(tfd);
	return rc;
}

int trace_replay_tmpdir(char *out, size_t len)
{
	const char *tmp = getenv("TMPDIR");

	if (!tmp || tmp[0] != '/')
		tmp = "/tmp";
	if ((size_t)snprintf(out, len, "%s/spool-replay-XXXXXX", tmp) >= len)
		return -ENAMETOOLONG;
	if (!mkdtemp(out))
		return -errno;
	return 0;
}
