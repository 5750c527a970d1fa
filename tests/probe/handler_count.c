// SPDX-License-Identifier: MIT
/*
 * handler_count.c - a custom probe handler (include/spool/probe.h) for
 * tests/integ/72-probe-handler.t: counts pre and post calls and the sum of
 * the first argument seen at entry, and prints them when the program exits
 * (write(2): handlers may not use stdio).
 *
 *   cc -shared -fPIC -mgeneral-regs-only -O2 -Iinclude -o count.so handler_count.c
 *   (aarch64, tests/arm64/267-a64-probe-handler.t: the first argument is x0;
 *   aarch64-linux-gnu-gcc -shared -fPIC -O2 -Iinclude ...)
 */
#include <unistd.h>

#include "spool/probe.h"

static unsigned long handler_pre, handler_post, handler_arg_sum;

void spool_probe_pre(const struct spool_probe_ctx *ctx)
{
	__atomic_fetch_add(&handler_pre, 1, __ATOMIC_RELAXED);
#if defined(__aarch64__)
	__atomic_fetch_add(&handler_arg_sum, ctx->x[0], __ATOMIC_RELAXED);
#else
	__atomic_fetch_add(&handler_arg_sum, ctx->rdi, __ATOMIC_RELAXED);
#endif
}

void spool_probe_post(const struct spool_probe_ctx *ctx)
{
	if (ctx->op == SPOOL_PROBE_EXIT)
		__atomic_fetch_add(&handler_post, 1, __ATOMIC_RELAXED);
}

static char *handler_num(char *p, unsigned long v)
{
	char tmp[24];
	int n = 0;

	do
		tmp[n++] = (char)('0' + v % 10);
	while ((v /= 10));
	while (n)
		*p++ = tmp[--n];
	return p;
}

__attribute__((destructor)) static void handler_report(void)
{
	char buf[128], *p = buf;
	static const char a[] = "handler pre ", b[] = " post ", c[] = " argsum ";

	for (const char *s = a; *s; s++)
		*p++ = *s;
	p = handler_num(p, handler_pre);
	for (const char *s = b; *s; s++)
		*p++ = *s;
	p = handler_num(p, handler_post);
	for (const char *s = c; *s; s++)
		*p++ = *s;
	p = handler_num(p, handler_arg_sum);
	*p++ = '\n';
	if (write(2, buf, (size_t)(p - buf)) < 0)
		return;
}
