// SPDX-License-Identifier: MIT
/*
 * fuzz_coverage.c - libFuzzer harness of `spool report --coverage`
 * (src/analyze/coverage.c): the "coverage" and "probes" side files of a
 * crafted trace, as text, JSON and an lcov .info file.
 *
 * Option byte 0: bit 0 JSON, bit 1 also write the .info file.
 */
#include <stdint.h>
#include <stdio.h>

#include "../src/analyze/coverage.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_input in;
	struct coverage_opts co = {.limit = 30};
	char info[400];
	unsigned o;

	if (fuzz_unpack(data, size, &in) < 0)
		return 0;
	o = fuzz_opt(&in, 0);
	co.json = o & 1;
	if (o & 2) {
		snprintf(info, sizeof(info), "%s/out.info", in.extra_dir);
		co.info_path = info;
	}
	coverage_report_dir(in.trace_dir, &co, fuzz_null());
	return 0;
}
