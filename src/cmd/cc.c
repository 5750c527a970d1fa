// SPDX-License-Identifier: MIT
/*
 * cc.c - `spool cc`: a compiler driver (CC="spool cc") that compiles C files
 * through the trace optimizer (doc/cc.md).
 *
 * For each .c input: clang -emit-llvm with the user's options, -DSPOOL_CC
 * and spool's include directory; spool-ccopt rewrites the trace calls; clang
 * compiles the rewritten bitcode with the user's code-generation options
 * (the optimization pipeline runs again, then code generation). Everything
 * else - other inputs, the link, -E/-S/-M and friends - goes to clang as
 * given, so a build that uses spool cc behaves as one that uses clang.
 *
 * Which options take a separate argument must be known to tell inputs from
 * option values; the list is clang's common ones. Temporary files live in a
 * private directory removed at the end.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../util/files.h"
#include "../util/log.h"
#include "cmd.h"
#include "run_opts.h"

/* Options whose value is the next argument (a cross build's --sysroot DIR
 * and -B DIR included: taken for an input, DIR would reach the linker and
 * the first step would read the host's headers). */
static const char *const cc_sep_opts[] = {
	"-o", "-I", "-D", "-U", "-include", "-imacros", "-isystem", "-iquote", "-idirafter",
	"-x", "-MF", "-MT", "-MQ", "-L", "-Xlinker", "-Xpreprocessor", "-Xassembler",
	"-Xclang", "-target", "-T", "-u", "-z", "-e", "-arch", "--param", "--sysroot",
	"-isysroot", "-B", NULL,
};

/* Preprocessor options: given to the first step only. */
static int cc_is_pp_opt(const char *a)
{
	static const char *const pp[] = {"-I", "-D", "-U", "-include", "-imacros", "-isystem",
					 "-iquote", "-idirafter", "-M", NULL};

	for (int i = 0; pp[i]; i++)
		if (!strncmp(a, pp[i], strlen(pp[i])))
			return 1;
	return !strcmp(a, "-x") || !strcmp(a, "-Xpreprocessor");
}

static int cc_takes_arg(const char *a)
{
	for (int i = 0; cc_sep_opts[i]; i++)
		if (!strcmp(a, cc_sep_opts[i]))
			return 1;
	return 0;
}

static int cc_is_c(const char *a)
{
	size_t n = strlen(a);

	return a[0] != '-' && n > 2 && !strcmp(a + n - 2, ".c");
}

/* Run argv with stdout into out_file (NULL: ours), return its exit status
 * (or 127/128+N like a shell). */
static int cc_run_to(char **argv, int verbose, const char *out_file)
{
	pid_t pid;
	int st;

	if (verbose) {
		for (int i = 0; argv[i]; i++)
			fprintf(stderr, "%s%s", i ? " " : "spool cc: ", argv[i]);
		fputc('\n', stderr);
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		log_err("fork: %s", strerror(errno));
		return 1;
	}
	if (pid == 0) {
		if (out_file) {
			int fd = open(out_file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

			if (fd < 0 || dup2(fd, 1) < 0) {
				log_err("%s: %s", out_file, strerror(errno));
				_exit(127);
			}
		}
		execvp(argv[0], argv);
		log_err("%s: %s", argv[0], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return 1;
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return WEXITSTATUS(st);
}

static int cc_run(char **argv, int verbose)
{
	return cc_run_to(argv, verbose, NULL);
}

static int cc_exists(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0;
}

struct cc_ctx {
	const char *clang;
	char ccopt[PATH_MAX + 32];
	char incdir[PATH_MAX + 16];
	char tmpdir[64];
	int verbose, explain, no_strict_aliasing, no_untimed;
	const char *max_codes; /* --max-codes N, for spool-ccopt */
	const char *profile;   /* --profile TRACE */
	const char *round_gain; /* --round-gain PCT, for spool-ccopt */
	char prof_file[96];    /* its counts (spool decode --counts), for spool-ccopt */
	char **opts; /* the user's options, without -o, -c and inputs */
	int nopts;
	int has_md, has_mf;
};

static char **cc_argv_new(int cap)
{
	return calloc((size_t)cap, sizeof(char *));
}

/* Compile one C file to an object through the optimizer. */
static int cc_compile_one(struct cc_ctx *c, const char *src, const char *obj, int n)
{
	char bc[128], obc[128], dep[PATH_MAX + 8];
	char **av = cc_argv_new(c->nopts + 24);
	int k = 0, rc;

	if (!av)
		return 1;
	snprintf(bc, sizeof(bc), "%s/%d.bc", c->tmpdir, n);
	snprintf(obc, sizeof(obc), "%s/%d.opt.bc", c->tmpdir, n);
	av[k++] = (char *)c->clang;
	av[k++] = "-DSPOOL_CC=1";
	av[k++] = c->incdir;
	for (int i = 0; i < c->nopts; i++)
		av[k++] = c->opts[i];
	if (c->has_md && !c->has_mf) {
		/* -MD writes OBJ.d naming OBJ, not the temporary bitcode. */
		const char *dot = strrchr(obj, '.');
		int base = dot && !strchr(dot, '/') ? (int)(dot - obj) : (int)strlen(obj);

		snprintf(dep, sizeof(dep), "%.*s.d", base, obj);
		av[k++] = "-MF";
		av[k++] = dep;
		av[k++] = "-MT";
		av[k++] = (char *)obj;
	}
	av[k++] = "-emit-llvm";
	av[k++] = "-c";
	av[k++] = (char *)src;
	av[k++] = "-o";
	av[k++] = bc;
	av[k] = NULL;
	rc = cc_run(av, c->verbose);
	if (rc)
		goto out;
	k = 0;
	av[k++] = c->ccopt;
	if (c->explain)
		av[k++] = "--explain";
	if (c->max_codes) {
		av[k++] = "--max-codes";
		av[k++] = (char *)c->max_codes;
	}
	if (c->no_strict_aliasing)
		av[k++] = "--no-strict-aliasing";
	if (c->no_untimed)
		av[k++] = "--no-untimed";
	if (c->round_gain) {
		av[k++] = "--round-gain";
		av[k++] = (char *)c->round_gain;
	}
	if (c->prof_file[0]) {
		av[k++] = "--profile";
		av[k++] = c->prof_file;
	}
	av[k++] = "--name";
	av[k++] = (char *)src;
	av[k++] = bc;
	av[k++] = obc;
	av[k] = NULL;
	rc = cc_run(av, c->verbose);
	if (rc)
		goto out;
	k = 0;
	av[k++] = (char *)c->clang;
	for (int i = 0; i < c->nopts; i++) {
		if (cc_is_pp_opt(c->opts[i])) {
			/* Skip its separate value too. */
			if (cc_takes_arg(c->opts[i]) && i + 1 < c->nopts)
				i++;
			continue;
		}
		av[k++] = c->opts[i];
	}
	av[k++] = "-Wno-unused-command-line-argument";
	av[k++] = "-c";
	av[k++] = obc;
	av[k++] = "-o";
	av[k++] = (char *)obj;
	av[k] = NULL;
	rc = cc_run(av, c->verbose);
out:
	free(av);
	return rc;
}

/* Codes of spool cc's own options (long-only). */
enum {
	CC_O_EXPLAIN = RUN_OPT_LONG,
	CC_O_MAX_CODES,
	CC_O_PROFILE,
	CC_O_ROUND_GAIN,
	CC_O_NO_UNTIMED,
};

/* spool cc's own options, in the order --help lists them. Every other
 * argument is clang's (-v is both: spool cc says its steps and clang gets
 * it), so these are found by their exact spelling (run_opts_own_find), not
 * with getopt; one without its value goes to clang as given. */
static const struct run_opt_own cc_own_opts[] = {
    {"explain", no_argument, CC_O_EXPLAIN,
     "  --explain   say per file how many trace calls were merged and how many\n"
     "              arguments are no longer emitted\n"},
    {"max-codes", required_argument, CC_O_MAX_CODES,
     "  --max-codes N  at most N merged event codes per file: the merges that\n"
     "              save the most (estimated) are kept, the rest left as written\n"},
    {"profile", required_argument, CC_O_PROFILE,
     "  --profile TRACE  estimate with the event counts of an earlier run's trace\n"
     "              (plain or spool cc build) instead of loop depths\n"},
    {"round-gain", required_argument, CC_O_ROUND_GAIN,
     "  --round-gain PCT  the moving rounds go on while a round saves at least\n"
     "              PCT percent of the estimated trace words per run (default 1)\n"},
    {"no-untimed", no_argument, CC_O_NO_UNTIMED,
     "  --no-untimed  every merged record reads the time stamp counter (by\n"
     "              default one after straight-line code from the record before\n"
     "              takes that record's time plus an estimate)\n"},
};

#define CC_NOPTS (sizeof(cc_own_opts) / sizeof(cc_own_opts[0]))

/* The row of cc_own_opts argv[i] is, with its value when it takes one
 * (argv[i + 1]), or NULL: an argument for clang (one of ours without its
 * value too, as it always went). */
static const struct run_opt_own *cc_own(int argc, char **argv, int i)
{
	const struct run_opt_own *o = run_opts_own_find(cc_own_opts, CC_NOPTS, argv[i]);

	return o && (o->has_arg == no_argument || i + 1 < argc) ? o : NULL;
}

/* Option o of cc_own_opts with its value val (NULL for a flag). */
static void cc_own_set(struct cc_ctx *c, const struct run_opt_own *o, const char *val)
{
	switch (o->val) {
	case CC_O_EXPLAIN:
		c->explain = 1;
		break;
	case CC_O_NO_UNTIMED:
		c->no_untimed = 1;
		break;
	case CC_O_MAX_CODES:
		c->max_codes = val;
		break;
	case CC_O_PROFILE:
		c->profile = val;
		break;
	case CC_O_ROUND_GAIN:
		c->round_gain = val;
		break;
	}
}

static void cc_usage(FILE *out)
{
	fprintf(out,
		"usage: spool cc [--explain] [--max-codes N] [--profile TRACE] [--round-gain PCT]\n"
		"                [--no-untimed] [-v] CLANG-OPTIONS AND FILES...\n"
		"\n"
		"Compile like clang, with the program's trace calls (spool/trace.h)\n"
		"optimized: merged per basic block, constant and repeated arguments left\n"
		"out, a translation table in the binary for spool decode. Use as\n"
		"CC=\"spool cc\". Files that are not C go to clang as given.\n"
		"\n"
		"options of its own:\n");
	run_opts_own_usage(out, cc_own_opts, CC_NOPTS);
	fprintf(out,
		"  environment: SPOOL_CLANG (default clang-14), SPOOL_CCOPT (the optimizer)\n"
		"\n"
		"Exit status: 0 when every step succeeded; else that of the first step that\n"
		"failed (clang's, or the optimizer's: their messages say why); 1 when spool\n"
		"cc itself fails (the optimizer is not there, no temporary directory, a\n"
		"profile it cannot read); 2 on a usage error (no arguments, -o with -c and\n"
		"several input files).\n");
}

int cmd_cc(int argc, char **argv)
{
	struct cc_ctx c = {0};
	char self[PATH_MAX], **inputs = NULL, **link = NULL, **objs = NULL;
	const char *out = NULL;
	int ninputs = 0, nc = 0, compile_only = 0, passthrough = 0, rc = 1, k = 0;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		cc_usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_USAGE : 0;
	}
	c.clang = getenv("SPOOL_CLANG") ? getenv("SPOOL_CLANG") : "clang-14";
	if (files_self_dir(self, sizeof(self)) < 0) {
		log_err("cannot find the spool executable");
		return 1;
	}
	if (getenv("SPOOL_CCOPT"))
		snprintf(c.ccopt, sizeof(c.ccopt), "%s", getenv("SPOOL_CCOPT"));
	else {
		snprintf(c.ccopt, sizeof(c.ccopt), "%s/spool-ccopt", self);
		if (!cc_exists(c.ccopt))
			snprintf(c.ccopt, sizeof(c.ccopt), "%s/../lib/spool/spool-ccopt", self);
	}
	snprintf(c.incdir, sizeof(c.incdir), "-I%s/../include", self);
	c.opts = cc_argv_new(argc + 1);
	inputs = cc_argv_new(argc + 1);
	link = cc_argv_new(argc + 8);
	objs = cc_argv_new(argc + 1);
	if (!c.opts || !inputs || !link || !objs)
		goto out;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const struct run_opt_own *o = cc_own(argc, argv, i);

		if (o) {
			cc_own_set(&c, o, o->has_arg ? argv[++i] : NULL);
		} else if (!strcmp(a, "-v")) {
			c.verbose = 1;
			c.opts[c.nopts++] = argv[i];
		} else if (!strcmp(a, "-o") && i + 1 < argc) {
			out = argv[++i];
		} else if (!strcmp(a, "-c")) {
			compile_only = 1;
		} else if (a[0] == '-' && a[1]) {
			if (!strcmp(a, "-E") || !strcmp(a, "-S") || !strcmp(a, "-M") ||
			    !strcmp(a, "-MM") || !strcmp(a, "-fsyntax-only") ||
			    !strcmp(a, "-emit-llvm") || !strcmp(a, "-x") || !strncmp(a, "-x", 2))
				passthrough = 1;
			if (!strcmp(a, "-MD") || !strcmp(a, "-MMD"))
				c.has_md = 1;
			if (!strcmp(a, "-MF"))
				c.has_mf = 1;
			/* The last one given wins, as in clang. */
			if (!strcmp(a, "-fno-strict-aliasing"))
				c.no_strict_aliasing = 1;
			if (!strcmp(a, "-fstrict-aliasing"))
				c.no_strict_aliasing = 0;
			c.opts[c.nopts++] = argv[i];
			if (cc_takes_arg(a) && i + 1 < argc)
				c.opts[c.nopts++] = argv[++i];
		} else {
			inputs[ninputs++] = argv[i];
			nc += cc_is_c(a);
		}
	}
	if (passthrough || !nc) {
		/* Nothing for the optimizer: clang as the user called it. */
		char **av = cc_argv_new(argc + 1);

		if (!av)
			goto out;
		av[0] = (char *)c.clang;
		for (int i = 1, j = 1; i < argc; i++) {
			const struct run_opt_own *o = cc_own(argc, argv, i);

			if (!o)
				av[j++] = argv[i];
			else if (o->has_arg)
				i++;
		}
		rc = cc_run(av, c.verbose);
		free(av);
		goto out;
	}
	if (compile_only && out && ninputs > 1) {
		log_err("cannot use -o with -c and several input files");
		rc = EXIT_USAGE;
		goto out;
	}
	if (!cc_exists(c.ccopt)) {
#ifdef SPOOL_NO_CCOPT
		/* make ARCH=aarch64 without an arm64 LLVM builds no spool-ccopt:
		 * the optimizer runs on the host, cross-compiling. */
		log_err("the trace optimizer %s is not there: this aarch64 build has none; "
			"compile on the host with spool cc --target=aarch64-linux-gnu "
			"--sysroot=BOARD_ROOT (doc/arm64.md), or set SPOOL_CCOPT",
			c.ccopt);
#else
		log_err("the trace optimizer %s is not there (build it, or set SPOOL_CCOPT)",
			c.ccopt);
#endif
		goto out;
	}
	snprintf(c.tmpdir, sizeof(c.tmpdir), "/tmp/spool-cc.XXXXXX");
	if (!mkdtemp(c.tmpdir)) {
		log_err("cannot create a temporary directory: %s", strerror(errno));
		c.tmpdir[0] = '\0';
		goto out;
	}
	if (c.profile) {
		/* The profile's events per id, counted once for all the files. */
		char spool_exe[PATH_MAX + 16];
		char *av[] = {spool_exe, "decode", "--counts", (char *)c.profile, NULL};

		snprintf(spool_exe, sizeof(spool_exe), "%s/spool", self);
		snprintf(c.prof_file, sizeof(c.prof_file), "%s/profile", c.tmpdir);
		rc = cc_run_to(av, c.verbose, c.prof_file);
		if (rc) {
			log_err("cannot read the profile %s (spool decode --counts failed; a trace "
				"of a binary rebuilt since can be decoded first with spool decode "
				"--trace-out)",
				c.profile);
			goto out;
		}
	}
	for (int i = 0; i < ninputs; i++) {
		char obj[PATH_MAX];

		if (!cc_is_c(inputs[i])) {
			objs[i] = NULL;
			continue;
		}
		if (compile_only && out) {
			snprintf(obj, sizeof(obj), "%s", out);
		} else if (compile_only) {
			char tmp[PATH_MAX];
			const char *b;

			snprintf(tmp, sizeof(tmp), "%s", inputs[i]);
			b = basename(tmp);
			snprintf(obj, sizeof(obj), "%.*s.o", (int)strlen(b) - 2, b);
		} else {
			snprintf(obj, sizeof(obj), "%s/%d.o", c.tmpdir, i);
		}
		objs[i] = strdup(obj);
		if (!objs[i])
			goto out;
		rc = cc_compile_one(&c, inputs[i], obj, i);
		if (rc)
			goto out;
	}
	rc = 0;
	if (compile_only && nc == ninputs)
		goto out;
	/* Link (or compile the other inputs): clang with the objects in place of
	 * the C files. */
	link[k++] = (char *)c.clang;
	for (int i = 0; i < c.nopts; i++)
		link[k++] = c.opts[i];
	link[k++] = "-Wno-unused-command-line-argument";
	if (compile_only)
		link[k++] = "-c";
	for (int i = 0; i < ninputs; i++)
		if (!compile_only || !objs[i])
			link[k++] = objs[i] ? objs[i] : inputs[i];
	if (out && !compile_only) {
		link[k++] = "-o";
		link[k++] = (char *)out;
	}
	link[k] = NULL;
	rc = cc_run(link, c.verbose);
out:
	if (c.tmpdir[0]) {
		char *rm[] = {"rm", "-rf", c.tmpdir, NULL};

		cc_run(rm, 0);
	}
	if (objs)
		for (int i = 0; i < ninputs; i++)
			free(objs[i]);
	free(objs);
	free(link);
	free(inputs);
	free(c.opts);
	return rc;
}
