// SPDX-License-Identifier: MIT
/*
 * log.c - stderr messages of the host tool. Not for the agent, which has its
 * own signal-safe logger.
 *
 * Messages often carry names from a trace (a file, a function, a thread):
 * each is formatted whole, then written with terminal control bytes escaped
 * (escape.h), so no argument can put an escape sequence on the terminal.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "log.h"

int log_verbose;
FILE *log_tee;

static void log_v(const char *tag, const char *fmt, va_list ap)
{
	char *msg = NULL, *esc = NULL;
	int n;

	n = vasprintf(&msg, fmt, ap);
	if (n >= 0)
		esc = escape_dup(msg, (size_t)n, ESCAPE_LINES);
	/* one write: stderr is unbuffered */
	fprintf(stderr, "spool: %s%s\n", tag ? tag : "",
		esc ? esc : "(out of memory formatting a message)");
	if (log_tee && !(tag && !strcmp(tag, "debug: ")))
		fprintf(log_tee, "spool: %s%s\n", tag ? tag : "",
			esc ? esc : "(out of memory formatting a message)");
	free(esc);
	free(msg);
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
