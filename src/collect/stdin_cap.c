// SPDX-License-Identifier: MIT
/*
 * stdin_cap.c - keep the recorded program's stdin with the recording and
 * give it back to later runs (see stdin_cap.h for why).
 *
 * Threads: the feeder of a STREAM run is the only thread that touches the
 * log, `logged`, `eof` and `err` while the run lasts; run_end joins it
 * before anyone else reads them. The feeder blocks SIGPIPE (inherited from
 * the creating thread's mask) so a program that closes its stdin early
 * costs the feeder an EPIPE, never spool its life.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "../trace/untrusted.h"
#include "stdin_cap.h"

#define STDIN_CAP_CHUNK 65536

static const char *const stdin_cap_names[] = {
	[STDIN_CAP_NONE] = "tty",
	[STDIN_CAP_FILE] = "file",
	[STDIN_CAP_STREAM] = "pipe",
	[STDIN_CAP_NULL] = "null",
};

const char *stdin_cap_kind_name(enum stdin_cap_kind k)
{
	return k <= STDIN_CAP_NULL ? stdin_cap_names[k] : "?";
}

static void stdin_cap_reset(struct stdin_cap *c)
{
	memset(c, 0, sizeof(*c));
	c->src = c->log = c->saved0 = c->wr = -1;
	c->stop[0] = c->stop[1] = -1;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Copy IN from its offset to its end into OUT. */
static int copy_rest(int in, int out)
{
	char *buf;
	ssize_t n;
	int rc = 0;

	for (;;) {
		n = copy_file_range(in, NULL, out, NULL, 1u << 30, 0);
		if (n > 0)
			continue;
		if (n == 0)
			return 0;
		if (errno == EINTR)
			continue;
		break; /* EXDEV, EINVAL, ENOSYS: the plain way */
	}
	buf = malloc(STDIN_CAP_CHUNK);
	if (!buf)
		return -ENOMEM;
	while ((n = read(in, buf, STDIN_CAP_CHUNK)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = -errno;
			break;
		}
		rc = write_all(out, buf, (size_t)n);
		if (rc < 0)
			break;
	}
	free(buf);
	return rc;
}

/* A temporary log beside the trace directory (same file system, so saving
 * it is a link). */
static int stdin_cap_mklog(struct stdin_cap *c, const char *trace_dir)
{
	size_t len = strlen(trace_dir);

	while (len > 1 && trace_dir[len - 1] == '/')
		len--;
	if (snprintf(c->log_path, sizeof(c->log_path), "%.*s.stdin.XXXXXX", (int)len,
		     trace_dir) >= (int)sizeof(c->log_path))
		return -ENAMETOOLONG;
	c->log = mkostemp(c->log_path, O_CLOEXEC);
	if (c->log < 0)
		return -errno;
	fchmod(c->log, 0600); /* like the trace's other files: private */
	c->own_log = 1;
	return 0;
}

int stdin_cap_record_open(struct stdin_cap *c, const char *trace_dir)
{
	struct stat st;
	int rc;

	stdin_cap_reset(c);
	if (fstat(STDIN_FILENO, &st) < 0 || isatty(STDIN_FILENO))
		return 0; /* closed, or a terminal: the program's own */
	if (S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3)) {
		c->kind = STDIN_CAP_NULL;
		return 0;
	}
	rc = stdin_cap_mklog(c, trace_dir);
	if (rc < 0)
		return rc;
	if (S_ISREG(st.st_mode)) {
		/* The file may change before the replay, or between the runs
		 * of --until-fail: keep what is left of it now. */
		int in = open("/proc/self/fd/0", O_RDONLY | O_CLOEXEC);
		off_t at = lseek(STDIN_FILENO, 0, SEEK_CUR);

		if (in < 0)
			return -errno;
		if (at > 0 && lseek(in, at, SEEK_SET) < 0)
			rc = -errno;
		else
			rc = copy_rest(in, c->log);
		close(in);
		if (rc < 0)
			return rc;
		/* Programs look at their input's times (pigz writes stdin's
		 * mtime into the gzip header): the copy keeps them. */
		{
			const struct timespec times[2] = {st.st_atim, st.st_mtim};

			futimens(c->log, times);
		}
		c->kind = STDIN_CAP_FILE;
		c->eof = 1;
		return 0;
	}
	c->src = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3);
	if (c->src < 0)
		return -errno;
	c->kind = STDIN_CAP_STREAM;
	return 0;
}

int stdin_cap_replay_open(struct stdin_cap *c, const char *trace_dir)
{
	char kind[16] = "", *text = NULL;
	size_t len = 0;
	uint64_t size;
	int rc;

	stdin_cap_reset(c);
	/* The trace's files are untrusted (trace/untrusted.h): no link
	 * followed, no FIFO opened. */
	rc = trace_read_dir_file(trace_dir, ".spool/stdin.kind", sizeof(kind) - 1, &text, &len);
	if (rc < 0)
		return rc == -ENOENT ? -ENOENT : rc;
	memcpy(kind, text, len);
	free(text);
	kind[strcspn(kind, "\n")] = 0;
	c->eof = 1;
	if (!strcmp(kind, "tty"))
		return 0;
	if (!strcmp(kind, "null")) {
		c->kind = STDIN_CAP_NULL;
		return 0;
	}
	if (strcmp(kind, "file") && strcmp(kind, "pipe"))
		return -EINVAL;
	c->kind = !strcmp(kind, "file") ? STDIN_CAP_FILE : STDIN_CAP_STREAM;
	c->log = trace_open_dir_file(trace_dir, ".spool/stdin", TRACE_NO_MAX, &size);
	if (c->log < 0) {
		rc = c->log;
		stdin_cap_close(c);
		return rc == -ENOENT ? -EBADMSG : rc;
	}
	c->logged = size;
	/* the run opens the file checked here, not its path again */
	snprintf(c->log_path, sizeof(c->log_path), "/proc/self/fd/%d", c->log);
	return 0;
}

/* Wait until FD is ready for EV or the stop pipe has a byte: 1 ready, 0
 * stop, negative errno. */
static int feeder_wait(struct stdin_cap *c, int fd, short ev)
{
	struct pollfd p[2] = {{.fd = fd, .events = ev}, {.fd = c->stop[0], .events = POLLIN}};

	for (;;) {
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (p[1].revents)
			return 0;
		if (p[0].revents)
			return 1;
	}
}

/* Give the program the log from its start, then what the original stream
 * brings, appending it to the log as it goes. */
static void *stdin_cap_feeder(void *arg)
{
	struct stdin_cap *c = arg;
	char *buf = malloc(STDIN_CAP_CHUNK);
	uint64_t pos = 0;
	ssize_t n;
	int rc = 0;

	if (!buf) {
		c->err = -ENOMEM;
		goto out;
	}
	for (;;) {
		if (pos < c->logged) {
			size_t want = c->logged - pos < STDIN_CAP_CHUNK ? c->logged - pos
									: STDIN_CAP_CHUNK;
			size_t off = 0;

			n = pread(c->log, buf, want, (off_t)pos);
			if (n <= 0) {
				rc = n < 0 ? -errno : -EIO;
				break;
			}
			while (off < (size_t)n) {
				ssize_t w = write(c->wr, buf + off, (size_t)n - off);

				if (w > 0) {
					off += (size_t)w;
					continue;
				}
				if (w < 0 && errno == EINTR)
					continue;
				if (w < 0 && errno == EAGAIN) {
					rc = feeder_wait(c, c->wr, POLLOUT);
					if (rc <= 0)
						goto out;
					continue;
				}
				/* EPIPE: the program closed its stdin, nothing more to give */
				rc = 0;
				goto out;
			}
			pos += (uint64_t)n;
			continue;
		}
		if (c->eof || c->src < 0)
			break;
		rc = feeder_wait(c, c->src, POLLIN);
		if (rc <= 0)
			break;
		n = read(c->src, buf, STDIN_CAP_CHUNK);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0) {
			rc = -errno;
			break;
		}
		if (n == 0) {
			c->eof = 1;
			continue;
		}
		if (pwrite(c->log, buf, (size_t)n, (off_t)c->logged) != n) {
			rc = -EIO;
			break;
		}
		c->logged += (uint64_t)n;
	}
out:
	if (rc < 0 && !c->err)
		c->err = rc;
	/* The program's end of file. */
	close(c->wr);
	c->wr = -1;
	free(buf);
	return NULL;
}

int stdin_cap_run_begin(struct stdin_cap *c)
{
	sigset_t pipe_only, old;
	int p[2], fd, rc;

	if (c->kind == STDIN_CAP_NONE)
		return 0;
	c->saved0 = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3);
	if (c->saved0 < 0 && errno != EBADF)
		return -errno;
	c->in_run = 1;
	if (c->kind != STDIN_CAP_STREAM) {
		fd = c->kind == STDIN_CAP_NULL ? open("/dev/null", O_RDONLY | O_CLOEXEC)
					       : open(c->log_path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || dup2(fd, STDIN_FILENO) < 0) {
			rc = -errno;
			goto out_fail;
		}
		close(fd);
		return 0;
	}
	if (pipe2(p, O_CLOEXEC) < 0) {
		rc = -errno;
		goto out_fail;
	}
	if (pipe2(c->stop, O_CLOEXEC) < 0) {
		rc = -errno;
		close(p[0]);
		close(p[1]);
		goto out_fail;
	}
	/* dup2 leaves fd 0 without FD_CLOEXEC: the program inherits it. */
	if (dup2(p[0], STDIN_FILENO) < 0) {
		rc = -errno;
		close(p[0]);
		close(p[1]);
		goto out_fail;
	}
	close(p[0]);
	c->wr = p[1];
	fcntl(c->wr, F_SETFL, fcntl(c->wr, F_GETFL) | O_NONBLOCK);
	sigemptyset(&pipe_only);
	sigaddset(&pipe_only, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_only, &old);
	rc = -pthread_create(&c->feeder, NULL, stdin_cap_feeder, c);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc < 0) {
		close(c->wr);
		c->wr = -1;
		goto out_fail;
	}
	c->feeding = 1;
	return 0;
out_fail:
	stdin_cap_run_end(c);
	return rc;
}

int stdin_cap_run_end(struct stdin_cap *c)
{
	if (c->feeding) {
		char b = 1;

		if (write(c->stop[1], &b, 1) < 0)
			c->err = c->err ? c->err : -errno;
		pthread_join(c->feeder, NULL);
		c->feeding = 0;
	}
	for (int i = 0; i < 2; i++)
		if (c->stop[i] >= 0) {
			close(c->stop[i]);
			c->stop[i] = -1;
		}
	if (c->in_run) {
		c->in_run = 0;
		if (c->saved0 >= 0) {
			dup2(c->saved0, STDIN_FILENO);
			close(c->saved0);
		} else {
			close(STDIN_FILENO);
		}
		c->saved0 = -1;
	}
	return c->err;
}

static int write_kind(const char *path, enum stdin_cap_kind k)
{
	FILE *f;
	int fd, rc = 0;

	/* A new private file, like the trace's others (0600, never through
	 * whatever was at its name). */
	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	if (!f) {
		rc = -errno;
		close(fd);
		return rc;
	}
	if (fprintf(f, "%s\n", stdin_cap_kind_name(k)) < 0)
		rc = -EIO;
	if (fclose(f) != 0 && !rc)
		rc = -errno;
	return rc;
}

int stdin_cap_save(struct stdin_cap *c, const char *trace_dir)
{
	char dir[PATH_MAX], path[PATH_MAX + 16];
	int out, rc;

	if (snprintf(dir, sizeof(dir), "%s/.spool", trace_dir) >= (int)sizeof(dir))
		return -ENAMETOOLONG;
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return -errno;
	snprintf(path, sizeof(path), "%s/stdin", dir);
	unlink(path);
	if (c->kind == STDIN_CAP_FILE || c->kind == STDIN_CAP_STREAM) {
		if (link(c->log_path, path) < 0) {
			out =
			    open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
			if (out < 0)
				return -errno;
			rc = lseek(c->log, 0, SEEK_SET) < 0 ? -errno : copy_rest(c->log, out);
			close(out);
			if (rc < 0)
				return rc;
		}
	}
	snprintf(path, sizeof(path), "%s/stdin.kind", dir);
	return write_kind(path, c->kind);
}

void stdin_cap_close(struct stdin_cap *c)
{
	stdin_cap_run_end(c);
	if (c->src >= 0)
		close(c->src);
	if (c->log >= 0)
		close(c->log);
	if (c->own_log)
		unlink(c->log_path);
	stdin_cap_reset(c);
}
