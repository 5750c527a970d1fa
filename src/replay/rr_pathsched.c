// SPDX-License-Identifier: MIT
/*
 * rr_pathsched.c - a thread path as the schedule of a serial replay
 * (spool replay --path FILE, doc/record.md "Replaying a path").
 *
 * Why the schedule counts calls and not the progress count: a serial
 * recording's switches are (thread, progress count) pairs, and the progress
 * count goes up at every switch point: each function entry and exit, but
 * also each lock, input, create, join, yield and write call and each
 * coverage callback. A path lists only function entries (and exits with
 * --show-exits), so the progress count of a thread at its N-th entry cannot be
 * known from the path. The agent therefore counts the hooks the path lists
 * (entries, or entries and exits) itself in a path replay (RR_O_PATH): a
 * turn is (thread, calls made when it gives the token up, path line), and
 * the switch happens in the hook of the thread's next call, before that
 * call is recorded, which is where `spool path` puts it: exact.
 *
 * The conversion: consecutive records of one thread form a turn; the
 * turn's count is that thread's number of listed calls up to its last
 * record of the run. Thread 0 (main) runs first: a path that starts with
 * another thread gets an empty first turn of thread 0. After the replay,
 * the path of the replay's own trace is compared with the file, so a path
 * that names a function the thread does not call at that point is
 * reported with its line.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../analyze/path.h"
#include "../collect/shm_host.h"
#include "../common/shm.h"
#include "../util/log.h"
#include "rr_pathsched.h"

struct rr_pathsched {
	char *file;		/* NULL: --record-path only */
	struct rr_path_text text;
	struct rr_switch *sw;
	size_t nsw;
	int (*prepare)(void *arg, struct shm_host *h, struct trace_writer *w);
	int (*finish)(void *arg, struct shm_host *h, struct trace_writer *w);
	void *arg;
};

/* ---- parsing ---- */

static int is_num(const char *s, int frac)
{
	int digits = 0, dot = 0;

	for (; *s; s++) {
		if (*s >= '0' && *s <= '9')
			digits++;
		else if (*s == '.' && frac && !dot)
			dot = 1;
		else
			return 0;
	}
	return digits > 0;
}

/* "T3/1234" or "T3" */
static int parse_thread(const char *s, uint32_t *out)
{
	char *end;
	unsigned long v;

	if (s[0] != 'T' || s[1] < '0' || s[1] > '9')
		return -1;
	v = strtoul(s + 1, &end, 10);
	if (v >= RR_MAX_THREADS)
		return -1;
	if (*end == '/') {
		if (!is_num(end + 1, 0))
			return -1;
	} else if (*end) {
		return -1;
	}
	*out = (uint32_t)v;
	return 0;
}

static int add_rec(struct rr_path_text *t, size_t *cap, const struct rr_path_rec *r)
{
	if (t->n == *cap) {
		size_t n = *cap ? 2 * *cap : 256;
		struct rr_path_rec *v = realloc(t->recs, n * sizeof(*v));

		if (!v)
			return -ENOMEM;
		t->recs = v;
		*cap = n;
	}
	t->recs[t->n++] = *r;
	return 0;
}

/* Where the object column of a record starts in s (function and object,
 * trimmed), or NULL. The object is "none", "data", or KIND:NAME joined by
 * ',' (src/analyze/path.c), a NAME being what the lock report names it,
 * blanks included ("lock:(anonymous namespace)::mtx", "lock:Acc<int,
 * char>::m"): it starts at the first blank followed by a kind and a ':'
 * (not "::", which a C++ function's parameters may hold), else it is the
 * last word. */
static char *path_object(char *s)
{
	static const char *const kinds[] = {"lock:", "sem:", "cond:", "barrier:", "msg:"};

	for (char *p = s; (p = strpbrk(p, " \t")); p++) {
		const char *w = p + 1 + strspn(p + 1, " \t");

		for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
			size_t n = strlen(kinds[k]);

			if (!strncmp(w, kinds[k], n) && w[n] && w[n] != ':')
				return p;
		}
	}
	return strrchr(s, ' ');
}

/* One record line: seq time thread function... object. The function may
 * hold spaces (a C++ signature), and so may an object's name. */
static int parse_line(char *line, uint32_t lineno, int *exits, struct rr_path_rec *r,
		      const char **why)
{
	char *tok[4], *save = NULL, *fn, *obj, *end;
	size_t n;
	int i;

	for (i = 0; i < 3; i++) {
		tok[i] = strtok_r(i ? NULL : line, " \t", &save);
		if (!tok[i]) {
			*why = "want: seq time thread function object";
			return -EINVAL;
		}
	}
	if (!is_num(tok[0], 0) || !is_num(tok[1], 1)) {
		*why = "want: seq time thread function object (seq and time are numbers)";
		return -EINVAL;
	}
	if (parse_thread(tok[2], &r->thread) < 0) {
		*why = "the thread is not T<number>/<tid>";
		return -EINVAL;
	}
	fn = save;
	while (fn && (*fn == ' ' || *fn == '\t'))
		fn++;
	if (!fn || !*fn) {
		*why = "want: seq time thread function object (no function)";
		return -EINVAL;
	}
	end = fn + strlen(fn);
	while (end > fn && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		*--end = 0;
	end = path_object(fn);
	if (!end) {
		*why = "want: seq time thread function object (no object)";
		return -EINVAL;
	}
	obj = end + 1 + strspn(end + 1, " \t");
	*end = 0;
	while (end > fn && (end[-1] == ' ' || end[-1] == '\t'))
		*--end = 0;
	if (*exits < 0)
		*exits = *fn == '>' || *fn == '<';
	if (*exits) {
		if (*fn != '>' && *fn != '<') {
			*why = "a record without '>' or '<' in a path with exits";
			return -EINVAL;
		}
		r->exit = *fn == '<';
		fn++;
	} else if (*fn == '>' || *fn == '<') {
		*why = "a '>' or '<' record in a path without exits";
		return -EINVAL;
	}
	n = strlen(fn);
	if (n > 1 && fn[n - 1] == '*')
		fn[n - 1] = 0; /* main* */
	if (!*fn) {
		*why = "an empty function name";
		return -EINVAL;
	}
	r->line = lineno;
	r->function = strdup(fn);
	r->object = strdup(obj);
	if (!r->function || !r->object) {
		free(r->function);
		free(r->object);
		return -ENOMEM;
	}
	return 0;
}

int rr_path_parse(const char *text, size_t len, const char *name, struct rr_path_text *out,
		  char *err, size_t errlen)
{
	size_t cap = 0, pos = 0;
	uint32_t lineno = 0;
	int exits = -1, rc = 0;

	memset(out, 0, sizeof(*out));
	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t l = nl ? (size_t)(nl - (text + pos)) : len - pos;
		struct rr_path_rec r = {0};
		const char *why = NULL, *p;
		char *line;

		lineno++;
		line = strndup(text + pos, l);
		pos += l + (nl != NULL);
		if (!line) {
			rc = -ENOMEM;
			break;
		}
		for (p = line; *p == ' ' || *p == '\t' || *p == '\r'; p++)
			;
		if (!*p || *p == '#') {
			free(line);
			continue;
		}
		if (strlen(line) != l) {
			why = "a NUL byte";
			rc = -EINVAL;
		} else {
			rc = parse_line(line, lineno, &exits, &r, &why);
		}
		free(line);
		if (rc == 0)
			rc = add_rec(out, &cap, &r);
		if (rc < 0) {
			if (rc == -EINVAL)
				snprintf(err, errlen, "%s line %u: %s", name, lineno, why);
			else
				snprintf(err, errlen, "%s: %s", name, strerror(-rc));
			free(r.function);
			free(r.object);
			break;
		}
	}
	if (rc == 0 && !out->n) {
		snprintf(err, errlen, "%s: no records (want the output of spool path)", name);
		rc = -ENODATA;
	}
	out->exits = exits > 0;
	if (rc < 0)
		rr_path_text_free(out);
	return rc;
}

void rr_path_text_free(struct rr_path_text *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->recs[i].function);
		free(t->recs[i].object);
	}
	free(t->recs);
	memset(t, 0, sizeof(*t));
}

/* ---- the schedule ---- */

static int build_turns(struct rr_pathsched *ps, uint32_t nthreads)
{
	const struct rr_path_text *t = &ps->text;
	uint64_t *calls = calloc(nthreads, sizeof(*calls));
	size_t i, k = 0;

	/* at most one turn per record, plus thread 0's empty first turn */
	ps->sw = calloc(t->n + 1, sizeof(*ps->sw));
	if (!calls || !ps->sw) {
		free(calls);
		return -ENOMEM;
	}
	for (i = 0; i < t->n; i++) {
		const struct rr_path_rec *r = &t->recs[i];

		if (r->thread >= nthreads) {
			log_err("%s line %u: thread T%u does not exist: the recording has %u "
				"thread%s (T0 to T%u)",
				ps->file, r->line, r->thread, nthreads, nthreads == 1 ? "" : "s",
				nthreads - 1);
			free(calls);
			return -EINVAL;
		}
		if (!k && r->thread != 0) /* main runs first */
			ps->sw[k++] = (struct rr_switch){.thread = 0, .at = r->line, .count = 0};
		if (!k || ps->sw[k - 1].thread != r->thread)
			ps->sw[k++] = (struct rr_switch){.thread = r->thread, .at = r->line};
		calls[r->thread]++;
		ps->sw[k - 1].count = calls[r->thread];
	}
	ps->nsw = k;
	free(calls);
	return 0;
}

static int read_file(const char *path, char **buf, size_t *len)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 0, n;

	*buf = NULL;
	*len = 0;
	if (!f)
		return -errno;
	do {
		if (*len + 65536 > cap) {
			char *p = realloc(*buf, cap = *len + 65536);

			if (!p) {
				fclose(f);
				free(*buf);
				*buf = NULL;
				return -ENOMEM;
			}
			*buf = p;
		}
		n = fread(*buf + *len, 1, cap - *len, f);
		*len += n;
	} while (n);
	n = ferror(f);
	fclose(f);
	return n ? -EIO : 0;
}

/* ---- session hooks ---- */

static int ps_prepare(void *arg, struct shm_host *h, struct trace_writer *w)
{
	struct rr_pathsched *ps = arg;
	struct rr_area *a;
	int rc = ps->prepare ? ps->prepare(ps->arg, h, w) : 0;

	if (rc < 0)
		return rc;
	a = shm_host_ext(h, SHM_EXT_REPLAY);
	if (!a)
		return -EINVAL;
#ifdef RR_O_LOCK_EVENTS
	a->opts |= RR_O_LOCK_EVENTS; /* the objects of the path */
#endif
	if (!ps->nsw)
		return 0;
	/* sw[] is the last array of the area; setup made room for ours. */
	memcpy((char *)a + a->sw_off, ps->sw, ps->nsw * sizeof(*ps->sw));
	a->nsw = ps->nsw;
	a->opts |= RR_O_PATH | (ps->text.exits ? RR_O_PATH_EXITS : 0);
	return 0;
}

static int ps_finish(void *arg, struct shm_host *h, struct trace_writer *w)
{
	struct rr_pathsched *ps = arg;

	return ps->finish ? ps->finish(ps->arg, h, w) : 0;
}

int rr_pathsched_setup(struct rr_pathsched **out, const char *path_file,
		       const struct rr_log *log, int serial, struct session_opts *so)
{
	struct rr_pathsched *ps;
	char *buf = NULL, err[512];
	size_t len;
	int rc;

	*out = NULL;
	if (path_file && !serial) {
		log_err("--path needs a serial-mode recording: this one was made in sync mode, "
			"where threads run in parallel and no path can order them (record "
			"again without --mode sync)");
		return -EINVAL;
	}
	ps = calloc(1, sizeof(*ps));
	if (!ps)
		return -ENOMEM;
	if (path_file) {
		ps->file = strdup(path_file);
		if (!ps->file) {
			rc = -ENOMEM;
			goto out_free;
		}
		rc = read_file(path_file, &buf, &len);
		if (rc < 0) {
			log_err("%s: %s", path_file, strerror(-rc));
			goto out_free;
		}
		rc = rr_path_parse(buf, len, path_file, &ps->text, err, sizeof(err));
		free(buf);
		if (rc < 0) {
			log_err("%s", err);
			goto out_free;
		}
		rc = build_turns(ps, rr_log_threads(log));
		if (rc < 0)
			goto out_free;
		so->ext_bytes[SHM_EXT_REPLAY] += ps->nsw * sizeof(struct rr_switch);
	}
	so->features |= SHM_FEAT_PATH;
	ps->prepare = so->prepare;
	ps->finish = so->finish;
	ps->arg = so->hook_arg;
	so->prepare = ps_prepare;
	so->finish = ps_finish;
	so->hook_arg = ps;
	*out = ps;
	return 0;

out_free:
	rr_pathsched_free(ps);
	return rc;
}

/* ---- after the replay ---- */

int rr_pathsched_verify(struct rr_pathsched *ps, const char *replay_trace)
{
	struct path_opts po = {.thread = -1};
	struct rr_path_text got = {0};
	const struct rr_path_rec *a, *b;
	char *buf = NULL, err[512];
	size_t len = 0, i, nobj = 0, firstobj = 0;
	FILE *f;
	int rc;

	if (!ps || !ps->file)
		return 0;
	po.exits = ps->text.exits;
	f = open_memstream(&buf, &len);
	if (!f)
		return -ENOMEM;
	rc = path_report_dir(replay_trace, &po, f);
	if (fclose(f) && rc >= 0)
		rc = -ENOMEM;
	if (rc >= 0)
		rc = rr_path_parse(buf, len, replay_trace, &got, err, sizeof(err));
	free(buf);
	if (rc == -ENODATA) {
		log_err("the replay made no call before it stopped: the path cannot be followed "
			"from %s line %u on",
			ps->file, ps->text.recs[0].line);
		return rc;
	}
	if (rc < 0) {
		log_err("cannot read the replay's own path from %s", replay_trace);
		return rc;
	}
	for (i = 0; i < ps->text.n && i < got.n; i++) {
		a = &ps->text.recs[i];
		b = &got.recs[i];
		if (a->thread != b->thread || a->exit != b->exit || strcmp(a->function, b->function)) {
			log_err("%s line %u: the path has T%u %s %s here; the replay did not follow "
				"it: its call %zu is T%u %s %s",
				ps->file, a->line, a->thread, a->exit ? "leave" : "call",
				a->function, i + 1, b->thread, b->exit ? "leave" : "call",
				b->function);
			rc = -EPROTO;
			goto out;
		}
		if (strcmp(a->object, b->object) && !nobj++)
			firstobj = i;
	}
	if (got.n < ps->text.n) {
		a = &ps->text.recs[got.n];
		log_err("%s line %u: the replay stopped before T%u %s %s (it followed the path up "
			"to there)",
			ps->file, a->line, a->thread, a->exit ? "left" : "called", a->function);
		rc = -EPROTO;
	} else if (got.n > ps->text.n) {
		b = &got.recs[ps->text.n];
		log_err("the replay went on after the last line of %s: T%u %s %s (the path is "
			"cut short?)",
			ps->file, b->thread, b->exit ? "left" : "called", b->function);
		rc = -EPROTO;
	} else if (nobj) {
		log_warn("%zu call%s of the replay touched other objects than %s says (first: "
			 "line %u: %s, the replay: %s)",
			 nobj, nobj == 1 ? "" : "s", ps->file, ps->text.recs[firstobj].line,
			 ps->text.recs[firstobj].object, got.recs[firstobj].object);
		rc = 0;
	} else {
		rc = 0;
	}
out:
	rr_path_text_free(&got);
	return rc;
}

void rr_pathsched_free(struct rr_pathsched *ps)
{
	if (!ps)
		return;
	rr_path_text_free(&ps->text);
	free(ps->sw);
	free(ps->file);
	free(ps);
}
