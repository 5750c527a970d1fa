// SPDX-License-Identifier: MIT
/*
 * untrusted.h - opening the files of a trace, and the files a trace names,
 * as input from someone else (DESIGN.md, "Rules of trust"; doc/trace-format.md,
 * "Reading untrusted traces").
 *
 * A trace comes from a bug report or a CI artifact: any file in it may be a
 * symbolic link to a secret (/etc/shadow), a FIFO that blocks the reader
 * forever, a device that never ends (/dev/zero), or a sparse file of a
 * terabyte. Every reader of a trace opens its files through these helpers:
 * relative to the trace directory's descriptor, no component followed when
 * it is a link, O_NONBLOCK so that opening a FIFO cannot block, then fstat:
 * a regular file no larger than the caller's bound, or an error.
 */
#ifndef SPOOL_TRACE_UNTRUSTED_H
#define SPOOL_TRACE_UNTRUSTED_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The bound on a side file read whole into memory: what a reader may
 * allocate for one file is at most this. */
#define TRACE_SIDE_MAX (256ull << 20)
/* No bound (a stream file, the recorded stdin: read in pieces). */
#define TRACE_NO_MAX UINT64_MAX

/* Errors besides the open's own: a component is a symbolic link (-ELOOP),
 * the file is not a regular file (-ENODEV), it is larger than max (-EFBIG). */

/* Open REL, a relative path inside the directory dirfd, for reading, without
 * following a link at any component. Returns the descriptor (O_CLOEXEC,
 * blocking again) and the file's size in *size (may be NULL), or a negative
 * errno. */
int trace_open_in(int dirfd, const char *rel, uint64_t max, uint64_t *size);

/* The same relative to the trace directory DIR (the directory itself is
 * what the user named: it may be reached through links). */
int trace_open_dir_file(const char *dir, const char *rel, uint64_t max, uint64_t *size);

/* Read REL inside DIR whole into a malloc'd buffer, NUL-terminated (*len
 * excludes the NUL). 0 or a negative errno. */
int trace_read_dir_file(const char *dir, const char *rel, uint64_t max, char **data, size_t *len);

/* Open a file a trace names by its absolute path (a binary of a maps file)
 * for reading: O_NONBLOCK for the open, then it must be a regular file. Links
 * are followed (maps name the files as the program opened them). The
 * descriptor or a negative errno. */
int trace_open_named(const char *path);

/* Write text from a trace to out with the bytes a terminal acts on escaped
 * as \xNN, newlines and tabs kept (escape_write with ESCAPE_LINES,
 * util/escape.h): a side file printed as it is could hold escape sequences. */
void trace_print_untrusted(FILE *out, const char *text, size_t len);

/* A message for the errors above (strerror for the others). */
const char *trace_open_strerror(int err);

#endif
