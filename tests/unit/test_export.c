// SPDX-License-Identifier: MIT
/*
 * test_export.c - the Perfetto and Chrome exports and `spool export`.
 *
 * One small scenario whose slices are known by construction (a contended
 * hand-off whose holds overlap, a recursive mutex, three rwlock readers at
 * once, a condition wait, a wait and a hold still open at the end) is fed
 * in memory and through a real trace directory. The outputs are checked the
 * way a user's viewer would read them: the protobuf decoded by protoc with
 * Perfetto's message definitions (tests/data/perfetto), the JSON parsed by
 * python3, and slices on every track checked to nest.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "analyze/export.h"
#include "cmd/cmd.h"
#include "trace/trace.h"

#define PID 100u

struct step {
	uint64_t ns;
	unsigned kind, thread;
	uint32_t obj;
	unsigned op;
	uint64_t a, b; /* THREAD: tid, pthread; LOCKDEF: addr, type */
};

__attribute__((noinline)) void test_export_init_site(void) { __asm__ volatile(""); }

static const char *const thread_names[] = {"main", "worker", "reader"};

/* Waits: T1 on m (1100-1500), T2 on c (2200-2310), T2 on m (2400-end).
 * Holds: T0 m 1000-1600 (lane 0), T1 m 1500-1700 (lane 1: overlaps the
 * first), T0 m 1800-1830 (recursive, one hold), three rw readers (lanes
 * 0-2), T0 m 2390-end. Instants: cond signal, trylock failure. */
static const struct step scenario[] = {
	{900, KIND_THREAD, 0, 0, 0, PID, 0x70},
	{910, KIND_THREAD, 1, 0, 0, PID + 1, 0x71},
	{920, KIND_THREAD, 2, 0, 0, PID + 2, 0x72},
	{990, KIND_LOCKDEF, 0, 1, 0, 0x1000, LOCK_TYPE_MUTEX},
	{1000, KIND_LOCK, 0, 1, OP_ACQUIRE, 0, 0},
	{1100, KIND_LOCK, 1, 1, OP_CONTEND, 0, 0},
	{1500, KIND_LOCK, 1, 1, OP_ACQUIRE, 0, 0},
	{1600, KIND_LOCK, 0, 1, OP_RELEASE, 0, 0},
	{1700, KIND_LOCK, 1, 1, OP_RELEASE, 0, 0},
	{1800, KIND_LOCK, 0, 1, OP_ACQUIRE, 0, 0},
	{1810, KIND_LOCK, 0, 1, OP_ACQUIRE, 0, 0},
	{1820, KIND_LOCK, 0, 1, OP_RELEASE, 0, 0},
	{1830, KIND_LOCK, 0, 1, OP_RELEASE, 0, 0},
	{1990, KIND_LOCKDEF, 0, 2, 0, 0x2000, LOCK_TYPE_RWLOCK},
	{2000, KIND_LOCK, 0, 2, OP_ACQUIRE_RD, 0, 0},
	{2010, KIND_LOCK, 1, 2, OP_ACQUIRE_RD, 0, 0},
	{2020, KIND_LOCK, 2, 2, OP_ACQUIRE_RD, 0, 0},
	{2100, KIND_LOCK, 0, 2, OP_RELEASE, 0, 0},
	{2110, KIND_LOCK, 1, 2, OP_RELEASE, 0, 0},
	{2120, KIND_LOCK, 2, 2, OP_RELEASE, 0, 0},
	{2190, KIND_LOCKDEF, 2, 3, 0, 0x3000, LOCK_TYPE_COND},
	{2200, KIND_LOCK, 2, 3, OP_COND_WAIT, 0, 1},
	{2300, KIND_LOCK, 0, 3, OP_COND_SIGNAL, 0, 0},
	{2310, KIND_LOCK, 2, 3, OP_COND_WAKE, 0, 0},
	{2350, KIND_LOCK, 1, 1, OP_TRY_FAIL, 0, 0},
	{2390, KIND_LOCK, 0, 1, OP_ACQUIRE, 0, 0},
	{2400, KIND_LOCK, 2, 1, OP_CONTEND, 0, 0},
	{2500, KIND_LOCK, 1, 2, OP_ACQUIRE_TRY_RD, 0, 0},
	{2600, KIND_LOCK, 1, 2, OP_RELEASE, 0, 0},
};
#define NSTEPS (sizeof(scenario) / sizeof(scenario[0]))
enum {
	EXP_WAITS = 3,
	EXP_HOLDS = 8, /* 7 above + the trylock read hold at 2500-2600 */
	EXP_INSTANTS = 2,
	EXP_UNFINISHED = 2,
	EXP_LANES = 3,
	EXP_THREADS = 3,
	EXP_LOCKS = 3,
	EXP_LANE_TRACKS = 3, /* m lane 1, rw lanes 1 and 2 */
};

union rec_any {
	struct rec_hdr h;
	struct rec_lock lock;
	struct rec_thread thread;
	struct rec_lockdef def;
	uint64_t pad[16];
};

static void make_rec(const struct step *s, uint32_t seq, union rec_any *r)
{
	memset(r, 0, sizeof(*r));
	r->h.word = ev_word(s->kind, s->thread, s->obj, s->op);
	r->h.tsc = s->ns;
	r->h.seq = seq;
	switch (s->kind) {
	case KIND_THREAD:
		r->h.size = sizeof(r->thread);
		r->thread.tid = (uint32_t)s->a;
		r->thread.pid = PID;
		r->thread.pthread = s->b;
		snprintf(r->thread.name, sizeof(r->thread.name), "%s", thread_names[s->thread]);
		break;
	case KIND_LOCKDEF:
		r->h.size = sizeof(r->def);
		r->def.addr = s->a;
		r->def.type = (uint32_t)s->b;
		r->def.pid = PID;
		/* A return address inside the init function. */
		r->def.init_ip = (uint64_t)(uintptr_t)&test_export_init_site + 1;
		break;
	default:
		r->h.size = sizeof(r->lock);
		r->lock.ip = 0;
		r->lock.arg = s->b;
		break;
	}
}

/* A sink that checks what the viewers require: on each track, a slice ends
 * only as the innermost open one; lanes are announced before use. */
struct nest_track {
	uint64_t key;
	const struct export_slice *open[8];
	int depth, max_depth;
};

struct nest_check {
	struct nest_track tracks[64];
	int ntracks, errors, lanes_announced;
	unsigned long long lane_seen[64];
};

static struct nest_track *nest_track(struct nest_check *c, const struct export_slice *s)
{
	uint64_t key = s->hold ? (1ull << 63) | ((uint64_t)s->lock->obj << 8) | s->lane
			       : s->thread->idx;

	for (int i = 0; i < c->ntracks; i++)
		if (c->tracks[i].key == key)
			return &c->tracks[i];
	assert_true(c->ntracks < 64);
	c->tracks[c->ntracks].key = key;
	return &c->tracks[c->ntracks++];
}

static int nest_lane(void *ctx, const struct export_lock *l, unsigned lane, uint64_t ns)
{
	struct nest_check *c = ctx;

	c->lane_seen[c->lanes_announced++] = ((uint64_t)l->obj << 8) | lane;
	return 0;
}

static int nest_begin(void *ctx, const struct export_slice *s)
{
	struct nest_check *c = ctx;
	struct nest_track *t = nest_track(c, s);
	int announced = s->lane == 0;

	for (int i = 0; i < c->lanes_announced; i++)
		announced |= c->lane_seen[i] == (((uint64_t)s->lock->obj << 8) | s->lane);
	c->errors += !announced;
	assert_true(t->depth < 8);
	t->open[t->depth++] = s;
	if (t->depth > t->max_depth)
		t->max_depth = t->depth;
	return 0;
}

static int nest_end(void *ctx, const struct export_slice *s)
{
	struct nest_check *c = ctx;
	struct nest_track *t = nest_track(c, s);

	if (!t->depth || t->open[t->depth - 1] != s || s->end_ns < s->begin_ns)
		c->errors++;
	else
		t->depth--;
	return 0;
}

static const struct export_ops nest_ops = {.lane = nest_lane, .begin = nest_begin, .end = nest_end};

static void feed_scenario(int (*feed)(void *, const struct trace_event *), void *x)
{
	uint32_t seq[3] = {0};

	for (size_t i = 0; i < NSTEPS; i++) {
		union rec_any r;
		struct trace_event ev = {.stream_id = scenario[i].thread,
					 .thread = scenario[i].thread,
					 .ns = scenario[i].ns};

		make_rec(&scenario[i], seq[scenario[i].thread]++, &r);
		ev.rec = &r.h;
		assert_int_equal(feed(x, &ev), 0);
	}
}

static int feed_model(void *x, const struct trace_event *ev) { return export_model_feed(x, ev); }
static int feed_perfetto(void *x, const struct trace_event *ev)
{
	return export_perfetto_feed(x, ev);
}
static int feed_chrome(void *x, const struct trace_event *ev) { return export_chrome_feed(x, ev); }

static void test_model_slices_nest(void **state)
{
	struct nest_check c = {0};
	struct export_model *m;
	struct export_stats st;

	assert_int_equal(export_model_new(&m, &nest_ops, &c, NULL, NULL), 0);
	feed_scenario(feed_model, m);
	assert_int_equal(export_model_finish(m), 0);
	export_model_stats(m, &st);
	assert_int_equal(c.errors, 0);
	assert_int_equal(st.waits, EXP_WAITS);
	assert_int_equal(st.holds, EXP_HOLDS);
	assert_int_equal(st.instants, EXP_INSTANTS);
	assert_int_equal(st.unfinished, EXP_UNFINISHED);
	assert_int_equal(st.max_lanes, EXP_LANES);
	assert_int_equal(st.threads, EXP_THREADS);
	assert_int_equal(st.locks, EXP_LOCKS);
	assert_int_equal(c.lanes_announced, EXP_LANE_TRACKS);
	/* Nothing left open, and no track ever had two open slices (holds in
	 * lanes, one wait per thread, recursion not nested). */
	for (int i = 0; i < c.ntracks; i++) {
		assert_int_equal(c.tracks[i].depth, 0);
		assert_int_equal(c.tracks[i].max_depth, 1);
	}
	export_model_free(m);
}

static char *slurp_cmd(const char *cmd)
{
	FILE *p = popen(cmd, "r");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;

	assert_non_null(p);
	do {
		if (len + 4096 + 1 > cap) {
			cap = cap ? cap * 2 : 65536;
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
		n = fread(buf + len, 1, 4096, p);
		len += n;
	} while (n > 0);
	buf[len] = '\0';
	pclose(p);
	return buf;
}

static size_t count_str(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

static int have_tool(const char *name)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", name);
	return system(cmd) == 0;
}

static const char *proto_dir(void)
{
	static char dir[1024];
	const char *slash = strrchr(__FILE__, '/');

	snprintf(dir, sizeof(dir), "%.*s/../data/perfetto", slash ? (int)(slash - __FILE__) : 1,
		 slash ? __FILE__ : ".");
	return dir;
}

/*
 * Decode a Perfetto file with protoc and Perfetto's message definitions;
 * check slice counts, that every referenced track was described first, and
 * that no field is unknown (a wrong number or wire type would be).
 */
static char *check_perfetto_file(const char *path, uint64_t waits, uint64_t holds)
{
	char cmd[8192];
	char *text;
	uint64_t described[64];
	int ndescribed = 0;
	size_t nbegin, nend;

	if (!have_tool("protoc")) {
		fprintf(stderr, "protoc not installed (scripts/deps.sh installs it), skipping\n");
		skip();
	}
	snprintf(cmd, sizeof(cmd),
		 "protoc --decode=perfetto.protos.Trace -I '%s' '%s/trace.proto' < '%s' 2>&1; "
		 "echo \"exit $?\"",
		 proto_dir(), proto_dir(), path);
	text = slurp_cmd(cmd);
	assert_non_null(strstr(text, "exit 0\n"));
	nbegin = count_str(text, "type: TYPE_SLICE_BEGIN");
	nend = count_str(text, "type: TYPE_SLICE_END");
	assert_int_equal(nbegin, waits + holds);
	assert_int_equal(nend, nbegin);
	assert_int_equal(count_str(text, "type: TYPE_INSTANT"), EXP_INSTANTS);
	for (char *line = text; *line;) {
		char *nl = strchr(line, '\n');
		char *p = line;
		unsigned long long v;

		while (*p == ' ')
			p++;
		/* Unknown fields decode as bare numbers. */
		assert_false(*p >= '0' && *p <= '9');
		if (sscanf(p, "uuid: %llu", &v) == 1) {
			assert_true(ndescribed < 64);
			described[ndescribed++] = v;
		} else if (sscanf(p, "track_uuid: %llu", &v) == 1 ||
			   sscanf(p, "parent_uuid: %llu", &v) == 1) {
			int found = 0;

			for (int i = 0; i < ndescribed; i++)
				found |= described[i] == v;
			assert_true(found);
		}
		if (!nl)
			break;
		line = nl + 1;
	}
	/* One process, its threads, the locks and their extra lanes. */
	assert_int_equal(ndescribed, 1 + EXP_THREADS + EXP_LOCKS + EXP_LANE_TRACKS);
	assert_int_equal(count_str(text, "trusted_packet_sequence_id: 1\n"),
			 count_str(text, "packet {"));
	assert_non_null(strstr(text, "thread_name: \"worker\""));
	/* the lock's one name (lockname.h): "mutex#1" without symbols, its
	 * init site's function and its index with them */
	assert_non_null(strstr(text, "#1\"\n"));
	assert_non_null(strstr(text, "name: \"wait "));
	assert_non_null(strstr(text, "name: \"hold by 101 (worker)\""));
	return text;
}

static void test_perfetto_in_memory(void **state)
{
	char path[] = "/tmp/spool-test-pf-XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "wb");
	struct export_perfetto *x;
	struct export_stats st;
	char *text;

	assert_non_null(f);
	assert_int_equal(export_perfetto_open(&x, f, NULL), 0);
	feed_scenario(feed_perfetto, x);
	assert_int_equal(export_perfetto_finish(x, &st), 0);
	export_perfetto_free(x);
	fclose(f);
	assert_int_equal(st.waits, EXP_WAITS);
	assert_int_equal(st.holds, EXP_HOLDS);
	text = check_perfetto_file(path, st.waits, st.holds);
	/* Timestamps are the trace clock's nanoseconds. */
	assert_non_null(strstr(text, "timestamp: 1100\n"));
	free(text);
	unlink(path);
}

/* Parse a Chrome JSON file with python3 and report what a viewer sees:
 * waits, holds, instants, partly overlapping X events on one thread, the
 * first wait's ts and dur. */
static char *chrome_summary(const char *path)
{
	char cmd[4096];

	if (!have_tool("python3")) {
		fprintf(stderr, "python3 not installed, skipping\n");
		skip();
	}
	snprintf(cmd, sizeof(cmd),
		 "python3 -c '\n"
		 "import json, sys\n"
		 "d = json.load(open(sys.argv[1]))\n"
		 "assert d[\"displayTimeUnit\"] == \"ns\"\n"
		 "ev = d[\"traceEvents\"]\n"
		 "X = [e for e in ev if e[\"ph\"] == \"X\"]\n"
		 "by = {}\n"
		 "for e in X: by.setdefault((e[\"pid\"], e[\"tid\"]), []).append((e[\"ts\"], e[\"ts\"] + e[\"dur\"]))\n"
		 "bad = 0\n"
		 "for v in by.values():\n"
		 "  v.sort()\n"
		 "  bad += sum(1 for a, b in zip(v, v[1:]) if b[0] < a[1] < b[1])\n"
		 "w = sorted((e[\"ts\"], e[\"dur\"]) for e in X if e[\"cat\"] == \"wait\")\n"
		 "names = [e[\"args\"][\"name\"] for e in ev if e[\"ph\"] == \"M\"]\n"
		 "print(\"waits %%d holds %%d instants %%d partial %%d first %%r %%r meta %%d\" %% (\n"
		 "  len(w), sum(1 for e in X if e[\"cat\"] == \"hold\"),\n"
		 "  sum(1 for e in ev if e[\"ph\"] == \"i\"), bad, w[0][0], w[0][1], len(names)))\n"
		 "' '%s' 2>&1",
		 path);
	return slurp_cmd(cmd);
}

static void test_chrome_in_memory(void **state)
{
	char path[] = "/tmp/spool-test-ch-XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	struct export_chrome *x;
	struct export_stats st;
	char *sum, want[256];

	assert_non_null(f);
	assert_int_equal(export_chrome_open(&x, f, NULL), 0);
	feed_scenario(feed_chrome, x);
	assert_int_equal(export_chrome_finish(x, &st), 0);
	export_chrome_free(x);
	fclose(f);
	sum = chrome_summary(path);
	/* Metadata: one process, three threads, three locks, three lanes. */
	snprintf(want, sizeof(want),
		 "waits %d holds %d instants %d partial 0 first 1.1 0.4 meta %d\n", EXP_WAITS,
		 EXP_HOLDS, EXP_INSTANTS, 1 + EXP_THREADS + EXP_LOCKS + EXP_LANE_TRACKS);
	assert_string_equal(sum, want);
	assert_int_equal(st.written, EXP_WAITS + EXP_HOLDS + EXP_INSTANTS + 1 + EXP_THREADS +
					     EXP_LOCKS + EXP_LANE_TRACKS);
	free(sum);
	unlink(path);
}

static void test_chrome_limit(void **state)
{
	struct export_options o = {.max_events = 5};
	FILE *f = fopen("/dev/null", "w");
	struct export_chrome *x;
	int ret = 0;
	uint32_t seq = 0;

	assert_non_null(f);
	assert_int_equal(export_chrome_open(&x, f, &o), 0);
	for (size_t i = 0; i < NSTEPS && !ret; i++) {
		union rec_any r;
		struct trace_event ev = {.ns = scenario[i].ns, .rec = &r.h};

		make_rec(&scenario[i], seq++, &r);
		ret = export_chrome_feed(x, &ev);
	}
	assert_int_equal(ret, -EFBIG);
	export_chrome_free(x);
	/* --force lifts it. */
	o.force = 1;
	assert_int_equal(export_chrome_open(&x, f, &o), 0);
	feed_scenario(feed_chrome, x);
	assert_int_equal(export_chrome_finish(x, NULL), 0);
	export_chrome_free(x);
	fclose(f);
}

/* The scenario as a trace directory, written with the trace writer. */
static void write_trace(const char *dir)
{
	struct trace_clock clk = {.tsc_hz = 1000000000ull, .tsc0 = 0, .mono_ns = 0};
	struct trace_writer *w;
	struct trace_stream *s[3];
	uint32_t seq[3] = {0};
	static const char cmdline[] = "/usr/bin/demo\0--fast\0";
	FILE *mf;
	char maps[65536];
	size_t mlen;

	assert_int_equal(trace_writer_open(&w, dir, &clk), 0);
	for (unsigned i = 0; i < 3; i++)
		assert_int_equal(trace_writer_stream(w, i, PID, PID + i, &s[i]), 0);
	for (size_t i = 0; i < NSTEPS; i++) {
		union rec_any r;

		make_rec(&scenario[i], seq[scenario[i].thread]++, &r);
		assert_int_equal(trace_stream_write(s[scenario[i].thread], &r.h), 0);
	}
	assert_int_equal(trace_writer_add_file(w, "proc/100.cmdline", cmdline, sizeof(cmdline) - 1),
			 0);
	/* This process's own maps stand for pid 100's: init sites are
	 * addresses in this test binary. */
	mf = fopen("/proc/self/maps", "r");
	assert_non_null(mf);
	mlen = fread(maps, 1, sizeof(maps), mf);
	fclose(mf);
	assert_int_equal(trace_writer_add_file(w, "proc/100.maps", maps, mlen), 0);
	assert_int_equal(trace_writer_close(w), 0);
}

static int run_export(const char *a0, const char *a1, const char *a2, const char *a3,
		      const char *a4)
{
	char *argv[8] = {"export"};
	const char *in[] = {a0, a1, a2, a3, a4};
	int argc = 1;

	for (int i = 0; i < 5 && in[i]; i++)
		argv[argc++] = (char *)in[i];
	return cmd_export(argc, argv);
}

static void test_cmd_export_files(void **state)
{
	char tmp[] = "/tmp/spool-test-exp-XXXXXX";
	char dir[256], pf[256], js[256];
	char *text, *sum, want[256];

	assert_non_null(mkdtemp(tmp));
	snprintf(dir, sizeof(dir), "%s/t.trace", tmp);
	snprintf(pf, sizeof(pf), "%s/out.pftrace", tmp);
	snprintf(js, sizeof(js), "%s/out.json", tmp);
	write_trace(dir);

	assert_int_equal(run_export("--perfetto", "-o", pf, dir, NULL), 0);
	text = check_perfetto_file(pf, EXP_WAITS, EXP_HOLDS);
	/* Process named from its command line; lock tracks named by the
	 * symbolized init site's function and the lock index (lockname.h). */
	assert_non_null(strstr(text, "process_name: \"demo\""));
	assert_non_null(strstr(text, "name: \"mutex test_export_init_site+0x1#1\""));
	free(text);

	assert_int_equal(run_export("--chrome", "--output", js, dir, NULL), 0);
	sum = chrome_summary(js);
	snprintf(want, sizeof(want),
		 "waits %d holds %d instants %d partial 0 first 1.1 0.4 meta %d\n", EXP_WAITS,
		 EXP_HOLDS, EXP_INSTANTS, 1 + EXP_THREADS + EXP_LOCKS + EXP_LANE_TRACKS);
	assert_string_equal(sum, want);
	free(sum);

	snprintf(want, sizeof(want), "rm -rf '%s'", tmp);
	assert_int_equal(system(want), 0);
}

static void test_cmd_export_usage(void **state)
{
	char tmp[] = "/tmp/spool-test-exu-XXXXXX";
	char out[256], dir[256];
	struct stat sb;

	assert_non_null(mkdtemp(tmp));
	snprintf(out, sizeof(out), "%s/o", tmp);
	snprintf(dir, sizeof(dir), "%s/none.trace", tmp);
	assert_int_equal(run_export("--bogus", NULL, NULL, NULL, NULL), EXIT_USAGE);
	assert_int_equal(run_export("--perfetto", "-x", NULL, NULL, NULL), EXIT_USAGE);
	assert_int_equal(run_export("--perfetto", "-o", NULL, NULL, NULL), EXIT_USAGE);
	assert_int_equal(run_export(dir, NULL, NULL, NULL, NULL), EXIT_USAGE); /* no format */
	assert_int_equal(run_export("--perfetto", "--chrome", dir, NULL, NULL), EXIT_USAGE);
	assert_int_equal(run_export("--help", NULL, NULL, NULL, NULL), 0);
	/* A missing trace is an error, and leaves no output behind. */
	assert_int_equal(run_export("--perfetto", "-o", out, dir, NULL), 1);
	assert_int_not_equal(stat(out, &sb), 0);
	rmdir(tmp);
}

/* A stream cut short: the export says where, keeps what was read, exits 1. */
static void test_cmd_export_truncated(void **state)
{
	char tmp[] = "/tmp/spool-test-ext-XXXXXX";
	char dir[256], js[256], path[512], cmd[512];
	struct trace_reader *r;
	struct trace_problem prob;
	struct stat sb;
	char *sum;

	assert_non_null(mkdtemp(tmp));
	snprintf(dir, sizeof(dir), "%s/t.trace", tmp);
	snprintf(js, sizeof(js), "%s/out.json", tmp);
	write_trace(dir);
	assert_int_equal(trace_reader_open(&r, dir, &prob), 0);
	assert_true(trace_reader_nstreams(r) > 0);
	snprintf(path, sizeof(path), "%s/%s", dir, trace_reader_stream(r, 0)->file);
	trace_reader_close(r);
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(truncate(path, sb.st_size - 7), 0);

	assert_int_equal(run_export("--chrome", "-o", js, dir, NULL), 1);
	sum = chrome_summary(js);
	/* Still valid JSON, with the other threads' slices. */
	assert_non_null(strstr(sum, "partial 0"));
	assert_null(strstr(sum, "Error"));
	free(sum);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_model_slices_nest),
		cmocka_unit_test(test_perfetto_in_memory),
		cmocka_unit_test(test_chrome_in_memory),
		cmocka_unit_test(test_chrome_limit),
		cmocka_unit_test(test_cmd_export_files),
		cmocka_unit_test(test_cmd_export_usage),
		cmocka_unit_test(test_cmd_export_truncated),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
