// SPDX-License-Identifier: MIT
/*
 * files.h - file system helpers the commands share: where the running spool
 * executable is and the files installed beside it (the agent, the gdb
 * extension), and removing a directory tree.
 */
#ifndef SPOOL_UTIL_FILES_H
#define SPOOL_UTIL_FILES_H

#include <stddef.h>

/* The running spool executable (/proc/self/exe), or its directory. */
int files_self_exe(char *path, size_t len);
int files_self_dir(char *dir, size_t len);

/* A file spool ships: $ENV when set (it must be readable), else NAME beside
 * the spool executable (the build tree), else INSTALLED/NAME relative to it
 * ("../lib/spool" for an installed spool). Returns 0 or a negative errno
 * (-ENOENT when none is there). */
int files_find_shipped(const char *env, const char *name, const char *installed, char *path,
		       size_t len);

/* Remove DIR and everything below it (symbolic links are not followed). */
int files_rm_tree(const char *dir);

#endif
