// SPDX-License-Identifier: MIT
/*
 * probe_sysadvice.c - what to do instead when system probes (sys:cpu,
 * sys:io, sys:mem) are asked of an attached process (spool probe -p PID,
 * or `add sys:...` under --commands), which spool refuses (doc/probe.md,
 * "System probes"): the command that starts the same program under spool
 * with the same specs, its argument vector read from /proc/PID/cmdline and
 * shell-quoted, the directory to run it from, and where the kernel keeps the
 * running process's own I/O figures meanwhile (sys:cpu works attached).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sysprobe.h"

/* Append s to b (at *n, of len) quoted for a POSIX shell when it has to be. */
static void sysadvice_word(char *b, size_t len, size_t *n, const char *s)
{
	int plain = *s != 0;

	for (const char *p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || strchr("/._-+=:,@%", *p)))
			plain = 0;
	if (*n + 1 >= len)
		return;
	if (plain) {
		*n += (size_t)snprintf(b + *n, len - *n, " %s", s);
	} else {
		*n += (size_t)snprintf(b + *n, len - *n, " '");
		for (const char *p = s; *p && *n + 5 < len; p++) {
			if (*p == '\'')
				*n += (size_t)snprintf(b + *n, len - *n, "'\\''");
			else
				b[(*n)++] = *p;
		}
		if (*n + 2 < len)
			*n += (size_t)snprintf(b + *n, len - *n, "'");
	}
	if (*n >= len)
		*n = len - 1;
	b[*n] = 0;
}

int probe_sys_advice(pid_t pid, const char *const *opts, size_t nopts, char *buf, size_t len)
{
	char path[64], args[8192], cwd[PATH_MAX];
	size_t n = 0;
	ssize_t got, cl;
	int fd;

	if (len < 2)
		return -ENOSPC;
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	got = read(fd, args, sizeof(args) - 1);
	close(fd);
	/* (a zombie or a kernel thread has none; a longer one is cut) */
	if (got <= 0 || got == (ssize_t)sizeof(args) - 1)
		return -ENOENT;
	args[got] = 0;
	n = (size_t)snprintf(buf, len, "spool probe");
	if (n >= len)
		return -ENOSPC;
	for (size_t i = 0; i < nopts; i++)
		sysadvice_word(buf, len, &n, opts[i]);
	sysadvice_word(buf, len, &n, "--");
	for (ssize_t at = 0; at < got; at += (ssize_t)strlen(args + at) + 1)
		sysadvice_word(buf, len, &n, args + at);
	snprintf(path, sizeof(path), "/proc/%d/cwd", (int)pid);
	cl = readlink(path, cwd, sizeof(cwd) - 1);
	if (cl > 0) {
		cwd[cl] = 0;
		n += (size_t)snprintf(buf + n, len - n, "\n    (from its directory:");
		if (n < len)
			sysadvice_word(buf, len, &n, cwd);
		if (n + 1 < len)
			n += (size_t)snprintf(buf + n, len - n, ")");
	}
	if (n < len)
		snprintf(buf + n, len - n,
			 "\n  or attach with sys:cpu and code probes only (-p %d), and read the "
			 "running process's I/O from the kernel (/proc/%d/io)",
			 (int)pid, (int)pid);
	return n >= len - 1 ? -ENOSPC : 0;
}
