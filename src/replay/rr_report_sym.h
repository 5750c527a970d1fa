// SPDX-License-Identifier: MIT
/*
 * rr_report_sym.h - the C++ names in a replay's stop report made readable:
 * the agent names the function that made a diverging sync call by its
 * dynamic symbol as dladdr finds it (", called from _ZN...+0x80 (node)"),
 * mangled, since it cannot demangle inside the program; spool replay
 * demangles it before printing the report.
 */
#ifndef SPOOL_REPLAY_RR_REPORT_SYM_H
#define SPOOL_REPLAY_RR_REPORT_SYM_H

#include <stddef.h>

/* Demangle the name after each "called from " in report (cap bytes, NUL
 * terminated; the result is cut to fit). */
void rr_report_demangle(char *report, size_t cap);

#endif
