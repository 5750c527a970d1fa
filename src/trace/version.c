// SPDX-License-Identifier: MIT
/*
 * version.c - the trace format versions this build reads and writes, for
 * `spool --version` (the numbers are private to src/trace, trace_int.h).
 * The reader reads versions TRACE_FORMAT_MIN to TRACE_FORMAT_VERSION (reader.c).
 */
#include "trace.h"
#include "trace_int.h"

int trace_format_written(void)
{
	return TRACE_FORMAT_VERSION;
}

int trace_format_read_min(void)
{
	return TRACE_FORMAT_MIN;
}
