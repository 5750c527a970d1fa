// SPDX-License-Identifier: MIT
/*
 * rr_dirs.c - reads what a directory holds and what names resolve to, in
 * every way spool records (doc/record.md, "Directory contents and names"):
 * a second thread lists DIR with readdir while the main thread
 * uses scandir, fdopendir with readdir_r, telldir/seekdir/rewinddir,
 * getdents64 (the wrapper and syscall()), readlink, readlinkat, realpath
 * (with and without a buffer), canonicalize_file_name, getcwd (with a
 * buffer and allocating), get_current_dir_name, statx, lgetxattr and glob, and
 * opens DIR/sub and DIR/missing. It prints everything it learned in the
 * order it learned it: a replay in a directory that changed since must
 * print the same.
 *
 * usage: rr_dirs DIR (DIR holds a link named lnk)
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
static const char *dir;

static void say(const char *who, const char *what, const char *v)
{
	pthread_mutex_lock(&out_lock);
	printf("%s %s %s\n", who, what, v);
	pthread_mutex_unlock(&out_lock);
}

/* Reads the stream main opened (and closes after the join): in sync mode
 * the descriptor numbers of opens in two threads at once depend on their
 * order, which sync mode does not record. */
static void *lister(void *arg)
{
	struct dirent *de;
	char line[300];
	DIR *d = arg;

	while ((de = readdir(d))) {
		snprintf(line, sizeof(line), "%s type %d", de->d_name, de->d_type);
		say("T1", "entry", line);
	}
	return NULL;
}

/* The names in a getdents64 buffer of n bytes. */
static void dents(const char *who, const char *buf, long n)
{
	long off = 0;

	while (off < n) {
		const struct dirent64 *de = (const struct dirent64 *)(buf + off);

		if (de->d_reclen == 0)
			break;
		say(who, "dent", de->d_name);
		off += de->d_reclen;
	}
}

int main(int argc, char **argv)
{
	char path[PATH_MAX], buf[PATH_MAX], line[PATH_MAX + 64], dbuf[8192];
	struct dirent **list, *de, ent, *res;
	struct statx sx;
	glob_t gl;
	pthread_t th;
	long pos = 0, n;
	int i, fd, cnt;
	char *s;
	DIR *d, *d1;

	if (argc != 2) {
		fprintf(stderr, "usage: rr_dirs DIR\n");
		return 2;
	}
	dir = argv[1];
	d1 = opendir(dir);
	if (!d1) {
		say("T0", "opendir", strerror(errno));
		return 1;
	}
	pthread_create(&th, NULL, lister, d1);

	cnt = scandir(dir, &list, NULL, alphasort);
	snprintf(line, sizeof(line), "%d", cnt);
	say("T0", "scandir", line);
	for (i = 0; i < cnt; i++) {
		say("T0", "sorted", list[i]->d_name);
		free(list[i]);
	}
	if (cnt >= 0)
		free(list);

	fd = open(dir, O_RDONLY | O_DIRECTORY);
	d = fd >= 0 ? fdopendir(fd) : NULL;
	if (d) {
		/* (readdir_r is deprecated in glibc; programs still call it) */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
		for (i = 0; readdir_r(d, &ent, &res) == 0 && res; i++) {
			say("T0", "readdir_r", ent.d_name);
			if (i == 1) {
				pos = telldir(d);
				snprintf(line, sizeof(line), "%s", pos >= 0 ? "got" : "failed");
				say("T0", "telldir", line);
			}
		}
#pragma GCC diagnostic pop
		seekdir(d, pos);
		de = readdir(d);
		say("T0", "after seekdir", de ? de->d_name : "(end)");
		rewinddir(d);
		for (n = 0; readdir(d);)
			n++;
		snprintf(line, sizeof(line), "%ld", n);
		say("T0", "after rewinddir", line);
		closedir(d);
	}

	fd = open(dir, O_RDONLY | O_DIRECTORY);
	n = getdents64(fd, dbuf, sizeof(dbuf));
	snprintf(line, sizeof(line), "%ld", n);
	say("T0", "getdents64", line);
	dents("T0", dbuf, n);
	lseek(fd, 0, SEEK_SET);
	n = syscall(SYS_getdents64, fd, dbuf, sizeof(dbuf));
	snprintf(line, sizeof(line), "%ld", n);
	say("T0", "syscall getdents64", line);
	dents("T0", dbuf, n);
	close(fd);

	snprintf(path, sizeof(path), "%s/lnk", dir);
	n = readlink(path, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = 0;
	say("T0", "readlink", n < 0 ? strerror(errno) : buf);
	fd = open(dir, O_RDONLY | O_DIRECTORY);
	n = readlinkat(fd, "lnk", buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = 0;
	say("T0", "readlinkat", n < 0 ? strerror(errno) : buf);
	close(fd);
	s = realpath(path, NULL);
	say("T0", "realpath", s ? s : strerror(errno));
	free(s);
	s = realpath(dir, buf);
	say("T0", "realpath buf", s ? s : strerror(errno));
	s = canonicalize_file_name(path);
	say("T0", "canonicalize_file_name", s ? s : strerror(errno));
	free(s);
	s = getcwd(buf, sizeof(buf));
	say("T0", "getcwd", s ? s : strerror(errno));
	s = getcwd(NULL, 0);
	say("T0", "getcwd alloc", s ? s : strerror(errno));
	free(s);
	s = get_current_dir_name();
	say("T0", "get_current_dir_name", s ? s : strerror(errno));
	free(s);

	snprintf(path, sizeof(path), "%s/lnk", dir);
	if (statx(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, &sx) == 0)
		snprintf(line, sizeof(line), "size %llu mode %o", (unsigned long long)sx.stx_size,
			 sx.stx_mode);
	else
		snprintf(line, sizeof(line), "%s", strerror(errno));
	say("T0", "statx", line);
	n = lgetxattr(path, "user.spool", buf, sizeof(buf));
	say("T0", "lgetxattr", n < 0 ? strerror(errno) : "a value");

	snprintf(path, sizeof(path), "%s/*", dir);
	n = glob(path, GLOB_MARK, NULL, &gl);
	snprintf(line, sizeof(line), "%ld, %zu names", n, (size_t)gl.gl_pathc);
	say("T0", "glob", line);
	for (i = 0; n == 0 && i < (int)gl.gl_pathc; i++)
		say("T0", "glob name", gl.gl_pathv[i]);
	globfree(&gl);

	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, i ? "missing" : "sub");
		d = opendir(path);
		say("T0", i ? "opendir missing" : "opendir sub", d ? "ok" : strerror(errno));
		while (d && (de = readdir(d)))
			say("T0", "sub entry", de->d_name);
		if (d)
			closedir(d);
	}
	pthread_join(th, NULL);
	closedir(d1);
	return 0;
}
