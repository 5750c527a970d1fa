// SPDX-License-Identifier: MIT
/*
 * cmd.h - the subcommands. Each lives in its own src/cmd/<name>.c, parses its
 * own options, and returns the process exit status. main.c holds the one
 * command table.
 *
 * Exit statuses shared by all commands: 0 success; 1 the command ran but
 * found a problem (for example a trace with errors); 2 usage error (unknown
 * option, missing argument). Commands that run a program exit with the
 * program's own status (128+N when it died of signal N), and 127/126 when
 * the program could not be found/executed; when the program's status is 0
 * but the trace is incomplete (events lost, the disk full, a damaged ring),
 * they exit EXIT_INCOMPLETE (4). spool info exits EXIT_INCOMPLETE for an
 * incomplete trace without damage, 1 for a damaged one.
 */
#ifndef SPOOL_CMD_CMD_H
#define SPOOL_CMD_CMD_H

#include <errno.h>

#define EXIT_USAGE 2
/* The trace is incomplete: something was lost or its writer did not finish. */
#define EXIT_INCOMPLETE 4
/* spool record: the recording is whole, but spool replay will refuse it (a
 * program the mode cannot replay: sync mode and the program's own futexes);
 * the reason is printed. Like EXIT_INCOMPLETE, only when the program's own
 * status is 0; --force keeps the program's status. */
#define EXIT_REFUSED 5

struct session_result;
struct trace_loss;
struct trace_loss_seen;
struct trace_reader;

/* The exit status of a command that ran a program (loss.c): the program's
 * own if not 0, else EXIT_INCOMPLETE if the trace is incomplete, else 0. */
int cmd_run_status(const struct session_result *res);
/* For a trace being read, after its last event: trace_loss_warn, fills
 * *out when given; returns nonzero if the trace is incomplete. */
int cmd_trace_loss(const char *dir, const struct trace_reader *r, struct trace_loss *out);
/* The same for a trace that a report or export has read through its own
 * reader: the loss that reading handed back in seen (when set), else DIR is
 * opened again (its events read only if the writer did not finish). 0 if
 * DIR cannot be opened (that command said why). */
int cmd_dir_loss(const char *dir, const struct trace_loss_seen *seen, struct trace_loss *out);
/* The trace directory a reading command will read (trace_arg.c): 0 when
 * it is a directory with a metadata file; else says what is wrong with it,
 * with one wording for every command (`how`: the command and its options
 * as the hint gives them, "info", "report --locks"), and returns 1. */
int cmd_trace_arg_check(const char *dir, const char *how);
/* A report printed on stdout must have reached it (a full disk, /dev/full,
 * a closed pipe): flush it and return 0, or say why it did not and return
 * 1 - a cut report never exits 0. `what` names it ("the report"). */
int cmd_stdout_done(const char *what);

/* The exit status, as a shell gives it, of a program session_run could not
 * start: 127 not found, 126 not executable, 1 anything else. */
static inline int cmd_start_status(int rc)
{
	return rc == -ENOENT ? 127 : rc == -EACCES ? 126 : 1;
}

/* spool replay: the replay diverged from the recording (spool path reads it too) */
#define REPLAY_EXIT_DIVERGED 3

int cmd_locks(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_path(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_recover(int argc, char **argv);
int cmd_cc(int argc, char **argv);
int cmd_decode(int argc, char **argv);
int cmd_receive(int argc, char **argv);

#endif
