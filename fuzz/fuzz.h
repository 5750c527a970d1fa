// SPDX-License-Identifier: MIT
/*
 * fuzz.h - what the libFuzzer harnesses of fuzz/ share: turning one fuzz
 * input into a trace directory (and a few files beside it), a sink for
 * report output, and the per-process scratch directory.
 *
 * Every reader of spool takes a directory, so an input is a small container
 * of files (doc/fuzzing.md has the format; scripts/fuzz-pack.py writes it):
 *
 *	OPTIONS@@@ NAME\n CONTENT \n@@@ NAME\n CONTENT \n ...
 *
 * Each entry starts with "@@@ " at the start of the input or after a
 * newline; the newline before "@@@ " closes the previous entry's content and
 * is not part of it, and the last entry loses one trailing newline. NAME is
 * a relative path of at most FUZZ_MAX_DEPTH components of [A-Za-z0-9._-]
 * (no "." or ".."), created under the trace directory, or, when it starts
 * with '+', under the "extra" directory beside it (files a command takes
 * from outside the trace: a --table, a binary). The bytes before the first
 * entry are options for the harness (modes, flags). Mutations that break
 * the framing still give a valid container, just other files.
 *
 * The scratch directory is on tmpfs (/dev/shm, else $TMPDIR or /tmp), one
 * per process, emptied before each input and removed at exit: no process is
 * spawned and nothing touches a disk per execution.
 */
#ifndef SPOOL_FUZZ_FUZZ_H
#define SPOOL_FUZZ_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define FUZZ_MAX_FILES 64
#define FUZZ_MAX_DEPTH 3

struct fuzz_input {
	const char *trace_dir; /* the unpacked trace directory */
	const char *extra_dir; /* '+' entries */
	const uint8_t *opts;   /* the bytes before the first entry */
	size_t nopts;
	size_t nfiles; /* entries written */
};

/* Empty the scratch directory and unpack data into it. Returns 0 or a
 * negative errno (a harness then returns without running anything). */
int fuzz_unpack(const uint8_t *data, size_t size, struct fuzz_input *in);
/* Option byte i of the input, 0 past its end. */
unsigned fuzz_opt(const struct fuzz_input *in, size_t i);
/* A FILE that discards what is written to it (for reports). */
FILE *fuzz_null(void);
/* The scratch directory itself (created on first use). */
const char *fuzz_scratch(void);

#endif
