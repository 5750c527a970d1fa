// SPDX-License-Identifier: MIT
/*
 * lockstat.c - the lock analyzer's state machine over lock events (see
 * lockstat.h): feeding, finishing, and the queries. The lock-order cycles are
 * found by lockstat_cycles.c, the reports printed by lockstat_print.c
 * (doc/report-locks.md); lockstat_int.h holds the state they share.
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
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../util/grow.h"
#include "lockstat_int.h"

/* Indices beyond this are taken for corruption rather than allocating a huge
 * direct-indexed array. */
#define LS_MAX_LOCKS (1u << 24)
/* With the input's size known (lockstat_opts.input_bytes): indices below
 * LS_FREE_LOCKS + input_bytes / LS_BYTES_PER_LOCK. Every lock the agent
 * numbers has a lock table event (45 bytes) and lock events (41 bytes or
 * more) in the trace, so a real trace stays far below. */
#define LS_FREE_LOCKS 4096u
#define LS_BYTES_PER_LOCK 8u

/* Frames kept per stack: the agent records at most 256 (--stacks caps lower) */
#define LS_MAX_FRAMES 256

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

struct lockstat_samples {
	uint64_t min;
	uint64_t *v; /* exact samples while rows == NULL */
	uint32_t nv, cap;
	uint64_t **rows; /* LS_ROWS rows of LS_SUB counters, each allocated on first use */
};

/* ---- helpers ---------------------------------------------------------- */

/* Grow *p (an array of elem-byte entries, *cap of them) to hold need; new
 * entries are zeroed. */
int lockstat_grow(void **p, size_t *cap, size_t need, size_t elem)
{
	return grow_zeroed(p, cap, need, elem);
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
		if ((rc = lockstat_grow((void **)&s->v, &cap, s->nv + 1, sizeof(*s->v))) < 0)
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

int lockstat_map_find(const struct ls_map *m, uint64_t h)
{
	struct ls_slot *s;

	if (!m->cap)
		return -1;
	s = map_probe(m, h, NULL, NULL, NULL);
	return s->idx1 ? (int)(s->idx1 - 1) : -1;
}

/* ---- stacks ----------------------------------------------------------- */

/* Copy n frames into a reused buffer that only grows. */
static int stk_set(struct ls_stk *d, const uint64_t *f, uint32_t n)
{
	if (n > d->cap) {
		uint64_t *nf = realloc(d->f, n * sizeof(*nf));

		if (!nf)
			return -ENOMEM;
		d->f = nf;
		d->cap = n;
	}
	if (n)
		memcpy(d->f, f, n * sizeof(*f));
	d->n = n;
	return 0;
}

/* Keep frames in a site pair or edge. The allocation is never smaller than
 * d->n frames, so it is only reallocated when a deeper stack replaces it. */
static int frames_set(struct lockstat_frames *d, const uint64_t *f, uint32_t n)
{
	if (n > d->n) {
		uint64_t *nf = realloc(d->ip, n * sizeof(*nf));

		if (!nf)
			return -ENOMEM;
		d->ip = nf;
	}
	if (n)
		memcpy(d->ip, f, n * sizeof(*f));
	d->n = n;
	return 0;
}

/* ---- tables ----------------------------------------------------------- */

static int lock_get(struct lockstat *ls, uint32_t idx, struct ls_lock **out)
{
	struct ls_lock *l;
	int rc;

	if (idx >= LS_MAX_LOCKS ||
	    (ls->opts.input_bytes &&
	     idx >= LS_FREE_LOCKS + ls->opts.input_bytes / LS_BYTES_PER_LOCK))
		return -EINVAL;
	if ((rc = lockstat_grow((void **)&ls->locks, &ls->caplocks, (size_t)idx + 1,
				sizeof(*ls->locks))))
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

	if ((rc = lockstat_grow((void **)&ls->threads, &ls->capthreads, (size_t)idx + 1,
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
	uint64_t h = ls_mix(((uint64_t)l->info.index << 32) | ti);
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
	if ((rc = lockstat_grow((void **)&ls->tls, &ls->captl, ls->ntl + 1, sizeof(*ls->tls))))
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

/* One contended acquisition: waiter thread ti with the frames of its
 * acquisition (those of its CONTEND: the same call), holder frames hstk. */
static int site_add(struct lockstat *ls, const struct ls_lock *l, const struct ls_tl *tl,
		    uint64_t wait, uint32_t ti, const uint64_t *wf, uint32_t nwf,
		    const struct ls_stk *hstk, uint32_t holder)
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
		if ((rc = lockstat_grow((void **)&ls->sites, &ls->capsites, ls->nsites + 1,
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
	/* keep the stacks of the longest wait, the first of equal ones */
	if (!p->count || wait > p->wait_max_ns) {
		p->sample_wait_ns = wait;
		p->waiter_thread = ti;
		p->holder_thread = holder ? holder - 1 : UINT32_MAX;
		if ((rc = frames_set(&p->waiter_stack, wf, nwf)) ||
		    (rc = frames_set(&p->holder_stack, hstk->f, hstk->n)))
			return rc;
	}
	p->count++;
	p->wait_total_ns += wait;
	if (wait > p->wait_max_ns)
		p->wait_max_ns = wait;
	return 0;
}

static int edge_add(struct lockstat *ls, const struct ls_held *from, uint32_t to, int to_read,
		    uint64_t to_ip, const uint64_t *to_f, uint32_t nto_f, uint32_t thread,
		    uint64_t ns)
{
	uint64_t h = ls_mix(((uint64_t)from->lock << 32) | to);
	struct lockstat_edge *e;
	struct ls_slot *s;
	int rc;

	if ((rc = map_reserve(&ls->edgemap)))
		return rc;
	s = map_probe(&ls->edgemap, h, NULL, NULL, NULL);
	if (!s->idx1) {
		if ((rc = lockstat_grow((void **)&ls->edges, &ls->capedges, ls->nedges + 1,
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
		if ((rc = frames_set(&e->from_stack, from->stk.f, from->stk.n)) ||
		    (rc = frames_set(&e->to_stack, to_f, nto_f)))
			return rc;
	}
	ls->edges[s->idx1 - 1].count++;
	return 0;
}

/* ---- feeding ---------------------------------------------------------- */

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

/* fr: the nfr frames the record carries above r->ip (--stacks) */
static int do_acquire(struct lockstat *ls, struct ls_lock *l, struct ls_thread *t, struct ls_tl *tl,
		      const struct rec_lock *r, const uint64_t *fr, uint32_t nfr, uint64_t ns,
		      bool read, bool try)
{
	struct lockstat_side *side = read ? &l->info.read : &l->info.write;
	uint32_t ti = t->info.index;
	struct ls_held *hd;
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
			tl->contend_holder = l->last_holder;
			if ((rc = stk_set(&tl->contend_holder_stk, l->last_holder_stk.f,
					  l->last_holder_stk.n)))
				return rc;
		}
		side->contended++;
		t->info.contended++;
		t->info.wait_ns += wait;
		if ((rc = dist_add(&side->wait, wait)) ||
		    (rc = site_add(ls, l, tl, wait, ti, fr, nfr, &tl->contend_holder_stk,
				   tl->contend_holder)))
			return rc;
	}
	if (t->cond_mutex == l->info.index) {
		t->cond_mutex = 0;
		l->info.cond_reacquisitions++;
	}
	if (!ls_type_holds(l->info.type))
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
		l->reader = ti + 1;
		if (l->readers > l->info.max_readers)
			l->info.max_readers = l->readers;
		rc = stk_set(&l->reader_stk, fr, nfr);
	} else {
		l->wholder = ti + 1;
		l->wholder_ip = r->ip;
		rc = stk_set(&l->wholder_stk, fr, nfr);
	}
	if (rc)
		return rc;
	/* Lock order: a trylock never blocks, so it cannot close a deadlock
	 * cycle; it is still held, and later acquisitions order after it. */
	if (!try && !ls->opts.no_order_graph)
		for (uint32_t i = 0; i < t->nheld; i++)
			if (t->held[i].lock != l->info.index &&
			    (rc = edge_add(ls, &t->held[i], l->info.index, read, r->ip, fr, nfr, ti,
					   ns)))
				return rc;
	{
		size_t cap = t->capheld;

		if ((rc = lockstat_grow((void **)&t->held, &cap, t->nheld + 1, sizeof(*t->held))))
			return rc;
		t->capheld = (uint32_t)cap;
	}
	/* the entry past nheld may own a buffer from an earlier hold: reuse it */
	hd = &t->held[t->nheld];
	hd->lock = l->info.index;
	hd->read = read;
	hd->ip = r->ip;
	if ((rc = stk_set(&hd->stk, fr, nfr)))
		return rc;
	t->nheld++;
	return 0;
}

static void drop_held(struct ls_thread *t, uint32_t lock)
{
	for (uint32_t i = t->nheld; i-- > 0;)
		if (t->held[i].lock == lock) {
			/* swap, so that every entry keeps its own buffer */
			struct ls_held tmp = t->held[i];

			t->held[i] = t->held[--t->nheld];
			t->held[t->nheld] = tmp;
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
		struct ls_stk tmp = l->last_holder_stk;

		l->wholder = 0;
		l->last_holder = t->info.index + 1;
		l->last_holder_ip = tl->hold_ip;
		/* the hold's frames become the last holder's: swap the buffers
		 * (wholder_stk is rewritten by the next exclusive hold) */
		l->last_holder_stk = l->wholder_stk;
		l->wholder_stk = tmp;
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

/* A FUTEX_WAIT returned (COND_WAKE): its wait, and when the thread was
 * woken (not EAGAIN: it never slept) a site pair (wait site, last wake
 * site) as for a contended acquisition. */
static int futex_woken(struct lockstat *ls, struct ls_lock *l, struct ls_thread *t,
		       struct ls_tl *tl, const struct rec_lock *r, uint32_t nfr, uint64_t ns)
{
	uint64_t wait = ls_dur(tl->wait_ns, ns);
	int rc;

	t->info.futex_wait_ns += wait;
	if ((rc = dist_add(&l->info.cond_wait, wait)))
		return rc;
	if (r->arg != 0)
		return 0;
	tl->contend_holder_ip = l->last_holder != t->info.index + 1 ? l->last_holder_ip : 0;
	tl->contend_holder = l->last_holder != t->info.index + 1 ? l->last_holder : 0;
	tl->contend_holder_read = 0;
	if ((rc = stk_set(&tl->contend_holder_stk, tl->contend_holder ? l->last_holder_stk.f : NULL,
			  tl->contend_holder ? l->last_holder_stk.n : 0)))
		return rc;
	return site_add(ls, l, tl, wait, t->info.index, r->stack, nfr, &tl->contend_holder_stk,
			tl->contend_holder);
}

static int feed_lock(struct lockstat *ls, const struct trace_event *ev)
{
	const struct rec_lock *r = (const struct rec_lock *)ev->rec;
	uint64_t w = r->h.word, ns = ev->ns;
	unsigned op = ev_op(w);
	struct ls_thread *t;
	struct ls_lock *l;
	struct ls_tl *tl;
	uint32_t nfr;
	int rc;

	if (r->h.size < sizeof(*r))
		return -EINVAL;
	if (ev_op_is_thread(op))
		ls->tot.thread_events++;
	else
		ls->tot.lock_events++;
	/* --stacks: frames after the fixed part; a corrupt size cannot make
	 * the kept stacks grow without bound */
	nfr = (r->h.size - (uint32_t)sizeof(*r)) / 8;
	if (nfr > LS_MAX_FRAMES)
		nfr = LS_MAX_FRAMES;
	if (nfr)
		ls->tot.stack_events++;
	if (ev_op_is_thread(op))
		return 0; /* thread lifecycle: not a lock */
	if ((rc = thread_get(ls, ev->thread, &t)) || (rc = lock_get(ls, ev_obj(w), &l)))
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
		tl->contend_holder = 0;
		tl->contend_holder_stk.n = 0;
		if (!ls_type_holds(l->info.type))
			break;
		/* copy the holder's frames now: by the time we get the lock,
		 * another hold may have replaced them */
		if (l->wholder && l->wholder != t->info.index + 1) {
			tl->contend_holder_ip = l->wholder_ip;
			tl->contend_holder = l->wholder;
			return stk_set(&tl->contend_holder_stk, l->wholder_stk.f, l->wholder_stk.n);
		} else if (l->readers) {
			tl->contend_holder_ip = l->reader_ip;
			tl->contend_holder_read = 1;
			tl->contend_holder = l->reader;
			return stk_set(&tl->contend_holder_stk, l->reader_stk.f, l->reader_stk.n);
		}
		break;
	case OP_ACQUIRE:
	case OP_ACQUIRE_TRY:
	case OP_ACQUIRE_RD:
	case OP_ACQUIRE_TRY_RD:
		return do_acquire(ls, l, t, tl, r, r->stack, nfr, ns,
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
		if (l->info.type == LOCK_TYPE_FUTEX) {
			/* the waker is known only at the wake-up: the last
			 * FUTEX_WAKE seen on the word before it */
			if (!tl->futex_waited) {
				tl->futex_waited = 1;
				l->info.futex_waiters++;
			}
			tl->contend_ip = r->ip;
			return 0;
		}
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
		if (l->info.type == LOCK_TYPE_FUTEX)
			return futex_woken(ls, l, t, tl, r, nfr, ns);
		t->info.cond_wait_ns += ls_dur(tl->wait_ns, ns);
		return dist_add(&l->info.cond_wait, ls_dur(tl->wait_ns, ns));
	case OP_COND_SIGNAL:
	case OP_COND_BROADCAST:
		if (op == OP_COND_SIGNAL)
			l->info.cond_signals++;
		else
			l->info.cond_broadcasts++;
		if (l->info.type != LOCK_TYPE_FUTEX)
			break;
		if (!tl->futex_woke) {
			tl->futex_woke = 1;
			l->info.futex_wakers++;
		}
		/* the waker stands where a holder would: the site pairs of a
		 * futex are (wait site, wake site) */
		l->last_holder = t->info.index + 1;
		l->last_holder_ip = r->ip;
		return stk_set(&l->last_holder_stk, r->stack, nfr);
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
	if ((rc = thread_get(ls, ev->thread, &t)))
		return rc;
	t->info.defined = 1;
	t->info.tid = r->tid;
	t->info.pid = r->pid;
	memcpy(t->info.name, r->name, sizeof(r->name));
	t->info.name[sizeof(r->name)] = 0;
	return tname_note(&ls->tnames, r->pid, r->tid, ev->thread);
}

/* A thread named after its start: the last name wins. A rename of a thread
 * whose start is not read yet names it in that start's record already (the
 * agent reads the name when it registers the thread). */
static int feed_tname(struct lockstat *ls, const struct trace_event *ev)
{
	uint32_t pid, tid, th;
	struct ls_thread *t;
	char name[17];
	int rc;

	if (tname_event(ev, &pid, &tid, name))
		return -EINVAL;
	if (tname_find(&ls->tnames, pid, tid, &th))
		return 0;
	if ((rc = thread_get(ls, th, &t)))
		return rc;
	memcpy(t->info.name, name, sizeof(t->info.name));
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
	case KIND_TNAME:
		rc = feed_tname(ls, ev);
		break;
	default:
		rc = 0;
		break;
	}
	if (rc == -EINVAL)
		ls->tot.malformed++;
	return rc;
}

void lockstat_set_loss(struct lockstat *ls, const struct trace_loss *l)
{
	ls->tot.lost = trace_loss_events(l);
	ls->tot.incomplete = trace_loss_incomplete(l);
	ls->tot.unfinished = l->state == TRACE_STATE_UNFINISHED;
	ls->tot.loss = *l;
}

/* ---- finish: open states, percentiles, cycles -------------------------- */

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
				if (l->info.type == LOCK_TYPE_FUTEX)
					t->info.futex_wait_ns += wait;
				else
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
		return lockstat_find_cycles(ls);
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
		free(l->wholder_stk.f);
		free(l->last_holder_stk.f);
		free(l->reader_stk.f);
		free(l);
	}
	free(ls->locks);
	tname_free(&ls->tnames);
	for (size_t i = 0; i < ls->capthreads; i++) {
		struct ls_thread *t = ls->threads[i];

		if (!t)
			continue;
		/* every entry up to capheld may own a buffer (see drop_held) */
		for (uint32_t k = 0; k < t->capheld; k++)
			free(t->held[k].stk.f);
		free(t->held);
		free(t);
	}
	free(ls->threads);
	for (size_t i = 0; i < ls->ntl; i++)
		free(ls->tls[i].contend_holder_stk.f);
	free(ls->tls);
	free(ls->tlmap.slots);
	for (size_t i = 0; i < ls->nsites; i++) {
		free(ls->sites[i].waiter_stack.ip);
		free(ls->sites[i].holder_stack.ip);
	}
	free(ls->sites);
	free(ls->sitemap.slots);
	for (size_t i = 0; i < ls->nedges; i++) {
		free(ls->edges[i].from_stack.ip);
		free(ls->edges[i].to_stack.ip);
	}
	free(ls->edges);
	free(ls->edgemap.slots);
	lockstat_cycles_free(ls);
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
