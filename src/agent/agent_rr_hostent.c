// SPDX-License-Identifier: MIT
/*
 * agent_rr_hostent.c - record and replay of the older name lookups:
 * gethostbyname, gethostbyname2, gethostbyaddr, getservbyname,
 * getservbyport, the enumerations gethostent and getservent, and their _r
 * forms (doc/record.md, "Sockets").
 *
 * Like getaddrinfo (agent_rr_netdb.c) each is recorded whole: glibc reads
 * /etc/hosts, /etc/services and nsswitch.conf, may ask DNS, all through its
 * own internal calls that no interposer sees. While recording, the real
 * function runs with the thread busy and, in serial mode, without the run
 * token; its result is packed (below) into one input record. A replay makes
 * no lookup when the recorded one may have needed the network: it rebuilds
 * the recorded result, for the _r forms in the program's struct and buffer
 * (pointers into that buffer, as glibc's), for the others in memory of the
 * agent's that stays valid until the same function is called again on the
 * same thread (glibc's is one static buffer per function; a thread's buffers
 * go to the next new thread once it ends, so they stay valid after the end
 * until another thread's first call). When the recorded lookup needed no
 * network (a numeric name, a name or address /etc/hosts has, a service when
 * nsswitch.conf asks only files), the replay makes the real call too, busy,
 * and returns glibc's own result when it is the recorded one: the
 * program's allocator then sees the allocations it saw while recording.
 *
 * Packed struct hostent: struct rr_host_hdr, the name with its NUL, the
 * aliases each with its NUL (alen bytes), naddr addresses of length bytes.
 * Packed struct servent: struct rr_serv_hdr, the name, the protocol, the
 * aliases. At most RR_NETDB_MAX bytes: longer lists are cut at record time,
 * in what the recorded program sees too. A recording is untrusted: the
 * unpacker checks every count and length against the bytes there are.
 */
#include <netinet/in.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "agent.h"
#include "agent_rr.h"

#define RR_NETDB_MAX 4096
#define RR_NETDB_ALIASES 256 /* aliases or addresses kept, each list */
#define RR_NSS_MAX 4096	     /* the bytes of /etc/nsswitch.conf read */

/* arg's low byte: which function (a replay checks it is the same). */
enum {
	RR_HOST_BYNAME = 1,
	RR_HOST_BYNAME2,
	RR_HOST_BYADDR,
	RR_HOST_BYNAME_R,
	RR_HOST_BYNAME2_R,
	RR_HOST_BYADDR_R,
	RR_SERV_BYNAME,
	RR_SERV_BYPORT,
	RR_SERV_BYNAME_R,
	RR_SERV_BYPORT_R,
	RR_HOST_ENT, /* the enumerations: gethostent, getservent */
	RR_HOST_ENT_R,
	RR_SERV_ENT,
	RR_SERV_ENT_R,
	RR_NETDB_KINDS
};
static const char *const rr_netdb_kinds[RR_NETDB_KINDS] = {
    [RR_HOST_BYNAME] = "gethostbyname",	    [RR_HOST_BYNAME2] = "gethostbyname2",
    [RR_HOST_BYADDR] = "gethostbyaddr",	    [RR_HOST_BYNAME_R] = "gethostbyname_r",
    [RR_HOST_BYNAME2_R] = "gethostbyname2_r", [RR_HOST_BYADDR_R] = "gethostbyaddr_r",
    [RR_SERV_BYNAME] = "getservbyname",	    [RR_SERV_BYPORT] = "getservbyport",
    [RR_SERV_BYNAME_R] = "getservbyname_r",   [RR_SERV_BYPORT_R] = "getservbyport_r",
    [RR_HOST_ENT] = "gethostent",	    [RR_HOST_ENT_R] = "gethostent_r",
    [RR_SERV_ENT] = "getservent",	    [RR_SERV_ENT_R] = "getservent_r",
};
#define RR_NETDB_LOCAL (1u << 8)

struct rr_host_hdr {
	int32_t addrtype, length;
	uint32_t naddr, nalias, namelen, alen;
};

struct rr_serv_hdr {
	int32_t port;
	uint32_t nalias, namelen, protolen, alen, pad;
};

/* One lookup, whichever function it is. */
struct rr_nq {
	unsigned kind;
	const char *name, *proto; /* the host or service name; the protocol */
	const void *addr;	  /* gethostbyaddr */
	socklen_t alen;
	int af, port;
	/* _r forms: the program's */
	void *ret;
	char *buf;
	size_t buflen;
	void **result;
	int *herrp;
};

/* What a lookup returned. */
struct rr_nres {
	int ret;   /* the _r forms' return value; the others 0 or -1 */
	void *ent; /* struct hostent or servent, NULL when none */
	int herr;  /* h_errno (hosts) */
	int err;
};

static struct hostent *(*real_gethostbyname)(const char *);
static struct hostent *(*real_gethostbyname2)(const char *, int);
static struct hostent *(*real_gethostbyaddr)(const void *, socklen_t, int);
static int (*real_gethostbyname_r)(const char *, struct hostent *, char *, size_t,
				   struct hostent **, int *);
static int (*real_gethostbyname2_r)(const char *, int, struct hostent *, char *, size_t,
				    struct hostent **, int *);
static int (*real_gethostbyaddr_r)(const void *, socklen_t, int, struct hostent *, char *,
				   size_t, struct hostent **, int *);
static struct servent *(*real_getservbyname)(const char *, const char *);
static struct servent *(*real_getservbyport)(int, const char *);
static int (*real_getservbyname_r)(const char *, const char *, struct servent *, char *, size_t,
				   struct servent **);
static int (*real_getservbyport_r)(int, const char *, struct servent *, char *, size_t,
				   struct servent **);
static struct hostent *(*real_gethostent)(void);
static int (*real_gethostent_r)(struct hostent *, char *, size_t, struct hostent **, int *);
static struct servent *(*real_getservent)(void);
static int (*real_getservent_r)(struct servent *, char *, size_t, struct servent **);

static int rr_is_host(unsigned kind)
{
	return kind <= RR_HOST_BYADDR_R || kind == RR_HOST_ENT || kind == RR_HOST_ENT_R;
}

static int rr_is_r(unsigned kind)
{
	return (kind >= RR_HOST_BYNAME_R && kind <= RR_HOST_BYADDR_R) ||
	       (kind >= RR_SERV_BYNAME_R && kind <= RR_SERV_BYPORT_R) || kind == RR_HOST_ENT_R ||
	       kind == RR_SERV_ENT_R;
}

/* The real call. */
static struct rr_nres rr_netdb_real(const struct rr_nq *q)
{
	struct rr_nres o = {0, NULL, 0, 0};
	struct hostent *hr = NULL;
	struct servent *sr = NULL;

	switch (q->kind) {
	case RR_HOST_BYNAME:
		o.ent = AGENT_RESOLVE_LAZY(real_gethostbyname, "gethostbyname")(q->name);
		break;
	case RR_HOST_BYNAME2:
		o.ent = AGENT_RESOLVE_LAZY(real_gethostbyname2, "gethostbyname2")(q->name, q->af);
		break;
	case RR_HOST_BYADDR:
		o.ent = AGENT_RESOLVE_LAZY(real_gethostbyaddr, "gethostbyaddr")(q->addr, q->alen, q->af);
		break;
	case RR_HOST_BYNAME_R:
		o.ret = AGENT_RESOLVE_LAZY(real_gethostbyname_r, "gethostbyname_r")(
		    q->name, q->ret, q->buf, q->buflen, &hr, q->herrp);
		o.ent = hr;
		break;
	case RR_HOST_BYNAME2_R:
		o.ret = AGENT_RESOLVE_LAZY(real_gethostbyname2_r, "gethostbyname2_r")(
		    q->name, q->af, q->ret, q->buf, q->buflen, &hr, q->herrp);
		o.ent = hr;
		break;
	case RR_HOST_BYADDR_R:
		o.ret = AGENT_RESOLVE_LAZY(real_gethostbyaddr_r, "gethostbyaddr_r")(
		    q->addr, q->alen, q->af, q->ret, q->buf, q->buflen, &hr, q->herrp);
		o.ent = hr;
		break;
	case RR_SERV_BYNAME:
		o.ent = AGENT_RESOLVE_LAZY(real_getservbyname, "getservbyname")(q->name, q->proto);
		break;
	case RR_SERV_BYPORT:
		o.ent = AGENT_RESOLVE_LAZY(real_getservbyport, "getservbyport")(q->port, q->proto);
		break;
	case RR_SERV_BYNAME_R:
		o.ret = AGENT_RESOLVE_LAZY(real_getservbyname_r, "getservbyname_r")(
		    q->name, q->proto, q->ret, q->buf, q->buflen, &sr);
		o.ent = sr;
		break;
	case RR_SERV_BYPORT_R:
		o.ret = AGENT_RESOLVE_LAZY(real_getservbyport_r, "getservbyport_r")(
		    q->port, q->proto, q->ret, q->buf, q->buflen, &sr);
		o.ent = sr;
		break;
	case RR_HOST_ENT:
		o.ent = AGENT_RESOLVE_LAZY(real_gethostent, "gethostent")();
		break;
	case RR_HOST_ENT_R:
		o.ret = AGENT_RESOLVE_LAZY(real_gethostent_r, "gethostent_r")(q->ret, q->buf, q->buflen, &hr,
								   q->herrp);
		o.ent = hr;
		break;
	case RR_SERV_ENT:
		o.ent = AGENT_RESOLVE_LAZY(real_getservent, "getservent")();
		break;
	case RR_SERV_ENT_R:
		o.ret = AGENT_RESOLVE_LAZY(real_getservent_r, "getservent_r")(q->ret, q->buf, q->buflen, &sr);
		o.ent = sr;
		break;
	}
	o.err = errno;
	if (!rr_is_r(q->kind))
		o.ret = o.ent ? 0 : -1;
	if (rr_is_host(q->kind))
		o.herr = q->herrp ? *q->herrp : h_errno;
	return o;
}

/* ---- packing (record) ---- */

/* Append the strings of a NULL-ended list; cut the list (in the program's
 * view too) where the room or RR_NETDB_ALIASES ends. */
static size_t rr_pack_list(char **list, unsigned char *buf, size_t room, uint32_t *count)
{
	size_t off = 0;
	uint32_t i;

	*count = 0;
	for (i = 0; list && list[i]; i++) {
		size_t n = strnlen(list[i], 1024) + 1;

		if (i >= RR_NETDB_ALIASES || n > 1024 || n > room - off) {
			list[i] = NULL;
			break;
		}
		memcpy(buf + off, list[i], n);
		buf[off + n - 1] = 0;
		off += n;
	}
	*count = i;
	return off;
}

static size_t rr_pack_str(const char *s, unsigned char *buf, size_t room)
{
	size_t n = s ? strnlen(s, 1024) + 1 : 0;

	if (n > room)
		n = 0; /* never in practice: room is nearly RR_NETDB_MAX */
	if (n) {
		memcpy(buf, s, n);
		buf[n - 1] = 0;
	}
	return n;
}

static size_t rr_pack_host(struct hostent *h, unsigned char *buf)
{
	struct rr_host_hdr hd = {h->h_addrtype, h->h_length, 0, 0, 0, 0};
	size_t off = sizeof(hd), room = RR_NETDB_MAX - 1024 - sizeof(hd);
	uint32_t i;

	hd.namelen = (uint32_t)rr_pack_str(h->h_name, buf + off, 1024);
	off += hd.namelen;
	hd.alen = (uint32_t)rr_pack_list(h->h_aliases, buf + off, room / 2, &hd.nalias);
	off += hd.alen;
	if (hd.length < 0 || hd.length > 16)
		hd.length = 0;
	for (i = 0; h->h_addr_list && h->h_addr_list[i]; i++) {
		if (i >= RR_NETDB_ALIASES || (size_t)hd.length > RR_NETDB_MAX - off) {
			h->h_addr_list[i] = NULL;
			break;
		}
		memcpy(buf + off, h->h_addr_list[i], (size_t)hd.length);
		off += (size_t)hd.length;
	}
	hd.naddr = i;
	memcpy(buf, &hd, sizeof(hd));
	return off;
}

static size_t rr_pack_serv(struct servent *s, unsigned char *buf)
{
	struct rr_serv_hdr hd = {s->s_port, 0, 0, 0, 0, 0};
	size_t off = sizeof(hd);

	hd.namelen = (uint32_t)rr_pack_str(s->s_name, buf + off, 1024);
	off += hd.namelen;
	hd.protolen = (uint32_t)rr_pack_str(s->s_proto, buf + off, 1024);
	off += hd.protolen;
	hd.alen = (uint32_t)rr_pack_list(s->s_aliases, buf + off, RR_NETDB_MAX - off, &hd.nalias);
	off += hd.alen;
	memcpy(buf, &hd, sizeof(hd));
	return off;
}

static size_t rr_pack(unsigned kind, void *ent, unsigned char *buf)
{
	if (!ent)
		return 0;
	return rr_is_host(kind) ? rr_pack_host(ent, buf) : rr_pack_serv(ent, buf);
}

/* ---- unpacking (replay; the bytes are untrusted) ---- */

/* n strings, NUL-ended, exactly filling len bytes at p? */
static int rr_strings_ok(const unsigned char *p, size_t len, uint32_t n)
{
	uint32_t seen = 0;

	if (len && p[len - 1])
		return 0;
	for (size_t i = 0; i < len; i++)
		seen += !p[i];
	return seen == n && n <= RR_NETDB_ALIASES;
}

/* Carve n bytes aligned to a from the buffer [*off, cap). */
static void *rr_carve(char *buf, size_t cap, size_t *off, size_t n, size_t a)
{
	size_t o = (*off + a - 1) & ~(a - 1);

	if (o > cap || n > cap - o)
		return NULL;
	*off = o + n;
	return buf + o;
}

/* Point list[0..n) at the n strings at src, copied into the buffer. */
static int rr_fill_list(char **list, uint32_t n, const unsigned char *src, size_t len, char *buf,
			size_t cap, size_t *off)
{
	char *d = rr_carve(buf, cap, off, len, 1);

	if (!d)
		return -1;
	memcpy(d, src, len);
	for (uint32_t i = 0; i < n; i++) {
		list[i] = d;
		d += strlen(d) + 1;
	}
	list[n] = NULL;
	return 0;
}

/* 0, -ERANGE when buf is too small, -EINVAL when the bytes are damaged. */
static int rr_unpack_host(const unsigned char *p, size_t len, struct hostent *h, char *buf,
			  size_t cap)
{
	struct rr_host_hdr hd;
	size_t off = 0, alen;
	char **aliases, **addrs, *name;

	if (len < sizeof(hd))
		return -EINVAL;
	memcpy(&hd, p, sizeof(hd));
	if (hd.length < 0 || hd.length > 16 || hd.naddr > RR_NETDB_ALIASES ||
	    hd.namelen > RR_NETDB_MAX || hd.alen > RR_NETDB_MAX)
		return -EINVAL;
	alen = (size_t)hd.naddr * (size_t)hd.length;
	if (sizeof(hd) + hd.namelen + hd.alen + alen != len ||
	    !rr_strings_ok(p + sizeof(hd), hd.namelen, hd.namelen ? 1 : 0) ||
	    !rr_strings_ok(p + sizeof(hd) + hd.namelen, hd.alen, hd.nalias))
		return -EINVAL;
	p += sizeof(hd);
	aliases = rr_carve(buf, cap, &off, (hd.nalias + 1) * sizeof(char *), sizeof(char *));
	addrs = rr_carve(buf, cap, &off, (hd.naddr + 1) * sizeof(char *), sizeof(char *));
	if (!aliases || !addrs)
		return -ERANGE;
	for (uint32_t i = 0; i < hd.naddr; i++) {
		char *a = rr_carve(buf, cap, &off, (size_t)hd.length, sizeof(uint32_t));

		if (!a)
			return -ERANGE;
		memcpy(a, p + hd.namelen + hd.alen + i * (size_t)hd.length, (size_t)hd.length);
		addrs[i] = a;
	}
	addrs[hd.naddr] = NULL;
	name = rr_carve(buf, cap, &off, hd.namelen ? hd.namelen : 1, 1);
	if (!name || rr_fill_list(aliases, hd.nalias, p + hd.namelen, hd.alen, buf, cap, &off))
		return -ERANGE;
	memcpy(name, p, hd.namelen);
	name[hd.namelen ? hd.namelen - 1 : 0] = 0;
	h->h_name = hd.namelen ? name : NULL;
	h->h_aliases = aliases;
	h->h_addrtype = hd.addrtype;
	h->h_length = hd.length;
	h->h_addr_list = addrs;
	return 0;
}

static int rr_unpack_serv(const unsigned char *p, size_t len, struct servent *s, char *buf,
			  size_t cap)
{
	struct rr_serv_hdr hd;
	size_t off = 0;
	char **aliases, *name, *proto;

	if (len < sizeof(hd))
		return -EINVAL;
	memcpy(&hd, p, sizeof(hd));
	if (hd.namelen > RR_NETDB_MAX || hd.protolen > RR_NETDB_MAX || hd.alen > RR_NETDB_MAX ||
	    sizeof(hd) + hd.namelen + hd.protolen + hd.alen != len ||
	    !rr_strings_ok(p + sizeof(hd), hd.namelen, hd.namelen ? 1 : 0) ||
	    !rr_strings_ok(p + sizeof(hd) + hd.namelen, hd.protolen, hd.protolen ? 1 : 0) ||
	    !rr_strings_ok(p + sizeof(hd) + hd.namelen + hd.protolen, hd.alen, hd.nalias))
		return -EINVAL;
	p += sizeof(hd);
	aliases = rr_carve(buf, cap, &off, (hd.nalias + 1) * sizeof(char *), sizeof(char *));
	name = rr_carve(buf, cap, &off, hd.namelen ? hd.namelen : 1, 1);
	proto = rr_carve(buf, cap, &off, hd.protolen ? hd.protolen : 1, 1);
	if (!aliases || !name || !proto ||
	    rr_fill_list(aliases, hd.nalias, p + hd.namelen + hd.protolen, hd.alen, buf, cap, &off))
		return -ERANGE;
	memcpy(name, p, hd.namelen);
	name[hd.namelen ? hd.namelen - 1 : 0] = 0;
	memcpy(proto, p + hd.namelen, hd.protolen);
	proto[hd.protolen ? hd.protolen - 1 : 0] = 0;
	s->s_name = hd.namelen ? name : NULL;
	s->s_proto = hd.protolen ? proto : NULL;
	s->s_aliases = aliases;
	s->s_port = hd.port;
	return 0;
}

/* ---- the agent's static buffers (the functions without _r) ---- */

/* A thread's: one struct per function (gethostbyname, gethostbyname2,
 * gethostbyaddr, gethostent; getservbyname, getservbyport, getservent:
 * rr_slot_of) and the bytes its pointers point into. Found through one TLS pointer; at the
 * thread's end they go on rr_free_slots for the next thread (raw mmap: no
 * malloc in the agent's own bookkeeping). */
#define RR_SLOTS 7
#define RR_SLOT_BYTES (RR_NETDB_MAX * 4)
struct rr_netdb_slots {
	struct rr_netdb_slots *next;
	struct hostent host[4];
	struct servent serv[3];
	char *mem[RR_SLOTS];
};

/* The slot of a function without _r: hosts 0-3, services 4-6. */
static int rr_slot_of(unsigned kind)
{
	switch (kind) {
	case RR_HOST_BYNAME:
		return 0;
	case RR_HOST_BYNAME2:
		return 1;
	case RR_HOST_BYADDR:
		return 2;
	case RR_HOST_ENT:
		return 3;
	case RR_SERV_BYNAME:
		return 4;
	case RR_SERV_BYPORT:
		return 5;
	default:
		return 6;
	}
}
_Static_assert(sizeof(struct rr_netdb_slots) <= 4096, "the header fits its page");
static __thread struct rr_netdb_slots *rr_slots;
static struct rr_netdb_slots *rr_free_slots;
static int rr_free_lock;

/* 1 when taken. Bounded: a fork child inherits the word as the parent's
 * other threads left it, and one held then is never released there; the
 * callers then go without the list (a new mapping, or a buffer kept). */
static int rr_lock(void)
{
	for (int i = 0; i < 1000; i++) {
		if (!__atomic_exchange_n(&rr_free_lock, 1, __ATOMIC_ACQUIRE))
			return 1;
		syscall(SYS_sched_yield);
	}
	return 0;
}

static void rr_unlock(void) { __atomic_store_n(&rr_free_lock, 0, __ATOMIC_RELEASE); }

static struct rr_netdb_slots *rr_my_slots(void)
{
	struct rr_netdb_slots *s = rr_slots;
	void *m;

	if (s)
		return s;
	if (rr_lock()) {
		s = rr_free_slots;
		if (s)
			rr_free_slots = s->next;
		rr_unlock();
	}
	if (!s) {
		m = (void *)syscall(SYS_mmap, NULL, 4096 + (size_t)RR_SLOTS * RR_SLOT_BYTES,
				    PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			return NULL;
		s = m;
		for (int i = 0; i < RR_SLOTS; i++)
			s->mem[i] = (char *)m + 4096 + (size_t)i * RR_SLOT_BYTES;
	}
	s->next = NULL;
	rr_slots = s;
	return s;
}

void agent_rr_netdb_thread_end(void)
{
	struct rr_netdb_slots *s = rr_slots;

	if (!s)
		return;
	rr_slots = NULL;
	if (!rr_lock())
		return; /* kept: still valid for whoever holds its pointers */
	s->next = rr_free_slots;
	rr_free_slots = s;
	rr_unlock();
}

/* ---- record and replay ---- */

/* Record: could the lookup be made without the network? */
static int rr_nss_files_only(const char *db);

/* The text /etc/hosts would give addr in (IPv4 dotted, and the IPv6
 * loopback; another IPv6 address is never taken for a local one, which
 * costs only the allocator's view below). 0 when none. */
static int rr_addr_text(int af, const unsigned char *a, char *out)
{
	static const unsigned char v6lo[16] = {[15] = 1};
	char *p = out;

	if (af == AF_INET6) {
		if (memcmp(a, v6lo, 16))
			return 0;
		memcpy(out, "::1", 4);
		return 1;
	}
	for (int i = 0; i < 4; i++) {
		unsigned v = a[i];

		if (v >= 100)
			*p++ = (char)('0' + v / 100);
		if (v >= 10)
			*p++ = (char)('0' + v / 10 % 10);
		*p++ = (char)('0' + v % 10);
		*p++ = i < 3 ? '.' : 0;
	}
	return 1;
}

static int rr_netdb_local(const struct rr_nq *q)
{
	char text[16];

	switch (q->kind) {
	case RR_HOST_BYNAME:
	case RR_HOST_BYNAME2:
	case RR_HOST_BYNAME_R:
	case RR_HOST_BYNAME2_R:
		return q->name && agent_rr_netdb_local(q->name, 0);
	case RR_HOST_BYADDR:
	case RR_HOST_BYADDR_R:
		if (!q->addr || (q->af != AF_INET && q->af != AF_INET6) ||
		    q->alen != (q->af == AF_INET ? 4u : 16u) || !rr_addr_text(q->af, q->addr, text))
			return 0;
		return agent_rr_in_hosts(text, 1);
	case RR_HOST_ENT:
	case RR_HOST_ENT_R:
		return rr_nss_files_only("hosts");
	default:
		return rr_nss_files_only("services");
	}
}

/* Does /etc/nsswitch.conf name only files (or db) for database db? Raw
 * system calls, as every read of the agent's own. */
static int rr_nss_files_only(const char *db)
{
	char buf[RR_NSS_MAX + 1];
	size_t dl = strlen(db), i = 0, n;
	long got;
	int fd;

	fd = (int)syscall(SYS_openat, AT_FDCWD, "/etc/nsswitch.conf", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 1; /* glibc's default for services: files */
	got = syscall(SYS_read, fd, buf, RR_NSS_MAX);
	syscall(SYS_close, fd);
	n = got > 0 ? (size_t)got : 0;
	buf[n] = 0;
	while (i < n) { /* line by line: "db: source [action] source ..." */
		size_t end = i, w;

		while (end < n && buf[end] != '\n')
			end++;
		if (end - i > dl && !memcmp(buf + i, db, dl) && buf[i + dl] == ':') {
			for (w = i + dl + 1; w < end;) {
				size_t k = 0;

				while (w < end && (buf[w] == ' ' || buf[w] == '\t'))
					w++;
				while (w + k < end && buf[w + k] != ' ' && buf[w + k] != '\t')
					k++;
				if (k && buf[w] != '#' && !(k == 5 && !memcmp(buf + w, "files", 5)) &&
				    !(k == 2 && !memcmp(buf + w, "db", 2)))
					return 0; /* dns, nis, sss, an action: maybe the network */
				if (k && buf[w] == '#')
					break;
				w += k;
			}
			return 1;
		}
		i = end + 1;
	}
	return 1;
}

/* Replay: make what the program gets of the recorded bytes. */
static struct rr_nres rr_netdb_build(const struct rr_nq *q, const unsigned char *p, size_t len,
				     struct rr_nres o)
{
	struct rr_netdb_slots *sl;
	void *ent;
	char *buf;
	size_t cap;
	int r, slot;

	if (o.ret != 0 || !len) {
		o.ent = NULL;
		return o;
	}
	if (rr_is_r(q->kind)) {
		ent = q->ret;
		buf = q->buf;
		cap = q->buflen;
	} else {
		sl = rr_my_slots();
		if (!sl) {
			o.ret = -1;
			o.ent = NULL;
			o.herr = NETDB_INTERNAL;
			o.err = ENOMEM;
			return o;
		}
		slot = rr_slot_of(q->kind);
		ent = slot < 4 ? (void *)&sl->host[slot] : (void *)&sl->serv[slot - 4];
		buf = sl->mem[slot];
		cap = RR_SLOT_BYTES;
	}
	r = rr_is_host(q->kind) ? rr_unpack_host(p, len, ent, buf, cap)
				: rr_unpack_serv(p, len, ent, buf, cap);
	if (r == 0) {
		o.ent = ent;
		return o;
	}
	if (r == -EINVAL)
		agent_rr_stop("replay stopped: a damaged name lookup record (its lengths do not add up)",
			      0);
	/* The program's buffer is smaller than this layout needs. */
	o.ent = NULL;
	o.ret = rr_is_r(q->kind) ? ERANGE : -1;
	o.herr = NETDB_INTERNAL;
	o.err = ERANGE;
	return o;
}

static struct rr_nres rr_netdb_replay(struct agent_thread *t, const struct rr_nq *q)
{
	unsigned char buf[RR_NETDB_MAX], now[RR_NETDB_MAX];
	struct agent_rr_seg s = {buf, sizeof(buf)};
	unsigned call = rr_is_host(q->kind) ? RR_CALL_HOSTENT : RR_CALL_SERVENT;
	struct rr_nres o, mine;
	uint64_t arg = 0;
	size_t len;
	int on;

	o.ret = (int)agent_rr_rep_input(t, call, -1, &s, 1, &arg);
	o.err = errno;
	o.herr = (int)((arg >> 16) & 0xff) - 1;
	o.ent = NULL;
	agent_rr_rep_kind(arg & 0xff, q->kind, rr_netdb_kinds, RR_NETDB_KINDS);
	len = (size_t)(arg >> 32) < sizeof(buf) ? (size_t)(arg >> 32) : sizeof(buf);
	/* (its files' descriptors: in the recorded order, agent_rr.c) */
	on = agent_rr_lookup_fd_begin();
	if (arg & RR_NETDB_LOCAL) {
		t->busy++;
		mine = rr_netdb_real(q);
		t->busy--;
		if (mine.ret == o.ret && (!mine.ent) == (len == 0) && mine.herr == o.herr &&
		    rr_pack(q->kind, mine.ent, now) == len && !memcmp(now, buf, len)) {
			agent_rr_lookup_fd_end(on);
			mine.err = o.err;
			return mine;
		}
	}
	agent_rr_lookup_fd_end(on);
	return rr_netdb_build(q, buf, len, o);
}

static struct rr_nres rr_netdb_do(struct agent_thread *t, const struct rr_nq *q)
{
	unsigned char buf[RR_NETDB_MAX];
	struct agent_rr_seg s = {buf, 0};
	struct rr_nres o;
	uint64_t arg;
	int on;

	if (agent_rr_mode & RR_MODE_REPLAY)
		return rr_netdb_replay(t, q);
	on = agent_rr_lookup_fd_begin();
	agent_rr_resolve_begin(t);
	o = rr_netdb_real(q);
	agent_rr_resolve_end(t);
	s.n = rr_pack(q->kind, o.ent, buf);
	arg = q->kind | (rr_netdb_local(q) ? RR_NETDB_LOCAL : 0) |
	      (uint64_t)((uint8_t)(o.herr + 1)) << 16 | (uint64_t)s.n << 32;
	agent_rr_rec_input(t, rr_is_host(q->kind) ? RR_CALL_HOSTENT : RR_CALL_SERVENT, -1, o.ret,
			   o.err, arg, &s, 1);
	agent_rr_lookup_fd_end(on);
	return o;
}

/* The program's view of the outcome: h_errno, errno, *result. */
static void *rr_netdb_out(const struct rr_nq *q, struct rr_nres o)
{
	if (rr_is_host(q->kind)) {
		if (q->herrp)
			*q->herrp = o.herr;
		else
			h_errno = o.herr;
	}
	if (q->result)
		*q->result = o.ent;
	errno = o.err;
	return o.ent;
}

static void *rr_netdb(const struct rr_nq *q, int *ret)
{
	struct agent_thread *t;
	struct rr_nres o;

	if (AGENT_LIKELY(!agent_rr_mode) || !(t = agent_rr_io_enter()))
		o = rr_netdb_real(q);
	else
		o = rr_netdb_do(t, q);
	if (ret)
		*ret = o.ret;
	return rr_netdb_out(q, o);
}

AGENT_EXPORT struct hostent *gethostbyname(const char *name)
{
	struct rr_nq q = {.kind = RR_HOST_BYNAME, .name = name};

	return rr_netdb(&q, NULL);
}

AGENT_EXPORT struct hostent *gethostbyname2(const char *name, int af)
{
	struct rr_nq q = {.kind = RR_HOST_BYNAME2, .name = name, .af = af};

	return rr_netdb(&q, NULL);
}

AGENT_EXPORT struct hostent *gethostbyaddr(const void *addr, socklen_t len, int af)
{
	struct rr_nq q = {.kind = RR_HOST_BYADDR, .addr = addr, .alen = len, .af = af};

	return rr_netdb(&q, NULL);
}

AGENT_EXPORT int gethostbyname_r(const char *name, struct hostent *ret, char *buf, size_t buflen,
				 struct hostent **result, int *h_errnop)
{
	struct rr_nq q = {.kind = RR_HOST_BYNAME_R, .name = name, .ret = ret, .buf = buf,
			  .buflen = buflen, .result = (void **)result, .herrp = h_errnop};
	int r;

	rr_netdb(&q, &r);
	return r;
}

AGENT_EXPORT int gethostbyname2_r(const char *name, int af, struct hostent *ret, char *buf,
				  size_t buflen, struct hostent **result, int *h_errnop)
{
	struct rr_nq q = {.kind = RR_HOST_BYNAME2_R, .name = name, .af = af, .ret = ret,
			  .buf = buf, .buflen = buflen, .result = (void **)result,
			  .herrp = h_errnop};
	int r;

	rr_netdb(&q, &r);
	return r;
}

AGENT_EXPORT int gethostbyaddr_r(const void *addr, socklen_t len, int af, struct hostent *ret,
				 char *buf, size_t buflen, struct hostent **result, int *h_errnop)
{
	struct rr_nq q = {.kind = RR_HOST_BYADDR_R, .addr = addr, .alen = len, .af = af,
			  .ret = ret, .buf = buf, .buflen = buflen, .result = (void **)result,
			  .herrp = h_errnop};
	int r;

	rr_netdb(&q, &r);
	return r;
}

AGENT_EXPORT struct servent *getservbyname(const char *name, const char *proto)
{
	struct rr_nq q = {.kind = RR_SERV_BYNAME, .name = name, .proto = proto};

	return rr_netdb(&q, NULL);
}

AGENT_EXPORT struct servent *getservbyport(int port, const char *proto)
{
	struct rr_nq q = {.kind = RR_SERV_BYPORT, .port = port, .proto = proto};

	return rr_netdb(&q, NULL);
}

AGENT_EXPORT int getservbyname_r(const char *name, const char *proto, struct servent *ret,
				 char *buf, size_t buflen, struct servent **result)
{
	struct rr_nq q = {.kind = RR_SERV_BYNAME_R, .name = name, .proto = proto, .ret = ret,
			  .buf = buf, .buflen = buflen, .result = (void **)result};
	int r;

	rr_netdb(&q, &r);
	return r;
}

AGENT_EXPORT int getservbyport_r(int port, const char *proto, struct servent *ret, char *buf,
				 size_t buflen, struct servent **result)
{
	struct rr_nq q = {.kind = RR_SERV_BYPORT_R, .port = port, .proto = proto, .ret = ret,
			  .buf = buf, .buflen = buflen, .result = (void **)result};
	int r;

	rr_netdb(&q, &r);
	return r;
}

/* The enumerations: each call returns the next entry of glibc's cursor
 * (setXXXent and endXXXent pass through: they only move it). A replay
 * gives the recorded entries; one that makes the real call too (a database
 * of files only) moves glibc's cursor as the recording did. */
AGENT_EXPORT struct hostent *gethostent(void)
{
	struct rr_nq q = {.kind = RR_HOST_ENT};

	return rr_netdb(&q, NULL);
}

AGENT_EXPORT int gethostent_r(struct hostent *ret, char *buf, size_t buflen,
			      struct hostent **result, int *h_errnop)
{
	struct rr_nq q = {.kind = RR_HOST_ENT_R, .ret = ret, .buf = buf, .buflen = buflen,
			  .result = (void **)result, .herrp = h_errnop};
	int r;

	rr_netdb(&q, &r);
	return r;
}

AGENT_EXPORT struct servent *getservent(void)
{
	struct rr_nq q = {.kind = RR_SERV_ENT};

	return rr_netdb(&q, NULL);
}

AGENT_EXPORT int getservent_r(struct servent *ret, char *buf, size_t buflen,
			      struct servent **result)
{
	struct rr_nq q = {.kind = RR_SERV_ENT_R, .ret = ret, .buf = buf, .buflen = buflen,
			  .result = (void **)result};
	int r;

	rr_netdb(&q, &r);
	return r;
}
