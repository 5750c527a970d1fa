// SPDX-License-Identifier: MIT
/*
 * fds.c - the descriptors an exec would keep, read from /proc/self/fd
 * (see fds.h).
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>

#include "fds.h"

static int fds_cmp(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

int fds_inherited(int *fds, int max)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0, total = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char *end;
		long fd = strtol(e->d_name, &end, 10);
		int fl;

		if (*end || end == e->d_name || fd < 3 || fd > 65535 || fd == dirfd(d))
			continue;
		fl = fcntl((int)fd, F_GETFD);
		if (fl < 0 || (fl & FD_CLOEXEC))
			continue;
		total++;
		if (n < max)
			fds[n++] = (int)fd;
	}
	closedir(d);
	qsort(fds, (size_t)n, sizeof(fds[0]), fds_cmp);
	return total;
}
