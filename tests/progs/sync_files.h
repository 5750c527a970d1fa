// SPDX-License-Identifier: MIT
/*
 * sync_files.h - how a test program and its test take turns through files
 * in a directory (DIR/ready, DIR/go, DIR/stop, ...): the program waits for
 * a file the test makes, and makes one the test waits for. Files, not
 * signals or pipes, so that the waits are plain stat() and nanosleep()
 * calls whatever spool has attached or probed (probe_attach_sys.c,
 * probe_live_sys.c). Set sync_dir before the first call. Header-only: each
 * program is one file (the Makefile builds tests/progs/NAME.c alone).
 */
#ifndef SPOOL_TESTS_PROGS_SYNC_FILES_H
#define SPOOL_TESTS_PROGS_SYNC_FILES_H

#include <stdio.h>
#include <sys/stat.h>
#include <time.h>

static const char *sync_dir;

/* Waits (5 ms naps) until sync_dir/name exists. */
static void wait_file(const char *name)
{
	char path[4096];
	struct timespec nap = {0, 5 * 1000 * 1000};
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", sync_dir, name);
	while (stat(path, &st))
		nanosleep(&nap, NULL);
}

/* Makes sync_dir/name (empty). */
static void make_file(const char *name)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", sync_dir, name);
	f = fopen(path, "w");
	if (f)
		fclose(f);
}

#endif
