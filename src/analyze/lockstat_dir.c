// SPDX-License-Identifier: MIT
/*
 * lockstat_dir.c - run the lock analyzer over a trace directory: the part of
 * lockstat that needs the trace reader and the symbolizer, kept apart so that
 * lockstat.c links (and is unit-tested) without them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../trace/trace.h"
#include "../trace/untrusted.h"
#include "../util/log.h"
#include "../util/symbolize.h"
#include "lockname.h"
#include "lockstat.h"
#include "pass.h"

/* ---- symbolizer wiring (integration point) -----------------------------
 *
 * Everything lockstat knows about symbols goes through this section: the
 * analyzer itself only sees a lockstat_symbolize_fn. If symbolization has to
 * change (another formatter, no libdw on a target), only these
 * functions change; returning -ENOENT from lockstat_dir_symbolize (or leaving
 * po->symbolize NULL) makes every report print hex addresses.
 */

/* Call sites and lock names: lockname.c's functions over the symbolizer
 * (one wiring for the lock report, path and the exports). A site it cannot
 * name is printed in hex. */
/* The same variable's symbol as the ELF file has it, when C++ mangled it
 * ("_ZL4acct" for "acct"); -ENOENT otherwise. */
static int lockstat_dir_symbolize_symbol(void *ctx, uint32_t pid, uint64_t addr, char *buf,
					 size_t len)
{
	struct sym_info si;

	if (symbolizer_lookup(ctx, pid, addr, &si) < 0 || !si.mangled[0])
		return -ENOENT;
	if (si.offset)
		snprintf(buf, len, "%s+%#" PRIx64, si.mangled, si.offset);
	else
		snprintf(buf, len, "%s", si.mangled);
	return 0;
}

static void lockstat_dir_symbolizer_open(struct trace_reader *r, struct lockstat_print_opts *po)
{
	struct symbolizer *s = NULL;
	int rc = symbolizer_open(&s, r);

	if (rc < 0) {
		log_warn("call sites will be printed as addresses: symbolizer: %s", strerror(-rc));
		return;
	}
	po->symbolize = lockname_sym_site;
	po->symbolize_data = lockname_sym_data;
	po->symbolize_symbol = lockstat_dir_symbolize_symbol;
	po->symbolize_ctx = s;
}

static void lockstat_dir_symbolizer_close(struct lockstat_print_opts *po)
{
	if (po->symbolize == lockname_sym_site)
		symbolizer_close(po->symbolize_ctx);
	po->symbolize = NULL;
	po->symbolize_data = NULL;
	po->symbolize_symbol = NULL;
	po->symbolize_ctx = NULL;
}

/* ---- end of the symbolizer wiring -------------------------------------- */

/* A recording (.spool/record) whose lock events were not written: made
 * without --lock-events (no "lock_events=1" line). 0 for any other trace,
 * or when the file cannot be read (untrusted: trace_read_dir_file). */
static int lockstat_dir_unrecorded(const char *trace_dir)
{
	char *text = NULL, *p;
	size_t len = 0;
	int unrecorded = 1;

	if (trace_read_dir_file(trace_dir, ".spool/record", 1u << 20, &text, &len) < 0)
		return 0;
	for (p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, "lock_events=1", 13) && (p[13] == '\n' || !p[13]))
			unrecorded = 0;
	free(text);
	return unrecorded;
}

struct lockstat_pass {
	struct lockstat *ls;
	struct trace_reader *r;
	const char *trace_dir;
	uint64_t bad_shown; /* malformed records skipped */
};

static void lockstat_pass_free(void *pv)
{
	struct lockstat_pass *p = pv;

	if (!p)
		return;
	lockstat_free(p->ls);
	free(p);
}

static int lockstat_pass_new(void **out, struct trace_reader *r, const char *trace_dir,
			     const void *opts)
{
	struct lockstat_pass *p = calloc(1, sizeof(*p));
	struct lockstat_opts lo = {0};

	*out = NULL;
	if (p) {
		/* Tables by lock index are bounded by the input's size
		 * (lockstat.h). */
		for (size_t i = 0; i < trace_reader_nstreams(r); i++)
			lo.input_bytes += trace_reader_stream(r, i)->bytes;
		p->ls = lockstat_new(&lo);
	}
	if (!p || !p->ls) {
		free(p);
		log_err("%s: out of memory", trace_dir);
		return -ENOMEM;
	}
	p->r = r;
	p->trace_dir = trace_dir;
	*out = p;
	return 0;
}

static int lockstat_pass_feed(void *pv, const struct trace_event *ev)
{
	struct lockstat_pass *p = pv;
	int rc = lockstat_feed(p->ls, ev);

	if (rc == -EINVAL) {
		/* a malformed record is counted and skipped; say so once */
		if (!p->bad_shown++)
			log_warn("%s: stream %u: malformed record skipped", p->trace_dir,
				 ev->stream_id);
		return 0;
	}
	if (rc < 0)
		log_err("%s: lock analysis: %s", p->trace_dir, strerror(-rc));
	return rc;
}

static int lockstat_pass_end(void *pv, int read_rc, const void *opts, FILE *out)
{
	struct lockstat_pass *p = pv;
	struct lockstat_print_opts po = *(const struct lockstat_print_opts *)opts;
	struct trace_reader *r = p->r;
	struct trace_loss loss;
	size_t nprob;
	int rc;

	if (read_rc < 0)
		log_warn("%s: reading stopped: %s", p->trace_dir, strerror(-read_rc));
	/* the losses as the run counted them (the trace's state file) */
	trace_reader_loss(r, &loss);
	lockstat_set_loss(p->ls, &loss);
	if ((rc = lockstat_finish(p->ls)) < 0) {
		log_err("%s: lock analysis: %s", p->trace_dir, strerror(-rc));
		return rc;
	}
	if (po.skip_if_none && !lockstat_nused(p->ls))
		return 0;
	if (po.heading)
		fputs(po.heading, out);
	po.trace_dir = p->trace_dir;
	po.untimed = trace_reader_untimed(r);
	if (po.untimed && (po.sort == LOCKSTAT_SORT_WAIT || po.sort == LOCKSTAT_SORT_HOLD))
		po.sort = LOCKSTAT_SORT_ACQ;
	po.locks_unrecorded = lockstat_dir_unrecorded(p->trace_dir);
	lockstat_dir_symbolizer_open(r, &po);
	rc = po.json ? lockstat_print_json(p->ls, out, &po) : lockstat_print_text(p->ls, out, &po);
	lockstat_dir_symbolizer_close(&po);
	fflush(out);
	/* damage after the report, where a reader of a long report sees it */
	nprob = trace_reader_nproblems(r);
	for (size_t i = 0; i < nprob; i++) {
		const struct trace_problem *pr = trace_reader_problem(r, i);

		log_warn("%s: offset %" PRIu64 ": %s", pr->file, pr->offset, pr->msg);
	}
	if (rc < 0)
		log_err("%s: printing the lock report: %s", p->trace_dir, strerror(-rc));
	else if (nprob || p->bad_shown)
		rc = -EBADMSG;
	return rc;
}

const struct analyze_pass_ops lockstat_pass_ops = {
    .open = lockstat_pass_new,
    .feed = lockstat_pass_feed,
    .end = lockstat_pass_end,
    .free = lockstat_pass_free,
    .name_file = 1,
};

int lockstat_report_dir(const char *trace_dir, const struct lockstat_print_opts *po_in, FILE *out)
{
	return analyze_pass_dir(trace_dir, &lockstat_pass_ops, po_in, po_in->seen, out);
}
