// SPDX-License-Identifier: MIT
/*
 * rr_log.c - record/replay's log on the host side: the recording's feature
 * area, the "record" side file, loading a recording into a replay area (the
 * layout of rr_area.h) and dumping a schedule as text.
 *
 * Loading checks what a replay depends on: every thread's events numbered
 * 1, 2, 3, ... without a hole, and every object's turns 0, 1, 2, ... each
 * held once. A hole means the recording lost events and is refused.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/early_clock.h"

#include "../common/event.h"
#include "../trace/untrusted.h"
#include "../util/log.h"
#include "rr_log.h"
#include "rr_log_int.h"

uint64_t rr_log_align8(uint64_t v)
{
	return (v + 7) & ~7ull;
}

uint64_t rr_record_area_size(uint32_t max_objs, uint32_t max_threads)
{
	return RR_AREA_HDR + rr_log_align8((uint64_t)max_objs * 4) +
	       (uint64_t)max_threads * sizeof(struct rr_serial_slot);
}

static void rr_area_header(struct rr_area *a, uint32_t mode, uint32_t max_objs,
			   uint32_t max_threads)
{
	memset(a, 0, sizeof(*a));
	a->magic = RR_MAGIC;
	a->version = RR_VERSION;
	a->mode = mode;
	a->max_objs = max_objs;
	a->max_threads = max_threads;
	a->stuck_ms = 5000;
}

void rr_record_area_init(void *area, uint32_t max_objs, uint32_t max_threads)
{
	struct rr_area *a = area;

	rr_area_header(a, RR_MODE_RECORD, max_objs, max_threads);
	/* Recording uses turn[] only; the replay arrays alias it harmlessly. */
	a->turn_off = a->waiters_off = a->objmap_off = a->first_off = a->order_off = RR_AREA_HDR;
	a->threads_off = a->log_off = RR_AREA_HDR;
	a->serial_off = RR_AREA_HDR + rr_log_align8((uint64_t)max_objs * 4);
	a->sw_off = a->serial_off;
}

void rr_record_area_serial(void *area, int chaos, uint64_t seed)
{
	struct rr_area *a = area;

	a->serial = 1;
	a->chaos = chaos ? 1 : 0;
	a->seed = seed;
}

/* ---- the record side file ---- */

int rr_info_write(struct trace_writer *w, const struct rr_info *info)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int rc;

	if (!f)
		return -ENOMEM;
	fprintf(f, "format=spool-record-1\nmode=%s\npid=%" PRIu32 "\nexe=%s\nbuildid=%s\n"
		   "flags=%" PRIu32 "\nlost=%" PRIu64 "\n",
		info->mode, info->pid, info->exe, info->buildid, info->flags, info->lost);
	if (!strcmp(info->mode, "serial"))
		fprintf(f, "chaos=%d\nseed=%" PRIu64 "\nswitches=%" PRIu64 "\n", info->chaos,
			info->seed, info->switches);
	if (info->lock_events)
		fputs("lock_events=1\n", f);
	if (info->compress)
		fputs("compress=1\n", f);
	if (info->snapz)
		fputs("snapz=1\n", f);
	if (info->snap_budget)
		fprintf(f, "snap_budget=%" PRIu64 "\nsnap_bytes=%" PRIu64 "\n", info->snap_budget,
			info->snap_bytes);
	if (info->snap_stopped)
		fprintf(f, "snap_stopped=%" PRIu64 "\n", info->snap_kept);
	if (info->snap_removed)
		fprintf(f, "snap_removed=%" PRIu64 ":%" PRIu64 "\n", info->snap_removed,
			info->snap_taken);
	if (info->kills)
		fputs("kills=1\n", f);
	if (info->fdtab)
		fputs("fdtab=1\n", f);
	if (info->entries_only)
		fputs("progress=entries\n", f);
	if (info->fds[0])
		fprintf(f, "fds=%s\n", info->fds);
	if (info->shm_fd > 0)
		fprintf(f, "shm_fd=%d\n", info->shm_fd);
	if (info->cwd[0])
		fprintf(f, "cwd=%s\n", info->cwd);
	if (info->path[0])
		fprintf(f, "path=%s\n", info->path);
	run_ident_format(&info->ident, f);
	if (info->stack_items)
		fprintf(f, "stack=%" PRIu64 ":%" PRIu64 "\n", info->stack_bytes, info->stack_items);
	if (info->layout[RR_LAYOUT_STACK])
		fprintf(f, "layout=stack:0x%" PRIx64 ",brk:0x%" PRIx64 ",mmap:0x%" PRIx64
			   ",exe:0x%" PRIx64 "\n",
			info->layout[RR_LAYOUT_STACK], info->layout[RR_LAYOUT_BRK],
			info->layout[RR_LAYOUT_MMAP], info->layout[RR_LAYOUT_EXE]);
	if (info->early_n) {
		char e[EARLY_CLOCK_TEXT];

		early_clock_format(info->early_n, info->early_clk, info->early_ns, e, sizeof(e));
		fprintf(f, "early_clock=%s\n", e);
	}
	for (int i = 0; i < 2; i++) {
		if (info->out_kind[i][0])
			fprintf(f, "%s=%s\n", i ? "stderr" : "stdout", info->out_kind[i]);
		if (info->out_off[i])
			fprintf(f, "%s_offset=%" PRIu64 "\n", i ? "stderr" : "stdout",
				info->out_off[i]);
	}
	if (info->direct)
		fprintf(f, "direct_syscalls=%" PRIu64 "\ndirect_calls=%s\n", info->direct,
			info->direct_calls);
	if (info->own_futex)
		fprintf(f, "own_futex=%" PRIu64 "\n", info->own_futex);
	if (info->clones)
		fprintf(f, "clone_threads=%" PRIu32 "\n", info->clones);
	if (info->raw_state)
		fprintf(f, "raw_dispatch=%s\n",
			info->raw_state == RR_RAW_ON ? "on" : strerror(info->raw_err));
	if (info->raw)
		fprintf(f, "raw_syscalls=%" PRIu64 "\nraw_calls=%s\n", info->raw, info->raw_calls);
	for (uint32_t k = 0; k < info->nprocs && k < RR_MAX_PROCS; k++) {
		const struct rr_info_proc *p = &info->procs[k];

		fprintf(f, "proc=%" PRIu32 " %" PRId32 " %" PRId32 " %d %d %" PRIu32 " %" PRIu32 " %s\n",
			k, p->pid, p->ppid, p->parent == RR_NO_PROC ? -1 : (int)p->parent,
			p->prev == RR_NO_PROC ? -1 : (int)p->prev, p->kind, p->end_sig, p->exe);
		/* a line of its own: a reader before it ignores the key */
		if (p->ns_pid > 0)
			fprintf(f, "proc_ns_pid=%" PRIu32 " %" PRId32 "\n", k, p->ns_pid);
	}
	if (info->report[0]) {
		fputs("report=", f);
		for (const char *p = info->report; *p; p++)
			fputc(*p == '\n' ? ' ' : *p, f);
		fputc('\n', f);
	}
	if (fclose(f)) {
		free(buf);
		return -ENOMEM;
	}
	rc = trace_writer_add_file(w, "record", buf, len);
	free(buf);
	return rc;
}

/* "K PID PPID PARENT PREV KIND SIG EXE": process K of a tree, in order from 0
 * (a line out of order or out of range is ignored: the file is untrusted). */
static void rr_info_proc_parse(struct rr_info *info, const char *v)
{
	unsigned k, kind, sig;
	int pid, ppid, parent, prev, end = 0;
	struct rr_info_proc *p;

	if (sscanf(v, "%u %d %d %d %d %u %u%n", &k, &pid, &ppid, &parent, &prev, &kind, &sig,
		   &end) != 7 ||
	    k != info->nprocs || k >= RR_MAX_PROCS || kind > RR_PK_PSPAWN)
		return;
	p = &info->procs[k];
	p->pid = pid;
	p->ppid = ppid;
	/* a parent and an image before an exec got their numbers first */
	p->parent = parent < 0 || (unsigned)parent >= k ? RR_NO_PROC : (uint32_t)parent;
	p->prev = prev < 0 || (unsigned)prev >= k ? RR_NO_PROC : (uint32_t)prev;
	p->kind = kind;
	p->end_sig = sig < 65 ? sig : 0;
	/* the executable: the rest of the line, bounded */
	snprintf(p->exe, sizeof(p->exe), "%s", v[end] == ' ' ? v + end + 1 : "");
	info->nprocs = k + 1;
}

/* "K NSPID": process K's pid in its pid namespace, after its proc line. */
static void rr_info_ns_pid_parse(struct rr_info *info, const char *v)
{
	unsigned k;
	int pid;

	if (sscanf(v, "%u %d", &k, &pid) != 2 || k >= info->nprocs || pid <= 0)
		return;
	info->procs[k].ns_pid = pid;
}

int rr_info_read(const char *dir, struct rr_info *info)
{
	struct trace_reader *r;
	int rc;

	memset(info, 0, sizeof(*info));
	rc = trace_reader_open(&r, dir, NULL);
	if (rc < 0)
		return rc;
	rc = rr_info_read_reader(r, info);
	trace_reader_close(r);
	return rc;
}

int rr_info_read_reader(struct trace_reader *r, struct rr_info *info)
{
	char *data = NULL, *line, *save = NULL;
	size_t len;
	int rc;

	memset(info, 0, sizeof(*info));
	rc = trace_reader_file(r, "record", &data, &len);
	if (rc < 0)
		return rc;
	rc = -EPROTO;
	for (line = strtok_r(data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *eq = strchr(line, '=');

		if (!eq)
			continue;
		*eq++ = 0;
		if (!strcmp(line, "format") && !strcmp(eq, "spool-record-1"))
			rc = 0;
		else if (!strcmp(line, "mode"))
			snprintf(info->mode, sizeof(info->mode), "%s", eq);
		else if (!strcmp(line, "pid"))
			info->pid = (uint32_t)strtoul(eq, NULL, 10);
		else if (!strcmp(line, "exe"))
			snprintf(info->exe, sizeof(info->exe), "%s", eq);
		else if (!strcmp(line, "buildid"))
			snprintf(info->buildid, sizeof(info->buildid), "%s", eq);
		else if (!strcmp(line, "flags"))
			info->flags = (uint32_t)strtoul(eq, NULL, 10);
		else if (!strcmp(line, "lost"))
			info->lost = strtoull(eq, NULL, 10);
		else if (!strcmp(line, "chaos"))
			info->chaos = atoi(eq);
		else if (!strcmp(line, "seed"))
			info->seed = strtoull(eq, NULL, 10);
		else if (!strcmp(line, "switches"))
			info->switches = strtoull(eq, NULL, 10);
		else if (!strcmp(line, "lock_events"))
			info->lock_events = atoi(eq);
		else if (!strcmp(line, "compress"))
			info->compress = atoi(eq);
		else if (!strcmp(line, "snapz"))
			info->snapz = atoi(eq);
		else if (!strcmp(line, "snap_budget"))
			info->snap_budget = strtoull(eq, NULL, 10);
		else if (!strcmp(line, "snap_bytes"))
			info->snap_bytes = strtoull(eq, NULL, 10);
		else if (!strcmp(line, "snap_removed"))
			sscanf(eq, "%" SCNu64 ":%" SCNu64, &info->snap_removed, &info->snap_taken);
		else if (!strcmp(line, "snap_stopped")) {
			info->snap_stopped = 1;
			info->snap_kept = strtoull(eq, NULL, 10);
		}
		else if (!strcmp(line, "kills"))
			info->kills = atoi(eq);
		else if (!strcmp(line, "fdtab"))
			info->fdtab = atoi(eq);
		else if (!strcmp(line, "fds"))
			snprintf(info->fds, sizeof(info->fds), "%s", eq);
		else if (!strcmp(line, "progress"))
			info->entries_only = !strcmp(eq, "entries");
		else if (!strcmp(line, "shm_fd"))
			info->shm_fd = atoi(eq);
		else if (!strcmp(line, "cwd"))
			snprintf(info->cwd, sizeof(info->cwd), "%s", eq);
		else if (!strcmp(line, "stack"))
			sscanf(eq, "%" SCNu64 ":%" SCNu64, &info->stack_bytes, &info->stack_items);
		else if (!strcmp(line, "layout"))
			sscanf(eq, "stack:%" SCNx64 ",brk:%" SCNx64 ",mmap:%" SCNx64 ",exe:%" SCNx64,
			       &info->layout[RR_LAYOUT_STACK], &info->layout[RR_LAYOUT_BRK],
			       &info->layout[RR_LAYOUT_MMAP], &info->layout[RR_LAYOUT_EXE]);
		else if (!strcmp(line, "early_clock"))
			info->early_n = early_clock_parse(eq, info->early_clk, info->early_ns);
		else if (!strcmp(line, "path"))
			snprintf(info->path, sizeof(info->path), "%s", eq);
		else if (run_ident_parse(&info->ident, line, eq))
			;
		else if (!strcmp(line, "stdout") || !strcmp(line, "stderr"))
			snprintf(info->out_kind[line[3] == 'e'], sizeof(info->out_kind[0]), "%s", eq);
		else if (!strcmp(line, "stdout_offset") || !strcmp(line, "stderr_offset"))
			info->out_off[line[3] == 'e'] = strtoull(eq, NULL, 10);
		else if (!strcmp(line, "direct_syscalls"))
			info->direct = strtoull(eq, NULL, 10);
		else if (!strcmp(line, "direct_calls"))
			snprintf(info->direct_calls, sizeof(info->direct_calls), "%s", eq);
		else if (!strcmp(line, "own_futex"))
			info->own_futex = strtoull(eq, NULL, 10);
		else if (!strcmp(line, "clone_threads"))
			info->clones = (uint32_t)strtoul(eq, NULL, 10);
		else if (!strcmp(line, "raw_dispatch"))
			info->raw_state = strcmp(eq, "on") ? RR_RAW_FAILED : RR_RAW_ON;
		else if (!strcmp(line, "raw_syscalls"))
			info->raw = strtoull(eq, NULL, 10);
		else if (!strcmp(line, "raw_calls"))
			snprintf(info->raw_calls, sizeof(info->raw_calls), "%s", eq);
		else if (!strcmp(line, "report"))
			snprintf(info->report, sizeof(info->report), "%s", eq);
		else if (!strcmp(line, "proc"))
			rr_info_proc_parse(info, eq);
		else if (!strcmp(line, "proc_ns_pid"))
			rr_info_ns_pid_parse(info, eq);
	}
	free(data);
	return rc;
}

/* ---- loading a recording ---- */

static uint32_t rec_thread(const struct rec_hdr *h)
{
	return ev_kind(h->word) == KIND_SCHED ? ((const struct rec_sched *)h)->thread
					       : ((const struct rec_input *)h)->thread;
}

static uint32_t rec_tseq(const struct rec_hdr *h)
{
	return ev_kind(h->word) == KIND_SCHED ? ((const struct rec_sched *)h)->tseq
					       : ((const struct rec_input *)h)->tseq;
}

/* Room for a record of len bytes (a multiple of 8) in the log's blocks. */
static void *rr_log_store(struct rr_log *log, size_t len)
{
	struct rr_block *b = log->blocks;
	void *p;

	if (!b || b->cap - b->used < len) {
		size_t size = b ? 2 * b->size : RR_BLOCK_MIN;

		if (size > RR_BLOCK_MAX)
			size = RR_BLOCK_MAX;
		if (size < sizeof(*b) + len)
			size = (sizeof(*b) + len + 4095) & ~(size_t)4095;
		p = mmap(NULL, size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		if (p == MAP_FAILED)
			return NULL;
		b = p;
		b->used = 0;
		b->size = size;
		b->cap = size - sizeof(*b);
		b->next = log->blocks;
		log->blocks = b;
	}
	p = (char *)b->data + b->used;
	b->used += (len + 7) & ~(size_t)7;
	return p;
}

/*
 * recs and thr hold a word or two per record: 15 MB for rr_bank's 1.3M.
 * Grown by realloc and sorted into a malloc'd copy, they were filled one
 * page fault at a time (~14 us each in a VM): the stores into them took a
 * fifth of loading. They are mappings populated in one call instead, sized
 * from the streams' total size (a record is at least 56 bytes), so they
 * rarely grow.
 */
static void *rr_vec_map(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* Grow (or make) the mapping *p of *bytes to hold want bytes, keeping used. */
static int rr_vec_grow(void **p, size_t *bytes, size_t want, size_t used)
{
	size_t size = (want + 4095) & ~(size_t)4095;
	void *q = rr_vec_map(size);

	if (!q)
		return -ENOMEM;
	if (*p) {
		memcpy(q, *p, used);
		munmap(*p, *bytes);
	}
	*p = q;
	*bytes = size;
	return 0;
}

/* Records the reader's streams can hold at most (their bytes / 56). */
static size_t rr_estimate(const struct trace_reader *r)
{
	uint64_t bytes = 0;

	for (size_t i = 0; i < trace_reader_nstreams(r); i++)
		bytes += trace_reader_stream(r, i)->bytes;
	return (size_t)(bytes / sizeof(struct rec_sched)) + 1024;
}

static void rr_log_release(struct rr_log *log)
{
	while (log->blocks) {
		struct rr_block *b = log->blocks;

		log->blocks = b->next;
		munmap(b, b->size);
	}
	if (log->recs)
		munmap(log->recs, log->recs_map);
	if (log->thr)
		munmap(log->thr, log->thr_map);
	free(log->last);
	free(log->scratch);
	log->scratch = NULL;
	log->scratch_cap = 0;
	free(log->zcheck);
	log->zcheck = NULL;
	log->zcheck_cap = 0;
	log->recs = NULL;
	log->thr = NULL;
	log->recs_map = log->thr_map = 0;
	log->last = NULL;
	log->n = log->cap = 0;
}

static int rec_cmp(const void *a, const void *b)
{
	const struct rec_hdr *x = *(const struct rec_hdr *const *)a;
	const struct rec_hdr *y = *(const struct rec_hdr *const *)b;
	uint32_t tx = rec_thread(x), ty = rec_thread(y), sx, sy, cx = 0, cy = 0;

	if (tx != ty)
		return tx < ty ? -1 : 1;
	sx = rec_tseq(x);
	sy = rec_tseq(y);
	if (sx != sy)
		return sx < sy ? -1 : 1;
	if (ev_kind(x->word) == KIND_INPUT)
		cx = ((const struct rec_input *)x)->chunk_off;
	if (ev_kind(y->word) == KIND_INPUT)
		cy = ((const struct rec_input *)y)->chunk_off;
	return cx < cy ? -1 : cx > cy;
}

/* The reader's store hook: schedule and input records are decoded
 * straight into the log's blocks, the rest into the reader's storage. */
static void *rr_collect_store(void *arg, unsigned kind, size_t size)
{
	struct rr_log *log = arg;
	void *p;

	if (kind != KIND_SCHED && kind != KIND_INPUT)
		return NULL;
	/* A chunk of input data that will likely stay in the trace
	 * (rr_input_to_ref) is decoded into a scratch buffer: only what is
	 * left of it goes into the blocks, which are not grown (and their
	 * pages populated) for data nobody keeps. */
	if (kind == KIND_INPUT && log->streams_cap &&
	    size >= sizeof(struct rec_input) + 8 * RR_REF_MIN_WORDS) {
		if (size > log->scratch_cap) {
			free(log->scratch);
			log->scratch_cap = 0;
			log->scratch = malloc(size);
			if (!log->scratch) {
				log->store_failed = 1;
				return NULL;
			}
			log->scratch_cap = size;
		}
		return log->scratch;
	}
	p = rr_log_store(log, size);
	if (!p)
		log->store_failed = 1; /* the record lands in the reader's storage */
	return p;
}

/* Note stream id among the files RR_INPUT_REF records read from; 0 when
 * the table is full. */
static int rr_stream_note(struct rr_log *log, uint32_t id)
{
	for (uint32_t i = 0; i < log->nstreams; i++)
		if (log->stream_id[i] == id)
			return 1;
	if (log->nstreams >= log->streams_cap)
		return 0;
	log->stream_id[log->nstreams++] = id;
	return 1;
}

/*
 * A large chunk of input data stays where the trace has it: the record
 * keeps the stream and the offset (RR_INPUT_REF), and the agent reads the
 * data from the mapped stream file. pigz's 20 MB of input were copied into
 * the replay image and the image written, a quarter of its first replay.
 */
static void rr_input_to_ref(struct rr_log *log, struct rec_hdr *h, const struct trace_event *ev)
{
	struct rec_input *in = (struct rec_input *)h;
	struct rr_input_ref *ref;

	if (in->nwords < RR_REF_MIN_WORDS || ev_op(h->word) || !rr_stream_note(log, ev->stream_id))
		return;
	ref = (struct rr_input_ref *)in->data;
	ref->off = trace_event_file_off(ev, offsetof(struct rec_input, data));
	ref->stream = ev->stream_id;
	ref->pad = 0;
	h->size = sizeof(*in) + sizeof(*ref);
	h->word = ev_word(KIND_INPUT, ev_thread(h->word), ev_obj(h->word), RR_INPUT_REF);
}

/*
 * A chunk that spool record --compress packed stays packed in the trace
 * too (RR_INPUT_ZREF): the agent unpacks it when the program reads it, in
 * the reading thread. Unpacking all of pigz's input before the program
 * started, and every time (such a log had no replay image: it would have
 * held the data unpacked), made its replay 1.4x native. It is unpacked
 * here once, to check the frame's checksum: a damaged chunk is reported
 * before the program runs. 0: the record became a reference; 1: it did not
 * (the caller unpacks it into the log); -EPROTO: it does not unpack.
 */
static int rr_input_to_zref(struct rr_log *log, struct rec_hdr *h, const struct trace_event *ev)
{
	struct rec_input *in = (struct rec_input *)h;
	const struct rec_input_zstd *zh = (const struct rec_input_zstd *)in->data;
	struct rr_input_zref *ref;
	size_t size = trace_zinput_size(h);
	uint32_t raw, packed;

	if (!size)
		return -EPROTO;
	if (size > log->zcheck_cap) {
		void *p = realloc(log->zcheck, size);

		if (!p)
			return 1;
		log->zcheck = p;
		log->zcheck_cap = size;
	}
	if (trace_zinput_unpack(h, log->zcheck, size) < 0)
		return -EPROTO;
	raw = zh->raw;
	packed = zh->packed;
	if (raw > RR_ZREF_MAX_RAW || 8ull * in->nwords < sizeof(*ref) ||
	    !rr_stream_note(log, ev->stream_id))
		return 1;
	ref = (struct rr_input_zref *)in->data;
	ref->off = trace_event_file_off(ev, offsetof(struct rec_input, data) + sizeof(*zh));
	ref->stream = ev->stream_id;
	ref->packed = packed;
	ref->raw = raw;
	ref->pad = 0;
	in->nwords = (raw + 7) / 8; /* the data's words, as for RR_INPUT_REF */
	h->size = sizeof(*in) + sizeof(*ref);
	h->word = ev_word(KIND_INPUT, ev_thread(h->word), ev_obj(h->word), RR_INPUT_ZREF);
	log->packed = 1;
	return 0;
}

static int rr_collect_part(const char *dir, struct rr_log *log, int flags, uint32_t *max_lock,
			   char *err, size_t errlen)
{
	struct trace_reader *r;
	struct trace_problem prob;
	struct trace_event ev;
	int rc;

	/* Stream after stream: a thread's records then lie together in the
	 * blocks, and rr_log_place lays them out in runs. */
	rc = trace_reader_open_store(&r, dir, &prob, TRACE_READER_BY_STREAM | flags,
				     rr_collect_store, log);
	if (rc < 0) {
		snprintf(err, errlen, "cannot read trace %s: %s", dir, prob.msg);
		return rc;
	}
	log->cap = rr_estimate(r);
	if (rr_vec_grow((void **)&log->recs, &log->recs_map, log->cap * sizeof(*log->recs), 0) ||
	    rr_vec_grow((void **)&log->thr, &log->thr_map, log->cap * sizeof(*log->thr), 0)) {
		trace_reader_close(r);
		snprintf(err, errlen, "reading %s: %s", dir, strerror(ENOMEM));
		return -ENOMEM;
	}
	while ((rc = trace_reader_next(r, &ev)) > 0) {
		unsigned k = ev_kind(ev.rec->word);
		struct rec_hdr *c;

		if (k == KIND_LOCKDEF && ev_obj(ev.rec->word) > *max_lock)
			*max_lock = ev_obj(ev.rec->word);
		if (k != KIND_SCHED && k != KIND_INPUT)
			continue;
		if (log->n == log->cap) {
			size_t cap = 2 * log->cap;

			if (rr_vec_grow((void **)&log->recs, &log->recs_map, cap * sizeof(*log->recs),
					log->n * sizeof(*log->recs)) ||
			    rr_vec_grow((void **)&log->thr, &log->thr_map, cap * sizeof(*log->thr),
					log->n * sizeof(*log->thr))) {
				rc = -ENOMEM;
				break;
			}
			log->cap = cap;
		}
		if (!log->last && !(log->last = calloc(RR_MAX_THREADS, sizeof(*log->last)))) {
			rc = -ENOMEM;
			break;
		}
		/* Decoded into the blocks already (rr_collect_store). */
		if (log->store_failed) {
			rc = -ENOMEM;
			break;
		}
		c = (struct rec_hdr *)ev.rec;
		{
			/* Process trees: the process number is in the high bits
			 * of the thread field (rr_area.h); keep proc's records
			 * (before their streams are noted: a process's replay
			 * maps the stream files its own records read from). */
			uint32_t *thf = k == KIND_SCHED ? &((struct rec_sched *)c)->thread
							: &((struct rec_input *)c)->thread;

			if (*thf >> RR_PROC_SHIFT != log->proc)
				continue;
			*thf &= RR_THREAD_MASK;
		}
		if (k == KIND_INPUT && ev_op(c->word) == INPUT_OP_ZSTD) {
			/* spool record --compress: kept packed, or the data as
			 * it was read */
			size_t size = trace_zinput_size(c);
			struct rec_hdr *b = NULL;

			rc = rr_input_to_zref(log, c, &ev);
			if (rc == 1) {
				b = size && size <= (1u << 20) ? rr_log_store(log, size) : NULL;
				rc = b && trace_zinput_unpack(c, b, size) >= 0 ? 0 : -EPROTO;
				c = b;
			}
			if (rc < 0) {
				snprintf(err, errlen,
					 "the recording is damaged (stream_%u at offset %" PRIu64
					 ": a compressed input record does not unpack)",
					 ev.stream_id, ev.offset);
				break;
			}
		} else if (k == KIND_INPUT) {
			rr_input_to_ref(log, c, &ev);
		}
		if ((void *)c == log->scratch) {
			/* What the scratch record became (a reference, or the
			 * data when the stream table is full) goes to the blocks. */
			struct rec_hdr *b = rr_log_store(log, c->size);

			if (!b) {
				rc = -ENOMEM;
				break;
			}
			memcpy(b, c, c->size);
			c = b;
		}
		log->thr[log->n] = rec_thread(c);
		log->recs[log->n++] = c;
		/* Each thread's records should come in their own order (the
		 * token switches of serial mode are taken out before sorting). */
		if (k == KIND_SCHED && ((const struct rec_sched *)c)->op == RR_OP_SWITCH) {
			log->nswitch++;
			continue;
		}
		if (log->thr[log->n - 1] >= RR_MAX_THREADS) {
			log->unsorted = 1;
		} else {
			uint64_t key = (uint64_t)rec_tseq(c) << 32 |
				       (k == KIND_INPUT ? ((const struct rec_input *)c)->chunk_off : 0);

			if (key <= log->last[log->thr[log->n - 1]])
				log->unsorted = 1;
			log->last[log->thr[log->n - 1]] = key;
		}
	}
	if (rc == 0 && trace_reader_nproblems(r)) {
		const struct trace_problem *p = trace_reader_problem(r, 0);

		snprintf(err, errlen, "the recording is damaged (%s at offset %" PRIu64 ": %s)",
			 p->file, p->offset, p->msg);
		rc = -EPROTO;
	} else if (rc < 0 && rc != -EPROTO) {
		snprintf(err, errlen, "reading %s: %s", dir, strerror(-rc));
	}
	trace_reader_close(r);
	return rc;
}

/* The other half of the streams (rr_collect), decoded in its own thread
 * into its own log. */
struct rr_part {
	const char *dir;
	struct rr_log log;
	uint32_t max_lock;
	int rc;
	char err[256];
};

static void *rr_collect_thread(void *arg)
{
	struct rr_part *p = arg;

	p->rc = rr_collect_part(p->dir, &p->log, TRACE_READER_SHARD(1, 2), &p->max_lock, p->err,
				sizeof(p->err));
	return NULL;
}

/* Append part's records to log's and take its blocks. A thread with
 * records in both halves cannot be put in order by the counting sort. */
static int rr_merge(struct rr_log *log, struct rr_log *part)
{
	size_t n = log->n + part->n;
	struct rr_block **tail;

	if (n > log->cap) {
		if (rr_vec_grow((void **)&log->recs, &log->recs_map, n * sizeof(*log->recs),
				log->n * sizeof(*log->recs)) ||
		    rr_vec_grow((void **)&log->thr, &log->thr_map, n * sizeof(*log->thr),
				log->n * sizeof(*log->thr)))
			return -ENOMEM;
		log->cap = n;
	}
	if (part->n) {
		memcpy(log->recs + log->n, part->recs, part->n * sizeof(*log->recs));
		memcpy(log->thr + log->n, part->thr, part->n * sizeof(*log->thr));
	}
	log->n = n;
	log->unsorted |= part->unsorted;
	for (size_t t = 0; log->last && part->last && t < RR_MAX_THREADS; t++)
		if (log->last[t] && part->last[t])
			log->unsorted = 1;
	log->nswitch += part->nswitch;
	log->packed |= part->packed;
	/* Each half had half the table: the union fits. */
	for (uint32_t i = 0; i < part->nstreams; i++)
		rr_stream_note(log, part->stream_id[i]);
	for (tail = &part->blocks; *tail; tail = &(*tail)->next)
		;
	*tail = log->blocks;
	log->blocks = part->blocks;
	part->blocks = NULL;
	return 0;
}

/*
 * Decode the recording's schedule and input records into log. With two
 * CPUs or more, half the streams (a stream is a thread's ring) are decoded
 * in a second thread: decoding is most of loading a recording, and the
 * program has not started yet, so the other CPU is idle. rr_bank's 1.35M
 * events took 139 ms in one thread.
 */
static int rr_collect(const char *dir, struct rr_log *log, uint32_t *max_lock, char *err,
		      size_t errlen)
{
	struct rr_part *p = NULL;
	uint32_t cap;
	pthread_t th;
	int rc;

	if (sysconf(_SC_NPROCESSORS_ONLN) >= 2)
		p = calloc(1, sizeof(*p));
	if (p) {
		p->dir = dir;
		p->log.proc = log->proc;
		p->log.streams_cap = log->streams_cap / 2;
		if (pthread_create(&th, NULL, rr_collect_thread, p)) {
			free(p);
			p = NULL;
		}
	}
	if (!p)
		return rr_collect_part(dir, log, 0, max_lock, err, errlen);
	cap = log->streams_cap;
	log->streams_cap /= 2;
	rc = rr_collect_part(dir, log, TRACE_READER_SHARD(0, 2), max_lock, err, errlen);
	pthread_join(th, NULL);
	log->streams_cap = cap;
	if (rc >= 0 && p->rc < 0) {
		rc = p->rc;
		snprintf(err, errlen, "%s", p->err);
	}
	if (rc >= 0)
		rc = rr_merge(log, &p->log);
	if (rc == -ENOMEM)
		snprintf(err, errlen, "reading %s: %s", dir, strerror(ENOMEM));
	if (p->max_lock > *max_lock)
		*max_lock = p->max_lock;
	rr_log_release(&p->log);
	free(p);
	return rc;
}

/* Holes in a thread's events or an object's turns: the recording lost
 * something, and a replay would wait forever or diverge. */
static int rr_check(struct rr_log *log, uint32_t *count, char *err, size_t errlen)
{
	uint32_t thread = UINT32_MAX, want = 1, i;

	for (i = 0; i < log->n; i++) {
		const struct rec_hdr *h = log->recs[i];
		uint32_t t = rec_thread(h), s = rec_tseq(h);

		if (t != thread) {
			thread = t;
			want = 1;
		}
		if (ev_kind(h->word) == KIND_INPUT && ((const struct rec_input *)h)->chunk_off) {
			if (s + 1 != want) {
				snprintf(err, errlen, "thread %u: input chunk without its start", t);
				return -EPROTO;
			}
			continue;
		}
		if (s != want) {
			/* Not "lost": the trace counts its losses (trace/loss.c),
			 * and spool replay refuses a recording that lost any
			 * before it gets here; this is a hole nobody counted, so
			 * say what it is and not a loss spool info would deny. */
			snprintf(err, errlen,
				 "the recording is inconsistent: thread %u of process %u has event %u "
				 "where %u was expected, and the trace counts no event lost (it was "
				 "altered, or an older spool recorded several processes as one)",
				 t, log->proc, s, want);
			return -EPROTO;
		}
		want++;
		if (ev_kind(h->word) == KIND_SCHED) {
			const struct rec_sched *e = (const struct rec_sched *)h;

			if (e->turn != RR_NO_TURN)
				count[e->obj]++;
		}
	}
	return 0;
}

static int sw_cmp(const void *a, const void *b)
{
	const struct rec_sched *x = *(const struct rec_sched *const *)a;
	const struct rec_sched *y = *(const struct rec_sched *const *)b;

	return x->turn < y->turn ? -1 : x->turn > y->turn;
}

/* Take the token switches (serial mode) out of recs and build sw[]: turn i
 * held by the thread of record i, the last turn by the last record's next
 * (thread 0 alone when there is no switch). A missing or doubled turn, or
 * a next that is not the following record's thread, means lost events. */
static int rr_switches(struct rr_log *log, char *err, size_t errlen)
{
	struct rec_sched **v = NULL;
	size_t i, k = 0, nv = log->nswitch; /* counted by rr_collect: no pass over recs */
	int rc = 0;

	if (!log->serial && !nv)
		return 0;
	v = calloc(nv ? nv : 1, sizeof(*v));
	log->sw = calloc(nv + 1, sizeof(*log->sw));
	if (!v || !log->sw) {
		free(v);
		return -ENOMEM;
	}
	for (i = 0; i < log->n; i++) {
		struct rec_sched *e = (struct rec_sched *)log->recs[i];

		if (ev_kind(e->h.word) == KIND_SCHED && e->op == RR_OP_SWITCH) {
			v[k++] = e;
		} else {
			log->recs[i - k] = log->recs[i];
			log->thr[i - k] = log->thr[i];
		}
	}
	log->n -= nv;
	qsort(v, nv, sizeof(*v), sw_cmp);
	log->sw[0].thread = 0;
	for (i = 0; i < nv; i++) {
		const struct rec_sched *e = v[i];

		if (e->turn != i || e->thread != log->sw[i].thread || e->obj >= RR_AT_MAX ||
		    (uint32_t)e->result >= RR_MAX_THREADS) {
			snprintf(err, errlen,
				 "the recording lost switches of the run token (turn %zu: thread %u, "
				 "turn %u)",
				 i, e->thread, e->turn);
			rc = -EPROTO;
			break;
		}
		log->sw[i].at = e->obj;
		log->sw[i].count = e->arg;
		log->sw[i + 1].thread = (uint32_t)e->result;
		if ((uint32_t)e->result + 1 > log->nthreads)
			log->nthreads = (uint32_t)e->result + 1;
	}
	log->sw[nv].count = RR_COUNT_END;
	log->nsw = nv + 1;
	log->serial = 1;
	free(v);
	return rc;
}

uint64_t rr_log_switches(const struct rr_log *log)
{
	return log->nsw ? log->nsw - 1 : 0;
}

/*
 * Sort recs by (thread, tseq, chunk). The trace reader gives each thread's
 * records in the order the thread wrote them, which is that order already
 * (rr_collect checked): a stable counting sort by thread, on the thread
 * numbers noted while each record was in the cache, is linear where a
 * qsort of pointers cost two cache misses per comparison. A damaged or odd
 * trace gets the qsort.
 */
static int rr_sort(struct rr_log *log)
{
	size_t *start = NULL, i, t, nth = 0, vmap = 0;
	struct rec_hdr **v = NULL;

	if (log->unsorted) { /* a thread number out of range is reported by the caller */
		qsort(log->recs, log->n, sizeof(*log->recs), rec_cmp);
		for (i = 0; i < log->n; i++)
			log->thr[i] = rec_thread(log->recs[i]);
		return 0;
	}
	for (i = 0; i < log->n; i++)
		if (log->thr[i] + 1 > nth)
			nth = log->thr[i] + 1;
	start = calloc(nth + 1, sizeof(*start));
	if (!start || rr_vec_grow((void **)&v, &vmap, log->n * sizeof(*v), 0)) {
		free(start);
		return -ENOMEM;
	}
	for (i = 0; i < log->n; i++)
		start[log->thr[i] + 1]++;
	for (t = 1; t <= nth; t++)
		start[t] += start[t - 1];
	for (i = 0; i < log->n; i++)
		v[start[log->thr[i]]++] = log->recs[i];
	/* start[t] is now the end of thread t's run. */
	for (t = 0, i = 0; t < nth; t++)
		while (i < start[t])
			log->thr[i++] = (uint32_t)t;
	munmap(log->recs, log->recs_map);
	log->recs = v;
	log->recs_map = vmap;
	log->cap = log->n;
	free(start);
	return 0;
}

int rr_log_load(const char *dir, struct rr_log **out, char *err, size_t errlen)
{
	return rr_log_load_mode(dir, 0, out, err, errlen);
}

/* Object numbers below this plus 4 per record are believed (rr_log_load_mode). */
#define RR_FREE_OBJS 4096u

int rr_log_load_mode(const char *dir, int serial, struct rr_log **out, char *err, size_t errlen)
{
	return rr_log_load_proc(dir, serial, 0, out, err, errlen);
}

int rr_log_load_proc(const char *dir, int serial, uint32_t proc, struct rr_log **out, char *err,
		     size_t errlen)
{
	struct rr_log *log = calloc(1, sizeof(*log));
	uint32_t max_lock = 0, *count = NULL;
	char path[PATH_MAX];
	int rc;

	if (!log)
		return -ENOMEM;
	log->serial = serial;
	log->proc = proc;
	/* Input data is read from the stream files, which the agent opens by
	 * an absolute path: without one it is copied as before. */
	if (realpath(dir, path) && strlen(path) + 32 < sizeof(log->trace_dir)) {
		memcpy(log->trace_dir, path, strlen(path) + 1);
		log->streams_cap = RR_STREAMS_MAX;
	}
	rc = rr_collect(dir, log, &max_lock, err, errlen);
	if (rc < 0)
		goto out_free;
	rc = rr_switches(log, err, errlen);
	if (rc < 0)
		goto out_free;
	if (!log->n) {
		/* serial, one thread, no input: nothing but the token; sync,
		 * no synchronization and no input: nothing to enforce */
		log->nthreads = 1;
		log->max_objs = 1024;
		*out = log;
		return 0;
	}
	rc = rr_sort(log);
	if (rc < 0)
		goto out_free;
	for (size_t i = 0; i < log->n; i++) {
		const struct rec_hdr *h = log->recs[i];
		uint32_t t = rec_thread(h);

		if (t >= RR_MAX_THREADS) {
			snprintf(err, errlen, "bad thread number %u in the recording", t);
			rc = -EPROTO;
			goto out_free;
		}
		if (t + 1 > log->nthreads)
			log->nthreads = t + 1;
		if (ev_kind(h->word) == KIND_SCHED) {
			const struct rec_sched *e = (const struct rec_sched *)h;

			/* Object and thread numbers size the replay's tables
			 * (and its shared area and image): a recording that
			 * numbers more objects than it has records is damaged or
			 * crafted (an 18 KB one asked for gigabytes). */
			if (e->obj >= (1u << 24) || e->obj >= RR_FREE_OBJS + 4 * (uint64_t)log->n) {
				snprintf(err, errlen, "bad object number %u in the recording", e->obj);
				rc = -EPROTO;
				goto out_free;
			}
			if (e->obj + 1 > log->nobjs)
				log->nobjs = e->obj + 1;
			/* (thread numbers are not ring indexes: a run numbers
			 * up to RR_MAX_THREADS threads, rings are reused) */
			if (e->op == OP_THREAD_CREATE && !e->result && e->arg >= RR_MAX_THREADS) {
				snprintf(err, errlen, "bad thread number %llu in the recording",
					 (unsigned long long)e->arg);
				rc = -EPROTO;
				goto out_free;
			}
			if (e->op == OP_THREAD_CREATE && !e->result && e->arg + 1 > log->nthreads)
				log->nthreads = (uint32_t)e->arg + 1;
			log->events++;
			if (e->turn != RR_NO_TURN)
				log->norder++;
		} else if (!((const struct rec_input *)h)->chunk_off) {
			log->inputs++;
		}
		log->log_bytes += h->size;
	}
	if (max_lock + 1 > log->nobjs)
		max_lock = log->nobjs;
	/* Room for the replay's own lock indices, which count locks that take
	 * no turn (initialized, destroyed, only signalled) too. */
	log->max_objs = 2 * (max_lock + 1 > log->nobjs ? max_lock + 1 : log->nobjs) + 1024;
	count = calloc(log->nobjs, sizeof(*count));
	if (!count) {
		rc = -ENOMEM;
		goto out_free;
	}
	rc = rr_check(log, count, err, errlen);
	free(count);
	if (rc < 0)
		goto out_free;
	rc = rr_log_check_streams(log, err, errlen);
	if (rc < 0)
		goto out_free;
	*out = log;
	return 0;

out_free:
	rr_log_free(log);
	return rc;
}

int rr_log_check_streams(struct rr_log *log, char *err, size_t errlen)
{
	for (uint32_t i = 0; i < log->nstreams && i < RR_STREAMS_MAX; i++) {
		char name[32];
		struct stat st;
		int fd;

		snprintf(name, sizeof(name), "stream_%" PRIu32, log->stream_id[i]);
		fd = trace_open_dir_file(log->trace_dir, name, TRACE_NO_MAX, NULL);
		if (fd < 0) {
			snprintf(err, errlen, "%s: %s", name, trace_open_strerror(fd));
			return fd;
		}
		if (fstat(fd, &st) < 0) {
			int rc = -errno;

			snprintf(err, errlen, "%s: %s", name, strerror(-rc));
			close(fd);
			return rc;
		}
		close(fd);
		if (i && (uint64_t)st.st_dev != log->stream_dev) {
			snprintf(err, errlen,
				 "%s: on another file system than the trace's other "
				 "streams",
				 name);
			return -EXDEV;
		}
		log->stream_dev = (uint64_t)st.st_dev;
		log->stream_ino[i] = (uint64_t)st.st_ino;
	}
	return 0;
}

uint64_t rr_log_ro_layout(const struct rr_log *log, uint64_t off, uint64_t *first_off,
			  uint64_t *order_off, uint64_t *log_off)
{
	*first_off = off;
	off += rr_log_align8(((uint64_t)log->max_objs + 1) * 4);
	*order_off = off;
	off += log->norder * sizeof(struct rr_order);
	*log_off = off;
	return rr_log_align8(off + log->log_bytes);
}

/*
 * The area's layout. Without an image every array is in the area; with one
 * (log->img) the area holds what the replay writes (turn words, object map,
 * thread and serial slots) and first[], order[], the logs and sw[] stay in
 * the image, at the image's offsets, where the agent maps them.
 */
static void rr_layout(const struct rr_log *log, struct rr_area *a)
{
	uint64_t off = RR_AREA_HDR;

	a->turn_off = off;
	off += rr_log_align8((uint64_t)log->max_objs * 4);
	a->waiters_off = off;
	off += rr_log_align8((uint64_t)log->max_objs * 4);
	a->objmap_off = off;
	off += rr_log_align8((uint64_t)log->max_objs * 4);
	a->threads_off = off;
	off += (uint64_t)log->nthreads * sizeof(struct rr_thread_slot);
	a->nsw = log->serial ? log->nsw : 0;
	a->log_size = log->log_bytes;
	if (log->img) {
		a->serial_off = off;
		a->first_off = log->img->first_off;
		a->order_off = log->img->order_off;
		a->log_off = log->img->log_off;
		a->sw_off = log->img->sw_off;
		a->img_size = log->img->size;
		a->img_key = log->img->key;
		return;
	}
	off = rr_log_ro_layout(log, off, &a->first_off, &a->order_off, &a->log_off);
	a->serial_off = off;
	off += (uint64_t)log->nthreads * sizeof(struct rr_serial_slot);
	a->sw_off = off;
}

uint64_t rr_log_area_size(const struct rr_log *log)
{
	struct rr_area a;

	rr_layout(log, &a);
	if (log->img)
		return a.serial_off + (uint64_t)log->nthreads * sizeof(struct rr_serial_slot);
	return a.sw_off + a.nsw * sizeof(struct rr_switch);
}

uint32_t rr_log_threads(const struct rr_log *log)
{
	return log->nthreads;
}

uint64_t rr_log_image_size(const struct rr_log *log)
{
	return log->img ? log->img->size : 0;
}

uint64_t rr_log_events(const struct rr_log *log, uint64_t *inputs)
{
	if (inputs)
		*inputs = log->inputs;
	return log->events;
}

int rr_log_place(const struct rr_log *log, uint32_t *first, struct rr_order *order,
		 uint64_t log_off, struct rr_img_thread *thr,
		 int (*put)(void *arg, const void *p, size_t len, uint64_t off), void *arg)
{
	uint64_t off = log_off, run_off = off;
	size_t i, run_len = 0;
	const char *run = NULL;
	int rc = 0;

	memset(first, 0, ((size_t)log->max_objs + 1) * sizeof(*first));
	for (i = 0; i < log->nthreads; i++) {
		thr[i].log_off = thr[i].log_end = log_off;
		thr[i].nevents = 0;
	}
	/* first[] from the turn counts, then order[] by (object, turn). */
	for (i = 0; i < log->n; i++) {
		const struct rec_sched *e = (const struct rec_sched *)log->recs[i];

		if (ev_kind(e->h.word) == KIND_SCHED && e->turn != RR_NO_TURN)
			first[e->obj + 1]++;
	}
	for (i = 1; i <= log->max_objs; i++)
		first[i] += first[i - 1];
	/* Records that lie one after the other in the blocks (a thread's, read
	 * stream by stream) go as one run: a memcpy per 56-byte record was a
	 * tenth of loading rr_bank. */
	for (i = 0; i < log->n && !rc; i++) {
		const struct rec_hdr *h = log->recs[i];
		uint32_t t = log->thr[i];

		/* Sorted by thread: its first record starts its log. */
		if (!i || log->thr[i - 1] != t)
			thr[t].log_off = off;
		if (!run_len || (const char *)h != run + run_len) {
			if (run_len)
				rc = put(arg, run, run_len, run_off);
			run = (const char *)h;
			run_len = 0;
			run_off = off;
		}
		run_len += h->size;
		off += h->size;
		thr[t].log_end = off;
		thr[t].nevents = rec_tseq(h);
		if (ev_kind(h->word) == KIND_SCHED) {
			const struct rec_sched *e = (const struct rec_sched *)h;

			if (e->turn != RR_NO_TURN && first[e->obj] + e->turn < first[e->obj + 1]) {
				order[first[e->obj] + e->turn].thread = e->thread;
				order[first[e->obj] + e->turn].tseq = e->tseq;
			}
		}
	}
	if (!rc && run_len)
		rc = put(arg, run, run_len, run_off);
	return rc;
}

/* rr_log_place's put for the area: a copy. */
static int rr_area_put(void *arg, const void *p, size_t len, uint64_t off)
{
	memcpy((char *)arg + off, p, len);
	return 0;
}

int rr_log_fill(const struct rr_log *log, void *area, uint32_t stuck_ms, uint32_t opts)
{
	struct rr_area *a = area;
	struct rr_thread_slot *th;
	struct rr_img_thread *thr;
	size_t i;

	rr_area_header(a, RR_MODE_REPLAY, log->max_objs, log->nthreads);
	a->stuck_ms = stuck_ms;
	a->opts = opts | (log->packed ? RR_O_PACKED : 0);
	a->nstreams = log->nstreams;
	memcpy(a->stream_id, log->stream_id, sizeof(a->stream_id));
	memcpy(a->trace_dir, log->trace_dir, sizeof(a->trace_dir));
	a->stream_dev = log->stream_dev;
	memcpy(a->stream_ino, log->stream_ino, sizeof(a->stream_ino));
	rr_layout(log, a);
	a->serial = !!log->serial;
	th = (struct rr_thread_slot *)((char *)area + a->threads_off);
	if (log->img) {
		snprintf(a->img_path, sizeof(a->img_path), "%s", log->img->path);
		a->img_dev = log->img->dev;
		a->img_ino = log->img->ino;
		thr = log->img->thr;
	} else {
		thr = calloc(log->nthreads ? log->nthreads : 1, sizeof(*thr));
		if (!thr)
			return -ENOMEM;
		if (log->serial)
			memcpy((char *)area + a->sw_off, log->sw, log->nsw * sizeof(struct rr_switch));
		rr_log_place(log, (uint32_t *)((char *)area + a->first_off),
			     (struct rr_order *)((char *)area + a->order_off), a->log_off, thr,
			     rr_area_put, area);
	}
	for (i = 0; i < log->nthreads; i++) {
		th[i].log_off = thr[i].log_off;
		th[i].log_end = thr[i].log_end;
		th[i].nevents = thr[i].nevents;
		th[i].wait_obj = RR_NO_TURN;
	}
	if (!log->img)
		free(thr);
	return 0;
}

void rr_log_free(struct rr_log *log)
{
	if (!log)
		return;
	rr_log_release(log);
	free(log->sw);
	if (log->img)
		free(log->img->thr);
	free(log->img);
	free(log);
}

/* ---- dump ---- */

struct dump_ent {
	uint32_t a, b, c, d;
	const struct rec_hdr *h;
};

static int dump_cmp(const void *x, const void *y)
{
	const struct dump_ent *p = x, *q = y;

	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	if (p->b != q->b)
		return p->b < q->b ? -1 : 1;
	return 0;
}

int rr_dump_schedule(const char *dir, FILE *out)
{
	struct rr_log log = {0};
	struct dump_ent *v;
	uint32_t max_lock = 0;
	char err[256];
	size_t i, n = 0;
	int rc;

	rc = rr_collect(dir, &log, &max_lock, err, sizeof(err));
	if (rc < 0) {
		log_err("%s", err);
		goto out;
	}
	v = calloc(log.n ? log.n : 1, sizeof(*v));
	if (!v) {
		rc = -ENOMEM;
		goto out;
	}
	for (i = 0; i < log.n; i++) {
		const struct rec_hdr *h = log.recs[i];

		if (ev_kind(h->word) == KIND_SCHED) {
			const struct rec_sched *e = (const struct rec_sched *)h;

			if (e->op == RR_OP_SWITCH) /* after every object, in turn order */
				v[n++] = (struct dump_ent){UINT32_MAX, e->turn, e->thread, 0, h};
			else
				v[n++] = (struct dump_ent){e->obj,
							   e->turn == RR_NO_TURN ? UINT32_MAX
										 : e->turn,
							   e->thread, e->tseq, h};
		}
	}
	qsort(v, n, sizeof(*v), dump_cmp);
	for (i = 0; i < n; i++) {
		const struct rec_sched *e = (const struct rec_sched *)v[i].h;

		if (e->op == RR_OP_SWITCH)
			fprintf(out, "switch turn %u thread %u count %" PRIu64 " at %u next %d\n",
				e->turn, e->thread, e->arg, e->obj, e->result);
		else if (e->turn == RR_NO_TURN)
			fprintf(out, "sched obj %u turn - thread %u event %u op %u result %d\n", e->obj,
				e->thread, e->tseq, e->op, e->result);
		else if (e->op == RR_OP_FDTAB) /* (which call: RR_FD_*) */
			fprintf(out, "sched obj %u turn %u thread %u event %u op %u result %d call %u\n",
				e->obj, e->turn, e->thread, e->tseq, e->op, e->result,
				RR_FD_ARG_CALL(e->arg));
		else
			fprintf(out, "sched obj %u turn %u thread %u event %u op %u result %d\n",
				e->obj, e->turn, e->thread, e->tseq, e->op, e->result);
	}
	n = 0;
	for (i = 0; i < log.n; i++) {
		const struct rec_input *in = (const struct rec_input *)log.recs[i];

		if (ev_kind(in->h.word) == KIND_INPUT && !in->chunk_off)
			v[n++] = (struct dump_ent){in->thread, in->tseq, 0, 0, &in->h};
	}
	qsort(v, n, sizeof(*v), dump_cmp);
	for (i = 0; i < n; i++) {
		const struct rec_input *in = (const struct rec_input *)v[i].h;

		fprintf(out, "input thread %u event %u call %u fd %d result %" PRId64 " len %u\n",
			in->thread, in->tseq, in->call, in->fd, in->result, in->len);
	}
	free(v);
out:
	rr_log_release(&log);
	return rc;
}
