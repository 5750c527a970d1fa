// SPDX-License-Identifier: MIT
/*
 * buildid.c - GNU build ids read with libelf, and /proc/PID/maps lines.
 *
 * Used on both sides of a run: the collector lists the build ids of what a
 * process had mapped, the symbolizer checks them against the files it opens
 * when the trace is read (possibly much later, possibly after a rebuild).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <elfutils/libdwelf.h>
#include <libelf.h>

#include "../trace/untrusted.h"
#include "buildid.h"

int buildid_read(const char *path, char *hex, size_t len)
{
	int fd, ret;

	/* A path a trace names (maps): a FIFO there must not block, a
	 * device is not a binary (trace/untrusted.h). */
	fd = trace_open_named(path);
	if (fd < 0)
		return fd;
	ret = buildid_read_fd(fd, hex, len);
	close(fd);
	return ret;
}

int buildid_read_fd(int fd, char *hex, size_t len)
{
	const unsigned char *id;
	const void *idp;
	Elf *elf;
	ssize_t n;
	int ret;

	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		ret = -ENOEXEC;
		goto out_elf;
	}
	n = dwelf_elf_gnu_build_id(elf, &idp);
	if (n <= 0) {
		ret = -ENODATA;
		goto out_elf;
	}
	if (n > BUILDID_MAX || len < (size_t)n * 2 + 1) {
		ret = -ENOSPC;
		goto out_elf;
	}
	id = idp;
	for (ssize_t i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	ret = 0;
out_elf:
	if (elf)
		elf_end(elf);
	return ret;
}

int buildid_parse_maps_line(const char *line, size_t len, struct buildid_map *m)
{
	char buf[4096 + 256];
	size_t n = 0;
	int path_at = -1;
	unsigned long long start, end, offset, inode;
	static const char deleted[] = " (deleted)";

	while (n < len && line[n] && line[n] != '\n')
		n++;
	if (n >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, line, n);
	buf[n] = '\0';
	memset(m, 0, sizeof(*m));
	/* start-end perms offset dev inode [path]; the path may contain
	 * spaces, so it is everything after the whitespace that follows the
	 * inode. */
	if (sscanf(buf, "%llx-%llx %4s %llx %*s %llu %n", &start, &end, m->perms, &offset, &inode,
		   &path_at) < 5)
		return -EINVAL;
	m->start = start;
	m->end = end;
	m->offset = offset;
	m->inode = inode;
	if (path_at > 0 && (size_t)path_at < n) {
		size_t plen = n - (size_t)path_at;
		size_t dlen = sizeof(deleted) - 1;

		if (plen >= sizeof(m->path))
			return -EINVAL;
		memcpy(m->path, buf + path_at, plen);
		m->path[plen] = '\0';
		if (plen > dlen && !strcmp(m->path + plen - dlen, deleted)) {
			m->path[plen - dlen] = '\0';
			m->deleted = 1;
		}
	}
	return 0;
}

/* Append to a growing buffer. */
static int buildid_append(char **buf, size_t *len, size_t *cap, const char *s, size_t n)
{
	if (*len + n + 1 > *cap) {
		size_t ncap = *cap ? *cap * 2 : 1024;
		char *nb;

		while (ncap < *len + n + 1)
			ncap *= 2;
		nb = realloc(*buf, ncap);
		if (!nb)
			return -ENOMEM;
		*buf = nb;
		*cap = ncap;
	}
	memcpy(*buf + *len, s, n);
	*len += n;
	(*buf)[*len] = '\0';
	return 0;
}

int buildid_is_file_path(const char *path)
{
	return path[0] == '/' && strncmp(path, "/memfd:", 7) && strncmp(path, "/dev/", 5);
}

int buildid_list_for_maps(const char *maps_text, char **out, size_t *out_len)
{
	struct buildid_map *m;
	char *buf = NULL, *seen = NULL;
	size_t len = 0, cap = 0, seen_len = 0, seen_cap = 0;
	const char *p = maps_text;
	char hex[BUILDID_HEX_MAX];
	int ret;

	m = malloc(sizeof(*m));
	if (!m)
		return -ENOMEM;
	ret = buildid_append(&buf, &len, &cap, "", 0);
	if (ret)
		goto out_free;
	/* `seen` holds the paths already handled, NUL-separated: a library is
	 * mapped several times (text, data, relro) but listed once. */
	ret = buildid_append(&seen, &seen_len, &seen_cap, "", 0);
	if (ret)
		goto out_free;
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t llen = nl ? (size_t)(nl - p) : strlen(p);
		int dup = 0;

		if (buildid_parse_maps_line(p, llen, m) == 0 && buildid_is_file_path(m->path)) {
			for (const char *s = seen; s < seen + seen_len; s += strlen(s) + 1) {
				if (!strcmp(s, m->path)) {
					dup = 1;
					break;
				}
			}
			if (!dup) {
				ret = buildid_append(&seen, &seen_len, &seen_cap, m->path,
						     strlen(m->path) + 1);
				if (ret)
					goto out_free;
				/* Not an ELF file, no build id, gone: nothing to
				 * record; the symbolizer will say so if it matters. */
				if (buildid_read(m->path, hex, sizeof(hex)) == 0) {
					if ((ret = buildid_append(&buf, &len, &cap, hex, strlen(hex))) ||
					    (ret = buildid_append(&buf, &len, &cap, " ", 1)) ||
					    (ret = buildid_append(&buf, &len, &cap, m->path,
								  strlen(m->path))) ||
					    (ret = buildid_append(&buf, &len, &cap, "\n", 1)))
						goto out_free;
				}
			}
		}
		p += llen;
		if (*p == '\n')
			p++;
	}
	*out = buf;
	*out_len = len;
	buf = NULL;
	ret = 0;
out_free:
	free(buf);
	free(seen);
	free(m);
	return ret;
}
