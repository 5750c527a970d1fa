// SPDX-License-Identifier: MIT
/*
 * export.c - `spool export`: a trace converted for timeline viewers, Perfetto
 * UI (protobuf, any size) or chrome://tracing (JSON, small traces).
 *
 * A damaged trace is exported up to where it could be read: the reader's
 * problems are listed (file and offset) and the exit status is 1, but the
 * output is still written, since a crashed run is when the timeline is most
 * wanted.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../analyze/export.h"
#include "../analyze/flame.h"
#include "../trace/trace.h"
#include "../util/log.h"
#include "../util/outfile.h"
#include "../util/symbolize.h"
#include "../util/sysroot.h"
#include "cmd.h"
#include "run_opts.h"

/* Codes of spool export's long-only options. */
enum {
	EXPORT_O_PERFETTO = RUN_OPT_LONG,
	EXPORT_O_CHROME,
	EXPORT_O_FORCE,
	EXPORT_O_FOLDED,
	EXPORT_O_FLAME,
	EXPORT_O_WEIGHT,
	EXPORT_O_TITLE,
	EXPORT_O_SYSROOT,
};

/* spool export's options, in the order --help lists them. */
static const struct run_opt_own export_opts[] = {
    {"perfetto", no_argument, EXPORT_O_PERFETTO,
     "  --perfetto       Perfetto protobuf trace (open in https://ui.perfetto.dev);\n"
     "                   default output spool.pftrace\n"},
    {"chrome", no_argument, EXPORT_O_CHROME,
     /* %llu: EXPORT_CHROME_MAX_EVENTS (export_usage) */
     "  --chrome         Chrome JSON trace event format (chrome://tracing);\n"
     "                   default output spool.json. Refused above %llu events\n"
     "                   unless --force: JSON viewers load the whole file in memory\n"},
    {"write", required_argument, 'w',
     "  -w, --write FILE write to FILE ('-' for stdout): written beside it and\n"
     "                   renamed when complete, so a failed export leaves FILE as\n"
     "                   it was; a FIFO or a device is written in place. (-o,\n"
     "                   --output FILE is the old spelling, kept with a warning\n"
     "                   for this release: -o names a trace directory in the\n"
     "                   other commands)\n"},
    {"output", required_argument, 'o', NULL}, /* the old spelling of -w (said above) */
    {"force", no_argument, EXPORT_O_FORCE,
     "  --force          export to Chrome JSON whatever the size\n"},
    {"folded", no_argument, EXPORT_O_FOLDED,
     "  --folded         folded stacks of a probe trace (func: probes), one line\n"
     "                   \"main;f;g WEIGHT\" per calling context, all threads merged,\n"
     "                   for flamegraph.pl / speedscope; default output spool.folded\n"},
    {"flamegraph", no_argument, EXPORT_O_FLAME,
     "  --flamegraph     the same as a self-contained SVG flame graph; default\n"
     "                   output spool.svg\n"},
    {"weight", required_argument, EXPORT_O_WEIGHT,
     "  --weight W       folded/flamegraph: 'time' (self ns, the default) or 'calls'\n"},
    {"title", required_argument, EXPORT_O_TITLE, "  --title TEXT     flamegraph: the title\n"},
    {"sysroot", required_argument, EXPORT_O_SYSROOT,
     "  --sysroot DIR    the traced files are the board's, under DIR (its root or a\n"
     "                   copy of its files): names come from them when their build\n"
     "                   ids are the run's (doc/arm64.md)\n"},
    {"help", no_argument, 'h', "  -h, --help       show this help\n"},
};

#define EXPORT_NOPTS (sizeof(export_opts) / sizeof(export_opts[0]))

static void export_usage(FILE *out)
{
	fprintf(out,
		"usage: spool export (--perfetto | --chrome) [-w FILE] [--force] [TRACE_DIR]\n"
		"\n"
		"Convert a trace (default spool.trace) into a timeline: one track per thread\n"
		"with its waits (\"wait <lock>\": contended acquisitions, condition waits,\n"
		"barriers, joins) and one track per lock with its holds (\"hold by <tid>\").\n"
		"Probe traces (spool probe -e func:...) add one slice per function call,\n"
		"named by the function, nested by call depth on each thread.\n"
		"Call sites and locks are named from the traced binaries (symbols, file:line).\n"
		"\n"
		"options:\n");
	for (size_t i = 0; i < EXPORT_NOPTS; i++)
		if (export_opts[i].val == EXPORT_O_CHROME)
			fprintf(out, export_opts[i].help,
				(unsigned long long)EXPORT_CHROME_MAX_EVENTS);
		else
			run_opts_own_usage(out, &export_opts[i], 1);
	fprintf(out,
		"\n"
		"Exits 1 if the trace is damaged (what could be read is still exported) or the\n"
		"export failed, 2 on a usage error. An incomplete trace (events lost, or spool\n"
		"did not finish writing it) is exported with a warning saying what is missing;\n"
		"the export says it too (Perfetto: an instant on a track \"spool\"; Chrome: a\n"
		"global instant and a top-level \"trace\" object, see doc/export.md).\n");
}

/* A wrong option, said as spool export always has (spec.bad_option). */
static void export_bad_option(int c, char **argv)
{
	if (c == ':')
		log_err("option '%s' needs an argument (see spool export --help)",
			argv[optind - 1]);
	else if (optopt && optopt < 256 && argv[optind - 1][1] != '-')
		log_err("unknown option '-%c' (see spool export --help)", optopt);
	else
		log_err("unknown option '%s' (see spool export --help)", argv[optind - 1]);
}

static const struct run_opts_spec export_spec = {
    .usage = export_usage, .anywhere = 1, .bad_option = export_bad_option};

/* --folded and --flamegraph: src/analyze/flame.c; when nothing could be
 * drawn, what was at the output before is left as it was. */
static int flame_export_cmd(const char *dir, const char *out, int svg, struct flame_opts *fl)
{
	struct outfile of;
	int rc;

	if (!out)
		out = svg ? "spool.svg" : "spool.folded";
	if (outfile_open(&of, out, 0666, 1) < 0)
		return 1; /* said why */
	fl->format = svg ? FLAME_SVG : FLAME_FOLDED;
	rc = flame_export_dir(dir, fl, of.f);
	if (rc < 0) {
		outfile_abort(&of);
		return 1;
	}
	return outfile_commit(&of) < 0 ? 1 : 0;
}

enum { EXPORT_NONE, EXPORT_PERFETTO, EXPORT_CHROME, EXPORT_FOLDED, EXPORT_FLAME };

/* What the command line of spool export asks for. */
struct export_cli {
	struct export_options *eo;
	struct flame_opts *fl;
	const char *out;
	int format;
};

/* One of spool export's options (run_opt_fn). */
static int export_opt(void *arg, int c, const char *val)
{
	struct export_cli *cl = arg;

	switch (c) {
	case 'o':
		run_opts_old_write("export", val);
		/* fall through */
	case 'w':
		cl->out = val;
		return 0;
	case EXPORT_O_PERFETTO:
	case EXPORT_O_CHROME:
	case EXPORT_O_FOLDED:
	case EXPORT_O_FLAME:
		if (cl->format != EXPORT_NONE) {
			log_err("choose one of --perfetto, --chrome, --folded and --flamegraph");
			return -1;
		}
		cl->format = c == EXPORT_O_PERFETTO ? EXPORT_PERFETTO
			     : c == EXPORT_O_CHROME ? EXPORT_CHROME
			     : c == EXPORT_O_FOLDED ? EXPORT_FOLDED
						    : EXPORT_FLAME;
		return 0;
	case EXPORT_O_WEIGHT:
		if (strcmp(val, "time") && strcmp(val, "calls")) {
			log_err("--weight '%s': want time or calls", val);
			return -1;
		}
		cl->fl->weight = strcmp(val, "calls") ? FLAME_WEIGHT_TIME : FLAME_WEIGHT_CALLS;
		return 0;
	case EXPORT_O_TITLE:
		cl->fl->title = val;
		return 0;
	case EXPORT_O_SYSROOT:
		return sysroot_option(val) < 0 ? -1 : 0;
	case EXPORT_O_FORCE:
		cl->eo->force = 1;
		return 0;
	}
	return -1;
}

int cmd_export(int argc, char **argv)
{
	struct export_options eo = {0};
	struct flame_opts fl = {0};
	struct export_cli cl = {.eo = &eo, .fl = &fl, .format = EXPORT_NONE};
	struct export_perfetto *pf = NULL;
	struct export_chrome *ch = NULL;
	struct export_stats st = {0};
	struct trace_loss loss;
	struct trace_problem prob = {0};
	struct trace_reader *r = NULL;
	struct symbolizer *sym = NULL;
	struct trace_event ev;
	const char *dir = "spool.trace", *out;
	int format, to_stdout, rc, feed_rc = 0, read_failed = 0, status = 1;
	struct outfile of;

	rc = run_opts_own_parse("export", argc, argv, export_opts, EXPORT_NOPTS, &export_spec,
				export_opt, &cl);
	if (rc)
		return rc < 0 ? EXIT_USAGE : 0;
	out = cl.out;
	format = cl.format;
	if (optind < argc)
		dir = argv[optind++];
	if (optind < argc) {
		log_err("unexpected argument '%s' (see spool export --help)", argv[optind]);
		return EXIT_USAGE;
	}
	if (format == EXPORT_NONE) {
		log_err("say which format: --perfetto, --chrome, --folded or --flamegraph (see "
			"spool export --help)");
		return EXIT_USAGE;
	}
	if (cmd_trace_arg_check(dir, format == EXPORT_PERFETTO ? "export --perfetto"
				    : format == EXPORT_CHROME ? "export --chrome"
				    : format == EXPORT_FOLDED ? "export --folded"
							      : "export --flamegraph"))
		return 1;
	if (format == EXPORT_FOLDED || format == EXPORT_FLAME) {
		struct trace_loss_seen seen = {.set = 0};

		fl.seen = &seen;
		rc = flame_export_cmd(dir, out, format == EXPORT_FLAME, &fl);
		cmd_dir_loss(dir, &seen, NULL);
		return rc;
	}
	if (!out)
		out = format == EXPORT_PERFETTO ? "spool.pftrace" : "spool.json";
	to_stdout = !strcmp(out, "-");

	rc = trace_reader_open(&r, dir, &prob);
	if (rc < 0) {
		log_err("%s: %s", prob.file[0] ? prob.file : dir,
			prob.msg[0] ? prob.msg : strerror(-rc));
		return 1;
	}
	/* a timeline of a trace without per-event time would draw every
	 * call of a packet at one instant, its duration 0: not drawn */
	if (trace_reader_untimed(r)) {
		log_err("%s: this trace has no per-event time (spool --clock=none): a timeline "
			"(--%s) needs one; export --folded --weight calls shows its calls",
			dir, format == EXPORT_PERFETTO ? "perfetto" : "chrome");
		rc = -ENODATA;
		goto out_reader;
	}
	rc = symbolizer_open(&sym, r);
	if (rc < 0) {
		log_err("symbolizer: %s", strerror(-rc));
		goto out_reader;
	}
	eo.sym = sym;
	eo.r = r;
	/* The trace opened: only now is the output touched (beside it). */
	if (outfile_open(&of, out, 0666, 1) < 0)
		goto out_sym; /* said why */
	rc = format == EXPORT_PERFETTO ? export_perfetto_open(&pf, of.f, &eo)
				       : export_chrome_open(&ch, of.f, &eo);
	if (rc < 0) {
		log_err("export: %s", strerror(-rc));
		goto out_file;
	}
	for (size_t i = 0; i < trace_reader_nstreams(r); i++) {
		const struct trace_stream_info *si = trace_reader_stream(r, i);

		export_model_thread_hint(pf ? export_perfetto_model(pf) : export_chrome_model(ch),
					 (uint32_t)i, si->pid, si->tid); /* trace_event.thread */
	}
	while ((rc = trace_reader_next(r, &ev)) > 0) {
		feed_rc = pf ? export_perfetto_feed(pf, &ev) : export_chrome_feed(ch, &ev);
		if (feed_rc < 0)
			break;
	}
	if (rc < 0) {
		log_warn("%s: reading stopped: %s (exported what was read before)", dir,
			 strerror(-rc));
		read_failed = 1;
	}
	rc = feed_rc;
	/* what the trace is missing goes into the export too (every event
	 * was read: the packets have said what they miss) */
	trace_reader_loss(r, &loss);
	if (pf)
		export_perfetto_set_loss(pf, &loss);
	else
		export_chrome_set_loss(ch, &loss);
	if (rc == 0)
		rc = pf ? export_perfetto_finish(pf, &st) : export_chrome_finish(ch, &st);
	if (rc == -EFBIG) {
		log_err("trace too large for Chrome JSON (more than %llu events): use --perfetto, "
			"or --force",
			(unsigned long long)EXPORT_CHROME_MAX_EVENTS);
		goto out_export;
	}
	if (rc < 0) {
		log_err("%s: %s", to_stdout ? "stdout" : out, strerror(-rc));
		goto out_export;
	}
	status = read_failed;
	for (size_t i = 0; i < trace_reader_nproblems(r); i++) {
		const struct trace_problem *p = trace_reader_problem(r, i);

		log_warn("%s: offset %" PRIu64 ": %s (exported what was read before it)", p->file,
			 p->offset, p->msg);
		status = 1;
	}
	cmd_trace_loss(dir, r, NULL);
	log_info("%s: %" PRIu64 " threads, %" PRIu64 " locks, %" PRIu64 " waits, %" PRIu64
		 " holds, %" PRIu64 " function calls%s",
		 to_stdout ? "stdout" : out, st.threads, st.locks, st.waits, st.holds, st.funcs,
		 st.unfinished ? " (some still open at the end of the trace)" : "");
out_export:
	export_perfetto_free(pf);
	export_chrome_free(ch);
out_file:
	/* Nothing usable was written: the destination keeps what it had.
	 * What could be read of a damaged trace is still exported. */
	if (rc < 0)
		outfile_abort(&of);
	else if (outfile_commit(&of) < 0)
		status = 1;
out_sym:
	symbolizer_close(sym);
out_reader:
	trace_reader_close(r);
	return status;
}
