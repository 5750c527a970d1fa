// SPDX-License-Identifier: MIT
/*
 * record.c - `spool record`: run a program with the agent recording the
 * order of every synchronization object's acquisitions and every
 * nondeterministic input (sync mode, doc/record.md), so that `spool replay`
 * can run it again the same way. --until-fail N reruns it until a run fails
 * (non-zero exit, a signal, or a user check command) and keeps that one.
 *
 * The program's stdin, stdout, stderr and exit status are its own; spool
 * speaks on stderr and exits with the program's status.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "../collect/session.h"
#include "../replay/rr_log.h"
#include "../util/buildid.h"
#include "../util/log.h"
#include "../util/options.h"
#include "cmd.h"

#define RECORD_MAX_OBJS (1u << 20) /* turn words: 4 MiB of the memfd, touched only when used */

struct record_ctx {
	struct rr_info info;
	uint32_t max_rings;
};

static void record_usage(FILE *out)
{
	fprintf(out,
		"usage: spool record [OPTIONS] [--] PROGRAM [ARGS...]\n"
		"\n"
		"Run PROGRAM and record what `spool replay` needs to run it again the same\n"
		"way: the order in which its threads acquired every mutex, rwlock, spinlock,\n"
		"semaphore, condition variable and barrier, thread creation, and what its\n"
		"read-like calls, clocks, getrandom, getpid and gettid returned.\n"
		"\n"
		"options:\n"
		"      --mode MODE      sync (threads run in parallel; exact for programs\n"
		"                       without data races). serial is not implemented yet.\n"
		"  -o, --output DIR     trace directory (default spool.trace; an existing one\n"
		"                       is kept as DIR.old)\n"
		"      --ring-size SIZE per-thread ring buffer, power of two (default %um)\n"
		"      --until-fail N   run up to N times, keep the first failing recording\n"
		"                       (non-zero exit, killed by a signal, or --check fails)\n"
		"      --check CMD      with --until-fail: a shell command run after each run;\n"
		"                       it fails the run when it exits non-zero. It sees\n"
		"                       SPOOL_STATUS (the program's exit status) and\n"
		"                       SPOOL_TRACE (the trace directory)\n"
		"  -q, --quiet          print nothing but errors\n"
		"  -h, --help           show this help\n"
		"\n"
		"Then: spool replay DIR.\n",
		SHM_DEFAULT_RING_BYTES >> 20);
}

static int record_prepare(void *arg, struct shm_host *h, struct trace_writer *w)
{
	struct record_ctx *ctx = arg;
	void *area = shm_host_ext(h, SHM_EXT_REPLAY);

	if (!area)
		return -EINVAL;
	rr_record_area_init(area, RECORD_MAX_OBJS, ctx->max_rings + 1);
	return 0;
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
	snprintf(ctx->info.mode, sizeof(ctx->info.mode), "sync");
	ctx->info.flags = __atomic_load_n(&a->flags, __ATOMIC_ACQUIRE);
	ctx->info.lost = a->lost;
	n = strnlen(a->report, sizeof(a->report) - 1);
	memcpy(ctx->info.report, a->report, n);
	ctx->info.report[n] = 0;
	if (h->ctl->nprocs) {
		p = shm_proc_at(h->base, 0);
		ctx->info.pid = p->pid;
		n = p->exe_len < sizeof(p->exe) - 1 ? p->exe_len : sizeof(p->exe) - 1;
		memcpy(ctx->info.exe, p->exe, n);
		ctx->info.exe[n] = 0;
		if (buildid_read(ctx->info.exe, ctx->info.buildid, sizeof(ctx->info.buildid)) < 0)
			ctx->info.buildid[0] = 0;
	}
	return rr_info_write(w, &ctx->info);
}

/* One recorded run. Returns what session_run returned; fills res. */
static int record_once(struct session_opts *so, struct record_ctx *ctx,
		       struct session_result *res)
{
	memset(&ctx->info, 0, sizeof(ctx->info));
	so->features = SHM_FEAT_LOCKS | SHM_FEAT_RECORD;
	so->ext_bytes[SHM_EXT_REPLAY] = rr_record_area_size(RECORD_MAX_OBJS);
	so->prepare = record_prepare;
	so->finish = record_finish;
	so->hook_arg = ctx;
	ctx->max_rings = so->max_rings;
	return session_run(so, res);
}

static void record_say(const struct session_opts *so, const struct record_ctx *ctx,
		       const struct session_result *res, int quiet)
{
	const struct rr_info *i = &ctx->info;
	uint64_t lost = (res->st.lost_ring > res->st.seq_gaps ? res->st.lost_ring
							       : res->st.seq_gaps) +
			res->st.lost_no_ring;

	if (i->flags & (RR_F_FORKED | RR_F_EXEC))
		log_warn("the program %s: only its first process is recorded, and spool replay "
			 "refuses this recording",
			 i->flags & RR_F_FORKED ? "forked" : "called exec");
	if (i->flags & RR_F_LOST || lost)
		log_warn("the recording is incomplete (%s): spool replay will refuse it",
			 i->report[0] ? i->report : "events were lost");
	if (i->flags & RR_F_UNTRACKED)
		log_warn("a thread spool could not number made recorded calls (too many threads "
			 "created at once?): replay may diverge");
	if (!quiet)
		log_info("recorded %s (sync mode), %u threads, trace in %s/", so->argv[0],
			 res->st.threads, so->trace_dir);
}

/* --check: run the user's command; 1 when it says the run failed. */
static int record_check_fails(const char *cmd, int status, const char *dir)
{
	char buf[32];
	int rc;

	snprintf(buf, sizeof(buf), "%d", status);
	setenv("SPOOL_STATUS", buf, 1);
	setenv("SPOOL_TRACE", dir, 1);
	fflush(NULL);
	rc = system(cmd);
	unsetenv("SPOOL_STATUS");
	unsetenv("SPOOL_TRACE");
	if (rc == -1) {
		log_err("cannot run --check command: %s", strerror(errno));
		return -1;
	}
	return !WIFEXITED(rc) || WEXITSTATUS(rc) != 0;
}

int cmd_record(int argc, char **argv)
{
	static const struct option opts[] = {
		{"mode", required_argument, NULL, 'm'},
		{"output", required_argument, NULL, 'o'},
		{"ring-size", required_argument, NULL, 'r'},
		{"until-fail", required_argument, NULL, 'u'},
		{"check", required_argument, NULL, 'c'},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct session_opts so = {
		.trace_dir = "spool.trace",
		.ring_bytes = SHM_DEFAULT_RING_BYTES,
		.max_rings = SHM_DEFAULT_MAX_RINGS,
	};
	struct record_ctx ctx;
	struct session_result res;
	const char *check = NULL;
	uint64_t v, until = 0;
	int c, rc, quiet = 0;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+o:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'm':
			if (!strcmp(optarg, "serial")) {
				log_err("--mode serial is not implemented yet; use --mode sync (exact "
					"for programs without data races)");
				return EXIT_USAGE;
			}
			if (strcmp(optarg, "sync")) {
				log_err("--mode '%s': want sync or serial", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'o':
			so.trace_dir = optarg;
			break;
		case 'r':
			if (options_parse_size(optarg, &v) < 0 || v < 65536 || v > (1ull << 30) ||
			    (v & (v - 1))) {
				log_err("--ring-size '%s': want a power of two from 64k to 1g", optarg);
				return EXIT_USAGE;
			}
			so.ring_bytes = (uint32_t)v;
			break;
		case 'u':
			if (options_parse_uint(optarg, 1000000, &until) < 0 || !until) {
				log_err("--until-fail '%s': want 1 to 1000000", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'c':
			check = optarg;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			record_usage(stdout);
			return 0;
		case ':':
			log_err("option '%s' needs a value (see spool record --help)", argv[optind - 1]);
			return EXIT_USAGE;
		default:
			log_err("unknown option '%s' (see spool record --help)", argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		log_err("no program to run (usage: spool record [OPTIONS] -- PROGRAM [ARGS])");
		return EXIT_USAGE;
	}
	if (check && !until) {
		log_err("--check goes with --until-fail N");
		return EXIT_USAGE;
	}
	so.argv = argv + optind;
	so.quiet = quiet;
	if (!until) {
		rc = record_once(&so, &ctx, &res);
		if (rc < 0)
			return rc == -ENOENT ? 127 : rc == -EACCES ? 126 : 1;
		record_say(&so, &ctx, &res, quiet);
		return res.exit_status;
	}
	for (uint64_t run = 1; run <= until; run++) {
		int failed;

		so.quiet = 1; /* DIR.old churn is expected here */
		rc = record_once(&so, &ctx, &res);
		if (rc < 0)
			return rc == -ENOENT ? 127 : rc == -EACCES ? 126 : 1;
		failed = res.exit_status != 0;
		if (!failed && check) {
			failed = record_check_fails(check, res.exit_status, so.trace_dir);
			if (failed < 0)
				return 1;
		}
		if (failed) {
			record_say(&so, &ctx, &res, 1);
			if (res.term_signal)
				log_info("run %llu failed (killed by signal %d), recording kept in %s/",
					 (unsigned long long)run, res.term_signal, so.trace_dir);
			else if (res.exit_status)
				log_info("run %llu failed (exit %d), recording kept in %s/",
					 (unsigned long long)run, res.exit_status, so.trace_dir);
			else
				log_info("run %llu failed (--check), recording kept in %s/",
					 (unsigned long long)run, so.trace_dir);
			return res.exit_status ? res.exit_status : 1;
		}
	}
	log_info("no failure in %llu runs; the last recording is in %s/",
		 (unsigned long long)until, so.trace_dir);
	return 0;
}
