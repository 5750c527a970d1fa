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
#include <inttypes.h>
#include <limits.h>
#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../trace/stream_proto.h"
#include "../trace/stream_recv.h"
#include "../trace/trace.h"
#include "../util/files.h"
#include "../util/log.h"
#include "../util/options.h"
#include "cmd.h"
#include "run_opts.h"

static void receive_on_signal(int sig)
{
	(void)sig;
	stream_recv_interrupted = 1;
}

/* Codes of spool receive's long-only options. */
enum {
	RECEIVE_O_PORT = RUN_OPT_LONG,
	RECEIVE_O_BIND,
	RECEIVE_O_MAX_SIZE,
};

/* spool receive's options, in the order --help lists them. */
static const struct run_opt_own receive_opts[] = {
    {"port", required_argument, RECEIVE_O_PORT,
     "      --port PORT      TCP port to listen on (0: any free port, printed)\n"},
    {"bind", required_argument, RECEIVE_O_BIND,
     "      --bind ADDR      address to listen on (default: every address)\n"},
    {"output", required_argument, 'o', "  -o, --output DIR     where the trace goes\n"},
    {"max-size", required_argument, RECEIVE_O_MAX_SIZE,
     "      --max-size SIZE  the largest trace taken, k/m/g suffixes (default 64g)\n"},
    {"quiet", no_argument, 'q', "  -q, --quiet          no summary line\n"},
    {"help", no_argument, 'h', "  -h, --help           show this help\n"},
};

#define RECEIVE_NOPTS (sizeof(receive_opts) / sizeof(receive_opts[0]))

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
		"options:\n");
	run_opts_own_usage(out, receive_opts, RECEIVE_NOPTS);
	fprintf(out,
		"\n"
		"spool says 'receiving on ADDR:PORT' once it listens. If the connection is cut\n"
		"before the board's spool says the trace is complete (or spool receive gets\n"
		"Ctrl-C or SIGTERM), what arrived is kept in DIR and marked: spool info and\n"
		"every report say it is incomplete and count the events the board announced\n"
		"that did not arrive (at least that many are lost; the rest stayed on the\n"
		"board, which keeps its trace and says how many events the host lacks).\n"
		"\n"
		"Exit status: 0 the whole trace arrived; 4 the stream was cut or broke a rule\n"
		"(DIR holds what arrived, marked incomplete); 1 nothing could be received or\n"
		"written; 2 usage error.\n");
}

static const struct run_opts_spec receive_spec = {.usage = receive_usage, .anywhere = 1};

/* What the command line of spool receive asks for. */
struct receive_cli {
	struct stream_recv *c;
	const char *dir, *port, *bind_addr;
	int quiet;
};

/* One of spool receive's options (run_opt_fn). */
static int receive_opt(void *arg, int ch, const char *val)
{
	struct receive_cli *cl = arg;
	uint64_t v;

	switch (ch) {
	case RECEIVE_O_PORT:
		if (options_parse_uint(val, 65535, &v) < 0) {
			log_err("receive: --port '%s': want 0 to 65535", val);
			return -1;
		}
		cl->port = val;
		return 0;
	case RECEIVE_O_BIND:
		cl->bind_addr = val;
		return 0;
	case RECEIVE_O_MAX_SIZE:
		if (options_parse_size(val, &v) < 0 || !v) {
			log_err("receive: --max-size '%s': want a size (k/m/g)", val);
			return -1;
		}
		cl->c->max_bytes = v;
		return 0;
	case 'o':
		cl->dir = val;
		return 0;
	case 'q':
		cl->quiet = 1;
		return 0;
	}
	return -1;
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
	struct stream_recv c = {
	    .sock = -1, .dirfd = -1, .max_bytes = STREAM_DEFAULT_MAX_BYTES, .confirm = 1};
	struct receive_cli cl = {.c = &c, .dir = "spool.trace"};
	const char *dir, *port, *bind_addr;
	char where[160], peer[160] = "?";
	struct sockaddr_storage pa;
	socklen_t pl = sizeof(pa);
	int lfd, rc, quiet, status = 1;

	rc = run_opts_own_parse("receive", argc, argv, receive_opts, RECEIVE_NOPTS, &receive_spec,
				receive_opt, &cl);
	if (rc)
		return rc < 0 ? EXIT_USAGE : 0;
	dir = cl.dir;
	port = cl.port;
	bind_addr = cl.bind_addr;
	quiet = cl.quiet;
	if (optind < argc) {
		log_err("receive: unexpected argument '%s' (see spool receive --help)",
			argv[optind]);
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
	/* ^C or SIGTERM: what arrived is kept, marked cut (no SA_RESTART:
	 * the blocked read returns) */
	{
		struct sigaction sa = {.sa_handler = receive_on_signal};

		sigemptyset(&sa.sa_mask);
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
	}
	log_info("receiving on %s, the trace goes to %s/", where, dir);
	c.sock = accept4(lfd, (struct sockaddr *)&pa, &pl, SOCK_CLOEXEC);
	close(lfd);
	if (c.sock < 0) {
		if (stream_recv_interrupted)
			log_err("receive: stopped before a board connected: nothing written");
		else
			log_err("receive: accept: %s", strerror(errno));
		goto out_free;
	}
	(void)getnameinfo((struct sockaddr *)&pa, pl, peer, sizeof(peer), NULL, 0, NI_NUMERICHOST);
	if (stream_recv_magic(&c) < 0) {
		log_err("receive: %s is not spool --stream (or another version of it): nothing "
			"written",
			peer);
		goto out_sock;
	}
	while ((rc = stream_recv_frame(&c)) == 0)
		;
	if (c.dirfd < 0 && rc != 1) {
		log_err("receive: the stream from %s ended before any trace: %s", peer, c.why);
		goto out_sock;
	}
	if (rc == 1)
		stream_recv_unmark(&c);
	if (rc != 1 && stream_recv_mark_cut(&c) < 0)
		log_warn("receive: cannot mark %s as cut: reports will not say why it is short",
			 c.partial);
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
			log_warn(
			    "receive: %s did not hear that the trace arrived: it keeps its copy",
			    peer);
		status = cmd_dir_loss(dir, NULL, NULL) ? EXIT_INCOMPLETE : 0;
		if (!quiet)
			log_info("received %" PRIu64 " bytes in %" PRIu64
				 " files from %s, trace in %s/",
				 c.data, c.files, peer, dir);
	} else {
		log_warn("receive: the stream from %s was cut: %s; %s/ holds the %" PRIu64
			 " bytes that arrived, marked incomplete (the board keeps its whole trace)",
			 peer, c.why, dir, c.data);
		if (c.announced > c.got)
			log_warn("receive: %" PRIu64 " events the board announced did not arrive "
				 "(and what it wrote after its last announcement is not here)",
				 c.announced - c.got);
		cmd_dir_loss(dir, NULL, NULL);
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
