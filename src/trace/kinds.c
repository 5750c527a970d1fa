// SPDX-License-Identifier: MIT
/*
 * kinds.c - the table of record kinds that writer and reader copy as they
 * are (see kinds.h). One row per kind; keep the TSDL in step with the C
 * struct of src/common/event.h, field for field, padding included.
 */
#include <stddef.h>

#include "../common/event.h"
#include "kinds.h"

static const struct trace_kind_desc kinds[] = {
	/* Rows are added here by the features that define new kinds. */
	{KIND_PROBE, "spool:probe", sizeof(struct rec_probe) - sizeof(struct rec_hdr), -1, 0,
	 "\t\tuint64_hex_t addr;\n\t\tuint64_hex_t sp;\n\t\tuint64_hex_t ret_ip;\n"
	 "\t\tuint64_t args[3];\n"},
	{KIND_FUNC, "spool:func", sizeof(struct rec_func) - sizeof(struct rec_hdr), -1, 0,
	 "\t\tuint64_hex_t fn;\n\t\tuint64_hex_t site;\n\t\tuint32_t depth;\n\t\tuint32_t pad;\n"},
	{KIND_SCHED, "spool:sched", sizeof(struct rec_sched) - sizeof(struct rec_hdr), -1, 0,
	 "\t\tuint32_t thread;\n\t\tuint32_t tseq;\n\t\tuint32_t obj;\n\t\tuint32_t turn;\n"
	 "\t\tuint32_t op;\n\t\tinteger { size = 32; align = 8; signed = true; } result;\n"
	 "\t\tuint64_t arg;\n"},
	{KIND_INPUT, "spool:input", sizeof(struct rec_input) - sizeof(struct rec_hdr), 44, 8,
	 "\t\tuint32_t thread;\n\t\tuint32_t tseq;\n\t\tuint32_t call;\n"
	 "\t\tinteger { size = 32; align = 8; signed = true; } fd;\n"
	 "\t\tinteger { size = 64; align = 8; signed = true; } result;\n\t\tuint64_t arg;\n"
	 "\t\tinteger { size = 32; align = 8; signed = true; } err;\n\t\tuint32_t len;\n"
	 "\t\tuint32_t chunk_off;\n\t\tuint32_t nwords;\n\t\tuint64_t data[nwords];\n"},
	{KIND_TNAME, "spool:thread_name", sizeof(struct rec_tname) - sizeof(struct rec_hdr), -1, 0,
	 "\t\tuint32_t tid;\n\t\tuint32_t pid;\n"
	 "\t\tinteger { size = 8; align = 8; signed = false; encoding = UTF8; } name[16];\n"},
	{0, NULL, 0, -1, 0, NULL},
};

const struct trace_kind_desc *trace_kind_at(unsigned i)
{
	if (i >= sizeof(kinds) / sizeof(kinds[0]) || !kinds[i].name)
		return NULL;
	return &kinds[i];
}

const struct trace_kind_desc *trace_kind_find(unsigned kind)
{
	const struct trace_kind_desc *d;

	for (unsigned i = 0; (d = trace_kind_at(i)); i++)
		if (d->kind == kind)
			return d;
	return NULL;
}
