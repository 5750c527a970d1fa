// SPDX-License-Identifier: MIT
/*
 * probes_file.c - the lines of a trace's "probes" side file, versions 1 to
 * 3 (probes_file.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../trace/sideword.h"
#include "probes_file.h"

int probes_file_version(const char *line)
{
	int v;

	return sscanf(line, "# spool probes %d", &v) == 1 && v > 0 ? v : 0;
}

int probes_file_exe(const char *line, int version, char *exe, unsigned len)
{
	char word[4096];

	if (strncmp(line, "# exe ", 6) || !len || sscanf(line + 6, "%4095s", word) != 1)
		return -EINVAL;
	if (version >= 3)
		sideword_unescape(word);
	snprintf(exe, len, "%s", word);
	return 0;
}

int probes_file_line(const char *line, int version, struct probes_line *pl)
{
	if (line[0] == '#' || sscanf(line, "%u %15s %15s %4095s %llx %1023s", &pl->id, pl->op,
				     pl->method, pl->module, &pl->off, pl->sym) != 6)
		return -EINVAL;
	if (version >= 3) {
		sideword_unescape(pl->module);
		sideword_unescape(pl->sym);
	}
	return 0;
}
