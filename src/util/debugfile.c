// SPDX-License-Identifier: MIT
/*
 * debugfile.c - finding the separate debug file of an ELF file (see
 * debugfile.h): build id first, then .gnu_debuglink, under the debug
 * roots. Candidates are checked (same build id, or the debuglink's CRC32)
 * so that a stale debug file of another build is never used.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <elfutils/libdwelf.h>
#include <libelf.h>

#include "../trace/untrusted.h"
#include "debugfile.h"

#define DEBUGFILE_SYSTEM_ROOT "/usr/lib/debug"

struct df_id {
	unsigned char id[64];
	ssize_t n; /* bytes of build id, <= 0: none */
};

static void df_build_id(Elf *elf, struct df_id *id)
{
	const void *p;

	id->n = dwelf_elf_gnu_build_id(elf, &p);
	if (id->n > (ssize_t)sizeof(id->id))
		id->n = 0;
	if (id->n > 0)
		memcpy(id->id, p, (size_t)id->n);
}

/* CRC-32 (IEEE, as .gnu_debuglink uses) of a whole file. */
static int df_crc32(int fd, uint32_t *out)
{
	static uint32_t table[256];
	static int ready;
	unsigned char buf[65536];
	uint32_t crc = 0xffffffffu;
	ssize_t n;

	if (!ready) {
		for (uint32_t i = 0; i < 256; i++) {
			uint32_t c = i;

			for (int k = 0; k < 8; k++)
				c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
			table[i] = c;
		}
		ready = 1;
	}
	if (lseek(fd, 0, SEEK_SET) < 0)
		return -errno;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		for (ssize_t i = 0; i < n; i++)
			crc = table[(crc ^ buf[i]) & 0xff] ^ (crc >> 8);
	if (n < 0)
		return -errno;
	*out = crc ^ 0xffffffffu;
	return 0;
}

/* Is the file at cand the debug file of (id, crc)? Never the file itself. */
static int df_matches(const char *cand, const struct stat *self, const struct df_id *id,
		      int have_crc, uint32_t crc)
{
	struct stat st;
	struct df_id cid;
	uint32_t ccrc;
	Elf *elf;
	int fd, ok = 0;

	if (stat(cand, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (st.st_dev == self->st_dev && st.st_ino == self->st_ino))
		return 0;
	fd = open(cand, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF) {
		df_build_id(elf, &cid);
		if (id->n > 0)
			ok = cid.n == id->n && !memcmp(cid.id, id->id, (size_t)id->n);
		else if (have_crc)
			ok = !df_crc32(fd, &ccrc) && ccrc == crc;
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return ok;
}

/* The roots: SPOOL_DEBUG_DIR's directories, then the system's; malloc'ed
 * ':'-separated copy. */
static char *df_roots(void)
{
	const char *env = getenv(DEBUGFILE_ENV);
	char *r;

	if (env && *env) {
		if (asprintf(&r, "%s:%s", env, DEBUGFILE_SYSTEM_ROOT) < 0)
			return NULL;
		return r;
	}
	return strdup(DEBUGFILE_SYSTEM_ROOT);
}

static int df_try(char *out, size_t len, const struct stat *self, const struct df_id *id,
		  int have_crc, uint32_t crc, const char *fmt, const char *a, const char *b)
{
	char cand[PATH_MAX];

	if ((size_t)snprintf(cand, sizeof(cand), fmt, a, b) >= sizeof(cand))
		return -ENAMETOOLONG;
	if (!df_matches(cand, self, id, have_crc, crc))
		return -ENOENT;
	if ((size_t)snprintf(out, len, "%s", cand) >= len)
		return -ENOSPC;
	return 0;
}

int debugfile_find(const char *path, char *out, size_t len)
{
	char real[PATH_MAX], dir[PATH_MAX], hex[2 * 64 + 1], *roots = NULL, *save = NULL, *r;
	const char *link = NULL;
	char linkname[NAME_MAX + 1] = "";
	struct df_id id = {.n = 0};
	struct stat self;
	GElf_Word crc = 0;
	Elf *elf;
	int fd, rc = -ENOENT;

	if (!realpath(path, real) || stat(real, &self) < 0)
		return -errno;
	fd = trace_open_named(real); /* a regular file, opened without blocking */
	if (fd < 0)
		return fd;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		close(fd);
		return -ENOEXEC;
	}
	df_build_id(elf, &id);
	link = dwelf_elf_gnu_debuglink(elf, &crc);
	if (link && !strchr(link, '/') && strlen(link) < sizeof(linkname))
		snprintf(linkname, sizeof(linkname), "%s", link);
	elf_end(elf);
	close(fd);
	for (ssize_t i = 0; i < id.n; i++)
		snprintf(hex + 2 * i, 3, "%02x", id.id[i]);
	snprintf(dir, sizeof(dir), "%s", real);
	*strrchr(dir, '/') = 0; /* realpath: absolute, has a '/' */

	roots = df_roots();
	if (!roots)
		return -ENOMEM;
	/* Build id under each root. */
	for (r = strtok_r(roots, ":", &save); r && rc == -ENOENT && id.n > 1;
	     r = strtok_r(NULL, ":", &save)) {
		char sub[PATH_MAX];

		snprintf(sub, sizeof(sub), "%.2s/%s", hex, hex + 2);
		rc = df_try(out, len, &self, &id, 0, 0, "%s/.build-id/%s.debug", r, sub);
		if (rc == -ENAMETOOLONG)
			rc = -ENOENT;
	}
	free(roots);
	if (rc != -ENOENT || !linkname[0])
		return rc;
	/* .gnu_debuglink: next to the file, in .debug/, under each root. */
	rc = df_try(out, len, &self, &id, 1, crc, "%s/%s", dir, linkname);
	if (rc == -ENOENT)
		rc = df_try(out, len, &self, &id, 1, crc, "%s/.debug/%s", dir, linkname);
	roots = df_roots();
	if (!roots)
		return -ENOMEM;
	save = NULL;
	for (r = strtok_r(roots, ":", &save); r && rc == -ENOENT; r = strtok_r(NULL, ":", &save)) {
		char sub[PATH_MAX];

		if ((size_t)snprintf(sub, sizeof(sub), "%s/%s", dir, linkname) >= sizeof(sub))
			continue;
		rc = df_try(out, len, &self, &id, 1, crc, "%s%s", r, sub);
	}
	free(roots);
	return rc == -ENAMETOOLONG ? -ENOENT : rc;
}

int debugfile_add_root(const char *dir)
{
	const char *old = getenv(DEBUGFILE_ENV);
	char real[PATH_MAX], *v;
	int rc;

	if (!realpath(dir, real))
		return -errno;
	if (old && *old)
		rc = asprintf(&v, "%s:%s", real, old);
	else
		rc = asprintf(&v, "%s", real);
	if (rc < 0)
		return -ENOMEM;
	rc = setenv(DEBUGFILE_ENV, v, 1) < 0 ? -errno : 0;
	free(v);
	return rc;
}

char *debugfile_dwfl_path(void)
{
	static char *path; /* set once: a Dwfl's callbacks keep pointing at it */
	const char *env = getenv(DEBUGFILE_ENV);
	char *copy, *save = NULL, *d, real[PATH_MAX];
	size_t len, cap;

	if (path || !env || !*env)
		return path;
	/* libdwfl takes only absolute roots for build ids. */
	copy = strdup(env);
	cap = strlen(env) * 2 + PATH_MAX + sizeof(DEBUGFILE_SYSTEM_ROOT) + 16;
	path = malloc(cap);
	if (!copy || !path) {
		free(copy);
		free(path);
		return path = NULL;
	}
	len = (size_t)snprintf(path, cap, ":.debug");
	for (d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		const char *abs = realpath(d, real) ? real : d;

		if (len + strlen(abs) + 2 < cap)
			len += (size_t)snprintf(path + len, cap - len, ":%s", abs);
	}
	snprintf(path + len, cap - len, ":%s", DEBUGFILE_SYSTEM_ROOT);
	free(copy);
	return path;
}
