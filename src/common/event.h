// SPDX-License-Identifier: MIT
/*
 * event.h - the record format shared by the agent (producer), the collector
 * and the trace reader.
 *
 * Every record in a ring, and every event the trace reader hands back, has
 * the same binary shape: a 24-byte header followed by a kind-specific payload.
 * The trace writer maps each kind onto one CTF event class and the reader maps
 * it back, so the analyzers see exactly what the agent wrote.
 *
 * The header's first word is the "encoded word" of the lock-monitor design:
 *
 *   63      56 55          40 39                        8 7     3 2  0
 *  +----------+--------------+---------------------------+-------+----+
 *  |   kind   | thread index |        object index       |  op   |  0 |
 *  +----------+--------------+---------------------------+-------+----+
 *
 * The kind byte plays the role of the reserved high bits (the base of the
 * reserved region in the original design); the thread index is the slot of the
 * thread in the thread table (equal to its ring number; a ring is used again
 * by a later thread once its thread has ended, so it names the thread only
 * together with the KIND_THREAD record that opened the thread's part of the
 * ring's stream), the object index the slot of the lock in the lock table.
 * Readers decode both back to a thread id and a lock address through the
 * KIND_THREAD and KIND_LOCKDEF metadata records, which the agent emits once,
 * when a thread or lock is first seen.
 *
 * This file must stay usable from the agent: no libc beyond <stdint.h>.
 */
#ifndef SPOOL_COMMON_EVENT_H
#define SPOOL_COMMON_EVENT_H

#include <stdint.h>

/* Record kinds (bits 63..56 of the word). Numbers are part of the trace
 * format: never renumber, only append. */
enum {
	KIND_PAD = 0,	  /* filler to the end of a ring; never in a trace */
	KIND_LOCK = 1,	  /* a lock/sync operation: struct rec_lock */
	KIND_THREAD = 2,  /* thread table entry: struct rec_thread */
	KIND_LOCKDEF = 3, /* lock table entry: struct rec_lockdef */
	KIND_PROC = 4,	  /* a process started (or exec'd): struct rec_proc */
	KIND_USER = 5,	  /* the program's own trace call (include/spool/trace.h): struct rec_user */
	/* Kinds from here on are "table kinds": described by a row of
	 * src/trace/kinds.c, copied as they are by writer and reader. Numbers
	 * reserved for the features being built: */
	KIND_SCHED = 6, /* record/replay: a schedule event */
	KIND_INPUT = 7, /* record/replay: a nondeterministic input and its data */
	KIND_FUNC = 8,	/* thread path: a function entry/exit <thread, function, object> */
	KIND_PROBE = 9, /* dynamic probes: a probe hit */
	KIND_TNAME = 10, /* a thread was named after its start: struct rec_tname */
	KIND_MAX
};

/* Operations (bits 7..3 of a KIND_LOCK word). Also part of the format. */
enum {
	OP_NONE = 0,
	OP_INIT = 1,	     /* pthread_*_init / sem_init */
	OP_DESTROY = 2,	     /* pthread_*_destroy / sem_destroy */
	OP_CONTEND = 3,	     /* exclusive request that found the lock taken */
	OP_ACQUIRE = 4,	     /* exclusive acquisition (after CONTEND if contended) */
	OP_ACQUIRE_TRY = 5,  /* the program's own trylock succeeded */
	OP_TRY_FAIL = 6,     /* the program's own trylock failed (EBUSY) */
	OP_TIMEOUT = 7,	     /* a timed or failed blocking request gave up; arg = errno */
	OP_RELEASE = 8,	     /* unlock (mutex, spin, rwlock either side) */
	OP_CONTEND_RD = 9,   /* rwlock read request that found it write-locked */
	OP_ACQUIRE_RD = 10,  /* rwlock read acquisition */
	OP_ACQUIRE_TRY_RD = 11,
	OP_TRY_FAIL_RD = 12,
	OP_SEM_POST = 13,	 /* sem_post; arg = 0 */
	OP_COND_WAIT = 14,	 /* entering pthread_cond_(timed)wait; arg = mutex lock index */
	OP_COND_WAKE = 15,	 /* returned from the wait; arg = return value (0 or errno) */
	OP_COND_SIGNAL = 16,
	OP_COND_BROADCAST = 17,
	OP_BARRIER_ENTER = 18,
	OP_BARRIER_LEAVE = 19,	 /* arg = 1 for the PTHREAD_BARRIER_SERIAL_THREAD */
	OP_THREAD_CREATE = 20,	 /* arg = pthread_t of the new thread */
	OP_THREAD_START = 21,	 /* first event of a new thread; arg = its pthread_t */
	OP_THREAD_JOIN_BEGIN = 22, /* arg = pthread_t joined */
	OP_THREAD_JOIN_END = 23,   /* arg = pthread_t joined */
	OP_THREAD_EXIT = 24,
	OP_MAX
};

/* A KIND_LOCK operation that is a thread's life (create, start, join, exit)
 * or no operation, not a lock's: the reports count these "thread events"
 * apart from the lock events. */
static inline int ev_op_is_thread(unsigned op)
{
	return op >= OP_THREAD_CREATE || op == OP_NONE;
}

/* Lock types (struct rec_lockdef.type). */
enum {
	LOCK_TYPE_MUTEX = 1,
	LOCK_TYPE_RWLOCK = 2,
	LOCK_TYPE_SPIN = 3,
	LOCK_TYPE_SEM = 4,
	LOCK_TYPE_COND = 5,
	LOCK_TYPE_BARRIER = 6,
	LOCK_TYPE_THREAD = 7, /* the pseudo-object of thread create/join/exit */
	/* A futex word a program waits on and wakes through syscall(SYS_futex)
	 * (GLib, Rust, ...): COND_WAIT/COND_WAKE around a FUTEX_WAIT (wake arg =
	 * 0 when woken, else the errno: EAGAIN = the word changed, no sleep),
	 * COND_SIGNAL (FUTEX_WAKE of 1) or COND_BROADCAST (more) with arg = the
	 * count asked. Uncontended lock and unlock never enter the kernel. */
	LOCK_TYPE_FUTEX = 8,
};

#define EV_KIND_SHIFT 56
#define EV_THREAD_SHIFT 40
#define EV_OBJ_SHIFT 8
#define EV_OP_SHIFT 3
#define EV_THREAD_MASK 0xffffULL
#define EV_OBJ_MASK 0xffffffffULL
#define EV_OP_MASK 0x1fULL
#define EV_MAX_THREADS 65536

static inline uint64_t ev_word(unsigned kind, unsigned thread, uint32_t obj, unsigned op)
{
	return ((uint64_t)kind << EV_KIND_SHIFT) |
	       (((uint64_t)thread & EV_THREAD_MASK) << EV_THREAD_SHIFT) |
	       (((uint64_t)obj & EV_OBJ_MASK) << EV_OBJ_SHIFT) |
	       (((uint64_t)op & EV_OP_MASK) << EV_OP_SHIFT);
}
static inline unsigned ev_kind(uint64_t w) { return (unsigned)(w >> EV_KIND_SHIFT); }
static inline unsigned ev_thread(uint64_t w) { return (unsigned)((w >> EV_THREAD_SHIFT) & EV_THREAD_MASK); }
static inline uint32_t ev_obj(uint64_t w) { return (uint32_t)((w >> EV_OBJ_SHIFT) & EV_OBJ_MASK); }
static inline unsigned ev_op(uint64_t w) { return (unsigned)((w >> EV_OP_SHIFT) & EV_OP_MASK); }

/*
 * Common header. size is the whole record in bytes (header included), a
 * multiple of 8. seq counts every event the thread tried to emit, including
 * those dropped because its ring was full, so a gap in seq is a loss the
 * reader can see even if the producer's lost counter were never read.
 */
struct rec_hdr {
	uint64_t word;
	uint64_t tsc; /* raw TSC; the trace clock converts it (see trace-format.md) */
	uint32_t seq;
	uint32_t size;
};

/* KIND_LOCK. When stacks are on (--stacks N), the record is followed by up
 * to N return addresses (size tells how many), innermost first. */
struct rec_lock {
	struct rec_hdr h;
	uint64_t ip;  /* return address of the interposed call: the call site */
	uint64_t arg; /* op-specific, see the OP_ list */
	uint64_t stack[];
};

/* KIND_THREAD: first record of every thread in its ring (a reused ring has
 * one per thread that used it, each starting its seq again at 1). */
struct rec_thread {
	struct rec_hdr h;
	uint32_t tid;
	uint32_t pid;
	uint64_t pthread; /* pthread_self() */
	char name[16];	  /* comm at registration, NUL-padded */
};

/* KIND_TNAME: thread tid of process pid is named name from here on
 * (pthread_setname_np, prctl(PR_SET_NAME), a write to its comm file). It
 * is written in the ring of the thread that named it, which may be another
 * thread: readers find the thread by (pid, tid) among those started before
 * it and not yet ended. A table kind (src/trace/kinds.c); in format 2 its
 * class id is 17, not 10 (spool:site's). */
struct rec_tname {
	struct rec_hdr h;
	uint32_t tid;
	uint32_t pid;
	char name[16]; /* NUL-padded, at most 15 bytes of text, as the kernel keeps it */
};
_Static_assert(sizeof(struct rec_tname) == 48, "rec_tname layout");

/* KIND_LOCKDEF: emitted by the thread that first sees a lock, just before
 * that thread's first event on it. Its object index is in the word. */
struct rec_lockdef {
	struct rec_hdr h;
	uint64_t addr;	  /* the lock's address in the process */
	uint64_t init_ip; /* call site of its init, or of its first use */
	uint32_t type;	  /* LOCK_TYPE_* */
	uint32_t pid;	  /* process the address belongs to */
};

/* KIND_PROC: emitted by the agent at startup in each process (after fork
 * too, and again in a new image after exec). The process's maps and command
 * line are kept in the control block's process slots, not in the ring. */
struct rec_proc {
	struct rec_hdr h;
	uint32_t pid;
	uint32_t ppid;
	uint32_t proc_slot; /* index into shm process slots (reused), UINT32_MAX: none */
	uint32_t flags;	    /* PROC_F_* */
};
#define PROC_F_FORK 1u /* started as a fork child of ppid */
#define PROC_F_EXEC 2u /* a new image after exec */

/* KIND_USER: one call of spool_trace_emit (include/spool/trace.h). id is the
 * program's event id (< USER_ID_SPOOL), or, in a program built by spool cc,
 * a merged event or table-hash id that spool decode expands (doc/cc.md).
 * size = sizeof(struct rec_user) + 8 * nargs. */
struct rec_user {
	struct rec_hdr h;
	uint32_t id;
	uint32_t nargs;
	int64_t args[];
};
#define USER_ID_SPOOL 0x80000000u /* ids from here on are spool cc's */
#define USER_MAX_ARGS 1024u	  /* longer calls are dropped and counted as lost */

/* KIND_PROBE: a dynamic probe fired (spool probe, doc/probe.md). The object
 * index of the word is the probe id (the trace's "probes" side file names
 * it); op is PROBE_OP_*. sp is the stack pointer at the probe: at a function
 * entry and at its ret it points at the return address, so entry and exit
 * of one activation have the same sp (the report pairs them by it, which
 * also closes frames left by tail calls and longjmp). args: entry rdi, rsi,
 * rdx; exit rax, rdx, 0; a plain hit rdi, rsi, rdx. */
struct rec_probe {
	struct rec_hdr h;
	uint64_t addr;	 /* the probed instruction, in the process */
	uint64_t sp;
	uint64_t ret_ip; /* *sp at entry and exit: the caller's return address */
	uint64_t args[3];
};
_Static_assert(sizeof(struct rec_probe) == 72, "rec_probe layout");
enum { PROBE_OP_ENTRY = 1, PROBE_OP_EXIT = 2, PROBE_OP_HIT = 3 };
/* A variable probe's value (doc/trace-format.md): one record per variable of
 * a hit, all with the hit's timestamp; ret_ip = index | count << 16 (of the
 * probe's variables), args[0..1] = the value's raw bytes (little-endian,
 * zero-padded to 16), args[2] = the address read (0: a register or value). */
enum { PROBE_OP_VAR = 4 };

/* KIND_FUNC: one function entry or exit of a program built with
 * -finstrument-functions (src/agent/agent_func.c), recorded only when the
 * session asks for it (SHM_FEAT_PATH). The op of the word is FUNC_OP_ENTER
 * or FUNC_OP_EXIT, its object index is 0. depth counts the instrumented
 * frames open on the thread below this one (entry and exit of one frame
 * carry the same depth; a longjmp or exception that skips exits makes it
 * drift, the analysis copes). FUNC_OP_MSG_SEND/RECV records a successful
 * mq_send/mq_receive (timed forms too): fn is then the queue descriptor,
 * site the call site, depth the frames open around the call. */
enum { FUNC_OP_ENTER = 1, FUNC_OP_EXIT = 2, FUNC_OP_MSG_SEND = 3, FUNC_OP_MSG_RECV = 4 };
struct rec_func {
	struct rec_hdr h;
	uint64_t fn;   /* the function's first instruction (this_fn) */
	uint64_t site; /* call site: a return address in the caller */
	uint32_t depth;
	uint32_t pad;
};
_Static_assert(sizeof(struct rec_func) == 48, "rec_func layout");

/* KIND_SCHED (record/replay, doc/record.md): one synchronization event of a
 * recorded or replayed thread. The word's object is the agent's lock index
 * of this run; obj is the object's number in the recording (the same in a
 * replay). thread is the thread's number in creation order (main = 0), not
 * its ring. turn orders the events of one object; RR_NO_TURN (all ones)
 * for events ordered by the call itself (barrier). */
struct rec_sched {
	struct rec_hdr h;
	uint32_t thread;
	uint32_t tseq;	 /* the thread's own count of sched + input events, from 1 */
	uint32_t obj;	 /* 0 = the thread-creation pseudo-object */
	uint32_t turn;
	uint32_t op;	 /* requested op: OP_ACQUIRE(_RD), OP_ACQUIRE_TRY(_RD), OP_SEM_POST,
			    OP_COND_WAIT, OP_BARRIER_ENTER, OP_THREAD_CREATE */
	int32_t result;	 /* what the call returned (errno value, or -1 = barrier serial) */
	uint64_t arg;	 /* OP_THREAD_CREATE: the new thread's number */
};
_Static_assert(sizeof(struct rec_sched) == 56, "rec_sched layout");

/* KIND_INPUT (record/replay): a nondeterministic input and its data. A
 * call whose data exceeds one record is split into several records with
 * the same tseq and growing chunk_off; data[] holds nwords 8-byte words of
 * which min(len - chunk_off, 8 * nwords) bytes are meaningful. */
struct rec_input {
	struct rec_hdr h;
	uint32_t thread;
	uint32_t tseq;
	uint32_t call;	    /* RR_CALL_* (src/replay/rr_area.h) */
	int32_t fd;	    /* descriptor or clock id, -1 if none */
	int64_t result;	    /* the call's return value */
	uint64_t arg;	    /* call-specific (recvfrom: payload bytes before the address) */
	int32_t err;	    /* errno after the call when it failed, else 0 */
	uint32_t len;	    /* data bytes of the whole call */
	uint32_t chunk_off; /* offset of this record's data in the call's data */
	uint32_t nwords;
	uint64_t data[];
};
_Static_assert(sizeof(struct rec_input) == 72, "rec_input layout");

/* KIND_INPUT with op INPUT_OP_ZSTD (spool record --compress,
 * src/trace/zinput.c): data[] holds a struct rec_input_zstd, then the
 * chunk's data compressed with zstd (one frame); nwords counts those words.
 * Op 1 is a replay's own (RR_INPUT_REF, src/replay/rr_area.h), never in a
 * trace. */
enum { INPUT_OP_ZSTD = 2 };
struct rec_input_zstd {
	uint32_t raw;	 /* the chunk's data bytes */
	uint32_t packed; /* bytes of the zstd frame that follows */
};

#endif
