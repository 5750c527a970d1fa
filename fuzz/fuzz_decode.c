// SPDX-License-Identifier: MIT
/*
 * fuzz_decode.c - libFuzzer harness of `spool decode` (src/cmd/decode.c):
 * the spool cc translation table parser (format in src/cc/cc_table.h) and
 * the decoding of a crafted trace's merged events with it.
 *
 * The table comes from the container's "+table" entry (--table), a binary
 * from "+bin" (--binary), else from the executable the trace names. The
 * command prints to stdout, which the harness sends to /dev/null.
 *
 * Option byte 0: bit 0 --json, bit 1 --counts, bit 2 --no-cycles, bit 3
 * --trace-out.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../src/cmd/cmd.h"
#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (!freopen("/dev/null", "w", stdout))
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char table[400], bin[400], out[400];
	char *argv[16];
	struct fuzz_input in;
	unsigned o;
	int argc = 0;

	if (fuzz_unpack(data, size, &in) < 0)
		return 0;
	o = fuzz_opt(&in, 0);
	snprintf(table, sizeof(table), "%s/table", in.extra_dir);
	snprintf(bin, sizeof(bin), "%s/bin", in.extra_dir);
	snprintf(out, sizeof(out), "%s/out", in.extra_dir);
	argv[argc++] = "decode";
	if (access(table, F_OK) == 0) {
		argv[argc++] = "--table";
		argv[argc++] = table;
	}
	if (access(bin, F_OK) == 0) {
		argv[argc++] = "--binary";
		argv[argc++] = bin;
	}
	if (o & 1)
		argv[argc++] = "--json";
	if (o & 2)
		argv[argc++] = "--counts";
	if (o & 4)
		argv[argc++] = "--no-cycles";
	if (o & 8) {
		argv[argc++] = "--trace-out";
		argv[argc++] = out;
	}
	argv[argc++] = (char *)in.trace_dir;
	argv[argc] = NULL;
	cmd_decode(argc, argv);
	fflush(stdout);
	return 0;
}
