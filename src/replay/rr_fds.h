/* SPDX-License-Identifier: MIT */
/*
 * rr_fds.h - the descriptors a recorded program inherited (besides 0, 1, 2
 * and spool's shared region), kept in the record file as `fds=N,N,...`, so
 * that a replay spool starts itself (--gdbserver) gives the program the
 * same numbers taken: a descriptor the program opens gets the lowest free
 * number, and one more or one less inherited moves every later one.
 */
#ifndef SPOOL_RR_FDS_H
#define SPOOL_RR_FDS_H

#include <stddef.h>

#define RR_FDS_MAX 32 /* numbers kept; more are left out (said by the caller) */
#define RR_FDS_TEXT 256

/* This process's descriptors >= 3 that an exec keeps (no FD_CLOEXEC), but
 * skip, as "N,N,..." in out ("" none). Returns how many there are (more
 * than written when the text or RR_FDS_MAX is full). */
int rr_fds_inherited(int skip, char *out, size_t len);

/* The numbers of a `fds=` value read from a trace (untrusted): at most max
 * of them, each 3..65535; a value that is not digits and commas gives 0. */
int rr_fds_parse(const char *s, int *fds, int max);

#endif
