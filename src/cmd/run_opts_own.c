// SPDX-License-Identifier: MIT
/*
 * run_opts_own.c - the parsing of a command's options from its rows
 * (struct run_opt_own, run_opts.h: the getopt entry and the help lines
 * together), and the checks of a value every command words the same way
 * (a number in a range, the old spellings). run_opts_parse adds
 * the options shared by the commands that run a program (run_opts.c); the
 * commands that read a trace (export, report, decode) and spool receive
 * parse their rows here alone. Nothing here runs a program or knows a
 * session, so the fuzz harnesses link it with decode.c (fuzz/fuzz.mk).
 */
#include <getopt.h>
#include <stdint.h>
#include <string.h>

#include "../util/log.h"
#include "../util/options.h"
#include "run_opts.h"

int run_opts_uint(const char *name, const char *val, uint64_t lo, uint64_t hi, uint64_t *out)
{
	if (options_parse_uint(val, hi, out) == 0 && *out >= lo)
		return 0;
	if (!lo && hi >= 1u << 30)
		log_err("%s '%s': want a number", name, val);
	else
		log_err("%s '%s': want %llu to %llu", name, val, (unsigned long long)lo,
			(unsigned long long)hi);
	return -1;
}

void run_opts_old_write(const char *cmd, const char *file)
{
	log_warn("%s: -o %s taken as the file to write (the old spelling): use -w %s; -o names "
		 "the trace directory in spool locks, probe, record, replay and path",
		 cmd, file, file);
}

void run_opts_old_name(const char *cmd, const char *old, const char *now, const char *other)
{
	log_warn("%s: %s is the old spelling of %s, kept for this release: %s", cmd, old, now,
		 other);
}

void run_opts_own_usage(FILE *out, const struct run_opt_own *own, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (own[i].help)
			fputs(own[i].help, out);
}

int run_opts_own_parse(const char *cmd, int argc, char **argv, const struct run_opt_own *own,
		       size_t n, const struct run_opts_spec *spec, run_opt_fn fn, void *ctx)
{
	struct option opts[RUN_OPTS_MAX + 1];
	/* "+:" (stop at the first operand, unless spec->anywhere; ':' for a
	 * missing value), then "x" or "x:" per short option */
	char shorts[2 + 2 * RUN_OPTS_MAX + 1];
	size_t ns = 0;
	int c, rc;

	if (n > RUN_OPTS_MAX) {
		log_err("spool %s: too many options for run_opts_parse (%zu, at most %d)", cmd, n,
			RUN_OPTS_MAX);
		return -1;
	}
	if (!spec->anywhere)
		shorts[ns++] = '+';
	shorts[ns++] = ':';
	for (size_t i = 0; i < n; i++) {
		opts[i] = (struct option){own[i].name, own[i].has_arg, NULL, own[i].val};
		if (own[i].val < RUN_OPT_LONG) {
			shorts[ns++] = (char)own[i].val;
			if (own[i].has_arg == required_argument)
				shorts[ns++] = ':';
		}
	}
	memset(&opts[n], 0, sizeof(opts[n]));
	shorts[ns] = 0;
	opterr = 0;
	/* 0: getopt starts afresh (its order, "+" or not, is read then),
	 * whatever parsed before in this process */
	optind = 0;
	while ((c = getopt_long(argc, argv, shorts, opts, NULL)) != -1) {
		if (c == '?' || c == ':') {
			if (spec->bad_option)
				spec->bad_option(c, argv);
			else
				options_report_error(cmd, c, argv);
			return -1;
		}
		if (c == 'h' && spec->usage) {
			spec->usage(stdout);
			return RUN_OPTS_STOP;
		}
		rc = fn(ctx, c, optarg);
		if (rc)
			return rc < 0 ? -1 : RUN_OPTS_STOP;
	}
	return 0;
}

const struct run_opt_own *run_opts_own_find(const struct run_opt_own *own, size_t n,
					    const char *arg)
{
	if (arg[0] != '-' || arg[1] != '-')
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(own[i].name, arg + 2))
			return &own[i];
	return NULL;
}
