// SPDX-License-Identifier: MIT
/*
 * procinfo.h - what /proc says about a process: its parent, whether it
 * descends from another, whether it maps a given file. spool reads pids
 * from the shared memory the program can write; before it treats such a pid
 * as one of the program's processes (waits for it, counts it as still
 * running), it asks the kernel whether it is.
 */
#ifndef SPOOL_UTIL_PROCINFO_H
#define SPOOL_UTIL_PROCINFO_H

#include <sys/types.h>

/* The name of pid (/proc/PID/comm, without its newline; the program
 * chose it, so print it escaped) into comm (len bytes, len > 0): 0, or a
 * negative errno (comm is then left as it was). */
int procinfo_comm(pid_t pid, char *comm, size_t len);

/* The parent of pid, from /proc/PID/stat, or -1. */
pid_t procinfo_ppid(pid_t pid);

/* The state letter of thread tid of process pid (R, S, D, Z, X, ...,
 * /proc/PID/task/TID/stat), or -ENOENT / -ESRCH when it is gone, another
 * negative errno when it cannot be read. */
int procinfo_task_state(pid_t pid, pid_t tid);

/* 1 if pid is ancestor or one of its descendants (the parent chain as the
 * kernel has it now: an orphan reparented to a subreaper counts under it),
 * else 0. */
int procinfo_descends(pid_t pid, pid_t ancestor);

/* 1 if pid has a mapping of the file (dev, ino) (/proc/PID/maps), 0 if
 * not, a negative errno if its maps cannot be read. */
int procinfo_maps_file(pid_t pid, dev_t dev, ino_t ino);

#endif
