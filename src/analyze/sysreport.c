// SPDX-License-Identifier: MIT
/*
 * sysreport.c - spool report --sys: reads the "sys" side file written by
 * src/probe/sysprobe.c (format in doc/trace-format.md) and prints per
 * thread CPU time, I/O and allocator use, I/O totals per descriptor
 * kind, each process's heap (allocations, frees, live bytes at exit) and
 * resident set: samples, min, max, and the last value seen.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../trace/trace.h"
#include "../util/escape.h"
#include "../util/log.h"
#include "pass.h"
#include "sysreport.h"

struct sr_thread {
	unsigned idx, pid, tid;
	unsigned long long cpu;
	char src[8];
};

struct sr_io {
	unsigned idx;
	char dir[8], kind[8];
	unsigned long long calls, bytes;
};

struct sr_mem {
	unsigned idx;
	unsigned long long calls, bytes, frees;
	long long live; /* usable bytes allocated minus released, by this thread */
};

struct sr_rss {
	unsigned pid, samples, first_ms, last_ms;
	unsigned long long min, max, last;
};

/* pid -> position + 1 (0: free), open addressing: lookups by pid were
 * linear scans, and a crafted file of 300,000 processes took minutes. */
struct sr_pidmap {
	uint32_t *pid, *at;
	size_t cap, n;
};

struct sr_ctx {
	struct sr_thread *th;
	size_t nth;
	struct sr_io *io;
	size_t nio;
	struct sr_rss *rss;
	size_t nrss;
	struct sr_mem *mem;
	size_t nmem;
	char what[64];
	unsigned period;
	/* by thread index (below EV_MAX_THREADS; a line past it is skipped):
	 * the first thread and mem line of each (position + 1), and its io
	 * lines in file order (io_first[idx], then io_next[pos], + 1) */
	uint32_t *th_at, *mem_at, *io_first, *io_last, *io_next;
	struct sr_pidmap rss_at;
};

static size_t sr_pid_slot(uint32_t pid, size_t cap)
{
	return (size_t)(((uint64_t)pid * 0x9e3779b97f4a7c15ull) >> 24) & (cap - 1);
}

/* Where pid is in the map (position + 1), or 0. */
static uint32_t sr_pid_find(const struct sr_pidmap *m, uint32_t pid)
{
	for (size_t k = m->cap ? sr_pid_slot(pid, m->cap) : 0; m->cap && m->at[k];
	     k = (k + 1) & (m->cap - 1))
		if (m->pid[k] == pid)
			return m->at[k];
	return 0;
}

static int sr_pid_put(struct sr_pidmap *m, uint32_t pid, uint32_t at)
{
	size_t k;

	if (2 * (m->n + 1) > m->cap) {
		size_t nc = m->cap ? 2 * m->cap : 64;
		uint32_t *np = calloc(nc, sizeof(*np)), *na = calloc(nc, sizeof(*na));

		if (!np || !na) {
			free(np);
			free(na);
			return -ENOMEM;
		}
		for (size_t i = 0; i < m->cap; i++) {
			if (!m->at[i])
				continue;
			for (k = sr_pid_slot(m->pid[i], nc); na[k]; k = (k + 1) & (nc - 1))
				;
			np[k] = m->pid[i];
			na[k] = m->at[i];
		}
		free(m->pid);
		free(m->at);
		m->pid = np;
		m->at = na;
		m->cap = nc;
	}
	for (k = sr_pid_slot(pid, m->cap); m->at[k]; k = (k + 1) & (m->cap - 1))
		;
	m->pid[k] = pid;
	m->at[k] = at;
	m->n++;
	return 0;
}

static void sr_pid_free(struct sr_pidmap *m)
{
	free(m->pid);
	free(m->at);
}

static void *sr_grow(void *p, size_t n, size_t elem)
{
	/* Doubling at powers of two; n is the count before the append. */
	if (n && (n & (n - 1)))
		return p;
	return realloc(p, (n ? n * 2 : 16) * elem);
}

static int sr_parse(struct sr_ctx *c, char *text)
{
	char *line, *save = NULL;

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct sr_thread t;
		struct sr_io io;
		struct sr_mem m;
		unsigned pid, ms;
		unsigned long long v;
		void *np;

		if (line[0] == '#')
			continue;
		if (!strncmp(line, "what", 4) && (!line[4] || line[4] == ' ')) {
			snprintf(c->what, sizeof(c->what), "%s", line[4] ? line + 5 : "");
		} else if (sscanf(line, "period_ms %u", &c->period) == 1) {
		} else if (sscanf(line, "thread %u %u %u %llu %7s", &t.idx, &t.pid, &t.tid, &t.cpu,
				  t.src) == 5) {
			if (t.idx >= EV_MAX_THREADS)
				continue;
			np = sr_grow(c->th, c->nth, sizeof(*c->th));
			if (!np)
				return -ENOMEM;
			c->th = np;
			if (!c->th_at[t.idx])
				c->th_at[t.idx] = (uint32_t)c->nth + 1;
			c->th[c->nth++] = t;
		} else if (sscanf(line, "io %u %7s %7s %llu %llu", &io.idx, io.dir, io.kind,
				  &io.calls, &io.bytes) == 5) {
			if (io.idx >= EV_MAX_THREADS)
				continue;
			np = sr_grow(c->io, c->nio, sizeof(*c->io));
			if (!np)
				return -ENOMEM;
			c->io = np;
			np = sr_grow(c->io_next, c->nio, sizeof(*c->io_next));
			if (!np)
				return -ENOMEM;
			c->io_next = np;
			c->io_next[c->nio] = 0;
			if (c->io_last[io.idx])
				c->io_next[c->io_last[io.idx] - 1] = (uint32_t)c->nio + 1;
			else
				c->io_first[io.idx] = (uint32_t)c->nio + 1;
			c->io_last[io.idx] = (uint32_t)c->nio + 1;
			c->io[c->nio++] = io;
		} else if (sscanf(line, "mem %u %llu %llu %llu %lld", &m.idx, &m.calls, &m.bytes,
				  &m.frees, &m.live) == 5) {
			if (m.idx >= EV_MAX_THREADS)
				continue;
			np = sr_grow(c->mem, c->nmem, sizeof(*c->mem));
			if (!np)
				return -ENOMEM;
			c->mem = np;
			if (!c->mem_at[m.idx])
				c->mem_at[m.idx] = (uint32_t)c->nmem + 1;
			c->mem[c->nmem++] = m;
		} else if (sscanf(line, "rss %u %u %llu", &pid, &ms, &v) == 3) {
			uint32_t at = sr_pid_find(&c->rss_at, pid);
			size_t i = at ? at - 1 : c->nrss;

			if (i == c->nrss) {
				np = sr_grow(c->rss, c->nrss, sizeof(*c->rss));
				if (!np || sr_pid_put(&c->rss_at, pid, (uint32_t)c->nrss + 1) < 0) {
					if (np)
						c->rss = np;
					return -ENOMEM;
				}
				c->rss = np;
				c->rss[c->nrss++] = (struct sr_rss){pid, 0, ms, ms, v, v, v};
			}
			c->rss[i].samples++;
			c->rss[i].last_ms = ms;
			c->rss[i].last = v;
			if (v < c->rss[i].min)
				c->rss[i].min = v;
			if (v > c->rss[i].max)
				c->rss[i].max = v;
		}
	}
	return 0;
}

static const struct sr_thread *sr_thread_of(const struct sr_ctx *c, unsigned idx)
{
	return idx < EV_MAX_THREADS && c->th_at[idx] ? &c->th[c->th_at[idx] - 1] : NULL;
}

static const struct sr_mem *sr_mem_of(const struct sr_ctx *c, unsigned idx)
{
	return idx < EV_MAX_THREADS && c->mem_at[idx] ? &c->mem[c->mem_at[idx] - 1] : NULL;
}

/* A process's heap: the sum of its threads' counters. */
struct sr_heap {
	unsigned pid;
	unsigned long long calls, bytes, frees;
	long long live;
};

/* The processes in order of first appearance; *n of them. The caller frees. */
static struct sr_heap *sr_heaps(const struct sr_ctx *c, size_t *n)
{
	struct sr_heap *h = calloc(c->nth ? c->nth : 1, sizeof(*h));
	struct sr_pidmap at = {0};
	size_t k = 0;

	*n = 0;
	if (!h)
		return NULL;
	for (size_t i = 0; i < c->nth; i++) {
		const struct sr_mem *m = sr_mem_of(c, c->th[i].idx);
		uint32_t pos;
		size_t j;

		if (!m)
			continue;
		pos = sr_pid_find(&at, c->th[i].pid);
		j = pos ? pos - 1 : k;
		if (j == k) {
			if (sr_pid_put(&at, c->th[i].pid, (uint32_t)k + 1) < 0) {
				sr_pid_free(&at);
				free(h);
				return NULL;
			}
			h[k++].pid = c->th[i].pid;
		}
		h[j].calls += m->calls;
		h[j].bytes += m->bytes;
		h[j].frees += m->frees;
		h[j].live += m->live;
	}
	sr_pid_free(&at);
	*n = k;
	return h;
}

static void sr_print_json(const struct sr_ctx *c, const struct sr_heap *h, size_t nh,
			  const struct trace_loss *loss, FILE *out)
{
	/* what, src, dir and kind are words of the sys side file: any bytes */
	fputs("{\"what\":", out);
	escape_json_str(out, c->what);
	fprintf(out, ",\"period_ms\":%u,\"threads\":[", c->period);
	for (size_t i = 0; i < c->nth; i++) {
		const struct sr_thread *t = &c->th[i];
		int first = 1;

		fprintf(out,
			"%s{\"index\":%u,\"pid\":%u,\"tid\":%u,\"cpu_ns\":%llu,\"cpu_source\":",
			i ? "," : "", t->idx, t->pid, t->tid, t->cpu);
		escape_json_str(out, t->src);
		fputs(",\"io\":[", out);
		/* this thread's io lines (only the first thread line of an
		 * index has them) */
		for (uint32_t p = sr_thread_of(c, t->idx) == t ? c->io_first[t->idx] : 0; p;
		     p = c->io_next[p - 1]) {
			size_t k = p - 1;

			fprintf(out, "%s{\"dir\":", first ? "" : ",");
			escape_json_str(out, c->io[k].dir);
			fputs(",\"kind\":", out);
			escape_json_str(out, c->io[k].kind);
			fprintf(out, ",\"calls\":%llu,\"bytes\":%llu}", c->io[k].calls,
				c->io[k].bytes);
			first = 0;
		}
		fprintf(out, "]");
		if (sr_mem_of(c, t->idx)) {
			const struct sr_mem *m = sr_mem_of(c, t->idx);

			fprintf(out,
				",\"mem\":{\"alloc_calls\":%llu,\"alloc_bytes\":%llu,\"frees\":%llu,"
				"\"live_bytes\":%lld}",
				m->calls, m->bytes, m->frees, m->live);
		}
		fprintf(out, "}");
	}
	fprintf(out, "],\"heap\":[");
	for (size_t i = 0; i < nh; i++)
		fprintf(out,
			"%s{\"pid\":%u,\"alloc_calls\":%llu,\"alloc_bytes\":%llu,\"frees\":%llu,"
			"\"live_bytes\":%lld}",
			i ? "," : "", h[i].pid, h[i].calls, h[i].bytes, h[i].frees, h[i].live);
	fprintf(out, "],\"rss\":[");
	for (size_t i = 0; i < c->nrss; i++)
		fprintf(out,
			"%s{\"pid\":%u,\"samples\":%u,\"min_bytes\":%llu,\"max_bytes\":%llu,"
			"\"final_bytes\":%llu,\"final_ms\":%u}",
			i ? "," : "", c->rss[i].pid, c->rss[i].samples, c->rss[i].min, c->rss[i].max,
			c->rss[i].last, c->rss[i].last_ms);
	fprintf(out, "],\"trace\":{");
	trace_loss_json(loss, out);
	fprintf(out, "}}\n");
}

static void sr_print_text(const struct sr_ctx *c, const struct sr_heap *h, size_t nh, FILE *out)
{
	static const char *const kinds[] = {"file", "pipe", "socket", "tty", "other"};

	fprintf(out, "system probes:%s (sampled every %u ms)\n", escape_str(c->what), c->period);
	if (strstr(c->what, "cpu")) {
		fprintf(out, "\n%-8s %-8s %12s  %s\n", "tid", "pid", "cpu ms", "from");
		for (size_t i = 0; i < c->nth; i++)
			fprintf(out, "%-8u %-8u %12.3f  %s\n", c->th[i].tid, c->th[i].pid,
				c->th[i].cpu / 1e6,
				!strcmp(c->th[i].src, "exit")	  ? "thread end (exact)"
				: !strcmp(c->th[i].src, "sample") ? "last sample"
								  : "-");
	}
	if (strstr(c->what, "io")) {
		fprintf(out, "\n%-8s %-6s %-7s %12s %14s\n", "tid", "dir", "kind", "calls", "bytes");
		for (size_t k = 0; k < c->nio; k++) {
			const struct sr_thread *t = sr_thread_of(c, c->io[k].idx);

			fprintf(out, "%-8u %-6s %-7s %12llu %14llu\n", t ? t->tid : 0,
				escape_str(c->io[k].dir), escape_str(c->io[k].kind), c->io[k].calls,
				c->io[k].bytes);
		}
		for (int d = 0; d < 2; d++)
			for (size_t kk = 0; kk < sizeof(kinds) / sizeof(kinds[0]); kk++) {
				unsigned long long calls = 0, bytes = 0;

				for (size_t k = 0; k < c->nio; k++)
					if (!strcmp(c->io[k].dir, d ? "write" : "read") &&
					    !strcmp(c->io[k].kind, kinds[kk])) {
						calls += c->io[k].calls;
						bytes += c->io[k].bytes;
					}
				if (calls)
					fprintf(out, "%-8s %-6s %-7s %12llu %14llu\n", "all",
						d ? "write" : "read", kinds[kk], calls, bytes);
			}
		if (!c->nio)
			fprintf(out, "(no read or write call seen)\n");
	}
	if (strstr(c->what, "mem")) {
		fprintf(out, "\n%-8s %12s %14s %12s %14s\n", "tid", "allocs", "bytes asked",
			"frees", "live delta");
		for (size_t i = 0; i < c->nth; i++) {
			const struct sr_mem *m = sr_mem_of(c, c->th[i].idx);

			if (m)
				fprintf(out, "%-8u %12llu %14llu %12llu %14lld\n", c->th[i].tid,
					m->calls, m->bytes, m->frees, m->live);
		}
		for (size_t i = 0; i < nh; i++)
			fprintf(out, "pid %-8u %8llu allocations, %llu bytes asked, %llu frees, "
				"%lld bytes live at exit\n", h[i].pid, h[i].calls, h[i].bytes, h[i].frees,
				h[i].live);
		if (!nh)
			fprintf(out, "(no allocator call seen)\n");
		fprintf(out, "\n%-8s %8s %12s %12s %12s  %s\n", "pid", "samples", "rss min MB",
			"rss max MB", "final MB", "final at");
		for (size_t i = 0; i < c->nrss; i++)
			fprintf(out, "%-8u %8u %12.2f %12.2f %12.2f  %.2f s\n", c->rss[i].pid,
				c->rss[i].samples, c->rss[i].min / 1048576.0,
				c->rss[i].max / 1048576.0, c->rss[i].last / 1048576.0,
				c->rss[i].last_ms / 1e3);
		if (!c->nrss)
			fprintf(out, "(no sample: the program ended within one period)\n");
	}
}

int sysreport_reader(struct trace_reader *r, const char *dir, const struct sysreport_opts *o,
		     FILE *out)
{
	struct sr_ctx c;
	struct sr_heap *heap = NULL;
	struct trace_loss loss;
	char *text = NULL;
	size_t len, nheap = 0;
	int rc;

	memset(&c, 0, sizeof(c));
	c.th_at = calloc(EV_MAX_THREADS, sizeof(*c.th_at));
	c.mem_at = calloc(EV_MAX_THREADS, sizeof(*c.mem_at));
	c.io_first = calloc(EV_MAX_THREADS, sizeof(*c.io_first));
	c.io_last = calloc(EV_MAX_THREADS, sizeof(*c.io_last));
	if (!c.th_at || !c.mem_at || !c.io_first || !c.io_last) {
		rc = -ENOMEM;
		goto out;
	}
	rc = trace_reader_file(r, "sys", &text, &len);
	if (rc < 0) {
		/* written when the run ends: never in a killed spool's trace */
		trace_reader_loss_read(r, &loss);
		if (!trace_loss_end_file_lost(dir, &loss, "system probes' figures", "sys"))
			log_err("%s has no system probes (\"sys\"): run spool probe -e sys:cpu / "
				"sys:io / sys:mem",
				dir);
		rc = -ENOENT;
		goto out;
	}
	rc = sr_parse(&c, text);
	if (rc < 0)
		goto out;
	heap = sr_heaps(&c, &nheap);
	if (!heap) {
		rc = -ENOMEM;
		goto out;
	}
	/* the samples are a side file; the losses are the trace's */
	trace_reader_loss_read(r, &loss);
	if (o->json) {
		sr_print_json(&c, heap, nheap, &loss, out);
	} else {
		if (o->header)
			trace_loss_print_header(&loss, dir, NULL, out);
		sr_print_text(&c, heap, nheap, out);
	}
out:
	free(heap);
	free(c.mem);
	free(text);
	free(c.th);
	free(c.io);
	free(c.rss);
	free(c.th_at);
	free(c.mem_at);
	free(c.io_first);
	free(c.io_last);
	free(c.io_next);
	sr_pid_free(&c.rss_at);
	return rc;
}

int sysreport_dir(const char *dir, const struct sysreport_opts *o, FILE *out)
{
	struct trace_reader *r;
	int rc;

	rc = analyze_pass_open_reader(&r, dir, 0);
	if (rc < 0)
		return rc;
	rc = sysreport_reader(r, dir, o, out);
	trace_loss_seen_fill(o->seen, r);
	trace_reader_close(r);
	return rc;
}
