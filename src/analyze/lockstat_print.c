// SPDX-License-Identifier: MIT
/*
 * lockstat_print.c - the lock analyzer's reports: the text tables and the
 * JSON document (doc/report-locks.md) printed from a finished struct
 * lockstat. It only reads the analyzer's state; names for call sites and
 * locks come from the caller's symbolize callbacks, hex addresses without.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../util/escape.h"
#include "lockname.h"
#include "table.h"
#include "lockstat_int.h"
#include "pass.h"

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
	case LOCK_TYPE_FUTEX:
		return "futex";
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

/* The printing trace has no per-event time (po->untimed, set by the two
 * entry points, lockstat_print_text and _json, for their call: the
 * printers are not reentrant and run one at a time): no time is shown. */
static int ls_untimed;

/* 3 significant digits: "850 ns", "1.23 µs", "12.3 ms", "123 s"; "-"
 * without per-event time. */
static const char *fmt_ns(uint64_t v, char *buf, size_t len)
{
	static const char *const units[] = {"ns", "µs", "ms", "s"};
	double x = (double)v;
	unsigned u = 0;

	if (ls_untimed)
		return "-";
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

/* The lock as lockname.h names it, and the symbolizer it names it with. */
static void lock_src(const struct lockstat_print_opts *po, const struct ls_lock *l,
		     struct lockname_src *src, struct lockname_syms *syms)
{
	const struct lockstat_lock_info *i = &l->info;

	*src = (struct lockname_src){.index = i->index,
				     .pid = i->pid,
				     .type = i->type,
				     .defined = i->defined,
				     .addr = i->addr,
				     .init_ip = i->init_ip};
	*syms = (struct lockname_syms){
	    .data = po->symbolize_data, .site = po->symbolize, .ctx = po->symbolize_ctx};
}

/* The lock's one name (lockname.h): its variable, else its init site's
 * function and its index, else its type and index. */
static const char *lock_name(const struct lockstat_print_opts *po, const struct ls_lock *l,
			     char *buf, size_t len)
{
	struct lockname_src src;
	struct lockname_syms syms;

	lock_src(po, l, &src, &syms);
	return lockname_format(&src, &syms, buf, len);
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
	return ls_type_holds(l->info.type) || l->info.type == LOCK_TYPE_SEM;
}

/* Initialized (or destroyed) and nothing else: openssl's rwlocks in redis,
 * created at startup, never taken. Shown with --all only. */
static bool lock_unused(const struct ls_lock *l)
{
	return l->info.events <= l->info.inits + l->info.destroys;
}

/* The locks with events (not threads) that were, or were never, used. */
static size_t count_locks(const struct lockstat *ls, bool unused)
{
	size_t n = 0;

	for (size_t i = 0; i < ls->caplocks; i++) {
		const struct ls_lock *l = ls->locks[i];

		if (l && l->info.events && l->info.type != LOCK_TYPE_THREAD &&
		    lock_unused(l) == unused)
			n++;
	}
	return n;
}

static size_t count_unused(const struct lockstat *ls)
{
	return count_locks(ls, true);
}

size_t lockstat_nused(const struct lockstat *ls)
{
	return count_locks(ls, false);
}

static bool is_futex(const struct ls_lock *l)
{
	return l->info.type == LOCK_TYPE_FUTEX;
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
		if (!po->all && !po->json && lock_unused(l))
			continue;
		if ((rc = lockstat_grow((void **)&rows, &cap, nr + 1, sizeof(*rows))))
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
	struct table t = {.ncols = 9, .hdr = hdr, .left_mask = 1u << 1};
	struct table t2 = {.ncols = 8, .hdr = hdr2, .left_mask = 0};
	struct ls_row *rows;
	size_t n;
	int rc;

	if ((rc = lock_rows(ls, po, lock_in_main, &rows, &n)))
		return rc;
	if (!n) {
		size_t nf = 0, nu = po->all ? 0 : count_unused(ls);
		struct ls_row *fr = NULL;

		if ((rc = lock_rows(ls, po, is_futex, &fr, &nf)))
			return rc;
		rows_free(fr, nf);
		if (po->locks_unrecorded)
			fprintf(out, "locks: not recorded (spool record writes lock events only "
				     "with --lock-events)\n");
		else if (nf)
			fprintf(out, "locks: no pthread mutex, rwlock, spinlock or semaphore used; "
				     "%zu futex%s below\n", nf, nf == 1 ? "" : "es");
		else if (nu)
			fprintf(out, "locks: %zu initialized, none used (--all shows them)\n", nu);
		else
			fprintf(out, "locks: none seen\n"
				     "  spool sees pthread locks, semaphores, condition variables, "
				     "barriers and\n"
				     "  futex calls made through syscall(); locks built on the "
				     "program's own atomics\n"
				     "  or on inline futex system calls (static binaries, Go) are "
				     "invisible to it\n");
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
		if (!po->all && count_unused(ls))
			fprintf(out, "(%zu more initialized and never used: --all shows them)\n",
				count_unused(ls));
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
	struct table t = {.ncols = 11, .hdr = hdr, .left_mask = 1u << 1};
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

/*
 * The tables of the other kinds have one row per object: a name, then
 * counts and times that fill_* writes from the object's info. One driver
 * (print_kind) sorts, limits and prints them all.
 */
#define KIND_COLS 11

struct kind_table {
	const char *title; /* printed above the table, whole lines */
	unsigned ncols;	   /* the name's column included */
	const char *hdr[KIND_COLS];
	bool (*want)(const struct ls_lock *l);
	void (*fill)(const struct lockstat_lock_info *i, char cell[][64]);
};

static void fill_wait(const struct lockstat_dist *d, char cell[][64])
{
	fmt_ns(d->total_ns, cell[0], 64);
	fmt_ns(d->max_ns, cell[1], 64);
	fmt_ns(d->p99_ns, cell[2], 64);
}

static void fill_cond(const struct lockstat_lock_info *i, char cell[][64])
{
	fmt_count(i->cond_waits, cell[0], 64);
	fmt_count(i->cond_wakeups, cell[1], 64);
	fmt_count(i->cond_timeouts, cell[2], 64);
	fmt_count(i->cond_signals, cell[3], 64);
	fmt_count(i->cond_broadcasts, cell[4], 64);
	fill_wait(&i->cond_wait, cell + 5);
}

static void fill_futex(const struct lockstat_lock_info *i, char cell[][64])
{
	fmt_count(i->cond_waits, cell[0], 64);
	fmt_count(i->cond_wakeups, cell[1], 64);
	fmt_count(i->cond_errors, cell[2], 64);
	fmt_count(i->cond_timeouts, cell[3], 64);
	fmt_count(i->cond_signals + i->cond_broadcasts, cell[4], 64);
	fmt_count(i->futex_waiters, cell[5], 64);
	fmt_count(i->futex_wakers, cell[6], 64);
	fill_wait(&i->cond_wait, cell + 7);
}

static void fill_sem(const struct lockstat_lock_info *i, char cell[][64])
{
	fmt_count(i->write.acquisitions, cell[0], 64);
	fmt_count(i->write.contended, cell[1], 64);
	fmt_count(i->write.timeouts, cell[2], 64);
	fmt_count(i->posts, cell[3], 64);
	fill_wait(&i->write.wait, cell + 4);
	snprintf(cell[7], 64, "-");
}

static void fill_barrier(const struct lockstat_lock_info *i, char cell[][64])
{
	fmt_count(i->barrier_waits, cell[0], 64);
	fill_wait(&i->barrier_wait, cell + 1);
}

static const struct kind_table kind_tables[] = {
	{"\ncondition variables (a wait is not a hold of its mutex):\n",
	 9,
	 {"cond", "waits", "wakeups", "timeouts", "signals", "broadcasts", "wait total",
	  "wait max", "wait p99"},
	 is_cond,
	 fill_cond},
	{"\nfutexes (waits and wakes made through syscall(SYS_futex): GLib, Rust, ...;\n"
	 " a wait is contention the kernel saw; an uncontended lock or unlock never\n"
	 " enters the kernel, so acquisitions and hold times cannot be known;\n"
	 " \"no sleep\": the word changed before the thread slept):\n",
	 11,
	 {"futex", "waits", "woken", "no sleep", "timeouts", "wakes", "waiters", "wakers",
	  "wait total", "wait max", "wait p99"},
	 is_futex,
	 fill_futex},
	{"\nsemaphores (no hold time: any thread may post):\n",
	 9,
	 {"semaphore", "waits", "contended", "timeouts", "posts", "wait total", "wait max",
	  "wait p99", "hold"},
	 is_sem,
	 fill_sem},
	{"\nbarriers:\n",
	 5,
	 {"barrier", "waits", "wait total", "wait max", "wait p99"},
	 is_barrier,
	 fill_barrier},
};

static int print_kind(struct lockstat *ls, FILE *out, const struct lockstat_print_opts *po,
		      const struct kind_table *k)
{
	struct table t = {.ncols = k->ncols, .hdr = k->hdr, .left_mask = 0};
	char cell[KIND_COLS][64];
	const char *row[KIND_COLS];
	struct ls_row *rows;
	size_t n;
	int rc;

	if ((rc = lock_rows(ls, po, k->want, &rows, &n)))
		return rc;
	for (size_t r = 0; r < shown(n, po->limit) && !rc; r++) {
		row[0] = rows[r].name;
		for (unsigned c = 1; c < k->ncols; c++)
			row[c] = cell[c - 1];
		k->fill(&rows[r].l->info, cell);
		rc = table_row_v(&t, row);
	}
	if (!rc && n) {
		fputs(k->title, out);
		table_print(&t, out);
		print_more(out, n, po->limit);
	}
	table_free(&t);
	rows_free(rows, n);
	return rc;
}

static int print_kinds(struct lockstat *ls, FILE *out, const struct lockstat_print_opts *po)
{
	int rc = 0;

	for (size_t k = 0; k < sizeof(kind_tables) / sizeof(kind_tables[0]) && !rc; k++)
		rc = print_kind(ls, out, po, &kind_tables[k]);
	return rc;
}

/*
 * A heap or stack lock is named by its init site's function and offset
 * (lockname.h), which is short enough for a table's first column; the file
 * and line the user opens are listed once per site under the tables, with
 * the indexes (#N) of the locks made there.
 */
struct init_lock {
	uint32_t pid;
	uint64_t ip;
	uint32_t index;
};

static int init_lock_cmp(const void *a, const void *b)
{
	const struct init_lock *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->ip != y->ip)
		return x->ip < y->ip ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* How many indexes a site's row lists before "... (N in all)". */
#define INIT_SITE_INDEXES 8

static int print_init_sites(struct lockstat *ls, FILE *out, const struct lockstat_print_opts *po)
{
	static const char *const hdr[] = {"init site", "locks"};
	struct table t = {.ncols = 2, .hdr = hdr, .left_mask = 1u << 1};
	struct init_lock *v = NULL;
	size_t n = 0, cap = 0, nsites = 0;
	char site[512];
	int rc = 0;

	for (size_t i = 0; i < ls->caplocks; i++) {
		const struct ls_lock *l = ls->locks[i];
		struct lockname_src src;
		struct lockname_syms syms;

		/* the locks the tables above list (lock_rows) */
		if (!l || !l->info.events || l->info.type == LOCK_TYPE_THREAD ||
		    (!po->all && lock_unused(l)))
			continue;
		lock_src(po, l, &src, &syms);
		if (lockname_init_site(&src, &syms, site, sizeof(site)) < 0)
			continue;
		if ((rc = lockstat_grow((void **)&v, &cap, n + 1, sizeof(*v))))
			goto out;
		v[n++] = (struct init_lock){l->info.pid, l->info.init_ip, l->info.index};
	}
	if (!n)
		goto out;
	qsort(v, n, sizeof(*v), init_lock_cmp);
	for (size_t a = 0, b; a < n && !rc; a = b, nsites++) {
		struct lockname_syms syms = {.site = po->symbolize, .ctx = po->symbolize_ctx};
		char idx[INIT_SITE_INDEXES * 12 + 32];
		size_t k = 0;

		for (b = a; b < n && v[b].pid == v[a].pid && v[b].ip == v[a].ip; b++)
			if (b - a < INIT_SITE_INDEXES)
				k += (size_t)snprintf(idx + k, sizeof(idx) - k, "%s#%" PRIu32,
						      k ? " " : "", v[b].index);
		if (b - a > INIT_SITE_INDEXES)
			snprintf(idx + k, sizeof(idx) - k, " ... (%zu in all)", b - a);
		if (po->limit && nsites >= po->limit)
			continue; /* counted for print_more */
		if (syms.site(syms.ctx, v[a].pid, v[a].ip, site, sizeof(site)) < 0)
			snprintf(site, sizeof(site), "0x%" PRIx64, v[a].ip);
		rc = table_row(&t, site, idx);
	}
	if (!rc) {
		fprintf(out, "\nwhere the locks named by their init site were made:\n");
		table_print(&t, out);
		print_more(out, nsites, po->limit);
	}
out:
	table_free(&t);
	free(v);
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
		return t->wait_ns + t->cond_wait_ns + t->barrier_wait_ns + t->futex_wait_ns;
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
					  "hold total", "cond wait", "barrier wait", "futex wait"};
	struct table t = {.ncols = 10, .hdr = hdr, .left_mask = 1u << 1};
	const struct lockstat_thread_info **v = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;

	for (size_t i = 0; i < ls->capthreads; i++) {
		const struct lockstat_thread_info *ti = lockstat_thread(ls, (uint32_t)i);

		if (!ti || !(ti->acquisitions || ti->wait_ns || ti->cond_wait_ns ||
			     ti->barrier_wait_ns || ti->hold_ns || ti->timeouts ||
			     ti->futex_wait_ns))
			continue;
		if ((rc = lockstat_grow((void **)&v, &cap, n + 1, sizeof(*v))))
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
		B(fw);

		snprintf(ix, sizeof(ix), "%u", ti->index);
		snprintf(tid, sizeof(tid), ti->defined ? "%u" : "?", ti->tid);
		rc = table_row(&t, ix, ti->name[0] ? ti->name : "-", tid,
			       fmt_count(ti->acquisitions, a, 64), fmt_count(ti->contended, c, 64),
			       fmt_ns(ti->wait_ns, w, 64), fmt_ns(ti->hold_ns, h, 64),
			       fmt_ns(ti->cond_wait_ns, cw, 64),
			       fmt_ns(ti->barrier_wait_ns, bw, 64), fmt_ns(ti->futex_wait_ns, fw, 64));
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
	struct lockname_src unknown = {.index = idx};

	if (idx < ls->caplocks && ls->locks[idx])
		return lock_name(po, ls->locks[idx], buf, len);
	return lockname_format(&unknown, NULL, buf, len);
}

/* The trace carries stacks (--stacks): only then are they printed, so a
 * report without them is what it always was. */
static bool have_stacks(const struct lockstat *ls)
{
	return ls->tot.stack_events != 0;
}

/* A stack under a report line: the call site ip itself, then the frames
 * recorded above it, one "at SITE" line each. Nothing when ip is unknown. */
static void print_stack(FILE *out, const struct lockstat_print_opts *po, uint32_t pid,
			const char *indent, uint64_t ip, const struct lockstat_frames *fr)
{
	char buf[512];

	if (!ip)
		return;
	fprintf(out, "%sat %s\n", indent, escape_str(fmt_site(po, pid, ip, buf, sizeof(buf))));
	for (uint32_t i = 0; i < fr->n; i++)
		fprintf(out, "%sat %s\n", indent,
			escape_str(fmt_site(po, pid, fr->ip[i], buf, sizeof(buf))));
}

/* "thread 3 (tid 6609)", or "thread 3" when its tid is unknown */
static const char *thread_label(struct lockstat *ls, uint32_t idx, char *buf, size_t len)
{
	const struct lockstat_thread_info *ti = lockstat_thread(ls, idx);

	if (ti && ti->defined)
		snprintf(buf, len, "thread %u (tid %u)", idx, ti->tid);
	else
		snprintf(buf, len, "thread %u", idx);
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
			fprintf(out, "%s -> ",
				escape_str(lock_label(ls, po, c->locks[i], a, sizeof(a))));
		fprintf(out, "%s%s\n", escape_str(lock_label(ls, po, c->locks[0], a, sizeof(a))),
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
			if (!have_stacks(ls)) {
				fprintf(out,
					" took %s%s at %s\n       while holding %s%s taken at %s\n",
					escape_str(lock_label(ls, po, e->to, a, sizeof(a))),
					e->to_read ? " [read]" : "",
					escape_str(fmt_site(po, pid, e->to_ip, sa, sizeof(sa))),
					escape_str(lock_label(ls, po, e->from, b, sizeof(b))),
					e->from_read ? " [read]" : "",
					escape_str(fmt_site(po, pid, e->from_ip, sb, sizeof(sb))));
				continue;
			}
			/* the same lines, each followed by the stack of its
			 * acquisition */
			fprintf(out, " took %s%s at %s\n",
				escape_str(lock_label(ls, po, e->to, a, sizeof(a))),
				e->to_read ? " [read]" : "",
				escape_str(fmt_site(po, pid, e->to_ip, sa, sizeof(sa))));
			print_stack(out, po, pid, "         ", e->to_ip, &e->to_stack);
			fprintf(out, "       while holding %s%s taken at %s\n",
				escape_str(lock_label(ls, po, e->from, b, sizeof(b))),
				e->from_read ? " [read]" : "",
				escape_str(fmt_site(po, pid, e->from_ip, sb, sizeof(sb))));
			print_stack(out, po, pid, "         ", e->from_ip, &e->from_stack);
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

/* Under a site pair: the stacks of its longest wait, the waiter's and the
 * holder's (where the holder took the lock). */
static int site_stacks_text(struct lockstat *ls, const struct lockstat_print_opts *po,
			    const struct lockstat_site_pair *p, char **text)
{
	const struct ls_lock *l = ls->locks[p->lock];
	char th[64], w[64];
	size_t len = 0;
	FILE *f;

	*text = NULL;
	f = open_memstream(text, &len);
	if (!f)
		return -ENOMEM;
	fprintf(f, "    waiter %s, its longest wait here (%s):\n",
		thread_label(ls, p->waiter_thread, th, sizeof(th)),
		fmt_ns(p->sample_wait_ns, w, sizeof(w)));
	print_stack(f, po, p->pid, "      ", p->waiter_ip, &p->waiter_stack);
	if (!(l && l->info.type == LOCK_TYPE_SEM)) {
		if (p->holder_ip && p->holder_thread != UINT32_MAX) {
			fprintf(f, "    holder %s, where it took the lock%s:\n",
				thread_label(ls, p->holder_thread, th, sizeof(th)),
				p->holder_read ? " [reader]" : "");
			print_stack(f, po, p->pid, "      ", p->holder_ip, &p->holder_stack);
		} else {
			fputs("    holder unknown\n", f);
		}
	}
	if (fclose(f) || !*text) {
		free(*text);
		*text = NULL;
		return -ENOMEM;
	}
	return 0;
}

static int print_sites(struct lockstat *ls, FILE *out, const struct lockstat_print_opts *po)
{
	static const char *const hdr[] = {"lock",  "waiter site", "holder site",
					  "count", "wait total",  "wait max"};
	struct table t = {.ncols = 6, .hdr = hdr, .left_mask = (1u << 1) | (1u << 2)};
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
		if (!rc && have_stacks(ls)) {
			char *text;

			if (!(rc = site_stacks_text(ls, po, p, &text)))
				rc = table_after(&t, text);
		}
	}
	if (!rc) {
		fprintf(out, "\ntop contended call sites (waiter, and the holder when it waited; "
			     "for a futex, the last thread that woke it):\n");
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
	B(c);

	if (po->header)
		fprintf(out, "spool: %s lock events, %s thread events, %s lost, trace in %s/\n",
			fmt_count(ls->tot.lock_events, a, 64), fmt_count(ls->tot.thread_events, c, 64),
			fmt_count(ls->tot.lost, b, 64), po->trace_dir ? escape_str(po->trace_dir) : "?");
	if (po->header)
		trace_loss_print_missing(&ls->tot.loss, NULL, out);
	ls_untimed = po->untimed;
	if (po->untimed)
		fputs(ANALYZE_UNTIMED_NOTE, out);
	if ((rc = print_locks_table(ls, out, po)) || (rc = print_threads(ls, out, po)) ||
	    (rc = print_rwlocks(ls, out, po)) || (rc = print_kinds(ls, out, po)) ||
	    (rc = print_init_sites(ls, out, po)))
		return rc;
	print_cycles(ls, out, po);
	if ((rc = print_sites(ls, out, po)))
		return rc;
	return ferror(out) ? -EIO : 0;
}

/* ---- JSON ------------------------------------------------------------- */

/* A call site: the symbolized name, or null without a symbolizer. */
static void json_site(FILE *out, const struct lockstat_print_opts *po, uint32_t pid, uint64_t ip)
{
	char buf[512];

	if (ip && po->symbolize &&
	    po->symbolize(po->symbolize_ctx, pid, ip, buf, sizeof(buf)) == 0 && buf[0])
		escape_json_str(out, buf);
	else
		fputs("null", out);
}

/* A stack: [{"ip", "site"}...], the call site ip first, then the recorded
 * frames above it; [] when ip is unknown. */
static void json_stack(FILE *out, const struct lockstat_print_opts *po, uint32_t pid, uint64_t ip,
		       const struct lockstat_frames *fr)
{
	fputc('[', out);
	for (uint32_t i = 0; ip && i <= fr->n; i++) {
		uint64_t a = i ? fr->ip[i - 1] : ip;

		fprintf(out, "%s{\"ip\": %" PRIu64 ", \"site\": ", i ? ", " : "", a);
		json_site(out, po, pid, a);
		fputc('}', out);
	}
	fputc(']', out);
}

/* A time in JSON: the number, or null without per-event time. */
static const char *json_ns(uint64_t v, char *buf, size_t len)
{
	if (ls_untimed)
		return "null";
	snprintf(buf, len, "%" PRIu64, v);
	return buf;
}

static void json_dist(FILE *out, const struct lockstat_dist *d)
{
	B(a);
	B(b);
	B(c);
	B(e);

	fprintf(out,
		"{\"count\": %" PRIu64 ", \"total_ns\": %s, \"avg_ns\": %s"
		", \"max_ns\": %s, \"p99_ns\": %s}",
		d->count, json_ns(d->total_ns, a, 64),
		json_ns(d->count ? d->total_ns / d->count : 0, b, 64), json_ns(d->max_ns, c, 64),
		json_ns(d->p99_ns, e, 64));
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
	bool holds = ls_type_holds(i->type), first = true;
	B(wt);
	B(ht);
	B(wm);

	fprintf(out, "    {\"index\": %u, \"name\": ", i->index);
	escape_json_str(out, row->name);
	{
		char sym[512];

		fputs(", \"symbol\": ", out);
		if (i->defined && i->addr && po->symbolize_symbol &&
		    po->symbolize_symbol(po->symbolize_ctx, i->pid, i->addr, sym, sizeof(sym)) == 0)
			escape_json_str(out, sym);
		else
			fputs("null", out);
	}
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
		",\n     \"wait_total_ns\": %s, \"hold_total_ns\": %s",
		i->events, acq, con, acq ? 100.0 * (double)con / (double)acq : 0.0,
		i->owner_changes, i->threads, i->max_readers, i->held_at_end, i->unmatched_releases,
		i->cond_reacquisitions, i->inits, i->destroys, i->posts,
		json_ns(i->write.wait.total_ns + i->read.wait.total_ns, wt, 64),
		json_ns(i->write.hold.total_ns + i->read.hold.total_ns, ht, 64));
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
	fputs(",\n     \"futex\": ", out);
	if (i->type == LOCK_TYPE_FUTEX) {
		/* No acquisitions or holds: only the contended part is seen. */
		fprintf(out,
			"{\"waits\": %" PRIu64 ", \"woken\": %" PRIu64 ", \"timeouts\": %" PRIu64
			", \"no_sleep\": %" PRIu64 ", \"wakes\": %" PRIu64
			", \"waiters\": %" PRIu64 ", \"wakers\": %" PRIu64
			", \"waiting_at_end\": %" PRIu64 ", \"wait\": ",
			i->cond_waits, i->cond_wakeups, i->cond_timeouts, i->cond_errors,
			i->cond_signals + i->cond_broadcasts, i->futex_waiters, i->futex_wakers,
			i->cond_waiting_at_end);
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
			", \"holder_read\": %s, \"count\": %" PRIu64 ", \"wait_total_ns\": %s"
			", \"wait_max_ns\": %s",
			p->holder_read ? "true" : "false", p->count, json_ns(p->wait_total_ns, wt, 64),
			json_ns(p->wait_max_ns, wm, 64));
		if (have_stacks(ls)) {
			bool holder = p->holder_ip && p->holder_thread != UINT32_MAX;

			fprintf(out,
				",\n        \"sample_wait_ns\": %s, \"waiter_thread\": %u"
				", \"waiter_stack\": ",
				json_ns(p->sample_wait_ns, wt, 64), p->waiter_thread);
			json_stack(out, po, p->pid, p->waiter_ip, &p->waiter_stack);
			if (holder)
				fprintf(out, ",\n        \"holder_thread\": %u", p->holder_thread);
			else
				fputs(",\n        \"holder_thread\": null", out);
			fputs(", \"holder_stack\": ", out);
			json_stack(out, po, p->pid, holder ? p->holder_ip : 0, &p->holder_stack);
		}
		fputc('}', out);
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
	B(a);
	B(b);
	B(c);
	B(d);
	B(e);

	ls_untimed = po->untimed;
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
		", \"lock_events\": %" PRIu64 ", \"thread_events\": %" PRIu64
		", \"locks_recorded\": %s, ",
		ls->tot.events, ls->tot.lock_events, ls->tot.thread_events,
		po->locks_unrecorded ? "false" : "true");
	/* lost, incomplete, writer_finished, missing: the block of every report */
	trace_loss_json(&ls->tot.loss, out);
	fprintf(out,
		", \"malformed\": %" PRIu64 ", \"first_ns\": %" PRIu64 ", \"last_ns\": %s"
		", \"duration_ns\": %s, \"event_time\": \"%s\", \"dir\": ",
		ls->tot.malformed, ls->tot.first_ns, json_ns(ls->tot.last_ns, a, 64),
		/* without per-event time the last event's is its packet's
		 * opening, earlier than the event: no end, no duration */
		json_ns(ls_dur(ls->tot.first_ns, ls->tot.last_ns), b, 64),
		po->untimed ? "packet" : "event");
	if (po->trace_dir)
		escape_json_str(out, po->trace_dir);
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
		escape_json_str(out, t->name);
		fprintf(out,
			", \"acquisitions\": %" PRIu64 ", \"contended\": %" PRIu64
			", \"timeouts\": %" PRIu64 ", \"wait_ns\": %s, \"hold_ns\": %s"
			", \"cond_wait_ns\": %s, \"barrier_wait_ns\": %s, \"futex_wait_ns\": %s}",
			t->acquisitions, t->contended, t->timeouts, json_ns(t->wait_ns, a, 64),
			json_ns(t->hold_ns, b, 64), json_ns(t->cond_wait_ns, c, 64),
			json_ns(t->barrier_wait_ns, d, 64), json_ns(t->futex_wait_ns, e, 64));
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
			fprintf(out, ", \"count\": %" PRIu64 ", \"first_ns\": %s", e->count,
				json_ns(e->ns, a, 64));
			if (have_stacks(ls)) {
				fputs(",\n       \"from_stack\": ", out);
				json_stack(out, po, pid, e->from_ip, &e->from_stack);
				fputs(",\n       \"to_stack\": ", out);
				json_stack(out, po, pid, e->to_ip, &e->to_stack);
			}
			fputc('}', out);
		}
		fputs("]}", out);
	}
	fputs("]}\n", out);
	free(sites);
	rows_free(rows, n);
	return ferror(out) ? -EIO : 0;
}
