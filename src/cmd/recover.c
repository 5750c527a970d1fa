// SPDX-License-Identifier: MIT
/*
 * recover.c - `spool recover`: keep or remove the partial trace a killed
 * spool left behind (DIR.writing.PID, stale.c).
 *
 * spool never deletes or renames such a trace by itself: the next spool
 * that writes DIR names it and says how to read it (spool info). This
 * command is the user's explicit way to finish with it: by default it
 * marks the trace unfinished and renames it to a free name
 * (DIR.unfinished, DIR.unfinished.1, ...) that spool never reuses; with
 * --remove it deletes it. Either acts only on a directory spool recognizes
 * as a trace it wrote (its metadata's signature, nothing but what the
 * writer creates), whose writer did not finish and no longer runs; never
 * on a name alone.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "../trace/trace.h"
#include "../util/log.h"
#include "cmd.h"

static void recover_usage(FILE *out)
{
	fprintf(out,
		"usage: spool recover [--remove] TRACE_DIR...\n"
		"\n"
		"Finish with the partial trace a killed spool left beside its output\n"
		"(DIR.writing.PID: a trace is written there and renamed to DIR only when\n"
		"whole). spool names such a trace when a later run writes DIR; it never\n"
		"removes or renames one by itself. 'spool info DIR.writing.PID' reads it\n"
		"(it says the trace is incomplete).\n"
		"\n"
		"By default each TRACE_DIR (DIR.writing.PID) is marked unfinished and\n"
		"renamed to DIR.unfinished (or DIR.unfinished.N, the first free name);\n"
		"every reader still says it is incomplete. With --remove it is deleted.\n"
		"Either only when TRACE_DIR is a trace spool wrote (its metadata, nothing\n"
		"else in it), not finished, and its spool no longer runs; anything else is\n"
		"left as it is, with the reason.\n"
		"\n"
		"options:\n"
		"  --remove     delete the partial traces instead of keeping them\n"
		"  -h, --help   show this help\n"
		"\n"
		"Exit status: 0 when every TRACE_DIR was kept (or removed), 1 when one was\n"
		"refused or failed, 2 on a usage error. See doc/locks.md.\n");
}

int cmd_recover(int argc, char **argv)
{
	static const struct option opts[] = {{"help", no_argument, NULL, 'h'},
					     {"remove", no_argument, NULL, 'r'},
					     {NULL, 0, NULL, 0}};
	int c, remove = 0, status = 0;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 'h') {
			recover_usage(stdout);
			return 0;
		}
		if (c == 'r') {
			remove = 1;
			continue;
		}
		log_err("unknown option '%s' (see spool recover --help)", argv[optind - 1]);
		return EXIT_USAGE;
	}
	if (optind >= argc) {
		log_err("which trace? (spool recover [--remove] DIR.writing.PID; see --help)");
		return EXIT_USAGE;
	}
	for (; optind < argc; optind++) {
		const char *dir = argv[optind];
		char to[PATH_MAX + 32], why[NAME_MAX + 160] = "";
		int rc;

		if (remove)
			rc = trace_dir_remove_stale(dir, why, sizeof(why));
		else
			rc = trace_dir_recover(dir, to, sizeof(to), why, sizeof(why));
		if (rc < 0) {
			log_err("%s %s: %s", dir, why[0] ? why : strerror(-rc),
				rc == -EPERM || rc == -EINVAL ? "left as it is"
					     : "left as it is (or as far as it got)");
			status = 1;
			continue;
		}
		if (remove)
			log_info("%s: removed", dir);
		else
			log_info("%s: kept as %s/ (marked unfinished: 'spool info %s' reads it)",
				 dir, to, to);
	}
	return status;
}
