// SPDX-License-Identifier: MIT
/*
 * info.c - `spool info`: what a trace holds, and whether it is whole.
 *
 * It reads every event, so it is also the check a user runs on a trace that
 * came from a crashed run or another machine: every problem the reader finds
 * is listed with its file and offset, and the exit status says whether there
 * were any.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../replay/rr_snap_list.h"
#include "../trace/trace.h"
#include "../trace/untrusted.h"
#include "../util/escape.h"
#include "../util/log.h"
#include "cmd.h"

static void info_usage(FILE *out)
{
	fprintf(out, "usage: spool info [TRACE_DIR]\n"
		     "\n"
		     "Describe a trace (default spool.trace): the run summary, each stream\n"
		     "(process, thread, events, events lost), what the trace is missing (the\n"
		     "same numbers the run printed) and whether its writer finished, the\n"
		     "snapshots of a recording (--snap-period), and any\n"
		     "damage found while reading it. Exits 1 if the trace is damaged (or the\n"
		     "summary could not all be written: a full disk), 4 if it is incomplete\n"
		     "(events lost, or spool did not finish writing it), else 0.\n"
		     "\n"
		     "options:\n"
		     "  -h, --help   show this help\n");
}

int cmd_info(int argc, char **argv)
{
	static const struct option opts[] = {{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
	const char *dir = "spool.trace";
	struct trace_reader *r = NULL;
	struct trace_problem prob = {0};
	struct trace_event ev;
	struct trace_loss loss;
	uint64_t kinds[KIND_MAX] = {0}, first = 0, last = 0, n = 0;
	char *summary = NULL;
	size_t len;
	int c, rc;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 'h') {
			info_usage(stdout);
			return 0;
		}
		log_err("unknown option '%s' (see spool info --help)", argv[optind - 1]);
		return EXIT_USAGE;
	}
	if (optind < argc)
		dir = argv[optind++];
	if (optind < argc) {
		log_err("unexpected argument '%s'", argv[optind]);
		return EXIT_USAGE;
	}
	rc = trace_reader_open(&r, dir, &prob);
	if (rc < 0) {
		log_err("%s: %s", prob.file[0] ? prob.file : dir, prob.msg[0] ? prob.msg : strerror(-rc));
		return 1;
	}
	while ((rc = trace_reader_next(r, &ev)) > 0) {
		unsigned k = ev_kind(ev.rec->word);

		if (!n++)
			first = ev.ns;
		last = ev.ns;
		if (k < KIND_MAX)
			kinds[k]++;
	}
	rc = trace_reader_file(r, "summary", &summary, &len);
	if (rc == 0) {
		/* the side file as it is, but for terminal control bytes */
		printf("run summary:\n");
		trace_print_untrusted(stdout, summary, len);
		free(summary);
	} else if (rc != -ENOENT) {
		/* a link to a file outside the trace, a FIFO: not read */
		log_warn("%s/.spool/summary: not read: %s", dir, trace_open_strerror(rc));
	}
	/* spool probe: images exec'd during the run, traced but not probed */
	if (trace_reader_file(r, "exec", &summary, &len) == 0) {
		trace_print_untrusted(stdout, summary, len);
		free(summary);
	}
	printf("events: %llu (lock %llu, thread %llu, lockdef %llu, proc %llu) over %.6f s\n",
	       (unsigned long long)n, (unsigned long long)kinds[KIND_LOCK],
	       (unsigned long long)kinds[KIND_THREAD], (unsigned long long)kinds[KIND_LOCKDEF],
	       (unsigned long long)kinds[KIND_PROC], n ? (double)(last - first) / 1e9 : 0.0);
	printf("%-8s %8s %8s %12s %10s %10s  %s\n", "stream", "pid", "tid", "events", "discarded",
	       "seq-gaps", "file");
	for (size_t i = 0; i < trace_reader_nstreams(r); i++) {
		const struct trace_stream_info *s = trace_reader_stream(r, i);

		printf("%-8u %8u %8u %12llu %10llu %10llu  %s\n", s->stream_id, s->pid, s->tid,
		       (unsigned long long)s->events, (unsigned long long)s->discarded,
		       (unsigned long long)s->seq_gaps, escape_str(s->file));
	}
	if (rr_snap_list(stdout, dir) < 0)
		log_warn("%s/snap: the snapshots cannot be listed", dir);
	trace_reader_loss(r, &loss);
	if (trace_loss_incomplete(&loss)) {
		char why[512];

		trace_loss_describe(&loss, why, sizeof(why));
		printf("missing: %s\n", why);
	}
	printf("lost: %llu events\nwriter: %s\n", (unsigned long long)trace_loss_events(&loss),
	       loss.state == TRACE_STATE_FINISHED     ? "finished"
	       : loss.state == TRACE_STATE_UNFINISHED ? "did not finish (the trace is incomplete)"
						      : "unknown (no state file: an older spool)");
	for (size_t i = 0; i < trace_reader_nproblems(r); i++) {
		const struct trace_problem *p = trace_reader_problem(r, i);

		log_warn("%s at offset %llu: %s", p->file, (unsigned long long)p->offset, p->msg);
	}
	trace_loss_warn(dir, &loss);
	rc = trace_reader_nproblems(r) ? 1 : trace_loss_incomplete(&loss) ? EXIT_INCOMPLETE : 0;
	if (cmd_stdout_done("the summary"))
		rc = 1;
	trace_reader_close(r);
	return rc;
}
