// SPDX-License-Identifier: MIT
/*
 * loss.c - not a subcommand: how every command says what a trace is missing,
 * and the exit status of a run whose trace is incomplete (or whose report
 * did not reach stdout).
 *
 * A command that ran a program (locks, record, probe, path) and a command
 * that reads a trace (info, report, export, replay) print the same words
 * from the same numbers (struct trace_loss, src/trace/loss.c), so the run's
 * summary and a later `spool info` never disagree.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../collect/session.h"
#include "../trace/trace.h"
#include "../util/log.h"
#include "cmd.h"

int cmd_run_status(const struct session_result *res)
{
	if (res->exit_status)
		return res->exit_status;
	if (res->trace_error || trace_loss_incomplete(&res->loss))
		return EXIT_INCOMPLETE;
	return 0;
}

int cmd_trace_loss(const char *dir, const struct trace_reader *r, struct trace_loss *out)
{
	struct trace_loss l;

	trace_reader_loss(r, &l);
	trace_loss_warn(dir, &l);
	if (out)
		*out = l;
	return trace_loss_incomplete(&l);
}

int cmd_dir_loss(const char *dir, const struct trace_loss_seen *seen, struct trace_loss *out)
{
	struct trace_reader *r;
	struct trace_loss l;

	if (seen && seen->set) {
		l = seen->loss; /* what the report's own reading saw */
	} else {
		if (trace_reader_open(&r, dir, NULL) < 0)
			return 0; /* the command that read it has said why */
		trace_reader_loss_read(r, &l);
		trace_reader_close(r);
	}
	trace_loss_warn(dir, &l);
	if (out)
		*out = l;
	return trace_loss_incomplete(&l);
}

int cmd_stdout_done(const char *what)
{
	/* the flush writes what is still buffered: its errno is the reason
	 * (ENOSPC, EPIPE); an earlier failed write only left ferror set */
	int e = fflush(stdout) == EOF ? errno : 0;

	if (!e && !ferror(stdout))
		return 0;
	if (e)
		log_err("writing %s to stdout: %s (it is cut short)", what, strerror(e));
	else /* (the printer flushed it: the reason went with that flush) */
		log_err("writing %s to stdout failed (it is cut short)", what);
	return 1;
}
