// SPDX-License-Identifier: MIT
/*
 * fuzz_probe.c - libFuzzer harness of the ELF and DWARF paths of
 * `spool probe` planning (src/probe/probe_elf.c, probe_cfg.c, probe_plan.c,
 * probe_dwarf.c, probe_fde.c, probe_var.c) and of the function table of
 * `spool path` (src/analyze/path_prog.c): a crafted executable, probed the
 * way `spool probe --list` probes one.
 *
 * The input is the executable itself (no container: an ELF file is what
 * mutates well), written to the scratch directory. Every kind of spec that
 * reads the file is planned: function entries and exits, blocks, branches,
 * arguments by DWARF, a variable, an assertion and a time probe, then the
 * tables and the agent's area are built from the plan. The same file is
 * then read as a trace's binary: symbolized through a maps line that maps
 * it (src/util/symbolize.c), and searched for a spool cc translation table
 * (`spool decode --binary`, src/cmd/decode.c).
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../src/analyze/path.h"
#include "../src/cmd/cmd.h"
#include "../src/probe/probe.h"
#include "../src/util/symbolize.h"
#include "fuzz.h"

#define FUZZ_AREA_MAX (64ull << 20)

static const char *const specs[] = {
    "func:*",
    "block:*",
    "branch:*",
    "args:*",
    "var:auto:argc@main:entry",
    "assert:argc > 0@main:exit",
    "time:main",
};

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (!freopen("/dev/null", "w", stdout)) /* spool decode's output */
		abort();
	return 0;
}

/* The file mapped at 0x400000 as a process's executable, and addresses in
 * it looked up the ways reports do. */
static void symbolize(const char *path)
{
	struct symbolizer *sym = NULL;
	struct sym_info si;
	char maps[600], buf[256];

	snprintf(maps, sizeof(maps), "00400000-00800000 r-xp 00000000 00:00 1 %s\n", path);
	if (symbolizer_open_maps(&sym, 1, maps, NULL) < 0)
		return;
	for (uint64_t a = 0x400000; a < 0x404000; a += 0x101) {
		symbolizer_lookup(sym, 1, a, &si);
		symbolizer_format(sym, 1, a, buf, sizeof(buf));
	}
	symbolizer_close(sym);
}

static int write_exe(const char *path, const uint8_t *data, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0700);
	size_t off = 0;

	if (fd < 0)
		return -1;
	while (off < size) {
		ssize_t w = write(fd, data + off, size - off);

		if (w <= 0)
			break;
		off += (size_t)w;
	}
	close(fd);
	return off == size ? 0 : -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct probe_mgr m;
	struct path_prog prog = {0};
	char path[400], err[256], *text;
	size_t len;
	uint64_t asize;

	snprintf(path, sizeof(path), "%s/exe", fuzz_scratch());
	if (write_exe(path, data, size) < 0)
		return 0;
	if (probe_mgr_init(&m, path) < 0)
		return 0;
	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		struct probe_spec s;

		if (probe_spec_parse(specs[i], &s, err, sizeof(err)) < 0)
			abort(); /* the harness's own specs must parse */
		if (probe_mgr_add_spec(&m, &s) < 0)
			break;
	}
	probe_mgr_plan_cfg(&m);
	probe_mgr_print_list(&m, fuzz_null());
	if (probe_mgr_table(&m, &text, &len) == 0)
		free(text);
	if (probe_mgr_has_cfg(&m) && probe_mgr_cfg_table(&m, &text, &len) == 0)
		free(text);
	if (probe_mgr_has_vars(&m) && probe_mgr_var_table(&m, &text, &len) == 0)
		free(text);
	asize = probe_mgr_area_size(&m);
	if (asize && asize <= FUZZ_AREA_MAX) {
		void *area = calloc(1, asize);

		if (area) {
			probe_mgr_fill_area(&m, area, asize);
			free(area);
		}
	}
	probe_mgr_free(&m);
	if (path_prog_load(&prog, path, 1) == 0) {
		for (size_t i = 0; i < prog.nfuncs; i++)
			path_prog_crt_name(prog.funcs[i].name);
		path_prog_find(&prog, prog.nfuncs ? prog.funcs[0].addr + 1 : 0);
	}
	path_prog_free(&prog);
	path_prog_instrumented(path);
	symbolize(path);
	{
		/* The trace does not exist: decode stops after the table. */
		char *argv[] = {"decode", "--binary", path, "/nonexistent/trace", NULL};

		cmd_decode(4, argv);
		fflush(stdout);
	}
	return 0;
}
