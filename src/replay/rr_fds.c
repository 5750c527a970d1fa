// SPDX-License-Identifier: MIT
/*
 * rr_fds.c - the descriptors a recorded program inherited: noted by spool
 * record from its own table just before it starts the program (what an
 * exec keeps of it is what the program gets), read back for a replay that
 * builds the program's table itself (gdbsrv_inf.c). See rr_fds.h.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rr_fds.h"

static int rr_fds_cmp(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

int rr_fds_inherited(int skip, char *out, size_t len)
{
	int fds[RR_FDS_MAX], n = 0, total = 0;
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	size_t at = 0;

	if (len)
		out[0] = 0;
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char *end;
		long fd = strtol(e->d_name, &end, 10);
		int fl;

		if (*end || end == e->d_name || fd < 3 || fd > 65535 || fd == skip ||
		    fd == dirfd(d))
			continue;
		fl = fcntl((int)fd, F_GETFD);
		if (fl < 0 || (fl & FD_CLOEXEC))
			continue;
		total++;
		if (n < RR_FDS_MAX)
			fds[n++] = (int)fd;
	}
	closedir(d);
	qsort(fds, (size_t)n, sizeof(fds[0]), rr_fds_cmp);
	for (int i = 0; i < n; i++) {
		int w = snprintf(out + at, len - at, "%s%d", i ? "," : "", fds[i]);

		if (w < 0 || (size_t)w >= len - at) {
			out[at] = 0;
			break;
		}
		at += (size_t)w;
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
