// SPDX-License-Identifier: MIT
/*
 * symbolize.h - offline symbolization of addresses of traced processes.
 *
 * Addresses in a trace belong to processes that may be long gone. The trace
 * keeps each process's memory map ("proc/<pid>.maps") and the build ids of
 * its ELF files ("proc/<pid>.buildids"); the symbolizer rebuilds the address
 * space from those with elfutils libdwfl, reading the ELF files (and their
 * separate debug info, if installed) from disk. It never uses the network:
 * debuginfod is switched off (DEBUGINFOD_URLS is unset in this process).
 *
 * Exact addresses versus return addresses: symbolizer_lookup() and
 * symbolizer_format_pc() take an exact instruction address. The addresses
 * spool records (rec_lock.ip, init_ip, stack entries) are return addresses,
 * which point after the call instruction, possibly into the next line or
 * even the next function; symbolizer_format() is for those: it looks up
 * addr - 1 (inside the call) and prints the offset of addr itself.
 */
#ifndef SPOOL_UTIL_SYMBOLIZE_H
#define SPOOL_UTIL_SYMBOLIZE_H

#include <stddef.h>
#include <stdint.h>

struct trace_reader;
struct symbolizer;

struct sym_info {
	char func[256];	   /* demangled (util/demangle.h); "" when no symbol covers it */
	char mangled[256]; /* the symbol as the ELF file has it, when it differs from func */
	uint64_t offset;   /* addr - start of func */
	char file[256];	   /* source file, "" without line info */
	int line;	   /* 0 without line info */
	char module[256];  /* path of the mapped file */
	uint64_t module_offset; /* addr - load bias: the address objdump and addr2line use */
};

/* Symbolizer for the processes of a trace; maps are read per pid on first
 * use. The reader must outlive the symbolizer. */
int symbolizer_open(struct symbolizer **out, struct trace_reader *r);
/* Symbolizer without a trace: one process whose maps text is given (tests,
 * live processes), with the build ids recorded for it ("<hex> <path>" lines,
 * as buildid_list_for_maps makes them; NULL: no check). */
int symbolizer_open_maps(struct symbolizer **out, uint32_t pid, const char *maps_text,
			 const char *buildids_text);

/* Exact address. Returns 0, or -ENOENT if no mapped module covers it
 * (out->module and out->func may still be filled partly). */
int symbolizer_lookup(struct symbolizer *s, uint32_t pid, uint64_t addr, struct sym_info *out);

/* Return address: "func+0x12 (file.c:41)", "func+0x12 (libfoo.so)" or
 * "0x7f..." (never fails; truncated to len). Returns the length written. */
int symbolizer_format(struct symbolizer *s, uint32_t pid, uint64_t addr, char *buf, size_t len);
/* The same for an exact address (a function entry, a probe point). */
int symbolizer_format_pc(struct symbolizer *s, uint32_t pid, uint64_t addr, char *buf, size_t len);

void symbolizer_close(struct symbolizer *s);

#endif
