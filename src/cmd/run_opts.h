// SPDX-License-Identifier: MIT
/*
 * run_opts.h - the options every command that runs a program under the
 * agent shares (-o, --ring-size, --on-full, --max-threads, --max-procs,
 * --until-first-exit, --stacks) and those of the report printed after the
 * run (--json, --limit), declared once with their help text and
 * their parsing, so that `spool locks`, `probe`, `path`, `record` and
 * `replay` spell, explain and check them the same way.
 *
 * A command names the ones it takes with a mask of RUN_OPT_* bits and
 * declares its own options as rows (struct run_opt_own: the getopt entry
 * and the help lines together); run_opts_parse makes the getopt tables,
 * the short option string, the shared options and the errors from them,
 * and --help is printed from the same rows (run_opts_own_usage,
 * run_opts_usage), so an option cannot be parsed without being listed, nor
 * listed without being parsed. Every command that runs a program (locks,
 * probe, path, record, replay) parses this way, and spool report (its
 * shared ones: --json and --limit); export, decode and receive give their
 * rows to run_opts_own_parse, the same parsing without the shared options
 * (run_opts_own.c: no session, so the fuzz harnesses link it with
 * decode.c); spool cc, whose other options are clang's, finds its own in
 * its rows with run_opts_own_find.
 */
#ifndef SPOOL_CMD_RUN_OPTS_H
#define SPOOL_CMD_RUN_OPTS_H

#include <getopt.h>
#include <stdint.h>
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
	RUN_OPT_NO_KEEP = 1u << 8,	    /* --no-keep (with --stream) */
	RUN_OPT_ALL = (1u << 9) - 1,	    /* every option of a run */
	/* What is printed after it (so->json, so->limit): */
	RUN_OPT_JSON = 1u << 9,	 /* --json */
	RUN_OPT_LIMIT = 1u << 10, /* --limit N */
	/* --clock tsc|none: a time per event, or none (SHM_F_UNTIMED) */
	RUN_OPT_CLOCK = 1u << 11,
};

/* What a command takes: the shared options of mask, and the smallest ring
 * --ring-size accepts (0: 4 KiB). */
struct run_opts_spec {
	unsigned mask;
	unsigned long min_ring;
	/* The help of -o when the trace directory it names is not the
	 * program's (spool replay: the replay's own trace); NULL: the
	 * common text. */
	const char *output_help;
	/* The command's --help: a row of val 'h' prints it (on stdout) and
	 * the parsing stops with success; NULL: the row goes to the
	 * command's fn. */
	void (*usage)(FILE *out);
	/* Operands may come between the options (a command that reads a
	 * trace: `spool export DIR --perfetto`); 0: the parsing stops at the
	 * first operand, PROGRAM, whose own options follow. */
	int anywhere;
	/* How a wrong option is said (c: ':' a value is missing, '?' an
	 * unknown option; getopt's optind and optopt are set); NULL:
	 * options_report_error. The parsing then fails (EXIT_USAGE). */
	void (*bad_option)(int c, char **argv);
};

/* One of a command's own options. val below RUN_OPT_LONG is also the short
 * option -val; RUN_OPT_LONG + n is a long-only one. help: its lines in
 * --help in the layout of every command ("  -e, --probe SPEC     text\n",
 * the text at column 23), NULL for an internal option --help does not
 * show. */
struct run_opt_own {
	const char *name;
	int has_arg;
	int val;
	const char *help;
};

#define RUN_OPT_LONG 0x100

/* The most rows a command's options may have, the shared ones its mask
 * names included (spool probe: 17 own and 3 shared, spool replay: 18 and
 * 1; there are 12 shared ones). */
#define RUN_OPTS_MAX 56

/* Two rows every command has are handled here, not by fn: 'h' (--help,
 * spec->usage) and 'q' (-q, --quiet: so->quiet; each command's row says
 * what quiet means for it). */

/* What a command does with one of its own options (c: the row's val, arg:
 * its value or NULL): 0 to go on, RUN_OPTS_STOP to end the parsing with
 * success (--help printed), -1 on a wrong value (said by fn). */
#define RUN_OPTS_STOP 1
typedef int (*run_opt_fn)(void *ctx, int c, const char *arg);

/* The help lines of the shared options of spec's mask, in the layout of
 * every command's help ("  -o, --output DIR     text"). */
void run_opts_usage(FILE *out, const struct run_opts_spec *spec);

/* Parse the options of `spool cmd` (argv[0] the command): the shared ones
 * of spec into so, the rows of own (n of them) through fn. Stops at the
 * first operand (optind is set there) or after "--". Returns 0 when all
 * parsed, RUN_OPTS_STOP when fn asked (exit 0), -1 on a usage error
 * (said: the command exits with EXIT_USAGE). */
int run_opts_parse(const char *cmd, int argc, char **argv, const struct run_opt_own *own, size_t n,
		   const struct run_opts_spec *spec, struct session_opts *so, run_opt_fn fn,
		   void *ctx);

/* The value val of option name ("--limit") as a number from lo to hi into
 * *out: 0, or -1 (said: "--limit 'x': want 0 to 1000", or "want a number"
 * when any size goes). */
int run_opts_uint(const char *name, const char *val, uint64_t lo, uint64_t hi, uint64_t *out);

/* `spool cmd -o FILE` where cmd writes FILE (export, report --coverage):
 * the old spelling of -w FILE, kept for this release with a warning, since
 * -o names a trace directory in every other command. */
void run_opts_old_write(const char *cmd, const char *file);

/* An option spelled as before this release, where its name meant something
 * else in another command (one meaning per option name): kept for this
 * release with a warning naming the new spelling and the other meaning. */
void run_opts_old_name(const char *cmd, const char *old, const char *now, const char *other);

/* The help lines of the rows of own that have some, in their order. */
void run_opts_own_usage(FILE *out, const struct run_opt_own *own, size_t n);

/* Parse the options of `spool cmd` from the rows of own only (n of them)
 * through fn, as run_opts_parse does without the shared options (spec's
 * mask is not used, and a row of val 'q' goes to fn like any other).
 * Returns 0, RUN_OPTS_STOP or -1 as run_opts_parse does. */
int run_opts_own_parse(const char *cmd, int argc, char **argv, const struct run_opt_own *own,
		       size_t n, const struct run_opts_spec *spec, run_opt_fn fn, void *ctx);

/* The row of own that arg spells exactly ("--explain": no abbreviation,
 * no "--name=value"), or NULL: for spool cc, whose other options are
 * clang's and go to it as given. */
const struct run_opt_own *run_opts_own_find(const struct run_opt_own *own, size_t n,
					    const char *arg);

#endif
