// SPDX-License-Identifier: MIT
/*
 * path.c - `spool path`: the thread path of a program (doc/path.md). With a
 * program, run it in a session whose agent records function entries and
 * exits and lock events, then print the path; with a trace directory, print
 * the path of that trace. --check prints the program's functions the run
 * never entered. Function entries come from the -finstrument-functions
 * hooks (SHM_FEAT_PATH) of a program built with them, else from entry and
 * exit probes on the functions of the executable (path_probes.c).
 *
 * The path goes to stdout (or -o FILE) after the program has exited, so a
 * program that writes to stdout comes first; the summary line and every
 * diagnostic go to stderr.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../analyze/path.h"
#include "../collect/session.h"
#include "../util/files.h"
#include "../util/log.h"
#include "../util/options.h"
#include "../util/pdeath.h"
#include "../util/sysroot.h"
#include "../util/outfile.h"
#include "../util/target.h"
#include "cmd.h"
#include "run_opts.h"

/* The shared options spool path takes when it records (its -o is its own:
 * it keeps the old spelling for a release). */
static void path_usage(FILE *out);
static const struct run_opts_spec path_run_opts = {
	.mask = RUN_OPT_RING_SIZE | RUN_OPT_ON_FULL | RUN_OPT_MAX_THREADS | RUN_OPT_MAX_PROCS |
		RUN_OPT_UNTIL_FIRST_EXIT | RUN_OPT_JSON,
	.usage = path_usage,
};

/* Codes of spool path's long-only options. */
enum {
	PATH_O_CHECK = RUN_OPT_LONG,
	PATH_O_EXITS,
	PATH_O_THREAD,
	PATH_O_FUNCTIONS,
	PATH_O_FUNCTIONS_OLD,
	PATH_O_EXITS_OLD,
	PATH_O_TRUST_ENV,
	PATH_O_SYSROOT,
};

/* spool path's own options, in the order --help lists them (the shared
 * ones, for recording, after them). Its -o is its own (path_old_o). */
static const struct run_opt_own path_own_opts[] = {
    {"write", required_argument, 'w',
     "  -w, --write FILE     write the path (or the check) to FILE, not stdout\n"
     "                       (replaced only once the path is complete)\n"},
    {"check", no_argument, PATH_O_CHECK,
     "      --check          instead of the path, list the program's functions\n"
     "                       (DWARF, else its symbol table) that the run never\n"
     "                       entered, after a line 'N of M functions entered'\n"},
    {"show-exits", no_argument, PATH_O_EXITS,
     "      --show-exits     also print function exits ('>' entry, '<' exit)\n"},
    /* the old spelling: --exits HOW is how spool probe hooks exits */
    {"exits", no_argument, PATH_O_EXITS_OLD, NULL},
    {"thread", required_argument, PATH_O_THREAD,
     "      --thread N       only thread index N (the number after T)\n"},
    {"entries", required_argument, PATH_O_FUNCTIONS,
     "      --entries SRC    where function entries come from: finstrument (the\n"
     "                       -finstrument-functions hooks), probes (entry/exit\n"
     "                       probes), or auto (default: the hooks when the\n"
     "                       program calls them, else probes; for a trace: its\n"
     "                       function probes if it has any)\n"},
    /* the old spelling: --functions is spool report's function report */
    {"functions", required_argument, PATH_O_FUNCTIONS_OLD, NULL},
    {"output", required_argument, 'o',
     "  -o, --output DIR     when recording: trace directory (default spool.trace;\n"
     "                       a trace spool wrote there is kept as DIR.old, anything\n"
     "                       else there is refused). TRACE_DIR made by\n"
     "                       spool record holds no function entries: spool path\n"
     "                       replays it with --record-path, into DIR if given (kept)\n"
     "                       or a temporary directory. -t, --trace-dir DIR is the\n"
     "                       same. (-o FILE naming the path's file is the old\n"
     "                       spelling, kept with a warning for this release when\n"
     "                       it cannot be a trace directory: with -t, without\n"
     "                       PROGRAM, or FILE an existing file; use -w FILE)\n"},
    {"trace-dir", required_argument, 't', NULL}, /* (in -o's lines) */
    {"trust-env", no_argument, PATH_O_TRUST_ENV,
     "      --trust-env      TRACE_DIR made by spool record: its replay takes the\n"
     "                       loader's variables (LD_PRELOAD, ...) from the\n"
     "                       recorded environment too (spool replay --trust-env)\n"},
    {"quiet", no_argument, 'q', "  -q, --quiet          no summary line\n"},
    {"sysroot", required_argument, PATH_O_SYSROOT,
     "      --sysroot DIR    a trace made on a board: names come from the board's\n"
     "                       files under DIR (spool report --sysroot)\n"},
    {"help", no_argument, 'h', "  -h, --help           show this help\n"},
};

#define PATH_NOWN (sizeof(path_own_opts) / sizeof(path_own_opts[0]))

static void path_usage(FILE *out)
{
	fprintf(out,
		"usage: spool path [OPTIONS] -- PROGRAM [ARGS...]   record, then print the path\n"
		"       spool path [OPTIONS] [TRACE_DIR]            print the path of a trace\n"
		"\n"
		"The thread path: every function entry of a program, as the time-ordered\n"
		"queue of records\n"
		"\n"
		"    seq  time(us)  thread  function  object\n"
		"\n"
		"thread is T<index>/<tid> (in a trace of spool replay --record-path, the\n"
		"thread's number in the recording: 0 main, then in creation order); object\n"
		"is what the call touched itself (not its instrumented callees): lock:NAME,\n"
		"sem:NAME, cond:NAME, barrier:NAME, msg:mqN (a POSIX message queue), data\n"
		"(no such event, and the function takes a pointer to data per DWARF) or\n"
		"none. main is marked '*': it is recorded but is not a cut point. In serial\n"
		"mode a path is also a replay schedule: spool replay --path FILE TRACE.\n"
		"See doc/path.md.\n"
		"\n"
		"With PROGRAM, spool runs it with its agent preloaded (function entries and\n"
		"lock events recorded into a trace), then prints the path; spool exits with\n"
		"the program's status when that is not 0, else with the status below.\n"
		"Function entries come from the -finstrument-functions hooks (gcc or clang)\n"
		"of a program built with them, else from entry and exit probes spool places\n"
		"on every function of the executable (as spool probe -e 'func:*' does; a\n"
		"call the compiler inlined is not seen then; the functions of a stripped\n"
		"program come from its .eh_frame, named PROGRAM+0xOFFSET).\n"
		"TRACE_DIR defaults to spool.trace; a non-directory argument is taken as a\n"
		"program to record.\n"
		"\n"
		"options:\n");
	run_opts_own_usage(out, path_own_opts, PATH_NOWN);
	fprintf(out,
		"\n"
		"options when recording (as in spool locks):\n");
	run_opts_usage(out, &path_run_opts);
	fprintf(out,
		"\n"
		"exit status: 0 the path was printed (--check: every function was entered);\n"
		"1 --check found functions never entered, or the trace has no function entries\n"
		"(no function was entered, none could be probed, or the trace was recorded by\n"
		"another command); 2 usage error; when recording, the program's own status if\n"
		"it is not 0 (127 not found, 126 not executable), else 4 if the trace is\n"
		"incomplete (events lost: the path has holes).\n");
}

static int path_record(struct session_opts *so, int quiet, int functions)
{
	struct path_probes *pp = NULL;
	struct session_result res;
	char exe[PATH_MAX];
	uint64_t lost;
	int rc;

	so->features = SHM_FEAT_PATH | SHM_FEAT_LOCKS;
	so->quiet = quiet;
	rc = target_resolve(so->argv[0], exe, sizeof(exe));
	if (rc == 0) {
		rc = path_probes_setup(&pp, functions, exe, so, quiet);
		if (rc < 0)
			return 1;
	} /* else session_run says why it cannot start it */
	rc = session_run(so, &res);
	if (rc < 0) {
		path_probes_free(pp);
		return cmd_start_status(rc);
	}
	path_probes_done(pp, quiet);
	path_probes_free(pp);
	lost = trace_loss_events(&res.loss);
	if (res.term_signal)
		log_info("%s killed by signal %d (%s)%s", so->argv[0], res.term_signal,
			 strsignal(res.term_signal), res.core_dumped ? ", core dumped" : "");
	if (!quiet)
		log_info("%llu events, %llu lost, trace in %s/", (unsigned long long)res.st.events,
			 (unsigned long long)lost, so->trace_dir);
	trace_loss_warn(so->trace_dir, &res.loss);
	if (lost)
		log_warn("events were lost: the path has holes (try --ring-size, --max-threads)");
	if (res.trace_error)
		return res.exit_status ? res.exit_status : 1;
	/* the path is still reported; the status says the trace is incomplete */
	rc = cmd_run_status(&res);
	return rc ? -rc - 1 : 0;
}

/* A recording (spool record) holds the schedule, not the function entries:
 * replay it with --record-path into DIR (the program's stdout discarded,
 * its stderr and the replay's diagnostics kept) and read the path there.
 * Returns 0, or 1 after saying why the replay did not give a path. */
static int path_replay(const char *trace_dir, const char *dir, int quiet, int functions,
		       int trust_env)
{
	char self[PATH_MAX], fnopt[32];
	int status, fd;
	pid_t pid, parent;

	if (files_self_exe(self, sizeof(self)) < 0)
		return 1;
	if (!quiet)
		log_info("path: %s is a recording; replaying it to get its function entries "
			 "(spool replay --record-path -o %s)",
			 trace_dir, dir);
	snprintf(fnopt, sizeof(fnopt), "--entries=%s", path_fn_name(functions));
	fflush(NULL);
	parent = getpid();
	pid = fork();
	if (pid < 0) {
		log_err("fork: %s", strerror(errno));
		return 1;
	}
	if (pid == 0) {
		/* spool path killed: its replay ends too (and the program
		 * with it, as a replay's does when spool goes) */
		pdeath_arm(parent, SIGTERM);
		/* Only stdout changes: a descriptor left open here would shift
		 * the program's own numbers, and the replay would diverge. */
		fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
		if (fd >= 0 && fd != STDOUT_FILENO) {
			dup2(fd, STDOUT_FILENO);
			close(fd);
		}
		/* the replay takes no loader variable from the trace unless
		 * told to (spool replay --trust-env) */
		if (trust_env)
			execl(self, self, "replay", "-q", "--record-path", fnopt, "--trust-env",
			      "-o", dir, trace_dir, (char *)NULL);
		else
			execl(self, self, "replay", "-q", "--record-path", fnopt, "-o", dir,
			      trace_dir, (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 1;
	/* The replay exits with the program's status (a failing run's
	 * recording replays its failure); a divergence has been said. */
	if (WIFEXITED(status) && WEXITSTATUS(status) == REPLAY_EXIT_DIVERGED) {
		log_err("path: the replay of %s diverged: no path", trace_dir);
		return 1;
	}
	if (access(dir, F_OK) < 0) {
		log_err("path: the replay of %s wrote no trace", trace_dir);
		return 1;
	}
	return 0;
}

/* -o once named the file the path is written to; it now names the trace
 * directory, as in every command that runs a program. For one release the
 * old meaning holds, with a warning, where -o X cannot be the trace
 * directory: without a program to record, with -t naming it already, or
 * X an existing non-directory (a trace directory is never put there). */
static int path_old_o(const char *x, int record, int have_t)
{
	struct stat st;

	if (!record || have_t)
		return 1;
	return stat(x, &st) == 0 && !S_ISDIR(st.st_mode);
}

/* What the command line of spool path asks for, besides so and po. */
struct path_cli {
	struct session_opts *so;
	struct path_opts *po;
	const char *output, *opt_o;
	int quiet, trust_env;
};

/* One of spool path's own options (run_opt_fn). */
static int path_opt(void *arg, int c, const char *val)
{
	struct path_cli *cl = arg;
	struct path_opts *po = cl->po;
	uint64_t v = 0;
	int rc;

	switch (c) {
	case 'o':
		cl->opt_o = val;
		return 0;
	case 'w':
		cl->output = val;
		return 0;
	case 't':
		cl->so->trace_dir = val;
		return 0;
	case PATH_O_CHECK:
		po->check = 1;
		return 0;
	case PATH_O_EXITS_OLD:
		run_opts_old_name("path", "--exits", "--show-exits",
				  "spool probe --exits HOW says how exits are hooked");
		/* fall through */
	case PATH_O_EXITS:
		po->exits = 1;
		return 0;
	case PATH_O_TRUST_ENV:
		cl->trust_env = 1;
		return 0;
	case PATH_O_THREAD:
		rc = run_opts_uint("--thread", val, 0, UINT32_MAX - 1, &v);
		po->thread = (int64_t)v;
		return rc;
	case PATH_O_FUNCTIONS_OLD:
		run_opts_old_name("path", "--functions SRC", "--entries SRC",
				  "spool report --functions is the function report");
		/* fall through */
	case PATH_O_FUNCTIONS:
		rc = path_fn_parse(val);
		if (rc < 0) {
			log_err("--entries '%s': want finstrument, probes or auto", val);
			return -1;
		}
		po->functions = rc;
		return 0;
	case PATH_O_SYSROOT:
		return sysroot_option(val) < 0 ? -1 : 0;
	}
	return -1;
}

int cmd_path(int argc, char **argv)
{
	static const char default_dir[] = "spool.trace";
	struct session_opts so = {
		.trace_dir = default_dir,
		.ring_bytes = SHM_DEFAULT_RING_BYTES,
		.max_rings = SHM_DEFAULT_MAX_RINGS,
	};
	struct trace_loss_seen seen = {.set = 0};
	struct path_opts po = {.thread = -1, .seen = &seen};
	struct path_cli cl = {.so = &so, .po = &po};
	const char *trace_dir = "spool.trace";
	int rc, dashdash, record = 0, prog_status = 0, remove_tmp = 0;
	char tmp[PATH_MAX], tmp_trace[PATH_MAX + 8];
	struct outfile of = {.f = stdout};
	struct stat st;

	rc = run_opts_parse("path", argc, argv, path_own_opts, PATH_NOWN, &path_run_opts, &so,
			    path_opt, &cl);
	if (rc)
		return rc < 0 ? EXIT_USAGE : 0;
	cl.quiet = so.quiet; /* (path_record sets so.quiet again) */
	po.json = so.json;
	dashdash = optind > 1 && !strcmp(argv[optind - 1], "--");
	if (optind < argc) {
		record = dashdash || stat(argv[optind], &st) < 0 || !S_ISDIR(st.st_mode);
		if (!record) {
			if (optind + 1 < argc) {
				log_err("one trace directory at most (to run a program: spool path -- "
					"PROGRAM ARGS)");
				return EXIT_USAGE;
			}
			trace_dir = argv[optind];
		}
	} else if (dashdash) {
		log_err("no program after '--' (usage: spool path [OPTIONS] -- PROGRAM [ARGS])");
		return EXIT_USAGE;
	}
	if (cl.opt_o && path_old_o(cl.opt_o, record, so.trace_dir != default_dir)) {
		if (cl.output) {
			log_err("-o %s and -w %s: name the path's file once, with -w", cl.opt_o,
				cl.output);
			return EXIT_USAGE;
		}
		log_warn("path: -o %s taken as the path's file (the old spelling): use -w %s; "
			 "-o names the trace directory, as in spool locks, probe and record",
			 cl.opt_o, cl.opt_o);
		cl.output = cl.opt_o;
	} else if (cl.opt_o) {
		so.trace_dir = cl.opt_o;
	}
	if (record) {
		so.argv = argv + optind;
		rc = path_record(&so, cl.quiet, po.functions);
		if (rc > 0)
			return rc; /* the program did not run, or no trace */
		prog_status = rc < 0 ? -rc - 1 : 0;
		trace_dir = so.trace_dir;
	}
	if (!record) {
		char rec[PATH_MAX + 16];

		if (cmd_trace_arg_check(trace_dir, "path"))
			return 1;
		snprintf(rec, sizeof(rec), "%s/.spool/record", trace_dir);
		if (access(rec, F_OK) == 0) {
			/* -t DIR keeps the replay's trace; else a temporary one */
			if (so.trace_dir != default_dir) {
				if (trace_dir_replaces(so.trace_dir, trace_dir)) {
					log_err("-t %s would move or remove the recording %s that "
						"the replay reads: choose another -t",
						so.trace_dir, trace_dir);
					return EXIT_USAGE;
				}
				snprintf(tmp, sizeof(tmp), "%s", so.trace_dir);
			} else {
				/* The replay's trace goes inside a directory only
				 * we can write (mkdtemp: 0700), so nobody can put
				 * anything at its name first. */
				snprintf(tmp, sizeof(tmp), "/tmp/spool-path.XXXXXX");
				if (!mkdtemp(tmp)) {
					log_err("mkdtemp: %s", strerror(errno));
					return 1;
				}
				remove_tmp = 1;
			}
			snprintf(tmp_trace, sizeof(tmp_trace), "%s%s", tmp,
				 remove_tmp ? "/trace" : "");
			if (path_replay(trace_dir, tmp_trace, cl.quiet, po.functions, cl.trust_env)) {
				rc = 1;
				goto out_tmp;
			}
			trace_dir = tmp_trace;
		}
	}
	/* Written beside FILE and renamed only once the trace was read: bad
	 * input leaves FILE as it was. */
	if (cl.output && outfile_open(&of, cl.output, 0666, 0) < 0) {
		rc = 1;
		goto out_tmp;
	}
	fflush(stdout);
	po.say_source = !cl.quiet;
	rc = path_report_dir(trace_dir, &po, of.f);
	if (!record) /* (a run has said it) */
		cmd_dir_loss(trace_dir, &seen, NULL);
	if (cl.output) {
		if (rc < 0)
			outfile_abort(&of);
		else if (outfile_commit(&of) < 0)
			rc = -EIO;
	}
	if (prog_status)
		return prog_status;
	rc = rc < 0 ? 1 : rc;
out_tmp:
	if (remove_tmp)
		files_rm_tree(tmp);
	return rc;
}
