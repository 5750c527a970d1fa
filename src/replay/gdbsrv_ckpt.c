// SPDX-License-Identifier: MIT
/*
 * gdbsrv_ckpt.c - checkpoints of the replay served by `spool replay
 * --gdbserver` (doc/record.md, "Reverse execution: --gdbserver"): going back
 * starts from a copy of the latest checkpoint before the point instead of
 * from the beginning.
 *
 * A checkpoint is a process kept stopped under ptrace at a named point (the
 * history that reached it, gdbsrv_int.h "Positions"). It is made by copying
 * the live replay (gdbsrv_fork.c): the process that was live stays where
 * it is, stopped for good, and the copy goes on as the live replay. So the
 * fresh replay's own process, the one its background session watches,
 * becomes the first checkpoint and lives as long as any copy: the session
 * stays, and the agents of the copies, which look for spool's session,
 * keep replaying. Going back to a checkpoint kills the live copy and makes
 * another copy of the checkpoint; the checkpoint itself never runs again.
 *
 * When: a checkpoint is taken at a stop once the live replay has run
 * ckpt_ns (100 ms; SPOOL_GDBSRV_CHECKPOINT_MS) since its last one or since
 * it began: at the stops gdb sees, at the points reverse commands go to, and
 * along the searches of reverse-continue. So every reverse command leaves
 * checkpoints behind it, and the next one near there runs from the nearest.
 * At most GDBSRV_MAX_CKPT: the oldest (not the first) goes.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "../util/log.h"
#include "gdbsrv_int.h"

static int ckpt_debug(void)
{
	static int on = -1;

	if (on < 0)
		on = getenv("SPOOL_GDBSRV_DEBUG") && *getenv("SPOOL_GDBSRV_DEBUG") == '1';
	return on;
}

/* A stopped process, not the live one, ended. Each of its threads is
 * waited for by its id (the live replay's events stay queued): the kernel
 * reports a thread group's leader only once its other threads are reaped. */
static void ckpt_kill(struct gdbsrv_ckpt *c)
{
	if (c->pid > 0) {
		pid_t tids[GDBSRV_MAX_THREADS];

		for (int i = 0; i < c->nth; i++)
			tids[i] = c->th[i].tid;
		gdbsrv_reap(c->pid, tids, c->nth);
	}
	gdbsrv_pos_free(&c->at);
	free(c->th);
	memset(c, 0, sizeof(*c));
}

/* Checkpoint i ended; when it was the last of its fresh replay's (and the
 * live replay is not a copy of that one), that replay's session ends too. */
static void ckpt_remove(struct gdbsrv *s, int i)
{
	unsigned sess = s->ckpt[i].sess;
	int left = s->inf.pid && s->inf.copy && s->inf.sess == sess;

	ckpt_kill(&s->ckpt[i]);
	memmove(&s->ckpt[i], &s->ckpt[i + 1], (size_t)(s->nckpt - i - 1) * sizeof(s->ckpt[0]));
	s->nckpt--;
	memset(&s->ckpt[s->nckpt], 0, sizeof(s->ckpt[0]));
	for (int k = 0; k < s->nckpt; k++)
		left |= s->ckpt[k].sess == sess;
	if (!left)
		gdbsrv_inf_wait_session(&s->inf, sess);
}

void gdbsrv_ckpt_drop_all(struct gdbsrv *s)
{
	if (!s->nckpt)
		return;
	gdbsrv_inf_kill(&s->inf); /* a copy: no session wait */
	for (int i = s->nckpt - 1; i >= 0; i--)
		ckpt_remove(s, i);
}

/* The one to go when there are too many: the oldest that is not the first
 * of its fresh replay (whose session the others need), else -1. */
static int ckpt_victim(const struct gdbsrv *s)
{
	for (int i = 0; i < s->nckpt; i++)
		if (!s->ckpt[i].base)
			return i;
	return -1;
}

int gdbsrv_ckpt_maybe(struct gdbsrv *s, const struct gdbsrv_pos *at, struct gdbsrv_stop *st,
		      int force)
{
	struct gdbsrv_inf *f = &s->inf;
	struct gdbsrv_ckpt *c;
	pid_t tids[GDBSRV_MAX_THREADS], ctids[GDBSRV_MAX_THREADS], cpid = 0;
	int rc;

	if (s->ckpt_off || !f->pid || f->exited || !f->nth || st->kind == GDBSRV_STOP_EXIT ||
	    st->kind == GDBSRV_STOP_INTR)
		return 0;
	if (!force && f->run_ns < s->ckpt_ns)
		return 0;
	for (int i = 0; i < f->nth; i++) {
		if (f->th[i].state != GDBSRV_T_STOPPED || f->th[i].action == -1)
			return 0; /* a thread not started yet: no point to copy */
		tids[i] = f->th[i].tid;
	}
	for (size_t i = 0; i < at->n; i++)
		if (at->v[i].step_vidx == -2)
			return 0; /* a point without a name */
	if (s->nckpt == GDBSRV_MAX_CKPT) {
		int k = ckpt_victim(s);

		if (k < 0)
			return 0;
		ckpt_remove(s, k);
	}
	rc = gdbsrv_fork(f->pid, tids, f->nth, !f->copy, 0, &cpid, ctids);
	if (rc < 0) {
		if (ckpt_debug())
			fprintf(stderr, "gdbsrv: no checkpoint at stop %llu: %s\n",
				(unsigned long long)gdbsrv_pos_stops(at), strerror(-rc));
		/* too early (the agent has not started): not again at once */
		f->run_ns = 0;
		return rc == -EAGAIN || rc == -EBUSY ? 0 : rc;
	}
	c = &s->ckpt[s->nckpt];
	memset(c, 0, sizeof(*c));
	c->th = malloc((size_t)f->nth * sizeof(*c->th));
	if (!c->th || gdbsrv_pos_copy(&c->at, at, at->n) < 0) {
		free(c->th);
		gdbsrv_pos_free(&c->at);
		memset(c, 0, sizeof(*c));
		kill(cpid, SIGKILL);
		return -ENOMEM;
	}
	s->nckpt++;
	c->pid = f->pid;
	c->base = !f->copy;
	c->sess = f->sess;
	c->st = *st;
	memcpy(c->th, f->th, (size_t)f->nth * sizeof(*c->th));
	c->nth = f->nth;
	c->next_vidx = f->next_vidx;
	c->ins = f->ins;
	memcpy(c->orig, f->orig, sizeof(c->orig));
	c->stops = gdbsrv_pos_stops(at);
	c->turn = gdbsrv_inf_turn(f);
	/* the checkpoint's memory keeps its breakpoints, so does the copy's */
	rc = gdbsrv_inf_adopt(f, cpid, ctids);
	if (rc < 0)
		return rc;
	for (int i = 0; i < f->nth; i++)
		if (f->th[i].vidx == st->vidx)
			st->tid = f->th[i].tid;
	s->ckpts_taken++;
	if (ckpt_debug())
		fprintf(stderr, "gdbsrv: checkpoint %d at stop %llu (%zu commands): process %d, live %d\n",
			s->nckpt, (unsigned long long)c->stops, at->n, (int)c->pid, (int)cpid);
	return 1;
}

/* Point at is a prefix of p (strictly before it when strict)? */
static int ckpt_usable(const struct gdbsrv_pos *p, const struct gdbsrv_pos *at, int strict)
{
	size_t i0;
	uint64_t done0;

	if (gdbsrv_pos_resume_at(p, at, &i0, &done0) < 0)
		return 0;
	return !strict || i0 < p->n;
}

struct gdbsrv_ckpt *gdbsrv_ckpt_find(struct gdbsrv *s, const struct gdbsrv_pos *p, int strict)
{
	struct gdbsrv_ckpt *c = NULL;

	for (int i = 0; i < s->nckpt; i++)
		if (ckpt_usable(p, &s->ckpt[i].at, strict) && (!c || s->ckpt[i].stops > c->stops))
			c = &s->ckpt[i];
	return c;
}

int gdbsrv_ckpt_restore(struct gdbsrv *s, struct gdbsrv_ckpt *c, struct gdbsrv_pos *at)
{
	struct gdbsrv_inf *f = &s->inf;
	pid_t tids[GDBSRV_MAX_THREADS], ctids[GDBSRV_MAX_THREADS], cpid = 0;
	int rc, quiet;

	gdbsrv_inf_kill(f);
	for (int i = 0; i < c->nth; i++)
		tids[i] = c->th[i].tid;
	/* the program's output was shown by the first replay (debugging
	 * spool: SPOOL_GDBSRV_DEBUG=1 shows every replay's) */
	quiet = !ckpt_debug();
	rc = gdbsrv_fork(c->pid, tids, c->nth, 0, quiet, &cpid, ctids);
	if (rc < 0) {
		log_err("gdbserver: a copy of checkpoint %d failed: %s", (int)(c - s->ckpt) + 1,
			strerror(-rc));
		return rc;
	}
	memcpy(f->th, c->th, (size_t)c->nth * sizeof(*c->th));
	f->nth = c->nth;
	f->next_vidx = c->next_vidx;
	f->ins = c->ins;
	memcpy(f->orig, c->orig, sizeof(f->orig));
	f->step_vidx = -1;
	f->sess = c->sess;
	rc = gdbsrv_inf_adopt(f, cpid, ctids);
	if (rc < 0)
		return rc;
	rc = gdbsrv_pos_copy(at, &c->at, c->at.n);
	if (rc < 0)
		return rc;
	s->start_st = c->st;
	for (int i = 0; i < f->nth; i++)
		if (f->th[i].vidx == c->st.vidx)
			s->start_st.tid = f->th[i].tid;
	s->ckpt_starts++;
	if (ckpt_debug())
		fprintf(stderr, "gdbsrv: from checkpoint %d (stop %llu): live %d\n",
			(int)(c - s->ckpt) + 1, (unsigned long long)c->stops, (int)cpid);
	return 1;
}
