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
#include "../collect/stream_send.h"
#include "../util/log.h"
#include "../util/options.h"
#include "cmd.h"
#include "run_opts.h"

/* The shared options spool locks takes: all of them. */
static void locks_usage(FILE *out);
static const struct run_opts_spec locks_run_opts = {
    .mask = RUN_OPT_ALL | RUN_OPT_JSON | RUN_OPT_LIMIT | RUN_OPT_CLOCK, .usage = locks_usage};

/* Codes of spool locks' long-only options. */
enum {
	LOCKS_O_SORT = RUN_OPT_LONG,
	LOCKS_O_TOP_SITES,
	LOCKS_O_ALL,
};

/* spool locks' own options, in the order --help lists them (after the
 * shared ones). */
static const struct run_opt_own locks_own_opts[] = {
    {"sort", required_argument, LOCKS_O_SORT,
     /* the same words as spool report's: one meaning per option name */
     "      --sort KEY       order of the lock and thread tables: wait (default),\n"
     "                       acq, contended, hold or name\n"},
    {"top-sites", required_argument, LOCKS_O_TOP_SITES,
     "      --top-sites N    rows of the contended call-site table (default 10)\n"},
    {"all", no_argument, LOCKS_O_ALL,
     "      --all            also list the locks initialized and never used\n"},
    {"quiet", no_argument, 'q', "  -q, --quiet          print only the summary line, no report\n"},
    {"help", no_argument, 'h', "  -h, --help           show this help\n"},
};

#define LOCKS_NOWN (sizeof(locks_own_opts) / sizeof(locks_own_opts[0]))

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
	run_opts_own_usage(out, locks_own_opts, LOCKS_NOWN);
	fprintf(out,
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

/* What the command line of spool locks asks for. */
struct locks_cli {
	struct session_opts *so;
	struct lockstat_print_opts *po;
};

/* One of spool locks' own options (run_opt_fn). */
static int locks_opt(void *arg, int c, const char *val)
{
	struct locks_cli *cl = arg;
	struct lockstat_print_opts *po = cl->po;
	uint64_t v = 0;
	int rc;

	switch (c) {
	case LOCKS_O_ALL:
		po->all = 1;
		return 0;
	case LOCKS_O_SORT:
		if (lockstat_parse_sort(val, po) < 0) {
			log_err("--sort '%s': want acq, contended, wait, hold or name", val);
			return -1;
		}
		return 0;
	case LOCKS_O_TOP_SITES:
		rc = run_opts_uint("--top-sites", val, 0, 1000, &v);
		po->top_sites = (unsigned)v;
		return rc;
	}
	return -1;
}

int cmd_locks(int argc, char **argv)
{
	struct session_opts so = {
		.trace_dir = "spool.trace",
		.ring_bytes = SHM_DEFAULT_RING_BYTES,
		.max_rings = SHM_DEFAULT_MAX_RINGS,
		.limit = -1,
	};
	struct lockstat_print_opts po;
	struct locks_cli cl = {.so = &so, .po = &po};
	struct session_result res;
	char c1[32], c2[32], c3[32];
	uint64_t lost;
	int rc;

	lockstat_print_opts_init(&po);
	rc = run_opts_parse("locks", argc, argv, locks_own_opts, LOCKS_NOWN, &locks_run_opts, &so,
			    locks_opt, &cl);
	if (rc)
		return rc < 0 ? EXIT_USAGE : 0;
	po.json = so.json;
	if (so.limit >= 0)
		po.limit = (unsigned)so.limit;
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
	/* the agent's thread events are KIND_LOCK records, but not a lock's:
	 * counted apart, as the report's header does */
	log_info("%s lock events, %s thread events, %s lost, trace in %s/",
		 fmt_count(res.st.lock_events - res.st.thread_events, c1, sizeof(c1)),
		 fmt_count(res.st.thread_events, c3, sizeof(c3)), fmt_count(lost, c2, sizeof(c2)),
		 so.trace_dir);
	trace_loss_warn(so.trace_dir, &res.loss);
	if (lost - res.loss.write - res.loss.rejected)
		log_warn("events were lost: try --ring-size if rings were full, --max-threads if "
			 "no ring was free");
	if (!so.quiet && !res.trace_error && !stream_send_keeps())
		log_info("--no-keep: no report here (the board's copy is freed as it goes): "
			 "spool report --locks on the host's trace");
	else if (!so.quiet && !res.trace_error) {
		fflush(stdout);
		lockstat_report_dir(so.trace_dir, &po, stderr);
	}
	return cmd_run_status(&res);
}
