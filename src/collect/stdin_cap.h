// SPDX-License-Identifier: MIT
/*
 * stdin_cap.h - the recorded program's standard input, kept with the
 * recording and given back to every run that needs it.
 *
 * The agent records what read() and its family return, but glibc's stdio
 * reads through an internal __read that no interposer sees, so a program
 * that reads its input with fgets or fread (sqlite3 < script.sql) would
 * replay against whatever stdin the replay happens to have. spool record
 * therefore keeps the bytes of its stdin in the trace (.spool/stdin) and
 * spool replay gives them back: a regular file stays a regular file (a
 * saved copy, seekable), a pipe or socket becomes a pipe fed from the saved
 * bytes, /dev/null stays /dev/null, a terminal is left alone. The same log
 * feeds each run of --until-fail, so run 40 reads what run 1 read.
 *
 * A stream is teed lazily: the feeder reads from the original stdin only
 * what the program has not been given yet, so `yes | spool record` works
 * and only what the program asked for is stored (plus at most one read).
 */
#ifndef SPOOL_COLLECT_STDIN_CAP_H
#define SPOOL_COLLECT_STDIN_CAP_H

#include <limits.h>
#include <pthread.h>
#include <stdint.h>

enum stdin_cap_kind {
	STDIN_CAP_NONE,	  /* closed or a terminal: the program's own */
	STDIN_CAP_FILE,	  /* a regular file: a copy from its offset on */
	STDIN_CAP_STREAM, /* a pipe, socket or device: teed through a pipe */
	STDIN_CAP_NULL,	  /* /dev/null */
};

struct stdin_cap {
	enum stdin_cap_kind kind;
	int src;     /* the original stream, moved off fd 0; -1 when none */
	int log;     /* the saved bytes, read and appended by the feeder */
	int saved0;  /* spool's own fd 0 while a run has the capture */
	int in_run;  /* between run_begin and run_end */
	int own_log; /* log_path is a temporary file to remove */
	char log_path[PATH_MAX];
	uint64_t logged; /* bytes in the log */
	int eof;	 /* src has ended (or there is none: replay) */
	int err;	 /* first error of the feeder, negative errno */
	/* the feeder of one run (STREAM) */
	pthread_t feeder;
	int feeding;
	int wr;	      /* write end of the program's stdin pipe */
	int stop[2];  /* a byte here stops the feeder */
};

/* spool record: look at fd 0 and prepare the log beside TRACE_DIR (a
 * temporary file there, so saving it into the trace is a link). */
int stdin_cap_record_open(struct stdin_cap *c, const char *trace_dir);

/* spool replay: the stdin saved in TRACE_DIR. -ENOENT when the recording
 * has none (made before spool kept stdin, or stdin was a terminal). */
int stdin_cap_replay_open(struct stdin_cap *c, const char *trace_dir);

/* Around one run: fd 0 becomes the program's stdin (inherited by the
 * session's child), then spool's own fd 0 comes back. run_end returns the
 * feeder's error, if any. */
int stdin_cap_run_begin(struct stdin_cap *c);
int stdin_cap_run_end(struct stdin_cap *c);

/* Put the log into TRACE_DIR/.spool/stdin (and stdin.kind). */
int stdin_cap_save(struct stdin_cap *c, const char *trace_dir);

/* Close everything; a temporary log is removed. */
void stdin_cap_close(struct stdin_cap *c);

const char *stdin_cap_kind_name(enum stdin_cap_kind k);

#endif
