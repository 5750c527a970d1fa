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

char **run_env_load(const char *dir, int *err)
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
	for (size_t i = 0; i < len; i += strlen(data + i) + 1) {
		if (run_env_spools(data + i) || !strchr(data + i, '='))
			continue;
		if (!(v[k++] = strdup(data + i)))
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
