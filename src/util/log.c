// SPDX-License-Identifier: MIT
/*
 * log.c - stderr messages of the host tool. Not for the agent, which has its
 * own signal-safe logger.
 */
#include <stdarg.h>
#include <stdio.h>

#include "log.h"

int log_verbose;

static void log_v(const char *tag, const char *fmt, va_list ap)
{
	fputs("spool: ", stderr);
	if (tag)
		fputs(tag, stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void log_err(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	log_v("error: ", fmt, ap);
	va_end(ap);
}

void log_warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	log_v("warning: ", fmt, ap);
	va_end(ap);
}

void log_info(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	log_v(NULL, fmt, ap);
	va_end(ap);
}

void log_debug(const char *fmt, ...)
{
	va_list ap;
	if (log_verbose < 1)
		return;
	va_start(ap, fmt);
	log_v("debug: ", fmt, ap);
	va_end(ap);
}
