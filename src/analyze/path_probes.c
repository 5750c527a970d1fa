// SPDX-License-Identifier: MIT
/*
 * path_probes.c - function entries for `spool path` (and `spool replay
 * --record-path`) of a program that was not built with
 * -finstrument-functions: an entry probe and exit probes on every function
 * of the executable, planned as `spool probe -e 'func:*'` plans them (jump
 * trampolines, int3 where no jump fits; the functions the planner refuses
 * are left out and counted), handed to the agent through the probe hooks
 * of the session (src/probe/probe_session.h). The analysis (path.c) then
 * takes the KIND_PROBE entry and exit records as the calls.
 *
 * Why probes cannot make a replay diverge: a probe hit writes one record
 * into the thread's ring and calls nothing the agent records (no lock, no
 * system call but the collector's wake-up, which the agent makes itself);
 * the agent places them in its constructor, before main, through functions
 * it does not record either (mmap, mprotect, its own SIGTRAP handler).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../collect/session.h"
#include "../probe/probe.h"
#include "../probe/probe_fde.h"
#include "../probe/probe_session.h"
#include "../util/log.h"
#include "../util/target.h"
#include "path.h"

struct path_probes {
	struct probe_mgr m;
	struct probe_run run;
	size_t funcs, probed, refused, nprobes, int3;
	int fde; /* stripped: functions added from .eh_frame, or a negative errno */
};

int path_fn_parse(const char *s)
{
	if (!strcmp(s, "auto"))
		return PATH_FN_AUTO;
	if (!strcmp(s, "finstrument") || !strcmp(s, "finstrument-functions"))
		return PATH_FN_FINST;
	if (!strcmp(s, "probes"))
		return PATH_FN_PROBES;
	return -EINVAL;
}

const char *path_fn_name(int mode)
{
	return mode == PATH_FN_FINST ? "finstrument" : mode == PATH_FN_PROBES ? "probes" : "auto";
}

/* GCC's .cold parts are reached by a jump from their function, not called:
 * an "entry" there would open a frame that is not one. */
static int path_probes_skip(const char *name)
{
	const char *c = strstr(name, ".cold");

	return path_prog_crt_name(name) || (c && (!c[5] || c[5] == '.'));
}

static int path_probes_plan(struct path_probes *pp)
{
	struct probe_mgr *m = &pp->m;
	struct probe_module *mod;
	uint32_t mi;
	int rc;

	rc = probe_mgr_exe_module(m, &mi);
	if (rc)
		return rc;
	mod = &m->mods[mi];
	/* A stripped executable names only what it exports; its call-frame
	 * information still has every function the compiler emitted. */
	if (mod->stripped)
		pp->fde = probe_module_add_fde_funcs(mod);
	if (pp->fde == -ENOMEM)
		return -ENOMEM;
	for (size_t i = 0; i < mod->nsyms; i++) {
		size_t before = m->ndefs;
		int entry = 0;

		if (path_probes_skip(mod->syms[i].name))
			continue;
		pp->funcs++;
		rc = probe_plan_function(m, mi, (uint32_t)i, 1, 1);
		if (rc && rc != -ENOEXEC)
			return rc;
		for (size_t k = before; k < m->ndefs; k++) {
			m->defs[k].registered = 1;
			entry |= m->defs[k].op == PROBE_OP_ENTRY;
			pp->nprobes += !m->defs[k].shared;
			pp->int3 += m->defs[k].method == PROBE_M_INT3 && !m->defs[k].shared;
		}
		if (entry) {
			pp->probed++;
		} else {
			/* No entry, no call in the path: its exits would only
			 * close frames, drop them. */
			for (size_t k = before; k < m->ndefs; k++) {
				m->defs[k].registered = 0;
				pp->nprobes -= !m->defs[k].shared;
				pp->int3 -= m->defs[k].method == PROBE_M_INT3 && !m->defs[k].shared;
			}
			pp->refused++;
		}
	}
	return 0;
}

int path_probes_setup(struct path_probes **out, int mode, const char *exe, struct session_opts *so,
		      int quiet)
{
	struct path_probes *pp;
	int rc, inst;

	*out = NULL;
	inst = path_prog_instrumented(exe);
	if (inst < 0 && mode != PATH_FN_FINST) {
		char why[400];

		log_err("%s: cannot read it: %s", exe,
			target_unreadable_why(exe, inst, why, sizeof(why)));
		return inst;
	}
	if (mode == PATH_FN_FINST || (mode == PATH_FN_AUTO && inst == 1)) {
		if (!quiet && mode == PATH_FN_AUTO)
			log_info("path: function entries from %s's -finstrument-functions hooks",
				 exe);
		return 0;
	}
	pp = calloc(1, sizeof(*pp));
	if (!pp)
		return -ENOMEM;
	rc = probe_mgr_init(&pp->m, exe);
	if (rc < 0) {
		log_err("%s: %s", exe, strerror(-rc));
		free(pp);
		return rc;
	}
	{
		/* probe's note on a stripped file ("using .dynsym, N functions;
		 * static functions cannot be probed by name") is not true here:
		 * path probes its .eh_frame's functions too, and says so below */
		int was_quiet = probe_mgr_quiet;

		probe_mgr_quiet = 1;
		rc = path_probes_plan(pp);
		probe_mgr_quiet = was_quiet;
	}
	if (rc < 0) {
		log_err("path: planning probes on %s: %s", exe, strerror(-rc));
		goto out_free;
	}
	if (!pp->probed) {
		int stripped = pp->m.nmods && pp->m.mods[0].stripped;

		log_err("path: %s has no function spool can probe%s: build it with "
			"-finstrument-functions (gcc or clang)%s",
			exe,
			stripped ? " (it is stripped: only the functions it exports, in .dynsym, "
				   "have names, it exports none, and its .eh_frame lists none)"
				 : "",
			stripped ? ", or give its debug file (SPOOL_DEBUG_DIR=DIR, "
				   "DIR/.build-id/xx/yy.debug)"
				 : "");
		rc = -ENOENT;
		goto out_free;
	}
	if (!quiet)
		log_info("path: %s has no -finstrument-functions hooks: function entries from "
			 "probes on %zu of its %zu functions%s (%zu probes, %zu of them int3); "
			 "%zu refused by the planner%s%s%s",
			 exe, pp->probed, pp->funcs,
			 pp->m.mods[0].stripped ? " (stripped: exported ones and .eh_frame's)" : "",
			 pp->nprobes, pp->int3, pp->refused,
			 pp->refused && !pp->m.mods[0].stripped
			     ? " (spool probe --list -e 'func:*' "
			     : "",
			 pp->refused && !pp->m.mods[0].stripped ? exe : "",
			 pp->refused && !pp->m.mods[0].stripped ? " says why)" : "");
	if (pp->fde > 0 && !quiet)
		log_info("path: %s is stripped: %d of its functions have no name but their "
			 ".eh_frame entry, named %s+0xOFFSET",
			 exe, pp->fde,
			 /* the names come from the file itself (a link's target:
			  * Debian's alternatives, /usr/bin/plzip -> lzip.plzip) */
			 strrchr(pp->m.exe, '/') ? strrchr(pp->m.exe, '/') + 1 : pp->m.exe);
	if (inst == 1 && !quiet)
		log_info("path: %s also calls the -finstrument-functions hooks: probes asked for, "
			 "the hooks' records are left out",
			 exe);
	pp->run.m = &pp->m;
	probe_run_hook_session(&pp->run, so);
	*out = pp;
	return 0;

out_free:
	probe_mgr_free(&pp->m);
	free(pp);
	return rc;
}

void path_probes_done(struct path_probes *pp, int quiet)
{
	size_t placed, njump, nint3;

	if (!pp || quiet)
		return;
	placed = probe_run_placed(&pp->m);
	probe_run_count(&pp->m, &njump, &nint3);
	if (placed < njump + nint3)
		log_warn("path: %zu of %zu probes placed: calls of the others are missing from "
			 "the path",
			 placed, njump + nint3);
}

void path_probes_free(struct path_probes *pp)
{
	if (!pp)
		return;
	probe_mgr_free(&pp->m);
	free(pp);
}
