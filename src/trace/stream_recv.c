// SPDX-License-Identifier: MIT
/*
 * stream_recv.c - writing what a --stream connection sends into a
 * directory (stream_recv.h).
 *
 * Every path is checked (stream_proto_path_ok: relative, no "..") and
 * opened with O_NOFOLLOW at every step, so it writes only inside the
 * directory; every size is bounded (a frame's data, the number of files,
 * max_bytes for every offset and for the total). A frame that breaks a
 * rule ends the stream like a cut.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/files.h"
#include "stream_proto.h"
#include "stream_recv.h"

volatile sig_atomic_t stream_recv_interrupted;

/* Stopped by a signal: what is already in the socket is still read (the
 * announcements and packets the board sent before), nothing more. */
static void rcv_drain(struct stream_recv *c)
{
	int avail = 0;

	if (c->draining)
		return;
	c->draining = 1;
	if (ioctl(c->sock, FIONREAD, &avail) == 0 && avail > 0)
		c->drain_left = (uint64_t)avail;
}

/* Exactly len bytes; 0, or -ECONNRESET at the end of the stream. */
static int rcv_read(struct stream_recv *c, void *p, size_t len)
{
	char *b = p;

	while (len) {
		size_t want = len;
		ssize_t n;

		if (stream_recv_interrupted)
			rcv_drain(c);
		if (c->draining) {
			if (!c->drain_left)
				return -EINTR;
			if (want > c->drain_left)
				want = (size_t)c->drain_left;
		}
		n = read(c->sock, b, want);
		if (n < 0 && errno == EINTR)
			continue; /* (draining now, when it was the signal) */
		if (n > 0 && c->draining)
			c->drain_left -= (uint64_t)n;
		if (n <= 0)
			return n < 0 ? -errno : -ECONNRESET;
		b += n;
		len -= (size_t)n;
		c->total += (uint64_t)n;
	}
	return 0;
}

/* The directory fd that holds path's last component (made when missing,
 * never through a link); *leaf points at that component. Returns the fd
 * (to close) or -errno. */
static int rcv_parent(struct stream_recv *c, const char *path, const char **leaf)
{
	int fd = dup(c->dirfd);
	const char *p = path, *slash;

	if (fd < 0)
		return -errno;
	while ((slash = strchr(p, '/'))) {
		char comp[STREAM_MAX_PATH + 1];
		int nfd;

		memcpy(comp, p, (size_t)(slash - p));
		comp[slash - p] = '\0';
		if (mkdirat(fd, comp, 0777) < 0 && errno != EEXIST) {
			int err = -errno;

			close(fd);
			return err;
		}
		nfd = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(fd);
		if (nfd < 0)
			return -errno;
		fd = nfd;
		p = slash + 1;
	}
	*leaf = p;
	return fd;
}

/* Open (create) path for writing, counting the files made. */
static int rcv_open(struct stream_recv *c, const char *path)
{
	const char *leaf;
	int dfd = rcv_parent(c, path, &leaf), fd;

	if (dfd < 0)
		return dfd;
	fd = openat(dfd, leaf, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd >= 0) {
		if (++c->files > STREAM_MAX_FILES) {
			close(fd);
			fd = -EMFILE;
		}
	} else if (errno == EEXIST) {
		fd = openat(dfd, leaf, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			fd = -errno;
	} else {
		fd = -errno;
	}
	close(dfd);
	if (fd >= 0) {
		struct stat st;

		if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
			close(fd);
			return -ENODEV;
		}
	}
	return fd;
}

/* The staging directory, empty. */
static int rcv_reset(struct stream_recv *c)
{
	if (c->dirfd >= 0)
		close(c->dirfd);
	c->dirfd = -1;
	if (files_rm_tree(c->partial) < 0 && errno != ENOENT)
		return -errno;
	if (mkdir(c->partial, 0777) < 0)
		return -errno;
	c->dirfd = open(c->partial, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (c->dirfd < 0)
		return -errno;
	c->data = 0;
	c->files = 0;
	c->announced = 0;
	c->got = 0;
	c->pend_path[0] = '\0';
	return 0;
}

/* Tell the board how many announced events are on the disk here (it may
 * free them, and says what the host does not have when the connection is
 * cut). Never blocks: when the board is not reading, a later one says
 * more. */
static void rcv_confirm(struct stream_recv *c)
{
	unsigned char m[16];

	if (!c->confirm)
		return;
	memcpy(m, STREAM_CONFIRM, 8);
	stream_put_u64(m + 8, c->got_all);
	(void)send(c->sock, m, sizeof(m), MSG_NOSIGNAL | MSG_DONTWAIT);
}

#define RCV_BAD(...) (snprintf(c->why, sizeof(c->why), __VA_ARGS__), -EPROTO)

/* One frame. Returns 1 after STREAM_END, 0 to go on, <0 to stop (why). */
int stream_recv_frame(struct stream_recv *c)
{
	unsigned char h[STREAM_HDR_SIZE];
	char path[STREAM_MAX_PATH + 1];
	uint32_t type, plen;
	uint64_t off, len;
	int rc, fd;

	rc = rcv_read(c, h, sizeof(h));
	if (rc)
		return RCV_BAD("the connection ended before the trace was complete (%s)",
			       strerror(-rc));
	type = stream_get_u32(h);
	plen = stream_get_u32(h + 4);
	off = stream_get_u64(h + 8);
	len = stream_get_u64(h + 16);
	if (plen > STREAM_MAX_PATH || len > STREAM_MAX_DATA)
		return RCV_BAD("a frame too large (path %" PRIu32 " bytes, data %" PRIu64 ")", plen,
			       len);
	if (plen && (rc = rcv_read(c, path, plen)))
		return RCV_BAD("the connection ended inside a frame (%s)", strerror(-rc));
	path[plen] = '\0';
	switch (type) {
	case STREAM_RESET:
		if (plen || len)
			return RCV_BAD("a malformed reset");
		rc = rcv_reset(c);
		if (rc)
			return RCV_BAD("cannot empty %s: %s", c->partial, strerror(-rc));
		return 0;
	case STREAM_END:
		if (plen || len)
			return RCV_BAD("a malformed end");
		if (off != c->data)
			return RCV_BAD("the board sent %" PRIu64 " bytes, %" PRIu64 " arrived", off,
				       c->data);
		return 1;
	case STREAM_EVENTS:
		if (len != 8 || !stream_proto_path_ok(path, plen) || c->dirfd < 0 ||
		    off > c->max_bytes)
			return RCV_BAD("a malformed event count");
		if ((rc = rcv_read(c, c->buf, 8)))
			return RCV_BAD("the connection ended inside a frame (%s)", strerror(-rc));
		/* an earlier announcement whose packets did not come stays
		 * counted as missing */
		memcpy(c->pend_path, path, plen + 1);
		c->pend_events = off;
		c->pend_end = stream_get_u64(c->buf);
		c->announced = c->announced + off < c->announced ? UINT64_MAX : c->announced + off;
		(void)stream_recv_mark_cut(c);
		return 0;
	case STREAM_DATA:
	case STREAM_SIZE:
	case STREAM_REMOVE:
		break;
	default:
		return RCV_BAD("an unknown frame type %" PRIu32, type);
	}
	if (!stream_proto_path_ok(path, plen) || c->dirfd < 0)
		return RCV_BAD("a file name spool does not write ('%.64s')", path);
	if (type == STREAM_REMOVE) {
		const char *leaf;
		int dfd = len ? -EPROTO : rcv_parent(c, path, &leaf);

		if (dfd < 0)
			return RCV_BAD("cannot remove %s: %s", path, strerror(-dfd));
		if (unlinkat(dfd, leaf, 0) < 0 && errno != ENOENT)
			rc = -errno;
		close(dfd);
		return rc ? RCV_BAD("cannot remove %s: %s", path, strerror(-rc)) : 0;
	}
	/* offsets and sizes within --max-size, without overflow */
	if (off > c->max_bytes || len > c->max_bytes - off ||
	    (type == STREAM_DATA && len > c->max_bytes - c->data))
		return RCV_BAD("more than --max-size (%" PRIu64 " bytes)", c->max_bytes);
	if (type == STREAM_SIZE && len)
		return RCV_BAD("a malformed size frame");
	if (len && (rc = rcv_read(c, c->buf, (size_t)len)))
		return RCV_BAD("the connection ended inside a frame (%s)", strerror(-rc));
	fd = rcv_open(c, path);
	if (fd < 0)
		return RCV_BAD("cannot write %s: %s", path, strerror(-fd));
	if (type == STREAM_SIZE) {
		rc = ftruncate(fd, (off_t)off) < 0 ? -errno : 0;
	} else {
		for (uint64_t done = 0; !rc && done < len;) {
			ssize_t n =
			    pwrite(fd, c->buf + done, (size_t)(len - done), (off_t)(off + done));

			if (n < 0 && errno == EINTR)
				continue;
			rc = n <= 0 ? (n < 0 ? -errno : -EIO) : 0;
			done += n > 0 ? (uint64_t)n : 0;
		}
		c->data += len;
		if (!rc && c->pend_path[0] && !strcmp(path, c->pend_path) &&
		    off + len >= c->pend_end) {
			c->got += c->pend_events;
			c->got_all += c->pend_events;
			c->pend_path[0] = '\0';
			(void)stream_recv_mark_cut(c);
			rcv_confirm(c);
		}
	}
	close(fd);
	return rc ? RCV_BAD("cannot write %s: %s", path, strerror(-rc)) : 0;
}

int stream_recv_mark_cut(struct stream_recv *c)
{
	char text[512];
	const char *leaf;
	int n, dfd, fd, rc = 0;

	if (c->dirfd < 0)
		return -ENOENT;
	dfd = rcv_parent(c, ".spool/stream", &leaf);
	if (dfd < 0)
		return dfd;
	n = snprintf(text, sizeof(text),
		     "cut=1\nreceived=%" PRIu64 "\nannounced=%" PRIu64 "\nevents=%" PRIu64
		     "\nmissing=%" PRIu64 "\nwhy=",
		     c->total, c->announced, c->got,
		     c->announced > c->got ? c->announced - c->got : 0);
	if (!c->why[0])
		snprintf(c->why, sizeof(c->why),
			 "spool receive stopped before the end (killed?)");
	for (const char *p = c->why; *p && n < (int)sizeof(text) - 2; p++)
		text[n++] = *p == '\n' ? ' ' : *p;
	text[n++] = '\n';
	/* written beside and renamed: a receiver killed meanwhile leaves the
	 * last whole note, never an empty one */
	fd = openat(dfd, "stream.tmp", O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
		    0644);
	if (fd < 0)
		rc = -errno;
	else if (write(fd, text, (size_t)n) != n)
		rc = -EIO;
	if (fd >= 0)
		close(fd);
	if (!rc && renameat(dfd, "stream.tmp", dfd, leaf) < 0)
		rc = -errno;
	close(dfd);
	return rc;
}

void stream_recv_unmark(struct stream_recv *c)
{
	const char *leaf;
	int dfd;

	if (c->dirfd < 0)
		return;
	dfd = rcv_parent(c, ".spool/stream", &leaf);
	if (dfd < 0)
		return;
	(void)unlinkat(dfd, leaf, 0);
	close(dfd);
}

int stream_recv_magic(struct stream_recv *c)
{
	char magic[sizeof(STREAM_MAGIC) - 1];

	if (rcv_read(c, magic, sizeof(magic)) || memcmp(magic, STREAM_MAGIC, sizeof(magic)))
		return -EPROTO;
	return 0;
}
