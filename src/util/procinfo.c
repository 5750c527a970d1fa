// SPDX-License-Identifier: MIT
/*
 * procinfo.c - small questions to /proc about a process (procinfo.h).
 * Everything here reads files the kernel writes; nothing is signalled.
 */
#include "procinfo.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/*
 * The fields of a stat file after the command name ("pid (comm) state ppid
 * ..."): comm may hold anything, ')' and spaces included, so they start
 * after its last ')'. Into buf (len bytes); returns them, or NULL with
 * errno set (ENOENT, ESRCH: the task is gone).
 */
static const char *procinfo_stat_fields(const char *path, char *buf, size_t len)
{
	ssize_t n;
	char *p;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0) {
		if (n == 0)
			errno = ESRCH;
		return NULL;
	}
	buf[n] = 0;
	p = strrchr(buf, ')');
	if (!p) {
		errno = EINVAL;
		return NULL;
	}
	return p + 1;
}

int procinfo_comm(pid_t pid, char *comm, size_t len)
{
	char path[64], buf[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return -EIO;
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	snprintf(comm, len, "%s", buf);
	return 0;
}

pid_t procinfo_ppid(pid_t pid)
{
	char path[64], buf[512];
	const char *f;
	long pp;

	if (pid <= 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = procinfo_stat_fields(path, buf, sizeof(buf));
	if (!f || sscanf(f, " %*c %ld", &pp) != 1)
		return -1;
	return (pid_t)pp;
}

int procinfo_task_state(pid_t pid, pid_t tid)
{
	char path[64], buf[512];
	const char *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)tid);
	f = procinfo_stat_fields(path, buf, sizeof(buf));
	if (!f)
		return -errno;
	return f[0] == ' ' && f[1] ? (unsigned char)f[1] : -EINVAL;
}

/* Bounded: a chain that changes while it is walked (a reparenting) could
 * otherwise loop; no real process tree is this deep. */
#define PROCINFO_MAX_DEPTH 4096

int procinfo_descends(pid_t pid, pid_t ancestor)
{
	if (pid <= 0 || ancestor <= 0)
		return 0;
	for (int i = 0; i < PROCINFO_MAX_DEPTH && pid > 1; i++) {
		if (pid == ancestor)
			return 1;
		pid = procinfo_ppid(pid);
	}
	return pid == ancestor;
}

int procinfo_maps_file(pid_t pid, dev_t dev, ino_t ino)
{
	char path[64], line[4096];
	FILE *f;
	int found = 0;

	if (pid <= 0)
		return -ESRCH;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	/* "start-end perms offset major:minor inode path"; a line longer
	 * than the buffer (a long path) is read on in pieces: only a piece
	 * that starts a line is parsed (the line's fields come first). */
	for (int at_start = 1; fgets(line, sizeof(line), f);) {
		unsigned int maj, min;
		uint64_t i;
		size_t len = strlen(line);
		int start = at_start;

		at_start = len && line[len - 1] == '\n';
		if (!start)
			continue;
		if (sscanf(line, "%*x-%*x %*s %*x %x:%x %" SCNu64, &maj, &min, &i) != 3)
			continue;
		if (i == (uint64_t)ino && makedev(maj, min) == dev) {
			found = 1;
			break;
		}
	}
	fclose(f);
	return found;
}
