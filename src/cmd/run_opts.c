// SPDX-License-Identifier: MIT
/*
 * run_opts.c - the options shared by the commands that run a program
 * (run_opts.h): one row each, with the getopt entry, the help text and the
 * check of the value; and the parsing of a command's options from its rows
 * and these (run_opts_own_parse of run_opts_own.c, with these rows added
 * and handled before the command's own). A new shared option is a row here
 * and a case in run_opts_handle; every command that names it in its mask
 * gets it, spelled and explained the same way.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "../collect/session.h"
#include "../collect/stream_send.h"
#include "../common/shm.h"
#include "../util/log.h"
#include "../util/options.h"
#include "run_opts.h"

/* getopt codes of the shared long options without a short form: above
 * every character and every code a command uses for its own options. */
#define RUN_OPT_CODE 0x4000

/* --json and --limit mean the same in every command that prints a report
 * (locks, probe, report; path has --json): one text each. */
#define RUN_OPTS_JSON_HELP                                                                  \
	"      --json           print JSON in place of the text, where the text goes;\n"     \
	"                       complete (--limit cuts only the text); the schemas:\n"     \
	"                       doc/report-locks.md, doc/probe.md, doc/path.md\n"
#define RUN_OPTS_LIMIT_HELP                                                                 \
	"      --limit N        rows per table of the text report (default 20 for\n"        \
	"                       locks, 30 for any other table; 0 = all)\n"

struct run_opt_row {
	unsigned bit;
	struct option opt;
	const char *help; /* lines after the option column; %u: the default(s) */
};

static const struct run_opt_row run_opt_rows[] = {
    {RUN_OPT_OUTPUT,
     {"output", required_argument, NULL, 'o'},
     "  -o, --output DIR     trace directory (default spool.trace); a trace spool\n"
     "                       wrote there is kept as DIR.old, anything else there\n"
     "                       is refused\n"},
    {RUN_OPT_RING_SIZE,
     {"ring-size", required_argument, NULL, RUN_OPT_CODE + 1},
     "      --ring-size SIZE per-thread ring buffer, power of two, k/m suffixes\n"
     "                       (default %um); too small a ring loses events, counted\n"},
    {RUN_OPT_ON_FULL,
     {"on-full", required_argument, NULL, RUN_OPT_CODE + 2},
     "      --on-full MODE   when a ring is full: wait (default) makes the thread\n"
     "                       wait up to 100 ms for spool to make room; drop\n"
     "                       drops the event at once; both count what is lost\n"},
    {RUN_OPT_MAX_THREADS,
     {"max-threads", required_argument, NULL, RUN_OPT_CODE + 3},
     "      --max-threads N  threads alive at once that get a ring (default %u; a\n"
     "                       ring is used again once its thread has ended); the\n"
     "                       events of a thread beyond that are counted as lost\n"},
    {RUN_OPT_MAX_PROCS,
     {"max-procs", required_argument, NULL, RUN_OPT_CODE + 4},
     "      --max-procs N    processes alive at once that get a process slot\n"
     "                       (default %u, at most %u; a slot is used again once\n"
     "                       its process has ended); a process beyond that is\n"
     "                       traced without its maps and command line (counted:\n"
     "                       the trace is incomplete)\n"},
    {RUN_OPT_UNTIL_FIRST_EXIT,
     {"until-first-exit", no_argument, NULL, RUN_OPT_CODE + 5},
     "      --until-first-exit  end the trace when PROGRAM's first process exits\n"
     "                       (default: when it and every process it started have\n"
     "                       exited; after the first, Ctrl-C or SIGTERM to spool\n"
     "                       ends it); processes still running are left alone and\n"
     "                       counted: the trace is incomplete\n"},
    {RUN_OPT_STACKS,
     {"stacks", required_argument, NULL, RUN_OPT_CODE + 6},
     "      --stacks N       also record N frame-pointer frames above each call\n"
     "                       site (default 0, at most 32)\n"},
    {RUN_OPT_STREAM, {"stream", required_argument, NULL, RUN_OPT_CODE + 7}, STREAM_SEND_HELP},
    {RUN_OPT_NO_KEEP, {"no-keep", no_argument, NULL, RUN_OPT_CODE + 8}, STREAM_SEND_NO_KEEP_HELP},
    {RUN_OPT_JSON, {"json", no_argument, NULL, RUN_OPT_CODE + 9}, RUN_OPTS_JSON_HELP},
    {RUN_OPT_LIMIT, {"limit", required_argument, NULL, RUN_OPT_CODE + 10}, RUN_OPTS_LIMIT_HELP},
    {RUN_OPT_CLOCK,
     {"clock", required_argument, NULL, RUN_OPT_CODE + 11},
     "      --clock MODE     tsc (default): each event has its time; none: no\n"
     "                       per-event time, the clock is read once per packet\n"
     "                       of events (cheaper: no clock read per event); counts,\n"
     "                       order, call paths stay exact, and reports show no\n"
     "                       duration, hold or wait time\n"},
};

#define RUN_OPT_NROWS (sizeof(run_opt_rows) / sizeof(run_opt_rows[0]))

void run_opts_usage(FILE *out, const struct run_opts_spec *spec)
{
	for (size_t i = 0; i < RUN_OPT_NROWS; i++) {
		const struct run_opt_row *r = &run_opt_rows[i];

		if (!(spec->mask & r->bit))
			continue;
		switch (r->bit) {
		case RUN_OPT_RING_SIZE:
			fprintf(out, r->help, (unsigned)(SHM_DEFAULT_RING_BYTES >> 20));
			break;
		case RUN_OPT_MAX_THREADS:
			fprintf(out, r->help, (unsigned)SHM_DEFAULT_MAX_RINGS);
			break;
		case RUN_OPT_MAX_PROCS:
			fprintf(out, r->help, (unsigned)SHM_DEFAULT_MAX_PROCS,
				(unsigned)SHM_MAX_PROCS);
			break;
		case RUN_OPT_OUTPUT:
			fputs(spec->output_help ? spec->output_help : r->help, out);
			break;
		default:
			fputs(r->help, out);
		}
	}
}

/* The value of --limit (0 to 2^30) into *out: 0, or -1 (said). */
static int run_opts_limit(const char *val, long *out)
{
	uint64_t v;

	if (run_opts_uint("--limit", val, 0, 1u << 30, &v) < 0)
		return -1;
	*out = (long)v;
	return 0;
}

/* Option c (getopt's return) with its argument: 1 when it is a shared
 * option of spec (so is set), 0 when it is not, -1 when its value is wrong
 * (said). */
static int run_opts_handle(int c, const char *arg, const struct run_opts_spec *spec,
		    struct session_opts *so)
{
	uint64_t v;
	unsigned bit = 0;

	for (size_t i = 0; i < RUN_OPT_NROWS && !bit; i++)
		if (run_opt_rows[i].opt.val == c && (spec->mask & run_opt_rows[i].bit))
			bit = run_opt_rows[i].bit;
	switch (bit) {
	case RUN_OPT_OUTPUT:
		so->trace_dir = arg;
		return 1;
	case RUN_OPT_RING_SIZE:
		return session_opt_ring_size(so, arg, spec->min_ring ? spec->min_ring : 4096) < 0
			   ? -1
			   : 1;
	case RUN_OPT_ON_FULL:
		return session_opt_on_full(so, arg) < 0 ? -1 : 1;
	case RUN_OPT_MAX_THREADS:
		return session_opt_max_threads(so, arg) < 0 ? -1 : 1;
	case RUN_OPT_MAX_PROCS:
		return session_opt_max_procs(so, arg) < 0 ? -1 : 1;
	case RUN_OPT_UNTIL_FIRST_EXIT:
		so->until_first_exit = 1;
		return 1;
	case RUN_OPT_STREAM:
		return stream_send_option(arg) < 0 ? -1 : 1;
	case RUN_OPT_NO_KEEP:
		stream_send_no_keep();
		return 1;
	case RUN_OPT_JSON:
		so->json = 1;
		return 1;
	case RUN_OPT_LIMIT:
		return run_opts_limit(arg, &so->limit) < 0 ? -1 : 1;
	case RUN_OPT_CLOCK:
		if (!strcmp(arg, "tsc")) {
			so->shm_flags &= ~SHM_F_UNTIMED;
		} else if (!strcmp(arg, "none")) {
			so->shm_flags |= SHM_F_UNTIMED;
		} else {
			log_err("--clock '%s': want tsc or none", arg);
			return -1;
		}
		return 1;
	case RUN_OPT_STACKS:
		if (run_opts_uint("--stacks", arg, 0, 32, &v) < 0)
			return -1;
		so->stack_depth = (uint32_t)v;
		return 1;
	default:
		return 0;
	}
}

/* run_opts_parse's fn: a shared option of the command's mask, -q, or one
 * of the command's own (handed to its fn). */
struct run_opts_run {
	const struct run_opts_spec *spec;
	struct session_opts *so;
	run_opt_fn fn;
	void *ctx;
};

static int run_opts_run_opt(void *arg, int c, const char *val)
{
	struct run_opts_run *run = arg;
	int rc = run_opts_handle(c, val, run->spec, run->so);

	if (rc)
		return rc < 0 ? -1 : 0;
	if (c == 'q') {
		run->so->quiet = 1;
		return 0;
	}
	return run->fn(run->ctx, c, val);
}

int run_opts_parse(const char *cmd, int argc, char **argv, const struct run_opt_own *own, size_t n,
		   const struct run_opts_spec *spec, struct session_opts *so, run_opt_fn fn,
		   void *ctx)
{
	struct run_opt_own rows[RUN_OPTS_MAX];
	struct run_opts_run run = {.spec = spec, .so = so, .fn = fn, .ctx = ctx};
	size_t k = 0;
	int rc;

	for (size_t i = 0; i < n && k < RUN_OPTS_MAX; i++)
		rows[k++] = own[i];
	for (size_t i = 0; i < RUN_OPT_NROWS && k < RUN_OPTS_MAX; i++)
		if (spec->mask & run_opt_rows[i].bit)
			rows[k++] = (struct run_opt_own){run_opt_rows[i].opt.name,
							 run_opt_rows[i].opt.has_arg,
							 run_opt_rows[i].opt.val, NULL};
	if (k == RUN_OPTS_MAX) {
		log_err("spool %s: too many options for run_opts_parse (at most %d)", cmd,
			RUN_OPTS_MAX - 1);
		return -1;
	}
	rc = run_opts_own_parse(cmd, argc, argv, rows, k, spec, run_opts_run_opt, &run);
	if (rc)
		return rc;
	if (!stream_send_keeps() && !stream_send_active()) {
		log_err("spool %s: --no-keep is for --stream HOST:PORT (it frees what the receiver "
			"has)",
			cmd);
		return -1;
	}
	return 0;
}
