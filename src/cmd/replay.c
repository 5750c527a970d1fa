// SPDX-License-Identifier: MIT
/*
 * replay.c - `spool replay TRACE`: run a recorded program again under the
 * agent in replay mode (doc/record.md). The program and its arguments come
 * from the recording; a binary whose build id differs is refused. The
 * recorded schedule and inputs go into the replay feature area before the
 * program starts; a watcher thread kills the program as soon as the agent
 * reports a divergence or a stuck turn, and spool prints both sides.
 *
 * The replay writes its own trace (-o, default TRACE/replays/N); with
 * --trace-schedule its schedule can be compared with the recording's
 * (--dump-schedule).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stddef.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../common/early_clock.h"
#include "../analyze/path.h"
#include "../collect/run_env.h"
#include "../collect/session.h"
#include "../collect/stdin_cap.h"
#include "../collect/stdio_kind.h"
#include "../replay/gdb.h"
#include "../replay/gdbsrv.h"
#include "../replay/rr_fds.h"
#include "../replay/rr_img.h"
#include "../replay/rr_advice.h"
#include "../replay/rr_log.h"
#include "../replay/rr_refuse.h"
#include "../replay/rr_report_sym.h"
#include "../replay/rr_tree.h"
#include "../replay/rr_watch.h"
#include "../replay/rr_pathsched.h"
#include "../replay/rr_snap_pick.h"
#include "../trace/untrusted.h"
#include "../util/buildid.h"
#include "../util/escape.h"
#include "../util/log.h"
#include "../util/options.h"
#include "../util/target.h"
#include "cmd.h"
#include "run_opts.h"

#ifdef MADV_POPULATE_WRITE
#define REPLAY_MADV_POPULATE_WRITE MADV_POPULATE_WRITE
#else
#define REPLAY_MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif

struct replay_ctx {
	const struct rr_log *log;
	/* A process tree (rr_tree.c): each process's log (logs[0] == log),
	 * the recording's processes, the one replayed alone (RR_NO_PROC). */
	struct rr_log **logs;
	uint32_t nprocs, only;
	int tree; /* the area has the tree layout (rr_tree.c), logs set */
	const struct rr_info *info;
	uint32_t proc_stopped; /* the process whose report is kept */
	uint32_t stuck_ms, opts;
	struct rr_area *area;
	uint64_t threads_off;  /* the area's layout as rr_log_fill wrote it, kept */
	uint32_t max_threads;  /* here: the program can rewrite the area */
	struct rr_watch watch; /* kills a program the agent stopped */
	char report[RR_REPORT_BYTES];
	uint32_t flags;
	uint32_t cause, cause_threads, cause_running; /* of a divergence (RR_CAUSE_*) */
	uint32_t nthreads;
	uint32_t short_thread, short_done, short_n; /* a thread that did not finish its log */
	uint32_t short_proc;			    /* ... of this process of a tree */
	uint64_t tturn, nsw;			    /* serial: token turns reached / recorded */
	uint64_t img_key; /* of the recording's replay image (rr_img.c) */
	int img_written;  /* this replay wrote it */
	uint64_t layout[RR_LAYOUT_N]; /* where the replay's program started (rr_area.layout) */
	struct rr_snap_pick snap;     /* --goto: the snapshot to start from (fd -1: none) */
	uint64_t goto_stop;	      /* --goto EVENT --gdb: EVENT + 1 */
	uint64_t restore_ns;	      /* the agent's restore of it */
	uint32_t restore_done;
	uint32_t restore_timers, restore_timers_off; /* its POSIX timers (agent_snap_timer.c) */
	/* The reads the program made before the agent started (.spool/early_io,
	 * validated) and the variable that tells the agent where they are */
	struct rr_early_io *eio;
	char *eio_env;
};

/* The shared option spool replay takes: -o, the replay's own trace. */
static void replay_usage(FILE *out);
static const struct run_opts_spec replay_run_opts = {
	.mask = RUN_OPT_OUTPUT,
	.usage = replay_usage,
	.output_help = "  -o, --output DIR     the replay's own trace (default TRACE/replays/N, N\n"
		       "                       the next number: never where the program looks):\n"
		       "                       its lock events when the recording has them, the\n"
		       "                       path with --record-path, the program's own records;\n"
		       "                       a trace spool wrote there is kept as DIR.old,\n"
		       "                       anything else there is refused (TRACE, the\n"
		       "                       recording, is the argument, not -o)\n",
};

/* Codes of spool replay's long-only options. */
enum {
	REPLAY_O_TRACE_SCHED = RUN_OPT_LONG,
	REPLAY_O_STUCK_MS,
	REPLAY_O_DUMP,
	REPLAY_O_GDB,
	REPLAY_O_GDB_ARGS,
	REPLAY_O_GDB_WRAPPER,
	REPLAY_O_GDBSERVER,
	REPLAY_O_PATH,
	REPLAY_O_RECORD_PATH,
	REPLAY_O_FUNCTIONS,
	REPLAY_O_FUNCTIONS_OLD,
	REPLAY_O_ENV,
	REPLAY_O_TRUST_ENV,
	REPLAY_O_NO_IMAGE,
	REPLAY_O_PID,
	REPLAY_O_GOTO,
};

/* spool replay's own options, in the order --help lists them (after -o). */
static const struct run_opt_own replay_own_opts[] = {
    {"trace-schedule", no_argument, REPLAY_O_TRACE_SCHED,
     "      --trace-schedule also write the schedule, the switches and the input\n"
     "                       calls into it, as the recording has them, to compare\n"
     "                       with --dump-schedule (each is checked against the\n"
     "                       recording as it is replayed, with or without this)\n"},
    {"stuck-ms", required_argument, REPLAY_O_STUCK_MS,
     "      --stuck-ms MS    report a thread that waits this long for its turn\n"
     "                       while the thread that holds it replays nothing\n"
     "                       (default 5000)\n"},
    {"dump-schedule", no_argument, REPLAY_O_DUMP,
     "      --dump-schedule  print TRACE's schedule and inputs as text, run nothing\n"},
    {"gdb", no_argument, REPLAY_O_GDB,
     "      --gdb            run the replay under gdb (breakpoints, stepping,\n"
     "                       threads); the stuck-turn check is off\n"},
    {"gdb-args", required_argument, REPLAY_O_GDB_ARGS,
     "      --gdb-args ARGS  more gdb arguments, split like a shell, e.g.\n"
     "                       '-batch -ex \"break f\" -ex run -ex bt'\n"},
    /* gdb's exec-wrapper (spool-gdb.py, set replay-mode on): internal */
    {"gdb-wrapper", no_argument, REPLAY_O_GDB_WRAPPER, NULL},
    {"gdbserver", required_argument, REPLAY_O_GDBSERVER,
     "      --gdbserver PORT|-  serve gdb's remote protocol instead, with\n"
     "                       reverse execution (reverse-continue, reverse-step,\n"
     "                       watchpoints backwards): - for gdb's pipe,\n"
     "                       gdb -ex 'target remote | spool replay --gdbserver\n"
     "                       - TRACE'; a PORT listens on 127.0.0.1 (0: any).\n"
     "                       Going back starts from checkpoints, copies of the\n"
     "                       stopped replay (SPOOL_GDBSRV_CHECKPOINT_MS=N: one\n"
     "                       every N ms of replay, 100; SPOOL_GDBSRV_CHECKPOINTS=0:\n"
     "                       none). When gdb goes (killed, its connection\n"
     "                       closed) or spool is killed (SIGTERM, SIGHUP,\n"
     "                       SIGKILL; SIGINT on a PORT), the replay and every\n"
     "                       copy end with it\n"},
    {"path", required_argument, REPLAY_O_PATH,
     "      --path FILE      serial recordings: follow the thread path FILE (the\n"
     "                       text of spool path, with or without --exits) instead\n"
     "                       of the recorded switches: each thread runs its calls\n"
     "                       in the file's order; inputs still come from TRACE.\n"
     "                       A path the program cannot follow stops the replay\n"
     "                       with its line (doc/record.md, Replaying a path)\n"},
    {"record-path", no_argument, REPLAY_O_RECORD_PATH,
     "      --record-path    record function entries and exits in the replay's\n"
     "                       trace: spool path OUTPUT_DIR prints the recorded\n"
     "                       run's path (entries from the program's\n"
     "                       -finstrument-functions hooks, else from probes\n"
     "                       on its functions; doc/path.md)\n"},
    {"entries", required_argument, REPLAY_O_FUNCTIONS,
     "      --entries SRC    with --record-path: finstrument, probes or auto\n"
     "                       (default), as for spool path\n"},
    /* the old spelling: --functions is spool report's function report */
    {"functions", required_argument, REPLAY_O_FUNCTIONS_OLD, NULL},
    {"env", required_argument, REPLAY_O_ENV,
     "      --env NAME=VALUE run the program with this variable set: it runs\n"
     "                       with the environment and in the directory it was\n"
     "                       recorded with (and spool's SPOOL_* variables from\n"
     "                       this one); repeatable\n"},
    {"trust-env", no_argument, REPLAY_O_TRUST_ENV,
     "      --trust-env      also take the loader's variables (LD_PRELOAD,\n"
     "                       LD_LIBRARY_PATH, LD_AUDIT, every LD_*, GCONV_PATH,\n"
     "                       GLIBC_TUNABLES, LOCPATH, TMPDIR, TZDIR and the rest\n"
     "                       of glibc's secure-mode list) from the recorded\n"
     "                       environment: without it they are spool's own, and\n"
     "                       those whose recorded value is not used are named\n"
     "                       (a trace may come from someone else: LD_PRELOAD in\n"
     "                       it would run their code)\n"},
    {"no-image", no_argument, REPLAY_O_NO_IMAGE,
     "      --no-image       load TRACE from its streams, and neither use nor\n"
     "                       write its replay image (TRACE/.spool/replay.img: the\n"
     "                       first replay keeps the loaded log there, and later\n"
     "                       ones map it instead of loading; doc/record.md)\n"},
    {"goto", required_argument, REPLAY_O_GOTO,
     "      --goto EVENT[:COUNT]  serial recordings with snapshots (spool record\n"
     "                       --snap-period N): start from the latest snapshot\n"
     "                       taken at or before schedule event EVENT (spool info\n"
     "                       lists them; several at one event, listed EVENT:COUNT,\n"
     "                       are told apart by the holder's progress count: --goto\n"
     "                       EVENT:COUNT starts from the latest at or before it),\n"
     "                       restored into the fresh process, and\n"
     "                       replay the rest; the output from there is the\n"
     "                       recording's. A damaged snapshot, one of another build\n"
     "                       or one holding a writable shared mapping is refused;\n"
     "                       with none before EVENT the replay starts from the\n"
     "                       beginning. With --gdb, gdb stops the program as\n"
     "                       the token's turn EVENT begins (SIGTRAP, in the\n"
     "                       agent); with --gdbserver, gdb's session starts\n"
     "                       stopped there and goes back no further than it\n"
     "                       (doc/record.md, Replay from a snapshot)\n"},
    {"pid", required_argument, REPLAY_O_PID,
     "      --pid PID        a recording of several processes (spool info lists\n"
     "                       them): replay only the one whose recorded pid is PID;\n"
     "                       the processes on the way to it run without output;\n"
     "                       with --gdb, gdb follows the forks to it and debugs it\n"},
    {"quiet", no_argument, 'q', "  -q, --quiet          print nothing but errors and divergences\n"},
    {"help", no_argument, 'h', "  -h, --help           show this help\n"},
};

#define REPLAY_NOWN (sizeof(replay_own_opts) / sizeof(replay_own_opts[0]))

static void replay_usage(FILE *out)
{
	fprintf(out,
		"usage: spool replay [OPTIONS] [TRACE] [-- PROGRAM [ARGS...]]\n"
		"\n"
		"Run the program recorded in TRACE (by spool record; default spool.trace)\n"
		"again: every thread acquires every lock in its recorded turn, and read-like\n"
		"calls, socket calls, name lookups, clocks, getrandom, getpid and gettid\n"
		"return what they returned when recorded (no network is touched), so the\n"
		"program prints the same output. It runs as recorded: the same file with\n"
		"the same argv (argv[0] included), environment, working directory, stdin,\n"
		"umask, resource limits and personality, at the same addresses\n"
		"(address-space randomization off), and with a stdout and stderr of the\n"
		"kinds it had (a terminal, a pipe, a file). The first difference between\n"
		"the replay and the recording stops the replay with both sides printed.\n"
		"PROGRAM [ARGS] replaces the recorded command line (the binary must be the\n"
		"same build; different arguments are a way to see a divergence).\n"
		"\n"
		"options:\n");
	run_opts_usage(out, &replay_run_opts);
	run_opts_own_usage(out, replay_own_opts, REPLAY_NOWN);
	fprintf(out,
		"\n"
		"A trace made by another user (its files are not yours) is untrusted: before\n"
		"running anything, spool names the binary, the command line and the working\n"
		"directory the replay runs.\n"
		"\n"
		"Exit status: the program's, as recorded; %d when the replay diverged, got\n"
		"stuck or was killed by a signal the recorded run was not; %d when TRACE is\n"
		"an incomplete recording (spool record was killed or did not finish writing\n"
		"it); 1 when TRACE cannot be replayed; 128+N when spool replay was stopped by\n"
		"signal N (SIGTERM, SIGHUP, SIGINT: the replayed processes are killed).\n",
		REPLAY_EXIT_DIVERGED, EXIT_INCOMPLETE);
}

/* What the command line of spool replay asks for (besides so). */
struct replay_cli {
	struct session_opts *so;
	uint32_t stuck_ms;
	int dump, use_gdb, record_path, functions, functions_set, no_image, trace_sched, trust_env;
	const char *gdb_args, *gdbserver, *path_file;
	int32_t only_pid;
	uint64_t goto_event; /* --goto; UINT64_MAX: none */
	uint64_t goto_count; /* --goto EVENT:COUNT; UINT64_MAX: EVENT alone */
	char *extra_env[65]; /* --env, and room for SPOOL_EARLY_IO; NULL-ended */
	size_t nenv;
	int user_env; /* --env given: a run other than the recorded one */
};

/* The field an option without a value sets, and to what (*val: --gdb 1,
 * --gdb-wrapper 2, gdb's exec-wrapper); NULL for another option. */
static int *replay_flag(struct replay_cli *cl, int c, int *val)
{
	*val = 1;
	switch (c) {
	case REPLAY_O_DUMP:
		return &cl->dump;
	case REPLAY_O_GDB:
		return &cl->use_gdb;
	case REPLAY_O_GDB_WRAPPER: /* spool-gdb.py, set replay-mode on */
		*val = 2;
		return &cl->use_gdb;
	case REPLAY_O_RECORD_PATH:
		return &cl->record_path;
	case REPLAY_O_NO_IMAGE:
		return &cl->no_image;
	case REPLAY_O_TRACE_SCHED:
		return &cl->trace_sched;
	case REPLAY_O_TRUST_ENV:
		return &cl->trust_env;
	}
	return NULL;
}

/* One of spool replay's own options (run_opt_fn). */
static int replay_opt(void *ctx, int c, const char *arg)
{
	struct replay_cli *cl = ctx;
	int *flag, val, rc;
	uint64_t v = 0;

	flag = replay_flag(cl, c, &val);
	if (flag) {
		*flag = val;
		return 0;
	}
	switch (c) {
	case REPLAY_O_STUCK_MS:
		rc = run_opts_uint("--stuck-ms", arg, 10, 3600000, &v);
		cl->stuck_ms = (uint32_t)v;
		return rc;
	case REPLAY_O_GDB_ARGS:
		cl->gdb_args = arg;
		cl->use_gdb = 1;
		return 0;
	case REPLAY_O_GDBSERVER: /* spool as gdb's remote target (gdbsrv.c) */
		cl->gdbserver = arg;
		/* said now, as a usage error, not after the trace was read */
		if (strcmp(arg, "-") && (options_parse_uint(arg, 65535, &v) < 0)) {
			log_err("--gdbserver '%s': want a port number or - (gdb's pipe)", arg);
			return -1;
		}
		return 0;
	case REPLAY_O_PATH: /* a path as the schedule (rr_pathsched.c) */
		cl->path_file = arg;
		return 0;
	case REPLAY_O_FUNCTIONS_OLD:
		run_opts_old_name("replay", "--functions SRC", "--entries SRC",
				  "spool report --functions is the function report");
		/* fall through */
	case REPLAY_O_FUNCTIONS:
		cl->functions = path_fn_parse(arg);
		cl->functions_set = 1;
		if (cl->functions < 0) {
			log_err("--entries '%s': want finstrument, probes or auto", arg);
			return -1;
		}
		return 0;
	case REPLAY_O_PID:
		rc = run_opts_uint("--pid", arg, 1, INT32_MAX, &v);
		cl->only_pid = (int32_t)v;
		return rc;
	case REPLAY_O_GOTO: { /* start from the snapshot at or before EVENT (rr_snap_pick.c) */
		char ev[32];
		const char *colon = strchr(arg, ':');
		size_t len = colon ? (size_t)(colon - arg) : strlen(arg);

		cl->goto_count = UINT64_MAX;
		if (len >= sizeof(ev) ||
		    (memcpy(ev, arg, len), ev[len] = 0,
		     options_parse_uint(ev, UINT64_MAX - 1, &v) < 0) ||
		    (colon && options_parse_uint(colon + 1, UINT64_MAX - 1, &cl->goto_count) < 0)) {
			log_err("--goto: '%s' is not a schedule event (a number) or a snapshot's "
				"position (EVENT:COUNT, as spool info lists it)",
				arg);
			return -1;
		}
		cl->goto_event = v;
		return 0;
	}
	case REPLAY_O_ENV: /* added to (or replacing one of) the recorded environment */
		if (!strchr(arg, '=') || arg[0] == '=') {
			log_err("--env '%s': want NAME=VALUE", arg);
			return -1;
		}
		if (cl->nenv + 1 >= sizeof(cl->extra_env) / sizeof(cl->extra_env[0])) {
			log_err("--env: at most %zu of them",
				sizeof(cl->extra_env) / sizeof(cl->extra_env[0]) - 1);
			return -1;
		}
		cl->extra_env[cl->nenv++] = (char *)arg;
		cl->so->env = cl->extra_env;
		cl->user_env = 1;
		return 0;
	}
	return -1;
}

#define REPLAY_EIO_ENV_SIZE (sizeof(EARLY_IO_ENV) + EARLY_IO_WIDTH + 1)

/* The reads and getrandom calls made before the agent started, from the
 * trace's early_io side file (untrusted: its size and every entry
 * checked). NULL when there are none or the file is not right (said). */
static struct rr_early_io *replay_early_io(const char *dir)
{
	struct trace_reader *r;
	struct rr_early_io *e = NULL;
	char *data = NULL;
	size_t len = 0;

	if (trace_reader_open(&r, dir, NULL) < 0)
		return NULL;
	if (trace_reader_file(r, "early_io", &data, &len) < 0)
		goto out;
	if (len != sizeof(*e) || !rr_early_io_valid((const struct rr_early_io *)(void *)data)) {
		log_warn("the trace's early_io is damaged: the reads made before the agent "
			 "started are the replay's own");
		goto out;
	}
	e = (struct rr_early_io *)(void *)data;
	data = NULL;
out:
	free(data);
	trace_reader_close(r);
	return e;
}

static int replay_prepare(void *arg, struct shm_host *h, struct trace_writer *w)
{
	struct replay_ctx *ctx = arg;
	void *area = shm_host_ext(h, SHM_EXT_REPLAY);
	int rc;

	if (!area)
		return -EINVAL;
	/* One call maps the pages rr_log_fill writes: a fault per page costs
	 * ~14 us in a VM (doc/record.md, "Cost"). Refused by kernels before
	 * 5.14, where the pages fault in as they are written. */
	{
		uintptr_t a = (uintptr_t)area & ~(uintptr_t)4095;

		(void)madvise((void *)a, rr_log_area_size(ctx->log) + ((uintptr_t)area - a),
			      REPLAY_MADV_POPULATE_WRITE);
	}
	if (ctx->tree ? rr_tree_replay_fill(area, ctx->logs, ctx->nprocs, ctx->info,
						  ctx->only, ctx->stuck_ms, ctx->opts) < 0
			    : rr_log_fill(ctx->log, area, ctx->stuck_ms, ctx->opts) < 0)
		return -ENOMEM;
	ctx->area = area;
	/* The early reads, in process 0's area (the first of the region's
	 * replay area, tree or not): the agent reads them from there before
	 * it starts (agent_rr_early.c) */
	if (ctx->eio_env && (ctx->info->early_n || ctx->eio)) {
		struct rr_area *a0 = area;

		a0->early_n = ctx->info->early_n < RR_EARLY_MAX ? ctx->info->early_n : RR_EARLY_MAX;
		for (uint32_t i = 0; i < a0->early_n; i++) {
			a0->early_clk[i] = ctx->info->early_clk[i];
			a0->early_ns[i] = ctx->info->early_ns[i];
		}
		if (ctx->eio)
			a0->eio = *ctx->eio;
		else
			memset(&a0->eio, 0, sizeof(a0->eio));
		/* (as wide as the recording's EARLY_IO_KEEP) */
		snprintf(ctx->eio_env, REPLAY_EIO_ENV_SIZE, "%s=%0*" PRIu64, EARLY_IO_ENV,
			 EARLY_IO_WIDTH, h->ext_offset[SHM_EXT_REPLAY]);
	}
	if (ctx->snap.fd >= 0) {
		struct rr_area *a = area;

		a->restore_fd = ctx->snap.fd;
		a->restore_size = ctx->snap.size;
		a->restore_turn = ctx->snap.turn;
		/* SPOOL_SNAP_TIMER_ORDER=1: the timers' ids asked for as before
		 * Linux 6.16 (tests of that way on a newer kernel) */
		a->restore_timer_order = getenv("SPOOL_SNAP_TIMER_ORDER") &&
					 !strcmp(getenv("SPOOL_SNAP_TIMER_ORDER"), "1");
	}
	if (ctx->goto_stop)
		((struct rr_area *)area)->goto_stop = ctx->goto_stop;
	ctx->threads_off = ((struct rr_area *)area)->threads_off;
	ctx->max_threads = ((struct rr_area *)area)->max_threads;
	if (ctx->threads_off > h->ext_size[SHM_EXT_REPLAY] ||
	    (uint64_t)ctx->max_threads * sizeof(struct rr_thread_slot) >
		h->ext_size[SHM_EXT_REPLAY] - ctx->threads_off)
		ctx->max_threads = 0;
	rc = rr_watch_start(&ctx->watch, h, area);
	if (rc == 0 && ctx->tree)
		rr_watch_tree(&ctx->watch, rr_tree_replay_tree(area, ctx->logs), ctx->nprocs);
	return rc;
}

static int replay_finish(void *arg, struct shm_host *h, struct trace_writer *w)
{
	struct replay_ctx *ctx = arg;
	struct rr_area *a = ctx->area;
	const struct rr_thread_slot *th;
	size_t n;

	rr_watch_stop(&ctx->watch);
	ctx->flags = __atomic_load_n(&a->flags, __ATOMIC_ACQUIRE);
	n = strnlen(a->report, sizeof(a->report) - 1);
	memcpy(ctx->report, a->report, n);
	ctx->report[n] = 0;
	ctx->cause = __atomic_load_n(&a->cause, __ATOMIC_ACQUIRE);
	ctx->cause_threads = a->cause_threads;
	ctx->cause_running = a->cause_running;
	for (int i = 0; i < RR_LAYOUT_N; i++) /* the first process's */
		ctx->layout[i] = a->layout[i];
	ctx->proc_stopped = 0;
	/* The other processes of a tree: the first one that stopped. */
	for (uint32_t k = 1; k < ctx->nprocs && !(ctx->flags & RR_F_STOP); k++) {
		struct rr_area *c = rr_tree_replay_area(a, ctx->logs, k);
		uint32_t f = __atomic_load_n(&c->flags, __ATOMIC_ACQUIRE);

		ctx->flags |= f & RR_F_UNTRACKED;
		if (!(f & RR_F_STOP))
			continue;
		ctx->flags |= f;
		ctx->proc_stopped = k;
		n = strnlen(c->report, sizeof(c->report) - 1);
		snprintf(ctx->report, sizeof(ctx->report), "process %u (recorded pid %d): %.*s", k,
			 (int)ctx->info->procs[k].pid, (int)n, c->report);
	}
	rr_report_demangle(ctx->report, sizeof(ctx->report));
	/* --pid: the process replayed alone is checked, not the first one
	 * (which stopped on its way to it) */
	if (ctx->only != RR_NO_PROC && ctx->only && ctx->nprocs > 1) {
		uint64_t size = rr_log_area_size(ctx->logs[ctx->only]);

		a = rr_tree_replay_area(a, ctx->logs, ctx->only);
		/* read once and bounded: the program can write the area */
		ctx->threads_off = __atomic_load_n(&a->threads_off, __ATOMIC_RELAXED);
		ctx->max_threads = rr_log_threads(ctx->logs[ctx->only]);
		if (ctx->threads_off > size ||
		    (uint64_t)ctx->max_threads * sizeof(struct rr_thread_slot) >
			size - ctx->threads_off)
			ctx->max_threads = 0;
	}
	ctx->tturn = __atomic_load_n(&a->tturn, __ATOMIC_ACQUIRE);
	ctx->nsw = a->nsw;
	ctx->restore_done = __atomic_load_n(&ctx->area->restore_done, __ATOMIC_ACQUIRE);
	ctx->restore_ns = ctx->area->restore_ns;
	ctx->restore_timers = ctx->area->restore_timers;
	ctx->restore_timers_off = ctx->area->restore_timers_off;
	th = (const struct rr_thread_slot *)((char *)a + ctx->threads_off);
	ctx->nthreads = ctx->max_threads;
	ctx->short_thread = UINT32_MAX;
	ctx->short_proc = ctx->only != RR_NO_PROC ? ctx->only : 0;
	/* The other processes of a whole tree: one that ended before its
	 * log did (killed by a signal its recording did not have, say). */
	for (uint32_t k = 1; ctx->only == RR_NO_PROC && k < ctx->nprocs; k++) {
		struct rr_area *c = rr_tree_replay_area(ctx->area, ctx->logs, k);
		uint64_t size = rr_log_area_size(ctx->logs[k]);
		uint64_t off = __atomic_load_n(&c->threads_off, __ATOMIC_RELAXED);
		uint32_t n = rr_log_threads(ctx->logs[k]);
		const struct rr_thread_slot *ct;

		if (off > size || (uint64_t)n * sizeof(*ct) > size - off)
			continue;
		ct = (const struct rr_thread_slot *)((char *)c + off);
		for (uint32_t i = 0; i < n && ctx->short_thread == UINT32_MAX; i++)
			if (ct[i].done < ct[i].nevents) {
				ctx->short_proc = k;
				ctx->short_thread = i;
				ctx->short_done = ct[i].done;
				ctx->short_n = ct[i].nevents;
			}
	}
	for (uint32_t i = 0; i < ctx->max_threads && ctx->short_thread == UINT32_MAX; i++)
		if (th[i].done < th[i].nevents) {
			ctx->short_proc = ctx->only != RR_NO_PROC ? ctx->only : 0;
			ctx->short_thread = i;
			ctx->short_done = th[i].done;
			ctx->short_n = th[i].nevents;
			break;
		}
	return 0;
}

/* argv from the recorded process's command line, argv[0] as it was (a
 * program may look at it: redis-server and redis-check-rdb are one binary),
 * the binary only where the command line has none. */
static char **replay_argv(const char *dir, const struct rr_info *info, char **buf)
{
	struct trace_reader *r;
	char name[64], **argv;
	size_t len, n = 0, i, k = 0;

	if (trace_reader_open(&r, dir, NULL) < 0)
		return NULL;
	snprintf(name, sizeof(name), "proc/%u.cmdline", info->pid);
	/* a tree: the command line spool ran (record.c), not the last image's */
	if ((info->nprocs < 2 || trace_reader_file(r, "argv", buf, &len) < 0 || !len) &&
	    (trace_reader_file(r, name, buf, &len) < 0 || !len)) {
		trace_reader_close(r);
		return NULL;
	}
	trace_reader_close(r);
	for (i = 0; i < len; i++)
		n += !(*buf)[i];
	if ((*buf)[len - 1])
		n++;
	argv = calloc(n + 1, sizeof(*argv));
	if (!argv)
		return NULL;
	for (i = 0; i < len && k < n; k++) {
		argv[k] = *buf + i;
		i += strlen(*buf + i) + 1;
	}
	if (!argv[0][0])
		argv[0] = (char *)info->exe;
	return argv;
}

/* Refuse a binary that is not the recorded one. A #! script (/usr/bin/7z
 * is `exec /usr/lib/p7zip/7z "$@"`) was recorded as the image exec made
 * of it, its interpreter's: that is the binary checked (the one record
 * names, record_first_image; target_image follows the same chain). */
static int replay_check_binary(const char *path, const struct rr_info *info)
{
	char id[BUILDID_HEX_MAX], interp[2][PATH_MAX];
	const char *bin = path;
	int rc = buildid_read(bin, id, sizeof(id));

	for (int k = 0; rc == -ENOEXEC && k < TARGET_INTERP_DEPTH; k++) {
		if (target_interp(bin, interp[k % 2], sizeof(interp[0])) < 0)
			break;
		bin = interp[k % 2];
		rc = buildid_read(bin, id, sizeof(id));
	}
	if (rc == -ENOENT) {
		log_err("%s: no such file (the recorded binary is gone)", bin);
		return -1;
	}
	if (rc < 0)
		id[0] = 0;
	if (strcmp(id, info->buildid)) {
		log_err("%s%s%s%s has build id %s, the recording was made with build id %s (%s): "
			"refusing to replay a different binary",
			bin, bin != path ? ", the interpreter of " : "", bin != path ? path : "",
			bin != path ? "," : "",
			id[0] ? id : "(none)", info->buildid[0] ? info->buildid : "(none)",
			info->exe);
		return -1;
	}
	return 0;
}

/* How the recorded run ended, from its summary: *status as a shell reports
 * it (the exit status, or 128 + the signal), *sig the signal that killed it
 * or 0. -ENOENT when the trace has no summary (or one without them). */
static int replay_recorded_end(const char *dir, int *status, int *sig)
{
	struct trace_reader *r;
	char *data = NULL, *p, *q;
	size_t len;
	int rc = -ENOENT;

	if (trace_reader_open(&r, dir, NULL) < 0)
		return -ENOENT;
	/* The summary is a NUL-terminated text (trace_reader_file), from a
	 * trace that may come from anyone: atoi of a field is bounded. */
	if (trace_reader_file(r, "summary", &data, &len) == 0 &&
	    (p = strstr(data, "\nterm_signal=")) && (q = strstr(data, "\nexit_status="))) {
		*sig = atoi(p + strlen("\nterm_signal="));
		*status = atoi(q + strlen("\nexit_status="));
		rc = (*sig >= 0 && *sig < 65 && *status >= 0 && *status < 256) ? 0 : -EINVAL;
	}
	free(data);
	trace_reader_close(r);
	return rc;
}

/* Whether the recorded run ended by a signal from outside (killed), so its
 * recording stops in the middle: the replay then stops there too. */
static uint32_t replay_truncated(int rec_sig)
{
	if (!rec_sig || rec_sig == SIGSEGV || rec_sig == SIGBUS || rec_sig == SIGFPE ||
	    rec_sig == SIGILL || rec_sig == SIGABRT || rec_sig == SIGTRAP || rec_sig == SIGSYS)
		return 0;
	return RR_O_TRUNCATED;
}

/* A replay that ran to its end without another divergence must also end as
 * the recorded run did: killed by the same signal, or exiting with the same
 * status. A crash only the replay has (a pointer from the recording that
 * means nothing in the replay), or a recorded crash the replay does not
 * reach, is a divergence, said loudly instead of a normal "replayed" line.
 * Returns 0 when they match. */
static int replay_check_end(int rec_status, int rec_sig, const struct session_result *res)
{
	char rec[96];

	if (res->term_signal == rec_sig && (rec_sig || res->exit_status == rec_status))
		return 0;
	if (rec_sig)
		snprintf(rec, sizeof(rec), "was killed by signal %d (%s)", rec_sig,
			 strsignal(rec_sig));
	else
		snprintf(rec, sizeof(rec), "exited with status %d", rec_status);
	if (res->term_signal)
		log_err("replay diverged: the program was killed by signal %d (%s)%s; the "
			"recorded run %s",
			res->term_signal, strsignal(res->term_signal),
			res->core_dumped ? " (core dumped)" : "", rec);
	else
		log_err("replay diverged: the program exited with status %d; the recorded run %s",
			res->exit_status, rec);
	return -1;
}

/*
 * The recording's log: from its replay image when there is a current one,
 * else decoded from the trace, and then kept as the image for the next
 * replays (rr_img.c). An image that cannot be written (a read-only trace, a
 * full disk) costs nothing but the speed-up.
 */
static int replay_load(struct replay_ctx *ctx, const char *dir, int serial, int use_image,
		       struct rr_log **out)
{
	char err[512];
	int rc;

	if (use_image && rr_img_key(dir, &ctx->img_key) < 0)
		use_image = 0;
	if (use_image && rr_img_open(dir, ctx->img_key, serial, out) == 0) {
		log_debug("%s: the log comes from its replay image", dir);
		return 0;
	}
	rc = rr_log_load_mode(dir, serial, out, err, sizeof(err));
	if (rc < 0) {
		log_err("%s: %s", dir, err);
		return rc;
	}
	if (!use_image)
		return 0;
	/* Written now and mapped by this replay too: laying the log out in
	 * the area instead costs about as much as writing it. */
	rc = rr_img_write(dir, *out, ctx->img_key);
	if (rc == 0) {
		struct rr_log *img;

		rc = rr_img_open(dir, ctx->img_key, serial, &img);
		if (rc == 0) {
			rr_log_free(*out);
			*out = img;
			ctx->img_written = 1;
			log_debug("%s: replay image written", dir);
		}
	}
	if (rc < 0)
		log_debug("%s: no replay image: %s", dir, strerror(-rc));
	return 0;
}

/* s with the bytes a terminal would act on escaped (\xNN): a command line
 * from a trace may hold escape sequences. */
static const char *replay_escaped(const char *s, char *buf, size_t size)
{
	size_t k = 0;

	for (; *s && k + 5 < size; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c == 0x7f || c == '\\' || c == '\'')
			k += (size_t)snprintf(buf + k, size - k, "\\x%02x", c);
		else
			buf[k++] = (char)c;
	}
	buf[k] = 0;
	return buf;
}

/*
 * A trace whose recording another user made (its record file is not ours)
 * may be a way to make us run their code: say, before anything runs, which
 * binary (its owner, build id), which command line, in which directory. The
 * build id matched the trace's, but the trace supplied that too: only the
 * binary's owner and permissions here say who could have put it there.
 */
static void replay_say_foreign(const char *dir, const char *exe, char *const *argv, const char *cwd,
			       const char *buildid)
{
	char line[4096], esc[1024];
	struct stat st, bst;
	size_t k = 0;
	int fd;

	fd = trace_open_dir_file(dir, ".spool/record", TRACE_SIDE_MAX, NULL);
	if (fd < 0)
		return;
	if (fstat(fd, &st) < 0 || st.st_uid == getuid()) {
		close(fd);
		return;
	}
	close(fd);
	for (size_t i = 0; argv && argv[i] && k + 8 < sizeof(line); i++)
		k += (size_t)snprintf(line + k, sizeof(line) - k, "%s'%s'", i ? " " : "",
				      replay_escaped(argv[i], esc, sizeof(esc)));
	log_warn("%s was recorded by another user (uid %u): the replay runs", dir,
		 (unsigned)st.st_uid);
	if (stat(exe, &bst) == 0)
		log_warn("  binary: %s (build id %s, owner uid %u, mode %04o)",
			 replay_escaped(exe, esc, sizeof(esc)), buildid[0] ? buildid : "none",
			 (unsigned)bst.st_uid, (unsigned)(bst.st_mode & 07777));
	log_warn("  command line: %s", line);
	log_warn("  working directory: %s",
		 cwd ? replay_escaped(cwd, esc, sizeof(esc)) : "(spool's)");
	if (stat(exe, &bst) == 0 &&
	    ((bst.st_uid != 0 && bst.st_uid != getuid()) || (bst.st_mode & 022)))
		log_warn("  %s can be changed by %s: it is not only the trace that says what "
			 "runs",
			 replay_escaped(exe, esc, sizeof(esc)),
			 bst.st_mode & 002 ? "every user" : "another user");
}

/*
 * The personality, umask and resource limits of the recorded run, given
 * back to the program (run_ident.h). A recording made before spool kept
 * them ran with randomization: nothing can be given back. Limits above
 * spool's hard limit (which only root raises) are lowered to it, and said.
 */
static void replay_ident(struct session_opts *so, struct rr_info *info, const char *dir,
			 int use_gdb)
{
	unsigned long dropped;
	char lims[256];
	struct stat st;
	sigset_t none;
	int fd;

	sigemptyset(&none);
	/* the recorded stack: spool's variables padded to its size (under
	 * --gdb, gdb's own environment is not the program's: gdb.c pads the
	 * inferior's). Not yet under --gdb-wrapper (--gdbserver): with it,
	 * the gdbserver's replays from a snapshot (--goto T:0) hung under load
	 * (tests/integ/261, 4 of 4 ASan runs side by side) */
	if (use_gdb == 0) {
		so->stack_bytes = info->stack_bytes;
		so->stack_items = info->stack_items;
	}
	if (!info->ident.persona_set || use_gdb == 2)
		return;
	dropped = run_ident_trust_persona(&info->ident);
	if (dropped)
		log_warn("%s: personality flags 0x%lx not taken from the recording (a trace may "
			 "come from someone else): the program runs with spool's",
			 dir, dropped);
	/* Another user's recording does not make the replay's files more
	 * open than the user's own umask would */
	fd = trace_open_dir_file(dir, ".spool/record", TRACE_SIDE_MAX, NULL);
	if (fd >= 0 && fstat(fd, &st) == 0 && st.st_uid != getuid() && info->ident.umask_set) {
		mode_t own = umask(022);

		umask(own);
		if ((info->ident.umask | own) != info->ident.umask)
			log_warn("%s: recorded by another user with umask %03o: the replay runs "
				 "with %03o (yours added)",
				 dir, info->ident.umask, info->ident.umask | (unsigned)own);
		info->ident.umask |= (unsigned)own;
	}
	if (fd >= 0)
		close(fd);
	so->ident = &info->ident;
	/* the recorded signal mask and ignored signals (a recording made
	 * under nohup, or by a parent that blocks every signal), said when
	 * they are not the ones the program would inherit from this spool */
	if ((!so->quiet || use_gdb) && run_ident_sigs_differ(&info->ident, &none, &none)) {
		char b[400], g[400];

		run_ident_sig_names(info->ident.sig_blocked, b, sizeof(b));
		run_ident_sig_names(info->ident.sig_ignored, g, sizeof(g));
		if (use_gdb)
			log_warn("under gdb the program starts with gdb's signal mask and ignored "
				 "signals, not the recorded ones (blocked: %s; ignored: %s): a "
				 "program that looks at them may take another path",
				 b, g);
		else
			log_info("the program starts as recorded with signals blocked: %s; "
				 "ignored: %s",
				 b, g);
	}
	if (run_ident_limits_unreachable(&info->ident, lims, sizeof(lims)))
		log_warn("the recorded run had resource limits above spool's hard limits (%s): "
			 "the program gets spool's, and may take another path",
			 lims);
	if (info->ident.aslr)
		log_warn("this recording was made with address-space randomization (%s): the "
			 "replay's heap, mappings and stack are elsewhere, and pointers the "
			 "program got from its recorded inputs (epoll_event.data, mmap results, "
			 "addresses it wrote to a pipe) do not point where they did",
			 info->ident.aslr_err ? strerror(info->ident.aslr_err)
					      : "ADDR_NO_RANDOMIZE not in effect");
}

/* Why the replay's address-space layout is not the recording's, into why;
 * 0 when it is (as far as spool can tell). */
static int replay_layout_differs(const struct rr_info *info, const struct session_result *res,
				 const uint64_t *now, char *why, size_t len)
{
	static const char *const what[RR_LAYOUT_N] = {
	    [RR_LAYOUT_STACK] = "its stack (the command line or the environment differs in "
				"length: --env, a SPOOL_* variable, a loader variable not taken "
				"from the recording)",
	    [RR_LAYOUT_BRK] = "its heap (the program break)",
	    [RR_LAYOUT_MMAP] = "its mappings (other libraries: a loader variable such as "
			       "LD_PRELOAD or LD_LIBRARY_PATH not taken from the recording, "
			       "another stack limit)",
	    [RR_LAYOUT_EXE] = "its executable",
	};
	int moved = -1;

	for (int i = 0; i < RR_LAYOUT_N && now && info->layout[RR_LAYOUT_STACK]; i++)
		if (now[i] && info->layout[i] != now[i]) {
			moved = i;
			break;
		}
	if (!info->ident.persona_set)
		snprintf(why, len,
			 "the recording was made before spool fixed the layout, with "
			 "address-space randomization");
	else if (info->ident.aslr)
		snprintf(why, len, "the recording was made with address-space randomization");
	else if (res->persona_err)
		snprintf(why, len,
			 "the replay runs with address-space randomization (personality "
			 "ADDR_NO_RANDOMIZE refused: %s)",
			 strerror(res->persona_err));
	else if (moved >= 0)
		snprintf(why, len,
			 "the replay's address-space layout is not the recording's: %s "
			 "is at 0x%llx, recorded at 0x%llx",
			 what[moved], (unsigned long long)now[moved],
			 (unsigned long long)info->layout[moved]);
	else
		return 0;
	return 1;
}

/* Whether dir is named like a replay's trace inside its recording:
 * .../replays/N (words only: the trace has no recording either way). */
static int replay_is_replays(const char *dir)
{
	size_t n = strlen(dir), end;

	while (n > 1 && dir[n - 1] == '/')
		n--;
	end = n;
	while (n && dir[n - 1] >= '0' && dir[n - 1] <= '9')
		n--;
	if (n == end || n < 8 || strncmp(dir + n - 8, "replays/", 8) ||
	    (n > 8 && dir[n - 9] != '/'))
		return 0;
	return 1;
}

/* After the run (failed = 0): say a layout that differs from the
 * recording's; after a divergence or a crash (failed = 1): name it as the
 * likely cause. */
static void replay_say_layout(const struct rr_info *info, const struct session_result *res,
			      const uint64_t *now, int failed)
{
	char why[512];

	if (!replay_layout_differs(info, res, now, why, sizeof(why)))
		return;
	if (!failed && info->ident.persona_set && !info->ident.aslr)
		log_warn("%s: addresses differ from the recording's", why);
	else if (failed)
		log_info("%s: a program that keeps pointers in what it reads (epoll_event.data, "
			 "addresses sent through a pipe, mmap results) gets recorded pointers "
			 "that are not valid in this replay, the likely cause here",
			 why);
}

/*
 * The replay's own trace when -o is not given: inside the recording,
 * TRACE/replays/N (the directory it was started in is often the program's
 * own, which the program may list: the replay's output must not be there).
 * A recording that cannot take it (read-only, someone else's) gets a new
 * directory under $TMPDIR instead, said on stderr.
 */
static int replay_out_dir(const char *dir, char *out, size_t len)
{
	int rc = trace_replay_dir(dir, out, len);

	if (rc == 0)
		return 0;
	if (trace_replay_tmpdir(out, len) < 0) {
		log_err("cannot write the replay's trace into %s/replays (%s) nor under $TMPDIR: "
			"choose one with -o",
			dir, strerror(-rc));
		return -1;
	}
	log_warn("cannot write the replay's trace into %s/replays (%s): it goes to %s/",
		 dir, strerror(-rc), out);
	return 0;
}

/*
 * A recording of a process tree (rr_tree.c): load each process's own log
 * (the first one's is ctx->log already). only_pid (--pid): the recorded
 * pid of the process replayed alone, its last image when it exec'd.
 * 0, or -1 with the error said.
 */
static int replay_tree(struct replay_ctx *ctx, const char *dir, int serial, int32_t only_pid,
		       int refuse, struct rr_log ***out)
{
	const struct rr_info *info = ctx->info;
	uint32_t n = info->nprocs, k;
	char err[256];
	int rc;

	ctx->nprocs = n > 1 ? n : 1;
	if (only_pid) {
		for (k = n; k-- > 0;)
			if (info->procs[k].pid == only_pid)
				break;
		if (n <= 1 && only_pid == (int32_t)info->pid)
			return 0; /* one process: that one */
		if (n <= 1 || k == UINT32_MAX) {
			log_err("%s: the recording has no process %d (spool info lists them)", dir,
				only_pid);
			return -1;
		}
		ctx->only = k;
	}
	/* One process (a recording that says so): the tree layout all the
	 * same, so that a process the replay starts and the recording does
	 * not have is a divergence, not a run of its own (not with --path,
	 * which knows one area only, nor --gdb, which it does not change). */
	if (n == 0 || (n == 1 && refuse))
		return 0;
	if (refuse) {
		log_err("%s: a recording of %u processes: --path replays one process only; "
			"replay the tree without it, or debug one process of it with --pid PID "
			"--gdb (spool info lists the pids)",
			dir, n);
		return -1;
	}
	*out = calloc(n, sizeof(**out));
	if (!*out)
		return -1;
	(*out)[0] = (struct rr_log *)ctx->log;
	for (k = 1; k < n; k++) {
		rc = rr_log_load_proc(dir, serial, k, &(*out)[k], err, sizeof(err));
		if (rc < 0) {
			log_err("%s: process %u (pid %d): %s", dir, k, (int)info->procs[k].pid, err);
			ctx->nprocs = k;
			return -1;
		}
	}
	ctx->logs = *out;
	ctx->tree = 1;
	return 0;
}

/* --goto EVENT: the snapshot to start from, checked and unpacked
 * (rr_snap_pick.c); none at or before EVENT replays from the start. */
static int replay_goto(struct replay_ctx *ctx, const char *dir, const struct rr_info *info,
		       uint64_t event, uint64_t count, int path, int use_gdb, const char *exe)
{
	uint64_t last = rr_log_switches(ctx->log);
	char pos[RR_SNAP_POS_MAX];
	int rc;

	if (strcmp(info->mode, "serial")) {
		log_err("--goto: %s is a sync-mode recording, which has no snapshots (serial "
			"mode takes them, spool record --snap-period N)",
			dir);
		return -1;
	}
	if (path || ctx->nprocs > 1) {
		log_err("--goto does not combine with %s",
			path ? "--path" : "a recording of several processes");
		return -1;
	}
	if (event > last) {
		log_err("--goto %llu: beyond the end of the recording, whose schedule events are "
			"0 to %llu",
			(unsigned long long)event, (unsigned long long)last);
		return -1;
	}
	rc = rr_snap_pick(dir, event, count, exe, &ctx->snap);
	if (rc < 0)
		return -1;
	if (use_gdb)
		ctx->goto_stop = event + 1;
	if (ctx->snap.fd < 0) {
		rr_snap_pos_fmt(pos, event, count, count != UINT64_MAX);
		log_warn("--goto %s: no snapshot of %s at or before that event can be restored: "
			 "replaying from the start",
			 pos, dir);
	}
	rr_snap_pos_fmt(pos, ctx->snap.turn, ctx->snap.count, ctx->snap.shared_turn);
	if (ctx->snap.fd >= 0)
		log_info("starting from snapshot %llu at schedule event %s (%u threads%s%.0u%s%s%.0u%s)",
			 (unsigned long long)ctx->snap.index, pos, ctx->snap.nthreads,
			 ctx->snap.nout ? ", " : "", ctx->snap.nout,
			 ctx->snap.nout ? " in a blocking call" : "",
			 ctx->snap.nblocked ? ", " : "", ctx->snap.nblocked,
			 ctx->snap.nblocked ? " back from a blocking call" : "");
	if (ctx->snap.fd >= 0 && ctx->snap.nwfiles)
		log_warn("snapshot %llu: %u descriptor%s open for writing on a file (%d: %s%s), "
			 "restored as /dev/null: what the program writes there from event %s on "
			 "is not written (a replay from the start, or from a snapshot before the "
			 "file was opened, writes it)",
			 (unsigned long long)ctx->snap.index, ctx->snap.nwfiles,
			 ctx->snap.nwfiles == 1 ? " was" : "s were", ctx->snap.wfd,
			 escape_str(ctx->snap.wpath), ctx->snap.nwfiles > 1 ? ", ..." : "", pos);
	if (ctx->snap.fd >= 0 && ctx->snap.ndeltas)
		log_info("snapshot %llu is a delta: composed over %u earlier one%s in %.2f ms",
			 (unsigned long long)ctx->snap.index, ctx->snap.ndeltas,
			 ctx->snap.ndeltas == 1 ? "" : "s", (double)ctx->snap.unpack_ns / 1e6);
	return 0;
}

/* Everything one `spool replay` holds from its options to its verdict: the
 * steps below fill it in order, replay_run_free releases it. */
struct replay_run {
	int argc;
	char **argv;
	struct session_opts so;
	struct replay_ctx ctx;
	struct replay_cli cl;
	struct session_result res;
	int have_end, rec_status, rec_sig;
	struct rr_info *info;
	struct rr_log *log;
	char **pargv, *cmdline, path[PATH_MAX], run_abs[PATH_MAX], out_dir[PATH_MAX];
	const char *dir;
	struct replay_gdb gdb;
	struct stdin_cap in;
	char **env;
	struct stdio_mimic outs[2];
	int ret, have_in;
	struct rr_pathsched *pathsched;
	struct path_probes *pprobes;
	int devnull;
	struct rr_log **logs;
	char dropped[512];
	int fds[RR_FDS_MAX];
};

/* The program as the user named it after TRACE, else the recorded one. */
static const char *replay_prog(const struct replay_run *r)
{
	return optind < r->argc ? r->path : r->info->exe;
}

/* The options, and TRACE. */
static int replay_parse(struct replay_run *r)
{
	int rc;

	r->cl.so = &r->so;
	rc = run_opts_parse("replay", r->argc, r->argv, replay_own_opts, REPLAY_NOWN,
			    &replay_run_opts, &r->so, replay_opt, &r->cl);
	if (rc) {
		r->ret = rc < 0 ? EXIT_USAGE : 0;
		return -1;
	}
	r->ctx.stuck_ms = r->cl.stuck_ms;
	if (r->cl.functions_set && !r->cl.record_path) {
		/* it says where --record-path takes entries from: alone it
		 * would be ignored without a word */
		log_err("--entries is for --record-path (where the recorded path's function "
			"entries come from)");
		r->ret = EXIT_USAGE;
		return -1;
	}
	/* TRACE defaults to spool.trace, as for every other command (getopt
	 * has taken the "--" of `spool replay -- PROG`) */
	if (optind < r->argc && strcmp(r->argv[optind], "--") && strcmp(r->argv[optind - 1], "--"))
		r->dir = r->argv[optind++];
	else
		r->dir = "spool.trace";
	if (optind < r->argc && !strcmp(r->argv[optind], "--"))
		optind++;
	return 0;
}

/* --dump-schedule: print the schedule instead of replaying. */
static int replay_dump(struct replay_run *r)
{
	if (!r->cl.dump)
		return 0;
	r->ret = rr_dump_schedule(r->dir, stdout) < 0 ? 1 : 0;
	return 1;
}

/* -o must not be where the recording is. */
static int replay_check_out_opt(struct replay_run *r)
{
	if (r->so.trace_dir && trace_dir_replaces(r->so.trace_dir, r->dir)) {
		log_err("-o %s would move or remove the recording %s that the replay reads: "
			"choose another -o",
			r->so.trace_dir, r->dir);
		r->ret = EXIT_USAGE;
		return -1;
	}
	return 0;
}

/* The recording's summary (rr_info), from a complete recording only. */
static int replay_read_info(struct replay_run *r)
{
	struct trace_loss loss;
	int rc;

	/* (said first: below, a missing directory would read as "not a
	 * recording", which sends a user looking for what is wrong with it) */
	if (access(r->dir, F_OK) < 0 && errno == ENOENT) {
		log_err("recording '%s' does not exist (make one with spool record -o %s -- "
			"PROGRAM)",
			r->dir, r->dir);
		return -1;
	}
	r->info = calloc(1, sizeof(*r->info));
	if (!r->info)
		return -1;
	/* A recording that misses events, or whose writer died (spool record
	 * killed), cannot be replayed: say that, not "not a recording". */
	if (cmd_dir_loss(r->dir, NULL, &loss)) {
		log_err("%s: %s: cannot replay it", r->dir,
			loss.state == TRACE_STATE_UNFINISHED
			    ? "spool record did not finish writing this recording (killed?)"
			    : "the recording is incomplete");
		r->ret = EXIT_INCOMPLETE;
		return -1;
	}
	rc = rr_info_read(r->dir, r->info);
	if (rc == -ENOENT) {
		if (replay_is_replays(r->dir))
			log_err("%s is the trace of a replay (spool replay writes them into its "
				"recording's replays/): replay the recording it is in",
				r->dir);
		else
			log_err("%s has no recording (it was not made by spool record): nothing "
				"to replay",
				r->dir);
		return -1;
	}
	if (rc < 0) {
		log_err("%s: cannot read the recording: %s", r->dir, strerror(-rc));
		return -1;
	}
	return 0;
}

/* Recordings a replay cannot follow faithfully are refused (rr_refuse.c:
 * spool info says the same). */
static int replay_refuse(struct replay_run *r)
{
	char why[RR_REPORT_BYTES + 512];

	if (rr_refuse_reason(r->info, why, sizeof(why))) {
		log_err("%s: %s", r->dir, why);
		return -1;
	}
	return 0;
}

/* --gdbserver: serve gdb instead of replaying once. */
static int replay_gdbserver(struct replay_run *r)
{
	if (!r->cl.gdbserver)
		return 0;
	/* each replay it runs is `spool replay --gdb-wrapper` (gdbsrv_inf.c) */
	if (r->cl.use_gdb) {
		log_err("--gdbserver does not combine with --gdb or --gdb-args");
		r->ret = EXIT_USAGE;
		return -1;
	}
	if (r->cl.goto_event != UINT64_MAX && strcmp(r->info->mode, "serial")) {
		log_err("--goto: %s is a sync-mode recording, which has no snapshots "
			"(serial mode takes them, spool record --snap-period N)",
			r->dir);
		return -1;
	}
	r->ret = gdbsrv_main(r->cl.gdbserver, r->dir, optind < r->argc ? r->argv + optind : NULL,
			     r->cl.goto_event, r->cl.goto_count);
	return 1;
}

/* The program to run and its arguments: the user's, else the recorded. */
static int replay_program(struct replay_run *r)
{
	const struct rr_info *info = r->info;
	int rc;

	if (optind < r->argc) {
		rc = target_resolve(r->argv[optind], r->path, sizeof(r->path));
		if (rc < 0) {
			log_err("%s: %s", r->argv[optind],
				rc == -EACCES ? "not executable" : "command not found");
			r->ret = rc == -EACCES ? 126 : 127;
			return -1;
		}
		if (replay_check_binary(r->path, info) < 0)
			return -1;
		r->so.argv = r->argv + optind;
	} else {
		/* the file the recording ran (a link's name, which argv[0] may
		 * be; a relative one from the recorded directory), else the
		 * binary behind it */
		const char *run = info->path[0] ? info->path : info->exe;

		if (run[0] != '/' && info->cwd[0] &&
		    snprintf(r->run_abs, sizeof(r->run_abs), "%s/%s", info->cwd, run) <
			(int)sizeof(r->run_abs))
			run = r->run_abs;
		if (replay_check_binary(run, info) < 0)
			return -1;
		r->so.exec_path = run;
		r->pargv = replay_argv(r->dir, info, &r->cmdline);
		if (!r->pargv) {
			log_err("%s: the recorded command line is missing", r->dir);
			return -1;
		}
		r->so.argv = r->pargv;
	}
	return 0;
}

/* The recorded logs (a process tree's too), and --goto's snapshot. */
static int replay_logs(struct replay_run *r)
{
	struct replay_ctx *ctx = &r->ctx;
	int serial = !strcmp(r->info->mode, "serial");

	/* A --path replay writes its own token schedule into the area, where
	 * an image's would be read-only. */
	if (replay_load(ctx, r->dir, serial, !r->cl.no_image && !r->cl.path_file, &r->log) < 0)
		return -1;
	ctx->log = r->log;
	ctx->info = r->info;
	ctx->only = RR_NO_PROC;
	if (replay_tree(ctx, r->dir, serial, r->cl.only_pid,
			r->cl.path_file || (r->cl.use_gdb && r->info->nprocs <= 1), &r->logs) < 0)
		return -1;
	if (r->cl.goto_event != UINT64_MAX &&
	    replay_goto(ctx, r->dir, r->info, r->cl.goto_event, r->cl.goto_count,
			r->cl.path_file != NULL, r->cl.use_gdb,
			optind < r->argc ? r->path : r->so.exec_path) < 0)
		return -1;
	return 0;
}

/* Clock reads, reads and getrandom calls made before the agent
 * started: given back from process 0's area in the shared memory, at
 * the offset in SPOOL_EARLY_IO (filled in replay_prepare;
 * agent_rr_early.c). One variable: the stack padding absorbs one
 * added variable of up to 128 bytes (session.c). Only the first image
 * of process 0 takes them. */
static int replay_early(struct replay_run *r)
{
	struct replay_ctx *ctx = &r->ctx;
	struct replay_cli *cl = &r->cl;

	if (ctx->only == RR_NO_PROC || ctx->only == 0)
		ctx->eio = replay_early_io(r->dir);
	/* Given even with nothing to give (EARLY_IO_KEEP): the recording's
	 * program had it too, so both see the same environment once the agent
	 * removed it (early_clock.h). */
	if ((ctx->only == RR_NO_PROC || ctx->only == 0) &&
	    cl->nenv + 1 < sizeof(cl->extra_env) / sizeof(cl->extra_env[0])) {
		static char eio_env[REPLAY_EIO_ENV_SIZE];

		snprintf(eio_env, sizeof(eio_env), "%s=%s", EARLY_IO_ENV, EARLY_IO_KEEP);
		ctx->eio_env = eio_env;
		cl->extra_env[cl->nenv++] = eio_env;
		r->so.env = cl->extra_env;
	}
	return 0;
}

/* The session: the replay feature area, what the agent is told to do. */
static int replay_session(struct replay_run *r)
{
	const struct rr_info *info = r->info;
	const struct replay_cli *cl = &r->cl;
	struct replay_ctx *ctx = &r->ctx;
	struct session_opts *so = &r->so;

	/* Where the recorded program had the region's descriptor; a recording
	 * older than that note had it where spool got it, and so does its replay. */
	so->shm_fd = info->shm_fd > 0 ? info->shm_fd : -1;
	r->have_end = replay_recorded_end(r->dir, &r->rec_status, &r->rec_sig) == 0;
	ctx->opts = (r->have_end ? replay_truncated(r->rec_sig) : 0) |
		    (info->lock_events ? RR_O_LOCK_EVENTS : 0) | (info->compress ? RR_O_PACKED : 0) |
		    (info->snapz ? RR_O_SNAPZ : 0) |
		    (info->kills ? RR_O_KILLS : 0) | (info->fdtab ? RR_O_FDTAB : 0) |
		    (!strcmp(info->mode, "serial") && !info->entries_only ? RR_O_COUNT_EXITS : 0) |
		    (cl->trace_sched || cl->path_file || cl->record_path ? RR_O_TRACE_SCHED : 0) |
		    (cl->use_gdb ? RR_O_CHECKPOINTS : 0) | (info->flags & RR_F_STDIO ? RR_O_STDIO : 0) |
		    (info->flags & RR_F_STDIO_SOLO ? RR_O_STDIO_SOLO : 0) |
		    (info->flags & RR_F_STDIO_TURN ? RR_O_STDIO_TURN : 0) |
		    (info->flags & RR_F_OUT_TURN ? RR_O_OUT_TURN : 0) |
		    (info->flags & RR_F_STDIO_FLUSH ? RR_O_STDIO_FLUSH : 0) |
		    (info->flags & RR_F_CPUID ? RR_O_CPUID : 0) |
		    (info->flags & RR_F_CPUTIME ? RR_O_CPUTIME : 0) |
		    /* (a run the user changed may print otherwise: another command
		     * line or environment, gdb, another schedule) */
		    (cl->use_gdb || cl->path_file || cl->user_env || optind < r->argc ? 0
											  : RR_O_OUT_CHECK);
	so->features = SHM_FEAT_LOCKS | SHM_FEAT_REPLAY;
	so->until_first_exit = 1; /* a recording is of one process */
	/* SIGTERM, SIGHUP (and ^C, but under gdb that is gdb's) end the
	 * replay: the program's real signals are not its recording's */
	so->stop_kills = cl->use_gdb == 2   ? 0
			 : cl->use_gdb == 1 ? SESSION_STOP_TERM
					    : SESSION_STOP_TERM | SESSION_STOP_INT;
	so->ext_bytes[SHM_EXT_REPLAY] =
	    ctx->tree ? rr_tree_replay_size(r->logs, ctx->nprocs) : rr_log_area_size(r->log);
	so->prepare = replay_prepare;
	so->finish = replay_finish;
	so->hook_arg = ctx;
	return 0;
}

/* --path and --record-path. */
static int replay_paths(struct replay_run *r)
{
	const struct replay_cli *cl = &r->cl;

	if ((cl->path_file || cl->record_path) &&
	    rr_pathsched_setup(&r->pathsched, cl->path_file, r->log,
			       !strcmp(r->info->mode, "serial"), &r->so) < 0)
		return -1;
	/* A --path replay hands the token over at the hooks' calls: a program
	 * without them cannot follow a path (its probes do not switch). */
	if (cl->path_file && path_prog_instrumented(replay_prog(r)) == 0) {
		log_err("--path: %s does not call the -finstrument-functions hooks, where a "
			"replay switches threads to follow a path: rebuild it with "
			"-finstrument-functions (doc/path.md)",
			replay_prog(r));
		return -1;
	}
	/* Function entries of a program without -finstrument-functions: probes
	 * (path_probes.c). */
	if (cl->record_path && !cl->path_file &&
	    path_probes_setup(&r->pprobes, cl->functions, replay_prog(r), &r->so, r->so.quiet) < 0)
		return -1;
	return 0;
}

/* --gdb, --gdb-args, --gdb-wrapper. */
static int replay_under_gdb(struct replay_run *r)
{
	if (!r->cl.use_gdb)
		return 0;
	/* gdb runs the program: a thread stopped at a breakpoint must
	 * not be reported stuck (49 days is forever here). */
	if (r->cl.use_gdb == 2 ? replay_gdb_wrapper_start(&r->so) < 0
			       : replay_gdb_init(&r->gdb, r->cl.gdb_args, r->dir) < 0)
		return -1;
	if (r->cl.use_gdb == 1) {
		r->gdb.follow_child = r->ctx.tree && r->ctx.only != RR_NO_PROC && r->ctx.only != 0;
		r->so.exec = replay_gdb_exec;
		r->so.exec_arg = &r->gdb;
	}
	r->ctx.stuck_ms = UINT32_MAX;
	return 0;
}

/* The recorded stdin (stdio reads it past the interposers); under
 * gdb, gdb's own stdin is its terminal (doc/record.md). */
static int replay_stdin(struct replay_run *r)
{
	int rc = r->cl.use_gdb ? -ENOENT : stdin_cap_replay_open(&r->in, r->dir);

	if (rc < 0 && rc != -ENOENT) {
		log_err("%s: the recorded stdin is unreadable: %s", r->dir, strerror(-rc));
		return -1;
	}
	if (rc == 0) {
		r->have_in = 1;
		rc = stdin_cap_run_begin(&r->in);
		if (rc < 0) {
			log_err("cannot give the program its recorded stdin: %s", strerror(-rc));
			return -1;
		}
	}
	return 0;
}

/* The recorded environment and working directory (under --gdb, gdb keeps
 * spool's and gives the program the recorded ones: gdb.c; under
 * --gdb-wrapper, the program gets spool's). */
static int replay_env(struct replay_run *r)
{
	const struct rr_info *info = r->info;

	if (r->cl.use_gdb != 2) {
		int e;

		r->env = run_env_load(r->dir, r->cl.trust_env, r->dropped, sizeof(r->dropped), &e);
		if (r->env && r->cl.use_gdb) {
			r->gdb.env = r->env;
			r->gdb.extra = r->so.env;
			r->gdb.stack_bytes = info->stack_bytes;
			r->gdb.stack_items = info->stack_items;
			if (info->cwd[0] && access(info->cwd, X_OK) == 0)
				r->gdb.cwd = info->cwd;
		} else if (r->env)
			r->so.base_env = r->env;
		else if (e != -ENOENT)
			log_warn("%s: the recorded environment is unreadable (%s): the program "
				 "gets spool's",
				 r->dir, trace_open_strerror(e));
		if (r->env && r->dropped[0])
			log_warn("%s: not taken from the recorded environment (a trace may come "
				 "from someone else; --trust-env takes them): %s",
				 r->dir, r->dropped);
	}
	if (!r->cl.use_gdb) {
		/* the descriptors the recorded program inherited, as stand-ins,
		 * and none of spool's own (rr_fds.h) */
		r->so.fds_set = 1;
		r->so.fds = r->fds;
		r->so.nfds = rr_fds_parse(info->fds, r->fds, RR_FDS_MAX);
		if (info->cwd[0] && access(info->cwd, X_OK) == 0)
			r->so.cwd = info->cwd;
		else if (info->cwd[0])
			log_warn("the recorded working directory %s is gone: the program runs in "
				 "spool's, and may not find what it opens",
				 info->cwd);
	}
	/* A relative file name runs from the recorded directory as recorded
	 * (the same name: the same bytes on the program's stack). */
	if (r->so.exec_path == r->run_abs && r->so.cwd == info->cwd)
		r->so.exec_path = info->path;
	return 0;
}

/* stdout and stderr of the kinds the recorded program had (under gdb,
 * gdb's terminal). */
static int replay_stdout(struct replay_run *r)
{
	struct stdio_mimic *outs = r->outs;
	int rc;

	for (int i = 0; i < 2 && !r->cl.use_gdb; i++) {
		enum stdio_kind k = stdio_kind_parse(r->info->out_kind[i]);

		/* stderr was stdout (2>&1, one terminal): it is again. */
		if (i == 1 && !strcmp(r->info->out_kind[1], "stdout")) {
			if (outs[0].child >= 0 || !stdio_same_file(1, 2))
				r->so.stdio_sub[2] = outs[0].child >= 0 ? outs[0].child : 1;
			break;
		}

		rc = stdio_mimic_begin(&outs[i], i + 1, k, r->info->out_off[i]);
		if (rc < 0) {
			log_err("cannot give the program a %s %s as recorded: %s",
				stdio_kind_name(k), i ? "stderr" : "stdout", strerror(-rc));
			return -1;
		}
		if (outs[i].child >= 0) {
			r->so.stdio_sub[i + 1] = outs[i].child;
			log_debug("%s: the recording's was a %s, spool's is not: the program "
				  "gets a %s",
				  i ? "stderr" : "stdout", stdio_kind_name(k), stdio_kind_name(k));
		}
	}
	return 0;
}

/* Where the replay's trace goes, and --pid's silenced processes. */
static int replay_outputs(struct replay_run *r)
{
	/* (chosen once the recording is known to be one: a refused one gets
	 * no replays/ directory) */
	if (!r->so.trace_dir) {
		if (replay_out_dir(r->dir, r->out_dir, sizeof(r->out_dir)) < 0)
			return -1;
		r->so.trace_dir = r->out_dir;
	}
	/* --pid: the processes on the way to the one replayed alone write
	 * nothing (stdio included): the program gets /dev/null, and that
	 * process takes spool's stdout and stderr back (agent_rr_proc.c). */
	if (r->ctx.only != RR_NO_PROC && r->ctx.nprocs > 1 && !r->cl.use_gdb) {
		r->devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
		if (r->devnull >= 0)
			r->so.stdio_sub[1] = r->so.stdio_sub[2] = r->devnull;
	}
	return 0;
}

/* Run the program. */
static int replay_execute(struct replay_run *r)
{
	struct session_opts *so = &r->so;
	int rc;

	replay_say_foreign(r->dir,
			   optind < r->argc			     ? r->path
			   : so->exec_path == r->info->path && r->run_abs[0] ? r->run_abs
								     : so->exec_path,
			   so->argv, so->cwd, r->info->buildid);
	replay_ident(so, r->info, r->dir, r->cl.use_gdb);
	/* --goto: the agent reads the snapshot from this descriptor */
	so->pass_fd = r->ctx.snap.fd >= 3 ? r->ctx.snap.fd : 0;
	rc = session_run(so, &r->res);
	replay_say_layout(r->info, &r->res, r->ctx.layout, 0);
	if (r->have_in)
		stdin_cap_run_end(&r->in);
	for (int i = 0; i < 2; i++)
		stdio_mimic_end(&r->outs[i]);
	rr_watch_stop(&r->ctx.watch);
	if (rc < 0) {
		r->ret = cmd_start_status(rc);
		return -1;
	}
	fflush(stdout);
	return 0;
}

/* spool replay was told to stop (SIGTERM, SIGHUP, SIGINT): the program's
 * processes were killed; that is not a divergence. Exits 128 + the
 * signal, as a shell reports a command it killed. */
static int replay_interrupted(struct replay_run *r)
{
	if (!r->res.stopped_by)
		return 0;
	log_err("replay stopped by SIG%s to spool: the replayed program's %u process%s killed; "
		"replay trace in %s/",
		sigabbrev_np(r->res.stopped_by) ? sigabbrev_np(r->res.stopped_by) : "?",
		r->res.killed, r->res.killed == 1 ? " was" : "es were", r->so.trace_dir);
	r->ret = 128 + r->res.stopped_by;
	return -1;
}

/* The agent stopped the replay: a path not followed, the recording's
 * end reached, a divergence. */
static int replay_stopped(struct replay_run *r)
{
	const struct replay_ctx *ctx = &r->ctx;

	if (rr_pathsched_verify(r->pathsched, r->so.trace_dir) < 0 &&
	    !(ctx->flags & (RR_F_STOP | RR_F_END))) {
		r->ret = REPLAY_EXIT_DIVERGED;
		return -1;
	}
	if (ctx->flags & RR_F_END) {
		log_info("%s", ctx->report);
		log_info("replay stopped where the recording ends; replay trace in %s/",
			 r->so.trace_dir);
		r->ret = REPLAY_EXIT_DIVERGED;
		return -1;
	}
	if (ctx->flags & RR_F_STOP) {
		log_err("%s", ctx->report);
		replay_say_layout(r->info, &r->res, ctx->layout, 1);
		/* What to make of it follows what differs: a data race is
		 * named only where it can be the cause (rr_advice.c). */
		if (!strncmp(ctx->report, "replay diverged", 15)) {
			struct rr_advice_in ai = {.cause = ctx->cause,
						  .threads = ctx->cause_threads,
						  .running = ctx->cause_running,
						  .sync = !!strcmp(r->info->mode, "serial"),
						  .fdtab = r->info->fdtab};
			const char *advice = rr_advice(&ai);

			if (advice)
				log_info("%s", advice);
		}
		r->ret = REPLAY_EXIT_DIVERGED;
		return -1;
	}
	return 0;
}

/* The program ended before its log did: a thread's, or the token's. */
static int replay_ended_short(struct replay_run *r)
{
	const struct replay_ctx *ctx = &r->ctx;

	if (ctx->short_thread != UINT32_MAX && r->cl.use_gdb) {
		log_info("gdb ended before thread %u replayed its %u recorded events (it "
			 "replayed %u)",
			 ctx->short_thread, ctx->short_n, ctx->short_done);
	} else if (ctx->short_thread != UINT32_MAX && !r->res.term_signal) {
		char who[64] = "";

		if (ctx->nprocs > 1)
			snprintf(who, sizeof(who), " process %u (recorded pid %d):", ctx->short_proc,
				 (int)r->info->procs[ctx->short_proc].pid);
		log_err("replay diverged:%s the program ended before thread %u replayed its %u "
			"recorded events (it replayed %u)",
			who, ctx->short_thread, ctx->short_n, ctx->short_done);
		r->ret = REPLAY_EXIT_DIVERGED;
		return -1;
	}
	if (ctx->nsw && ctx->tturn + 1 < ctx->nsw && !r->res.term_signal &&
	    (!r->cl.use_gdb || ctx->short_thread == UINT32_MAX)) {
		log_err("replay diverged: the program ended at switch %llu of the run token; the "
			"recording has %llu",
			(unsigned long long)ctx->tturn, (unsigned long long)(ctx->nsw - 1));
		r->ret = REPLAY_EXIT_DIVERGED;
		return -1;
	}
	return 0;
}

/* The program ended otherwise than the recorded one. Not under gdb (its
 * user may kill or run the program as they like),
 * nor for one process of a tree replayed alone (--pid: the recorded
 * end in the summary is the first process's),
 * nor along another path (--path: a path edited to lose no update
 * ends otherwise on purpose), nor after a recording cut short by a
 * kill (RR_O_TRUNCATED: the replay stops at its end, RR_F_END above). */
static int replay_ended_otherwise(struct replay_run *r)
{
	if (r->have_end && !r->cl.use_gdb && !r->cl.path_file &&
	    !(r->ctx.opts & RR_O_TRUNCATED) && (r->ctx.only == RR_NO_PROC || r->ctx.only == 0) &&
	    replay_check_end(r->rec_status, r->rec_sig, &r->res) < 0) {
		replay_say_layout(r->info, &r->res, r->ctx.layout, 1);
		r->ret = REPLAY_EXIT_DIVERGED;
		return -1;
	}
	return 0;
}

/* What was replayed; the program's exit status is spool's. */
static int replay_summary(struct replay_run *r)
{
	const struct replay_ctx *ctx = &r->ctx;
	const struct rr_info *info = r->info;

	if (ctx->flags & RR_F_UNTRACKED)
		log_warn("a thread spool could not number made recorded calls: this replay may "
			 "not be exact");
	if (!r->so.quiet && ctx->nprocs > 1 && ctx->only == RR_NO_PROC)
		log_info("replayed the %u processes of the recording, each from its own log",
			 ctx->nprocs);
	else if (!r->so.quiet && ctx->nprocs > 1)
		log_info("replayed process %u (recorded pid %d) alone, of the %u of the recording; "
			 "the processes on the way to it ran without output",
			 ctx->only, (int)info->procs[ctx->only].pid, ctx->nprocs);
	if (!r->so.quiet && ctx->snap.fd >= 0) {
		char pos[RR_SNAP_POS_MAX];

		rr_snap_pos_fmt(pos, ctx->snap.turn, ctx->snap.count, ctx->snap.shared_turn);
		log_info("started from snapshot %llu at schedule event %s (restored in %.2f ms%s%.0u%s)",
			 (unsigned long long)ctx->snap.index, pos, (double)ctx->restore_ns / 1e6,
			 ctx->restore_timers ? ", " : "", ctx->restore_timers,
			 !ctx->restore_timers	      ? ""
			 : ctx->restore_timers == 1 ? " POSIX timer"
						    : " POSIX timers");
	}
	if (ctx->snap.fd >= 0 && ctx->restore_timers_off)
		log_warn("snapshot %llu: %u of its POSIX timers could not be made again with their "
			 "recorded id, target thread or clock: the program's calls on them may fail "
			 "or differ from the recording's",
			 (unsigned long long)ctx->snap.index, ctx->restore_timers_off);
	if (!r->so.quiet) {
		/* a tree: the counts of all its processes, or of the one
		 * replayed alone */
		uint64_t ev = 0, sw = 0, in = 0, inputs = 0;
		uint32_t nth = 0;

		for (uint32_t k = 0; k < ctx->nprocs; k++) {
			const struct rr_log *l = ctx->nprocs > 1 ? ctx->logs[k] : r->log;

			if (ctx->only != RR_NO_PROC && ctx->nprocs > 1 && k != ctx->only)
				continue;
			ev += rr_log_events(l, &in);
			inputs += in;
			sw += rr_log_switches(l);
			nth += rr_log_threads(l);
		}
		if (ctx->nsw)
			log_info("replayed %llu schedule events (switches of the run token, "
				 "serial mode) and %llu inputs of %u thread%s; replay trace in %s/",
				 (unsigned long long)sw, (unsigned long long)inputs, nth,
				 nth == 1 ? "" : "s", r->so.trace_dir);
		else
			log_info("replayed %llu schedule events and %llu inputs of %u thread%s; "
				 "replay trace in %s/",
				 (unsigned long long)ev, (unsigned long long)inputs, nth,
				 nth == 1 ? "" : "s", r->so.trace_dir);
		if (ctx->img_written)
			log_info("the recording's log is kept in %s/.spool/replay.img (%.1f MB): "
				 "the next replays start from it (--no-image: neither use nor "
				 "write it)",
				 r->dir, (double)rr_log_image_size(r->log) / 1e6);
	}
	r->ret = r->res.exit_status;
	return 0;
}

static void replay_run_free(struct replay_run *r)
{
	if (r->devnull >= 0)
		close(r->devnull);
	if (r->ctx.snap.fd >= 0)
		close(r->ctx.snap.fd);
	for (int i = 0; i < 2; i++)
		stdio_mimic_end(&r->outs[i]);
	run_env_free(r->env);
	if (r->have_in)
		stdin_cap_close(&r->in);
	replay_gdb_free(&r->gdb);
	rr_pathsched_free(r->pathsched);
	path_probes_free(r->pprobes);
	for (uint32_t k = 1; r->logs && k < r->ctx.nprocs; k++)
		rr_log_free(r->logs[k]);
	free(r->logs);
	rr_log_free(r->log);
	free(r->pargv);
	free(r->cmdline);
	free(r->info);
	free(r->ctx.eio);
}

/* spool replay, step by step: each step returns 0 to go on; anything else
 * ends the replay with r->ret (1 unless the step says otherwise). */
static int (*const replay_steps[])(struct replay_run *r) = {
	replay_parse,	     replay_dump,	 replay_check_out_opt, replay_read_info,
	replay_refuse,	     replay_gdbserver,	 replay_program,       replay_logs,
	replay_early,	     replay_session,	 replay_paths,	       replay_under_gdb,
	replay_stdin,	     replay_env,	 replay_stdout,	       replay_outputs,
	replay_execute,	     replay_interrupted, replay_stopped,	       replay_ended_short,
	replay_ended_otherwise, replay_summary,
};

int cmd_replay(int argc, char **argv)
{
	struct replay_run *r;
	int ret;

	/* (on the heap: three paths and the agent's report are large) */
	r = calloc(1, sizeof(*r));
	if (!r)
		return 1;
	r->argc = argc;
	r->argv = argv;
	r->so = (struct session_opts){
	    .trace_dir = NULL, /* TRACE/replays/N (replay_out_dir) */
	    .ring_bytes = SHM_DEFAULT_RING_BYTES,
	    .max_rings = SHM_DEFAULT_MAX_RINGS,
	};
	r->ctx.snap.fd = -1;
	r->cl.stuck_ms = 5000;
	r->cl.functions = PATH_FN_AUTO;
	r->cl.goto_event = UINT64_MAX;
	r->cl.goto_count = UINT64_MAX;
	for (int i = 0; i < 2; i++)
		r->outs[i] = (struct stdio_mimic){.child = -1, .src = -1, .stop = {-1, -1}};
	r->ret = 1;
	r->devnull = -1;
	for (size_t i = 0; i < sizeof(replay_steps) / sizeof(replay_steps[0]); i++)
		if (replay_steps[i](r))
			break;
	replay_run_free(r);
	ret = r->ret;
	free(r);
	return ret;
}
