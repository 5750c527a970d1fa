// SPDX-License-Identifier: MIT
/*
 * agent_procstat.c - reading the kernel's own files under /proc from inside
 * the program: a process's or thread's stat line (is it alive, asleep, its
 * parent in spool's pid namespace) and the stuck report's kernel state.
 * Raw system calls throughout: the agent interposes open and read (a replay
 * would hand back recorded bytes), and these run in the agent's own paths,
 * some of them from a watchdog while other threads are stopped.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "agent.h"

long agent_proc_read(const char *path, char *buf, size_t cap)
{
	long fd, n;

	if (cap < 1)
		return -EINVAL;
	fd = syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = syscall(SYS_read, fd, buf, cap - 1);
	if (n < 0)
		n = -errno;
	syscall(SYS_close, fd);
	if (n < 0)
		return n;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		n--;
	buf[n] = 0;
	return n;
}

/* The command name is in parentheses and may hold any byte, ')' and
 * blanks too: the fields start after the last ')' in the line. */
const char *agent_proc_stat_field(const char *stat, int k)
{
	const char *s = strrchr(stat, ')');
	int f = 2;

	if (!s)
		return NULL;
	s++;
	while (f < k) {
		while (*s == ' ')
			s++;
		if (!*s)
			return NULL;
		f++;
		if (f == k)
			return s;
		while (*s && *s != ' ')
			s++;
	}
	return NULL;
}
