// SPDX-License-Identifier: MIT
/*
 * record.c - `spool record`: run a program with the agent recording what
 * `spool replay` needs to run it again the same way (doc/record.md): in
 * serial mode (the default) the threads run one at a time and the agent
 * records each switch of the run token; in sync mode they run in parallel
 * and the agent records the order of every synchronization object's
 * acquisitions. Both record every nondeterministic input. --chaos makes
 * serial switches random (seeded); --until-fail N reruns the program until
 * a run fails (non-zero exit, a signal, or a user check command) and keeps
 * that recording.
 *
 * The program's stdin, stderr and exit status are its own; so is its stdout
 * except under --until-fail, where each run's stdout goes to a file (the
 * check command reads it as $SPOOL_OUTPUT), the failing run's is printed at
 * the end and kept in the trace (side file "output"). spool speaks on
 * stderr and exits with the program's status. A watcher thread kills the
 * program when the agent reports a serial run that cannot go on.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../collect/run_env.h"
#include "../common/early_clock.h"
#include "../collect/session.h"
#include "../collect/stdin_cap.h"
#include "../collect/stdio_kind.h"
#include "../replay/gdb.h"
#include "../replay/rr_fds.h"
#include "../replay/rr_log.h"
#include "../replay/rr_snap_list.h"
#include "../replay/rr_watch.h"
#include "../replay/rr_scan.h"
#include "../replay/rr_tree.h"
#include "../util/target.h"
#include "../util/buildid.h"
#include "../util/log.h"
#include "../util/options.h"
#include "../util/pdeath.h"
#include "../collect/stream_send.h"
#include "cmd.h"
#include "run_opts.h"

#define RECORD_MAX_OBJS (1u << 20) /* turn words: 4 MiB of the memfd, mapped as used */
/* Process numbers of a recording (rr_tree.c): an area each, 0.5 MiB of the
 * memfd (sparse) and of spool's address space; each process maps its own. */
#define RECORD_MAX_PROCS RR_MAX_PROCS

#define RECORD_SNAP_DEFAULT_NS 1000000000ull /* serial mode's default --snap-period 1s */
/* The snapshots' default budget (--snap-max): 1 GiB, or half the space
 * free to spool on the trace's file system at the start when that is less
 * (a recording must not fill the user's disk: ffmpeg at --snap-period 1
 * wrote 2.4 GB of them). */
#define RECORD_SNAP_MAX_DEFAULT (1ull << 30)

struct record_ctx {
	struct rr_info info;
	char raw_unrec[160]; /* own syscall instructions: the calls not recorded */
	struct rr_scan scan; /* rdtsc and (without dispatch) syscall in the executable */
	int scanned;
	uint32_t unseen_clones; /* clone threads found on another's state, not seen made */
	uint32_t procs_wanted; /* process numbers the program asked for */
	char *const *argv;     /* the command line spool ran */
	uint32_t max_rings;
	int serial, chaos, lock_events;
	int force; /* --force: the program's exit status even when replay will refuse */
	int compress; /* --compress: the agent loads libzstd as the replays will */
	uint64_t seed;
	uint32_t stuck_ms;
	uint64_t snap_period; /* --snap-period N (0: none) */
	uint64_t snap_period_ns; /* --snap-period Ns / Nms, or the default: by time */
	int snap_set;		 /* --snap-period was given */
	uint64_t snap_budget;	 /* --snap-max SIZE (0: no limit) */
	int snap_budget_set;	 /* --snap-max was given */
	uint64_t snap_bytes;	 /* the images kept, bytes (the agent's count) */
	int snap_full;		 /* the budget stopped the snapshots */
	uint64_t snap_over;	 /* copies stopped by it, their images removed */
	uint32_t snap_mode;   /* RR_SNAP_* (SPOOL_SNAP_RUN=1: the copies run on) */
	uint64_t snap_taken, snap_skipped, snap_ns, snap_ns_max, snap_written, snap_failed;
	int snap_err;	     /* the last failed copy's errno (untrusted: only printed) */
	uint64_t switches0;  /* the first process's switches: the others take no snapshot */
	const char *trace_dir; /* the run's trace directory (the snapshots go in snap/) */
	const char *out_path; /* --until-fail: the run's stdout, kept in the trace */
	struct stdin_cap *in; /* the program's stdin, kept for every run and the replay */
	struct rr_watch watch; /* serial mode: kills a program the agent stopped */
	struct run_ident ident;	     /* what the program runs with (ADDR_NO_RANDOMIZE) */
	struct session_result *res;  /* the run's, filled by session_run */
};

/* The shared options spool record takes (a recording's ring holds a burst
 * of schedule events: 64 KiB at least; it always ends with the program's
 * last process, so no --until-first-exit). */
static void record_usage(FILE *out);
static const struct run_opts_spec record_run_opts = {
	.mask = RUN_OPT_OUTPUT | RUN_OPT_RING_SIZE | RUN_OPT_MAX_THREADS | RUN_OPT_STREAM | RUN_OPT_NO_KEEP,
	.min_ring = 65536,
	.usage = record_usage,
};

/* Codes of spool record's long-only options. */
enum {
	RECORD_O_MODE = RUN_OPT_LONG,
	RECORD_O_CHAOS,
	RECORD_O_SEED,
	RECORD_O_SNAP_PERIOD,
	RECORD_O_SNAP_MAX,
	RECORD_O_STUCK_MS,
	RECORD_O_LOCK_EVENTS,
	RECORD_O_FORCE,
	RECORD_O_COMPRESS,
	RECORD_O_UNTIL_FAIL,
	RECORD_O_CHECK,
	RECORD_O_CHECK_OLD,
	RECORD_O_GDB_WRAPPER,
};

/* spool record's own options, in the order --help lists them (the shared
 * ones after the first part, RECORD_NOWN_FIRST rows). */
static const struct run_opt_own record_own_opts[] = {
    {"mode", required_argument, RECORD_O_MODE,
     "      --mode MODE      serial (default: one thread runs at a time; exact even\n"
     "                       with data races) or sync (threads run in parallel;\n"
     "                       exact for programs without data races)\n"},
    {"chaos", no_argument, RECORD_O_CHAOS,
     "      --chaos          serial mode: switch threads at random points (seeded)\n"
     "                       to shake out interleavings\n"},
    {"seed", required_argument, RECORD_O_SEED,
     "      --seed S         the chaos seed (default: a new one per run)\n"},
    {"snap-period", required_argument, RECORD_O_SNAP_PERIOD,
     "      --snap-period N  serial mode: a process snapshot every N switches of the\n"
     "                       run token, written into TRACE/.spool/snap; Ns or Nms:\n"
     "                       every N seconds or ms of run time (default 1s: about\n"
     "                       one a second, deltas of the one before; 0: none;\n"
     "                       on aarch64 none unless asked)\n"},
    {"snap-max", required_argument, RECORD_O_SNAP_MAX,
     "      --snap-max SIZE  serial mode: the snapshots' disk budget (k/M/G\n"
     "                       suffixes; 0: no limit); default 1G, or half the\n"
     "                       free space of the trace's file system at the start\n"
     "                       if that is less; no more are taken once the next\n"
     "                       would pass it\n"},
    {"stuck-ms", required_argument, RECORD_O_STUCK_MS,
     "      --stuck-ms MS    serial mode: report a thread that runs this long\n"
     "                       without reaching a switch point while others wait\n"
     "                       and its stack did not change (it spins; one that\n"
     "                       computes is waited for) (default 5000)\n"},
    {"lock-events", no_argument, RECORD_O_LOCK_EVENTS,
     "      --lock-events    also write every lock event (as spool locks does),\n"
     "                       for spool report; a replay then writes them too\n"},
    {"force", no_argument, RECORD_O_FORCE,
     "      --force          exit with the program's status even when spool replay\n"
     "                       will refuse the recording (sync mode: a program\n"
     "                       with futexes of its own; threads of the program's\n"
     "                       own clone); it still says why\n"},
    {"compress", no_argument, RECORD_O_COMPRESS,
     "      --compress       compress the input data (what reads returned) with\n"
     "                       zstd: a third of the bytes for text, at some CPU\n"
     "                       while recording; a replay unpacks it when it loads\n"},
#define RECORD_NOWN_FIRST 9
    {"until-fail", required_argument, RECORD_O_UNTIL_FAIL,
     "      --until-fail N   run up to N times, keep the first failing recording\n"
     "                       (non-zero exit, killed by a signal, or --check-cmd\n"
     "                       fails);\n"
     "                       stops at once with status 5 at a recording spool\n"
     "                       replay would refuse\n"},
    {"check-cmd", required_argument, RECORD_O_CHECK,
     "      --check-cmd CMD  with --until-fail: a shell command run after each run;\n"
     "                       it fails the run when it exits non-zero. It sees\n"
     "                       SPOOL_STATUS (the program's exit status),\n"
     "                       SPOOL_OUTPUT (a file with the run's stdout) and\n"
     "                       SPOOL_TRACE (the trace directory); its shell gets\n"
     "                       SIGTERM if spool is killed\n"},
    /* the old spelling: spool path --check lists the functions never entered */
    {"check", required_argument, RECORD_O_CHECK_OLD, NULL},
    /* gdb's exec-wrapper (spool-gdb.py, set record-mode on): internal */
    {"gdb-wrapper", no_argument, RECORD_O_GDB_WRAPPER, NULL},
    {"quiet", no_argument, 'q', "  -q, --quiet          print nothing but errors\n"},
    {"help", no_argument, 'h', "  -h, --help           show this help\n"},
};

#define RECORD_NOWN (sizeof(record_own_opts) / sizeof(record_own_opts[0]))

static void record_usage(FILE *out)
{
	fprintf(out,
		"usage: spool record [OPTIONS] [--] PROGRAM [ARGS...]\n"
		"\n"
		"Run PROGRAM and record what `spool replay` needs to run it again the same\n"
		"way: the order in which its threads acquired every mutex, rwlock, spinlock,\n"
		"semaphore, condition variable and barrier, thread creation, and what its\n"
		"read-like calls, socket calls, name lookups, clocks, getrandom, getpid and\n"
		"gettid returned. It runs with address-space randomization off (personality\n"
		"ADDR_NO_RANDOMIZE), so that its replays run at the same addresses; the\n"
		"recording keeps its argv, environment, working directory, umask, limits\n"
		"and personality.\n"
		"\n"
		"options:\n");
	run_opts_own_usage(out, record_own_opts, RECORD_NOWN_FIRST);
	run_opts_usage(out, &record_run_opts);
	run_opts_own_usage(out, record_own_opts + RECORD_NOWN_FIRST,
			   RECORD_NOWN - RECORD_NOWN_FIRST);
	fprintf(out,
		"\n"
		"Exit status: the program's (128+N if signal N killed it, 127 not found, 126\n"
		"not executable); 4 if that is 0 but the trace is incomplete (events lost,\n"
		"the disk full): the summary says what is missing; 5 if that is 0 but spool\n"
		"replay will refuse the recording (the reason is printed; --force: 0).\n"
		"--until-fail: the failing run's status, 1 if only --check-cmd failed; 5 as\n"
		"soon as a run's recording would be refused; else the last run's, as above.\n"
		"\n"
		"Then: spool replay DIR.\n");
}

/* What the command line of spool record asks for, besides so and ctx. */
struct record_cli {
	struct session_opts *so;
	struct record_ctx *ctx;
	const char *check;
	uint64_t until;
	int quiet, seeded, gdb_wrapper;
};

/* The field an option without a value sets to 1; NULL for another one. */
static int *record_flag(struct record_cli *cl, int c)
{
	switch (c) {
	case RECORD_O_CHAOS:
		return &cl->ctx->chaos;
	case RECORD_O_LOCK_EVENTS:
		return &cl->ctx->lock_events;
	case RECORD_O_FORCE:
		return &cl->ctx->force;
	case RECORD_O_GDB_WRAPPER:
		return &cl->gdb_wrapper;
	}
	return NULL;
}

/* One of spool record's own options (run_opt_fn). */
/* --snap-period N (switches), Ns or Nms (run time). */
static int record_snap_period(struct record_ctx *ctx, const char *val)
{
	size_t len = strlen(val);
	char num[32];
	uint64_t v = 0, scale = 0;

	ctx->snap_set = 1;
	ctx->snap_period = ctx->snap_period_ns = 0;
	if (len > 2 && !strcmp(val + len - 2, "ms"))
		scale = 1000000, len -= 2;
	else if (len > 1 && val[len - 1] == 's')
		scale = 1000000000, len -= 1;
	if (!scale)
		return run_opts_uint("--snap-period", val, 0, UINT64_MAX / 2, &ctx->snap_period);
	if (len >= sizeof(num)) {
		log_err("--snap-period '%s': want N (switches), Ns or Nms", val);
		return -1;
	}
	memcpy(num, val, len);
	num[len] = 0;
	if (run_opts_uint("--snap-period", num, 0, 86400000, &v) < 0)
		return -1;
	ctx->snap_period_ns = v * scale;
	return 0;
}

static int record_opt(void *arg, int c, const char *val)
{
	struct record_cli *cl = arg;
	struct record_ctx *ctx = cl->ctx;
	int *flag = record_flag(cl, c);
	uint64_t v = 0;
	int rc;

	if (flag) {
		*flag = 1;
		return 0;
	}
	switch (c) {
	case RECORD_O_MODE:
		if (strcmp(val, "serial") && strcmp(val, "sync")) {
			log_err("--mode '%s': want sync or serial", val);
			return -1;
		}
		ctx->serial = !strcmp(val, "serial");
		return 0;
	case RECORD_O_SNAP_PERIOD:
		return record_snap_period(ctx, val);
	case RECORD_O_SNAP_MAX:
		if (options_parse_size(val, &ctx->snap_budget) < 0) {
			log_err("--snap-max '%s': want a size (512M, 2G; 0: no limit)", val);
			return -1;
		}
		ctx->snap_budget_set = 1;
		return 0;
	case RECORD_O_COMPRESS:
		cl->so->compress = 1;
		ctx->compress = 1;
		return 0;
	case RECORD_O_SEED:
		cl->seeded = 1;
		return run_opts_uint("--seed", val, 0, UINT64_MAX / 2, &ctx->seed);
	case RECORD_O_STUCK_MS:
		rc = run_opts_uint("--stuck-ms", val, 10, 3600000, &v);
		ctx->stuck_ms = (uint32_t)v;
		return rc;
	case RECORD_O_UNTIL_FAIL:
		return run_opts_uint("--until-fail", val, 1, 1000000, &cl->until);
	case RECORD_O_CHECK_OLD:
		run_opts_old_name("record", "--check CMD", "--check-cmd CMD",
				  "spool path --check lists the functions the run never entered");
		/* fall through */
	case RECORD_O_CHECK:
		cl->check = val;
		return 0;
	}
	return -1;
}

/* The images' budget, bytes (0: no limit): --snap-max, else the default,
 * 1 GiB or half of what the trace's file system has free for spool now,
 * the smaller (at least a byte: a full disk takes none). */
static uint64_t record_snap_budget(struct record_ctx *ctx, const char *snapdir)
{
	struct statvfs fs;
	uint64_t half;

	if (!ctx->snap_budget_set)
		ctx->snap_budget = RECORD_SNAP_MAX_DEFAULT;
	if (ctx->snap_budget_set || statvfs(snapdir, &fs) < 0)
		return ctx->snap_budget;
	half = (uint64_t)fs.f_bavail * (uint64_t)fs.f_frsize / 2;
	if (half < ctx->snap_budget)
		ctx->snap_budget = half ? half : 1;
	return ctx->snap_budget;
}

static int record_prepare(void *arg, struct shm_host *h, struct trace_writer *w)
{
	struct record_ctx *ctx = arg;
	struct rr_area *area = shm_host_ext(h, SHM_EXT_REPLAY);
	int rc;

	if (!area)
		return -EINVAL;
	rr_record_area_init(area, RECORD_MAX_OBJS, RR_MAX_THREADS);
	area->stuck_ms = ctx->stuck_ms;
	if (ctx->lock_events)
		area->opts |= RR_O_LOCK_EVENTS;
	if (ctx->compress)
		area->opts |= RR_O_PACKED;
	if (!ctx->serial) {
		/* sync mode maps no serial slots (record_once): say there are none */
		area->serial_off = 0;
		area->sw_off = 0;
	} else {
		rr_record_area_serial(area, ctx->chaos, ctx->seed);
	}
	if (ctx->serial) {
		area->snap_period = ctx->snap_period;
		area->snap_period_ns = ctx->snap_period_ns;
		area->snap_mode = ctx->snap_mode;
		if ((ctx->snap_period || ctx->snap_period_ns) && ctx->snap_mode == RR_SNAP_IMAGE) {
			char snapdir[PATH_MAX + 8];

			/* The copies write TRACE/.spool/snap/snap_<N>.zst (doc/trace-format.md). */
			if (!realpath(trace_writer_dir(w), area->trace_dir) ||
			    strlen(area->trace_dir) + 40 >= sizeof(area->trace_dir)) {
				log_warn("snapshots off: the trace directory's path is too long");
				area->snap_period = area->snap_period_ns = 0;
			} else {
				snprintf(snapdir, sizeof(snapdir), "%s/.spool/snap", area->trace_dir);
				if (mkdir(snapdir, 0700) < 0 && errno != EEXIST) {
					log_warn("snapshots off: cannot create %s: %s", snapdir,
						 strerror(errno));
					area->snap_period = area->snap_period_ns = 0;
				} else {
					area->opts |= RR_O_SNAPZ;
					area->snap_budget = record_snap_budget(ctx, snapdir);
				}
			}
		}
	}
	/* one area per process of the program (rr_tree.c) */
	rr_tree_record_init(area, RECORD_MAX_OBJS, ctx->serial, RECORD_MAX_PROCS);
	if (!ctx->serial)
		return 0;
	rc = rr_watch_start(&ctx->watch, h, area);
	if (rc == 0)
		rr_watch_tree(&ctx->watch, rr_tree_record_tree(area, RECORD_MAX_OBJS, 1),
			      RECORD_MAX_PROCS);
	return rc;
}

/* The run's stdout (--until-fail) into the trace. */
static int record_keep_output(struct record_ctx *ctx, struct trace_writer *w)
{
	FILE *f = fopen(ctx->out_path, "rb");
	char *buf = NULL;
	size_t n = 0, cap = 0, k;
	int rc;

	if (!f)
		return -errno;
	do {
		if (n + 65536 > cap) {
			char *p = realloc(buf, cap = n + 65536);

			if (!p) {
				free(buf);
				fclose(f);
				return -ENOMEM;
			}
			buf = p;
		}
		k = fread(buf + n, 1, cap - n, f);
		n += k;
	} while (k);
	fclose(f);
	rc = trace_writer_add_file(w, "output", buf ? buf : "", n);
	free(buf);
	return rc;
}

/* The name of a system call the agent records when made through syscall(). */
static const char *record_sys_name(uint32_t nr)
{
	switch (nr) {
	case SYS_read: return "read";
	case SYS_pread64: return "pread64";
	case SYS_readv: return "readv";
	case SYS_recvfrom: return "recvfrom";
	case SYS_recvmsg: return "recvmsg";
	case SYS_accept: return "accept";
	case SYS_accept4: return "accept4";
#ifdef SYS_poll
	case SYS_poll: return "poll";
#endif
#ifdef SYS_select
	case SYS_select: return "select";
#endif
#ifdef SYS_epoll_wait
	case SYS_epoll_wait: return "epoll_wait";
#endif
	case SYS_clock_gettime: return "clock_gettime";
	case SYS_gettimeofday: return "gettimeofday";
#ifdef SYS_time
	case SYS_time: return "time";
#endif
	case SYS_getrandom: return "getrandom";
	case SYS_getpid: return "getpid";
	case SYS_gettid: return "gettid";
	case SYS_nanosleep: return "nanosleep";
	case SYS_clock_nanosleep: return "clock_nanosleep";
	case SYS_write: return "write";
	case SYS_writev: return "writev";
	case SYS_sched_yield: return "sched_yield";
	case SYS_getdents64: return "getdents64";
	case SYS_readlinkat: return "readlinkat";
#ifdef SYS_readlink
	case SYS_readlink: return "readlink";
#endif
	case SYS_ppoll: return "ppoll";
	case SYS_pselect6: return "pselect6";
	case SYS_epoll_pwait: return "epoll_pwait";
	case SYS_epoll_pwait2: return "epoll_pwait2";
	case SYS_rt_sigtimedwait: return "rt_sigtimedwait";
#ifdef SYS_pause
	case SYS_pause: return "pause";
#endif
	case SYS_rt_sigsuspend: return "rt_sigsuspend";
	case SYS_socket: return "socket";
	case SYS_socketpair: return "socketpair";
	case SYS_connect: return "connect";
	case SYS_bind: return "bind";
	case SYS_listen: return "listen";
	case SYS_shutdown: return "shutdown";
	case SYS_setsockopt: return "setsockopt";
	case SYS_getsockopt: return "getsockopt";
	case SYS_getsockname: return "getsockname";
	case SYS_getpeername: return "getpeername";
	case SYS_recvmmsg: return "recvmmsg";
	case SYS_sendmmsg: return "sendmmsg";
	case SYS_sysinfo: return "sysinfo";
	case SYS_getrusage: return "getrusage";
	case SYS_times: return "times";
	}
	return "?";
}

static void record_direct(struct rr_info *info, const struct rr_area *a)
{
	size_t n = 0;

	info->direct = a->direct;
	info->own_futex = a->own_futex;
	info->direct_calls[0] = 0;
	for (int i = 0; i < 8 && a->direct_nr[i]; i++) {
		int k = snprintf(info->direct_calls + n, sizeof(info->direct_calls) - n, "%s%s",
				 i ? "," : "", record_sys_name(a->direct_nr[i] - 1));

		if (k < 0 || (size_t)k >= sizeof(info->direct_calls) - n)
			break;
		n += (size_t)k;
	}
}

/* The program's own syscall instructions (agent_rr_dispatch.c): "getrandom
 * 1, read 2" into the side file, the calls that were not recorded apart. */
static void record_raw(struct record_ctx *ctx, const struct rr_area *a)
{
	struct rr_info *info = &ctx->info;
	size_t n = 0, u = 0;
	int full = 0;

	info->raw_state = a->raw_state;
	info->raw_err = a->raw_err;
	info->raw = a->raw;
	info->raw_calls[0] = ctx->raw_unrec[0] = 0;
	for (int i = 0; i < RR_RAW_SLOTS && a->raw_nr[i]; i++) {
		long nr = (long)a->raw_nr[i] - 1;
		const char *name = rr_sys_name(nr);
		char num[32];
		int k;

		if (!name) {
			snprintf(num, sizeof(num), "syscall%ld", nr);
			name = num;
		}
		k = snprintf(info->raw_calls + n, sizeof(info->raw_calls) - n, "%s%s %llu",
			     n ? ", " : "", name, (unsigned long long)a->raw_count[i]);
		if (k > 0 && (size_t)k < sizeof(info->raw_calls) - n)
			n += (size_t)k;
		if (rr_sys_recorded(nr) || full)
			continue;
		/* Whole names only, room kept for ", ...": a name cut short
		 * read as another call (restic's "..., ioctl, n ran
		 * unrecorded", newfstatat's first letter). */
		k = snprintf(ctx->raw_unrec + u, sizeof(ctx->raw_unrec) - u, "%s%s", u ? ", " : "",
			     name);
		if (k > 0 && (size_t)k + 6 < sizeof(ctx->raw_unrec) - u) {
			u += (size_t)k;
		} else {
			snprintf(ctx->raw_unrec + u, sizeof(ctx->raw_unrec) - u, "%s...",
				 u ? ", " : "");
			full = 1;
		}
	}
	if (a->raw_other && n + 40 < sizeof(info->raw_calls))
		snprintf(info->raw_calls + n, sizeof(info->raw_calls) - n, "%sothers %llu",
			 n ? ", " : "", (unsigned long long)a->raw_other);
	if (a->raw_other && !u)
		snprintf(ctx->raw_unrec, sizeof(ctx->raw_unrec), "others");
}

/* The other processes of the program (rr_tree.c): their flags, losses and
 * switches count with the first one's; the first report found is kept,
 * naming its process. */
static void record_tree(struct record_ctx *ctx, void *ext)
{
	uint32_t wanted, n = rr_tree_record_procs(ext, RECORD_MAX_OBJS, ctx->serial,
						   RECORD_MAX_PROCS, &wanted);

	rr_tree_record_info(ext, RECORD_MAX_OBJS, ctx->serial, n, &ctx->info);
	ctx->procs_wanted = wanted;
	for (uint32_t k = 1; k < n; k++) {
		struct rr_area *a = rr_tree_record_area(ext, RECORD_MAX_OBJS, ctx->serial, k);
		size_t len;

		ctx->info.flags |= __atomic_load_n(&a->flags, __ATOMIC_ACQUIRE);
		ctx->info.lost += a->lost;
		ctx->info.switches += a->switches;
		if (ctx->info.report[0] || !a->report[0])
			continue;
		len = strnlen(a->report, sizeof(a->report) - 1);
		snprintf(ctx->info.report, sizeof(ctx->info.report), "process %u (pid %d): %.*s", k,
			 (int)ctx->info.procs[k].pid, (int)len, a->report);
	}
	if (wanted > n) {
		ctx->info.flags |= RR_F_FORKED;
		if (!ctx->info.report[0])
			snprintf(ctx->info.report, sizeof(ctx->info.report),
				 "%u processes were not recorded (a recording holds %u)", wanted - n,
				 n);
	}
}

/* info.exe and info.buildid of a tree: the image exec made of the file
 * spool ran (a #! script's interpreter), the one a replay starts and
 * checks (replay_check_binary). A pyenv shim (`#!/usr/bin/env bash`, which
 * execs python3.11) was recorded as the script with no build id, or as the
 * last image python3.11, and every replay was refused ("refusing to
 * replay a different binary"). */
static void record_first_image(struct record_ctx *ctx)
{
	char img[PATH_MAX];

	if (target_image(ctx->res->path, img, sizeof(img)) < 0 ||
	    !realpath(img, ctx->info.exe))
		snprintf(ctx->info.exe, sizeof(ctx->info.exe), "%s", ctx->res->path);
	if (buildid_read(ctx->info.exe, ctx->info.buildid, sizeof(ctx->info.buildid)) < 0)
		ctx->info.buildid[0] = 0;
}

/* The side file "argv": the command line spool ran, NUL-separated. */
static int record_save_argv(struct record_ctx *ctx, struct trace_writer *w)
{
	size_t len = 0, n;
	char *buf;
	int rc;

	for (char *const *a = ctx->argv; *a; a++)
		len += strlen(*a) + 1;
	buf = malloc(len ? len : 1);
	if (!buf)
		return -ENOMEM;
	len = 0;
	for (char *const *a = ctx->argv; *a; a++) {
		n = strlen(*a) + 1;
		memcpy(buf + len, *a, n);
		len += n;
	}
	rc = trace_writer_add_file(w, "argv", buf, len);
	free(buf);
	return rc;
}

/* The page hashes the snapshots' copies pass on (snap_<N>.pgh, and .pgt
 * of a copy killed writing one) are of no use once the recording ended:
 * removed (doc/trace-format.md "Snapshots"). The program's exit waited for
 * its copies. */
static void record_snap_tidy(const char *trace_dir)
{
	struct dirent *d;
	DIR *dp;

	if (rr_snap_opendir(trace_dir, &dp) < 0 || !dp)
		return;
	while ((d = readdir(dp))) {
		size_t len = strlen(d->d_name);

		if (!strncmp(d->d_name, "snap_", 5) && len > 4 &&
		    (!strcmp(d->d_name + len - 4, ".pgh") || !strcmp(d->d_name + len - 4, ".pgt")))
			unlinkat(dirfd(dp), d->d_name, 0);
	}
	closedir(dp);
}

/* After the last drain: say what was recorded, in the "record" side file. */
static int record_finish(void *arg, struct shm_host *h, struct trace_writer *w)
{
	struct record_ctx *ctx = arg;
	struct rr_area *a = shm_host_ext(h, SHM_EXT_REPLAY);
	struct shm_proc *p;
	size_t n;

	if (!a)
		return -EINVAL;
	rr_watch_stop(&ctx->watch);
	if (a->snap_taken)
		record_snap_tidy(trace_writer_dir(w));
	snprintf(ctx->info.mode, sizeof(ctx->info.mode), ctx->serial ? "serial" : "sync");
	ctx->info.chaos = ctx->chaos;
	ctx->info.seed = ctx->seed;
	ctx->info.lock_events = ctx->lock_events;
	ctx->info.compress = ctx->compress;
	ctx->info.snapz = !!(a->opts & RR_O_SNAPZ);
	ctx->info.switches = a->switches;
	ctx->snap_taken = a->snap_taken;
	ctx->snap_skipped = a->snap_skipped;
	ctx->snap_ns = a->snap_ns;
	ctx->snap_ns_max = a->snap_ns_max;
	ctx->snap_written = a->snap_written;
	ctx->snap_failed = a->snap_failed;
	ctx->snap_err = __atomic_load_n(&a->snap_err, __ATOMIC_RELAXED);
	/* (the program can write these: they are only printed) */
	ctx->snap_full = !!__atomic_load_n(&a->snap_full, __ATOMIC_ACQUIRE) && a->snap_budget;
	ctx->snap_over = a->snap_over;
	ctx->snap_bytes = a->snap_bytes;
	if (ctx->info.snapz && a->snap_budget) {
		ctx->info.snap_budget = a->snap_budget;
		ctx->info.snap_bytes = ctx->snap_bytes;
		ctx->info.snap_stopped = ctx->snap_full;
		ctx->info.snap_kept = a->snap_written;
		ctx->info.snap_removed = ctx->snap_over;
		ctx->info.snap_taken = a->snap_taken;
	}
	ctx->switches0 = a->switches;
	if (ctx->out_path && record_keep_output(ctx, w) < 0)
		log_warn("cannot keep the run's output in the trace");
	ctx->info.flags = __atomic_load_n(&a->flags, __ATOMIC_ACQUIRE);
	ctx->info.lost = a->lost;
	/* (the program can write the count: it can only get its own
	 * recording refused) */
	ctx->info.clones = __atomic_load_n(&h->ctl->raw_clones, __ATOMIC_RELAXED);
	ctx->unseen_clones = __atomic_load_n(&h->ctl->unseen_clones, __ATOMIC_RELAXED);
	if (ctx->unseen_clones > ctx->info.clones)
		ctx->unseen_clones = ctx->info.clones;
	record_direct(&ctx->info, a);
	record_raw(ctx, a);
	n = strnlen(a->report, sizeof(a->report) - 1);
	memcpy(ctx->info.report, a->report, n);
	ctx->info.report[n] = 0;
	record_tree(ctx, a);
	if (h->ctl->nprocs && ctx->info.nprocs > 1 &&
	    (int32_t)__atomic_load_n(&shm_proc_at(h->ctl, 0)->pid, __ATOMIC_ACQUIRE) !=
		ctx->info.procs[0].pid) {
		/* A tree whose first process exec'd: its slot was given to a
		 * later process. Its pid is the tree's; its binary is the one
		 * spool ran (record_first_image below). */
		ctx->info.pid = (uint32_t)ctx->info.procs[0].pid;
		record_first_image(ctx);
	} else if (h->ctl->nprocs) {
		p = shm_proc_at(h->ctl, 0);
		ctx->info.pid = __atomic_load_n(&p->pid, __ATOMIC_ACQUIRE);
		/* Read once, then bounded: the program can rewrite its slot. */
		n = __atomic_load_n(&p->exe_len, __ATOMIC_RELAXED);
		if (n > sizeof(p->exe) - 1)
			n = sizeof(p->exe) - 1;
		memcpy(ctx->info.exe, p->exe, n);
		ctx->info.exe[n] = 0;
		if (buildid_read(ctx->info.exe, ctx->info.buildid, sizeof(ctx->info.buildid)) < 0)
			ctx->info.buildid[0] = 0;
		if (!ctx->scanned && rr_scan_exe(ctx->info.exe, &ctx->scan) == 0)
			ctx->scanned = 1;
		/* slot 0 of a tree may be a later image of the first process
		 * (its exec took the slot back): not what a replay starts */
		if (ctx->info.nprocs > 1)
			record_first_image(ctx);
	}
	/* the file run and what it ran with, as it really was: the
	 * personality read back after setting it */
	snprintf(ctx->info.path, sizeof(ctx->info.path), "%s", ctx->res->path);
	ctx->info.ident = ctx->ident;
	ctx->info.ident.persona = ctx->res->persona;
	ctx->info.ident.aslr_err = ctx->res->persona_err;
	ctx->info.ident.aslr = !run_ident_fixed_layout(ctx->res->persona);
	for (int i = 0; i < RR_LAYOUT_N; i++)
		ctx->info.layout[i] = a->layout[i];
	/* (the agent's counts are untrusted like the rest of the area) */
	ctx->info.early_n = a->early_n < RR_EARLY_MAX ? a->early_n : RR_EARLY_MAX;
	for (uint32_t i = 0; i < ctx->info.early_n; i++) {
		ctx->info.early_clk[i] = a->early_clk[i];
		ctx->info.early_ns[i] = a->early_ns[i];
	}
	/* the reads and getrandom calls before the agent started: kept when
	 * there were some and what the agent left is well formed */
	{
		struct rr_early_io *e = malloc(sizeof(*e));

		if (e) {
			memcpy(e, &a->eio, sizeof(*e));
			if ((e->n || e->full) && rr_early_io_valid(e) &&
			    trace_writer_add_file(w, "early_io", e, sizeof(*e)) < 0)
				log_warn("cannot keep the reads made before the agent started: a "
					 "replay makes them again");
			if (e->full)
				log_warn("%u reads made before the agent started did not fit in "
					 "the recording: a replay makes them again",
					 e->full);
			free(e);
		}
	}
	ctx->info.stack_bytes = ctx->res->stack_bytes;
	ctx->info.stack_items = ctx->res->stack_items;
	/* A tree: the first process's command line as spool ran it (its
	 * proc/PID.cmdline is the last image's when it exec'd). */
	if (ctx->info.nprocs > 1 && record_save_argv(ctx, w) < 0)
		log_warn("cannot keep the command line in the trace");
	if (run_env_save(w) < 0)
		log_warn("cannot keep the program's environment in the trace: a replay runs it with "
			 "its own");
	return rr_info_write(w, &ctx->info);
}

/* One recorded run. Returns what session_run returned; fills res. */
static int record_once(struct session_opts *so, struct record_ctx *ctx,
		       struct session_result *res)
{
	int rc;

	memset(&ctx->info, 0, sizeof(ctx->info));
	ctx->trace_dir = so->trace_dir;
	so->features = SHM_FEAT_LOCKS | SHM_FEAT_RECORD;
	/* The serial slots (8 MiB of address space for RR_MAX_THREADS numbers)
	 * only in serial mode: sync mode never reads them, and the program's
	 * RLIMIT_AS pays for every mapped byte (doc/record.md "Address space"). */
	so->ext_bytes[SHM_EXT_REPLAY] =
	    rr_tree_record_size(RECORD_MAX_OBJS, ctx->serial, RECORD_MAX_PROCS);
	so->prepare = record_prepare;
	so->finish = record_finish;
	so->hook_arg = ctx;
	ctx->res = res;
	/* address-space randomization off, spool's umask and limits: the
	 * recording notes them for its replays (run_ident.h) */
	run_ident_for_record(&ctx->ident);
	so->ident = &ctx->ident;
	so->stack_record = 1;
	ctx->max_rings = so->max_rings;
	ctx->argv = so->argv;
	ctx->info.shm_fd = session_shm_fd(so);
	ctx->info.kills = 1; /* the agent records the program's signal sends */
	/* sync mode: the agent orders the descriptor calls (RR_OP_FDTAB) */
	ctx->info.fdtab = !ctx->serial;
	/* serial progress: function entries, not exits (chaos counts both) */
	ctx->info.entries_only = !ctx->chaos;
	/* What the program writes to: a replay gives it the same kinds. */
	for (int i = 0; i < 2; i++)
		snprintf(ctx->info.out_kind[i], sizeof(ctx->info.out_kind[i]), "%s",
			 stdio_kind_name(stdio_kind_of(i + 1, &ctx->info.out_off[i])));
	/* ... and the same working directory (its environment: run_env_save). */
	if (!getcwd(ctx->info.cwd, sizeof(ctx->info.cwd)))
		ctx->info.cwd[0] = 0;
	if (stdio_kind_parse(ctx->info.out_kind[0]) != STDIO_KIND_UNKNOWN &&
	    stdio_same_file(1, 2)) {
		strcpy(ctx->info.out_kind[1], "stdout");
		ctx->info.out_off[1] = 0;
	}
	if (ctx->in) {
		rc = stdin_cap_run_begin(ctx->in);
		if (rc < 0) {
			log_err("cannot give the program its stdin: %s", strerror(-rc));
			return rc;
		}
	}
	/* What the program inherits besides 0-2 and the region: a replay
	 * spool sets up itself (--gdbserver) gives it the same (rr_fds.h). */
	rr_fds_inherited(-1, ctx->info.fds, sizeof(ctx->info.fds));
	rc = session_run(so, res);
	rr_watch_stop(&ctx->watch);
	if (ctx->in) {
		int e = stdin_cap_run_end(ctx->in);

		if (e < 0)
			log_warn("stdin: %s (the recording keeps what was read before)",
				 strerror(-e));
		if (rc == 0 && (e = stdin_cap_save(ctx->in, so->trace_dir)) < 0)
			log_warn("cannot keep stdin in %s: %s; a replay reads its own stdin",
				 so->trace_dir, strerror(-e));
	}
	return rc;
}

/* 48210 -> "48,210" */
static const char *record_group(uint64_t v, char *buf, size_t len)
{
	char tmp[32];
	int n = snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)v), k = 0;

	for (int i = 0; i < n && (size_t)k + 2 < len; i++) {
		if (i && (n - i) % 3 == 0)
			buf[k++] = ',';
		buf[k++] = tmp[i];
	}
	buf[k] = 0;
	return buf;
}

/* The recording's schedule events: serial mode, the switches of the run
 * token; sync mode, the synchronization events, which the collector
 * counted (reading them back from the trace took a second for rr_bank's
 * 4.6M events). */
static uint64_t record_sched_events(const struct record_ctx *ctx, const struct session_result *res)
{
	return ctx->serial ? ctx->info.switches : res->st.sched_events;
}

static void record_say(const struct session_opts *so, const struct record_ctx *ctx,
		       const struct session_result *res, int quiet)
{
	const struct rr_info *i = &ctx->info;
	uint64_t lost = trace_loss_events(&res->loss);

	if (i->ident.aslr)
		log_warn("the program ran with address-space randomization (%s%s): its heap, "
			 "mappings and stack will be elsewhere in a replay, and a program that "
			 "keeps pointers in what it reads (epoll_event.data, addresses sent "
			 "through a pipe) may not replay (doc/record.md, \"Address-space "
			 "layout\")",
			 i->ident.aslr_err ? "personality ADDR_NO_RANDOMIZE refused: "
					   : "personality ADDR_NO_RANDOMIZE not in effect",
			 i->ident.aslr_err ? strerror(i->ident.aslr_err) : "");
	if (i->flags & (RR_F_FORKED | RR_F_EXEC))
		log_warn("the program started more processes than spool record can record (%u, "
			 "at most %u): those run unrecorded, and spool replay refuses this recording",
			 ctx->procs_wanted, RECORD_MAX_PROCS);
	if (i->flags & RR_F_LOST || lost)
		log_warn("the recording is incomplete (%s): spool replay will refuse it",
			 i->report[0] ? i->report : "events were lost");
	trace_loss_warn(so->trace_dir, &res->loss);
	if (i->clones && (i->flags & RR_F_CLONE_STOP) && ctx->unseen_clones)
		log_err("spool record does not number the threads the program made with its own "
			"clone (%" PRIu32 ", of which %" PRIu32 " not seen being made: found "
			"running on its creator's thread state, where syscall user dispatch did "
			"not reach its clone system call; more may have run unseen): the "
			"recording stopped there and the program ran on unrecorded, so spool "
			"replay refuses this recording (doc/record.md, \"What is not captured\"; "
			"--force: keep the program's exit status)",
			i->clones, ctx->unseen_clones);
	else if (i->clones && (i->flags & RR_F_CLONE_STOP))
		log_err("spool record does not number the threads the program made with its own "
			"clone (%" PRIu32 "): the recording stopped where the first one was made "
			"and the program ran on unrecorded, so spool replay refuses this "
			"recording (doc/record.md, \"What is not captured\"; --force: keep the "
			"program's exit status)",
			i->clones);
	else if (i->clones)
		log_err("spool record does not number the threads the program made with its own "
			"clone (%" PRIu32 "): their calls were recorded as their creator's, so "
			"spool replay refuses this recording (doc/record.md, \"What is not "
			"captured\"; --force: keep the program's exit status)",
			i->clones);
	if (i->flags & RR_F_UNTRACKED)
		log_warn("a thread spool could not number made recorded calls (too many threads "
			 "created at once?): replay may diverge");
	if (i->flags & RR_F_CANCEL_UNSEEN)
		log_warn("a thread was cancelled (pthread_cancel) at a cancellation point spool "
			 "does not record (sync mode): a replay may cancel it elsewhere and "
			 "diverge; record in serial mode (doc/record.md, \"What is not captured\")");
	if (i->direct)
		log_warn("the program made %llu input system call%s through syscall() (%s): "
			 "recorded like the named calls (doc/record.md)",
			 (unsigned long long)i->direct, i->direct == 1 ? "" : "s", i->direct_calls);
	if (i->own_futex && !ctx->force)
		log_err("sync mode cannot replay this program: it made %llu futex call%s of its "
			"own (through syscall() or its own syscall instruction: GLib's, "
			"libgomp's, Rust's or abseil's locks), which sync mode does not order, so "
			"spool replay refuses this recording; record it in serial mode (the "
			"default), which records them (--force: keep the program's exit status)",
			(unsigned long long)i->own_futex, i->own_futex == 1 ? "" : "s");
	else if (i->own_futex)
		log_warn("the program made %llu futex call%s of its own (through syscall() or "
			 "its own syscall instruction: GLib's, libgomp's, Rust's or abseil's "
			 "locks): sync mode does not order them, and spool replay refuses this "
			 "recording; serial mode records them",
			 (unsigned long long)i->own_futex, i->own_futex == 1 ? "" : "s");
	if (i->raw && !ctx->raw_unrec[0])
		log_warn("the program made %llu system call%s with its own syscall instruction "
			 "(%s): recorded like the named calls",
			 (unsigned long long)i->raw, i->raw == 1 ? "" : "s", i->raw_calls);
	else if (i->raw)
		log_warn("the program made %llu system call%s with its own syscall instruction "
			 "(%s): the input calls among them are recorded like the named calls; "
			 "%s ran unrecorded and run again in a replay",
			 (unsigned long long)i->raw, i->raw == 1 ? "" : "s", i->raw_calls,
			 ctx->raw_unrec);
	if (ctx->scanned && ctx->scan.n[RR_SCAN_SYSCALL] && i->raw_state == RR_RAW_FAILED)
		log_warn("syscall user dispatch is not available (%s): the program's own system "
			 "call instructions are not seen and their inputs not recorded, and a thread "
			 "one of them makes (a clone) is not seen being made: spool finds it when "
			 "it first takes part in a switch of the run token (serial mode) or first "
			 "enters spool on a stack other than its creator's, or among its recorded "
			 "calls (sync mode: a call from a new frame address, and 1 in 32, asks), then "
			 "counts it and stops the recording; "
			 "until then its calls are recorded as its creator's (%u in the executable: "
			 "%s)",
			 strerror(i->raw_err), ctx->scan.n[RR_SCAN_SYSCALL], ctx->scan.where[RR_SCAN_SYSCALL]);
#if defined(__x86_64__)
	/* (raw_state: the agent got as far as its set-up) */
	if (i->raw_state != RR_RAW_UNKNOWN && !(i->flags & RR_F_CPUID))
		log_warn("CPUID faulting is not available here: the program's cpuid instructions "
			 "are not recorded and rdrand and rdseed are not hidden from it, so a replay "
			 "may differ where it uses them (doc/record.md \"The CPU's own inputs\")");
#endif
	if (ctx->scanned && ctx->scan.n[RR_SCAN_TSC])
		log_warn("the program reads the time stamp counter itself (%u in the "
			 "executable: %s): those values are not recorded, a replay reads new ones",
			 ctx->scan.n[RR_SCAN_TSC], ctx->scan.where[RR_SCAN_TSC]);
	if (i->flags & RR_F_SEV_STOP)
		log_err("spool record stopped: %s; spool replay refuses this recording (--force: "
			"keep the program's exit status)",
			i->report[0] ? i->report : "a SIGEV_THREAD timer's function took a lock");
	else if (i->flags & RR_F_STOP)
		log_err("%s", i->report[0]
				  ? i->report
				  : "the recording was stopped without a reason (the program "
				    "may have written over spool's shared memory)");
	else if (res->term_signal && res->term_signal != SIGSEGV && res->term_signal != SIGBUS &&
		 res->term_signal != SIGFPE && res->term_signal != SIGILL &&
		 res->term_signal != SIGABRT && res->term_signal != SIGTRAP &&
		 res->term_signal != SIGSYS)
		log_warn("the program was killed by signal %d: the recording ends there, and "
			 "spool replay replays it up to that point",
			 res->term_signal);
	if (quiet)
		return;
	{
		char n[32], procs[48] = "", every[64];

		/* a process tree: each process has its own recording */
		if (i->nprocs > 1)
			snprintf(procs, sizeof(procs), "%u processes, ", i->nprocs);
		if (ctx->serial)
			log_info("recorded %s (serial mode%s, seed %llu), %s%u thread%s, %s schedule "
				 "events (switches), trace in %s/",
				 so->argv[0], ctx->chaos ? ", chaos" : "",
				 (unsigned long long)ctx->seed, procs, res->st.threads,
				 res->st.threads == 1 ? "" : "s", record_group(i->switches, n, sizeof(n)), so->trace_dir);
		else
			log_info("recorded %s (sync mode), %s%u thread%s, %s schedule events, trace "
				 "in %s/",
				 so->argv[0], procs, res->st.threads, res->st.threads == 1 ? "" : "s",
				 record_group(record_sched_events(ctx, res), n, sizeof(n)),
				 so->trace_dir);
		if (ctx->serial && ctx->snap_period_ns) {
			snprintf(every, sizeof(every), "every %.3g s of run time",
				 (double)ctx->snap_period_ns / 1e9);
		} else {
			snprintf(every, sizeof(every), "every %llu switches",
				 (unsigned long long)ctx->snap_period);
		}
		if (ctx->serial && (ctx->snap_period || ctx->snap_period_ns) &&
		    (ctx->snap_set || ctx->snap_taken))
			log_info("%llu snapshot%s (%s), pause %.3f ms on average, "
				 "%.3f ms at most; %llu due when a thread was not parked (tried "
				 "again at a later switch)",
				 (unsigned long long)ctx->snap_taken, ctx->snap_taken == 1 ? "" : "s",
				 every,
				 ctx->snap_taken ? (double)ctx->snap_ns / (double)ctx->snap_taken / 1e6
						 : 0.0,
				 (double)ctx->snap_ns_max / 1e6, (unsigned long long)ctx->snap_skipped);
		if (ctx->serial && ctx->snap_full) {
			char line[160];

			rr_snap_stopped_fmt(line, sizeof(line), ctx->snap_written, ctx->snap_budget);
			log_info("%s", line);
			/* copies writing at once: the later to reserve its bytes
			 * lost its image (counted: never a loss unsaid) */
			if (ctx->snap_over) {
				rr_snap_removed_fmt(line, sizeof(line), ctx->snap_over,
						    ctx->snap_taken);
				log_info("%s", line);
			}
		}
		/* Switches enough, none taken, none put off: every switch was
		 * one where a thread blocks (mosquitto_pub -l: its loop thread
		 * in select), which tries none (doc/record.md, Snapshots). */
		if (ctx->serial && ctx->snap_set && ctx->snap_period && !ctx->snap_period_ns &&
		    !ctx->snap_taken && !ctx->snap_skipped && ctx->snap_failed < RR_SNAP_OFF_PAC &&
		    i->nprocs > 1 && i->switches >= ctx->snap_period) {
			/* A process tree: only the first process takes snapshots
			 * (the others' areas ask for none; --goto replays one
			 * process); apache2's threads are in its fork child. */
			char n0[32];

			log_info("no snapshot: only the first process of a tree takes them, "
				 "and %s of the %s switches were in the other %u process%s "
				 "(%s in the first)",
				 record_group(i->switches - (ctx->switches0 < i->switches
								 ? ctx->switches0
								 : i->switches),
					      n, sizeof(n)),
				 record_group(i->switches, n0, sizeof(n0)), i->nprocs - 1,
				 i->nprocs == 2 ? "" : "es", record_group(ctx->switches0, every, sizeof(every)));
		} else if (ctx->serial && ctx->snap_set && ctx->snap_period && !ctx->snap_period_ns &&
		    !ctx->snap_taken && !ctx->snap_skipped && ctx->snap_failed < RR_SNAP_OFF_PAC &&
		    i->switches >= ctx->snap_period)
			log_info("no snapshot: none of the %s switches came where one is tried, "
				 "a running thread handing the token over (its slice over, a wait "
				 "on a lock or a condition); a thread blocking in the kernel (a "
				 "read, a poll) takes none",
				 record_group(i->switches, n, sizeof(n)));
		if (ctx->serial && (ctx->snap_period || ctx->snap_period_ns) &&
		    ctx->snap_failed == RR_SNAP_OFF_PAC)
			log_warn("no snapshots: the program signs its return addresses (pointer "
				 "authentication) with keys a replay cannot have: spool replay "
				 "--goto could not restore one (doc/arm64.md, Snapshots)");
		else if (ctx->serial && (ctx->snap_period || ctx->snap_period_ns) &&
			 ctx->snap_mode == RR_SNAP_IMAGE) {
			if (ctx->snap_failed == RR_SNAP_OFF_ZSTD)
				log_warn("no snapshot images: libzstd could not be loaded into the "
					 "program");
			else if (ctx->snap_failed)
				log_warn("%llu snapshot image%s could not be written (%s%s); "
					 "%llu written",
					 (unsigned long long)ctx->snap_failed,
					 ctx->snap_failed == 1 ? "" : "s",
					 ctx->snap_err > 0 ? strerror(ctx->snap_err) : "disk full?",
					 ctx->snap_err == EACCES || ctx->snap_err == EPERM
						 ? ": the program changed its user or group (setuid), "
						   "and a snapshot's copy runs as the program: it "
						   "cannot write into the trace directory, which only "
						   "spool's user may write"
						 : "",
					 (unsigned long long)ctx->snap_written);
		}
	}
}

/* system(cmd), except that the shell ends when spool does (killed in the
 * middle of a --until-fail loop: the check must not run on by itself). As
 * system(), SIGINT and SIGQUIT reach the command, not spool, while it runs. */
static int record_run_check(const char *cmd)
{
	struct sigaction ign = {.sa_handler = SIG_IGN}, oint, oquit;
	pid_t self = getpid(), pid, w;
	int status = -1, e = 0;

	sigemptyset(&ign.sa_mask);
	sigaction(SIGINT, &ign, &oint);
	sigaction(SIGQUIT, &ign, &oquit);
	pid = fork();
	if (pid == 0) {
		sigaction(SIGINT, &oint, NULL);
		sigaction(SIGQUIT, &oquit, NULL);
		pdeath_arm(self, SIGTERM);
		execl("/bin/sh", "sh", "-c", "--", cmd, (char *)NULL);
		_exit(127);
	}
	if (pid < 0)
		e = errno;
	while (pid > 0 && (w = waitpid(pid, &status, 0)) != pid) {
		if (w < 0 && errno != EINTR) {
			e = errno;
			status = -1;
			break;
		}
	}
	sigaction(SIGINT, &oint, NULL);
	sigaction(SIGQUIT, &oquit, NULL);
	errno = e;
	return pid < 0 ? -1 : status;
}

/* --check-cmd: run the user's command; 1 when it says the run failed. */
static int record_check_fails(const char *cmd, int status, const char *dir, const char *out)
{
	char buf[32];
	int rc;

	snprintf(buf, sizeof(buf), "%d", status);
	setenv("SPOOL_STATUS", buf, 1);
	setenv("SPOOL_TRACE", dir, 1);
	setenv("SPOOL_OUTPUT", out, 1);
	fflush(NULL);
	rc = record_run_check(cmd);
	unsetenv("SPOOL_STATUS");
	unsetenv("SPOOL_TRACE");
	unsetenv("SPOOL_OUTPUT");
	if (rc == -1) {
		log_err("cannot run --check-cmd command: %s", strerror(errno));
		return -1;
	}
	return !WIFEXITED(rc) || WEXITSTATUS(rc) != 0;
}

/* Copy a file to stdout (the failing run's output). */
static void record_cat(const char *path)
{
	FILE *f = fopen(path, "rb");
	char buf[65536];
	size_t n;

	if (!f)
		return;
	fflush(stdout);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		if (fwrite(buf, 1, n, stdout) != n)
			break;
	fflush(stdout);
	fclose(f);
}

static uint64_t record_new_seed(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ((uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^ ((uint64_t)getpid() << 40)) %
		       1000000000ull +
	       1;
}

/* Whether spool replay will refuse this recording as a whole (it says the
 * same, cmd/replay.c, rr_refuse.c): sync mode and futexes of the program's
 * own; threads of the program's own clone. */
static int record_refused(const struct record_ctx *ctx)
{
	return !ctx->force && ((!ctx->serial && ctx->info.own_futex) || ctx->info.clones ||
			       (ctx->info.flags & RR_F_SEV_STOP));
}

/* The exit status of a run whose program exited with status rc (0 or its
 * own): a recording spool replay refuses is EXIT_REFUSED, one with
 * processes that ran unrecorded EXIT_INCOMPLETE; the program's failure
 * comes first. The same for one run and for --until-fail. */
static int record_status(const struct record_ctx *ctx, int rc)
{
	/* processes that ran unrecorded: the recording is incomplete */
	if (rc == 0 && (ctx->info.flags & (RR_F_FORKED | RR_F_EXEC)))
		rc = EXIT_INCOMPLETE;
	/* a whole recording that spool replay refuses (cmd/replay.c says the
	 * same at replay): said now, where the user can record again */
	if (rc == 0 && record_refused(ctx))
		rc = EXIT_REFUSED;
	return rc;
}

/*
 * --until-fail: up to `until` runs, stdout of each into a file. Exit
 * status: a failing run's (the program's, or 1 for --check-cmd), kept; no
 * failure: as one run (record_status: 0, EXIT_INCOMPLETE, EXIT_REFUSED).
 * A run spool replay would refuse stops the loop at once with
 * EXIT_REFUSED, failing or not: every run of that program would be
 * refused, and a kept failure nobody can replay is no result.
 */
static int record_until_fail(struct session_opts *so, struct record_ctx *ctx, uint64_t until,
			     const char *check, int seeded, int quiet)
{
	struct session_result res;
	char out[] = "/tmp/spool-output.XXXXXX";
	int saved, fd, rc, ret = 0;
	uint64_t base = ctx->seed;

	memset(&res, 0, sizeof(res));
	/* A name nobody could have chosen before us (O_EXCL, 0600): a
	 * predictable one in /tmp was opened through whatever link another
	 * user planted there. */
	fd = mkostemp(out, O_CLOEXEC);
	if (fd < 0) {
		log_err("%s: %s", out, strerror(errno));
		return 1;
	}
	saved = dup(STDOUT_FILENO);
	if (saved < 0) {
		log_err("dup: %s", strerror(errno));
		close(fd);
		unlink(out);
		return 1;
	}
	ctx->out_path = out;
	for (uint64_t run = 1; run <= until; run++) {
		int failed;

		fflush(stdout);
		if (ftruncate(fd, 0) < 0 || lseek(fd, 0, SEEK_SET) < 0 ||
		    dup2(fd, STDOUT_FILENO) < 0) {
			log_err("%s: %s", out, strerror(errno));
			ret = 1;
			break;
		}
		/* A new seed per run: run k of seed S is seed S + k - 1. */
		ctx->seed = seeded ? base + run - 1 : record_new_seed();
		so->quiet = 1; /* DIR.old churn is expected here */
		rc = record_once(so, ctx, &res);
		dup2(saved, STDOUT_FILENO);
		if (rc < 0) {
			ret = cmd_start_status(rc);
			break;
		}
		if (record_refused(ctx)) {
			record_say(so, ctx, &res, 1); /* (says why) */
			log_info("run %llu: spool replay refuses this recording; no more runs "
				 "(the last is in %s/)",
				 (unsigned long long)run, so->trace_dir);
			ret = EXIT_REFUSED;
			goto out;
		}
		failed = res.exit_status != 0;
		if (!failed && check) {
			failed = record_check_fails(check, res.exit_status, so->trace_dir, out);
			if (failed < 0) {
				ret = 1;
				break;
			}
		}
		if (!failed)
			continue;
		record_cat(out);
		record_say(so, ctx, &res, 1);
		{
			char what[64], seed[64] = "", n[32];

			if (res.term_signal)
				snprintf(what, sizeof(what), "killed by signal %d", res.term_signal);
			else if (res.exit_status)
				snprintf(what, sizeof(what), "exit %d", res.exit_status);
			else
				snprintf(what, sizeof(what), "--check-cmd");
			if (ctx->serial && ctx->chaos)
				snprintf(seed, sizeof(seed), ", chaos seed %llu",
					 (unsigned long long)ctx->seed);
			log_info("run %llu failed (%s), recording kept in %s/ (%u thread%s, %s "
				 "schedule events%s)",
				 (unsigned long long)run, what, so->trace_dir, res.st.threads,
				 res.st.threads == 1 ? "" : "s", record_group(record_sched_events(ctx, &res), n, sizeof(n)), seed);
		}
		ret = res.exit_status ? res.exit_status : 1;
		goto out;
	}
	if (!ret) {
		log_info("no failure in %llu runs; the last recording is in %s/",
			 (unsigned long long)until, so->trace_dir);
		/* the one kept must say if it is incomplete, like a single run */
		record_say(so, ctx, &res, 1);
		ret = record_status(ctx, cmd_run_status(&res));
	}
out:
	unlink(out);
	close(fd);
	close(saved);
	ctx->out_path = NULL;
	(void)quiet;
	return ret;
}

int cmd_record(int argc, char **argv)
{
	struct session_opts so = {
		.trace_dir = "spool.trace",
		.ring_bytes = SHM_DEFAULT_RING_BYTES,
		.max_rings = SHM_DEFAULT_MAX_RINGS,
	};
	struct record_ctx ctx = {.serial = 1, .stuck_ms = 5000};
	struct record_cli cl = {.so = &so, .ctx = &ctx};
	struct session_result res;
	struct stdin_cap in;
	int rc;

	rc = run_opts_parse("record", argc, argv, record_own_opts, RECORD_NOWN, &record_run_opts,
			    &so, record_opt, &cl);
	if (rc)
		return rc < 0 ? EXIT_USAGE : 0;
	/* (kept: record_until_fail silences so's own runs) */
	cl.quiet = so.quiet;
	if (optind >= argc) {
		log_err("no program to run (usage: spool record [OPTIONS] -- PROGRAM [ARGS])");
		return EXIT_USAGE;
	}
	if (cl.check && !cl.until) {
		log_err("--check-cmd goes with --until-fail N");
		return EXIT_USAGE;
	}
	if ((ctx.snap_period || ctx.snap_period_ns) && !ctx.serial) {
		log_err("--snap-period goes with --mode serial (snapshots need every thread "
			"parked at a switch point)");
		return EXIT_USAGE;
	}
	/* (a budget for snapshots sync mode never takes: said, not ignored) */
	if (ctx.snap_budget_set && !ctx.serial) {
		log_err("--snap-max goes with --mode serial (sync mode takes no snapshots: "
			"no point has every thread parked at a switch point)");
		return EXIT_USAGE;
	}
#if defined(__x86_64__)
	/* serial mode: about one snapshot a second unless told otherwise
	 * (each a delta of the one before, doc/record.md "Snapshots"). Not
	 * by default on aarch64 (doc/arm64.md, "Snapshots"): under qemu-user
	 * the copies are SIGCHLD children a program's wait() could reap, and
	 * a program that signs its return addresses would be told at every
	 * recording that it gets none. */
	if (ctx.serial && !ctx.snap_set)
		ctx.snap_period_ns = RECORD_SNAP_DEFAULT_NS;
#endif
	/* A test of the snapshot primitive (doc/record.md): the copies run
	 * the program on, unrecorded. */
	ctx.snap_mode = RR_SNAP_IMAGE;
	if (getenv("SPOOL_SNAP_RUN") && !strcmp(getenv("SPOOL_SNAP_RUN"), "1"))
		ctx.snap_mode = RR_SNAP_RUN;
	/* SPOOL_SNAP_IMAGE=0: the copies end at once (the pause alone, for
	 * figures) */
	if (getenv("SPOOL_SNAP_IMAGE") && !strcmp(getenv("SPOOL_SNAP_IMAGE"), "0"))
		ctx.snap_mode = RR_SNAP_EXIT;
	if ((ctx.chaos || cl.seeded) && !ctx.serial) {
		log_err("--chaos and --seed go with --mode serial");
		return EXIT_USAGE;
	}
	so.argv = argv + optind;
	/* The variable a replay passes its early reads in, as wide (the
	 * agent removes it in both: early_clock.h) */
	static char record_eio[] = EARLY_IO_ENV "=" EARLY_IO_KEEP;
	static char *const record_eio_env[] = {record_eio, NULL};

	so.env = record_eio_env;
	/* The recording is of the first process (a fork is refused): the
	 * run ends with it; a daemon child left running is counted. */
	so.until_first_exit = 1;
	if (cl.gdb_wrapper) {
		if (cl.until || replay_gdb_wrapper_start(&so) < 0)
			return 1;
		ctx.stuck_ms = UINT32_MAX; /* a thread at a breakpoint keeps the run token */
	}
	if (!cl.gdb_wrapper) {
		rc = stdin_cap_record_open(&in, so.trace_dir);
		if (rc < 0) {
			log_err("cannot keep the program's stdin: %s", strerror(-rc));
			return 1;
		}
		ctx.in = &in;
	}
	if (cl.until) {
		rc = record_until_fail(&so, &ctx, cl.until, cl.check, cl.seeded, cl.quiet);
		goto out;
	}
	if (!cl.seeded)
		ctx.seed = record_new_seed();
	rc = record_once(&so, &ctx, &res);
	if (rc < 0) {
		rc = cmd_start_status(rc);
		goto out;
	}
	record_say(&so, &ctx, &res, cl.quiet);
	rc = record_status(&ctx, cmd_run_status(&res));
out:
	if (ctx.in)
		stdin_cap_close(ctx.in);
	return rc;
}
