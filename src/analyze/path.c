// SPDX-License-Identifier: MIT
/*
 * path.c - the thread path (path.h, doc/path.md): reads a trace in time
 * order, keeps per thread the stack of open instrumented frames (from the
 * depth the agent recorded, so a lost or skipped exit cannot shift it; or,
 * for entry and exit probes, from the stack pointer of each probe hit, as
 * the function report pairs them), gives every lock or message event to
 * the innermost open frame of its thread, then prints the queue of entries
 * in time order, or the check.
 *
 * The entries come from one source per trace: the -finstrument-functions
 * hooks' KIND_FUNC records, or the KIND_PROBE records of function probes
 * (the "probes" side file names each probe's function), when the trace has
 * such probes (spool path placed them on a program without the hooks) or
 * when asked (path_opts.functions).
 *
 * Two passes over the trace keep memory bounded by what the path reports,
 * not by the number of calls: the object of a call is only known at its
 * exit while the queue is ordered by entry time, so an outer call (main)
 * that stays open would hold every record after it. The first pass runs
 * the frame logic and keeps only the objects of the calls that touched one
 * (by the call's number in the queue), each thread's open frames, and for
 * --check the distinct functions entered; the second runs the same logic
 * again on a fresh reader and prints each record as it is made. Both passes
 * see the same events in the same order (the reader's merge is
 * deterministic), so a call has the same number in both.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../common/event.h"
#include "../replay/rr_area.h"
#include "../trace/trace.h"
#include "../util/demangle.h"
#include "../util/escape.h"
#include "../util/log.h"
#include "../util/hashtab.h"
#include "../util/symbolize.h"
#include "pass.h"
#include "lockname.h"
#include "path.h"
#include "probes_file.h"

/* Object kinds, in the order a call's objects are printed. */
enum { OBJ_LOCK = 1, OBJ_SEM, OBJ_COND, OBJ_BARRIER, OBJ_MSG };
static const char *const obj_prefix[] = {"", "lock", "sem", "cond", "barrier", "msg"};

struct objref {
	uint32_t kind; /* OBJ_* */
	uint32_t next; /* index + 1 in the pool, 0 = end */
	uint64_t id;   /* lock index, or message queue descriptor */
};

/* A record of the queue, as it is made (never kept). */
struct prec {
	uint64_t ns;
	uint64_t fn;
	uint64_t site;
	uint64_t entry;	 /* exits: number + 1 of the matching entry, 0 = unknown */
	uint32_t thread; /* thread index */
	uint8_t exit;
};

/* An open frame: the record that entered it (its number in the queue). */
struct pframe {
	uint64_t rec;
	uint64_t fn;
	uint64_t sp; /* probes: the stack pointer at its entry */
};

struct pthread_state {
	uint32_t tid, pid;
	struct pframe *stack; /* the open frames; [depth] */
	uint32_t depth, cap;
	int seen;
	int has_entries; /* a record of this thread is in the queue */
};

/* The objects of one call (objmap): key (its record's number, 0), the
 * first objref + 1 of its list. */
struct objent {
	struct hashtab_head h;
	uint32_t objs;
};

/* A function a thread entered (--check): key (fn, thread index). */
struct entered {
	struct hashtab_head h;
};

struct path_printer; /* pass 2 */

/* A function probe of the trace's "probes" side file. */
struct pprobe {
	uint8_t op;	    /* PROBE_OP_ENTRY or PROBE_OP_EXIT; 0 = not a function probe */
	uint8_t exe;	    /* in the executable (module "-" or its "# exe" path) */
	uint8_t has_entry;  /* entry_off is known */
	uint64_t off;	    /* the probed instruction, module offset */
	uint64_t entry_off; /* its function's entry probe, module offset */
	char *name;	    /* "module\0function" */
};

struct lockdef {
	uint64_t addr;
	uint32_t type; /* 0: no KIND_LOCKDEF seen */
	uint32_t pid;
	uint64_t init_ip;
};

struct path_state {
	uint64_t nrecs;	 /* records made so far in this pass */
	uint64_t nrecs1; /* made by the first pass */
	struct objref *pool;
	size_t npool, cappool;
	struct hashtab objmap; /* struct objent, by record number */
	struct hashtab ent;    /* --check: struct entered, by (fn, thread) */
	int collect_entered;
	struct path_printer *printer; /* set: the second pass, printing */
	struct pthread_state *threads;
	size_t nthreads;
	struct lockdef *locks;
	size_t nlocks;
	/* Tables indexed or sized by numbers from the trace (lock indices,
	 * call depths) stay below what the input could describe: a limit of
	 * PATH_FREE_IDX + input_bytes / PATH_BYTES_PER_IDX entries for the
	 * lock table, and as many frames for all the threads' stacks together
	 * (nframes). A real trace has an event of 41 bytes or more per lock
	 * and per frame. */
	uint64_t max_idx;
	uint64_t nframes;
	uint64_t first_ns;
	int have_first;
	uint64_t entries;
	uint32_t first_pid;
	int keep_exits;
	/* Traces of spool record/replay: per thread (the reader's number), its thread
	 * number in the recording + 1, from the schedule and input records the
	 * thread wrote itself (own), or from token switches (sw: in a
	 * recording another thread may write a release for it). */
	uint32_t *rr_own, *rr_sw;
	size_t nrr;
	/* Function probes by id, when the entries come from them. */
	int use_probes;
	struct pprobe *probes;
	size_t nprobes;
	size_t nfuncprobes, nexeprobes; /* entry probes: all, in the executable */
	/* What the trace is missing (every report prints it the same way) */
	struct trace_loss loss;
	const char *dir;
};

#define PATH_FREE_IDX 4096u
#define PATH_BYTES_PER_IDX 8u

static int grow(void **arr, size_t *cap, size_t need, size_t elem)
{
	size_t n;
	void *p;

	if (need <= *cap)
		return 0;
	n = *cap ? *cap : 16;
	while (n < need)
		n *= 2;
	p = realloc(*arr, n * elem);
	if (!p)
		return -ENOMEM;
	memset((char *)p + *cap * elem, 0, (n - *cap) * elem);
	*arr = p;
	*cap = n;
	return 0;
}

static struct pthread_state *thread_at(struct path_state *ps, uint32_t idx)
{
	if (idx >= ps->nthreads &&
	    grow((void **)&ps->threads, &ps->nthreads, (size_t)idx + 1, sizeof(*ps->threads)) < 0)
		return NULL;
	return &ps->threads[idx];
}

/* The first objref + 1 of record rec's objects, 0 = none. */
static uint32_t objs_of(struct path_state *ps, uint64_t rec)
{
	const struct objent *e = hashtab_find(&ps->objmap, rec, 0);

	return e ? e->objs : 0;
}

/* --check: note that thread ti entered fn (once per pair). */
static int note_entered(struct path_state *ps, uint32_t ti, uint64_t fn)
{
	int added;

	return hashtab_get(&ps->ent, fn, ti, &added) ? 0 : -ENOMEM;
}

/* Attach an object to the innermost open frame of thread t (once). The
 * first pass only: the second finds them in objmap. */
static int add_obj(struct path_state *ps, struct pthread_state *t, uint32_t kind, uint64_t id)
{
	struct objent *r;
	int added;
	uint32_t last = 0; /* pool index + 1 of the list's last element, 0 = empty */

	if (!t->depth || ps->printer || ps->collect_entered)
		return 0; /* outside every instrumented function; known; or --check */
	r = hashtab_get(&ps->objmap, t->stack[t->depth - 1].rec, 0, &added);
	if (!r)
		return -ENOMEM;
	for (uint32_t l = r->objs; l; l = ps->pool[l - 1].next) {
		if (ps->pool[l - 1].kind == kind && ps->pool[l - 1].id == id)
			return 0;
		last = l;
	}
	/* grow may move the pool: link by index, after it (r stays: the
	 * pool is apart from objmap) */
	if (grow((void **)&ps->pool, &ps->cappool, ps->npool + 1, sizeof(*ps->pool)) < 0)
		return -ENOMEM;
	ps->pool[ps->npool] = (struct objref){.kind = kind, .id = id};
	if (last)
		ps->pool[last - 1].next = (uint32_t)ps->npool + 1;
	else
		r->objs = (uint32_t)ps->npool + 1;
	ps->npool++;
	return 0;
}

static int lock_obj_kind(uint32_t type)
{
	switch (type) {
	case LOCK_TYPE_MUTEX:
	case LOCK_TYPE_RWLOCK:
	case LOCK_TYPE_SPIN:
		return OBJ_LOCK;
	case LOCK_TYPE_SEM:
		return OBJ_SEM;
	case LOCK_TYPE_COND:
		return OBJ_COND;
	case LOCK_TYPE_BARRIER:
		return OBJ_BARRIER;
	default:
		return 0; /* the thread pseudo-object: create/join are not objects */
	}
}

/* Make room for frame d (and those below it) on thread t's stack: -EINVAL
 * when that would take the stacks past what the input describes (max_idx). */
static int stack_room(struct path_state *ps, struct pthread_state *t, uint32_t d)
{
	uint64_t n = t->cap ? t->cap : 16;
	struct pframe *s;

	if ((uint64_t)d + 1 <= t->cap)
		return 0;
	while (n < (uint64_t)d + 1)
		n *= 2;
	if (ps->max_idx && ps->nframes + (n - t->cap) > ps->max_idx)
		return -EINVAL;
	ps->nframes += n - t->cap;
	s = realloc(t->stack, n * sizeof(*s));
	if (!s)
		return -ENOMEM;
	t->stack = s;
	t->cap = (uint32_t)n;
	return 0;
}

static void print_rec(struct path_state *ps, const struct prec *r, uint64_t k);

/* A new record, number ps->nrecs of the queue; entries are pushed at depth
 * d of thread t. The first pass counts it, the second prints it. */
static int add_rec(struct path_state *ps, struct pthread_state *t, uint32_t ti,
		   const struct trace_event *ev, uint64_t fn, uint64_t site, int exit,
		   uint64_t entry, uint32_t d, uint64_t sp)
{
	uint64_t k = ps->nrecs;

	if (!exit) {
		int rc = stack_room(ps, t, d);

		if (rc < 0)
			return rc;
		ps->entries++;
		/* Frames the agent lost between t->depth and d stay unknown:
		 * point them at this record so events land somewhere sane. */
		for (uint32_t i = t->depth; i < d; i++)
			t->stack[i] = (struct pframe){k, fn, sp};
		t->stack[d] = (struct pframe){k, fn, sp};
		t->depth = d + 1;
		if (ps->collect_entered && !ps->printer && note_entered(ps, ti, fn) < 0)
			return -ENOMEM;
	}
	t->has_entries = 1;
	ps->nrecs++;
	/* (a trace that grew since the first pass: its new records are not
	 * the path the first pass counted) */
	if (ps->printer && k < ps->nrecs1) {
		struct prec r = {ev->ns, fn, site, entry, ti, (uint8_t)exit};

		print_rec(ps, &r, k);
	}
	return 0;
}

/*
 * An entry or exit probe. Frames pair by stack pointer (at an entry and at
 * a ret it points at the return address): a hit at sp S first closes the
 * open frames below S (they returned unseen: an exit not probed, a
 * longjmp); an exit closes the frame of S and the tail callers under it
 * (same S); an entry at S pushes a frame (a tail caller whose jump was not
 * probed stays under it and closes with it).
 */
static int feed_probe(struct path_state *ps, const struct trace_event *ev, uint32_t ti)
{
	const struct rec_probe *p = (const struct rec_probe *)ev->rec;
	uint32_t id = ev_obj(p->h.word);
	uint64_t entry = 0;
	unsigned op = ev_op(p->h.word);
	const struct pprobe *pp;
	struct pthread_state *t;
	uint64_t fn;

	if (p->h.size < sizeof(*p))
		return -EINVAL;
	if (id >= ps->nprobes || !ps->probes[id].op || ps->probes[id].op != op)
		return 0; /* not a function probe (blocks, variables ...) */
	pp = &ps->probes[id];
	t = thread_at(ps, ti);
	if (!t)
		return -ENOMEM;
	while (t->depth && t->stack[t->depth - 1].sp < p->sp)
		t->depth--;
	if (op == PROBE_OP_ENTRY)
		return add_rec(ps, t, ti, ev, p->addr, p->ret_ip, 0, 0, t->depth, p->sp);
	fn = pp->has_entry ? p->addr - (pp->off - pp->entry_off) : 0;
	while (t->depth && t->stack[t->depth - 1].sp == p->sp) {
		const struct pframe *f = &t->stack[--t->depth];

		if (!entry && fn && f->fn == fn)
			entry = f->rec + 1;
	}
	if (!ps->keep_exits)
		return 0;
	return add_rec(ps, t, ti, ev, fn ? fn : p->addr, p->ret_ip, 1, entry, 0, p->sp);
}

static int feed_func(struct path_state *ps, const struct trace_event *ev, uint32_t ti)
{
	const struct rec_func *f = (const struct rec_func *)ev->rec;
	struct pthread_state *t = thread_at(ps, ti);
	unsigned op = ev_op(f->h.word);
	uint32_t d = f->depth;
	uint64_t entry = 0;

	if (!t)
		return -ENOMEM;
	if (f->h.size < sizeof(*f))
		return -EINVAL;
	if (op == FUNC_OP_MSG_SEND || op == FUNC_OP_MSG_RECV)
		return add_obj(ps, t, OBJ_MSG, f->fn);
	if (op != FUNC_OP_ENTER && op != FUNC_OP_EXIT)
		return -EINVAL;
	if (ps->use_probes)
		return 0; /* the entries come from probes */
	if (op == FUNC_OP_EXIT) {
		/* The frame at depth d closes, and everything above it. */
		if (d < t->depth) {
			if (t->stack[d].fn == f->fn)
				entry = t->stack[d].rec + 1;
			t->depth = d;
		}
		if (!ps->keep_exits)
			return 0;
	}
	if (op == FUNC_OP_ENTER && d > 1u << 20)
		d = t->depth; /* nonsense depth: stack on top */
	return add_rec(ps, t, ti, ev, f->fn, f->site, op == FUNC_OP_EXIT, entry, d, 0);
}

static int path_feed(struct path_state *ps, const struct trace_event *ev)
{
	const struct rec_hdr *h = ev->rec;
	uint32_t ti = ev->thread; /* not the word's: a ring serves thread after thread */
	struct pthread_state *t;

	if (!ps->have_first) {
		ps->first_ns = ev->ns;
		ps->have_first = 1;
	}
	switch (ev_kind(h->word)) {
	case KIND_THREAD: {
		const struct rec_thread *rt = (const struct rec_thread *)h;

		if (h->size < sizeof(*rt) || !(t = thread_at(ps, ti)))
			return h->size < sizeof(*rt) ? -EINVAL : -ENOMEM;
		t->tid = rt->tid;
		t->pid = rt->pid;
		t->seen = 1;
		return 0;
	}
	case KIND_PROC: {
		const struct rec_proc *rp = (const struct rec_proc *)h;

		if (h->size >= sizeof(*rp) && !ps->first_pid)
			ps->first_pid = rp->pid;
		return 0;
	}
	case KIND_LOCKDEF: {
		const struct rec_lockdef *ld = (const struct rec_lockdef *)h;
		uint32_t idx = ev_obj(h->word);

		if (h->size < sizeof(*ld) || (ps->max_idx && idx >= ps->max_idx))
			return -EINVAL;
		if (grow((void **)&ps->locks, &ps->nlocks, (size_t)idx + 1, sizeof(*ps->locks)) < 0)
			return -ENOMEM;
		ps->locks[idx] = (struct lockdef){ld->addr, ld->type, ld->pid, ld->init_ip};
		return 0;
	}
	case KIND_LOCK: {
		uint32_t idx = ev_obj(h->word);
		int kind;

		if (ev_op(h->word) >= OP_THREAD_CREATE || !idx || idx >= ps->nlocks)
			return 0;
		kind = lock_obj_kind(ps->locks[idx].type);
		if (!kind || !(t = thread_at(ps, ti)))
			return kind ? -ENOMEM : 0;
		return add_obj(ps, t, (uint32_t)kind, idx);
	}
	case KIND_FUNC:
		return feed_func(ps, ev, ti);
	case KIND_PROBE:
		return ps->use_probes ? feed_probe(ps, ev, ti) : 0;
	case KIND_SCHED:
	case KIND_INPUT: {
		uint32_t num;
		int sw = 0;

		if (ev_kind(h->word) == KIND_SCHED) {
			const struct rec_sched *e = (const struct rec_sched *)h;

			if (h->size < sizeof(*e))
				return 0;
			num = e->thread;
			sw = e->op == RR_OP_SWITCH;
		} else {
			if (h->size < sizeof(struct rec_input))
				return 0;
			num = ((const struct rec_input *)h)->thread;
		}
		if (num >= RR_MAX_THREADS)
			return 0;
		if (ti >= ps->nrr) {
			size_t cap = ps->nrr;

			if (grow((void **)&ps->rr_own, &cap, (size_t)ti + 1, sizeof(*ps->rr_own)) < 0)
				return -ENOMEM;
			cap = ps->nrr;
			if (grow((void **)&ps->rr_sw, &cap, (size_t)ti + 1, sizeof(*ps->rr_sw)) < 0)
				return -ENOMEM;
			ps->nrr = cap;
		}
		if (sw && !ps->rr_sw[ti])
			ps->rr_sw[ti] = num + 1;
		else if (!sw && !ps->rr_own[ti])
			ps->rr_own[ti] = num + 1;
		return 0;
	}
	default:
		return 0;
	}
}

static void path_state_free(struct path_state *ps)
{
	for (size_t i = 0; i < ps->nthreads; i++)
		free(ps->threads[i].stack);
	for (size_t i = 0; i < ps->nprobes; i++)
		free(ps->probes[i].name);
	free(ps->probes);
	free(ps->threads);
	hashtab_free(&ps->objmap);
	hashtab_free(&ps->ent);
	free(ps->pool);
	free(ps->locks);
	free(ps->rr_own);
	free(ps->rr_sw);
}

/* The number printed for each thread index: its thread number in the
 * recording when the trace is one of spool record or replay and every
 * thread with function entries has one (0 for the first thread, each used
 * once); else the index itself. Returns a malloc'ed array of nthreads. */
static uint32_t *thread_numbers(struct path_state *ps)
{
	uint32_t *num = calloc(ps->nthreads ? ps->nthreads : 1, sizeof(*num));
	uint8_t *used = calloc(ps->nthreads ? ps->nthreads : 1, 1);
	int ok = ps->nrr > 0;

	if (!num || !used) {
		free(num);
		free(used);
		return NULL;
	}
	for (size_t i = 0; i < ps->nthreads; i++) {
		uint32_t v = i < ps->nrr ? (ps->rr_own[i] ? ps->rr_own[i] : ps->rr_sw[i]) : 0;

		num[i] = (uint32_t)i;
		if (!v && i == 0)
			v = 1; /* the main thread may have written nothing */
		if (!v) {
			if (ps->threads[i].has_entries)
				ok = 0;
			continue;
		}
		if (v - 1 >= ps->nthreads || used[v - 1] || (i == 0) != (v == 1))
			ok = 0;
		else
			used[v - 1] = 1;
		num[i] = v - 1;
	}
	if (!ok)
		for (size_t i = 0; i < ps->nthreads; i++)
			num[i] = (uint32_t)i;
	free(used);
	return num;
}

/* ---- names ---- */

/* Function names, cached per (pid, address): the symbolizer is slow and a
 * path names the same few functions over and over. */
struct name_ent {
	struct hashtab_head h; /* key (address, pid) */
	int counted;	       /* (print_check) */
	char name[320];
	uint64_t module_offset;
	int in_exe; /* the function lies in the program's executable */
};

struct namer {
	struct symbolizer *sym;
	struct hashtab tab; /* struct name_ent */
	const char *exe;
	struct stat exe_st;
	int have_exe_st;
};

static int same_file(struct namer *nm, const char *module)
{
	struct stat st;

	if (!nm->exe || !module[0])
		return 0;
	if (!strcmp(nm->exe, module))
		return 1;
	return nm->have_exe_st && stat(module, &st) == 0 && st.st_dev == nm->exe_st.st_dev &&
	       st.st_ino == nm->exe_st.st_ino;
}

static struct name_ent *namer_get(struct namer *nm, uint32_t pid, uint64_t fn)
{
	struct name_ent *e;
	struct sym_info si;
	int added;

	e = hashtab_get(&nm->tab, fn, pid, &added);
	if (!e || !added)
		return e;
	memset(&si, 0, sizeof(si));
	if (nm->sym && symbolizer_lookup(nm->sym, pid, fn, &si) == 0 && si.func[0]) {
		if (si.offset)
			snprintf(e->name, sizeof(e->name), "%s+%#" PRIx64, si.func, si.offset);
		else
			snprintf(e->name, sizeof(e->name), "%s", si.func);
	} else if (nm->sym) {
		symbolizer_format_pc(nm->sym, pid, fn, e->name, sizeof(e->name));
	} else {
		snprintf(e->name, sizeof(e->name), "%#" PRIx64, fn);
	}
	e->module_offset = si.module_offset;
	e->in_exe = same_file(nm, si.module);
	return e;
}

/* A lock's name, the one the lock report and the exports give it
 * (lockname.h). */
static void lock_name(struct namer *nm, const struct lockdef *l, uint32_t idx, char *buf,
		      size_t len)
{
	struct lockname_src src = {.index = idx,
				   .pid = l->pid,
				   .type = l->type,
				   .defined = l->type != 0,
				   .addr = l->addr,
				   .init_ip = l->init_ip};
	struct lockname_syms syms = {
	    .data = lockname_sym_data, .site = lockname_sym_site, .ctx = nm->sym};

	lockname_format(&src, &syms, buf, len);
}

/* The object column of a record: "lock:buf_lock,sem:0x7f...", "data", "none". */
static void format_objects(struct path_state *ps, struct namer *nm, struct path_prog *prog,
			   uint32_t objs, const struct name_ent *ne, char *buf, size_t len)
{
	size_t o = 0;
	struct path_func *pf;

	buf[0] = 0;
	for (uint32_t k = OBJ_LOCK; k <= OBJ_MSG; k++) {
		for (uint32_t l = objs; l; l = ps->pool[l - 1].next) {
			const struct objref *ob = &ps->pool[l - 1];
			char name[320];

			if (ob->kind != k || o + 2 >= len)
				continue;
			if (k == OBJ_MSG)
				snprintf(name, sizeof(name), "mq%" PRId64, (int64_t)ob->id);
			else
				lock_name(nm, &ps->locks[ob->id], (uint32_t)ob->id, name, sizeof(name));
			o += (size_t)snprintf(buf + o, len - o, "%s%s:%s", o ? "," : "",
					      obj_prefix[k], name);
			if (o >= len)
				o = len - 1;
		}
	}
	if (o)
		return;
	pf = ne && ne->in_exe && prog->nfuncs ? path_prog_find(prog, ne->module_offset) : NULL;
	snprintf(buf, len, "%s", pf && pf->data_param ? "data" : "none");
}

/* The second pass's printer: where and how each record goes. */
struct path_printer {
	FILE *out;
	const struct path_opts *o;
	struct namer *nm;
	struct path_prog *prog;
	uint32_t *num; /* thread_numbers() */
	uint64_t seq;  /* records printed */
};

static void print_path_head(struct path_state *ps, FILE *out, const struct path_opts *o)
{
	if (o->json) {
		fprintf(out, "{\"entries\": \"%s\", \"records\": [",
			ps->use_probes ? "probes" : "finstrument");
		return;
	}
	if (ps->use_probes)
		fprintf(out,
			"# function entries: probes on %zu functions (no "
			"-finstrument-functions)\n",
			ps->nfuncprobes);
	fprintf(out, "# %-6s %12s  %-14s %-28s %s\n", "seq", "time(us)", "thread", "function",
		"object");
}

/* v in decimal at b, right-aligned in width w (%*PRIu64); the length. */
static size_t path_put_u64(char *b, uint64_t v, int w)
{
	char d[24], *p = d + sizeof(d);
	size_t n, sp;

	do
		*--p = (char)('0' + v % 10);
	while (v /= 10);
	n = (size_t)(d + sizeof(d) - p);
	sp = w > 0 && (size_t)w > n ? (size_t)w - n : 0;
	memset(b, ' ', sp);
	memcpy(b + sp, p, n);
	return sp + n;
}

/* One record of the text path, as
 *   "%8" PRIu64 " %12s  %-14s %s%s%s%*s %s\n" of seq, "US.NNN", "Tn/tid",
 *   dir, fname, "*" if main, pad spaces, objs
 * would print it, built in one buffer and written with one fwrite: fprintf
 * and snprintf were a third of spool path's time on a big trace. */
static void print_line(FILE *out, uint64_t seq, uint64_t ns, uint32_t num, uint32_t tid,
		       const char *dir, const char *fname, int is_main, int pad, const char *objs)
{
	char line[2048], us[32], thr[32];
	size_t dl = strlen(dir), fl = strlen(fname), ol = strlen(objs), n = 0, ul, tl;

	if (pad < 0)
		pad = 0;
	if (dl + fl + ol + (size_t)pad + 128 > sizeof(line)) {
		/* long names: the plain way */
		snprintf(thr, sizeof(thr), "T%u/%u", num, tid);
		snprintf(us, sizeof(us), "%" PRIu64 ".%03u", ns / 1000, (unsigned)(ns % 1000));
		fprintf(out, "%8" PRIu64 " %12s  %-14s %s%s%s%*s %s\n", seq, us, thr, dir, fname,
			is_main ? "*" : "", pad, "", objs);
		return;
	}
	n += path_put_u64(line + n, seq, 8);
	line[n++] = ' ';
	/* the microseconds as %.3f prints them, without floating point */
	ul = path_put_u64(us, ns / 1000, 0);
	us[ul++] = '.';
	us[ul++] = (char)('0' + ns % 1000 / 100);
	us[ul++] = (char)('0' + ns % 100 / 10);
	us[ul++] = (char)('0' + ns % 10);
	if (ul < 12) {
		memset(line + n, ' ', 12 - ul);
		n += 12 - ul;
	}
	memcpy(line + n, us, ul);
	n += ul;
	line[n++] = ' ';
	line[n++] = ' ';
	thr[0] = 'T';
	tl = 1 + path_put_u64(thr + 1, num, 0);
	thr[tl++] = '/';
	tl += path_put_u64(thr + tl, tid, 0);
	memcpy(line + n, thr, tl);
	n += tl;
	if (tl < 14) {
		memset(line + n, ' ', 14 - tl);
		n += 14 - tl;
	}
	line[n++] = ' ';
	memcpy(line + n, dir, dl);
	n += dl;
	memcpy(line + n, fname, fl);
	n += fl;
	if (is_main)
		line[n++] = '*';
	memset(line + n, ' ', (size_t)pad);
	n += (size_t)pad;
	line[n++] = ' ';
	memcpy(line + n, objs, ol);
	n += ol;
	line[n++] = '\n';
	fwrite(line, 1, n, out);
}

/* Record number k, as it is made in the second pass. */
static void print_rec(struct path_state *ps, const struct prec *r, uint64_t k)
{
	struct path_printer *pr = ps->printer;
	const struct path_opts *o = pr->o;
	FILE *out = pr->out;
	const struct pthread_state *t = &ps->threads[r->thread];
	struct name_ent *ne;
	const char *dir = "", *fname;
	int is_main, pad;
	char objs[1024];

	if (o->thread >= 0 && (uint64_t)o->thread != pr->num[r->thread])
		return;
	ne = namer_get(pr->nm, t->pid, r->fn);
	is_main = ne && !strcmp(ne->name, "main");
	/* an exit's objects are those of its entry */
	format_objects(ps, pr->nm, pr->prog, objs_of(ps, r->exit && r->entry ? r->entry - 1 : k),
		       ne, objs, sizeof(objs));
	pr->seq++;
	if (o->exits)
		dir = r->exit ? "<" : ">";
	if (o->json) {
		fprintf(out,
			"%s\n  {\"seq\": %" PRIu64 ", \"ns\": %" PRIu64
			", \"thread\": %u, \"tid\": %u, \"pid\": %u, \"event\": \"%s\", "
			"\"function\": ",
			pr->seq > 1 ? "," : "", pr->seq, r->ns - ps->first_ns, pr->num[r->thread],
			t->tid, t->pid, r->exit ? "exit" : "entry");
		escape_json_str(out, ne ? ne->name : "?");
		fprintf(out,
			", \"main\": %s, \"fn\": \"%#" PRIx64 "\", \"site\": \"%#" PRIx64
			"\", \"objects\": [",
			is_main ? "true" : "false", r->fn, r->site);
		if (strcmp(objs, "none")) {
			char *save = NULL, *tok = strtok_r(objs, ",", &save);

			for (int n = 0; tok; tok = strtok_r(NULL, ",", &save), n++) {
				fputs(n ? ", " : "", out);
				escape_json_str(out, tok);
			}
		}
		fputs("]}", out);
		return;
	}
	/* names from the trace and its binaries, escaped (util/escape.h) */
	fname = escape_str(ne ? ne->name : "?");
	pad = 28 - (int)strlen(dir) - (int)strlen(fname) - is_main;
	print_line(out, pr->seq, r->ns - ps->first_ns, pr->num[r->thread], t->tid, dir, fname,
		   is_main, pad, escape_str(objs));
}

static void print_path_tail(struct path_state *ps, FILE *out, const struct path_opts *o)
{
	if (o->json) {
		fputs("\n], \"trace\": {", out);
		trace_loss_json(&ps->loss, out);
		fputs("}}\n", out);
	} else {
		fputs("# * main: recorded, not a cut point of the path\n", out);
		/* comments, so the path stays a schedule (replay --path) */
		trace_loss_print_header(&ps->loss, ps->dir, "# ", out);
	}
}

static const char *source_name(int s)
{
	return s == PATH_SRC_DWARF ? "DWARF" : s == PATH_SRC_SYMTAB ? "symbol table" : ".dynsym";
}

static int print_check(struct path_state *ps, struct namer *nm, struct path_prog *prog,
		       const struct path_opts *o, FILE *out, size_t unprobed)
{
	size_t entered = 0, outside = 0;

	for (size_t i = 0; i < ps->ent.cap; i++) {
		const struct entered *r = hashtab_at(&ps->ent, i);
		struct name_ent *ne;
		struct path_func *pf;

		if (!r)
			continue;
		ne = namer_get(nm, ps->threads[r->h.b].pid, r->h.a);
		if (!ne || !ne->in_exe) {
			outside += ne && !ne->counted;
			if (ne)
				ne->counted = 1; /* counted once */
			continue;
		}
		pf = path_prog_find(prog, ne->module_offset);
		if (pf)
			pf->entered = 1;
	}
	for (size_t i = 0; i < prog->nfuncs; i++)
		entered += prog->funcs[i].entered;
	if (o->json) {
		int n = 0;

		fputs("{\"program\": ", out);
		escape_json_str(out, nm->exe);
		fprintf(out,
			", \"source\": \"%s\", \"entries\": \"%s\", \"functions\": %zu, "
			"\"entered\": %zu, \"uninstrumented_functions\": %zu, "
			"\"unprobed_functions\": %zu, \"never_entered\": [",
			prog->source == PATH_SRC_DWARF	   ? "dwarf"
			: prog->source == PATH_SRC_SYMTAB ? "symtab"
							  : "dynsym",
			ps->use_probes ? "probes" : "finstrument", prog->nfuncs, entered,
			prog->uninst_funcs, unprobed);
		for (size_t i = 0; i < prog->nfuncs; i++) {
			const struct path_func *f = &prog->funcs[i];

			if (f->entered)
				continue;
			fputs(n++ ? ",\n  " : "\n  ", out);
			fputs("{\"function\": ", out);
			escape_json_str(out, f->name);
			if (f->symbol) {
				fputs(", \"symbol\": ", out);
				escape_json_str(out, f->symbol);
			}
			fprintf(out, ", \"addr\": \"%#" PRIx64 "\"", f->addr);
			if (f->file) {
				fputs(", \"file\": ", out);
				escape_json_str(out, f->file);
				fprintf(out, ", \"line\": %d", f->line);
			}
			fputc('}', out);
		}
		fputs("], \"trace\": {", out);
		trace_loss_json(&ps->loss, out);
		fputs("}}\n", out);
	} else {
		if (ps->use_probes)
			fprintf(out,
				"%zu of %zu functions entered (%s, the functions spool probed, "
				"names from its %s)\n",
				entered, prog->nfuncs, escape_str(nm->exe),
				prog->source == PATH_SRC_DYNSYM ? ".dynsym, or none (FILE+0xOFFSET)"
								: source_name(prog->source));
		else
			fprintf(out, "%zu of %zu functions entered (%s, functions from its %s)\n",
				entered, prog->nfuncs, escape_str(nm->exe),
				source_name(prog->source));
		for (size_t i = 0; i < prog->nfuncs; i++) {
			const struct path_func *f = &prog->funcs[i];
			const char *base;

			if (f->entered)
				continue;
			base = f->file ? strrchr(f->file, '/') : NULL;
			if (f->file)
				fprintf(out, "  never entered: %-24s %s:%d\n", escape_str(f->name),
					escape_str(base ? base + 1 : f->file), f->line);
			else
				fprintf(out, "  never entered: %s\n", escape_str(f->name));
		}
		/* a function may look never entered because its entry was lost */
		trace_loss_print_header(&ps->loss, ps->dir, NULL, out);
	}
	if (prog->uninst_cus)
		log_warn("%zu functions in %u compile units built without -finstrument-functions "
			 "are not counted",
			 prog->uninst_funcs, prog->uninst_cus);
	if (unprobed)
		log_warn("%zu functions of %s got no entry probe (the planner refused them, or "
			 "they are C start-up code): not counted",
			 unprobed, nm->exe);
	if (prog->source == PATH_SRC_SYMTAB && !ps->use_probes)
		log_warn("%s has no DWARF: functions come from its symbol table, including any "
			 "built without -finstrument-functions",
			 nm->exe);
	if (prog->source == PATH_SRC_DYNSYM && !ps->use_probes)
		log_warn("%s is stripped: only its exported functions (.dynsym) are known; static "
			 "and hidden functions are missing from the check",
			 nm->exe);
	if (!prog->nfuncs)
		log_warn("no function of %s is known: nothing to check the path against", nm->exe);
	if (outside)
		log_info("%zu entered functions lie outside the executable (shared libraries), "
			 "not part of the check",
			 outside);
	return prog->nfuncs && entered == prog->nfuncs ? PATH_OK : PATH_INCOMPLETE;
}

/* ---- function probes ---- */

/* The "probes" side file (doc/trace-format.md): "id op method module
 * offset symbol [function]" per probe (module "-" in version 1, the path
 * of its "# exe" line in versions 2 and 3, for the executable; 3 escapes
 * the paths and the symbol: probes_file.h). Keeps the entry and exit probes, and for
 * each exit the offset of its function's entry probe (same module and
 * name), which turns the exit's address into the function's. */
static int load_probes(struct path_state *ps, const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	uint64_t *hash = NULL;
	char exe[4096] = "";
	int rc = 0, version = 1;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		struct probes_line pl;
		char line[8192];

		if (n >= sizeof(line)) {
			p += n + 1;
			continue;
		}
		memcpy(line, p, n);
		line[n] = 0;
		/* version 2 names the executable's path once ("# exe PATH"),
		 * before the lines whose module it is; version 1 says "-" */
		if (probes_file_version(line))
			version = probes_file_version(line);
		else if (!strncmp(line, "# exe ", 6) &&
			 probes_file_exe(line, version, exe, sizeof(exe)) < 0)
			exe[0] = 0;
		if (probes_file_line(line, version, &pl) == 0 &&
		    (!strcmp(pl.op, "entry") || !strcmp(pl.op, "exit")) && pl.id < (1u << 24) &&
		    pl.id < len) {
			/* probes are numbered from 0, a line each: an id past
			 * the file's length is not one of them (it would size
			 * the table) */
			struct pprobe *pp;
			size_t ml = strlen(pl.module), sl = strlen(pl.sym);

			if (grow((void **)&ps->probes, &ps->nprobes, (size_t)pl.id + 1,
				 sizeof(*ps->probes)) < 0) {
				rc = -ENOMEM;
				goto out;
			}
			pp = &ps->probes[pl.id];
			free(pp->name);
			/* module and name in one string: "module\0name" keys */
			pp->name = malloc(ml + sl + 2);
			if (!pp->name) {
				rc = -ENOMEM;
				goto out;
			}
			memcpy(pp->name, pl.module, ml + 1);
			memcpy(pp->name + ml + 1, pl.sym, sl + 1);
			pp->op = !strcmp(pl.op, "entry") ? PROBE_OP_ENTRY : PROBE_OP_EXIT;
			pp->exe = !strcmp(pl.module, "-") || (exe[0] && !strcmp(pl.module, exe));
			pp->off = pl.off;
		}
		p += n + 1;
	}
	hash = calloc(ps->nprobes ? ps->nprobes : 1, sizeof(*hash));
	if (!hash) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < ps->nprobes; i++) {
		const char *k = ps->probes[i].name;
		uint64_t h = 1469598103934665603ULL;

		if (!ps->probes[i].op)
			continue;
		for (int part = 0; part < 2; part++, k += strlen(k) + 1)
			for (const char *c = k; *c; c++)
				h = (h ^ (unsigned char)*c) * 1099511628211ULL;
		hash[i] = h;
		if (ps->probes[i].op == PROBE_OP_ENTRY) {
			ps->nfuncprobes++;
			ps->nexeprobes += ps->probes[i].exe;
			ps->probes[i].has_entry = 1;
			ps->probes[i].entry_off = ps->probes[i].off;
		}
	}
	for (size_t i = 0; i < ps->nprobes; i++) {
		struct pprobe *x = &ps->probes[i];

		if (x->op != PROBE_OP_EXIT)
			continue;
		for (size_t j = 0; j < ps->nprobes; j++) {
			const struct pprobe *e = &ps->probes[j];
			size_t ml = strlen(x->name);

			if (e->op != PROBE_OP_ENTRY || hash[j] != hash[i] || strcmp(e->name, x->name) ||
			    strcmp(e->name + ml + 1, x->name + ml + 1))
				continue;
			x->has_entry = 1;
			x->entry_off = e->off;
			break;
		}
	}
out:
	free(hash);
	return rc;
}

/* The function name of a probe ("module\0name"). */
static const char *pprobe_func(const struct pprobe *pp)
{
	return pp->name + strlen(pp->name) + 1;
}

/*
 * The name --check gives a probed function the program's function table
 * does not hold (a function of a compile unit built without -g, a probe
 * at an address no symbol covers): as the rest of spool path names it, a
 * C++ symbol demangled (its mangled form kept for the JSON's "symbol"),
 * and a bare address (no symbol, "-", "0x..") as FILE+0xOFFSET of its
 * module (exe for version 1's "-"), the form symbolizer_format_pc gives.
 * *name and *symbol are malloc'd (*symbol NULL when name was not mangled).
 */
static int pprobe_shown_name(const struct pprobe *pp, const char *exe, char **name,
			     char **symbol)
{
	const char *sym = pprobe_func(pp), *mod = pp->name, *base;
	char buf[1024];

	*name = *symbol = NULL;
	if (!strcmp(mod, "-") && exe) /* version 1: "-" is the executable */
		mod = exe;
	base = strrchr(mod, '/');
	base = base ? base + 1 : mod;
	if (!sym[0] || !strcmp(sym, "-") || !strcmp(sym, "?") ||
	    (sym[0] == '0' && (sym[1] == 'x' || sym[1] == 'X'))) {
		snprintf(buf, sizeof(buf), "%s+%#" PRIx64, base[0] ? base : "?", pp->off);
	} else if (demangle_name(sym, buf, sizeof(buf)) == 1) {
		*symbol = strdup(sym);
		if (!*symbol)
			return -ENOMEM;
	}
	*name = strdup(buf);
	if (!*name) {
		free(*symbol);
		*symbol = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* --check of a run whose entries came from probes: the functions are the
 * executable's functions that got an entry probe (names, files and lines
 * from prog, the program's DWARF or symbols, when it has them). */
static int probe_universe(struct path_state *ps, struct path_prog *prog, const char *exe,
			  struct path_prog *uni, size_t *unprobed)
{
	size_t cap = 0, matched = 0;

	memset(uni, 0, sizeof(*uni));
	uni->source = prog->source;
	for (size_t i = 0; i < ps->nprobes; i++) {
		const struct pprobe *pp = &ps->probes[i];
		const struct path_func *pf;
		struct path_func *f;

		if (pp->op != PROBE_OP_ENTRY || !pp->exe)
			continue;
		if (grow((void **)&uni->funcs, &cap, uni->nfuncs + 1, sizeof(*uni->funcs)) < 0)
			return -ENOMEM;
		pf = prog->nfuncs ? path_prog_find(prog, pp->off) : NULL;
		matched += pf != NULL;
		f = &uni->funcs[uni->nfuncs++];
		f->addr = pp->off;
		if (!pf) {
			if (pprobe_shown_name(pp, exe, &f->name, &f->symbol) < 0)
				return -ENOMEM;
			continue;
		}
		f->name = strdup(pf->name);
		f->symbol = pf->symbol ? strdup(pf->symbol) : NULL;
		f->file = pf->file ? strdup(pf->file) : NULL;
		f->line = pf->line;
		if (!f->name || (pf->file && !f->file) || (pf->symbol && !f->symbol))
			return -ENOMEM;
	}
	/* sorted by address, as path_prog_find wants */
	for (size_t i = 1; i < uni->nfuncs; i++)
		for (size_t j = i; j > 0 && uni->funcs[j - 1].addr > uni->funcs[j].addr; j--) {
			struct path_func tmp = uni->funcs[j];

			uni->funcs[j] = uni->funcs[j - 1];
			uni->funcs[j - 1] = tmp;
		}
	*unprobed = prog->nfuncs > matched ? prog->nfuncs - matched : 0;
	return 0;
}

/* ---- driver ---- */

/* One pass over the trace through r. The first says what it skipped. */
static int path_pass(struct path_state *ps, struct trace_reader *r, const char *trace_dir)
{
	struct trace_event ev;
	size_t bad = 0;
	int rc;

	while ((rc = trace_reader_next(r, &ev)) > 0) {
		rc = path_feed(ps, &ev);
		if (rc == -EINVAL) {
			if (!bad++ && !ps->printer)
				log_warn("%s: stream %u: malformed record skipped", trace_dir,
					 ev.stream_id);
			continue;
		}
		if (rc < 0) {
			log_err("%s: %s", trace_dir, strerror(-rc));
			return rc;
		}
	}
	if (rc < 0)
		log_warn("%s: reading stopped: %s", trace_dir, strerror(-rc));
	return 0;
}

/* The second pass: the same frame logic again from the start, each record
 * printed as it is made. */
static int path_print(struct path_state *ps, const char *trace_dir, struct namer *nm,
		      struct path_prog *prog, const struct path_opts *o, FILE *out)
{
	struct path_printer pr = {.out = out, .o = o, .nm = nm, .prog = prog};
	struct trace_reader *r = NULL;
	int rc;

	pr.num = thread_numbers(ps);
	if (!pr.num)
		return -ENOMEM;
	rc = trace_reader_open(&r, trace_dir, NULL);
	if (rc < 0) {
		log_err("%s: cannot read trace again: %s", trace_dir, strerror(-rc));
		goto out;
	}
	for (size_t i = 0; i < ps->nthreads; i++)
		ps->threads[i].depth = 0;
	ps->nrecs1 = ps->nrecs;
	ps->nrecs = 0;
	ps->printer = &pr;
	print_path_head(ps, out, o);
	rc = path_pass(ps, r, trace_dir);
	print_path_tail(ps, out, o);
	ps->printer = NULL;
	trace_reader_close(r);
out:
	free(pr.num);
	return rc;
}

int path_report_dir(const char *trace_dir, const struct path_opts *o, FILE *out)
{
	struct path_state ps;
	struct path_prog prog, uni;
	struct trace_reader *r = NULL;
	struct namer nm;
	char name[64], *exe = NULL, *ptext = NULL;
	size_t exe_len = 0, plen = 0, unprobed = 0;
	int rc;

	memset(&ps, 0, sizeof(ps));
	memset(&prog, 0, sizeof(prog));
	memset(&uni, 0, sizeof(uni));
	memset(&nm, 0, sizeof(nm));
	hashtab_init(&ps.objmap, sizeof(struct objent));
	hashtab_init(&ps.ent, sizeof(struct entered));
	hashtab_init(&nm.tab, sizeof(struct name_ent));
	ps.keep_exits = o->exits && !o->check;
	ps.collect_entered = o->check;
	rc = analyze_pass_open_reader(&r, trace_dir, 1);
	if (rc < 0)
		return rc;
	/* The path is the order of every thread's events among the others'
	 * (and a replay schedule), which only per-event times give: a trace
	 * without them (--clock=none) orders each thread's own events only. */
	if (trace_reader_untimed(r)) {
		log_err("%s: this trace has no per-event time (spool --clock=none): the order of "
			"the threads' events among each other, which a path is, is not known; "
			"record it without --clock=none",
			trace_dir);
		rc = -ENODATA;
		goto out;
	}
	ps.max_idx = PATH_FREE_IDX;
	for (size_t i = 0; i < trace_reader_nstreams(r); i++)
		ps.max_idx += trace_reader_stream(r, i)->bytes / PATH_BYTES_PER_IDX;
	/* The source of the entries: function probes when the trace has them
	 * (spool path placed them, the program has no hooks) or when asked. */
	if (o->functions != PATH_FN_FINST && trace_reader_file(r, "probes", &ptext, &plen) == 0) {
		rc = load_probes(&ps, ptext, plen);
		free(ptext);
		if (rc < 0) {
			log_err("%s: %s", trace_dir, strerror(-rc));
			goto out;
		}
	}
	ps.use_probes = o->functions == PATH_FN_PROBES ||
			(o->functions == PATH_FN_AUTO && ps.nfuncprobes);
	if (o->functions == PATH_FN_PROBES && !ps.nfuncprobes) {
		log_err("%s: --entries=probes: this trace has no function probes (spool path "
			"places them on a program without -finstrument-functions; spool probe -e "
			"'func:GLOB' too)",
			trace_dir);
		rc = -ENODATA;
		goto out;
	}
	rc = path_pass(&ps, r, trace_dir);
	if (rc < 0)
		goto out;
	for (size_t i = 0; i < trace_reader_nproblems(r); i++) {
		const struct trace_problem *p = trace_reader_problem(r, i);

		log_warn("%s: offset %" PRIu64 ": %s", p->file, p->offset, p->msg);
	}
	/* every event was read: the packets have said what they miss */
	trace_reader_loss(r, &ps.loss);
	ps.dir = trace_dir;
	if (!ps.entries && ps.use_probes) {
		log_err("%s: no function entries in this trace: none of its %zu function probes "
			"was hit",
			trace_dir, ps.nfuncprobes);
		rc = -ENODATA;
		goto out;
	}
	if (!ps.entries && o->functions == PATH_FN_FINST) {
		log_err("%s: no function entries from -finstrument-functions in this trace: build "
			"the program with -finstrument-functions (gcc or clang), or let spool probe "
			"its functions (--entries=probes or auto)",
			trace_dir);
		rc = -ENODATA;
		goto out;
	}
	if (!ps.entries && ps.nrr) {
		log_err("%s: no function entries in this trace: it is a recording (spool record), "
			"which does not record them. Replay it with 'spool replay --record-path -o "
			"DIR %s', then run 'spool path DIR' (a program built with "
			"-finstrument-functions)",
			trace_dir, trace_dir);
		rc = -ENODATA;
		goto out;
	}
	if (!ps.entries) {
		log_err("%s: no function entries in this trace: record it with 'spool path -- "
			"PROGRAM' (it probes the functions of a program built without "
			"-finstrument-functions; spool locks records no function entries)",
			trace_dir);
		rc = -ENODATA;
		goto out;
	}
	/* Threads known only from their stream (a lost KIND_THREAD record). */
	for (size_t i = 0; i < trace_reader_nstreams(r); i++) {
		const struct trace_stream_info *si = trace_reader_stream(r, i);
		/* a stream's first thread is numbered by its position */
		struct pthread_state *t = i < ps.nthreads ? &ps.threads[i] : NULL;

		if (t && !t->seen) {
			t->tid = si->tid;
			t->pid = si->pid;
		}
		if (!ps.first_pid)
			ps.first_pid = si->pid;
	}
	snprintf(name, sizeof(name), "proc/%u.exe", ps.first_pid);
	if (trace_reader_file(r, name, &exe, &exe_len) == 0 && exe_len) {
		nm.exe = exe;
		nm.have_exe_st = stat(exe, &nm.exe_st) == 0;
		rc = path_prog_load(&prog, exe, ps.use_probes);
		if (rc < 0) {
			if (o->check) {
				log_err("%s: cannot read its functions: %s", exe, strerror(-rc));
				goto out;
			}
			log_warn("%s: cannot read its functions (%s): no \"data\" objects", exe,
				 strerror(-rc));
		}
	} else if (o->check) {
		log_err("%s: the trace does not name the program (no %s)", trace_dir, name);
		rc = -ENOENT;
		goto out;
	}
	rc = symbolizer_open(&nm.sym, r);
	if (rc < 0) {
		log_warn("functions will be printed as addresses: symbolizer: %s", strerror(-rc));
		nm.sym = NULL;
	}
	if (o->say_source) {
		if (ps.use_probes)
			log_info("path: %" PRIu64 " function entries from probes (%zu functions "
				 "probed, %zu in the executable)",
				 ps.entries, ps.nfuncprobes, ps.nexeprobes);
		else
			log_info("path: %" PRIu64 " function entries from -finstrument-functions",
				 ps.entries);
	}
	if (o->check && ps.use_probes) {
		rc = probe_universe(&ps, &prog, nm.exe, &uni, &unprobed);
		if (rc < 0) {
			log_err("%s", strerror(-rc));
			goto out_sym;
		}
		rc = print_check(&ps, &nm, &uni, o, out, unprobed);
	} else if (o->check) {
		rc = print_check(&ps, &nm, &prog, o, out, 0);
	} else {
		rc = path_print(&ps, trace_dir, &nm, &prog, o, out);
		if (rc < 0)
			goto out_sym;
		rc = PATH_OK;
	}
	fflush(out);
	if (ferror(out)) {
		log_err("writing the path: %s", strerror(errno));
		rc = -EIO;
	}
out_sym:
	if (nm.sym)
		symbolizer_close(nm.sym);
out:
	hashtab_free(&nm.tab);
	path_prog_free(&prog);
	path_prog_free(&uni);
	free(exe);
	path_state_free(&ps);
	trace_loss_seen_fill(o->seen, r);
	trace_reader_close(r);
	return rc;
}
