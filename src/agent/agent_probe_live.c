// SPDX-License-Identifier: MIT
/*
 * agent_probe_live.c - probes changed while the program runs, in attach
 * mode (spool probe -p PID --commands / --control): the design's
 * register and unregister after the start.
 *
 * spool calls spool_agent_probe_ctl in the target with every thread
 * stopped by ptrace (one of them runs this call), so nothing here races a
 * hit: text and trampolines are written with plain stores (the "not live"
 * path of agent_probe_poke), and spool has stepped every thread out of
 * the bytes about to change. Commands:
 *
 *   prep OFF    a batch of new probes, a probe area spool wrote OFF bytes
 *               into the probes area (after the first one): place their
 *               trampolines (status READY); spool then steps the threads
 *               out of their ranges
 *   commit OFF  write their patches (an int3 probe placed disabled is not
 *               written: PROBE_S_OFF)
 *   del ID      put the original bytes of probe ID back (PROBE_S_DELETED);
 *               its trampoline stays mapped (a thread may have been
 *               stopped inside it)
 *   off ID      disable: the 5-byte nop that starts the probe's handler
 *               call in its trampoline becomes a jmp over the call (a flip
 *               of the trampoline's first instruction, no re-planning); an
 *               int3 probe gets its original byte back
 *   on ID       enable again: the nop, or the int3
 *   sys WHAT    the system probes counted from now on (SYS_W_IO |
 *               SYS_W_MEM: an add or a delete of sys:io, sys:mem): their
 *               GOT slots go to the counting interposers or back
 *               (agent_probe_got.c); returns the probes in effect and
 *               the slots of their names, slots << 4 | what
 *
 * Ids of new probes come from the reserve spool kept when it attached
 * (probe_mgr.id_reserve): the run-time table and the counters already
 * cover them. A batch's variable recipes are found through the one
 * recipe pointer the hot path uses: spool places the batch so that its
 * recipes are a whole number of recipes after the first area's.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "agent.h"
#include "agent_probe.h"
#include "agent_sys.h"

/* "WORD N": the number, or -1. */
static int64_t live_num(const char *s)
{
	int64_t v = 0;
	int any = 0;

	while (*s == ' ')
		s++;
	for (; *s >= '0' && *s <= '9'; s++, any = 1) {
		v = v * 10 + (*s - '0');
		if (v > (1ll << 40))
			return -1;
	}
	return any && !*s ? v : -1;
}

/* cmd starts with word and a space (no strncmp: the agent's imports are
 * an allowlist, tests/integ/20-agent-symbols.t) */
static int live_is(const char *cmd, const char *word)
{
	size_t n = 0;

	for (; word[n]; n++)
		if (cmd[n] != word[n])
			return 0;
	return cmd[n] == ' ';
}

/* The batch area at off, its tables checked against the probes area. */
static struct probe_area_hdr *live_batch(int64_t off)
{
	uint64_t size = 0, room;
	char *base = agent_ext(SHM_EXT_PROBES, &size);
	struct probe_area_hdr *h;
	struct probe_area_module *ms;
	struct probe_area_probe *ps;

	if (!base || off < (int64_t)sizeof(*h) || (off & 7) || (uint64_t)off > size - sizeof(*h))
		return NULL;
	h = (void *)(base + off);
	room = size - (uint64_t)off;
	if (h->magic != PROBE_AREA_MAGIC || h->version != PROBE_AREA_VERSION ||
	    h->modules_off > room || (uint64_t)h->nmodules * sizeof(*ms) > room - h->modules_off ||
	    h->probes_off > room || (uint64_t)h->nprobes * sizeof(*ps) > room - h->probes_off ||
	    h->relocs_off > room ||
	    (uint64_t)h->nrelocs * sizeof(struct probe_area_reloc) > room - h->relocs_off ||
	    h->code_off > room || h->code_bytes > room - h->code_off || h->vars_off > room ||
	    (uint64_t)h->nvars * sizeof(struct probe_area_var) > room - h->vars_off)
		return NULL;
	ms = (void *)((char *)h + h->modules_off);
	ps = (void *)((char *)h + h->probes_off);
	for (uint32_t i = 0; i < h->nmodules; i++)
		if (ms[i].first_probe > h->nprobes ||
		    ms[i].nprobes > h->nprobes - ms[i].first_probe)
			return NULL;
	for (uint32_t i = 0; i < h->nprobes; i++)
		if (ps[i].code_off > h->code_bytes ||
		    ps[i].code_len > h->code_bytes - ps[i].code_off ||
		    ps[i].reloc_first > h->nrelocs ||
		    ps[i].reloc_count > h->nrelocs - ps[i].reloc_first)
			return NULL;
	return h;
}

static int live_prep(struct probe_area_hdr *h)
{
	struct probe_area_module *ms = (void *)((char *)h + h->modules_off);
	struct probe_area_probe *ps = (void *)((char *)h + h->probes_off);
	const struct probe_area_var *v = (const void *)((char *)h + h->vars_off);
	int ready = 0;

	for (uint32_t i = 0; i < h->nprobes; i++) {
		uint32_t id = ps[i].id;

		if (!id || id > agent_probe_max_id)
			return -ERANGE; /* beyond the reserve spool kept */
		if (agent_probe_by_id[id].area || agent_probe_by_id[id].owner)
			return -EEXIST;
	}
	if (h->nvars) {
		intptr_t d;

		if (!agent_probe_vars)
			agent_probe_vars =
			    (const void *)((char *)agent_probe_area + agent_probe_area->vars_off);
		d = (const char *)v - (const char *)agent_probe_vars;
		if (d < 0 || d % (intptr_t)sizeof(*v) || d / (intptr_t)sizeof(*v) > (1ll << 30))
			return -EINVAL;
		for (uint32_t i = 0; i < h->nvars; i++)
			if (v[i].index == 0 && v[i].probe_id &&
			    v[i].probe_id <= agent_probe_max_id && i + v[i].nvars <= h->nvars) {
				agent_probe_by_id[v[i].probe_id].var_first =
				    (uint32_t)(d / (intptr_t)sizeof(*v)) + i;
				agent_probe_by_id[v[i].probe_id].var_count = v[i].nvars;
			}
	}
	for (uint32_t i = 0; i < h->nmodules; i++)
		if (ms[i].nprobes)
			agent_probe_module(&ms[i], ps, (void *)((char *)h + h->relocs_off),
					   (uint8_t *)h + h->code_off);
	for (uint32_t i = 0; i < h->nprobes; i++)
		ready += ps[i].status == PROBE_S_READY;
	return ready;
}

static int live_commit(struct probe_area_hdr *h)
{
	struct probe_area_probe *ps = (void *)((char *)h + h->probes_off);
	uint32_t ids[256], n = 0;
	int patched = 0;

	/* The int3 probes go into the SIGTRAP handler's table before any is
	 * written (those placed disabled too: enabling writes the int3 only). */
	for (uint32_t i = 0; i < h->nprobes; i++) {
		if (ps[i].status != PROBE_S_READY || !agent_probe_by_id[ps[i].id].int3)
			continue;
		ids[n++] = ps[i].id;
		if (n == sizeof(ids) / sizeof(ids[0])) {
			if (agent_probe_traps_add(ids, n))
				return -ENOMEM;
			n = 0;
		}
	}
	if (n && agent_probe_traps_add(ids, n))
		return -ENOMEM;
	for (uint32_t i = 0; i < h->nprobes; i++)
		if (ps[i].status == PROBE_S_READY && agent_probe_by_id[ps[i].id].int3) {
			if (agent_probe_trap_install())
				return -EIO;
			break;
		}
	for (uint32_t i = 0; i < h->nprobes; i++) {
		struct probe_area_probe *p = &ps[i];
		struct agent_probe_rt *rt;
		uint8_t patch[PROBE_MAX_PATCH];

		if (p->status != PROBE_S_READY)
			continue;
		/* As agent_probe_commit_all: nothing of these is written. A
		 * return-address exit or a rider has no patch of its own
		 * (patch_len 0); written as a jump, its first byte went over
		 * the entry's, and its "original" byte (none: 0) back at the
		 * detach, over the function's first instruction. */
		if (p->method == PROBE_M_RIDE) {
			p->status = PROBE_S_PATCHED; /* placed with its owner */
			continue;
		}
		if (p->method == PROBE_M_RETADDR) {
			agent_probe_ra_enable();
			p->status = PROBE_S_PATCHED;
			__atomic_fetch_add(&agent_probe_area->patched, 1, __ATOMIC_RELAXED);
			patched++;
			continue;
		}
		rt = &agent_probe_by_id[p->id];
		if (rt->int3 && (p->flags & PROBE_F_DISABLED)) {
			p->status = PROBE_S_OFF;
			continue;
		}
		memset(patch, 0xcc, sizeof(patch));
		if (!rt->int3) {
			int32_t rel = (int32_t)((int64_t)rt->slot - (int64_t)(rt->patch_addr + 5));

			patch[0] = 0xe9;
			memcpy(patch + 1, &rel, 4);
		}
		if (agent_probe_poke(rt->patch_addr, patch, rt->patch_len, 0)) {
			p->status = PROBE_S_PROTECT;
			continue;
		}
		rt->placed = 1;
		p->status = PROBE_S_PATCHED;
		__atomic_fetch_add(&agent_probe_area->patched, 1, __ATOMIC_RELAXED);
		patched++;
	}
	agent_probe_got_redirect(); /* clone's, and the mask calls' for int3 probes */
	return patched;
}

static struct agent_probe_rt *live_probe(int64_t id)
{
	struct agent_probe_rt *p;

	if (id <= 0 || id > agent_probe_max_id)
		return NULL;
	p = &agent_probe_by_id[id];
	return p->area || p->owner ? p : NULL;
}

static int live_delete(struct agent_probe_rt *p)
{
	if (p->owner)
		return -EXDEV; /* a shared exit: it lives in its owner's trampoline */
	if (p->area->status == PROBE_S_OFF) {
		__atomic_store_n(&p->disabled, 1, __ATOMIC_RELEASE);
		p->area->status = PROBE_S_DELETED;
		agent_probe_traps_del(p->id);
		return 0;
	}
	if (!p->placed)
		return -ENOENT;
	agent_probe_remove(p, PROBE_S_DELETED, 0);
	if (p->placed)
		return -EIO;
	if (p->int3)
		agent_probe_traps_del(p->id);
	if (p->area->shared_exit && p->area->shared_exit <= agent_probe_max_id)
		__atomic_store_n(&agent_probe_by_id[p->area->shared_exit].disabled, 1,
				 __ATOMIC_RELEASE);
	return 0;
}

/* Flip the nop (on) or the jmp over the handler call (off). An int3
 * probe's own off takes its int3 away (no trampoline call to skip), unless
 * call_only ("skip": its handler alone deleted while probes combined with
 * it run in its slot): then the trap runs no handler of its own and goes
 * on to the slot. */
static int live_flip(struct agent_probe_rt *p, int on, int call_only)
{
	static const uint8_t nop5[] = {0x0f, 0x1f, 0x44, 0x00, 0x00};
	struct agent_probe_rt *o = p->owner ? live_probe(p->owner) : p;
	struct probe_area_probe *ap;
	uint8_t b[5];

	if (!o || !o->area)
		return -ENOENT;
	ap = o->area;
	if (ap->status == PROBE_S_DELETED || ap->status == PROBE_S_RESTORED ||
	    ap->status == PROBE_S_REMOVED)
		return -ENOENT;
	if (o->int3 && !p->owner && call_only) {
		/* the int3 stays for the probes in its slot; the trap handler
		 * runs no handler of p's (agent_probe_trap_hit) */
		__atomic_store_n(&p->disabled, !on, __ATOMIC_RELEASE);
		return 0;
	}
	if (o->int3 && !p->owner) {
		/* no trampoline call: the int3 itself goes or comes back */
		if (on && ap->status == PROBE_S_OFF) {
			b[0] = 0xcc;
			if (agent_probe_poke(o->patch_addr, b, 1, 0))
				return -EIO;
			o->placed = 1;
			ap->status = PROBE_S_PATCHED;
		} else if (!on && o->placed && ap->status == PROBE_S_PATCHED) {
			if (agent_probe_poke(o->patch_addr, o->orig, 1, 0))
				return -EIO;
			o->placed = 0;
			ap->status = PROBE_S_OFF;
		}
		return 0;
	}
	for (int k = 0; k < PROBE_SKIPS; k++) {
		uint64_t at;

		if (!ap->skip_end[k] || ap->skip_id[k] != p->id)
			continue;
		if (ap->skip_at[k] + 5u > ap->skip_end[k] || ap->skip_end[k] > ap->code_len)
			return -EINVAL;
		at = o->slot + ap->skip_at[k];
		if (on) {
			memcpy(b, nop5, 5);
		} else {
			int32_t rel = (int32_t)(ap->skip_end[k] - ap->skip_at[k] - 5);

			b[0] = 0xe9;
			memcpy(b + 1, &rel, 4);
		}
		return agent_probe_poke(at, b, 5, 0) ? -EIO : 0;
	}
	return -ENOTSUP;
}

AGENT_EXPORT int spool_agent_probe_ctl(const char *cmd)
{
	struct agent_probe_rt *p;
	struct probe_area_hdr *h;
	int rc;

	if (!agent_probe_area || !agent_probe_by_id || !agent_probe_area->attach ||
	    agent_probe_area->detached)
		return -EPROTO;
	agent_self.busy++;
	if (live_is(cmd, "prep") || live_is(cmd, "commit")) {
		h = live_batch(live_num(cmd + (cmd[0] == 'p' ? 4 : 6)));
		rc = !h ? -EINVAL : cmd[0] == 'p' ? live_prep(h) : live_commit(h);
	} else if (live_is(cmd, "del") || live_is(cmd, "off") || live_is(cmd, "on") ||
		   live_is(cmd, "skip")) {
		p = live_probe(live_num(cmd + (cmd[1] == 'n' ? 2 : cmd[0] == 's' ? 4 : 3)));
		if (!p)
			rc = -ENOENT;
		else if (cmd[0] == 'd')
			rc = live_delete(p);
		else
			rc = live_flip(p, cmd[1] == 'n', cmd[0] == 's');
	} else if (live_is(cmd, "sys")) {
		int64_t what = live_num(cmd + 3);
		uint32_t slots = 0;

		rc = what < 0 || (what & ~(int64_t)(SYS_W_IO | SYS_W_MEM))
			 ? -EINVAL
			 : agent_sys_live((unsigned)what);
		if (!rc) {
			agent_probe_got_redirect();
			rc = (int)agent_probe_got_sys(&slots);
			rc |= (int)(slots > (1u << 20) ? 1u << 24 : slots << 4);
		}
	} else {
		rc = -EINVAL;
	}
	agent_self.busy--;
	return rc;
}
