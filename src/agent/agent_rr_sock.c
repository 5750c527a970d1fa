// SPDX-License-Identifier: MIT
/*
 * agent_rr_sock.c - record and replay of the socket calls whose results the
 * program sees (doc/record.md, "Sockets"): socket, socketpair, connect,
 * bind, listen, shutdown, setsockopt, getsockopt, getpeername,
 * getsockname and sendmmsg. The reads on a socket (recv*, accept) are in
 * agent_rr_io.c, the other sends in agent_rr_block.c.
 *
 * A replay touches no network: none of these calls reaches the kernel.
 * socket() and socketpair() return the recorded descriptor numbers, made to
 * exist as stand-ins (unbound, unconnected AF_UNIX sockets of the recorded
 * type, with the recorded SOCK_NONBLOCK and SOCK_CLOEXEC), so that what the
 * program does to the descriptor outside the recorded calls (epoll_ctl,
 * fcntl, ioctl FIONBIO, close, dup) still works; its reads, writes, polls
 * and accepts are replayed from the log and never touch the stand-in. The
 * others return the recorded result and errno (a non-blocking connect's
 * EINPROGRESS, then the SO_ERROR its getsockopt read; a bind to a path
 * also binds the stand-in, so the socket file exists), and getsockopt,
 * getsockname and getpeername give back the recorded bytes and length: a
 * server that bound port 0 prints the recorded port.
 *
 * The address of an accepted connection is an input too (memcached logs
 * it): in a replay the accepted descriptor is a stand-in with no peer, so
 * the real getpeername would fail where the recorded one succeeded.
 *
 * Same rules as agent_rr_io.c: one predictable branch when neither
 * recording nor replaying; calls made by the agent itself (busy) and by
 * threads spool could not number pass through; the fallbacks make the raw
 * system call until the constructor has resolved the real functions.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "agent_rr.h"
#include "agent_serial.h"

static int fb_getpeername(int fd, struct sockaddr *a, socklen_t *l)
{
	return (int)syscall(SYS_getpeername, fd, a, l);
}

static int fb_getsockname(int fd, struct sockaddr *a, socklen_t *l)
{
	return (int)syscall(SYS_getsockname, fd, a, l);
}

static int fb_socket(int d, int t, int p) { return (int)syscall(SYS_socket, d, t, p); }
static int fb_socketpair(int d, int t, int p, int sv[2])
{
	return (int)syscall(SYS_socketpair, d, t, p, sv);
}
static int fb_connect(int fd, const struct sockaddr *a, socklen_t l)
{
	return (int)syscall(SYS_connect, fd, a, l);
}
static int fb_bind(int fd, const struct sockaddr *a, socklen_t l)
{
	return (int)syscall(SYS_bind, fd, a, l);
}
static int fb_listen(int fd, int n) { return (int)syscall(SYS_listen, fd, n); }
static int fb_shutdown(int fd, int how) { return (int)syscall(SYS_shutdown, fd, how); }
static int fb_getsockopt(int fd, int lv, int nm, void *v, socklen_t *l)
{
	return (int)syscall(SYS_getsockopt, fd, lv, nm, v, l);
}
static int fb_setsockopt(int fd, int lv, int nm, const void *v, socklen_t l)
{
	return (int)syscall(SYS_setsockopt, fd, lv, nm, v, l);
}
static int fb_sendmmsg(int fd, struct mmsghdr *v, unsigned n, int f)
{
	return (int)syscall(SYS_sendmmsg, fd, v, n, f);
}

static int (*real_getpeername)(int, struct sockaddr *, socklen_t *) = fb_getpeername;
static int (*real_getsockname)(int, struct sockaddr *, socklen_t *) = fb_getsockname;
static int (*real_socket)(int, int, int) = fb_socket;
static int (*real_socketpair)(int, int, int, int[2]) = fb_socketpair;
static int (*real_connect)(int, const struct sockaddr *, socklen_t) = fb_connect;
static int (*real_bind)(int, const struct sockaddr *, socklen_t) = fb_bind;
static int (*real_listen)(int, int) = fb_listen;
static int (*real_shutdown)(int, int) = fb_shutdown;
static int (*real_getsockopt)(int, int, int, void *, socklen_t *) = fb_getsockopt;
static int (*real_setsockopt)(int, int, int, const void *, socklen_t) = fb_setsockopt;
static int (*real_sendmmsg)(int, struct mmsghdr *, unsigned, int) = fb_sendmmsg;

__attribute__((constructor)) static void agent_rr_sock_resolve(void)
{
	int saved;

	/* busy first: reading errno calls __errno_location, which a func:
	 * probe of libc may have patched (the agent's own call, not the
	 * program's) */
	agent_self.busy++;
	saved = errno;
	AGENT_RESOLVE(real_getpeername, "getpeername");
	AGENT_RESOLVE(real_getsockname, "getsockname");
	AGENT_RESOLVE(real_socket, "socket");
	AGENT_RESOLVE(real_socketpair, "socketpair");
	AGENT_RESOLVE(real_connect, "connect");
	AGENT_RESOLVE(real_bind, "bind");
	AGENT_RESOLVE(real_listen, "listen");
	AGENT_RESOLVE(real_shutdown, "shutdown");
	AGENT_RESOLVE(real_getsockopt, "getsockopt");
	AGENT_RESOLVE(real_setsockopt, "setsockopt");
	AGENT_RESOLVE(real_sendmmsg, "sendmmsg");
	errno = saved;
	agent_self.busy--;
}

#define RR_SOCK_OFF(t) (AGENT_LIKELY(!agent_rr_mode) || !((t) = agent_rr_io_enter()))
#define RR_REPLAYING() (agent_rr_mode & RR_MODE_REPLAY)

/* ---- stand-ins ---- */

/*
 * Replay: make descriptor FD exist as a stand-in for a socket of TYPE (its
 * SOCK_NONBLOCK and SOCK_CLOEXEC kept). An AF_UNIX socket that is never
 * bound or connected: epoll accepts it (it refuses /dev/null), fstat says
 * socket (so replayed writes to it send nothing, agent_rr_block.c), and no
 * packet can leave it. Raw system calls: the agent's own, never seen by
 * the interposers.
 *
 * The number was free when the recorded call returned it; in use now, the
 * replay's descriptor table differs from the recording's and the program
 * would act on another object: the replay stops and says so, never replays
 * wrong. In sync mode that is mostly a matter of time (the threads' opens
 * and closes are not ordered: another thread has not yet closed what it
 * closed before this call in the recording), so the call waits for the
 * number to be closed, up to RR_STANDIN_WAIT_MS.
 */
#define RR_STANDIN_WAIT_MS 2000

static int rr_standin_lock; /* one stand-in made at a time (below) */

/* 1: made (or nothing to make), 0: the number is in use. */
static int rr_standin_try(int fd, int type)
{
	int n, kind = type & 0xf, flags = type & (SOCK_NONBLOCK | SOCK_CLOEXEC);
	int held = 0, spins = 0, made = 1;

	/* A sync replay's threads make stand-ins concurrently: the temporary
	 * socket of one must not take the number another is about to check
	 * and fill. A spin: the section is a few system calls, and no libc
	 * lock is taken in the agent. Bounded: a signal handler that makes a
	 * socket while its thread holds the lock goes on without it. */
	while (!(held = !__atomic_exchange_n(&rr_standin_lock, 1, __ATOMIC_ACQUIRE)) &&
	       spins++ < 1000)
		syscall(SYS_sched_yield);
	if (syscall(SYS_fcntl, fd, F_GETFD) >= 0) {
		made = 0;
		goto out;
	}
	if (kind != SOCK_STREAM && kind != SOCK_SEQPACKET)
		kind = SOCK_DGRAM;
	n = (int)syscall(SYS_socket, AF_UNIX, kind | flags, 0);
	if (n < 0)
		n = (int)syscall(SYS_openat, AT_FDCWD, "/dev/null",
				 O_RDWR | (flags & SOCK_CLOEXEC ? O_CLOEXEC : 0));
	if (n < 0 || n == fd)
		goto out;
	syscall(SYS_dup3, n, fd, flags & SOCK_CLOEXEC ? O_CLOEXEC : 0);
	syscall(SYS_close, n);
out:
	if (held)
		__atomic_store_n(&rr_standin_lock, 0, __ATOMIC_RELEASE);
	return made;
}

void agent_rr_sock_standin(int fd, int type, const char *call)
{
	struct timespec ms = {0, 1000000};
	char text[256];
	size_t k = 0;
	int e = errno, i;

	if (fd < 0)
		return;
	for (i = 0; !rr_standin_try(fd, type); i++) {
		if ((agent_rr_mode & RR_MODE_SERIAL) || i >= RR_STANDIN_WAIT_MS) {
			const char *parts[] = {"replay diverged: descriptor ", NULL, ", which the recorded ",
					       call, " returned, is in use in the replay: its descriptor "
					       "table differs from the recording's (in sync mode, the "
					       "threads' opens and closes are not ordered)"};
			char num[16];
			int d = 0;

			for (unsigned v = (unsigned)fd; d == 0 || v; v /= 10)
				num[d++] = (char)('0' + v % 10);
			for (int a = 0, b = d - 1; a < b; a++, b--) {
				char c = num[a];

				num[a] = num[b];
				num[b] = c;
			}
			num[d] = 0;
			parts[1] = num;
			for (size_t p = 0; p < sizeof(parts) / sizeof(parts[0]); p++)
				for (const char *c = parts[p]; *c && k + 1 < sizeof(text); c++)
					text[k++] = *c;
			text[k] = 0;
			agent_rr_stop(text, 0);
		}
		syscall(SYS_nanosleep, &ms, NULL);
	}
	errno = e;
}

/* ---- calls that return a result only ---- */

/* Record the result of a call on fd (arg: call-specific). */
static int rr_res_rec(struct agent_thread *t, unsigned call, int fd, int r, uint64_t arg)
{
	int e = errno;

	agent_rr_rec_input(t, call, fd, r, r < 0 ? e : 0, arg, NULL, 0);
	errno = e;
	return r;
}

static int rr_res_rep(struct agent_thread *t, unsigned call, int fd)
{
	return (int)agent_rr_rep_input(t, call, fd, NULL, 0, NULL);
}

/* Serial record: a call that may wait in the kernel (a blocking connect)
 * gives the run token up around it, as agent_rr_io.c's reads do (and a
 * snapshot may hold the thread there: this frame lives until the call
 * returns, and connect records its result in a restored replay too). */
static int rr_block_connect(int fd, const struct sockaddr *a, socklen_t l)
{
	int r, e;

	if (!(agent_rr_mode & RR_MODE_SERIAL))
		return real_connect(fd, a, l);
	agent_serial_block_begin(RR_AT_INPUT);
	AGENT_SERIAL_OUT_CALL(RR_CALL_CONNECT, int, r, real_connect(fd, a, l));
	e = errno;
	agent_serial_block_end();
	errno = e;
	return r;
}

/* The same for a sendmmsg that may wait (its own frame: getcontext's). */
static int rr_block_sendmmsg(int fd, struct mmsghdr *v, unsigned vlen, int flags)
{
	int r, e;

	agent_serial_block_begin(RR_AT_INPUT);
	AGENT_SERIAL_OUT_CALL(RR_CALL_SENDMMSG, int, r, real_sendmmsg(fd, v, vlen, flags));
	e = errno;
	agent_serial_block_end();
	errno = e;
	return r;
}

/* fd = the domain; arg = the type and the protocol. */
AGENT_EXPORT int socket(int domain, int type, int proto)
{
	struct agent_thread *t;
	uint64_t arg = (uint32_t)type | (uint64_t)(uint32_t)proto << 32;
	uint32_t on;
	int r, e;

	if (RR_SOCK_OFF(t))
		return real_socket(domain, type, proto);
	if (RR_REPLAYING()) {
		r = rr_res_rep(t, RR_CALL_SOCKET, domain);
		e = errno;
		/* sync: the new descriptor takes its turn of the descriptor
		 * table after its input record, as recorded (agent_rr_fd.c) */
		on = r >= 0 ? agent_rr_fdtab_enter(RR_FD_SOCKET) : 0;
		agent_rr_sock_standin(r, type, "socket()");
		if (on)
			r = agent_rr_fdtab_leave(r, NULL);
		errno = e;
		return r;
	}
	r = rr_res_rec(t, RR_CALL_SOCKET, domain, real_socket(domain, type, proto), arg);
	if (r >= 0 && agent_rr_fdtab_enter(RR_FD_SOCKET))
		r = agent_rr_fdtab_leave(r, NULL);
	return r;
}

/* sync mode: a pair's turn of the descriptor table, after its input record
 * (entered: agent_rr_fdtab_enter said so); 0, or -1 when the replay's
 * numbers cannot be the recorded ones. */
static int rr_pair_turn(uint32_t entered, int sv[2])
{
	int first, second = sv[1];

	if (!entered)
		return 0;
	first = agent_rr_fdtab_leave(sv[0], &second);
	if (first < 0)
		return -1;
	sv[0] = first;
	sv[1] = second;
	return 0;
}

/* fd = the domain; data = the two descriptors. */
AGENT_EXPORT int socketpair(int domain, int type, int proto, int sv[2])
{
	struct agent_thread *t;
	struct agent_rr_seg s = {sv, 2 * sizeof(int)};
	int r, e;

	if (RR_SOCK_OFF(t) || !sv)
		return real_socketpair(domain, type, proto, sv);
	if (RR_REPLAYING()) {
		r = (int)agent_rr_rep_input(t, RR_CALL_SOCKETPAIR, domain, &s, 1, NULL);
		e = errno;
		if (r == 0) {
			uint32_t on = agent_rr_fdtab_enter(RR_FD_SOCKETPAIR);

			agent_rr_sock_standin(sv[0], type, "socketpair()");
			agent_rr_sock_standin(sv[1], type, "socketpair()");
			r = rr_pair_turn(on, sv);
		}
		errno = e;
		return r;
	}
	r = real_socketpair(domain, type, proto, sv);
	e = errno;
	if (r < 0)
		s.n = 0;
	agent_rr_rec_input(t, RR_CALL_SOCKETPAIR, domain, r, r < 0 ? e : 0, (uint32_t)type, &s, 1);
	if (r == 0)
		r = rr_pair_turn(agent_rr_fdtab_enter(RR_FD_SOCKETPAIR), sv);
	errno = e;
	return r;
}

AGENT_EXPORT int connect(int fd, const struct sockaddr *a, socklen_t l)
{
	struct agent_thread *t;

	if (RR_SOCK_OFF(t))
		return real_connect(fd, a, l);
	/* a connection to accept is a wake-up (agent_rr.c, RR_CALL_WAKE) */
	agent_rr_wake_write();
	if (RR_REPLAYING())
		return rr_res_rep(t, RR_CALL_CONNECT, fd);
	return rr_res_rec(t, RR_CALL_CONNECT, fd, rr_block_connect(fd, a, l), 0);
}

/*
 * Replay of a bind that succeeded to a path (an AF_UNIX socket in the file
 * system): the stand-in is bound to it for real, so the socket file exists
 * as it did (a program that unlinks it at the end, or stats it, sees it).
 * No listen follows, so nobody can connect to it; a name in the abstract
 * namespace (a live server's, perhaps) is never bound. The result is the
 * recorded one whatever this bind does.
 */
static void rr_bind_path(int fd, const struct sockaddr *a, socklen_t l)
{
	const struct sockaddr_un *u = (const struct sockaddr_un *)a;
	int e = errno;

	if (a && l > offsetof(struct sockaddr_un, sun_path) && l <= sizeof(*u) &&
	    u->sun_family == AF_UNIX && u->sun_path[0])
		syscall(SYS_bind, fd, a, l);
	errno = e;
}

AGENT_EXPORT int bind(int fd, const struct sockaddr *a, socklen_t l)
{
	struct agent_thread *t;
	int r;

	if (RR_SOCK_OFF(t))
		return real_bind(fd, a, l);
	if (RR_REPLAYING()) {
		r = rr_res_rep(t, RR_CALL_BIND, fd);
		if (r == 0)
			rr_bind_path(fd, a, l);
		return r;
	}
	return rr_res_rec(t, RR_CALL_BIND, fd, real_bind(fd, a, l), 0);
}

AGENT_EXPORT int listen(int fd, int n)
{
	struct agent_thread *t;

	if (RR_SOCK_OFF(t))
		return real_listen(fd, n);
	if (RR_REPLAYING())
		return rr_res_rep(t, RR_CALL_LISTEN, fd);
	return rr_res_rec(t, RR_CALL_LISTEN, fd, real_listen(fd, n), 0);
}

AGENT_EXPORT int shutdown(int fd, int how)
{
	struct agent_thread *t;

	if (RR_SOCK_OFF(t))
		return real_shutdown(fd, how);
	/* the peer's end of file or hang-up is a wake-up (agent_rr.c) */
	agent_rr_wake_write();
	if (RR_REPLAYING())
		return rr_res_rep(t, RR_CALL_SHUTDOWN, fd);
	return rr_res_rec(t, RR_CALL_SHUTDOWN, fd, real_shutdown(fd, how), (uint32_t)how);
}

/* arg = the level and the option. */
AGENT_EXPORT int setsockopt(int fd, int level, int name, const void *v, socklen_t l)
{
	struct agent_thread *t;

	if (RR_SOCK_OFF(t))
		return real_setsockopt(fd, level, name, v, l);
	if (RR_REPLAYING())
		return rr_res_rep(t, RR_CALL_SETSOCKOPT, fd);
	return rr_res_rec(t, RR_CALL_SETSOCKOPT, fd, real_setsockopt(fd, level, name, v, l),
			  (uint64_t)(uint32_t)level << 32 | (uint32_t)name);
}

/* ---- calls that fill a buffer and its length ---- */

/*
 * getpeername, getsockname, getsockopt: data = the bytes the call wrote
 * (no more than the buffer holds), arg = the length it reported (which may
 * exceed the buffer for an address).
 */
static int rr_buflen(struct agent_thread *t, unsigned call, int fd, void *buf, socklen_t *l,
		     int r)
{
	struct agent_rr_seg s;
	uint64_t full = 0;
	socklen_t cap = buf ? *l : 0;
	int e = errno;

	s.p = buf;
	s.n = cap;
	if (RR_REPLAYING()) {
		r = (int)agent_rr_rep_input(t, call, fd, &s, 1, &full);
		e = errno;
		if (r == 0)
			*l = (socklen_t)full;
		errno = e;
		return r;
	}
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
	struct agent_thread *t;

	if (RR_SOCK_OFF(t) || !l)
		return real_getpeername(fd, a, l);
	return rr_buflen(t, RR_CALL_GETPEERNAME, fd, a, l,
			 RR_REPLAYING() ? 0 : real_getpeername(fd, a, l));
}

AGENT_EXPORT int getsockname(int fd, struct sockaddr *a, socklen_t *l)
{
	struct agent_thread *t;

	if (RR_SOCK_OFF(t) || !l)
		return real_getsockname(fd, a, l);
	return rr_buflen(t, RR_CALL_GETSOCKNAME, fd, a, l,
			 RR_REPLAYING() ? 0 : real_getsockname(fd, a, l));
}

/* The SO_ERROR of a non-blocking connect, SO_TYPE, SO_RCVBUF: all inputs. */
AGENT_EXPORT int getsockopt(int fd, int level, int name, void *v, socklen_t *l)
{
	struct agent_thread *t;

	if (RR_SOCK_OFF(t) || !l)
		return real_getsockopt(fd, level, name, v, l);
	return rr_buflen(t, RR_CALL_GETSOCKOPT, fd, v, l,
			 RR_REPLAYING() ? 0 : real_getsockopt(fd, level, name, v, l));
}

/*
 * sendmmsg: the number of messages sent and each one's msg_len (data: r
 * uint32). A replay sends nothing and gives both back. At most 64
 * messages a call are sent (a sendmmsg may send fewer than asked). Serial
 * record: the token is given up around a call that may block (its reader
 * may be another thread of the program).
 */
#define RR_MMSG_MAX 64

AGENT_EXPORT int sendmmsg(int fd, struct mmsghdr *v, unsigned vlen, int flags)
{
	struct agent_rr_seg seg[RR_MMSG_MAX];
	struct agent_thread *t;
	int r, e, i;

	if (RR_SOCK_OFF(t) || !v)
		return real_sendmmsg(fd, v, vlen, flags);
	agent_rr_wake_write();
	if (vlen > RR_MMSG_MAX)
		vlen = RR_MMSG_MAX;
	for (i = 0; i < (int)vlen; i++)
		seg[i] = (struct agent_rr_seg){&v[i].msg_len, sizeof(v[i].msg_len)};
	if (RR_REPLAYING())
		return (int)agent_rr_rep_input(t, RR_CALL_SENDMMSG, fd, seg, (int)vlen, NULL);
	if ((agent_rr_mode & RR_MODE_SERIAL) && !(flags & MSG_DONTWAIT)) {
		r = rr_block_sendmmsg(fd, v, vlen, flags);
		e = errno;
	} else {
		r = real_sendmmsg(fd, v, vlen, flags);
		e = errno;
	}
	agent_rr_rec_input(t, RR_CALL_SENDMMSG, fd, r, r < 0 ? e : 0, 0, seg, r > 0 ? r : 0);
	errno = e;
	return r;
}
