// SPDX-License-Identifier: MIT
/*
 * trace_arg.c - the trace directory a reading command was given (or its
 * default, spool.trace), checked before it is read, with one wording for
 * every command: report, info, export, path and decode.
 *
 * It is the first thing a new user meets: `spool info` in a directory
 * without a trace. Each command used to say it its own way ("cannot open
 * the trace directory: No such file or directory", "cannot read trace ...",
 * "DIR/metadata: cannot open the trace metadata"), and only report said how
 * to make one. Now each says what is wrong with DIR, how to make a trace or
 * name one, and (trace_dir_stale_warn) the partial trace a killed spool
 * left at DIR.writing.PID, if any. A directory that is being written (a
 * spool still running) is named too: it is renamed to DIR when whole.
 */
#include <dirent.h>
#include <limits.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "../trace/trace.h"
#include "../util/log.h"
#include "cmd.h"

/* A spool still writing DIR (DIR.writing.PID, its writer running): name
 * the first one. */
static void trace_arg_say_writing(const char *dir)
{
	char parent[PATH_MAX], full[PATH_MAX * 2];
	const char *slash = strrchr(dir, '/'), *base = slash ? slash + 1 : dir;
	size_t blen = strlen(base);
	struct dirent *de;
	DIR *d;

	if (!blen)
		return;
	if (!slash)
		snprintf(parent, sizeof(parent), ".");
	else
		snprintf(parent, sizeof(parent), "%.*s", slash == dir ? 1 : (int)(slash - dir),
			 dir);
	d = opendir(parent);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, base, blen) || strncmp(de->d_name + blen, ".writing.", 9))
			continue;
		snprintf(full, sizeof(full), "%s%s%s", slash ? parent : "",
			 slash && strcmp(parent, "/") ? "/" : "", de->d_name);
		if (trace_dir_writer_running(full) != 1)
			continue;
		log_info("a spool is still writing it, in %s/ (renamed to %s when whole; "
			 "'spool info %s' reads what is there so far)",
			 full, dir, full);
		break;
	}
	closedir(d);
}

int cmd_trace_arg_check(const char *dir, const char *how)
{
	char meta[PATH_MAX + 16];
	struct stat st;

	if (stat(dir, &st) < 0) {
		if (errno != ENOENT) {
			log_err("trace directory '%s': %s", dir, strerror(errno));
			return 1;
		}
		log_err("trace directory '%s' does not exist (make one with spool locks, spool "
			"probe or spool record; or name it: spool %s DIR)",
			dir, how);
		trace_arg_say_writing(dir);
		trace_dir_stale_warn(dir);
		return 1;
	}
	if (!S_ISDIR(st.st_mode)) {
		log_err("'%s' is not a trace directory (a trace is the directory spool locks, "
			"probe or record wrote)",
			dir);
		return 1;
	}
	snprintf(meta, sizeof(meta), "%s/metadata", dir);
	if (stat(meta, &st) < 0 && errno == ENOENT) {
		log_err("'%s' is not a trace: it has no metadata file (a trace directory holds "
			"metadata and stream_N, written by spool locks, probe or record)",
			dir);
		return 1;
	}
	return 0; /* anything else: the reader says what it finds */
}
