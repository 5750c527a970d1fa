// SPDX-License-Identifier: MIT
/*
 * probe_live.c - the commands of an attached spool probe (probe_live.h).
 *
 * Input: lines on stdin (--commands) and/or on connections to a unix
 * socket (--control PATH, one client at a time); each command's answer
 * goes back where it came from and ends with a line "ok ..." or
 * "error: ...", so a script can read up to it.
 *
 *   list                 id op method module offset symbol state hits function
 *   add [--disabled] SPEC [-e SPEC]...  plan the specs together as at
 *                        start-up, place their probes
 *   delete ID...         original bytes back (the threads stepped out of
 *                        them first, as at detach)
 *   disable ID...        the trampoline's handler call skipped (a 5-byte
 *   enable ID...         flip); an int3 probe's int3 taken out / put back
 *   add sys:X, delete sys:X  a system probe on or off (live_sys)
 *   detach               (or the end of stdin) restore everything, go
 *
 * New probes get ids after the last one (the manager's order), from the
 * reserve the first area kept (PROBE_LIVE_IDS); each add is a batch: a
 * probe area of its own, written after the first one in spool's shared
 * memory, which the agent places ("prep OFF") and, once no thread is
 * inside the ranges it replaces, commits ("commit OFF"). Hits: block and
 * branch counters from the area; events of the other probes counted in
 * the trace written so far (the collector flushed first).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "../collect/collector.h"
#include "../common/event.h"
#include "../trace/trace.h"
#include "../util/log.h"
#include "../common/sys_area.h"
#include "probe_live.h"
#include "probe_session.h"
#include "sysprobe.h"

static void live_say(struct probe_live *l, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The trace's clock is CLOCK_MONOTONIC based: its events' times compare
 * with these. */
static uint64_t live_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static const char *live_op_word(const struct probe_def *d)
{
	switch (d->op) {
	case PROBE_OP_ENTRY:
		return "entry";
	case PROBE_OP_EXIT:
		return "exit";
	case PROBE_OP_HIT:
		return "hit";
	case PROBE_OP_VAR:
		return "var";
	case PROBE_OP_BLOCK:
		return d->point ? "point" : "block";
	case PROBE_OP_BRANCH:
		return "branch";
	}
	return "probe";
}

/* One line of the change log: a probe's change, with its function; or,
 * with d NULL, an add that placed nothing (what = its spec). Names and
 * specs are one token or the rest of the line: no newline in them. */
static void live_log(struct probe_live *l, const char *change, const struct probe_def *d,
		     const char *what)
{
	char text[512];

	if (!l->chg)
		return;
	snprintf(text, sizeof(text), "%s",
		 d ? l->m->mods[d->module].syms[d->sym].name : what ? what : "");
	text[strcspn(text, "\r\n")] = 0;
	if (d)
		fprintf(l->chg, "%llu %s %u %s %s\n", (unsigned long long)live_now_ns(), change,
			d->id, live_op_word(d), text);
	else
		fprintf(l->chg, "%llu %s - - %s\n", (unsigned long long)live_now_ns(), change,
			text);
}

static void live_say(struct probe_live *l, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		size_t room = l->out_cap - l->out_len;

		va_start(ap, fmt);
		n = vsnprintf(l->out ? l->out + l->out_len : NULL, l->out ? room : 0, fmt, ap);
		va_end(ap);
		if (n < 0)
			return;
		if (l->out && (size_t)n < room) {
			l->out_len += (size_t)n;
			return;
		}
		{
			size_t cap = l->out_cap * 2 + (size_t)n + 256;
			char *p = realloc(l->out, cap);

			if (!p)
				return;
			l->out = p;
			l->out_cap = cap;
		}
	}
}

/* ---- talking to the target ---- */

static int live_ctl(struct probe_live *l, const char *cmd)
{
	int64_t ret = 0;
	int rc;

	if (!l->a->fn_ctl)
		return -ENOTSUP;
	rc = probe_attach_call(l->a, l->a->fn_ctl, cmd, &ret);
	if (rc < 0)
		return rc;
	return (int)(int32_t)ret; /* an int: only eax is the agent's */
}

static uint64_t live_patch_rt(const struct probe_def *d)
{
	return d->runtime_addr - d->addr + d->patch_off;
}

static struct probe_def *live_def(struct probe_live *l, const char *tok)
{
	char *end;
	unsigned long id = strtoul(tok, &end, 10);

	if (*end || !id || id > l->m->ndefs || !l->m->defs[id - 1].registered)
		return NULL;
	return &l->m->defs[id - 1];
}

static const char *live_state(const struct probe_def *d, const struct probe_mgr *m)
{
	const struct probe_def *o =
	    d->shared && d->shared <= m->ndefs ? &m->defs[d->shared - 1] : d;
	const struct probe_def *on = d;

	/* an exit through the return address is on while its entry is */
	if (d->method == PROBE_M_RETADDR)
		for (size_t i = 0; i < m->ndefs; i++)
			if (m->defs[i].ret_id == d->id)
				on = &m->defs[i];
	switch (o->status) {
	case PROBE_S_PATCHED:
	case PROBE_S_OFF:
		if (d->gone)
			return "deleted";
		return on->disabled ? "disabled" : "enabled";
	case PROBE_S_DELETED:
		return "deleted";
	case PROBE_S_REMOVED:
		return "removed";
	case PROBE_S_RESTORED:
		return "restored";
	default:
		return "not-placed";
	}
}

/* Hits so far: counters of block and branch probes, events of the others
 * in the trace (flushed first). hits has ndefs + 1 entries. */
static void live_hits(struct probe_live *l, uint64_t *hits, int *have_events)
{
	struct probe_area_hdr hc;
	struct trace_reader *r = NULL;
	struct trace_event ev;

	if (!probe_area_check(l->area, l->area_size, &hc)) {
		const uint64_t *c = (const void *)(l->area + hc.counts_off);

		for (size_t i = 0; i < l->m->ndefs; i++) {
			const struct probe_def *d = &l->m->defs[i];
			uint32_t cid = d->point && d->shared ? d->shared : d->id;

			if ((d->op == PROBE_OP_BLOCK || d->op == PROBE_OP_BRANCH) &&
			    cid < hc.ncounts)
				hits[d->id] =
				    __atomic_load_n(&c[2 * cid], __ATOMIC_RELAXED) +
				    (d->op == PROBE_OP_BRANCH
					 ? __atomic_load_n(&c[2 * cid + 1], __ATOMIC_RELAXED)
					 : 0);
		}
	}
	*have_events = 0;
	if (!l->col || !l->trace_dir)
		return;
	collector_drain(l->col);
	collector_flush(l->col);
	{
		struct trace_problem prob = {0};
		int rc = trace_reader_open(&r, l->trace_dir, &prob);

		if (rc < 0) {
			log_debug("list: the trace so far cannot be read: %s %s", strerror(-rc),
				  prob.msg);
			return;
		}
	}
	*have_events = 1;
	while (trace_reader_next(r, &ev) > 0) {
		uint32_t id;

		if (ev_kind(ev.rec->word) != KIND_PROBE)
			continue;
		id = ev_obj(ev.rec->word);
		if (id && id <= l->m->ndefs && l->m->defs[id - 1].op != PROBE_OP_BLOCK &&
		    l->m->defs[id - 1].op != PROBE_OP_BRANCH)
			hits[id]++;
	}
	trace_reader_close(r);
	for (size_t i = 0; i < l->m->ndefs; i++)
		if (l->m->defs[i].nvars > 1)
			hits[l->m->defs[i].id] /= l->m->defs[i].nvars; /* an event per variable */
}

/* The probes side-file lines of ids [lo, hi] with their state and hits. */
static void live_list(struct probe_live *l, uint32_t lo, uint32_t hi, int with_hits)
{
	uint64_t *hits = calloc(l->m->ndefs + 1, sizeof(*hits));
	int have_events = 0;
	char *text = NULL, *line, *save = NULL;
	size_t len;

	if (!hits || probe_mgr_table(l->m, &text, &len) < 0) {
		free(hits);
		live_say(l, "error: %s\n", strerror(ENOMEM));
		return;
	}
	if (with_hits)
		live_hits(l, hits, &have_events);
	/* The table's function (demangled, with spaces) is its last column:
	 * state and hits go before it, after the symbol, so the columns up to
	 * hits split on blanks. */
	live_say(l, "# id op method module offset symbol state hits function\n");
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long id = strtoul(line, NULL, 10);
		const struct probe_def *d;
		char hit[24] = "-";
		int cut = 0;

		if (line[0] == '#' || !id || id > l->m->ndefs || id < lo || id > hi)
			continue;
		d = &l->m->defs[id - 1];
		if (with_hits &&
		    (have_events || d->op == PROBE_OP_BLOCK || d->op == PROBE_OP_BRANCH))
			snprintf(hit, sizeof(hit), "%llu", (unsigned long long)hits[id]);
		/* the end of the sixth column (the symbol) */
		if (sscanf(line, "%*s %*s %*s %*s %*s %*s%n", &cut) < 0 || !cut)
			cut = (int)strlen(line);
		live_say(l, "%.*s %s %s%s\n", cut, line, live_state(d, l->m), hit, line + cut);
	}
	free(text);
	free(hits);
}

/* ---- commands (the target stopped) ---- */

/*
 * The ids to delete so that an added spec's points are free to be planned
 * with the spec of the probes that hold them (m->busy_ids): each holder's
 * probes of the same spec in the same function (its entry and its exits;
 * an exit shared with the entry or through the return address goes with
 * the entry), as " 2 3 ...".
 */
static void live_busy_drop(struct probe_live *l, char *buf, size_t len)
{
	const struct probe_mgr *m = l->m;
	size_t used = 0;

	buf[0] = 0;
	for (size_t i = 0; i < m->ndefs; i++) {
		const struct probe_def *d = &m->defs[i];
		int take = 0;

		if (!d->registered || d->gone || d->shared || d->method == PROBE_M_RETADDR ||
		    (d->status != PROBE_S_PATCHED && d->status != PROBE_S_OFF))
			continue;
		for (uint32_t k = 0; k < m->nbusy_ids && !take; k++) {
			const struct probe_def *o = &m->defs[m->busy_ids[k] - 1];

			take = m->busy_ids[k] <= m->ndefs && o->module == d->module &&
			       o->sym == d->sym && o->spec == d->spec;
		}
		if (take && used + 12 < len)
			used += (size_t)snprintf(buf + used, len - used, " %u", d->id);
	}
}

/*
 * What probes already placed took of an added spec's points (the planner
 * counted them in m->nbusy / m->ndup): the exact conflict, as the error
 * line (none placed; the caller prints it) or a warning line (some were).
 * buf empty when there was none.
 */
static void live_covered_why(struct probe_live *l, const char *text, char *buf, size_t len)
{
	struct probe_mgr *m = l->m;
	const struct probe_def *o;
	const struct probe_module *mod;

	buf[0] = 0;
	if (m->nbusy && m->busy_owner && m->busy_owner <= m->ndefs) {
		char drop[256];

		o = &m->defs[m->busy_owner - 1];
		mod = &m->mods[o->module];
		live_busy_drop(l, drop, sizeof(drop));
		snprintf(buf, len,
			 "%u of its points %s in the out-of-line code of probes placed in the "
			 "running program (the last: %s+0x%llx, in the trampoline of probe %u, "
			 "%s %s by '%s'), which is not rewritten while the program may run it, so "
			 "a probe added now cannot join it: drop those (delete%s) and add both in "
			 "one command, whose probes then share one trampoline as at launch "
			 "(add %s -e %s), or detach and attach again with both specs (-e '%s' -e "
			 "'%s')",
			 m->nbusy, m->nbusy == 1 ? "is" : "are", probe_sym_shown(mod, o->sym),
			 (unsigned long long)(m->busy_addr - mod->syms[o->sym].addr), o->id,
			 live_op_word(o), probe_sym_shown(mod, o->sym), o->spec ? o->spec : "?",
			 drop, o->spec ? o->spec : "?", text, o->spec ? o->spec : "?", text);
	} else if (m->ndup && m->dup_id && m->dup_id <= m->ndefs) {
		o = &m->defs[m->dup_id - 1];
		mod = &m->mods[o->module];
		snprintf(buf, len,
			 "the entry and exits of %u function%s it names are probed already (the "
			 "last: %s, probe %u and its exits, by '%s'): 'list' shows them, 'enable' "
			 "turns a disabled one back on",
			 m->ndup, m->ndup == 1 ? "" : "s", probe_sym_shown(mod, o->sym), o->id,
			 o->spec ? o->spec : "?");
	}
}

/*
 * The libraries the process has mapped now, for an added spec that names
 * one: a library it dlopened after spool attached is found (the list read
 * at the attach is replaced). On an error the old list stays.
 */
static void live_libs_now(struct probe_live *l)
{
	struct probe_mgr *m = l->m;
	char **libs;
	size_t nlibs;

	if (probe_attach_libs(l->pid, &libs, &nlibs) < 0)
		return;
	for (size_t i = 0; i < m->nlibs; i++)
		free(m->libs[i]);
	free(m->libs);
	m->libs = libs;
	m->nlibs = nlibs;
	m->libs_resolved = 1;
}

/* What to do instead of a system probe this session cannot count: the
 * error line (said whole: a reply is one line). */
static void live_sys_advice(struct probe_live *l, const char *spec, const char *why)
{
	const char *opts[] = {"-e", spec};
	char advice[12288];

	if (probe_sys_advice(l->pid, opts, 2, advice, sizeof(advice)))
		snprintf(advice, sizeof(advice), "spool probe -e %s -- PROG ARGS", spec);
	for (char *c = advice; *c; c++)
		if (*c == '\n') /* (a reply is one line) */
			*c = ' ';
	live_say(l, "error: %s: %s: start it under spool: %s\n", spec, why, advice);
}

/*
 * add sys:... (on) and delete sys:... (off), the threads stopped: the
 * probes on from now. sys:cpu is spool's own sampling of /proc; sys:io and
 * sys:mem have the agent point the program's GOT slots of their functions
 * at its counting interposers, or put them back (agent_probe_live.c "sys",
 * agent_probe_got.c): calls made through them from the add on are counted,
 * exactly, until the delete or the detach.
 */
static int live_sys(struct probe_live *l, const char *spec, int on)
{
	const unsigned agent_bits = SYS_W_IO | SYS_W_MEM;
	struct probe_run *pr = l->pr;
	unsigned what = 0, want, got = 0, slots = 0;
	char err[256], cmd[32];
	int rc;

	rc = sysprobe_parse(spec, &what, err, sizeof(err));
	if (rc <= 0) {
		live_say(l, "error: %s\n", rc ? err : "not a sys: spec");
		return -EINVAL;
	}
	if (!pr || !pr->sys) {
		live_sys_advice(l, spec, "this session has no room for system probes");
		return -ENODEV;
	}
	if (on && (l->sys_on & what) == what) {
		live_say(l, "error: %s is on already ('delete %s' turns it off)\n", spec, spec);
		return -EEXIST;
	}
	if (!on && !(l->sys_on & what)) {
		live_say(l, "error: %s is not on\n", spec);
		return -ENOENT;
	}
	want = on ? l->sys_on | what : l->sys_on & ~what;
	if ((want ^ l->sys_on) & agent_bits) {
		snprintf(cmd, sizeof(cmd), "sys %u", want & agent_bits);
		rc = live_ctl(l, cmd);
		if (rc < 0) {
			if (rc == -ENODEV)
				live_sys_advice(l, spec, "the agent has no counters' area");
			else
				live_say(l, "error: %s: %s\n", spec, strerror(-rc));
			return rc;
		}
		got = (unsigned)rc & agent_bits;
		slots = (unsigned)rc >> 4;
		if ((want & agent_bits) & ~got) {
			/* a name whose global definition is not libc's (a
			 * preloaded allocator): the agent counts none of it;
			 * its state made to match (the interposers unused) */
			snprintf(cmd, sizeof(cmd), "sys %u", got);
			rc = live_ctl(l, cmd);
			if (rc >= 0)
				slots = (unsigned)rc >> 4;
			if (on && !(what & got & ~l->sys_on) && !(what & SYS_W_CPU & ~l->sys_on)) {
				live_sys_advice(l, spec,
						"not counted here: the process's own definitions of "
						"its functions are not libc's (an allocator or an "
						"interposer of its own; SPOOL_DEBUG=1 names them)");
				return -ENOTSUP;
			}
			live_say(l, "warning: %s: %s is not counted here: its functions are not "
				    "libc's in this process\n",
				 spec, (want & ~got & SYS_W_MEM) ? "sys:mem" : "sys:io");
			want = (want & ~agent_bits) | got;
		}
	}
	rc = sysprobe_set(pr->sys, want);
	if (rc < 0) {
		live_say(l, "error: %s: %s\n", spec, strerror(-rc));
		return rc;
	}
	pr->sys_what |= want; /* the report at the end gives them */
	l->sys_on = want;
	if (l->chg)
		fprintf(l->chg, "%llu %s - sys %s\n", (unsigned long long)live_now_ns(),
			on ? "add" : "delete", spec);
	live_say(l, "ok %s %s (on now:%s%s%s%s", on ? "added" : "deleted", spec,
		 want & SYS_W_CPU ? " sys:cpu" : "", want & SYS_W_IO ? " sys:io" : "",
		 want & SYS_W_MEM ? " sys:mem" : "", want ? "" : " none");
	if (want & agent_bits)
		live_say(l, "; %u GOT slots to the counting functions", slots);
	live_say(l, ")\n");
	return 0;
}

static int live_add(struct probe_live *l, char *arg)
{
	struct probe_mgr *m = l->m;
	size_t before = m->ndefs, nnew = 0;
	struct probe_area_hdr hc, first;
	struct probe_area_probe *ps;
	struct probe_spec s;
	uint64_t size, off, *lo = NULL, *hi = NULL;
	char err[512], why[1024], **sv, *text, **parts;
	const char *line; /* the spec(s) as given: the log and the answers quote it */
	size_t nparts;
	void *batch = NULL;
	int disabled = 0, rc, n = 0, matched;
	pid_t tid;

	if (!strncmp(arg, "--disabled ", 11)) {
		disabled = 1;
		arg += 11;
		while (*arg == ' ')
			arg++;
	}
	if (probe_area_check(l->area, l->area_size, &first) < 0) {
		live_say(l, "error: the program overwrote spool's probe area\n");
		return -EPROTO;
	}
	line = arg;
	text = strdup(arg);
	sv = realloc(l->specs, (l->nspecs + 1) * sizeof(*sv));
	if (!text || !sv) {
		free(text);
		if (sv)
			l->specs = sv;
		live_say(l, "error: %s\n", strerror(ENOMEM));
		return -ENOMEM;
	}
	l->specs = sv;
	l->specs[l->nspecs++] = text; /* the defs point at it */
	/* before the parser, which knows no sys: kind (spool probe's own
	 * options take sys: specs apart) */
	if (!strncmp(text, "sys:", 4))
		return live_sys(l, text, 1);
	/* "add A -e B": planned together, so that probes of both at one
	 * point share one trampoline, as with -e A -e B at launch; each
	 * part is a spec of its own (the defs point at its text) */
	nparts = 1;
	for (char *p = text; (p = strstr(p, " -e ")); p += 4)
		nparts++;
	parts = calloc(nparts, sizeof(*parts));
	if (!parts) {
		live_say(l, "error: %s\n", strerror(ENOMEM));
		return -ENOMEM;
	}
	nparts = 0;
	for (char *p = text, *e;; p = e + 4) {
		e = strstr(p, " -e ");
		if (e)
			*e = 0;
		while (*p == ' ')
			p++;
		parts[nparts++] = p;
		if (!e)
			break;
	}
	for (size_t i = 0; i < nparts; i++)
		if (!strncmp(parts[i], "sys:", 4) ||
		    probe_spec_parse(parts[i], &s, err, sizeof(err)) < 0) {
			if (!strncmp(parts[i], "sys:", 4))
				snprintf(err, sizeof(err), "'%s': a system probe is added alone",
					 parts[i]);
			free(parts);
			live_say(l, "error: %s\n", err);
			return -EINVAL;
		}
	m->nbusy = m->busy_owner = m->ndup = m->dup_id = m->nbusy_ids = 0;
	rc = 0;
	matched = 0;
	for (size_t i = 0; i < nparts && rc >= 0; i++) {
		probe_spec_parse(parts[i], &s, err, sizeof(err));
		if (s.lib[0])
			live_libs_now(l);
		rc = probe_mgr_add_spec(m, &s);
		matched |= rc > 0;
	}
	free(parts);
	if (rc >= 0)
		rc = probe_mgr_plan_cfg(m);
	for (size_t i = before; i < m->ndefs; i++)
		nnew += m->defs[i].registered;
	if (rc < 0 || !nnew) {
		for (size_t i = before; i < m->ndefs; i++)
			m->defs[i].registered = 0;
		if (rc >= 0 && matched) /* its points are another probe's: in the trace */
			live_log(l, "covered", NULL, line);
		live_covered_why(l, line, why, sizeof(why));
		if (rc >= 0 && why[0])
			live_say(l, "error: '%s' placed no probe: %s\n", line, why);
		else
			live_say(l, "error: '%s' %s\n", line,
				 rc < 0 ? strerror(-rc)
					: "placed no probe (probes already placed cover its points, "
					  "or spool said why above)");
		return rc < 0 ? rc : -ENOENT;
	}
	live_covered_why(l, line, why, sizeof(why));
	if (why[0]) /* some of its points were placed, not these */
		live_say(l, "warning: '%s': %s\n", line, why);
	if (m->ndefs >= first.ncounts) {
		for (size_t i = before; i < m->ndefs; i++)
			m->defs[i].registered = 0;
		live_say(l, "error: no probe ids left (%u per attach)\n", first.ncounts - 1);
		return -ERANGE;
	}
	for (size_t i = before; i < m->ndefs; i++)
		m->defs[i].disabled = (uint8_t)disabled;
	size = probe_mgr_area_size_from(m, before);
	batch = calloc(1, size);
	if (!batch) {
		rc = -ENOMEM;
		goto out_fail;
	}
	rc = probe_mgr_fill_area_from(m, before, batch, size);
	if (rc < 0)
		goto out_fail;
	/* The agent finds the batch's variable recipes from the first
	 * area's: a whole number of recipes apart. */
	off = (l->next_off + 7) & ~7ull;
	while ((off + ((struct probe_area_hdr *)batch)->vars_off - first.vars_off) %
	       sizeof(struct probe_area_var))
		off += 8;
	if (off + size > l->area_size) {
		rc = -ENOSPC;
		goto out_fail;
	}
	memcpy(l->area + off, batch, size);
	l->next_off = (off + size + 4095) & ~4095ull;
	{
		char cmd[64];

		snprintf(cmd, sizeof(cmd), "prep %llu", (unsigned long long)off);
		rc = live_ctl(l, cmd);
		if (rc < 0)
			goto out_fail;
		if (probe_area_check(l->area + off, l->area_size - off, &hc) < 0) {
			rc = -EPROTO;
			goto out_fail;
		}
		ps = (void *)(l->area + off + hc.probes_off);
		/* a thread blocking SIGTRAP would die of an int3 (the agent is
		 * not interposed in attach mode): those stay out */
		if (probe_attach_trap_blocked(l->a, &tid))
			for (uint32_t i = 0; i < hc.nprobes; i++)
				if (ps[i].status == PROBE_S_READY && ps[i].method == PROBE_M_INT3) {
					ps[i].status = PROBE_S_NO_TRAP;
					live_say(l,
						 "probe %u: not placed: thread %d blocks SIGTRAP\n",
						 ps[i].id, (int)tid);
				}
		lo = calloc(hc.nprobes + 1, sizeof(*lo));
		hi = calloc(hc.nprobes + 1, sizeof(*hi));
		if (!lo || !hi) {
			rc = -ENOMEM;
			goto out_fail;
		}
		for (uint32_t i = 0; i < hc.nprobes; i++)
			if (ps[i].status == PROBE_S_READY) {
				lo[n] = ps[i].runtime_patch;
				hi[n++] = ps[i].runtime_patch + ps[i].patch_len;
			}
		rc = probe_attach_leave_ranges(l->a, lo, hi, (size_t)n);
		if (rc < 0)
			goto out_fail; /* READY, never written: nothing to undo */
		snprintf(cmd, sizeof(cmd), "commit %llu", (unsigned long long)off);
		rc = live_ctl(l, cmd);
		if (rc < 0)
			goto out_fail;
		probe_mgr_read_area(m, l->area + off, l->area_size - off);
	}
	for (size_t i = before; i < m->ndefs; i++)
		if (m->defs[i].registered &&
		    (m->defs[i].status == PROBE_S_PATCHED || m->defs[i].status == PROBE_S_OFF ||
		     m->defs[i].shared))
			live_log(l, disabled ? "add-disabled" : "add", &m->defs[i], NULL);
	live_list(l, (uint32_t)before + 1, (uint32_t)m->ndefs, 0);
	live_say(l, "ok added %zu probes (ids %zu-%zu), %d patched%s\n", nnew, before + 1, m->ndefs,
		 rc, disabled ? ", disabled" : "");
	rc = 0;
	goto out;
out_fail:
	for (size_t i = before; i < m->ndefs; i++)
		if (m->defs[i].status != PROBE_S_PATCHED && m->defs[i].status != PROBE_S_OFF)
			m->defs[i].registered = m->defs[i].status != PROBE_S_PENDING;
	live_say(l, "error: adding '%s': %s\n", line, strerror(-rc));
out:
	free(lo);
	free(hi);
	free(batch);
	return rc;
}

/* delete / disable / enable, for each id of args. */
/* A failure of one id of a change: the one before it becomes a warning
 * line; the last one stays in buf for the answer's last line. */
static void live_fail(struct probe_live *l, char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void live_fail(struct probe_live *l, char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (buf[0])
		live_say(l, "warning: %s\n", buf);
	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

/* A combined group: o, the probe whose code it is, and the probes riding
 * in that code. Those of other kinds (method PROBE_M_RIDE: func: and args:
 * at one point) are deleted on their own; o's own parts (its shared exit,
 * the counters of blocks in its window) go with o. */
static int live_rider(const struct probe_def *r, const struct probe_def *o)
{
	return r->shared == o->id && r != o && !r->gone && r->status != PROBE_S_DELETED;
}

/* The probes of o's group that keep its code: o unless deleted, and its
 * riders of other kinds not deleted; d left out. */
static size_t live_group_left(const struct probe_mgr *m, const struct probe_def *o,
			      const struct probe_def *d)
{
	size_t n = o != d && !o->gone;

	for (size_t i = 0; i < m->ndefs; i++)
		if (&m->defs[i] != d && live_rider(&m->defs[i], o) &&
		    m->defs[i].method == PROBE_M_RIDE)
			n++;
	return n;
}

/* Whether o's code has a handler call of probe id to jump over (an int3's
 * own handler is called by the trap, which the agent tells not to). */
static int live_has_skip(const struct probe_def *o, uint32_t id)
{
	for (uint32_t k = 0; o->code && k < o->code->nskip && k < X86_SKIP_MAX; k++)
		if (o->code->skip[k].id == id)
			return 1;
	return 0;
}

/* Delete d, of the group whose code is o's (d == o when it is not
 * combined): while others of the group run, only d's handler call (and
 * when d is o, those of o's own parts) is jumped over for good ("skip");
 * the last one deleted restores the code (o's "del"). 0, or a negative
 * errno (-EXDEV: said in why). */
static int live_delete(struct probe_live *l, struct probe_def *d, struct probe_def *o,
		       char *why, size_t len)
{
	uint64_t lo = live_patch_rt(o), hi = lo + o->patch_len;
	char cmd[64];
	int rc;

	if (d != o && d->method != PROBE_M_RIDE) {
		snprintf(why, len, "probe %u is part of probe %u (in its code): delete %u, or "
			 "disable %u", d->id, o->id, o->id, d->id);
		return -EXDEV;
	}
	if (live_group_left(l->m, o, d)) {
		/* d's calls and, for o, its parts': all skippable, or none
		 * is skipped */
		for (size_t i = 0; i <= l->m->ndefs; i++) {
			const struct probe_def *x = i < l->m->ndefs ? &l->m->defs[i] : d;

			if ((x == d || (d == o && live_rider(x, o) && x->method != PROBE_M_RIDE)) &&
			    !(x == o && o->method == PROBE_M_INT3) && !live_has_skip(o, x->id)) {
				snprintf(why, len,
					 "probe %u counts in its code itself, which other probes "
					 "run in: delete them first (list: shared, runs in probe %u)",
					 x->id, o->id);
				return -EXDEV;
			}
		}
		for (size_t i = 0; i <= l->m->ndefs; i++) {
			struct probe_def *x = i < l->m->ndefs ? &l->m->defs[i] : d;

			if (x->gone || !(x == d || (d == o && live_rider(x, o) &&
						    x->method != PROBE_M_RIDE)))
				continue;
			snprintf(cmd, sizeof(cmd), "skip %u", x->id);
			rc = live_ctl(l, cmd);
			if (rc)
				return rc;
			x->gone = 1;
		}
		/* An entry that swaps the return address: no swap, no exit
		 * (agent_probe_ra.c), so its exit probe is gone with it. */
		if (d->handler == PROBE_H_FUNC_ENTRY_RA && d->ret_id && d->ret_id <= l->m->ndefs &&
		    !l->m->defs[d->ret_id - 1].gone) {
			l->m->defs[d->ret_id - 1].gone = 1;
			live_say(l, "note: probe %u's exits went through the return address it "
				    "swapped: exit probe %u is deleted with it\n",
				 d->id, d->ret_id);
		}
		return 0;
	}
	rc = probe_attach_leave_ranges(l->a, &lo, &hi, 1);
	if (!rc) {
		snprintf(cmd, sizeof(cmd), "del %u", o->id);
		rc = live_ctl(l, cmd);
	}
	if (rc)
		return rc;
	/* its bytes are free again: a later add may probe them (the
	 * overlap index is rebuilt without them) */
	for (size_t i = 0; i < l->m->ndefs; i++) {
		struct probe_def *x = &l->m->defs[i];

		if (x == o || x->shared == o->id ||
		    (o->handler == PROBE_H_FUNC_ENTRY_RA && o->ret_id == x->id)) {
			/* (an exit through the return address the entry
			 * swapped: no swap, no exit; its function may be
			 * probed again) */
			x->status = PROBE_S_DELETED;
			x->patch_len = 0;
			x->gone = 1;
		}
	}
	probe_plan_free_index(l->m);
	probe_plan_init_index(l->m);
	return 0;
}

static int live_change(struct probe_live *l, const char *verb, char *args)
{
	char *tok, *save = NULL, cmd[64], why[256], fail[512] = "";
	int done = 0, rc = 0;

	for (tok = strtok_r(args, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		struct probe_def *d = live_def(l, tok);
		struct probe_def *o;

		rc = 0; /* each id on its own */
		if (!d) {
			live_fail(l, fail, sizeof(fail), "no probe %s (list shows the ids)", tok);
			rc = -ENOENT;
			continue;
		}
		o = d->shared && d->shared <= l->m->ndefs ? &l->m->defs[d->shared - 1] : d;
		if (d->gone || (o->status != PROBE_S_PATCHED && o->status != PROBE_S_OFF)) {
			live_fail(l, fail, sizeof(fail), "probe %s is %s", tok, live_state(d, l->m));
			rc = -ENOENT;
			continue;
		}
		if (d->method == PROBE_M_RETADDR && !(verb[0] == 'd' && verb[1] == 'e')) {
			uint32_t entry = 0;

			for (size_t i = 0; i < l->m->ndefs && !entry; i++)
				if (l->m->defs[i].ret_id == d->id)
					entry = l->m->defs[i].id;
			live_fail(l, fail, sizeof(fail),
				  "probe %s is an exit through the return address: %s its entry "
				  "(probe %u), which swaps it",
				  tok, verb, entry);
			rc = -ENOTSUP;
			continue;
		}
		if (verb[0] == 'd' && verb[1] == 'e') {
			why[0] = 0;
			rc = live_delete(l, d, o, why, sizeof(why));
			if (rc == -EXDEV && why[0]) {
				live_fail(l, fail, sizeof(fail), "%s", why);
				continue;
			}
		} else {
			snprintf(cmd, sizeof(cmd), "%s %u", verb[1] == 'i' ? "off" : "on", d->id);
			rc = live_ctl(l, cmd);
		}
		if (rc < 0) {
			live_fail(l, fail, sizeof(fail), "%s %s: %s", verb, tok,
				 rc == -ENOTSUP
				     ? "this probe's trampoline has no handler call to skip"
				     : strerror(-rc));
			continue;
		}
		live_log(l, verb[0] == 'e' ? "enable" : verb[1] == 'i' ? "disable" : "delete", d,
			 NULL);
		if (verb[0] == 'd' && verb[1] == 'e') {
			if (o->status != PROBE_S_DELETED)
				live_say(l, "note: probe %s's handler is off for good; the code "
					    "stays for the %zu probe(s) combined with it, restored "
					    "when the last is deleted\n",
					 tok, live_group_left(l->m, o, d));
		} else {
			d->disabled = verb[1] == 'i';
			/* Its function returns through the return address its
			 * entry swaps: no swap, no exit (agent_probe_ra.c). */
			if (d->handler == PROBE_H_FUNC_ENTRY_RA && d->ret_id)
				live_say(l, "note: probe %u's exits go through the return address its "
					    "entry swaps: exit probe %u is %s with it\n",
					 d->id, d->ret_id, d->disabled ? "off" : "on");
		}
		done++;
	}
	/* One answer ends with one "ok" or "error:" line: what failed for some
	 * ids before it is a warning (live_fail), the last failure the error
	 * when nothing changed. */
	if (done && fail[0])
		live_say(l, "warning: %s\n", fail);
	if (!done && fail[0]) {
		live_say(l, "error: %s\n", fail);
		return rc ? rc : -EINVAL;
	}
	if (done)
		live_say(l, "ok %s %d\n",
			 verb[0] == 'd' && verb[1] == 'e' ? "deleted"
			 : verb[1] == 'i'		  ? "disabled"
							  : "enabled",
			 done);
	else if (!rc)
		live_say(l, "error: %s wants probe ids\n", verb);
	return rc;
}

static void live_command(struct probe_live *l, char *line)
{
	char *arg;
	int rc;

	line[strcspn(line, "\r\n")] = 0;
	while (*line == ' ' || *line == '\t')
		line++;
	if (!*line || *line == '#')
		return;
	arg = line + strcspn(line, " \t");
	if (*arg)
		*arg++ = 0;
	while (*arg == ' ' || *arg == '\t')
		arg++;
	if (!strcmp(line, "detach") || !strcmp(line, "quit")) {
		live_say(l, "ok detaching\n");
		l->detach = 1;
		return;
	}
	if (!strcmp(line, "help")) {
		live_say(l, "list | add [--disabled] SPEC [-e SPEC]... | add sys:cpu|io|mem|all | "
			    "delete ID... | "
			    "delete sys:... | disable ID... | enable ID... | detach\nok\n");
		return;
	}
	if (!strcmp(line, "list")) {
		live_list(l, 1, UINT32_MAX, 1);
		if (l->sys_on)
			live_say(l, "# system probes on:%s%s%s\n",
				 l->sys_on & SYS_W_CPU ? " sys:cpu" : "",
				 l->sys_on & SYS_W_IO ? " sys:io" : "",
				 l->sys_on & SYS_W_MEM ? " sys:mem" : "");
		live_say(l, "ok %zu probes\n", l->m->ndefs);
		return;
	}
	if (strcmp(line, "add") && strcmp(line, "delete") && strcmp(line, "disable") &&
	    strcmp(line, "enable")) {
		live_say(l, "error: unknown command '%s' (help lists them)\n", line);
		return;
	}
	if (!*arg) {
		live_say(l, "error: %s wants %s\n", line, line[0] == 'a' ? "a spec" : "probe ids");
		return;
	}
	rc = probe_attach_stop(l->a, l->pid);
	if (rc < 0) {
		live_say(l, "error: cannot stop pid %d: %s\n", (int)l->pid, strerror(-rc));
		probe_attach_resume(l->a);
		return;
	}
	if (line[0] == 'a')
		live_add(l, arg);
	else if (!strncmp(arg, "sys:", 4) && line[0] == 'd' && line[1] == 'e')
		live_sys(l, arg, 0);
	else if (!strncmp(arg, "sys:", 4))
		live_say(l, "error: system probes are added and deleted (add %s, delete %s), not "
			    "%sd\n",
			 arg, arg, line);
	else
		live_change(l, line, arg);
	probe_attach_resume(l->a);
}

/* ---- input ---- */

static int live_write_all(int fd, const char *p, size_t n)
{
	while (n) {
		/* a client gone, or stdout closed: an error, never a SIGPIPE
		 * that would end spool with the probes still in the program */
		ssize_t w = fd == 1 ? write(fd, p, n) : send(fd, p, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Read what is there; run each whole line. 0 open, 1 end of input. */
static int live_read(struct probe_live *l, struct probe_live_in *in, int out_fd)
{
	ssize_t n = read(in->fd, in->buf + in->len, sizeof(in->buf) - 1 - in->len);
	char *nl;

	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : 1;
	if (n == 0 && !in->len)
		return 1;
	in->len += (size_t)n;
	in->buf[in->len] = 0;
	if (n == 0 || in->len == sizeof(in->buf) - 1) {
		/* a last line without newline, or one too long: taken as is */
		in->buf[in->len++] = '\n';
		in->buf[in->len] = 0;
	}
	while ((nl = memchr(in->buf, '\n', in->len))) {
		size_t used = (size_t)(nl - in->buf) + 1;

		*nl = 0;
		l->out_len = 0;
		live_command(l, in->buf);
		if (l->out_len && live_write_all(out_fd, l->out, l->out_len) < 0 && out_fd != 1)
			n = 0; /* the client went away */
		memmove(in->buf, in->buf + used, in->len - used);
		in->len -= used;
		if (l->detach)
			break;
	}
	return n == 0;
}

int probe_live_poll(struct probe_live *l)
{
	struct pollfd p[3];
	int np = 0, ii = -1, il = -1, ic = -1;

	if (l->use_stdin && l->in.fd >= 0)
		ii = np, p[np++] = (struct pollfd){.fd = l->in.fd, .events = POLLIN};
	if (l->listen_fd >= 0 && l->conn.fd < 0)
		il = np, p[np++] = (struct pollfd){.fd = l->listen_fd, .events = POLLIN};
	if (l->conn.fd >= 0)
		ic = np, p[np++] = (struct pollfd){.fd = l->conn.fd, .events = POLLIN};
	if (!np || poll(p, (nfds_t)np, 0) <= 0)
		return l->detach;
	if (ii >= 0 && p[ii].revents && live_read(l, &l->in, 1)) {
		l->in.fd = -1; /* end of stdin: detach */
		if (!l->detach)
			log_info("end of the commands on stdin: detaching");
		l->detach = 1;
	}
	if (il >= 0 && (p[il].revents & POLLIN)) {
		l->conn.fd = accept4(l->listen_fd, NULL, NULL, SOCK_CLOEXEC);
		l->conn.len = 0;
	}
	if (ic >= 0 && p[ic].revents && !l->detach && live_read(l, &l->conn, l->conn.fd)) {
		close(l->conn.fd);
		l->conn.fd = -1;
	}
	return l->detach;
}

/* The socket's directory must be the user's own and writable by no one
 * else (nobody can put a socket or link there in its place). */
static int live_listen(struct probe_live *l, const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	char dir[PATH_MAX];
	struct stat st;
	char *slash;
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path) || strlen(path) >= sizeof(dir)) {
		log_err("--control %s: path too long for a unix socket", path);
		return -ENAMETOOLONG;
	}
	strcpy(dir, path);
	slash = strrchr(dir, '/');
	if (!slash)
		strcpy(dir, ".");
	else if (slash == dir)
		dir[1] = 0;
	else
		*slash = 0;
	if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & (S_IWGRP | S_IWOTH))) {
		log_err("--control %s: its directory %s must be a directory of yours that no one "
			"else can write",
			path, dir);
		return -EPERM;
	}
	if (lstat(path, &st) == 0) {
		log_err("--control %s: already exists (spool does not replace it)", path);
		return -EEXIST;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	strcpy(sa.sun_path, path);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || chmod(path, 0600) < 0 ||
	    listen(fd, 4) < 0) {
		int rc = -errno;

		log_err("--control %s: %s", path, strerror(-rc));
		close(fd);
		unlink(path);
		return rc;
	}
	l->listen_fd = fd;
	l->ctl_path = strdup(path);
	return 0;
}

int probe_live_open(struct probe_live *l, int use_stdin, const char *ctl_path)
{
	struct sigaction ign = {.sa_handler = SIG_IGN};

	/* answers to a closed stdout fail with EPIPE instead of killing
	 * spool with the probes in place (put back at close) */
	sigaction(SIGPIPE, &ign, &l->old_pipe);
	l->use_stdin = use_stdin;
	l->listen_fd = -1;
	l->in.fd = use_stdin ? 0 : -1;
	l->conn.fd = -1;
	l->chg_buf = NULL;
	l->chg_len = 0;
	l->chg = open_memstream(&l->chg_buf, &l->chg_len); /* NULL: no log, said nowhere */
	if (use_stdin)
		fcntl(0, F_SETFL, fcntl(0, F_GETFL) | O_NONBLOCK);
	if (ctl_path)
		return live_listen(l, ctl_path);
	return 0;
}

void probe_live_close(struct probe_live *l)
{
	sigaction(SIGPIPE, &l->old_pipe, NULL);
	if (l->conn.fd >= 0)
		close(l->conn.fd);
	if (l->listen_fd >= 0)
		close(l->listen_fd);
	if (l->ctl_path)
		unlink(l->ctl_path);
	if (l->use_stdin)
		fcntl(0, F_SETFL, fcntl(0, F_GETFL) & ~O_NONBLOCK);
	free(l->ctl_path);
	free(l->out);
	if (l->chg && fclose(l->chg)) {
		free(l->chg_buf);
		l->chg_buf = NULL;
		l->chg_len = 0;
	}
	l->chg = NULL;
	/* the defs named the added specs (conflict messages while planning) */
	for (size_t i = 0; i < l->m->ndefs; i++)
		for (size_t k = 0; k < l->nspecs; k++)
			if (l->m->defs[i].spec == l->specs[k])
				l->m->defs[i].spec = NULL;
	if (l->m->cur_spec)
		for (size_t k = 0; k < l->nspecs; k++)
			if (l->m->cur_spec == l->specs[k])
				l->m->cur_spec = NULL;
	for (size_t k = 0; k < l->nspecs; k++)
		free(l->specs[k]);
	free(l->specs);
	l->specs = NULL;
	l->nspecs = 0;
	l->listen_fd = l->conn.fd = -1;
	l->ctl_path = NULL;
	l->out = NULL;
}
