// SPDX-License-Identifier: MIT
/*
 * agent_func.c - the thread path (spool path): function entries and exits of
 * programs built with -finstrument-functions, and the POSIX message-queue
 * calls that make a call's object a "message".
 *
 * gcc and clang make an instrumented function call __cyg_profile_func_enter
 * and __cyg_profile_func_exit. glibc exports no-op versions of both, reached
 * through the PLT, so the definitions of this preloaded library win and the
 * program runs unchanged without spool. Each hook writes one KIND_FUNC record
 * into the calling thread's ring, only when the session set SHM_FEAT_PATH:
 * otherwise (spool locks on an instrumented program) it returns after one
 * load and a branch.
 *
 * mq_send/mq_receive (and the timed forms) always call the real function;
 * under SHM_FEAT_PATH they also write a KIND_FUNC record with op
 * FUNC_OP_MSG_SEND/RECV (fn = the queue descriptor) so the analysis can say
 * the enclosing call touched a message.
 *
 * Same rules as the lock hooks: no system call, allocation or lock on the
 * path; the busy flag makes a signal handler that lands here while this
 * thread is inside the agent skip its event. The hooks are never
 * instrumented themselves (the agent is built without the flag).
 */
#include <dlfcn.h>
#include <errno.h>
#include <mqueue.h>

#include "agent.h"
#include "agent_serial.h"

/* Recording function entries: set once in the constructor (and kept by a
 * fork child, which inherits the session). */
static int agent_func_on;
/* Instrumented frames open on this thread (only counted while recording). */
static __thread uint32_t agent_func_depth;
/* The exit hook has work: recording exits, counting them as progress
 * points (an older serial recording's replay), or a path schedule that
 * counts them. Set once in the constructor, after agent_rr_init. */
static int agent_func_exits;
/* The entry hook has nothing to do but count a serial progress point (no
 * path schedule, no recording of entries): the common case of a serial
 * record or replay, tested with one load. Testing agent_serial_on,
 * agent_func_on and agent_serial_path in turn cost 0.6 cycles a call, a
 * sixth of the hooks' cost in rr_cpu-finst. A fork child leaves serial
 * mode and clears it at its first slow call. */
static int agent_func_count_only;

void agent_func_init(void)
{
	agent_func_on = agent.active && agent.ctl &&
			(__atomic_load_n(&agent.ctl->features, __ATOMIC_RELAXED) & SHM_FEAT_PATH);
	agent_func_exits =
	    agent_func_on || (agent_serial_on && agent_serial_exits) || agent_serial_path == 2;
	agent_func_count_only = agent_serial_on && !agent_serial_path && !agent_func_on;
	agent_log("function entries %s", agent_func_on ? "recorded" : "not recorded");
}

static inline __attribute__((always_inline)) void
agent_func_emit(struct agent_thread *t, unsigned op, uint64_t fn, uint64_t site, uint32_t depth)
{
	struct rec_func *r;
	uint32_t seq;

	seq = ++t->seq;
	t->busy = 1;
	t->prod.ring->last_seq = seq;
	r = ring_prod_reserve(&t->prod, sizeof(*r));
	if (AGENT_UNLIKELY(!r))
		goto out;
	r->h.word = ev_word(KIND_FUNC, t->index, 0, op);
	r->h.tsc = agent_now(t);
	r->h.seq = seq;
	r->h.size = sizeof(*r);
	r->fn = fn;
	r->site = site;
	r->depth = depth;
	r->pad = 0;
	if (AGENT_UNLIKELY(ring_prod_commit(&t->prod, sizeof(*r))))
		agent_wake();
out:
	t->busy = 0;
}

/* Recording function entries (spool path): out of line, so the hooks
 * below stay leaves that save no register on their common path. */
static __attribute__((noinline)) void agent_func_record(void *this_fn, void *call_site, int entry)
{
	struct agent_thread *t = agent_enter();
	uint32_t depth;

	if (!t)
		return;
	depth = agent_func_depth;
	if (entry) {
		agent_func_depth = depth + 1;
	} else {
		if (depth)
			depth--;
		agent_func_depth = depth;
	}
	agent_func_emit(t, entry ? FUNC_OP_ENTER : FUNC_OP_EXIT, (uintptr_t)this_fn,
			(uintptr_t)call_site, depth);
}

/* Everything but the plain progress count: the path schedule's hook, the
 * serial slow path (counted: the caller has already counted this point and
 * reached the limit), recording the entry. */
static __attribute__((noinline)) void agent_func_slow(void *this_fn, void *call_site, int entry,
						      int counted)
{
	if (agent_serial_on) {
		if (counted)
			agent_serial_slow(RR_AT_POINT);
		else
			agent_serial_func(entry);
	} else if (counted) {
		/* A fork child left serial mode: its new threads would take
		 * this path at every call. */
		agent_func_count_only = 0;
	}
	if (agent_func_on)
		agent_func_record(this_fn, call_site, entry);
}

/*
 * The hooks run at every entry and exit of an instrumented program: in
 * serial mode the entries are its progress points, a few billion calls in a
 * long run. With the record path inlined, gcc saved six registers and set
 * up a frame on every call, which cost more than the count itself (and than
 * the small functions being counted). Now the common path is a leaf: in serial
 * mode one test, a count and a compare; anything else is a tail
 * call. omit-frame-pointer keeps it without a frame (a frame-pointer walk
 * through here just skips this leaf).
 */
AGENT_EXPORT __attribute__((optimize("omit-frame-pointer"))) void
__cyg_profile_func_enter(void *this_fn, void *call_site)
{
	if (AGENT_LIKELY(agent_func_count_only)) {
		if (AGENT_LIKELY(++agent_ser.count < agent_ser.limit))
			return;
		agent_func_slow(this_fn, call_site, 1, 1);
		return;
	}
	if (AGENT_LIKELY(!agent_serial_on && !agent_func_on))
		return;
	agent_func_slow(this_fn, call_site, 1, 0);
}

AGENT_EXPORT __attribute__((optimize("omit-frame-pointer"))) void
__cyg_profile_func_exit(void *this_fn, void *call_site)
{
	/* Serial mode counts entries only: an exit is followed by the next
	 * entry anyway, and skipping it here made serial recording of
	 * rr_cpu-finst 15% faster. */
	if (AGENT_LIKELY(!agent_func_exits))
		return;
	agent_func_slow(this_fn, call_site, 0, 0);
}

/* ---- message queues ---- */

static int (*agent_func_mq_send)(mqd_t, const char *, size_t, unsigned);
static int (*agent_func_mq_timedsend)(mqd_t, const char *, size_t, unsigned,
				      const struct timespec *);
static ssize_t (*agent_func_mq_receive)(mqd_t, char *, size_t, unsigned *);
static ssize_t (*agent_func_mq_timedreceive)(mqd_t, char *, size_t, unsigned *,
					     const struct timespec *);

/* dlsym once per function, on its first call (not a hot path: the pointer
 * is cached; concurrent first calls store the same value). NULL means libc
 * has no such function: the caller fails with ENOSYS. */
static void *agent_func_next(void **slot, const char *name)
{
	void *p = __atomic_load_n(slot, __ATOMIC_RELAXED);

	if (AGENT_UNLIKELY(!p)) {
		agent_self.busy++;
		p = dlsym(RTLD_NEXT, name);
		agent_self.busy--;
		__atomic_store_n(slot, p, __ATOMIC_RELAXED);
	}
	return p;
}

#define AGENT_FUNC_NEXT(var, name)                                                                 \
	do {                                                                                       \
		if (!agent_func_next((void **)&var, name)) {                                       \
			errno = ENOSYS;                                                            \
			return -1;                                                                 \
		}                                                                                  \
	} while (0)

/* Record a message-queue operation that succeeded. */
static void agent_func_msg(unsigned op, mqd_t q, uint64_t ip)
{
	struct agent_thread *t;

	if (AGENT_LIKELY(!agent_func_on))
		return;
	t = agent_enter();
	if (t)
		agent_func_emit(t, op, (uint64_t)(int64_t)q, ip, agent_func_depth);
}

AGENT_EXPORT int mq_send(mqd_t q, const char *msg, size_t len, unsigned prio)
{
	int rc;

	AGENT_FUNC_NEXT(agent_func_mq_send, "mq_send");
	rc = agent_func_mq_send(q, msg, len, prio);
	if (rc == 0)
		agent_func_msg(FUNC_OP_MSG_SEND, q, AGENT_RET_IP());
	return rc;
}

AGENT_EXPORT int mq_timedsend(mqd_t q, const char *msg, size_t len, unsigned prio,
			      const struct timespec *abs)
{
	int rc;

	AGENT_FUNC_NEXT(agent_func_mq_timedsend, "mq_timedsend");
	rc = agent_func_mq_timedsend(q, msg, len, prio, abs);
	if (rc == 0)
		agent_func_msg(FUNC_OP_MSG_SEND, q, AGENT_RET_IP());
	return rc;
}

AGENT_EXPORT ssize_t mq_receive(mqd_t q, char *msg, size_t len, unsigned *prio)
{
	ssize_t rc;

	AGENT_FUNC_NEXT(agent_func_mq_receive, "mq_receive");
	rc = agent_func_mq_receive(q, msg, len, prio);
	if (rc >= 0)
		agent_func_msg(FUNC_OP_MSG_RECV, q, AGENT_RET_IP());
	return rc;
}

AGENT_EXPORT ssize_t mq_timedreceive(mqd_t q, char *msg, size_t len, unsigned *prio,
				     const struct timespec *abs)
{
	ssize_t rc;

	AGENT_FUNC_NEXT(agent_func_mq_timedreceive, "mq_timedreceive");
	rc = agent_func_mq_timedreceive(q, msg, len, prio, abs);
	if (rc >= 0)
		agent_func_msg(FUNC_OP_MSG_RECV, q, AGENT_RET_IP());
	return rc;
}
