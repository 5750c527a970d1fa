// SPDX-License-Identifier: MIT
/*
 * probe.c - `spool probe`: dynamic probes on an unmodified program.
 *
 *   spool probe -e SPEC [-e SPEC...] [OPTIONS] -- PROGRAM [ARGS]
 *   spool probe --list -e SPEC PROGRAM
 *
 * spool resolves the specs to functions (probe manager, src/probe), plans
 * each probe (jump or int3) and builds the trampolines, puts them in the
 * probes feature area, and runs the program with the agent, which patches
 * before main. At exit it writes the probe table into the trace ("probes")
 * and prints the function report on stderr; the program's stdout is left
 * alone and spool exits with the program's status.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../analyze/funcs.h"
#include "../collect/session.h"
#include "../probe/probe.h"
#include "../util/log.h"
#include "../util/options.h"
#include "cmd.h"

#define PROBE_MAX_SPECS 64

static void probe_usage(FILE *out)
{
	fprintf(out,
		"usage: spool probe -e SPEC [-e SPEC...] [OPTIONS] [--] PROGRAM [ARGS...]\n"
		"       spool probe --list -e SPEC [-e SPEC...] PROGRAM\n"
		"\n"
		"Probe function entries and exits of PROGRAM and the libraries it loads,\n"
		"without rebuilding it, and print a function report (calls, total and self\n"
		"time, min/avg/max, callers) on stderr when it exits.\n"
		"\n"
		"specs:\n"
		"  func:GLOB            functions of PROGRAM whose name matches GLOB\n"
		"  func:LIB:GLOB        functions of the libraries whose file name matches\n"
		"                       LIB (e.g. func:libz.so*:deflate*)\n"
		"\n"
		"options:\n"
		"  -e, --probe SPEC     what to probe (repeatable)\n"
		"  -l, --list           print the probes a spec would place, and how (jump or\n"
		"                       int3, with the reason), then exit\n"
		"  -o, --output DIR     trace directory (default spool.trace)\n"
		"      --handler SO     custom pre/post/error handlers, a shared object\n"
		"                       (include/spool/probe.h) the agent loads in PROGRAM\n"
		"      --ring-size SIZE per-thread ring buffer (default %um)\n"
		"      --json           the report as JSON\n"
		"      --limit N        rows of the report (default 30, 0 = all)\n"
		"  -q, --quiet          summary line only, no report\n"
		"  -h, --help           show this help\n"
		"\n"
		"Later: spool report --functions DIR. See doc/probe.md.\n",
		SHM_DEFAULT_RING_BYTES >> 20);
}

struct probe_run {
	struct probe_mgr *m;
	int list_only;
	char handler[PROBE_PATH_MAX]; /* absolute path of --handler, "" = none */
	int handler_failed;	      /* the agent could not load it */
};

static int probe_prepare(void *arg, struct shm_host *h, struct trace_writer *w)
{
	struct probe_run *pr = arg;
	void *area = shm_host_ext(h, SHM_EXT_PROBES);

	int rc;

	if (!area)
		return -ENOSPC;
	rc = probe_mgr_fill_area(pr->m, area, h->ctl->ext_size[SHM_EXT_PROBES]);
	if (!rc)
		memcpy(((struct probe_area_hdr *)area)->handler_path, pr->handler,
		       sizeof(pr->handler));
	return rc;
}

static int probe_finish(void *arg, struct shm_host *h, struct trace_writer *w)
{
	struct probe_run *pr = arg;
	const struct probe_area_hdr *ah = shm_host_ext(h, SHM_EXT_PROBES);
	size_t counts[16] = {0}, len;
	char *text;
	int rc;

	if (ah) {
		pr->handler_failed = pr->handler[0] && !ah->handler_loaded;
		if (pr->handler_failed)
			log_err("the agent could not load %s: %.*s", pr->handler,
				(int)sizeof(ah->handler_error), ah->handler_error);
		else if (!__atomic_load_n(&ah->done, __ATOMIC_ACQUIRE))
			log_warn("the agent did not place the probes (the program did not start "
				 "with it, or exited first)");
		probe_mgr_read_area(pr->m, ah);
	}
	for (size_t i = 0; i < pr->m->ndefs; i++)
		if (pr->m->defs[i].registered && pr->m->defs[i].status < 16)
			counts[pr->m->defs[i].status]++;
	if (counts[PROBE_S_MISMATCH])
		log_warn("%zu probes not placed: the code in memory differs from %s's file",
			 counts[PROBE_S_MISMATCH], pr->m->exe);
	if (counts[PROBE_S_NO_MODULE])
		log_warn("%zu probes not placed: their library was not loaded at startup",
			 counts[PROBE_S_NO_MODULE]);
	if (counts[PROBE_S_REMOVED])
		log_warn("%zu probes removed while the program ran: their handler faulted "
			 "(the error handler ran, the original code was put back)",
			 counts[PROBE_S_REMOVED]);
	if (counts[PROBE_S_NO_PAGE] || counts[PROBE_S_PROTECT])
		log_warn("%zu probes not placed: no trampoline memory or text not writable",
			 counts[PROBE_S_NO_PAGE] + counts[PROBE_S_PROTECT]);
	rc = probe_mgr_table(pr->m, &text, &len);
	if (rc < 0)
		return rc;
	rc = trace_writer_add_file(w, "probes", text, len);
	free(text);
	return rc;
}

int cmd_probe(int argc, char **argv)
{
	static const struct option opts[] = {
		{"probe", required_argument, NULL, 'e'},
		{"list", no_argument, NULL, 'l'},
		{"output", required_argument, NULL, 'o'},
		{"ring-size", required_argument, NULL, 'r'},
		{"handler", required_argument, NULL, 'H'},
		{"json", no_argument, NULL, 'j'},
		{"limit", required_argument, NULL, 'L'},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct session_opts so = {
		.trace_dir = "spool.trace",
		.ring_bytes = SHM_DEFAULT_RING_BYTES,
		.max_rings = SHM_DEFAULT_MAX_RINGS,
	};
	struct funcs_opts fo = {.limit = 30, .callers = 3};
	const char *specs[PROBE_MAX_SPECS];
	struct probe_run pr = {0};
	struct session_result res;
	struct probe_mgr m;
	size_t nspecs = 0, njump = 0, nint3 = 0;
	int c, rc, status = 1, empty = 0;
	uint64_t v;
	char err[512];

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+e:lo:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'e':
			if (nspecs == PROBE_MAX_SPECS) {
				log_err("at most %d -e specs", PROBE_MAX_SPECS);
				return EXIT_USAGE;
			}
			specs[nspecs++] = optarg;
			break;
		case 'l':
			pr.list_only = 1;
			break;
		case 'o':
			so.trace_dir = optarg;
			break;
		case 'r':
			if (options_parse_size(optarg, &v) < 0 || v < 4096 || v > (1ull << 30) ||
			    (v & (v - 1))) {
				log_err("--ring-size '%s': want a power of two from 4k to 1g", optarg);
				return EXIT_USAGE;
			}
			so.ring_bytes = (uint32_t)v;
			break;
		case 'j':
			fo.json = 1;
			break;
		case 'H':
			if (!realpath(optarg, pr.handler)) {
				log_err("--handler '%s': %s", optarg, strerror(errno));
				return EXIT_USAGE;
			}
			break;
		case 'L':
			if (options_parse_uint(optarg, 1u << 30, &v) < 0) {
				log_err("--limit '%s': want a number", optarg);
				return EXIT_USAGE;
			}
			fo.limit = (unsigned)v;
			break;
		case 'q':
			so.quiet = 1;
			break;
		case 'h':
			probe_usage(stdout);
			return 0;
		case ':':
			log_err("option '%s' needs a value (see spool probe --help)", argv[optind - 1]);
			return EXIT_USAGE;
		default:
			log_err("unknown option '%s' (see spool probe --help)", argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	if (!nspecs) {
		log_err("nothing to probe: give -e SPEC (e.g. -e 'func:main'; see spool probe --help)");
		return EXIT_USAGE;
	}
	if (optind >= argc) {
		log_err("no program (usage: spool probe -e SPEC [--] PROGRAM [ARGS])");
		return EXIT_USAGE;
	}
	if (pr.list_only && optind + 1 < argc) {
		log_err("--list takes the program only, not its arguments");
		return EXIT_USAGE;
	}
	{
		char path[4096];
		const char *prog = argv[optind];

		/* A bare name is looked up in PATH, as the session will. */
		if (!strchr(prog, '/')) {
			char cmd[4400];
			FILE *f;

			snprintf(cmd, sizeof(cmd), "command -v -- '%s' 2>/dev/null", prog);
			f = strchr(prog, '\'') ? NULL : popen(cmd, "r");
			path[0] = 0;
			if (f) {
				if (!fgets(path, sizeof(path), f))
					path[0] = 0;
				pclose(f);
			}
			path[strcspn(path, "\n")] = 0;
			if (path[0] == '/')
				prog = path;
		}
		rc = probe_mgr_init(&m, prog);
		if (rc < 0) {
			log_err("%s: %s", argv[optind], strerror(-rc));
			return rc == -ENOENT ? 127 : 1;
		}
	}
	for (size_t i = 0; i < nspecs; i++) {
		struct probe_spec s;

		if (probe_spec_parse(specs[i], &s, err, sizeof(err)) < 0) {
			log_err("%s", err);
			status = EXIT_USAGE;
			goto out;
		}
		rc = probe_mgr_add_spec(&m, &s);
		if (rc < 0) {
			log_err("'%s': %s", specs[i], strerror(-rc));
			goto out;
		}
		if (!rc)
			empty = 1;
	}
	if (empty)
		goto out; /* the spec that matched nothing said so */
	for (size_t i = 0; i < m.ndefs; i++)
		if (m.defs[i].registered)
			*(m.defs[i].method == PROBE_M_JUMP ? &njump : &nint3) += 1;
	if (pr.list_only) {
		probe_mgr_print_list(&m, stdout);
		status = 0;
		goto out;
	}
	if (!so.quiet)
		log_info("%zu probes (%zu jump, %zu int3); spool probe --list shows where", njump + nint3,
			 njump, nint3);

	pr.m = &m;
	so.argv = argv + optind;
	so.features = SHM_FEAT_PROBES;
	so.ext_bytes[SHM_EXT_PROBES] = probe_mgr_area_size(&m);
	so.prepare = probe_prepare;
	so.finish = probe_finish;
	so.hook_arg = &pr;
	rc = session_run(&so, &res);
	if (rc < 0) {
		status = rc == -ENOENT ? 127 : rc == -EACCES ? 126 : 1;
		goto out;
	}
	if (res.term_signal)
		log_info("%s killed by signal %d (%s)", so.argv[0], res.term_signal,
			 strsignal(res.term_signal));
	{
		size_t placed = 0;

		for (size_t i = 0; i < m.ndefs; i++)
			placed += m.defs[i].registered && (m.defs[i].status == PROBE_S_PATCHED ||
						   m.defs[i].status == PROBE_S_REMOVED);
		log_info("%zu of %zu probes placed, %llu events lost, trace in %s/", placed,
			 njump + nint3,
			 (unsigned long long)(res.st.lost_ring + res.st.lost_no_ring), so.trace_dir);
	}
	if (!so.quiet && !res.trace_error) {
		fflush(stdout);
		funcs_report_dir(so.trace_dir, &fo, stderr);
	}
	status = res.exit_status;
	if (pr.handler_failed && !status)
		status = 1;
out:
	probe_mgr_free(&m);
	return status;
}
