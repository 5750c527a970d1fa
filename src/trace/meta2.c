// SPDX-License-Identifier: MIT
/*
 * meta2.c - the TSDL of trace format 2 (doc/trace-format.md, "Version 2:
 * compact events" and "Metadata"): the compact/extended event header that
 * babeltrace2 knows from LTTng, the packet context with first_seq and
 * events, and one event class per kind (full) and per short form, each with
 * its own field names and op enumeration. Every offset reader and writer use
 * follows from these declarations (byte-aligned fields, no padding).
 */
#include <stdio.h>

#include "../common/event.h"
#include "kinds.h"
#include "trace_int.h"

static void enum8(FILE *f, const char *name, const char *const *names, int n)
{
	fprintf(f, "enum %s : uint8_t {\n", name);
	for (int i = 0; i < n; i++)
		fprintf(f, "\t%s = %d%s\n", names[i], i, i + 1 < n ? "," : "");
	fputs("};\n\n", f);
}

static void event(FILE *f, const char *name, unsigned id, const char *fields)
{
	fprintf(f,
		"event {\n"
		"\tname = \"%s\";\n"
		"\tid = %u;\n"
		"\tstream_id = 0;\n"
		"\tfields := struct {\n"
		"%s"
		"\t};\n"
		"};\n\n",
		name, id, fields);
}

/* The op and object fields of a table kind's full class. */
static const char *table_head(unsigned kind)
{
	switch (kind) {
	case KIND_PROBE:
		return "\t\tenum spool_probe_op8 op;\n\t\tuint32_t probe;\n";
	case KIND_FUNC:
		return "\t\tenum spool_func_op8 op;\n\t\tuint32_t obj;\n";
	case KIND_INPUT:
		return "\t\tenum spool_input_op8 op;\n\t\tuint32_t obj;\n";
	case KIND_SCHED: /* its fields have an op and an obj: the word's are word_op and lock */
		return "\t\tuint8_t word_op;\n\t\tuint32_t lock;\n";
	default:
		return "\t\tuint8_t op;\n\t\tuint32_t obj;\n";
	}
}

void trace_meta2_print(FILE *f)
{
	const struct trace_kind_desc *d;
	char buf[2048];

	fputs("typealias integer { size = 16; align = 8; signed = false; } := uint16_t;\n"
	      "typealias integer { size = 16; align = 8; signed = true; } := int16_t;\n"
	      "typealias integer { size = 5; align = 1; signed = false; } := uint5_t;\n"
	      "typealias integer { size = 27; align = 1; signed = false; "
	      "map = clock.spool_tsc.value; } := uint27_clock_t;\n\n",
	      f);
	enum8(f, "spool_op8", trace_lock_op_names, OP_MAX);
	enum8(f, "spool_probe_op8", trace_probe_op_names, trace_probe_ops);
	enum8(f, "spool_func_op8", trace_func_op_names, trace_func_ops);
	enum8(f, "spool_input_op8", trace_input_op_names, trace_input_ops);
	fprintf(f,
		"stream {\n"
		"\tid = 0;\n"
		"\tpacket.context := struct {\n"
		"\t\tuint64_clock_t timestamp_begin;\n"
		"\t\tuint64_clock_t timestamp_end;\n"
		"\t\tuint64_t content_size;\n"
		"\t\tuint64_t packet_size;\n"
		"\t\tuint64_t packet_seq_num;\n"
		"\t\tuint64_t events_discarded;\n"
		"\t\tuint32_t pid;\n"
		"\t\tuint32_t tid;\n"
		"\t\tuint32_t first_seq;\n"
		"\t\tuint32_t events;\n"
		"\t};\n"
		"\tevent.header := struct {\n"
		"\t\tenum : uint5_t { compact = 0 ... %u, extended = %u } id;\n"
		"\t\tvariant <id> {\n"
		"\t\t\tstruct {\n"
		"\t\t\t\tuint27_clock_t timestamp;\n"
		"\t\t\t} compact;\n"
		"\t\t\tstruct {\n"
		"\t\t\t\tuint32_t id;\n"
		"\t\t\t\tuint64_clock_t timestamp;\n"
		"\t\t\t} extended;\n"
		"\t\t} v;\n"
		"\t} align(8);\n"
		"};\n\n",
		TRACE2_EXTENDED - 1, TRACE2_EXTENDED);
	event(f, "spool:lock", KIND_LOCK,
	      "\t\tenum spool_op8 op;\n\t\tuint32_t lock;\n\t\tuint64_hex_t ip;\n"
	      "\t\tuint64_t arg;\n\t\tuint32_t nstack;\n\t\tuint64_hex_t stack[nstack];\n");
	event(f, "spool:thread", KIND_THREAD,
	      "\t\tuint8_t op;\n\t\tuint32_t obj;\n\t\tuint32_t seq;\n\t\tuint32_t tid;\n"
	      "\t\tuint32_t pid;\n\t\tuint64_hex_t pthread;\n"
	      "\t\tinteger { size = 8; align = 8; signed = false; encoding = UTF8; } name[16];\n");
	event(f, "spool:lockdef", KIND_LOCKDEF,
	      "\t\tuint8_t op;\n\t\tuint32_t lock;\n\t\tuint64_hex_t addr;\n"
	      "\t\tuint64_hex_t init_ip;\n\t\tenum spool_lock_type type;\n\t\tuint32_t pid;\n");
	event(f, "spool:proc", KIND_PROC,
	      "\t\tuint8_t op;\n\t\tuint32_t obj;\n\t\tuint32_t pid;\n\t\tuint32_t ppid;\n"
	      "\t\tuint32_t proc_slot;\n\t\tuint32_t flags;\n");
	event(f, "spool:user", KIND_USER,
	      "\t\tuint8_t op;\n\t\tuint32_t obj;\n\t\tuint32_t id;\n\t\tuint32_t nargs;\n"
	      "\t\tinteger { size = 64; align = 8; signed = true; } args[nargs];\n");
	for (unsigned i = 0; (d = trace_kind_at(i)); i++) {
		snprintf(buf, sizeof(buf), "%s%s", table_head(d->kind), d->tsdl_fields);
		event(f, d->name, trace2_class_of(d->kind), buf);
	}
	event(f, "spool:site", TRACE2_SITE,
	      "\t\tuint32_t index;\n\t\tuint32_t probe;\n\t\tuint64_hex_t addr;\n"
	      "\t\tuint64_hex_t caller;\n");
	event(f, "spool:lock_op", TRACE2_LOCK_OP,
	      "\t\tenum spool_op8 op;\n\t\tuint32_t lock;\n\t\tuint16_t site;\n");
	/* (format 2.2 named 18 spool:lock_release; a 2.2 trace keeps its
	 * own metadata, and no writer uses 18 now) */
	event(f, "spool:lock_release_prev", TRACE2_LOCK_RELEASE, "\t\tuint16_t site;\n");
	event(f, "spool:lock_release", TRACE2_RELEASE, "\t\tuint16_t site;\n\t\tuint16_t lock;\n");
	event(f, "spool:func_entry", TRACE2_FUNC_ENTRY, "\t\tuint16_t site;\n");
	event(f, "spool:func_exit", TRACE2_FUNC_EXIT, "\t\tuint16_t site;\n");
	event(f, "spool:probe_entry", TRACE2_PROBE_ENTRY,
	      "\t\tuint16_t site;\n\t\tint16_t sp_delta;\n");
	event(f, "spool:probe_exit", TRACE2_PROBE_EXIT,
	      "\t\tuint16_t site;\n\t\tint16_t sp_delta;\n");
	event(f, "spool:probe_hit", TRACE2_PROBE_HIT,
	      "\t\tuint16_t site;\n\t\tint16_t sp_delta;\n");
}
