// SPDX-License-Identifier: MIT
/*
 * gdbsrv_area.c - the replay's area (rr_area.h) as `spool replay
 * --gdbserver` sees it in the program it debugs: the token's turn at a
 * stop, the agent's stop as a turn begins, the agent's thread numbers.
 *
 * Going back from a recorded snapshot (gdbsrv_rev.c) needs the three: a
 * point of the history is placed in the schedule by the token's turn at its
 * stop (rr_area.tturn); a replay restored from a snapshot is run to the
 * start of a turn, where the agent stops itself when rr_area.goto_stop says
 * so (agent_serial.c, ser_take_turn), and so is a replay from the beginning
 * or from a checkpoint that has to stop at the same place; and the threads
 * of a restored replay are given the numbers they have in a replay from the
 * beginning (their creation order) from the agent's thread slots, where
 * each restored thread wrote its kernel id (rr_thread_slot.real_tid).
 *
 * The area is spool's shared memory (a memfd) mapped by the agent at a
 * fixed place of its window (agent_vm.c): found once in /proc/PID/maps by
 * its magic, then at the same address in every replay and in every
 * checkpoint's copy (which has it as private memory at the same address,
 * gdbsrv_fork.c). Read and written through /proc/PID/mem (f->memfd).
 * Nothing in it is trusted: a number out of range is "not known".
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gdbsrv_int.h"
#include "rr_area.h"

static int area_rd(struct gdbsrv_inf *f, uint64_t addr, void *buf, size_t len)
{
	return f->memfd >= 0 && pread(f->memfd, buf, len, (off_t)addr) == (ssize_t)len ? 0 : -EIO;
}

static int area_is(struct gdbsrv_inf *f, uint64_t addr)
{
	uint64_t magic = 0;
	uint32_t mode = 0;

	return addr && area_rd(f, addr, &magic, sizeof(magic)) == 0 && magic == RR_MAGIC &&
	       area_rd(f, addr + offsetof(struct rr_area, mode), &mode, sizeof(mode)) == 0 &&
	       mode == RR_MODE_REPLAY;
}

/* The area's address in the program, 0 when it is not mapped (yet). */
static uint64_t area_find(struct gdbsrv_inf *f)
{
	char path[64], line[512];
	FILE *m;

	if (f->area && area_is(f, f->area))
		return f->area;
	f->area = 0;
	if (!f->pid)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)f->pid);
	m = fopen(path, "re");
	if (!m)
		return 0;
	while (fgets(line, sizeof(line), m)) {
		unsigned long lo, hi;
		char perms[8];

		if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) != 3 || perms[3] != 's' ||
		    !strstr(line, "/memfd:") || hi - lo < sizeof(struct rr_area))
			continue;
		if (area_is(f, lo)) {
			f->area = lo; /* kept: the same in every replay */
			break;
		}
	}
	fclose(m);
	return f->area;
}

uint64_t gdbsrv_inf_turn(struct gdbsrv_inf *f)
{
	uint64_t a = area_find(f), turn;

	/* not mapped yet: the agent's constructor has not run, the schedule
	 * has not begun (0 is then "at or before turn 0") */
	if (!a && f->pid && !f->exited)
		return 0;
	if (!a || area_rd(f, a + offsetof(struct rr_area, tturn), &turn, sizeof(turn)) < 0)
		return UINT64_MAX;
	return turn;
}

int gdbsrv_inf_arm(struct gdbsrv_inf *f)
{
	uint64_t a, want = f->arm_turn ? f->arm_turn + 1 : 0, cur = 0;

	if (f->goto_wait || (!f->arm_turn && !f->area))
		return 0; /* the replay's own --goto (spool replay set it); nothing armed yet */
	a = area_find(f);
	if (!a)
		return f->arm_turn ? -ENOTSUP : 0;
	if (area_rd(f, a + offsetof(struct rr_area, goto_stop), &cur, sizeof(cur)) == 0 &&
	    cur == want)
		return 0;
	if (pwrite(f->memfd, &want, sizeof(want), (off_t)(a + offsetof(struct rr_area, goto_stop))) !=
	    (ssize_t)sizeof(want))
		return -EIO;
	return 0;
}

static int by_vidx(const void *a, const void *b)
{
	const struct gdbsrv_thread *x = a, *y = b;

	return (x->vidx > y->vidx) - (x->vidx < y->vidx);
}

int gdbsrv_inf_renumber(struct gdbsrv_inf *f)
{
	struct rr_thread_slot *sl = NULL;
	uint64_t a = area_find(f), off;
	uint32_t max, n;
	int rc = -EPROTO;

	if (!a || area_rd(f, a + offsetof(struct rr_area, max_threads), &max, sizeof(max)) < 0 ||
	    area_rd(f, a + offsetof(struct rr_area, nthreads), &n, sizeof(n)) < 0 ||
	    area_rd(f, a + offsetof(struct rr_area, threads_off), &off, sizeof(off)) < 0 ||
	    !max || max > (1u << 20) || n > max || off > (1ull << 40))
		return -EPROTO;
	sl = calloc(max, sizeof(*sl));
	if (!sl)
		return -ENOMEM;
	if (area_rd(f, a + off, sl, (size_t)max * sizeof(*sl)) < 0)
		goto out;
	/* every thread found first: a partial numbering would mix the two */
	for (int i = 0; i < f->nth; i++) {
		uint32_t k = 0;

		while (k < n && sl[k].real_tid != f->th[i].tid)
			k++;
		if (k == n) {
			if (getenv("SPOOL_GDBSRV_DEBUG"))
				for (uint32_t j = 0; j < n; j++)
					fprintf(stderr, "gdbsrv: slot %u real_tid %d (thread %d not found)\n",
						j, sl[j].real_tid, (int)f->th[i].tid);
			goto out;
		}
	}
	for (int i = 0; i < f->nth; i++)
		for (uint32_t k = 0; k < n; k++)
			if (sl[k].real_tid == f->th[i].tid)
				f->th[i].vidx = (int)k;
	qsort(f->th, (size_t)f->nth, sizeof(f->th[0]), by_vidx);
	f->next_vidx = (int)n;
	rc = 0;
out:
	free(sl);
	return rc;
}
