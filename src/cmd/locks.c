// SPDX-License-Identifier: MIT
/*
 * locks.c - `spool locks`: run a program with the lock hooks of the agent,
 * then print the lock report.
 *
 * The program's own stdout is sacred: spool writes its summary line and the
 * report to stderr, and exits with the program's status.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../analyze/lockstat.h"
#include "../collect/session.h"
#include "../util/log.h"
#include "../util/options.h"
#include "cmd.h"
#include "run_opts.h"

/* The shared options spool locks takes: all of them. */
static const struct run_opts_spec locks_run_opts = {.mask = RUN_OPT_ALL};

static void locks_usage(FILE *out)
{
	fprintf(out,
		"usage: spool locks [OPTIONS] [--] PROGRAM [ARGS...]\n"
		"\n"
		"Run PROGRAM with spool's agent preloaded and record every mutex, rwlock,\n"
		"spinlock, semaphore, condition variable, barrier and thread create/join it\n"
		"uses; when it exits, print a lock report on stderr. PROGRAM's stdin,\n"
		"stdout and stderr are its own. spool waits for every process PROGRAM\n"
		"starts (a daemon too).\n"
		"\n"
		"options:\n");
	run_opts_usage(out, &locks_run_opts);
	fprintf(out,
		"      --json           print the report as JSON (on stderr)\n"
		"      --sort KEY       order locks by acq, contended, wait, hold or name\n"
		"                       (default wait)\n"
		"      --limit N        print at most N locks (default 20, 0 = all)\n"
		"      --top-sites N    contended call-site pairs to print per lock (default 3)\n"
		"      --all            also list the locks initialized and never used\n"
		"  -q, --quiet          print only the summary line, no report\n"
		"  -h, --help           show this help\n"
		"\n"
		"Exit status: PROGRAM's (128+N if signal N killed it, 127 if it is not\n"
		"found, 126 if it is not executable), or 4 if that is 0 but the trace is\n"
		"incomplete (events lost: rings full, no free ring, the disk full; the\n"
		"summary line says how many; processes without a process slot,\n"
		"--max-procs; or processes still running when the trace ended); 1 when\n"
		"spool cannot make the trace; 2 on a usage error.\n"
		"\n"
		"Later: spool report --locks DIR, spool export --perfetto DIR, babeltrace2 DIR.\n");
}

static const char *fmt_count(uint64_t v, char *buf, size_t len)
{
	char tmp[32];
	size_t n, o = 0;

	n = (size_t)snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)v);
	for (size_t i = 0; i < n && o + 2 < len; i++) {
		if (i && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = tmp[i];
	}
	buf[o] = 0;
	return buf;
}

int cmd_locks(int argc, char **argv)
{
	static const struct option own[] = {
		{"json", no_argument, NULL, 'j'},
		{"sort", required_argument, NULL, 'S'},
		{"limit", required_argument, NULL, 'l'},
		{"top-sites", required_argument, NULL, 't'},
		{"all", no_argument, NULL, 'A'},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct session_opts so = {
		.trace_dir = "spool.trace",
		.ring_bytes = SHM_DEFAULT_RING_BYTES,
		.max_rings = SHM_DEFAULT_MAX_RINGS,
	};
	struct option opts[32];
	struct lockstat_print_opts po;
	struct session_result res;
	char c1[32], c2[32];
	uint64_t v, lost;
	int c, rc;

	lockstat_print_opts_init(&po);
	if (run_opts_table(own, &locks_run_opts, opts, sizeof(opts) / sizeof(opts[0])) < 0)
		return 1;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:o:qh", opts, NULL)) != -1) {
		rc = run_opts_handle(c, optarg, &locks_run_opts, &so);
		if (rc < 0)
			return EXIT_USAGE;
		if (rc)
			continue;
		switch (c) {
		case 'j':
			po.json = 1;
			break;
		case 'A':
			po.all = 1;
			break;
		case 'S':
			if (lockstat_parse_sort(optarg, &po) < 0) {
				log_err("--sort '%s': want acq, contended, wait, hold or name", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'l':
			if (options_parse_uint(optarg, 1u << 30, &v) < 0) {
				log_err("--limit '%s': want a number", optarg);
				return EXIT_USAGE;
			}
			po.limit = (unsigned)v;
			break;
		case 't':
			if (options_parse_uint(optarg, 1000, &v) < 0) {
				log_err("--top-sites '%s': want a number", optarg);
				return EXIT_USAGE;
			}
			po.top_sites = (unsigned)v;
			break;
		case 'q':
			so.quiet = 1;
			break;
		case 'h':
			locks_usage(stdout);
			return 0;
		default:
			options_report_error("locks", c, argv);
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		log_err("no program to run (usage: spool locks [OPTIONS] -- PROGRAM [ARGS])");
		return EXIT_USAGE;
	}
	so.argv = argv + optind;
	rc = session_run(&so, &res);
	if (rc < 0)
		return cmd_start_status(rc);

	lost = trace_loss_events(&res.loss);
	if (res.term_signal)
		log_info("%s killed by signal %d (%s)%s", so.argv[0], res.term_signal,
			 strsignal(res.term_signal), res.core_dumped ? ", core dumped" : "");
	log_info("%s lock events, %s lost, trace in %s/", fmt_count(res.st.lock_events, c1, sizeof(c1)),
		 fmt_count(lost, c2, sizeof(c2)), so.trace_dir);
	trace_loss_warn(so.trace_dir, &res.loss);
	if (lost - res.loss.write - res.loss.rejected)
		log_warn("events were lost: try --ring-size if rings were full, --max-threads if "
			 "no ring was free");
	if (!so.quiet && !res.trace_error) {
		fflush(stdout);
		lockstat_report_dir(so.trace_dir, &po, stderr);
	}
	return cmd_run_status(&res);
}
