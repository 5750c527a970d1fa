// SPDX-License-Identifier: MIT
/*
 * run_opts.h - the options every command that runs a program under the
 * agent shares (-o, --ring-size, --on-full, --max-threads, --max-procs,
 * --until-first-exit, --stacks), declared once with their help text and
 * their parsing, so that `spool locks`, `probe`, `path` and `record` spell,
 * explain and check them the same way.
 *
 * A command names the ones it takes with a mask of RUN_OPT_* bits, builds
 * its getopt_long table with run_opts_table (its own options first), prints
 * their help with run_opts_usage, and gives every option getopt returns to
 * run_opts_handle before its own switch.
 */
#ifndef SPOOL_CMD_RUN_OPTS_H
#define SPOOL_CMD_RUN_OPTS_H

#include <getopt.h>
#include <stdio.h>

struct session_opts;

enum {
	RUN_OPT_OUTPUT = 1u << 0,	    /* -o, --output DIR: the trace directory */
	RUN_OPT_RING_SIZE = 1u << 1,	    /* --ring-size SIZE */
	RUN_OPT_ON_FULL = 1u << 2,	    /* --on-full wait|drop */
	RUN_OPT_MAX_THREADS = 1u << 3,	    /* --max-threads N */
	RUN_OPT_MAX_PROCS = 1u << 4,	    /* --max-procs N */
	RUN_OPT_UNTIL_FIRST_EXIT = 1u << 5, /* --until-first-exit */
	RUN_OPT_STACKS = 1u << 6,	    /* --stacks N */
	RUN_OPT_STREAM = 1u << 7,	    /* --stream HOST:PORT */
	RUN_OPT_ALL = (1u << 8) - 1,
};

/* What a command takes: the shared options of mask, and the smallest ring
 * --ring-size accepts (0: 4 KiB). */
struct run_opts_spec {
	unsigned mask;
	unsigned long min_ring;
};

/* The long options getopt_long is given: the command's own (own, ending
 * with a zeroed entry) and then the shared ones of mask, into out (room for
 * cap entries, the terminating zeroed one included). Returns 0, or -ENOSPC
 * when cap is too small. */
int run_opts_table(const struct option *own, const struct run_opts_spec *spec, struct option *out,
		   size_t cap);

/* The help lines of the shared options of mask, in the layout of every
 * command's help ("  -o, --output DIR     text"). */
void run_opts_usage(FILE *out, const struct run_opts_spec *spec);

/* Option c (getopt's return) with its argument: 1 when it is a shared
 * option of mask (so is set), 0 when it is not, -1 when its value is wrong
 * (said; the command exits with EXIT_USAGE). */
int run_opts_handle(int c, const char *arg, const struct run_opts_spec *spec,
		    struct session_opts *so);

#endif
