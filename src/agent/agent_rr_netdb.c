// SPDX-License-Identifier: MIT
/*
 * agent_rr_netdb.c - record and replay of name resolution: getaddrinfo and
 * getnameinfo (doc/record.md, "Sockets").
 *
 * What glibc does to resolve a name is invisible to the other interposers:
 * it reads /etc/hosts and /etc/nsswitch.conf, may open a netlink socket
 * (AI_ADDRCONFIG) or a UDP socket to a DNS server, all through its own
 * internal calls. So the call is recorded whole: while recording the real
 * function runs with the thread marked busy (whatever it calls through
 * interposed functions, an NSS module's locks or reads, is not recorded,
 * since a replay does not make those calls) and, in serial mode, with the
 * run token given up (a DNS query can wait for seconds); then its result
 * is written as one input. A replay gives the recorded list back; it makes
 * no DNS query and opens no socket. When the recorded lookup needed no
 * network (no name, a numeric address, or a name /etc/hosts has), the
 * replay still runs glibc's getaddrinfo, busy, and returns glibc's own list
 * when it is the recorded one: the program's allocator then sees the
 * mallocs it saw while recording (jemalloc reads the clock every so many
 * allocations, so a replay that allocates less reads the clock at other
 * points and diverges: redis-cli does). Otherwise the replay builds the
 * recorded list with malloc, laid out as glibc lays it out (each entry one
 * block with its address behind it, the canonical name a block of its
 * own), so the program's freeaddrinfo frees it.
 *
 * getaddrinfo's data: per entry a struct rr_gai_ent, the address (addrlen
 * bytes), the canonical name with its NUL (canonlen bytes), padded to 8
 * bytes; arg = entries | RR_GAI_LOCAL | bytes << 32. A list longer than RR_GAI_MAX bytes
 * is cut (the recorded run's list too, so the program sees the same one).
 * getnameinfo's data: the host, then the service, each with its NUL; arg =
 * their lengths (host | service << 32).
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "agent.h"
#include "agent_rr.h"
#include "agent_serial.h"

#define RR_GAI_MAX 4096
#define RR_GAI_LOCAL (1u << 31) /* the lookup needed no network (arg) */
#define RR_HOSTS_MAX 8192	/* the bytes of /etc/hosts searched */
#define RR_GNI_MAX 2048

struct rr_gai_ent {
	int32_t flags, family, socktype, protocol;
	uint32_t addrlen, canonlen;
};

static int (*real_getaddrinfo)(const char *, const char *, const struct addrinfo *,
			       struct addrinfo **);
static void (*real_freeaddrinfo)(struct addrinfo *);
static int (*real_getnameinfo)(const struct sockaddr *, socklen_t, char *, socklen_t, char *,
			       socklen_t, int);

__attribute__((constructor)) static void agent_rr_netdb_resolve(void)
{
	int saved;

	/* busy first: reading errno calls __errno_location, which a func:
	 * probe of libc may have patched (the agent's own call, not the
	 * program's) */
	agent_self.busy++;
	saved = errno;
	AGENT_RESOLVE(real_getaddrinfo, "getaddrinfo");
	AGENT_RESOLVE(real_freeaddrinfo, "freeaddrinfo");
	AGENT_RESOLVE(real_getnameinfo, "getnameinfo");
	errno = saved;
	agent_self.busy--;
}

/* The real function, resolved now if another library's constructor calls
 * it before ours ran. */
#define RR_REAL(var, name)                                                                         \
	({                                                                                         \
		if (AGENT_UNLIKELY(!var))                                                          \
			AGENT_RESOLVE(var, name);                                                  \
		var;                                                                               \
	})

/* Record: around the real call, the thread is busy (nothing it calls is
 * recorded) and, in serial mode, without the run token. */
void agent_rr_resolve_begin(struct agent_thread *t)
{
	if (agent_rr_mode & RR_MODE_SERIAL)
		agent_serial_block_begin(RR_AT_INPUT);
	t->busy++;
}

void agent_rr_resolve_end(struct agent_thread *t)
{
	int e = errno;

	t->busy--;
	if (agent_rr_mode & RR_MODE_SERIAL)
		agent_serial_block_end();
	errno = e;
}

static size_t rr_pad8(size_t n) { return (n + 7) & ~(size_t)7; }

/* Record: lay out the list in buf; cut it where it no longer fits. */
static size_t rr_gai_pack(struct addrinfo *res, unsigned char *buf, uint32_t *count)
{
	struct addrinfo *ai, *last = NULL;
	size_t off = 0;

	*count = 0;
	for (ai = res; ai; last = ai, ai = ai->ai_next) {
		struct rr_gai_ent e;
		size_t alen = ai->ai_addr ? ai->ai_addrlen : 0;
		size_t clen = ai->ai_canonname ? strnlen(ai->ai_canonname, 1024) + 1 : 0;
		size_t need = rr_pad8(sizeof(e) + alen + clen);

		if (alen > 256 || clen > 1024 || need > RR_GAI_MAX - off)
			break;
		e.flags = ai->ai_flags;
		e.family = ai->ai_family;
		e.socktype = ai->ai_socktype;
		e.protocol = ai->ai_protocol;
		e.addrlen = (uint32_t)alen;
		e.canonlen = (uint32_t)clen;
		memset(buf + off, 0, need);
		memcpy(buf + off, &e, sizeof(e));
		if (alen)
			memcpy(buf + off + sizeof(e), ai->ai_addr, alen);
		if (clen)
			memcpy(buf + off + sizeof(e) + alen, ai->ai_canonname, clen);
		off += need;
		(*count)++;
	}
	if (ai && last) { /* cut: the program sees what the replay will give */
		last->ai_next = NULL;
		RR_REAL(real_freeaddrinfo, "freeaddrinfo")(ai);
	}
	return off;
}

static void rr_gai_free(struct addrinfo *ai)
{
	while (ai) {
		struct addrinfo *n = ai->ai_next;

		free(ai->ai_canonname);
		free(ai);
		ai = n;
	}
}

/* Replay: the list from the recorded bytes (untrusted: every length is
 * checked against what is left); NULL when they do not make one. */
static int rr_gai_unpack(const unsigned char *buf, size_t len, uint32_t count,
			 struct addrinfo **res)
{
	struct addrinfo *head = NULL, **tail = &head;
	size_t off = 0;

	for (uint32_t i = 0; i < count; i++) {
		struct rr_gai_ent e;
		struct addrinfo *ai;
		size_t need;

		if (len - off < sizeof(e))
			goto bad;
		memcpy(&e, buf + off, sizeof(e));
		if (e.addrlen > 256 || e.canonlen > 1024)
			goto bad;
		need = rr_pad8(sizeof(e) + e.addrlen + e.canonlen);
		if (need > len - off)
			goto bad;
		ai = malloc(sizeof(*ai) + e.addrlen);
		if (!ai)
			goto bad;
		memset(ai, 0, sizeof(*ai));
		ai->ai_flags = e.flags;
		ai->ai_family = e.family;
		ai->ai_socktype = e.socktype;
		ai->ai_protocol = e.protocol;
		ai->ai_addrlen = e.addrlen;
		if (e.addrlen) {
			ai->ai_addr = (struct sockaddr *)(ai + 1);
			memcpy(ai->ai_addr, buf + off + sizeof(e), e.addrlen);
		}
		*tail = ai;
		tail = &ai->ai_next;
		if (e.canonlen) {
			ai->ai_canonname = malloc(e.canonlen);
			if (!ai->ai_canonname)
				goto bad;
			memcpy(ai->ai_canonname, buf + off + sizeof(e) + e.addrlen, e.canonlen);
			ai->ai_canonname[e.canonlen - 1] = 0;
		}
		off += need;
	}
	*res = head;
	return 0;
bad:
	rr_gai_free(head);
	return -1;
}

static char rr_lower(char c) { return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c; }

/* Record: does /etc/hosts name NODE (its first RR_HOSTS_MAX bytes)? With
 * addr, does it have NODE as an address (its first column) instead. Raw
 * system calls: the agent's own reads are never recorded. */
int agent_rr_in_hosts(const char *node, int addr)
{
	char buf[RR_HOSTS_MAX];
	size_t nlen = strnlen(node, 256), i = 0, n;
	long got;
	int fd, col = 0;

	fd = (int)syscall(SYS_openat, AT_FDCWD, "/etc/hosts", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	got = syscall(SYS_read, fd, buf, sizeof(buf));
	syscall(SYS_close, fd);
	n = got > 0 ? (size_t)got : 0;
	while (i < n) { /* col: 0 the address, 1 and on the names; -1 a comment */
		size_t k = 0;

		if (buf[i] == '\n') {
			col = 0;
			i++;
			continue;
		}
		if (buf[i] == ' ' || buf[i] == '\t' || col < 0) {
			i++;
			continue;
		}
		if (buf[i] == '#') {
			col = -1;
			continue;
		}
		while (i + k < n && buf[i + k] != ' ' && buf[i + k] != '\t' && buf[i + k] != '\n' &&
		       buf[i + k] != '#')
			k++;
		if ((addr ? col++ == 0 : col++ > 0) && k == nlen) {
			size_t j = 0;

			while (j < k && rr_lower(buf[i + j]) == rr_lower(node[j]))
				j++;
			if (j == k)
				return 1;
		}
		i += k;
	}
	return 0;
}

/* Record: the lookup needed no network: no name, a numeric address (digits
 * and dots, or an IPv6 literal with its colons), or a name in /etc/hosts
 * (which nsswitch.conf asks first on Debian). */
int agent_rr_netdb_local(const char *node, int numeric)
{
	const char *p;

	if (!node || numeric)
		return 1;
	for (p = node; *p && ((*p >= '0' && *p <= '9') || *p == '.'); p++)
		;
	if (!*p)
		return 1;
	for (p = node; *p && *p != ':'; p++)
		;
	if (*p)
		return 1;
	return agent_rr_in_hosts(node, 0);
}

/* Replay: the recorded list; glibc's own when the recorded lookup was
 * local and glibc gives the same list now (see the top of the file). */
static int rr_gai_replay(struct agent_thread *t, const char *node, const char *serv,
			 const struct addrinfo *hints, struct addrinfo **res)
{
	unsigned char buf[RR_GAI_MAX], now[RR_GAI_MAX];
	struct agent_rr_seg s = {buf, sizeof(buf)};
	struct addrinfo *mine = NULL;
	uint64_t arg = 0;
	uint32_t count;
	size_t len;
	int r, e, rn, on;

	r = (int)agent_rr_rep_input(t, RR_CALL_GETADDRINFO, -1, &s, 1, &arg);
	e = errno;
	len = (size_t)(arg >> 32) < sizeof(buf) ? (size_t)(arg >> 32) : sizeof(buf);
	*res = NULL;
	/* (its files' descriptors: in the recorded order, agent_rr.c) */
	on = agent_rr_lookup_fd_begin();
	if ((uint32_t)arg & RR_GAI_LOCAL) {
		t->busy++;
		rn = RR_REAL(real_getaddrinfo, "getaddrinfo")(node, serv, hints, &mine);
		if (rn == 0 && (r != 0 || rr_gai_pack(mine, now, &count) != len ||
				memcmp(now, buf, len))) {
			RR_REAL(real_freeaddrinfo, "freeaddrinfo")(mine);
			mine = NULL;
		}
		t->busy--;
		if (rn == r && (r != 0 || mine)) {
			agent_rr_lookup_fd_end(on);
			*res = mine;
			errno = e;
			return r;
		}
	}
	agent_rr_lookup_fd_end(on);
	t->busy++; /* the allocator's own locks are not the program's */
	if (r == 0 && rr_gai_unpack(buf, len, (uint32_t)arg & ~RR_GAI_LOCAL, res) < 0)
		r = EAI_MEMORY;
	t->busy--;
	errno = e;
	return r;
}

AGENT_EXPORT int getaddrinfo(const char *node, const char *serv, const struct addrinfo *hints,
			     struct addrinfo **res)
{
	unsigned char buf[RR_GAI_MAX];
	struct agent_rr_seg s = {buf, sizeof(buf)};
	struct agent_thread *t;
	uint32_t count = 0;
	int r, e, on;

	if (AGENT_LIKELY(!agent_rr_mode) || !res || !(t = agent_rr_io_enter()))
		return RR_REAL(real_getaddrinfo, "getaddrinfo")(node, serv, hints, res);
	if (agent_rr_mode & RR_MODE_REPLAY)
		return rr_gai_replay(t, node, serv, hints, res);
	on = agent_rr_lookup_fd_begin();
	agent_rr_resolve_begin(t);
	r = RR_REAL(real_getaddrinfo, "getaddrinfo")(node, serv, hints, res);
	agent_rr_resolve_end(t);
	e = errno;
	s.n = r == 0 ? rr_gai_pack(*res, buf, &count) : 0;
	if (agent_rr_netdb_local(node, hints && (hints->ai_flags & AI_NUMERICHOST)))
		count |= RR_GAI_LOCAL;
	agent_rr_rec_input(t, RR_CALL_GETADDRINFO, -1, r, r == EAI_SYSTEM ? e : 0,
			   count | (uint64_t)s.n << 32, &s, 1);
	agent_rr_lookup_fd_end(on);
	errno = e;
	return r;
}

/* The length of string p in a buffer of cap bytes, its NUL included. */
static size_t rr_strsize(const char *p, size_t cap)
{
	size_t n = p && cap ? strnlen(p, cap) : 0;

	return p && cap ? (n < cap ? n + 1 : cap) : 0;
}

AGENT_EXPORT int getnameinfo(const struct sockaddr *sa, socklen_t salen, char *host,
			     socklen_t hostlen, char *serv, socklen_t servlen, int flags)
{
	char buf[RR_GNI_MAX];
	struct agent_rr_seg s[2] = {{buf, sizeof(buf)}, {NULL, 0}};
	struct agent_thread *t;
	uint64_t arg = 0;
	size_t hl, sl;
	int r, e;

	if (AGENT_LIKELY(!agent_rr_mode) || !(t = agent_rr_io_enter()))
		return RR_REAL(real_getnameinfo, "getnameinfo")(sa, salen, host, hostlen, serv,
								servlen, flags);
	if (agent_rr_mode & RR_MODE_REPLAY) {
		r = (int)agent_rr_rep_input(t, RR_CALL_GETNAMEINFO, -1, s, 1, &arg);
		e = errno;
		hl = (uint32_t)arg;
		sl = arg >> 32;
		if (r == 0 && (hl > (host ? hostlen : 0) || sl > (serv ? servlen : 0) ||
			       hl + sl > sizeof(buf)))
			r = EAI_OVERFLOW; /* a damaged recording: never past the buffers */
		if (r == 0 && hl) {
			memcpy(host, buf, hl);
			host[hl - 1] = 0;
		}
		if (r == 0 && sl) {
			memcpy(serv, buf + hl, sl);
			serv[sl - 1] = 0;
		}
		errno = e;
		return r;
	}
	agent_rr_resolve_begin(t);
	r = RR_REAL(real_getnameinfo, "getnameinfo")(sa, salen, host, hostlen, serv, servlen,
						      flags);
	agent_rr_resolve_end(t);
	e = errno;
	hl = r == 0 ? rr_strsize(host, hostlen) : 0;
	sl = r == 0 ? rr_strsize(serv, servlen) : 0;
	if (hl + sl > sizeof(buf))
		hl = sl = 0; /* never in practice: DNS names have at most 253 bytes */
	s[0] = (struct agent_rr_seg){host, hl};
	s[1] = (struct agent_rr_seg){serv, sl};
	agent_rr_rec_input(t, RR_CALL_GETNAMEINFO, -1, r, r == EAI_SYSTEM ? e : 0,
			   hl | (uint64_t)sl << 32, s, 2);
	errno = e;
	return r;
}
