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
 * the program could not be found/executed.
 */
#ifndef SPOOL_CMD_CMD_H
#define SPOOL_CMD_CMD_H

#include <errno.h>

#define EXIT_USAGE 2

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
int cmd_cc(int argc, char **argv);
int cmd_decode(int argc, char **argv);

#endif
