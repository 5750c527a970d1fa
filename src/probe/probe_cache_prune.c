// SPDX-License-Identifier: MIT
/*
 * probe_cache_prune.c - keeping the plan cache (probe_cache.h) small: after
 * a plan is saved, the plans not used for PROBE_CACHE_MAX_DAYS days are
 * removed, then the least recently used ones until the directory holds at
 * most PROBE_CACHE_MAX_BYTES (SPOOL_PLAN_CACHE_MAX overrides it, in bytes).
 * A plan's mtime is its last use: loading one touches it.
 *
 * Only files spool made are ever removed: a name of exactly the shape
 * cache_path gives ("<16 hex digits>.plan") or of its temporary file
 * ("<16 hex>.plan.XXXXXX", left by a run that died while saving; removed
 * after a day), a regular file (never a symlink: lstat), owned by the
 * effective user, in the trusted directory (probe_cache_load's checks).
 * Everything else in the directory is left alone and not counted.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../util/log.h"
#include "probe_cache.h"

#define PRUNE_MAX_FILES 4096u /* more are left for a later run */
#define PRUNE_TMP_AGE (24 * 3600)

struct prune_ent {
	char name[32];
	off_t size;
	time_t mtime;
};

static int prune_hex16(const char *s)
{
	for (int i = 0; i < 16; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return 1;
}

/* 1: a plan ("<16 hex>.plan"), 2: a temporary plan ("<16 hex>.plan.XXXXXX",
 * mkstemp's six characters), 0: not a name spool makes. */
static int prune_kind(const char *name)
{
	size_t len = strlen(name);

	if (len < 21 || !prune_hex16(name) || memcmp(name + 16, ".plan", 5))
		return 0;
	if (len == 21)
		return 1;
	if (len != 28 || name[21] != '.')
		return 0;
	for (size_t i = 22; i < 28; i++)
		if (!((name[i] >= '0' && name[i] <= '9') || (name[i] >= 'a' && name[i] <= 'z') ||
		      (name[i] >= 'A' && name[i] <= 'Z')))
			return 0;
	return 2;
}

static int prune_older(const void *a, const void *b)
{
	const struct prune_ent *x = a, *y = b;

	return x->mtime < y->mtime ? -1 : x->mtime > y->mtime ? 1 : strcmp(x->name, y->name);
}

uint64_t probe_cache_max_bytes(void)
{
	const char *e = getenv("SPOOL_PLAN_CACHE_MAX");
	char *end;
	unsigned long long v;

	if (!e || !*e)
		return PROBE_CACHE_MAX_BYTES;
	errno = 0;
	v = strtoull(e, &end, 10);
	if (errno || *end || e[0] == '-')
		return PROBE_CACHE_MAX_BYTES;
	return v;
}

void probe_cache_prune(const char *dir, const char *keep)
{
	struct prune_ent *ents = NULL;
	size_t n = 0, cap = 0, removed = 0;
	uint64_t total = 0, max = probe_cache_max_bytes();
	time_t now = time(NULL);
	struct dirent *de;
	struct stat st;
	DIR *d;
	int fd;

	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	/* the directory probe_cache_save and _load trust, or nothing */
	if (fstat(fd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH))) {
		close(fd);
		return;
	}
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	while ((de = readdir(d)) && n < PRUNE_MAX_FILES) {
		int kind = prune_kind(de->d_name);

		if (!kind || !strcmp(de->d_name, keep))
			continue;
		if (fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode) ||
		    st.st_uid != geteuid())
			continue;
		if (kind == 2) { /* a save that never finished */
			if (now - st.st_mtime > PRUNE_TMP_AGE && !unlinkat(fd, de->d_name, 0))
				removed++;
			continue;
		}
		if (now - st.st_mtime > (time_t)PROBE_CACHE_MAX_DAYS * 24 * 3600) {
			if (!unlinkat(fd, de->d_name, 0))
				removed++;
			continue;
		}
		if (n == cap) {
			size_t nc = cap ? 2 * cap : 64;
			struct prune_ent *ne = realloc(ents, nc * sizeof(*ents));

			if (!ne)
				break;
			ents = ne;
			cap = nc;
		}
		memcpy(ents[n].name, de->d_name, strlen(de->d_name) + 1);
		ents[n].size = st.st_size;
		ents[n].mtime = st.st_mtime;
		total += (uint64_t)st.st_size;
		n++;
	}
	/* the plan just saved counts too, but is never the one removed */
	if (fstatat(fd, keep, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode))
		total += (uint64_t)st.st_size;
	if (ents && total > max) {
		qsort(ents, n, sizeof(*ents), prune_older);
		for (size_t i = 0; i < n && total > max; i++) {
			if (unlinkat(fd, ents[i].name, 0) < 0)
				continue;
			total -= (uint64_t)ents[i].size;
			removed++;
		}
	}
	if (removed)
		log_debug("probe: plan cache %s: %zu old plans removed (%llu bytes kept, limit %llu)",
			  dir, removed, (unsigned long long)total, (unsigned long long)max);
	free(ents);
	closedir(d);
}
