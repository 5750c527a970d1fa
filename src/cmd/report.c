// SPDX-License-Identifier: MIT
/*
 * report.c - `spool report --KIND [OPTIONS] [TRACE_DIR]`: print a report from
 * a trace that is already on disk.
 *
 * Report kinds live in one table (report_kinds): each has its option name,
 * one line of help and a run function taking the parsed common options. A new
 * kind (--functions, --paths, ...) is a row there and a run function; the
 * option parser, the help and the checks of the trace directory are shared.
 * Without --KIND the kinds the trace was made for share one reading of it
 * (report_one_pass): a kind that reads events does so through its
 * analyzer's pass (funcs_pass_ops, vars_pass_ops, lockstat_pass_ops of
 * analyze/pass.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../analyze/coverage.h"
#include "../analyze/funcs.h"
#include "../analyze/lockstat.h"
#include "../analyze/pass.h"
#include "../analyze/sysreport.h"
#include "../analyze/vars.h"
#include "../trace/trace.h"
#include "../trace/untrusted.h"
#include "../util/log.h"
#include "../util/options.h"
#include "../util/sysroot.h"
#include "../collect/session.h"
#include "cmd.h"
#include "run_opts.h"

#define REPORT_DEFAULT_DIR "spool.trace"

/* Options common to every kind. -1: not given, the kind picks its default. */
struct report_args {
	const char *trace_dir;
	int json;
	const char *sort;
	long limit;
	long top_sites;
	const char *output; /* -w FILE: --coverage writes lcov .info there */
	int all;	    /* --all: locks initialized and never used too */
	/* Without --KIND, after a probe report: the lock report only when the
	 * program used a lock, under this heading (lockstat_print_opts). */
	int skip_if_none;
	const char *heading;
	struct trace_loss_seen *seen; /* the loss a kind's reading saw */
};

struct report_kind {
	const char *name; /* --NAME selects it */
	const char *help;
	int (*run)(const struct report_args *a); /* returns an exit status */
};

/* The options of each kind from the common ones: one place for the run
 * of a single kind and for the shared reading (report_one_pass). */
static int report_locks_opts(const struct report_args *a, struct lockstat_print_opts *po)
{
	lockstat_print_opts_init(po);
	if (a->sort && lockstat_parse_sort(a->sort, po) < 0) {
		log_err("report: --sort '%s': want acq, contended, wait, hold or name", a->sort);
		return EXIT_USAGE;
	}
	if (a->limit >= 0)
		po->limit = (unsigned)a->limit;
	if (a->top_sites >= 0)
		po->top_sites = (unsigned)a->top_sites;
	po->json = a->json;
	po->header = !a->json;
	po->all = a->all;
	po->skip_if_none = a->skip_if_none;
	po->heading = a->heading;
	po->seen = a->seen;
	return 0;
}

static struct funcs_opts report_functions_opts(const struct report_args *a)
{
	return (struct funcs_opts){.json = a->json,
				   .limit = a->limit >= 0 ? (unsigned)a->limit : 30,
				   .callers = 3,
				   .header = !a->json,
				   .seen = a->seen};
}

static struct coverage_opts report_coverage_opts(const struct report_args *a)
{
	return (struct coverage_opts){.json = a->json,
				      .limit = a->limit >= 0 ? (unsigned)a->limit : 30,
				      .info_path = a->output,
				      .header = !a->json,
				      .seen = a->seen};
}

static struct vars_opts report_vars_opts(const struct report_args *a)
{
	return (struct vars_opts){.json = a->json,
				  .limit = a->limit >= 0 ? (unsigned)a->limit : 30,
				  .header = !a->json,
				  .seen = a->seen};
}

static struct sysreport_opts report_sys_opts(const struct report_args *a)
{
	return (struct sysreport_opts){.json = a->json, .header = !a->json, .seen = a->seen};
}

static int report_locks(const struct report_args *a)
{
	struct lockstat_print_opts po;

	if (report_locks_opts(a, &po))
		return EXIT_USAGE;
	return lockstat_report_dir(a->trace_dir, &po, stdout) < 0 ? 1 : 0;
}

static int report_functions(const struct report_args *a)
{
	struct funcs_opts fo = report_functions_opts(a);

	return funcs_report_dir(a->trace_dir, &fo, stdout) < 0 ? 1 : 0;
}

static int report_coverage(const struct report_args *a)
{
	struct coverage_opts co = report_coverage_opts(a);

	return coverage_report_dir(a->trace_dir, &co, stdout) < 0 ? 1 : 0;
}

static int report_vars(const struct report_args *a)
{
	struct vars_opts vo = report_vars_opts(a);

	return vars_report_dir(a->trace_dir, &vo, stdout) < 0 ? 1 : 0;
}

static int report_sys(const struct report_args *a)
{
	struct sysreport_opts so = report_sys_opts(a);

	return sysreport_dir(a->trace_dir, &so, stdout) < 0 ? 1 : 0;
}

static const struct report_kind report_kinds[] = {
    {"locks",
     "locks, semaphores, condition variables and barriers:\n"
     "                        contention, wait and hold times, per-thread totals,\n"
     "                        contended call sites, potential deadlocks (lock-order\n"
     "                        cycles)",
     report_locks},
    {"functions",
     "dynamic probes (spool probe): calls, total/self time,\n"
     "                        min/avg/max per call, callers, per thread",
     report_functions},
    {"coverage",
     "block and branch probes: blocks, branches and lines hit;\n"
     "                        -w FILE writes lcov .info (genhtml renders it)",
     report_coverage},
    {"sys",
     "system probes (spool probe -e sys:...): CPU time per thread, read/write\n"
     "                        calls and bytes per descriptor kind, allocations and\n"
     "                        live heap bytes, RSS min/max/final",
     report_sys},
    {"vars",
     "variable, assertion and time probes: value timelines with\n"
     "                        min/max, assertions true/false and the first failure,\n"
     "                        durations count/total/min/avg/max",
     report_vars},
};

#define REPORT_NKINDS (sizeof(report_kinds) / sizeof(report_kinds[0]))

/* Codes of spool report's long-only options. */
enum {
	REPORT_O_SORT = RUN_OPT_LONG,
	REPORT_O_TOP_SITES,
	REPORT_O_ALL,
	REPORT_O_SYSROOT,
	REPORT_O_KIND, /* REPORT_O_KIND + i selects report_kinds[i]; keep last */
};

/* spool report's own options, in the order --help lists them; after them
 * come a row per report kind (report_rows: listed in --help from
 * report_kinds) and the shared --json and --limit (report_spec). */
static const struct run_opt_own report_opts[] = {
    {"sort", required_argument, REPORT_O_SORT,
     "      --sort KEY       order of the lock and thread tables: wait (default),\n"
     "                       acq, contended, hold or name\n"},
    {"top-sites", required_argument, REPORT_O_TOP_SITES,
     "      --top-sites N    rows of the contended call-site table (default 10)\n"},
    {"all", no_argument, REPORT_O_ALL,
     "      --all            --locks: also the locks initialized and never used\n"},
    {"write", required_argument, 'w',
     "  -w, --write FILE     --coverage: write an lcov .info file (-o, --output\n"
     "                       FILE is the old spelling, kept with a warning for\n"
     "                       this release: -o names a trace directory in the\n"
     "                       other commands)\n"},
    {"output", required_argument, 'o', NULL}, /* the old spelling of -w (said above) */
    {"sysroot", required_argument, REPORT_O_SYSROOT,
     "      --sysroot DIR    the traced files are the board's, under DIR (its root\n"
     "                       or a copy of its files, debug files in DIR/usr/lib/\n"
     "                       debug/.build-id too): a file is used for names only\n"
     "                       when its build id is the run's (doc/arm64.md)\n"},
    {"help", no_argument, 'h', "  -h, --help           show this help\n"},
};

#define REPORT_NOPTS (sizeof(report_opts) / sizeof(report_opts[0]))

/* The options every command that prints a report shares (run_opts.c). */
#define REPORT_SHARED (RUN_OPT_JSON | RUN_OPT_LIMIT)

static void report_usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: spool report [--KIND] [OPTIONS] [TRACE_DIR]\n"
	    "\n"
	    "Print a report from a trace recorded earlier (default TRACE_DIR: " REPORT_DEFAULT_DIR
	    ").\n"
	    "\n"
	    "report kinds (one; without it, every report the trace was made for, in turn,\n"
	    "from one reading of the trace: its probes' kinds, functions first, then locks\n"
	    "when the program used one; locks alone for any other trace; with --json only\n"
	    "the first, the others named on stderr):\n");
	for (size_t i = 0; i < REPORT_NKINDS; i++)
		fprintf(out, "      --%-16s%s\n", report_kinds[i].name, report_kinds[i].help);
	fprintf(out,
		"\n"
		"options:\n");
	/* --json and --limit: the rows every command that prints a report
	 * shares, with their text */
	run_opts_usage(out, &(struct run_opts_spec){.mask = REPORT_SHARED});
	run_opts_own_usage(out, report_opts, REPORT_NOPTS);
	fprintf(out,
		"\n"
		"Every report says what the trace is missing, with the numbers and words of\n"
		"spool info and of the run: text 'spool: N events lost, trace in DIR/' (locks:\n"
		"'spool: N lock events, T thread events, M lost, ...') and 'missing: ...' when\n"
		"incomplete; JSON a \"trace\" object {lost, incomplete, writer_finished,\n"
		"missing}.\n"
		"\n"
		"Exit status: 0 success; 1 the trace is missing, unreadable or damaged (damage\n"
		"is reported as warnings naming the file and offset, and the report of what\n"
		"could be read is still printed), or the report could not all be written\n"
		"(a full disk); 2 usage error. A trace that is incomplete\n"
		"(events lost, or spool did not finish writing it) is reported with a warning\n"
		"saying what is missing, the same numbers spool info and the run printed.\n");
}

static int report_kind_index(const char *name)
{
	for (size_t i = 0; i < REPORT_NKINDS; i++)
		if (!strcmp(report_kinds[i].name, name))
			return (int)i;
	return 0;
}

/* Whether the run's summary (.spool/summary) counts lock events: a probe
 * trace of a program that takes locks holds them too. Read as every side
 * file is (untrusted.h); unreadable means no. */
static int report_has_lock_events(const char *dir)
{
	char *text = NULL;
	size_t len = 0;
	int yes = 0;

	if (trace_read_dir_file(dir, ".spool/summary", TRACE_SIDE_MAX, &text, &len) < 0)
		return 0;
	for (char *line = text; line < text + len;) {
		char *nl = memchr(line, '\n', (size_t)(text + len - line));
		unsigned long long n;

		if (nl)
			*nl = 0;
		if (sscanf(line, "lock_events=%llu", &n) == 1 && n > 0)
			yes = 1;
		line = nl ? nl + 1 : text + len;
	}
	free(text);
	return yes;
}

/* Without --KIND, the reports the trace was made for, in this order: the
 * kinds of probes a probe trace holds (functions first), then locks when it
 * holds lock events; locks alone for everything else. Fills kinds[] and
 * returns how many. */
static size_t report_pick_kinds(const char *dir, const struct report_kind **kinds)
{
	static const char *const order[] = {"functions", "coverage", "vars", "sys"};
	int have[REPORT_NKINDS] = {0};
	char path[PATH_MAX], *text = NULL;
	size_t len = 0, n = 0;

	/* Read as every side file is (untrusted.h): a link, a FIFO or
	 * /dev/zero there is no probes file. */
	if (trace_read_dir_file(dir, ".spool/probes", TRACE_SIDE_MAX, &text, &len) == 0) {
		for (char *line = text; line < text + len;) {
			char *nl = memchr(line, '\n', (size_t)(text + len - line)), op[16];

			if (nl)
				*nl = 0;
			if (sscanf(line, "%*u %15s", op) == 1 &&
			    (!strcmp(op, "entry") || !strcmp(op, "exit")))
				have[report_kind_index("functions")] = 1;
			line = nl ? nl + 1 : text + len;
		}
	}
	free(text);
	snprintf(path, sizeof(path), "%s/.spool/coverage", dir);
	have[report_kind_index("coverage")] = access(path, F_OK) == 0;
	snprintf(path, sizeof(path), "%s/.spool/vars", dir);
	have[report_kind_index("vars")] = access(path, F_OK) == 0;
	snprintf(path, sizeof(path), "%s/.spool/sys", dir);
	have[report_kind_index("sys")] = access(path, F_OK) == 0;
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (have[report_kind_index(order[i])])
			kinds[n++] = &report_kinds[report_kind_index(order[i])];
	if (!n || report_has_lock_events(dir))
		kinds[n++] = &report_kinds[report_kind_index("locks")];
	return n;
}

/* JSON is one document: with several kinds and no --KIND, the first, and
 * the others named on stderr. */
static void report_json_one(const struct report_kind **kinds, size_t n)
{
	char others[128] = "";

	for (size_t i = 1; i < n; i++)
		snprintf(others + strlen(others), sizeof(others) - strlen(others), "%s--%s",
			 i > 1 ? ", " : "", kinds[i]->name);
	log_info("report: --json shows --%s; this trace also has %s (name one: spool report "
		 "--KIND --json)",
		 kinds[0]->name, others);
}

/* The analyzers of a shared reading, one per kind that reads events
 * (coverage and sys read side files only). */
struct report_pass {
	const struct analyze_pass_ops *ops; /* NULL: a kind that reads no events */
	const void *opts;
	void *p;
	int failed; /* could not start or stopped: the kind prints nothing, exits 1 */
};

/* Heading of kind i of n (printed, or handed to the lock report, which
 * prints it only when the program used a lock). */
static void report_heading(struct report_args *a, const struct report_kind *k, size_t i, size_t n,
			   int named, char *heading, size_t len)
{
	snprintf(heading, len, "%s== spool report --%s ==\n", i ? "\n" : "", k->name);
	a->skip_if_none = 0;
	a->heading = NULL;
	if (n > 1 && k->run == report_locks && !named) {
		a->skip_if_none = 1;
		a->heading = heading;
	} else if (n > 1) {
		fputs(heading, stdout);
	}
}

/*
 * Without --KIND, every report the trace was made for, from one reading:
 * the trace is opened once (opening indexes every stream), each event goes
 * to every analyzer that wants events (functions, vars, locks), then each
 * report is printed in turn, as before. Reading it once per kind cost a
 * full read each (tests/integ/229). Returns the first failing kind's
 * status, as the run of each kind in turn did.
 */
static int report_one_pass(struct report_args *a, const struct report_kind **kinds, size_t n)
{
	struct report_pass ps[REPORT_NKINDS];
	struct lockstat_print_opts po;
	struct funcs_opts fo = report_functions_opts(a);
	struct vars_opts vo = report_vars_opts(a);
	struct trace_reader *r;
	struct trace_event ev;
	char heading[64];
	int rc = 0, read_rc;

	if (report_locks_opts(a, &po))
		return EXIT_USAGE;
	if (analyze_pass_open_reader(&r, a->trace_dir, 0) < 0)
		return 1;
	memset(ps, 0, sizeof(ps));
	for (size_t i = 0; i < n; i++) {
		int (*run)(const struct report_args *) = kinds[i]->run;

		if (run == report_functions)
			ps[i] = (struct report_pass){.ops = &funcs_pass_ops, .opts = &fo};
		else if (run == report_vars)
			ps[i] = (struct report_pass){.ops = &vars_pass_ops, .opts = &vo};
		else if (run == report_locks)
			ps[i] = (struct report_pass){.ops = &lockstat_pass_ops, .opts = &po};
		if (ps[i].ops)
			ps[i].failed = ps[i].ops->open(&ps[i].p, r, a->trace_dir, ps[i].opts) < 0;
	}
	while ((read_rc = trace_reader_next(r, &ev)) > 0)
		for (size_t i = 0; i < n; i++)
			if (ps[i].ops && !ps[i].failed)
				ps[i].failed = ps[i].ops->feed(ps[i].p, &ev) < 0;
	for (size_t i = 0; i < n; i++) {
		int (*run)(const struct report_args *) = kinds[i]->run;
		int k;

		report_heading(a, kinds[i], i, n, 0, heading, sizeof(heading));
		/* (the lock report's heading is printed only when it has locks) */
		po.skip_if_none = a->skip_if_none;
		po.heading = a->heading;
		if (ps[i].failed) {
			k = -1;
		} else if (ps[i].ops) {
			k = ps[i].ops->end(ps[i].p, read_rc, ps[i].opts, stdout);
		} else if (run == report_coverage) {
			struct coverage_opts co = report_coverage_opts(a);

			k = coverage_report_reader(r, a->trace_dir, &co, stdout);
		} else {
			struct sysreport_opts so = report_sys_opts(a);

			k = sysreport_reader(r, a->trace_dir, &so, stdout);
		}
		if (k < 0 && !rc)
			rc = 1;
	}
	for (size_t i = 0; i < n; i++)
		if (ps[i].ops)
			ps[i].ops->free(ps[i].p);
	trace_loss_seen_fill(a->seen, r);
	trace_reader_close(r);
	return rc;
}

/* A wrong option, said as spool report always has (report_spec). */
static void report_bad_option(int c, char **argv)
{
	if (c == ':')
		log_err("report: option '%s' needs a value (see spool report --help)",
			argv[optind - 1]);
	else if (optopt && optopt < 0x100)
		log_err("report: unknown option '-%c' (see spool report --help)", optopt);
	else
		log_err("report: unknown option '%s' (see spool report --help)",
			argv[optind - 1]);
}

static const struct run_opts_spec report_spec = {
    .mask = REPORT_SHARED, .usage = report_usage, .anywhere = 1, .bad_option = report_bad_option};

/* What the command line of spool report asks for, besides a's fields. */
struct report_cli {
	struct report_args *a;
	const struct report_kind *kind; /* --KIND, or NULL */
};

/* One of spool report's own options or kinds (run_opt_fn). */
static int report_opt(void *arg, int c, const char *val)
{
	struct report_cli *cl = arg;
	struct report_args *a = cl->a;
	uint64_t v;

	switch (c) {
	case 'o':
		run_opts_old_write("report", val);
		/* fall through */
	case 'w':
		a->output = val;
		return 0;
	case REPORT_O_SORT:
		a->sort = val;
		return 0;
	case REPORT_O_ALL:
		a->all = 1;
		return 0;
	case REPORT_O_SYSROOT:
		return sysroot_option(val) < 0 ? -1 : 0;
	case REPORT_O_TOP_SITES:
		if (options_parse_uint(val, 1u << 30, &v) < 0) {
			log_err("report: --top-sites '%s': want a number", val);
			return -1;
		}
		a->top_sites = (long)v;
		return 0;
	}
	if (c >= REPORT_O_KIND && c < REPORT_O_KIND + (int)REPORT_NKINDS) {
		const struct report_kind *k = &report_kinds[c - REPORT_O_KIND];

		if (cl->kind && cl->kind != k) {
			log_err("report: give one report kind (--%s or --%s)", cl->kind->name,
				k->name);
			return -1;
		}
		cl->kind = k;
		return 0;
	}
	log_err("report: cannot parse the options (see spool report --help)");
	return -1;
}

/* Parse spool report's options into a and *kind: report_opts, a row per
 * report kind (its help is report_kinds', printed in its own part of
 * --help) and the shared --json and --limit. As run_opts_parse. */
static int report_parse(int argc, char **argv, struct report_args *a,
			const struct report_kind **kind)
{
	struct run_opt_own rows[REPORT_NOPTS + REPORT_NKINDS];
	struct session_opts so = {.limit = -1};
	struct report_cli cl = {.a = a};
	int rc;

	memcpy(rows, report_opts, sizeof(report_opts));
	for (size_t i = 0; i < REPORT_NKINDS; i++)
		rows[REPORT_NOPTS + i] = (struct run_opt_own){report_kinds[i].name, no_argument,
							      REPORT_O_KIND + (int)i, NULL};
	rc = run_opts_parse("report", argc, argv, rows, REPORT_NOPTS + REPORT_NKINDS, &report_spec,
			    &so, report_opt, &cl);
	a->json = so.json;
	a->limit = so.limit;
	*kind = cl.kind;
	return rc;
}

int cmd_report(int argc, char **argv)
{
	struct trace_loss_seen seen = {.set = 0};
	struct report_args a = {
	    .trace_dir = REPORT_DEFAULT_DIR, .limit = -1, .top_sites = -1, .seen = &seen};
	const struct report_kind *kind = NULL, *kinds[REPORT_NKINDS];
	size_t nkinds = 0;
	char how[64];
	int rc;

	rc = report_parse(argc, argv, &a, &kind);
	if (rc)
		return rc < 0 ? EXIT_USAGE : 0;
	if (optind < argc)
		a.trace_dir = argv[optind++];
	if (optind < argc) {
		log_err("report: one trace directory at most, got '%s' too", argv[optind]);
		return EXIT_USAGE;
	}
	if (kind)
		kinds[nkinds++] = kind;
	else
		nkinds = report_pick_kinds(a.trace_dir, kinds);
	if (a.json && nkinds > 1) {
		report_json_one(kinds, nkinds);
		nkinds = 1;
	}
	snprintf(how, sizeof(how), "report%s%s", kind ? " --" : "", kind ? kind->name : "");
	if (cmd_trace_arg_check(a.trace_dir, how))
		return 1;
	char heading[64];

	rc = 0;
	if (nkinds > 1) {
		rc = report_one_pass(&a, kinds, nkinds);
		if (rc == EXIT_USAGE)
			return rc;
	}
	for (size_t i = 0; nkinds == 1 && i < nkinds; i++) {
		int r;

		report_heading(&a, kinds[i], i, nkinds, kind != NULL, heading, sizeof(heading));
		r = kinds[i]->run(&a);
		if (r == EXIT_USAGE)
			return r;
		if (!rc)
			rc = r;
	}

	/* a report cut short by a full disk is not a success */
	if (cmd_stdout_done("the report") && !rc)
		rc = 1;
	/* every kind says, the same way, what the trace is missing (the
	 * exit status stays the report's: losses are not damage) */
	if (rc != EXIT_USAGE)
		cmd_dir_loss(a.trace_dir, &seen, NULL);
	return rc;
}
