// SPDX-License-Identifier: MIT
/*
 * rr_snap_pick.c - the snapshot spool replay --goto EVENT starts from
 * (doc/record.md, "Replay from a snapshot"): the one at or nearest before
 * EVENT among TRACE/.spool/snap/snap_<N>.zst, unpacked into a memfd the
 * program inherits (the agent loads it, src/agent/agent_snap_restore.c).
 *
 * Everything is checked here, before the program runs, so that a refusal
 * is a message and not a half-restored process: the header (magic,
 * version, number), the zstd frame whole with its checksum (a damaged or
 * short file), the build of the binary it was taken of, a writable
 * MAP_SHARED mapping it could not hold, and the records' bounds. A
 * snapshot a replay cannot start from (the program's first thread had
 * ended) is skipped for an earlier one, said on stderr.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../collect/session.h"
#include "../util/buildid.h"
#include "../util/log.h"
#include "rr_snap_body.h"
#include "rr_snap_compose.h"
#include "rr_snap_fmt.h"
#include "rr_snap_list.h"
#include "rr_snap_pick.h"

#define PICK_FD_MIN 900 /* where the program's descriptor goes (above its own) */
#define PICK_RAW_MAX (64ull << 30)

struct pick_ent {
	uint64_t index, turn, count;
	char name[64];
};

static int pick_cmp(const void *a, const void *b)
{
	const struct pick_ent *x = a, *y = b;

	/* latest first; at one turn (a program that made no switch between
	 * them) the one at the highest progress count, then the latest taken */
	if (x->turn != y->turn)
		return x->turn < y->turn ? 1 : -1;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return x->index < y->index ? 1 : x->index > y->index ? -1 : 0;
}

/* The header of dir/.spool/snap/name, or -EINVAL when it is not one. */
static int pick_header(int dfd, const char *name, struct rr_snap_hdr *h)
{
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	ssize_t n;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	n = pread(fd, h, sizeof(*h), 0);
	close(fd);
	if (n != (ssize_t)sizeof(*h) || memcmp(h->magic, RR_SNAP_MAGIC, 8) ||
	    h->version < RR_SNAP_VERSION_MIN || h->version > RR_SNAP_VERSION)
		return -EINVAL;
	return 0;
}

/* Unpack the body of the snapshot file into memory, its zero pages left
 * out (rr_snap_body.c); -EBADMSG when the frame is damaged or cut short. */
static int pick_unpack(int dfd, const char *name, const struct rr_snap_hdr *h,
		       struct rr_snap_body *body)
{
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	int rc;

	if (fd < 0)
		return -errno;
	rc = rr_snap_body_unpack(fd, sizeof(*h), h->raw_bytes, PICK_RAW_MAX, body);
	close(fd);
	return rc;
}

/* The whole body of snapshot name (header h) in a memfd, its zero pages
 * holes (the agent skips them): unpacked, and when it is a delta composed
 * in one pass over the chain it is a delta of (RR_SNAP_CHAIN_MAX deltas at
 * most, down to a whole one), each page taken from the newest file holding
 * it (rr_snap_compose.c). -EBADMSG when a file of the chain is damaged or
 * missing. *ndeltas: the files under it. */
static int pick_body(int dfd, const char *name, const struct rr_snap_hdr *h, int *out,
		     uint64_t *size, uint32_t *ndeltas)
{
	struct rr_snap_body bodies[RR_SNAP_CHAIN_MAX + 1];
	struct rr_snap_hdr cur = *h;
	char cname[64];
	uint32_t n = 0;
	int mfd = -1, rc;

	snprintf(cname, sizeof(cname), "%s", name);
	for (;;) {
		struct rr_snap_hdr bh;

		rc = pick_unpack(dfd, cname, &cur, &bodies[n]);
		if (rc < 0)
			goto out;
		n++;
		if (!(cur.flags & RR_SNAP_F_DELTA))
			break;
		rc = -EBADMSG;
		snprintf(cname, sizeof(cname), "snap_%u.zst", cur.base);
		if (n > RR_SNAP_CHAIN_MAX || cur.base == 0 || cur.base >= cur.index ||
		    pick_header(dfd, cname, &bh) < 0 || bh.index != cur.base ||
		    memcmp(bh.build_id, h->build_id, 8) ||
		    memcmp(bh.agent_build_id, h->agent_build_id, 8))
			goto out;
		cur = bh;
	}
	mfd = memfd_create("spool-snapshot", 0);
	if (mfd < 0) {
		rc = -errno;
		goto out;
	}
	/* (a whole one too: its SPARSE records become data and holes) */
	rc = rr_snap_compose_bodies(bodies, n, mfd, size);
	if (rc == 0) {
		*ndeltas += n - 1;
		*out = mfd;
		mfd = -1;
	}
out:
	for (uint32_t k = 0; k < n; k++)
		rr_snap_body_free(&bodies[k]);
	if (mfd >= 0)
		close(mfd);
	return rc;
}

/* The records: bounds, a first thread, the taker, where each thread was
 * parked (*nblocked: those taking the run token back after a blocking call
 * or a nap; *nout: those out in a blocking call). Returns 0, -EBADMSG (damaged), or -EAGAIN with *why set (no
 * first thread to restore). */
/* An FD record at off (len bytes: struct rr_snap_fd, then its
 * /proc/self/fd link's text): one open for writing on a file by its path
 * (not a pipe, a socket, a device) is counted in pick, the first one named. */
static void pick_fd(int fd, uint64_t off, uint64_t len, struct rr_snap_pick *pick)
{
	struct rr_snap_fd f;
	char link[sizeof(pick->wpath)];
	size_t n;

	if (len < sizeof(f) || pread(fd, &f, sizeof(f), (off_t)off) != sizeof(f))
		return;
	/* 0 to 2 are the replay's own (spool gives it the recorded kinds) */
	if (f.fd <= 2 || (f.flags & O_ACCMODE) == O_RDONLY)
		return;
	n = len - sizeof(f) < sizeof(link) - 1 ? (size_t)(len - sizeof(f)) : sizeof(link) - 1;
	if (pread(fd, link, n, (off_t)(off + sizeof(f))) != (ssize_t)n)
		return;
	link[n] = 0;
	/* (a memfd's link is "/memfd:NAME": spool's shared memory is one) */
	if (link[0] != '/' || !strncmp(link, "/dev/", 5) || !strncmp(link, "/memfd:", 7))
		return;
	if (!pick->nwfiles++) {
		pick->wfd = f.fd;
		memcpy(pick->wpath, link, n + 1);
	}
}

static int pick_scan(int fd, uint64_t size, const char **why, uint32_t *nblocked,
		     uint32_t *nout, struct rr_snap_pick *wf)
{
	uint64_t off = 0;
	int first = 0, taker = 0;

	for (;;) {
		struct rr_snap_rec rec;

		if (size - off < sizeof(rec) || pread(fd, &rec, sizeof(rec), (off_t)off) != sizeof(rec))
			return -EBADMSG;
		off += sizeof(rec);
		if (rec.len > size - off)
			return -EBADMSG;
		if (rec.kind == RR_SNAP_END) {
			if (!taker)
				return -EBADMSG;
			if (!first) {
				*why = "the program's first thread had ended (pthread_exit in main)";
				return -EAGAIN;
			}
			return 0;
		}
		if (rec.kind == RR_SNAP_THREAD) {
			struct rr_snap_thread t;

			if (rec.len < sizeof(t) ||
			    pread(fd, &t, sizeof(t), (off_t)off) != sizeof(t) ||
			    rec.len - sizeof(t) < t.ctx_bytes)
				return -EBADMSG;
			first |= t.id == 0;
			taker |= t.taker != 0;
			*nblocked += t.park == RR_PARK_BLOCK || t.park == RR_PARK_NAP;
			*nout += t.park == RR_PARK_OUT;
			if (t.park != RR_PARK_SLOW && t.park != RR_PARK_GO &&
			    t.park != RR_PARK_BLOCK && t.park != RR_PARK_NAP &&
			    t.park != RR_PARK_JOIN && t.park != RR_PARK_TAKER &&
			    t.park != RR_PARK_OUT)
				return -EBADMSG;
		} else if (rec.kind == RR_SNAP_REGION) {
			struct rr_snap_region r;

			if (rec.len < sizeof(r) || pread(fd, &r, sizeof(r), (off_t)off) != sizeof(r) ||
			    r.path_len > rec.len - sizeof(r) ||
			    (r.has_data && (r.end < r.start ||
					    r.end - r.start != rec.len - sizeof(r) - r.path_len)))
				return -EBADMSG;
		} else if (rec.kind == RR_SNAP_EPOLL) {
			if (rec.len < sizeof(struct rr_snap_epoll))
				return -EBADMSG;
		} else if (rec.kind == RR_SNAP_AGENT) {
			if (rec.len < sizeof(struct rr_snap_agent))
				return -EBADMSG;
		} else if (rec.kind == RR_SNAP_TIMER) {
			if (rec.len < sizeof(struct rr_snap_timer))
				return -EBADMSG;
		} else if (rec.kind == RR_SNAP_FD) {
			pick_fd(fd, off, rec.len, wf);
		} else if (rec.kind != RR_SNAP_SIGACT && rec.kind != RR_SNAP_PAD) {
			return -EBADMSG;
		}
		off += rec.len;
	}
}

/* The build id of file path, its first 8 bytes in hex, matches id. */
static int pick_id_is(const char *path, const uint8_t id[8])
{
	char hex[BUILDID_HEX_MAX], want[17];

	if (buildid_read(path, hex, sizeof(hex)) < 0)
		return 0;
	for (int i = 0; i < 8; i++)
		snprintf(want + 2 * i, 3, "%02x", id[i]);
	return strlen(hex) >= 16 && !strncmp(hex, want, 16);
}

/* The snapshot was taken of this binary: its build id (or, without one,
 * its size and time). */
static int pick_same_build(const struct rr_snap_hdr *h, const char *exe)
{
	static const uint8_t none[8];
	struct stat st;

	if (memcmp(h->build_id, none, sizeof(none)))
		return pick_id_is(exe, h->build_id);
	return stat(exe, &st) == 0 && (uint64_t)st.st_size == h->exe_size &&
	       (uint64_t)st.st_mtime == h->exe_mtime;
}

/* ... and with this spool's agent (the threads' contexts are in its code). */
static int pick_same_agent(const struct rr_snap_hdr *h)
{
	static const uint8_t none[8];
	char path[4096];

	if (session_find_agent(path, sizeof(path)) < 0)
		return 0;
	return memcmp(h->agent_build_id, none, sizeof(none)) && pick_id_is(path, h->agent_build_id);
}

int rr_snap_pick(const char *dir, uint64_t event, uint64_t count, const char *exe,
		 struct rr_snap_pick *pick)
{
	char path[4096]; /* (for messages) */
	struct pick_ent *ents = NULL;
	uint64_t *all = NULL; /* every snapshot's turn, for shared_turn */
	size_t n = 0, cap = 0, nall = 0, allcap = 0;
	struct dirent *d;
	DIR *dp;
	int rc;

	memset(pick, 0, sizeof(*pick));
	pick->fd = -1;
	rc = rr_snap_opendir(dir, &dp);
	if (rc < 0 || !dp)
		return rc;
	snprintf(path, sizeof(path), "%s/.spool/snap", dir);
	while ((d = readdir(dp))) {
		struct rr_snap_hdr h;
		char *end;
		unsigned long long idx;

		if (strncmp(d->d_name, "snap_", 5) || d->d_name[5] < '1' || d->d_name[5] > '9' ||
		    strlen(d->d_name) >= sizeof(ents->name))
			continue;
		idx = strtoull(d->d_name + 5, &end, 10);
		if (strcmp(end, ".zst"))
			continue;
		if (pick_header(dirfd(dp), d->d_name, &h) < 0 || h.index != idx) {
			/* its turn cannot be read: it may be the one to start from */
			log_err("%s/%s is damaged (not a snapshot header of this spool): refusing "
				"to start from its snapshots",
				path, d->d_name);
			rc = -EBADMSG;
			goto out;
		}
		if (nall == allcap) {
			uint64_t *e =
			    realloc(all, (allcap = allcap ? allcap * 2 : 16) * sizeof(*e));

			if (!e) {
				rc = -ENOMEM;
				goto out;
			}
			all = e;
		}
		all[nall++] = h.turn;
		if (h.turn > event || (h.turn == event && h.count > count))
			continue;
		if (n == cap) {
			struct pick_ent *e = realloc(ents, (cap = cap ? cap * 2 : 16) * sizeof(*e));

			if (!e) {
				rc = -ENOMEM;
				goto out;
			}
			ents = e;
		}
		ents[n].index = idx;
		ents[n].turn = h.turn;
		ents[n].count = h.count;
		snprintf(ents[n].name, sizeof(ents[n].name), "%s", d->d_name);
		n++;
	}
	if (n)
		qsort(ents, n, sizeof(*ents), pick_cmp);
	for (size_t i = 0; i < n; i++) {
		struct rr_snap_hdr h;
		const char *why = NULL;
		uint64_t size = 0;
		uint32_t nblocked = 0, nout = 0, ndeltas = 0;
		struct timespec t0, t1;
		int fd = -1;

		if (pick_header(dirfd(dp), ents[i].name, &h) < 0) {
			rc = -EBADMSG;
			log_err("%s/%s is damaged: refusing to start from it", path, ents[i].name);
			goto out;
		}
		if (!pick_same_build(&h, exe)) {
			log_err("%s/%s was taken of another build of the program than %s: refusing "
				"to start from it",
				path, ents[i].name, exe);
			rc = -ESTALE;
			goto out;
		}
		if (!pick_same_agent(&h)) {
			log_err("%s/%s was taken by another build of spool's agent "
				"(libspool-agent.so): refusing to start from it",
				path, ents[i].name);
			rc = -ESTALE;
			goto out;
		}
		if (h.flags & RR_SNAP_F_SHARED) {
			log_err("%s/%s holds a writable MAP_SHARED mapping (memory shared with "
				"another process or a file) that a snapshot cannot hold: refusing to "
				"start from it",
				path, ents[i].name);
			rc = -ENOTSUP;
			goto out;
		}
		clock_gettime(CLOCK_MONOTONIC, &t0);
		rc = pick_body(dirfd(dp), ents[i].name, &h, &fd, &size, &ndeltas);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (rc == 0)
			rc = pick_scan(fd, size, &why, &nblocked, &nout, pick);
		if (rc == -EAGAIN) {
			log_warn("snapshot %" PRIu64 " (event %" PRIu64 ") cannot be restored (%s): "
				 "trying an earlier one",
				 h.index, h.turn, why);
			pick->nwfiles = 0;
			close(fd);
			rc = 0;
			continue;
		}
		if (rc < 0) {
			if (fd >= 0)
				close(fd);
			log_err("%s/%s is damaged (%s): refusing to start from it", path,
				ents[i].name,
				rc == -EBADMSG ? "its compressed data, or that of a snapshot it is "
						 "a delta of, fails its check, is cut short or missing"
					       : strerror(-rc));
			goto out;
		}
		pick->fd = fcntl(fd, F_DUPFD, PICK_FD_MIN);
		close(fd);
		if (pick->fd < 0) {
			rc = -errno;
			goto out;
		}
		pick->index = h.index;
		pick->turn = h.turn;
		pick->count = h.count;
		for (size_t k = 0, seen = 0; k < nall; k++)
			if (all[k] == h.turn && ++seen > 1)
				pick->shared_turn = 1;
		pick->size = size;
		pick->nthreads = h.nthreads;
		pick->nblocked = nblocked;
		pick->nout = nout;
		pick->ndeltas = ndeltas;
		pick->unpack_ns = (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000000000ull +
				  (uint64_t)t1.tv_nsec - (uint64_t)t0.tv_nsec;
		break;
	}
out:
	closedir(dp);
	free(ents);
	free(all);
	return rc;
}

static int turns_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int rr_snap_turns(const char *dir, uint64_t **turns, size_t *n)
{
	uint64_t *v = NULL;
	size_t cap = 0;
	struct dirent *d;
	DIR *dp;
	int rc;

	*turns = NULL;
	*n = 0;
	rc = rr_snap_opendir(dir, &dp);
	if (rc < 0 || !dp)
		return rc;
	while ((d = readdir(dp))) {
		struct rr_snap_hdr h;
		char *end;
		unsigned long long idx;

		if (strncmp(d->d_name, "snap_", 5) || d->d_name[5] < '1' || d->d_name[5] > '9')
			continue;
		idx = strtoull(d->d_name + 5, &end, 10);
		if (strcmp(end, ".zst") || pick_header(dirfd(dp), d->d_name, &h) < 0 ||
		    h.index != idx)
			continue;
		if (*n == cap) {
			uint64_t *e = realloc(v, (cap = cap ? cap * 2 : 16) * sizeof(*e));

			if (!e) {
				free(v);
				closedir(dp);
				return -ENOMEM;
			}
			v = e;
		}
		v[(*n)++] = h.turn;
	}
	closedir(dp);
	if (*n)
		qsort(v, *n, sizeof(*v), turns_cmp);
	*turns = v;
	return 0;
}
