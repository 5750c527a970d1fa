// SPDX-License-Identifier: MIT
/*
 * run_env.h - the environment a recorded program ran with, kept with the
 * recording and given back to its replays.
 *
 * Nothing the program reads from its environment (getenv, locale
 * variables, PYTHON*, MALLOC_*) goes through a system call, so the agent
 * sees none of it; a replay started from another shell used to run the
 * program with that shell's variables. spool record keeps the program's
 * environment in the side file `environ` (NUL-terminated NAME=VALUE
 * entries), and spool replay runs the program with it, except for spool's
 * own variables (SPOOL_*), which the replay's environment sets.
 */
#ifndef SPOOL_COLLECT_RUN_ENV_H
#define SPOOL_COLLECT_RUN_ENV_H

struct trace_writer;

/* Write spool's environment (what the program gets besides what spool
 * adds) into the trace as `environ`. 0 or a negative errno. */
int run_env_save(struct trace_writer *w);
/* The recorded environment with the replay's SPOOL_* variables in place
 * of the recorded ones: a NULL-terminated malloc'd vector (run_env_free),
 * or NULL with *err = -ENOENT when the recording has none (made before
 * spool kept it), another negative errno when it cannot be read.
 *
 * A trace is untrusted (it may come from someone else): unless trust is
 * set (spool replay --trust-env), the loader variables (run_env_is_loader)
 * are not taken from it; spool's own value of such a variable is used
 * where it has one. The names of those whose recorded value is not used
 * go into dropped (comma-separated, "" for none; cut at dsize). */
char **run_env_load(const char *dir, int trust, char *dropped, size_t dsize, int *err);
/* Whether the entry "NAME=VALUE" (or NAME) is one the dynamic linker or
 * libc loads code or files by: LD_*, GLIBC_TUNABLES and the rest of
 * glibc's secure-mode list (GCONV_PATH, LOCPATH, TMPDIR, TZDIR, ...). */
int run_env_is_loader(const char *e);
void run_env_free(char **env);

#endif
