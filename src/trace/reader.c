// SPDX-License-Identifier: MIT
/*
 * reader.c - reading spool traces back into ring-format records
 * (doc/trace-format.md, "Reading, losses and damage").
 *
 * This reads only spool's own traces, of format 1 or 2: the metadata is
 * checked for spool's env block rather than parsed as TSDL, and packets are
 * decoded at the offsets the format fixes (format 2's events by dec2.c). Streams are merged by TSC with a binary heap. Each stream
 * keeps one packet in memory and decodes its next event ahead, so the heap
 * can compare streams; damage ends one stream, never the whole read.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace.h"
#include "kinds.h"
#include "reader_int.h"
#include "trace_int.h"
#include "untrusted.h"

static void set_problem(struct trace_problem *p, const char *file, uint64_t off, const char *fmt,
			va_list ap)
{
	size_t n = strlen(file);

	/* Keep the end of a long path: the file name is what matters. */
	if (n >= sizeof(p->file))
		file += n - (sizeof(p->file) - 1);
	memcpy(p->file, file, strlen(file) + 1);
	p->offset = off;
	vsnprintf(p->msg, sizeof(p->msg), fmt, ap);
}

void trace_rd_problem(struct trace_reader *r, const char *file, uint64_t off, const char *fmt, ...)
{
	char path[4096];
	va_list ap;

	if (r->nproblems == r->cap_problems) {
		size_t cap = r->cap_problems ? r->cap_problems * 2 : 8;
		struct trace_problem *v = realloc(r->problems, cap * sizeof(*v));

		if (!v)
			return; /* out of memory: the problem goes unreported */
		r->problems = v;
		r->cap_problems = cap;
	}
	/* Problems name the file by its path, as a user would open it. */
	snprintf(path, sizeof(path), "%s/%s", r->dir, file);
	va_start(ap, fmt);
	set_problem(&r->problems[r->nproblems++], path, off, fmt, ap);
	va_end(ap);
}

__attribute__((format(printf, 4, 5))) static void fatal(struct trace_problem *p, const char *file,
							uint64_t off, const char *fmt, ...)
{
	va_list ap;

	if (!p)
		return;
	va_start(ap, fmt);
	set_problem(p, file, off, fmt, ap);
	va_end(ap);
}

/* Metadata: find `key = "value";` (or `key = value;`) inside the env block. */
static int env_get(const char *env, const char *key, char *val, size_t size)
{
	size_t klen = strlen(key);
	const char *p = env;

	while ((p = strstr(p, key))) {
		const char *q = p + klen;
		int at_start = p == env || p[-1] == '\n' || p[-1] == '\t' || p[-1] == ' ';
		size_t n = 0;

		p = q;
		if (!at_start)
			continue;
		while (*q == ' ' || *q == '\t')
			q++;
		if (*q != '=')
			continue;
		q++;
		while (*q == ' ' || *q == '\t')
			q++;
		if (*q == '"')
			q++;
		while (q[n] && q[n] != '"' && q[n] != ';' && q[n] != '\n')
			n++;
		if (n == 0 || n >= size)
			return -EINVAL;
		memcpy(val, q, n);
		val[n] = 0;
		return 0;
	}
	return -ENOENT;
}

static int env_u64(const char *env, const char *key, uint64_t *out)
{
	char buf[32], *end;
	int err = env_get(env, key, buf, sizeof(buf));

	if (err)
		return err;
	errno = 0;
	*out = strtoull(buf, &end, 10);
	if (errno || *end || buf[0] == '-')
		return -EINVAL;
	return 0;
}

static int parse_uuid(const char *s, uint8_t *u)
{
	for (int i = 0; i < 16; i++) {
		unsigned v;

		if (*s == '-')
			s++;
		if (sscanf(s, "%2x", &v) != 1)
			return -EINVAL;
		u[i] = (uint8_t)v;
		s += 2;
	}
	return *s == 0 ? 0 : -EINVAL;
}

static int read_metadata(struct trace_reader *r, struct trace_problem *problem)
{
	char path[4096], val[64];
	const char *env, *tr;
	char *text = NULL;
	struct stat st;
	uint64_t version;
	int fd, err;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%s", r->dir, TRACE_METADATA);
	/* Not a link, not a FIFO (which would block), at most 1 MiB. */
	fd = trace_open_in(r->dirfd, TRACE_METADATA, 1 << 20, NULL);
	if (fd < 0) {
		err = fd;
		fatal(problem, path, 0, "cannot open the trace metadata: %s",
		      trace_open_strerror(err));
		return err;
	}
	if (fstat(fd, &st) < 0) {
		err = -errno;
		fatal(problem, path, 0, "not a spool trace: metadata unreadable");
		goto out;
	}
	text = malloc((size_t)st.st_size + 1);
	if (!text) {
		err = -ENOMEM;
		fatal(problem, path, 0, "out of memory");
		goto out;
	}
	n = pread(fd, text, (size_t)st.st_size, 0);
	if (n != st.st_size) {
		err = n < 0 ? -errno : -EIO;
		fatal(problem, path, 0, "cannot read the trace metadata");
		goto out;
	}
	text[n] = 0;
	err = -EPROTO;
	if (strncmp(text, "/* CTF 1.8", 10) != 0) {
		fatal(problem, path, 0,
		      "not a spool trace: the metadata is not plain-text CTF 1.8");
		goto out;
	}
	env = strstr(text, "\nenv {");
	if (!env || env_get(env, "domain", val, sizeof(val)) || strcmp(val, "spool") != 0) {
		fatal(problem, path, 0, "not a spool trace: no env block with domain = \"spool\"");
		goto out;
	}
	if (env_u64(env, "spool_format_version", &version) || version < TRACE_FORMAT_MIN ||
	    version > TRACE_FORMAT_VERSION) {
		fatal(problem, path, 0,
		      "unsupported spool trace format version (this spool reads %d to %d; a newer "
		      "spool wrote it)",
		      TRACE_FORMAT_MIN, TRACE_FORMAT_VERSION);
		goto out;
	}
	r->format = (int)version;
	/* absent: a time per event (every trace before --clock=none) */
	r->untimed = !env_get(env, "spool_event_time", val, sizeof(val)) && strcmp(val, "event");
	r->pkt_hdr = version == 2 ? TRACE_PKT_HDR_SIZE2 : TRACE_PKT_HDR_SIZE;
	if (env_u64(env, "spool_tsc_hz", &r->clk.tsc_hz) || !r->clk.tsc_hz ||
	    env_u64(env, "spool_tsc0", &r->clk.tsc0) ||
	    env_u64(env, "spool_mono_ns", &r->clk.mono_ns) ||
	    env_u64(env, "spool_real_ns", &r->clk.real_ns)) {
		fatal(problem, path, 0, "not a spool trace: clock missing from the env block");
		goto out;
	}
	tr = strstr(text, "\ntrace {");
	if (!tr || env_get(tr, "uuid", val, sizeof(val)) || parse_uuid(val, r->uuid)) {
		fatal(problem, path, 0, "not a spool trace: no trace uuid");
		goto out;
	}
	err = 0;
out:
	free(text);
	close(fd);
	return err;
}

static void stream_end(struct rd_stream *s)
{
	s->done = 1;
	free(s->buf);
	s->buf = NULL;
	s->buf_cap = 0;
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
}

static int read_at(int fd, void *buf, size_t len, uint64_t off)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = pread(fd, (char *)buf + got, len - got, (off_t)(off + got));

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EIO;
		got += (size_t)n;
	}
	return 0;
}

/*
 * Load the packet at s->pkt_off. Returns 1 when a packet is loaded, 0 at a
 * clean end of file, -1 when the stream must end (problem recorded).
 */
static int load_packet(struct trace_reader *r, struct rd_stream *s)
{
	uint8_t h[TRACE_PKT_HDR_SIZE2];
	uint64_t off = s->pkt_off, left = s->file_size - off, bits, psize, disc, seqn;
	const char *f = s->info.file;
	size_t want;

	if (left == 0)
		return 0;
	if (left < r->pkt_hdr) {
		trace_rd_problem(r, f, off,
				 "truncated packet: %" PRIu64 " bytes left, a header needs %zu",
				 left, r->pkt_hdr);
		return -1;
	}
	if (read_at(s->fd, h, r->pkt_hdr, off) < 0) {
		trace_rd_problem(r, f, off, "read error: %s", strerror(errno));
		return -1;
	}
	if (trace_get32(h + TRACE_PH_MAGIC) != TRACE_MAGIC) {
		trace_rd_problem(r, f, off, "bad packet magic 0x%08" PRIx32 " (expected 0x%08x)",
				 trace_get32(h + TRACE_PH_MAGIC), TRACE_MAGIC);
		return -1;
	}
	if (memcmp(h + TRACE_PH_UUID, r->uuid, 16) != 0) {
		trace_rd_problem(r, f, off, "packet belongs to another trace (uuid differs)");
		return -1;
	}
	if (trace_get32(h + TRACE_PH_STREAM_ID) != 0 ||
	    trace_get64(h + TRACE_PH_INSTANCE) != s->info.stream_id) {
		trace_rd_problem(r, f, off,
				 "packet of stream class %" PRIu32 " instance %" PRIu64
				 ", expected class 0 instance %" PRIu32,
				 trace_get32(h + TRACE_PH_STREAM_ID),
				 trace_get64(h + TRACE_PH_INSTANCE), s->info.stream_id);
		return -1;
	}
	bits = trace_get64(h + TRACE_PC_CONTENT);
	psize = trace_get64(h + TRACE_PC_PACKET);
	if (bits != psize || bits % 8 || bits / 8 < r->pkt_hdr || bits / 8 > (1u << 30)) {
		trace_rd_problem(r, f, off,
				 "bad packet sizes: content_size %" PRIu64 " packet_size %" PRIu64
				 " bits",
				 bits, psize);
		return -1;
	}
	disc = trace_get64(h + TRACE_PC_DISCARDED);
	if (disc < s->info.discarded) {
		trace_rd_problem(r, f, off,
				 "events_discarded went back from %" PRIu64 " to %" PRIu64,
				 s->info.discarded, disc);
		return -1;
	}
	seqn = trace_get64(h + TRACE_PC_SEQ_NUM);
	if (seqn != s->next_seq_num)
		trace_rd_problem(r, f, off,
				 "packet_seq_num %" PRIu64 " where %" PRIu64
				 " was expected: packets lost",
				 seqn, s->next_seq_num);
	s->next_seq_num = seqn + 1;
	s->info.discarded = disc;
	s->info.pid = trace_get32(h + TRACE_PC_PID);
	s->info.tid = trace_get32(h + TRACE_PC_TID);
	s->ts_begin = trace_get64(h + TRACE_PC_TS_BEGIN);
	if (r->format == 2) {
		s->first_seq = trace_get32(h + TRACE_PC_FIRST_SEQ);
		s->events = trace_get32(h + TRACE_PC_EVENTS);
	}

	want = (size_t)(bits / 8);
	s->truncated = want > left;
	if (s->truncated) {
		/* Keep the complete events of the part that exists (see the doc). */
		trace_rd_problem(r, f, off,
				 "truncated packet: %zu bytes announced, %" PRIu64
				 " left in the file",
				 want, left);
		want = (size_t)left;
	}
	if (want > s->buf_cap) {
		uint8_t *b = realloc(s->buf, want);

		if (!b) {
			trace_rd_problem(r, f, off, "out of memory for a %zu-byte packet", want);
			return -1;
		}
		s->buf = b;
		s->buf_cap = want;
	}
	if (read_at(s->fd, s->buf, want, off) < 0) {
		trace_rd_problem(r, f, off, "read error: %s", strerror(errno));
		return -1;
	}
	s->pkt_len = want;
	s->pos = r->pkt_hdr;
	if (r->format == 2)
		trace_dec2_packet(s);
	return 1;
}

/* Storage for the next record of kind (size bytes), zeroed when the
 * decoder does not write every byte (zero). */
int trace_rd_reserve(struct trace_reader *r, struct rd_stream *s, unsigned kind, size_t size,
		     int zero)
{
	void *p = r->store ? r->store(r->store_arg, kind, size) : NULL;

	if (p) {
		s->rec = p;
	} else {
		if (size > s->own_cap) {
			uint64_t *v = realloc(s->own, size);

			if (!v)
				return -ENOMEM;
			s->own = v;
			s->own_cap = size;
		}
		s->rec = s->own;
	}
	if (zero)
		memset(s->rec, 0, size);
	return 0;
}

size_t trace_rd_rest_len(unsigned kind, const uint8_t *rest, size_t left)
{
	const struct trace_kind_desc *kd;
	size_t need;

	switch (kind) {
	case KIND_LOCK:
		need = TRACE_PL_LOCK - 12;
		if (left >= need)
			need += (size_t)trace_get32(rest + 16) * 8;
		return need;
	case KIND_THREAD:
		return TRACE_PL_THREAD - 12;
	case KIND_LOCKDEF:
		return TRACE_PL_LOCKDEF - 12;
	case KIND_PROC:
		return TRACE_PL_PROC - 12;
	case KIND_USER:
		need = TRACE_PL_USER - 12;
		if (left >= need)
			need += (size_t)trace_get32(rest + 4) * 8;
		return need;
	default:
		kd = trace_kind_find(kind);
		if (!kd)
			return 0;
		need = kd->fixed;
		if (kd->tail_elem && left >= need)
			need += (size_t)kd->tail_elem * trace_get32(rest + kd->tail_count_off);
		return need;
	}
}

int trace_rd_rest(struct trace_reader *r, struct rd_stream *s, unsigned id, const uint8_t *pl,
		  size_t len)
{
	switch (id) {
	case KIND_LOCK: {
		uint32_t n = trace_get32(pl + 16);
		struct rec_lock *l;

		if (trace_rd_reserve(r, s, id, sizeof(*l) + (size_t)n * 8, 1))
			return -ENOMEM;
		l = (struct rec_lock *)s->rec;
		l->h.size = (uint32_t)(sizeof(*l) + (size_t)n * 8);
		l->ip = trace_get64(pl);
		l->arg = trace_get64(pl + 8);
		for (uint32_t i = 0; i < n; i++)
			l->stack[i] = trace_get64(pl + 20 + 8 * (size_t)i);
		break;
	}
	case KIND_THREAD: {
		struct rec_thread *t;

		/* A ring reused by a new thread (agent_thread.c). */
		if (s->thread_seen && r->next_thread < UINT32_MAX)
			s->thread = r->next_thread++;
		s->thread_seen = 1;

		if (trace_rd_reserve(r, s, id, sizeof(*t), 1))
			return -ENOMEM;
		t = (struct rec_thread *)s->rec;
		t->h.size = sizeof(*t);
		t->tid = trace_get32(pl);
		t->pid = trace_get32(pl + 4);
		t->pthread = trace_get64(pl + 8);
		memcpy(t->name, pl + 16, 16);
		break;
	}
	case KIND_LOCKDEF: {
		struct rec_lockdef *d;

		if (trace_rd_reserve(r, s, id, sizeof(*d), 1))
			return -ENOMEM;
		d = (struct rec_lockdef *)s->rec;
		d->h.size = sizeof(*d);
		d->addr = trace_get64(pl);
		d->init_ip = trace_get64(pl + 8);
		d->type = trace_get32(pl + 16);
		d->pid = trace_get32(pl + 20);
		break;
	}
	case KIND_PROC: {
		struct rec_proc *pr;

		if (trace_rd_reserve(r, s, id, sizeof(*pr), 1))
			return -ENOMEM;
		pr = (struct rec_proc *)s->rec;
		pr->h.size = sizeof(*pr);
		pr->pid = trace_get32(pl);
		pr->ppid = trace_get32(pl + 4);
		pr->proc_slot = trace_get32(pl + 8);
		pr->flags = trace_get32(pl + 12);
		break;
	}
	case KIND_USER: {
		uint32_t n = trace_get32(pl + 4);
		struct rec_user *u;

		if (trace_rd_reserve(r, s, id, sizeof(*u) + (size_t)n * 8, 1))
			return -ENOMEM;
		u = (struct rec_user *)s->rec;
		u->h.size = (uint32_t)(sizeof(*u) + (size_t)n * 8);
		u->id = trace_get32(pl);
		u->nargs = n;
		for (uint32_t i = 0; i < n; i++)
			u->args[i] = (int64_t)trace_get64(pl + 8 + 8 * (size_t)i);
		break;
	}
	default:
		/* A table kind (kinds.h): copy the payload as it is. Every
		 * byte is written: the header by the caller, the payload here. */
		if (trace_rd_reserve(r, s, id, sizeof(struct rec_hdr) + len, 0))
			return -ENOMEM;
		((struct rec_hdr *)s->rec)->size = (uint32_t)(sizeof(struct rec_hdr) + len);
		memcpy((char *)s->rec + sizeof(struct rec_hdr), pl, len);
		break;
	}
	return 0;
}

/* Format 1: decode the event at s->pos (1), or end the stream (0). */
static int dec1_next(struct trace_reader *r, struct rd_stream *s)
{
	const char *f = s->info.file;
	const uint8_t *p = s->buf + s->pos, *pl;
	size_t left = s->pkt_len - s->pos, need, rest;
	uint64_t off = s->pkt_off + s->pos;
	unsigned id = p[0];
	struct rec_hdr *h;

	need = TRACE_EV_HDR_SIZE + 12;
	if (need <= left) {
		rest = trace_rd_rest_len(id, p + need, left - need);
		if (!rest) {
			trace_rd_problem(r, f, off, "unknown event id %u", id);
			stream_end(s);
			return 0;
		}
		need += rest;
	}
	if (need > left) {
		/* In a truncated packet the problem is already recorded. */
		if (!s->truncated)
			trace_rd_problem(r, f, off, "event of %zu bytes overruns its packet", need);
		stream_end(s);
		return 0;
	}
	pl = p + TRACE_EV_HDR_SIZE;
	s->rec_off = off;
	s->fields_off = off + TRACE_EV_HDR_SIZE + 12;
	if (trace_rd_rest(r, s, id, pl + 12, need - TRACE_EV_HDR_SIZE - 12)) {
		trace_rd_problem(r, f, off, "out of memory");
		stream_end(s);
		return 0;
	}
	h = (struct rec_hdr *)s->rec;
	h->tsc = trace_get64(p + 1);
	h->word = trace_get64(pl);
	h->seq = trace_get32(pl + 8);
	if (ev_kind(h->word) != id) {
		trace_rd_problem(r, f, off, "event id %u but its word says kind %u", id,
				 ev_kind(h->word));
		stream_end(s);
		return 0;
	}
	s->pos += need;
	return 1;
}

/*
 * Decode the next event of the stream into s->rec. Returns 1 with an event,
 * 0 when the stream is over (at its end or at a problem).
 */
static int stream_advance(struct trace_reader *r, struct rd_stream *s)
{
	int rc;

	while (!s->done) {
		if (s->pos >= s->pkt_len) {
			if (s->truncated) {
				stream_end(s);
				break;
			}
			if (s->buf && r->format == 2 && s->dec.nev != s->events) {
				trace_rd_problem(r, s->info.file, s->pkt_off,
						 "packet of %" PRIu32 " events holds %" PRIu32,
						 s->events, s->dec.nev);
				stream_end(s);
				break;
			}
			if (s->buf)
				s->pkt_off += s->pkt_len;
			rc = load_packet(r, s);
			if (rc <= 0) {
				stream_end(s);
				break;
			}
			continue;
		}
		rc = r->format == 2 ? trace_dec2_next(r, s) : dec1_next(r, s);
		if (rc == 2)
			continue; /* a format 2 site definition */
		if (rc == 0)
			stream_end(s);
		return rc;
	}
	return 0;
}

/* Heap order: lower TSC first; equal TSC, lower stream index first (with
 * by_stream: lower stream index first, so each stream is read through). */
static int heap_less(const struct trace_reader *r, size_t a, size_t b)
{
	if (r->by_stream)
		return a < b;
	uint64_t ta = ((const struct rec_hdr *)r->streams[a].rec)->tsc;
	uint64_t tb = ((const struct rec_hdr *)r->streams[b].rec)->tsc;

	return ta < tb || (ta == tb && a < b);
}

static void heap_down(struct trace_reader *r, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;

		if (l < r->nheap && heap_less(r, r->heap[l], r->heap[m]))
			m = l;
		if (l + 1 < r->nheap && heap_less(r, r->heap[l + 1], r->heap[m]))
			m = l + 1;
		if (m == i)
			return;
		size_t t = r->heap[i];
		r->heap[i] = r->heap[m];
		r->heap[m] = t;
		i = m;
	}
}

static int cmp_stream(const void *a, const void *b)
{
	const struct rd_stream *x = a, *y = b;

	return x->info.stream_id < y->info.stream_id ? -1 : x->info.stream_id > y->info.stream_id;
}

/* Is `name` a stream file, stream_<decimal id>? */
static int stream_name_id(const char *name, uint32_t *id)
{
	const char *p = name + strlen(TRACE_STREAM_PREFIX);
	char *end;
	unsigned long v;

	if (strncmp(name, TRACE_STREAM_PREFIX, strlen(TRACE_STREAM_PREFIX)) != 0 || *p < '0' ||
	    *p > '9' || (p[0] == '0' && p[1]))
		return 0;
	errno = 0;
	v = strtoul(p, &end, 10);
	if (errno || *end || v > UINT32_MAX)
		return 0;
	*id = (uint32_t)v;
	return 1;
}

static int scan_streams(struct trace_reader *r)
{
	size_t cap = 0;
	struct dirent *de;
	DIR *d;
	int fd, err = 0;

	fd = openat(r->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		err = -errno;
		close(fd);
		return err;
	}
	while ((de = readdir(d))) {
		struct rd_stream *s;
		struct stat st;
		uint32_t id;

		if (!stream_name_id(de->d_name, &id))
			continue;
		/* Stream N is ring N, and there are at most EV_MAX_THREADS of
		 * them: readers index tables by it, so a larger number (from a
		 * crafted name) must not reach them. */
		if (id >= EV_MAX_THREADS) {
			trace_rd_problem(r, de->d_name, 0,
					 "not read: spool numbers its streams below %u",
					 EV_MAX_THREADS);
			continue;
		}
		if (r->nshards > 1 && id % r->nshards != r->shard)
			continue;
		if (r->nstreams == cap) {
			size_t ncap = cap ? cap * 2 : 16;
			struct rd_stream *v = realloc(r->streams, ncap * sizeof(*v));

			if (!v) {
				err = -ENOMEM;
				break;
			}
			r->streams = v;
			cap = ncap;
		}
		s = &r->streams[r->nstreams];
		memset(s, 0, sizeof(*s));
		s->info.stream_id = id;
		snprintf(s->info.file, sizeof(s->info.file), TRACE_STREAM_PREFIX "%" PRIu32, id);
		/* A link or a FIFO named stream_N is not read (untrusted.h). */
		s->fd = trace_open_in(r->dirfd, de->d_name, TRACE_NO_MAX, NULL);
		if (s->fd < 0 || fstat(s->fd, &st) < 0) {
			trace_rd_problem(r, de->d_name, 0, "cannot read stream file: %s",
					 trace_open_strerror(s->fd < 0 ? s->fd : -errno));
			if (s->fd >= 0)
				close(s->fd);
			continue;
		}
		s->file_size = (uint64_t)st.st_size;
		s->info.bytes = s->file_size;
		r->nstreams++;
	}
	closedir(d);
	if (r->nstreams)
		qsort(r->streams, r->nstreams, sizeof(*r->streams), cmp_stream);
	return err;
}

int trace_reader_open(struct trace_reader **out, const char *dir, struct trace_problem *problem)
{
	return trace_reader_open_store(out, dir, problem, 0, NULL, NULL);
}

int trace_reader_open_store(struct trace_reader **out, const char *dir,
			    struct trace_problem *problem, int flags,
			    void *(*store)(void *arg, unsigned kind, size_t size), void *arg)
{
	struct trace_reader *r;
	int err;

	*out = NULL;
	if (problem)
		memset(problem, 0, sizeof(*problem));
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->store = store;
	r->store_arg = arg;
	r->by_stream = !!(flags & TRACE_READER_BY_STREAM);
	r->shard = ((unsigned)flags >> 8) & 0xff;
	r->nshards = ((unsigned)flags >> 16) & 0xff;
	if (r->nshards > 1 && r->shard >= r->nshards) {
		free(r);
		return -EINVAL;
	}
	r->dir = strdup(dir);
	if (!r->dir) {
		err = -ENOMEM;
		goto out_free;
	}
	r->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (r->dirfd < 0) {
		err = -errno;
		fatal(problem, dir, 0, "cannot open the trace directory: %s", strerror(errno));
		goto out_free;
	}
	err = read_metadata(r, problem);
	if (err)
		goto out_close;
	err = scan_streams(r);
	if (err) {
		fatal(problem, dir, 0, "cannot list the trace directory: %s", strerror(-err));
		goto out_close;
	}
	r->heap = calloc(r->nstreams ? r->nstreams : 1, sizeof(*r->heap));
	if (!r->heap) {
		err = -ENOMEM;
		goto out_close;
	}
	/* Decode each stream's first event; those with one go on the heap. */
	for (size_t i = 0; i < r->nstreams; i++)
		r->streams[i].thread = (uint32_t)i;
	r->next_thread = (uint32_t)r->nstreams;
	for (size_t i = 0; i < r->nstreams; i++)
		if (stream_advance(r, &r->streams[i]))
			r->heap[r->nheap++] = i;
	for (size_t i = r->nheap / 2; i-- > 0;)
		heap_down(r, i);
	*out = r;
	return 0;

out_close:
	trace_reader_close(r);
	return err;
out_free:
	free(r->dir);
	free(r);
	return err;
}

uint64_t trace_event_file_off(const struct trace_event *ev, size_t rec_off)
{
	/* where the record's bytes past its header are in the file, as
	 * trace_rd_rest copies them */
	return ev->fields_off + (rec_off - sizeof(struct rec_hdr));
}

int trace_reader_next(struct trace_reader *r, struct trace_event *ev)
{
	struct rd_stream *s;
	const struct rec_hdr *h;

	if (r->pending) {
		/* The record handed out last lives in its stream: replace it now. */
		if (stream_advance(r, r->pending)) {
			heap_down(r, 0);
		} else {
			r->heap[0] = r->heap[--r->nheap];
			heap_down(r, 0);
		}
		r->pending = NULL;
	}
	if (!r->nheap)
		return 0;
	s = &r->streams[r->heap[0]];
	h = (const struct rec_hdr *)s->rec;
	if (ev_kind(h->word) == KIND_THREAD)
		s->have_seq = 0; /* each thread of a reused ring counts from 1 */
	if (s->have_seq) {
		uint32_t d = h->seq - s->last_seq - 1;

		/* Forward jumps only; wrap-around of the 32-bit seq is fine. */
		if (d && d < 0x80000000u)
			s->info.seq_gaps += d;
	}
	s->have_seq = 1;
	s->last_seq = h->seq;
	s->info.events++;
	ev->stream_id = s->info.stream_id;
	ev->thread = s->thread;
	ev->offset = s->rec_off;
	ev->fields_off = s->fields_off;
	ev->ns = trace_clock_ns(&r->clk, h->tsc);
	ev->rec = h;
	r->pending = s;
	return 1;
}

const struct trace_clock *trace_reader_clock(const struct trace_reader *r)
{
	return &r->clk;
}

int trace_reader_untimed(const struct trace_reader *r)
{
	return r->untimed;
}

size_t trace_reader_nstreams(const struct trace_reader *r)
{
	return r->nstreams;
}

uint32_t trace_reader_nthreads(const struct trace_reader *r)
{
	return r->next_thread;
}

const struct trace_stream_info *trace_reader_stream(const struct trace_reader *r, size_t i)
{
	return i < r->nstreams ? &r->streams[i].info : NULL;
}

const struct trace_stream_info *trace_reader_stream_by_id(const struct trace_reader *r, uint32_t id)
{
	size_t lo = 0, hi = r->nstreams;

	/* streams are sorted by id (scan_streams), which need not be dense */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->streams[mid].info.stream_id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < r->nstreams && r->streams[lo].info.stream_id == id ? &r->streams[lo].info
								       : NULL;
}

uint32_t trace_reader_max_stream_id(const struct trace_reader *r)
{
	return r->nstreams ? r->streams[r->nstreams - 1].info.stream_id : 0;
}

size_t trace_reader_nproblems(const struct trace_reader *r)
{
	return r->nproblems;
}

const struct trace_problem *trace_reader_problem(const struct trace_reader *r, size_t i)
{
	return i < r->nproblems ? &r->problems[i] : NULL;
}

const char *trace_reader_dir(const struct trace_reader *r)
{
	return r->dir;
}

int trace_reader_file(const struct trace_reader *r, const char *name, char **data, size_t *len)
{
	char path[512];
	struct stat st;
	char *buf;
	int fd, err;

	*data = NULL;
	*len = 0;
	if (!trace_side_name_ok(name) || strlen(name) > 400)
		return -EINVAL;
	snprintf(path, sizeof(path), TRACE_SIDE_DIR "/%s", name);
	/* No link followed, no FIFO or device, at most TRACE_SIDE_MAX. */
	fd = trace_open_in(r->dirfd, path, TRACE_SIDE_MAX, NULL);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0) {
		err = -errno;
		goto out_close;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		err = -ENOMEM;
		goto out_close;
	}
	err = read_at(fd, buf, (size_t)st.st_size, 0);
	if (err) {
		free(buf);
		goto out_close;
	}
	buf[st.st_size] = 0;
	*data = buf;
	*len = (size_t)st.st_size;
out_close:
	close(fd);
	return err;
}

void trace_reader_close(struct trace_reader *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nstreams; i++) {
		if (!r->streams[i].done)
			stream_end(&r->streams[i]);
		free(r->streams[i].own);
		trace_dec2_free(&r->streams[i].dec);
	}
	free(r->streams);
	free(r->heap);
	free(r->problems);
	if (r->dirfd >= 0)
		close(r->dirfd);
	free(r->dir);
	free(r);
}
