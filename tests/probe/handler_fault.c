// SPDX-License-Identifier: MIT
/*
 * handler_fault.c - a custom probe handler that faults: its pre handler
 * dereferences NULL on its third call. The error handler says so on stderr
 * (write(2)); spool must then remove the probe and the program run on
 * (tests/integ/72-probe-handler.t).
 *
 *   cc -shared -fPIC -mgeneral-regs-only -O2 -Iinclude -o fault.so handler_fault.c
 */
#include <unistd.h>

#include "spool/probe.h"

static unsigned long handler_calls;

void spool_probe_pre(const struct spool_probe_ctx *ctx)
{
	if (__atomic_add_fetch(&handler_calls, 1, __ATOMIC_RELAXED) == 3)
		*(volatile int *)(ctx->addr & 0) = 1; /* NULL */
}

void spool_probe_error(const struct spool_probe_ctx *ctx, int sig)
{
	char msg[] = "error handler: signal ..\n";

	msg[sizeof(msg) - 4] = (char)('0' + sig / 10);
	msg[sizeof(msg) - 3] = (char)('0' + sig % 10);
	if (ctx->op == SPOOL_PROBE_ENTRY && write(2, msg, sizeof(msg) - 1) < 0)
		return;
}
