// SPDX-License-Identifier: MIT
/*
 * agent_thread.c - the thread table side of the agent: a thread claims a
 * ring on its first event and opens it with KIND_THREAD; pthread_create is
 * wrapped so the child records OP_THREAD_START and its ring is marked
 * RING_EXITED when it ends; join and exit are recorded; a fork child starts
 * over with its own rings and process slot.
 *
 * Thread operations use object index 0: the thread involved is named by the
 * pthread_t in arg, which the KIND_THREAD records map back to a thread.
 */
#include <errno.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sched.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "agent.h"
#include "agent_rr.h"
#include "agent_rr_dispatch.h"
#include "agent_sys.h"

__thread struct agent_thread agent_self;

/* Start-argument slots for wrapped thread starts: no malloc in the agent.
 * A slot is busy only between pthread_create and the child's first
 * instruction, so a small pool covers bursts of creation; when it is
 * exhausted the thread is created unwrapped (it still registers on its
 * first lock event, and the key destructor still marks its ring exited). */
#define AGENT_START_SLOTS 256
struct agent_start {
	void *(*fn)(void *);
	void *arg;
	uint32_t used;
	uint32_t rr_number; /* record/replay: the new thread's number (agent_rr.h) */
};
static struct agent_start agent_starts[AGENT_START_SLOTS];

/* Its destructor runs at the exit of every thread that registered, however
 * it ends (return, pthread_exit, cancellation). */
static pthread_key_t agent_exit_key;
static int agent_exit_key_ok;

extern void *__libc_stack_end;

static void agent_key_destructor(void *v)
{
	struct agent_thread *t = &agent_self;

	if (t->state == AGENT_T_ON)
		agent_thread_exit(t, 0);
}

void agent_thread_init(void)
{
	if (pthread_key_create(&agent_exit_key, agent_key_destructor) == 0)
		agent_exit_key_ok = 1;
	pthread_atfork(NULL, NULL, agent_thread_fork_child);
}

/* Emitting a metadata record: reserve, fill the header, commit. */
static void *agent_meta_begin(struct agent_thread *t, uint32_t len, uint32_t *seq)
{
	*seq = ++t->seq;
	t->prod.ring->last_seq = *seq;
	return ring_prod_reserve(&t->prod, len);
}

static void agent_meta_end(struct agent_thread *t, struct rec_hdr *h, unsigned kind, uint32_t obj,
			   uint32_t seq, uint32_t len)
{
	h->word = ev_word(kind, t->index, obj, 0);
	h->tsc = __rdtsc();
	h->seq = seq;
	h->size = len;
	if (ring_prod_commit(&t->prod, len))
		agent_wake();
}

static void agent_emit_proc(struct agent_thread *t)
{
	struct rec_proc *r;
	uint32_t seq;

	r = agent_meta_begin(t, sizeof(*r), &seq);
	if (!r)
		return;
	r->pid = agent.pid;
	r->ppid = (uint32_t)getppid();
	r->proc_slot = agent.proc_slot;
	r->flags = agent.proc_flags;
	agent_meta_end(t, &r->h, KIND_PROC, 0, seq, sizeof(*r));
}

#ifdef MADV_POPULATE_WRITE
#define AGENT_MADV_POPULATE_WRITE MADV_POPULATE_WRITE
#else
#define AGENT_MADV_POPULATE_WRITE 23
#endif

/*
 * Fault a ring's pages in ahead of the producer, not one by one on the hot
 * path: in a VM a page fault is an exit, and one MADV_POPULATE_WRITE
 * (Linux 5.14) costs a fraction of touching each page. It is done in chunks
 * as the ring fills (64 KiB first, doubling to 1 MiB), not for the whole
 * ring when the thread starts: populating 8 MiB took 4 ms per thread, most
 * of the cost of a thread that writes a few hundred records (pigz's). One
 * system call per chunk, on the producer's own thread; async-signal-safe.
 */
#define AGENT_RING_CHUNK_MIN (64u << 10)
#define AGENT_RING_CHUNK_MAX (1u << 20)

static void agent_ring_ready(struct ring_prod *p, uint64_t need)
{
	uint64_t from = p->ready, chunk = from < AGENT_RING_CHUNK_MIN ? AGENT_RING_CHUNK_MIN : from;
	uint64_t to;
	uintptr_t lo, hi;

	if (chunk > AGENT_RING_CHUNK_MAX)
		chunk = AGENT_RING_CHUNK_MAX;
	to = from + chunk;
	if (to < need)
		to = need;
	if (to >= p->size) {
		to = p->size;
		p->ready = UINT64_MAX;
	} else {
		p->ready = to;
	}
	lo = ((uintptr_t)p->data + from) & ~(uintptr_t)4095;
	hi = ((uintptr_t)p->data + to + 4095) & ~(uintptr_t)4095;
	if (madvise((void *)lo, hi - lo, AGENT_MADV_POPULATE_WRITE))
		for (uintptr_t a = lo; a < hi; a += 4096)
			__atomic_store_n((unsigned char *)a, *(volatile unsigned char *)a,
					 __ATOMIC_RELAXED);
}

/* Frame-pointer walks must stay on this thread's stack. A glibc thread's
 * struct pthread sits at the top of its stack mapping; the main thread's
 * stack ends at __libc_stack_end. */
static uintptr_t agent_stack_hi(void)
{
	uintptr_t fp = (uintptr_t)__builtin_frame_address(0);
	uintptr_t self = (uintptr_t)pthread_self();

	if (self > fp && self - fp < (256u << 20))
		return self;
	return (uintptr_t)__libc_stack_end;
}

/* First event of a thread: claim a ring. Out of line, once per thread. */
void agent_thread_register(struct agent_thread *t)
{
	struct shm_ctl *c = agent.ctl;
	struct shm_ring *r;
	struct rec_thread *rt;
	uint32_t idx, seq;
	int saved = errno;

	if (t->state != AGENT_T_NEW || !agent.active)
		return;
	t->busy++;
	idx = __atomic_fetch_add(&c->nrings, 1, __ATOMIC_ACQ_REL);
	if (idx >= agent.max_rings) {
		t->state = AGENT_T_NORING;
		agent_log("no ring left for tid %d", (int)gettid());
		goto out;
	}
	/* Mapped now, by the thread that claims it (agent_main.c). */
	r = agent_ring_map(idx);
	if (!r) {
		/* Its events are counted in lost_no_ring (agent_enter). */
		t->state = AGENT_T_NORING;
		agent_log("cannot map ring %u for tid %d", idx, (int)gettid());
		goto out;
	}
	r->tid = (uint32_t)gettid();
	r->pid = agent.pid;
	r->thread_index = idx;
	__atomic_store_n(&r->state, RING_ACTIVE, __ATOMIC_RELEASE);
	ring_prod_init(&t->prod, r, agent.ring_bytes, agent.watermark);
	t->prod.ready = 0;
	t->prod.on_ready = agent_ring_ready;
	agent_ring_ready(&t->prod, 1);
	if (!(c->flags & SHM_F_DROP_WHEN_FULL))
		t->prod.on_full = agent_ring_full;
	t->index = idx;
	t->word = ev_word(KIND_LOCK, idx, 0, 0);
	t->seq = 0;
	t->stack_hi = agent_stack_hi();
	t->state = AGENT_T_ON;

	rt = agent_meta_begin(t, sizeof(*rt), &seq);
	if (rt) {
		rt->tid = r->tid;
		rt->pid = agent.pid;
		rt->pthread = (uint64_t)pthread_self();
		memset(rt->name, 0, sizeof(rt->name));
		prctl(PR_GET_NAME, rt->name, 0, 0, 0);
		rt->name[sizeof(rt->name) - 1] = 0;
		agent_meta_end(t, &rt->h, KIND_THREAD, 0, seq, sizeof(*rt));
	}
	if (!__atomic_exchange_n(&agent.proc_emitted, 1, __ATOMIC_ACQ_REL))
		agent_emit_proc(t);
	if (agent_exit_key_ok)
		pthread_setspecific(agent_exit_key, (void *)1);
	agent_log("tid %u pid %u ring %u", r->tid, agent.pid, idx);
out:
	t->busy--;
	errno = saved;
}

/* The thread is ending: record it and close its ring for good. */
void agent_thread_exit(struct agent_thread *t, uint64_t ip)
{
	struct shm_ring *r;

	if (t->state != AGENT_T_ON)
		return;
	if (AGENT_UNLIKELY(agent_rr_mode))
		agent_rr_thread_end();
	if (AGENT_UNLIKELY(agent_sys_cpu_on))
		agent_sys_thread_end(t);
	agent_emit(t, 0, OP_THREAD_EXIT, ip, (uint64_t)pthread_self(), __builtin_frame_address(0));
	r = t->prod.ring;
	t->state = AGENT_T_DONE;
	__atomic_store_n(&r->state, RING_EXITED, __ATOMIC_RELEASE);
}

void agent_thread_fork_child(void)
{
	struct agent_thread *t = &agent_self;
	int i;

	if (!agent.ctl)
		return;
	/* The other threads are gone, and with them their in-flight starts. */
	for (i = 0; i < AGENT_START_SLOTS; i++)
		agent_starts[i].used = 0;
	memset(&t->prod, 0, sizeof(t->prod));
	t->state = AGENT_T_NEW;
	t->seq = 0;
	if (!agent.active)
		return;
	agent_lock_table_clear();
	agent_proc_claim(PROC_F_FORK);
	agent_thread_register(t);
}

/* ---- interposers ---- */

static void *agent_thread_start(void *p)
{
	struct agent_start *s = p;
	void *(*fn)(void *) = s->fn;
	void *arg = s->arg;
	struct agent_thread *t;
	void *ret;

	agent_rr_thread_start(s->rr_number);
	__atomic_store_n(&s->used, 0, __ATOMIC_RELEASE);
	t = agent_enter();
	if (t)
		agent_emit(t, 0, OP_THREAD_START, (uint64_t)(uintptr_t)fn,
			   (uint64_t)pthread_self(), __builtin_frame_address(0));
	if (AGENT_UNLIKELY(agent_rr_mode)) {
		agent_rr_dispatch_thread(); /* dispatch is per thread */
		agent_rr_thread_go(); /* serial mode: no user code before the run token */
	}
	ret = fn(arg);
	t = agent_enter();
	if (t)
		agent_thread_exit(t, (uint64_t)(uintptr_t)fn);
	return ret;
}

static struct agent_start *agent_start_alloc(void)
{
	int i;

	for (i = 0; i < AGENT_START_SLOTS; i++) {
		uint32_t z = 0;

		if (!__atomic_load_n(&agent_starts[i].used, __ATOMIC_RELAXED) &&
		    __atomic_compare_exchange_n(&agent_starts[i].used, &z, 1, 0, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			return &agent_starts[i];
	}
	return NULL;
}

AGENT_EXPORT int pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *),
				void *arg)
{
	uint64_t ip = AGENT_RET_IP();
	struct agent_thread *t;
	struct agent_start *s;
	uint32_t rr = RR_NO_TURN;
	int rc;

	AGENT_REAL_OR(create, EAGAIN);
	t = agent_enter();
	if (!t)
		return agent_real.create(th, attr, fn, arg);
	/* Record/replay numbers threads in creation order (agent_rr.c); a
	 * replayed failure returns without creating anything. */
	if (AGENT_UNLIKELY(agent_rr_mode)) {
		rr = agent_rr_create_begin(t, &rc);
		if (rc)
			return rc;
	}
	s = agent_start_alloc();
	if (!s) {
		agent_log("start slots exhausted: thread not wrapped");
		rc = agent_real.create(th, attr, fn, arg);
	} else {
		s->fn = fn;
		s->arg = arg;
		s->rr_number = rr;
		rc = agent_real.create(th, attr, agent_thread_start, s);
		if (rc)
			__atomic_store_n(&s->used, 0, __ATOMIC_RELEASE);
	}
	if (AGENT_UNLIKELY(agent_rr_mode))
		agent_rr_create_end(t, rr, rc);
	if (!rc)
		agent_emit(t, 0, OP_THREAD_CREATE, ip, (uint64_t)*th, __builtin_frame_address(0));
	return rc;
}

AGENT_EXPORT int pthread_join(pthread_t th, void **ret)
{
	uint64_t ip = AGENT_RET_IP();
	struct agent_thread *t;
	int rc;

	AGENT_REAL_OR(join, ENOSYS);
	t = agent_enter();
	if (!t)
		return agent_real.join(th, ret);
	agent_emit(t, 0, OP_THREAD_JOIN_BEGIN, ip, (uint64_t)th, __builtin_frame_address(0));
	if (AGENT_UNLIKELY(agent_rr_mode)) {
		agent_rr_join_begin(t);
		rc = agent_rr_join_wait(th, ret);
	} else {
		rc = agent_real.join(th, ret);
	}
	t = agent_enter();
	if (t && AGENT_UNLIKELY(agent_rr_mode))
		agent_rr_join_end(t, rc);
	if (t)
		agent_emit(t, 0, rc ? OP_TIMEOUT : OP_THREAD_JOIN_END, ip,
			   rc ? (uint64_t)rc : (uint64_t)th, __builtin_frame_address(0));
	return rc;
}

AGENT_EXPORT void pthread_exit(void *ret)
{
	uint64_t ip = AGENT_RET_IP();
	struct agent_thread *t;

	if (!agent_real.exit)
		agent_resolve();
	t = agent_enter();
	if (t)
		agent_thread_exit(t, ip);
	if (agent_real.exit)
		agent_real.exit(ret);
	/* Unreachable unless dlsym failed: leave the thread the hard way. */
	for (;;)
		syscall(SYS_exit, 0);
}
