// SPDX-License-Identifier: MIT
/*
 * buildid.h - GNU build ids of ELF files, and the /proc/PID/maps parsing
 * that goes with them.
 *
 * A trace records, for every traced process, the build id of each ELF file
 * it had mapped ("proc/<pid>.buildids"). The symbolizer compares them with
 * the files on disk when the trace is read, so that a binary rebuilt since
 * the run is reported instead of silently giving wrong names.
 */
#ifndef SPOOL_UTIL_BUILDID_H
#define SPOOL_UTIL_BUILDID_H

#include <stddef.h>
#include <stdint.h>

/* Longest build id we keep, in bytes (GNU ld uses 20, some toolchains 32). */
#define BUILDID_MAX 64
/* Buffer size for its hex form, NUL included. */
#define BUILDID_HEX_MAX (2 * BUILDID_MAX + 1)

/* One line of /proc/PID/maps. path is "" for anonymous mappings; a
 * " (deleted)" suffix is removed and reported in `deleted`. */
struct buildid_map {
	uint64_t start;
	uint64_t end;
	uint64_t offset;
	uint64_t inode;
	char perms[5];
	int deleted;
	char path[4096];
};

/*
 * Read the NT_GNU_BUILD_ID note of the ELF file at `path` into `hex`
 * (lower-case hex, NUL-terminated). Returns 0, -ENODATA if the file has no
 * build id, -ENOEXEC if it is not an ELF file, -ENOSPC if `len` is too small,
 * or the negated errno of open(2) (-ENOENT: no such file).
 */
int buildid_read(const char *path, char *hex, size_t len);
/* The same for an open file (left open). */
int buildid_read_fd(int fd, char *hex, size_t len);

/*
 * Parse the maps line starting at `line` (up to '\n', NUL or `len` bytes).
 * Returns 0 or -EINVAL.
 */
int buildid_parse_maps_line(const char *line, size_t len, struct buildid_map *m);
/* Whether a maps path names a file that can be opened later: not a
 * pseudo-path such as [heap], /memfd:name (spool's own shared memory shows
 * up in every traced process) or a /dev mapping. */
int buildid_is_file_path(const char *path);

/*
 * For maps text (the contents of /proc/PID/maps), build the text of a
 * "proc/<pid>.buildids" side file: one line "<build-id-hex> <path>\n" per
 * distinct file-backed path that is an ELF file with a build id, in order of
 * first appearance. *out is malloc'd (NUL-terminated, "" when there is no
 * such file); *out_len excludes the NUL. Returns 0 or -ENOMEM.
 */
int buildid_list_for_maps(const char *maps_text, char **out, size_t *out_len);

#endif
