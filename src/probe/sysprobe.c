// SPDX-License-Identifier: MIT
/*
 * sysprobe.c - system probes, host side: the counters area, the sampler,
 * the "sys" side file.
 *
 * Division of work, chosen so that the target pays nothing it does not
 * have to: what only the target can see is counted by the agent into
 * shared memory (I/O calls and bytes per thread and descriptor kind; each
 * thread's exact CPU time when it ends, and at exit() for the threads still
 * running; allocator calls, bytes and live bytes per thread). What the
 * kernel already keeps is read by spool from /proc every
 * SYSPROBE_PERIOD_MS on its own thread: each traced thread's CPU time
 * (/proc/PID/task/TID/schedstat, ns) and each process's resident set
 * (/proc/PID/statm). The samples give the timelines; a thread that ended
 * before the agent could store its final CPU time (killed, exec, _exit)
 * keeps its last sample. Reading the shared memory needs no lock: the
 * sampler only reads, and sysprobe_finish joins it before the area goes;
 * ring headers it reads with pread (shm_host_ring_peek), never through
 * the collector's mappings, which the collector unmaps as rings are freed.
 *
 * Attached (spool probe -p PID -e sys:cpu): the agent was dlopen'ed and a
 * thread has a ring only once it records a probe event, so the sampler
 * lists /proc/PID/task itself and keeps each thread's first and last
 * schedstat: a thread's CPU is what it used while spool was attached (from
 * its first sample), its index the order spool first saw it in. With sys:io
 * or sys:mem the agent points the program's GOT slots at its counting
 * interposers (agent_probe_got.c), which count into the same area as when
 * launched; a slot's lines name the sampled thread of the same tid
 * (sysprobe_attached_slots), and the RSS is sampled from /proc/PID/statm.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../common/event.h"
#include "../common/shm.h"
#include "../common/sys_area.h"
#include "../util/log.h"
#include "sysprobe.h"

#define SYSPROBE_MAX_SAMPLES 200000 /* per series kind; later samples only update aggregates */

struct sysprobe_sample {
	uint32_t id; /* pid (rss) or thread index (cpu) */
	uint32_t ms; /* since the sampler started */
	uint64_t value;
};

struct sysprobe {
	struct shm_host *h;
	void *area;
	unsigned what; /* every probe asked for so far (the side file's "what") */
	unsigned now;  /* those on now (atomic: the sampler reads it) */
	pthread_t thread;
	int started;
	int stop; /* atomic */
	uint64_t t0_ns;
	pid_t pid; /* attached: the process whose /proc/PID/task is sampled; 0: launched */
	struct sysprobe_task {
		uint32_t tid;
		uint64_t first, last; /* schedstat ns at the first and the last sample */
	} *task;			    /* attached: by index, in the order first seen */
	size_t ntask;
	uint64_t *last_cpu; /* per thread index: last sampled CPU ns + 1, 0 = none */
	uint32_t *last_tid; /* ... and the thread it was sampled from (a ring is reused) */
	struct sysprobe_sample *rss, *cpu;
	size_t nrss, ncpu;
	uint64_t dropped;
};

static const char *const sysprobe_kind_names[SYS_FD_KINDS] = {"file", "pipe", "socket", "tty",
							       "other"};

int sysprobe_parse(const char *spec, unsigned *what, char *err, size_t errlen)
{
	if (strncmp(spec, "sys:", 4))
		return 0;
	spec += 4;
	if (!strcmp(spec, "cpu"))
		*what |= SYS_W_CPU;
	else if (!strcmp(spec, "io"))
		*what |= SYS_W_IO;
	else if (!strcmp(spec, "mem"))
		*what |= SYS_W_MEM;
	else if (!strcmp(spec, "all") || !strcmp(spec, "*"))
		*what |= SYS_W_CPU | SYS_W_IO | SYS_W_MEM;
	else {
		snprintf(err, errlen, "'sys:%s': want sys:cpu, sys:io, sys:mem or sys:all", spec);
		return -EINVAL;
	}
	return 1;
}

uint64_t sysprobe_area_size(uint32_t max_rings)
{
	return sizeof(struct sys_area_hdr) + (uint64_t)max_rings * sizeof(struct sys_slot);
}

static uint64_t sysprobe_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The first number of a small /proc file; -1 if it cannot be read. */
static int sysprobe_read_u64(const char *path, unsigned field, uint64_t *v)
{
	char buf[256], *p = buf, *end;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	for (unsigned i = 0;; i++) {
		unsigned long long x = strtoull(p, &end, 10);

		if (end == p)
			return -1;
		if (i == field) {
			*v = x;
			return 0;
		}
		p = end;
	}
}

static void sysprobe_push(struct sysprobe *s, struct sysprobe_sample **v, size_t *n,
			  struct sysprobe_sample x)
{
	if (*n >= SYSPROBE_MAX_SAMPLES) {
		s->dropped++;
		return;
	}
	if (!(*n & (*n - 1)) || !*n) {
		size_t cap = *n ? *n * 2 : 256;
		struct sysprobe_sample *nv = realloc(*v, cap * sizeof(*nv));

		if (!nv) {
			s->dropped++;
			return;
		}
		*v = nv;
	}
	(*v)[(*n)++] = x;
}

/* Attached: one sample of every thread of s->pid (CPU since the first). */
static void sysprobe_sample_tasks(struct sysprobe *s, uint32_t ms)
{
	char path[96];
	struct dirent *e;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)s->pid);
	d = opendir(path);
	if (!d)
		return; /* gone */
	while ((e = readdir(d))) {
		char *end;
		unsigned long tid = strtoul(e->d_name, &end, 10);
		size_t i;
		uint64_t v;

		if (!tid || *end || tid > UINT32_MAX)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%lu/schedstat", (int)s->pid, tid);
		if (sysprobe_read_u64(path, 0, &v) < 0)
			continue;
		for (i = 0; i < s->ntask && s->task[i].tid != tid; i++)
			;
		if (i == s->ntask) {
			struct sysprobe_task *nt;

			if (s->ntask >= EV_MAX_THREADS) {
				s->dropped++;
				continue;
			}
			if (!(s->ntask & (s->ntask - 1))) {
				nt = realloc(s->task, (s->ntask ? 2 * s->ntask : 16) * sizeof(*nt));
				if (!nt) {
					s->dropped++;
					continue;
				}
				s->task = nt;
			}
			s->task[s->ntask++] = (struct sysprobe_task){(uint32_t)tid, v, v};
		}
		/* (schedstat only grows; a tid reused by a new thread restarts
		 * it lower: counted from there) */
		if (v < s->task[i].last)
			s->task[i].first = v - (s->task[i].last - s->task[i].first);
		s->task[i].last = v;
		sysprobe_push(s, &s->cpu, &s->ncpu,
			      (struct sysprobe_sample){(uint32_t)i, ms, v - s->task[i].first});
	}
	closedir(d);
}

static void sysprobe_sample_once(struct sysprobe *s)
{
	struct shm_ctl *c = s->h->ctl;
	uint32_t ms = (uint32_t)((sysprobe_now_ns() - s->t0_ns) / 1000000);
	uint32_t n = __atomic_load_n(&c->nrings, __ATOMIC_ACQUIRE);
	uint32_t np = __atomic_load_n(&c->nprocs, __ATOMIC_ACQUIRE);
	char path[96];
	uint64_t v;

	if (s->pid) {
		unsigned now = __atomic_load_n(&s->now, __ATOMIC_ACQUIRE);

		if (now & SYS_W_CPU)
			sysprobe_sample_tasks(s, ms);
		snprintf(path, sizeof(path), "/proc/%d/statm", (int)s->pid);
		if ((now & SYS_W_MEM) && sysprobe_read_u64(path, 1, &v) == 0 && v)
			sysprobe_push(s, &s->rss, &s->nrss,
				      (struct sysprobe_sample){(uint32_t)s->pid, ms,
							       v * (uint64_t)getpagesize()});
		return;
	}
	if (n > s->h->max_rings)
		n = s->h->max_rings;
	if (np > s->h->max_procs)
		np = s->h->max_procs;
	if (s->what & SYS_W_CPU)
		for (uint32_t i = 0; i < n; i++) {
			struct shm_ring r;
			uint32_t tid, pid;

			/* A copy (this thread never maps rings: the collector's do). */
			if (shm_host_ring_peek(s->h, i, &r) < 0)
				continue;
			tid = r.tid;
			pid = r.pid;
			if (r.state != RING_ACTIVE || !tid)
				continue;
			snprintf(path, sizeof(path), "/proc/%u/task/%u/schedstat", pid, tid);
			if (sysprobe_read_u64(path, 0, &v) < 0)
				continue;
			s->last_cpu[i] = v + 1;
			s->last_tid[i] = tid;
			sysprobe_push(s, &s->cpu, &s->ncpu, (struct sysprobe_sample){i, ms, v});
		}
	if (s->what & SYS_W_MEM)
		for (uint32_t i = 0; i < np; i++) {
			const struct shm_proc *p = shm_proc_at(s->h->ctl, i);
			uint32_t pid = __atomic_load_n(&p->pid, __ATOMIC_RELAXED);

			/* (a freed slot keeps its last pid: slots are reused) */
			if (!pid || __atomic_load_n(&p->state, __ATOMIC_ACQUIRE) != PROC_LIVE)
				continue;
			snprintf(path, sizeof(path), "/proc/%u/statm", pid);
			if (sysprobe_read_u64(path, 1, &v) < 0 || !v)
				continue; /* gone, or a zombie (no pages) */
			sysprobe_push(s, &s->rss, &s->nrss,
				      (struct sysprobe_sample){pid, ms, v * (uint64_t)getpagesize()});
		}
}

static void *sysprobe_main(void *arg)
{
	struct sysprobe *s = arg;
	struct timespec ts = {0, SYSPROBE_PERIOD_MS * 1000000L};

	while (!__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE)) {
		sysprobe_sample_once(s);
		nanosleep(&ts, NULL);
	}
	return NULL;
}

int sysprobe_start(struct sysprobe **out, unsigned what, struct shm_host *h, pid_t pid)
{
	struct sys_area_hdr *ah = shm_host_ext(h, SHM_EXT_SYS);
	struct sysprobe *s;
	int rc;

	/* the counters' area: launched, and attached with sys:io or sys:mem
	 * (the agent's interposers count there), or with room made for them
	 * to be added later (--commands: sysprobe_set) */
	int area = !pid || (what & ~SYS_W_CPU) ||
		   (ah && h->ext_size[SHM_EXT_SYS] >= sysprobe_area_size(h->max_rings));

	*out = NULL;
	if (area && (!ah || h->ext_size[SHM_EXT_SYS] < sysprobe_area_size(h->max_rings)))
		return -ENOSPC;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->last_cpu = calloc(h->max_rings, sizeof(*s->last_cpu));
	s->last_tid = calloc(h->max_rings, sizeof(*s->last_tid));
	if (!s->last_cpu || !s->last_tid) {
		free(s->last_cpu);
		free(s->last_tid);
		free(s);
		return -ENOMEM;
	}
	if (area) {
		memset(ah, 0, sysprobe_area_size(h->max_rings));
		ah->what = what;
		ah->nslots = h->max_rings;
		ah->slot_size = sizeof(struct sys_slot);
		ah->slots_off = sizeof(*ah);
		__atomic_store_n(&ah->magic, SYS_AREA_MAGIC, __ATOMIC_RELEASE);
	}
	s->pid = pid;
	s->h = h;
	s->area = area ? ah : NULL;
	s->what = s->now = what;
	s->t0_ns = sysprobe_now_ns();
	if (what & (SYS_W_CPU | SYS_W_MEM)) {
		rc = pthread_create(&s->thread, NULL, sysprobe_main, s);
		if (rc) {
			free(s->last_cpu);
			free(s->last_tid);
			free(s);
			return -rc;
		}
		s->started = 1;
	}
	*out = s;
	return 0;
}

int sysprobe_set(struct sysprobe *s, unsigned what)
{
	int rc;

	if ((what & ~SYS_W_CPU) && !s->area)
		return -ENODEV;
	if ((what & (SYS_W_CPU | SYS_W_MEM)) && !s->started) {
		__atomic_store_n(&s->now, what, __ATOMIC_RELEASE);
		rc = pthread_create(&s->thread, NULL, sysprobe_main, s);
		if (rc) {
			__atomic_store_n(&s->now, 0u, __ATOMIC_RELEASE);
			return -rc;
		}
		s->started = 1;
	}
	/* The sampler (started once, kept: it samples what is on) reads
	 * what is on at each round; "what" keeps every probe that ran: the
	 * report gives each one's figures */
	__atomic_store_n(&s->now, what, __ATOMIC_RELEASE);
	s->what |= what;
	if (s->area)
		((struct sys_area_hdr *)s->area)->what = s->what;
	return 0;
}

/* Append to a growing text buffer. */
struct sysprobe_buf {
	char *p;
	size_t len, cap;
	int err;
};

__attribute__((format(printf, 2, 3))) static void sysprobe_out(struct sysprobe_buf *b,
							      const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->err)
		return;
	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->p ? b->p + b->len : NULL, b->p ? b->cap - b->len : 0, fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->err = -EINVAL;
			return;
		}
		if (b->p && b->len + (size_t)n < b->cap) {
			b->len += (size_t)n;
			return;
		}
		{
			size_t cap = (b->cap ? b->cap * 2 : 65536) + (size_t)n;
			char *np = realloc(b->p, cap);

			if (!np) {
				b->err = -ENOMEM;
				return;
			}
			b->p = np;
			b->cap = cap;
		}
	}
}

/* The io, ioerr and mem lines of a counters slot, as thread index idx. */
static void sysprobe_slot_lines(struct sysprobe_buf *b, size_t idx, const struct sys_slot *sl)
{
	for (unsigned d = 0; d < SYS_IO_DIRS; d++) {
		for (unsigned k = 0; k < SYS_FD_KINDS; k++)
			if (sl->io_calls[d][k])
				sysprobe_out(b, "io %zu %s %s %llu %llu\n", idx, d ? "write" : "read",
					     sysprobe_kind_names[k],
					     (unsigned long long)sl->io_calls[d][k],
					     (unsigned long long)sl->io_bytes[d][k]);
		if (sl->io_errors[d])
			sysprobe_out(b, "ioerr %zu %s %llu\n", idx, d ? "write" : "read",
				     (unsigned long long)sl->io_errors[d]);
	}
	if (sl->mem_calls || sl->mem_frees)
		sysprobe_out(b, "mem %zu %llu %llu %llu %lld\n", idx,
			     (unsigned long long)sl->mem_calls, (unsigned long long)sl->mem_bytes,
			     (unsigned long long)sl->mem_frees, (long long)sl->mem_live);
}

/*
 * Attached with sys:io or sys:mem: the slots the agent's interposers
 * counted in, one per ring (a thread gets one at its first counted call or
 * probe event). Their lines name the thread index of the same thread's
 * CPU line when sys:cpu sampled it, else a thread line of their own after
 * the sampled ones (CPU unknown: "none").
 */
static void sysprobe_attached_slots(const struct sysprobe *s, struct sysprobe_buf *b, uint32_t n)
{
	size_t next = s->ntask;

	for (uint32_t i = 0; i < n && s->pid && s->area; i++) {
		const struct sys_slot *sl = sys_area_slot(s->area, i);
		struct shm_ring r = {0};
		int used = sl->mem_calls || sl->mem_frees;
		size_t idx;

		for (unsigned d = 0; d < SYS_IO_DIRS; d++) {
			used |= sl->io_errors[d] != 0;
			for (unsigned k = 0; k < SYS_FD_KINDS; k++)
				used |= sl->io_calls[d][k] != 0;
		}
		if (!used)
			continue;
		shm_host_ring_peek(s->h, i, &r);
		for (idx = 0; idx < s->ntask && (!r.tid || s->task[idx].tid != r.tid); idx++)
			;
		if (idx == s->ntask) {
			idx = next++;
			sysprobe_out(b, "thread %zu %d %u 0 none\n", idx, (int)s->pid, r.tid);
		}
		sysprobe_slot_lines(b, idx, sl);
	}
}

int sysprobe_finish(struct sysprobe *s, struct trace_writer *w)
{
	struct sysprobe_buf b = {0};
	struct shm_ctl *c;
	uint32_t n;
	int rc;

	if (!s)
		return 0;
	if (s->started) {
		__atomic_store_n(&s->stop, 1, __ATOMIC_RELEASE);
		pthread_join(s->thread, NULL);
	}
	rc = 0;
	if (!s->what) /* a session that could have added some, and did not */
		goto out_free;
	c = s->h->ctl;
	n = __atomic_load_n(&c->nrings, __ATOMIC_ACQUIRE);
	if (n > s->h->max_rings)
		n = s->h->max_rings;
	sysprobe_out(&b, "# spool sys 1\nwhat%s%s%s\nperiod_ms %d\n",
		     s->what & SYS_W_CPU ? " cpu" : "", s->what & SYS_W_IO ? " io" : "",
		     s->what & SYS_W_MEM ? " mem" : "", SYSPROBE_PERIOD_MS);
	if (s->dropped)
		sysprobe_out(&b, "samples_dropped %llu\n", (unsigned long long)s->dropped);
	sysprobe_out(&b, "# thread INDEX PID TID CPU_NS exit|sample|none\n");
	for (size_t i = 0; i < s->ntask; i++) /* attached */
		sysprobe_out(&b, "thread %zu %d %u %llu sample\n", i, (int)s->pid, s->task[i].tid,
			     (unsigned long long)(s->task[i].last - s->task[i].first));
	for (uint32_t i = 0; i < n && !s->pid; i++) {
		struct shm_ring r = {0};
		const struct sys_slot *sl = sys_area_slot(s->area, i);
		const char *src = "none";
		uint64_t cpu = 0;

		shm_host_ring_peek(s->h, i, &r);
		if (sl->cpu_final) {
			cpu = sl->cpu_ns;
			src = "exit";
		} else if (s->last_cpu[i] && s->last_tid[i] == r.tid) {
			/* the ring's ended threads, and the sample of its last one */
			cpu = sl->cpu_ns + s->last_cpu[i] - 1;
			src = "sample";
		}
		/* (a freed ring's pid is 0; its slot keeps its last thread's) */
		sysprobe_out(&b, "thread %u %u %u %llu %s\n", i, r.pid ? r.pid : sl->pid, r.tid,
			     (unsigned long long)cpu, (s->what & SYS_W_CPU) ? src : "none");
		sysprobe_slot_lines(&b, i, sl);
	}
	sysprobe_attached_slots(s, &b, n);
	sysprobe_out(&b, "# rss PID MS BYTES\n");
	for (size_t i = 0; i < s->nrss; i++)
		sysprobe_out(&b, "rss %u %u %llu\n", s->rss[i].id, s->rss[i].ms,
			     (unsigned long long)s->rss[i].value);
	sysprobe_out(&b, "# cpu INDEX MS CPU_NS\n");
	for (size_t i = 0; i < s->ncpu; i++)
		sysprobe_out(&b, "cpu %u %u %llu\n", s->cpu[i].id, s->cpu[i].ms,
			     (unsigned long long)s->cpu[i].value);
	rc = b.err ? b.err : trace_writer_add_file(w, "sys", b.p, b.len);
	free(b.p);
out_free:
	free(s->rss);
	free(s->cpu);
	free(s->task);
	free(s->last_cpu);
	free(s->last_tid);
	free(s);
	return rc;
}
