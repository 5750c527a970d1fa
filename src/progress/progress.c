// SPDX-License-Identifier: MIT
/*
 * progress.c - libspool-progress.so: the callbacks of gcc's
 * -fsanitize-coverage=trace-pc and clang's -fsanitize-coverage=trace-pc-guard,
 * as no-ops, so a program built with them links and runs unchanged without
 * spool. Under spool the preloaded agent defines the same symbols and comes
 * first: each call is then a progress point of serial record/replay
 * (doc/record.md), which lets spool switch threads inside loops that call
 * nothing. The program must get these from this library: a definition in
 * the executable binds directly and the agent cannot see it.
 *
 * Build a program with:
 *   gcc -fsanitize-coverage=trace-pc prog.c -L<spool>/lib -lspool-progress \
 *       -Wl,-rpath,<spool>/lib
 */
#include <stdint.h>

#define PROGRESS_EXPORT __attribute__((visibility("default")))

PROGRESS_EXPORT void __sanitizer_cov_trace_pc(void)
{
}

PROGRESS_EXPORT void __sanitizer_cov_trace_pc_guard(uint32_t *guard)
{
	(void)guard;
}

PROGRESS_EXPORT void __sanitizer_cov_trace_pc_guard_init(uint32_t *start, uint32_t *stop)
{
	(void)start;
	(void)stop;
}
