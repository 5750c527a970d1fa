// SPDX-License-Identifier: MIT
/*
 * fd_pass.h - what both sides of the shared-memory handover of attach mode
 * build alike: spool sends its region's descriptor over an abstract Unix
 * socket (src/probe/probe_shm_send.c), the agent in the attached process
 * receives it (src/agent/agent_shm_recv.c). Both name the socket "@NAME"
 * and exchange one message of one byte with the descriptor as SCM_RIGHTS;
 * the address and the message are set up here, once, so that the two
 * cannot disagree on either.
 *
 * Header-only and libc-light (memset, memcpy: on the agent's import
 * allowlist, tests/integ/20): no system call here, each side makes its own
 * (the agent raw ones, spool libc's).
 */
#ifndef SPOOL_COMMON_FD_PASS_H
#define SPOOL_COMMON_FD_PASS_H

#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>

/* The most descriptors a message has room for: one is sent; the receiver
 * makes room for a second so that one too many is seen (and closed). */
#define FD_PASS_MAX 2

/* One message: a byte of data and room for FD_PASS_MAX descriptors. */
struct fd_pass_msg {
	struct msghdr m;
	struct iovec iov;
	char byte;
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(FD_PASS_MAX * sizeof(int))];
	} c;
};

/*
 * name ("@NAME", n its length) as an abstract address (a leading NUL in
 * sun_path, no file) into sa: the address's length for bind or connect,
 * or 0 when name is not one ('@' missing, nothing after it, too long).
 */
static inline socklen_t fd_pass_addr(struct sockaddr_un *sa, const char *name, size_t n)
{
	if (n < 2 || name[0] != '@' || n > sizeof(sa->sun_path))
		return 0;
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	memcpy(sa->sun_path + 1, name + 1, n - 1);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n);
}

/* p zeroed and set up for nfds descriptors (1 to FD_PASS_MAX): its one
 * byte as the data, its control buffer as msg_control. */
static inline void fd_pass_msg_init(struct fd_pass_msg *p, size_t nfds)
{
	memset(p, 0, sizeof(*p));
	p->byte = 's';
	p->iov.iov_base = &p->byte;
	p->iov.iov_len = 1;
	p->m.msg_iov = &p->iov;
	p->m.msg_iovlen = 1;
	p->m.msg_control = p->c.buf;
	p->m.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
}

#endif
