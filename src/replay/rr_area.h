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
#define RR_AREA_HDR 16384 /* (8192 until the early reads, struct rr_early_io, came) */
#define RR_NO_TURN 0xffffffffu	     /* an event ordered by its call, not by a turn */
#define RR_REPORT_BYTES 4096
/* Reads and getrandom calls before the agent started (struct rr_early_io) */
#define RR_EIO_MAX 32
#define RR_EIO_DATA 6144
#define RR_EIO_REAL 0xffffffffu /* rr_early_ent.off: its bytes did not fit */
#define RR_EARLY_MAX 4 /* clock reads noted before the agent started (rr_area.early_*;
			* EARLY_CLOCK_MAX of common/early_clock.h) */
/* Thread numbers a recording may hand out (threads created over the whole
 * run, main = 0): ring slots are reused after a thread ends, so this, not
 * the rings, bounds a program that creates 100,000 short threads. The
 * record area holds one struct rr_serial_slot per number in serial mode
 * (none in sync mode); the agent maps them, like the turn words, 64 KiB at
 * a time as they are used (src/agent/agent_lazy.c), so the program's
 * address space pays for the numbers it used, not for 8 MiB. */
#define RR_MAX_THREADS (1u << 17)
/* rr_area.snap_failed when a recording takes no snapshot at all, why:
 * libzstd cannot be loaded into the program; the program signs its return
 * addresses (aarch64 pointer authentication: src/arch/arch_snap.h). */
#define RR_SNAP_OFF_ZSTD UINT64_MAX
#define RR_SNAP_OFF_PAC (UINT64_MAX - 1)
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
/* sync record: a thread ended by cancellation at a cancellation point the
 * agent does not record (agent_rr_cancel.c): a replay may diverge */
#define RR_F_CANCEL_UNSEEN 0x1000u
/* serial mode: stdio's own reads and writes went through the agent's read
 * and write (agent_rr_stdio.c); a replay does the same (RR_O_STDIO) */
#define RR_F_STDIO 0x40000u
/* sync mode: stdio's own reads and writes went through the agent's read
 * and write while the process had one thread, no pthread_create called yet
 * (agent_rr_stdio.c: redis reads its hash seed through fread of
 * /dev/urandom); a replay does the same (RR_O_STDIO_SOLO) */
#define RR_F_STDIO_SOLO 0x80000u
/* sync mode: every stdio call on a stream after the first pthread_create
 * took a turn of the stream (agent_rr_stdio_turn.c: the order glibc's FILE
 * lock gave the threads), and stdio's reads and writes inside such a call
 * went through the agent's read and write; a replay does the same
 * (RR_O_STDIO_TURN) */
#define RR_F_STDIO_TURN 0x100000u
/* sync mode: every write and writev to descriptor 1 or 2 after the first
 * pthread_create took a turn of one object (agent_rr_outturn.c: the order
 * the threads' lines reached stdout and stderr); a replay does the same
 * (RR_O_OUT_TURN) */
#define RR_F_OUT_TURN 0x200000u
/* sync mode: the flushes no stream call of the program's orders took turns
 * too (agent_rr_stdio_turn.c): fflush(NULL) flushed stdout and stderr in
 * their turns first, the agent's destructor did at exit, fclose flushed its
 * stream in its turn, and dprintf's writes went through the agent's write;
 * a replay does the same (RR_O_STDIO_FLUSH) */
#define RR_F_STDIO_FLUSH 0x400000u
/* record: the program made a thread with its own clone on its creator's
 * TLS: the recording stopped there, the program ran on unrecorded
 * (agent_rr_clone_stop); spool replay refuses it (rr_info.clones) */
#define RR_F_CLONE_STOP 0x800000u
/* serial record: the function of a SIGEV_THREAD timer reached a switch
 * point (a lock, an input call, ...): glibc runs it in a thread of its own
 * at each expiry, outside the schedule, so the recording stopped there and
 * the program ran on unrecorded (agent_rr_sev_stop); report[] names the
 * function and its timer_create; spool replay refuses it */
#define RR_F_SEV_STOP 0x1000000u
/* record (x86-64): CPUID faulting was on, the program's cpuid instructions
 * were emulated with rdrand and rdseed hidden and their results recorded
 * (RR_CALL_CPUID, agent_rr_cpuid.c); a replay does the same (RR_O_CPUID) */
#define RR_F_CPUID 0x2000000u
/* record: getrusage, times and clock() were recorded (RR_CALL_RUSAGE,
 * RR_CALL_TIMES; clock() as a clock_gettime of CLOCK_PROCESS_CPUTIME_ID,
 * agent_rr_cputime.c); a replay does the same (RR_O_CPUTIME). Recordings
 * made before have none: their replays run the three for real. */
#define RR_F_CPUTIME 0x4000000u

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
/* Replay: the log has RR_INPUT_ZREF records (or the recording was made with
 * --compress); the agent loads libzstd. Record (--compress): the agent
 * loads it too, at the same point of its start, so that the program's
 * mappings after it are where its replays have them. */
#define RR_O_PACKED 0x80u
/* Replay: the recording ordered the descriptor table (RR_OP_FDTAB, sync
 * mode; `fdtab=1` in its record file): the replay orders it too. */
#define RR_O_FDTAB 0x100u

/* Replay under gdb (spool replay --gdb): the agent saves each parked
 * thread's context, so that `spool checkpoint` can copy the process at a
 * switch point (agent_snap.c). */
#define RR_O_CHECKPOINTS 0x200u
/* Record and replay: snapshots were (are) taken with images, so the agent
 * loads libzstd where agent_snap_init does in a recording: a replay of such
 * a recording loads it at the same point, so the program's later mappings
 * and heap are where the recording had them (doc/record.md, "Snapshots"). */
#define RR_O_SNAPZ 0x4000u
/* Replay: the recording saw stdio's own reads and writes (RR_F_STDIO in its
 * flags): the agent routes them through its read and write the same way. */
#define RR_O_STDIO 0x10000u
/* Replay: the sync recording saw stdio's calls before the first thread
 * (RR_F_STDIO_SOLO in its flags) */
#define RR_O_STDIO_SOLO 0x20000u
/* Replay: the sync recording ordered its streams (RR_F_STDIO_TURN) */
#define RR_O_STDIO_TURN 0x40000u
/* Replay: the sync recording ordered writes to 1 and 2 (RR_F_OUT_TURN) */
#define RR_O_OUT_TURN 0x80000u
/* Replay: the sync recording ordered its flushes too (RR_F_STDIO_FLUSH) */
#define RR_O_STDIO_FLUSH 0x100000u
/* Replay: check what each write writes against the recorded hash
 * (agent_rr_block.c); not in a run the user changed: another command line
 * (replay -- PROG ARGS), --env, gdb (a variable set there changes what the
 * program prints), --path (another schedule) */
#define RR_O_OUT_CHECK 0x200000u
/* Replay: the recording has RR_F_CPUID: turn CPUID faulting on and give
 * each cpuid its recorded result (agent_rr_cpuid.c) */
#define RR_O_CPUID 0x400000u
/* Replay: the recording has RR_F_CPUTIME: getrusage, times and clock()
 * return the recorded values (agent_rr_cputime.c) */
#define RR_O_CPUTIME 0x800000u
/* rr_area.cause: what a divergence found different (set with the report;
 * spool replay's advice depends on it). */
enum {
	RR_CAUSE_NONE = 0,   /* not said */
	RR_CAUSE_CALLS = 1,  /* another call, object or order of calls than recorded */
	RR_CAUSE_FD = 2,     /* the same call on another descriptor number */
	RR_CAUSE_RESULT = 3, /* the same call returned something else (a file that is gone) */
	RR_CAUSE_DATA = 4,   /* the recording's data is damaged or missing */
	RR_CAUSE_LIMIT = 5,  /* a limit of spool (threads it could not number, ...) */
	RR_CAUSE_OUTPUT = 6, /* a write's bytes differ from the recorded ones */
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
	RR_FD_LOOKUP = 21,     /* a name lookup (gethostbyname, getaddrinfo, ...): glibc opens
				* and closes /etc/hosts, /etc/services inside it; result -1
				* (agent_rr_lookup_fd_begin) */
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
	uint32_t wait;	 /* record: RR_W_* of the wait it retries or blocks in (watchdog) */
	uint32_t tid;	 /* record: its kernel thread id, once it has held the token */
	/* record: 1 + the descriptor of the stdio read (or, with RR_IO_OUT,
	 * write) it makes keeping the token, 0 outside one: the watchdogs
	 * do not call a holder that waits there for the outside world stuck
	 * (agent_serial_peer.c) */
	uint32_t io_fd;
	uint32_t pad0;
	/* record: its stack's span [stack_lo, stack_lo + stack_len) once it
	 * has held the token (0: not known): the token watchdog looks there
	 * for writes to tell a holder that computes from one that spins
	 * (agent_serial.c, ser_holder_computes) */
	uint64_t stack_lo;
	uint64_t stack_len;
	uint32_t pad[2];
};
/* rr_serial_slot.wait: what a thread waits in, for the deadlock watch of a
 * serial recording (agent_serial.c) */
enum {
	RR_W_NONE = 0,
	RR_W_MUTEX = 1,	  /* pthread_mutex_lock (retried) */
	RR_W_RWLOCK = 2,  /* a rwlock lock (retried) */
	RR_W_SPIN = 3,	  /* pthread_spin_lock (retried) */
	RR_W_SEM = 4,	  /* sem_wait (retried) */
	RR_W_COND = 5,	  /* pthread_cond_wait (retried) */
	RR_W_BARRIER = 6, /* pthread_barrier_wait */
	RR_W_ONCE = 7,	  /* pthread_once of a running initializer (retried) */
	RR_W_YIELD = 8,	  /* a loop of sched_yield */
	RR_W_JOIN = 9,	  /* pthread_join, token released */
	RR_W_INPUT = 10,  /* a blocking input call, token released: may come back */
	RR_W_MAX
};
#define RR_IO_OUT 0x80000000u /* rr_serial_slot.io_fd: a write */
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
	RR_CALL_WRITE = 20,	      /* write: the result, and when it wrote bytes, data = a
					 64-bit hash of them (agent_rr_block.c, rr_out_hash; none
					 in recordings made before it); arg: in a tree, the
					 write's number + 1 among the processes' writes to
					 spool's stdout and stderr (0: not one), in its low 32
					 bits; RR_WRITE_WHOLE */
	RR_CALL_WRITEV = 21,	      /* writev: the same as write */
	RR_CALL_SIGWAIT = 22,	      /* pause, sigsuspend: the result only (-1, EINTR) */
	RR_CALL_SIGTIMEDWAIT = 23,    /* sigwait, sigwaitinfo, sigtimedwait: data = siginfo_t */
	RR_CALL_GETPEERNAME = 24,     /* data = the address, arg = its full length */
	RR_CALL_GETSOCKNAME = 25,     /* same */
	RR_CALL_KILL = 26,	      /* kill, sigqueue, tgkill, pthread_kill, pthread_sigqueue, raise:
					 fd = the signal, the result only */
	RR_CALL_STAT = 27,	      /* stat, lstat, fstatat, fstat (64): data = struct stat */
	RR_CALL_ACCESS = 28,	      /* access, faccessat: the result only */
	RR_CALL_MKDIR = 29,	      /* mkdir, mkdirat: the result only (made in a replay too) */
	RR_CALL_OPEN_EXCL = 30,	      /* open, openat with O_CREAT|O_EXCL: the result only */
	/* Sockets (agent_rr_sock.c, agent_rr_netdb.c): a replay reaches no network. */
	RR_CALL_SOCKET = 31,	  /* fd = the domain, arg = type | protocol << 32: the result */
	RR_CALL_SOCKETPAIR = 32,  /* fd = the domain, arg = type: data = the two descriptors */
	RR_CALL_CONNECT = 33,	  /* the result only */
	RR_CALL_BIND = 34,	  /* the result only */
	RR_CALL_LISTEN = 35,	  /* the result only */
	RR_CALL_SHUTDOWN = 36,	  /* arg = how: the result only */
	RR_CALL_SETSOCKOPT = 37,  /* arg = level << 32 | option: the result only */
	RR_CALL_GETSOCKOPT = 38,  /* data = the value, arg = its length */
	RR_CALL_RECV_ADDR = 39,	  /* after a recvfrom: data = the address, arg = its length */
	RR_CALL_RECVMSG_META = 40, /* after a recvmsg: data = msg_name (its whole buffer)
				    * and the control bytes; arg = namelen | controllen << 32;
				    * result = msg_flags */
	RR_CALL_GETADDRINFO = 41, /* result = the EAI code; data = the list; arg = its entries */
	RR_CALL_GETNAMEINFO = 42, /* result = the EAI code; data = host and service, arg = their
				   * lengths (host | service << 32, NULs included) */
	RR_CALL_RECVMMSG = 43,	  /* the number of messages; a RECVMSG and a RECVMSG_META each */
	RR_CALL_SENDMMSG = 44,	  /* the number sent; data = each one's msg_len (uint32) */
	RR_CALL_SYSINFO = 45,	  /* data = struct sysinfo (the uptime: lighttpd's clock) */
	/* Directory contents and names (agent_rr_dir.c, agent_rr_path.c). */
	RR_CALL_OPENDIR = 50,	  /* opendir, fdopendir: result = the stream's descriptor or -1 */
	RR_CALL_READDIR = 51,	  /* readdir(64)(_r): data = the struct dirent64 up to its name's
				     NUL, result = its length (0: end of directory or error) */
	RR_CALL_TELLDIR = 52,	  /* telldir: the result only */
	RR_CALL_GETDENTS = 53,	  /* getdents64: data = the entries, result = their bytes */
	RR_CALL_READLINK = 54,	  /* readlink, readlinkat: data = the target (no NUL) */
	RR_CALL_REALPATH = 55,	  /* a name returned: data = the name and NUL, arg = RR_NAME_* */
	RR_CALL_NAMEOP = 56,	  /* unlink, rmdir, rename (made in a replay too): the result only,
				     arg = RR_NAMEOP_* */
	RR_CALL_STATX = 57,	  /* statx: data = struct statx */
	RR_CALL_XATTR = 58,	  /* getxattr, lgetxattr, listxattr, llistxattr: data = the bytes */
	RR_CALL_OPEN = 59,	  /* open, openat without O_CREAT|O_EXCL: the result only */
	/* The thread was cancelled (pthread_cancel) in an input call, which
	 * never returned: fd = the RR_CALL_* of that call, no data. */
	RR_CALL_CANCEL = 65,
	/* pthread_testcancel: never recorded itself; the fd of an
	 * RR_CALL_CANCEL when it acted on a cancellation (sync mode) */
	RR_CALL_TESTCANCEL = 66,
	/* Process trees (agent_rr_proc.c), numbers 70-79 */
	RR_CALL_FORK = 70,	      /* fork, vfork: result = the child's pid (or -1, err);
					 arg = the child's process number (rr_tree) */
	RR_CALL_SPAWN = 71,	      /* posix_spawn(p): result = its return value, arg = the
					 child's pid; data = the child's process number
					 (uint32, RR_NO_PROC when its agent never started) */
	RR_CALL_WAIT = 72,	      /* wait, waitpid, wait4: result = the pid, fd = the pid
					 asked for; data = the status (int), then the rusage
					 (wait4 with one) */
	RR_CALL_WAITID = 73,	      /* waitid: result, data = siginfo_t */
	/* Name services and tree walks recorded whole (agent_rr_hostent.c,
	 * agent_rr_resolv.c, agent_rr_ftw.c), numbers 80-89. */
	RR_CALL_HOSTENT = 80, /* gethostby*: arg = RR_HOST_* | local << 8 | (h_errno + 1) << 16
			       * | bytes << 32; result = 0 or -1 (the _r forms: their return
			       * value); data = the packed struct hostent (rr_netdb.h) */
	RR_CALL_SERVENT = 81, /* getservby*: the same with a struct servent */
	RR_CALL_RESOLV = 82,  /* res_*: arg = RR_RES_* | (h_errno + 1) << 16 | bytes << 32;
			       * result = the return value; data = the answer (or query) */
	RR_CALL_FTW = 83,     /* ftw, nftw: arg = RR_FTW_ENTRY (data = struct rr_ftw_ent, the
			       * path and the directory the walk was in, each with its NUL)
			       * before each call of the program's function, RR_FTW_END
			       * (result, errno) when the walk returns */
	RR_CALL_XFER = 84,    /* sendfile, splice, tee, copy_file_range: fd = the output,
			       * arg = RR_XFER_* | the input descriptor << 32, data =
			       * struct rr_xfer (the offsets the call left), then with
			       * RR_XFER_DATA the bytes the call moved */
	/* Sync mode: after a read, receive, accept or readiness wait (poll,
	 * select, epoll_wait) that got something while other threads of the
	 * process had written since this thread's last such call: arg = the
	 * process's count of writes (write, writev, the sends, sendfile and
	 * the like) when the call returned. A replay waits until its own
	 * count gets there: a wake-up through a descriptor (an eventfd, a
	 * pipe, a socket pair) is an ordering edge (doc/record.md, "Wake-ups
	 * through a descriptor"). data: a pair (writes, events) for each
	 * thread numbered below 128 (the caller's own pair is 0, 0), up to
	 * the last thread with a count. */
	RR_CALL_WAKE = 85,
	/* Sync record, right after RR_CALL_WAKE when threads numbered 128 and
	 * up had counts: data = triples (thread, writes, events), at most
	 * RR_WAKE_MORE_MAX a record, as many records as needed. */
	RR_CALL_WAKE_MORE = 86,
	/* timer_getoverrun: result (or -1, err) only: the kernel's count of
	 * the timer's lost expiries, the replay's own timer has its own */
	RR_CALL_TIMER_OVERRUN = 87,
	/* the program's cpuid instruction, emulated under CPUID faulting
	 * (agent_rr_cpuid.c): arg = leaf << 32 | subleaf, data = eax, ebx,
	 * ecx, edx as the program got them (rdrand and rdseed cleared) */
	RR_CALL_CPUID = 88,
	/* getrusage (agent_rr_cputime.c): fd = who, data = struct rusage */
	RR_CALL_RUSAGE = 89,
	/* times: result = the ticks since boot, data = struct tms (none
	 * when the program passed NULL) */
	RR_CALL_TIMES = 90,
	RR_CALL_MAX
};

/* RR_CALL_XFER: the call (arg's low byte) and the offsets it left where
 * the program passed pointers to them (-1: none) */
#define RR_WAKE_MORE_MAX 80
enum { RR_XFER_SENDFILE = 1, RR_XFER_SPLICE = 2, RR_XFER_TEE = 3, RR_XFER_COPY = 4 };
/* RR_CALL_XFER's arg: the bytes moved follow struct rr_xfer (the output
 * was one a replay writes for real, and the bytes could be read back from
 * the input file or the output file); a replay writes them */
#define RR_XFER_DATA 0x100u
/* the most bytes of one call kept so (a larger move is not kept) */
#define RR_XFER_DATA_MAX (64u << 20)
struct rr_xfer {
	int64_t off_in, off_out;
};

/* RR_CALL_WRITE's arg: a write stdio made (agent_rr_stdio.c) that wrote
 * all it was asked: a replay writes all of what stdio asks then (a replay
 * run with other arguments may print lines of other lengths, as stdio did
 * when it was not seen). */
#define RR_WRITE_WHOLE (1ull << 32)
#define RR_WRITE_ORDER(arg) ((arg) & 0xffffffffull)

/* RR_CALL_REALPATH's arg (its low byte): which call returned the name.
 * realpath and canonicalize_file_name; getcwd and get_current_dir_name;
 * glob's result (arg bits 8-39: the number of names, 40-63: gl_flags) and
 * then its names (result: their bytes; then records of names, each with
 * its NUL; src/agent/agent_rr_glob.c). */
enum { RR_NAME_REALPATH = 0, RR_NAME_CWD = 1, RR_NAME_GLOB = 2, RR_NAME_GLOB_NAMES = 3 };
/* RR_CALL_NAMEOP's arg. */
enum { RR_NAMEOP_UNLINK = 1, RR_NAMEOP_RMDIR = 2, RR_NAMEOP_RENAME = 3 };

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

/* One call before the agent started: RR_CALL_READ (fd) or
 * RR_CALL_GETRANDOM (fd -1, flags in arg), count asked, result (or
 * -errno), its bytes at data[off .. off + len] (off RR_EIO_REAL, len 0: they
 * did not fit, the call is made for real in a replay); or RR_CALL_GETPID (fd -1,
 * count and len 0, result = the pid). */
struct rr_early_ent {
	uint32_t call;
	int32_t fd;
	uint64_t count;
	int64_t result;
	uint32_t off, len;
};
struct rr_early_io {
	uint32_t n;	/* entries */
	uint32_t bytes; /* of data used */
	uint32_t full;	/* record: calls left out (no room): their replay is real */
	uint32_t pad;
	struct rr_early_ent ent[RR_EIO_MAX];
	uint8_t data[RR_EIO_DATA];
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
	/* Where the program's address space was when the agent started
	 * (RR_LAYOUT_*, agent, record and replay alike): a replay whose
	 * addresses are not the recording's is said (doc/record.md). */
	uint64_t layout[4];
	/* Clock reads the program made before the agent started, in a
	 * library's constructor (jemalloc's first malloc reads
	 * CLOCK_MONOTONIC_COARSE for its purge epochs): no log exists yet, so
	 * the agent keeps them and a recording notes them here (early_n
	 * readings: clock id, nanoseconds); the record host writes them in
	 * .spool/record (early_clock=), a replay passes them back to the
	 * agent through its area (SPOOL_EARLY_IO, agent_rr_early.c). */
	uint32_t early_n;
	int32_t early_clk[RR_EARLY_MAX];
	uint64_t early_ns[RR_EARLY_MAX];
	/* Reads and getrandom calls the program made before the agent
	 * started (a library's constructor reading /dev/urandom, jemalloc's
	 * raw reads of /proc and /sys): record, the agent copies them here
	 * when it starts and the record host keeps them in .spool/early_io;
	 * replay, the host fills process 0's copy and the agent reads it
	 * from the region's descriptor before it has started
	 * (agent_rr_early.c, SPOOL_EARLY_IO). Untrusted on both sides. */
	struct rr_early_io eio;
	/* record, sync mode: futex calls the program made itself, through
	 * syscall() or its own syscall instruction (GLib's, libgomp's, Rust's
	 * locks), which sync mode does not order (serial mode emulates their
	 * waits, agent_rr_block.c) */
	uint64_t own_futex;
	/* Process trees (below): this area's process number, and in area 0
	 * where the tree lies (0: none, one process). */
	uint32_t proc;
	uint32_t pad4;
	uint64_t tree_off;
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
	uint64_t snap_failed;	  /* agent, RR_SNAP_IMAGE: copies that could not write theirs;
				   * RR_SNAP_OFF_*: none taken, why */
	/* By time instead (spool record's default, about one a second): one
	 * falls due at the first switch snap_period_ns after the last (0: by
	 * snap_period switches). */
	uint64_t snap_period_ns;
	/* The disk budget of the images (spool record --snap-max, doc/record.md
	 * "Snapshots"): snap_budget bytes at most (host; 0: no limit). A copy
	 * reserves the bytes it writes in snap_bytes before each write; one
	 * that would pass the budget removes its image, counts itself in
	 * snap_over and sets snap_full, after which the holder takes no more;
	 * the holder takes none either when the last whole image's size
	 * (snap_last) added to snap_bytes would pass it, and then sets
	 * snap_full too. The program can write all of these (it could fill
	 * the disk with its own writes as well): spool only prints them. */
	uint64_t snap_budget;
	uint64_t snap_bytes; /* agent: bytes of the images kept, and reserved by copies writing */
	uint64_t snap_last;  /* agent: bytes of the last image written whole */
	uint32_t snap_full;  /* agent: 1 once the budget stopped the snapshots */
	uint32_t snap_over;  /* agent: copies stopped by the budget, their image removed */
	/* Replay from a snapshot (spool replay --goto, agent_snap_restore.c):
	 * spool unpacked and checked the snapshot taken at token turn
	 * restore_turn; its body (the records after the header) is in the
	 * program's descriptor restore_fd, restore_size bytes (0: none). The
	 * agent loads it over the fresh process, closes the descriptor and
	 * says how long it took (restore_ns) or why it failed (the report). */
	int32_t restore_fd;
	uint32_t restore_done; /* agent: 1 once the threads were recreated */
	uint64_t restore_size;
	uint64_t restore_turn;
	uint64_t restore_ns;
	/* spool replay --goto EVENT --gdb: the thread whose turn EVENT + 1 - 1
	 * begins stops itself with SIGTRAP there (goto_stop = EVENT + 1; 0:
	 * never), for gdb to show (agent_serial.c). */
	uint64_t goto_stop;
	/* Replay from a snapshot: the snapshot's POSIX timers the agent made
	 * again (restore_timers), and of those the ones it could not give
	 * their recorded id, target thread or clock (restore_timers_off;
	 * agent_snap_timer.c). restore_timer_order (host): 1 asks for the ids
	 * the way a kernel before Linux 6.16 must be asked, in their order,
	 * without PR_TIMER_CREATE_RESTORE_IDS (SPOOL_SNAP_TIMER_ORDER=1, for
	 * tests). */
	uint32_t restore_timers, restore_timers_off;
	uint32_t restore_timer_order;
	/* agent, RR_SNAP_IMAGE: the errno of the last copy that could not
	 * write its image (0: none, or unknown), for spool record to say
	 * why (EACCES: the program changed its user, apache2's workers) */
	int32_t snap_err;
};
/* rr_area.layout[] */
enum {
	RR_LAYOUT_STACK = 0, /* environ: moves with the size of argv and the environment */
	RR_LAYOUT_BRK = 1,   /* the program break */
	RR_LAYOUT_MMAP = 2,  /* where the next mmap goes: moves with the libraries, the stack limit */
	RR_LAYOUT_EXE = 3,   /* the executable's program headers (AT_PHDR) */
	RR_LAYOUT_N = 4
};
/* rr_area.snap_mode */
enum {
	RR_SNAP_EXIT = 0, /* the copy ends at once (measures the pause alone) */
	RR_SNAP_RUN = 1,  /* the copy recreates the threads and runs on unrecorded (a test) */
	RR_SNAP_IMAGE = 2, /* the copy writes its image into trace_dir/.spool/snap/ (rr_snap_fmt.h) */
};

_Static_assert(sizeof(struct rr_area) <= RR_AREA_HDR, "rr area header too big");

/* Whether e (from a trace, or from the program's shared memory) is
 * well formed: every entry's bytes inside data[], a result no larger than
 * what was asked, an error an errno. */
static inline int rr_early_io_valid(const struct rr_early_io *e)
{
	if (e->n > RR_EIO_MAX || e->bytes > RR_EIO_DATA)
		return 0;
	for (uint32_t i = 0; i < e->n; i++) {
		const struct rr_early_ent *x = &e->ent[i];

		if (x->call == RR_CALL_GETPID) { /* the result only: a pid */
			if (x->result <= 0 || x->result > INT32_MAX || x->count || x->len)
				return 0;
			continue;
		}
		if (x->call != RR_CALL_READ && x->call != RR_CALL_GETRANDOM)
			return 0;
		if (x->off == RR_EIO_REAL) { /* a call made for real in a replay */
			if (x->len || x->result < 0 || (uint64_t)x->result > x->count)
				return 0;
			continue;
		}
		if (x->off > e->bytes || x->len > e->bytes - x->off)
			return 0;
		if (x->result >= 0 ? (uint64_t)x->result > x->count || x->len != (uint64_t)x->result
				   : x->result < -4095 || x->len)
			return 0;
	}
	return 1;
}

/*
 * Process trees (doc/record.md "Process trees", agent_rr_proc.c). Every
 * process of a recorded program (the first one, each fork child, each
 * image an exec or a posix_spawn starts) records into its own rr_area,
 * under its own *process number* (0 = the first process; rr_area.proc):
 * its own thread numbers, turns and run token. Its records carry the
 * number in the high bits of their thread field (RR_PROC_SHIFT), so the
 * recordings of all processes share the trace's streams and a replay
 * loads one process's records alone.
 *
 * The areas lie one after the other in the feature area, area 0 first;
 * area 0's tree_off says where struct rr_tree lies (0: a single-process
 * layout, an older spool). The tree lists each process number's area and
 * what the recording knew of the process; in a replay it also maps the
 * replaying processes to their numbers (real_pid).
 */
#define RR_PROC_SHIFT 17 /* == log2(RR_MAX_THREADS) */
#define RR_THREAD_MASK (RR_MAX_THREADS - 1)
#define RR_MAX_PROCS 256u /* process numbers a trace may hold */
#define RR_NO_PROC 0xffffffffu
#define RR_PROC_EXE_BYTES 96
/* Serial slots of a child process's area: 4096 thread numbers (256 KiB);
 * the first process has RR_MAX_THREADS. */
#define RR_CHILD_THREADS 4096u

/* RR_PK_SPAWN: an image its parent started without a fork the agent saw
 * (glibc's system and popen, a raw clone); RR_PK_PSPAWN: one started by
 * posix_spawn, whose number is in its parent's record (two spawned at
 * once start their agents in any order). */
enum { RR_PK_ROOT = 0, RR_PK_FORK = 1, RR_PK_EXEC = 2, RR_PK_SPAWN = 3, RR_PK_PSPAWN = 4 };
enum { RR_PS_FREE = 0, RR_PS_RUN = 1, RR_PS_DONE = 2, RR_PS_SKIP = 3 };

struct rr_proc_ent {
	int32_t pid;	 /* the recorded pid */
	int32_t ppid;	 /* its parent's pid, when recorded */
	uint32_t parent; /* the parent's process number (exec: the parent of the image before) */
	uint32_t prev;	 /* exec: the number of this pid's image before the exec */
	uint32_t kind;	 /* RR_PK_* */
	uint32_t state;	 /* RR_PS_*: claimed by a process (record and replay, agent) */
	int32_t real_pid; /* replay: the process replaying it (agent) */
	uint32_t flags;	  /* RR_F_STOP once its area has it (agent) */
	uint32_t end_sig; /* the signal that ended it when recorded, as its parent's
			     wait saw it (0: not known); its replay ends the same way */
	int32_t ns_pid;	  /* a process in a pid namespace of its own: its pid there (what
			     its parent's wait says when the parent is there too); 0 */
	uint64_t area_off; /* its rr_area, from the start of area 0 */
	uint64_t area_size;
	/* record: its executable (agent), NUL-terminated, the path's last
	 * RR_PROC_EXE_BYTES - 1 bytes when it is longer */
	char exe[RR_PROC_EXE_BYTES];
};

struct rr_tree {
	uint32_t nprocs; /* record: numbers handed out (agent, atomic); replay: entries */
	uint32_t max;	 /* entries with an area */
	uint32_t only;	 /* replay --pid: the number replayed alone, RR_NO_PROC for all */
	uint32_t outer_set; /* replay: outer_* are set (agent of the first process) */
	/* replay: what the first process's descriptors 0, 1, 2 were when it
	 * started (device, inode): pipes spool gave the program, read outside */
	uint64_t outer_dev[3], outer_ino[3];
	/* The order of the processes' writes to spool's stdout and stderr
	 * (agent_rr_proc.c): record, wlock (the writer's pid, 0 when free)
	 * is held around each such write and wseq counts them; replay, the
	 * write recorded with number N waits until wseq is N. */
	uint32_t wlock, wseq;
	struct rr_proc_ent ent[RR_MAX_PROCS];
};

#endif
