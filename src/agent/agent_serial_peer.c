// SPDX-License-Identifier: MIT
/*
 * agent_serial_peer.c - whether the other end of a descriptor lies outside
 * the process, for serial mode's watchdogs (agent_serial.c).
 *
 * A stdio read keeps the run token while it blocks (its FILE's lock is
 * held: agent_rr_stdio.c), so every other thread waits for the token. When
 * the bytes are to come from another thread of the process (a pipe it
 * writes), that wait never ends and the watchdog reports it after
 * --stuck-ms. When they come from the outside world (a user typing on a
 * terminal, a pipe from a shell, a socket to another process), the wait
 * ends when the world writes: the program is not stuck, and stopping it
 * would lose a user's slow typing. The same holds for a stdio write to a
 * full pipe that another process (a pager) drains.
 *
 * The answer, by the descriptor's kind:
 * - a character device (terminal, /dev/...): outside;
 * - a pipe or FIFO: outside unless the process holds an end that can move
 *   bytes the other way (another descriptor of the same pipe open for
 *   writing when fd is read, for reading when it is written; or fd itself
 *   open for both);
 * - a socket: outside when its peer's credentials (SO_PEERCRED, unix
 *   sockets) name another process, or it has none (a network socket:
 *   a connection back to the process itself is not told apart);
 * - anything else (a regular file never waits): not outside.
 *
 * Raw system calls only (open and read are interposed), no malloc: it runs
 * on a waiting thread of the program, never in a signal handler. Reads
 * only: nothing of the program's descriptors changes.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "agent_serial.h"

/* (struct linux_dirent64: the kernel's, which glibc does not declare) */
struct peer_dirent {
	uint64_t ino;
	int64_t off;
	unsigned short reclen;
	unsigned char type;
	char name[];
};

/* Whether descriptor d (not fd) is another end of the pipe (dev, ino) open
 * the way want (O_WRONLY: for writing, O_RDONLY: for reading). */
static int peer_other_end(int d, const struct stat *pipe_st, int want)
{
	struct stat st;
	long fl;

	if (syscall(SYS_fstat, d, &st) < 0 || st.st_dev != pipe_st->st_dev ||
	    st.st_ino != pipe_st->st_ino)
		return 0;
	fl = syscall(SYS_fcntl, d, F_GETFL);
	if (fl < 0)
		return 0;
	fl &= O_ACCMODE;
	return fl == O_RDWR || fl == want;
}

/* A pipe or FIFO: whether the process holds an end that moves bytes the
 * other way (1), none (0), or it cannot tell (-1). */
static int peer_pipe_inside(int fd, const struct stat *st, int out)
{
	char buf[2048];
	int want = out ? O_RDONLY : O_WRONLY, found = 0;
	long dir, fl = syscall(SYS_fcntl, fd, F_GETFL);

	if (fl >= 0 && (fl & O_ACCMODE) == O_RDWR)
		return 1;
	dir = syscall(SYS_openat, AT_FDCWD, "/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return -1;
	for (;;) {
		long n = syscall(SYS_getdents64, (int)dir, buf, sizeof(buf));

		if (n < 0) {
			found = -1;
			break;
		}
		if (n == 0)
			break;
		for (long off = 0; off < n && !found;) {
			const struct peer_dirent *e = (const void *)(buf + off);
			long d = 0;
			const char *p = e->name;

			off += e->reclen;
			if (*p < '0' || *p > '9')
				continue;
			while (*p >= '0' && *p <= '9' && d < (1l << 30))
				d = d * 10 + (*p++ - '0');
			/* (the directory's own descriptor is no pipe) */
			if (d != fd && d != dir && peer_other_end((int)d, st, want))
				found = 1;
		}
		if (found)
			break;
	}
	syscall(SYS_close, (int)dir);
	return found;
}

int agent_serial_fd_outside(int fd, int out)
{
	struct stat st;

	if (fd < 0 || syscall(SYS_fstat, fd, &st) < 0)
		return 0;
	if (S_ISCHR(st.st_mode))
		return 1;
	if (S_ISFIFO(st.st_mode))
		return peer_pipe_inside(fd, &st, out) == 0;
	if (S_ISSOCK(st.st_mode)) {
		struct ucred cr = {0, 0, 0};
		socklen_t l = sizeof(cr);

		if (syscall(SYS_getsockopt, fd, SOL_SOCKET, SO_PEERCRED, &cr, &l) < 0 ||
		    cr.pid <= 0)
			return 1;
		return cr.pid != (pid_t)syscall(SYS_getpid);
	}
	return 0;
}
