// SPDX-License-Identifier: MIT
/*
 * agent_sys.h - the system probes in the agent (agent_sys.c): I/O counters
 * other agent files bump (the read family lives in agent_rr_io.c), and the
 * thread-end and process-end hooks that store CPU times.
 */
#ifndef SPOOL_AGENT_AGENT_SYS_H
#define SPOOL_AGENT_AGENT_SYS_H

#include <sys/types.h>

#include "../common/sys_area.h"
#include "agent.h"

/* Nonzero when spool asked for sys:io; read on every I/O call. */
extern int agent_sys_io_on;
/* Nonzero when spool asked for sys:cpu. */
extern int agent_sys_cpu_on;

void agent_sys_init(void);
/* Attach mode, an add or a delete of sys:io / sys:mem while attached
 * (agent_probe_live.c), every thread stopped: count what from now on
 * (SYS_W_IO, SYS_W_MEM). -ENODEV when spool made no counters' area. */
int agent_sys_live(unsigned what);
/* The calling thread's counters, registering it; NULL if it has none. */
struct sys_slot *agent_sys_self_slot(void);
/* agent_sys_mem.c: count allocations (sys:mem) or pass them through. */
void agent_sys_mem_start(int on);
/* The same switched while attached: no early counts added (those of the
 * start were, once). */
void agent_sys_mem_switch(int on);
/* Nonzero while sys:mem counts. */
int agent_sys_mem_on(void);
/* Attach mode: is the agent's next allocator libc's (these two)? */
int agent_sys_mem_next_is(void *libc_malloc, void *libc_free);
void agent_sys_io_count(unsigned dir, int fd, ssize_t r);
void agent_sys_thread_end(struct agent_thread *t);
/* A thread took its ring (agent_thread_register), maybe one an ended
 * thread used: the slot counts for the ring's threads together. */
void agent_sys_thread_start(struct agent_thread *t);
void agent_sys_proc_end(void);

/* Wrap an I/O call's result: the one test of a run without sys:io. */
#define AGENT_SYS_IO(dir, fd, expr)                                                                \
	({                                                                                         \
		__typeof__(expr) sr_ = (expr);                                                     \
		if (AGENT_UNLIKELY(agent_sys_io_on))                                               \
			agent_sys_io_count((dir), (fd), (ssize_t)sr_);                             \
		sr_;                                                                               \
	})

#endif
