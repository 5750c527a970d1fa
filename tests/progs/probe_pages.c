// SPDX-License-Identifier: MIT
/*
 * probe_pages.c - functions on separate pages with unprobed pages between
 * them, for tests/integ/222-probe-pages.t: spool places the probes of a
 * run of pages with one window of writable pages (agent_probe_commit_all),
 * and every page must be back to its own permissions once they are in.
 *
 * f0..f7 are aligned to 8 KB: each sits alone at the start of its pair of
 * pages and the next page holds nothing probed (gaps between page runs).
 * The program calls f<i> i+1 times, prints the sum, then prints the
 * permissions and sizes of its executable's mappings, in order, adjacent
 * mappings with the same permissions as one (patched pages of a private
 * file mapping may stay separate mappings; their permissions may not
 * change): under `spool probe` they must be the native ones.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define F(n)                                                                              \
	__attribute__((noinline, aligned(8192))) int f##n(int x)                              \
	{                                                                                 \
		return x * (n + 3) + n;                                                   \
	}
F(0) F(1) F(2) F(3) F(4) F(5) F(6) F(7)

static int (*const fs[])(int) = {f0, f1, f2, f3, f4, f5, f6, f7};

int main(void)
{
	char exe[PATH_MAX], line[PATH_MAX + 128];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	unsigned long run_lo = 0, run_hi = 0;
	char run_perms[8] = "";
	long sum = 0;
	FILE *m;

	for (int i = 0; i < 8; i++)
		for (int k = 0; k <= i; k++)
			sum += fs[i](k);
	printf("sum %ld\n", sum);
	if (n <= 0)
		return 1;
	exe[n] = 0;
	m = fopen("/proc/self/maps", "r");
	if (!m)
		return 1;
	while (fgets(line, sizeof(line), m)) {
		unsigned long lo, hi;
		char perms[8], path[PATH_MAX];

		path[0] = 0;
		if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %4095s", &lo, &hi, perms, path) < 3)
			continue;
		if (strcmp(path, exe))
			continue;
		if (lo == run_hi && !strcmp(perms, run_perms)) {
			run_hi = hi;
			continue;
		}
		if (run_hi)
			printf("%s %lu\n", run_perms, run_hi - run_lo);
		run_lo = lo;
		run_hi = hi;
		snprintf(run_perms, sizeof(run_perms), "%s", perms);
	}
	if (run_hi)
		printf("%s %lu\n", run_perms, run_hi - run_lo);
	fclose(m);
	return 0;
}
