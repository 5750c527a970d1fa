// SPDX-License-Identifier: MIT
/*
 * export_model.c - what a lock trace shows on a timeline, shared by the
 * Perfetto and Chrome exports: lock events paired into wait and hold slices
 * (see export.h for the pairs and the lanes that keep holds nested).
 *
 * Events arrive in timestamp order, so each slice is begun and ended in
 * order and the sinks can write as they go. Every invariant the viewers
 * need is kept here: a thread has at most one open wait (a new wait closes a
 * stale one, which only lost events can produce), and a lane holds at most
 * one open hold, so slices on any one track never partly overlap.
 * Function slices of probe traces are kept in export_funcs.c (on their own
 * per-thread track), lent threads and slice output by export_int.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/symbolize.h"
#include "export_int.h"
#include "lockname.h"
#include "tname.h"

/* uint64 -> pointer, open addressing; keys are stored +1 so 0 means empty. */
struct xmap {
	uint64_t *keys;
	void **vals;
	size_t cap, n;
};

static size_t xmap_hash(uint64_t key, size_t cap)
{
	return (size_t)((key * 0x9e3779b97f4a7c15ull) >> 17) & (cap - 1);
}

static void **xmap_find(struct xmap *m, uint64_t key)
{
	if (!m->cap)
		return NULL;
	for (size_t i = xmap_hash(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
		if (!m->keys[i])
			return NULL;
		if (m->keys[i] == key + 1)
			return &m->vals[i];
	}
}

static int xmap_put(struct xmap *m, uint64_t key, void *val)
{
	if ((m->n + 1) * 2 > m->cap) {
		struct xmap big = { .cap = m->cap ? m->cap * 2 : 64 };

		big.keys = calloc(big.cap, sizeof(*big.keys));
		big.vals = calloc(big.cap, sizeof(*big.vals));
		if (!big.keys || !big.vals) {
			free(big.keys);
			free(big.vals);
			return -ENOMEM;
		}
		for (size_t i = 0; i < m->cap; i++)
			if (m->keys[i])
				xmap_put(&big, m->keys[i] - 1, m->vals[i]);
		free(m->keys);
		free(m->vals);
		*m = big;
	}
	for (size_t i = xmap_hash(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
		if (!m->keys[i] || m->keys[i] == key + 1) {
			if (!m->keys[i])
				m->n++;
			m->keys[i] = key + 1;
			m->vals[i] = val;
			return 0;
		}
	}
}

static void xmap_free(struct xmap *m, int free_vals)
{
	for (size_t i = 0; free_vals && i < m->cap; i++)
		if (m->keys[i])
			free(m->vals[i]);
	free(m->keys);
	free(m->vals);
}

struct mthread {
	struct export_thread t;
	int announced, hinted;
	int waiting, wait_join;
	uint32_t wait_obj;
	struct export_slice wait;
	char wait_name[352];
	char wait_site[256];
};

struct mlock {
	struct export_lock l;
	int announced;
	unsigned nlanes;     /* lanes announced (lane 0 always exists) */
	unsigned char *busy; /* per lane: an open hold */
	unsigned busy_cap;
};

struct mhold {
	unsigned depth; /* recursive acquisitions by the same thread */
	struct export_slice s;
	char name[64];
	char site[256];
	/* what name and site were made from: a hold of the same lock by the
	 * same thread (most of them) reuses them instead of formatting them
	 * again (snprintf was a fifth of a lock export's time) */
	char name_of[17]; /* the thread's name then */
	uint64_t site_ip;
	int named;
};

struct export_model {
	const struct export_ops *ops;
	void *ctx;
	struct symbolizer *sym;
	const struct trace_reader *r;
	struct mthread **threads; /* by thread index */
	size_t nthreads;
	struct xmap procs;  /* pid -> struct export_proc */
	struct xmap locks;  /* obj -> struct mlock */
	struct xmap holds;  /* obj << 16 | thread -> struct mhold */
	struct xmap sites;  /* pid << 48 ^ ip -> char * (symbolized) */
	struct export_funcs *funcs; /* NULL: no probe table in the trace */
	uint64_t last_ns;
	struct export_stats st;
	struct tname_map tnames; /* whom a KIND_TNAME renames */
};

int export_model_new(struct export_model **out, const struct export_ops *ops, void *ctx,
		     struct symbolizer *sym, const struct trace_reader *r)
{
	struct export_model *m = calloc(1, sizeof(*m));

	if (!m)
		return -ENOMEM;
	m->ops = ops;
	m->ctx = ctx;
	m->sym = sym;
	m->r = r;
	/* Probe traces: function slices (export_funcs.c). */
	if (r) {
		int ret = export_funcs_new(&m->funcs, m, r);

		if (ret && ret != -ENOENT) {
			free(m);
			return ret;
		}
	}
	*out = m;
	return 0;
}

/* Symbolized call site, cached: the same few sites recur in every event. */
static const char *model_site(struct export_model *m, uint32_t pid, uint64_t ip)
{
	uint64_t key = ((uint64_t)pid << 48) ^ ip;
	void **v;
	char buf[256];
	char *copy;

	if (!ip)
		return "";
	v = xmap_find(&m->sites, key);
	if (v)
		return *v;
	if (m->sym)
		symbolizer_format(m->sym, pid, ip, buf, sizeof(buf));
	else
		snprintf(buf, sizeof(buf), "%#" PRIx64, ip);
	copy = strdup(buf);
	if (!copy || xmap_put(&m->sites, key, copy)) {
		free(copy);
		return "";
	}
	return copy;
}

static struct export_proc *model_proc(struct export_model *m, uint32_t pid, uint64_t ns, int *ret)
{
	void **v = xmap_find(&m->procs, pid);
	struct export_proc *p;
	char name[32], *cmd = NULL;
	size_t len;

	if (v)
		return *v;
	p = calloc(1, sizeof(*p));
	if (!p || xmap_put(&m->procs, pid, p)) {
		free(p);
		*ret = -ENOMEM;
		return NULL;
	}
	p->pid = pid;
	snprintf(p->name, sizeof(p->name), "pid %" PRIu32, pid);
	snprintf(name, sizeof(name), "proc/%" PRIu32 ".cmdline", pid);
	if (m->r && trace_reader_file(m->r, name, &cmd, &len) == 0 && cmd[0]) {
		const char *base = strrchr(cmd, '/');

		snprintf(p->name, sizeof(p->name), "%s", base ? base + 1 : cmd);
	}
	free(cmd);
	m->st.procs++;
	if (m->ops->process)
		*ret = m->ops->process(m->ctx, p, ns);
	return p;
}

static struct mthread *model_thread_slot(struct export_model *m, uint32_t idx)
{
	if (idx >= EV_MAX_THREADS)
		return NULL; /* a thread index is 16 bits, a stream id below it */
	if (idx >= m->nthreads) {
		size_t n = (size_t)idx + 16;
		struct mthread **nt = realloc(m->threads, n * sizeof(*nt));

		if (!nt)
			return NULL;
		memset(nt + m->nthreads, 0, (n - m->nthreads) * sizeof(*nt));
		m->threads = nt;
		m->nthreads = n;
	}
	if (!m->threads[idx]) {
		m->threads[idx] = calloc(1, sizeof(**m->threads));
		if (!m->threads[idx])
			return NULL;
		m->threads[idx]->t.idx = idx;
	}
	return m->threads[idx];
}

int export_model_thread_hint(struct export_model *m, uint32_t idx, uint32_t pid, uint32_t tid)
{
	struct mthread *t = model_thread_slot(m, idx);

	if (!t)
		return -ENOMEM;
	if (!t->announced && !t->hinted) {
		t->t.pid = pid;
		t->t.tid = tid;
		t->hinted = 1;
	}
	return 0;
}

static int model_announce_thread(struct export_model *m, struct mthread *t, uint64_t ns)
{
	struct export_proc *p;
	int ret = 0;

	if (t->announced)
		return 0;
	t->announced = 1;
	p = model_proc(m, t->t.pid, ns, &ret);
	if (!p || ret)
		return p ? ret : -ENOMEM;
	m->st.threads++;
	return m->ops->thread ? m->ops->thread(m->ctx, p, &t->t, ns) : 0;
}

/* A thread named after its start: its descriptor is given again with the
 * new name (a Perfetto track descriptor, a Chrome thread_name record: the
 * viewers keep the last). One not announced yet takes the name now. */
static int model_tname(struct export_model *m, const struct trace_event *ev)
{
	uint32_t pid, tid, th;
	struct mthread *t;
	char name[17];

	if (tname_event(ev, &pid, &tid, name) || tname_find(&m->tnames, pid, tid, &th))
		return 0;
	t = model_thread_slot(m, th);
	if (!t)
		return -ENOMEM;
	if (!strcmp(t->t.name, name))
		return 0;
	memcpy(t->t.name, name, sizeof(t->t.name));
	if (!t->announced || !m->ops->thread)
		return 0;
	{
		int ret = 0;
		struct export_proc *p = model_proc(m, t->t.pid, ev->ns, &ret);

		if (!p || ret)
			return p ? ret : -ENOMEM;
		return m->ops->thread(m->ctx, p, &t->t, ev->ns);
	}
}

int export_model_thread_ref(struct export_model *m, uint32_t idx, uint64_t ns,
			    const struct export_thread **out)
{
	struct mthread *t = model_thread_slot(m, idx);
	int ret;

	if (!t)
		return -ENOMEM;
	if ((ret = model_announce_thread(m, t, ns)))
		return ret;
	*out = &t->t;
	return 0;
}

int export_model_slice_begin(struct export_model *m, const struct export_slice *s)
{
	m->st.funcs += !!s->func;
	return m->ops->begin ? m->ops->begin(m->ctx, s) : 0;
}

int export_model_slice_end(struct export_model *m, const struct export_slice *s)
{
	m->st.unfinished += !!s->unfinished;
	return m->ops->end ? m->ops->end(m->ctx, s) : 0;
}

static struct mlock *model_lock(struct export_model *m, uint32_t obj)
{
	void **v = xmap_find(&m->locks, obj);
	struct mlock *l;

	if (v)
		return *v;
	l = calloc(1, sizeof(*l));
	if (!l || xmap_put(&m->locks, obj, l)) {
		free(l);
		return NULL;
	}
	l->l.obj = obj;
	{
		struct lockname_src unknown = {.index = obj};

		lockname_format(&unknown, NULL, l->l.name, sizeof(l->l.name));
	}
	return l;
}

static int model_announce_lock(struct export_model *m, struct mlock *l, uint32_t pid, uint64_t ns)
{
	struct export_proc *p;
	int ret = 0;

	if (l->announced)
		return 0;
	l->announced = 1;
	if (!l->l.type)
		l->l.pid = pid; /* no KIND_LOCKDEF: the user's process is the best guess */
	p = model_proc(m, l->l.pid, ns, &ret);
	if (!p || ret)
		return p ? ret : -ENOMEM;
	m->st.locks++;
	return m->ops->lock ? m->ops->lock(m->ctx, p, &l->l, ns) : 0;
}

static int model_lockdef(struct export_model *m, const struct rec_lockdef *d, uint64_t ns)
{
	struct mlock *l = model_lock(m, ev_obj(d->h.word));
	struct lockname_src src;
	char name[sizeof(l->l.name) - 16];
	const char *type;
	struct lockname_syms syms = {
	    .data = lockname_sym_data, .site = lockname_sym_site, .ctx = m->sym};

	if (!l)
		return -ENOMEM;
	if (l->announced)
		return 0; /* a repeat, or too late to rename a track */
	l->l.pid = d->pid;
	l->l.type = d->type;
	l->l.addr = d->addr;
	l->l.init_ip = d->init_ip;
	/* The name every command gives it (lockname.h): locks initialized in
	 * a loop share the site, their index tells them apart. A track has no
	 * type column: the type goes before the name ("futex stats_lock"), as
	 * spool path puts "lock:" (unless the name is already "futex#3"). */
	src = (struct lockname_src){.index = l->l.obj,
				    .pid = d->pid,
				    .type = d->type,
				    .defined = 1,
				    .addr = d->addr,
				    .init_ip = d->init_ip};
	lockname_format(&src, &syms, name, sizeof(name));
	type = lockname_type(d->type);
	if (!strncmp(name, type, strlen(type)) && name[strlen(type)] == '#')
		snprintf(l->l.name, sizeof(l->l.name), "%s", name);
	else
		snprintf(l->l.name, sizeof(l->l.name), "%s %s", type, name);
	return model_announce_lock(m, l, d->pid, ns);
}

static int model_wait_end(struct export_model *m, struct mthread *t, uint64_t ns, int unfinished)
{
	if (!t->waiting)
		return 0;
	t->waiting = 0;
	t->wait.end_ns = ns;
	t->wait.unfinished = unfinished;
	m->st.unfinished += !!unfinished;
	return m->ops->end ? m->ops->end(m->ctx, &t->wait) : 0;
}

static int model_wait_begin(struct export_model *m, struct mthread *t, struct mlock *l,
			    const char *name, int join, uint64_t ns, uint64_t ip)
{
	int ret = model_wait_end(m, t, ns, 0); /* lost events left one open */

	if (ret)
		return ret;
	t->waiting = 1;
	t->wait_join = join;
	t->wait_obj = l->l.obj;
	snprintf(t->wait_name, sizeof(t->wait_name), "%s", name);
	snprintf(t->wait_site, sizeof(t->wait_site), "%s", model_site(m, t->t.pid, ip));
	t->wait = (struct export_slice){
		.thread = &t->t,
		.lock = &l->l,
		.begin_ns = ns,
		.name = t->wait_name,
		.site = t->wait_site,
	};
	m->st.waits++;
	return m->ops->begin ? m->ops->begin(m->ctx, &t->wait) : 0;
}

static int model_hold_begin(struct export_model *m, struct mthread *t, struct mlock *l, uint64_t ns,
			    uint64_t ip)
{
	uint64_t key = ((uint64_t)l->l.obj << 16) | t->t.idx;
	void **v = xmap_find(&m->holds, key);
	struct mhold *h = v ? *v : NULL;
	unsigned lane;
	int ret;

	if (!h) {
		h = calloc(1, sizeof(*h));
		if (!h || xmap_put(&m->holds, key, h)) {
			free(h);
			return -ENOMEM;
		}
	}
	if (h->depth++)
		return 0;
	for (lane = 0; lane < l->busy_cap && l->busy[lane]; lane++)
		;
	if (lane >= l->busy_cap) {
		unsigned n = l->busy_cap ? l->busy_cap * 2 : 4;
		unsigned char *nb = realloc(l->busy, n);

		if (!nb)
			return -ENOMEM;
		memset(nb + l->busy_cap, 0, n - l->busy_cap);
		l->busy = nb;
		l->busy_cap = n;
	}
	l->busy[lane] = 1;
	if (lane >= l->nlanes) {
		l->nlanes = lane + 1;
		if (l->nlanes > m->st.max_lanes)
			m->st.max_lanes = l->nlanes;
		if (lane > 0 && m->ops->lane && (ret = m->ops->lane(m->ctx, &l->l, lane, ns)))
			return ret;
	}
	if (!h->named || strcmp(h->name_of, t->t.name)) {
		if (t->t.name[0])
			snprintf(h->name, sizeof(h->name), "hold by %" PRIu32 " (%s)", t->t.tid,
				 t->t.name);
		else
			snprintf(h->name, sizeof(h->name), "hold by %" PRIu32, t->t.tid);
		snprintf(h->name_of, sizeof(h->name_of), "%s", t->t.name);
	}
	if (!h->named || h->site_ip != ip)
		snprintf(h->site, sizeof(h->site), "%s", model_site(m, t->t.pid, ip));
	h->site_ip = ip;
	h->named = 1;
	h->s = (struct export_slice){
		.thread = &t->t,
		.lock = &l->l,
		.hold = 1,
		.lane = lane,
		.begin_ns = ns,
		.name = h->name,
		.site = h->site,
	};
	m->st.holds++;
	return m->ops->begin ? m->ops->begin(m->ctx, &h->s) : 0;
}

static int model_hold_close(struct export_model *m, struct mhold *h, uint64_t ns, int unfinished)
{
	struct mlock *l = (struct mlock *)h->s.lock; /* l is the first member of mlock */

	h->depth = 0;
	l->busy[h->s.lane] = 0;
	h->s.end_ns = ns;
	h->s.unfinished = unfinished;
	m->st.unfinished += !!unfinished;
	return m->ops->end ? m->ops->end(m->ctx, &h->s) : 0;
}

static int model_hold_end(struct export_model *m, struct mthread *t, struct mlock *l, uint64_t ns)
{
	void **v = xmap_find(&m->holds, ((uint64_t)l->l.obj << 16) | t->t.idx);
	struct mhold *h = v ? *v : NULL;

	/* A release without a seen acquisition: taken before tracing began,
	 * or its event was lost. Nothing to close. */
	if (!h || !h->depth)
		return 0;
	if (--h->depth)
		return 0;
	h->depth = 1;
	return model_hold_close(m, h, ns, 0);
}

static int model_instant(struct export_model *m, struct mthread *t, struct mlock *l,
			 const char *what, uint64_t ns)
{
	char name[352];

	snprintf(name, sizeof(name), "%s %s", what, l->l.name);
	m->st.instants++;
	return m->ops->instant ? m->ops->instant(m->ctx, &t->t, &l->l, name, ns) : 0;
}

static const char *model_join_name(struct export_model *m, struct mthread *t, uint64_t pthread,
				   char *buf, size_t len)
{
	for (size_t i = 0; i < m->nthreads; i++) {
		struct mthread *o = m->threads[i];

		if (o && o != t && o->t.pid == t->t.pid && o->t.pthread == pthread) {
			snprintf(buf, len, "join %" PRIu32, o->t.tid);
			return buf;
		}
	}
	snprintf(buf, len, "join %#" PRIx64, pthread);
	return buf;
}

static int model_lock_event(struct export_model *m, const struct rec_lock *e, uint32_t thread,
			    uint64_t ns)
{
	unsigned op = ev_op(e->h.word);
	struct mthread *t = model_thread_slot(m, thread);
	struct mlock *l = model_lock(m, ev_obj(e->h.word));
	char name[352];
	int ret;

	if (!t || !l)
		return -ENOMEM;
	if ((ret = model_announce_thread(m, t, ns)) || (ret = model_announce_lock(m, l, t->t.pid, ns)))
		return ret;
	switch (op) {
	case OP_CONTEND:
	case OP_CONTEND_RD:
	case OP_COND_WAIT:
	case OP_BARRIER_ENTER:
		snprintf(name, sizeof(name), "wait %s", l->l.name);
		return model_wait_begin(m, t, l, name, 0, ns, e->ip);
	case OP_THREAD_JOIN_BEGIN:
		return model_wait_begin(m, t, l, model_join_name(m, t, e->arg, name, sizeof(name)), 1,
					ns, e->ip);
	case OP_ACQUIRE:
	case OP_ACQUIRE_RD:
	case OP_ACQUIRE_TRY:
	case OP_ACQUIRE_TRY_RD:
		if (t->waiting && !t->wait_join && t->wait_obj == l->l.obj &&
		    (ret = model_wait_end(m, t, ns, 0)))
			return ret;
		/* Semaphores are not owned: a post can come from anyone. */
		if (l->l.type == LOCK_TYPE_SEM || l->l.type == LOCK_TYPE_COND ||
		    l->l.type == LOCK_TYPE_BARRIER || l->l.type == LOCK_TYPE_THREAD)
			return 0;
		return model_hold_begin(m, t, l, ns, e->ip);
	case OP_TIMEOUT:
	case OP_COND_WAKE:
	case OP_BARRIER_LEAVE:
		if (t->waiting && !t->wait_join && t->wait_obj == l->l.obj)
			return model_wait_end(m, t, ns, 0);
		return 0;
	case OP_THREAD_JOIN_END:
		if (t->waiting && t->wait_join)
			return model_wait_end(m, t, ns, 0);
		return 0;
	case OP_RELEASE:
		return model_hold_end(m, t, l, ns);
	case OP_THREAD_EXIT:
		return model_wait_end(m, t, ns, 0);
	case OP_TRY_FAIL:
	case OP_TRY_FAIL_RD:
		return model_instant(m, t, l, "trylock failed", ns);
	case OP_SEM_POST:
		return model_instant(m, t, l, "post", ns);
	case OP_COND_SIGNAL:
		return model_instant(m, t, l, l->l.type == LOCK_TYPE_FUTEX ? "wake" : "signal", ns);
	case OP_COND_BROADCAST:
		return model_instant(m, t, l, l->l.type == LOCK_TYPE_FUTEX ? "wake all" : "broadcast",
				     ns);
	default:
		return 0;
	}
}

int export_model_feed(struct export_model *m, const struct trace_event *ev)
{
	const struct rec_hdr *h = ev->rec;
	int ret = 0;

	m->st.events++;
	if (ev->ns > m->last_ns)
		m->last_ns = ev->ns;
	switch (ev_kind(h->word)) {
	case KIND_THREAD: {
		const struct rec_thread *rt = (const void *)h;
		struct mthread *t;

		if (h->size < sizeof(*rt))
			return 0;
		t = model_thread_slot(m, ev->thread); /* the word's names the ring */
		if (!t)
			return -ENOMEM;
		if (!t->announced) {
			t->t.pid = rt->pid;
			t->t.tid = rt->tid;
			t->t.pthread = rt->pthread;
			memcpy(t->t.name, rt->name, sizeof(rt->name));
			t->t.name[sizeof(rt->name)] = '\0';
		}
		if (tname_note(&m->tnames, rt->pid, rt->tid, ev->thread))
			return -ENOMEM;
		return model_announce_thread(m, t, ev->ns);
	}
	case KIND_TNAME:
		return model_tname(m, ev);
	case KIND_LOCKDEF:
		if (h->size < sizeof(struct rec_lockdef))
			return 0;
		return model_lockdef(m, (const void *)h, ev->ns);
	case KIND_PROC:
		if (h->size < sizeof(struct rec_proc))
			return 0;
		model_proc(m, ((const struct rec_proc *)(const void *)h)->pid, ev->ns, &ret);
		return ret;
	case KIND_LOCK:
		if (h->size < sizeof(struct rec_lock))
			return 0;
		return model_lock_event(m, (const void *)h, ev->thread, ev->ns);
	case KIND_PROBE:
		return m->funcs ? export_funcs_feed(m->funcs, ev) : 0;
	default:
		return 0;
	}
}

int export_model_finish(struct export_model *m)
{
	int ret;

	for (size_t i = 0; i < m->nthreads; i++)
		if (m->threads[i] && (ret = model_wait_end(m, m->threads[i], m->last_ns, 1)))
			return ret;
	for (size_t i = 0; i < m->holds.cap; i++) {
		struct mhold *h = m->holds.vals[i];

		if (m->holds.keys[i] && h->depth && (ret = model_hold_close(m, h, m->last_ns, 1)))
			return ret;
	}
	return m->funcs ? export_funcs_finish(m->funcs) : 0;
}

void export_model_stats(const struct export_model *m, struct export_stats *st)
{
	*st = m->st;
	st->last_ns = m->last_ns;
}

void export_model_free(struct export_model *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nthreads; i++)
		free(m->threads[i]);
	free(m->threads);
	tname_free(&m->tnames);
	for (size_t i = 0; i < m->locks.cap; i++)
		if (m->locks.keys[i])
			free(((struct mlock *)m->locks.vals[i])->busy);
	xmap_free(&m->locks, 1);
	xmap_free(&m->procs, 1);
	xmap_free(&m->holds, 1);
	xmap_free(&m->sites, 1);
	export_funcs_free(m->funcs);
	free(m);
}
