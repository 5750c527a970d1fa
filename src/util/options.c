// SPDX-License-Identifier: MIT
/*
 * options.c - strict number parsing for command-line options: a typo in a
 * size must be an error naming the option, never a silent zero.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>

#include <unistd.h>

#include "log.h"
#include "options.h"

int options_parse_uint(const char *s, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

int options_parse_size(const char *s, uint64_t *out)
{
	unsigned long long v;
	unsigned shift = 0;
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -EINVAL;
	switch (*end) {
	case 0:
		break;
	case 'k':
	case 'K':
		shift = 10;
		break;
	case 'm':
	case 'M':
		shift = 20;
		break;
	case 'g':
	case 'G':
		shift = 30;
		break;
	default:
		return -EINVAL;
	}
	if (*end && end[1] && !((end[1] == 'b' || end[1] == 'B' || end[1] == 'i') && !end[2]))
		return -EINVAL;
	if (shift && v > (~0ull >> shift))
		return -EINVAL;
	*out = v << shift;
	return 0;
}

void options_report_error(const char *cmd, int c, char *const argv[])
{
	if (c == ':')
		log_err("option '%s' needs a value (see spool %s --help)", argv[optind - 1], cmd);
	else
		log_err("unknown option '%s' (see spool %s --help)", argv[optind - 1], cmd);
}
