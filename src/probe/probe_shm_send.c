// SPDX-License-Identifier: MIT
/*
 * probe_shm_send.c - spool probe -p: hand spool's shared memory to the
 * attached process over a Unix socket (SCM_RIGHTS), for a process that
 * cannot open /proc/SPOOL/fd/N (a daemon that dropped root: opening another
 * process's descriptor by path needs ptrace access to it).
 *
 * spool listens on an abstract Unix socket with a random name and gives the
 * agent "unix:@NAME" instead of the path (src/agent/agent_shm_recv.c). A
 * thread of spool's accepts while the main thread runs the agent's prepare
 * in the stopped target through ptrace (the target's connect and recvmsg
 * wait on this thread, never on the main one). Trust: an abstract name is
 * visible to every process of the network namespace, so the descriptor
 * goes only to a peer whose kernel-checked credentials (SO_PEERCRED) name
 * the attached process; any other connection is closed unanswered. The
 * socket lives for one prepare call.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "../common/fd_pass.h"
#include "probe_shm_send.h"

struct probe_shm_send {
	int listen_fd;
	int fd; /* what is sent */
	pid_t pid;
	pthread_t thread;
	int stop; /* atomic */
	int sent; /* atomic */
};

/* The descriptor, to a peer that is pid: 0, or -errno. */
static int shm_send_one(int conn, int fd)
{
	struct fd_pass_msg p;
	struct cmsghdr *h;

	fd_pass_msg_init(&p, 1);
	h = CMSG_FIRSTHDR(&p.m);
	h->cmsg_level = SOL_SOCKET;
	h->cmsg_type = SCM_RIGHTS;
	h->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(h), &fd, sizeof(int));
	return sendmsg(conn, &p.m, MSG_NOSIGNAL) == 1 ? 0 : -errno;
}

static void *shm_send_main(void *arg)
{
	struct probe_shm_send *s = arg;

	while (!__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE)) {
		struct pollfd p = {.fd = s->listen_fd, .events = POLLIN};
		struct ucred cred;
		socklen_t cl = sizeof(cred);
		int conn;

		if (poll(&p, 1, 50) <= 0)
			continue;
		conn = accept4(s->listen_fd, NULL, NULL, SOCK_CLOEXEC);
		if (conn < 0)
			continue;
		if (!getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &cred, &cl) && cl == sizeof(cred) &&
		    cred.pid == s->pid && !shm_send_one(conn, s->fd)) {
			__atomic_store_n(&s->sent, 1, __ATOMIC_RELEASE);
			close(conn);
			break;
		}
		close(conn); /* not the attached process: nothing for it */
	}
	return NULL;
}

int probe_shm_send_start(struct probe_shm_send **out, int fd, pid_t pid, char *name, size_t len)
{
	struct probe_shm_send *s;
	struct sockaddr_un sa;
	unsigned char rnd[8];
	socklen_t sa_len;
	int rc;

	*out = NULL;
	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
		return -EIO;
	rc = snprintf(name, len, "@spool-shm-%d-%02x%02x%02x%02x%02x%02x%02x%02x", (int)getpid(),
		      rnd[0], rnd[1], rnd[2], rnd[3], rnd[4], rnd[5], rnd[6], rnd[7]);
	if (rc < 0 || (size_t)rc >= len)
		return -ENAMETOOLONG;
	sa_len = fd_pass_addr(&sa, name, (size_t)rc);
	if (!sa_len)
		return -ENAMETOOLONG;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->fd = fd;
	s->pid = pid;
	s->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s->listen_fd < 0) {
		rc = -errno;
		goto out_free;
	}
	if (bind(s->listen_fd, (struct sockaddr *)&sa, sa_len) < 0 || listen(s->listen_fd, 4) < 0) {
		rc = -errno;
		goto out_close;
	}
	rc = -pthread_create(&s->thread, NULL, shm_send_main, s);
	if (rc)
		goto out_close;
	*out = s;
	return 0;
out_close:
	close(s->listen_fd);
out_free:
	free(s);
	return rc;
}

int probe_shm_send_end(struct probe_shm_send *s)
{
	int sent;

	if (!s)
		return 0;
	__atomic_store_n(&s->stop, 1, __ATOMIC_RELEASE);
	pthread_join(s->thread, NULL);
	close(s->listen_fd);
	sent = __atomic_load_n(&s->sent, __ATOMIC_ACQUIRE);
	free(s);
	return sent;
}
