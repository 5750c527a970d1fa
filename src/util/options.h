// SPDX-License-Identifier: MIT
/*
 * options.h - parsing helpers shared by the subcommands' option parsers.
 */
#ifndef SPOOL_UTIL_OPTIONS_H
#define SPOOL_UTIL_OPTIONS_H

#include <stdint.h>

/* "4096", "64k", "1m", "2M", "1g" -> bytes. -EINVAL on anything else. */
int options_parse_size(const char *s, uint64_t *out);
/* A non-negative decimal integer no larger than max. */
int options_parse_uint(const char *s, uint64_t max, uint64_t *out);

/* Report what getopt_long returned for a bad option of `spool CMD`: ':'
 * a value is missing (the optstring must start with ':', after any '+'),
 * anything else an unknown option. The caller exits with EXIT_USAGE. */
void options_report_error(const char *cmd, int c, char *const argv[]);

#endif
