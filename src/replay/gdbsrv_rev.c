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
 *   (gdbsrv_start_before: a copy of the latest checkpoint before P,
 *   gdbsrv_ckpt.c, else the beginning) runs the history again with gdb's breakpoints and watchpoints added to each
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
 * Each is two or three replays from a checkpoint or the start plus the
 * single-steps of the last stretch (doc/record.md, "Reverse execution",
 * has the figures).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/log.h"
#include "gdbsrv_int.h"

#define GDBSRV_PASS_CKPT 64

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

int gdbsrv_pos_copy(struct gdbsrv_pos *dst, const struct gdbsrv_pos *src, size_t n)
{
	dst->n = 0;
	for (size_t i = 0; i < n && i < src->n; i++)
		if (gdbsrv_pos_push(dst, &src->v[i]) < 0)
			return -ENOMEM;
	return 0;
}
#define pos_copy gdbsrv_pos_copy

static int same_cmd(const struct gdbsrv_cmd *a, const struct gdbsrv_cmd *b)
{
	return a->step_vidx == b->step_vidx && a->others_run == b->others_run &&
	       a->until_pc == b->until_pc && a->to_turn == b->to_turn &&
	       !memcmp(&a->cfg, &b->cfg, sizeof(a->cfg));
}

/* A command with nothing known of its turns. */
static void cmd_init(struct gdbsrv_cmd *c)
{
	memset(c, 0, sizeof(*c));
	c->turn_first = c->turn_last = UINT64_MAX;
}

/* A command that steps a thread to an instruction names its point by the
 * times the thread reached it since the command began: it can only be
 * resumed from its start, so a prefix ends it whole. */
int gdbsrv_pos_resume_at(const struct gdbsrv_pos *p, const struct gdbsrv_pos *at, size_t *i0,
			 uint64_t *done0)
{
	size_t k;

	if (at->n > p->n)
		return -1;
	*i0 = 0;
	*done0 = 0;
	if (!at->n)
		return 0;
	k = at->n - 1;
	for (size_t i = 0; i < k; i++)
		if (!same_cmd(&at->v[i], &p->v[i]) || at->v[i].nstops != p->v[i].nstops)
			return -1;
	if (!same_cmd(&at->v[k], &p->v[k]) || at->v[k].nstops > p->v[k].nstops)
		return -1;
	if (at->v[k].nstops == p->v[k].nstops) {
		*i0 = k + 1;
		return 0;
	}
	if (at->v[k].until_pc)
		return -1;
	*i0 = k;
	*done0 = at->v[k].nstops;
	return 0;
}

/* Append c, merged into the last command when it is the same resume. */
static int pos_append(struct gdbsrv_pos *p, const struct gdbsrv_cmd *c)
{
	if (!c->nstops)
		return 0;
	if (p->n && same_cmd(&p->v[p->n - 1], c)) {
		p->v[p->n - 1].nstops += c->nstops;
		p->v[p->n - 1].turn_last = c->turn_last;
		return 0;
	}
	return gdbsrv_pos_push(p, c);
}

/* The start of the history: the program's first instruction, or with
 * --goto the stop at EVENT (in the thread that holds the token then). */
static void stop_begin(struct gdbsrv *s, struct gdbsrv_stop *st)
{
	struct gdbsrv_thread *t = gdbsrv_inf_vthread(&s->inf, s->inf.start_vidx);

	if (!t && s->inf.nth)
		t = &s->inf.th[0];
	memset(st, 0, sizeof(*st));
	st->kind = GDBSRV_STOP_START;
	st->vidx = t ? t->vidx : 0;
	st->tid = t ? t->tid : 0;
}

/* The latest recorded snapshot's turn before turn t, or UINT64_MAX: the
 * snapshot a jump to the start of turn t restores (gdbsrv_inf_start asks
 * for --goto t:0). A snapshot at turn t itself is no way there: the holder
 * takes it at a switch point of its own, so after the turn began and after
 * some of the holder's code in it (a write, a breakpoint) ran, and a
 * restore of it stops where it was taken. Taken as "at or before t", it
 * made a search skip what the holder did in turn t before it: a
 * reverse-continue stopped one write too far back, or found the point it
 * came from unreachable ("the replay ended before the current point";
 * tests/integ/256 and 255, for about 1 --goto EVENT in 20). */
static uint64_t snap_lt(const struct gdbsrv *s, uint64_t t)
{
	uint64_t r = UINT64_MAX;

	for (size_t i = 0; i < s->nsnaps && s->snaps[i] < t; i++)
		r = s->snaps[i];
	return r;
}

/* The replay goes back to the beginning of the history (a fresh replay, or
 * with --goto the restore to that event). */
static int start_fresh(struct gdbsrv *s, uint64_t jump)
{
	int rc;

	gdbsrv_inf_kill(&s->inf);
	/* the program's output was shown by the first replay (debugging
	 * spool: SPOOL_GDBSRV_DEBUG=1 shows every replay's) */
	s->inf.quiet_output = !(getenv("SPOOL_GDBSRV_DEBUG") && *getenv("SPOOL_GDBSRV_DEBUG") == '1');
	s->inf.jump_turn = jump;
	s->inf.arm_turn = 0;
	rc = gdbsrv_inf_start(&s->inf);
	s->inf.jump_turn = UINT64_MAX;
	if (rc < 0)
		return rc;
	s->replays++;
	return 0;
}

/*
 * Going back from a recorded snapshot. A point of p is named from the
 * start of the history, and p resumes at (i0, done0) from the checkpoint
 * or the beginning start_before found, where the token's turn was tprev.
 * When p's command there is a plain continue (no thread steps) and the
 * turn of its next stop tnext is known, no stop of the command comes
 * between the resume point and the start of turn tnext: a replay restored
 * from the latest snapshot before tnext (not one at tnext: snap_lt) and
 * run to the start of tnext (spool replay --goto tnext:0) is on p's way, at the point named by a
 * command "continue with the same breakpoints up to the start of turn
 * tnext" inserted before p's command. Worth it when the snapshot is after
 * tprev (else the checkpoint is nearer). A command that is itself such a
 * stop at turn T is reached the same way (the restore to T), or, when p
 * must be left strictly before it, by the restore to the turn after the
 * latest snapshot before T. The beginning of a replay cannot arm the
 * agent's stop (its area is not mapped before its constructor): a command
 * to a turn that would run from there starts from the restore too, or from
 * the start of turn 0 (--goto 0: no snapshot, the agent stops as it
 * begins serving the schedule).
 *
 * *jump: the turn to restore and run to (UINT64_MAX: no jump); *insert: 1
 * when a command to that turn is inserted into p at i0 (its remaining
 * stops after it), 0 when p's command i0 is itself that stop (it is then
 * done), -1 for the start of turn 0 (p unchanged, the point is its start).
 */
static void jump_one(const struct gdbsrv *s, const struct gdbsrv_pos *p, size_t i0,
		     uint64_t done0, uint64_t tprev, uint64_t tstart, int must, int strict,
		     uint64_t *jump, int *insert)
{
	const struct gdbsrv_cmd *c = &p->v[i0];
	uint64_t tnext, sn;

	*jump = UINT64_MAX;
	*insert = 0;
	if (c->until_pc || c->step_vidx >= 0 || !c->others_run || tprev == UINT64_MAX)
		return;
	if (c->to_turn) {
		if (!(strict && i0 + 1 == p->n)) {
			sn = snap_lt(s, c->to_turn);
			if (must || (sn != UINT64_MAX && sn > tstart))
				*jump = c->to_turn;
			return;
		}
		sn = c->to_turn >= 2 ? snap_lt(s, c->to_turn - 1) : UINT64_MAX;
		if (sn != UINT64_MAX && sn >= tprev && sn >= tstart) {
			*jump = sn + 1;
			*insert = 1;
		} else if (must) {
			*jump = 0;
			*insert = -1;
		}
		return;
	}
	tnext = done0 == 0 ? c->turn_first : done0 + 1 == c->nstops ? c->turn_last : UINT64_MAX;
	if (tnext == UINT64_MAX || !s->nsnaps)
		return;
	sn = snap_lt(s, tnext);
	if (sn != UINT64_MAX && sn > tstart && tnext > tprev) {
		*jump = tnext;
		*insert = 1;
	}
}

/* The latest of p's commands from the resume point (i0, done0; turn
 * tstart there) where a jump fits: *i0, *done0 become its place. */
static void jump_pick(const struct gdbsrv *s, const struct gdbsrv_pos *p, size_t *i0,
		      uint64_t *done0, uint64_t tstart, int at_begin, int strict, uint64_t *jump,
		      int *insert)
{
	*jump = UINT64_MAX;
	*insert = 0;
	for (size_t i = p->n; i-- > *i0;) {
		uint64_t d = i == *i0 ? *done0 : 0;
		uint64_t tprev = i == *i0 ? tstart : p->v[i - 1].turn_last;
		/* a command to a turn whose start is before the agent's area
		 * may be (turn 0: the beginning, gdb's stops as the libraries
		 * load) cannot arm the agent's stop: a fresh replay to it */
		int must = s->inf.goto_event == UINT64_MAX && (i == *i0 ? at_begin : tprev == 0);

		jump_one(s, p, i, d, tprev, tstart, must, strict, jump, insert);
		if (*jump != UINT64_MAX) {
			*i0 = i;
			*done0 = d;
			return;
		}
	}
}

/* p with a command to turn t inserted at its command i0 (done0 of whose
 * stops are made before it). */
static int pos_insert_turn(struct gdbsrv_pos *p, size_t i0, uint64_t done0, uint64_t t)
{
	struct gdbsrv_pos q = {0};
	struct gdbsrv_cmd c = p->v[i0], a, b;
	int rc = gdbsrv_pos_copy(&q, p, i0);

	cmd_init(&a);
	a.step_vidx = -1;
	a.others_run = 1;
	a.cfg = c.cfg;
	a.to_turn = t;
	a.nstops = 1;
	a.turn_first = a.turn_last = t;
	b = c;
	b.nstops = c.nstops - done0;
	if (done0) {
		c.nstops = done0;
		c.turn_last = UINT64_MAX;
		b.turn_first = UINT64_MAX;
		if (rc == 0)
			rc = gdbsrv_pos_push(&q, &c);
	}
	if (rc == 0)
		rc = gdbsrv_pos_push(&q, &a);
	if (rc == 0)
		rc = gdbsrv_pos_push(&q, &b);
	for (size_t i = i0 + 1; rc == 0 && i < p->n; i++)
		rc = gdbsrv_pos_push(&q, &p->v[i]);
	if (rc == 0) {
		gdbsrv_pos_free(p);
		*p = q;
	} else
		gdbsrv_pos_free(&q);
	return rc;
}

/* The replay restored from the snapshot before turn t and run to its start
 * (every thread stopped there), said once. */
static int start_jump(struct gdbsrv *s, uint64_t t)
{
	struct gdbsrv_thread *th;
	int rc = start_fresh(s, t);

	if (rc < 0)
		return rc;
	s->snap_starts += t != 0;
	if (s->snap_starts == 1 && t)
		log_info("gdbserver: going back from the recording's snapshots (the first: "
			 "restored and run to schedule event %llu)",
			 (unsigned long long)t);
	memset(&s->start_st, 0, sizeof(s->start_st));
	s->start_st.kind = GDBSRV_STOP_START;
	s->start_st.vidx = s->inf.start_vidx;
	th = gdbsrv_inf_vthread(&s->inf, s->inf.start_vidx);
	s->start_st.tid = th ? th->tid : 0;
	return 0;
}

int gdbsrv_start_before(struct gdbsrv *s, struct gdbsrv_pos *p, struct gdbsrv_pos *at,
			int strict)
{
	struct gdbsrv_ckpt *c = gdbsrv_ckpt_find(s, p, strict);
	uint64_t tprev, jump, done0 = 0;
	size_t i0 = 0;
	int rc, insert;

	if (c) {
		tprev = c->turn;
		if (gdbsrv_pos_resume_at(p, &c->at, &i0, &done0) < 0)
			return -EINVAL;
	} else
		tprev = s->inf.goto_event != UINT64_MAX ? s->inf.goto_event : 0;
	if (i0 < p->n) {
		/* a checkpoint at turn 0 may be older than the agent's area (gdb's
		 * stops as the libraries load): a command to a turn cannot be
		 * armed from there (-ENOTSUP), so it starts as from the
		 * beginning (reverse-step's, step_from_turn) */
		jump_pick(s, p, &i0, &done0, tprev, !c || c->turn == 0, strict, &jump, &insert);
		if (getenv("SPOOL_GDBSRV_DEBUG") && *getenv("SPOOL_GDBSRV_DEBUG") == '1')
			fprintf(stderr, "gdbsrv: resume at command %zu of %zu (%llu stops made, step %d, to turn %llu, turns %lld..%lld), turn %lld: jump %lld (%d)\n",
				i0, p->n, (unsigned long long)done0, p->v[i0].step_vidx,
				(unsigned long long)p->v[i0].to_turn, (long long)p->v[i0].turn_first,
				(long long)p->v[i0].turn_last, (long long)tprev, (long long)jump, insert);
		if (jump != UINT64_MAX) {
			rc = start_jump(s, jump);
			if (rc < 0) {
				/* the snapshots cannot be used (spool said why) */
				log_warn("gdbserver: going back from the beginning or a checkpoint "
					 "from now on");
				s->nsnaps = 0;
				return rc;
			}
			if (insert > 0 && (rc = pos_insert_turn(p, i0, done0, jump)) < 0)
				return rc;
			if (insert > 0 && done0)
				i0++; /* (the stops made before it are a command of their own) */
			if (insert >= 0)
				return gdbsrv_pos_copy(at, p, i0 + 1);
			at->n = 0;
			return 0;
		}
	}
	if (c) {
		rc = gdbsrv_ckpt_restore(s, c, at);
		return rc < 0 ? rc : 0;
	}
	/* no checkpoint before p: a replay from the beginning (the
	 * checkpoints stay, each fresh replay has its own session) */
	if (getenv("SPOOL_GDBSRV_DEBUG") && *getenv("SPOOL_GDBSRV_DEBUG") == '1')
		fprintf(stderr, "gdbsrv: no checkpoint before stop %llu (%zu commands, strict %d): from the beginning\n",
			(unsigned long long)gdbsrv_pos_stops(p), p->n, strict);
	rc = start_fresh(s, UINT64_MAX);
	if (rc < 0)
		return rc;
	at->n = 0;
	memset(&s->start_st, 0, sizeof(s->start_st));
	stop_begin(s, &s->start_st);
	return 0;
}

/* Stop st is one that counts for c: any stop, or for a command that steps
 * a thread to an instruction, that thread's steps landing on it. */
static int counts(struct gdbsrv *s, const struct gdbsrv_stop *st, const struct gdbsrv_cmd *c)
{
	struct gdbsrv_thread *t;

	if (c->to_turn)
		return st->kind == GDBSRV_STOP_TURN;
	if (!c->until_pc)
		return 1;
	if (st->kind != GDBSRV_STOP_STEP || st->vidx != c->step_vidx)
		return 0;
	t = gdbsrv_inf_vthread(&s->inf, st->vidx);
	return t && gdbsrv_inf_pc(&s->inf, t) == c->until_pc;
}

/* Command c's next n stops (its first ones when whole), the turns of its
 * first and last stop noted in c. */
static int run_stops(struct gdbsrv *s, struct gdbsrv_cmd *c, uint64_t n, int whole,
		     struct gdbsrv_stop *st)
{
	int fast = !c->until_pc && c->step_vidx < 0 && c->cfg.nwp, rc = 0;

	gdbsrv_inf_set_cfg(&s->inf, &c->cfg);
	s->inf.arm_turn = c->to_turn;
	for (uint64_t k = 0; k < n;) {
		struct gdbsrv_pass ps = {.wps = &c->cfg, .max = fast ? n - k - 1 : 0};
		uint64_t k0 = k;

		rc = gdbsrv_inf_resume_pass(&s->inf, c->step_vidx, c->others_run, NULL, st, &ps);
		if (rc < 0)
			break;
		k += ps.passed;
		if (st->kind == GDBSRV_STOP_EXIT && k + 1 < n) {
			rc = -ECHILD;
			break;
		}
		k += (uint64_t)counts(s, st, c);
		if (whole && k0 == 0 && k == 1)
			c->turn_first = gdbsrv_inf_turn(&s->inf);
		if (k == n)
			c->turn_last = gdbsrv_inf_turn(&s->inf);
	}
	s->inf.arm_turn = 0;
	return rc;
}

/* A replay at p: a replay started before it, then forward; a checkpoint
 * there when the run was long. */
static int goto_pos(struct gdbsrv *s, struct gdbsrv_pos *p, struct gdbsrv_stop *st)
{
	struct gdbsrv_pos at = {0};
	size_t i0;
	uint64_t done;
	int rc;

	memset(st, 0, sizeof(*st));
	st->kind = GDBSRV_STOP_START;
	rc = gdbsrv_start_before(s, p, &at, 0);
	if (rc < 0)
		goto out;
	if (gdbsrv_pos_resume_at(p, &at, &i0, &done) < 0) {
		rc = -EINVAL; /* (start_before gives a prefix) */
		goto out;
	}
	if (i0 >= p->n)
		*st = s->start_st;
	for (size_t i = i0; i < p->n; i++, done = 0) {
		rc = run_stops(s, &p->v[i], p->v[i].nstops - done, !done, st);
		if (rc < 0) {
			log_err("gdbserver: the replay did not reach the same point again "
				"(command %zu of %zu): %s",
				i + 1, p->n, strerror(-rc));
			goto out;
		}
	}
	rc = gdbsrv_ckpt_maybe(s, p, st, 0);
	if (rc > 0)
		rc = 0;
out:
	gdbsrv_pos_free(&at);
	return rc;
}

int gdbsrv_goto_hist(struct gdbsrv *s, struct gdbsrv_stop *st)
{
	return goto_pos(s, &s->hist, st);
}

int gdbsrv_forward(struct gdbsrv *s, int step_vidx, int others_run, struct gdbsrv_stop *st)
{
	struct gdbsrv_cmd c;
	int rc;

	cmd_init(&c);
	c.step_vidx = step_vidx;
	c.others_run = others_run;
	c.cfg = s->user;
	c.nstops = 1;
	gdbsrv_inf_set_cfg(&s->inf, &s->user);
	s->inf.arm_turn = 0;
	rc = gdbsrv_inf_resume(&s->inf, step_vidx, others_run, &s->rsp, st);
	if (rc < 0)
		return rc;
	c.turn_first = c.turn_last = gdbsrv_inf_turn(&s->inf);
	if (st->kind == GDBSRV_STOP_INTR) {
		/* a point between two stops has no name: going back from
		 * here is refused (the flag is the impossible count) */
		c.nstops = 0;
		c.step_vidx = -2;
		return gdbsrv_pos_push(&s->hist, &c);
	}
	rc = pos_append(&s->hist, &c);
	if (rc < 0)
		return rc;
	rc = gdbsrv_ckpt_maybe(s, &s->hist, st, 0);
	return rc < 0 ? rc : 0;
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

	if ((c->until_pc || c->to_turn) && st->kind != GDBSRV_STOP_EXIT)
		return counts(s, st, c);
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


struct pcs {
	uint64_t *v;
	size_t n, cap;
};

static int pcs_push(struct pcs *p, uint64_t pc)
{
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 256;
		uint64_t *v = realloc(p->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		p->v = v;
		p->cap = cap;
	}
	p->v[p->n++] = pc;
	return 0;
}

/* The point of thread vidx's last step in p, as a command from where the
 * steps began: step it (the others run) until its pc is that instruction
 * for the k-th time. The instruction, not the number of steps, names it: a
 * thread that waits for the token spins a number of instructions that
 * changes from one replay to the next. */
static void until_last(const struct pcs *p, int vidx, const struct gdbsrv_cfg *cfg,
		       struct gdbsrv_cmd *u)
{
	cmd_init(u);
	u->step_vidx = vidx;
	u->others_run = 1;
	u->cfg = *cfg;
	if (!p->n)
		return; /* nstops 0: where the steps began */
	u->until_pc = p->v[p->n - 1];
	for (size_t i = 0; i < p->n; i++)
		u->nstops += p->v[i] == u->until_pc;
}

/* From the current point, thread vidx steps (the others run) with cfg until
 * the stop that ends command c (c != NULL) or the watchpoint w triggers in
 * vidx; *u becomes the point of its step before that. */
static int step_until(struct gdbsrv *s, int vidx, const struct gdbsrv_cfg *cfg,
		      const struct gdbsrv_cmd *c, const struct gdbsrv_wp *w, struct gdbsrv_cmd *u,
		      struct gdbsrv_stop *st)
{
	struct pcs p = {0};
	uint64_t seen = 0;
	int rc;

	gdbsrv_inf_set_cfg(&s->inf, cfg);
	s->inf.arm_turn = c ? c->to_turn : 0;
	for (;;) {
		struct gdbsrv_thread *t;

		rc = gdbsrv_inf_resume(&s->inf, vidx, 1, NULL, st);
		if (rc < 0)
			goto out;
		dbg_stop(s, "step", st);
		if (st->kind == GDBSRV_STOP_EXIT) {
			rc = -ECHILD;
			goto out;
		}
		if (w ? st->kind == GDBSRV_STOP_WATCH && st->vidx == vidx &&
				!memcmp(&st->wp, w, sizeof(*w))
		      : is_orig(s, st, c) && ++seen >= (c->until_pc ? c->nstops : 1))
			break;
		t = gdbsrv_inf_vthread(&s->inf, vidx);
		if (st->kind == GDBSRV_STOP_STEP && st->vidx == vidx && t &&
		    (rc = pcs_push(&p, gdbsrv_inf_pc(&s->inf, t))) < 0)
			goto out;
	}
	until_last(&p, vidx, cfg, u);
	rc = 0;
out:
	s->inf.arm_turn = 0;
	free(p.v);
	return rc;
}

/* Pass 1 of reverse-continue: the last hit of gdb's set before the end of
 * p, as "command *ci, run with the merged set, *cm counting stops" (or for a
 * command that steps to an instruction, the hit thread's pc and its count). */
struct last_hit {
	int found;
	size_t ci;
	uint64_t cm;
	uint64_t pc, occ; /* in a stepping-to command: the hit's pc, its count */
	struct gdbsrv_stop st;
};

/* p's first commands up to command ci, from a start at (i0, done0): the
 * stops of command i0 made before the start are named as its own. */
static int prefix_to(struct gdbsrv_pos *dst, const struct gdbsrv_pos *p, size_t i0, uint64_t done0,
		     size_t ci)
{
	struct gdbsrv_cmd c;
	int rc = pos_copy(dst, p, ci);

	if (rc < 0 || ci != i0 || !done0)
		return rc;
	c = p->v[i0];
	c.nstops = done0;
	c.turn_last = UINT64_MAX;
	return pos_append(dst, &c);
}

/* A checkpoint at a stop of the search (command i run with merged, mm
 * stops), when one is due: the next search near here starts from it. */
static void search_ckpt(struct gdbsrv *s, const struct gdbsrv_pos *p, size_t i0, uint64_t done0,
			size_t i, const struct gdbsrv_cfg *merged, uint64_t mm,
			struct gdbsrv_stop *cur)
{
	struct gdbsrv_pos at = {0};
	struct gdbsrv_cmd m = p->v[i];

	if (s->ckpt_off || s->inf.run_ns < s->ckpt_ns || m.until_pc ||
	    cur->kind == GDBSRV_STOP_EXIT)
		return;
	m.cfg = *merged;
	m.nstops = mm;
	/* (the stop at a turn, if any, is after these) */
	m.to_turn = 0;
	m.turn_first = m.turn_last = UINT64_MAX;
	if (prefix_to(&at, p, i0, done0, i) == 0 && pos_append(&at, &m) == 0)
		gdbsrv_ckpt_maybe(s, &at, cur, 0);
	gdbsrv_pos_free(&at);
}

/* The search runs p from command i0 (done0 of its stops made); the hit
 * at p's end counts when include_last (an earlier stretch, which ends at a
 * checkpoint), not when p's end is the current point. In the command i0,
 * *cm counts the stops since the start. */
static int search_hits(struct gdbsrv *s, const struct gdbsrv_pos *p, size_t i0, uint64_t done0,
		       int include_last, struct last_hit *h)
{
	struct pcs tp = {0};
	/* with checkpoints, a stop every GDBSRV_PASS_CKPT hits is a point
	 * where one can be taken */
	uint64_t pass_max = s->ckpt_off ? UINT64_MAX : GDBSRV_PASS_CKPT;
	int rc = 0;

	for (size_t i = i0; i < p->n; i++) {
		const struct gdbsrv_cmd *c = &p->v[i];
		struct gdbsrv_cfg merged;
		uint64_t o = i == i0 ? done0 : 0, mm = 0;

		rc = gdbsrv_cfg_union(&merged, &c->cfg, &s->user);
		if (rc < 0)
			goto out;
		gdbsrv_inf_set_cfg(&s->inf, &merged);
		s->inf.arm_turn = c->to_turn;
		tp.n = 0;
		while (o < c->nstops) {
			/* watchpoint hits are only counted (the command's own
			 * up to the one before its last stop), the last kept */
			struct gdbsrv_pass ps = {
				.wps = &merged,
				.max = !c->until_pc && c->step_vidx < 0 ? pass_max : 0,
				.sub = &c->cfg,
				.max_sub = c->nstops - o - 1,
			};
			struct gdbsrv_stop cur;
			struct gdbsrv_thread *t;
			uint64_t pc = 0;
			int orig, last;

			rc = gdbsrv_inf_resume_pass(&s->inf, c->step_vidx, c->others_run, NULL, &cur,
						    &ps);
			if (rc < 0)
				goto out;
			o += ps.passed_sub;
			if (ps.passed && gdbsrv_cfg_find_wp(&s->user, &ps.last.wp) >= 0) {
				h->found = 1;
				h->ci = i;
				h->cm = mm + ps.passed;
				h->st = ps.last;
				h->pc = 0;
				h->occ = 0;
			}
			mm += ps.passed + 1;
			dbg_stop(s, "search", &cur);
			t = gdbsrv_inf_vthread(&s->inf, cur.vidx);
			if (t && cur.kind != GDBSRV_STOP_EXIT)
				pc = gdbsrv_inf_pc(&s->inf, t);
			orig = is_orig(s, &cur, c);
			last = !include_last && i + 1 == p->n && orig && o + 1 == c->nstops;
			if (c->until_pc && cur.vidx == c->step_vidx &&
			    (cur.kind == GDBSRV_STOP_STEP || cur.kind == GDBSRV_STOP_BP) &&
			    (rc = pcs_push(&tp, pc)) < 0)
				goto out;
			if (!last && is_hit(s, &cur, &s->user) &&
			    (!c->until_pc || cur.vidx == c->step_vidx)) {
				h->found = 1;
				h->ci = i;
				h->cm = mm;
				h->st = cur;
				h->pc = pc;
				h->occ = 0;
				if (c->until_pc) {
					/* a watchpoint: the step before, else here */
					if (cur.kind == GDBSRV_STOP_WATCH) {
						h->pc = tp.n ? tp.v[tp.n - 1] : 0;
						for (size_t k = 0; k < tp.n; k++)
							h->occ += tp.v[k] == h->pc;
					} else
						for (size_t k = 0; k < tp.n; k++)
							h->occ += tp.v[k] == pc;
				}
			}
			o += (uint64_t)orig;
			if (cur.kind == GDBSRV_STOP_EXIT && !last) {
				log_err("gdbserver: the replay ended before the current point");
				rc = -ECHILD;
				goto out;
			}
			if (o < c->nstops || i + 1 < p->n)
				search_ckpt(s, p, i0, done0, i, &merged, mm, &cur);
		}
	}
out:
	s->inf.arm_turn = 0;
	free(tp.v);
	return rc;
}

/*
 * reverse-continue: the stretch from the latest checkpoint before the
 * current point to it is searched; with no hit there, the stretch before
 * that checkpoint, from the one before it (its end included), and so on
 * back to the beginning.
 */
int gdbsrv_reverse_continue(struct gdbsrv *s, struct gdbsrv_stop *st)
{
	struct gdbsrv_pos p = {0}, target = {0}, at = {0};
	struct last_hit h = {0};
	struct gdbsrv_cmd m, u;
	struct gdbsrv_thread *t;
	size_t i0 = 0;
	uint64_t done0 = 0;
	int rc, include_last = 0;

	if (!hist_named(&s->hist)) {
		log_err("gdbserver: cannot go back from a point reached by an interrupt");
		return -EINVAL;
	}
	rc = pos_copy(&p, &s->hist, s->hist.n);
	if (rc < 0)
		goto out;
	for (;;) {
		rc = gdbsrv_start_before(s, &p, &at, 1);
		if (rc < 0)
			goto out;
		if (gdbsrv_pos_resume_at(&p, &at, &i0, &done0) < 0) {
			rc = -EINVAL;
			goto out;
		}
		rc = search_hits(s, &p, i0, done0, include_last, &h);
		if (rc < 0)
			goto out;
		if (h.found || !at.n)
			break;
		/* nothing after that checkpoint: the stretch before it */
		rc = pos_copy(&p, &at, at.n);
		if (rc < 0)
			goto out;
		include_last = 1;
	}
	if (!h.found) { /* back to the start: gdb says "No more reverse-execution history" */
		rc = goto_pos(s, &target, st);
		if (rc < 0)
			goto out;
		stop_begin(s, st);
		st->code = 1;
		s->hist.n = 0;
		goto out;
	}
	rc = prefix_to(&target, &p, i0, done0, h.ci);
	if (rc < 0)
		goto out;
	m = p.v[h.ci];
	gdbsrv_cfg_union(&m.cfg, &p.v[h.ci].cfg, &s->user);
	/* the hit comes before a stop at a turn the command may end with */
	m.to_turn = 0;
	m.turn_first = m.turn_last = UINT64_MAX;
	if (m.until_pc) {
		/* in a stepping command: the hit thread's instruction */
		m.until_pc = h.pc;
		m.nstops = h.occ;
		if (m.nstops && (rc = pos_append(&target, &m)) < 0)
			goto out;
	} else {
		m.nstops = h.st.kind == GDBSRV_STOP_WATCH ? h.cm - 1 : h.cm;
		if ((rc = pos_append(&target, &m)) < 0)
			goto out;
		if (h.st.kind == GDBSRV_STOP_WATCH) {
			/* before the write: from the stop before it, step its
			 * thread up to it and name the step before */
			rc = goto_pos(s, &target, st);
			if (rc < 0)
				goto out;
			rc = step_until(s, h.st.vidx, &m.cfg, NULL, &h.st.wp, &u, st);
			if (rc < 0) {
				log_err("gdbserver: the write did not happen again: %s",
					strerror(-rc));
				goto out;
			}
			if ((rc = pos_append(&target, &u)) < 0)
				goto out;
		}
	}
	rc = goto_pos(s, &target, st);
	if (rc < 0)
		goto out;
	*st = h.st;
	t = gdbsrv_inf_vthread(&s->inf, h.st.vidx);
	st->tid = t ? t->tid : 0;
	rc = pos_copy(&s->hist, &target, target.n);
out:
	gdbsrv_pos_free(&p);
	gdbsrv_pos_free(&target);
	gdbsrv_pos_free(&at);
	return rc;
}

/*
 * Where reverse-step's single steps begin: the stop before P (q's end) may
 * be far from P (a breakpoint's previous hit, the start of the continue
 * that reached P: the whole of a loop), and each reverse-step steps the
 * thread from there again, one ptrace step per instruction (minutes for a
 * reverse-next over a call in an emulated aarch64 VM, doc/arm64.md). When
 * P's turn T (c's last stop) is known and later than q's end's, the start
 * of T lies between them: q gets a command "run to the start of turn T"
 * (the agent's own stop, as --goto T:0; recorded snapshots may jump there),
 * and the steps begin there, within P's turn. The next reverse-step from
 * the point found begins there too (its q ends with that command), so
 * going back through a turn costs the turn's instructions, not the
 * history's. Unknown turns (a point named by fewer stops of a command,
 * UINT64_MAX) or the same turn: q unchanged.
 */
static int step_from_turn(struct gdbsrv *s, struct gdbsrv_pos *q, const struct gdbsrv_cmd *c)
{
	uint64_t tq = s->inf.goto_event != UINT64_MAX ? s->inf.goto_event : 0;
	struct gdbsrv_cmd a;

	if (getenv("SPOOL_GDBSRV_STEP_TURN") && *getenv("SPOOL_GDBSRV_STEP_TURN") == '0')
		return 0;
	if (q->n)
		tq = q->v[q->n - 1].turn_last;
	/* (a stop at a turn's start is where such steps began) */
	if (c->to_turn || c->turn_last == UINT64_MAX || tq == UINT64_MAX || c->turn_last <= tq)
		return 0;
	cmd_init(&a);
	a.step_vidx = -1;
	a.others_run = 1;
	a.cfg = c->cfg;
	a.to_turn = c->turn_last;
	a.nstops = 1;
	a.turn_first = a.turn_last = c->turn_last;
	if (getenv("SPOOL_GDBSRV_DEBUG") && *getenv("SPOOL_GDBSRV_DEBUG") == '1')
		fprintf(stderr, "gdbsrv: reverse-step: the steps begin at the start of turn %llu "
			"(the stop before is at turn %llu)\n", (unsigned long long)a.to_turn,
			(unsigned long long)tq);
	return gdbsrv_pos_push(q, &a);
}

int gdbsrv_reverse_step(struct gdbsrv *s, int vidx, struct gdbsrv_stop *st)
{
	struct gdbsrv_pos q = {0};
	struct gdbsrv_cmd c, u;
	struct gdbsrv_thread *t;
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
	if (c.until_pc)
		q.n--; /* from where that thread's steps began */
	else if (--q.v[q.n - 1].nstops == 0)
		q.n--;
	else
		q.v[q.n - 1].turn_last = UINT64_MAX;
	/* the last command stepped this thread once more: the stop before is
	 * the instruction before */
	if (c.until_pc || c.step_vidx != vidx) {
		if ((rc = step_from_turn(s, &q, &c)) < 0)
			goto out;
		rc = goto_pos(s, &q, st);
		if (rc < 0)
			goto out;
		rc = step_until(s, vidx, &c.cfg, &c, NULL, &u, st);
		if (rc < 0) {
			log_err("gdbserver: the stop did not happen again: %s", strerror(-rc));
			goto out;
		}
		if ((rc = pos_append(&q, &u)) < 0)
			goto out;
	}
	rc = goto_pos(s, &q, st);
	if (rc < 0)
		goto out;
	memset(st, 0, sizeof(*st));
	st->kind = GDBSRV_STOP_STEP;
	st->vidx = vidx;
	t = gdbsrv_inf_vthread(&s->inf, vidx);
	st->tid = t ? t->tid : 0;
	rc = pos_copy(&s->hist, &q, q.n);
out:
	gdbsrv_pos_free(&q);
	return rc;
}
