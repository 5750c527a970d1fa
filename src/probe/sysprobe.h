// SPDX-License-Identifier: MIT
/*
 * sysprobe.h - the host side of the system probes (spool probe -e sys:cpu,
 * -e sys:io, -e sys:mem): the SHM_EXT_SYS area the agent counts into, a
 * sampler thread in spool that reads the target's /proc (CPU time of each
 * thread, RSS of each process) at no cost to the target, and the "sys" side
 * file of the trace (doc/trace-format.md) that spool report --sys reads.
 */
#ifndef SPOOL_PROBE_SYSPROBE_H
#define SPOOL_PROBE_SYSPROBE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../collect/shm_host.h"
#include "../trace/trace.h"

#define SYSPROBE_PERIOD_MS 10

struct sysprobe;

/* 1 and *what |= SYS_W_* when spec is a sys: spec; 0 when it is not one;
 * -EINVAL (err filled) for an unknown sys: name. */
int sysprobe_parse(const char *spec, unsigned *what, char *err, size_t errlen);
/* Bytes of the SHM_EXT_SYS area for max_rings threads. */
uint64_t sysprobe_area_size(uint32_t max_rings);
/* Fill the area and start the sampler (spool probe's prepare hook). pid:
 * the process spool attached to (its /proc/PID/task sampled; sys:cpu
 * only, no area), or 0 for a program spool started. */
int sysprobe_start(struct sysprobe **out, unsigned what, struct shm_host *h, pid_t pid);
/* Attached with --commands (an add or a delete of sys:...): the probes
 * on from now, what (SYS_W_*): the sampler started if needed, and the
 * side file will give every probe that was on. 0, or -ENODEV (sys:io or
 * sys:mem without the counters' area), or a negative errno. The agent's
 * interposers are switched by spool_agent_probe_ctl("sys ..."). */
int sysprobe_set(struct sysprobe *s, unsigned what);
/* Stop the sampler, write the "sys" side file (none when no probe was
 * ever on), free everything. */
int sysprobe_finish(struct sysprobe *s, struct trace_writer *w);

/*
 * What to do instead of system probes on attached process pid (they are
 * refused there: doc/probe.md): into buf, the spool probe command that
 * starts the same program (its /proc/PID/cmdline, shell-quoted) with the
 * option words opts (e.g. "-e", "sys:cpu"),
 * the directory to run it from, and where the kernel keeps the running
 * process's I/O. 0, or -errno (no command line to read: a zombie,
 * a process of another user; -ENOSPC: buf too small).
 */
int probe_sys_advice(pid_t pid, const char *const *opts, size_t nopts, char *buf, size_t len);
#endif
