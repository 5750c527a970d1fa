// SPDX-License-Identifier: MIT
/*
 * untrusted.c - opening a trace's files without trusting them (see
 * untrusted.h for why): every component relative to a directory descriptor
 * with O_NOFOLLOW, the last one O_NONBLOCK, then fstat for a regular file
 * under a size bound.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/escape.h"
#include "untrusted.h"

/* fd is open: check it is a regular file within max, put O_NONBLOCK back
 * off (a regular file ignores it, but the caller's reads should not see
 * it). Closes fd on error. */
static int check_regular(int fd, uint64_t max, uint64_t *size)
{
	struct stat st;
	int fl;

	if (fstat(fd, &st) < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return -ENODEV;
	}
	if ((uint64_t)st.st_size > max) {
		close(fd);
		return -EFBIG;
	}
	fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		(void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	if (size)
		*size = (uint64_t)st.st_size;
	return fd;
}

int trace_open_in(int dirfd, const char *rel, uint64_t max, uint64_t *size)
{
	char comp[256];
	int cur = dirfd, fd;

	if (!rel || !*rel || rel[0] == '/')
		return -EINVAL;
	for (;;) {
		const char *slash = strchr(rel, '/');
		size_t n = slash ? (size_t)(slash - rel) : strlen(rel);

		if (!n || n >= sizeof(comp)) {
			fd = -EINVAL;
			break;
		}
		memcpy(comp, rel, n);
		comp[n] = 0;
		if (!strcmp(comp, "..")) {
			fd = -EINVAL; /* nothing outside the trace */
			break;
		}
		if (!slash) {
			/* O_NONBLOCK: opening a FIFO for reading returns at once,
			 * and the fstat below refuses it. */
			fd = openat(cur, comp, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
			fd = fd < 0 ? -errno : check_regular(fd, max, size);
			break;
		}
		fd = openat(cur, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			/* a link to a directory: O_NOFOLLOW|O_DIRECTORY says
			 * ENOTDIR on some kernels, ELOOP on others */
			struct stat st;

			fd = -errno;
			if (fd == -ENOTDIR && fstatat(cur, comp, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			    S_ISLNK(st.st_mode))
				fd = -ELOOP;
			break;
		}
		if (cur != dirfd)
			close(cur);
		cur = fd;
		rel = slash + 1;
	}
	if (cur != dirfd)
		close(cur);
	return fd;
}

int trace_open_dir_file(const char *dir, const char *rel, uint64_t max, uint64_t *size)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), fd;

	if (dfd < 0)
		return -errno;
	fd = trace_open_in(dfd, rel, max, size);
	close(dfd);
	return fd;
}

int trace_read_dir_file(const char *dir, const char *rel, uint64_t max, char **data, size_t *len)
{
	uint64_t size, got = 0;
	char *buf;
	int fd, err = 0;

	*data = NULL;
	*len = 0;
	fd = trace_open_dir_file(dir, rel, max, &size);
	if (fd < 0)
		return fd;
	buf = malloc((size_t)size + 1);
	if (!buf) {
		err = -ENOMEM;
		goto out_close;
	}
	/* The size is the one fstat saw: a file that grows meanwhile is cut
	 * there, one that shrinks is an error. */
	while (got < size) {
		ssize_t n = pread(fd, buf + got, (size_t)(size - got), (off_t)got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? -errno : -EIO;
			free(buf);
			goto out_close;
		}
		got += (uint64_t)n;
	}
	buf[size] = 0;
	*data = buf;
	*len = (size_t)size;
out_close:
	close(fd);
	return err;
}

int trace_open_named(const char *path)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	return check_regular(fd, TRACE_NO_MAX, NULL);
}

void trace_print_untrusted(FILE *out, const char *text, size_t len)
{
	escape_write(out, text, len, ESCAPE_LINES);
}

const char *trace_open_strerror(int err)
{
	switch (err) {
	case -ELOOP:
		return "a symbolic link (links in a trace are not followed)";
	case -ENODEV:
		return "not a regular file";
	case -EFBIG:
		return "too large";
	default:
		return strerror(-err);
	}
}
