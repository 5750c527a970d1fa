// SPDX-License-Identifier: MIT
/*
 * outfile.h - how every spool command writes an output file (exports,
 * reports, spool path's output, lcov .info files) without ever harming what
 * was at the destination.
 *
 * A regular file (or a new one) is written to a temporary file beside it
 * (same directory, created with O_EXCL and mode 0600) and renamed over the
 * destination only when the whole output was written: a failure leaves the
 * destination as it was and removes the temporary file. The new file gets
 * the mode (and, where allowed, the owner) the old one had, or 0666 (the
 * caller's choice) less the umask for a new one. Replacing means a new
 * inode: other hard links to the old file keep the old content. A destination that is not a regular
 * file (a FIFO, a character device such as /dev/null or a tty, anything under /dev/ or /proc/ such
 * as /dev/stdout) is written in place, never truncated, removed or renamed over. "-" is stdout when
 * the caller allows it.
 */
#ifndef SPOOL_UTIL_OUTFILE_H
#define SPOOL_UTIL_OUTFILE_H

#include <stdio.h>
#include <sys/types.h>

struct outfile {
	FILE *f;	  /* write the output here */
	const char *name; /* the destination as the user gave it (for messages) */
	char *dest;	  /* where the temporary file is renamed to (malloc'd) */
	char *tmp;	  /* the temporary file (malloc'd); NULL: written in place */
	mode_t mode;	  /* the mode the renamed file gets */
	uid_t uid;	  /* and the owner and group of the file it replaces */
	gid_t gid;
	int owned; /* uid and gid are set */
	int is_stdout;
};

/* Open PATH for writing ("-": stdout when dash_is_stdout). MODE is the mode
 * of a new file before the umask (0666 for a report). Says why on stderr and
 * returns a negative errno when it cannot. */
int outfile_open(struct outfile *o, const char *path, mode_t mode, int dash_is_stdout);

/* The output is complete: flush it, check that every byte was written and
 * put it in place. Returns 0, or a negative errno (said on stderr) after
 * doing what outfile_abort does. */
int outfile_commit(struct outfile *o);

/* The output failed: remove the temporary file; the destination keeps what
 * it had (a file written in place keeps what was written to it). */
void outfile_abort(struct outfile *o);

#endif
