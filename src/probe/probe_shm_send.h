// SPDX-License-Identifier: MIT
/*
 * probe_shm_send.h - spool probe -p: spool's shared memory handed to the
 * attached process over an abstract Unix socket (SCM_RIGHTS), for a
 * process that cannot open /proc/SPOOL/fd/N (probe_shm_send.c).
 */
#ifndef SPOOL_PROBE_PROBE_SHM_SEND_H
#define SPOOL_PROBE_PROBE_SHM_SEND_H

#include <stddef.h>
#include <sys/types.h>

struct probe_shm_send;

/* Listen on a fresh random abstract name, written to name ("@..."), and
 * send fd to the first peer that is process pid, from a thread of its own.
 * 0 or -errno. */
int probe_shm_send_start(struct probe_shm_send **out, int fd, pid_t pid, char *name, size_t len);
/* Stop listening (the thread joined, the socket closed): 1 when the
 * descriptor was sent, else 0. NULL is allowed. */
int probe_shm_send_end(struct probe_shm_send *s);

#endif
