// SPDX-License-Identifier: MIT
/*
 * rr_snap_list.c - list a recording's snapshots (spool info): each file
 * TRACE/.spool/snap/snap_<N>.zst is opened as an untrusted trace file (no link
 * followed, no FIFO), its 128-byte header read and checked (magic,
 * version, the index its name says), and one line printed: the schedule
 * event it was taken at (EVENT:COUNT, the taker's progress count too, when
 * another snapshot shares it), the time into the run, its size on disk and
 * before compression, its threads and mappings, and whether it holds a
 * mapping a restore could not put back (MAP_SHARED). A file still named
 * .tmp (a copy that was stopped while writing) is counted as unfinished.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rr_snap_fmt.h"
#include "rr_snap_list.h"

struct snap_row {
	uint64_t index, size;
	struct rr_snap_hdr h;
	int bad;
};

static int snap_row_cmp(const void *a, const void *b)
{
	const struct snap_row *x = a, *y = b;

	return x->index < y->index ? -1 : x->index > y->index;
}

static int snap_read(int dfd, const char *name, uint64_t index, struct snap_row *row)
{
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	ssize_t n;

	row->index = index;
	row->bad = 1;
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	row->size = (uint64_t)st.st_size;
	n = pread(fd, &row->h, sizeof(row->h), 0);
	close(fd);
	if (n != (ssize_t)sizeof(row->h) || memcmp(row->h.magic, RR_SNAP_MAGIC, 8) ||
	    row->h.version < RR_SNAP_VERSION_MIN || row->h.version > RR_SNAP_VERSION ||
	    row->h.index != index)
		return -EINVAL;
	row->bad = 0;
	return 0;
}

/* The recording's snapshot directory, opened without following a
 * symbolic link (the trace is the user's, its contents untrusted): *dp
 * is NULL when the recording has none. 0 or -errno. */
int rr_snap_opendir(const char *dir, DIR **dp)
{
	char path[4096];
	int dfd;

	*dp = NULL;
	if ((size_t)snprintf(path, sizeof(path), "%s/.spool/snap", dir) >= sizeof(path))
		return -ENAMETOOLONG;
	dfd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return errno == ENOENT ? 0 : -errno;
	*dp = fdopendir(dfd);
	if (!*dp) {
		int e = errno;

		close(dfd);
		return -e;
	}
	return 0;
}

void rr_snap_pos_fmt(char *out, uint64_t turn, uint64_t count, int shared_turn)
{
	if (shared_turn)
		snprintf(out, RR_SNAP_POS_MAX, "%" PRIu64 ":%" PRIu64, turn, count);
	else
		snprintf(out, RR_SNAP_POS_MAX, "%" PRIu64, turn);
}

int rr_snap_list(FILE *out, const char *dir)
{
	struct snap_row *rows = NULL;
	size_t n = 0, cap = 0, tmp = 0, good = 0;
	struct dirent *d;
	DIR *dp;
	int rc = rr_snap_opendir(dir, &dp);

	if (rc < 0 || !dp)
		return rc;
	while ((d = readdir(dp))) {
		char *end;
		unsigned long long idx;

		if (strncmp(d->d_name, "snap_", 5) || d->d_name[5] < '1' || d->d_name[5] > '9')
			continue;
		idx = strtoull(d->d_name + 5, &end, 10);
		if (!strcmp(end, ".tmp")) {
			tmp++;
			continue;
		}
		if (strcmp(end, ".zst"))
			continue;
		if (n == cap) {
			struct snap_row *r = realloc(rows, (cap = cap ? cap * 2 : 16) * sizeof(*r));

			if (!r)
				break;
			rows = r;
		}
		memset(&rows[n], 0, sizeof(rows[n]));
		snap_read(dirfd(dp), d->d_name, idx, &rows[n]);
		n++;
	}
	closedir(dp);
	if (!n && !tmp) {
		free(rows);
		return 0;
	}
	qsort(rows, n, sizeof(*rows), snap_row_cmp);
	fprintf(out, "snapshots: %zu in %s/.spool/snap\n", n, dir);
	fprintf(out, "%6s %12s %12s %10s %12s %12s %8s %8s  %s\n", "snap", "event", "switches",
		"time-s", "bytes", "raw-bytes", "threads", "regions", "notes");
	for (size_t i = 0; i < n; i++) {
		const struct snap_row *r = &rows[i];
		char note[80], pos[RR_SNAP_POS_MAX];
		int shared = 0;

		if (r->bad) {
			fprintf(out, "%6" PRIu64 " %12s %12s %10s %12" PRIu64 " %12s %8s %8s  %s\n",
				r->index, "-", "-", "-", r->size, "-", "-", "-",
				"damaged: not a snapshot header of this spool");
			continue;
		}
		good++;
		/* several at one turn: the taker's progress count tells them
		 * apart (--goto EVENT:COUNT) */
		for (size_t k = 0; k < n && !shared; k++)
			shared = k != i && !rows[k].bad && rows[k].h.turn == r->h.turn;
		rr_snap_pos_fmt(pos, r->h.turn, r->h.count, shared);
		if (r->h.flags & RR_SNAP_F_SHARED)
			snprintf(note, sizeof(note),
				 "has a writable MAP_SHARED mapping: not restorable");
		else if (r->h.flags & RR_SNAP_F_DELTA)
			snprintf(note, sizeof(note), "delta of %u (pages changed since)",
				 r->h.base);
		else
			snprintf(note, sizeof(note), "whole");
		fprintf(out,
			"%6" PRIu64 " %12s %12" PRIu64 " %10.3f %12" PRIu64 " %12" PRIu64
			" %8u %8u  %s\n",
			r->index, pos, r->h.switches, (double)r->h.time_ns / 1e9, r->size,
			r->h.raw_bytes, r->h.nthreads, r->h.nregions, note);
	}
	if (tmp)
		fprintf(out, "snapshots unfinished (a copy stopped while writing): %zu\n", tmp);
	free(rows);
	return (int)good;
}

void rr_snap_budget_fmt(char *out, size_t len, uint64_t bytes)
{
	static const char *const unit[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
	int u = 0;

	while (u < 4 && bytes >= (1ull << (10 * (u + 1))))
		u++;
	if (!u || !(bytes & ((1ull << (10 * u)) - 1)))
		snprintf(out, len, "%" PRIu64 " %s", bytes >> (10 * u), unit[u]);
	else
		snprintf(out, len, "%.1f %s", (double)bytes / (double)(1ull << (10 * u)), unit[u]);
}

void rr_snap_stopped_fmt(char *out, size_t len, uint64_t kept, uint64_t budget)
{
	char b[32];

	rr_snap_budget_fmt(b, sizeof(b), budget);
	snprintf(out, len, "snapshots stopped at %" PRIu64 ": their budget of %s is used (--snap-max)",
		 kept, b);
}

void rr_snap_removed_fmt(char *out, size_t len, uint64_t removed, uint64_t taken)
{
	snprintf(out, len,
		 "%" PRIu64 " of the %" PRIu64 " snapshots taken passed the budget while their copy "
		 "wrote them: removed",
		 removed, taken);
}
