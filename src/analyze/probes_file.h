// SPDX-License-Identifier: MIT
/*
 * probes_file.h - one reader of the lines of a trace's "probes" side file
 * (doc/trace-format.md), for spool path and the call stacks of the function
 * reports: "id op method module offset symbol [function]", in its three
 * versions:
 *   1  no "# spool probes" line; module "-" for the executable
 *   2  "# spool probes 2", "# exe PATH", the executable's path as module
 *   3  as 2, with the module, the exe path and the symbol as sidewords
 *      (sideword.h: "\040" for a space), so a path with spaces reads back
 * The file comes from a trace: every field is bounded, a line that does
 * not parse is not a probe.
 */
#ifndef SPOOL_ANALYZE_PROBES_FILE_H
#define SPOOL_ANALYZE_PROBES_FILE_H

struct probes_line {
	unsigned id;
	char op[16];
	char method[16];
	char module[4096]; /* "-" in version 1 for the executable */
	unsigned long long off;
	char sym[1024]; /* the ELF symbol (mangled) */
};

/* The version a line "# spool probes N" names: N; 0 for any other line. */
int probes_file_version(const char *line);

/* The path of a "# exe PATH" line of a file of that version into exe
 * (size len): 0; -EINVAL for any other line. */
int probes_file_exe(const char *line, int version, char *exe, unsigned len);

/* A probe's line (NUL-terminated) of a file of that version: 0; -EINVAL
 * for a comment or a line that is not one. */
int probes_file_line(const char *line, int version, struct probes_line *pl);

#endif
