// SPDX-License-Identifier: MIT
/*
 * trace.h - writing and reading spool traces (CTF 1.8 directories).
 *
 * A trace is a directory: a CTF `metadata` file, one binary stream file per
 * ring (that is, per thread of each traced process), and spool's side files
 * (process maps, command lines, build ids, the run summary) which CTF readers
 * ignore. doc/trace-format.md is the specification; this header is the only
 * way the rest of spool touches the files.
 *
 * The writer takes records in the ring format of src/common/event.h and the
 * reader gives back records in that same format, so every analyzer sees what
 * the agent wrote, field for field. Events are grouped in CTF packets; a
 * packet is only ever written whole, so a trace whose writer died is readable
 * up to the last flushed packet.
 */
#ifndef SPOOL_TRACE_TRACE_H
#define SPOOL_TRACE_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../common/event.h"

/* The trace format version the writer writes, and the oldest the reader
 * reads (doc/trace-format.md; spool --version prints both). */
int trace_format_written(void);
int trace_format_read_min(void);

/* TSC to time: ns = mono_ns + (tsc - tsc0) * 1e9 / tsc_hz. The CTF clock
 * class is described from the same numbers (freq = tsc_hz, offset so that
 * babeltrace2 prints CLOCK_REALTIME dates). */
struct trace_clock {
	uint64_t tsc_hz;
	uint64_t tsc0;	  /* a TSC reading ... */
	uint64_t mono_ns; /* ... and CLOCK_MONOTONIC at the same moment */
	uint64_t real_ns; /* ... and CLOCK_REALTIME at the same moment */
};

/* Calibrate the TSC against CLOCK_MONOTONIC over about `us` microseconds. */
int trace_clock_calibrate(struct trace_clock *clk, unsigned us);
/* Re-measure tsc_hz from clk's start to now, over at least min_us (sleeps
 * the rest); tsc0 and the start times stay. */
int trace_clock_refine(struct trace_clock *clk, unsigned min_us);
uint64_t trace_clock_ns(const struct trace_clock *clk, uint64_t tsc);

/* What a trace is missing, counted where it was lost (loss.c;
 * doc/trace-format.md, "The state file and losses"). The writer keeps it in
 * the trace's state file; the run's summary and every reader of the trace
 * print it with the same two functions below. */
enum trace_state {
	TRACE_STATE_FINISHED,	/* the writer finished: the numbers are final */
	TRACE_STATE_UNFINISHED, /* it did not (spool killed): numbers so far */
	TRACE_STATE_UNKNOWN,	/* no state file: a trace of an older spool */
};
struct trace_loss {
	uint64_t ring_full;	/* producers: ring full (their lost counters) */
	uint64_t no_ring;	/* producers: the thread found no free ring */
	uint64_t fork;		/* producers: fork children before they had a ring */
	uint64_t clone;		/* producers: threads of the program's own clone sharing
				 * their creator's thread state (no ring of their own) */
	uint64_t pidns;		/* producers: processes in a pid namespace with a /proc
				 * of its own (spool cannot tell their pids: no slot,
				 * no ring) */
	uint64_t seq_gaps;	/* collector: events missing by sequence numbers */
	uint64_t damaged_rings; /* collector: rings found damaged and abandoned */
	uint64_t rejected;	/* collector: records it could not write (malformed) */
	uint64_t write;		/* writer: events of packets it could not write */
	uint64_t side_files;	/* writer: side files it could not write */
	uint64_t no_proc;	/* producers: processes that found no process slot
				 * (their maps and command line are missing) */
	uint64_t still_running; /* collector: traced processes still running when
				 * the trace ended (spool stopped before them) */
	uint64_t streams;	/* reader: sum over streams of max(discarded, gaps) */
	uint64_t stream_cut;	/* spool receive: the --stream connection was cut, the
				 * rest of the trace stayed on the board (.spool/stream) */
	uint64_t stream_missing; /* spool receive: events the board announced that did
				  * not arrive (at least that many are missing) */
	enum trace_state state;
};
/* Events lost in all: max(ring_full, seq_gaps) + no_ring + fork + clone + pidns + rejected
 * + write
 * (and, when
 * the writer did not finish, at least what the packets show). */
uint64_t trace_loss_events(const struct trace_loss *l);
/* Nonzero if anything is missing or the writer did not finish. */
int trace_loss_incomplete(const struct trace_loss *l);
/* The words for it, "" when nothing is missing. */
void trace_loss_describe(const struct trace_loss *l, char *buf, size_t len);
/* Warn "DIR is incomplete: <the words>" when it is: every command says it
 * this way, from a run's numbers or a trace's. */
void trace_loss_warn(const char *dir, const struct trace_loss *l);
/* A report needs a side file that spool writes only when the program ends
 * (what: what the file holds, file: its name). If the trace's writer did
 * not finish, say that is why it is missing and that its figures are lost,
 * the same words for every report, and return 1; else return 0 and let the
 * caller say how to make a trace that has it. */
int trace_loss_end_file_lost(const char *dir, const struct trace_loss *l, const char *what,
			     const char *file);
/*
 * The loss block every report and export prints, so a user or a script sees
 * the same numbers in each (doc/report-locks.md, "Losses in every report").
 * JSON: the members `"lost": N, "incomplete": B, "writer_finished": B,
 * "missing": "<the words>"` without braces (a report puts them in its
 * "trace" object). Text: `<prefix>missing: <the words>` on a line of its
 * own, only when the trace is incomplete.
 */
void trace_loss_json(const struct trace_loss *l, FILE *out);
void trace_loss_print_missing(const struct trace_loss *l, const char *prefix, FILE *out);
/* Text: `<prefix>spool: N events lost, trace in DIR/` and the missing line:
 * the header of a report that has no lock-event count to put first. */
void trace_loss_print_header(const struct trace_loss *l, const char *dir, const char *prefix,
			     FILE *out);

struct trace_writer;
struct trace_stream;

/* Make room for a new trace at `dir` (tracedir.c): nothing there, or an
 * empty directory (removed), or a trace spool wrote, which is moved to
 * `dir`.old after removing an older trace there. Anything else at `dir` or
 * `dir`.old (a file, a link, a directory that is not a spool trace) is
 * left alone: -EEXIST, said on stderr with what to do. `quiet` drops the
 * "previous trace kept" notice. */
int trace_dir_prepare(const char *dir, int quiet);
/* The same checks, nothing moved or removed: 0 when trace_dir_prepare
 * would make room (it said why not, on stderr, otherwise). */
int trace_dir_check(const char *dir);
/* trace_dir_check without its warning about partial traces left beside
 * `dir`: for a command that checks early, before its work, and again when
 * it starts writing (which warns then). */
int trace_dir_usable(const char *dir);
/* Whether `dir` is a trace spool wrote (tracedir.c: a real directory of
 * the user's holding only what the writer creates, its metadata signed):
 * 1; 0 with why (a phrase after the name: "is a regular file"); -errno. */
int trace_dir_ours(const char *dir, char *why, size_t len);
/* Partial traces a killed spool left (stale.c). Said once, at the start of
 * a run that writes `dir` (trace_dir_check): each `dir`.writing.PID beside
 * it that is a trace spool wrote, unfinished, whose writer no longer runs,
 * with how to read, keep or remove it. Nothing is moved or removed. */
void trace_dir_stale_warn(const char *dir);
/* Whether a writer (a live spool) still holds the trace at `dir`: 1 or 0. */
int trace_dir_writer_running(const char *dir);
/* Whether `dir` is such a left-over trace: a trace spool wrote, not
 * finished, its writer gone: 1; 0 with why (after the name: "is a
 * finished trace"); -errno. */
int trace_dir_stale(const char *dir, char *why, size_t len);
/* spool recover: mark the left-over trace `dir` (NAME.writing.PID)
 * unfinished in its state file and rename it to the first free name of
 * NAME.unfinished, NAME.unfinished.1, ... (put in out). 0, or -errno with
 * why (-EPERM: not such a trace). */
int trace_dir_recover(const char *dir, char *out, size_t len, char *why, size_t wlen);
/* spool recover --remove: remove the left-over trace `dir`. 0, or -errno
 * with why (-EPERM: not such a trace, nothing removed). */
int trace_dir_remove_stale(const char *dir, char *why, size_t wlen);
/* Where a new trace for `dir` is written until it is whole: `dir`.writing.PID
 * (beside it, on its file system). */
int trace_dir_partial(const char *dir, char *buf, size_t len);
/* Put the finished trace `partial` at `dir`: trace_dir_prepare(dir), then
 * a rename. -errno (the trace stays at partial). */
int trace_dir_install(const char *partial, const char *dir, int quiet);
/* Whether trace_dir_prepare(dir) would move or remove `keep` (it is `dir`
 * or `dir`.old): a replay must not write its trace over the recording it
 * reads. 1 yes, 0 no. */
int trace_dir_replaces(const char *dir, const char *keep);
/* A replay's own trace by default (replaydir.c): `trace`/replays/N in out,
 * N one more than the largest there; replays/ is made (0700) when missing
 * and never reached through a link. -errno when it cannot be used (a trace
 * that is not writable, a replays/ that is not a directory of ours). */
int trace_replay_dir(const char *trace, char *out, size_t len);
/* How many replays' traces `trace`/replays holds (entries named by a
 * number; 0 when there is no such directory or it is a link) and the
 * largest number in *last. */
int trace_replay_count(const char *trace, unsigned long *last);
/* The fallback: a new empty directory $TMPDIR/spool-replay-XXXXXX (or
 * under /tmp), its path in out; 0 or -errno. */
int trace_replay_tmpdir(char *out, size_t len);
/* Create `dir` (it must not exist; 0700, files 0600) and write the metadata
 * file. */
int trace_writer_open(struct trace_writer **out, const char *dir, const struct trace_clock *clk);
/* A new trace for `-o dir`: checked (trace_dir_check), written at
 * trace_dir_partial's name, and put at `dir` by trace_writer_close
 * (trace_dir_install; quiet drops its "previous trace kept" notice). */
int trace_writer_create(struct trace_writer **out, const char *dir, const struct trace_clock *clk,
			int quiet);
/* One stream per ring; stream_id is the ring number (the thread index of
 * the words). A ring is reused by one thread after another: each opens
 * its part of the stream with KIND_THREAD. */
int trace_writer_stream(struct trace_writer *w, uint32_t stream_id, uint32_t pid, uint32_t tid,
			struct trace_stream **out);
/* Append one record (rec->size bytes). Kinds unknown to the writer are
 * refused with -EINVAL. The record is buffered even when writing the full
 * packet before it failed: that failure is counted (trace_writer_loss) and
 * logged once per trace, not returned. */
int trace_stream_write(struct trace_stream *s, const struct rec_hdr *rec);
/*
 * Append a whole format-2 packet (len bytes, headers included) that the
 * agent wrote in its ring (SHM_F_PACKETS). The writer fills in what only it
 * knows: the uuid, stream_id 0, stream_instance_id, packet_seq_num and
 * events_discarded; the rest is written as it is (the reader checks the
 * events: the packet came from the target). -EINVAL when the trace is not
 * format 2 or len is out of bounds; a failed write is counted and logged
 * as for trace_stream_write (its events: the packet's count, bounded by its
 * bytes) and not returned.
 */
int trace_stream_put_packet(struct trace_stream *s, uint8_t *pkt, size_t len);
/*
 * A packet still open in the ring, copied up to its last whole event (its
 * sizes, count and end time set from what is there): written at the end of
 * the stream as trace_stream_put_packet writes one, but provisional: the
 * next packet put (open or not) is written at the same offset with the same
 * packet_seq_num, replacing it - the same packet, longer - so a flush
 * leaves a live thread's events up to now in the file without splitting its
 * packet (doc/trace-format.md, "Packets in the ring"). A failed write is
 * returned and not counted: the events come again. Collector thread only.
 */
int trace_stream_put_open(struct trace_stream *s, uint8_t *pkt, size_t len);
/* Where the stream file's finished packets end (a provisional packet, if
 * any, starts there), and the stream's id (its file is stream_<id>).
 * Collector thread only. */
uint64_t trace_stream_whole_end(const struct trace_stream *s, uint32_t *id);
/* Keep the provisional packet, if any, as a packet of its own: its ring
 * will not give the rest of it (damaged). trace_writer_close seals too. */
void trace_stream_seal(struct trace_stream *s);
/* What trace_pkt2_check found in a packet: its records (site definitions
 * not included), of them lock, thread and process events, and the seq of
 * its last record (the reader's numbering from first_seq). */
struct trace_pkt2_counts {
	uint32_t events, lock, thread, proc;
	uint32_t lock_thread; /* of lock: thread events (ev_op_is_thread) */
	uint32_t last_seq;
	/* the packet's first thread start (thread > 0): the tid and pid it
	 * names, and whether its seq is not the one its place in the packet
	 * gives (it would renumber the events after it) */
	uint32_t thread_tid, thread_pid;
	int thread_moved;
	/* its first process record (proc > 0): pid, process slot, and whether
	 * it comes before any thread start */
	uint32_t proc_pid, proc_slot;
	int proc_early;
};
/*
 * Check a format 2 packet of len bytes (headers included) that a target
 * wrote (SHM_F_PACKETS) before it is copied: every event's header, length,
 * site and op as the reader takes them, times from timestamp_begin, and the
 * packet's events and timestamp_end. open: the packet of a writer that
 * died, cut at its head: events and timestamp_end are set to what it holds
 * instead of checked. 0 with *c filled, or -EPROTO with *why a constant
 * string saying what is wrong.
 */
int trace_pkt2_check(uint8_t *pkt, size_t len, int open, struct trace_pkt2_counts *c,
		     const char **why);
/* What the collector knows of a ring's owner (not what the ring says now). */
struct trace_pkt2_owner {
	uint32_t pid, tid;  /* the thread the ring was given to */
	uint32_t proc_slot; /* its process's slot, as the claim stored it */
	int fresh;	    /* no whole packet of this owner taken yet */
	uint32_t prev;	    /* unless fresh: the last seq of its last whole packet */
	uint64_t gap_room;  /* events its thread counted lost (the ring's lost
			     * counter) that no gap taken so far accounts for */
};
/*
 * What a checked packet (c: trace_pkt2_check's counts) may claim about its
 * thread, beyond being well formed: the pid and tid of its ring's owner; a
 * thread start only in the owner's first packets, at most one, naming the
 * owner and numbered as its place in the packet says; a process record
 * only right after that start, naming the owner's process and slot; and a
 * numbering that goes forward from prev (from 0 when fresh) skipping no
 * more than gap_room events. 0 with *gap the numbers skipped, or -EPROTO
 * with *why. A forged packet that passes names the ring's own thread and
 * what it skips is counted lost: it can only misstate that thread's
 * events.
 */
int trace_pkt2_owner_check(const uint8_t *pkt, size_t len, const struct trace_pkt2_counts *c,
			   const struct trace_pkt2_owner *o, uint32_t *gap, const char **why);
/* The format the writer writes (2, or 1 with SPOOL_TRACE_FORMAT=1). */
int trace_writer_format(const struct trace_writer *w);
/* Count events the producer lost; goes into the next packet's
 * events_discarded (a running total, as CTF specifies). */
void trace_stream_discarded(struct trace_stream *s, uint64_t total_lost);
/* Write the current packet out so the file is readable up to here. */
int trace_stream_flush(struct trace_stream *s);
/* A side file inside the trace directory (name may contain one '/'; not
 * "state", the writer's own). */
int trace_writer_add_file(struct trace_writer *w, const char *name, const void *data, size_t len);
/* The same for a side file written again (by trace_writer_add_file) when
 * the run ends, whose early copy lets readers make sense of a trace whose
 * writer was killed (spool probe's probe table): a failure is returned,
 * not counted as a lost side file nor said (the final write does both). */
int trace_writer_early_file(struct trace_writer *w, const char *name, const void *data,
			    size_t len);
/* Replace the clock description (the host refines the TSC frequency at the
 * end of a run). */
int trace_writer_set_clock(struct trace_writer *w, const struct trace_clock *clk);
/* The trace has no per-event time (--clock=none): the metadata says so
 * (spool_event_time = "packet"), so that every report shows no duration
 * it does not have. */
int trace_writer_set_untimed(struct trace_writer *w);
/* Losses the writer cannot see itself: the collector's part (no_ring,
 * seq_gaps, damaged_rings, rejected), or what an input trace had lost
 * (spool decode). Replaces the previous note; trace_writer_loss adds the
 * writer's own counts to it. */
void trace_writer_note_loss(struct trace_writer *w, const struct trace_loss *l);
/* Everything lost so far: the noted part, the producers' totals given to
 * trace_stream_discarded, and the writer's own failures. */
void trace_writer_loss(const struct trace_writer *w, struct trace_loss *out);
/* Of the events trace_writer_loss counts in write, those of one kind. */
uint64_t trace_writer_lost_kind(const struct trace_writer *w, unsigned kind);
/* Rewrite the state file ("writing", with the losses so far) in place: a
 * trace whose writer dies says what it had lost by then. */
int trace_writer_checkpoint(struct trace_writer *w);
/* Flush every stream, rewrite metadata, mark the state file finished, free.
 * Returns the first error; -EIO if the state could not be marked finished
 * (the trace then reads as unfinished). */
/* The directory the writer writes into now: DIR.writing.PID until close
 * renames it to DIR (tracedir.c); a file spool adds beside the streams
 * while the program runs goes there. */
const char *trace_writer_dir(const struct trace_writer *w);
int trace_writer_close(struct trace_writer *w);

/* Reading */

struct trace_stream_info {
	uint32_t stream_id;
	uint32_t pid;
	uint32_t tid;
	uint64_t events;    /* events read so far from this stream */
	uint64_t discarded; /* events_discarded of its last packet read */
	uint64_t seq_gaps;  /* events missing according to sequence numbers */
	char file[64];	    /* stream file name inside the trace directory */
	uint64_t bytes;	    /* the stream file's size */
};

/* A problem found while reading: reading goes on past it where it can. */
struct trace_problem {
	char file[256];
	uint64_t offset;
	char msg[256];
};

struct trace_reader;

struct trace_event {
	uint32_t stream_id;
	/* The thread the event belongs to, numbered by the reader: a stream's
	 * first thread has the stream's position in stream-id order (so
	 * 0 .. nstreams - 1; in a trace spool wrote, its stream id and the
	 * thread index of its words); a thread that reused the ring of one
	 * that ended (a later KIND_THREAD in the stream) gets the next number
	 * from nstreams on, in reading order. The thread index in the words
	 * names the ring, not the thread: use this instead. */
	uint32_t thread;
	uint64_t offset;	   /* of the event in its stream file (its header's first byte) */
	uint64_t fields_off;	   /* of its fields past the record header (trace_event_file_off) */
	uint64_t ns;		   /* timestamp converted by the trace clock */
	const struct rec_hdr *rec; /* valid until the next call */
};

/* Open a trace directory. On a fatal error (no metadata, not a spool trace)
 * returns a negative errno and fills *problem when given. */
int trace_reader_open(struct trace_reader **out, const char *dir, struct trace_problem *problem);
/* The same, with the records decoded where store says (store may be NULL):
 * for each record, store(arg, kind, size) returns where to put it (it
 * stays there, and the event's rec points to it), or NULL for the reader's
 * own storage (valid until the next trace_reader_next). Saves a copy for a
 * caller that keeps records (the replay log). flags: TRACE_READER_BY_STREAM
 * gives each stream's events in turn, in stream order, instead of all of
 * them in time order (a caller that groups by thread anyway). */
#define TRACE_READER_BY_STREAM 0x1
/* Read only the streams whose id is k modulo n (1 <= n <= 255, k < n): n
 * readers with k = 0 .. n-1 read a trace's streams once each, in parallel
 * (the replay log's loader). */
#define TRACE_READER_SHARD(k, n) (((unsigned)(k) << 8 | (unsigned)(n) << 16) & 0xffff00u)
int trace_reader_open_store(struct trace_reader **out, const char *dir,
			    struct trace_problem *problem, int flags,
			    void *(*store)(void *arg, unsigned kind, size_t size), void *arg);
/* Next event over all streams in timestamp order (stable: ties keep stream
 * order). Returns 1 with *ev filled, 0 at the end. A corrupt or truncated
 * packet is recorded as a problem and its stream ends there; the others go on. */
int trace_reader_next(struct trace_reader *r, struct trace_event *ev);
/* The offset in its stream file of the byte at offset rec_off (past the
 * record header) of the event ev, for a kind of the kinds table
 * (trace_kind_find): their payload is stored as the record has it. */
uint64_t trace_event_file_off(const struct trace_event *ev, size_t rec_off);

/* Compressed input data (zinput.c): the collector packs the large chunks of
 * KIND_INPUT records (spool record --compress), a replay's loader unpacks
 * them. */
struct trace_zinput {
	struct ZSTD_CCtx_s *cctx;
	void *buf; /* the last packed record */
	size_t cap;
	int level;
	uint64_t saved; /* bytes the packed records saved */
};
int trace_zinput_init(struct trace_zinput *z, int level);
void trace_zinput_free(struct trace_zinput *z);
/* rec, or its packed form (valid until the next call) when rec is an input
 * record whose chunk is large and shrinks. */
const struct rec_hdr *trace_zinput_pack(struct trace_zinput *z, const struct rec_hdr *rec);
/* Bytes the unpacked form of a packed record takes (0: malformed). */
size_t trace_zinput_size(const struct rec_hdr *rec);
/* Unpack a packed record into dst (cap bytes); its size, or -EPROTO. */
int trace_zinput_unpack(const struct rec_hdr *rec, void *dst, size_t cap);
const struct trace_clock *trace_reader_clock(const struct trace_reader *r);
/* 1 when the trace has no per-event time (spool --clock=none; metadata
 * spool_event_time other than "event"): an event's time is its packet's
 * opening time, so no duration, hold or wait time can be computed from
 * it, and a report says so rather than show one (doc/trace-format.md,
 * "Traces without per-event time"). Order within a thread and counts are
 * exact. */
int trace_reader_untimed(const struct trace_reader *r);
size_t trace_reader_nstreams(const struct trace_reader *r);
/* Thread numbers handed out so far (trace_event.thread is below it). */
uint32_t trace_reader_nthreads(const struct trace_reader *r);
const struct trace_stream_info *trace_reader_stream(const struct trace_reader *r, size_t i);
size_t trace_reader_nproblems(const struct trace_reader *r);
const struct trace_problem *trace_reader_problem(const struct trace_reader *r, size_t i);
/* The stream with this id, or NULL: ids need not be dense (a trace may lack
 * a stream file), so trace_reader_stream(r, id) is not it. Ids are below
 * EV_MAX_THREADS (the reader skips other stream files). */
const struct trace_stream_info *trace_reader_stream_by_id(const struct trace_reader *r,
							  uint32_t id);
/* The largest stream id (0 without streams): tables by id have one more. */
uint32_t trace_reader_max_stream_id(const struct trace_reader *r);
const char *trace_reader_dir(const struct trace_reader *r);
/* What the trace is missing: its state file's numbers and state, and what
 * the packets read so far show (call it after reading every event). */
void trace_reader_loss(const struct trace_reader *r, struct trace_loss *out);
/* The same for a report that did not read every event (it used a side
 * file): when the writer did not finish, only the packets can say more, so
 * the events not read yet are read (and dropped) first. */
void trace_reader_loss_read(struct trace_reader *r, struct trace_loss *out);
/* The loss an analyzer's own reading saw, handed back to its command: the
 * command's loss line then comes from that reading, and an unfinished (or
 * big) trace is not read a second time just to print it. */
struct trace_loss_seen {
	struct trace_loss loss;
	int set; /* the analyzer opened the trace and filled loss */
};
/* If seen is not NULL: trace_reader_loss_read(r, &seen->loss) and set it.
 * Call it just before closing r, whatever was read of it (the events not
 * read yet are read only when the writer did not finish). */
void trace_loss_seen_fill(struct trace_loss_seen *seen, struct trace_reader *r);
/* Read a side file into a malloc'd buffer (NUL-terminated; *len excludes it).
 * A link, a FIFO or a device, or a file larger than TRACE_SIDE_MAX, is an
 * error (untrusted.h: -ELOOP, -ENODEV, -EFBIG). */
int trace_reader_file(const struct trace_reader *r, const char *name, char **data, size_t *len);
void trace_reader_close(struct trace_reader *r);

#endif
