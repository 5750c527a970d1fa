// SPDX-License-Identifier: MIT
/*
 * rr_stdio.c - reads its stdin through stdio only (fgets, getc), which
 * glibc does with an internal read that no interposer sees, and prints
 * what kind of file stdin is, how many lines and bytes it read and a hash
 * of them. spool replay must give it the recorded stdin: the same kind of
 * file and the same bytes, even when the original input is gone.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

int main(void)
{
	struct stat st;
	const char *kind = "other";
	char line[256], last[256] = "";
	uint64_t h = 1469598103934665603ull, bytes = 0, lines = 0;
	int c;

	if (fstat(0, &st) == 0)
		kind = S_ISREG(st.st_mode)    ? "file"
		       : S_ISFIFO(st.st_mode) ? "pipe"
		       : S_ISCHR(st.st_mode)  ? "chr"
					      : "other";
	/* The first line byte by byte, the rest by lines. */
	while ((c = getc(stdin)) != EOF) {
		h = (h ^ (uint64_t)c) * 1099511628211ull;
		bytes++;
		if (c == '\n') {
			lines++;
			break;
		}
	}
	while (fgets(line, sizeof(line), stdin)) {
		size_t n = strlen(line);

		for (size_t i = 0; i < n; i++)
			h = (h ^ (uint8_t)line[i]) * 1099511628211ull;
		bytes += n;
		if (n && line[n - 1] == '\n')
			lines++;
		memcpy(last, line, n + 1);
	}
	last[strcspn(last, "\n")] = 0;
	printf("stdin %s lines %llu bytes %llu hash %016llx last '%s'\n", kind,
	       (unsigned long long)lines, (unsigned long long)bytes, (unsigned long long)h, last);
	return 0;
}
