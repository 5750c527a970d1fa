// SPDX-License-Identifier: MIT
/*
 * pass.c - the driver of one analyzer over one reading of a trace (pass.h):
 * the open/feed/end/free sequence that the function, vars and lock reports
 * share, written once.
 */
#include <string.h>

#include "../trace/trace.h"
#include "../util/log.h"
#include "pass.h"

int analyze_pass_open_reader(struct trace_reader **r, const char *dir, int name_file)
{
	struct trace_problem prob;
	int rc;

	memset(&prob, 0, sizeof(prob));
	*r = NULL;
	rc = trace_reader_open(r, dir, &prob);
	if (rc >= 0)
		return rc;
	if (!name_file)
		log_err("cannot read trace %s: %s", dir, prob.msg[0] ? prob.msg : strerror(-rc));
	else if (prob.msg[0]) /* prob.file is the path of the file at fault */
		log_err("%s: %s", prob.file[0] ? prob.file : dir, prob.msg);
	else
		log_err("%s: cannot read trace: %s", dir, strerror(-rc));
	return rc;
}

int analyze_pass_dir(const char *dir, const struct analyze_pass_ops *ops, const void *opts,
		     struct trace_loss_seen *seen, FILE *out)
{
	struct trace_reader *r;
	struct trace_event ev;
	void *p = NULL;
	int rc;

	rc = analyze_pass_open_reader(&r, dir, ops->name_file);
	if (rc < 0)
		return rc;
	rc = ops->open(&p, r, dir, opts);
	if (rc < 0)
		goto out;
	while ((rc = trace_reader_next(r, &ev)) > 0)
		if ((rc = ops->feed(p, &ev)) < 0)
			goto out;
	rc = ops->end(p, rc, opts, out);
out:
	ops->free(p);
	trace_loss_seen_fill(seen, r);
	trace_reader_close(r);
	return rc;
}
