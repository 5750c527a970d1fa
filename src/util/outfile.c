// SPDX-License-Identifier: MIT
/*
 * outfile.c - output files written beside their destination and renamed on
 * success (outfile.h says the rules). Host side only: it allocates, logs and
 * calls umask(), so it runs in a command's main thread.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "outfile.h"

/* Paths that name a descriptor or a device whatever stat says of them:
 * /dev/stdout resolves to the shell's redirection target, which may be a
 * regular file opened for appending; replacing it would lose its content. */
static int outfile_special_path(const char *path)
{
	return !strncmp(path, "/dev/", 5) || !strncmp(path, "/proc/", 6);
}

static mode_t outfile_umask(void)
{
	mode_t m = umask(0);

	umask(m);
	return m;
}

/* In place: no O_CREAT (nothing is created under /dev), no O_TRUNC (a
 * device has nothing to truncate, a regular file behind /dev/stdout is
 * the shell's business). */
static int outfile_open_in_place(struct outfile *o, const char *path)
{
	int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	o->f = fdopen(fd, "w");
	if (!o->f) {
		int err = -errno;

		close(fd);
		return err;
	}
	return 0;
}

/* The temporary file beside dest: DIR/.BASE.XXXXXX (hidden, so that a glob
 * of the directory does not pick it up half written). */
static int outfile_open_tmp(struct outfile *o)
{
	const char *slash = strrchr(o->dest, '/');
	size_t dlen = slash ? (size_t)(slash - o->dest) + 1 : 0;
	const char *base = slash ? slash + 1 : o->dest;
	size_t len = dlen + strlen(base) + 16;
	int fd, err;

	o->tmp = malloc(len);
	if (!o->tmp)
		return -ENOMEM;
	snprintf(o->tmp, len, "%.*s.%s.XXXXXX", (int)dlen, o->dest, base);
	/* mkostemp: O_CREAT|O_EXCL, mode 0600: never opens what is there. */
	fd = mkostemp(o->tmp, O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		goto out_free;
	}
	o->f = fdopen(fd, "w");
	if (!o->f) {
		err = -errno;
		close(fd);
		unlink(o->tmp);
		goto out_free;
	}
	return 0;

out_free:
	free(o->tmp);
	o->tmp = NULL;
	return err;
}

int outfile_open(struct outfile *o, const char *path, mode_t mode, int dash_is_stdout)
{
	struct stat st, lst;
	int err;

	memset(o, 0, sizeof(*o));
	o->name = path;
	if (dash_is_stdout && !strcmp(path, "-")) {
		o->f = stdout;
		o->is_stdout = 1;
		return 0;
	}
	if (!*path) {
		log_err("an empty output file name");
		return -EINVAL;
	}
	if (outfile_special_path(path)) {
		err = outfile_open_in_place(o, path);
		goto out;
	}
	if (stat(path, &st) == 0) {
		if (!S_ISREG(st.st_mode)) {
			err = outfile_open_in_place(o, path);
			goto out;
		}
		/* A link to a regular file: the file is replaced, the link stays. */
		o->dest = realpath(path, NULL);
		if (!o->dest) {
			err = -errno;
			goto out;
		}
		o->mode = st.st_mode & 0777;
		o->uid = st.st_uid;
		o->gid = st.st_gid;
		o->owned = 1;
	} else if (errno == ENOENT) {
		if (lstat(path, &lst) == 0) {
			log_err(
			    "%s is a symbolic link to a file that does not exist: spool does not "
			    "replace it (remove it or give another file)",
			    path);
			return -ELOOP;
		}
		o->dest = strdup(path);
		if (!o->dest) {
			err = -ENOMEM;
			goto out;
		}
		o->mode = mode & ~outfile_umask() & 0777;
	} else {
		err = -errno;
		goto out;
	}
	err = outfile_open_tmp(o);
	if (err) {
		log_err("cannot write %s: cannot create a temporary file in its directory: %s",
			path, strerror(-err));
		free(o->dest);
		o->dest = NULL;
		return err;
	}
	return 0;
out:
	if (err) {
		log_err("cannot write %s: %s", path, strerror(-err));
		free(o->dest);
		o->dest = NULL;
		o->f = NULL;
	}
	return err;
}

int outfile_commit(struct outfile *o)
{
	int err = 0;

	if (!o->f)
		return -EBADF;
	errno = 0;
	if (o->is_stdout) {
		if (fflush(stdout) != 0 || ferror(stdout))
			err = errno ? -errno : -EIO;
		o->f = NULL;
		goto out;
	}
	if (fflush(o->f) != 0 || ferror(o->f))
		err = errno ? -errno : -EIO;
	if (!err && o->tmp && fchmod(fileno(o->f), o->mode) < 0)
		err = -errno;
	/* The replaced file's owner and group where we may give them (root,
	 * or a group we are in); otherwise ours, as a new file would have. */
	if (!err && o->tmp && o->owned && fchown(fileno(o->f), o->uid, o->gid) < 0)
		log_debug("%s: owner not kept: %s", o->name, strerror(errno));
	if (fclose(o->f) != 0 && !err)
		err = -errno;
	o->f = NULL;
	if (!err && o->tmp && rename(o->tmp, o->dest) < 0)
		err = -errno;
	if (err && o->tmp)
		unlink(o->tmp);
out:
	if (err)
		log_err("cannot write %s: %s", o->is_stdout ? "stdout" : o->name, strerror(-err));
	free(o->tmp);
	free(o->dest);
	o->tmp = o->dest = NULL;
	return err;
}

void outfile_abort(struct outfile *o)
{
	if (o->is_stdout)
		fflush(stdout);
	else if (o->f)
		fclose(o->f);
	if (o->tmp)
		unlink(o->tmp);
	free(o->tmp);
	free(o->dest);
	o->tmp = o->dest = NULL;
	o->f = NULL;
}
