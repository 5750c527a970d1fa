// SPDX-License-Identifier: MIT
/*
 * stream_send.h - `spool locks|record|probe --stream HOST:PORT`: the trace
 * goes to `spool receive` on the host as it is written (doc/arm64.md).
 *
 * The connection is made while the options are parsed (no receiver: the
 * command stops before running anything). While a session runs, a thread
 * sends what the writer has added to the trace directory every
 * STREAM_SEND_PERIOD_MS; when the command is done (main.c), a last pass
 * sends the rest, and once the receiver says every file is on its disk the
 * local trace is removed: the board keeps nothing. If the connection is
 * cut, the board keeps the whole trace and says so, and the receiver marks
 * its copy as cut (every report says it is incomplete).
 *
 * What is sent is files, not events (stream_proto.h): files of at most
 * STREAM_SEND_SMALL bytes are sent whole whenever they change (side files,
 * rewritten in place or replaced by rename); larger ones are taken as
 * growing by appends only (stream files: the writer appends whole packets),
 * so only their new bytes go.
 */
#ifndef SPOOL_COLLECT_STREAM_SEND_H
#define SPOOL_COLLECT_STREAM_SEND_H

#include <stdint.h>

#define STREAM_SEND_PERIOD_MS 200
#define STREAM_SEND_SMALL (64u << 10)

/* The help line of --stream, the same in every command. */
#define STREAM_SEND_HELP                                                                           \
	"      --stream HOST:PORT  send the trace to spool receive on HOST as it is\n"             \
	"                       written; the local copy is removed once the receiver\n"            \
	"                       has it all (kept, and said, if the connection is cut)\n"

#define STREAM_SEND_NO_KEEP_HELP                                                                   \
	"      --no-keep        streaming: free the parts of the trace's stream files\n"          \
	"                       the receiver has confirmed while the program runs\n"             \
	"                       (the disk keeps little); no report at the end (make\n"           \
	"                       it on the host from the received trace)\n"

/* --no-keep (with --stream): free what the receiver confirmed, as it does. */
void stream_send_no_keep(void);
/* Whether the local trace stays whole until the end (no --no-keep): the
 * end-of-run report reads it. */
int stream_send_keeps(void);

/*
 * The collector's provisional copies of live threads' open packets (each
 * written again in place until the packet is finished): stream file
 * stream_<id> holds finished packets up to `end`, what follows may still
 * change. The sender counts events only up to there and sends what follows
 * again each pass until it is finished. Called before a provisional packet
 * is written at end, and after packets are finished; an end that is behind
 * is safe (sent again), one ahead never happens (ends only grow). Any
 * thread; a no-op without --stream.
 */
void stream_send_whole_end(uint32_t id, uint64_t end);

/* --stream HOST:PORT: connect now (a usage error is said). Returns 0 or a
 * negative errno. */
int stream_send_option(const char *hostport);
/* Whether --stream was given. */
int stream_send_active(void);
/* A session starts writing the trace at dir (DIR.writing.PID), to be put
 * at final: tell the receiver to start over, start sending. */
void stream_send_begin(const char *dir, const char *final);
/* The session is about to close its writer (dir is renamed then): stop the
 * thread. */
void stream_send_pause(void);
/* The command is done: send the rest of the final trace, wait for the
 * receiver, remove the local copy. Returns 0, or -EIO when the receiver
 * does not have it all (said; the local trace is kept). Does nothing
 * without --stream. */
int stream_send_finish(void);

#endif
