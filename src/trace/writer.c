// SPDX-License-Identifier: MIT
/*
 * writer.c - writing spool traces: a CTF 1.8 directory with one stream file
 * per ring (doc/trace-format.md).
 *
 * The collector calls trace_stream_write for every event, so that path only
 * encodes the event into the current packet buffer (format 2 by enc2.c, or
 * format 1 field by field when SPOOL_TRACE_FORMAT=1); the only system call is
 * the pwrite of a whole packet. A packet is never written
 * in pieces, so a crash leaves whole packets (and at most one partial packet
 * at the end, which the reader reports).
 *
 * No silent loss: a packet or side file that cannot be written (a full disk)
 * is counted, and the state file (TRACE_STATE_NAME, written first and
 * rewritten in place) says whether the writer finished and what was lost, so
 * a reader can tell a finished trace from one whose writer died.
 *
 * Not thread-safe: one thread (the collector) owns a writer and its streams.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace.h"
#include "enc2.h"
#include "kinds.h"
#include "trace_int.h"
#include "util/log.h"

struct trace_stream {
	struct trace_writer *w;
	uint32_t id;
	uint32_t pid;
	uint32_t tid;
	int fd;
	uint64_t file_off; /* end of the last whole packet written */
	uint8_t *buf;	   /* current packet; headers filled at close */
	size_t cap;
	size_t len;   /* bytes used, starts at TRACE_PKT_HDR_SIZE */
	uint64_t nev; /* events in the current packet */
	uint64_t nkind[KIND_MAX]; /* of which of each kind (to count what is lost) */
	uint64_t ts_begin;
	uint64_t last_tsc;     /* TSC of the last event put in a packet */
	uint64_t seq_num;      /* packet_seq_num of the next packet */
	uint64_t lost;	       /* producer-side total from trace_stream_discarded */
	uint64_t write_lost;   /* events of packets we failed to write */
	uint64_t write_lost_kind[KIND_MAX]; /* of which of each kind */
	uint64_t disc_written; /* events_discarded of the last packet written */
	/* format 2 */
	struct trace_enc2 enc;
	uint32_t first_seq; /* of the packet's first event */
	uint32_t next_seq;  /* the seq the next event is given by the reader */
	uint32_t nev2;	    /* CTF events in the packet: nev and site definitions */
	/* trace_stream_put_open: a provisional packet at file_off (not yet
	 * counted in file_off and seq_num), which the next packet put replaces
	 * (the same packet, longer); prov_disc its events_discarded */
	size_t prov_len;
	uint64_t prov_disc;
};

struct trace_writer {
	char *dir;
	char *final; /* trace_writer_create: where close puts the trace (dir is beside it) */
	int quiet;
	int dirfd;
	uint8_t uuid[16];
	struct trace_clock clk;
	struct trace_stream **streams;
	size_t nstreams;
	size_t cap;
	int state_fd;		 /* the state file, rewritten in place */
	struct trace_loss noted; /* the collector's part (trace_writer_note_loss) */
	uint64_t side_files;	 /* side files not written */
	int write_warned;	 /* a failed write was logged (once per trace) */
	int format;		 /* TRACE_FORMAT_VERSION, or 1 (SPOOL_TRACE_FORMAT=1) */
	size_t pkt_hdr;		 /* its packet headers' size */
	int untimed;		 /* trace_writer_set_untimed */
};

int trace_side_name_ok(const char *name)
{
	const char *slash;

	if (!name || !*name || name[0] == '.' || name[0] == '/')
		return 0;
	slash = strchr(name, '/');
	if (!slash)
		return 1;
	if (!slash[1] || slash[1] == '.' || strchr(slash + 1, '/'))
		return 0;
	return 1;
}

static void uuid_str(const uint8_t *u, char *out)
{
	sprintf(out, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0],
		u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13],
		u[14], u[15]);
}

const char *const trace_lock_op_names[] = {
    "NONE",	     "INIT",	       "DESTROY",	    "CONTEND",	       "ACQUIRE",
    "ACQUIRE_TRY",   "TRY_FAIL",       "TIMEOUT",	    "RELEASE",	       "CONTEND_RD",
    "ACQUIRE_RD",    "ACQUIRE_TRY_RD", "TRY_FAIL_RD",	    "SEM_POST",	       "COND_WAIT",
    "COND_WAKE",     "COND_SIGNAL",    "COND_BROADCAST",    "BARRIER_ENTER",   "BARRIER_LEAVE",
    "THREAD_CREATE", "THREAD_START",   "THREAD_JOIN_BEGIN", "THREAD_JOIN_END", "THREAD_EXIT",
};

/* A new OP_ must get its name here, or the metadata would be wrong. */
_Static_assert(sizeof(trace_lock_op_names) / sizeof(trace_lock_op_names[0]) == OP_MAX,
	       "op_names out of date");

/* The op names of the other classes' words (event.h), 0 being NONE. */
const char *const trace_probe_op_names[] = {"NONE", "ENTRY", "EXIT", "HIT", "VAR"};
#define PROBE_OPS (int)(sizeof(trace_probe_op_names) / sizeof(trace_probe_op_names[0]))
const int trace_probe_ops = PROBE_OPS;
_Static_assert(PROBE_OP_ENTRY == 1 && PROBE_OP_EXIT == 2 && PROBE_OP_HIT == 3 && PROBE_OP_VAR == 4,
	       "probe_op_names out of date");
const char *const trace_func_op_names[] = {"NONE", "ENTER", "EXIT", "MSG_SEND", "MSG_RECV"};
#define FUNC_OPS (int)(sizeof(trace_func_op_names) / sizeof(trace_func_op_names[0]))
const int trace_func_ops = FUNC_OPS;
_Static_assert(FUNC_OP_ENTER == 1 && FUNC_OP_EXIT == 2 && FUNC_OP_MSG_SEND == 3 &&
		   FUNC_OP_MSG_RECV == 4,
	       "func_op_names out of date");
/* Op 1 is a replay's reference to an input of the recording (rr_area.h). */
const char *const trace_input_op_names[] = {"NONE", "REF", "ZSTD"};
#define INPUT_OPS (int)(sizeof(trace_input_op_names) / sizeof(trace_input_op_names[0]))
const int trace_input_ops = INPUT_OPS;
_Static_assert(INPUT_OP_ZSTD == 2, "input_op_names out of date");

static void meta_op_enum(FILE *f, const char *name, const char *const *names, int n)
{
	fprintf(f, "enum %s : integer { size = 5; align = 1; signed = false; } {\n", name);
	for (int i = 0; i < n; i++)
		fprintf(f, "\t%s = %d%s\n", names[i], i, i + 1 < n ? "," : "");
	fputs("};\n\n", f);
}

/* A word type: the same 64 bits for every class (event.h's ev_word), with
 * the op as op_type (NULL: a plain integer) and the object named obj. */
static void meta_word(FILE *f, const char *type, const char *op_type, const char *obj)
{
	fprintf(f,
		"typealias struct {\n"
		"\tinteger { size = 3; align = 1; signed = false; } zero;\n"
		"\t%s op;\n"
		"\tinteger { size = 32; align = 1; signed = false; } %s;\n"
		"\tinteger { size = 16; align = 1; signed = false; } thread;\n"
		"\tinteger { size = 8; align = 1; signed = false; } kind;\n"
		"} := %s;\n\n",
		op_type ? op_type : "integer { size = 5; align = 1; signed = false; }", obj, type);
}

/* The word type of a table kind's event class. */
static const char *meta_word_type(unsigned kind)
{
	switch (kind) {
	case KIND_PROBE:
		return "spool_probe_word_t";
	case KIND_FUNC:
		return "spool_func_word_t";
	case KIND_INPUT:
		return "spool_input_word_t";
	default:
		return "spool_word_t"; /* sched: its op is in its own fields */
	}
}

/*
 * The metadata text. Keep in step with doc/trace-format.md: every offset the
 * reader uses follows from these declarations (all byte-aligned, packed).
 */
static void meta_print(FILE *f, const struct trace_writer *w)
{
	const struct trace_clock *c = &w->clk;
	const struct trace_kind_desc *d;
	char uuid[40];
	__int128 base;
	int64_t off_s;
	uint64_t off_cyc;

	uuid_str(w->uuid, uuid);
	/* Wall-clock time of TSC 0, split into seconds and cycles (see the doc). */
	base =
	    (__int128)c->real_ns - (__int128)((unsigned __int128)c->tsc0 * 1000000000u / c->tsc_hz);
	off_s = (int64_t)(base / 1000000000);
	if (base % 1000000000 < 0)
		off_s--;
	off_cyc = (uint64_t)((unsigned __int128)(base - (__int128)off_s * 1000000000) * c->tsc_hz /
			     1000000000u);

	fprintf(f, TRACE_METADATA_SIGNATURE "%d: see doc/trace-format.md */\n\n", w->format);
	fputs("typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
	      "typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
	      "typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
	      "typealias integer { size = 64; align = 8; signed = false; base = 16; } := "
	      "uint64_hex_t;\n\n",
	      f);
	fprintf(f,
		"trace {\n"
		"\tmajor = 1;\n"
		"\tminor = 8;\n"
		"\tuuid = \"%s\";\n"
		"\tbyte_order = le;\n"
		"\tpacket.header := struct {\n"
		"\t\tuint32_t magic;\n"
		"\t\tuint8_t uuid[16];\n"
		"\t\tuint32_t stream_id;\n"
		"\t\tuint64_t stream_instance_id;\n"
		"\t};\n"
		"};\n\n",
		uuid);
	fprintf(f,
		"env {\n"
		"\tdomain = \"spool\";\n"
		"\ttracer_name = \"spool\";\n"
		"\tspool_format_version = %d;\n"
		"%s%s"
		"\tspool_tsc_hz = \"%" PRIu64 "\";\n"
		"\tspool_tsc0 = \"%" PRIu64 "\";\n"
		"\tspool_mono_ns = \"%" PRIu64 "\";\n"
		"\tspool_real_ns = \"%" PRIu64 "\";\n"
		"};\n\n",
		w->format, w->format == 2 ? "\tspool_format_minor = 3;\n" : "",
		w->untimed ? "\tspool_event_time = \"packet\";\n" : "", c->tsc_hz, c->tsc0,
		c->mono_ns, c->real_ns);
	fprintf(f,
		"clock {\n"
		"\tname = spool_tsc;\n"
		"\tdescription = \"%s\";\n"
		"\tfreq = %" PRIu64 ";\n"
		"\tprecision = 1;\n"
		"\toffset_s = %" PRId64 ";\n"
		"\toffset = %" PRIu64 ";\n"
		"\tabsolute = false;\n"
		"};\n\n",
		w->untimed ? "no per-event time (spool --clock=none): an event has its packet's "
			     "opening time, the TSC read once per packet"
			   : "x86 TSC, calibrated against CLOCK_MONOTONIC",
		c->tsc_hz, off_s, off_cyc);
	fputs("typealias integer { size = 64; align = 8; signed = false; "
	      "map = clock.spool_tsc.value; } := uint64_clock_t;\n\n",
	      f);
	fputs("enum spool_op : integer { size = 5; align = 1; signed = false; } {\n", f);
	for (int i = 0; i < OP_MAX; i++)
		fprintf(f, "\t%s = %d%s\n", trace_lock_op_names[i], i, i + 1 < OP_MAX ? "," : "");
	fputs("};\n\n", f);
	fputs("enum spool_lock_type : uint32_t {\n"
	      "\tMUTEX = 1,\n\tRWLOCK = 2,\n\tSPIN = 3,\n\tSEM = 4,\n\tCOND = 5,\n"
	      "\tBARRIER = 6,\n\tTHREAD = 7,\n\tFUTEX = 8\n"
	      "};\n\n",
	      f);
	if (w->format == 2) {
		trace_meta2_print(f);
		return;
	}
	/* The encoded word: little-endian bit fields fill from bit 0 up. One
	 * word type per event class, so that a CTF reader (babeltrace2) shows
	 * each class's op with its own names and its object by what it is. */
	meta_op_enum(f, "spool_probe_op", trace_probe_op_names, PROBE_OPS);
	meta_op_enum(f, "spool_func_op", trace_func_op_names, FUNC_OPS);
	meta_op_enum(f, "spool_input_op", trace_input_op_names, INPUT_OPS);
	meta_word(f, "spool_lock_word_t", "enum spool_op", "lock");
	meta_word(f, "spool_word_t", NULL, "obj");
	meta_word(f, "spool_lockdef_word_t", NULL, "lock");
	meta_word(f, "spool_probe_word_t", "enum spool_probe_op", "probe");
	meta_word(f, "spool_func_word_t", "enum spool_func_op", "obj");
	meta_word(f, "spool_input_word_t", "enum spool_input_op", "obj");
	fputs("stream {\n"
	      "\tid = 0;\n"
	      "\tpacket.context := struct {\n"
	      "\t\tuint64_clock_t timestamp_begin;\n"
	      "\t\tuint64_clock_t timestamp_end;\n"
	      "\t\tuint64_t content_size;\n"
	      "\t\tuint64_t packet_size;\n"
	      "\t\tuint64_t packet_seq_num;\n"
	      "\t\tuint64_t events_discarded;\n"
	      "\t\tuint32_t pid;\n"
	      "\t\tuint32_t tid;\n"
	      "\t};\n"
	      "\tevent.header := struct {\n"
	      "\t\tuint8_t id;\n"
	      "\t\tuint64_clock_t timestamp;\n"
	      "\t};\n"
	      "};\n\n",
	      f);
	fprintf(f,
		"event {\n"
		"\tname = \"spool:lock\";\n"
		"\tid = %d;\n"
		"\tstream_id = 0;\n"
		"\tfields := struct {\n"
		"\t\tspool_lock_word_t word;\n"
		"\t\tuint32_t seq;\n"
		"\t\tuint64_hex_t ip;\n"
		"\t\tuint64_t arg;\n"
		"\t\tuint32_t nstack;\n"
		"\t\tuint64_hex_t stack[nstack];\n"
		"\t};\n"
		"};\n\n",
		KIND_LOCK);
	fprintf(f,
		"event {\n"
		"\tname = \"spool:thread\";\n"
		"\tid = %d;\n"
		"\tstream_id = 0;\n"
		"\tfields := struct {\n"
		"\t\tspool_word_t word;\n"
		"\t\tuint32_t seq;\n"
		"\t\tuint32_t tid;\n"
		"\t\tuint32_t pid;\n"
		"\t\tuint64_hex_t pthread;\n"
		"\t\tinteger { size = 8; align = 8; signed = false; encoding = UTF8; } "
		"name[16];\n"
		"\t};\n"
		"};\n\n",
		KIND_THREAD);
	fprintf(f,
		"event {\n"
		"\tname = \"spool:lockdef\";\n"
		"\tid = %d;\n"
		"\tstream_id = 0;\n"
		"\tfields := struct {\n"
		"\t\tspool_lockdef_word_t word;\n"
		"\t\tuint32_t seq;\n"
		"\t\tuint64_hex_t addr;\n"
		"\t\tuint64_hex_t init_ip;\n"
		"\t\tenum spool_lock_type type;\n"
		"\t\tuint32_t pid;\n"
		"\t};\n"
		"};\n\n",
		KIND_LOCKDEF);
	fprintf(f,
		"event {\n"
		"\tname = \"spool:proc\";\n"
		"\tid = %d;\n"
		"\tstream_id = 0;\n"
		"\tfields := struct {\n"
		"\t\tspool_word_t word;\n"
		"\t\tuint32_t seq;\n"
		"\t\tuint32_t pid;\n"
		"\t\tuint32_t ppid;\n"
		"\t\tuint32_t proc_slot;\n"
		"\t\tuint32_t flags;\n"
		"\t};\n"
		"};\n\n",
		KIND_PROC);
	fprintf(f,
		"event {\n"
		"\tname = \"spool:user\";\n"
		"\tid = %d;\n"
		"\tstream_id = 0;\n"
		"\tfields := struct {\n"
		"\t\tspool_word_t word;\n"
		"\t\tuint32_t seq;\n"
		"\t\tuint32_t id;\n"
		"\t\tuint32_t nargs;\n"
		"\t\tinteger { size = 64; align = 8; signed = true; } args[nargs];\n"
		"\t};\n"
		"};\n",
		KIND_USER);
	for (unsigned i = 0; (d = trace_kind_at(i)); i++)
		fprintf(f,
			"\nevent {\n"
			"\tname = \"%s\";\n"
			"\tid = %u;\n"
			"\tstream_id = 0;\n"
			"\tfields := struct {\n"
			"\t\t%s word;\n"
			"\t\tuint32_t seq;\n"
			"%s"
			"\t};\n"
			"};\n",
			d->name, d->kind, meta_word_type(d->kind), d->tsdl_fields);
}

static int write_all(int fd, const void *data, size_t len, uint64_t off)
{
	const char *p = data;

	while (len) {
		ssize_t n = pwrite(fd, p, len, (off_t)off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EIO;
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

/*
 * Write `data` to `dirfd`/`tmp` then rename it to `name`, so readers see the
 * old file or the new one, never a partial one.
 */
static int replace_file(int dirfd, const char *tmp, const char *name, const void *data, size_t len)
{
	int fd, err;

	fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
		    TRACE_FILE_MODE);
	if (fd < 0)
		return -errno;
	err = write_all(fd, data, len, 0);
	if (close(fd) < 0 && !err)
		err = -errno;
	if (!err && renameat(dirfd, tmp, dirfd, name) < 0)
		err = -errno;
	if (err)
		unlinkat(dirfd, tmp, 0);
	return err;
}

static int meta_write(struct trace_writer *w)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int err;

	f = open_memstream(&text, &len);
	if (!f)
		return -errno;
	meta_print(f, w);
	if (fclose(f) != 0) {
		free(text);
		return -ENOMEM;
	}
	err = replace_file(w->dirfd, TRACE_METADATA_TMP, TRACE_METADATA, text, len);
	free(text);
	if (err)
		log_err("cannot write %s/%s: %s", w->dir, TRACE_METADATA, strerror(-err));
	return err;
}

static int mkdir_at(int dirfd, const char *name);

/*
 * The state file: key=value lines padded with newlines to TRACE_STATE_SIZE,
 * always rewritten whole at offset 0. Its blocks are allocated when the
 * trace is created, so on a disk that filled up since, rewriting it needs no
 * new space and the trace can still say "finished" and what it lost.
 */
static int state_write(struct trace_writer *w, int finished)
{
	char buf[TRACE_STATE_SIZE];
	struct trace_loss l;
	int n;

	if (w->state_fd < 0)
		return -EBADF;
	trace_writer_loss(w, &l);
	n = snprintf(buf, sizeof(buf),
		     "format=spool-state-1\nstate=%s\nring_full=%" PRIu64 "\nno_ring=%" PRIu64
		     "\nfork=%" PRIu64 "\nseq_gaps=%" PRIu64 "\ndamaged_rings=%" PRIu64 "\nrejected=%" PRIu64
		     "\nlost_write=%" PRIu64 "\nside_files=%" PRIu64 "\nno_proc=%" PRIu64
		     "\nstill_running=%" PRIu64 "\nclone=%" PRIu64 "\npidns=%" PRIu64 "\n",
		     finished ? "finished" : "writing", l.ring_full, l.no_ring, l.fork, l.seq_gaps,
		     l.damaged_rings, l.rejected, l.write, l.side_files, l.no_proc,
		     l.still_running, l.clone, l.pidns);
	memset(buf + n, '\n', sizeof(buf) - (size_t)n);
	return write_all(w->state_fd, buf, sizeof(buf), 0);
}

static int state_create(struct trace_writer *w)
{
	int err = mkdir_at(w->dirfd, TRACE_SIDE_DIR);

	if (err)
		return err;
	w->state_fd = openat(w->dirfd, TRACE_SIDE_DIR "/" TRACE_STATE_NAME,
			     O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, TRACE_FILE_MODE);
	if (w->state_fd < 0)
		return -errno;
	/* Held while this writer lives: a trace left by a killed spool is
	 * told from one being written by a lock the kernel dropped (stale.c).
	 * Best effort (a file system without flock: the pid in the name). */
	flock(w->state_fd, LOCK_EX | LOCK_NB);
	err = state_write(w, 0);
	if (err) {
		close(w->state_fd);
		w->state_fd = -1;
		unlinkat(w->dirfd, TRACE_SIDE_DIR "/" TRACE_STATE_NAME, 0);
		unlinkat(w->dirfd, TRACE_SIDE_DIR, AT_REMOVEDIR);
	}
	return err;
}

const char *trace_writer_dir(const struct trace_writer *w)
{
	return w->dir;
}

void trace_writer_note_loss(struct trace_writer *w, const struct trace_loss *l)
{
	w->noted = *l;
}

void trace_writer_loss(const struct trace_writer *w, struct trace_loss *out)
{
	*out = w->noted;
	out->streams = 0;
	out->side_files += w->side_files;
	for (size_t i = 0; i < w->nstreams; i++) {
		out->ring_full += w->streams[i]->lost;
		out->write += w->streams[i]->write_lost;
	}
	/* what the trace says once trace_writer_close has succeeded */
	out->state = TRACE_STATE_FINISHED;
}

uint64_t trace_writer_lost_kind(const struct trace_writer *w, unsigned kind)
{
	uint64_t n = 0;

	if (kind >= KIND_MAX)
		return 0;
	for (size_t i = 0; i < w->nstreams; i++)
		n += w->streams[i]->write_lost_kind[kind];
	return n;
}

int trace_writer_checkpoint(struct trace_writer *w)
{
	return state_write(w, 0);
}

/* SPOOL_TRACE_FORMAT=1: version 1, for the tests of its reader and for an
 * older spool (doc/trace-format.md, "Versions"). Read by the host tool only. */
static int writer_format(void)
{
	const char *v = getenv("SPOOL_TRACE_FORMAT");

	return v && !strcmp(v, "1") ? 1 : TRACE_FORMAT_VERSION;
}

static int clock_ok(const struct trace_clock *clk)
{
	return clk && clk->tsc_hz != 0;
}

int trace_writer_open(struct trace_writer **out, const char *dir, const struct trace_clock *clk)
{
	struct trace_writer *w;
	int err;

	*out = NULL;
	if (!dir || !clock_ok(clk))
		return -EINVAL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->dirfd = -1;
	w->state_fd = -1;
	w->clk = *clk;
	w->format = writer_format();
	w->pkt_hdr = w->format == 2 ? TRACE_PKT_HDR_SIZE2 : TRACE_PKT_HDR_SIZE;
	w->dir = strdup(dir);
	if (!w->dir) {
		err = -ENOMEM;
		goto out_free;
	}
	if (getrandom(w->uuid, sizeof(w->uuid), 0) != (ssize_t)sizeof(w->uuid)) {
		err = errno ? -errno : -EIO;
		goto out_free;
	}
	w->uuid[6] = (uint8_t)((w->uuid[6] & 0x0f) | 0x40); /* RFC 4122 version 4 */
	w->uuid[8] = (uint8_t)((w->uuid[8] & 0x3f) | 0x80);
	/* Private: a record trace holds the program's environment and every
	 * byte it read (doc/record.md). mkdir fails on anything already there,
	 * so nothing of the user's is ever written into. */
	if (mkdir(dir, TRACE_DIR_MODE) < 0) {
		err = -errno; /* said by the caller, with the name the user gave */
		goto out_free;
	}
	w->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (w->dirfd < 0) {
		err = -errno;
		goto out_rmdir;
	}
	/* the state file first: a trace with metadata always has one */
	err = state_create(w);
	if (err) {
		log_err("cannot create %s/%s/%s: %s", dir, TRACE_SIDE_DIR, TRACE_STATE_NAME,
			strerror(-err));
		goto out_close;
	}
	err = meta_write(w);
	if (err)
		goto out_state;
	*out = w;
	return 0;

out_state:
	close(w->state_fd);
	unlinkat(w->dirfd, TRACE_SIDE_DIR "/" TRACE_STATE_NAME, 0);
	unlinkat(w->dirfd, TRACE_SIDE_DIR, AT_REMOVEDIR);
out_close:
	close(w->dirfd);
out_rmdir:
	rmdir(dir);
out_free:
	free(w->dir);
	free(w);
	return err;
}

int trace_writer_create(struct trace_writer **out, const char *dir, const struct trace_clock *clk,
			int quiet)
{
	char partial[PATH_MAX];
	char *final;
	int err;

	*out = NULL;
	err = trace_dir_check(dir);
	if (err < 0)
		return err;
	err = trace_dir_partial(dir, partial, sizeof(partial));
	if (err < 0)
		return err;
	final = strdup(dir);
	if (!final)
		return -ENOMEM;
	err = trace_writer_open(out, partial, clk);
	/* a partial trace a killed spool of the same pid left (pid reuse) is
	 * the user's to look at: another name beside it */
	for (int n = 1; err == -EEXIST && n < 10; n++) {
		char again[PATH_MAX + 8];

		snprintf(again, sizeof(again), "%s.%d", partial, n);
		err = trace_writer_open(out, again, clk);
	}
	if (err < 0) {
		free(final);
		return err;
	}
	(*out)->final = final;
	(*out)->quiet = quiet;
	return 0;
}

int trace_writer_stream(struct trace_writer *w, uint32_t stream_id, uint32_t pid, uint32_t tid,
			struct trace_stream **out)
{
	struct trace_stream *s;
	char name[32];
	int err;

	*out = NULL;
	for (size_t i = 0; i < w->nstreams; i++)
		if (w->streams[i]->id == stream_id)
			return -EEXIST;
	if (w->nstreams == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 16;
		struct trace_stream **v = realloc(w->streams, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		w->streams = v;
		w->cap = cap;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->w = w;
	s->id = stream_id;
	s->pid = pid;
	s->tid = tid;
	s->cap = TRACE_PACKET_SIZE;
	s->len = w->pkt_hdr;
	s->buf = malloc(s->cap);
	if (!s->buf) {
		err = -ENOMEM;
		goto out_free;
	}
	snprintf(name, sizeof(name), TRACE_STREAM_PREFIX "%" PRIu32, stream_id);
	/* O_EXCL: a stream file is never shared, not even with an earlier run. */
	s->fd = openat(w->dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, TRACE_FILE_MODE);
	if (s->fd < 0) {
		err = -errno;
		log_err("cannot create %s/%s: %s", w->dir, name, strerror(errno));
		goto out_free;
	}
	w->streams[w->nstreams++] = s;
	*out = s;
	return 0;

out_free:
	free(s->buf);
	free(s);
	return err;
}

static int packet_write(struct trace_stream *s)
{
	uint64_t disc = s->lost + s->write_lost;
	uint64_t bits = (uint64_t)s->len * 8;
	uint8_t *b = s->buf;
	int err;

	if (s->nev == 0 && disc == s->disc_written)
		return 0;
	if (s->prov_len) {
		/* A provisional packet is at file_off: an empty packet saying
		 * a loss waits for the packet that replaces it (which carries
		 * the new total); anything else keeps it as it is. */
		if (s->nev == 0)
			return 0;
		trace_stream_seal(s);
	}
	if (s->nev == 0)
		s->ts_begin = s->last_tsc;
	trace_put32(b + TRACE_PH_MAGIC, TRACE_MAGIC);
	memcpy(b + TRACE_PH_UUID, s->w->uuid, 16);
	trace_put32(b + TRACE_PH_STREAM_ID, 0);
	trace_put64(b + TRACE_PH_INSTANCE, s->id);
	trace_put64(b + TRACE_PC_TS_BEGIN, s->ts_begin);
	trace_put64(b + TRACE_PC_TS_END, s->last_tsc);
	trace_put64(b + TRACE_PC_CONTENT, bits);
	trace_put64(b + TRACE_PC_PACKET, bits);
	trace_put64(b + TRACE_PC_SEQ_NUM, s->seq_num);
	trace_put64(b + TRACE_PC_DISCARDED, disc);
	trace_put32(b + TRACE_PC_PID, s->pid);
	trace_put32(b + TRACE_PC_TID, s->tid);
	if (s->w->format == 2) {
		trace_put32(b + TRACE_PC_FIRST_SEQ, s->first_seq);
		trace_put32(b + TRACE_PC_EVENTS, s->nev2);
	}
	err = write_all(s->fd, b, s->len, s->file_off);
	if (err) {
		/* Undo a partial write so the file stays whole packets; the
		 * events are counted as discarded in the next packet. */
		if (ftruncate(s->fd, (off_t)s->file_off) < 0)
			log_warn("cannot truncate stream %" PRIu32 ": %s", s->id, strerror(errno));
		s->write_lost += s->nev;
		for (unsigned k = 0; k < KIND_MAX; k++)
			s->write_lost_kind[k] += s->nkind[k];
		if (!s->w->write_warned++)
			log_err("cannot write stream %" PRIu32 " of %s: %s; events that do not "
				"reach the disk are counted as lost",
				s->id, s->w->dir, strerror(-err));
	} else {
		s->file_off += s->len;
		s->seq_num++;
		s->disc_written = disc;
	}
	s->len = s->w->pkt_hdr;
	s->nev = 0;
	s->nev2 = 0;
	memset(s->nkind, 0, sizeof(s->nkind));
	return err;
}

/* Bytes the event takes in a packet, or 0 if the record is not writable. */
static size_t event_size(const struct rec_hdr *rec)
{
	switch (ev_kind(rec->word)) {
	case KIND_LOCK:
		if (rec->size < sizeof(struct rec_lock) ||
		    (rec->size - sizeof(struct rec_lock)) % 8)
			return 0;
		return TRACE_EV_HDR_SIZE + TRACE_PL_LOCK + (rec->size - sizeof(struct rec_lock));
	case KIND_THREAD:
		return rec->size < sizeof(struct rec_thread) ? 0
							     : TRACE_EV_HDR_SIZE + TRACE_PL_THREAD;
	case KIND_LOCKDEF:
		return rec->size < sizeof(struct rec_lockdef)
			   ? 0
			   : TRACE_EV_HDR_SIZE + TRACE_PL_LOCKDEF;
	case KIND_PROC:
		return rec->size < sizeof(struct rec_proc) ? 0 : TRACE_EV_HDR_SIZE + TRACE_PL_PROC;
	case KIND_USER: {
		const struct rec_user *u = (const struct rec_user *)rec;

		if (rec->size < sizeof(*u) || rec->size != sizeof(*u) + 8 * (uint64_t)u->nargs)
			return 0;
		return TRACE_EV_HDR_SIZE + TRACE_PL_USER + 8 * (size_t)u->nargs;
	}
	default: {
		const struct trace_kind_desc *d = trace_kind_find(ev_kind(rec->word));
		uint64_t tail = 0;

		if (!d || rec->size < sizeof(*rec) + d->fixed)
			return 0;
		if (d->tail_elem)
			tail = (uint64_t)d->tail_elem *
			       trace_get32((const uint8_t *)(rec + 1) + d->tail_count_off);
		if (rec->size != sizeof(*rec) + d->fixed + tail)
			return 0;
		return TRACE_EV_HDR_SIZE + 12 + d->fixed + (size_t)tail;
	}
	}
}

/* The record's fields after word and seq, as both versions store them
 * (rest bytes: TRACE_V1_REST of its version-1 size). */
void trace_v1_rest_put(uint8_t *p, const void *rec, size_t rest)
{
	const struct rec_hdr *h = rec;

	switch (ev_kind(h->word)) {
	case KIND_LOCK: {
		const struct rec_lock *l = (const struct rec_lock *)h;
		uint32_t n = (uint32_t)((h->size - sizeof(*l)) / 8);

		trace_put64(p, l->ip);
		trace_put64(p + 8, l->arg);
		trace_put32(p + 16, n);
#if __BYTE_ORDER == __LITTLE_ENDIAN
		memcpy(p + 20, l->stack, (size_t)n * 8);
#else
		for (uint32_t i = 0; i < n; i++)
			trace_put64(p + 20 + 8 * i, l->stack[i]);
#endif
		break;
	}
	case KIND_THREAD: {
		const struct rec_thread *t = (const struct rec_thread *)h;

		trace_put32(p, t->tid);
		trace_put32(p + 4, t->pid);
		trace_put64(p + 8, t->pthread);
		memcpy(p + 16, t->name, 16);
		break;
	}
	case KIND_LOCKDEF: {
		const struct rec_lockdef *d = (const struct rec_lockdef *)h;

		trace_put64(p, d->addr);
		trace_put64(p + 8, d->init_ip);
		trace_put32(p + 16, d->type);
		trace_put32(p + 20, d->pid);
		break;
	}
	case KIND_PROC: {
		const struct rec_proc *pr = (const struct rec_proc *)h;

		trace_put32(p, pr->pid);
		trace_put32(p + 4, pr->ppid);
		trace_put32(p + 8, pr->proc_slot);
		trace_put32(p + 12, pr->flags);
		break;
	}
	case KIND_USER: {
		const struct rec_user *u = (const struct rec_user *)h;

		trace_put32(p, u->id);
		trace_put32(p + 4, u->nargs);
#if __BYTE_ORDER == __LITTLE_ENDIAN
		memcpy(p + 8, u->args, (size_t)u->nargs * 8);
#else
		for (uint32_t i = 0; i < u->nargs; i++)
			trace_put64(p + 8 + 8 * i, (uint64_t)u->args[i]);
#endif
		break;
	}
	default:
		/* A table kind (kinds.h): the payload is already in CTF layout. */
		memcpy(p, (const struct rec_hdr *)rec + 1, rest);
		break;
	}
}

/* Begin the packet's events with this record when it is the first. */
static void packet_first(struct trace_stream *s, const struct rec_hdr *rec)
{
	if (s->nev)
		return;
	s->ts_begin = rec->tsc;
	s->first_seq = rec->seq;
	if (s->w->format == 2)
		trace_enc2_packet(&s->enc, rec->tsc);
}

/* trace_stream_write of any record: out of line, so that the fast path
 * below saves no registers for it. */
static __attribute__((noinline)) int stream_write_any(struct trace_stream *s,
						      const struct rec_hdr *rec)
{
	size_t need, room;
	unsigned kind = ev_kind(rec->word);
	uint8_t *p;

	need = event_size(rec);
	if (!need)
		return -EINVAL;
	room = s->w->format == 2 ? trace_enc2_max(rec, need) : need;
	/* A ring that a process which ended gave back is reused by a thread
	 * of another process (collector.c): the packets from that thread's
	 * spool:thread event on carry its pid and tid in their context. */
	if (kind == KIND_THREAD) {
		const struct rec_thread *t = (const struct rec_thread *)rec;

		if (t->pid != s->pid) {
			if (s->nev)
				packet_write(s);
			s->pid = t->pid;
			s->tid = t->tid;
		}
	}
	/* Format 2 gives an event the seq after its predecessor's; a record
	 * whose seq is another (records dropped before it) starts a packet
	 * whose first_seq says it. spool:thread carries its own. */
	if (s->w->format == 2 && s->nev && kind != KIND_THREAD && rec->seq != s->next_seq)
		packet_write(s);
	if (s->len + room > s->cap) {
		/* a failure is counted in write_lost and logged: not ours to return */
		if (s->nev)
			packet_write(s);
		if (s->w->pkt_hdr + room > s->cap) {
			/* A single huge event (a very deep stack): grow once. */
			uint8_t *b = realloc(s->buf, s->w->pkt_hdr + room);

			if (!b)
				return -ENOMEM;
			s->buf = b;
			s->cap = s->w->pkt_hdr + room;
		}
	}
	p = s->buf + s->len;
	packet_first(s, rec);
	s->last_tsc = rec->tsc;
	s->nev++;
	if (kind < KIND_MAX)
		s->nkind[kind]++;
	s->next_seq = rec->seq + 1;
	if (s->w->format == 2) {
		s->len += trace_enc2_put(&s->enc, p, rec, need, &s->nev2);
		return 0;
	}
	s->len += need;
	trace_put8(p, (uint8_t)kind);
	trace_put64(p + 1, rec->tsc);
	trace_put64(p + 9, rec->word);
	trace_put32(p + 17, rec->seq);
	trace_v1_rest_put(p + 21, rec, TRACE_V1_REST(need));
	return 0;
}

int trace_stream_write(struct trace_stream *s, const struct rec_hdr *rec)
{
	/* Most records of a probed program: a probe entry or exit that
	 * follows the one before it in an open packet with room, written in
	 * its short form (stream_write_any would do the same, through the
	 * size checks of every kind and the general encoder). */
	if (ev_kind(rec->word) == KIND_PROBE && rec->size == sizeof(struct rec_probe) &&
	    s->w->format == 2 && s->nev && rec->seq == s->next_seq &&
	    s->len + TRACE2_PROBE_SHORT_MAX <= s->cap) {
		size_t n = trace_enc2_probe(&s->enc, s->buf + s->len,
					    (const struct rec_probe *)rec, &s->nev2);

		if (n) {
			s->len += n;
			s->last_tsc = rec->tsc;
			s->nev++;
			s->nev2++;
			s->nkind[KIND_PROBE]++;
			s->next_seq = rec->seq + 1;
			return 0;
		}
	}
	return stream_write_any(s, rec);
}

int trace_writer_format(const struct trace_writer *w)
{
	return w->format;
}

/* Write the ring's packet b at file_off, over a provisional one if any
 * (which it extends: a shorter one leaves no stale tail). open: it is the
 * provisional copy of a packet still open in the ring. */
static int stream_put(struct trace_stream *s, uint8_t *b, size_t len, int open)
{
	uint64_t disc, nev;
	int err;

	if (s->w->format != 2 || len < TRACE_PKT_HDR_SIZE2 || len > TRACE_RING_PACKET_MAX)
		return -EINVAL;
	/* (nothing of the writer's own is pending in packet mode; if it were,
	 * it goes first, so the files keep their order) */
	if (s->nev)
		packet_write(s);
	disc = s->lost + s->write_lost;
	nev = trace_get32(b + TRACE_PC_EVENTS);
	if (nev > len / 4)
		nev = len / 4; /* (an event takes 4 bytes at least) */
	memcpy(b + TRACE_PH_UUID, s->w->uuid, 16);
	trace_put32(b + TRACE_PH_STREAM_ID, 0);
	trace_put64(b + TRACE_PH_INSTANCE, s->id);
	trace_put64(b + TRACE_PC_SEQ_NUM, s->seq_num);
	trace_put64(b + TRACE_PC_DISCARDED, disc);
	err = write_all(s->fd, b, len, s->file_off);
	if (!err && s->prov_len > len && ftruncate(s->fd, (off_t)(s->file_off + len)) < 0)
		err = -errno;
	if (err) {
		if (ftruncate(s->fd, (off_t)s->file_off) < 0)
			log_warn("cannot truncate stream %" PRIu32 ": %s", s->id, strerror(errno));
		s->prov_len = 0;
		if (open)
			return err; /* its events come again with the packet */
		s->write_lost += nev;
		if (!s->w->write_warned++)
			log_err("cannot write stream %" PRIu32 " of %s: %s; events that do not "
				"reach the disk are counted as lost",
				s->id, s->w->dir, strerror(-err));
		return 0;
	}
	/* an empty packet written later (a loss at the end) has this time */
	s->last_tsc = trace_get64(b + TRACE_PC_TS_END);
	s->pid = trace_get32(b + TRACE_PC_PID);
	s->tid = trace_get32(b + TRACE_PC_TID);
	if (open) {
		s->prov_len = len;
		s->prov_disc = disc;
		return 0;
	}
	s->prov_len = 0;
	s->file_off += len;
	s->seq_num++;
	s->disc_written = disc;
	return 0;
}

int trace_stream_put_packet(struct trace_stream *s, uint8_t *b, size_t len)
{
	return stream_put(s, b, len, 0);
}

int trace_stream_put_open(struct trace_stream *s, uint8_t *b, size_t len)
{
	return stream_put(s, b, len, 1);
}

uint64_t trace_stream_whole_end(const struct trace_stream *s, uint32_t *id)
{
	*id = s->id;
	return s->file_off;
}

void trace_stream_seal(struct trace_stream *s)
{
	if (!s->prov_len)
		return;
	s->file_off += s->prov_len;
	s->seq_num++;
	s->disc_written = s->prov_disc;
	s->prov_len = 0;
}

void trace_stream_discarded(struct trace_stream *s, uint64_t total_lost)
{
	/* A running total: never let it go backwards, CTF readers reject that. */
	if (total_lost > s->lost)
		s->lost = total_lost;
}

int trace_stream_flush(struct trace_stream *s)
{
	return packet_write(s);
}

static int mkdir_at(int dirfd, const char *name)
{
	if (mkdirat(dirfd, name, TRACE_DIR_MODE) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

/* A side file written to its place (tmp then rename); counted and said
 * when it cannot be, unless it is an early copy (trace_writer_early_file). */
static int writer_side_file(struct trace_writer *w, const char *name, const void *data,
			    size_t len, int early)
{
	char path[512], tmp[520];
	const char *slash;
	int err;

	/* the state file is the writer's own (rewritten in place, never
	 * replaced: a copy of another trace's would hide this one's state) */
	if (!trace_side_name_ok(name) || strlen(name) > 400 || !strcmp(name, TRACE_STATE_NAME))
		return -EINVAL;
	err = mkdir_at(w->dirfd, TRACE_SIDE_DIR);
	if (err)
		goto out;
	slash = strchr(name, '/');
	if (slash) {
		snprintf(path, sizeof(path), TRACE_SIDE_DIR "/%.*s", (int)(slash - name), name);
		err = mkdir_at(w->dirfd, path);
		if (err)
			goto out;
	}
	snprintf(path, sizeof(path), TRACE_SIDE_DIR "/%s", name);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	err = replace_file(w->dirfd, tmp, path, data, len);
out:
	if (err && !early) {
		w->side_files++;
		log_err("cannot write side file %s in %s: %s", name, w->dir, strerror(-err));
	}
	return err;
}

int trace_writer_add_file(struct trace_writer *w, const char *name, const void *data, size_t len)
{
	return writer_side_file(w, name, data, len, 0);
}

int trace_writer_early_file(struct trace_writer *w, const char *name, const void *data,
			    size_t len)
{
	return writer_side_file(w, name, data, len, 1);
}

int trace_writer_set_clock(struct trace_writer *w, const struct trace_clock *clk)
{
	if (!clock_ok(clk))
		return -EINVAL;
	w->clk = *clk;
	return meta_write(w);
}

int trace_writer_set_untimed(struct trace_writer *w)
{
	w->untimed = 1;
	return meta_write(w);
}

int trace_writer_close(struct trace_writer *w)
{
	int err = 0, e;

	if (!w)
		return 0;
	for (size_t i = 0; i < w->nstreams; i++) {
		/* a provisional packet not replaced (its ring damaged): the
		 * events it holds are whole, it stays */
		trace_stream_seal(w->streams[i]);
		e = packet_write(w->streams[i]);
		if (e && !err)
			err = e;
		/* on the disk before the state says finished (a power cut) */
		if (fdatasync(w->streams[i]->fd) < 0 && errno != EINVAL && !err)
			err = -errno;
	}
	e = meta_write(w);
	if (e && !err)
		err = e;
	e = state_write(w, 1);
	if (!e && fdatasync(w->state_fd) < 0 && errno != EINVAL)
		e = -errno;
	if (e) {
		log_err("cannot mark %s finished: %s; it will read as unfinished", w->dir,
			strerror(-e));
		err = -EIO;
	}
	for (size_t i = 0; i < w->nstreams; i++) {
		struct trace_stream *s = w->streams[i];

		if (close(s->fd) < 0 && !err)
			err = -errno;
		free(s->buf);
		trace_enc2_free(&s->enc);
		free(s);
	}
	if (w->state_fd >= 0)
		close(w->state_fd);
	close(w->dirfd);
	/* Whole (or as whole as it will be: an unfinished state reads as
	 * such): now at its name. */
	if (w->final) {
		e = trace_dir_install(w->dir, w->final, w->quiet);
		if (e < 0) {
			log_err("cannot put the trace at %s: %s; it is in %s", w->final,
				strerror(-e), w->dir);
			if (!err)
				err = e;
		}
	}
	free(w->streams);
	free(w->dir);
	free(w->final);
	free(w);
	return err;
}
