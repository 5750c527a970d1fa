// SPDX-License-Identifier: MIT
/*
 * agent.h - internals of libspool-agent.so shared by its files: the
 * process-wide state, the per-thread state in initial-exec TLS, the table of
 * real (next) functions, and the inline event producer used by every
 * interposer.
 *
 * Everything here is hidden (-fvisibility=hidden); only the interposed
 * functions listed in agent.map are exported.
 *
 * Rules (DESIGN.md, "Rules for the agent"): the hot path makes no system
 * call, no allocation, no stdio and takes no libc lock; it only reads TLS,
 * the lock table and the thread's own ring. Anything slow (registering a
 * thread, the first sight of a lock, waking the collector) is out of line.
 */
#ifndef SPOOL_AGENT_AGENT_H
#define SPOOL_AGENT_AGENT_H

#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include "../arch/arch.h"
#include "../arch/arch_sys.h"

#include "../common/event.h"
#include "../common/ring_produce.h"
#include "../common/shm.h"

#define AGENT_LIKELY(x) __builtin_expect(!!(x), 1)
#define AGENT_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* The agent's own code, from its ELF header to the end of its text (its
 * linker's symbols, hidden, so this library's own). A system call, a
 * `cpuid` or a call made from there is the agent's, never the program's:
 * syscall dispatch lets it through, the syscall() interposer does not
 * redirect it, and the cpuid handler answers it unrecorded. */
extern const char __ehdr_start[] __attribute__((visibility("hidden")));
extern const char __etext[] __attribute__((visibility("hidden")));

static inline int agent_own_text(const void *ip)
{
	return (uintptr_t)ip >= (uintptr_t)__ehdr_start && (uintptr_t)ip < (uintptr_t)__etext;
}

/* Store the next definition of NAME (dlsym RTLD_NEXT) in the function
 * pointer VAR when there is one; VAR keeps its fallback otherwise. Used by
 * the interposers' constructors, with agent_self.busy raised around them. */
#define AGENT_RESOLVE(var, name)                                                                   \
	do {                                                                                       \
		void *p_ = dlsym(RTLD_NEXT, name);                                                 \
		if (p_)                                                                            \
			__atomic_store_n((void **)&var, p_, __ATOMIC_RELAXED);                     \
	} while (0)
/*
 * The entry stubs (scripts/agent-stubs.sh, src/arch/<cpu>/agent_stub.h)
 * lie between agent_stub_start and agent_stub_end. While recording or
 * replaying, an exported interposer is called by its stub, which made a
 * frame record: the program's return address is the stub's, one frame up.
 * AGENT_RET_IP() and agent_stub_frame() see through it (the interposer must
 * itself have a frame: the agent is built with frame pointers).
 */
extern const char agent_stub_start[], agent_stub_end[];
void agent_stack_scrub(void);
/* agent_scrub.c: the bounds of this thread's stack the stubs zero within */
void agent_scrub_main(void);
void agent_scrub_thread(void);
void agent_scrub_report(void);
/* agent_scrub_bind.c: bind the PLT slots of the stubs that zero little */
void agent_scrub_bind(void);
/* the stub macros' table (src/arch/<cpu>/agent_stub.h): one entry a stub */
struct agent_scrub_ent {
	const char *name;
	uint64_t *deep; /* check mode: the deepest call seen, bytes below the stub's sp */
	uint64_t span;	/* what the stub zeroes */
};
extern const struct agent_scrub_ent __start_spool_scrub_tab[], __stop_spool_scrub_tab[];
extern __thread uintptr_t agent_scrub_lo, agent_scrub_hi;

static inline uint64_t agent_stub_caller(const void *ra, void *fp)
{
	if (__builtin_expect((const char *)ra >= agent_stub_start && (const char *)ra < agent_stub_end, 0))
		return (uint64_t)((uintptr_t **)fp)[0][1];
	return (uint64_t)(uintptr_t)ra;
}

/* The frame whose return address is in the program: the stub's when the
 * interposer (frame fp) was called by one. */
static inline void *agent_stub_frame(void *fp)
{
	const char *ra = (const char *)((uintptr_t *)fp)[1];

	if (__builtin_expect(ra >= agent_stub_start && ra < agent_stub_end, 0))
		return (void *)((uintptr_t *)fp)[0];
	return fp;
}

#define AGENT_RET_IP() agent_stub_caller(__builtin_return_address(0), __builtin_frame_address(0))
#define AGENT_EXPORT __attribute__((visibility("default")))

/* Process-wide state, written at startup (and in a fork child) only. */
struct agent_state {
	struct shm_ctl *ctl;	 /* the head (ctl + process slots); NULL while inert */
	uint64_t map_size;	 /* bytes of the memfd (the region's total size) */
	int fd;			 /* the memfd rings and areas are mapped from */
	uint64_t fd_dev, fd_ino; /* what fd was at startup: checked before each mmap */
	uint32_t ring_bytes;	 /* copied from ctl at startup */
	uint32_t max_rings;
	uint32_t max_procs; /* process slots in use, copied from ctl at startup */
	uint64_t head_size; /* bytes of ctl mapped: shm_head_map_size(max_procs) */
	uint32_t watermark;
	struct shm_ring **rings; /* max_rings entries: our mapping of each ring, or NULL */
	void *ext[SHM_MAX_EXT];	 /* our mapping of each feature area, or NULL */
	uint64_t ext_len[SHM_MAX_EXT]; /* bytes of it mapped (all, or its head) */
	char *text;		 /* our window on this process's text area */
	uint64_t text_cap;	 /* bytes of that window */
	int active;		 /* recording; read on every event */
	int debug;		 /* SPOOL_DEBUG set */
	uint32_t pid;		 /* getpid(): this process in its own pid namespace */
	/* This process as spool sees it (the pid namespace of the /proc it
	 * inherited): what goes into shared memory and the trace (process
	 * slot, rings, records) and what is compared with them. agent.pid
	 * but in a pid namespace of its own (CLONE_NEWPID, unshare); 0 when
	 * unknown there (its own /proc mounted: agent_proc_claim). */
	uint32_t seen_pid;
	uint32_t seen_ppid;	  /* the parent, seen the same way */
	uint32_t pidns;		  /* seen_pid differs: tids are translated too */
	uint32_t proc_slot;	  /* UINT32_MAX if none could be claimed */
	uint32_t proc_flags;	  /* PROC_F_* of this process */
	uint32_t stack_depth;
	uint32_t proc_emitted;	  /* KIND_PROC already written for this process */
	uint32_t reexec_same;	  /* this image replaced one of the same executable */
	uint32_t host_pid;	  /* spool's pid, copied from ctl at startup */
	uint32_t host_child;	  /* our pid at startup if spool was our parent, else 0 */
	uint32_t packets;	  /* SHM_F_PACKETS: rings hold finished packets */
	uint32_t untimed;	  /* SHM_F_UNTIMED, with packets: no per-event time */
	struct ring_sites **ring_sites; /* max_rings entries: each ring's site cache, or NULL */
};
extern struct agent_state agent;
/* The descriptor the region came from (SPOOL_SHM_FD, or the one reopened
 * from SPOOL_SHM_PATH), kept open across exec for the next image (in attach
 * mode: the one the agent opened, close-on-exec); -1 when there is none
 * (inert). close, close_range and closefrom leave it open (agent_sys.c):
 * the agent maps rings from it as threads claim them. */
extern int agent_shm_fd;

/* agent_thread.state */
enum {
	AGENT_T_NEW = 0,    /* no ring yet: registers on its first event */
	AGENT_T_ON = 1,	    /* recording into prod */
	AGENT_T_NORING = 2, /* no ring was left: events are dropped and counted */
	AGENT_T_DONE = 3,   /* ring marked RING_EXITED: nothing more is recorded */
	AGENT_T_FORK = 4,   /* in fork(), from the prepare handler to the parent's or
			     * child's: the child must not write in the parent's ring */
	AGENT_T_FORKED = 5, /* a process child left out (record and replay's
			     * without a fork handler, one in a pid namespace of
			     * its own): it has no ring of its own, its events are
			     * dropped and counted (ctl->lost_fork) */
	AGENT_T_SHARED = 6, /* the thread made a thread of its own clone that shares its
			     * TLS, this state included: own_state is the owner's
			     * (owner_tid); another thread's events are dropped and
			     * counted (ctl->lost_clone, agent_thread_shared) */
	AGENT_T_PIDNS = 7,  /* a process in a pid namespace with a /proc of its own
			     * (agent_proc_claim: no slot): no ring, its events are
			     * dropped and counted (ctl->lost_pidns) */
};

/* Per-thread state; initial-exec TLS so access is one %fs-relative load. */
struct agent_thread {
	struct ring_prod prod;
	uint64_t word;	/* ev_word(KIND_LOCK, index, 0, 0), or'ed with obj and op */
	uint32_t index; /* thread index == ring number */
	uint32_t seq;	/* events attempted, dropped ones included */
	uint8_t state;	/* AGENT_T_* */
	uint8_t busy;	/* recursion guard: inside the agent (own locks, signal re-entry) */
	uint8_t resolving;
	uint8_t own_state;  /* AGENT_T_SHARED: the owner's own state */
	uint32_t owner_tid; /* AGENT_T_SHARED: the thread the state is of */
	uintptr_t stack_hi; /* frame-pointer walks stay below this */
	/* Where its frames are: [stack_lo, stack_lo + stack_len), the span
	 * below stack_hi (agent_thread_stack_range). A frame elsewhere (or a
	 * probe hit's stack pointer, agent_probe_hot.c) takes the slow path
	 * (agent_thread_offstack): a thread of the program's own
	 * clone that spool did not see being made runs on this TLS, on another
	 * stack. stack_len UINTPTR_MAX: every frame is taken as its own. */
	uintptr_t stack_lo;
	uintptr_t stack_len;
	uint32_t offstack; /* frames of its own found off that span */
};
extern __thread struct agent_thread agent_self;

/* VAR, the next definition of NAME, looked up on the first call (an
 * interposer called before the constructors ran, or whose library is
 * loaded late): busy around dlsym, which may take the loader's locks and
 * call what the agent interposes. Concurrent first calls store the same
 * value. */
#define AGENT_RESOLVE_LAZY(var, name)                                                              \
	({                                                                                         \
		if (AGENT_UNLIKELY(!var)) {                                                        \
			agent_self.busy++;                                                         \
			AGENT_RESOLVE(var, name);                                                  \
			agent_self.busy--;                                                         \
		}                                                                                  \
		var;                                                                               \
	})

/* The next definitions of everything we interpose. */
struct agent_real {
	int (*mutex_lock)(pthread_mutex_t *);
	int (*mutex_trylock)(pthread_mutex_t *);
	int (*mutex_timedlock)(pthread_mutex_t *, const struct timespec *);
	int (*mutex_clocklock)(pthread_mutex_t *, clockid_t, const struct timespec *);
	int (*mutex_unlock)(pthread_mutex_t *);
	int (*mutex_init)(pthread_mutex_t *, const pthread_mutexattr_t *);
	int (*mutex_destroy)(pthread_mutex_t *);
	int (*rwlock_rdlock)(pthread_rwlock_t *);
	int (*rwlock_wrlock)(pthread_rwlock_t *);
	int (*rwlock_tryrdlock)(pthread_rwlock_t *);
	int (*rwlock_trywrlock)(pthread_rwlock_t *);
	int (*rwlock_timedrdlock)(pthread_rwlock_t *, const struct timespec *);
	int (*rwlock_timedwrlock)(pthread_rwlock_t *, const struct timespec *);
	int (*rwlock_clockrdlock)(pthread_rwlock_t *, clockid_t, const struct timespec *);
	int (*rwlock_clockwrlock)(pthread_rwlock_t *, clockid_t, const struct timespec *);
	int (*rwlock_unlock)(pthread_rwlock_t *);
	int (*rwlock_init)(pthread_rwlock_t *, const pthread_rwlockattr_t *);
	int (*rwlock_destroy)(pthread_rwlock_t *);
	int (*spin_lock)(pthread_spinlock_t *);
	int (*spin_trylock)(pthread_spinlock_t *);
	int (*spin_unlock)(pthread_spinlock_t *);
	int (*spin_init)(pthread_spinlock_t *, int);
	int (*spin_destroy)(pthread_spinlock_t *);
	int (*sem_wait)(sem_t *);
	int (*sem_trywait)(sem_t *);
	int (*sem_timedwait)(sem_t *, const struct timespec *);
	int (*sem_clockwait)(sem_t *, clockid_t, const struct timespec *);
	int (*sem_post)(sem_t *);
	int (*sem_init)(sem_t *, int, unsigned);
	int (*sem_destroy)(sem_t *);
	int (*cond_wait)(pthread_cond_t *, pthread_mutex_t *);
	int (*cond_timedwait)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *);
	int (*cond_clockwait)(pthread_cond_t *, pthread_mutex_t *, clockid_t,
			      const struct timespec *);
	int (*cond_signal)(pthread_cond_t *);
	int (*cond_broadcast)(pthread_cond_t *);
	int (*cond_init)(pthread_cond_t *, const pthread_condattr_t *);
	int (*cond_destroy)(pthread_cond_t *);
	int (*barrier_wait)(pthread_barrier_t *);
	int (*barrier_init)(pthread_barrier_t *, const pthread_barrierattr_t *, unsigned);
	int (*barrier_destroy)(pthread_barrier_t *);
	int (*create)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
	int (*join)(pthread_t, void **);
	void (*exit)(void *) __attribute__((noreturn));
	void *(*dlopen)(const char *, int);
	void (*uexit)(int) __attribute__((noreturn)); /* _exit */
};
extern struct agent_real agent_real;

/* agent_main.c */
void agent_resolve(void);
void agent_disable(const char *why);
void agent_log(const char *fmt, ...);
/* Whether spool (the host) has gone: 1 once it has, and from then on
 * without a system call. A system call or two (getpid, getppid or kill), so
 * only waiting loops ask, once a round; the first to see it stops
 * recording and says so once. Async-signal-safe. */
int agent_host_gone(void);
/* Set once spool is seen gone; waits read it to let every thread go. */
extern int agent_gone;
/* agent_full.c: a full ring waits for the collector (bounded); see there. */
int agent_ring_full(struct ring_prod *p, uint32_t len);
void agent_proc_refresh_maps(void);
void agent_proc_claim(uint32_t flags);
/* Ring i of the region, mapped now if this process has not yet (a thread
 * claiming it), or NULL: no address space, or the region's descriptor is
 * gone (the program closed it). Async-signal-safe (mmap, fstat). */
struct shm_ring *agent_ring_map(uint32_t i);
/* Ring i if this process has it mapped, else NULL. */
struct shm_ring *agent_ring_mapped(uint32_t i);
/* Ring i's site cache (SHM_F_PACKETS), mapped on first use, or NULL (its
 * events are then written in full). Async-signal-safe (mmap). */
struct ring_sites *agent_ring_sites(uint32_t i);
/* Feature area i (SHM_EXT_*), mapped on first use, and its size; NULL when
 * the region has none or it cannot be mapped. */
void *agent_ext(unsigned i, uint64_t *size);
/* mmap for the agent's own memory, at a fixed place away from the
 * program's mappings (agent_vm.c): the same arguments and result as mmap
 * (no address: the window chooses). Keeps errno on success. */
void *agent_vm_map(size_t len, int prot, int flags, int fd, off_t off);
/* The same, but a first call maps only the first head bytes (rounded up to
 * a page; all of it when head is 0): every mapped byte counts against the
 * program's RLIMIT_AS. Later calls return that mapping, *size its bytes. */
void *agent_ext_head(unsigned i, uint64_t head, uint64_t *size);
/* The whole size of feature area i (0: none). */
uint64_t agent_ext_size(unsigned i);
/* A new mapping of len bytes at page-aligned offset off of feature area i,
 * or NULL. Async-signal-safe (mmap). */
void *agent_ext_piece(unsigned i, uint64_t off, uint64_t len);

/* agent_lazy.c: an array in a feature area mapped a chunk at a time, on
 * first use, so the program's address space pays for what is used (record's
 * turn words and serial slots: 12 MiB mapped whole, 128 KiB used by most
 * programs). */
#define AGENT_LAZY_CHUNKS 128
#define AGENT_LAZY_CHUNK_BYTES (64u << 10)
struct agent_lazy {
	unsigned ext;	    /* SHM_EXT_* */
	uint64_t off;	    /* element 0's offset in the area, page-aligned */
	uint32_t elem;	    /* bytes of an element, a divisor of AGENT_LAZY_CHUNK_BYTES */
	uint32_t n;	    /* elements (at most AGENT_LAZY_CHUNKS chunks' worth) */
	char *chunk[AGENT_LAZY_CHUNKS]; /* our mapping of each chunk, or NULL */
};
/* Set l up for n elements of elem bytes at off of area ext; whole, when not
 * NULL, is a mapping of the whole area (nothing is mapped then). Returns
 * the elements it can reach (n, or fewer if n is more than the chunks
 * hold or the area is too small). */
uint32_t agent_lazy_init(struct agent_lazy *l, unsigned ext, uint64_t off, uint32_t elem,
			 uint32_t n, char *whole);
/* Element i, its chunk mapped now if no thread of this process has; NULL
 * past n or when it cannot be mapped. Async-signal-safe (mmap, a CAS). */
void *agent_lazy_at(struct agent_lazy *l, uint32_t i);
/* This image's executable (readlink of /proc/self/exe when its slot was
 * claimed; "" before). */
const char *agent_exe_path(void);
void agent_wake(void);

/* The calling thread's tid as spool sees it (agent_state.seen_pid): gettid()
 * but in a pid namespace of its own, there read from /proc/thread-self; 0
 * when unknown. No allocation, no lock (a fork child before its handlers). */
uint32_t agent_seen_tid(void);

/* agent_thread.c */
void agent_thread_register(struct agent_thread *t);
void agent_thread_exit(struct agent_thread *t, uint64_t ip);
void agent_thread_init(void);
void agent_thread_fork_child(void);
struct agent_thread *agent_thread_forking(void);
/* 1 in a fork child that started over on an event before its fork
 * handlers ran (agent_thread_forking): they have nothing left to do. */
int agent_thread_child_started(void);
long agent_thread_raw_fork(long (*call)(void *), void *arg, unsigned long flags);
struct agent_thread *agent_thread_shared(struct agent_thread *t);
struct agent_thread *agent_thread_offstack_busy(struct agent_thread *t);
/* agent_procstat.c. A file under /proc into buf, NUL-terminated, its
 * trailing newline dropped, by raw calls: its length, or -errno. */
long agent_proc_read(const char *path, char *buf, size_t cap);
/* Field k (1-based, as proc(5) numbers them) of a stat line, past the
 * command name; NULL if the line is shorter. */
const char *agent_proc_stat_field(const char *stat, int k);
struct agent_thread *agent_thread_offstack(struct agent_thread *t);
void agent_thread_raw_clone(unsigned long flags);
int agent_thread_foreign(void);
int agent_thread_on_foreign_tls(void);
/* The kernel tid of thread th (alive), from its descriptor; -1 unknown. */
pid_t agent_thread_tid_of(pthread_t th);

/* agent_func.c */
void agent_func_init(void);

/* agent_testhold.c (tests only: SPOOL_TEST_HOLD) */
extern int agent_testhold_on;
void agent_testhold_init(void);
void agent_testhold(void);

/* agent_lock.c */
uint32_t agent_lock_slow(struct agent_thread *t, const void *addr, uint32_t type, uint64_t ip,
			 int fresh);
void agent_lock_table_clear(void);
void agent_emit_stack(struct agent_thread *t, uint32_t obj, unsigned op, uint64_t ip,
		      uint64_t arg, void *frame);

/*
 * Resolve lazily: an interposed function can be called by another library's
 * constructor before ours ran. agent_resolve does nothing when re-entered on
 * the same thread (dlsym itself may land here), so the pointer can still be
 * NULL: the caller then falls back (see AGENT_REAL_OR).
 */
#define AGENT_REAL_OR(name, fallback)                                                              \
	do {                                                                                       \
		if (AGENT_UNLIKELY(!__atomic_load_n(&agent_real.name, __ATOMIC_RELAXED))) {        \
			agent_resolve();                                                           \
			if (!__atomic_load_n(&agent_real.name, __ATOMIC_RELAXED))                  \
				return fallback;                                                   \
		}                                                                                  \
	} while (0)

/*
 * The calling thread's state if this event should be recorded, else NULL:
 * agent inert, re-entered (the agent's own lock use, or a signal handler
 * interrupting an emission), or the thread finished. Registers the thread
 * on its first event.
 */
static inline __attribute__((always_inline)) struct agent_thread *agent_enter(void)
{
	struct agent_thread *t = &agent_self;

	if (AGENT_LIKELY(agent.active && t->state == AGENT_T_ON && !t->busy &&
			 (uintptr_t)__builtin_frame_address(0) - t->stack_lo < t->stack_len))
		return t;
	/* a frame off its stack: its own on another stack, or another's */
	if (agent.active && t->state == AGENT_T_ON && !t->busy)
		return agent_thread_offstack(t);
	/* before busy: busy is the owner's too */
	if (t->state == AGENT_T_SHARED && agent.active)
		return agent_thread_shared(t);
	/* busy with a frame off the stack: the owner re-entered from another
	 * stack (a signal handler on its alternate stack), or a thread of the
	 * program's own clone on this TLS while the owner is inside spool:
	 * the kernel says which (its events were dropped uncounted before) */
	if (agent.active && t->state == AGENT_T_ON && t->busy &&
	    (uintptr_t)__builtin_frame_address(0) - t->stack_lo >= t->stack_len)
		return agent_thread_offstack_busy(t);
	if (!agent.active || t->busy)
		return 0;
	{
		if (t->state == AGENT_T_NEW)
			agent_thread_register(t);
		if (t->state == AGENT_T_NORING)
			/* Counted per interposed call, one or two events each. */
			__atomic_fetch_add(&agent.ctl->lost_no_ring, 1, __ATOMIC_RELAXED);
		if (t->state == AGENT_T_FORK)
			return agent_thread_forking();
		if (t->state == AGENT_T_FORKED)
			__atomic_fetch_add(&agent.ctl->lost_fork, 1, __ATOMIC_RELAXED);
		if (t->state == AGENT_T_PIDNS)
			__atomic_fetch_add(&agent.ctl->lost_pidns, 1, __ATOMIC_RELAXED);
		if (t->state != AGENT_T_ON)
			return 0;
	}
	return t;
}

/* Lock table lookup; agent_lock.c owns the table, the fast path is here. */
#define AGENT_LOCK_BITS 16
#define AGENT_LOCK_SLOTS (1u << AGENT_LOCK_BITS)
#define AGENT_LOCK_CLAIMING UINT32_MAX /* index being assigned by another thread */

struct agent_lock_slot {
	uint64_t addr;	/* 0 = never used; kept after destroy */
	uint32_t index; /* 0 = none (destroyed), AGENT_LOCK_CLAIMING, else live */
	uint32_t pad;
};
extern struct agent_lock_slot agent_locks[AGENT_LOCK_SLOTS];

static inline uint32_t agent_lock_hash(const void *addr)
{
	return (uint32_t)(((uint64_t)(uintptr_t)addr * 0x9e3779b97f4a7c15ULL) >>
			  (64 - AGENT_LOCK_BITS));
}

/* The lock index of addr; the first sight of a lock takes the slow path,
 * which emits its KIND_LOCKDEF. 0 = untracked (table full). */
static inline uint32_t agent_lock_index(struct agent_thread *t, const void *addr, uint32_t type,
					uint64_t ip)
{
	struct agent_lock_slot *s = &agent_locks[agent_lock_hash(addr)];

	if (AGENT_LIKELY(__atomic_load_n(&s->addr, __ATOMIC_RELAXED) == (uintptr_t)addr)) {
		uint32_t idx = __atomic_load_n(&s->index, __ATOMIC_ACQUIRE);

		if (AGENT_LIKELY(idx && idx != AGENT_LOCK_CLAIMING))
			return idx;
	}
	return agent_lock_slow(t, addr, type, ip, 0);
}

/*
 * An event's time: the TSC, or with --clock=none (SHM_F_UNTIMED, packets
 * in the ring) the time the open packet carries, read once when it opened
 * (src/common/ring_packet.h): no clock read per event, which is most of a
 * hit's cost on a VM where rdtsc takes 9 to 18 ns (doc/probe.md, "Cost").
 * ring_pkt_commit gives a staged record the packet's time in that mode
 * whatever it holds, so a general path that opens a new packet after this
 * read still writes the new packet's time.
 */
static inline __attribute__((always_inline)) uint64_t agent_now(const struct agent_thread *t)
{
	if (AGENT_UNLIKELY(t->prod.pkt.untimed))
		return t->prod.pkt.prev_tsc;
	return __rdtsc();
}

/*
 * Write one KIND_LOCK record into the thread's ring; t comes from
 * agent_enter (state AGENT_T_ON). obj 0 on a lock op
 * means the lock table was full: the event is counted in ring->lost. The
 * busy flag makes a signal handler that lands in an interposer during the
 * write skip recording instead of corrupting the half-written record.
 */
static inline __attribute__((always_inline)) void agent_emit(struct agent_thread *t, uint32_t obj,
							     unsigned op, uint64_t ip, uint64_t arg,
							     void *frame)
{
	struct rec_lock *r;
	uint64_t tsc = 0;
	uint32_t seq;
	int timed = 0;

	if (AGENT_UNLIKELY(agent.stack_depth)) {
		agent_emit_stack(t, obj, op, ip, arg, frame);
		return;
	}
	seq = ++t->seq;
	t->busy = 1;
	t->prod.ring->last_seq = seq;
	if (AGENT_UNLIKELY(!obj && op < OP_THREAD_CREATE)) {
		/* release: seen after last_seq (collector_lost_ok) */
		__atomic_store_n(&t->prod.ring->lost, t->prod.ring->lost + 1, __ATOMIC_RELEASE);
		goto out;
	}
	if (t->prod.pkt.slot && !arg) {
		/* packets in the ring: the common case written in place */
		int wake;

		/* read once: the general path below (a site the packet has
		 * not defined, a new packet) writes the event with this time,
		 * not a second rdtsc */
		tsc = agent_now(t);
		timed = 1;
		if (AGENT_LIKELY(ring_pkt_lock(&t->prod, op, obj, seq, ip, tsc, &wake))) {
			if (AGENT_UNLIKELY(wake))
				agent_wake();
			goto out;
		}
	}
	r = ring_prod_reserve(&t->prod, sizeof(*r));
	if (AGENT_UNLIKELY(!r))
		goto out;
	r->h.word = t->word | ((uint64_t)obj << EV_OBJ_SHIFT) | ((uint64_t)op << EV_OP_SHIFT);
	r->h.tsc = timed ? tsc : __rdtsc();
	r->h.seq = seq;
	r->h.size = sizeof(*r);
	r->ip = ip;
	r->arg = arg;
	if (AGENT_UNLIKELY(ring_prod_commit(&t->prod, sizeof(*r))))
		agent_wake();
out:
	t->busy = 0;
}

#endif
