// SPDX-License-Identifier: MIT
/*
 * gdbsrv.h - `spool replay --gdbserver PORT|-`: spool as gdb's remote
 * target for a replay, with reverse execution (gdbsrv.c; doc/record.md,
 * "Reverse execution").
 */
#ifndef SPOOL_REPLAY_GDBSRV_H
#define SPOOL_REPLAY_GDBSRV_H

#include <stdint.h>

/* Serves one gdb: on stdin/stdout (where "-", gdb's `target remote |
 * spool replay --gdbserver - TRACE`) or on 127.0.0.1:PORT (0: any free
 * port, said on stderr). prog_argv replaces the recorded command line
 * (NULL: the recorded one). goto_event (UINT64_MAX: none): --goto, every
 * replay starts from the recorded snapshot before that schedule event and
 * gdb's session begins stopped at it; goto_count (UINT64_MAX: none): --goto
 * EVENT:COUNT, the snapshot at or before that position. Returns the exit
 * status for spool. */
int gdbsrv_main(const char *where, const char *trace, char **prog_argv, uint64_t goto_event,
		uint64_t goto_count);

#endif
