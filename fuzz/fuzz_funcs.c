// SPDX-License-Identifier: MIT
/*
 * fuzz_funcs.c - libFuzzer harness of the function reports of probe traces:
 * `spool report --functions` (src/analyze/funcs.c, callstack.c) and the
 * folded stacks and flame graph of `spool export` (src/analyze/flame.c).
 *
 * Option byte 0: bit 0 JSON, bits 1-2 which output (report, folded, SVG,
 * all), bit 3 weight by calls.
 */
#include <stdint.h>

#include "../src/analyze/flame.h"
#include "../src/analyze/funcs.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_input in;
	struct funcs_opts fo = {.limit = 30, .callers = 3};
	struct flame_opts fl = {0};
	unsigned o, what;

	if (fuzz_unpack(data, size, &in) < 0)
		return 0;
	o = fuzz_opt(&in, 0);
	what = (o >> 1) & 3;
	fo.json = o & 1;
	fl.weight = (o & 8) ? FLAME_WEIGHT_CALLS : FLAME_WEIGHT_TIME;
	if (what == 0 || what == 3)
		funcs_report_dir(in.trace_dir, &fo, fuzz_null());
	if (what == 1 || what == 3) {
		fl.format = FLAME_FOLDED;
		flame_export_dir(in.trace_dir, &fl, fuzz_null());
	}
	if (what == 2 || what == 3) {
		fl.format = FLAME_SVG;
		flame_export_dir(in.trace_dir, &fl, fuzz_null());
	}
	return 0;
}
