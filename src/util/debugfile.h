// SPDX-License-Identifier: MIT
/*
 * debugfile.h - separate debug files: where the DWARF and the full symbol
 * table of a stripped executable or library went (objcopy
 * --only-keep-debug; Debian's -dbgsym packages), found the way gdb and
 * libdwfl find them.
 *
 * Debug roots, in order: the directories of SPOOL_DEBUG_DIR (colon-
 * separated; `spool probe --debug-dir DIR` adds to it), then
 * /usr/lib/debug. For a file with GNU build id ab12...: ROOT/.build-id/ab/
 * 12....debug under each root. For a file with a .gnu_debuglink NAME: the
 * file's directory/NAME, its directory/.debug/NAME, ROOT/<its directory>/
 * NAME. A candidate must be an ELF file whose build id equals the file's
 * (or, when the file has none, whose CRC32 equals the debuglink's).
 */
#ifndef SPOOL_UTIL_DEBUGFILE_H
#define SPOOL_UTIL_DEBUGFILE_H

#include <stddef.h>

/* The environment variable that names extra debug roots. */
#define DEBUGFILE_ENV "SPOOL_DEBUG_DIR"

/*
 * The debug file of the ELF file at path, into out. Returns 0, -ENOENT
 * (none found), -ENOSPC (out too small) or another negative errno.
 */
int debugfile_find(const char *path, char *out, size_t len);

/*
 * Add dir in front of the debug roots (sets SPOOL_DEBUG_DIR, so every
 * later lookup in this process sees it). Returns 0 or a negative errno.
 */
int debugfile_add_root(const char *dir);

/*
 * The roots as libdwfl's Dwfl_Callbacks.debuginfo_path wants them
 * (":.debug:ROOT...:/usr/lib/debug"), or NULL (its default) when
 * SPOOL_DEBUG_DIR is unset. Computed at the first call (set the variable
 * before), kept until the process exits.
 */
char *debugfile_dwfl_path(void);

#endif
