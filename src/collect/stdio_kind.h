// SPDX-License-Identifier: MIT
/*
 * stdio_kind.h - what the recorded program's stdout and stderr were (a
 * terminal, a pipe, a regular file, /dev/null), and a replay that gives
 * its program descriptors of the same kinds.
 *
 * Programs look at their output: C stdio buffers a terminal by lines and
 * anything else by blocks, Python asks a regular file for its position,
 * pagers and progress bars ask isatty. Those answers (isatty's ioctl,
 * fstat, lseek, often made inside libc) are not recorded inputs, so a
 * recording made with `prog > out.txt` and replayed on a terminal or into
 * a pipe could take another path, and a sync replay stops at the first
 * lock it takes differently. spool record notes each kind in the
 * recording (.spool/record: stdout=, stderr=, and stderr=stdout when both
 * were the same file, as with 2>&1); spool replay compares it
 * with its own and, when they differ, gives the program a stand-in of the
 * recorded kind (a pseudo-terminal, a pipe, an unlinked temporary file at
 * the recorded offset, /dev/null) whose bytes a thread copies to spool's
 * own descriptor as they come.
 */
#ifndef SPOOL_COLLECT_STDIO_KIND_H
#define SPOOL_COLLECT_STDIO_KIND_H

#include <pthread.h>
#include <stdint.h>

enum stdio_kind {
	STDIO_KIND_UNKNOWN, /* closed, another device, or not recorded */
	STDIO_KIND_TTY,
	STDIO_KIND_PIPE, /* a pipe or a socket */
	STDIO_KIND_FILE,
	STDIO_KIND_NULL, /* /dev/null */
};

/* The kind of FD, and for a regular file its offset (*off, else 0). */
enum stdio_kind stdio_kind_of(int fd, uint64_t *off);
/* Whether descriptors A and B are the same file (`2>&1`, one terminal). */
int stdio_same_file(int a, int b);
const char *stdio_kind_name(enum stdio_kind k);
/* "tty", "pipe", "file", "null"; STDIO_KIND_UNKNOWN for anything else. */
enum stdio_kind stdio_kind_parse(const char *s);

/* A stand-in for one of spool's descriptors (1 or 2) during one replay. */
struct stdio_mimic {
	int fd;	      /* 1 or 2 */
	int kind;     /* enum stdio_kind given to the program */
	int child;    /* the program's descriptor: dup2'd onto fd in the child; -1: none */
	int src;      /* what the forwarder reads: pipe's read end, pty master, temp file */
	uint64_t off; /* file: where the forwarder reads from next */
	int stop[2];  /* a byte here: the program has ended, drain and stop */
	pthread_t thr;
	int running;
};

/* 0 and m->child = -1 when FD already is of kind KIND (or KIND is unknown):
 * nothing to do. Otherwise prepares the stand-in (m->child for the
 * program) and starts its forwarder. A negative errno on failure. */
int stdio_mimic_begin(struct stdio_mimic *m, int fd, enum stdio_kind kind, uint64_t off);
/* After the program has ended: copy what is left, stop the forwarder and
 * close everything. Safe on a mimic that began nothing. */
void stdio_mimic_end(struct stdio_mimic *m);

#endif
