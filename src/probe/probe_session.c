// SPDX-License-Identifier: MIT
/*
 * probe_session.c - the session hooks of dynamic probes (probe_session.h):
 * what `spool probe` does around the program's run, shared with the
 * commands that add probes to their own sessions (spool path, spool replay
 * --record-path on programs without -finstrument-functions).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../collect/shm_host.h"
#include "../trace/trace.h"
#include "../util/log.h"
#include "probe_session.h"
#include "sysprobe.h"

/* The side files that say what the probes are (the probe table; the
 * variable table of var:, assert:, time:), known before the program runs.
 * add: trace_writer_add_file at the end, trace_writer_early_file before. */
static int probe_run_tables(struct probe_run *pr, struct trace_writer *w,
			    int (*add)(struct trace_writer *, const char *, const void *, size_t))
{
	size_t len;
	char *text;
	int rc;

	rc = probe_mgr_table(pr->m, &text, &len);
	if (rc < 0)
		return rc;
	rc = add(w, "probes", text, len);
	free(text);
	if (rc >= 0 && probe_mgr_has_vars(pr->m)) {
		rc = probe_mgr_var_table(pr->m, &text, &len);
		if (rc < 0)
			return rc;
		rc = add(w, "vars", text, len);
		free(text);
	}
	return rc;
}

int probe_run_prepare(void *arg, struct shm_host *h, struct trace_writer *w)
{
	struct probe_run *pr = arg;
	void *area = shm_host_ext(h, SHM_EXT_PROBES);
	int rc;

	if (!area)
		return -ENOSPC;
	/* only the area's own bytes: room kept after it for probes added
	 * later (spool probe -p --commands) stays untouched, sparse */
	if (probe_mgr_area_size(pr->m) > h->ext_size[SHM_EXT_PROBES])
		return -ENOSPC;
	rc = probe_mgr_fill_area(pr->m, area, probe_mgr_area_size(pr->m));
	if (!rc)
		memcpy(((struct probe_area_hdr *)area)->handler_path, pr->handler,
		       sizeof(pr->handler));
	/* In the trace from the start, not only when the run ends: a spool
	 * killed mid-run leaves a partial trace whose events are named by
	 * them (spool report --functions, --vars, export; tests/integ/380).
	 * A failure here is left to the final write to count and say. */
	if (!rc && w)
		(void)probe_run_tables(pr, w, trace_writer_early_file);
	if (!rc && pr->sys_what)
		rc = sysprobe_start(&pr->sys, pr->sys_what, h, pr->sys_pid);
	if (!rc && pr->next_prepare)
		rc = pr->next_prepare(pr->next_arg, h, w);
	return rc;
}

static int probe_run_side_files(struct probe_run *pr, struct trace_writer *w)
{
	size_t len;
	char *text;
	int rc;

	/* again: probes added while the program ran (-p --commands) */
	rc = probe_run_tables(pr, w, trace_writer_add_file);
	if (rc < 0 || !probe_mgr_has_cfg(pr->m))
		return rc;
	rc = probe_mgr_cfg_table(pr->m, &text, &len);
	if (rc < 0)
		return rc;
	rc = trace_writer_add_file(w, "coverage", text, len);
	free(text);
	return rc;
}

int probe_run_finish(void *arg, struct shm_host *h, struct trace_writer *w)
{
	struct probe_run *pr = arg;
	const struct probe_area_hdr *ah = shm_host_ext(h, SHM_EXT_PROBES);
	size_t counts[16] = {0};
	int rc, rc2 = 0;

	rc = sysprobe_finish(pr->sys, w);
	pr->sys = NULL;
	if (rc < 0)
		log_err("writing the system probes: %s", strerror(-rc));
	if (ah) {
		pr->handler_failed = pr->handler[0] && !ah->handler_loaded;
		if (pr->handler_failed)
			log_err("the agent could not load %s: %.*s", pr->handler,
				(int)sizeof(ah->handler_error), ah->handler_error);
		else if (!__atomic_load_n(&ah->done, __ATOMIC_ACQUIRE) && !pr->attach_failed)
			log_warn("the agent did not place the probes (the program did not start "
				 "with it, or exited first)");
		pr->area_unknown = probe_mgr_read_area(pr->m, ah, h->ext_size[SHM_EXT_PROBES]) < 0;
		if (pr->area_unknown)
			log_warn("the program overwrote spool's probe area: the probes' status "
				 "and counts are unknown");
		if (!pr->area_unknown) {
			/* a count the program could have scribbled over: only said */
			uint64_t full = __atomic_load_n(&ah->ra_full, __ATOMIC_RELAXED);

			if (full)
				log_warn("%llu %s not recorded: %s thread's shadow stack of "
					 "return addresses was full (16384 frames deep; --exits "
					 "patch probes the rets instead)",
					 (unsigned long long)full,
					 full == 1 ? "call's exit was" : "calls' exits were",
					 full == 1 ? "its" : "their");
		}
		/* (threads of the program's own clone: the collector says it) */
		pr->execs_unprobed = __atomic_load_n(&ah->execs_unprobed, __ATOMIC_RELAXED);
		if (pr->execs_unprobed) {
			char note[64];
			int n =
			    snprintf(note, sizeof(note), "execs_unprobed=%u\n", pr->execs_unprobed);

			log_warn("%u program%s exec'd during the run (by %s or its children) %s "
				 "traced but not probed: the probes are planned for %s only; "
				 "probe %s directly",
				 pr->execs_unprobed, pr->execs_unprobed == 1 ? "" : "s", pr->m->exe,
				 pr->execs_unprobed == 1 ? "was" : "were", pr->m->exe,
				 pr->execs_unprobed == 1 ? "it" : "them");
			/* in the trace too (spool info prints it; a failure to
			 * write it is counted by the writer) */
			trace_writer_add_file(w, "exec", note, (size_t)n);
		}
	}
	for (size_t i = 0; i < pr->m->ndefs; i++)
		if (pr->m->defs[i].registered && pr->m->defs[i].status < 16)
			counts[pr->m->defs[i].status]++;
	if (counts[PROBE_S_MISMATCH])
		log_warn("%zu probes not placed: the code in memory differs from the file spool "
			 "decoded (%s or a library)",
			 counts[PROBE_S_MISMATCH], pr->m->exe);
	if (counts[PROBE_S_NO_MODULE])
		log_warn("%zu probes not placed: their library was not loaded at startup",
			 counts[PROBE_S_NO_MODULE]);
	if (counts[PROBE_S_REMOVED])
		log_warn("%zu probes removed while the program ran: their handler faulted "
			 "(the error handler ran, the original code was put back)",
			 counts[PROBE_S_REMOVED]);
	if (counts[PROBE_S_NO_PAGE] || counts[PROBE_S_PROTECT])
		log_warn("%zu probes not placed: no trampoline memory or text not writable",
			 counts[PROBE_S_NO_PAGE] + counts[PROBE_S_PROTECT]);
	rc = probe_run_side_files(pr, w);
	if (pr->next_finish)
		rc2 = pr->next_finish(pr->next_arg, h, w);
	return rc < 0 ? rc : rc2;
}

void probe_run_hook_session(struct probe_run *pr, struct session_opts *so)
{
	pr->next_prepare = so->prepare;
	pr->next_finish = so->finish;
	pr->next_arg = so->hook_arg;
	so->features |= SHM_FEAT_PROBES;
	so->ext_bytes[SHM_EXT_PROBES] = probe_mgr_area_size(pr->m);
	so->prepare = probe_run_prepare;
	so->finish = probe_run_finish;
	so->hook_arg = pr;
}

void probe_run_count(const struct probe_mgr *m, size_t *njump, size_t *nint3)
{
	*njump = *nint3 = 0;
	for (size_t i = 0; i < m->ndefs; i++)
		if (m->defs[i].registered && !m->defs[i].shared)
			*(m->defs[i].method == PROBE_M_INT3 ? nint3 : njump) += 1;
}

size_t probe_run_placed(const struct probe_mgr *m)
{
	size_t placed = 0;

	for (size_t i = 0; i < m->ndefs; i++)
		placed += m->defs[i].registered && !m->defs[i].shared &&
			  (m->defs[i].status == PROBE_S_PATCHED ||
			   m->defs[i].status == PROBE_S_REMOVED || m->defs[i].status == PROBE_S_OFF);
	return placed;
}
