// SPDX-License-Identifier: MIT
/*
 * stdio_kind.c - the kinds of the recorded program's stdout and stderr,
 * and stand-ins of those kinds for a replay (see stdio_kind.h for why).
 *
 * Threads: each stand-in has one forwarder thread, the only one to read
 * its source while the replay runs; stdio_mimic_end tells it the program
 * has ended and joins it before closing anything. The forwarder blocks
 * SIGPIPE: when spool's own output goes away (`spool replay | head`), it
 * goes on reading and drops the bytes, so the program is never blocked on
 * a full stand-in, and spool is not killed.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <termios.h>
#include <unistd.h>

#include "stdio_kind.h"

#define STDIO_CHUNK 65536
#define STDIO_FILE_POLL_MS 20 /* how often a file stand-in is looked at */

static const char *const stdio_kind_names[] = {
    [STDIO_KIND_UNKNOWN] = "unknown", [STDIO_KIND_TTY] = "tty",	  [STDIO_KIND_PIPE] = "pipe",
    [STDIO_KIND_FILE] = "file",	      [STDIO_KIND_NULL] = "null",
};

const char *stdio_kind_name(enum stdio_kind k)
{
	return k <= STDIO_KIND_NULL ? stdio_kind_names[k] : "unknown";
}

enum stdio_kind stdio_kind_parse(const char *s)
{
	for (int k = STDIO_KIND_TTY; k <= STDIO_KIND_NULL; k++)
		if (!strcmp(s, stdio_kind_names[k]))
			return (enum stdio_kind)k;
	return STDIO_KIND_UNKNOWN;
}

enum stdio_kind stdio_kind_of(int fd, uint64_t *off)
{
	struct stat st;

	if (off)
		*off = 0;
	if (fstat(fd, &st) < 0)
		return STDIO_KIND_UNKNOWN;
	if (S_ISREG(st.st_mode)) {
		off_t o = lseek(fd, 0, SEEK_CUR);

		if (off && o > 0)
			*off = (uint64_t)o;
		return STDIO_KIND_FILE;
	}
	if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))
		return STDIO_KIND_PIPE;
	if (S_ISCHR(st.st_mode)) {
		if (isatty(fd))
			return STDIO_KIND_TTY;
		if (major(st.st_rdev) == 1 && minor(st.st_rdev) == 3)
			return STDIO_KIND_NULL;
	}
	return STDIO_KIND_UNKNOWN;
}

int stdio_same_file(int a, int b)
{
	struct stat x, y;

	return fstat(a, &x) == 0 && fstat(b, &y) == 0 && x.st_dev == y.st_dev &&
	       x.st_ino == y.st_ino && x.st_rdev == y.st_rdev;
}

/* Write all of P to FD; after a failure (EPIPE: nobody reads spool's own
 * output any more) *dead is set and the rest is dropped. */
static void forward(int fd, const char *p, size_t n, int *dead)
{
	while (n && !*dead) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			*dead = 1;
			return;
		}
		p += w;
		n -= (size_t)w;
	}
}

/* A file stand-in: copy what was appended since m->off. */
static void forward_file(struct stdio_mimic *m, char *buf, int *dead)
{
	ssize_t n;

	while ((n = pread(m->src, buf, STDIO_CHUNK, (off_t)m->off)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return;
		m->off += (uint64_t)n;
		forward(m->fd, buf, (size_t)n, dead);
	}
}

static void *forwarder(void *arg)
{
	struct stdio_mimic *m = arg;
	char *buf = malloc(STDIO_CHUNK);
	int dead = 0;
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	if (!buf)
		return NULL;
	if (m->kind == STDIO_KIND_FILE) {
		struct pollfd p = {.fd = m->stop[0], .events = POLLIN};

		for (;;) {
			int r = poll(&p, 1, STDIO_FILE_POLL_MS);

			forward_file(m, buf, &dead);
			if (r > 0)
				break;
		}
	} else {
		/* A pipe ends with EOF once the program and spool's copy are
		 * closed; a pseudo-terminal's master with EIO. */
		for (;;) {
			ssize_t n = read(m->src, buf, STDIO_CHUNK);

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			forward(m->fd, buf, (size_t)n, &dead);
		}
	}
	free(buf);
	return NULL;
}

static int mimic_tty(struct stdio_mimic *m)
{
	struct termios t;
	struct winsize ws = {.ws_row = 24, .ws_col = 80};
	char name[128];

	m->src = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (m->src < 0)
		return -errno;
	if (grantpt(m->src) < 0 || unlockpt(m->src) < 0 || ptsname_r(m->src, name, sizeof(name)))
		return -errno;
	m->child = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (m->child < 0)
		return -errno;
	/* The bytes as the program wrote them: no "\n" to "\r\n". */
	if (tcgetattr(m->child, &t) == 0) {
		t.c_oflag &= ~(tcflag_t)OPOST;
		tcsetattr(m->child, TCSANOW, &t);
	}
	ioctl(m->fd, TIOCGWINSZ, &ws);
	ioctl(m->child, TIOCSWINSZ, &ws);
	return 0;
}

static int mimic_file(struct stdio_mimic *m, uint64_t off)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];

	if (!dir || !*dir)
		dir = "/tmp";
	if ((size_t)snprintf(path, sizeof(path), "%s/spool-stdout-XXXXXX", dir) >= sizeof(path))
		return -ENAMETOOLONG;
	m->child = mkostemp(path, O_CLOEXEC);
	if (m->child < 0)
		return -errno;
	unlink(path);
	/* At the recorded offset (a hole before it), as `>>` had it. */
	if (off &&
	    (ftruncate(m->child, (off_t)off) < 0 || lseek(m->child, (off_t)off, SEEK_SET) < 0))
		return -errno;
	m->src = m->child;
	m->off = off;
	return 0;
}

int stdio_mimic_begin(struct stdio_mimic *m, int fd, enum stdio_kind kind, uint64_t off)
{
	int p[2], rc;

	memset(m, 0, sizeof(*m));
	m->fd = fd;
	m->kind = kind;
	m->child = m->src = -1;
	m->stop[0] = m->stop[1] = -1;
	if (kind == STDIO_KIND_UNKNOWN || stdio_kind_of(fd, NULL) == kind)
		return 0;
	switch (kind) {
	case STDIO_KIND_NULL:
		m->child = open("/dev/null", O_WRONLY | O_CLOEXEC);
		return m->child < 0 ? -errno : 0;
	case STDIO_KIND_PIPE:
		if (pipe2(p, O_CLOEXEC) < 0)
			return -errno;
		m->src = p[0];
		m->child = p[1];
		break;
	case STDIO_KIND_TTY:
		rc = mimic_tty(m);
		if (rc < 0)
			goto out_err;
		break;
	case STDIO_KIND_FILE:
		rc = mimic_file(m, off);
		if (rc < 0)
			goto out_err;
		if (pipe2(m->stop, O_CLOEXEC) < 0) {
			rc = -errno;
			goto out_err;
		}
		break;
	default:
		return 0;
	}
	rc = -pthread_create(&m->thr, NULL, forwarder, m);
	if (rc < 0)
		goto out_err;
	m->running = 1;
	return 0;

out_err:
	stdio_mimic_end(m);
	return rc;
}

void stdio_mimic_end(struct stdio_mimic *m)
{
	if (m->running) {
		if (m->kind == STDIO_KIND_FILE) {
			ssize_t w;

			do
				w = write(m->stop[1], "", 1);
			while (w < 0 && errno == EINTR);
		} else {
			/* The program has ended: with spool's copy closed the
			 * forwarder reads what is left, then EOF or EIO. */
			close(m->child);
			m->child = -1;
		}
		pthread_join(m->thr, NULL);
		m->running = 0;
	}
	if (m->src >= 0 && m->src != m->child)
		close(m->src);
	if (m->child >= 0)
		close(m->child);
	for (int i = 0; i < 2; i++)
		if (m->stop[i] >= 0)
			close(m->stop[i]);
	m->src = m->child = m->stop[0] = m->stop[1] = -1;
}
