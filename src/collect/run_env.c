// SPDX-License-Identifier: MIT
/*
 * run_env.c - the recorded program's environment: saved as the trace's
 * `environ` side file, loaded for its replays (see run_env.h for why).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../trace/trace.h"
#include "run_env.h"

extern char **environ;

static int run_env_spools(const char *e)
{
	return !strncmp(e, "SPOOL_", 6);
}

/*
 * The variables the dynamic linker and libc read to load code or data
 * files from a path: glibc's secure-mode list (elf/unsecvars.h, the ones
 * it removes for setuid programs), every LD_* and GLIBC_TUNABLES. A trace
 * that sets LD_PRELOAD=/x/evil.so would otherwise run that code in its
 * replay.
 */
static const char *const run_env_loader_names[] = {
    "GCONV_PATH",  "GETCONF_DIR",  "GLIBC_TUNABLES", "HOSTALIASES", "LOCALDOMAIN",
    "LOCPATH",	   "MALLOC_TRACE", "NIS_PATH",	     "NLSPATH",	    "RESOLV_HOST_CONF",
    "RES_OPTIONS", "TMPDIR",	   "TZDIR",
};

int run_env_is_loader(const char *e)
{
	size_t n = strcspn(e, "=");

	if (!strncmp(e, "LD_", 3))
		return 1;
	for (size_t i = 0; i < sizeof(run_env_loader_names) / sizeof(run_env_loader_names[0]); i++)
		if (strlen(run_env_loader_names[i]) == n && !strncmp(e, run_env_loader_names[i], n))
			return 1;
	return 0;
}

/* spool's own entry for the variable of entry e ("NAME=..."), or NULL. */
static const char *run_env_own(const char *e)
{
	size_t n = strcspn(e, "=");

	for (char **o = environ; o && *o; o++)
		if (!strncmp(*o, e, n) && (*o)[n] == '=')
			return *o;
	return NULL;
}

/* Append NAME of entry e to the comma-separated list (cut when full). */
static void run_env_note(char *list, size_t size, const char *e)
{
	size_t used = strlen(list), n = strcspn(e, "=");

	if (!size || used + n + 3 >= size)
		return;
	if (used) {
		memcpy(list + used, ", ", 2);
		used += 2;
	}
	memcpy(list + used, e, n);
	list[used + n] = 0;
}

int run_env_save(struct trace_writer *w)
{
	size_t len = 0, off = 0;
	char *buf;
	int rc;

	for (char **e = environ; e && *e; e++)
		if (!run_env_spools(*e))
			len += strlen(*e) + 1;
	buf = malloc(len + 1);
	if (!buf)
		return -ENOMEM;
	for (char **e = environ; e && *e; e++) {
		size_t n = strlen(*e) + 1;

		if (run_env_spools(*e))
			continue;
		memcpy(buf + off, *e, n);
		off += n;
	}
	rc = trace_writer_add_file(w, "environ", buf, len);
	free(buf);
	return rc;
}

void run_env_free(char **env)
{
	for (size_t i = 0; env && env[i]; i++)
		free(env[i]);
	free(env);
}

char **run_env_load(const char *dir, int trust, char *dropped, size_t dsize, int *err)
{
	struct trace_reader *r;
	char *data = NULL, **v = NULL;
	size_t len = 0, n = 0, k = 0;
	int rc;

	rc = trace_reader_open(&r, dir, NULL);
	if (rc < 0)
		goto out;
	rc = trace_reader_file(r, "environ", &data, &len);
	trace_reader_close(r);
	if (rc < 0)
		goto out;
	rc = -EPROTO;
	if (len && data[len - 1])
		goto out; /* every entry ends with its NUL */
	for (size_t i = 0; i < len; i++)
		n += !data[i];
	for (char **e = environ; e && *e; e++)
		n += run_env_spools(*e);
	rc = -ENOMEM;
	v = calloc(n + 1, sizeof(*v));
	if (!v)
		goto out;
	if (dsize)
		dropped[0] = 0;
	for (size_t i = 0; i < len; i += strlen(data + i) + 1) {
		const char *e = data + i;

		if (run_env_spools(e) || !strchr(e, '='))
			continue;
		if (!trust && run_env_is_loader(e)) {
			/* spool's own value instead (the same when the replay
			 * runs where the recording was made): only a value the
			 * trace alone brings is dropped, and said */
			const char *own = run_env_own(e);

			if (!own || strcmp(own, e))
				run_env_note(dropped, dsize, e);
			if (!own)
				continue;
			e = own;
		}
		if (!(v[k++] = strdup(e)))
			goto out;
	}
	for (char **e = environ; e && *e; e++)
		if (run_env_spools(*e) && !(v[k++] = strdup(*e)))
			goto out;
	rc = 0;
out:
	free(data);
	*err = rc;
	if (rc < 0) {
		run_env_free(v);
		return NULL;
	}
	return v;
}
