// SPDX-License-Identifier: MIT
/*
 * fuzz_locks.c - libFuzzer harness of the lock analyzer (src/analyze/
 * lockstat*.c): `spool report --locks` of a crafted trace, as text or JSON.
 *
 * Option byte 0: bit 0 JSON, bits 1-3 the sort order, bit 4 no row limit.
 */
#include <stdint.h>

#include "../src/analyze/lockstat.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lockstat_print_opts po;
	struct fuzz_input in;
	unsigned o;

	if (fuzz_unpack(data, size, &in) < 0)
		return 0;
	o = fuzz_opt(&in, 0);
	lockstat_print_opts_init(&po);
	po.json = o & 1;
	po.header = !po.json;
	po.sort = (int)((o >> 1) & 7) % (LOCKSTAT_SORT_NAME + 1);
	if (o & 16)
		po.limit = 0;
	lockstat_report_dir(in.trace_dir, &po, fuzz_null());
	return 0;
}
