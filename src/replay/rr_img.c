// SPDX-License-Identifier: MIT
/*
 * rr_img.c - the replay image: a recording's log laid out the way a replay
 * reads it (who holds each turn, each thread's records, the token's
 * schedule), kept beside the recording in .spool/replay.img.
 *
 * Why: loading a recording decodes every record of its trace, sorts them
 * by thread and copies them into the shared area, all before the program
 * starts. For rr_bank's 1.35M events that was 400 ms of a 500 ms replay,
 * paid again by every replay of the same recording. The first replay
 * writes what it loaded into the image; later replays read its header,
 * and the agent maps the file read-only (the page cache shares it, nothing
 * is copied), so their start costs what a small recording's does. The
 * first replay writes the image as soon as it has loaded the log and maps
 * it too: writing it costs about what laying the log out in the shared area
 * did.
 *
 * The image is derived data, never the source: its key is a hash of the
 * trace's stream files (name, size, inode, change and modification times),
 * so a recording that was rewritten, truncated or damaged after its image
 * was made is loaded from its trace again, and its errors are reported as
 * before. An image is written only after a load that succeeded, to a
 * temporary file renamed into place, and a missing, stale or malformed one
 * is simply rebuilt. `spool replay --no-image` neither reads nor writes it.
 *
 * The key says only that the image belongs to these stream files; anyone
 * who made the trace can make an image with a matching key. So what the
 * agent will read from an image is checked as a load from the trace would
 * have made it (img_check_body) before it is used: every record's size and
 * kind, each thread's event numbers, every object, turn and thread index.
 * An image that fails is not used, and the log is loaded from the trace,
 * whose own errors are then reported.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "../trace/untrusted.h"
#include "rr_img.h"
#include "rr_log.h"
#include "rr_log_int.h"

#define RR_IMG_MAGIC 0x31474d4952525053ULL /* "SPRRIMG1" */
#define RR_IMG_VERSION 3
#define RR_IMG_HDR 4096
#define RR_IMG_DIR ".spool"
#define RR_IMG_BASE "replay.img"
#define RR_IMG_NAME RR_IMG_DIR "/" RR_IMG_BASE

struct rr_img_hdr {
	uint64_t magic;
	uint32_t version;      /* RR_IMG_VERSION */
	uint32_t area_version; /* RR_VERSION: the record layouts it holds */
	uint64_t key;	       /* rr_img_key of the recording it was made from */
	uint64_t size;	       /* bytes of the whole file */
	uint32_t serial, nthreads, max_objs, nobjs;
	uint64_t events, inputs, log_bytes, norder, nsw;
	uint64_t threads_off, first_off, order_off, log_off, sw_off;
	/* the stream files whose data RR_INPUT_REF records read (rr_area.h) */
	uint32_t nstreams;
	uint32_t stream_id[RR_STREAMS_MAX];
	uint32_t packed; /* RR_INPUT_ZREF records (rr_area.h) */
};
_Static_assert(sizeof(struct rr_img_hdr) <= RR_IMG_HDR, "image header too big");

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	while (n--)
		h = (h ^ *c++) * 0x100000001b3ull;
	return h;
}

static uint64_t fnv_stat(uint64_t h, const char *name, const struct stat *st)
{
	uint64_t v[7] = {(uint64_t)st->st_size,	       (uint64_t)st->st_ino,
			 (uint64_t)st->st_mtim.tv_sec, (uint64_t)st->st_mtim.tv_nsec,
			 (uint64_t)st->st_ctim.tv_sec, (uint64_t)st->st_ctim.tv_nsec,
			 (uint64_t)st->st_dev};

	h = fnv(h, name, strlen(name) + 1);
	return fnv(h, v, sizeof(v));
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int rr_img_key(const char *dir, uint64_t *key)
{
	uint64_t h = 0xcbf29ce484222325ull;
	char **names = NULL;
	size_t n = 0, cap = 0, i;
	struct dirent *de;
	struct stat st;
	int dfd, rc = 0;
	DIR *d;

	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	d = fdopendir(dfd);
	if (!d) {
		rc = -errno;
		close(dfd);
		return rc;
	}
	/* The files a load reads: the metadata and the streams. */
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, "metadata") && strncmp(de->d_name, "stream_", 7))
			continue;
		if (n == cap) {
			char **v = realloc(names, (cap = cap ? 2 * cap : 16) * sizeof(*v));

			if (!v) {
				rc = -ENOMEM;
				goto out;
			}
			names = v;
		}
		names[n] = strdup(de->d_name);
		if (!names[n]) {
			rc = -ENOMEM;
			goto out;
		}
		n++;
	}
	qsort(names, n, sizeof(*names), name_cmp);
	for (i = 0; i < n; i++) {
		if (fstatat(dfd, names[i], &st, AT_SYMLINK_NOFOLLOW) < 0) {
			rc = -errno;
			goto out;
		}
		h = fnv_stat(h, names[i], &st);
	}
	if (fstatat(dfd, ".spool/record", &st, AT_SYMLINK_NOFOLLOW) == 0)
		h = fnv_stat(h, "record", &st);
	*key = h;
out:
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	closedir(d);
	return rc;
}

/* The image's layout for a loaded log. */
static void img_layout(const struct rr_log *log, struct rr_img_hdr *hd, uint64_t key)
{
	uint64_t off = RR_IMG_HDR;

	memset(hd, 0, sizeof(*hd));
	hd->magic = RR_IMG_MAGIC;
	hd->version = RR_IMG_VERSION;
	hd->area_version = RR_VERSION;
	hd->key = key;
	hd->serial = !!log->serial;
	hd->nthreads = log->nthreads;
	hd->max_objs = log->max_objs;
	hd->nobjs = log->nobjs;
	hd->events = log->events;
	hd->inputs = log->inputs;
	hd->log_bytes = log->log_bytes;
	hd->norder = log->norder;
	hd->nsw = log->serial ? log->nsw : 0;
	hd->nstreams = log->nstreams;
	hd->packed = !!log->packed;
	memcpy(hd->stream_id, log->stream_id, sizeof(hd->stream_id));
	hd->threads_off = off;
	off += rr_log_align8((uint64_t)log->nthreads * sizeof(struct rr_img_thread));
	off = rr_log_ro_layout(log, off, &hd->first_off, &hd->order_off, &hd->log_off);
	hd->sw_off = off;
	off += hd->nsw * sizeof(struct rr_switch);
	hd->size = off;
}

static int write_at(int fd, const void *p, size_t n, uint64_t off)
{
	while (n) {
		ssize_t w = pwrite(fd, p, n, (off_t)off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		p = (const char *)p + w;
		n -= (size_t)w;
		off += (uint64_t)w;
	}
	return 0;
}

/* The records go to the file straight from the loaded log's blocks, in
 * runs gathered for pwritev: one copy, into the page cache. Laying them out
 * in memory first (or writing through a shared mapping, a page fault per
 * page) cost as much again. */
#define IMG_IOV 1024
struct img_out {
	int fd;
	int n;
	uint64_t off, len; /* file offset of iov[0], bytes gathered */
	struct iovec iov[IMG_IOV];
};

static int img_flush(struct img_out *o)
{
	struct iovec *v = o->iov;
	int n = o->n;

	while (n) {
		ssize_t w = pwritev(o->fd, v, n, (off_t)o->off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		o->off += (uint64_t)w;
		while (n && (size_t)w >= v->iov_len) {
			w -= (ssize_t)v->iov_len;
			v++;
			n--;
		}
		if (n) {
			v->iov_base = (char *)v->iov_base + w;
			v->iov_len -= (size_t)w;
		}
	}
	o->n = 0;
	o->len = 0;
	return 0;
}

static int img_put(void *arg, const void *p, size_t len, uint64_t off)
{
	struct img_out *o = arg;
	int rc;

	if (o->n && (o->n == IMG_IOV || off != o->off + o->len)) {
		rc = img_flush(o);
		if (rc < 0)
			return rc;
	}
	if (!o->n)
		o->off = off;
	o->iov[o->n].iov_base = (void *)p;
	o->iov[o->n++].iov_len = len;
	o->len += len;
	return 0;
}

/* The trace's .spool directory, opened without following a link (the
 * trace may come from someone else: what it names is not written through). */
static int img_side_dir(const char *dir)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), sfd;

	if (dfd < 0)
		return -errno;
	sfd = openat(dfd, RR_IMG_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sfd < 0)
		sfd = -errno;
	close(dfd);
	return sfd;
}

/* Is the file name in sfd a current image of the recording key (its
 * header's magic, version and key, its size)? Opened without following a
 * link or blocking. */
static int img_read_checked(int fd, uint64_t key, int serial, struct rr_img_hdr *hd,
			    struct rr_img_thread **thr);

static int img_current(int sfd, const char *name, uint64_t key)
{
	struct rr_img_thread *thr = NULL;
	struct rr_img_hdr hd;
	int fd = openat(sfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), ok;

	if (fd < 0)
		return 0;
	/* the whole image checked, as a replay would: one whose header is
	 * right and body is not is replaced, not kept */
	ok = img_read_checked(fd, key, -1, &hd, &thr) == 0;
	free(thr);
	close(fd);
	return ok;
}

/*
 * Rename the finished temporary image tmp to replay.img. Two replays of one
 * recording started together both find no image and both write one; the
 * first has checked its own (the device and inode its agent insists on,
 * rr_open_checked) when the second's rename would replace it, and its
 * agent then refused to start ("no longer the file spool checked"). So an
 * image already there that is current stays, and this one is dropped; only
 * a stale or broken one is replaced.
 */
static int img_put_in_place(int sfd, const char *tmp, uint64_t key)
{
	if (renameat2(sfd, tmp, sfd, RR_IMG_BASE, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EEXIST && errno != EINVAL && errno != ENOSYS)
		return -errno;
	if (errno == EEXIST && img_current(sfd, RR_IMG_BASE, key)) {
		unlinkat(sfd, tmp, 0); /* created by this run (O_EXCL) */
		return 0;
	}
	/* stale, or a file system without RENAME_NOREPLACE */
	return renameat(sfd, tmp, sfd, RR_IMG_BASE) < 0 ? -errno : 0;
}

int rr_img_write(const char *dir, const struct rr_log *log, uint64_t key)
{
	char tmp[64];
	struct rr_img_thread *thr = NULL;
	struct rr_order *order = NULL;
	struct img_out *o = NULL;
	uint32_t *first = NULL;
	struct rr_img_hdr hd;
	int fd, sfd, rc = 0;

	if (log->img)
		return -EINVAL;
	img_layout(log, &hd, key);
	/*
	 * Nothing is written through a name the trace holds: the temporary
	 * file is created by this run (O_EXCL, O_NOFOLLOW, in the .spool
	 * directory reached without a link), and the rename replaces the
	 * entry replay.img, whatever it is, never the file a link there names.
	 */
	sfd = img_side_dir(dir);
	if (sfd < 0)
		return sfd;
	snprintf(tmp, sizeof(tmp), RR_IMG_BASE ".%d.tmp", (int)getpid());
	fd = openat(sfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		rc = -errno;
		close(sfd);
		return rc;
	}
	thr = calloc(log->nthreads ? log->nthreads : 1, sizeof(*thr));
	first = calloc((size_t)log->max_objs + 1, sizeof(*first));
	order = calloc(log->norder ? log->norder : 1, sizeof(*order));
	o = calloc(1, sizeof(*o));
	if (!thr || !first || !order || !o) {
		rc = -ENOMEM;
		goto out;
	}
	o->fd = fd;
	rc = rr_log_place(log, first, order, hd.log_off, thr, img_put, o);
	if (!rc)
		rc = img_flush(o);
	if (!rc)
		rc = write_at(fd, thr, log->nthreads * sizeof(*thr), hd.threads_off);
	if (!rc)
		rc =
		    write_at(fd, first, ((size_t)log->max_objs + 1) * sizeof(*first), hd.first_off);
	if (!rc)
		rc = write_at(fd, order, log->norder * sizeof(*order), hd.order_off);
	if (!rc && hd.nsw)
		rc = write_at(fd, log->sw, hd.nsw * sizeof(struct rr_switch), hd.sw_off);
	if (!rc && ftruncate(fd, (off_t)hd.size) < 0)
		rc = -errno;
	/* The header last: a file is an image once it has its magic. */
	if (!rc)
		rc = write_at(fd, &hd, sizeof(hd), 0);
	if (!rc)
		rc = img_put_in_place(sfd, tmp, key);
out:
	if (rc < 0)
		unlinkat(sfd, tmp, 0); /* created by this run (O_EXCL) */
	close(fd);
	close(sfd);
	free(thr);
	free(first);
	free(order);
	free(o);
	return rc;
}

/* The header says a layout that fits in the file and in itself. */
static int img_sane(const struct rr_img_hdr *hd, uint64_t fsize, int serial)
{
	uint64_t thr = (uint64_t)hd->nthreads * sizeof(struct rr_img_thread);

	if (hd->magic != RR_IMG_MAGIC || hd->version != RR_IMG_VERSION ||
	    hd->area_version != RR_VERSION || hd->size != fsize ||
	    (serial >= 0 && hd->serial != !!serial) || hd->serial > 1 ||
	    !hd->nthreads || hd->nthreads > RR_MAX_THREADS || hd->max_objs < hd->nobjs ||
	    hd->max_objs > (1u << 26) || (!!hd->nsw) != hd->serial ||
	    hd->nstreams > RR_STREAMS_MAX || hd->packed > 1)
		return 0;
	return hd->threads_off >= RR_IMG_HDR && hd->first_off >= hd->threads_off + thr &&
	       hd->order_off >= hd->first_off + ((uint64_t)hd->max_objs + 1) * 4 &&
	       hd->norder <= fsize / sizeof(struct rr_order) &&
	       hd->log_off >= hd->order_off + hd->norder * sizeof(struct rr_order) &&
	       hd->log_bytes <= fsize && hd->sw_off >= hd->log_off + hd->log_bytes &&
	       hd->nsw <= fsize / sizeof(struct rr_switch) &&
	       hd->sw_off + hd->nsw * sizeof(struct rr_switch) <= fsize;
}

/* One thread's records, from off to end, as rr_log.c's load makes them:
 * sizes that tile the range exactly, only schedule and input records, all
 * of this thread, its event numbers 1, 2, 3... (an input's later chunks
 * repeat the number), turns within their object's share of order[]. */
static int img_check_thread(const char *base, const struct rr_img_hdr *hd,
			    const struct rr_img_thread *th, uint32_t t, const uint32_t *first)
{
	uint64_t off = th->log_off;
	uint32_t want = 1;

	while (off < th->log_end) {
		const struct rec_hdr *h = (const struct rec_hdr *)(base + off);
		uint64_t left = th->log_end - off;

		if (left < sizeof(*h) || h->size < sizeof(*h) || h->size % 8 || h->size > left)
			return 0;
		if (ev_kind(h->word) == KIND_SCHED) {
			const struct rec_sched *e = (const struct rec_sched *)h;

			if (h->size != sizeof(*e) || e->thread != t || e->tseq != want)
				return 0;
			if (e->turn != RR_NO_TURN &&
			    (e->obj >= hd->max_objs || e->turn >= first[e->obj + 1] - first[e->obj]))
				return 0;
			want++;
		} else if (ev_kind(h->word) == KIND_INPUT) {
			const struct rec_input *in = (const struct rec_input *)h;
			uint64_t data;

			if (h->size < sizeof(*in) || in->thread != t || in->chunk_off > in->len)
				return 0;
			switch (ev_op(h->word)) {
			case RR_INPUT_REF:
				data = sizeof(struct rr_input_ref);
				break;
			case RR_INPUT_ZREF:
				data = sizeof(struct rr_input_zref);
				break;
			case 0:
				data = 8ull * in->nwords;
				break;
			default:
				return 0;
			}
			if (h->size != sizeof(*in) + data)
				return 0;
			if (in->chunk_off ? in->tseq + 1 != want : in->tseq != want++)
				return 0;
		} else {
			return 0;
		}
		off += h->size;
	}
	return want - 1 == th->nevents;
}

/* What the agent reads of the image, checked (see the top of the file).
 * thr[] was read and bounded by rr_img_open. 1: as a load makes it. */
static int img_check_body(int fd, const struct rr_img_hdr *hd, const struct rr_img_thread *thr)
{
	const char *base = mmap(NULL, hd->size, PROT_READ, MAP_PRIVATE, fd, 0);
	const uint32_t *first;
	const struct rr_order *order;
	const struct rr_switch *sw;
	int ok = 0;

	if (base == MAP_FAILED)
		return 0;
	first = (const uint32_t *)(base + hd->first_off);
	order = (const struct rr_order *)(base + hd->order_off);
	sw = (const struct rr_switch *)(base + hd->sw_off);
	/* first[obj]..first[obj + 1] is obj's share of order[] */
	if (first[0] || first[hd->max_objs] != hd->norder)
		goto out;
	for (uint32_t i = 0; i < hd->max_objs; i++)
		if (first[i] > first[i + 1])
			goto out;
	for (uint64_t i = 0; i < hd->norder; i++)
		if (order[i].thread >= hd->nthreads)
			goto out;
	for (uint64_t i = 0; i < hd->nsw; i++)
		if (sw[i].thread >= hd->nthreads)
			goto out;
	for (uint32_t t = 0; t < hd->nthreads; t++)
		if (!img_check_thread(base, hd, &thr[t], t, first))
			goto out;
	ok = 1;
out:
	munmap((void *)base, hd->size);
	return ok;
}

/* The image open at fd, if it is one for key (and serial mode when serial
 * is 0 or 1; -1: either), with every part checked: its header into *hd,
 * its thread table into a malloc'd *thr. -ENOENT: not such an image. */
static int img_read_checked(int fd, uint64_t key, int serial, struct rr_img_hdr *hd,
			    struct rr_img_thread **thr)
{
	struct stat st;
	size_t tbytes;

	*thr = NULL;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    pread(fd, hd, sizeof(*hd), 0) != (ssize_t)sizeof(*hd) || hd->key != key ||
	    !img_sane(hd, (uint64_t)st.st_size, serial))
		return -ENOENT;
	tbytes = (size_t)hd->nthreads * sizeof(struct rr_img_thread);
	if (!(*thr = malloc(tbytes)))
		return -ENOMEM;
	if (pread(fd, *thr, tbytes, (off_t)hd->threads_off) != (ssize_t)tbytes)
		goto bad;
	for (uint32_t i = 0; i < hd->nthreads; i++)
		if ((*thr)[i].log_off < hd->log_off || (*thr)[i].log_end < (*thr)[i].log_off ||
		    (*thr)[i].log_end > hd->log_off + hd->log_bytes)
			goto bad;
	if (!img_check_body(fd, hd, *thr))
		goto bad; /* crafted or damaged */
	return 0;
bad:
	free(*thr);
	*thr = NULL;
	return -ENOENT;
}

int rr_img_open(const char *dir, uint64_t key, int serial, struct rr_log **out)
{
	char path[PATH_MAX], real[PATH_MAX], err[256];
	struct rr_log *log = NULL;
	struct rr_img_map *m = NULL;
	struct rr_img_hdr hd;
	struct stat st;
	int fd, rc = -ENOENT;

	*out = NULL;
	if (!realpath(dir, real))
		return -errno;
	if ((size_t)snprintf(path, sizeof(path), "%s/" RR_IMG_NAME, real) >= sizeof(path))
		return -ENAMETOOLONG;
	/* a link, a FIFO or a device there is not an image (untrusted.h) */
	fd = trace_open_dir_file(real, RR_IMG_NAME, TRACE_NO_MAX, NULL);
	if (fd < 0)
		return fd;
	log = calloc(1, sizeof(*log));
	m = calloc(1, sizeof(*m));
	if (!log || !m) {
		rc = -ENOMEM;
		goto out;
	}
	/* stale, not an image, or not one a load makes: -ENOENT, and the
	 * caller loads the trace and writes the image again */
	rc = img_read_checked(fd, key, serial, &hd, &m->thr);
	if (rc < 0)
		goto out;
	rc = -ENOENT;
	if (fstat(fd, &st) < 0)
		goto out;
	if (strlen(path) >= sizeof(m->path)) {
		rc = -ENAMETOOLONG;
		goto out;
	}
	memcpy(m->path, path, strlen(path) + 1);
	m->dev = (uint64_t)st.st_dev;
	m->ino = (uint64_t)st.st_ino;
	m->size = hd.size;
	m->key = hd.key;
	m->first_off = hd.first_off;
	m->order_off = hd.order_off;
	m->log_off = hd.log_off;
	m->sw_off = hd.sw_off;
	log->img = m;
	log->serial = (int)hd.serial;
	log->nthreads = hd.nthreads;
	log->max_objs = hd.max_objs;
	log->nobjs = hd.nobjs;
	log->events = hd.events;
	log->inputs = hd.inputs;
	log->log_bytes = hd.log_bytes;
	log->norder = hd.norder;
	log->nsw = hd.nsw;
	log->nstreams = hd.nstreams;
	log->packed = (int)hd.packed;
	memcpy(log->stream_id, hd.stream_id, sizeof(log->stream_id));
	/* The streams are where the trace is now (it may have moved). */
	if (hd.nstreams && strlen(real) + 32 >= sizeof(log->trace_dir))
		goto out;
	memcpy(log->trace_dir, real, strlen(real) + 1);
	/* not used when a stream file is no longer a plain file: the load
	 * from the trace that follows says why */
	if (rr_log_check_streams(log, err, sizeof(err)) < 0)
		goto out;
	close(fd);
	*out = log;
	return 0;

out:
	if (m)
		free(m->thr);
	free(m);
	free(log);
	close(fd);
	return rc;
}
