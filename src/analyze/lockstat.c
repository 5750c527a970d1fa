// SPDX-License-Identifier: MIT
/*
 * lockstat.c - the lock analyzer: a state machine over lock events (see
 * lockstat.h), and its text and JSON reports (doc/report-locks.md).
 *
 * State per (thread, lock) pair says what that thread is doing with that lock
 * right now: a pending CONTEND (when, where, and who held the lock then), a
 * hold (since when, from where, read or write, recursion depth) or a
 * condition-variable/barrier wait. Each event touches only its own pair, its
 * lock and its thread, plus the thread's list of held locks for lock-order
 * edges, so the cost per event does not grow with the trace.
 *
 * Durations are differences of timestamps of the same thread or of a thread
 * and the lock's state; timestamps that go backwards (clock skew between CPUs)
 * give 0, never a wrapped huge number.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lockstat.h"

/* Indices beyond this are taken for corruption rather than allocating a huge
 * direct-indexed array. */
#define LS_MAX_LOCKS (1u << 24)

/* Percentiles: exact samples up to LS_EXACT_MAX, then a log-linear histogram.
 * Row 0 holds values 0..127 exactly; row r >= 1 holds [2^(r+6), 2^(r+7)) in
 * 128 buckets of width 2^(r-1). A bucket is at most 1/128 of its lower bound
 * wide and the estimate is its middle (clamped to the observed min and max),
 * so a histogram percentile is within 1/256 (0.4%) of a true sample value of
 * the right rank. */
#define LS_EXACT_MAX 1024
#define LS_SUB_BITS 7
#define LS_SUB (1u << LS_SUB_BITS)
#define LS_ROWS (64 - LS_SUB_BITS + 1)

/* Deadlock search limits: cycles reported, start nodes per strongly connected
 * component for the search of cycles of 3 or more locks. */
#define LS_MAX_CYCLES 256
#define LS_MAX_STARTS 32

struct lockstat_samples {
	uint64_t min;
	uint64_t *v; /* exact samples while rows == NULL */
	uint32_t nv, cap;
	uint64_t **rows; /* LS_ROWS rows of LS_SUB counters, each allocated on first use */
};

struct ls_slot {
	uint64_t h;
	uint32_t idx1; /* entry index + 1; 0 = empty */
};

/* Open addressing, linear probing, never more than 3/4 full. */
struct ls_map {
	struct ls_slot *slots;
	size_t cap, n;
};

struct ls_held {
	uint32_t lock;
	int read;
	uint64_t ip;
};

struct ls_lock {
	struct lockstat_lock_info info;
	uint32_t last_acq;	 /* thread index + 1 of the previous acquirer */
	uint32_t wholder;	 /* thread index + 1 of the exclusive holder, 0 none */
	uint64_t wholder_ip;	 /* where it acquired */
	uint32_t last_holder;	 /* thread index + 1 of the last exclusive hold released */
	uint64_t last_holder_ip; /* where that hold was taken */
	uint32_t readers;	 /* rwlock readers holding now */
	uint64_t reader_ip;	 /* acquisition site of the most recent reader */
};

struct ls_thread {
	struct lockstat_thread_info info;
	struct ls_held *held; /* locks held now, in no particular order */
	uint32_t nheld, capheld;
	uint32_t cond_mutex; /* mutex given up by a cond wait and not yet taken back */
};

struct ls_tl {
	uint32_t thread, lock;
	uint64_t contend_ns, contend_ip, contend_holder_ip;
	uint64_t hold_ns, hold_ip;
	uint64_t wait_ns; /* start of a cond or barrier wait */
	uint32_t depth;	  /* recursion depth of the hold, 0 = not held */
	uint8_t contend_pending, contend_read, contend_holder_read, hold_read, waiting;
};

struct lockstat {
	struct lockstat_opts opts;
	struct lockstat_totals tot;
	bool have_ns, finished;

	struct ls_lock **locks; /* by lock index */
	size_t caplocks;
	struct ls_thread **threads; /* by thread index */
	size_t capthreads;

	struct ls_tl *tls;
	size_t ntl, captl;
	struct ls_map tlmap;

	struct lockstat_site_pair *sites;
	size_t nsites, capsites;
	struct ls_map sitemap;

	struct lockstat_edge *edges;
	size_t nedges, capedges;
	struct ls_map edgemap;

	struct lockstat_cycle *cycles;
	size_t ncycles, capcycles;
};

/* ---- helpers ---------------------------------------------------------- */

static uint64_t ls_mix(uint64_t x)
{
	/* splitmix64 finalizer: a bijection, so equal hashes mean equal
	 * 64-bit keys */
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

static uint64_t ls_dur(uint64_t from, uint64_t to)
{
	return to > from ? to - from : 0;
}

/* Grow *p (an array of elem-byte entries, *cap of them) to hold need; new
 * entries are zeroed. */
static int ls_grow(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t ncap = *cap ? *cap : 8;
	void *np;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	np = realloc(*p, ncap * elem);
	if (!np)
		return -ENOMEM;
	memset((char *)np + *cap * elem, 0, (ncap - *cap) * elem);
	*p = np;
	*cap = ncap;
	return 0;
}

/* ---- distributions ---------------------------------------------------- */

static void hist_index(uint64_t x, unsigned *row, unsigned *sub)
{
	unsigned e;

	if (x < LS_SUB) {
		*row = 0;
		*sub = (unsigned)x;
		return;
	}
	e = 63 - (unsigned)__builtin_clzll(x);
	*row = e - LS_SUB_BITS + 1;
	*sub = (unsigned)(x >> (e - LS_SUB_BITS)) - LS_SUB;
}

static uint64_t hist_low(unsigned row, unsigned sub, uint64_t *width)
{
	if (row == 0) {
		*width = 1;
		return sub;
	}
	*width = 1ull << (row - 1);
	return ((uint64_t)LS_SUB + sub) << (row - 1);
}

static int hist_add(struct lockstat_samples *s, uint64_t x)
{
	unsigned row, sub;

	hist_index(x, &row, &sub);
	if (!s->rows[row]) {
		s->rows[row] = calloc(LS_SUB, sizeof(uint64_t));
		if (!s->rows[row])
			return -ENOMEM;
	}
	s->rows[row][sub]++;
	return 0;
}

static int dist_add(struct lockstat_dist *d, uint64_t x)
{
	struct lockstat_samples *s = d->priv;
	size_t cap;
	int rc;

	if (!s) {
		s = calloc(1, sizeof(*s));
		if (!s)
			return -ENOMEM;
		s->min = UINT64_MAX;
		d->priv = s;
	}
	if (!s->rows && s->nv == LS_EXACT_MAX) {
		s->rows = calloc(LS_ROWS, sizeof(*s->rows));
		if (!s->rows)
			return -ENOMEM;
		for (uint32_t i = 0; i < s->nv; i++)
			if ((rc = hist_add(s, s->v[i])) < 0)
				return rc;
		free(s->v);
		s->v = NULL;
		s->nv = s->cap = 0;
	}
	if (s->rows) {
		if ((rc = hist_add(s, x)) < 0)
			return rc;
	} else {
		cap = s->cap;
		if ((rc = ls_grow((void **)&s->v, &cap, s->nv + 1, sizeof(*s->v))) < 0)
			return rc;
		s->cap = (uint32_t)cap;
		s->v[s->nv++] = x;
	}
	d->count++;
	d->total_ns += x;
	if (x > d->max_ns)
		d->max_ns = x;
	if (x < s->min)
		s->min = x;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Nearest rank: the smallest sample with at least 99% of samples <= it. */
static void dist_finish(struct lockstat_dist *d)
{
	struct lockstat_samples *s = d->priv;
	uint64_t rank, seen = 0, lo, width, est;

	d->p99_ns = 0;
	if (!s || !d->count)
		return;
	rank = (d->count * 99 + 99) / 100;
	if (!s->rows) {
		qsort(s->v, s->nv, sizeof(*s->v), cmp_u64);
		d->p99_ns = s->v[rank - 1];
		return;
	}
	for (unsigned r = 0; r < LS_ROWS; r++) {
		if (!s->rows[r])
			continue;
		for (unsigned i = 0; i < LS_SUB; i++) {
			seen += s->rows[r][i];
			if (seen < rank)
				continue;
			lo = hist_low(r, i, &width);
			est = lo + (width - 1) / 2;
			if (est < s->min)
				est = s->min;
			if (est > d->max_ns)
				est = d->max_ns;
			d->p99_ns = est;
			return;
		}
	}
}

static void dist_free(struct lockstat_dist *d)
{
	struct lockstat_samples *s = d->priv;

	if (!s)
		return;
	if (s->rows)
		for (unsigned r = 0; r < LS_ROWS; r++)
			free(s->rows[r]);
	free(s->rows);
	free(s->v);
	free(s);
	d->priv = NULL;
}

/* ---- hash maps -------------------------------------------------------- */

typedef bool (*ls_eq_fn)(const struct lockstat *ls, uint32_t idx, const void *key);

static int map_reserve(struct ls_map *m)
{
	struct ls_slot *old = m->slots, *ns;
	size_t oldcap = m->cap, ncap;

	if ((m->n + 1) * 4 <= m->cap * 3)
		return 0;
	ncap = m->cap ? m->cap * 2 : 64;
	ns = calloc(ncap, sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	for (size_t i = 0; i < oldcap; i++) {
		size_t j;

		if (!old[i].idx1)
			continue;
		for (j = old[i].h & (ncap - 1); ns[j].idx1; j = (j + 1) & (ncap - 1))
			;
		ns[j] = old[i];
	}
	free(old);
	m->slots = ns;
	m->cap = ncap;
	return 0;
}

/* The slot holding key, or the empty slot where it would go. eq NULL: the
 * hash is the key. */
static struct ls_slot *map_probe(const struct ls_map *m, uint64_t h, ls_eq_fn eq,
				 const struct lockstat *ls, const void *key)
{
	size_t i = h & (m->cap - 1);

	for (;; i = (i + 1) & (m->cap - 1)) {
		struct ls_slot *s = &m->slots[i];

		if (!s->idx1)
			return s;
		if (s->h == h && (!eq || eq(ls, s->idx1 - 1, key)))
			return s;
	}
}

static int map_find(const struct ls_map *m, uint64_t h)
{
	struct ls_slot *s;

	if (!m->cap)
		return -1;
	s = map_probe(m, h, NULL, NULL, NULL);
	return s->idx1 ? (int)(s->idx1 - 1) : -1;
}

/* ---- tables ----------------------------------------------------------- */

static int lock_get(struct lockstat *ls, uint32_t idx, struct ls_lock **out)
{
	struct ls_lock *l;
	int rc;

	if (idx >= LS_MAX_LOCKS)
		return -EINVAL;
	if ((rc = ls_grow((void **)&ls->locks, &ls->caplocks, (size_t)idx + 1, sizeof(*ls->locks))))
		return rc;
	l = ls->locks[idx];
	if (!l) {
		l = calloc(1, sizeof(*l));
		if (!l)
			return -ENOMEM;
		l->info.index = idx;
		ls->locks[idx] = l;
	}
	*out = l;
	return 0;
}

static int thread_get(struct lockstat *ls, uint32_t idx, struct ls_thread **out)
{
	struct ls_thread *t;
	int rc;

	if ((rc = ls_grow((void **)&ls->threads, &ls->capthreads, (size_t)idx + 1,
			  sizeof(*ls->threads))))
		return rc;
	t = ls->threads[idx];
	if (!t) {
		t = calloc(1, sizeof(*t));
		if (!t)
			return -ENOMEM;
		t->info.index = idx;
		ls->threads[idx] = t;
	}
	*out = t;
	return 0;
}

static int tl_get(struct lockstat *ls, uint32_t ti, struct ls_lock *l, struct ls_tl **out)
{
	uint64_t h = ls_mix(((uint64_t)l->info.index << 16) | ti);
	struct ls_slot *s;
	struct ls_tl *tl;
	int rc;

	if ((rc = map_reserve(&ls->tlmap)))
		return rc;
	s = map_probe(&ls->tlmap, h, NULL, NULL, NULL);
	if (s->idx1) {
		*out = &ls->tls[s->idx1 - 1];
		return 0;
	}
	if ((rc = ls_grow((void **)&ls->tls, &ls->captl, ls->ntl + 1, sizeof(*ls->tls))))
		return rc;
	tl = &ls->tls[ls->ntl];
	tl->thread = ti;
	tl->lock = l->info.index;
	s->h = h;
	s->idx1 = (uint32_t)++ls->ntl;
	ls->tlmap.n++;
	l->info.threads++;
	*out = tl;
	return 0;
}

struct ls_site_key {
	uint32_t lock;
	uint64_t waiter_ip, holder_ip;
};

static bool site_eq(const struct lockstat *ls, uint32_t idx, const void *key)
{
	const struct ls_site_key *k = key;
	const struct lockstat_site_pair *p = &ls->sites[idx];

	return p->lock == k->lock && p->waiter_ip == k->waiter_ip && p->holder_ip == k->holder_ip;
}

static int site_add(struct lockstat *ls, const struct ls_lock *l, const struct ls_tl *tl,
		    uint64_t wait)
{
	struct ls_site_key k = {l->info.index, tl->contend_ip, tl->contend_holder_ip};
	uint64_t h = ls_mix(ls_mix(k.waiter_ip ^ k.lock) ^ k.holder_ip);
	struct lockstat_site_pair *p;
	struct ls_slot *s;
	int rc;

	if ((rc = map_reserve(&ls->sitemap)))
		return rc;
	s = map_probe(&ls->sitemap, h, site_eq, ls, &k);
	if (!s->idx1) {
		if ((rc = ls_grow((void **)&ls->sites, &ls->capsites, ls->nsites + 1,
				  sizeof(*ls->sites))))
			return rc;
		p = &ls->sites[ls->nsites];
		p->lock = k.lock;
		p->pid = l->info.pid;
		p->waiter_ip = k.waiter_ip;
		p->holder_ip = k.holder_ip;
		p->holder_read = tl->contend_holder_read;
		s->h = h;
		s->idx1 = (uint32_t)++ls->nsites;
		ls->sitemap.n++;
	}
	p = &ls->sites[s->idx1 - 1];
	p->count++;
	p->wait_total_ns += wait;
	if (wait > p->wait_max_ns)
		p->wait_max_ns = wait;
	return 0;
}

static int edge_add(struct lockstat *ls, const struct ls_held *from, uint32_t to, int to_read,
		    uint64_t to_ip, uint32_t thread, uint64_t ns)
{
	uint64_t h = ls_mix(((uint64_t)from->lock << 32) | to);
	struct lockstat_edge *e;
	struct ls_slot *s;
	int rc;

	if ((rc = map_reserve(&ls->edgemap)))
		return rc;
	s = map_probe(&ls->edgemap, h, NULL, NULL, NULL);
	if (!s->idx1) {
		if ((rc = ls_grow((void **)&ls->edges, &ls->capedges, ls->nedges + 1,
				  sizeof(*ls->edges))))
			return rc;
		e = &ls->edges[ls->nedges];
		e->from = from->lock;
		e->to = to;
		e->thread = thread;
		e->from_read = from->read;
		e->to_read = to_read;
		e->from_ip = from->ip;
		e->to_ip = to_ip;
		e->ns = ns;
		s->h = h;
		s->idx1 = (uint32_t)++ls->nedges;
		ls->edgemap.n++;
	}
	ls->edges[s->idx1 - 1].count++;
	return 0;
}

/* ---- feeding ---------------------------------------------------------- */

static bool type_holds(uint32_t type)
{
	/* 0: no LOCKDEF seen and no op told us; treat like a mutex */
	return type == 0 || type == LOCK_TYPE_MUTEX || type == LOCK_TYPE_RWLOCK ||
	       type == LOCK_TYPE_SPIN;
}

static void guess_type(struct ls_lock *l, unsigned op)
{
	if (l->info.defined || l->info.type)
		return;
	if (op >= OP_COND_WAIT && op <= OP_COND_BROADCAST)
		l->info.type = LOCK_TYPE_COND;
	else if (op == OP_BARRIER_ENTER || op == OP_BARRIER_LEAVE)
		l->info.type = LOCK_TYPE_BARRIER;
	else if (op == OP_SEM_POST)
		l->info.type = LOCK_TYPE_SEM;
	else if (op >= OP_CONTEND_RD && op <= OP_TRY_FAIL_RD)
		l->info.type = LOCK_TYPE_RWLOCK;
}

static int do_acquire(struct lockstat *ls, struct ls_lock *l, struct ls_thread *t, struct ls_tl *tl,
		      const struct rec_lock *r, uint64_t ns, bool read, bool try)
{
	struct lockstat_side *side = read ? &l->info.read : &l->info.write;
	uint32_t ti = t->info.index;
	uint64_t wait;
	int rc;

	side->acquisitions++;
	t->info.acquisitions++;
	if (try)
		side->try_acquisitions++;
	if (tl->contend_pending) {
		tl->contend_pending = 0;
		wait = ls_dur(tl->contend_ns, ns);
		/* No holder seen at CONTEND time: the holder's ACQUIRE, written
		 * after its lock call returned, can carry a later timestamp than
		 * our failed attempt. Blame the hold released last instead. */
		if (!tl->contend_holder_ip && l->last_holder && l->last_holder != ti + 1) {
			tl->contend_holder_ip = l->last_holder_ip;
			tl->contend_holder_read = 0;
		}
		side->contended++;
		t->info.contended++;
		t->info.wait_ns += wait;
		if ((rc = dist_add(&side->wait, wait)) || (rc = site_add(ls, l, tl, wait)))
			return rc;
	}
	if (t->cond_mutex == l->info.index) {
		t->cond_mutex = 0;
		l->info.cond_reacquisitions++;
	}
	if (!type_holds(l->info.type))
		return 0; /* semaphores: no owner, no hold */
	if (l->last_acq && l->last_acq != ti + 1)
		l->info.owner_changes++;
	l->last_acq = ti + 1;
	if (tl->depth++)
		return 0; /* recursive: the outer hold goes on */
	tl->hold_ns = ns;
	tl->hold_ip = r->ip;
	tl->hold_read = read;
	if (read) {
		l->readers++;
		l->reader_ip = r->ip;
		if (l->readers > l->info.max_readers)
			l->info.max_readers = l->readers;
	} else {
		l->wholder = ti + 1;
		l->wholder_ip = r->ip;
	}
	/* Lock order: a trylock never blocks, so it cannot close a deadlock
	 * cycle; it is still held, and later acquisitions order after it. */
	if (!try && !ls->opts.no_order_graph)
		for (uint32_t i = 0; i < t->nheld; i++)
			if (t->held[i].lock != l->info.index &&
			    (rc = edge_add(ls, &t->held[i], l->info.index, read, r->ip, ti, ns)))
				return rc;
	{
		size_t cap = t->capheld;

		if ((rc = ls_grow((void **)&t->held, &cap, t->nheld + 1, sizeof(*t->held))))
			return rc;
		t->capheld = (uint32_t)cap;
	}
	t->held[t->nheld++] = (struct ls_held){l->info.index, read, r->ip};
	return 0;
}

static void drop_held(struct ls_thread *t, uint32_t lock)
{
	for (uint32_t i = t->nheld; i-- > 0;)
		if (t->held[i].lock == lock) {
			t->held[i] = t->held[--t->nheld];
			return;
		}
}

static int close_hold(struct ls_lock *l, struct ls_thread *t, struct ls_tl *tl, uint64_t ns)
{
	struct lockstat_side *side = tl->hold_read ? &l->info.read : &l->info.write;
	uint64_t hold = ls_dur(tl->hold_ns, ns);

	tl->depth = 0;
	t->info.hold_ns += hold;
	drop_held(t, l->info.index);
	if (tl->hold_read) {
		if (l->readers)
			l->readers--;
	} else if (l->wholder == t->info.index + 1) {
		l->wholder = 0;
		l->last_holder = t->info.index + 1;
		l->last_holder_ip = tl->hold_ip;
	}
	return dist_add(&side->hold, hold);
}

static int do_timeout_wait(struct ls_lock *l, struct ls_thread *t, struct ls_tl *tl, uint64_t ns,
			   bool at_end)
{
	struct lockstat_side *side = tl->contend_read ? &l->info.read : &l->info.write;
	uint64_t wait = ls_dur(tl->contend_ns, ns);

	tl->contend_pending = 0;
	if (at_end)
		side->waiting_at_end++;
	t->info.wait_ns += wait;
	return dist_add(&side->wait, wait);
}

static int feed_lock(struct lockstat *ls, const struct trace_event *ev)
{
	const struct rec_lock *r = (const struct rec_lock *)ev->rec;
	uint64_t w = r->h.word, ns = ev->ns;
	unsigned op = ev_op(w);
	struct ls_thread *t;
	struct ls_lock *l;
	struct ls_tl *tl;
	int rc;

	if (r->h.size < sizeof(*r))
		return -EINVAL;
	ls->tot.lock_events++;
	if (op >= OP_THREAD_CREATE || op == OP_NONE)
		return 0; /* thread lifecycle: not a lock */
	if ((rc = thread_get(ls, ev_thread(w), &t)) || (rc = lock_get(ls, ev_obj(w), &l)))
		return rc;
	guess_type(l, op);
	l->info.events++;
	if ((rc = tl_get(ls, t->info.index, l, &tl)))
		return rc;

	switch (op) {
	case OP_INIT:
		l->info.inits++;
		break;
	case OP_DESTROY:
		l->info.destroys++;
		break;
	case OP_CONTEND:
	case OP_CONTEND_RD:
		tl->contend_pending = 1;
		tl->contend_read = op == OP_CONTEND_RD;
		tl->contend_ns = ns;
		tl->contend_ip = r->ip;
		tl->contend_holder_ip = 0;
		tl->contend_holder_read = 0;
		if (!type_holds(l->info.type))
			break;
		if (l->wholder && l->wholder != t->info.index + 1) {
			tl->contend_holder_ip = l->wholder_ip;
		} else if (l->readers) {
			tl->contend_holder_ip = l->reader_ip;
			tl->contend_holder_read = 1;
		}
		break;
	case OP_ACQUIRE:
	case OP_ACQUIRE_TRY:
	case OP_ACQUIRE_RD:
	case OP_ACQUIRE_TRY_RD:
		return do_acquire(ls, l, t, tl, r, ns,
				  op == OP_ACQUIRE_RD || op == OP_ACQUIRE_TRY_RD,
				  op == OP_ACQUIRE_TRY || op == OP_ACQUIRE_TRY_RD);
	case OP_TRY_FAIL:
		l->info.write.try_failures++;
		break;
	case OP_TRY_FAIL_RD:
		l->info.read.try_failures++;
		break;
	case OP_TIMEOUT:
		if (tl->contend_pending) {
			(tl->contend_read ? &l->info.read : &l->info.write)->timeouts++;
			t->info.timeouts++;
			return do_timeout_wait(l, t, tl, ns, false);
		}
		l->info.write.timeouts++;
		t->info.timeouts++;
		break;
	case OP_RELEASE:
		if (!tl->depth) {
			l->info.unmatched_releases++;
			break;
		}
		if (--tl->depth)
			break;
		tl->depth = 1;
		return close_hold(l, t, tl, ns);
	case OP_SEM_POST:
		l->info.posts++;
		break;
	case OP_COND_WAIT:
		l->info.cond_waits++;
		tl->waiting = 1;
		tl->wait_ns = ns;
		/* the mutex is released before the wait and taken back after
		 * it (RELEASE/ACQUIRE events of their own): that acquisition is
		 * counted, the wait itself is never a hold */
		t->cond_mutex = (uint32_t)r->arg;
		break;
	case OP_COND_WAKE:
		if (r->arg == 0)
			l->info.cond_wakeups++;
		else if (r->arg == ETIMEDOUT)
			l->info.cond_timeouts++;
		else
			l->info.cond_errors++;
		if (!tl->waiting)
			break;
		tl->waiting = 0;
		t->info.cond_wait_ns += ls_dur(tl->wait_ns, ns);
		return dist_add(&l->info.cond_wait, ls_dur(tl->wait_ns, ns));
	case OP_COND_SIGNAL:
		l->info.cond_signals++;
		break;
	case OP_COND_BROADCAST:
		l->info.cond_broadcasts++;
		break;
	case OP_BARRIER_ENTER:
		l->info.barrier_waits++;
		tl->waiting = 1;
		tl->wait_ns = ns;
		break;
	case OP_BARRIER_LEAVE:
		if (r->arg == 1)
			l->info.barrier_serial++;
		if (!tl->waiting)
			break;
		tl->waiting = 0;
		t->info.barrier_wait_ns += ls_dur(tl->wait_ns, ns);
		return dist_add(&l->info.barrier_wait, ls_dur(tl->wait_ns, ns));
	default:
		break;
	}
	return 0;
}

static int feed_thread(struct lockstat *ls, const struct trace_event *ev)
{
	const struct rec_thread *r = (const struct rec_thread *)ev->rec;
	struct ls_thread *t;
	int rc;

	if (r->h.size < sizeof(*r))
		return -EINVAL;
	if ((rc = thread_get(ls, ev_thread(r->h.word), &t)))
		return rc;
	t->info.defined = 1;
	t->info.tid = r->tid;
	t->info.pid = r->pid;
	memcpy(t->info.name, r->name, sizeof(r->name));
	t->info.name[sizeof(r->name)] = 0;
	return 0;
}

static int feed_lockdef(struct lockstat *ls, const struct trace_event *ev)
{
	const struct rec_lockdef *r = (const struct rec_lockdef *)ev->rec;
	struct ls_lock *l;
	int rc;

	if (r->h.size < sizeof(*r))
		return -EINVAL;
	if ((rc = lock_get(ls, ev_obj(r->h.word), &l)))
		return rc;
	l->info.defined = 1;
	l->info.addr = r->addr;
	l->info.init_ip = r->init_ip;
	l->info.type = r->type;
	l->info.pid = r->pid;
	return 0;
}

int lockstat_feed(struct lockstat *ls, const struct trace_event *ev)
{
	int rc;

	if (ls->finished)
		return -EBUSY;
	if (!ev->rec || ev->rec->size < sizeof(struct rec_hdr)) {
		ls->tot.malformed++;
		return -EINVAL;
	}
	ls->tot.events++;
	if (!ls->have_ns) {
		ls->have_ns = true;
		ls->tot.first_ns = ev->ns;
	}
	if (ev->ns > ls->tot.last_ns)
		ls->tot.last_ns = ev->ns;
	switch (ev_kind(ev->rec->word)) {
	case KIND_LOCK:
		rc = feed_lock(ls, ev);
		break;
	case KIND_THREAD:
		rc = feed_thread(ls, ev);
		break;
	case KIND_LOCKDEF:
		rc = feed_lockdef(ls, ev);
		break;
	default:
		rc = 0;
		break;
	}
	if (rc == -EINVAL)
		ls->tot.malformed++;
	return rc;
}

void lockstat_add_lost(struct lockstat *ls, uint64_t lost)
{
	ls->tot.lost += lost;
}

/* ---- finish: open states, percentiles, cycles -------------------------- */

static int cycle_add(struct lockstat *ls, const uint32_t *locks, const struct lockstat_edge **edges,
		     size_t n)
{
	struct lockstat_cycle *c;
	size_t m = 0;
	int rc;

	/* canonical rotation: smallest lock first, so duplicates compare equal */
	for (size_t i = 1; i < n; i++)
		if (locks[i] < locks[m])
			m = i;
	for (size_t k = 0; k < ls->ncycles; k++) {
		const struct lockstat_cycle *o = &ls->cycles[k];
		size_t i;

		if (o->n != n)
			continue;
		for (i = 0; i < n && o->locks[i] == locks[(m + i) % n]; i++)
			;
		if (i == n)
			return 0;
	}
	if (ls->ncycles >= LS_MAX_CYCLES)
		return 0;
	if ((rc = ls_grow((void **)&ls->cycles, &ls->capcycles, ls->ncycles + 1,
			  sizeof(*ls->cycles))))
		return rc;
	c = &ls->cycles[ls->ncycles];
	c->locks = calloc(n, sizeof(*c->locks));
	c->edges = calloc(n, sizeof(*c->edges));
	if (!c->locks || !c->edges) {
		free(c->locks);
		free(c->edges);
		c->locks = NULL;
		c->edges = NULL;
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		c->locks[i] = locks[(m + i) % n];
		c->edges[i] = edges[(m + i) % n];
		if (c->edges[i]->from_read || c->edges[i]->to_read)
			c->has_read = 1;
	}
	c->n = n;
	ls->ncycles++;
	return 0;
}

static int edge_cmp(const void *a, const void *b, void *ctx)
{
	const struct lockstat_edge *e = ctx;
	const struct lockstat_edge *x = &e[*(const uint32_t *)a], *y = &e[*(const uint32_t *)b];

	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return x->to < y->to ? -1 : x->to > y->to;
}

/*
 * Cycles of two locks come straight from the edge map. Longer ones: Tarjan's
 * strongly connected components, then, inside each component of 3 or more
 * locks, a breadth-first search from (up to LS_MAX_STARTS of) its locks for
 * the shortest way back of 3 or more edges. That finds the short cycles, not
 * every cycle (which could be exponentially many).
 */
static int find_cycles(struct lockstat *ls)
{
	size_t nl = ls->caplocks, ne = ls->nedges;
	uint32_t *off = NULL, *adj = NULL, *idx = NULL, *low = NULL, *comp = NULL, *stk = NULL;
	uint32_t *cu = NULL, *cpos = NULL, *dist = NULL, *par = NULL, *queue = NULL;
	uint32_t *csize = NULL, *path = NULL;
	const struct lockstat_edge **pedges = NULL;
	uint8_t *onstk = NULL;
	uint32_t counter = 0, ncomp = 0, sp = 0;
	const uint32_t unset = UINT32_MAX;
	int rc = -ENOMEM;

	if (!ne)
		return 0;
	/* 2-cycles */
	for (size_t i = 0; i < ne; i++) {
		const struct lockstat_edge *e = &ls->edges[i], *pe[2];
		uint32_t lk[2];
		int j;

		if (e->from >= e->to)
			continue;
		j = map_find(&ls->edgemap, ls_mix(((uint64_t)e->to << 32) | e->from));
		if (j < 0)
			continue;
		lk[0] = e->from;
		lk[1] = e->to;
		pe[0] = e;
		pe[1] = &ls->edges[j];
		if ((rc = cycle_add(ls, lk, pe, 2)))
			return rc;
	}
	rc = -ENOMEM;
	off = calloc(nl + 1, sizeof(*off));
	adj = calloc(ne, sizeof(*adj));
	idx = malloc(nl * sizeof(*idx));
	low = calloc(nl, sizeof(*low));
	comp = malloc(nl * sizeof(*comp));
	stk = calloc(nl, sizeof(*stk));
	cu = calloc(nl, sizeof(*cu));
	cpos = calloc(nl, sizeof(*cpos));
	onstk = calloc(nl, 1);
	csize = calloc(nl, sizeof(*csize));
	dist = malloc(nl * sizeof(*dist));
	par = calloc(nl, sizeof(*par));
	queue = calloc(nl, sizeof(*queue));
	path = calloc(nl, sizeof(*path));
	pedges = calloc(nl, sizeof(*pedges));
	if (!off || !adj || !idx || !low || !comp || !stk || !cu || !cpos || !onstk || !csize ||
	    !dist || !par || !queue || !path || !pedges)
		goto out;
	for (size_t i = 0; i < ne; i++)
		adj[i] = (uint32_t)i;
	qsort_r(adj, ne, sizeof(*adj), edge_cmp, ls->edges);
	for (size_t i = 0; i < ne; i++)
		off[ls->edges[i].from + 1]++;
	for (size_t v = 0; v < nl; v++)
		off[v + 1] += off[v];
	for (size_t v = 0; v < nl; v++) {
		idx[v] = unset;
		comp[v] = unset;
		dist[v] = unset;
	}

	/* Tarjan, iteratively (a deep lock chain must not overflow the stack) */
	for (uint32_t v0 = 0; v0 < nl; v0++) {
		uint32_t depth = 0;

		if (idx[v0] != unset || off[v0] == off[v0 + 1])
			continue;
		idx[v0] = low[v0] = counter++;
		stk[sp++] = v0;
		onstk[v0] = 1;
		cu[0] = v0;
		cpos[0] = off[v0];
		depth = 1;
		while (depth) {
			uint32_t u = cu[depth - 1];

			if (cpos[depth - 1] < off[u + 1]) {
				uint32_t wv = ls->edges[adj[cpos[depth - 1]++]].to;

				if (idx[wv] == unset) {
					idx[wv] = low[wv] = counter++;
					stk[sp++] = wv;
					onstk[wv] = 1;
					cu[depth] = wv;
					cpos[depth] = off[wv];
					depth++;
				} else if (onstk[wv] && idx[wv] < low[u]) {
					low[u] = idx[wv];
				}
				continue;
			}
			depth--;
			if (depth && low[u] < low[cu[depth - 1]])
				low[cu[depth - 1]] = low[u];
			if (low[u] == idx[u]) {
				uint32_t x;

				do {
					x = stk[--sp];
					onstk[x] = 0;
					comp[x] = ncomp;
					csize[ncomp]++;
				} while (x != u);
				ncomp++;
			}
		}
	}

	/* shortest cycles of 3+ locks through up to LS_MAX_STARTS locks of each
	 * big enough component */
	{
		uint32_t *starts = calloc(ncomp ? ncomp : 1, sizeof(*starts));

		if (!starts)
			goto out;
		for (uint32_t s = 0; s < nl && ls->ncycles < LS_MAX_CYCLES; s++) {
			uint32_t c = comp[s], qh = 0, qt = 0, nvis = 0, found = unset;

			if (c == unset || csize[c] < 3 || starts[c] >= LS_MAX_STARTS)
				continue;
			starts[c]++;
			dist[s] = 0;
			queue[qt++] = s;
			while (qh < qt && found == unset) {
				uint32_t u = queue[qh++];

				for (uint32_t p = off[u]; p < off[u + 1]; p++) {
					const struct lockstat_edge *e = &ls->edges[adj[p]];

					if (comp[e->to] != c)
						continue;
					if (e->to == s) {
						if (dist[u] >= 2) {
							found = u;
							pedges[0] =
							    e; /* closing edge, placed below */
							break;
						}
						continue;
					}
					if (dist[e->to] != unset)
						continue;
					dist[e->to] = dist[u] + 1;
					par[e->to] = adj[p];
					queue[qt++] = e->to;
				}
			}
			nvis = qt;
			if (found != unset) {
				/* path s -> ... -> found, then found -> s */
				uint32_t n = dist[found] + 1, x = found;
				const struct lockstat_edge *closing = pedges[0];

				for (uint32_t k = n - 1; k > 0; k--) {
					const struct lockstat_edge *e = &ls->edges[par[x]];

					path[k] = x;
					pedges[k - 1] = e;
					x = e->from;
				}
				path[0] = s;
				pedges[n - 1] = closing;
				if ((rc = cycle_add(ls, path, pedges, n))) {
					free(starts);
					goto out;
				}
				rc = -ENOMEM;
			}
			for (uint32_t k = 0; k < nvis; k++)
				dist[queue[k]] = unset;
		}
		free(starts);
	}
	rc = 0;
out:
	free(off);
	free(adj);
	free(idx);
	free(low);
	free(comp);
	free(stk);
	free(cu);
	free(cpos);
	free(onstk);
	free(csize);
	free(dist);
	free(par);
	free(queue);
	free(path);
	free(pedges);
	return rc;
}

int lockstat_finish(struct lockstat *ls)
{
	uint64_t end = ls->tot.last_ns;
	int rc;

	if (ls->finished)
		return -EBUSY;
	ls->finished = true;
	for (size_t i = 0; i < ls->ntl; i++) {
		struct ls_tl *tl = &ls->tls[i];
		struct ls_lock *l = ls->locks[tl->lock];
		struct ls_thread *t = ls->threads[tl->thread];

		if (tl->depth) {
			l->info.held_at_end++;
			if ((rc = close_hold(l, t, tl, end)))
				return rc;
		}
		if (tl->contend_pending && (rc = do_timeout_wait(l, t, tl, end, true)))
			return rc;
		if (tl->waiting) {
			uint64_t wait = ls_dur(tl->wait_ns, end);

			tl->waiting = 0;
			if (l->info.type == LOCK_TYPE_BARRIER) {
				l->info.barrier_waiting_at_end++;
				t->info.barrier_wait_ns += wait;
				rc = dist_add(&l->info.barrier_wait, wait);
			} else {
				l->info.cond_waiting_at_end++;
				t->info.cond_wait_ns += wait;
				rc = dist_add(&l->info.cond_wait, wait);
			}
			if (rc)
				return rc;
		}
	}
	for (size_t i = 0; i < ls->caplocks; i++) {
		struct ls_lock *l = ls->locks[i];

		if (!l)
			continue;
		dist_finish(&l->info.write.wait);
		dist_finish(&l->info.write.hold);
		dist_finish(&l->info.read.wait);
		dist_finish(&l->info.read.hold);
		dist_finish(&l->info.cond_wait);
		dist_finish(&l->info.barrier_wait);
	}
	if (!ls->opts.no_order_graph)
		return find_cycles(ls);
	return 0;
}

/* ---- life cycle and queries ------------------------------------------- */

struct lockstat *lockstat_new(const struct lockstat_opts *o)
{
	struct lockstat *ls = calloc(1, sizeof(*ls));

	if (ls && o)
		ls->opts = *o;
	return ls;
}

void lockstat_free(struct lockstat *ls)
{
	if (!ls)
		return;
	for (size_t i = 0; i < ls->caplocks; i++) {
		struct ls_lock *l = ls->locks[i];

		if (!l)
			continue;
		dist_free(&l->info.write.wait);
		dist_free(&l->info.write.hold);
		dist_free(&l->info.read.wait);
		dist_free(&l->info.read.hold);
		dist_free(&l->info.cond_wait);
		dist_free(&l->info.barrier_wait);
		free(l);
	}
	free(ls->locks);
	for (size_t i = 0; i < ls->capthreads; i++) {
		if (ls->threads[i])
			free(ls->threads[i]->held);
		free(ls->threads[i]);
	}
	free(ls->threads);
	free(ls->tls);
	free(ls->tlmap.slots);
	free(ls->sites);
	free(ls->sitemap.slots);
	free(ls->edges);
	free(ls->edgemap.slots);
	for (size_t i = 0; i < ls->ncycles; i++) {
		free(ls->cycles[i].locks);
		free(ls->cycles[i].edges);
	}
	free(ls->cycles);
	free(ls);
}

const struct lockstat_totals *lockstat_totals(const struct lockstat *ls)
{
	return &ls->tot;
}

const struct lockstat_lock_info *lockstat_lock(const struct lockstat *ls, uint32_t index)
{
	return index < ls->caplocks && ls->locks[index] ? &ls->locks[index]->info : NULL;
}

const struct lockstat_thread_info *lockstat_thread(const struct lockstat *ls, uint32_t index)
{
	return index < ls->capthreads && ls->threads[index] ? &ls->threads[index]->info : NULL;
}

size_t lockstat_nsites(const struct lockstat *ls)
{
	return ls->nsites;
}

const struct lockstat_site_pair *lockstat_site(const struct lockstat *ls, size_t i)
{
	return i < ls->nsites ? &ls->sites[i] : NULL;
}

size_t lockstat_nedges(const struct lockstat *ls)
{
	return ls->nedges;
}

const struct lockstat_edge *lockstat_edge_at(const struct lockstat *ls, size_t i)
{
	return i < ls->nedges ? &ls->edges[i] : NULL;
}

size_t lockstat_ncycles(const struct lockstat *ls)
{
	return ls->ncycles;
}

const struct lockstat_cycle *lockstat_cycle_at(const struct lockstat *ls, size_t i)
{
	return i < ls->ncycles ? &ls->cycles[i] : NULL;
}

void lockstat_print_opts_init(struct lockstat_print_opts *po)
{
	memset(po, 0, sizeof(*po));
	po->sort = LOCKSTAT_SORT_WAIT;
	po->limit = 20;
	po->top_sites = 10;
}

int lockstat_parse_sort(const char *s, struct lockstat_print_opts *po)
{
	static const char *const names[] = {
	    [LOCKSTAT_SORT_WAIT] = "wait",	     [LOCKSTAT_SORT_ACQ] = "acq",
	    [LOCKSTAT_SORT_CONTENDED] = "contended", [LOCKSTAT_SORT_HOLD] = "hold",
	    [LOCKSTAT_SORT_NAME] = "name",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i])) {
			po->sort = (int)i;
			return 0;
		}
	return -EINVAL;
}

/* ---- formatting ------------------------------------------------------- */

static const char *type_name(uint32_t type)
{
	switch (type) {
	case LOCK_TYPE_MUTEX:
		return "mutex";
	case LOCK_TYPE_RWLOCK:
		return "rwlock";
	case LOCK_TYPE_SPIN:
		return "spin";
	case LOCK_TYPE_SEM:
		return "sem";
	case LOCK_TYPE_COND:
		return "cond";
	case LOCK_TYPE_BARRIER:
		return "barrier";
	case LOCK_TYPE_THREAD:
		return "thread";
	default:
		return "unknown";
	}
}

static const char *fmt_count(uint64_t v, char *buf, size_t len)
{
	char tmp[32];
	int n = snprintf(tmp, sizeof(tmp), "%" PRIu64, v), j = 0;

	for (int i = 0; i < n && (size_t)j + 2 < len; i++) {
		if (i && (n - i) % 3 == 0)
			buf[j++] = ',';
		buf[j++] = tmp[i];
	}
	buf[j] = 0;
	return buf;
}

/* 3 significant digits: "850 ns", "1.23 µs", "12.3 ms", "123 s". */
static const char *fmt_ns(uint64_t v, char *buf, size_t len)
{
	static const char *const units[] = {"ns", "µs", "ms", "s"};
	double x = (double)v;
	unsigned u = 0;

	if (v < 1000) {
		snprintf(buf, len, "%" PRIu64 " ns", v);
		return buf;
	}
	while (u < 3 && x >= 999.5) {
		x /= 1000.0;
		u++;
	}
	if (x < 9.995)
		snprintf(buf, len, "%.2f %s", x, units[u]);
	else if (x < 99.95)
		snprintf(buf, len, "%.1f %s", x, units[u]);
	else
		snprintf(buf, len, "%.0f %s", x, units[u]);
	return buf;
}

static const char *fmt_site(const struct lockstat_print_opts *po, uint32_t pid, uint64_t ip,
			    char *buf, size_t len)
{
	if (!ip) {
		snprintf(buf, len, "?");
		return buf;
	}
	if (po->symbolize && po->symbolize(po->symbolize_ctx, pid, ip, buf, len) == 0 && buf[0])
		return buf;
	snprintf(buf, len, "0x%" PRIx64, ip);
	return buf;
}

/* The lock's variable ("cache_lock") when it has a symbol, else its init
 * site "cache_init+0x1f (cache.c:12)" when known, else address and type. */
static const char *lock_name(const struct lockstat_print_opts *po, const struct ls_lock *l,
			     char *buf, size_t len)
{
	const struct lockstat_lock_info *i = &l->info;

	if (i->defined && i->addr && po->symbolize_data &&
	    po->symbolize_data(po->symbolize_ctx, i->pid, i->addr, buf, len) == 0 && buf[0])
		return buf;
	if (i->init_ip && po->symbolize &&
	    po->symbolize(po->symbolize_ctx, i->pid, i->init_ip, buf, len) == 0 && buf[0])
		return buf;
	if (i->defined)
		snprintf(buf, len, "0x%" PRIx64 " (%s)", i->addr, type_name(i->type));
	else
		snprintf(buf, len, "lock#%u (%s)", i->index, type_name(i->type));
	return buf;
}

/* A text table: cells are copied, widths measured in characters (µ is two
 * bytes), column 0 and the columns in left_mask are left-aligned. */
struct ls_table {
	unsigned ncols;
	const char *const *hdr;
	unsigned left_mask;
	char **cells;
	size_t nrows, cap;
};

static size_t text_width(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			n++;
	return n;
}

static int table_row(struct ls_table *t, ...)
{
	va_list ap;
	size_t base = t->nrows * t->ncols;
	int rc = 0;

	if ((rc = ls_grow((void **)&t->cells, &t->cap, base + t->ncols, sizeof(*t->cells))))
		return rc;
	va_start(ap, t);
	for (unsigned c = 0; c < t->ncols; c++) {
		const char *s = va_arg(ap, const char *);

		t->cells[base + c] = strdup(s ? s : "");
		if (!t->cells[base + c])
			rc = -ENOMEM;
	}
	va_end(ap);
	t->nrows++;
	return rc;
}

static void table_cell(FILE *out, const char *s, size_t w, bool left, bool last)
{
	size_t n = text_width(s);

	if (!left)
		for (; n < w; n++)
			fputc(' ', out);
	fputs(s, out);
	if (left && !last)
		for (; n < w; n++)
			fputc(' ', out);
}

static void table_print(struct ls_table *t, FILE *out)
{
	size_t w[16] = {0};

	for (unsigned c = 0; c < t->ncols && c < 16; c++) {
		w[c] = text_width(t->hdr[c]);
		for (size_t r = 0; r < t->nrows; r++) {
			size_t n = text_width(t->cells[r * t->ncols + c]);
			if (n > w[c])
				w[c] = n;
		}
	}
	for (size_t r = 0; r <= t->nrows; r++) {
		fputs("  ", out);
		for (unsigned c = 0; c < t->ncols; c++) {
			const char *s = r ? t->cells[(r - 1) * t->ncols + c] : t->hdr[c];
			bool left = c == 0 || (t->left_mask & (1u << c));

			if (c)
				fputs("  ", out);
			table_cell(out, s, w[c], left, c + 1 == t->ncols);
		}
		fputc('\n', out);
	}
}

static void table_free(struct ls_table *t)
{
	for (size_t i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	t->cells = NULL;
	t->nrows = t->cap = 0;
}

/* ---- sorting ---------------------------------------------------------- */

struct ls_row {
	struct ls_lock *l;
	char *name;
};

static uint64_t lock_key(const struct ls_lock *l, int sort)
{
	const struct lockstat_lock_info *i = &l->info;

	switch (sort) {
	case LOCKSTAT_SORT_ACQ:
		return i->write.acquisitions + i->read.acquisitions;
	case LOCKSTAT_SORT_CONTENDED:
		return i->write.contended + i->read.contended;
	case LOCKSTAT_SORT_HOLD:
		return i->write.hold.total_ns + i->read.hold.total_ns;
	default:
		return i->write.wait.total_ns + i->read.wait.total_ns + i->cond_wait.total_ns +
		       i->barrier_wait.total_ns;
	}
}

static int row_cmp(const void *a, const void *b, void *ctx)
{
	const struct ls_row *x = a, *y = b;
	int sort = *(const int *)ctx, c;
	uint64_t kx, ky;

	if (sort == LOCKSTAT_SORT_NAME) {
		if ((c = strcmp(x->name, y->name)))
			return c;
	} else {
		kx = lock_key(x->l, sort);
		ky = lock_key(y->l, sort);
		if (kx != ky)
			return kx > ky ? -1 : 1;
	}
	return x->l->info.index < y->l->info.index ? -1 : x->l->info.index > y->l->info.index;
}

static bool lock_in_main(const struct ls_lock *l)
{
	return type_holds(l->info.type) || l->info.type == LOCK_TYPE_SEM;
}

/* Rows for the locks whose type passes `want` (NULL: all but threads),
 * sorted per po. */
static int lock_rows(struct lockstat *ls, const struct lockstat_print_opts *po,
		     bool (*want)(const struct ls_lock *), struct ls_row **out, size_t *n)
{
	struct ls_row *rows = NULL;
	size_t nr = 0, cap = 0;
	char name[512];
	int rc;

	for (size_t i = 0; i < ls->caplocks; i++) {
		struct ls_lock *l = ls->locks[i];

		if (!l || !l->info.events || l->info.type == LOCK_TYPE_THREAD || (want && !want(l)))
			continue;
		if ((rc = ls_grow((void **)&rows, &cap, nr + 1, sizeof(*rows))))
			goto fail;
		rows[nr].l = l;
		rows[nr].name = strdup(lock_name(po, l, name, sizeof(name)));
		if (!rows[nr++].name) {
			rc = -ENOMEM;
			goto fail;
		}
	}
	if (nr)
		qsort_r(rows, nr, sizeof(*rows), row_cmp, (void *)&po->sort);
	*out = rows;
	*n = nr;
	return 0;
fail:
	for (size_t i = 0; i < nr; i++)
		free(rows[i].name);
	free(rows);
	return rc;
}

static void rows_free(struct ls_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(rows[i].name);
	free(rows);
}

static bool is_cond(const struct ls_lock *l)
{
	return l->info.type == LOCK_TYPE_COND;
}

static bool is_sem(const struct ls_lock *l)
{
	return l->info.type == LOCK_TYPE_SEM;
}

static bool is_rwlock(const struct ls_lock *l)
{
	return l->info.type == LOCK_TYPE_RWLOCK;
}

static bool is_barrier(const struct ls_lock *l)
{
	return l->info.type == LOCK_TYPE_BARRIER;
}

static size_t shown(size_t n, unsigned limit)
{
	return limit && n > limit ? limit : n;
}

static void print_more(FILE *out, size_t n, unsigned limit)
{
	if (limit && n > limit)
		fprintf(out, "  ... %zu more (--limit 0 shows all)\n", n - limit);
}

/* ---- text report ------------------------------------------------------ */

#define B(n) char n[64]

static int print_locks_table(struct lockstat *ls, FILE *out, const struct lockstat_print_opts *po)
{
	static const char *const hdr[] = {"lock",	"type",	      "acq",
					  "contended",	"wait total", "wait max",
					  "hold total", "hold max",   "threads"};
	static const char *const hdr2[] = {"lock",     "wait avg",	"wait p99", "hold avg",
					   "hold p99", "owner changes", "timeouts", "try failures"};
	struct ls_table t = {9, hdr, 1u << 1, NULL, 0, 0};
	struct ls_table t2 = {8, hdr2, 0, NULL, 0, 0};
	struct ls_row *rows;
	size_t n;
	int rc;

	if ((rc = lock_rows(ls, po, lock_in_main, &rows, &n)))
		return rc;
	if (!n) {
		fprintf(out, "locks: none used\n");
		rows_free(rows, n);
		return 0;
	}
	for (size_t k = 0; k < shown(n, po->limit) && !rc; k++) {
		const struct lockstat_lock_info *i = &rows[k].l->info;
		uint64_t acq = i->write.acquisitions + i->read.acquisitions;
		uint64_t con = i->write.contended + i->read.contended;
		uint64_t wmax = i->write.wait.max_ns > i->read.wait.max_ns ? i->write.wait.max_ns
									   : i->read.wait.max_ns;
		uint64_t hmax = i->write.hold.max_ns > i->read.hold.max_ns ? i->write.hold.max_ns
									   : i->read.hold.max_ns;
		bool sem = i->type == LOCK_TYPE_SEM;
		B(a);
		B(c);
		B(cc);
		B(wt);
		B(wm);
		B(ht);
		B(hm);
		B(th);

		if (con)
			snprintf(cc, sizeof(cc), "%s (%.1f%%)", fmt_count(con, c, sizeof(c)),
				 acq ? 100.0 * (double)con / (double)acq : 100.0);
		else
			snprintf(cc, sizeof(cc), "0");
		rc = table_row(&t, rows[k].name, type_name(i->type), fmt_count(acq, a, sizeof(a)),
			       cc, fmt_ns(i->write.wait.total_ns + i->read.wait.total_ns, wt, 64),
			       fmt_ns(wmax, wm, 64),
			       sem ? "-"
				   : fmt_ns(i->write.hold.total_ns + i->read.hold.total_ns, ht, 64),
			       sem ? "-" : fmt_ns(hmax, hm, 64), fmt_count(i->threads, th, 64));
		if (rc || i->type == LOCK_TYPE_RWLOCK)
			continue; /* rwlocks get their own per-side table */
		{
			const struct lockstat_side *s = &i->write;
			B(wa);
			B(wp);
			B(ha);
			B(hp);
			B(oc);
			B(to);
			B(tf);

			rc = table_row(
			    &t2, rows[k].name,
			    s->wait.count ? fmt_ns(s->wait.total_ns / s->wait.count, wa, 64) : "-",
			    s->wait.count ? fmt_ns(s->wait.p99_ns, wp, 64) : "-",
			    sem || !s->hold.count
				? "-"
				: fmt_ns(s->hold.total_ns / s->hold.count, ha, 64),
			    sem || !s->hold.count ? "-" : fmt_ns(s->hold.p99_ns, hp, 64),
			    sem ? "-" : fmt_count(i->owner_changes, oc, 64),
			    fmt_count(s->timeouts, to, 64), fmt_count(s->try_failures, tf, 64));
		}
	}
	if (!rc) {
		fprintf(out, "locks (%zu of %zu, by %s):\n", shown(n, po->limit), n,
			po->sort == LOCKSTAT_SORT_ACQ	      ? "acquisitions"
			: po->sort == LOCKSTAT_SORT_CONTENDED ? "contended acquisitions"
			: po->sort == LOCKSTAT_SORT_HOLD      ? "hold time"
			: po->sort == LOCKSTAT_SORT_NAME      ? "name"
							      : "wait time");
		table_print(&t, out);
		print_more(out, n, po->limit);
		if (t2.nrows) {
			fprintf(out, "\nwait and hold details (semaphores have no hold time: any "
				     "thread may post):\n");
			table_print(&t2, out);
		}
	}
	table_free(&t);
	table_free(&t2);
	rows_free(rows, n);
	return rc;
}

static int print_rwlocks(struct lockstat *ls, FILE *out, const struct lockstat_print_opts *po)
{
	static const char *const hdr[] = {"rwlock",	"side",	    "acq",	  "contended",
					  "wait total", "wait max", "wait p99",	  "hold total",
					  "hold max",	"hold p99", "max readers"};
	struct ls_table t = {11, hdr, 1u << 1, NULL, 0, 0};
	struct ls_row *rows = NULL;
	size_t n = 0;
	int rc;

	if ((rc = lock_rows(ls, po, is_rwlock, &rows, &n)) || !n)
		goto out;
	for (size_t k = 0; k < shown(n, po->limit) && !rc; k++) {
		const struct lockstat_lock_info *i = &rows[k].l->info;

		for (int side = 0; side < 2 && !rc; side++) {
			const struct lockstat_side *s = side ? &i->read : &i->write;
			B(a);
			B(c);
			B(wt);
			B(wm);
			B(wp);
			B(ht);
			B(hm);
			B(hp);
			B(mr);

			rc = table_row(
			    &t, side ? "" : rows[k].name, side ? "read" : "write",
			    fmt_count(s->acquisitions, a, 64), fmt_count(s->contended, c, 64),
			    fmt_ns(s->wait.total_ns, wt, 64), fmt_ns(s->wait.max_ns, wm, 64),
			    fmt_ns(s->wait.p99_ns, wp, 64), fmt_ns(s->hold.total_ns, ht, 64),
			    fmt_ns(s->hold.max_ns, hm, 64), fmt_ns(s->hold.p99_ns, hp, 64),
			    side ? fmt_count(i->max_readers, mr, 64) : "-");
		}
	}
	if (!rc) {
		fprintf(out, "\nrwlocks, read and write sides:\n");
		table_print(&t, out);
		print_more(out, n, po->limit);
	}
out:
	table_free(&t);
	rows_free(rows, n);
	return rc;
}

static int print_conds(struct lockstat *ls, FILE *out, const struct lockstat_print_opts *po)
{
	static const char *const hdr[] = {"cond",	"waits",    "wakeups",
					  "timeouts",	"signals",  "broadcasts",
					  "wait total", "wait max", "wait p99"};
	struct ls_table t = {9, hdr, 0, NULL, 0, 0};
	struct ls_row *rows;
	size_t n;
	int rc;

	if ((rc = lock_rows(ls, po, is_cond, &rows, &n)))
		return rc;
	for (size_t k = 0; k < shown(n, po->limit) && !rc; k++) {
		const struct lockstat_lock_info *i = &rows[k].l->info;
		B(a);
		B(b);
		B(c);
		B(d);
		B(e);
		B(f);
		B(g);
		B(h);

		rc = table_row(
		    &t, rows[k].name, fmt_count(i->cond_waits, a, 64),
		    fmt_count(i->cond_wakeups, b, 64), fmt_count(i->cond_timeouts, c, 64),
		    fmt_count(i->cond_signals, d, 64), fmt_count(i->cond_broadcasts, e, 64),
		    fmt_ns(i->cond_wait.total_ns, f, 64), fmt_ns(i->cond_wait.max_ns, g, 64),
		    fmt_ns(i->cond_wait.p99_ns, h, 64));
	}
	if (!rc && n) {
		fprintf(out, "\ncondition variables (a wait is not a hold of its mutex):\n");
		table_print(&t, out);
		print_more(out, n, po->limit);
	}
	table_free(&t);
	rows_free(rows, n);
	return rc;
}

static int print_sems(struct lockstat *ls, FILE *out, const struct lockstat_print_opts *po)
{
	static const char *const hdr[] = {"semaphore", "waits",	   "contended",
					  "timeouts",  "posts",	   "wait total",
					  "wait max",  "wait p99", "hold"};
	struct ls_table t = {9, hdr, 0, NULL, 0, 0};
	struct ls_row *rows;
	size_t n;
	int rc;

	if ((rc = lock_rows(ls, po, is_sem, &rows, &n)))
		return rc;
	for (size_t k = 0; k < shown(n, po->limit) && !rc; k++) {
		const struct lockstat_lock_info *i = &rows[k].l->info;
		B(a);
		B(b);
		B(c);
		B(d);
		B(f);
		B(g);
		B(h);

		rc = table_row(
		    &t, rows[k].name, fmt_count(i->write.acquisitions, a, 64),
		    fmt_count(i->write.contended, b, 64), fmt_count(i->write.timeouts, c, 64),
		    fmt_count(i->posts, d, 64), fmt_ns(i->write.wait.total_ns, f, 64),
		    fmt_ns(i->write.wait.max_ns, g, 64), fmt_ns(i->write.wait.p99_ns, h, 64), "-");
	}
	if (!rc && n) {
		fprintf(out, "\nsemaphores (no hold time: any thread may post):\n");
		table_print(&t, out);
		print_more(out, n, po->limit);
	}
	table_free(&t);
	rows_free(rows, n);
	return rc;
}

static int print_barriers(struct lockstat *ls, FILE *out, const struct lockstat_print_opts *po)
{
	static const char *const hdr[] = {"barrier", "waits", "wait total", "wait max", "wait p99"};
	struct ls_table t = {5, hdr, 0, NULL, 0, 0};
	struct ls_row *rows;
	size_t n;
	int rc;

	if ((rc = lock_rows(ls, po, is_barrier, &rows, &n)))
		return rc;
	for (size_t k = 0; k < shown(n, po->limit) && !rc; k++) {
		const struct lockstat_lock_info *i = &rows[k].l->info;
		B(a);
		B(f);
		B(g);
		B(h);

		rc = table_row(&t, rows[k].name, fmt_count(i->barrier_waits, a, 64),
			       fmt_ns(i->barrier_wait.total_ns, f, 64),
			       fmt_ns(i->barrier_wait.max_ns, g, 64),
			       fmt_ns(i->barrier_wait.p99_ns, h, 64));
	}
	if (!rc && n) {
		fprintf(out, "\nbarriers:\n");
		table_print(&t, out);
		print_more(out, n, po->limit);
	}
	table_free(&t);
	rows_free(rows, n);
	return rc;
}

static uint64_t thread_key(const struct lockstat_thread_info *t, int sort)
{
	switch (sort) {
	case LOCKSTAT_SORT_ACQ:
		return t->acquisitions;
	case LOCKSTAT_SORT_CONTENDED:
		return t->contended;
	case LOCKSTAT_SORT_HOLD:
		return t->hold_ns;
	case LOCKSTAT_SORT_NAME:
		return 0; /* thread index order */
	default:
		return t->wait_ns + t->cond_wait_ns + t->barrier_wait_ns;
	}
}

static int thread_cmp(const void *a, const void *b, void *ctx)
{
	const struct lockstat_thread_info *x = *(const struct lockstat_thread_info *const *)a;
	const struct lockstat_thread_info *y = *(const struct lockstat_thread_info *const *)b;
	int sort = *(const int *)ctx;
	uint64_t kx = thread_key(x, sort), ky = thread_key(y, sort);

	if (kx != ky)
		return kx > ky ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static int print_threads(struct lockstat *ls, FILE *out, const struct lockstat_print_opts *po)
{
	static const char *const hdr[] = {"thread",	"name",	     "tid",
					  "acq",	"contended", "wait total",
					  "hold total", "cond wait", "barrier wait"};
	struct ls_table t = {9, hdr, 1u << 1, NULL, 0, 0};
	const struct lockstat_thread_info **v = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;

	for (size_t i = 0; i < ls->capthreads; i++) {
		const struct lockstat_thread_info *ti = lockstat_thread(ls, (uint32_t)i);

		if (!ti || !(ti->acquisitions || ti->wait_ns || ti->cond_wait_ns ||
			     ti->barrier_wait_ns || ti->hold_ns || ti->timeouts))
			continue;
		if ((rc = ls_grow((void **)&v, &cap, n + 1, sizeof(*v))))
			goto out;
		v[n++] = ti;
	}
	if (!n)
		goto out;
	qsort_r(v, n, sizeof(*v), thread_cmp, (void *)&po->sort);
	for (size_t k = 0; k < shown(n, po->limit) && !rc; k++) {
		const struct lockstat_thread_info *ti = v[k];
		B(ix);
		B(tid);
		B(a);
		B(c);
		B(w);
		B(h);
		B(cw);
		B(bw);

		snprintf(ix, sizeof(ix), "%u", ti->index);
		snprintf(tid, sizeof(tid), ti->defined ? "%u" : "?", ti->tid);
		rc = table_row(&t, ix, ti->name[0] ? ti->name : "-", tid,
			       fmt_count(ti->acquisitions, a, 64), fmt_count(ti->contended, c, 64),
			       fmt_ns(ti->wait_ns, w, 64), fmt_ns(ti->hold_ns, h, 64),
			       fmt_ns(ti->cond_wait_ns, cw, 64),
			       fmt_ns(ti->barrier_wait_ns, bw, 64));
	}
	if (!rc) {
		fprintf(out, "\nthreads:\n");
		table_print(&t, out);
		print_more(out, n, po->limit);
	}
out:
	table_free(&t);
	free(v);
	return rc;
}

static const char *lock_label(struct lockstat *ls, const struct lockstat_print_opts *po,
			      uint32_t idx, char *buf, size_t len)
{
	if (idx < ls->caplocks && ls->locks[idx])
		return lock_name(po, ls->locks[idx], buf, len);
	snprintf(buf, len, "lock#%u", idx);
	return buf;
}

static void print_cycles(struct lockstat *ls, FILE *out, const struct lockstat_print_opts *po)
{
	char a[512], b[512], sa[512], sb[512];

	if (ls->opts.no_order_graph)
		return;
	if (!ls->ncycles) {
		fprintf(out, "\npotential deadlocks: none (no cycle among %zu lock-order edges)\n",
			ls->nedges);
		return;
	}
	fprintf(out,
		"\npotential deadlocks (lock-order cycles; the run need not have deadlocked): "
		"%zu\n",
		ls->ncycles);
	for (size_t k = 0; k < ls->ncycles; k++) {
		const struct lockstat_cycle *c = &ls->cycles[k];

		fprintf(out, "  #%zu ", k + 1);
		for (size_t i = 0; i < c->n; i++)
			fprintf(out, "%s -> ", lock_label(ls, po, c->locks[i], a, sizeof(a)));
		fprintf(out, "%s%s\n", lock_label(ls, po, c->locks[0], a, sizeof(a)),
			c->has_read ? "  [involves rwlock read acquisitions]" : "");
		for (size_t i = 0; i < c->n; i++) {
			const struct lockstat_edge *e = c->edges[i];
			const struct lockstat_thread_info *ti = lockstat_thread(ls, e->thread);
			uint32_t pid = ti ? ti->pid : 0;
			const struct ls_lock *lf = ls->locks[e->from];

			if (lf && lf->info.pid)
				pid = lf->info.pid;
			fprintf(out, "     thread %u", e->thread);
			if (ti && ti->defined)
				fprintf(out, " (tid %u)", ti->tid);
			fprintf(out, " took %s%s at %s\n       while holding %s%s taken at %s\n",
				lock_label(ls, po, e->to, a, sizeof(a)),
				e->to_read ? " [read]" : "",
				fmt_site(po, pid, e->to_ip, sa, sizeof(sa)),
				lock_label(ls, po, e->from, b, sizeof(b)),
				e->from_read ? " [read]" : "",
				fmt_site(po, pid, e->from_ip, sb, sizeof(sb)));
		}
	}
}

static int site_cmp(const void *a, const void *b, void *ctx)
{
	const struct lockstat_site_pair *s = ctx;
	const struct lockstat_site_pair *x = &s[*(const uint32_t *)a],
					*y = &s[*(const uint32_t *)b];

	if (x->wait_total_ns != y->wait_total_ns)
		return x->wait_total_ns > y->wait_total_ns ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

/* Site indices sorted by wait time, descending. */
static uint32_t *sorted_sites(struct lockstat *ls)
{
	uint32_t *v = calloc(ls->nsites ? ls->nsites : 1, sizeof(*v));

	if (!v)
		return NULL;
	for (size_t i = 0; i < ls->nsites; i++)
		v[i] = (uint32_t)i;
	if (ls->nsites)
		qsort_r(v, ls->nsites, sizeof(*v), site_cmp, ls->sites);
	return v;
}

static const char *holder_site(struct lockstat *ls, const struct lockstat_print_opts *po,
			       const struct lockstat_site_pair *p, char *buf, size_t len)
{
	const struct ls_lock *l = ls->locks[p->lock];
	char tmp[480];

	if (l && l->info.type == LOCK_TYPE_SEM)
		return "-";
	fmt_site(po, p->pid, p->holder_ip, tmp, sizeof(tmp));
	snprintf(buf, len, "%s%s", tmp, p->holder_read && p->holder_ip ? " [reader]" : "");
	return buf;
}

static int print_sites(struct lockstat *ls, FILE *out, const struct lockstat_print_opts *po)
{
	static const char *const hdr[] = {"lock",  "waiter site", "holder site",
					  "count", "wait total",  "wait max"};
	struct ls_table t = {6, hdr, (1u << 1) | (1u << 2), NULL, 0, 0};
	char name[512], ws[512], hs[512];
	uint32_t *v;
	int rc = 0;

	if (!ls->nsites || !po->top_sites)
		return 0;
	v = sorted_sites(ls);
	if (!v)
		return -ENOMEM;
	for (size_t k = 0; k < shown(ls->nsites, po->top_sites) && !rc; k++) {
		const struct lockstat_site_pair *p = &ls->sites[v[k]];
		B(c);
		B(wt);
		B(wm);

		rc = table_row(&t, lock_label(ls, po, p->lock, name, sizeof(name)),
			       fmt_site(po, p->pid, p->waiter_ip, ws, sizeof(ws)),
			       holder_site(ls, po, p, hs, sizeof(hs)), fmt_count(p->count, c, 64),
			       fmt_ns(p->wait_total_ns, wt, 64), fmt_ns(p->wait_max_ns, wm, 64));
	}
	if (!rc) {
		fprintf(out,
			"\ntop contended call sites (waiter, and the holder when it waited):\n");
		table_print(&t, out);
		if (ls->nsites > po->top_sites)
			fprintf(out, "  ... %zu more (--top-sites N)\n",
				ls->nsites - po->top_sites);
	}
	table_free(&t);
	free(v);
	return rc;
}

int lockstat_print_text(struct lockstat *ls, FILE *out, const struct lockstat_print_opts *po)
{
	int rc;
	B(a);
	B(b);

	if (po->header)
		fprintf(out, "spool: %s lock events, %s lost, trace in %s/\n",
			fmt_count(ls->tot.lock_events, a, 64), fmt_count(ls->tot.lost, b, 64),
			po->trace_dir ? po->trace_dir : "?");
	if ((rc = print_locks_table(ls, out, po)) || (rc = print_threads(ls, out, po)) ||
	    (rc = print_rwlocks(ls, out, po)) || (rc = print_conds(ls, out, po)) ||
	    (rc = print_sems(ls, out, po)) || (rc = print_barriers(ls, out, po)))
		return rc;
	print_cycles(ls, out, po);
	if ((rc = print_sites(ls, out, po)))
		return rc;
	return ferror(out) ? -EIO : 0;
}

/* ---- JSON ------------------------------------------------------------- */

static void json_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

/* A call site: the symbolized name, or null without a symbolizer. */
static void json_site(FILE *out, const struct lockstat_print_opts *po, uint32_t pid, uint64_t ip)
{
	char buf[512];

	if (ip && po->symbolize &&
	    po->symbolize(po->symbolize_ctx, pid, ip, buf, sizeof(buf)) == 0 && buf[0])
		json_str(out, buf);
	else
		fputs("null", out);
}

static void json_dist(FILE *out, const struct lockstat_dist *d)
{
	fprintf(out,
		"{\"count\": %" PRIu64 ", \"total_ns\": %" PRIu64 ", \"avg_ns\": %" PRIu64
		", \"max_ns\": %" PRIu64 ", \"p99_ns\": %" PRIu64 "}",
		d->count, d->total_ns, d->count ? d->total_ns / d->count : 0, d->max_ns, d->p99_ns);
}

static void json_side(FILE *out, const struct lockstat_side *s, bool hold)
{
	fprintf(out,
		"{\"acquisitions\": %" PRIu64 ", \"try_acquisitions\": %" PRIu64
		", \"try_failures\": %" PRIu64 ", \"contended\": %" PRIu64
		", \"timeouts\": %" PRIu64 ", \"waiting_at_end\": %" PRIu64 ", \"wait\": ",
		s->acquisitions, s->try_acquisitions, s->try_failures, s->contended, s->timeouts,
		s->waiting_at_end);
	json_dist(out, &s->wait);
	fputs(", \"hold\": ", out);
	if (hold)
		json_dist(out, &s->hold);
	else
		fputs("null", out);
	fputc('}', out);
}

static void json_lock(struct lockstat *ls, FILE *out, const struct lockstat_print_opts *po,
		      const struct ls_row *row, const uint32_t *sites, size_t *sp)
{
	const struct lockstat_lock_info *i = &row->l->info;
	uint64_t acq = i->write.acquisitions + i->read.acquisitions;
	uint64_t con = i->write.contended + i->read.contended;
	bool holds = type_holds(i->type), first = true;

	fprintf(out, "    {\"index\": %u, \"name\": ", i->index);
	json_str(out, row->name);
	fprintf(out, ", \"type\": \"%s\", \"defined\": %s, \"addr\": %" PRIu64 ", \"pid\": %u",
		type_name(i->type), i->defined ? "true" : "false", i->addr, i->pid);
	fprintf(out, ", \"init_ip\": %" PRIu64 ", \"init_site\": ", i->init_ip);
	json_site(out, po, i->pid, i->init_ip);
	fprintf(out,
		",\n     \"events\": %" PRIu64 ", \"acquisitions\": %" PRIu64
		", \"contended\": %" PRIu64 ", \"contended_pct\": %.2f, \"owner_changes\": %" PRIu64
		", \"threads\": %" PRIu64 ", \"max_readers\": %" PRIu64
		", \"held_at_end\": %" PRIu64 ", \"unmatched_releases\": %" PRIu64
		", \"cond_reacquisitions\": %" PRIu64 ", \"inits\": %" PRIu64
		", \"destroys\": %" PRIu64 ", \"posts\": %" PRIu64
		",\n     \"wait_total_ns\": %" PRIu64 ", \"hold_total_ns\": %" PRIu64,
		i->events, acq, con, acq ? 100.0 * (double)con / (double)acq : 0.0,
		i->owner_changes, i->threads, i->max_readers, i->held_at_end, i->unmatched_releases,
		i->cond_reacquisitions, i->inits, i->destroys, i->posts,
		i->write.wait.total_ns + i->read.wait.total_ns,
		i->write.hold.total_ns + i->read.hold.total_ns);
	fputs(",\n     \"write\": ", out);
	json_side(out, &i->write, holds);
	fputs(",\n     \"read\": ", out);
	if (i->type == LOCK_TYPE_RWLOCK)
		json_side(out, &i->read, true);
	else
		fputs("null", out);
	fputs(",\n     \"cond\": ", out);
	if (i->type == LOCK_TYPE_COND) {
		fprintf(out,
			"{\"waits\": %" PRIu64 ", \"wakeups\": %" PRIu64 ", \"timeouts\": %" PRIu64
			", \"errors\": %" PRIu64 ", \"signals\": %" PRIu64
			", \"broadcasts\": %" PRIu64 ", \"waiting_at_end\": %" PRIu64
			", \"wait\": ",
			i->cond_waits, i->cond_wakeups, i->cond_timeouts, i->cond_errors,
			i->cond_signals, i->cond_broadcasts, i->cond_waiting_at_end);
		json_dist(out, &i->cond_wait);
		fputc('}', out);
	} else {
		fputs("null", out);
	}
	fputs(",\n     \"barrier\": ", out);
	if (i->type == LOCK_TYPE_BARRIER) {
		fprintf(out,
			"{\"waits\": %" PRIu64 ", \"serial\": %" PRIu64
			", \"waiting_at_end\": %" PRIu64 ", \"wait\": ",
			i->barrier_waits, i->barrier_serial, i->barrier_waiting_at_end);
		json_dist(out, &i->barrier_wait);
		fputc('}', out);
	} else {
		fputs("null", out);
	}
	fputs(",\n     \"sites\": [", out);
	/* sites are sorted by lock, then by wait time: consume this lock's run */
	for (; *sp < ls->nsites && ls->sites[sites[*sp]].lock == i->index; (*sp)++) {
		const struct lockstat_site_pair *p = &ls->sites[sites[*sp]];

		fprintf(out, "%s\n       {\"waiter_ip\": %" PRIu64 ", \"waiter_site\": ",
			first ? "" : ",", p->waiter_ip);
		json_site(out, po, p->pid, p->waiter_ip);
		fprintf(out, ", \"holder_ip\": %" PRIu64 ", \"holder_site\": ", p->holder_ip);
		json_site(out, po, p->pid, p->holder_ip);
		fprintf(out,
			", \"holder_read\": %s, \"count\": %" PRIu64 ", \"wait_total_ns\": %" PRIu64
			", \"wait_max_ns\": %" PRIu64 "}",
			p->holder_read ? "true" : "false", p->count, p->wait_total_ns,
			p->wait_max_ns);
		first = false;
	}
	fputs("]}", out);
}

static int site_lock_cmp(const void *a, const void *b, void *ctx)
{
	const struct lockstat_site_pair *s = ctx;
	const struct lockstat_site_pair *x = &s[*(const uint32_t *)a],
					*y = &s[*(const uint32_t *)b];

	if (x->lock != y->lock)
		return x->lock < y->lock ? -1 : 1;
	return site_cmp(a, b, ctx);
}

static int row_index_cmp(const void *a, const void *b)
{
	const struct ls_row *x = a, *y = b;

	return x->l->info.index < y->l->info.index ? -1 : x->l->info.index > y->l->info.index;
}

int lockstat_print_json(struct lockstat *ls, FILE *out, const struct lockstat_print_opts *po)
{
	struct ls_row *rows;
	uint32_t *sites;
	size_t n, sp = 0;
	bool first = true;
	int rc;

	if ((rc = lock_rows(ls, po, NULL, &rows, &n)))
		return rc;
	sites = sorted_sites(ls);
	if (!sites) {
		rows_free(rows, n);
		return -ENOMEM;
	}
	/* locks in index order so the sites (sorted by lock) can be walked once;
	 * JSON consumers sort as they like */
	if (n)
		qsort(rows, n, sizeof(*rows), row_index_cmp);
	if (ls->nsites)
		qsort_r(sites, ls->nsites, sizeof(*sites), site_lock_cmp, ls->sites);

	fprintf(out,
		"{\"schema\": \"spool-locks/1\",\n \"trace\": {\"events\": %" PRIu64
		", \"lock_events\": %" PRIu64 ", \"lost\": %" PRIu64 ", \"malformed\": %" PRIu64
		", \"first_ns\": %" PRIu64 ", \"last_ns\": %" PRIu64 ", \"duration_ns\": %" PRIu64
		", \"dir\": ",
		ls->tot.events, ls->tot.lock_events, ls->tot.lost, ls->tot.malformed,
		ls->tot.first_ns, ls->tot.last_ns, ls_dur(ls->tot.first_ns, ls->tot.last_ns));
	if (po->trace_dir)
		json_str(out, po->trace_dir);
	else
		fputs("null", out);
	fputs("},\n \"locks\": [", out);
	for (size_t k = 0; k < n; k++) {
		while (sp < ls->nsites && ls->sites[sites[sp]].lock < rows[k].l->info.index)
			sp++;
		fputs(k ? ",\n" : "\n", out);
		json_lock(ls, out, po, &rows[k], sites, &sp);
	}
	fputs("],\n \"threads\": [", out);
	for (size_t i = 0; i < ls->capthreads; i++) {
		const struct lockstat_thread_info *t = lockstat_thread(ls, (uint32_t)i);

		if (!t)
			continue;
		fprintf(out, "%s\n    {\"index\": %u, \"tid\": %u, \"pid\": %u, \"name\": ",
			first ? "" : ",", t->index, t->tid, t->pid);
		json_str(out, t->name);
		fprintf(out,
			", \"acquisitions\": %" PRIu64 ", \"contended\": %" PRIu64
			", \"timeouts\": %" PRIu64 ", \"wait_ns\": %" PRIu64
			", \"hold_ns\": %" PRIu64 ", \"cond_wait_ns\": %" PRIu64
			", \"barrier_wait_ns\": %" PRIu64 "}",
			t->acquisitions, t->contended, t->timeouts, t->wait_ns, t->hold_ns,
			t->cond_wait_ns, t->barrier_wait_ns);
		first = false;
	}
	fprintf(out, "],\n \"lock_order_edges\": %zu,\n \"deadlocks\": [", ls->nedges);
	for (size_t k = 0; k < ls->ncycles; k++) {
		const struct lockstat_cycle *c = &ls->cycles[k];

		fprintf(out, "%s\n    {\"length\": %zu, \"has_read\": %s, \"locks\": [",
			k ? "," : "", c->n, c->has_read ? "true" : "false");
		for (size_t i = 0; i < c->n; i++)
			fprintf(out, "%s%u", i ? ", " : "", c->locks[i]);
		fputs("], \"edges\": [", out);
		for (size_t i = 0; i < c->n; i++) {
			const struct lockstat_edge *e = c->edges[i];
			const struct lockstat_thread_info *t = lockstat_thread(ls, e->thread);
			const struct ls_lock *lf = ls->locks[e->from];
			uint32_t pid = lf && lf->info.pid ? lf->info.pid : t ? t->pid : 0;

			fprintf(out,
				"%s\n      {\"from\": %u, \"to\": %u, \"thread\": %u, \"tid\": %u, "
				"\"from_mode\": \"%s\", \"to_mode\": \"%s\", \"from_ip\": %" PRIu64
				", \"from_site\": ",
				i ? "," : "", e->from, e->to, e->thread, t ? t->tid : 0,
				e->from_read ? "read" : "write", e->to_read ? "read" : "write",
				e->from_ip);
			json_site(out, po, pid, e->from_ip);
			fprintf(out, ", \"to_ip\": %" PRIu64 ", \"to_site\": ", e->to_ip);
			json_site(out, po, pid, e->to_ip);
			fprintf(out, ", \"count\": %" PRIu64 ", \"first_ns\": %" PRIu64 "}",
				e->count, e->ns);
		}
		fputs("]}", out);
	}
	fputs("]}\n", out);
	free(sites);
	rows_free(rows, n);
	return ferror(out) ? -EIO : 0;
}
