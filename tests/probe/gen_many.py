#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""gen_many.py N - writes on stdout a C program of N small functions
f0..f(N-1) (each `x * (k + 3) + k`: its first word and its RET neither
PC-relative, so a BRK probe on either runs out of line), for
tests/arm64/270-a64-probe-brk-pages.t. main(ROUNDS) calls each ROUNDS
times (default 3) through a table, prints "sum S" on stdout and, on
stderr, "anon_exec_kib K": the KiB of anonymous executable mappings in
/proc/self/maps (probe trampolines and out-of-line slots)."""
import sys

n = int(sys.argv[1])
print('#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>')
for k in range(n):
    print(f'__attribute__((noinline)) long f{k}(long x) {{ return x * {k + 3} + {k}; }}')
print('static long (*const tab[])(long) = {' + ', '.join(f'f{k}' for k in range(n)) + '};')
print(r'''
/* KiB of anonymous executable mappings (trampolines, out-of-line slots) */
static long anon_exec_kib(void)
{
	char line[512], perm[8];
	unsigned long a, b, ino;
	long kib = 0;
	int n;
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %7s %*s %*s %lu %n", &a, &b, perm, &ino, &n) < 4)
			continue;
		if (perm[2] == 'x' && !ino && (line[n] == '\n' || line[n] == 0))
			kib += (long)((b - a) >> 10);
	}
	fclose(f);
	return kib;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 3;
	long sum = 0;

	for (int r = 0; r < rounds; r++)
		for (unsigned k = 0; k < sizeof(tab) / sizeof(tab[0]); k++)
			sum += tab[k](r);
	printf("sum %ld\n", sum);
	fprintf(stderr, "anon_exec_kib %ld\n", anon_exec_kib());
	return 0;
}''')
