// SPDX-License-Identifier: MIT
/*
 * receive.c - `spool receive --port PORT -o DIR`: the host's end of
 * `--stream HOST:PORT` (stream_proto.h; the board's end is
 * src/collect/stream_send.c). It takes one connection, writes the trace the
 * board sends into DIR (beside it while it comes, DIR.writing.PID, renamed
 * at the end like every trace spool writes) and exits.
 *
 * The stream is hostile input: every path is checked (stream_proto_path_ok:
 * relative, no "..", no links followed: O_NOFOLLOW at every step, so it
 * writes only inside the directory), every size bounded (a frame's data,
 * the number of files, --max-size for every offset and for the total). A
 * frame that breaks a rule ends the connection like a cut: what arrived is
 * kept, and the copy says it was cut (.spool/stream), so every report says
 * it is incomplete (trace/loss.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../trace/stream_proto.h"
#include "../trace/trace.h"
#include "../util/files.h"
#include "../util/log.h"
#include "../util/options.h"
#include "cmd.h"

struct rcv {
	int sock;
	char partial[PATH_MAX];
	int dirfd;
	uint64_t max_bytes;
	uint64_t data;	/* DATA bytes since the last RESET */
	uint64_t total; /* bytes read from the connection */
	uint64_t files; /* files created since the last RESET */
	char why[PATH_MAX + 256]; /* why the stream ended early */
	unsigned char *buf;
};

static void receive_usage(FILE *out)
{
	fprintf(out,
		"usage: spool receive --port PORT [-o DIR] [--bind ADDR] [--max-size SIZE] [-q]\n"
		"\n"
		"Receive one trace that spool locks, record or probe --stream HOST:PORT sends\n"
		"from a board as it is written, into DIR (default spool.trace; a trace spool\n"
		"wrote there is kept as DIR.old, anything else there is refused), then exit.\n"
		"The connection is taken as untrusted input: only files inside DIR are\n"
		"written, and no more than --max-size bytes.\n"
		"\n"
		"options:\n"
		"      --port PORT      TCP port to listen on (0: any free port, printed)\n"
		"      --bind ADDR      address to listen on (default: every address)\n"
		"  -o, --output DIR     where the trace goes\n"
		"      --max-size SIZE  the largest trace taken, k/m/g suffixes (default 64g)\n"
		"  -q, --quiet          no summary line\n"
		"  -h, --help           show this help\n"
		"\n"
		"spool says 'receiving on ADDR:PORT' once it listens. If the connection is cut\n"
		"before the board's spool says the trace is complete, what arrived is kept in\n"
		"DIR and marked: spool info and every report say it is incomplete (the rest\n"
		"stayed on the board, which keeps its whole trace and says so).\n"
		"\n"
		"Exit status: 0 the whole trace arrived; 4 the stream was cut or broke a rule\n"
		"(DIR holds what arrived, marked incomplete); 1 nothing could be received or\n"
		"written; 2 usage error.\n");
}

/* Exactly len bytes; 0, or -ECONNRESET at the end of the stream. */
static int rcv_read(struct rcv *c, void *p, size_t len)
{
	char *b = p;

	while (len) {
		ssize_t n = recv(c->sock, b, len, 0);

		if (n < 0 && errno == EINTR)
			continue;
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
static int rcv_parent(struct rcv *c, const char *path, const char **leaf)
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
static int rcv_open(struct rcv *c, const char *path)
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
static int rcv_reset(struct rcv *c)
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
	return 0;
}

#define RCV_BAD(...) (snprintf(c->why, sizeof(c->why), __VA_ARGS__), -EPROTO)

/* One frame. Returns 1 after STREAM_END, 0 to go on, <0 to stop (why). */
static int rcv_frame(struct rcv *c)
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
			ssize_t n = pwrite(fd, c->buf + done, (size_t)(len - done),
					   (off_t)(off + done));

			if (n < 0 && errno == EINTR)
				continue;
			rc = n <= 0 ? (n < 0 ? -errno : -EIO) : 0;
			done += n > 0 ? (uint64_t)n : 0;
		}
		c->data += len;
	}
	close(fd);
	return rc ? RCV_BAD("cannot write %s: %s", path, strerror(-rc)) : 0;
}

/* A cut copy says so in .spool/stream (loss.c reads it). */
static void rcv_mark_cut(struct rcv *c)
{
	char text[512];
	const char *leaf;
	int n, dfd, fd;

	if (c->dirfd < 0)
		return;
	dfd = rcv_parent(c, ".spool/stream", &leaf);
	if (dfd < 0)
		return;
	n = snprintf(text, sizeof(text), "cut=1\nreceived=%" PRIu64 "\nwhy=", c->total);
	for (const char *p = c->why; *p && n < (int)sizeof(text) - 2; p++)
		text[n++] = *p == '\n' ? ' ' : *p;
	text[n++] = '\n';
	fd = openat(dfd, leaf, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd >= 0) {
		if (write(fd, text, (size_t)n) != n)
			log_warn("%s/.spool/stream: cannot write the mark", c->partial);
		close(fd);
	}
	close(dfd);
}

static int rcv_listen(const char *bind_addr, const char *port, char *said, size_t len)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE}, *res, *a;
	int fd = -1, one = 1, rc;

	rc = getaddrinfo(bind_addr, port, &hints, &res);
	if (rc) {
		log_err("receive: %s:%s: %s", bind_addr ? bind_addr : "*", port, gai_strerror(rc));
		return -EINVAL;
	}
	for (a = res; a; a = a->ai_next) {
		struct sockaddr_storage ss;
		socklen_t sl = sizeof(ss);
		char h[128], p[16];

		fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
		if (fd < 0)
			continue;
		(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(fd, a->ai_addr, a->ai_addrlen) == 0 && listen(fd, 1) == 0 &&
		    getsockname(fd, (struct sockaddr *)&ss, &sl) == 0 &&
		    getnameinfo((struct sockaddr *)&ss, sl, h, sizeof(h), p, sizeof(p),
				NI_NUMERICHOST | NI_NUMERICSERV) == 0) {
			snprintf(said, len, "%s:%s", h, p);
			break;
		}
		rc = -errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0)
		log_err("receive: cannot listen on %s:%s: %s", bind_addr ? bind_addr : "*", port,
			strerror(-rc));
	return fd;
}

int cmd_receive(int argc, char **argv)
{
	enum { OPT_PORT = 256, OPT_BIND, OPT_MAX };
	static const struct option opts[] = {
		{"port", required_argument, NULL, OPT_PORT},
		{"bind", required_argument, NULL, OPT_BIND},
		{"max-size", required_argument, NULL, OPT_MAX},
		{"output", required_argument, NULL, 'o'},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct rcv c = {.sock = -1, .dirfd = -1, .max_bytes = STREAM_DEFAULT_MAX_BYTES};
	const char *dir = "spool.trace", *port = NULL, *bind_addr = NULL;
	char where[160], peer[160] = "?", magic[sizeof(STREAM_MAGIC) - 1];
	struct sockaddr_storage pa;
	socklen_t pl = sizeof(pa);
	int ch, lfd, rc, quiet = 0, status = 1;
	uint64_t v;

	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, ":o:qh", opts, NULL)) != -1) {
		switch (ch) {
		case OPT_PORT:
			if (options_parse_uint(optarg, 65535, &v) < 0) {
				log_err("receive: --port '%s': want 0 to 65535", optarg);
				return EXIT_USAGE;
			}
			port = optarg;
			break;
		case OPT_BIND:
			bind_addr = optarg;
			break;
		case OPT_MAX:
			if (options_parse_size(optarg, &v) < 0 || !v) {
				log_err("receive: --max-size '%s': want a size (k/m/g)", optarg);
				return EXIT_USAGE;
			}
			c.max_bytes = v;
			break;
		case 'o':
			dir = optarg;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			receive_usage(stdout);
			return 0;
		default:
			options_report_error("receive", ch, argv);
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		log_err("receive: unexpected argument '%s' (see spool receive --help)", argv[optind]);
		return EXIT_USAGE;
	}
	if (!port) {
		log_err("receive: say which port: --port PORT (see spool receive --help)");
		return EXIT_USAGE;
	}
	if (trace_dir_check(dir) < 0 || trace_dir_partial(dir, c.partial, sizeof(c.partial)) < 0)
		return EXIT_USAGE; /* (said) */
	c.buf = malloc(STREAM_MAX_DATA);
	if (!c.buf)
		return 1;
	lfd = rcv_listen(bind_addr, port, where, sizeof(where));
	if (lfd < 0)
		goto out_free;
	log_info("receiving on %s, the trace goes to %s/", where, dir);
	c.sock = accept4(lfd, (struct sockaddr *)&pa, &pl, SOCK_CLOEXEC);
	close(lfd);
	if (c.sock < 0) {
		log_err("receive: accept: %s", strerror(errno));
		goto out_free;
	}
	(void)getnameinfo((struct sockaddr *)&pa, pl, peer, sizeof(peer), NULL, 0, NI_NUMERICHOST);
	rc = rcv_read(&c, magic, sizeof(magic));
	if (rc || memcmp(magic, STREAM_MAGIC, sizeof(magic))) {
		log_err("receive: %s is not spool --stream (or another version of it): nothing "
			"written",
			peer);
		goto out_sock;
	}
	while ((rc = rcv_frame(&c)) == 0)
		;
	if (c.dirfd < 0 && rc != 1) {
		log_err("receive: the stream from %s ended before any trace: %s", peer, c.why);
		goto out_sock;
	}
	if (rc != 1)
		rcv_mark_cut(&c);
	close(c.dirfd);
	c.dirfd = -1;
	if (trace_dir_install(c.partial, dir, quiet) < 0) {
		log_err("receive: cannot put the trace at %s: it is in %s", dir, c.partial);
		goto out_sock;
	}
	if (rc == 1) {
		/* on the disk at its name: the board may remove its copy */
		if (send(c.sock, STREAM_ACK, sizeof(STREAM_ACK) - 1, MSG_NOSIGNAL) !=
		    (ssize_t)(sizeof(STREAM_ACK) - 1))
			log_warn("receive: %s did not hear that the trace arrived: it keeps its copy",
				 peer);
		status = cmd_dir_loss(dir, NULL) ? EXIT_INCOMPLETE : 0;
		if (!quiet)
			log_info("received %" PRIu64 " bytes in %" PRIu64 " files from %s, trace in %s/",
				 c.data, c.files, peer, dir);
	} else {
		log_warn("receive: the stream from %s was cut: %s; %s/ holds the %" PRIu64
			 " bytes that arrived, marked incomplete (the board keeps its whole trace)",
			 peer, c.why, dir, c.data);
		cmd_dir_loss(dir, NULL);
		status = EXIT_INCOMPLETE;
	}
out_sock:
	close(c.sock);
	if (c.dirfd >= 0)
		close(c.dirfd);
out_free:
	free(c.buf);
	return status;
}
