// SPDX-License-Identifier: MIT
/*
 * fuzz_export.c - libFuzzer harness of `spool export --perfetto / --chrome`
 * (src/analyze/export_*.c): the timeline model and both writers over a
 * crafted trace, with the symbolizer as the command uses it.
 *
 * Option byte 0: bit 0 Chrome JSON instead of Perfetto, bit 1 --force.
 */
#include <stdint.h>

#include "../src/analyze/export.h"
#include "../src/trace/trace.h"
#include "../src/util/symbolize.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_input in;
	struct export_options eo = {0};
	struct export_perfetto *pf = NULL;
	struct export_chrome *ch = NULL;
	struct export_stats st = {0};
	struct trace_problem prob = {0};
	struct trace_reader *r = NULL;
	struct symbolizer *sym = NULL;
	struct trace_event ev;
	unsigned o;
	int rc;

	if (fuzz_unpack(data, size, &in) < 0)
		return 0;
	o = fuzz_opt(&in, 0);
	if (trace_reader_open(&r, in.trace_dir, &prob) < 0)
		return 0;
	if (symbolizer_open(&sym, r) < 0)
		goto out_reader;
	eo.sym = sym;
	eo.r = r;
	eo.force = (o >> 1) & 1;
	rc = (o & 1) ? export_chrome_open(&ch, fuzz_null(), &eo)
		     : export_perfetto_open(&pf, fuzz_null(), &eo);
	if (rc < 0)
		goto out_sym;
	for (size_t i = 0; i < trace_reader_nstreams(r); i++) {
		const struct trace_stream_info *si = trace_reader_stream(r, i);

		export_model_thread_hint(pf ? export_perfetto_model(pf) : export_chrome_model(ch),
					 si->stream_id, si->pid, si->tid);
	}
	while (trace_reader_next(r, &ev) > 0) {
		rc = pf ? export_perfetto_feed(pf, &ev) : export_chrome_feed(ch, &ev);
		if (rc < 0)
			break;
	}
	if (rc >= 0) {
		if (pf)
			export_perfetto_finish(pf, &st);
		else
			export_chrome_finish(ch, &st);
	}
	export_perfetto_free(pf);
	export_chrome_free(ch);
out_sym:
	symbolizer_close(sym);
out_reader:
	trace_reader_close(r);
	return 0;
}
