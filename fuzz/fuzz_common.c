// SPDX-License-Identifier: MIT
/*
 * fuzz_common.c - the container unpacker, scratch directory and output sink
 * every harness uses (fuzz.h describes the container), and quiet stand-ins
 * for src/util/log.c: spool's messages about a broken input would bury
 * libFuzzer's own output, so the harnesses link these instead (set
 * SPOOL_FUZZ_LOG=1 to see them while reproducing a crash).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../src/util/log.h"
#include "fuzz.h"

#define MARK "@@@ "
#define MARK_LEN 4
#define NAME_MAX_LEN 200

static char scratch[256], trace_dir[300], extra_dir[300];
static int log_on = -1;

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP || flag == FTW_D)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

static void rm_tree(const char *path)
{
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void scratch_cleanup(void)
{
	if (scratch[0])
		rm_tree(scratch);
}

/* Scratch directories of harnesses that died on a finding (a crash exits
 * without running atexit): removed by the next harness that starts. */
static void remove_stale(const char *base)
{
	struct dirent *de;
	DIR *d = opendir(base);

	if (!d)
		return;
	while ((de = readdir(d))) {
		char path[512];
		int pid;

		/* Alive, or another user's (EPERM): not ours to remove. */
		if (sscanf(de->d_name, "spool-fuzz.%d", &pid) != 1 || pid <= 0 ||
		    kill(pid, 0) == 0 || errno != ESRCH)
			continue;
		snprintf(path, sizeof(path), "%s/%s", base, de->d_name);
		rm_tree(path);
	}
	closedir(d);
}

const char *fuzz_scratch(void)
{
	const char *base;

	if (scratch[0])
		return scratch;
	base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");
	if (!base || !base[0])
		base = "/tmp";
	remove_stale(base);
	snprintf(scratch, sizeof(scratch), "%s/spool-fuzz.%d", base, (int)getpid());
	rm_tree(scratch);
	if (mkdir(scratch, 0700) < 0) {
		perror(scratch);
		abort(); /* a harness cannot run without it: not a finding */
	}
	snprintf(trace_dir, sizeof(trace_dir), "%s/trace", scratch);
	snprintf(extra_dir, sizeof(extra_dir), "%s/extra", scratch);
	atexit(scratch_cleanup);
	return scratch;
}

/* A name of the container: components of [A-Za-z0-9._-], not "." or "..". */
static int name_ok(const char *name, size_t len)
{
	size_t comp = 0, depth = 1;

	if (!len || len > NAME_MAX_LEN)
		return 0;
	for (size_t i = 0; i <= len; i++) {
		char c = i < len ? name[i] : '/';

		if (c == '/') {
			if (comp == 0 || (comp == 1 && name[i - 1] == '.') ||
			    (comp == 2 && name[i - 1] == '.' && name[i - 2] == '.'))
				return 0;
			if (i < len && ++depth > FUZZ_MAX_DEPTH)
				return 0;
			comp = 0;
			continue;
		}
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '.' || c == '_' || c == '-'))
			return 0;
		comp++;
	}
	return 1;
}

static int write_entry(const char *root, const char *name, const uint8_t *p, size_t n)
{
	char path[600];
	size_t off = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", root, name);
	/* Parent directories, one component at a time. */
	for (char *s = path + strlen(root) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(path, 0700);
		*s = '/';
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return 0; /* e.g. a name that is already a directory: skip it */
	while (off < n) {
		ssize_t w = write(fd, p + off, n - off);

		if (w <= 0)
			break;
		off += (size_t)w;
	}
	close(fd);
	return 1;
}

/* The next "\n@@@ " at or after p, or NULL. */
static const uint8_t *next_mark(const uint8_t *p, const uint8_t *end)
{
	while (p < end) {
		const uint8_t *nl = memchr(p, '\n', (size_t)(end - p));

		if (!nl)
			return NULL;
		if ((size_t)(end - nl) > MARK_LEN && !memcmp(nl + 1, MARK, MARK_LEN))
			return nl;
		p = nl + 1;
	}
	return NULL;
}

int fuzz_unpack(const uint8_t *data, size_t size, struct fuzz_input *in)
{
	const uint8_t *p = data, *end = data + size, *m;

	fuzz_scratch();
	rm_tree(trace_dir);
	rm_tree(extra_dir);
	if (mkdir(trace_dir, 0700) < 0 || mkdir(extra_dir, 0700) < 0)
		return -errno;
	memset(in, 0, sizeof(*in));
	in->trace_dir = trace_dir;
	in->extra_dir = extra_dir;
	/* Options: everything before the first entry. */
	if (size >= MARK_LEN && !memcmp(data, MARK, MARK_LEN)) {
		m = data;
		in->nopts = 0;
	} else {
		m = next_mark(data, end);
		in->nopts = (size_t)((m ? m : end) - data);
		if (m)
			m++; /* past the newline that ends the options */
	}
	in->opts = data;
	p = m;
	while (p && p < end && in->nfiles < FUZZ_MAX_FILES) {
		const uint8_t *name = p + MARK_LEN, *nl, *content, *stop;
		char nbuf[NAME_MAX_LEN + 1];
		size_t nlen, clen;
		int extra;

		nl = memchr(name, '\n', (size_t)(end - name));
		if (!nl)
			break;
		content = nl + 1;
		stop = next_mark(content, end);
		if (stop) {
			clen = (size_t)(stop - content);
			p = stop + 1;
		} else {
			clen = (size_t)(end - content);
			if (clen && content[clen - 1] == '\n')
				clen--;
			p = end;
		}
		nlen = (size_t)(nl - name);
		extra = nlen && name[0] == '+';
		if (extra) {
			name++;
			nlen--;
		}
		if (!name_ok((const char *)name, nlen))
			continue;
		memcpy(nbuf, name, nlen);
		nbuf[nlen] = '\0';
		in->nfiles +=
		    (size_t)write_entry(extra ? extra_dir : trace_dir, nbuf, content, clen);
	}
	return 0;
}

unsigned fuzz_opt(const struct fuzz_input *in, size_t i)
{
	return i < in->nopts ? in->opts[i] : 0;
}

FILE *fuzz_null(void)
{
	static FILE *f;

	if (!f)
		f = fopen("/dev/null", "w");
	if (!f)
		abort();
	return f;
}

/* ---- log.h, quiet ---- */

int log_verbose;
FILE *log_tee; /* never set here: the plan cache captures nothing */

static void log_v(const char *tag, const char *fmt, va_list ap)
{
	if (log_on < 0) {
		const char *e = getenv("SPOOL_FUZZ_LOG");

		log_on = e && *e && *e != '0';
	}
	if (!log_on)
		return;
	fprintf(stderr, "spool: %s", tag);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

#define LOG_FN(fn, tag)                                                                            \
	void fn(const char *fmt, ...)                                                              \
	{                                                                                          \
		va_list ap;                                                                        \
		va_start(ap, fmt);                                                                 \
		log_v(tag, fmt, ap);                                                               \
		va_end(ap);                                                                        \
	}

LOG_FN(log_err, "error: ")
LOG_FN(log_warn, "warning: ")
LOG_FN(log_info, "")
LOG_FN(log_debug, "debug: ")
