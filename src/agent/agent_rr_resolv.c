// SPDX-License-Identifier: MIT
/*
 * agent_rr_resolv.c - record and replay of the DNS resolver's calls:
 * res_query, res_search, res_querydomain, res_send, res_mkquery and their
 * res_n* forms (doc/record.md, "Sockets").
 *
 * Each asks DNS through glibc's own sockets, which no interposer sees (or
 * builds a query whose id comes from glibc's random bits). So each is
 * recorded whole, as getaddrinfo is: the real call runs with the thread
 * busy and, in serial mode, without the run token; the record keeps the
 * return value, errno, h_errno and the bytes written to the program's
 * buffer (the answer, at most its length; res_mkquery: the query). A
 * replay makes no query: it copies the recorded bytes back and sets
 * h_errno (and the res_state's res_h_errno for the res_n* forms).
 *
 * glibc 2.34 moved these into libc as res_query@@GLIBC_2.34; programs
 * built before that call __res_query@GLIBC_2.2.5 (libresolv's name): both
 * names are interposed here.
 */
#include <dlfcn.h>
#include <errno.h>
#include <netdb.h>
#include <resolv.h>
#include <string.h>

#include "agent.h"
#include "agent_rr.h"

/* resolv.h renames some of these to their __res_ names: use the plain ones. */
#undef res_query
#undef res_search
#undef res_querydomain
#undef res_send
#undef res_mkquery
#undef res_nquery
#undef res_nsearch
#undef res_nquerydomain
#undef res_nsend
#undef res_nmkquery

#define RR_RES_MAX 65536 /* a DNS message's largest size */

enum {
	RR_RES_QUERY = 1,
	RR_RES_SEARCH,
	RR_RES_QUERYDOMAIN,
	RR_RES_SEND,
	RR_RES_MKQUERY,
	RR_RES_NQUERY,
	RR_RES_NSEARCH,
	RR_RES_NQUERYDOMAIN,
	RR_RES_NSEND,
	RR_RES_NMKQUERY,
	RR_RES_KINDS
};
static const char *const rr_res_kinds[RR_RES_KINDS] = {
    [RR_RES_QUERY] = "res_query",	      [RR_RES_SEARCH] = "res_search",
    [RR_RES_QUERYDOMAIN] = "res_querydomain", [RR_RES_SEND] = "res_send",
    [RR_RES_MKQUERY] = "res_mkquery",	      [RR_RES_NQUERY] = "res_nquery",
    [RR_RES_NSEARCH] = "res_nsearch",	      [RR_RES_NQUERYDOMAIN] = "res_nquerydomain",
    [RR_RES_NSEND] = "res_nsend",	      [RR_RES_NMKQUERY] = "res_nmkquery",
};

/* One call, whichever it is. */
struct rr_rq {
	unsigned kind;
	res_state st; /* the res_n* forms' */
	const char *name, *domain;
	int class_, type, op;
	const unsigned char *msg, *data, *newrr;
	int msglen, datalen;
	unsigned char *out; /* the program's answer (or query) buffer */
	int outlen;
};

static int (*real_query)(const char *, int, int, unsigned char *, int);
static int (*real_search)(const char *, int, int, unsigned char *, int);
static int (*real_querydomain)(const char *, const char *, int, int, unsigned char *, int);
static int (*real_send)(const unsigned char *, int, unsigned char *, int);
static int (*real_mkquery)(int, const char *, int, int, const unsigned char *, int,
			   const unsigned char *, unsigned char *, int);
static int (*real_nquery)(res_state, const char *, int, int, unsigned char *, int);
static int (*real_nsearch)(res_state, const char *, int, int, unsigned char *, int);
static int (*real_nquerydomain)(res_state, const char *, const char *, int, int,
				unsigned char *, int);
static int (*real_nsend)(res_state, const unsigned char *, int, unsigned char *, int);
static int (*real_nmkquery)(res_state, int, const char *, int, int, const unsigned char *, int,
			    const unsigned char *, unsigned char *, int);

static int rr_res_real(const struct rr_rq *q)
{
	switch (q->kind) {
	case RR_RES_QUERY:
		return AGENT_RESOLVE_LAZY(real_query, "res_query")(q->name, q->class_, q->type, q->out,
							q->outlen);
	case RR_RES_SEARCH:
		return AGENT_RESOLVE_LAZY(real_search, "res_search")(q->name, q->class_, q->type, q->out,
							  q->outlen);
	case RR_RES_QUERYDOMAIN:
		return AGENT_RESOLVE_LAZY(real_querydomain, "res_querydomain")(q->name, q->domain, q->class_,
								    q->type, q->out, q->outlen);
	case RR_RES_SEND:
		return AGENT_RESOLVE_LAZY(real_send, "res_send")(q->msg, q->msglen, q->out, q->outlen);
	case RR_RES_MKQUERY:
		return AGENT_RESOLVE_LAZY(real_mkquery, "res_mkquery")(q->op, q->name, q->class_, q->type,
							    q->data, q->datalen, q->newrr, q->out,
							    q->outlen);
	case RR_RES_NQUERY:
		return AGENT_RESOLVE_LAZY(real_nquery, "res_nquery")(q->st, q->name, q->class_, q->type,
							  q->out, q->outlen);
	case RR_RES_NSEARCH:
		return AGENT_RESOLVE_LAZY(real_nsearch, "res_nsearch")(q->st, q->name, q->class_, q->type,
							    q->out, q->outlen);
	case RR_RES_NQUERYDOMAIN:
		return AGENT_RESOLVE_LAZY(real_nquerydomain, "res_nquerydomain")(
		    q->st, q->name, q->domain, q->class_, q->type, q->out, q->outlen);
	case RR_RES_NSEND:
		return AGENT_RESOLVE_LAZY(real_nsend, "res_nsend")(q->st, q->msg, q->msglen, q->out,
							q->outlen);
	case RR_RES_NMKQUERY:
		return AGENT_RESOLVE_LAZY(real_nmkquery, "res_nmkquery")(q->st, q->op, q->name, q->class_,
							      q->type, q->data, q->datalen,
							      q->newrr, q->out, q->outlen);
	}
	errno = ENOSYS;
	return -1;
}

/* The bytes of the program's buffer the call wrote: a query's length, an
 * answer's up to the buffer (res_query returns the whole answer's length,
 * which may be more than the buffer has). */
static size_t rr_res_bytes(const struct rr_rq *q, int r)
{
	size_t n = r > 0 ? (size_t)r : 0;

	if (!q->out || q->outlen <= 0)
		return 0;
	if (n > (size_t)q->outlen)
		n = (size_t)q->outlen;
	return n > RR_RES_MAX ? RR_RES_MAX : n;
}

static int rr_res(struct rr_rq *q)
{
	struct agent_thread *t;
	struct agent_rr_seg s = {q->out, 0};
	uint64_t arg = 0;
	int r, e, herr;

	if (AGENT_LIKELY(!agent_rr_mode) || !(t = agent_rr_io_enter()))
		return rr_res_real(q);
	if (agent_rr_mode & RR_MODE_REPLAY) {
		s.n = q->out && q->outlen > 0 ? (size_t)q->outlen : 0;
		r = (int)agent_rr_rep_input(t, RR_CALL_RESOLV, -1, &s, 1, &arg);
		e = errno;
		agent_rr_rep_kind(arg & 0xff, q->kind, rr_res_kinds, RR_RES_KINDS);
		herr = (int)((arg >> 16) & 0xff) - 1;
		if (q->st)
			q->st->res_h_errno = herr;
		h_errno = herr;
		errno = e;
		return r;
	}
	agent_rr_resolve_begin(t);
	r = rr_res_real(q);
	agent_rr_resolve_end(t);
	e = errno;
	herr = q->st ? q->st->res_h_errno : h_errno;
	s.n = rr_res_bytes(q, r);
	arg = q->kind | (uint64_t)(uint8_t)(herr + 1) << 16 | (uint64_t)s.n << 32;
	agent_rr_rec_input(t, RR_CALL_RESOLV, -1, r, e, arg, &s, 1);
	errno = e;
	return r;
}

AGENT_EXPORT int res_query(const char *name, int class_, int type, unsigned char *ans, int len)
{
	struct rr_rq q = {.kind = RR_RES_QUERY, .name = name, .class_ = class_, .type = type,
			  .out = ans, .outlen = len};

	return rr_res(&q);
}

AGENT_EXPORT int res_search(const char *name, int class_, int type, unsigned char *ans, int len)
{
	struct rr_rq q = {.kind = RR_RES_SEARCH, .name = name, .class_ = class_, .type = type,
			  .out = ans, .outlen = len};

	return rr_res(&q);
}

AGENT_EXPORT int res_querydomain(const char *name, const char *domain, int class_, int type,
				 unsigned char *ans, int len)
{
	struct rr_rq q = {.kind = RR_RES_QUERYDOMAIN, .name = name, .domain = domain,
			  .class_ = class_, .type = type, .out = ans, .outlen = len};

	return rr_res(&q);
}

AGENT_EXPORT int res_send(const unsigned char *msg, int msglen, unsigned char *ans, int len)
{
	struct rr_rq q = {.kind = RR_RES_SEND, .msg = msg, .msglen = msglen, .out = ans,
			  .outlen = len};

	return rr_res(&q);
}

AGENT_EXPORT int res_mkquery(int op, const char *name, int class_, int type,
			     const unsigned char *data, int datalen, const unsigned char *newrr,
			     unsigned char *buf, int buflen)
{
	struct rr_rq q = {.kind = RR_RES_MKQUERY, .op = op, .name = name, .class_ = class_,
			  .type = type, .data = data, .datalen = datalen, .newrr = newrr,
			  .out = buf, .outlen = buflen};

	return rr_res(&q);
}

AGENT_EXPORT int res_nquery(res_state st, const char *name, int class_, int type,
			    unsigned char *ans, int len)
{
	struct rr_rq q = {.kind = RR_RES_NQUERY, .st = st, .name = name, .class_ = class_,
			  .type = type, .out = ans, .outlen = len};

	return rr_res(&q);
}

AGENT_EXPORT int res_nsearch(res_state st, const char *name, int class_, int type,
			     unsigned char *ans, int len)
{
	struct rr_rq q = {.kind = RR_RES_NSEARCH, .st = st, .name = name, .class_ = class_,
			  .type = type, .out = ans, .outlen = len};

	return rr_res(&q);
}

AGENT_EXPORT int res_nquerydomain(res_state st, const char *name, const char *domain,
				  int class_, int type, unsigned char *ans, int len)
{
	struct rr_rq q = {.kind = RR_RES_NQUERYDOMAIN, .st = st, .name = name, .domain = domain,
			  .class_ = class_, .type = type, .out = ans, .outlen = len};

	return rr_res(&q);
}

AGENT_EXPORT int res_nsend(res_state st, const unsigned char *msg, int msglen, unsigned char *ans,
			   int len)
{
	struct rr_rq q = {.kind = RR_RES_NSEND, .st = st, .msg = msg, .msglen = msglen,
			  .out = ans, .outlen = len};

	return rr_res(&q);
}

AGENT_EXPORT int res_nmkquery(res_state st, int op, const char *name, int class_, int type,
			      const unsigned char *data, int datalen, const unsigned char *newrr,
			      unsigned char *buf, int buflen)
{
	struct rr_rq q = {.kind = RR_RES_NMKQUERY, .st = st, .op = op, .name = name,
			  .class_ = class_, .type = type, .data = data, .datalen = datalen,
			  .newrr = newrr, .out = buf, .outlen = buflen};

	return rr_res(&q);
}

/* The names programs linked before glibc 2.34 use (resolv.h declares them,
 * nothrow: they only call the plain ones). */
AGENT_EXPORT int __res_query(const char *n, int c, int t, unsigned char *a, int l)
{
	return res_query(n, c, t, a, l);
}

AGENT_EXPORT int __res_search(const char *n, int c, int t, unsigned char *a, int l)
{
	return res_search(n, c, t, a, l);
}

AGENT_EXPORT int __res_querydomain(const char *n, const char *d, int c, int t, unsigned char *a,
				   int l)
{
	return res_querydomain(n, d, c, t, a, l);
}

AGENT_EXPORT int __res_send(const unsigned char *m, int ml, unsigned char *a, int l)
{
	return res_send(m, ml, a, l);
}

AGENT_EXPORT int __res_mkquery(int op, const char *n, int c, int t, const unsigned char *d,
			       int dl, const unsigned char *nr, unsigned char *b, int bl)
{
	return res_mkquery(op, n, c, t, d, dl, nr, b, bl);
}

AGENT_EXPORT int __res_nquery(res_state st, const char *n, int c, int t, unsigned char *a, int l)
{
	return res_nquery(st, n, c, t, a, l);
}

AGENT_EXPORT int __res_nsearch(res_state st, const char *n, int c, int t, unsigned char *a, int l)
{
	return res_nsearch(st, n, c, t, a, l);
}

AGENT_EXPORT int __res_nquerydomain(res_state st, const char *n, const char *d, int c, int t,
				    unsigned char *a, int l)
{
	return res_nquerydomain(st, n, d, c, t, a, l);
}

AGENT_EXPORT int __res_nsend(res_state st, const unsigned char *m, int ml, unsigned char *a, int l)
{
	return res_nsend(st, m, ml, a, l);
}

AGENT_EXPORT int __res_nmkquery(res_state st, int op, const char *n, int c, int t,
				const unsigned char *d, int dl, const unsigned char *nr,
				unsigned char *b, int bl)
{
	return res_nmkquery(st, op, n, c, t, d, dl, nr, b, bl);
}
