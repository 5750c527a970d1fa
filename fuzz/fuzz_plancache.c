// SPDX-License-Identifier: MIT
/*
 * fuzz_plancache.c - libFuzzer harness of the plan cache's reader
 * (src/probe/probe_cache.c): the input is a plan file, read as
 * probe_cache_load reads one that passed the owner and mode checks, with
 * the key "fuzz" and without comparing build ids with the files (a fuzzer
 * cannot make those match). A plan it accepts is then used as spool uses
 * one: the agent's area filled, the probe and coverage tables, --list.
 * fuzz/corpus/plancache has a real plan (func: and block: of libc.so.6:abs,
 * under /bin/true)
 * with its key rewritten to "fuzz".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../src/probe/probe.h"
#include "../src/probe/probe_cache.h"
#include "fuzz.h"

#define FUZZ_AREA_MAX (64ull << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct probe_mgr m;
	const char *why;
	char *msgs = NULL, *text = NULL;
	size_t msgs_len = 0, len = 0;
	uint64_t asz;

	if (probe_mgr_init(&m, "/bin/true") < 0)
		return 0;
	if (probe_cache_load_buf(&m, "fuzz", data, size, 0, &msgs, &msgs_len, &why) == 1) {
		asz = probe_mgr_area_size(&m);
		if (asz && asz <= FUZZ_AREA_MAX) {
			void *area = calloc(1, asz);

			if (area)
				probe_mgr_fill_area(&m, area, asz);
			free(area);
		}
		if (probe_mgr_table(&m, &text, &len) == 0)
			free(text);
		if (probe_mgr_cfg_table(&m, &text, &len) == 0)
			free(text);
		probe_mgr_print_list(&m, fuzz_null());
	}
	free(msgs);
	probe_mgr_free(&m);
	return 0;
}
