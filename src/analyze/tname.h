// SPDX-License-Identifier: MIT
/*
 * tname.h - which thread a KIND_TNAME record renames (doc/trace-format.md,
 * "spool:thread_name"). The record names its thread by (pid, tid) and sits
 * in the stream of the thread that named it, which may be another one: an
 * analyzer notes each thread start (KIND_THREAD: the reader's thread number
 * of that (pid, tid)) and asks here who a rename is about. A tid reused by
 * a later thread of the process maps to the later one, the one alive when
 * the rename was read (events come in time order).
 */
#ifndef SPOOL_ANALYZE_TNAME_H
#define SPOOL_ANALYZE_TNAME_H

#include <stddef.h>
#include <stdint.h>

#include "../trace/trace.h"

struct tname_slot {
	uint64_t key; /* pid << 32 | tid; 0: empty */
	uint32_t thread;
};

struct tname_map {
	struct tname_slot *slot; /* open addressing, cap a power of 2 */
	size_t cap, n;
};

/* Thread start: (pid, tid) is the reader's thread number thread from now
 * on. 0 or -ENOMEM. */
int tname_note(struct tname_map *m, uint32_t pid, uint32_t tid, uint32_t thread);
/* The thread number (pid, tid) had at its last start: 0, or -ENOENT (not
 * started yet, or its start was lost). */
int tname_find(const struct tname_map *m, uint32_t pid, uint32_t tid, uint32_t *thread);
void tname_free(struct tname_map *m);

/* A KIND_TNAME event's fields, checked: its pid, tid and name (NUL
 * terminated within out, 17 bytes). -EINVAL when it is too short (the trace
 * is untrusted; the name may hold anything, callers print it escaped as
 * every thread name). */
int tname_event(const struct trace_event *ev, uint32_t *pid, uint32_t *tid, char out[17]);

#endif
