// SPDX-License-Identifier: MIT
/*
 * rr_report_sym.c - demangles the call sites the agent puts in a replay's
 * stop report (rr_report_sym.h). The report comes from the replayed
 * program's memory: it is read as untrusted text, bounded by cap.
 */
#include <stdlib.h>
#include <string.h>

#include "rr_report_sym.h"
#include "../util/demangle.h"

#define RR_SYM_MAX 1024

void rr_report_demangle(char *report, size_t cap)
{
	static const char key[] = "called from ";
	char *p = report;

	if (!report || !cap)
		return;
	report[cap - 1] = 0;
	while ((p = strstr(p, key))) {
		char name[RR_SYM_MAX], dem[RR_SYM_MAX], *rest, *tail;
		size_t n, dn, left;

		p += sizeof(key) - 1;
		n = strcspn(p, "+ \n");
		if (n < 3 || n >= sizeof(name) || strncmp(p, "_Z", 2))
			continue;
		memcpy(name, p, n);
		name[n] = 0;
		if (demangle_name(name, dem, sizeof(dem)) != 1)
			continue;
		demangle_strip_params(dem);
		dn = strlen(dem);
		rest = p + n;
		left = strlen(rest) + 1;
		if (!(tail = malloc(left)))
			return;
		memcpy(tail, rest, left);
		/* the demangled name, then as much of the rest as fits */
		if ((size_t)(p - report) + dn >= cap)
			dn = cap - 1 - (size_t)(p - report);
		memcpy(p, dem, dn);
		p += dn;
		left = strlen(tail);
		if ((size_t)(p - report) + left >= cap)
			left = cap - 1 - (size_t)(p - report);
		memcpy(p, tail, left);
		p[left] = 0;
		free(tail);
	}
}
