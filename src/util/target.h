// SPDX-License-Identifier: MIT
/*
 * target.h - checks on the program spool is asked to run, made before it is
 * started so that the user gets a precise reason instead of a silent trace.
 */
#ifndef SPOOL_UTIL_TARGET_H
#define SPOOL_UTIL_TARGET_H

#include <stddef.h>

/* Find `name` the way execvp would (PATH search when it has no '/').
 * -ENOENT: not found; -EACCES: found but not executable (or a directory). */
int target_resolve(const char *name, char *path, size_t len);

enum target_kind {
	TARGET_DYNAMIC,	 /* ELF with an interpreter: LD_PRELOAD works */
	TARGET_STATIC,	 /* ELF without PT_INTERP: nothing can be interposed */
	TARGET_SCRIPT,	 /* #! script: the interpreter is what runs */
	TARGET_SETID,	 /* setuid/setgid: the loader ignores LD_PRELOAD */
	TARGET_UNKNOWN,	 /* neither ELF nor script; exec will decide */
	TARGET_FOREIGN,	 /* 64-bit ELF of another machine (an aarch64 program on x86-64,
			  * run by qemu-user through binfmt_misc): this agent cannot load */
};

/* Classify an executable file. Returns a target_kind or a negative errno. */
int target_classify(const char *path);

/* The interpreter a #! script names (the file exec runs for it: the first
 * word after "#!", as the kernel reads it) into buf. -ENOEXEC: path is no
 * script (or names no interpreter); -ENAMETOOLONG: it does not fit. */
int target_interp(const char *path, char *buf, size_t len);

/* The file exec maps for path (what /proc/self/exe of the new image
 * names): path itself, or for a #! script the interpreter it names, and
 * that one's if it is a script too (at most TARGET_INTERP_DEPTH, as the
 * kernel's binfmt_script allows), into buf. 0 or -ENAMETOOLONG. */
#define TARGET_INTERP_DEPTH 4
int target_image(const char *path, char *buf, size_t len);

/* Why path could not be read as a program (err: the negative errno the
 * read gave), for an error message, in buf: for a #! script, that it is
 * one, what runs it and what to give spool instead (spool probe and spool
 * path read the program's code, a script has none); else strerror. */
const char *target_unreadable_why(const char *path, int err, char *buf, size_t len);

#endif
