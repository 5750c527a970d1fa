// SPDX-License-Identifier: MIT
/*
 * agent_rr_sock.c - record and replay the addresses of a socket:
 * getpeername and getsockname. The peer of an accepted connection is an
 * input like the bytes it sends (a server logs it, keys a table on it,
 * refuses it); in a replay the accepted descriptor is a stand-in socket
 * with no peer (agent_rr_io.c), so the real call would fail where the
 * recorded one succeeded (memcached then prints "getpeername: Transport
 * endpoint is not connected"). Recorded as RR_CALL_GETPEERNAME and
 * RR_CALL_GETSOCKNAME inputs: data = the bytes of the address the call
 * wrote, arg = the length it reported (which may exceed the buffer).
 *
 * Same rules as agent_rr_io.c: one predictable branch when neither
 * recording nor replaying; the fallbacks make the raw system call until
 * the constructor has resolved the real functions.
 */
#include <dlfcn.h>
#include <errno.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "agent.h"
#include "agent_rr.h"

static int fb_getpeername(int fd, struct sockaddr *a, socklen_t *l)
{
	return (int)syscall(SYS_getpeername, fd, a, l);
}

static int fb_getsockname(int fd, struct sockaddr *a, socklen_t *l)
{
	return (int)syscall(SYS_getsockname, fd, a, l);
}

static int (*real_getpeername)(int, struct sockaddr *, socklen_t *) = fb_getpeername;
static int (*real_getsockname)(int, struct sockaddr *, socklen_t *) = fb_getsockname;

__attribute__((constructor)) static void agent_rr_sock_resolve(void)
{
	int saved = errno;

	agent_self.busy++;
	AGENT_RESOLVE(real_getpeername, "getpeername");
	AGENT_RESOLVE(real_getsockname, "getsockname");
	agent_self.busy--;
	errno = saved;
}

static int rr_sockaddr(unsigned call, int fd, struct sockaddr *a, socklen_t *l,
		       int (*real)(int, struct sockaddr *, socklen_t *))
{
	struct agent_thread *t;
	struct agent_rr_seg s;
	uint64_t full = 0;
	socklen_t cap;
	int r, e;

	if (AGENT_LIKELY(!agent_rr_mode) || !l || !(t = agent_rr_io_enter()))
		return real(fd, a, l);
	cap = a ? *l : 0;
	s.p = a;
	s.n = cap;
	if (agent_rr_mode & RR_MODE_REPLAY) {
		r = (int)agent_rr_rep_input(t, call, fd, &s, 1, &full);
		e = errno;
		if (r == 0)
			*l = (socklen_t)full;
		errno = e;
		return r;
	}
	r = real(fd, a, l);
	e = errno;
	if (r == 0) {
		full = *l;
		s.n = full < cap ? full : cap;
	} else {
		s.n = 0;
	}
	agent_rr_rec_input(t, call, fd, r, r < 0 ? e : 0, full, &s, 1);
	errno = e;
	return r;
}

AGENT_EXPORT int getpeername(int fd, struct sockaddr *a, socklen_t *l)
{
	return rr_sockaddr(RR_CALL_GETPEERNAME, fd, a, l, real_getpeername);
}

AGENT_EXPORT int getsockname(int fd, struct sockaddr *a, socklen_t *l)
{
	return rr_sockaddr(RR_CALL_GETSOCKNAME, fd, a, l, real_getsockname);
}
