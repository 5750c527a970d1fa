// SPDX-License-Identifier: MIT
/*
 * agent_shm_recv.c - attach mode: receive spool's shared memory as a
 * descriptor over a Unix socket (SCM_RIGHTS), for a process that cannot
 * open it by path.
 *
 * Why: spool hands an attached process its region as /proc/SPOOL/fd/N,
 * which the kernel lets only a process with ptrace access to spool open. A
 * daemon that dropped root (mosquitto, memcached -u nobody) has none, and
 * its open fails with EACCES. spool then listens on an abstract Unix
 * socket whose random name it passes instead ("unix:@NAME"), and sends the
 * descriptor to the first peer whose credentials (SO_PEERCRED) are the
 * attached process's: src/probe/probe_shm_send.c. A descriptor received is
 * as good as one opened: the memfd is already open read-write.
 *
 * Runs in spool_agent_probe_prepare, called by spool through ptrace while
 * every thread is stopped: raw system calls (the agent's own socket,
 * connect and recvmsg are interposers), a receive timeout so that a spool
 * that went away cannot hold the thread, and the message checked: exactly
 * one descriptor, else none is kept.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "../common/fd_pass.h"
#include "agent.h"
#include "agent_probe.h"

int agent_shm_recv(const char *name)
{
	struct sockaddr_un sa;
	struct timeval tv = {10, 0};
	struct fd_pass_msg p;
	struct cmsghdr *h;
	/* "@NAME": the abstract namespace (a leading NUL, no file) */
	socklen_t sa_len = fd_pass_addr(&sa, name, strlen(name));
	long s, r;
	int fd = -EPROTO;

	if (!sa_len)
		return -EINVAL;
	s = syscall(SYS_socket, AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -errno;
	syscall(SYS_setsockopt, s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (syscall(SYS_connect, s, &sa, sa_len) < 0) {
		fd = -errno;
		goto out_close;
	}
	/* room for one descriptor more than is sent: a second one is seen */
	fd_pass_msg_init(&p, FD_PASS_MAX);
	do
		r = syscall(SYS_recvmsg, s, &p.m, MSG_CMSG_CLOEXEC);
	while (r < 0 && errno == EINTR);
	if (r < 0) {
		fd = -errno;
		goto out_close;
	}
	h = CMSG_FIRSTHDR(&p.m);
	if (r != 1 || !h || h->cmsg_level != SOL_SOCKET || h->cmsg_type != SCM_RIGHTS) {
		fd = -EPROTO;
		goto out_close;
	}
	if (h->cmsg_len != CMSG_LEN(sizeof(int)) || (p.m.msg_flags & MSG_CTRUNC)) {
		/* more than one descriptor (or cut): close what came */
		size_t len = h->cmsg_len > CMSG_LEN(0) ? h->cmsg_len - CMSG_LEN(0) : 0;

		for (size_t i = 0; i + sizeof(int) <= len && i < FD_PASS_MAX * sizeof(int);
		     i += sizeof(int)) {
			int extra;

			memcpy(&extra, CMSG_DATA(h) + i, sizeof(int));
			if (extra >= 0)
				syscall(SYS_close, extra);
		}
		fd = -EPROTO;
		goto out_close;
	}
	memcpy(&fd, CMSG_DATA(h), sizeof(int));
out_close:
	syscall(SYS_close, s);
	return fd;
}
