// SPDX-License-Identifier: MIT
/*
 * agent_snap_img.c - the image a recording's snapshot writes into the trace
 * (src/replay/rr_snap_fmt.h, doc/trace-format.md "Snapshots"), written by
 * the snapshot's copy while the program runs on: every thread's saved
 * context, TLS base, robust list and tid word; the signal dispositions; the
 * descriptor table (number, flags, offset, what it is); and every mapping
 * of /proc/self/maps with the contents of the writable and anonymous ones
 * (data, heap, stacks, TLS). One zstd frame, through a static compression
 * context in memory the copy maps itself.
 *
 * Agent rules: the copy is one thread of a process whose other threads are
 * parked (not recreated), so it must not take a lock a parked thread may
 * hold: no malloc (libzstd gets a static context), no stdio, raw system
 * calls. libzstd is loaded at start, in the program, not in the copy.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../replay/rr_snap_fmt.h"
#include "agent_rr.h"
#include "agent_serial.h"
#include "agent_snap.h"

#define IMG_LEVEL 1	     /* fast: the copy competes with the program for CPU */
#define IMG_OUT (256u << 10) /* compressed bytes buffered before a write */
#define IMG_MAPS (4u << 20)  /* /proc/self/maps, at most */

/* zstd's streaming ABI (zstd.h), as loaded. */
struct img_in {
	const void *src;
	size_t size, pos;
};
struct img_out {
	void *dst;
	size_t size, pos;
};
enum { IMG_E_CONTINUE = 0, IMG_E_END = 2 };
enum { IMG_C_LEVEL = 100, IMG_C_CHECKSUM = 201 };

static size_t (*z_est)(int);
static void *(*z_init)(void *, size_t);
static size_t (*z_set)(void *, int, int);
static size_t (*z_stream)(void *, struct img_out *, struct img_in *, int);
static unsigned (*z_iserr)(size_t);
static size_t z_ws_size;
static uint64_t img_t0;
/* When the taker took the snapshot now being written (set before its
 * clone: the copy sees it in its memory). */
static uint64_t img_take_ns;
static uint8_t img_build_id[8], img_agent_build_id[8];

/* The GNU build id of a loaded object (its PT_NOTE, in memory), first 8
 * bytes, into out. */
static void img_note_build_id(const struct dl_phdr_info *info, uint8_t *out)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;

		if (ph->p_type != PT_NOTE)
			continue;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
			const char *desc = p + sizeof(*nh) + ((nh->n_namesz + 3) & ~3u);

			if (desc + nh->n_descsz > end)
				break;
			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
			    !memcmp(p + sizeof(*nh), "GNU", 4)) {
				memcpy(out, desc, nh->n_descsz < 8 ? nh->n_descsz : 8);
				return;
			}
			p = desc + ((nh->n_descsz + 3) & ~3u);
		}
	}
}

/* The executable's build id and the agent's, for the header: a replay
 * refuses a snapshot of another build of either. */
static int img_build_id_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	int *first = arg;
	uintptr_t me = (uintptr_t)img_build_id_cb;

	(void)size;
	if (*first) {
		*first = 0;
		img_note_build_id(info, img_build_id);
	}
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && me >= lo && me < lo + ph->p_memsz)
			img_note_build_id(info, img_agent_build_id);
	}
	return 0;
}

static uint64_t img_now_ns(void)
{
	struct timespec ts;

	syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void agent_snap_img_mark_take(void)
{
	img_take_ns = img_now_ns();
}

int agent_snap_img_init(void)
{
	void *h;

	img_t0 = img_now_ns();
	{
		int first = 1;

		dl_iterate_phdr(img_build_id_cb, &first);
	}
	/* The real dlopen: the agent's own notes a change of the maps. */
	if (!__atomic_load_n(&agent_real.dlopen, __ATOMIC_RELAXED))
		agent_resolve();
	if (!agent_real.dlopen)
		return -ENOSYS;
	agent_self.busy++;
	h = agent_real.dlopen("libzstd.so.1", RTLD_NOW | RTLD_LOCAL);
	agent_self.busy--;
	if (!h)
		return -ENOENT;
	z_est = (size_t(*)(int))dlsym(h, "ZSTD_estimateCStreamSize");
	z_init = (void *(*)(void *, size_t))dlsym(h, "ZSTD_initStaticCCtx");
	z_set = (size_t(*)(void *, int, int))dlsym(h, "ZSTD_CCtx_setParameter");
	z_stream = (size_t(*)(void *, struct img_out *, struct img_in *, int))dlsym(
	    h, "ZSTD_compressStream2");
	z_iserr = (unsigned (*)(size_t))dlsym(h, "ZSTD_isError");
	if (!z_est || !z_init || !z_set || !z_stream || !z_iserr)
		return -ENOENT;
	z_ws_size = z_est(IMG_LEVEL);
	return z_ws_size ? 0 : -ENOENT;
}

/* ---- the compressed stream ---- */

struct img {
	void *cctx;
	long fd;
	char *out;
	uint64_t raw;
	int err;
	int over;	  /* the next write would have passed the budget */
	struct rr_area *a; /* the budget (rr_area.snap_budget, snap_bytes) */
	uint64_t mine;	  /* bytes this image reserved in a->snap_bytes */
};

/* Reserve n bytes of the snapshots' budget before they are written: the
 * images on disk never pass it, whatever the copies writing at once
 * (atomic: each is a process of its own, the area shared). */
static int img_reserve(struct img *g, size_t n)
{
	uint64_t max = __atomic_load_n(&g->a->snap_budget, __ATOMIC_RELAXED);
	uint64_t old;

	if (!max)
		return 0;
	old = __atomic_fetch_add(&g->a->snap_bytes, n, __ATOMIC_RELAXED);
	if (old + n < old || old + n > max) {
		__atomic_fetch_sub(&g->a->snap_bytes, n, __ATOMIC_RELAXED);
		g->over = 1;
		return -1;
	}
	g->mine += n;
	return 0;
}

static void img_flush(struct img *g, size_t n)
{
	size_t off = 0;

	if (!g->err && img_reserve(g, n) < 0)
		g->err = 1;
	while (off < n && !g->err) {
		long k = syscall(SYS_write, g->fd, g->out + off, n - off);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			g->err = 1;
		else
			off += (size_t)k;
	}
}

static void img_put(struct img *g, const void *p, size_t len, int end)
{
	struct img_in in = {p, len, 0};

	g->raw += len;
	for (;;) {
		struct img_out out = {g->out, IMG_OUT, 0};
		size_t left = z_stream(g->cctx, &out, &in, end ? IMG_E_END : IMG_E_CONTINUE);

		if (z_iserr(left)) {
			g->err = 1;
			return;
		}
		img_flush(g, out.pos);
		if (g->err)
			return;
		if (end ? left == 0 : in.pos == in.size)
			return;
	}
}

static void img_rec(struct img *g, uint32_t kind, uint64_t len)
{
	struct rr_snap_rec r = {kind, 0, len};

	img_put(g, &r, sizeof(r), 0);
}

/* ---- the parts ---- */

static void img_threads(struct img *g, const struct agent_snap_thread *thr, uint32_t n, uint32_t me,
			uint32_t *count)
{
	for (uint32_t id = 0; id < n; id++) {
		const struct agent_snap_thread *t = &thr[id];
		struct rr_snap_thread r;

		if (id != me && !t->restore)
			continue;
		r = (struct rr_snap_thread){id,
					    t->tid,
					    t->fs,
					    t->robust,
					    t->robust_len,
					    (uint64_t)(uintptr_t)t->tidp,
					    id == me,
					    (uint32_t)sizeof(t->ctx),
					    id == me ? RR_PARK_TAKER : t->park,
					    0};
		img_rec(g, RR_SNAP_THREAD, sizeof(r) + sizeof(t->ctx));
		img_put(g, &r, sizeof(r), 0);
		img_put(g, &t->ctx, sizeof(t->ctx), 0);
		++*count;
		{
			/* the taker's is the copy's own (a clone keeps the
			 * caller's); a parked one's was noted as it parked */
			stack_t ss = t->alt;
			struct rr_snap_agent ag = {RR_SNAP_AGENT_ALTSTACK, id};
			struct rr_snap_altstack as;

			if (id == me && syscall(SYS_sigaltstack, NULL, &ss) < 0)
				ss.ss_flags = SS_DISABLE;
			if (ss.ss_flags & SS_DISABLE)
				continue;
			as = (struct rr_snap_altstack){(uint32_t)ss.ss_flags & ~(uint32_t)SS_ONSTACK, 0,
						       (uint64_t)(uintptr_t)ss.ss_sp, ss.ss_size};
			img_rec(g, RR_SNAP_AGENT, sizeof(ag) + sizeof(as));
			img_put(g, &ag, sizeof(ag), 0);
			img_put(g, &as, sizeof(as), 0);
		}
	}
}

static void img_sigacts(struct img *g)
{
	struct rr_snap_sigact sa[64];

	memset(sa, 0, sizeof(sa));
	for (int sig = 1; sig <= 64; sig++) {
		uint64_t k[4];

		syscall(SYS_rt_sigaction, sig, NULL, &sa[sig - 1], 8);
		/* a signal the agent wraps: the program's disposition, marked
		 * (agent_rr_sig_snap) */
		k[0] = sa[sig - 1].handler;
		k[1] = sa[sig - 1].flags;
		k[2] = sa[sig - 1].restorer;
		k[3] = sa[sig - 1].mask;
		if (agent_rr_sig_snap(sig, k)) {
			sa[sig - 1].handler = k[0];
			sa[sig - 1].flags = k[1];
			sa[sig - 1].restorer = k[2];
			sa[sig - 1].mask = k[3];
		}
	}
	img_rec(g, RR_SNAP_SIGACT, sizeof(sa));
	img_put(g, sa, sizeof(sa), 0);
}

/* Serial mode's emulated barriers: their waiters are in the snapshot. */
static void img_barriers(struct img *g)
{
	struct rr_snap_barrier b;
	struct rr_snap_agent ag = {RR_SNAP_AGENT_BARRIER, 0};

	for (uint32_t i = 0; agent_serial_barrier_get(i, &b) == 0; i++) {
		if (!b.addr)
			continue;
		img_rec(g, RR_SNAP_AGENT, sizeof(ag) + sizeof(b));
		img_put(g, &ag, sizeof(ag), 0);
		img_put(g, &b, sizeof(b), 0);
	}
}

/* The POSIX timers the taker read before its clone (agent_snap_timer.c). */
static void img_timers(struct img *g)
{
	const struct rr_snap_timer *t;
	uint32_t over, n = agent_snap_timers(&t, &over);

	for (uint32_t i = 0; i < n; i++) {
		img_rec(g, RR_SNAP_TIMER, sizeof(t[i]));
		img_put(g, &t[i], sizeof(t[i]), 0);
	}
	if (over)
		agent_log("snapshot: %u POSIX timers past the %u a snapshot holds, left out", over,
			  AGENT_SNAP_TIMERS);
}

struct img_dirent {
	uint64_t ino;
	int64_t off;
	unsigned short reclen;
	unsigned char type;
	char name[];
};

/* Hexadecimal or decimal digits at *p, past leading blanks. */
static uint64_t img_num(const char **p, const char *end, unsigned base)
{
	uint64_t v = 0;
	const char *c = *p;

	while (c < end && (*c == ' ' || *c == '\t'))
		c++;
	for (; c < end; c++) {
		unsigned d = *c >= '0' && *c <= '9'   ? (unsigned)(*c - '0')
			     : *c >= 'a' && *c <= 'f' ? (unsigned)(*c - 'a' + 10)
						      : 99;

		if (d >= base)
			break;
		v = v * base + d;
	}
	*p = c;
	return v;
}

/* The interest list of epoll descriptor epfd, from its fdinfo lines
 * "tfd: N events: HEX data: HEX ...": one EPOLL record each. */
static void img_epoll(struct img *g, long infd, const char *name, int32_t epfd)
{
	char buf[8192];
	long fd = syscall(SYS_openat, infd, name, O_RDONLY | O_CLOEXEC);
	long n;
	const char *c, *end;

	if (fd < 0)
		return;
	n = syscall(SYS_read, fd, buf, sizeof(buf));
	syscall(SYS_close, fd);
	if (n <= 0)
		return;
	end = buf + n;
	for (c = buf; c < end;) {
		const char *eol = memchr(c, '\n', (size_t)(end - c));
		struct rr_snap_epoll e = {.epfd = epfd};

		if (!eol)
			eol = end;
		if (eol - c > 4 && !memcmp(c, "tfd:", 4)) {
			c += 4;
			e.tfd = (int32_t)img_num(&c, eol, 10);
			while (c < eol && *c != ':')
				c++;
			if (c < eol) {
				c++;
				e.events = (uint32_t)img_num(&c, eol, 16);
				while (c < eol && *c != ':')
					c++;
				if (c < eol) {
					c++;
					e.data = img_num(&c, eol, 16);
					img_rec(g, RR_SNAP_EPOLL, sizeof(e));
					img_put(g, &e, sizeof(e), 0);
				}
			}
		}
		c = eol + 1;
	}
}

static void img_fds(struct img *g)
{
	char buf[4096];
	long dfd =
	    syscall(SYS_openat, AT_FDCWD, "/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	long infd = syscall(SYS_openat, AT_FDCWD, "/proc/self/fdinfo",
			    O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	long n;

	if (dfd < 0) {
		if (infd >= 0)
			syscall(SYS_close, infd);
		return;
	}
	while ((n = syscall(SYS_getdents64, dfd, buf, sizeof(buf))) > 0) {
		for (long off = 0; off < n;) {
			struct img_dirent *d = (struct img_dirent *)(buf + off);
			char link[512];
			struct rr_snap_fd r;
			long k, fd = 0;
			const char *c = d->name;

			off += d->reclen;
			if (*c < '0' || *c > '9')
				continue;
			while (*c >= '0' && *c <= '9')
				fd = fd * 10 + (*c++ - '0');
			/* the copy's own: its listing and the image it
			 * writes (at the program's lowest free number: a
			 * stand-in there took the number of the next file
			 * the program opened after a --goto) */
			if (fd == dfd || fd == infd || fd == g->fd)
				continue;
			k = syscall(SYS_readlinkat, dfd, d->name, link, sizeof(link));
			if (k < 0)
				k = 0;
			r.fd = (int32_t)fd;
			r.flags = (int32_t)syscall(SYS_fcntl, fd, F_GETFL);
			r.offset = syscall(SYS_lseek, fd, 0, SEEK_CUR);
			if (r.offset < 0)
				r.offset = -1;
			img_rec(g, RR_SNAP_FD, sizeof(r) + (uint64_t)k);
			img_put(g, &r, sizeof(r), 0);
			img_put(g, link, (size_t)k, 0);
			if (infd >= 0 && k == 22 && !memcmp(link, "anon_inode:[eventpoll]", 22))
				img_epoll(g, infd, d->name, r.fd);
		}
	}
	syscall(SYS_close, dfd);
	if (infd >= 0)
		syscall(SYS_close, infd);
}

/* One line of /proc/self/maps (NUL-terminated) into *r and *path; 0 when
 * it is a mapping a snapshot lists, -1 for a line to leave out ([vvar],
 * [vdso], [vsyscall], or not a mapping). r->has_data: its contents are
 * kept (readable and writable, anonymous, or private and not executable;
 * not spool's shared memory). */
static int img_map_line(const char *line, uint64_t shm_ino, struct rr_snap_region *r,
			const char **pathp, uint32_t *flags)
{
	const char *q = line, *perm, *path;
	uint64_t ino = 0;
	int anon, spool;

	memset(r, 0, sizeof(*r));
	r->start = agent_snap_hex(&q);
	if (*q++ != '-')
		return -1;
	r->end = agent_snap_hex(&q);
	if (*q++ != ' ' || strlen(q) < 4)
		return -1;
	perm = q;
	r->prot = (perm[0] == 'r' ? PROT_READ : 0) | (perm[1] == 'w' ? PROT_WRITE : 0) |
		  (perm[2] == 'x' ? PROT_EXEC : 0);
	r->shared = perm[3] == 's';
	q += 5;
	r->offset = agent_snap_hex(&q);
	while (*q == ' ')
		q++;
	while (*q && *q != ' ')
		q++; /* dev */
	while (*q == ' ')
		q++;
	while (*q >= '0' && *q <= '9')
		ino = ino * 10 + (uint64_t)(*q++ - '0');
	while (*q == ' ')
		q++;
	path = q;
	r->path_len = (uint32_t)strlen(path);
	spool = ino && ino == shm_ino && strstr(path, "memfd:");
	anon = !*path || *path == '[';
	if (!strcmp(path, "[vvar]") || !strcmp(path, "[vdso]") || !strcmp(path, "[vsyscall]") ||
	    !strcmp(path, "[vvar_vclock]"))
		return -1;
	/* A private file mapping not executable is kept too: a library's
	 * RELRO part, relocated and then made read-only, is not what its
	 * file holds (a restore maps the file only for code, and keeps what
	 * a fresh process has the same). */
	r->has_data = (r->prot & PROT_READ) && !spool && !(r->shared && !anon) &&
		      ((r->prot & PROT_WRITE) || anon || !(r->prot & PROT_EXEC)) &&
		      r->end > r->start;
	if (r->shared && (r->prot & PROT_WRITE) && !spool)
		*flags |= RR_SNAP_F_SHARED;
	*pathp = path;
	return 0;
}

/* Some of a mapping's pages: a REGION without data, then kind (DELTA: the
 * pages changed, d->bits; SPARSE: those not all zeros, d->nzbits). */
static void img_region_pages(struct img *g, struct rr_snap_region *r, const char *path,
			     uint32_t kind, const uint64_t *bits, uint64_t count)
{
	struct rr_snap_delta dr = {r->start, (r->end - r->start) / RR_SNAP_PAGE};
	uint64_t words = (dr.npages + 63) / 64;

	r->has_data = 0;
	img_rec(g, RR_SNAP_REGION, sizeof(*r) + r->path_len);
	img_put(g, r, sizeof(*r), 0);
	img_put(g, path, r->path_len, 0);
	img_rec(g, kind, sizeof(dr) + words * 8 + count * RR_SNAP_PAGE);
	img_put(g, &dr, sizeof(dr), 0);
	img_put(g, bits, words * 8, 0);
	for (uint64_t i = 0; i < dr.npages && !g->err; i++)
		if (bits[i / 64] & (1ull << (i % 64)))
			img_put(g, (const void *)(uintptr_t)(r->start + i * RR_SNAP_PAGE),
				RR_SNAP_PAGE, 0);
}

/* Every mapping; the contents of those a restore must put back, whole or
 * (a delta, d->on) the pages changed since the previous snapshot. */
static void img_regions(struct img *g, uint64_t shm_ino, uint32_t *count, uint32_t *flags,
			struct agent_snap_delta *d, const char *prev_pgh, uint64_t index)
{
	/* in the agent's window, which a restore leaves out: not the program's */
	char *buf = agent_vm_map(IMG_MAPS, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *line, *end;
	size_t n = 0;
	long fd, k;
	uint64_t nreg = 0, npages = 0;
	uint32_t dummy = 0;

	if (buf == MAP_FAILED) {
		g->err = 1;
		return;
	}
	fd = syscall(SYS_openat, AT_FDCWD, "/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		g->err = 1;
		return;
	}
	while (n < IMG_MAPS - 1 && (k = syscall(SYS_read, fd, buf + n, IMG_MAPS - 1 - n)) > 0)
		n += (size_t)k;
	syscall(SYS_close, fd);
	buf[n] = 0;
	for (line = buf; line < buf + n; line = end + 1) {
		struct rr_snap_region r;
		const char *path;

		end = strchr(line, '\n');
		if (!end)
			end = buf + n;
		*end = 0;
		if (img_map_line(line, shm_ino, &r, &path, &dummy) == 0 && r.has_data &&
		    !((r.start | r.end) % RR_SNAP_PAGE)) {
			nreg++;
			npages += (r.end - r.start) / RR_SNAP_PAGE;
		}
	}
	if (agent_snap_delta_open(d, prev_pgh, index, nreg, npages) < 0)
		d->on = 0;
	for (line = buf; line < buf + n && !g->err; line += strlen(line) + 1) {
		struct rr_snap_region r;
		const char *path;
		uint64_t changed = UINT64_MAX;

		if (img_map_line(line, shm_ino, &r, &path, flags) < 0)
			continue;
		if (r.has_data && !((r.start | r.end) % RR_SNAP_PAGE))
			changed = agent_snap_delta_region(d, r.start, r.end);
		++*count;
		/* a mapping the snapshot before held none of (all of a whole
		 * snapshot's): its pages but the zeros; else those changed */
		if (changed != UINT64_MAX && (!d->on || !d->found)) {
			img_region_pages(g, &r, path, RR_SNAP_SPARSE, d->nzbits, d->nonzero);
			continue;
		}
		if (d->on && changed != UINT64_MAX) {
			img_region_pages(g, &r, path, RR_SNAP_DELTA, d->bits, changed);
			continue;
		}
		img_rec(g, RR_SNAP_REGION,
			sizeof(r) + r.path_len + (r.has_data ? r.end - r.start : 0));
		img_put(g, &r, sizeof(r), 0);
		img_put(g, path, r.path_len, 0);
		if (r.has_data)
			img_put(g, (const void *)(uintptr_t)r.start, r.end - r.start, 0);
	}
	munmap(buf, IMG_MAPS);
}

/* dir/.spool/snap/snap_<index><suffix> into out (1200 bytes; dir is
 * shorter than 1024). */
static void img_path(char *out, const char *dir, size_t dl, uint64_t index, const char *suffix)
{
	char d[24];
	int k = 0, len = (int)dl;

	memcpy(out, dir, dl);
	memcpy(out + len, "/.spool/snap/snap_", 18);
	len += 18;
	do {
		d[k++] = (char)('0' + index % 10);
		index /= 10;
	} while (index);
	while (k)
		out[len++] = d[--k];
	memcpy(out + len, suffix, strlen(suffix) + 1);
}

/*
 * Write snapshot index into dir/.spool/snap/snap_<index>.zst (by way of
 * .tmp): a delta of snapshot index - 1 when that one's page hashes are there
 * (agent_snap_delta.c), then this one's hashes for the next. In the copy.
 * Returns 0 or -1; a half-written file keeps its .tmp name.
 */
int agent_snap_img_write(struct rr_area *a, const char *dir, uint64_t index, uint64_t turn,
			 uint64_t count, uint64_t switches, uint32_t me, uint32_t n,
			 const struct agent_snap_thread *thr)
{
	char tmp[1200], fin[1200], prev[1200];
	struct rr_snap_hdr h;
	struct stat st;
	struct img g = {0};
	struct agent_snap_delta d = {0};
	void *ws;
	size_t dl = strnlen(dir, 1024);

	if (!z_ws_size || dl == 0 || dl >= 1024)
		return -1;
	img_path(tmp, dir, dl, index, ".tmp");
	img_path(fin, dir, dl, index, ".zst");
	img_path(prev, dir, dl, index - 1, ".pgh");
	d.nonce_a = (uint64_t)agent.pid;
	d.nonce_b = img_t0;
	ws = agent_vm_map(z_ws_size + IMG_OUT, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			  -1, 0);
	if (ws == MAP_FAILED)
		return -1;
	g.a = a;
	g.cctx = z_init(ws, z_ws_size);
	g.out = (char *)ws + z_ws_size;
	if (!g.cctx)
		return -1;
	z_set(g.cctx, IMG_C_LEVEL, IMG_LEVEL);
	z_set(g.cctx, IMG_C_CHECKSUM, 1);
	/* 0600: the program's memory, as private as the trace's other files
	 * (it was 0644, in a 0700 directory) */
	g.fd = syscall(SYS_openat, AT_FDCWD, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (g.fd < 0)
		return -1;
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, RR_SNAP_MAGIC, 8);
	h.version = RR_SNAP_VERSION;
	h.index = index;
	h.turn = turn;
	h.count = count;
	h.switches = switches;
	/* the take's time, not the copy's: the copy yields to the program
	 * and may write long after (spool info's time-s went backwards) */
	h.time_ns = (img_take_ns ? img_take_ns : img_now_ns()) - img_t0;
	h.taker = me;
	if (arch_sys_stat("/proc/self/exe", &st) == 0) {
		h.exe_dev = (uint64_t)st.st_dev;
		h.exe_ino = (uint64_t)st.st_ino;
		h.exe_size = (uint64_t)st.st_size;
		h.exe_mtime = (uint64_t)st.st_mtime;
	}
	memcpy(h.build_id, img_build_id, sizeof(h.build_id));
	memcpy(h.agent_build_id, img_agent_build_id, sizeof(h.agent_build_id));
	/* The header is written again at the end, with the counts. */
	memcpy(g.out, &h, sizeof(h));
	img_flush(&g, sizeof(h));
	img_threads(&g, thr, n, me, &h.nthreads);
	img_sigacts(&g);
	img_barriers(&g);
	img_timers(&g);
	img_fds(&g);
	if (syscall(SYS_fstat, agent.fd, &st) < 0)
		st.st_ino = 0;
	img_regions(&g, (uint64_t)st.st_ino, &h.nregions, &h.flags, &d, index > 1 ? prev : NULL,
		    index);
	if (d.on) {
		h.flags |= RR_SNAP_F_DELTA;
		h.base = (uint32_t)(index - 1);
	}
	img_rec(&g, RR_SNAP_END, 0);
	img_put(&g, NULL, 0, 1);
	h.raw_bytes = g.raw;
	if (!g.err && syscall(SYS_pwrite64, g.fd, &h, sizeof(h), 0) != (long)sizeof(h))
		g.err = 1;
	syscall(SYS_close, g.fd);
	if (g.over) {
		/* Over the budget: the part written goes, and its bytes go back
		 * (the kept images' sum stays what spool info shows). */
		syscall(SYS_unlinkat, AT_FDCWD, tmp, 0);
		__atomic_fetch_sub(&a->snap_bytes, g.mine, __ATOMIC_RELAXED);
		return -EFBIG;
	}
	if (g.err || arch_sys_rename(tmp, fin) < 0)
		return -1;
	__atomic_store_n(&a->snap_last, g.mine, __ATOMIC_RELAXED);
	/* only once the snapshot is whole: the next is a delta of it */
	img_path(tmp, dir, dl, index, ".pgt");
	img_path(fin, dir, dl, index, ".pgh");
	agent_snap_delta_save(&d, tmp, fin);
	return 0;
}
