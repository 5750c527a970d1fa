// SPDX-License-Identifier: MIT
/*
 * fuzz_path.c - libFuzzer harness of `spool path TRACE` (src/analyze/
 * path*.c): the call path or the never-entered functions of a crafted
 * trace. The executable it names (proc/PID.exe) is read if it exists on
 * this machine, which is the case of the seeds made by
 * scripts/fuzz-seeds.sh.
 *
 * Option byte 0: bit 0 exits, bit 1 JSON, bit 2 --check, bits 3-4 the
 * source of entries (auto, finstrument, probes), bit 5 one thread only.
 */
#include <stdint.h>

#include "../src/analyze/path.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_input in;
	struct path_opts po = {0};
	unsigned o;

	if (fuzz_unpack(data, size, &in) < 0)
		return 0;
	o = fuzz_opt(&in, 0);
	po.exits = o & 1;
	po.json = (o >> 1) & 1;
	po.check = (o >> 2) & 1;
	po.functions = (int)((o >> 3) & 3) % 3;
	po.thread = (o & 32) ? (int64_t)fuzz_opt(&in, 1) : -1;
	po.say_source = 1;
	path_report_dir(in.trace_dir, &po, fuzz_null());
	return 0;
}
