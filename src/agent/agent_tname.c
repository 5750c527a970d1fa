// SPDX-License-Identifier: MIT
/*
 * agent_tname.c - a thread named after its start: pthread_setname_np and
 * prctl(PR_SET_NAME) write a KIND_TNAME record (src/common/event.h) in the
 * ring of the thread that named it, so the reports and exports show the name
 * the program gave (the KIND_THREAD record holds the name at the thread's
 * registration only: GLib's "pool-...", pigz's, a server's workers are
 * named by the thread itself once it runs, or by its creator after
 * pthread_create returned).
 *
 * Both calls go to libc first; the record is written only when the call
 * succeeded, with the name as the kernel keeps it (at most 15 bytes: prctl
 * truncates, pthread_setname_np refuses longer with ERANGE). glibc's
 * pthread_setname_np of the calling thread calls its own prctl, which no
 * interposer sees, so one call writes one record. A write to
 * /proc/self/task/T/comm made by the program itself is not seen (doc/locks.md
 * says so).
 *
 * Same rules as the lock interposers for the record (agent_enter, busy, no
 * allocation); the real functions are found on first use through dlsym, as
 * pthread_cancel's are (agent_rr_cancel.c). Nothing here changes what the
 * program gets back: errno and the result are libc's.
 */
#include <dlfcn.h>
#include <stdarg.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "agent.h"
#include "agent_rawsys.h"

static int (*tname_real_prctl)(int, ...);
static int (*tname_real_setname)(pthread_t, const char *);

/* One record: thread tid of this process is named name (copied up to 15
 * bytes, NUL-padded). Dropped and counted like any record when the ring is
 * full; not written at all when the agent does not record this thread. */
static void tname_emit(uint32_t tid, const char *name)
{
	struct agent_thread *t = agent_enter();
	struct rec_tname *r;
	uint32_t seq;
	size_t i;

	if (!t)
		return;
	t->busy = 1;
	seq = ++t->seq;
	t->prod.ring->last_seq = seq;
	r = ring_prod_reserve(&t->prod, sizeof(*r));
	if (AGENT_UNLIKELY(!r))
		goto out;
	r->h.word = ev_word(KIND_TNAME, t->index, 0, 0);
	r->h.tsc = __rdtsc();
	r->h.seq = seq;
	r->h.size = sizeof(*r);
	r->tid = tid;
	r->pid = agent.seen_pid;
	/* a plain loop: name is the program's, read once, never past its NUL */
	for (i = 0; i < sizeof(r->name) - 1 && name[i]; i++)
		r->name[i] = name[i];
	for (; i < sizeof(r->name); i++)
		r->name[i] = 0;
	if (AGENT_UNLIKELY(ring_prod_commit(&t->prod, sizeof(*r))))
		agent_wake();
out:
	t->busy = 0;
}

/* Resolved with busy set: dlsym may allocate, and the allocator may call
 * an interposer back. errno is the program's. */
static void tname_resolve(void **var, const char *name)
{
	int e = errno;

	agent_self.busy++;
	AGENT_RESOLVE(*var, name);
	agent_self.busy--;
	errno = e;
}

AGENT_EXPORT int prctl(int option, ...)
{
	unsigned long a2, a3, a4, a5;
	va_list ap;
	int rc;

	/* prctl takes at most four more arguments, all in registers: reading
	 * ones the caller did not pass reads whatever those registers hold,
	 * which the kernel ignores for that option as libc's prctl does. */
	va_start(ap, option);
	a2 = va_arg(ap, unsigned long);
	a3 = va_arg(ap, unsigned long);
	a4 = va_arg(ap, unsigned long);
	a5 = va_arg(ap, unsigned long);
	va_end(ap);
	if (AGENT_UNLIKELY(!tname_real_prctl))
		tname_resolve((void **)&tname_real_prctl, "prctl");
	if (AGENT_UNLIKELY(!tname_real_prctl)) {
		long r = agent_rawsys(SYS_prctl, option, (long)a2, (long)a3, (long)a4, (long)a5, 0);

		if (r < 0) {
			errno = (int)-r;
			return -1;
		}
		rc = (int)r;
	} else {
		rc = tname_real_prctl(option, a2, a3, a4, a5);
	}
	if (option == PR_SET_NAME && rc == 0 && a2 && agent.active) {
		int e = errno;

		tname_emit((uint32_t)agent_rawsys(SYS_gettid, 0, 0, 0, 0, 0, 0),
			   (const char *)a2);
		errno = e;
	}
	return rc;
}

AGENT_EXPORT int pthread_setname_np(pthread_t th, const char *name)
{
	int rc;

	if (AGENT_UNLIKELY(!tname_real_setname))
		tname_resolve((void **)&tname_real_setname, "pthread_setname_np");
	if (AGENT_UNLIKELY(!tname_real_setname))
		return ENOSYS;
	rc = tname_real_setname(th, name);
	if (rc == 0 && agent.active) {
		int e = errno;
		pid_t tid = th == pthread_self() ? (pid_t)agent_rawsys(SYS_gettid, 0, 0, 0, 0, 0, 0)
						 : agent_thread_tid_of(th);

		/* a descriptor whose tid the agent cannot read (its offset
		 * unknown): no record rather than a wrong thread */
		if (tid > 0)
			tname_emit((uint32_t)tid, name);
		errno = e;
	}
	return rc;
}
