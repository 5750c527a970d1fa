// SPDX-License-Identifier: MIT
/*
 * main.c - the spool command: one table of subcommands, global help.
 *
 * Every subcommand lives in src/cmd/<name>.c and parses its own options;
 * adding one means adding a row here and a page in doc/.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "collect/stream_send.h"
#include "trace/trace.h"
#include "util/log.h"

#define SPOOL_VERSION "0.1.0"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static int cmd_help(int argc, char **argv);

static const struct command commands[] = {
	{"locks", cmd_locks, "run a program and profile its locks, semaphores and condition variables"},
	{"report", cmd_report, "print a report from a trace (--locks, --functions, --coverage, ...)"},
	{"export", cmd_export, "convert a trace for Perfetto UI (--perfetto) or chrome://tracing (--chrome)"},
	{"info", cmd_info, "describe a trace: processes, threads, events, losses, problems"},
	{"recover", cmd_recover, "keep (renamed) or remove the partial trace a killed spool left"},
	{"cc", cmd_cc, "compile C like clang, with the program's trace calls optimized"},
	{"decode", cmd_decode, "print a trace's program events as the unoptimized build writes them"},
	{"probe", cmd_probe, "probe an unmodified program, launched or running (-p PID): functions, blocks, branches"},
	{"path", cmd_path, "the thread path: which thread called which function on which object"},
	{"record", cmd_record, "run a program and record its schedule and inputs for spool replay"},
	{"replay", cmd_replay, "run a recorded program again with the recorded schedule and inputs"},
	{"receive", cmd_receive, "receive a trace a board sends with --stream HOST:PORT, into a directory"},
	{"help", cmd_help, "show this help, or a command's help (spool help COMMAND)"},
};

static void usage(FILE *out)
{
	fprintf(out, "usage: spool COMMAND [OPTIONS] [ARGS]\n\n"
		     "spool shows what multithreaded programs really do.\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\noptions:\n"
		     "  -h, --help     show this help\n"
		     "  -V, --version  print the version and the trace format it reads and writes\n"
		     "\nenvironment:\n"
		     "  SPOOL_DEBUG=1  spool and its agent say what they do on stderr\n"
		     "  SPOOL_AGENT    the agent to preload (default: beside spool, else ../lib/spool)\n"
		     "\n'spool COMMAND --help' shows a command's options.\n"
		     "Traces are CTF 1.8 directories (doc/trace-format.md); babeltrace2 reads them.\n"
		     "\nExit status: a command that runs a program exits with the program's status\n"
		     "(128+N if signal N killed it; 127 if it is not found, 126 if it is not\n"
		     "executable), or 4 if that is 0 but the trace is incomplete; 1 when spool\n"
		     "finds a problem (a trace that cannot be made, read or written); 2 on a usage\n"
		     "error; spool replay exits 3 when the replay diverged; spool record exits 5\n"
		     "when the program's status is 0 but spool replay would refuse the recording.\n");
}

/* What a bug report needs: the release, and which traces this build can
 * read (a trace's metadata names its format version). */
static void print_version(void)
{
	int w = trace_format_written(), r = trace_format_read_min();

	printf("spool %s\n", SPOOL_VERSION);
	if (r == w)
		printf("trace format: version %d (CTF 1.8), read and written\n", w);
	else
		printf("trace format: writes version %d, reads versions %d to %d (CTF 1.8)\n", w, r,
		       w);
}

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static int cmd_help(int argc, char **argv)
{
	const struct command *c;
	char *sub[] = {NULL, "--help", NULL};

	if (argc < 2) {
		usage(stdout);
		return 0;
	}
	c = find_command(argv[1]);
	if (!c || c->fn == cmd_help) {
		if (!c)
			fprintf(stderr, "spool: unknown command '%s'\n", argv[1]);
		usage(c ? stdout : stderr);
		return c ? 0 : EXIT_USAGE;
	}
	sub[0] = argv[1];
	return c->fn(2, sub);
}

int main(int argc, char **argv)
{
	const struct command *c;

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		print_version();
		return 0;
	}
	/* The agent's switch (agent_main.c) says what spool does too. */
	{
		const char *dbg = getenv("SPOOL_DEBUG");

		log_verbose = dbg && *dbg && *dbg != '0';
	}
	c = find_command(argv[1]);
	if (!c) {
		fprintf(stderr, "spool: unknown command '%s' (see 'spool help')\n", argv[1]);
		return EXIT_USAGE;
	}
	{
		int rc = c->fn(argc - 1, argv + 1);

		/* --stream: the rest of the trace, now that the command wrote
		 * everything; a receiver without the whole trace is an
		 * incomplete trace (the local one is kept, and said). */
		if (stream_send_finish() < 0 && rc == 0)
			rc = EXIT_INCOMPLETE;
		return rc;
	}
}
