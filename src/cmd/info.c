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
#include "../util/buildid.h"
#include "../util/log.h"
#include "../util/sysroot.h"
#include "../replay/rr_log.h"
#include "../replay/rr_refuse.h"
#include "../replay/rr_tree.h"
#include "cmd.h"

/* --sysroot: for each file the traced processes had mapped (with the build
 * id the trace recorded for it), what the board's root holds for it: what
 * spool report --sysroot will use for names and what it will refuse. Each
 * path once. */
static void info_sysroot(struct trace_reader *r)
{
	char **seen = NULL;
	size_t nseen = 0, nstreams = trace_reader_nstreams(r);

	printf("sysroot %s:\n", escape_str(sysroot_get()));
	for (size_t i = 0; i < nstreams; i++) {
		const struct trace_stream_info *si = trace_reader_stream(r, i);
		char name[64], *list = NULL;
		size_t len = 0;
		int dup = 0;

		for (size_t j = 0; j < i; j++)
			dup |= trace_reader_stream(r, j)->pid == si->pid;
		snprintf(name, sizeof(name), "proc/%u.buildids", si->pid);
		if (dup || trace_reader_file(r, name, &list, &len) < 0)
			continue;
		for (char *line = list; line < list + len;) {
			char *nl = memchr(line, '\n', (size_t)(list + len - line));
			char *sp, have[BUILDID_HEX_MAX], **ns;
			int st, known = 0;

			if (nl)
				*nl = '\0';
			sp = strchr(line, ' ');
			if (!sp || sp - line >= BUILDID_HEX_MAX || sp[1] != '/')
				goto next;
			*sp = '\0';
			for (size_t k = 0; k < nseen; k++)
				known |= !strcmp(seen[k], sp + 1);
			if (known)
				goto next;
			ns = realloc(seen, (nseen + 1) * sizeof(*ns));
			if (!ns)
				break;
			seen = ns;
			if (!(seen[nseen] = strdup(sp + 1)))
				break;
			nseen++;
			st = sysroot_check(sp + 1, line, have, sizeof(have));
			printf("  %s  %s: ", line, escape_str(sp + 1));
			if (st == SYSROOT_SAME)
				printf("same build\n");
			else if (st == SYSROOT_DEBUG_ONLY)
				printf("only its debug file (usr/lib/debug/.build-id), same build\n");
			else if (st == SYSROOT_OTHER)
				printf("ANOTHER BUILD (%s): refused for names\n", have[0] ? have : "no build id");
			else if (st == SYSROOT_NOT_ELF)
				printf("not an ELF file: refused for names\n");
			else
				printf("missing (%s)\n", trace_open_strerror(st));
next:
			line = nl ? nl + 1 : list + len;
		}
		free(list);
	}
	for (size_t k = 0; k < nseen; k++)
		free(seen[k]);
	free(seen);
}

/* A recording: its mode, and whether spool replay refuses it and why (the
 * replay's own test, rr_refuse.c), so a recording from elsewhere says it
 * before a replay is tried. The side file is the trace's: escaped. */
static void info_recording(const struct rr_info *info)
{
	char why[RR_REPORT_BYTES + 512];

	printf("recording: %s mode", escape_str(info->mode));
	if (!strcmp(info->mode, "serial"))
		printf(" (seed %llu%s)", (unsigned long long)info->seed,
		       info->chaos ? ", --chaos" : "");
	if (rr_refuse_reason(info, why, sizeof(why)))
		printf("; spool replay stops at once with: %s\n", escape_str(why));
	else
		printf("; spool replay accepts it\n");
	/* (agent_rr_cpuid.c; doc/record.md "The CPU's own inputs") */
	/* (the agent that records the CPU time hides the time stamp counter
	 * too: a recording with both flags had it hidden) */
	if (info->flags & RR_F_CPUID)
		printf("cpuid: recorded, rdrand and rdseed hidden from the program%s (CPUID "
		       "faulting)\n",
		       info->flags & RR_F_CPUTIME ? ", and the time stamp counter" : "");
	else
		printf("cpuid: not recorded, rdrand and rdseed not hidden (no CPUID faulting)\n");
	/* (agent_rr_cputime.c; doc/record.md "What is recorded") */
	if (info->flags & RR_F_CPUTIME)
		printf("cpu time: recorded (getrusage, times, clock)\n");
	else
		printf("cpu time: not recorded (getrusage, times and clock run for real in a "
		       "replay)\n");
	/* what the program inherited (run_ident.h): a replay starts it so */
	if (info->ident.sig_set == RUN_IDENT_SIG_BOTH) {
		char b[400], g[400];

		run_ident_sig_names(info->ident.sig_blocked, b, sizeof(b));
		run_ident_sig_names(info->ident.sig_ignored, g, sizeof(g));
		printf("signals at the start: blocked %s; ignored %s (spool replay starts the "
		       "program with the same)\n",
		       b, g);
	} else if (info->ident.persona_set) {
		printf("signals at the start: not recorded (an older spool): a replay's program "
		       "inherits spool replay's signal mask and ignored signals\n");
	}
	/* the snapshots' budget (--snap-max), as spool record's summary said */
	if (info->snap_stopped) {
		char line[160];

		rr_snap_stopped_fmt(line, sizeof(line), info->snap_kept, info->snap_budget);
		printf("%s\n", line);
		if (info->snap_removed) {
			rr_snap_removed_fmt(line, sizeof(line), info->snap_removed,
					    info->snap_taken);
			printf("%s\n", line);
		}
	} else if (info->snap_budget) {
		char b[32], u[32];

		rr_snap_budget_fmt(b, sizeof(b), info->snap_budget);
		rr_snap_budget_fmt(u, sizeof(u), info->snap_bytes);
		printf("snapshot budget: %s, %s used (--snap-max)\n", b, u);
	}
}

/* A recording (above) and, for a process tree (rr_tree.h), its processes,
 * each with its own recording, and what replays one alone. */
static void info_procs(struct trace_reader *r)
{
	struct rr_info *info = calloc(1, sizeof(*info));

	/* from the reader the summary came from: opening the trace again
	 * read every stream a second time */
	if (!info || rr_info_read_reader(r, info) < 0) {
		free(info);
		return;
	}
	info_recording(info);
	if (info->nprocs < 2) {
		free(info);
		return;
	}
	printf("recording: %u processes, each with its own recording (spool replay replays them "
	       "all; --pid PID one of them)\n",
	       info->nprocs);
	printf("%-5s %8s %8s %7s %-6s %s\n", "proc", "pid", "ppid", "parent", "kind", "program");
	for (uint32_t k = 0; k < info->nprocs; k++) {
		const struct rr_info_proc *p = &info->procs[k];
		char name[64], parent[16] = "-", *exe = NULL;
		size_t len = 0;
		uint32_t j;

		/* the program of a pid's last image (an exec replaces it) */
		for (j = k + 1; j < info->nprocs && info->procs[j].pid != p->pid; j++)
			;
		snprintf(name, sizeof(name), "proc/%d.exe", (int)p->pid);
		if (!p->exe[0] && j == info->nprocs && trace_reader_file(r, name, &exe, &len) < 0)
			exe = NULL;
		if (p->parent != RR_NO_PROC)
			snprintf(parent, sizeof(parent), "%u", p->parent);
		printf("%-5u %8d %8d %7s %-6s ", k, (int)p->pid, (int)p->ppid, parent,
		       rr_tree_kind_name(p->kind));
		if (p->exe[0])
			trace_print_untrusted(stdout, p->exe, strlen(p->exe));
		else if (exe)
			trace_print_untrusted(stdout, exe, strnlen(exe, len));
		else if (j == info->nprocs)
			fputs("?", stdout);
		if (j < info->nprocs)
			fputs(p->exe[0] ? " (until its exec)" : "(until its exec)", stdout);
		putchar('\n');
		free(exe);
	}
	free(info);
}

static void info_usage(FILE *out)
{
	fprintf(out, "usage: spool info [--sysroot DIR] [TRACE_DIR]\n"
		     "\n"
		     "Describe a trace (default spool.trace): the run summary, each stream\n"
		     "(process, thread, events, events lost), what the trace is missing (the\n"
		     "same numbers the run printed) and whether its writer finished, the\n"
		     "snapshots of a recording (--snap-period), and any damage found while\n"
		     "reading it.\n"
		     "\n"
		     "options:\n"
		     "  --sysroot DIR  a trace made on a board: for each file its processes\n"
		     "               had mapped, whether DIR (the board's root or a copy of its\n"
		     "               files) holds the same build (by the build id the trace\n"
		     "               recorded), another build (spool report refuses it for\n"
		     "               names), or nothing\n"
		     "  -h, --help   show this help\n"
		     "\n"
		     "Exit status: 1 if the trace is damaged (or the summary could not all be\n"
		     "written: a full disk), 4 if it is incomplete (events lost, or spool did\n"
		     "not finish writing it), 2 on a usage error, else 0.\n");
}

int cmd_info(int argc, char **argv)
{
	static const struct option opts[] = {{"help", no_argument, NULL, 'h'},
					     {"sysroot", required_argument, NULL, 'S'},
					     {NULL, 0, NULL, 0}};
	const char *dir = "spool.trace";
	struct trace_reader *r = NULL;
	struct trace_problem prob = {0};
	struct trace_event ev;
	struct trace_loss loss;
	unsigned long rep_last;
	int nrep;
	uint64_t kinds[KIND_MAX] = {0}, first = 0, last = 0, n = 0, nthread = 0;
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
		if (c == 'S') {
			if (sysroot_option(optarg) < 0)
				return EXIT_USAGE;
			continue;
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
	if (cmd_trace_arg_check(dir, "info"))
		return 1;
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
		/* a thread's life is a KIND_LOCK record but not a lock's event:
		 * counted apart, as the summary's lock_events and thread_events */
		if (k == KIND_LOCK)
			nthread += ev_op_is_thread(ev_op(ev.rec->word));
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
	printf("events: %llu (lock %llu, thread life %llu, thread table %llu, lock table %llu, "
	       "proc %llu) over %s%.6f s\n",
	       (unsigned long long)n, (unsigned long long)(kinds[KIND_LOCK] - nthread),
	       (unsigned long long)nthread, (unsigned long long)kinds[KIND_THREAD],
	       (unsigned long long)kinds[KIND_LOCKDEF], (unsigned long long)kinds[KIND_PROC],
	       /* the last event's time is its packet's opening */
	       trace_reader_untimed(r) ? "at least " : "", n ? (double)(last - first) / 1e9 : 0.0);
	if (trace_reader_untimed(r))
		printf("event time: per packet (spool --clock=none): an event has the time its "
		       "packet opened, no time of its own\n");
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
	/* A recording's replays keep their traces inside it (spool replay). */
	nrep = trace_replay_count(dir, &rep_last);
	if (nrep)
		printf("replays: %d, their traces in %s/replays/ (the last: %s/replays/%lu)\n",
		       nrep, escape_str(dir), escape_str(dir), rep_last);
	info_procs(r);
	if (sysroot_get())
		info_sysroot(r);
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
