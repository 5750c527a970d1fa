// SPDX-License-Identifier: MIT
/*
 * rr_tree.c - the host side of process trees (doc/record.md "Process
 * trees", rr_area.h struct rr_tree): the layout of the feature area that
 * holds one record area per process of a recorded program, what spool
 * record reads back from it, and the replay's areas, one per process, each
 * filled from that process's own recording.
 *
 * Layout (offsets from the feature area's start, each piece page-aligned):
 *
 *   [ area 0: the first process        ] its usual size
 *   [ struct rr_tree                   ]
 *   [ area 1 ] [ area 2 ] ...            record: one size for all;
 *                                        replay: each its log's size
 *
 * The offsets are spool's own: it never reads one back from the region,
 * which the program can write; what it reads back (the processes' pids,
 * kinds, counters) is information, bounded before use.
 */
#include <errno.h>
#include <string.h>

#include "rr_log.h"
#include "rr_tree.h"

static uint64_t rr_page(uint64_t v)
{
	return (v + 4095) & ~(uint64_t)4095;
}

static uint64_t rr_tree_bytes(void)
{
	return rr_page(sizeof(struct rr_tree));
}

static uint64_t rr_rec_first(uint32_t max_objs, int serial)
{
	return rr_page(rr_record_area_size(max_objs, serial ? RR_MAX_THREADS : 0));
}

/* A child's objects: the lock indices are the program's, handed out over
 * all its processes; a child that goes past this many is told it lost
 * events (and the recording is refused), not replayed wrong. */
#define RR_CHILD_OBJS (1u << 16)

static uint64_t rr_rec_child(uint32_t max_objs, int serial)
{
	if (max_objs > RR_CHILD_OBJS)
		max_objs = RR_CHILD_OBJS;
	return rr_page(rr_record_area_size(max_objs, serial ? RR_CHILD_THREADS : 0));
}

uint64_t rr_tree_record_size(uint32_t max_objs, int serial, uint32_t nprocs)
{
	if (nprocs < 1)
		nprocs = 1;
	return rr_rec_first(max_objs, serial) + rr_tree_bytes() +
	       (uint64_t)(nprocs - 1) * rr_rec_child(max_objs, serial);
}

void rr_tree_record_init(void *ext, uint32_t max_objs, int serial, uint32_t nprocs)
{
	struct rr_area *a0 = ext, *a;
	uint64_t off = rr_rec_first(max_objs, serial), child = rr_rec_child(max_objs, serial);
	struct rr_tree *t = (struct rr_tree *)((char *)ext + off);

	if (nprocs > RR_MAX_PROCS)
		nprocs = RR_MAX_PROCS;
	memset(t, 0, sizeof(*t));
	a0->tree_off = off;
	a0->proc = 0;
	t->nprocs = 1; /* 0 is the first process's */
	t->max = nprocs;
	t->only = RR_NO_PROC;
	t->ent[0].area_off = 0;
	t->ent[0].area_size = off;
	t->ent[0].parent = t->ent[0].prev = RR_NO_PROC;
	off += rr_tree_bytes();
	for (uint32_t k = 1; k < nprocs; k++, off += child) {
		a = (struct rr_area *)((char *)ext + off);
		rr_record_area_init(a, max_objs > RR_CHILD_OBJS ? RR_CHILD_OBJS : max_objs,
				    serial ? RR_CHILD_THREADS : RR_MAX_THREADS);
		a->stuck_ms = a0->stuck_ms;
		a->opts = a0->opts;
		a->proc = k;
		if (serial) {
			rr_record_area_serial(a, a0->chaos, a0->seed + k);
		} else {
			a->serial_off = 0;
			a->sw_off = 0;
		}
		t->ent[k].area_off = off;
		t->ent[k].area_size = child;
		t->ent[k].parent = t->ent[k].prev = RR_NO_PROC;
	}
}

uint32_t rr_tree_record_procs(const void *ext, uint32_t max_objs, int serial, uint32_t nprocs,
			      uint32_t *wanted)
{
	const struct rr_tree *t =
	    (const struct rr_tree *)((const char *)ext + rr_rec_first(max_objs, serial));
	uint32_t n = __atomic_load_n(&t->nprocs, __ATOMIC_ACQUIRE);

	if (wanted)
		*wanted = n;
	return n < nprocs ? n : nprocs;
}

struct rr_tree *rr_tree_record_tree(void *ext, uint32_t max_objs, int serial)
{
	return (struct rr_tree *)((char *)ext + rr_rec_first(max_objs, serial));
}

struct rr_area *rr_tree_record_area(void *ext, uint32_t max_objs, int serial, uint32_t k)
{
	if (!k)
		return ext;
	return (struct rr_area *)((char *)ext + rr_rec_first(max_objs, serial) + rr_tree_bytes() +
				  (uint64_t)(k - 1) * rr_rec_child(max_objs, serial));
}

void rr_tree_record_info(const void *ext, uint32_t max_objs, int serial, uint32_t n,
			 struct rr_info *info)
{
	const struct rr_tree *t =
	    (const struct rr_tree *)((const char *)ext + rr_rec_first(max_objs, serial));

	info->nprocs = n;
	for (uint32_t k = 0; k < n && k < RR_MAX_PROCS; k++) {
		const struct rr_proc_ent *e = &t->ent[k];
		struct rr_info_proc *p = &info->procs[k];

		p->pid = __atomic_load_n(&e->pid, __ATOMIC_RELAXED);
		p->ppid = __atomic_load_n(&e->ppid, __ATOMIC_RELAXED);
		p->parent = __atomic_load_n(&e->parent, __ATOMIC_RELAXED);
		p->prev = __atomic_load_n(&e->prev, __ATOMIC_RELAXED);
		p->kind = __atomic_load_n(&e->kind, __ATOMIC_RELAXED);
		p->end_sig = __atomic_load_n(&e->end_sig, __ATOMIC_RELAXED);
		if (p->end_sig >= 65)
			p->end_sig = 0;
		p->ns_pid = __atomic_load_n(&e->ns_pid, __ATOMIC_RELAXED);
		if (p->ns_pid < 0)
			p->ns_pid = 0;
		memcpy(p->exe, e->exe, sizeof(p->exe));
		p->exe[sizeof(p->exe) - 1] = 0;
		for (char *c = p->exe; *c; c++) /* one line of the side file */
			if (*c == '\n')
				*c = '?';
		/* bounded: the program can write the tree */
		if (p->parent >= n)
			p->parent = RR_NO_PROC;
		if (p->prev >= n)
			p->prev = RR_NO_PROC;
		if (p->kind > RR_PK_PSPAWN)
			p->kind = RR_PK_SPAWN;
	}
}

/* ---- replay ---- */

static uint64_t rr_rep_first(struct rr_log *const *logs)
{
	return rr_page(rr_log_area_size(logs[0]));
}

uint64_t rr_tree_replay_size(struct rr_log *const *logs, uint32_t n)
{
	uint64_t size = rr_rep_first(logs) + rr_tree_bytes();

	for (uint32_t k = 1; k < n; k++)
		size += rr_page(rr_log_area_size(logs[k]));
	return size;
}

int rr_tree_replay_fill(void *ext, struct rr_log *const *logs, uint32_t n,
			const struct rr_info *info, uint32_t only, uint32_t stuck_ms, uint32_t opts)
{
	uint64_t off = rr_rep_first(logs);
	struct rr_tree *t = (struct rr_tree *)((char *)ext + off);
	struct rr_area *a;

	if (n > RR_MAX_PROCS || n > info->nprocs)
		return -EINVAL;
	if (rr_log_fill(logs[0], ext, stuck_ms, opts) < 0)
		return -ENOMEM;
	a = ext;
	a->tree_off = off;
	a->proc = 0;
	memset(t, 0, sizeof(*t));
	t->nprocs = n;
	t->max = n;
	t->only = only;
	t->ent[0].area_size = off;
	off += rr_tree_bytes();
	for (uint32_t k = 0; k < n; k++) {
		struct rr_proc_ent *e = &t->ent[k];
		const struct rr_info_proc *p = &info->procs[k];

		e->pid = p->pid;
		e->ppid = p->ppid;
		e->parent = p->parent;
		e->prev = p->prev;
		e->kind = p->kind;
		e->end_sig = p->end_sig;
		e->ns_pid = p->ns_pid;
		e->state = RR_PS_FREE;
		if (!k)
			continue;
		a = (struct rr_area *)((char *)ext + off);
		if (rr_log_fill(logs[k], a, stuck_ms, opts) < 0)
			return -ENOMEM;
		a->proc = k;
		e->area_off = off;
		e->area_size = rr_page(rr_log_area_size(logs[k]));
		off += e->area_size;
	}
	return 0;
}

struct rr_tree *rr_tree_replay_tree(void *ext, struct rr_log *const *logs)
{
	return (struct rr_tree *)((char *)ext + rr_rep_first(logs));
}

struct rr_area *rr_tree_replay_area(void *ext, struct rr_log *const *logs, uint32_t k)
{
	uint64_t off = rr_rep_first(logs);

	if (!k)
		return ext;
	off += rr_tree_bytes();
	for (uint32_t j = 1; j < k; j++)
		off += rr_page(rr_log_area_size(logs[j]));
	return (struct rr_area *)((char *)ext + off);
}

const char *rr_tree_kind_name(uint32_t kind)
{
	switch (kind) {
	case RR_PK_ROOT: return "first";
	case RR_PK_FORK: return "fork";
	case RR_PK_EXEC: return "exec";
	case RR_PK_SPAWN: return "spawn";
	case RR_PK_PSPAWN: return "spawn";
	}
	return "?";
}
