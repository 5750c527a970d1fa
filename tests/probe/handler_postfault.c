// SPDX-License-Identifier: MIT
/*
 * handler_postfault.c - a custom probe handler whose post handler (at a
 * return) dereferences NULL on its third call, so spool removes that exit
 * probe while the function's entry probe stays: the function report must
 * not nest the later calls into each other (tests/integ/191-probe-calltree.t).
 *
 *   cc -shared -fPIC -mgeneral-regs-only -O2 -Iinclude -o postfault.so handler_postfault.c
 */
#include "spool/probe.h"

static unsigned long handler_calls;

void spool_probe_post(const struct spool_probe_ctx *ctx)
{
	if (ctx->op == SPOOL_PROBE_EXIT &&
	    __atomic_add_fetch(&handler_calls, 1, __ATOMIC_RELAXED) == 3)
		*(volatile int *)(ctx->addr & 0) = 1; /* NULL */
}
