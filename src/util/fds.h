// SPDX-License-Identifier: MIT
/*
 * fds.h - the descriptors a process would hand to a program it execs: its
 * open descriptors from 3 up without FD_CLOEXEC. spool record notes them
 * (the recorded program inherited them, rr_fds.h) and a replay closes
 * spool's own (session.c): one descriptor more or less at the start moves
 * every number the program opens later.
 */
#ifndef SPOOL_UTIL_FDS_H
#define SPOOL_UTIL_FDS_H

/* Up to max of this process's descriptors >= 3 an exec keeps, in
 * ascending order, into fds. Returns how many there are (more than
 * written when max is reached), 0 if /proc/self/fd cannot be read. */
int fds_inherited(int *fds, int max);

#endif
