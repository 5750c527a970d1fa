// SPDX-License-Identifier: MIT
/*
 * rr_area.h - layout of the record/replay feature area (SHM_EXT_REPLAY) of
 * the shared memory, shared by the agent (src/agent/agent_rr*.c) and the
 * host (src/replay/). No libc beyond <stdint.h>: the agent includes it.
 *
 *   [ struct rr_area                       ] RR_AREA_HDR bytes
 *   [ uint32_t turn[max_objs]              ] per-object turn word
 *   [ uint32_t waiters[max_objs]           ] reserved (unused)
 *   [ uint32_t objmap[max_objs]            ] replay: replay lock index -> recorded object + 1
 *   [ struct rr_thread_slot[max_threads]   ] replay: each thread's log and position
 *   [ uint32_t obj_first[max_objs + 1]     ] replay: index of each object's first turn in order[]
 *   [ struct rr_order order[norder]        ] replay: who holds each turn (diagnostics)
 *   [ log: the recorded records            ] replay: struct rec_sched / rec_input, per thread
 *
 * Recording uses only the header and turn[]: turn[obj] is the next turn of
 * object obj, taken with an atomic fetch-add by the thread that acquires
 * it. Object 0 is the pseudo-object of thread creation (its turns number
 * the threads). Replay: turn[obj] is the turn being waited for; the thread
 * whose entry says (obj, turn) proceeds when turn[obj] == turn and stores
 * turn + 1 when it is done; a thread that has to sleep for its turn
 * announces (wait_obj, wait_turn) in its slot and sleeps on its own wake
 * word, and the thread that passes the turn wakes exactly the next holder
 * (found in order[]), so a handoff costs one wake and a run of turns by
 * one thread costs none.
 */
#ifndef SPOOL_REPLAY_RR_AREA_H
#define SPOOL_REPLAY_RR_AREA_H

#include <stdint.h>

#define RR_MAGIC 0x3130525245535053ULL /* "SPSERR01" */
#define RR_VERSION 1
#define RR_AREA_HDR 8192
#define RR_NO_TURN 0xffffffffu	     /* an event ordered by its call, not by a turn */
#define RR_REPORT_BYTES 4096
#define RR_CHUNK_MAX (32u * 1024)    /* data bytes per KIND_INPUT record */

enum { RR_MODE_OFF = 0, RR_MODE_RECORD = 1, RR_MODE_REPLAY = 2 };

/* rr_area.flags, set by the agent (atomic or) */
#define RR_F_FORKED 0x1u     /* the program forked: the child was not recorded */
#define RR_F_EXEC 0x2u	     /* a new image (exec) was not recorded */
#define RR_F_LOST 0x4u	     /* an event could not be recorded (see report) */
#define RR_F_UNTRACKED 0x8u  /* a thread without a thread number made a sync call */
#define RR_F_STOP 0x10u	     /* replay: divergence or stuck; report[] says why; host kills */
#define RR_F_END 0x20u	     /* replay: a thread reached the end of a truncated recording */

/* rr_area.opts, set by the host */
#define RR_O_TRUNCATED 0x1u /* replay: the recording ended early (killed): end = stop */

/* Input calls (struct rec_input.call). Part of the trace format. */
enum {
	RR_CALL_READ = 1,
	RR_CALL_PREAD = 2,
	RR_CALL_READV = 3,
	RR_CALL_PREADV = 4,
	RR_CALL_RECV = 5,
	RR_CALL_RECVFROM = 6,
	RR_CALL_RECVMSG = 7,
	RR_CALL_ACCEPT = 8,
	RR_CALL_POLL = 9,
	RR_CALL_SELECT = 10,
	RR_CALL_EPOLL_WAIT = 11,
	RR_CALL_CLOCK_GETTIME = 12,
	RR_CALL_GETTIMEOFDAY = 13,
	RR_CALL_TIME = 14,
	RR_CALL_GETRANDOM = 15,
	RR_CALL_GETPID = 16,
	RR_CALL_GETTID = 17,
	RR_CALL_MAX
};

struct rr_thread_slot {
	uint64_t log_off;  /* offset of its first record from the area start */
	uint64_t log_end;  /* offset just past its last record */
	uint32_t nevents;  /* recorded events (tseq of the last) */
	uint32_t done;	   /* events replayed so far (agent) */
	uint32_t wait_obj; /* object it waits on, RR_NO_TURN if none (agent) */
	uint32_t wait_turn;
	uint32_t started;  /* 1 once the thread exists in the replay, 2 once it ended (agent) */
	uint32_t wake;	   /* futex word the thread sleeps on while it waits for a turn */
};

struct rr_order {
	uint32_t thread; /* thread number holding the turn */
	uint32_t tseq;	 /* that thread's event number */
};

struct rr_area {
	uint64_t magic;
	uint32_t version;
	uint32_t mode;	      /* RR_MODE_* */
	uint32_t flags;	      /* RR_F_*, agent */
	uint32_t opts;	      /* RR_O_*, host */
	uint32_t max_objs;    /* entries of turn[], waiters[], objmap[] */
	uint32_t max_threads; /* entries of threads[] */
	uint32_t nthreads;    /* thread numbers handed out (agent) */
	uint32_t report_set;  /* report[] claimed (agent, atomic) */
	uint32_t stuck_ms;    /* replay: a turn wait this long is reported */
	uint32_t pad;
	uint64_t turn_off, waiters_off, objmap_off, threads_off, first_off, order_off;
	uint64_t log_off, log_size;
	uint64_t lost; /* events not recorded */
	char report[RR_REPORT_BYTES]; /* why the replay stopped, or what was lost */
};

_Static_assert(sizeof(struct rr_area) <= RR_AREA_HDR, "rr area header too big");

#endif
