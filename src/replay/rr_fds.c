// SPDX-License-Identifier: MIT
/*
 * rr_fds.c - the descriptors a recorded program inherited: noted by spool
 * record from its own table just before it starts the program (what an
 * exec keeps of it is what the program gets), read back for a replay that
 * builds the program's table itself (gdbsrv_inf.c). See rr_fds.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/fds.h"
#include "rr_fds.h"

int rr_fds_inherited(int skip, char *out, size_t len)
{
	int fds[RR_FDS_MAX + 1], n, total, k = 0;
	size_t at = 0;

	if (len)
		out[0] = 0;
	total = fds_inherited(fds, RR_FDS_MAX + 1);
	n = total < RR_FDS_MAX + 1 ? total : RR_FDS_MAX + 1;
	for (int i = 0; i < n; i++) {
		int w;

		if (fds[i] == skip) {
			total--;
			continue;
		}
		if (k == RR_FDS_MAX)
			break;
		w = snprintf(out + at, len - at, "%s%d", k ? "," : "", fds[i]);
		if (w < 0 || (size_t)w >= len - at) {
			out[at] = 0;
			break;
		}
		at += (size_t)w;
		k++;
	}
	return total;
}

int rr_fds_parse(const char *s, int *fds, int max)
{
	int n = 0;

	if (strspn(s, "0123456789,") != strlen(s))
		return 0;
	while (*s && n < max) {
		char *end;
		long v = strtol(s, &end, 10);

		if (end == s)
			break;
		if (v >= 3 && v <= 65535)
			fds[n++] = (int)v;
		s = *end == ',' ? end + 1 : end;
	}
	return n;
}
