// SPDX-License-Identifier: MIT
/*
 * files.c - file system helpers the commands share (files.h).
 */
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "files.h"

int files_self_exe(char *path, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", path, len - 1);

	if (n < 0)
		return -errno;
	path[n] = 0;
	return 0;
}

int files_self_dir(char *dir, size_t len)
{
	char *slash;
	int rc = files_self_exe(dir, len);

	if (rc < 0)
		return rc;
	slash = strrchr(dir, '/');
	if (!slash)
		return -ENOENT;
	*slash = 0;
	return 0;
}

int files_find_shipped(const char *env, const char *name, const char *installed, char *path,
		       size_t len)
{
	const char *val = env ? getenv(env) : NULL;
	char self[PATH_MAX];
	int rc;

	if (val && *val) {
		if (access(val, R_OK) < 0)
			return -errno;
		snprintf(path, len, "%s", val);
		return 0;
	}
	rc = files_self_dir(self, sizeof(self));
	if (rc < 0)
		return rc;
	if ((size_t)snprintf(path, len, "%s/%s", self, name) < len && access(path, R_OK) == 0)
		return 0;
	if ((size_t)snprintf(path, len, "%s/%s/%s", self, installed, name) < len &&
	    access(path, R_OK) == 0)
		return 0;
	return -ENOENT;
}

static int files_rm_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(p) < 0 ? -1 : 0;
}

int files_rm_tree(const char *dir)
{
	return nftw(dir, files_rm_one, 16, FTW_DEPTH | FTW_PHYS) < 0 ? -errno : 0;
}
