// SPDX-License-Identifier: MIT
/*
 * shm.h - layout of the shared-memory region between spool and the agent.
 *
 * spool creates a memfd, sizes it, maps it, fills the control block and
 * passes the descriptor number to the target in SPOOL_SHM_FD (the descriptor
 * is inherited without O_CLOEXEC so an exec'd image finds it too). The agent
 * maps the same memfd MAP_SHARED. Layout, all offsets from the start:
 *
 *   [ struct shm_ctl                    ] 4096 bytes
 *   [ struct shm_proc x SHM_MAX_PROCS   ] process info slots
 *   [ ring 0: struct shm_ring + data    ] SHM_RING_HDR + ring_bytes
 *   [ ring 1 ...                        ]
 *
 * Rings are single-producer (one thread of the target) single-consumer (the
 * collector). The producer owns head, the consumer owns tail; both are byte
 * counters that only grow, and data lives at (counter & (ring_bytes - 1)).
 * A record never straddles the end of the data area: when one would, the
 * producer writes a KIND_PAD record up to the end and starts at offset 0.
 * The producer publishes a record by storing head with release order after
 * writing it; the consumer reads head with acquire order, copies, then
 * stores tail with release order.
 *
 * Everything here is fixed-size and position-independent so both sides can
 * compute addresses from the offsets alone.
 */
#ifndef SPOOL_COMMON_SHM_H
#define SPOOL_COMMON_SHM_H

#include <stdint.h>

#define SHM_MAGIC 0x31304c4f4f5053ULL /* "SPOOL01" */
#define SHM_VERSION 1
#define SHM_CTL_SIZE 4096
#define SHM_MAX_PROCS 64
#define SHM_PROC_MAPS 65536 /* bytes of /proc/PID/maps kept per process */
#define SHM_PROC_CMDLINE 4096
#define SHM_RING_HDR 256
#define SHM_DEFAULT_RING_BYTES (8u << 20) /* per thread; bursts of 200k events */
#define SHM_DEFAULT_MAX_RINGS 256
#define SHM_ENV_FD "SPOOL_SHM_FD"
/* Where the region can be opened again when the program has closed that
 * descriptor before an exec (a daemon closing every descriptor > 2):
 * /proc/<spool>/fd/<n>, the pid padded with extra slashes after "/proc" so
 * that the variable's length does not depend on spool's pid (a recording
 * and its replay then give the program the same environment size). */
#define SHM_ENV_PATH "SPOOL_SHM_PATH"
#define SHM_ENV_PATH_PID_WIDTH 10

/* Feature areas (ctl->ext_offset[i]) and feature bits (ctl->features). */
#define SHM_MAX_EXT 8
enum { SHM_EXT_REPLAY = 0, SHM_EXT_PROBES = 1, SHM_EXT_PATH = 2, SHM_EXT_SYS = 3 };
#define SHM_FEAT_LOCKS 0x1u	/* lock events (spool locks); the default */
#define SHM_FEAT_RECORD 0x2u	/* record/replay: recording */
#define SHM_FEAT_REPLAY 0x4u	/* record/replay: replaying */
#define SHM_FEAT_PROBES 0x8u	/* dynamic probes */
#define SHM_FEAT_PATH 0x10u	/* thread path: function entries */
#define SHM_FEAT_SYS 0x20u	/* system probes: CPU, I/O counters (src/common/sys_area.h) */

/* ctl->flags: options spool sets for the agent. */
#define SHM_F_DROP_WHEN_FULL 0x1u /* a full ring drops at once (--on-full drop) */

/* ctl->state bits */
#define SHM_STATE_DISABLED 1u /* agent stopped recording (reason in ctl->reason) */

/* ring->state */
enum { RING_FREE = 0, RING_ACTIVE = 1, RING_EXITED = 2 };

struct shm_ctl {
	uint64_t magic;
	uint32_t version;
	uint32_t ctl_size;
	uint64_t total_size;   /* bytes of the mapping */
	uint64_t procs_offset; /* first struct shm_proc */
	uint64_t rings_offset; /* first struct shm_ring */
	uint32_t ring_bytes;   /* data bytes per ring, a power of two */
	uint32_t max_rings;
	uint32_t watermark;   /* bytes filled at which a producer wakes the collector */
	uint32_t stack_depth; /* --stacks N: frames recorded after the call site, 0 = off */
	uint32_t flags;	      /* SHM_F_* options set by spool */
	uint32_t host_pid;    /* the spool process */

	/* Allocators, advanced by the agent with atomic fetch-add. */
	uint32_t nrings; /* thread index allocator: ring slots handed out */
	uint32_t nprocs; /* process slot allocator */
	uint32_t nlocks; /* lock index allocator (index 0 is never used) */
	uint32_t state;	 /* SHM_STATE_* */

	/* The collector sleeps on this futex word; a producer whose ring crosses
	 * the watermark increments it and calls FUTEX_WAKE once, so the wake-up
	 * costs a system call per watermark, never per event. */
	uint32_t wake_seq;
	uint32_t collector_sleeping; /* set by the collector before it waits */

	uint64_t lost_no_ring; /* events dropped: no free ring for the thread */
	uint64_t lost_no_proc; /* processes whose info could not be kept */
	char reason[256];      /* why the agent disabled itself, NUL-terminated */

	/* Features beyond lock events (record/replay, probes, thread path):
	 * what the agent should do, and where each feature's own area lies in
	 * the mapping (after the rings). A feature owns the layout of its area;
	 * its header lives with the feature's code. */
	uint32_t features; /* SHM_FEAT_* */
	uint32_t pad_features;
	uint64_t ext_offset[SHM_MAX_EXT]; /* 0 = the feature has no area */
	uint64_t ext_size[SHM_MAX_EXT];
};

/* Process information, filled by the agent at startup from /proc/self (and
 * refreshed after dlopen): what an offline symbolizer needs. */
struct shm_proc {
	uint32_t pid;
	uint32_t ppid;
	uint32_t flags;	      /* PROC_F_* of event.h */
	uint32_t maps_gen;    /* bumped each time maps is rewritten */
	uint32_t maps_len;    /* bytes valid in maps (truncated at SHM_PROC_MAPS) */
	uint32_t cmdline_len; /* bytes valid in cmdline, NUL-separated args */
	uint32_t exe_len;
	uint32_t pad;
	char exe[4096];
	char cmdline[SHM_PROC_CMDLINE];
	char maps[SHM_PROC_MAPS];
};

struct shm_ring {
	/* producer cache line */
	uint64_t head; /* bytes published */
	uint64_t lost; /* events dropped because the ring was full */
	uint32_t state;
	uint32_t tid;
	uint32_t pid;
	uint32_t thread_index; /* == ring number */
	uint32_t last_seq;     /* seq of the last event attempted */
	uint32_t woke;	       /* head/watermark at the last wake, to wake once */
	uint8_t pad0[64 - 40];
	/* consumer cache line */
	uint64_t tail;
	uint8_t pad1[SHM_RING_HDR - 72];
	/* data follows */
};

_Static_assert(sizeof(struct shm_ctl) <= SHM_CTL_SIZE, "ctl too big");
_Static_assert(sizeof(struct shm_ring) == SHM_RING_HDR, "ring header size");

static inline uint64_t shm_total_size(uint32_t ring_bytes, uint32_t max_rings)
{
	return SHM_CTL_SIZE + (uint64_t)SHM_MAX_PROCS * sizeof(struct shm_proc) +
	       (uint64_t)max_rings * (SHM_RING_HDR + ring_bytes);
}
static inline struct shm_proc *shm_proc_at(void *base, uint32_t i)
{
	struct shm_ctl *c = (struct shm_ctl *)base;
	return (struct shm_proc *)((char *)base + c->procs_offset) + i;
}
static inline struct shm_ring *shm_ring_at(void *base, uint32_t i)
{
	struct shm_ctl *c = (struct shm_ctl *)base;
	return (struct shm_ring *)((char *)base + c->rings_offset +
				   (uint64_t)i * (SHM_RING_HDR + c->ring_bytes));
}
static inline unsigned char *shm_ring_data(struct shm_ring *r)
{
	return (unsigned char *)r + SHM_RING_HDR;
}

#endif
