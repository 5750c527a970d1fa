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
 *
 * Serial mode (serial = 1) adds, after those arrays:
 *
 *   [ struct rr_serial_slot[max_threads]   ] each thread's run state and progress count
 *   [ struct rr_switch sw[nsw]             ] replay: the holder of each turn of the run token
 *
 * A replay from an image (img_size != 0, rr_img.c) has no obj_first,
 * order, log or sw arrays in the area: the serial slots follow the thread
 * slots, and those four arrays are read from the image file, which the
 * agent maps read-only; their offsets (and the slots' log offsets) are
 * then offsets into the image.
 *
 * One thread at a time holds the run token (owner); each hand-over starts
 * a new token turn (tturn). sched_lock (a spin word, held for a few
 * instructions, never across a wait) orders the decisions of the token
 * holder and of threads that come back from a blocking call. Thread
 * numbers and the per-thread logs of inputs, creations and joins are those
 * of sync mode; the lock calls take no per-object turn.
 */
#ifndef SPOOL_REPLAY_RR_AREA_H
#define SPOOL_REPLAY_RR_AREA_H

#include <stdint.h>

#define RR_MAGIC 0x3130525245535053ULL /* "SPSERR01" */
#define RR_VERSION 4
#define RR_AREA_HDR 8192
#define RR_NO_TURN 0xffffffffu	     /* an event ordered by its call, not by a turn */
#define RR_REPORT_BYTES 4096
/* Thread numbers a recording may hand out (threads created over the whole
 * run, main = 0): ring slots are reused after a thread ends, so this, not
 * the rings, bounds a program that creates 100,000 short threads. The
 * record area holds one struct rr_serial_slot per number in serial mode
 * (none in sync mode: they would cost the program 8 MiB of address space;
 * pages of the memfd that are never touched cost no memory). */
#define RR_MAX_THREADS (1u << 17)
#define RR_CHUNK_MAX (32u * 1024)    /* data bytes per KIND_INPUT record */

enum { RR_MODE_OFF = 0, RR_MODE_RECORD = 1, RR_MODE_REPLAY = 2 };
/* The agent's agent_rr_mode is RR_MODE_RECORD or RR_MODE_REPLAY, or'ed with
 * RR_MODE_SERIAL in serial mode (never in rr_area.mode). */
#define RR_MODE_SERIAL 4

/* rr_area.flags, set by the agent (atomic or) */
#define RR_F_FORKED 0x1u     /* the program forked: the child was not recorded */
#define RR_F_EXEC 0x2u	     /* a new image (exec) was not recorded */
#define RR_F_LOST 0x4u	     /* an event could not be recorded (see report) */
#define RR_F_UNTRACKED 0x8u  /* a thread without a thread number made a sync call */
#define RR_F_STOP 0x10u	     /* replay: divergence or stuck; report[] says why; host kills */
#define RR_F_END 0x20u	     /* replay: a thread reached the end of a truncated recording */

/* rr_area.opts, set by the host */
#define RR_O_TRUNCATED 0x1u /* replay: the recording ended early (killed): end = stop */
#define RR_O_LOCK_EVENTS 0x2u /* write KIND_LOCK events beside the schedule (--lock-events) */
/* replay --path (rr_pathsched.c): sw[] is a path schedule; rr_switch.count is
 * the function entries (with RR_O_PATH_EXITS: entries and exits) its holder
 * has made when it gives the token up, rr_switch.at the line of the path file
 * where the turn begins; see agent_serial.c */
#define RR_O_PATH 0x4u
/* The recording has its signal sends (RR_CALL_KILL): a replay returns
 * their results and sends nothing (agent_rr_signal.c). */
#define RR_O_KILLS 0x10u
/* Serial replay of a recording whose progress counts took function exits
 * too (made before spool counted entries only: no progress=entries in its
 * record file). */
#define RR_O_COUNT_EXITS 0x20u
#define RR_O_PATH_EXITS 0x8u
/* Replay: write the schedule, the token's switches and the input calls into
 * the replay's own trace too (--trace-schedule; --path and --record-path
 * need them to number the threads of the path). */
#define RR_O_TRACE_SCHED 0x40u
/* Replay: the log has RR_INPUT_ZREF records; the agent loads libzstd. */
#define RR_O_PACKED 0x80u
/* Replay: the recording ordered the descriptor table (RR_OP_FDTAB, sync
 * mode; `fdtab=1` in its record file): the replay orders it too. */
#define RR_O_FDTAB 0x100u

/* Replay under gdb (spool replay --gdb): the agent saves each parked
 * thread's context, so that `spool checkpoint` can copy the process at a
 * switch point (agent_snap.c). */
#define RR_O_CHECKPOINTS 0x200u
/* rr_area.cause: what a divergence found different (set with the report;
 * spool replay's advice depends on it). */
enum {
	RR_CAUSE_NONE = 0,   /* not said */
	RR_CAUSE_CALLS = 1,  /* another call, object or order of calls than recorded */
	RR_CAUSE_FD = 2,     /* the same call on another descriptor number */
	RR_CAUSE_RESULT = 3, /* the same call returned something else (a file that is gone) */
	RR_CAUSE_DATA = 4,   /* the recording's data is damaged or missing */
	RR_CAUSE_LIMIT = 5,  /* a limit of spool (threads it could not number, ...) */
};

/* Serial mode: struct rec_sched.op of a token switch (outside OP_*), and
 * where the releasing thread was (rec_sched.obj, rr_switch.why). */
#define RR_OP_SWITCH 32u
/* Sync mode: a pthread_once call (rec_sched.op; obj = the once control's
 * object, result 1 for the thread that ran the initializer, else 0). */
#define RR_OP_ONCE 33u
/* A signal delivered (rec_sched.op; obj = the signal number, turn =
 * RR_NO_TURN, arg = 0): the program's handler ran here (agent_rr_signal.c). */
#define RR_OP_SIGNAL 34u
/* Sync mode: a call that allocates or frees descriptors (rec_sched.op;
 * obj = the descriptor table's object, turn = its turn, result = what the
 * call returned, arg = RR_FD_ARG(call, errno, second descriptor)). The
 * process's descriptor table is one shared object: its turns order the
 * opens, closes, dups, pipes, ... of all threads, so a replay gets the
 * recorded numbers (agent_rr_fdtab_enter/leave, agent_rr.h). */
#define RR_OP_FDTAB 60u
/* rec_sched.arg of an RR_OP_FDTAB record: the call (RR_FD_*), the errno of
 * a failure, the second descriptor of pipe and socketpair (else 0). */
#define RR_FD_ARG(call, err, fd2)                                                                  \
	((uint64_t)(uint8_t)(call) | ((uint64_t)(uint16_t)(err) << 8) |                            \
	 ((uint64_t)(uint32_t)(fd2) << 32))
#define RR_FD_ARG_CALL(arg) ((unsigned)((arg) & 0xff))
#define RR_FD_ARG_ERR(arg) ((int)(((arg) >> 8) & 0xffff))
#define RR_FD_ARG_FD2(arg) ((int32_t)(uint32_t)((arg) >> 32))
/* The calls of RR_OP_FDTAB records. Part of the trace format. The kind
 * (rr_fd_frees) says when the turn is taken while recording: a call that
 * frees a number takes it before the kernel frees it, one that allocates
 * after the kernel allocated, so that a number freed and then allocated
 * again keeps that order in the turns. */
enum {
	RR_FD_OPEN = 1,	       /* open, openat, creat (and their 64 forms) */
	RR_FD_CLOSE = 2,       /* close */
	RR_FD_DUP = 3,	       /* dup, fcntl F_DUPFD / F_DUPFD_CLOEXEC */
	RR_FD_DUP2 = 4,	       /* dup2, dup3: the target number is replaced */
	RR_FD_PIPE = 5,	       /* pipe, pipe2: result = fd[0], fd2 = fd[1] */
	RR_FD_SOCKET = 6,      /* socket */
	RR_FD_SOCKETPAIR = 7,  /* socketpair: result = sv[0], fd2 = sv[1] */
	RR_FD_ACCEPT = 8,      /* accept, accept4 */
	RR_FD_EVENTFD = 9,     /* eventfd */
	RR_FD_EPOLL = 10,      /* epoll_create, epoll_create1 */
	RR_FD_SIGNALFD = 11,   /* signalfd with fd -1 (a new one) */
	RR_FD_TIMERFD = 12,    /* timerfd_create */
	RR_FD_MEMFD = 13,      /* memfd_create */
	RR_FD_FOPEN = 14,      /* fopen, fopen64, tmpfile: result = the FILE's descriptor */
	RR_FD_FCLOSE = 15,     /* fclose: result = its descriptor before */
	RR_FD_OPENDIR = 16,    /* opendir: result = the DIR's descriptor */
	RR_FD_CLOSEDIR = 17,   /* closedir */
	RR_FD_CLOSE_RANGE = 18, /* close_range, closefrom: result = the first number */
	RR_FD_MKSTEMP = 19,    /* mkstemp, mkostemp, mkstemps, mkostemps */
	RR_FD_OTHER = 20,      /* another call that makes a descriptor (inotify_init, ...) */
	RR_FD_MAX
};
static inline int rr_fd_frees(unsigned call)
{
	return call == RR_FD_CLOSE || call == RR_FD_DUP2 || call == RR_FD_FCLOSE ||
	       call == RR_FD_CLOSEDIR || call == RR_FD_CLOSE_RANGE;
}
enum {
	RR_AT_NONE = 0,
	RR_AT_POINT = 1,  /* a progress point (function entry/exit, coverage callback) */
	RR_AT_SYNC = 2,	  /* a lock, semaphore, condition or barrier call */
	RR_AT_INPUT = 3,  /* an input call (read, poll, clock_gettime, ...) */
	RR_AT_CREATE = 4, /* pthread_create */
	RR_AT_JOIN = 5,	  /* pthread_join */
	RR_AT_EXIT = 6,	  /* the thread ended */
	RR_AT_YIELD = 7,  /* sched_yield */
	RR_AT_MAX
};
#define RR_COUNT_END UINT64_MAX /* rr_switch.count of the last turn: never released */

/* rr_serial_slot.state */
enum {
	RR_S_NONE = 0, /* not started */
	RR_S_RUN = 1,  /* holds the token */
	RR_S_WAIT = 2, /* waits for the token */
	RR_S_OUT = 3,  /* in a blocking call, without the token */
	RR_S_DEAD = 4, /* ended */
};

struct rr_serial_slot {
	uint32_t state;	 /* RR_S_* */
	uint32_t wake;	 /* futex word the thread sleeps on while it waits for the token */
	uint64_t count;	 /* progress count, published at least every RR_PUBLISH points */
	uint32_t at;	 /* RR_AT_* of its last switch point */
	uint32_t hop;	 /* agent: once RR_S_DEAD, a number past a run of ended threads
			    (every number from this one to hop - 1 has ended) */
	uint32_t pad[10];
};
_Static_assert(sizeof(struct rr_serial_slot) == 64, "one cache line per thread");

struct rr_switch {
	uint32_t thread; /* holder of the turn */
	uint32_t at;	 /* RR_AT_* where it released the token */
	uint64_t count;	 /* its progress count when it released it; RR_COUNT_END */
};

/*
 * Replay: a KIND_INPUT record whose data stays in the trace (RR_INPUT_REF,
 * the op of its word): its data[] holds a struct rr_input_ref in place of
 * the data, its nwords still counts the data's words, and the agent reads
 * them from the stream file, which it maps (rr_area.stream_id[]). Loading
 * does it for the chunks of RR_REF_MIN_WORDS words and more (rr_log.c):
 * neither the shared area nor the replay image holds a second copy of what
 * the program read.
 */
#define RR_INPUT_REF 1u
#define RR_REF_MIN_WORDS 128 /* 1 KiB */
#define RR_STREAMS_MAX 64
struct rr_input_ref {
	uint32_t stream; /* the file TRACE/stream_<stream> */
	uint32_t pad;
	uint64_t off; /* file offset of the data's first byte */
};

/*
 * The same for a chunk that spool record --compress packed (INPUT_OP_ZSTD):
 * RR_INPUT_ZREF, and data[] holds a struct rr_input_zref. The agent unpacks
 * the zstd frame from the mapped stream file when the program reads the
 * chunk (libzstd, loaded when the area's opts have RR_O_PACKED). Loading
 * unpacks each frame once to check it (its checksum), so a damaged chunk
 * is reported before the program runs.
 */
#define RR_INPUT_ZREF 3u /* not INPUT_OP_ZSTD (2), which the loader never keeps */
#define RR_ZREF_MAX_RAW (1u << 20) /* bigger chunks are unpacked into the log */
struct rr_input_zref {
	uint32_t stream; /* the file TRACE/stream_<stream> */
	uint32_t packed; /* bytes of the frame */
	uint64_t off;	 /* file offset of the frame's first byte */
	uint32_t raw;	 /* bytes it unpacks to */
	uint32_t pad;
};

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
	RR_CALL_NANOSLEEP = 18,	      /* nanosleep, usleep, sleep: data = the remaining time */
	RR_CALL_CLOCK_NANOSLEEP = 19, /* fd = the clock; result = the error number */
	RR_CALL_WRITE = 20,	      /* write: the result only, no data */
	RR_CALL_WRITEV = 21,	      /* writev: the result only */
	RR_CALL_SIGWAIT = 22,	      /* pause, sigsuspend: the result only (-1, EINTR) */
	RR_CALL_SIGTIMEDWAIT = 23,    /* sigwait, sigwaitinfo, sigtimedwait: data = siginfo_t */
	RR_CALL_GETPEERNAME = 24,     /* data = the address, arg = its full length */
	RR_CALL_GETSOCKNAME = 25,     /* same */
	RR_CALL_KILL = 26,	      /* kill, sigqueue, tgkill, pthread_kill, pthread_sigqueue, raise:
					 fd = the signal, the result only */
	RR_CALL_STAT = 27,	      /* stat, lstat, fstatat (64): data = struct stat */
	RR_CALL_ACCESS = 28,	      /* access, faccessat: the result only */
	RR_CALL_MKDIR = 29,	      /* mkdir, mkdirat: the result only (made in a replay too) */
	RR_CALL_OPEN_EXCL = 30,	      /* open, openat with O_CREAT|O_EXCL: the result only */
	RR_CALL_MAX
};

struct rr_thread_slot {
	uint64_t log_off;  /* offset of its first record from the area start */
	uint64_t log_end;  /* offset just past its last record */
	uint32_t nevents;  /* recorded events (tseq of the last) */
	uint32_t done;	   /* events replayed so far (agent) */
	uint32_t wait_obj; /* object it waits on, RR_NO_TURN if none (agent) */
	uint32_t wait_turn;
	uint32_t started;  /* 1 once the thread exists in the replay, 2 once it ended, 3 parked
			      at the end of its log in a truncated replay (agent) */
	uint32_t wake;	   /* futex word the thread sleeps on while it waits for a turn */
	int32_t rec_tid;   /* replay: the thread id its gettid returned when recorded ... */
	int32_t real_tid;  /* ... and its id in this run (agent), for tgkill */
};

struct rr_order {
	uint32_t thread; /* thread number holding the turn */
	uint32_t tseq;	 /* that thread's event number */
};

/* rr_area.raw_state */
#define RR_RAW_UNKNOWN 0 /* the agent did not say (an older agent, or it never got there) */
#define RR_RAW_ON 1	 /* syscall user dispatch was enabled */
#define RR_RAW_FAILED 2	 /* the kernel refused it (raw_err) */
#define RR_RAW_SLOTS 24

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

	/* serial mode */
	uint32_t serial;     /* 1: serial mode (host) */
	uint32_t chaos;	     /* record: random switches (host) */
	uint64_t seed;	     /* record: chaos seed (host) */
	uint64_t serial_off; /* struct rr_serial_slot[max_threads] */
	uint64_t sw_off;     /* replay: struct rr_switch[nsw] */
	uint64_t nsw;
	uint32_t sched_lock; /* spin word, see above */
	uint32_t owner;	     /* thread number holding the token, RR_NO_TURN when free */
	uint64_t tturn;	     /* the token's current turn */
	uint32_t nwaiting;   /* record: threads in RR_S_WAIT */
	/* record: a release nobody has taken yet (the token is free) */
	uint32_t rel_thread, rel_at, rel_tseq, pad2;
	uint64_t rel_count;
	uint64_t switches;   /* record: switch records written */
	/* record: input calls the program made through syscall() (recorded
	 * like the named calls, agent_rr_syscall.c), and their first numbers */
	uint64_t direct;
	uint32_t direct_nr[8]; /* 0 = free slot (read is 0 on x86-64: stored + 1) */
	/* record: system calls the program made with its own syscall
	 * instruction, seen through syscall user dispatch
	 * (agent_rr_dispatch.c): raw_state says whether dispatch was on,
	 * raw_err why not; per number (stored + 1, 0 = free slot) a count;
	 * raw_other counts the calls whose number found no free slot. */
	uint32_t raw_state; /* RR_RAW_* (agent) */
	int32_t raw_err;    /* RR_RAW_FAILED: the errno of the prctl */
	uint64_t raw;	    /* all of them */
	uint64_t raw_other;
	uint32_t raw_nr[RR_RAW_SLOTS];
	/* Sync mode, recordings with RR_O_KILLS: the program's sends of each
	 * signal so far (agent_rr_sig_sent). A receipt (a handler's delivery, a
	 * sigwait's return) records the count it saw and its replay waits for
	 * that many sends: a signal is received after it is sent. */
	uint32_t sig_sends[65];
	uint64_t raw_count[RR_RAW_SLOTS];
	/* Replay from an image (rr_img.c): img_size != 0 says first_off,
	 * order_off, log_off, sw_off and the slots' log_off/log_end are
	 * offsets into the file img_path, which the agent maps read-only and
	 * checks (its header's size and key must be these). */
	uint64_t img_size;
	uint64_t img_key;
	char img_path[1024];
	/* Replay: the stream files the RR_INPUT_REF records read from, in the
	 * trace directory trace_dir (an absolute path). */
	uint32_t nstreams;
	uint32_t stream_id[RR_STREAMS_MAX];
	char trace_dir[1024];
	/* The image and the stream files as spool checked them (regular
	 * files reached without a link, trace/untrusted.h): the agent opens
	 * each by its name without following a link or blocking, and maps it
	 * only when it is this very file (device and inode): a name swapped
	 * after spool's check (a link to a secret, a FIFO) is refused. The
	 * streams are files of one directory, so of one file system. */
	uint64_t img_dev, img_ino;
	uint64_t stream_dev, stream_ino[RR_STREAMS_MAX];
	/* Replay, set with the report of a divergence (agent): RR_CAUSE_*, and
	 * how many other threads of the program were running then (not ended,
	 * not parked at their log's end) and how many threads it had created
	 * so far (main included): with one thread, no data race can explain
	 * the divergence. */
	uint32_t cause;
	uint32_t cause_running;
	uint32_t cause_threads;
	uint32_t pad3;
	/* Serial mode, snapshots (agent_snap.c, doc/record.md "Snapshots"):
	 * every snap_period switches of the run token (0: never) the token
	 * holder takes one when every other thread is parked in the agent;
	 * snap_mode (RR_SNAP_*, host) says what the copy does. The agent
	 * counts them and their pause (the time the program is stopped). */
	uint64_t snap_period;
	uint32_t snap_mode;
	uint32_t snap_max; /* snapshots to take at most (0: no limit) */
	uint64_t snap_taken;   /* agent */
	uint64_t snap_skipped; /* agent: due, but a thread was not parked (tried later) */
	uint64_t snap_ns;      /* agent: total pause, ns */
	uint64_t snap_ns_max;  /* agent: longest pause, ns */
	uint64_t snap_restore_ns; /* agent, RR_SNAP_RUN: the last copy's thread restore, ns */
	uint64_t snap_written;	  /* agent, RR_SNAP_IMAGE: images the copies wrote whole */
	uint64_t snap_failed;	  /* agent, RR_SNAP_IMAGE: copies that could not write theirs */
};
/* rr_area.snap_mode */
enum {
	RR_SNAP_EXIT = 0, /* the copy ends at once (measures the pause alone) */
	RR_SNAP_RUN = 1,  /* the copy recreates the threads and runs on unrecorded (a test) */
	RR_SNAP_IMAGE = 2, /* the copy writes its image into trace_dir/.spool/snap/ (rr_snap_fmt.h) */
};

_Static_assert(sizeof(struct rr_area) <= RR_AREA_HDR, "rr area header too big");

#endif
