// SPDX-License-Identifier: MIT
/*
 * sysroot.h - the board's files on the host: `--sysroot DIR` of spool
 * report, export, path and info.
 *
 * A trace made on a board (doc/arm64.md) names the files its processes had
 * mapped by their paths on the board. On the host those paths name the
 * host's own files, or nothing; DIR is the board's root or a copy of its
 * files, and every path of the trace is looked up inside it, symbolic links
 * included (an absolute link such as /lib -> /usr/lib resolves inside DIR,
 * as it does on the board; ".." never leaves DIR). The symbolizer then
 * checks each file found against the build id the trace recorded for it
 * (symbolize.c) and refuses another build. Separate debug files are looked
 * for under DIR/usr/lib/debug/.build-id as well as the host's roots.
 *
 * Process-wide: set once while parsing the command line, before any
 * symbolizer is opened.
 */
#ifndef SPOOL_UTIL_SYSROOT_H
#define SPOOL_UTIL_SYSROOT_H

#include <stddef.h>

/* Use dir as the board's root. Returns 0, -ENOTDIR or another -errno. */
int sysroot_set(const char *dir);
/* sysroot_set for a command line's --sysroot DIR, saying why it failed. */
int sysroot_option(const char *dir);
/* The root (its real path), or NULL when none was given. */
const char *sysroot_get(void);
/*
 * Open the regular file that path (absolute, as the trace names it) is in
 * the root, read-only, close-on-exec. Returns the descriptor, -ENOENT,
 * -ENODEV (not a regular file: a FIFO there does not block), -EXDEV (the
 * path tries to leave the root) or another -errno.
 */
int sysroot_open(const char *path);
/* Open the root's separate debug file for a build id (lower-case hex):
 * DIR/usr/lib/debug/.build-id/ab/cdef....debug. Same returns. */
int sysroot_open_debug(const char *buildid_hex);

/*
 * What the root holds for path, recorded in the trace with build id want
 * (hex; NULL when none was recorded): SYSROOT_SAME (the run's build),
 * SYSROOT_DEBUG_ONLY (only the root's debug file of that build),
 * SYSROOT_UNCHECKED (a file, no recorded id to check it by), SYSROOT_OTHER
 * (another build: have holds its id, "" for none), SYSROOT_NOT_ELF, or a
 * negative errno (-ENOENT: nothing there).
 */
enum { SYSROOT_SAME, SYSROOT_DEBUG_ONLY, SYSROOT_UNCHECKED, SYSROOT_OTHER, SYSROOT_NOT_ELF };
int sysroot_check(const char *path, const char *want, char *have, size_t len);

#endif
