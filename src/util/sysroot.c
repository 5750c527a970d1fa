// SPDX-License-Identifier: MIT
/*
 * sysroot.c - looking up a trace's file paths inside the board's root
 * (sysroot.h).
 *
 * The paths come from a trace, which is untrusted: openat2's
 * RESOLVE_IN_ROOT makes the kernel treat DIR as "/" for the whole lookup,
 * links included, so neither "../../etc/shadow" nor a link in DIR can reach
 * a file outside it. On a kernel without openat2 (before 5.6) a path with a
 * ".." component is refused and links are followed as they are: DIR is the
 * user's own directory, which the user chose to trust, only the trace's
 * paths are not.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/openat2.h>

#include "buildid.h"
#include "debugfile.h"
#include "log.h"
#include "sysroot.h"

static char *sysroot_dir;
static int sysroot_fd = -1;

int sysroot_set(const char *dir)
{
	char real[PATH_MAX], dbg[PATH_MAX + 32];
	struct stat st;
	int fd;

	if (!realpath(dir, real))
		return -errno;
	fd = open(real, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	free(sysroot_dir);
	sysroot_dir = strdup(real);
	if (!sysroot_dir) {
		close(fd);
		return -ENOMEM;
	}
	if (sysroot_fd >= 0)
		close(sysroot_fd);
	sysroot_fd = fd;
	/* The board's separate debug files, found by libdwfl too (DWARF of
	 * a stripped library whose .debug file the root holds). */
	snprintf(dbg, sizeof(dbg), "%s/usr/lib/debug", real);
	if (stat(dbg, &st) == 0 && S_ISDIR(st.st_mode))
		return debugfile_add_root(dbg);
	return 0;
}

const char *sysroot_get(void)
{
	return sysroot_dir;
}

/* Whether a path has a ".." component. */
static int sysroot_has_dotdot(const char *p)
{
	for (const char *c = p; (c = strstr(c, "..")); c += 2)
		if ((c == p || c[-1] == '/') && (c[2] == '/' || c[2] == '\0'))
			return 1;
	return 0;
}

int sysroot_open(const char *path)
{
	struct open_how how = {
	    .flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC,
	    .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	struct stat st;
	long fd;

	if (sysroot_fd < 0)
		return -ENOENT;
	while (*path == '/')
		path++;
	if (!*path)
		return -ENOENT;
	fd = syscall(SYS_openat2, sysroot_fd, path, &how, sizeof(how));
	if (fd < 0 && (errno == ENOSYS || errno == EPERM)) {
		/* No openat2 (old kernel, or a seccomp filter that says
		 * EPERM): no "..", links followed. */
		if (sysroot_has_dotdot(path))
			return -EXDEV;
		fd = openat(sysroot_fd, path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	}
	if (fd < 0)
		return -errno;
	if (fstat((int)fd, &st) < 0) {
		int err = -errno;

		close((int)fd);
		return err;
	}
	if (!S_ISREG(st.st_mode)) {
		close((int)fd);
		return -ENODEV;
	}
	/* Read like any file from now on. */
	(void)fcntl((int)fd, F_SETFL, O_RDONLY);
	return (int)fd;
}

int sysroot_open_debug(const char *buildid_hex)
{
	char p[64 + 2 * 64 + 16];
	size_t n = strlen(buildid_hex);

	if (n < 4 || n > 128 || strspn(buildid_hex, "0123456789abcdef") != n)
		return -EINVAL;
	snprintf(p, sizeof(p), "usr/lib/debug/.build-id/%.2s/%s.debug", buildid_hex,
		 buildid_hex + 2);
	return sysroot_open(p);
}

int sysroot_option(const char *dir)
{
	int rc = sysroot_set(dir);

	if (rc < 0)
		log_err("--sysroot '%s': %s", dir, strerror(-rc));
	return rc;
}

int sysroot_check(const char *path, const char *want, char *have, size_t len)
{
	int fd = sysroot_open(path), rc;

	if (len)
		have[0] = '\0';
	if ((fd == -ENOENT || fd == -ENODEV) && want) {
		fd = sysroot_open_debug(want);
		if (fd >= 0) {
			close(fd);
			return SYSROOT_DEBUG_ONLY;
		}
		return -ENOENT;
	}
	if (fd < 0)
		return fd;
	rc = buildid_read_fd(fd, have, len);
	close(fd);
	if (rc == -ENOEXEC)
		return SYSROOT_NOT_ELF;
	if (!want)
		return SYSROOT_UNCHECKED;
	if (rc < 0) {
		if (len)
			have[0] = '\0';
		return SYSROOT_OTHER;
	}
	return strcmp(have, want) ? SYSROOT_OTHER : SYSROOT_SAME;
}
