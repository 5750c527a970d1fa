// SPDX-License-Identifier: MIT
/*
 * agent_rr_io.c - the nondeterministic inputs of record/replay: read-like
 * calls (read, pread, readv, preadv, recv, recvfrom, recvmsg, recvmmsg, accept,
 * poll, select, epoll_wait; ppoll, pselect, epoll_pwait and epoll_pwait2,
 * recorded as those three), clocks (clock_gettime, gettimeofday, time),
 * getrandom (and getentropy, made of getrandom calls), getpid, gettid and
 * sysinfo.
 *
 * Off (plain runs, inert agent): one test of agent_rr_mode, then a tail
 * call of the real function. The real functions are resolved by this file's
 * constructor; until then (another library's constructor calling read
 * before ours ran) the fallbacks make the raw system call.
 *
 * Record: call the real function, then write a KIND_INPUT record with the
 * result, errno and the bytes the call returned. Replay: the kernel is not
 * called; the recorded bytes, result and errno are given back (accept makes
 * the recorded descriptor number exist, an unconnected socket, so the
 * program can hand it to epoll; replayed writes and sends do not touch
 * it). Calls made by the agent itself (busy) and by threads spool could
 * not number pass through.
 *
 * Not seen, and documented in doc/record.md: glibc-internal reads (stdio's
 * fread/fgets/getc call __read directly), raw syscall instructions, rdtsc,
 * vDSO calls made without the PLT.
 */
/* AGENT_RR_CANCEL_PUSH is a setjmp (agent_rr.h) */
#pragma GCC diagnostic ignored "-Wclobbered"
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "agent_probe.h"
#include "agent_rr.h"
#include "agent_serial.h"
#include "agent_sys.h"

/* ---- real functions and their pre-constructor fallbacks ---- */

static ssize_t fb_read(int fd, void *b, size_t n) { return syscall(SYS_read, fd, b, n); }
static ssize_t fb_pread(int fd, void *b, size_t n, off_t o) { return syscall(SYS_pread64, fd, b, n, o); }
static ssize_t fb_readv(int fd, const struct iovec *v, int n) { return syscall(SYS_readv, fd, v, n); }
static ssize_t fb_preadv(int fd, const struct iovec *v, int n, off_t o)
{
	return syscall(SYS_preadv, fd, v, n, o, 0);
}
static ssize_t fb_recv(int fd, void *b, size_t n, int f)
{
	return syscall(SYS_recvfrom, fd, b, n, f, NULL, NULL);
}
static ssize_t fb_recvfrom(int fd, void *b, size_t n, int f, struct sockaddr *a, socklen_t *l)
{
	return syscall(SYS_recvfrom, fd, b, n, f, a, l);
}
static ssize_t fb_recvmsg(int fd, struct msghdr *m, int f) { return syscall(SYS_recvmsg, fd, m, f); }
static int fb_recvmmsg(int fd, struct mmsghdr *v, unsigned n, int f, struct timespec *t)
{
	return (int)syscall(SYS_recvmmsg, fd, v, n, f, t);
}
static int fb_accept(int fd, struct sockaddr *a, socklen_t *l) { return (int)syscall(SYS_accept, fd, a, l); }
static int fb_accept4(int fd, struct sockaddr *a, socklen_t *l, int f)
{
	return (int)syscall(SYS_accept4, fd, a, l, f);
}
static int fb_poll(struct pollfd *p, nfds_t n, int t) { return (int)arch_sys_poll(p, n, t); }
static int fb_select(int n, fd_set *r, fd_set *w, fd_set *e, struct timeval *t)
{
	return (int)arch_sys_select(n, r, w, e, t);
}
static int fb_epoll_wait(int fd, struct epoll_event *ev, int n, int t)
{
	return (int)arch_sys_epoll_wait(fd, ev, n, t);
}
static int fb_ppoll(struct pollfd *p, nfds_t n, const struct timespec *t, const sigset_t *m)
{
	return (int)syscall(SYS_ppoll, p, n, t, m, _NSIG / 8);
}
static int fb_pselect(int n, fd_set *r, fd_set *w, fd_set *e, const struct timespec *t,
		      const sigset_t *m)
{
	struct {
		const sigset_t *ss;
		size_t len;
	} d = {m, _NSIG / 8};
	struct timespec c, *tp = NULL;

	if (t) { /* the kernel writes the remaining time back: pselect's is const */
		c = *t;
		tp = &c;
	}
	return (int)syscall(SYS_pselect6, n, r, w, e, tp, &d);
}
static int fb_epoll_pwait(int fd, struct epoll_event *ev, int n, int t, const sigset_t *m)
{
	return (int)syscall(SYS_epoll_pwait, fd, ev, n, t, m, _NSIG / 8);
}
#ifdef SYS_epoll_pwait2
static int fb_epoll_pwait2(int fd, struct epoll_event *ev, int n, const struct timespec *t,
			   const sigset_t *m)
{
	return (int)syscall(SYS_epoll_pwait2, fd, ev, n, t, m, _NSIG / 8);
}
#else
static int fb_epoll_pwait2(int fd, struct epoll_event *ev, int n, const struct timespec *t,
			   const sigset_t *m)
{
	errno = ENOSYS;
	return -1;
}
#endif
static int fb_clock_gettime(clockid_t c, struct timespec *ts)
{
	return (int)syscall(SYS_clock_gettime, c, ts);
}
static int fb_gettimeofday(struct timeval *tv, void *tz) { return (int)syscall(SYS_gettimeofday, tv, tz); }
static time_t fb_time(time_t *t) { return (time_t)arch_sys_time(t); }
static ssize_t fb_getrandom(void *b, size_t n, unsigned f) { return syscall(SYS_getrandom, b, n, f); }
static pid_t fb_getpid(void) { return (pid_t)syscall(SYS_getpid); }
static int fb_getentropy(void *b, size_t n)
{
	long k = n > 256 ? -1 : syscall(SYS_getrandom, b, n, 0);

	if (n > 256)
		errno = EIO;
	else if (k >= 0 && (size_t)k != n)
		errno = EIO;
	return k >= 0 && (size_t)k == n ? 0 : -1;
}
static pid_t fb_gettid(void) { return (pid_t)syscall(SYS_gettid); }
static int fb_sysinfo(struct sysinfo *i) { return (int)syscall(SYS_sysinfo, i); }

static ssize_t (*real_read)(int, void *, size_t) = fb_read;
static ssize_t (*real_pread)(int, void *, size_t, off_t) = fb_pread;
static ssize_t (*real_readv)(int, const struct iovec *, int) = fb_readv;
static ssize_t (*real_preadv)(int, const struct iovec *, int, off_t) = fb_preadv;
static ssize_t (*real_recv)(int, void *, size_t, int) = fb_recv;
static ssize_t (*real_recvfrom)(int, void *, size_t, int, struct sockaddr *, socklen_t *) = fb_recvfrom;
static ssize_t (*real_recvmsg)(int, struct msghdr *, int) = fb_recvmsg;
static int (*real_recvmmsg)(int, struct mmsghdr *, unsigned, int, struct timespec *) = fb_recvmmsg;
static int (*real_accept)(int, struct sockaddr *, socklen_t *) = fb_accept;
static int (*real_accept4)(int, struct sockaddr *, socklen_t *, int) = fb_accept4;
static int (*real_poll)(struct pollfd *, nfds_t, int) = fb_poll;
static int (*real_select)(int, fd_set *, fd_set *, fd_set *, struct timeval *) = fb_select;
static int (*real_epoll_wait)(int, struct epoll_event *, int, int) = fb_epoll_wait;
static int (*real_ppoll)(struct pollfd *, nfds_t, const struct timespec *,
			 const sigset_t *) = fb_ppoll;
static int (*real_pselect)(int, fd_set *, fd_set *, fd_set *, const struct timespec *,
			   const sigset_t *) = fb_pselect;
static int (*real_epoll_pwait)(int, struct epoll_event *, int, int,
			       const sigset_t *) = fb_epoll_pwait;
static int (*real_epoll_pwait2)(int, struct epoll_event *, int, const struct timespec *,
				const sigset_t *) = fb_epoll_pwait2;
static int (*real_clock_gettime)(clockid_t, struct timespec *) = fb_clock_gettime;
static int (*real_gettimeofday)(struct timeval *, void *) = fb_gettimeofday;
static time_t (*real_time)(time_t *) = fb_time;
static ssize_t (*real_getrandom)(void *, size_t, unsigned) = fb_getrandom;
static pid_t (*real_getpid)(void) = fb_getpid;
static int (*real_getentropy)(void *, size_t) = fb_getentropy;
static pid_t (*real_gettid)(void) = fb_gettid;
static int (*real_sysinfo)(struct sysinfo *) = fb_sysinfo;

__attribute__((constructor)) static void agent_rr_io_resolve(void)
{
	int saved;

	/* busy first: reading errno calls __errno_location, which a func:
	 * probe of libc may have patched (the agent's own call, not the
	 * program's) */
	agent_self.busy++;
	saved = errno;
	AGENT_RESOLVE(real_read, "read");
	AGENT_RESOLVE(real_pread, "pread64");
	AGENT_RESOLVE(real_readv, "readv");
	AGENT_RESOLVE(real_preadv, "preadv64");
	AGENT_RESOLVE(real_recv, "recv");
	AGENT_RESOLVE(real_recvfrom, "recvfrom");
	AGENT_RESOLVE(real_recvmsg, "recvmsg");
	AGENT_RESOLVE(real_recvmmsg, "recvmmsg");
	AGENT_RESOLVE(real_accept, "accept");
	AGENT_RESOLVE(real_accept4, "accept4");
	AGENT_RESOLVE(real_poll, "poll");
	AGENT_RESOLVE(real_select, "select");
	AGENT_RESOLVE(real_epoll_wait, "epoll_wait");
	AGENT_RESOLVE(real_ppoll, "ppoll");
	AGENT_RESOLVE(real_pselect, "pselect");
	AGENT_RESOLVE(real_epoll_pwait, "epoll_pwait");
	AGENT_RESOLVE(real_epoll_pwait2, "epoll_pwait2");
	AGENT_RESOLVE(real_clock_gettime, "clock_gettime");
	AGENT_RESOLVE(real_gettimeofday, "gettimeofday");
	AGENT_RESOLVE(real_time, "time");
	AGENT_RESOLVE(real_getrandom, "getrandom");
	AGENT_RESOLVE(real_getentropy, "getentropy");
	AGENT_RESOLVE(real_getpid, "getpid");
	AGENT_RESOLVE(real_gettid, "gettid");
	AGENT_RESOLVE(real_sysinfo, "sysinfo");
	errno = saved;
	agent_self.busy--;
}

/* The one branch of a plain run; t is the thread when recording/replaying. */
#define RR_IO_OFF(t) (AGENT_LIKELY(!agent_rr_mode) || !((t) = agent_rr_io_enter()))
#define RR_REPLAYING() (agent_rr_mode & RR_MODE_REPLAY)

/* Serial or sync record of ppoll, pselect, epoll_pwait: with a signal mask
 * the call waits for signals too, as pause does (agent_rr_sig_wait_begin: a
 * handler already due ends it at once with EINTR; the handlers of signals
 * that land on the thread during the wait are its own); without, it is the
 * plain call's RR_BLOCK. */
#define RR_SIGBLOCK(call, mask, type, expr)                                                              \
	({                                                                                         \
		type r_;                                                                           \
		if (!(mask)) {                                                                     \
			r_ = RR_BLOCK(call, type, expr);                                                 \
		} else if (agent_rr_sig_wait_begin()) {                                           \
			r_ = -1;                                                                   \
			errno = EINTR;                                                             \
		} else {                                                                           \
			struct agent_rr_cancel_guard g_ = {&agent_self, (call), 0, 0,              \
							   agent_rr_sig_wait_cancelled};           \
			AGENT_RR_CANCEL_PUSH(&g_);                                                 \
			r_ = (expr);                                                               \
			AGENT_RR_CANCEL_POP();                                                     \
			agent_rr_sig_wait_end();                                                   \
		}                                                                                  \
		r_;                                                                                \
	})

/* Record a call whose data is one buffer of max(r, 0) bytes. */
static ssize_t rr_rec_buf(struct agent_thread *t, unsigned call, int fd, ssize_t r, void *buf)
{
	int e = errno;
	struct agent_rr_seg s = {buf, r > 0 ? (size_t)r : 0};

	agent_rr_rec_input(t, call, fd, r, r < 0 ? e : 0, 0, &s, 1);
	errno = e;
	return r;
}

static ssize_t rr_rep_buf(struct agent_thread *t, unsigned call, int fd, void *buf, size_t n)
{
	struct agent_rr_seg s = {buf, n};

	return (ssize_t)agent_rr_rep_input(t, call, fd, &s, 1, NULL);
}

/* Record/replay a call whose data is scattered over an iovec. */
static ssize_t rr_iov(struct agent_thread *t, unsigned call, int fd, const struct iovec *iov,
		      int cnt, ssize_t r)
{
	struct agent_rr_seg seg[64];
	int i, n = cnt < 64 ? cnt : 64, e = errno;
	size_t left = r > 0 ? (size_t)r : 0;

	for (i = 0; i < n; i++) {
		seg[i].p = iov[i].iov_base;
		seg[i].n = iov[i].iov_len;
	}
	if (RR_REPLAYING())
		return (ssize_t)agent_rr_rep_input(t, call, fd, seg, n, NULL);
	for (i = 0; i < n; i++) {
		if (seg[i].n > left)
			seg[i].n = left;
		left -= seg[i].n;
	}
	agent_rr_rec_input(t, call, fd, r, r < 0 ? e : 0, 0, seg, n);
	errno = e;
	return r;
}

/* ---- reads ---- */

/* A stdio read, recording with snapshots on: the holder may take a snapshot
 * before it blocks (agent_serial_stdio_wait). */
static ssize_t rr_read_in_stdio(int fd, void *buf, size_t n)
{
	int e = errno;
	int w;
	ssize_t r;

	/* (a wait for the world here is not stuck: agent_serial_peer.c) */
	agent_serial_stdio_io(fd, 0);
	w = agent_serial_stdio_wait(fd);
	if (w > 0) {
		agent_serial_stdio_io(-1, 0);
		return (ssize_t)agent_rr_rep_out_result(RR_CALL_READ);
	}
	if (w < 0) {
		agent_serial_stdio_io(-1, 0);
		errno = -w;
		return -1;
	}
	errno = e; /* (the wait's calls: the read sets it as it would have) */
	r = real_read(fd, buf, n);
	e = errno;
	agent_serial_stdio_io(-1, 0);
	errno = e;
	return r;
}

AGENT_EXPORT ssize_t read(int fd, void *buf, size_t n)
{
	struct agent_thread *t;

	if (RR_IO_OFF(t)) {
		/* before the agent's constructor: a library's (agent_rr_early.c) */
		if (AGENT_UNLIKELY(!agent_rr_started))
			return agent_rr_early_read(fd, buf, n);
		return AGENT_SYS_IO(SYS_IO_READ, fd, real_read(fd, buf, n));
	}
	if (RR_REPLAYING()) {
		ssize_t r = rr_rep_buf(t, RR_CALL_READ, fd, buf, n);

		if (r > 0)
			agent_rr_tree_drain(fd, (size_t)r);
		if (r > 0 && agent_rr_in_stdio)
			agent_rr_stdio_skip(fd, (size_t)r);
		return r;
	}
	return rr_rec_buf(t, RR_CALL_READ, fd,
			  RR_BLOCK(RR_CALL_READ, ssize_t,
				   AGENT_UNLIKELY(agent_rr_in_stdio)
					   ? rr_read_in_stdio(fd, buf, n)
					   : real_read(fd, buf, n)),
			  buf);
}

/* _FORTIFY_SOURCE builds call these when the buffer size is known. */
AGENT_EXPORT ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen)
{
	if (n > buflen)
		n = buflen; /* the real one would abort; never be the reason */
	return read(fd, buf, n);
}

AGENT_EXPORT ssize_t pread64(int fd, void *buf, size_t n, off_t off)
{
	struct agent_thread *t;

	if (RR_IO_OFF(t))
		return AGENT_SYS_IO(SYS_IO_READ, fd, real_pread(fd, buf, n, off));
	if (RR_REPLAYING())
		return rr_rep_buf(t, RR_CALL_PREAD, fd, buf, n);
	return rr_rec_buf(t, RR_CALL_PREAD, fd, real_pread(fd, buf, n, off), buf);
}

AGENT_EXPORT ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	return pread64(fd, buf, n, off);
}

AGENT_EXPORT ssize_t readv(int fd, const struct iovec *iov, int cnt)
{
	struct agent_thread *t;

	if (RR_IO_OFF(t) || cnt > 64)
		return AGENT_SYS_IO(SYS_IO_READ, fd, real_readv(fd, iov, cnt));
	if (RR_REPLAYING()) {
		ssize_t r = rr_iov(t, RR_CALL_READV, fd, iov, cnt, 0);

		/* a pipe another replaying process writes: as read does */
		if (r > 0)
			agent_rr_tree_drain(fd, (size_t)r);
		return r;
	}
	return rr_iov(t, RR_CALL_READV, fd, iov, cnt,
		      RR_BLOCK(RR_CALL_READV, ssize_t, real_readv(fd, iov, cnt)));
}

AGENT_EXPORT ssize_t preadv64(int fd, const struct iovec *iov, int cnt, off_t off)
{
	struct agent_thread *t;

	if (RR_IO_OFF(t) || cnt > 64)
		return AGENT_SYS_IO(SYS_IO_READ, fd, real_preadv(fd, iov, cnt, off));
	return rr_iov(t, RR_CALL_PREADV, fd, iov, cnt,
		      RR_REPLAYING() ? 0 : real_preadv(fd, iov, cnt, off));
}

AGENT_EXPORT ssize_t preadv(int fd, const struct iovec *iov, int cnt, off_t off)
{
	return preadv64(fd, iov, cnt, off);
}

/* ---- sockets ---- */

AGENT_EXPORT ssize_t recv(int fd, void *buf, size_t n, int flags)
{
	struct agent_thread *t;

	if (RR_IO_OFF(t))
		return AGENT_SYS_IO(SYS_IO_READ, fd, real_recv(fd, buf, n, flags));
	if (RR_REPLAYING())
		return rr_rep_buf(t, RR_CALL_RECV, fd, buf, n);
	return rr_rec_buf(t, RR_CALL_RECV, fd, RR_BLOCK(RR_CALL_RECV, ssize_t, real_recv(fd, buf, n, flags)),
			  buf);
}

/*
 * The address a recvfrom or recvmsg wrote is an input too (a UDP server
 * answers it, logs it): a second record after the payload's, which a
 * replay gives back. recvfrom: RR_CALL_RECV_ADDR, data = the bytes of the
 * address (no more than the buffer holds), arg = the length the call
 * reported.
 */
static void rr_addr_rec(struct agent_thread *t, int fd, void *addr, socklen_t cap,
			socklen_t full, ssize_t r)
{
	struct agent_rr_seg s = {addr, r < 0 ? 0 : full < cap ? full : cap};
	int e = errno;

	agent_rr_rec_input(t, RR_CALL_RECV_ADDR, fd, r < 0 ? -1 : 0, r < 0 ? e : 0,
			   r < 0 ? 0 : full, &s, 1);
	errno = e;
}

static void rr_addr_rep(struct agent_thread *t, int fd, void *addr, socklen_t *alen)
{
	struct agent_rr_seg s = {addr, *alen};
	uint64_t full = 0;
	int e = errno;

	memset(addr, 0, *alen);
	if (agent_rr_rep_input(t, RR_CALL_RECV_ADDR, fd, &s, 1, &full) == 0)
		*alen = (socklen_t)full;
	errno = e;
}

AGENT_EXPORT ssize_t recvfrom(int fd, void *buf, size_t n, int flags, struct sockaddr *addr,
			      socklen_t *alen)
{
	struct agent_thread *t;
	socklen_t cap;
	ssize_t r;

	if (RR_IO_OFF(t))
		return AGENT_SYS_IO(SYS_IO_READ, fd, real_recvfrom(fd, buf, n, flags, addr, alen));
	if (RR_REPLAYING()) {
		r = rr_rep_buf(t, RR_CALL_RECVFROM, fd, buf, n);
		if (addr && alen)
			rr_addr_rep(t, fd, addr, alen);
		return r;
	}
	cap = addr && alen ? *alen : 0;
	r = rr_rec_buf(t, RR_CALL_RECVFROM, fd,
		       RR_BLOCK(RR_CALL_RECVFROM, ssize_t, real_recvfrom(fd, buf, n, flags, addr, alen)), buf);
	/* (a replay restored from a snapshot that held the thread in the
	 * call, or taking the token back after it: the address is the log's,
	 * its length too, as in the replay's own branch) */
	if (addr && alen && RR_REPLAYING()) {
		*alen = cap;
		rr_addr_rep(t, fd, addr, alen);
	} else if (addr && alen) {
		rr_addr_rec(t, fd, addr, cap, *alen, r);
	}
	return r;
}

/*
 * recvmsg's address, control data and flags: RR_CALL_RECVMSG_META after
 * the payload's record, data = the whole msg_name buffer (the address, then
 * zeros) and the control bytes, arg = msg_namelen | msg_controllen << 32,
 * result = msg_flags. A replay makes the descriptors an SCM_RIGHTS message
 * carried exist as stand-ins (the recorded numbers, as accept does).
 */
static const unsigned char rr_zeros[256];

static void rr_meta_rec(struct agent_thread *t, int fd, struct msghdr *m, socklen_t namecap,
			ssize_t r)
{
	struct agent_rr_seg s[3] = {{NULL, 0}, {NULL, 0}, {NULL, 0}};
	int k = 0, e = errno;
	socklen_t nl = m->msg_namelen < namecap ? m->msg_namelen : namecap;

	if (r >= 0 && namecap) {
		if (namecap - nl <= sizeof(rr_zeros)) { /* the address, then zeros */
			s[k++] = (struct agent_rr_seg){m->msg_name, nl};
			s[k++] = (struct agent_rr_seg){(void *)rr_zeros, namecap - nl};
		} else {
			s[k++] = (struct agent_rr_seg){m->msg_name, namecap};
		}
	}
	if (r >= 0 && m->msg_control && m->msg_controllen)
		s[k++] = (struct agent_rr_seg){m->msg_control, m->msg_controllen};
	agent_rr_rec_input(t, RR_CALL_RECVMSG_META, fd, r < 0 ? 0 : m->msg_flags, 0,
			   r < 0 ? 0 : (uint64_t)m->msg_namelen | (uint64_t)m->msg_controllen << 32,
			   s, k);
	errno = e;
}

static void rr_meta_rep(struct agent_thread *t, int fd, struct msghdr *m, int rflags, ssize_t r)
{
	struct agent_rr_seg s[2] = {{NULL, 0}, {NULL, 0}};
	struct cmsghdr *c;
	size_t namecap = m->msg_name ? m->msg_namelen : 0;
	size_t ctlcap = m->msg_control ? m->msg_controllen : 0;
	uint64_t arg = 0;
	int k = 0, flags, e = errno;

	if (namecap)
		s[k++] = (struct agent_rr_seg){m->msg_name, namecap};
	if (ctlcap)
		s[k++] = (struct agent_rr_seg){m->msg_control, ctlcap};
	flags = (int)agent_rr_rep_input(t, RR_CALL_RECVMSG_META, fd, s, k, &arg);
	if (r >= 0) {
		/* The trace is untrusted: lengths no longer than the buffers. */
		m->msg_namelen = (socklen_t)((uint32_t)arg < namecap ? (uint32_t)arg : namecap);
		m->msg_controllen = (size_t)(arg >> 32) < ctlcap ? (size_t)(arg >> 32) : ctlcap;
		m->msg_flags = flags;
		for (c = CMSG_FIRSTHDR(m); c; c = CMSG_NXTHDR(m, c)) {
			const unsigned char *p = CMSG_DATA(c);
			size_t i, nfd;
			int one;

			if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS ||
			    c->cmsg_len < CMSG_LEN(0) ||
			    (const unsigned char *)c + c->cmsg_len >
				    (const unsigned char *)m->msg_control + m->msg_controllen)
				continue;
			nfd = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			for (i = 0; i < nfd; i++) {
				memcpy(&one, p + i * sizeof(int), sizeof(int));
				agent_rr_sock_standin(one,
						      SOCK_STREAM | (rflags & MSG_CMSG_CLOEXEC
									 ? SOCK_CLOEXEC
									 : 0),
						      "recvmsg() (SCM_RIGHTS)");
			}
		}
	}
	errno = e;
}

AGENT_EXPORT ssize_t recvmsg(int fd, struct msghdr *m, int flags)
{
	struct agent_thread *t;
	socklen_t namecap;
	size_t ctlcap;
	ssize_t r;

	if (RR_IO_OFF(t) || m->msg_iovlen > 64)
		return AGENT_SYS_IO(SYS_IO_READ, fd, real_recvmsg(fd, m, flags));
	if (RR_REPLAYING()) {
		r = rr_iov(t, RR_CALL_RECVMSG, fd, m->msg_iov, (int)m->msg_iovlen, 0);
		rr_meta_rep(t, fd, m, flags, r);
		return r;
	}
	namecap = m->msg_name ? m->msg_namelen : 0;
	ctlcap = m->msg_controllen;
	r = rr_iov(t, RR_CALL_RECVMSG, fd, m->msg_iov, (int)m->msg_iovlen,
		   RR_BLOCK(RR_CALL_RECVMSG, ssize_t, real_recvmsg(fd, m, flags)));
	if (RR_REPLAYING()) { /* restored from a snapshot: as recvfrom's address */
		m->msg_namelen = namecap;
		m->msg_controllen = ctlcap;
		rr_meta_rep(t, fd, m, flags, r);
	} else {
		rr_meta_rec(t, fd, m, namecap, r);
	}
	return r;
}

/*
 * recvmmsg: RR_CALL_RECVMMSG with the number of messages, then for each
 * message the two records of a recvmsg (its bytes, then its name, control
 * data and flags); msg_len is the first one's result. At most 64 messages
 * a call are asked for (a recvmmsg may return fewer than asked).
 */
#define RR_MMSG_MAX 64

AGENT_EXPORT int recvmmsg(int fd, struct mmsghdr *v, unsigned vlen, int flags,
			  struct timespec *tmo)
{
	struct agent_thread *t;
	socklen_t namecap[RR_MMSG_MAX];
	size_t ctlcap[RR_MMSG_MAX];
	int r, e, i;

	if (RR_IO_OFF(t) || !v)
		return real_recvmmsg(fd, v, vlen, flags, tmo);
	if (vlen > RR_MMSG_MAX)
		vlen = RR_MMSG_MAX;
	if (RR_REPLAYING()) {
		r = (int)agent_rr_rep_input(t, RR_CALL_RECVMMSG, fd, NULL, 0, NULL);
		e = errno;
		for (i = 0; i < r && i < (int)vlen; i++) {
			struct msghdr *m = &v[i].msg_hdr;
			ssize_t n = rr_iov(t, RR_CALL_RECVMSG, fd, m->msg_iov,
					   (int)(m->msg_iovlen < 64 ? m->msg_iovlen : 64), 0);

			v[i].msg_len = n > 0 ? (unsigned)n : 0;
			rr_meta_rep(t, fd, m, flags, n);
		}
		errno = e;
		return r;
	}
	for (i = 0; i < (int)vlen; i++) {
		namecap[i] = v[i].msg_hdr.msg_name ? v[i].msg_hdr.msg_namelen : 0;
		ctlcap[i] = v[i].msg_hdr.msg_controllen;
	}
	r = RR_BLOCK(RR_CALL_RECVMMSG, int, real_recvmmsg(fd, v, vlen, flags, tmo));
	e = errno;
	agent_rr_rec_input(t, RR_CALL_RECVMMSG, fd, r, r < 0 ? e : 0, 0, NULL, 0);
	for (i = 0; i < r && i < (int)vlen; i++) {
		struct msghdr *m = &v[i].msg_hdr;
		int niov = (int)(m->msg_iovlen < 64 ? m->msg_iovlen : 64);

		if (RR_REPLAYING()) { /* restored from a snapshot: as recvmsg */
			ssize_t n = rr_iov(t, RR_CALL_RECVMSG, fd, m->msg_iov, niov, 0);

			v[i].msg_len = n > 0 ? (unsigned)n : 0;
			m->msg_namelen = namecap[i];
			m->msg_controllen = ctlcap[i];
			rr_meta_rep(t, fd, m, flags, n);
			continue;
		}
		rr_iov(t, RR_CALL_RECVMSG, fd, m->msg_iov, niov, (ssize_t)v[i].msg_len);
		rr_meta_rec(t, fd, m, namecap[i], (ssize_t)v[i].msg_len);
	}
	errno = e;
	return r;
}

/*
 * accept: data = the peer's address (the whole buffer), arg = the length
 * the call reported. A replay makes the recorded descriptor exist as a
 * stand-in (agent_rr_sock_standin: a socket, not /dev/null: servers hand
 * the descriptor to epoll, libevent and memcached do, which refuses
 * /dev/null with EPERM). Replayed reads, writes and sends on it do not
 * touch it.
 */
static int rr_accept(struct agent_thread *t, int fd, struct sockaddr *a, socklen_t *l, int f,
		     int r)
{
	struct agent_rr_seg s = {a, a && l ? *l : 0};
	uint64_t full = 0;
	int e = errno;

	uint32_t on;

	if (RR_REPLAYING()) {
		r = (int)agent_rr_rep_input(t, RR_CALL_ACCEPT, fd, &s, 1, &full);
		e = errno;
		/* sync: the new descriptor takes its turn of the table (after the
		 * input record, as recorded); it is made at that turn */
		on = r >= 0 ? agent_rr_fdtab_enter(RR_FD_ACCEPT) : 0;
		agent_rr_sock_standin(r, SOCK_STREAM | f, "accept()");
		if (on)
			r = agent_rr_fdtab_leave(r, NULL);
		if (r >= 0 && full && a && l) /* 0: a recording older than the length */
			*l = (socklen_t)full;
		errno = e;
		return r;
	}
	if (r < 0)
		s.n = 0;
	else if (a && l)
		full = *l;
	agent_rr_rec_input(t, RR_CALL_ACCEPT, fd, r, r < 0 ? e : 0, full, &s, 1);
	/* sync: the turn of an allocation is taken after the kernel made it */
	if (r >= 0 && agent_rr_fdtab_enter(RR_FD_ACCEPT))
		r = agent_rr_fdtab_leave(r, NULL);
	errno = e;
	return r;
}

AGENT_EXPORT int accept(int fd, struct sockaddr *a, socklen_t *l)
{
	struct agent_thread *t;

	if (RR_IO_OFF(t))
		return real_accept(fd, a, l);
	return rr_accept(t, fd, a, l, 0,
			 RR_REPLAYING() ? 0 : RR_BLOCK(RR_CALL_ACCEPT, int, real_accept(fd, a, l)));
}

AGENT_EXPORT int accept4(int fd, struct sockaddr *a, socklen_t *l, int f)
{
	struct agent_thread *t;

	if (RR_IO_OFF(t))
		return real_accept4(fd, a, l, f);
	return rr_accept(t, fd, a, l, f,
			 RR_REPLAYING() ? 0 : RR_BLOCK(RR_CALL_ACCEPT, int, real_accept4(fd, a, l, f)));
}

/* ---- waiting for descriptors ---- */

/* Record poll and ppoll: data = the whole array (its revents). */
static int rr_poll_rec(struct agent_thread *t, struct pollfd *p, nfds_t n, int r)
{
	int e = errno;
	struct agent_rr_seg s = {p, r >= 0 ? n * sizeof(*p) : 0};

	agent_rr_rec_input(t, RR_CALL_POLL, -1, r, r < 0 ? e : 0, 0, &s, 1);
	errno = e;
	return r;
}

AGENT_EXPORT int poll(struct pollfd *p, nfds_t n, int timeout)
{
	struct agent_thread *t;

	if (RR_IO_OFF(t))
		return real_poll(p, n, timeout);
	if (RR_REPLAYING())
		return (int)rr_rep_buf(t, RR_CALL_POLL, -1, p, n * sizeof(*p));
	return rr_poll_rec(t, p, n, RR_BLOCK(RR_CALL_POLL, int, real_poll(p, n, timeout)));
}

/* ppoll, pselect and epoll_pwait are recorded as poll, select and
 * epoll_wait (the same data); their mask makes them wait like pause. */
AGENT_EXPORT int ppoll(struct pollfd *p, nfds_t n, const struct timespec *ts, const sigset_t *m)
{
	struct agent_thread *t;
	sigset_t mbuf;

	m = agent_probe_mask_arg(m, &mbuf); /* int3 probes: never SIGTRAP */

	if (RR_IO_OFF(t))
		return real_ppoll(p, n, ts, m);
	if (RR_REPLAYING())
		return (int)rr_rep_buf(t, RR_CALL_POLL, -1, p, n * sizeof(*p));
	return rr_poll_rec(t, p, n, RR_SIGBLOCK(RR_CALL_POLL, m, int, real_ppoll(p, n, ts, m)));
}

/* Data: the sets that were given, each (n + 7) / 8 bytes rounded to 8.
 * tv: select's timeout; ts and m: pselect's (pselect = 1). */
static int rr_select(int n, fd_set *r, fd_set *w, fd_set *x, struct timeval *tv,
		     const struct timespec *ts, const sigset_t *m, int pselect)
{
	struct agent_thread *t;
	struct agent_rr_seg s[3] = {{NULL, 0}, {NULL, 0}, {NULL, 0}};
	size_t len = ((size_t)(n > 0 ? n : 0) + 63) / 64 * 8;
	int k = 0, rc, e;

	if (RR_IO_OFF(t) || n > FD_SETSIZE)
		return pselect ? real_pselect(n, r, w, x, ts, m) : real_select(n, r, w, x, tv);
	if (r)
		s[k++] = (struct agent_rr_seg){r, len};
	if (w)
		s[k++] = (struct agent_rr_seg){w, len};
	if (x)
		s[k++] = (struct agent_rr_seg){x, len};
	if (RR_REPLAYING())
		return (int)agent_rr_rep_input(t, RR_CALL_SELECT, n, s, k, NULL);
	if (pselect)
		rc = RR_SIGBLOCK(RR_CALL_SELECT, m, int, real_pselect(n, r, w, x, ts, m));
	else
		rc = RR_BLOCK(RR_CALL_SELECT, int, real_select(n, r, w, x, tv));
	e = errno;
	agent_rr_rec_input(t, RR_CALL_SELECT, n, rc, rc < 0 ? e : 0, 0, s, rc < 0 ? 0 : k);
	errno = e;
	return rc;
}

AGENT_EXPORT int select(int n, fd_set *r, fd_set *w, fd_set *x, struct timeval *tv)
{
	return rr_select(n, r, w, x, tv, NULL, NULL, 0);
}

AGENT_EXPORT int pselect(int n, fd_set *r, fd_set *w, fd_set *x, const struct timespec *ts,
			 const sigset_t *m)
{
	sigset_t mbuf;

	m = agent_probe_mask_arg(m, &mbuf); /* int3 probes: never SIGTRAP */
	return rr_select(n, r, w, x, NULL, ts, m, 1);
}

/* Record epoll_wait and epoll_pwait: data = the events returned. */
static int rr_epoll_rec(struct agent_thread *t, int fd, struct epoll_event *ev, int r)
{
	int e = errno;
	struct agent_rr_seg s = {ev, r > 0 ? (size_t)r * sizeof(*ev) : 0};

	agent_rr_rec_input(t, RR_CALL_EPOLL_WAIT, fd, r, r < 0 ? e : 0, 0, &s, 1);
	errno = e;
	return r;
}

AGENT_EXPORT int epoll_wait(int fd, struct epoll_event *ev, int max, int timeout)
{
	struct agent_thread *t;

	if (RR_IO_OFF(t))
		return real_epoll_wait(fd, ev, max, timeout);
	if (RR_REPLAYING())
		return (int)rr_rep_buf(t, RR_CALL_EPOLL_WAIT, fd, ev,
				       max > 0 ? (size_t)max * sizeof(*ev) : 0);
	return rr_epoll_rec(t, fd, ev, RR_BLOCK(RR_CALL_EPOLL_WAIT, int, real_epoll_wait(fd, ev, max, timeout)));
}

AGENT_EXPORT int epoll_pwait(int fd, struct epoll_event *ev, int max, int timeout,
			     const sigset_t *m)
{
	struct agent_thread *t;
	sigset_t mbuf;

	m = agent_probe_mask_arg(m, &mbuf); /* int3 probes: never SIGTRAP */

	if (RR_IO_OFF(t))
		return real_epoll_pwait(fd, ev, max, timeout, m);
	if (RR_REPLAYING())
		return (int)rr_rep_buf(t, RR_CALL_EPOLL_WAIT, fd, ev,
				       max > 0 ? (size_t)max * sizeof(*ev) : 0);
	return rr_epoll_rec(t, fd, ev,
			    RR_SIGBLOCK(RR_CALL_EPOLL_WAIT, m, int, real_epoll_pwait(fd, ev, max, timeout, m)));
}

/* glibc 2.35 and later: a timespec timeout. Recorded as epoll_wait too. */
AGENT_EXPORT int epoll_pwait2(int fd, struct epoll_event *ev, int max, const struct timespec *ts,
			      const sigset_t *m)
{
	struct agent_thread *t;
	sigset_t mbuf;

	m = agent_probe_mask_arg(m, &mbuf); /* int3 probes: never SIGTRAP */

	if (RR_IO_OFF(t))
		return real_epoll_pwait2(fd, ev, max, ts, m);
	if (RR_REPLAYING())
		return (int)rr_rep_buf(t, RR_CALL_EPOLL_WAIT, fd, ev,
				       max > 0 ? (size_t)max * sizeof(*ev) : 0);
	return rr_epoll_rec(t, fd, ev,
			    RR_SIGBLOCK(RR_CALL_EPOLL_WAIT, m, int, real_epoll_pwait2(fd, ev, max, ts, m)));
}

/* ---- time, randomness, identity ---- */

/* The clocks the Linux vDSO reads without a system call (its
 * VDSO_HRES | VDSO_COARSE | VDSO_RAW clocks). */
static int rr_clock_vdso(clockid_t clk)
{
	switch (clk) {
	case CLOCK_REALTIME:
	case CLOCK_MONOTONIC:
	case CLOCK_MONOTONIC_RAW:
	case CLOCK_REALTIME_COARSE:
	case CLOCK_MONOTONIC_COARSE:
	case CLOCK_BOOTTIME:
	case CLOCK_TAI:
		return 1;
	}
	return 0;
}

AGENT_EXPORT int clock_gettime(clockid_t clk, struct timespec *ts)
{
	struct agent_thread *t;
	struct agent_rr_seg s = {ts, sizeof(*ts)};
	int r, e;

	if (RR_IO_OFF(t)) {
		/* before the agent's constructor: a library's (agent_rr_early.c) */
		if (AGENT_UNLIKELY(!agent_rr_started))
			return agent_rr_early_clock(clk, ts);
		return real_clock_gettime(clk, ts);
	}
	if (RR_REPLAYING())
		return (int)agent_rr_rep_input(t, RR_CALL_CLOCK_GETTIME, (int)clk, &s, 1, NULL);
	/* A clock the vDSO does not serve (the CPU-time clocks, clock() among
	 * their callers, agent_rr_cputime.c): the vDSO would make the system
	 * call from its own text, which syscall user dispatch traps and lets
	 * through (a signal: 14-34 µs a call against 2-2.5, doc/record.md), so
	 * the same call is made through libc's syscall() here. */
	if (rr_clock_vdso(clk))
		r = real_clock_gettime(clk, ts);
	else
		r = fb_clock_gettime(clk, ts);
	e = errno;
	if (r < 0)
		s.n = 0;
	agent_rr_rec_input(t, RR_CALL_CLOCK_GETTIME, (int)clk, r, r < 0 ? e : 0, 0, &s, 1);
	errno = e;
	return r;
}

AGENT_EXPORT int gettimeofday(struct timeval *tv, void *tz)
{
	struct agent_thread *t;
	struct agent_rr_seg s = {tv, sizeof(*tv)};
	int r, e;

	if (RR_IO_OFF(t)) {
		if (AGENT_UNLIKELY(!agent_rr_started)) {
			struct timespec ts; /* (as time's, below) */

			if (agent_rr_early_clock(CLOCK_REALTIME, &ts))
				return real_gettimeofday(tv, tz);
			if (tz)
				memset(tz, 0, sizeof(struct timezone));
			tv->tv_sec = ts.tv_sec;
			tv->tv_usec = ts.tv_nsec / 1000;
			return 0;
		}
		return real_gettimeofday(tv, tz);
	}
	if (tz)
		memset(tz, 0, sizeof(struct timezone));
	if (RR_REPLAYING())
		return (int)agent_rr_rep_input(t, RR_CALL_GETTIMEOFDAY, -1, &s, 1, NULL);
	r = real_gettimeofday(tv, tz);
	e = errno;
	if (r < 0)
		s.n = 0;
	agent_rr_rec_input(t, RR_CALL_GETTIMEOFDAY, -1, r, r < 0 ? e : 0, 0, &s, 1);
	errno = e;
	return r;
}

AGENT_EXPORT time_t time(time_t *tp)
{
	struct agent_thread *t;
	time_t v;

	if (RR_IO_OFF(t)) {
		/* (agent_rr_early.c): OpenSSL stamps its random generator with
		 * time() when a library's constructor seeds it (dig's libisc),
		 * and reseeds when a later time() is earlier: a replay's real
		 * early clock is later than the recorded ones that follow */
		if (AGENT_UNLIKELY(!agent_rr_started)) {
			struct timespec ts;

			if (agent_rr_early_clock(CLOCK_REALTIME, &ts))
				return real_time(tp);
			if (tp)
				*tp = ts.tv_sec;
			return ts.tv_sec;
		}
		return real_time(tp);
	}
	if (RR_REPLAYING())
		v = (time_t)agent_rr_rep_input(t, RR_CALL_TIME, -1, NULL, 0, NULL);
	else
		agent_rr_rec_input(t, RR_CALL_TIME, -1, v = real_time(NULL), 0, 0, NULL, 0);
	if (tp)
		*tp = v;
	return v;
}

AGENT_EXPORT ssize_t getrandom(void *buf, size_t n, unsigned flags)
{
	struct agent_thread *t;

	if (RR_IO_OFF(t)) {
		if (AGENT_UNLIKELY(!agent_rr_started)) /* (agent_rr_early.c) */
			return agent_rr_early_getrandom(buf, n, flags);
		return real_getrandom(buf, n, flags);
	}
	if (RR_REPLAYING())
		return rr_rep_buf(t, RR_CALL_GETRANDOM, -1, buf, n);
	return rr_rec_buf(t, RR_CALL_GETRANDOM, -1, real_getrandom(buf, n, flags), buf);
}

/*
 * getentropy: glibc's makes the getrandom system call itself, not through
 * getrandom's symbol, so its bytes were neither recorded nor replayed
 * (Ruby seeds its Random with it: `p rand` printed another number in each
 * replay, silently). Done here as glibc does it, a loop of getrandom calls
 * (which record and replay them); plain runs take the real one.
 */
AGENT_EXPORT int getentropy(void *buf, size_t n)
{
	struct agent_thread *t;
	size_t done = 0;

	if (RR_IO_OFF(t) && agent_rr_started)
		return real_getentropy(buf, n);
	if (n > 256) {
		errno = EIO;
		return -1;
	}
	while (done < n) {
		ssize_t k = getrandom((char *)buf + done, n - done, 0);

		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		done += (size_t)k;
	}
	return 0;
}

AGENT_EXPORT pid_t getpid(void)
{
	struct agent_thread *t;
	pid_t v;

	if (RR_IO_OFF(t)) {
		if (AGENT_UNLIKELY(!agent_rr_started)) /* (agent_rr_early.c) */
			return agent_rr_early_getpid();
		return real_getpid();
	}
	if (RR_REPLAYING()) {
		v = (pid_t)agent_rr_rep_input(t, RR_CALL_GETPID, -1, NULL, 0, NULL);
		if (v > 0) /* kill and sigqueue send to it: the replay's pid */
			__atomic_store_n(&agent_rr_pid_recorded, v, __ATOMIC_RELAXED);
		return v;
	}
	v = real_getpid();
	agent_rr_rec_input(t, RR_CALL_GETPID, -1, v, 0, 0, NULL, 0);
	return v;
}

AGENT_EXPORT pid_t gettid(void)
{
	struct agent_thread *t;
	pid_t v;

	if (RR_IO_OFF(t))
		return real_gettid();
	if (RR_REPLAYING()) {
		v = (pid_t)agent_rr_rep_input(t, RR_CALL_GETTID, -1, NULL, 0, NULL);
		if (v > 0)
			agent_rr_note_tid(v);
		return v;
	}
	v = real_gettid();
	agent_rr_rec_input(t, RR_CALL_GETTID, -1, v, 0, 0, NULL, 0);
	return v;
}

/* sysinfo: the uptime, loads and free memory are inputs (lighttpd takes its
 * clock of seconds from the uptime). Data = struct sysinfo. */
AGENT_EXPORT int sysinfo(struct sysinfo *info)
{
	struct agent_thread *t;
	struct agent_rr_seg s = {info, sizeof(*info)};
	int r, e;

	if (RR_IO_OFF(t) || !info)
		return real_sysinfo(info);
	if (RR_REPLAYING())
		return (int)agent_rr_rep_input(t, RR_CALL_SYSINFO, -1, &s, 1, NULL);
	r = real_sysinfo(info);
	e = errno;
	if (r < 0)
		s.n = 0;
	agent_rr_rec_input(t, RR_CALL_SYSINFO, -1, r, r < 0 ? e : 0, 0, &s, 1);
	errno = e;
	return r;
}
