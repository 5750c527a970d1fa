// SPDX-License-Identifier: MIT
/*
 * collector.h - drains the agent's rings into a trace while the target runs:
 * the software "bus snooper" of the lock-monitor design. It runs in the
 * spool process, never in the target.
 */
#ifndef SPOOL_COLLECT_COLLECTOR_H
#define SPOOL_COLLECT_COLLECTOR_H

#include <stdint.h>

#include "../trace/trace.h"
#include "shm_host.h"

struct collector_stats {
	uint64_t events;	/* records written to the trace (after collector_finish:
				 * on the disk; before, some may not get there) */
	uint64_t lock_events;	/* of which KIND_LOCK */
	uint64_t thread_events; /* of those, a thread's life, not a lock's
				 * (ev_op_is_thread): the summary line counts
				 * lock_events - thread_events lock events */
	uint64_t sched_events;	/* of which KIND_SCHED (record/replay's schedule) */
	uint64_t zsaved;	/* bytes collector_compress saved */
	uint64_t lost_ring;	/* dropped by producers: ring full (sum of ring->lost),
				 * plus lost_damaged */
	uint64_t lost_damaged;	/* lost in rings the program damaged (at least one each) */
	uint64_t lost_no_ring;	/* dropped: the thread found no free ring */
	uint64_t lost_fork;	/* dropped: a fork child's before it had a ring */
	uint64_t lost_clone;	/* dropped: threads of the program's own clone */
	uint64_t lost_pidns;	/* dropped: processes in a pid namespace with its own /proc */
	uint32_t raw_clones;	/* threads the program made with its own clone */
	uint32_t unseen_clones; /* ... of which spool did not see being made */
	uint64_t seq_gaps;	/* events missing according to sequence numbers */
	uint64_t corrupt_rings; /* rings the program damaged: skipped from then on */
	uint64_t rejected;	/* records the writer refused (malformed): lost */
	uint64_t lost_write;	/* events that did not reach the disk (writer) */
	uint64_t unwritten;	/* of which: records of rings whose stream could not be made */
	uint64_t lost_files;	/* side files that could not be written */
	uint32_t cut_procs;	/* processes whose command line or maps were cut */
	int ctl_damaged;	/* the program overwrote the control block */
	uint32_t foreign_pids;	/* slots where the program wrote a pid not its own */
	uint32_t threads;
	uint32_t procs;
	uint32_t procs_ended;	/* process slots freed for reuse (the process ended) */
	uint64_t lost_no_proc;	/* processes that found no process slot */
	uint64_t no_proc_seen;	/* of which: seen by their KIND_PROC record */
	uint64_t still_running; /* processes left running when the trace ended
				 * (collector_still_running) */
};

struct collector;

int collector_new(struct collector **out, struct shm_host *h, struct trace_writer *w);
/* One pass over every ring: copy what is published into the trace. */
int collector_drain(struct collector *c);
/* Pack the large chunks of input data written from now on with zstd at
 * level (spool record --compress; src/trace/zinput.c). 0 or -ENOMEM. */
int collector_compress(struct collector *c, int level);
/* Close the current packet of every stream (called about once a second, so
 * that a crash of spool itself loses at most that much). */
int collector_flush(struct collector *c);
/* Write process side files for processes whose maps changed. */
int collector_sync_procs(struct collector *c);
/* Keep the maps of the processes whose maps changed (a dlopen), merged
 * with those kept before, so that a library unloaded before the process
 * ends is still named in its trace (maps_keep.h); every loop turn. */
void collector_keep_maps(struct collector *c);
/* The traced processes alive now (a process slot whose process has not
 * exited): their count, and up to max of their pids in pids (may be NULL). */
uint32_t collector_live_procs(struct collector *c, uint32_t *pids, uint32_t max);
/* The trace ends while n processes it traced (or their children) still run:
 * a loss (trace_loss.still_running), kept in the state file from now on. */
void collector_still_running(struct collector *c, uint64_t n);
/* Last drain, process side files (maps, command lines, build ids), stats
 * (the losses as the trace's state file will have them: trace_writer_loss
 * gives the same after any later side file). */
/* The default (SPOOL_RING_PACKETS=0 in spool's environment turns it off):
 * the agent writes finished format-2 packets into its rings and the
 * collector copies them whole (SHM_F_PACKETS, doc/trace-format.md "Packets
 * in the ring"). Only for a format-2 trace and not for record/replay
 * (features); sets it in h and its control block before the program
 * starts. Returns 1 when it is on. */
int collector_use_packets(struct collector *c, uint32_t features);
int collector_finish(struct collector *c, struct collector_stats *st);
void collector_free(struct collector *c);

#endif
