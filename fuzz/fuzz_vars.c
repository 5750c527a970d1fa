// SPDX-License-Identifier: MIT
/*
 * fuzz_vars.c - libFuzzer harness of the reports of variable, assertion,
 * time and system probes: `spool report --vars` (src/analyze/vars.c) and
 * `--sys` (src/analyze/sysreport.c) of a crafted trace.
 *
 * Option byte 0: bit 0 JSON, bit 1 no row limit.
 */
#include <stdint.h>

#include "../src/analyze/sysreport.h"
#include "../src/analyze/vars.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_input in;
	struct vars_opts vo = {.limit = 30};
	struct sysreport_opts so = {0};
	unsigned o;

	if (fuzz_unpack(data, size, &in) < 0)
		return 0;
	o = fuzz_opt(&in, 0);
	vo.json = so.json = o & 1;
	if (o & 2)
		vo.limit = 0;
	vars_report_dir(in.trace_dir, &vo, fuzz_null());
	sysreport_dir(in.trace_dir, &so, fuzz_null());
	return 0;
}
