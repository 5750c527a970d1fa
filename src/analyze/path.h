// SPDX-License-Identifier: MIT
/*
 * path.h - the thread path of the path-tracing design (doc/path.md): from a
 * trace with function entries (KIND_FUNC, programs built with
 * -finstrument-functions and run under `spool path`; or KIND_PROBE entry
 * and exit probes on a program without them), the time-ordered
 * queue of records <thread, function, object>, and the check of which of
 * the program's functions the run never entered.
 *
 * The object of a call is decided from the agent's events that the thread
 * produced while that call was its innermost open instrumented frame: lock
 * events name the lock (lock:, sem:, cond:, barrier:), message-queue events
 * give msg:, and a call with neither is "data" when the program's DWARF says
 * the function takes a pointer to data, else "none".
 */
#ifndef SPOOL_ANALYZE_PATH_H
#define SPOOL_ANALYZE_PATH_H

#include <stdint.h>
#include <stdio.h>

/* Where function entries come from (--functions): -finstrument-functions
 * hooks (KIND_FUNC records) or entry/exit probes (KIND_PROBE records of the
 * probes spool path places on a program without the hooks). */
enum { PATH_FN_AUTO = 0, PATH_FN_FINST = 1, PATH_FN_PROBES = 2 };
/* "auto", "finstrument", "probes" -> PATH_FN_*, or -EINVAL. */
int path_fn_parse(const char *s);
const char *path_fn_name(int mode);

struct path_opts {
	int exits;	/* also print function exits */
	int json;	/* JSON instead of text */
	int check;	/* print the never-entered functions instead of the path */
	int64_t thread; /* only this thread index; -1 = all */
	int functions;	/* PATH_FN_*: auto = probes when the trace has function
			 * probes, else the -finstrument-functions records */
	int say_source; /* log which source the entries came from */
	struct trace_loss_seen *seen; /* not NULL: the loss this reading saw goes here
				     * (the command's loss line, trace.h) */
};

/* Exit-style results of path_report_dir besides negative errnos. */
#define PATH_OK 0
#define PATH_INCOMPLETE 1 /* --check: some functions were never entered */

/*
 * Read trace_dir and print its path (or, with o->check, the check) to out.
 * Returns PATH_OK or PATH_INCOMPLETE, -ENODATA when the trace holds no
 * function entry (the reason and the remedy have been logged), or another
 * negative errno (logged).
 */
int path_report_dir(const char *trace_dir, const struct path_opts *o, FILE *out);

/* One function of the program, from DWARF or the symbol table. */
struct path_func {
	uint64_t addr; /* link-time address (module offset) of its first instruction */
	char *name;   /* as a user writes it: a C++ name demangled */
	char *symbol; /* its mangled name when name was demangled, else NULL */
	char *file; /* NULL without DWARF */
	int line;
	int data_param; /* DWARF: takes a pointer to data (not void, function or sync type) */
	int entered;
};

/* Source of a function table. */
enum { PATH_SRC_DWARF = 1, PATH_SRC_SYMTAB = 2, PATH_SRC_DYNSYM = 3 };

struct path_prog {
	struct path_func *funcs; /* sorted by addr */
	size_t nfuncs;
	int source;		 /* PATH_SRC_* */
	unsigned uninst_cus;	 /* DWARF: compile units built without -finstrument-functions */
	size_t uninst_funcs;	 /* their functions, not in funcs */
};

/* The functions of the ELF executable at path: DWARF subprograms with code
 * (of compile units built with -finstrument-functions, when the producer
 * string records the switches; of every unit when all_units), else .symtab,
 * else .dynsym FUNC symbols. Returns 0 or a negative errno. */
int path_prog_load(struct path_prog *p, const char *path, int all_units);
/* C run-time start-up code (_start, _init, frame_dummy ...): not the
 * program's own functions, never in a path. */
int path_prog_crt_name(const char *name);
/* Does the ELF file at path call the -finstrument-functions hooks (import
 * __cyg_profile_func_enter)? 1 yes, 0 no, or a negative errno. */
int path_prog_instrumented(const char *path);

/* ---- recording: function entries from probes (path_probes.c) ---- */

struct session_opts;
struct path_probes;

/*
 * A run that records the path of the program at exe (a path): decide where
 * its function entries come from (mode; auto: the hooks when exe imports
 * them, else probes) and, for probes, plan an entry and exit probes on
 * every function of the executable (the planner of spool probe -e 'func:*',
 * without the C start-up code; what it refuses is left out) and add them
 * to so (set so's features and hooks first). *out stays NULL when the
 * hooks are used. Says what it did unless quiet; returns 0 or a negative
 * errno (logged).
 */
int path_probes_setup(struct path_probes **out, int mode, const char *exe,
		      struct session_opts *so, int quiet);
/* After the run: warn when the agent could not place probes. */
void path_probes_done(struct path_probes *pp, int quiet);
void path_probes_free(struct path_probes *pp);
struct path_func *path_prog_find(struct path_prog *p, uint64_t addr);
void path_prog_free(struct path_prog *p);

#endif
