// SPDX-License-Identifier: MIT
/*
 * pdeath.h - a helper process spool starts (a --check command, the replay
 * behind spool path, the gdb of replay --gdb) ends when spool ends, even
 * when spool is killed with SIGKILL and has no chance to end it.
 */
#ifndef SPOOL_UTIL_PDEATH_H
#define SPOOL_UTIL_PDEATH_H

#include <sys/types.h>

/* In a child forked by spool's main thread, before its exec: sig is sent to
 * it when spool (parent, its pid) ends; when spool has ended already, sig
 * is raised at once. 0 or -errno. */
int pdeath_arm(pid_t parent, int sig);

#endif
