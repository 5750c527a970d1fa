// SPDX-License-Identifier: MIT
/*
 * rr_snap_fmt.h - the snapshot file of a recording (doc/trace-format.md,
 * "Snapshots"): TRACE/.spool/snap/snap_<N>.zst, written by the copy a snapshot
 * makes (src/agent/agent_snap_img.c) and read by spool info. No libc beyond
 * <stdint.h>: the agent includes it.
 *
 *   [ struct rr_snap_hdr                ] uncompressed, 128 bytes
 *   [ one zstd frame (with checksum)    ] the body: records, each
 *       struct rr_snap_rec + len bytes, in this order: THREAD per
 *       thread (each followed by AGENT ALTSTACK when it has one), SIGACT,
 *       AGENT BARRIER per emulated barrier, TIMER per POSIX timer, FD per
 *       descriptor (an epoll one's followed by EPOLL per entry of its
 *       interest list), REGION per mapping (in a delta, followed by DELTA
 *       when it has contents), END.
 *
 * A file is complete once it has its name: the copy writes snap_<N>.tmp and
 * renames it. Everything in it is untrusted input to a reader.
 */
#ifndef SPOOL_REPLAY_RR_SNAP_FMT_H
#define SPOOL_REPLAY_RR_SNAP_FMT_H
#include <stdint.h>

#define RR_SNAP_MAGIC "SPSNAP01"
/* 2: rr_snap_thread.park; 3: deltas (RR_SNAP_F_DELTA); 4: SPARSE records, count;
 * 5: TIMER records; 6: threads out in a blocking call (RR_PARK_OUT) */
#define RR_SNAP_VERSION 6
#define RR_SNAP_VERSION_MIN 3 /* the oldest a reader takes (3: the same but for those) */

/* rr_snap_hdr.flags */
#define RR_SNAP_F_SHARED 0x1u /* a writable MAP_SHARED mapping (not spool's): not restorable */
#define RR_SNAP_F_DELTA 0x2u  /* incremental: pages unchanged since snapshot `base` left out */

struct rr_snap_hdr {
	char magic[8];
	uint32_t version;
	uint32_t flags;	    /* RR_SNAP_F_* */
	uint64_t index;	    /* the snapshot's number, from 1 */
	uint64_t turn;	    /* turn of the run token (the schedule event) it was taken at */
	uint64_t switches;  /* switches of the token so far */
	uint64_t time_ns;   /* since the agent started (CLOCK_MONOTONIC) */
	uint64_t count;	    /* the taker's progress count (switch points) at the take: with
			     * turn, the snapshot's position (several at one turn: a thread
			     * that held the token alone for long) */
	uint64_t raw_bytes; /* the body's bytes before compression */
	uint32_t nthreads;  /* THREAD records */
	uint32_t nregions;  /* REGION records */
	uint32_t taker;	    /* thread number that took it */
	uint32_t base;	    /* RR_SNAP_F_DELTA: the snapshot it is a delta of (0: whole) */
	uint64_t exe_dev, exe_ino, exe_size, exe_mtime; /* /proc/self/exe: the build */
	uint8_t build_id[8];	   /* the executable's GNU build id, its first 8 bytes (0: none) */
	uint8_t agent_build_id[8]; /* libspool-agent.so's: the snapshot's contexts are its code */
};
_Static_assert(sizeof(struct rr_snap_hdr) == 128, "snapshot header is 128 bytes");

enum {
	RR_SNAP_THREAD = 1, /* struct rr_snap_thread, then ctx_bytes of its ucontext_t */
	RR_SNAP_SIGACT = 2, /* 64 x struct rr_snap_sigact (signals 1..64) */
	RR_SNAP_FD = 3,	    /* struct rr_snap_fd, then the /proc/self/fd link's text */
	RR_SNAP_REGION = 4, /* struct rr_snap_region, path_len bytes, then the data */
	RR_SNAP_END = 5,
	RR_SNAP_EPOLL = 6,  /* after an epoll descriptor's FD: one entry of its interest list */
	RR_SNAP_DELTA = 7,  /* after a REGION without data, in a delta: its changed pages */
	RR_SNAP_AGENT = 8,  /* the agent's own state a restore puts back: struct rr_snap_agent */
	RR_SNAP_SPARSE = 9, /* after a REGION without data: its pages that are not all zeros */
	RR_SNAP_TIMER = 10, /* struct rr_snap_timer: one POSIX timer (timer_create) */
	/* len bytes of nothing, only in the body spool composes for the agent
	 * (never in a file): the data of the REGION after it starts on a page
	 * boundary of that body (rr_snap_compose.c, agent_snap_restore.c) */
	RR_SNAP_PAD = 11,
};

/* RR_SNAP_TIMER: a POSIX timer of the process at the take, as
 * /proc/self/timers lists it (its id, clock, sigevent) with its setting
 * (timer_gettime). A fork copy inherits no timer, so the taker reads them
 * before the clone (agent_snap_timer.c). A restore makes each again with
 * the same id (the program holds the id in its memory: Ruby's timer_delete
 * at exit failed without it) and arms it with what was left of it. */
struct rr_snap_timer {
	int32_t id;	 /* the kernel's timer id */
	int32_t clock;	 /* timer_create's clock (a thread's CPU clock names its tid) */
	int32_t notify;	 /* sigev_notify (SIGEV_THREAD_ID: with tid) */
	int32_t signo;	 /* sigev_signo */
	uint64_t value;	 /* sigev_value */
	int32_t tid;	 /* SIGEV_THREAD_ID: the thread it signals, its recorded tid */
	uint32_t armed;	 /* 1: value_ns is not 0 */
	int64_t value_ns;    /* time left until it expires, at the take (0: disarmed) */
	int64_t interval_ns; /* its period (0: once) */
};

/* RR_SNAP_AGENT: state of the agent that a restore cannot take from the
 * fresh replay's agent (its globals are the replay's, not the snapshot's):
 * struct rr_snap_agent, then by `what`:
 * - ALTSTACK (after a THREAD record, id its number): struct
 *   rr_snap_altstack, the thread's alternate signal stack, enabled (flags:
 *   SS_ONSTACK never; SS_AUTODISARM kept). A restore sets it in the thread.
 * - BARRIER (id 0): struct rr_snap_barrier, one of serial mode's emulated
 *   barriers (agent_serial.c): the waiters restored in it wait for the rest
 *   of its count. */
enum { RR_SNAP_AGENT_ALTSTACK = 1, RR_SNAP_AGENT_BARRIER = 2 };

struct rr_snap_agent {
	uint32_t what; /* RR_SNAP_AGENT_* */
	uint32_t id;
};

struct rr_snap_altstack {
	uint32_t flags;
	uint32_t pad;
	uint64_t sp, size;
};

struct rr_snap_barrier {
	uint64_t addr; /* the program's pthread_barrier_t */
	uint32_t count, arrived;
	uint64_t gen;
};

struct rr_snap_rec {
	uint32_t kind;
	uint32_t pad;
	uint64_t len; /* bytes after this header */
};

struct rr_snap_thread {
	uint32_t id; /* thread number */
	int32_t tid; /* its kernel tid when recorded */
	uint64_t fs; /* FS base */
	uint64_t robust, robust_len;
	uint64_t tidp;	/* its tid word in its struct pthread */
	uint32_t taker; /* 1: the thread that took the snapshot (its context is at the take) */
	uint32_t ctx_bytes;
	uint32_t park; /* RR_PARK_*: where its context was saved */
	uint32_t pad;
};

/* rr_snap_thread.park: which wait of the serial scheduler saved the
 * thread's context. A restore (src/agent/agent_snap_restore.c) ends each
 * wait as the replay's agent ends its own there; a thread taking the token
 * back after a blocking call then records that call's result in the
 * recording's frames, which a replay turns into taking the record off its
 * log (agent_rr.c, rr_rec_in_replay). */
enum {
	RR_PARK_NONE = 0,
	RR_PARK_SLOW = 1,  /* a switch point: it gave the token to another thread */
	RR_PARK_GO = 2,	   /* a new thread's first wait for the token */
	RR_PARK_BLOCK = 3, /* taking the token back after a blocking call */
	RR_PARK_NAP = 4,   /* taking it back after a nap with nobody waiting */
	RR_PARK_JOIN = 5,  /* the wait pthread_join starts with (agent_snap_join_wait) */
	RR_PARK_TAKER = 6, /* the holder, at the take */
	RR_PARK_OUT = 7,   /* out in a blocking call: saved in the call's frame after it
			    * gave the token up; a restore takes the result from the log */
};

struct rr_snap_sigact {
	uint64_t handler, flags, restorer, mask; /* the kernel's struct sigaction */
};

struct rr_snap_fd {
	int32_t fd;
	int32_t flags;	/* fcntl F_GETFL */
	int64_t offset; /* lseek SEEK_CUR, -1 when it has none (pipe, socket) */
};

/* RR_SNAP_EPOLL: descriptor tfd is in epoll descriptor epfd's interest list
 * (/proc/self/fdinfo/EPFD), with these events and data. A restore makes an
 * epoll instance and puts the entries back (a program's epoll_ctl on a
 * stand-in failed: libuv aborts). */
struct rr_snap_epoll {
	int32_t epfd;
	int32_t tfd;
	uint32_t events;
	uint32_t pad;
	uint64_t data;
};

struct rr_snap_region {
	uint64_t start, end, offset;
	uint32_t prot;	   /* PROT_* */
	uint32_t shared;   /* MAP_SHARED */
	uint32_t path_len; /* bytes of its /proc/self/maps name (0: anonymous) */
	uint32_t has_data; /* end - start bytes of contents follow */
};

/* RR_SNAP_DELTA (in a snapshot with RR_SNAP_F_DELTA), right after the
 * REGION record (has_data 0) of a mapping whose contents a whole snapshot
 * would hold: npages = (end - start) / RR_SNAP_PAGE, then a bitmap of
 * (npages + 63) / 64 u64 words (bit i of word i / 64: page i changed), then
 * RR_SNAP_PAGE bytes for each changed page, in order. A page whose bit is
 * clear holds what the same address held in snapshot `base` (composed the
 * same way if that is a delta too): spool replay --goto composes the whole
 * image (rr_snap_pick.c); nothing else reads a delta.
 *
 * RR_SNAP_SPARSE has the same layout (struct rr_snap_delta, the bitmap, the
 * pages whose bit is set), in any snapshot, whole or delta, after a REGION
 * without data of a mapping that no page of the snapshot before held (all
 * of a whole snapshot's): bit i set, page i follows; clear, page i is all
 * zeros. Most of a snapshot is zeros (every thread's stack mapping, 8 MiB
 * each, a few KiB of it used): they are neither compressed nor unpacked. */
#define RR_SNAP_PAGE 4096u
#define RR_SNAP_CHAIN_MAX 16 /* deltas in a row at most: then a whole one */

struct rr_snap_delta {
	uint64_t start;
	uint64_t npages;
};

#endif
