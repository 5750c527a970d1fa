// SPDX-License-Identifier: MIT
/*
 * log.h - spool's own messages. They all go to stderr, prefixed "spool: ",
 * so that the traced program's stdout stays exactly its own.
 */
#ifndef SPOOL_UTIL_LOG_H
#define SPOOL_UTIL_LOG_H

#include <stdio.h>

extern int log_verbose; /* -v count */
/* When set, every message but debug ones is also written there, as on
 * stderr (the plan cache keeps planning's messages: probe_cache.c). */
extern FILE *log_tee;

void log_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
