// SPDX-License-Identifier: MIT
/*
 * gdbsrv_rev.c - history and reverse execution for `spool replay
 * --gdbserver` (gdbsrv_int.h says what a position is).
 *
 * Forward, every resume gdb asks for is appended to the history: the
 * threads' actions, the breakpoints and watchpoints inserted, one stop.
 * Going back needs no hardware counter: the replay is deterministic, so
 *
 *   reverse-continue (bc): a replay positioned before the current point P
 *   (gdbsrv_start_before: today the beginning; checkpoints later) runs the
 *   history again with gdb's breakpoints and watchpoints added to each
 *   command's, counting the stops; the last breakpoint or watchpoint hit
 *   before P is the answer, named as "command i with the merged set, m
 *   stops". A breakpoint is reached by running there. A watchpoint stops
 *   before the write, as gdb expects in reverse: from the stop before it,
 *   the writing thread is single-stepped (the others run) up to the write,
 *   counting its steps c; the answer is c - 1 steps.
 *
 *   reverse-step (bs): from the stop before P, the thread is single-stepped
 *   (the others run) until P's stop happens again, counting the steps c;
 *   the answer is c - 1 steps from there.
 *
 * Each is two or three replays from the start plus the single-steps of the
 * last stretch (doc/record.md, "Reverse execution", has the figures).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/log.h"
#include "gdbsrv_int.h"

int gdbsrv_cfg_has_bp(const struct gdbsrv_cfg *c, uint64_t addr)
{
	for (uint32_t i = 0; i < c->nbp; i++)
		if (c->bp[i] == addr)
			return 1;
	return 0;
}

int gdbsrv_cfg_find_wp(const struct gdbsrv_cfg *c, const struct gdbsrv_wp *w)
{
	for (uint32_t i = 0; i < c->nwp; i++)
		if (c->wp[i].addr == w->addr && c->wp[i].len == w->len && c->wp[i].type == w->type)
			return (int)i;
	return -1;
}

int gdbsrv_cfg_union(struct gdbsrv_cfg *dst, const struct gdbsrv_cfg *a,
		     const struct gdbsrv_cfg *b)
{
	struct gdbsrv_cfg u = *a;

	for (uint32_t i = 0; i < b->nbp; i++) {
		if (gdbsrv_cfg_has_bp(&u, b->bp[i]))
			continue;
		if (u.nbp >= GDBSRV_MAX_BP)
			return -ENOSPC;
		u.bp[u.nbp++] = b->bp[i];
	}
	for (uint32_t i = 0; i < b->nwp; i++) {
		if (gdbsrv_cfg_find_wp(&u, &b->wp[i]) >= 0)
			continue;
		if (u.nwp >= GDBSRV_MAX_WP)
			return -ENOSPC;
		u.wp[u.nwp++] = b->wp[i];
	}
	*dst = u;
	return 0;
}

int gdbsrv_pos_push(struct gdbsrv_pos *p, const struct gdbsrv_cmd *c)
{
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 16;
		struct gdbsrv_cmd *v = realloc(p->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		p->v = v;
		p->cap = cap;
	}
	p->v[p->n++] = *c;
	return 0;
}

void gdbsrv_pos_free(struct gdbsrv_pos *p)
{
	free(p->v);
	memset(p, 0, sizeof(*p));
}

uint64_t gdbsrv_pos_stops(const struct gdbsrv_pos *p)
{
	uint64_t n = 0;

	for (size_t i = 0; i < p->n; i++)
		n += p->v[i].nstops;
	return n;
}

static int pos_copy(struct gdbsrv_pos *dst, const struct gdbsrv_pos *src, size_t n)
{
	dst->n = 0;
	for (size_t i = 0; i < n && i < src->n; i++)
		if (gdbsrv_pos_push(dst, &src->v[i]) < 0)
			return -ENOMEM;
	return 0;
}

static int same_cmd(const struct gdbsrv_cmd *a, const struct gdbsrv_cmd *b)
{
	return a->step_vidx == b->step_vidx && a->others_run == b->others_run &&
	       !memcmp(&a->cfg, &b->cfg, sizeof(a->cfg));
}

/* Append c, merged into the last command when it is the same resume. */
static int pos_append(struct gdbsrv_pos *p, const struct gdbsrv_cmd *c)
{
	if (!c->nstops)
		return 0;
	if (p->n && same_cmd(&p->v[p->n - 1], c)) {
		p->v[p->n - 1].nstops += c->nstops;
		return 0;
	}
	return gdbsrv_pos_push(p, c);
}

int gdbsrv_start_before(struct gdbsrv *s, const struct gdbsrv_pos *p, struct gdbsrv_pos *at)
{
	int rc;

	(void)p;
	gdbsrv_inf_kill(&s->inf);
	/* the program's output was shown by the first replay (debugging
	 * spool: SPOOL_GDBSRV_DEBUG=1 shows every replay's) */
	s->inf.quiet_output = !(getenv("SPOOL_GDBSRV_DEBUG") && *getenv("SPOOL_GDBSRV_DEBUG") == '1');
	rc = gdbsrv_inf_start(&s->inf);
	if (rc < 0)
		return rc;
	s->replays++;
	at->n = 0;
	return 0;
}

static int run_stops(struct gdbsrv *s, const struct gdbsrv_cmd *c, uint64_t n,
		     struct gdbsrv_stop *st)
{
	gdbsrv_inf_set_cfg(&s->inf, &c->cfg);
	for (uint64_t k = 0; k < n; k++) {
		int rc = gdbsrv_inf_resume(&s->inf, c->step_vidx, c->others_run, NULL, st);

		if (rc < 0)
			return rc;
		if (st->kind == GDBSRV_STOP_EXIT && k + 1 < n)
			return -ECHILD;
	}
	return 0;
}

/* A replay at p: a replay started before it, then forward. */
static int goto_pos(struct gdbsrv *s, const struct gdbsrv_pos *p, struct gdbsrv_stop *st)
{
	struct gdbsrv_pos at = {0};
	size_t i0;
	uint64_t done = 0;
	int rc;

	memset(st, 0, sizeof(*st));
	st->kind = GDBSRV_STOP_START;
	rc = gdbsrv_start_before(s, p, &at);
	if (rc < 0)
		goto out;
	i0 = at.n;
	if (at.n && at.v[at.n - 1].nstops < p->v[at.n - 1].nstops) {
		i0 = at.n - 1;
		done = at.v[i0].nstops;
	}
	for (size_t i = i0; i < p->n; i++, done = 0) {
		rc = run_stops(s, &p->v[i], p->v[i].nstops - done, st);
		if (rc < 0) {
			log_err("gdbserver: the replay did not reach the same point again "
				"(command %zu of %zu): %s",
				i + 1, p->n, strerror(-rc));
			goto out;
		}
	}
out:
	gdbsrv_pos_free(&at);
	return rc;
}

int gdbsrv_forward(struct gdbsrv *s, int step_vidx, int others_run, struct gdbsrv_stop *st)
{
	struct gdbsrv_cmd c;
	int rc;

	memset(&c, 0, sizeof(c));
	c.step_vidx = step_vidx;
	c.others_run = others_run;
	c.cfg = s->user;
	c.nstops = 1;
	gdbsrv_inf_set_cfg(&s->inf, &s->user);
	rc = gdbsrv_inf_resume(&s->inf, step_vidx, others_run, &s->rsp, st);
	if (rc < 0)
		return rc;
	if (st->kind == GDBSRV_STOP_INTR) {
		/* a point between two stops has no name: going back from
		 * here is refused (the flag is the impossible count) */
		c.nstops = 0;
		c.step_vidx = -2;
		return gdbsrv_pos_push(&s->hist, &c);
	}
	return pos_append(&s->hist, &c);
}

static int hist_named(const struct gdbsrv_pos *p)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->v[i].step_vidx == -2)
			return 0;
	return 1;
}

/* Stop st ended command c (it would have stopped there without the extra
 * breakpoints)? */
static int is_orig(struct gdbsrv *s, const struct gdbsrv_stop *st, const struct gdbsrv_cmd *c)
{
	struct gdbsrv_thread *t;

	switch (st->kind) {
	case GDBSRV_STOP_EXIT:
	case GDBSRV_STOP_SIGNAL:
		return 1;
	case GDBSRV_STOP_BP:
		return gdbsrv_cfg_has_bp(&c->cfg, st->addr);
	case GDBSRV_STOP_WATCH:
		return gdbsrv_cfg_find_wp(&c->cfg, &st->wp) >= 0;
	case GDBSRV_STOP_STEP:
		if (st->vidx == c->step_vidx)
			return 1;
		t = gdbsrv_inf_vthread(&s->inf, st->vidx);
		return t && gdbsrv_cfg_has_bp(&c->cfg, gdbsrv_inf_pc(&s->inf, t));
	default:
		return 0;
	}
}

/* A hit of gdb's breakpoints or watchpoints b? */
static int is_hit(struct gdbsrv *s, const struct gdbsrv_stop *st, const struct gdbsrv_cfg *b)
{
	struct gdbsrv_thread *t;

	switch (st->kind) {
	case GDBSRV_STOP_BP:
		return gdbsrv_cfg_has_bp(b, st->addr);
	case GDBSRV_STOP_WATCH:
		return gdbsrv_cfg_find_wp(b, &st->wp) >= 0;
	case GDBSRV_STOP_STEP:
		t = gdbsrv_inf_vthread(&s->inf, st->vidx);
		return t && gdbsrv_cfg_has_bp(b, gdbsrv_inf_pc(&s->inf, t));
	default:
		return 0;
	}
}

/* SPOOL_GDBSRV_DEBUG=1: every stop of the reverse searches on stderr */
static void dbg_stop(struct gdbsrv *s, const char *where, const struct gdbsrv_stop *st)
{
	static int on = -1;
	struct gdbsrv_thread *t;

	if (on < 0)
		on = getenv("SPOOL_GDBSRV_DEBUG") && *getenv("SPOOL_GDBSRV_DEBUG") == '1';
	if (!on)
		return;
	t = gdbsrv_inf_vthread(&s->inf, st->vidx);
	fprintf(stderr, "gdbsrv: %s: stop kind %d thread %d addr %#llx pc %#llx\n", where, st->kind,
		st->vidx, (unsigned long long)st->addr,
		(unsigned long long)(t ? gdbsrv_inf_pc(&s->inf, t) : 0));
}

static void stop_begin(struct gdbsrv *s, struct gdbsrv_stop *st)
{
	memset(st, 0, sizeof(*st));
	st->kind = GDBSRV_STOP_START;
	st->vidx = s->inf.nth ? s->inf.th[0].vidx : 0;
	st->tid = s->inf.nth ? s->inf.th[0].tid : 0;
}

/* From the current point, thread vidx steps (the others run) with c's set
 * until a stop of c's kind (until_orig) or the watchpoint w in vidx; the
 * number of resumes is *n. */
static int step_until(struct gdbsrv *s, int vidx, const struct gdbsrv_cmd *c,
		      const struct gdbsrv_wp *w, uint64_t *n, struct gdbsrv_stop *st)
{
	gdbsrv_inf_set_cfg(&s->inf, &c->cfg);
	for (*n = 1;; (*n)++) {
		int rc = gdbsrv_inf_resume(&s->inf, vidx, 1, NULL, st);

		if (rc < 0)
			return rc;
		dbg_stop(s, "step", st);
		if (st->kind == GDBSRV_STOP_EXIT)
			return -ECHILD;
		if (w ? st->kind == GDBSRV_STOP_WATCH && st->vidx == vidx &&
				!memcmp(&st->wp, w, sizeof(*w))
		      : is_orig(s, st, c))
			return 0;
	}
}

int gdbsrv_reverse_continue(struct gdbsrv *s, struct gdbsrv_stop *st)
{
	struct gdbsrv_pos p = {0}, target = {0}, at = {0};
	struct gdbsrv_stop hit = {0}, cur;
	struct gdbsrv_cmd m;
	size_t ci = 0;
	uint64_t cm = 0, n;
	int rc, found = 0;

	if (!hist_named(&s->hist)) {
		log_err("gdbserver: cannot go back from a point reached by an interrupt");
		return -EINVAL;
	}
	rc = pos_copy(&p, &s->hist, s->hist.n);
	if (rc < 0)
		goto out;
	rc = gdbsrv_start_before(s, &p, &at);
	if (rc < 0)
		goto out;
	/* pass 1: the last hit of gdb's set before the current point */
	for (size_t i = 0; i < p.n; i++) {
		uint64_t o = 0, mm = 0;

		m = p.v[i];
		rc = gdbsrv_cfg_union(&m.cfg, &p.v[i].cfg, &s->user);
		if (rc < 0)
			goto out;
		gdbsrv_inf_set_cfg(&s->inf, &m.cfg);
		while (o < p.v[i].nstops) {
			int orig, last;

			rc = gdbsrv_inf_resume(&s->inf, m.step_vidx, m.others_run, NULL, &cur);
			if (rc < 0)
				goto out;
			mm++;
			dbg_stop(s, "search", &cur);
			orig = is_orig(s, &cur, &p.v[i]);
			last = i + 1 == p.n && orig && o + 1 == p.v[i].nstops;
			if (!last && is_hit(s, &cur, &s->user)) {
				found = 1;
				ci = i;
				cm = mm;
				hit = cur;
			}
			o += (uint64_t)orig;
			if (cur.kind == GDBSRV_STOP_EXIT && !last) {
				rc = -ECHILD;
				log_err("gdbserver: the replay ended before the current point");
				goto out;
			}
		}
	}
	if (!found) { /* back to the start: gdb says "No more reverse-execution history" */
		target.n = 0;
		rc = goto_pos(s, &target, st);
		if (rc < 0)
			goto out;
		stop_begin(s, st);
		st->code = 1;
		s->hist.n = 0;
		goto out;
	}
	rc = pos_copy(&target, &p, ci);
	if (rc < 0)
		goto out;
	m = p.v[ci];
	gdbsrv_cfg_union(&m.cfg, &p.v[ci].cfg, &s->user);
	m.nstops = hit.kind == GDBSRV_STOP_WATCH ? cm - 1 : cm;
	if ((rc = pos_append(&target, &m)) < 0)
		goto out;
	if (hit.kind == GDBSRV_STOP_WATCH) {
		/* before the write: step its thread up to it from the stop
		 * before, and stop one step short */
		rc = goto_pos(s, &target, st);
		if (rc < 0)
			goto out;
		rc = step_until(s, hit.vidx, &m, &hit.wp, &n, st);
		if (rc < 0) {
			log_err("gdbserver: the write did not happen again: %s", strerror(-rc));
			goto out;
		}
		m.step_vidx = hit.vidx;
		m.others_run = 1;
		m.nstops = n - 1;
		if ((rc = pos_append(&target, &m)) < 0)
			goto out;
	}
	rc = goto_pos(s, &target, st);
	if (rc < 0)
		goto out;
	*st = hit;
	{
		struct gdbsrv_thread *t = gdbsrv_inf_vthread(&s->inf, hit.vidx);

		st->tid = t ? t->tid : 0;
	}
	rc = pos_copy(&s->hist, &target, target.n);
out:
	gdbsrv_pos_free(&p);
	gdbsrv_pos_free(&target);
	gdbsrv_pos_free(&at);
	return rc;
}

int gdbsrv_reverse_step(struct gdbsrv *s, int vidx, struct gdbsrv_stop *st)
{
	struct gdbsrv_pos q = {0};
	struct gdbsrv_cmd c, m;
	uint64_t n = 1;
	int rc;

	if (!hist_named(&s->hist)) {
		log_err("gdbserver: cannot go back from a point reached by an interrupt");
		return -EINVAL;
	}
	if (!s->hist.n) { /* at the first instruction */
		stop_begin(s, st);
		st->code = 1;
		return 0;
	}
	c = s->hist.v[s->hist.n - 1];
	rc = pos_copy(&q, &s->hist, s->hist.n);
	if (rc < 0)
		goto out;
	if (--q.v[q.n - 1].nstops == 0)
		q.n--;
	/* the command stepped this very thread: the stop before is the
	 * instruction before */
	if (c.step_vidx != vidx) {
		rc = goto_pos(s, &q, st);
		if (rc < 0)
			goto out;
		rc = step_until(s, vidx, &c, NULL, &n, st);
		if (rc < 0) {
			log_err("gdbserver: the stop did not happen again: %s", strerror(-rc));
			goto out;
		}
		memset(&m, 0, sizeof(m));
		m.step_vidx = vidx;
		m.others_run = 1;
		m.cfg = c.cfg;
		m.nstops = n - 1;
		if ((rc = pos_append(&q, &m)) < 0)
			goto out;
	}
	rc = goto_pos(s, &q, st);
	if (rc < 0)
		goto out;
	memset(st, 0, sizeof(*st));
	st->kind = GDBSRV_STOP_STEP;
	st->vidx = vidx;
	{
		struct gdbsrv_thread *t = gdbsrv_inf_vthread(&s->inf, vidx);

		st->tid = t ? t->tid : 0;
	}
	rc = pos_copy(&s->hist, &q, q.n);
out:
	gdbsrv_pos_free(&q);
	return rc;
}
