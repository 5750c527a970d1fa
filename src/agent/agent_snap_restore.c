// SPDX-License-Identifier: MIT
/*
 * agent_snap_restore.c - a replay that starts from a snapshot of its
 * recording (spool replay --goto, doc/record.md "Replay from a snapshot").
 *
 * The replay starts as any serial replay: spool fills the area, the
 * program's first thread runs the agent's constructor, which sets up the
 * replay's own state (the area, the log, the serial slots, its ring). Then,
 * here, still in the constructor, the snapshot's memory is loaded over the
 * process: every region of the snapshot outside the agent (its own load
 * segments and its address window, agent_vm.c, where spool's shared memory
 * and the replay's log are mapped) is put back at its recorded address with
 * its recorded contents; the break is moved to the recorded heap's end;
 * descriptors the process lacks get a stand-in (/dev/null: every input of a
 * replay comes from the log); the signal dispositions are the recorded
 * ones; the POSIX timers are made again with their ids once the threads
 * are (agent_snap_timer.c). So the program's memory, the libraries' state
 * and each thread's TLS (the agent's TLS included: its event counts, its
 * progress counts) are the recording's at the snapshot, while the agent's
 * globals stay the replay's.
 *
 * The threads are then recreated like a snapshot's copy recreates them
 * (agent_snap.c): the first thread becomes thread 0, the others are cloned
 * with their TLS and tid words. Each, on its own TLS, turns its agent state
 * into the replay's at that point (agent_rr_restore_thread: its log
 * position from its event count, its turn from the schedule) and
 * setcontexts into the wait it was parked in; the snapshot's taker returns
 * from its agent_snap_point as the holder of the token. The replay goes on
 * from the snapshot's turn: output from there on is the recording's.
 *
 * The snapshot's body (its records, unpacked and checked by spool) comes in
 * a descriptor (rr_area.restore_fd), read with pread: nothing of it is
 * mapped where the program's memory goes. Everything in it is still checked
 * for bounds here. The load runs on a stack in the agent's window (the
 * first thread's own stack is overwritten), with every signal blocked, and
 * with raw system calls and memcpy only: libc's data is being replaced.
 * A failure after the load began cannot give the process back: the replay
 * stops with a report.
 */
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <linux/futex.h>
#include <signal.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "../arch/arch_snap.h"
#include "../replay/rr_snap_fmt.h"
#include "agent_rr.h"
#include "agent_rr_dispatch.h"
#include "agent_serial.h"
#include "agent_snap.h"

#define RS_STACK (256u << 10) /* the loader's own stack */
#define RS_MAPS (4u << 20)    /* the fresh process's /proc/self/maps, at most */
#define RS_FDS 4096	      /* descriptors a snapshot may list */
#define RS_VM_BASE 0x7d0000000000ull /* the agent's window (agent_vm.c) */
#define RS_VM_END 0x7e0000000000ull

static struct rr_area *rs_area;
static int rs_fd = -1;
static uint64_t rs_size, rs_t0, rs_cpu0;
static struct agent_snap_thread *rs_thr; /* AGENT_SNAP_THREADS slots, in the window */
static uint32_t rs_top, rs_taker = UINT32_MAX;
static int32_t rs_newtid[AGENT_SNAP_THREADS]; /* each restored thread's tid in the replay */
static struct rr_snap_sigact rs_sa[64];
static int rs_have_sa;
/* A descriptor the snapshot lists, and what its stand-in must be. */
enum { RS_FD_FILE, RS_FD_EPOLL, RS_FD_EVENTFD, RS_FD_PIPE, RS_FD_SOCKET };
struct rs_fd {
	int32_t fd;
	int32_t flags; /* F_GETFL when recorded */
	uint32_t kind; /* RS_FD_* */
	uint32_t made;
	uint64_t ino; /* RS_FD_PIPE: the pipe's inode (its two ends share it) */
};
static struct rs_fd *rs_fds;
static uint32_t rs_nfds;
#define RS_EPOLLS 4096 /* interest-list entries a snapshot may list */
static struct rr_snap_epoll *rs_eps;
static uint32_t rs_neps;
static char *rs_maps; /* the fresh process's maps, before the load */
static uint64_t rs_self_lo, rs_self_hi;
static struct agent_thread rs_main_self;
static ucontext_t rs_uc;
static uint32_t rs_gate; /* 1 once every thread is recreated */
static uint32_t rs_ready; /* recreated threads whose replay state is set */
/* Where the restore's time goes (SPOOL_DEBUG): stamps at its steps. */
enum { RS_T_MAPS, RS_T_BODY, RS_T_FDS, RS_T_SPAWN, RS_T_READY, RS_T_N };
static uint64_t rs_t[RS_T_N], rs_data_ns, rs_data_bytes, rs_mapped_bytes;
/* ... and the first thread's CPU time at them (on a loaded machine the
 * wall times are mostly waits for a CPU) */
static uint64_t rs_c[RS_T_N], rs_data_cpu;
static uint64_t rs_relro_pages; /* read-only library pages put back (rs_relro) */
/* The region whose data UFFDIO_COPY fills now (agent_snap_fill.c;
 * rs_uf_len 0: none), and what it filled; where the copy's CPU goes. */
static uint64_t rs_uf_start, rs_uf_len, rs_uf_bytes, rs_uf_why;
static uint64_t rs_seek_cpu, rs_copy_cpu, rs_stretches;
/* The pages of the restoring thread's own TLS that the restore itself
 * touches (rs_tls_span): its thread control block, errno, the agent's
 * initial-exec variables and, on x86-64, the syscall user dispatch
 * selector the kernel reads. The fresh process's first thread has them
 * where the recording's had its own (the same layout): inside a region the
 * restore maps afresh and fills. */
static uint64_t rs_tls_lo, rs_tls_hi, rs_tls_pages;

#if defined(__x86_64__)
/* The first thread's syscall user dispatch selector (agent_rr_dispatch.c):
 * the loader's own clone is not libc's code. */
extern __thread volatile unsigned char agent_sud_sel
    __attribute__((visibility("hidden"), tls_model("initial-exec")));
#define RS_SUD(v) (agent_sud_sel = (v))
#define RS_SUD_ADDR ((uint64_t)(uintptr_t)&agent_sud_sel)
#else
#define RS_SUD(v) ((void)(v)) /* no syscall user dispatch there (arm64 6.1) */
#define RS_SUD_ADDR ((uint64_t)(uintptr_t)&agent_self)
#endif

static uint64_t rs_clock_ns(clockid_t clk)
{
	struct timespec ts;

	syscall(SYS_clock_gettime, clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t rs_now_ns(void)
{
	return rs_clock_ns(CLOCK_MONOTONIC);
}

static uint64_t rs_cpu_ns(void)
{
	return rs_clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

static void __attribute__((noreturn)) rs_fail(const char *why)
{
	char b[512];
	size_t n = 0;
	const char *p = "snapshot restore failed: ";

	while (*p && n < sizeof(b) - 1)
		b[n++] = *p++;
	while (*why && n < sizeof(b) - 1)
		b[n++] = *why++;
	b[n] = 0;
	agent_rr_stop(b, 0);
}

/* pread of exactly len bytes at off of the body, or the failure. */
static void rs_read(uint64_t off, void *p, uint64_t len)
{
	uint64_t got = 0;

	if (off > rs_size || len > rs_size - off)
		rs_fail("the snapshot is shorter than its records say");
	while (got < len) {
		long k = syscall(SYS_pread64, rs_fd, (char *)p + got, len - got, off + got);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			rs_fail("cannot read the snapshot");
		got += (uint64_t)k;
	}
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif
/* Linux before 5.14 said EINVAL: the pread faults the pages in, one by one */
static int rs_no_populate;

/* Fault in the fresh pages of [p, p + len) for writing in one call before
 * the pread fills them: in a VM a page fault is an exit, and the pread's
 * copy took one per page (a 3 MB program: ~800, most of a restore's CPU). */
static void rs_populate(void *p, uint64_t len)
{
	uint64_t lo = (uint64_t)(uintptr_t)p & ~4095ull;
	uint64_t hi = ((uint64_t)(uintptr_t)p + len + 4095) & ~4095ull;

	if (rs_no_populate || len < 8192)
		return;
	if (syscall(SYS_madvise, lo, hi - lo, MADV_POPULATE_WRITE) < 0 && errno == EINVAL)
		rs_no_populate = 1;
}

/* The region is no longer registered with the userfaultfd: before any
 * other access to it (a user fault there would wait forever). */
static void rs_uf_stop(void)
{
	if (rs_uf_len)
		agent_snap_fill_end(rs_uf_start, rs_uf_len);
	rs_uf_len = 0;
}

/* One stretch of data of the body at off (len bytes) into dst: with
 * UFFDIO_COPY while the region is registered, else (or for what it could
 * not copy) populated and read. */
static void rs_copy(uint64_t off, char *dst, uint64_t len)
{
	uint64_t c = rs_cpu_ns();

	if (rs_uf_len) {
		int64_t k = agent_snap_fill_copy((uint64_t)(uintptr_t)dst, off, len);

		if (k > 0) {
			rs_uf_bytes += (uint64_t)k;
			off += (uint64_t)k;
			dst += k;
			len -= (uint64_t)k;
		}
		if (len) {
			rs_uf_why = k < 0 ? (uint64_t)-k : EIO;
			rs_uf_stop();
		}
	}
	if (len) {
		rs_populate(dst, len);
		rs_read(off, dst, len);
	}
	rs_copy_cpu += rs_cpu_ns() - c;
}

/*
 * The len bytes of the body at off into dst, which reads as zeros already
 * (fresh anonymous memory): only the body's data between its holes is
 * read. spool writes the body with a hole for each page of zeros
 * (rr_snap_body.c): most of a snapshot is the zeros of the threads' stack
 * mappings, and reading them was nearly all of a restore (a 3 MB program:
 * 44 MB read, 37 to 120 ms; now its 3 MB of data). A descriptor without
 * SEEK_DATA is read whole.
 */
static void rs_read_sparse(uint64_t off, void *dst, uint64_t len)
{
	uint64_t end = off + len, at = off;

	if (off > rs_size || len > rs_size - off)
		rs_fail("the snapshot is shorter than its records say");
	while (at < end) {
		uint64_t c = rs_cpu_ns();
		long d = syscall(SYS_lseek, rs_fd, (long)at, SEEK_DATA), h;

		if (d < 0 && errno == ENXIO)
			break; /* zeros to the end of the body */
		if (d < 0) {
			rs_uf_stop(); /* (a pread into a registered range) */
			rs_populate((char *)dst + (at - off), end - at);
			rs_read(at, (char *)dst + (at - off), end - at);
			break;
		}
		if ((uint64_t)d >= end)
			break;
		h = syscall(SYS_lseek, rs_fd, d, SEEK_HOLE);
		if (h < 0 || (uint64_t)h > end)
			h = (long)end;
		if (h <= d)
			rs_fail("the snapshot's data and holes do not add up");
		rs_seek_cpu += rs_cpu_ns() - c;
		rs_copy((uint64_t)d, (char *)dst + ((uint64_t)d - off), (uint64_t)(h - d));
		rs_data_bytes += (uint64_t)(h - d);
		rs_stretches++;
		at = (uint64_t)h;
	}
}

static int rs_overlaps(uint64_t lo, uint64_t hi, uint64_t a, uint64_t b)
{
	return lo < b && a < hi;
}

/* Part of the agent: its window or its own load segments. */
static int rs_agent_range(uint64_t lo, uint64_t hi)
{
	return rs_overlaps(lo, hi, RS_VM_BASE, RS_VM_END) ||
	       rs_overlaps(lo, hi, rs_self_lo, rs_self_hi);
}

static int rs_phdr_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	uint64_t lo = UINT64_MAX, hi = 0;
	int mine = 0;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uint64_t a = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type != PT_LOAD)
			continue;
		if (a < lo)
			lo = a;
		if (a + ph->p_memsz > hi)
			hi = a + ph->p_memsz;
		if ((uint64_t)(uintptr_t)arg >= a && (uint64_t)(uintptr_t)arg < a + ph->p_memsz)
			mine = 1;
	}
	if (!mine)
		return 0;
	rs_self_lo = lo & ~4095ull;
	rs_self_hi = (hi + 4095) & ~4095ull;
	return 1;
}

/* ---- the fresh process's mappings ---- */

static void rs_read_maps(void)
{
	size_t n = 0;
	long fd, k;

	rs_maps = agent_vm_map(RS_MAPS, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (rs_maps == MAP_FAILED)
		rs_fail("no memory for the process's map");
	fd = syscall(SYS_openat, AT_FDCWD, "/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		rs_fail("cannot read /proc/self/maps");
	while (n < RS_MAPS - 1 && (k = syscall(SYS_read, fd, rs_maps + n, RS_MAPS - 1 - n)) > 0)
		n += (size_t)k;
	syscall(SYS_close, fd);
	rs_maps[n] = 0;
}

/* The fresh process has this very file mapping (same range, protection,
 * offset and name): nothing to do for it. */
static int rs_fresh_same(const struct rr_snap_region *r, const char *path)
{
	const char *line = rs_maps;

	while (*line) {
		const char *q = line, *nl = strchr(line, '\n');
		uint64_t lo, hi, off;
		uint32_t prot;
		size_t plen;

		if (!nl)
			nl = line + strlen(line);
		lo = agent_snap_hex(&q);
		if (*q++ != '-')
			goto next;
		hi = agent_snap_hex(&q);
		if (*q++ != ' ' || nl - q < 5)
			goto next;
		prot = (q[0] == 'r' ? PROT_READ : 0) | (q[1] == 'w' ? PROT_WRITE : 0) |
		       (q[2] == 'x' ? PROT_EXEC : 0);
		q += 5;
		off = agent_snap_hex(&q);
		for (int f = 0; f < 2 && q < nl; f++) { /* dev, inode */
			while (q < nl && *q == ' ')
				q++;
			while (q < nl && *q != ' ')
				q++;
		}
		while (q < nl && *q == ' ')
			q++;
		plen = (size_t)(nl - q);
		if (lo == r->start && hi == r->end && off == r->offset && prot == r->prot &&
		    plen == r->path_len && !memcmp(q, path, plen))
			return 1;
	next:
		if (!*nl)
			break;
		line = nl + 1;
	}
	return 0;
}

/* ---- the regions ---- */

static void rs_map_fixed(uint64_t start, uint64_t len, int prot, int flags, int fd, uint64_t off)
{
	long p = syscall(SYS_mmap, start, len, prot, flags | MAP_FIXED, fd, off);

	if (p != (long)start)
		rs_fail("cannot map a region at its recorded address");
}

/* The recorded stack's contents into the fresh one, top down (the kernel
 * grows a stack mapping down as it is touched). */
static void rs_stack(const struct rr_snap_region *r, uint64_t data)
{
	for (uint64_t a = r->end; a > r->start; a -= 4096) {
		*(volatile char *)(uintptr_t)(a - 4096) = 0;
		rs_read(data + (a - 4096 - r->start), (void *)(uintptr_t)(a - 4096), 4096);
	}
}

/*
 * A read-only private file mapping the fresh process has too, at the same
 * place: its pages that differ from the snapshot's are put back. glibc on
 * aarch64 keeps the stack protector's canary and the pointer guard (drawn
 * from AT_RANDOM at each exec) in ld.so's RELRO pages, not in the TCB as
 * on x86-64: the snapshot's frames and mangled pointers (atexit handlers,
 * setjmp buffers) hold the recording's, and the replay died at exit
 * (a demangled handler jumped to 0xddaa49e2f43e0c57). Each page is read
 * and compared: only the few that differ are written.
 */
static char rs_page[4096];
static void rs_relro(const struct rr_snap_region *r, uint64_t data)
{
	for (uint64_t a = r->start; a < r->end; a += sizeof(rs_page)) {
		rs_read(data + (a - r->start), rs_page, sizeof(rs_page));
		if (!memcmp((const void *)(uintptr_t)a, rs_page, sizeof(rs_page)))
			continue;
		if (syscall(SYS_mprotect, a, sizeof(rs_page), PROT_READ | PROT_WRITE) < 0)
			rs_fail("cannot write a read-only page of a library as recorded");
		memcpy((void *)(uintptr_t)a, rs_page, sizeof(rs_page));
		if (syscall(SYS_mprotect, a, sizeof(rs_page), r->prot) < 0)
			rs_fail("cannot protect a page of a library as recorded");
		rs_relro_pages++;
	}
}

/* The restoring thread's TLS pages (see rs_tls_lo): from the thread
 * pointer, errno's address and the agent's own variables, before the
 * restore leaves the first thread's context. The span between them is
 * the static TLS block (on x86-64 below the thread pointer, the thread
 * control block above it; on aarch64 the reverse), a page of margin on
 * each side for the parts of the control block libc reads. */
static void rs_tls_span(void)
{
	uint64_t p[] = {(uint64_t)(uintptr_t)__builtin_thread_pointer(),
			(uint64_t)(uintptr_t)&errno,
			(uint64_t)(uintptr_t)&agent_self,
			(uint64_t)(uintptr_t)(&agent_self + 1),
			RS_SUD_ADDR};
	uint64_t lo = p[0], hi = p[0];

	for (size_t i = 1; i < sizeof(p) / sizeof(p[0]); i++) {
		if (p[i] < lo)
			lo = p[i];
		if (p[i] > hi)
			hi = p[i];
	}
	rs_tls_lo = (lo & ~4095ull) - 4096;
	rs_tls_hi = ((hi + 4095) & ~4095ull) + 4096;
}

/* [lo, hi) of the fresh region, filled from the body's data at `data`
 * with UFFDIO_COPY when it can (the data must start on a page of the body:
 * a PAD record puts every region of 64 KiB or more there), else copied. */
static void rs_fill_part(uint64_t lo, uint64_t hi, uint64_t data)
{
	if (!(data & 4095) && agent_snap_fill_on()) {
		int e = agent_snap_fill_begin(lo, hi - lo);

		if (!e) {
			rs_uf_start = lo;
			rs_uf_len = hi - lo;
		} else {
			rs_uf_why = (uint64_t)-e;
		}
	}
	rs_read_sparse(data, (void *)(uintptr_t)lo, hi - lo);
	rs_uf_stop();
}

/*
 * The data of a fresh region [lo, hi) (data: its offset in the body).
 * The part holding the restoring thread's own TLS (rs_tls_lo) is read
 * first, whole, and never registered with the userfaultfd: while a range
 * is registered its pages are missing, and the restore's own accesses to
 * them faulted there (the kernel's read of the syscall user dispatch
 * selector at the next system call failed and killed the process with
 * SIGSEGV: GraphicsMagick's libraries and libgomp made the anonymous
 * mapping around the first thread's TLS 332 KiB, big enough for the
 * UFFDIO_COPY path, tests/real/158, tests/integ/410). Read first, the
 * thread pointer's own word (fs:0, which errno's address is computed
 * from) holds the snapshot's again, which is the same address, before any
 * call could set errno; a plain pread that succeeds writes no errno.
 */
static void rs_fill(uint64_t lo, uint64_t hi, uint64_t data)
{
	uint64_t a = rs_tls_lo > lo ? rs_tls_lo : lo;
	uint64_t b = rs_tls_hi < hi ? rs_tls_hi : hi;

	if (a >= b) {
		rs_fill_part(lo, hi, data);
		return;
	}
	rs_read(data + (a - lo), (void *)(uintptr_t)a, b - a);
	rs_tls_pages += (b - a) >> 12;
	rs_data_bytes += b - a;
	if (lo < a)
		rs_fill_part(lo, a, data);
	if (b < hi)
		rs_fill_part(b, hi, data + (b - lo));
}

static void rs_region(const struct rr_snap_region *r, const char *path, uint64_t data)
{
	uint64_t len = r->end - r->start;
	int file = r->path_len && path[0] != '[';

	if (r->start >= r->end || (r->start | r->end) & 4095)
		rs_fail("a region of the snapshot is not whole pages");
	if (rs_overlaps(r->start, r->end, RS_VM_BASE, RS_VM_END))
		return; /* the agent's window: the replay's own stays */
	if (rs_overlaps(r->start, r->end, rs_self_lo, rs_self_hi)) {
		/* The agent's own segments stay the replay's; an anonymous
		 * mapping the kernel merged with its .bss is put back around
		 * them. */
		struct rr_snap_region part = *r;

		if (file || !r->has_data)
			return;
		if (r->start < rs_self_lo) {
			part.end = rs_self_lo;
			rs_region(&part, path, data);
		}
		if (r->end > rs_self_hi) {
			part.start = rs_self_hi;
			part.end = r->end;
			rs_region(&part, path, data + (rs_self_hi - r->start));
		}
		return;
	}
	if (r->path_len == 7 && !memcmp(path, "[stack]", 7) && r->has_data) {
		uint64_t t = rs_now_ns(), c = rs_cpu_ns();

		rs_stack(r, data);
		rs_data_ns += rs_now_ns() - t;
		rs_data_cpu += rs_cpu_ns() - c;
		rs_data_bytes += len;
		rs_mapped_bytes += len;
		return;
	}
	if (r->has_data && file && !(r->prot & PROT_WRITE) && rs_fresh_same(r, path)) {
		/* the same library, relocated the same way; on aarch64 its
		 * RELRO pages may hold what differs per process */
		if (ARCH_SNAP_RELRO_GUARDS)
			rs_relro(r, data);
		return;
	}
	if (r->has_data) {
		uint64_t t = rs_now_ns(), c = rs_cpu_ns();

		if (r->path_len == 6 && !memcmp(path, "[heap]", 6) &&
		    (uint64_t)syscall(SYS_brk, r->end) != r->end)
			rs_fail("the program break cannot be moved to the recorded heap's end");
		rs_map_fixed(r->start, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			     -1, 0);
		rs_fill(r->start, r->end, data);
		rs_data_ns += rs_now_ns() - t;
		rs_data_cpu += rs_cpu_ns() - c;
		rs_mapped_bytes += len;
		if (r->prot != (PROT_READ | PROT_WRITE) &&
		    syscall(SYS_mprotect, r->start, len, r->prot) < 0)
			rs_fail("cannot protect a region as recorded");
		return;
	}
	if (file) {
		char name[4097];
		long fd;

		if (rs_fresh_same(r, path))
			return;
		if (r->path_len >= sizeof(name))
			rs_fail("a mapped file's name is too long");
		memcpy(name, path, r->path_len);
		name[r->path_len] = 0;
		fd = syscall(SYS_openat, AT_FDCWD, name, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			rs_fail("a file the program had mapped cannot be opened");
		rs_map_fixed(r->start, len, (int)r->prot, MAP_PRIVATE, (int)fd, r->offset);
		syscall(SYS_close, fd);
		return;
	}
	rs_map_fixed(r->start, len, (int)r->prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1,
		     0);
}

/* ---- descriptors and signals ---- */

/* What the /proc/self/fd link text at `at` (len bytes) says the
 * descriptor was, for its stand-in. */
static void rs_fd_kind(struct rs_fd *f, uint64_t at, uint64_t len)
{
	char link[64];
	uint64_t n = len < sizeof(link) - 1 ? len : sizeof(link) - 1;

	f->kind = RS_FD_FILE;
	if (!n)
		return;
	rs_read(at, link, n);
	link[n] = 0;
	if (n == 22 && !memcmp(link, "anon_inode:[eventpoll]", 22)) {
		f->kind = RS_FD_EPOLL;
	} else if (n == 20 && !memcmp(link, "anon_inode:[eventfd]", 20)) {
		f->kind = RS_FD_EVENTFD;
	} else if (n > 8 && !memcmp(link, "socket:[", 8)) {
		f->kind = RS_FD_SOCKET;
	} else if (n > 6 && !memcmp(link, "pipe:[", 6)) {
		f->kind = RS_FD_PIPE;
		for (const char *c = link + 6; *c >= '0' && *c <= '9'; c++)
			f->ino = f->ino * 10 + (uint64_t)(*c - '0');
	}
}

/* Put descriptor tmp at number fd (tmp closed). */
static void rs_place(long tmp, int fd)
{
	if (tmp < 0)
		rs_fail("cannot make a descriptor's stand-in");
	if (tmp != fd) {
		if (syscall(SYS_dup3, tmp, fd, 0) < 0)
			rs_fail("cannot give a stand-in its recorded number");
		syscall(SYS_close, tmp);
	} else {
		syscall(SYS_fcntl, fd, F_SETFD, 0);
	}
}

/* A pipe end's stand-in: a new pipe, whose other end goes to the same
 * pipe's other end in the snapshot when it has one. A read end without
 * its writer reads end of file (reads come from the log anyway); a write
 * end without its reader is /dev/null (a write to a pipe nobody reads
 * would fail, or fill it and block). */
static void rs_pipe(struct rs_fd *f)
{
	struct rs_fd *o = NULL;
	int rd = (f->flags & O_ACCMODE) == O_RDONLY;
	int p[2];

	for (uint32_t j = 0; j < rs_nfds && !o; j++)
		if (rs_fds[j].kind == RS_FD_PIPE && !rs_fds[j].made && &rs_fds[j] != f &&
		    rs_fds[j].ino == f->ino &&
		    ((rs_fds[j].flags & O_ACCMODE) == O_RDONLY) != rd &&
		    syscall(SYS_fcntl, rs_fds[j].fd, F_GETFD) < 0)
			o = &rs_fds[j];
	if (!rd && !o) {
		rs_place(syscall(SYS_openat, AT_FDCWD, "/dev/null", O_RDWR | O_CLOEXEC), f->fd);
		return;
	}
	if (syscall(SYS_pipe2, p, O_CLOEXEC) < 0)
		rs_fail("cannot make a pipe for a descriptor's stand-in");
	if (!rd) { /* p[0] goes to o, p[1] to f */
		int t = p[0];

		p[0] = p[1];
		p[1] = t;
	}
	/* p[0] is f's end, p[1] the other one: not where f goes */
	if (p[1] == f->fd) {
		long q = syscall(SYS_fcntl, p[1], F_DUPFD_CLOEXEC, 0);

		syscall(SYS_close, p[1]);
		p[1] = (int)q;
	}
	rs_place(p[0], f->fd);
	if (o) {
		rs_place(p[1], o->fd);
		if (o->flags & O_NONBLOCK)
			syscall(SYS_fcntl, o->fd, F_SETFL, (long)O_NONBLOCK);
		o->made = 1;
	} else if (p[1] >= 0) {
		syscall(SYS_close, p[1]);
	}
}

/*
 * A descriptor the fresh process lacks gets a stand-in at its number (in a
 * replay every input comes from the log): /dev/null, or for an epoll
 * instance, an eventfd, a pipe or a socket, one of that kind, so that the
 * program's own calls on it that are made for real (epoll_ctl, a poll of
 * it) work as they did. An epoll instance gets its interest list back:
 * libuv (node) aborted when its epoll_ctl on a /dev/null failed.
 */
static void rs_descriptors(void)
{
	for (uint32_t i = 0; i < rs_nfds; i++) {
		struct rs_fd *f = &rs_fds[i];
		int nb = (f->flags & O_NONBLOCK) != 0;

		if (f->made || syscall(SYS_fcntl, f->fd, F_GETFD) >= 0)
			continue;
		switch (f->kind) {
		case RS_FD_EPOLL:
			rs_place(syscall(SYS_epoll_create1, EPOLL_CLOEXEC), f->fd);
			break;
		case RS_FD_EVENTFD:
			rs_place(syscall(SYS_eventfd2, 0, EFD_CLOEXEC | (nb ? EFD_NONBLOCK : 0)),
				 f->fd);
			break;
		case RS_FD_SOCKET:
			rs_place(syscall(SYS_socket, AF_UNIX,
					 SOCK_STREAM | SOCK_CLOEXEC | (nb ? SOCK_NONBLOCK : 0), 0),
				 f->fd);
			break;
		case RS_FD_PIPE:
			rs_pipe(f);
			break;
		default:
			rs_place(syscall(SYS_openat, AT_FDCWD, "/dev/null", O_RDWR | O_CLOEXEC),
				 f->fd);
		}
		f->made = 1;
		if (nb && f->kind == RS_FD_PIPE)
			syscall(SYS_fcntl, f->fd, F_SETFL, (long)(f->flags & O_NONBLOCK));
	}
	/* (errors ignored: an entry whose target is a /dev/null stand-in) */
	for (uint32_t i = 0; i < rs_neps; i++) {
		struct epoll_event ev = {.events = rs_eps[i].events, .data.u64 = rs_eps[i].data};

		syscall(SYS_epoll_ctl, rs_eps[i].epfd, EPOLL_CTL_ADD, rs_eps[i].tfd, &ev);
	}
}

static int rs_in_agent(uint64_t addr)
{
	return addr >= rs_self_lo && addr < rs_self_hi;
}

static void rs_signals(void)
{
	if (!rs_have_sa)
		return;
	for (int sig = 1; sig <= 64; sig++) {
		struct rr_snap_sigact cur;

		if (sig == SIGKILL || sig == SIGSTOP)
			continue;
		if (syscall(SYS_rt_sigaction, sig, NULL, &cur, 8) < 0)
			continue;
		/* a program's handler the agent wrapped: through the agent */
		{
			const struct rr_snap_sigact *k = &rs_sa[sig - 1];
			uint64_t w[4] = {k->handler, k->flags, k->restorer, k->mask};

			if (agent_rr_sig_restore(sig, w))
				continue;
		}
		/* the agent's own handlers are the replay's */
		if (rs_in_agent(cur.handler) || rs_in_agent(rs_sa[sig - 1].handler))
			continue;
		syscall(SYS_rt_sigaction, sig, &rs_sa[sig - 1], NULL, 8);
	}
}

/* ---- the body ---- */

static void rs_thread_rec(uint64_t off, uint64_t len)
{
	struct rr_snap_thread r;
	struct agent_snap_thread *t;

	if (len < sizeof(r))
		rs_fail("a damaged thread record");
	rs_read(off, &r, sizeof(r));
	if (r.id >= AGENT_SNAP_THREADS || r.ctx_bytes != sizeof(ucontext_t) ||
	    len - sizeof(r) < r.ctx_bytes)
		rs_fail("a damaged thread record");
	t = &rs_thr[r.id];
	rs_read(off + sizeof(r), &t->ctx, sizeof(t->ctx));
	/* (x86-64: its FPU state pointer named the recording's copy) */
	arch_snap_ctx_fixup(&t->ctx);
	t->fs = r.fs;
	t->robust = r.robust;
	t->robust_len = r.robust_len;
	t->tidp = (int32_t *)(uintptr_t)r.tidp;
	t->tid = r.tid;
	t->park = r.park;
	t->alt.ss_flags = SS_DISABLE;
	t->restore = 1;
	if (r.taker)
		rs_taker = r.id;
	if (r.id + 1 > rs_top)
		rs_top = r.id + 1;
	if (!r.tidp || !r.fs)
		rs_fail("a thread without its TLS or tid word");
}

/* The agent's own state (RR_SNAP_AGENT): its globals are the fresh
 * replay's, so what the snapshot's threads rely on is put back into them. */
static void rs_agent_rec(uint64_t off, uint64_t len)
{
	struct rr_snap_agent ag;

	if (len < sizeof(ag))
		rs_fail("a damaged agent record");
	rs_read(off, &ag, sizeof(ag));
	if (ag.what == RR_SNAP_AGENT_ALTSTACK) {
		struct rr_snap_altstack as;

		if (len - sizeof(ag) < sizeof(as))
			rs_fail("a damaged alternate signal stack record");
		rs_read(off + sizeof(ag), &as, sizeof(as));
		if (ag.id >= AGENT_SNAP_THREADS || !rs_thr[ag.id].restore)
			rs_fail("an alternate signal stack of no thread");
		/* set as the thread starts (agent_snap_thread_entry; the
		 * first thread's in rs_main) */
		rs_thr[ag.id].alt.ss_sp = (void *)(uintptr_t)as.sp;
		rs_thr[ag.id].alt.ss_size = (size_t)as.size;
		rs_thr[ag.id].alt.ss_flags = (int)(as.flags & ~(uint32_t)SS_DISABLE);
	} else if (ag.what == RR_SNAP_AGENT_BARRIER) {
		struct rr_snap_barrier b;

		if (len - sizeof(ag) < sizeof(b))
			rs_fail("a damaged barrier record");
		rs_read(off + sizeof(ag), &b, sizeof(b));
		if (agent_serial_barrier_put(&b) < 0)
			rs_fail("more emulated barriers than the agent holds");
	}
	/* (another kind of agent state: a later spool's, left out) */
}

static void rs_body(void)
{
	uint64_t off = 0;

	for (;;) {
		struct rr_snap_rec rec;
		uint64_t at;

		rs_read(off, &rec, sizeof(rec));
		off += sizeof(rec);
		if (rec.len > rs_size - off)
			rs_fail("a record runs past the snapshot's end");
		at = off;
		off += rec.len;
		switch (rec.kind) {
		case RR_SNAP_THREAD:
			rs_thread_rec(at, rec.len);
			break;
		case RR_SNAP_AGENT:
			rs_agent_rec(at, rec.len);
			break;
		case RR_SNAP_SIGACT:
			if (rec.len < sizeof(rs_sa))
				rs_fail("a damaged signal record");
			rs_read(at, rs_sa, sizeof(rs_sa));
			rs_have_sa = 1;
			break;
		case RR_SNAP_FD: {
			struct rr_snap_fd f;

			if (rec.len < sizeof(f))
				rs_fail("a damaged descriptor record");
			rs_read(at, &f, sizeof(f));
			if (rs_nfds < RS_FDS && f.fd >= 0) {
				struct rs_fd *r = &rs_fds[rs_nfds++];

				r->fd = f.fd;
				r->flags = f.flags < 0 ? O_RDWR : f.flags;
				r->made = 0;
				r->ino = 0;
				rs_fd_kind(r, at + sizeof(f), rec.len - sizeof(f));
			}
			break;
		}
		case RR_SNAP_TIMER: {
			struct rr_snap_timer t;

			if (rec.len < sizeof(t))
				rs_fail("a damaged timer record");
			rs_read(at, &t, sizeof(t));
			if (agent_snap_timers_put(&t) < 0)
				rs_fail("a damaged timer record, or more timers than a snapshot holds");
			break;
		}
		case RR_SNAP_EPOLL:
			if (rec.len < sizeof(*rs_eps))
				rs_fail("a damaged epoll record");
			if (rs_neps < RS_EPOLLS)
				rs_read(at, &rs_eps[rs_neps++], sizeof(*rs_eps));
			break;
		case RR_SNAP_REGION: {
			struct rr_snap_region r;
			char path[4097];

			if (rec.len < sizeof(r))
				rs_fail("a damaged region record");
			rs_read(at, &r, sizeof(r));
			if (r.path_len >= sizeof(path) || r.path_len > rec.len - sizeof(r) ||
			    (r.has_data && (r.end < r.start ||
					    r.end - r.start != rec.len - sizeof(r) - r.path_len)))
				rs_fail("a damaged region record");
			rs_read(at + sizeof(r), path, r.path_len);
			path[r.path_len] = 0;
			rs_region(&r, path, at + sizeof(r) + r.path_len);
			break;
		}
		case RR_SNAP_PAD: /* (the next region's data on a page boundary) */
			break;
		case RR_SNAP_END:
			return;
		default:
			rs_fail("an unknown record in the snapshot");
		}
	}
}

/* ---- the threads ---- */

/* A recorded tid's thread in the replay (its new tid), or 0: not in the
 * snapshot. */
static int32_t rs_tid_of(int32_t recorded)
{
	for (uint32_t id = 0; id < rs_top; id++)
		if (rs_thr[id].restore && rs_thr[id].tid == recorded)
			return rs_newtid[id];
	return 0;
}

static void rs_gate_wait(void)
{
	while (!__atomic_load_n(&rs_gate, __ATOMIC_ACQUIRE))
		syscall(SYS_futex, &rs_gate, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
}

/* In a recreated thread (not the first), on its own TLS. */
static void rs_thread_hook(struct agent_snap_thread *t)
{
	uint32_t id = (uint32_t)(t - rs_thr);
	/* Its ring is the recording's: it takes one of the replay's now (its
	 * calls are replayed only while it has one, agent_rr_io_enter). */
	uint8_t busy = agent_self.busy;

	memset(&agent_self.prod, 0, sizeof(agent_self.prod));
	agent_self.state = AGENT_T_NEW;
	agent_self.seq = 0;
	agent_self.busy = 0;
	agent_thread_register(&agent_self); /* AGENT_T_ON, as it was recorded */
	agent_self.busy = busy;
	if (agent_self.state != AGENT_T_ON)
		rs_fail("no ring for a recreated thread");
	{
		uint64_t t0 = rs_now_ns();

		if (agent_rr_restore_thread(id, id == rs_taker, t->park) < 0)
			rs_fail("a thread's log is shorter than its event count");
		agent_log("restore: thread %u found its log position in %lu us", id,
			  (unsigned long)((rs_now_ns() - t0) / 1000));
	}
	__atomic_add_fetch(&rs_ready, 1, __ATOMIC_RELEASE);
	syscall(SYS_futex, &rs_ready, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	rs_gate_wait();
	/* last: the restore's own calls above are the agent's */
	agent_rr_dispatch_restored_thread();
}

/* The first thread, on its recorded TLS (rs_main set the thread pointer:
 * a function of its own, so that no TLS address the compiler computed
 * before the switch is used after it), ends the restore and returns into
 * its recorded context. */
static void __attribute__((noinline, noreturn))
rs_main_resume(struct agent_snap_thread *t0, uint32_t spawned)
{
	uint8_t busy;

	/* now on thread 0's TLS, as recorded */
	*t0->tidp = (int32_t)syscall(SYS_gettid);
	syscall(SYS_set_tid_address, t0->tidp);
	syscall(SYS_set_robust_list, (void *)(uintptr_t)t0->robust, (size_t)t0->robust_len);
	if (!(t0->alt.ss_flags & SS_DISABLE)) {
		stack_t ss = t0->alt;

		ss.ss_flags &= SS_AUTODISARM;
		syscall(SYS_sigaltstack, &ss, NULL);
	}
	busy = agent_self.busy;
	agent_self = rs_main_self;
	agent_self.busy = busy;
	/* after the threads (a timer that signals one signals its new tid),
	 * on thread 0's TLS (the agent's log is libc's formatting) */
	agent_snap_timers_restore(rs_tid_of, rs_area->restore_timer_order != 0,
				  &rs_area->restore_timers, &rs_area->restore_timers_off);
	if (agent_rr_restore_thread(0, rs_taker == 0, t0->park) < 0)
		rs_fail("the first thread's log is shorter than its event count");
	/* every thread's replay state is set before any runs on: the restored
	 * replay is then the same at every turn whatever order the threads
	 * started in (spool replay --gdbserver numbers them from their
	 * slots as the token's first turn after the restore begins) */
	for (uint32_t r; (r = __atomic_load_n(&rs_ready, __ATOMIC_ACQUIRE)) < spawned;)
		syscall(SYS_futex, &rs_ready, FUTEX_WAIT_PRIVATE, r, NULL, NULL, 0);
	rs_t[RS_T_READY] = rs_now_ns();
	rs_c[RS_T_READY] = rs_cpu_ns();
	rs_area->restore_ns = rs_t[RS_T_READY] - rs_t0;
	rs_area->restore_done = 1;
	agent_log("restore: %lu us (%lu us of CPU in the first thread): maps %lu, body %lu "
		  "(contents: %lu us, %lu KiB read of %lu KiB; %lu read-only library pages put "
		  "back), descriptors and signals %lu, "
		  "threads %lu, timers and their replay state %lu",
		  (unsigned long)(rs_area->restore_ns / 1000),
		  (unsigned long)((rs_clock_ns(CLOCK_THREAD_CPUTIME_ID) - rs_cpu0) / 1000),
		  (unsigned long)((rs_t[RS_T_MAPS] - rs_t0) / 1000),
		  (unsigned long)((rs_t[RS_T_BODY] - rs_t[RS_T_MAPS]) / 1000),
		  (unsigned long)(rs_data_ns / 1000), (unsigned long)(rs_data_bytes >> 10),
		  (unsigned long)(rs_mapped_bytes >> 10), (unsigned long)rs_relro_pages,
		  (unsigned long)((rs_t[RS_T_FDS] - rs_t[RS_T_BODY]) / 1000),
		  (unsigned long)((rs_t[RS_T_SPAWN] - rs_t[RS_T_FDS]) / 1000),
		  (unsigned long)((rs_t[RS_T_READY] - rs_t[RS_T_SPAWN]) / 1000));
	agent_log("restore, CPU of the first thread: %lu us: maps %lu, body %lu (contents %lu: "
		  "%lu stretches of data found in %lu, copied in %lu, %lu KiB by UFFDIO_COPY, its last refusal errno %lu, "
		  "%lu pages of its own TLS read first), "
		  "descriptors and signals %lu, threads %lu, timers and replay state %lu",
		  (unsigned long)((rs_c[RS_T_READY] - rs_cpu0) / 1000),
		  (unsigned long)((rs_c[RS_T_MAPS] - rs_cpu0) / 1000),
		  (unsigned long)((rs_c[RS_T_BODY] - rs_c[RS_T_MAPS]) / 1000),
		  (unsigned long)(rs_data_cpu / 1000), (unsigned long)rs_stretches,
		  (unsigned long)(rs_seek_cpu / 1000), (unsigned long)(rs_copy_cpu / 1000),
		  (unsigned long)(rs_uf_bytes >> 10), (unsigned long)rs_uf_why,
		  (unsigned long)rs_tls_pages,
		  (unsigned long)((rs_c[RS_T_FDS] - rs_c[RS_T_BODY]) / 1000),
		  (unsigned long)((rs_c[RS_T_SPAWN] - rs_c[RS_T_FDS]) / 1000),
		  (unsigned long)((rs_c[RS_T_READY] - rs_c[RS_T_SPAWN]) / 1000));
	RS_SUD(1); /* BLOCK: the program's own system calls are seen again */
	__atomic_store_n(&rs_gate, 1, __ATOMIC_RELEASE);
	syscall(SYS_futex, &rs_gate, FUTEX_WAKE_PRIVATE, INT32_MAX, NULL, NULL, 0);
	setcontext(&t0->ctx);
	rs_fail("cannot return into the first thread's context");
}

static void __attribute__((noreturn)) rs_main(void)
{
	struct agent_snap_thread *t0 = &rs_thr[0];
	uint32_t n, spawned = 0;

	rs_body();
	agent_snap_fill_close();
	rs_t[RS_T_BODY] = rs_now_ns();
	rs_c[RS_T_BODY] = rs_cpu_ns();
	RS_SUD(0); /* ALLOW: the TLS was the recording's */
	if (!t0->restore)
		rs_fail("the snapshot has no first thread");
	if (rs_taker == UINT32_MAX)
		rs_fail("the snapshot has no taker");
	/* (closed first: the program may have had a descriptor of that number) */
	syscall(SYS_close, rs_fd);
	rs_descriptors();
	rs_signals();
	rs_t[RS_T_FDS] = rs_now_ns();
	rs_c[RS_T_FDS] = rs_cpu_ns();
	n = agent_serial_restore_numbers(rs_area->restore_turn, rs_top);
	agent_rr_restore_ended(n);
	if (agent_serial_restore_area(rs_area->restore_turn, n, rs_taker) < 0)
		rs_fail("the schedule does not give the snapshot's turn to the thread that took it");
	for (uint32_t id = 1; id < rs_top; id++) {
		long tid;

		if (!rs_thr[id].restore)
			continue;
		tid = agent_snap_spawn(&rs_thr[id], rs_thread_hook);
		if (tid < 0)
			rs_fail("cannot recreate a thread");
		rs_newtid[id] = (int32_t)tid;
		spawned++;
	}
	rs_newtid[0] = (int32_t)syscall(SYS_gettid);
	rs_t[RS_T_SPAWN] = rs_now_ns();
	rs_c[RS_T_SPAWN] = rs_cpu_ns();
	if (arch_snap_set_tp(t0->fs) < 0)
		rs_fail("cannot set the first thread's thread pointer");
	rs_main_resume(t0, spawned);
}

void agent_snap_restore_start(void)
{
	struct rr_area *a = agent_rr_area();
	sigset_t all;
	void *stack;

	if (!a || a->mode != RR_MODE_REPLAY || !a->restore_size ||
	    agent_serial_on != RR_MODE_REPLAY)
		return;
	rs_t0 = rs_now_ns();
	rs_cpu0 = rs_cpu_ns();
	rs_area = a;
	agent_snap_timers_reset();
	rs_fd = a->restore_fd;
	rs_size = a->restore_size;
	dl_iterate_phdr(rs_phdr_cb, (void *)(uintptr_t)agent_snap_restore_start);
	if (!rs_self_hi)
		rs_fail("the agent cannot find its own mappings");
	rs_thr = agent_vm_map(AGENT_SNAP_THREADS * sizeof(*rs_thr), PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	rs_fds = agent_vm_map(RS_FDS * sizeof(*rs_fds), PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	rs_eps = agent_vm_map(RS_EPOLLS * sizeof(*rs_eps), PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	stack = agent_vm_map(RS_STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (rs_thr == MAP_FAILED || rs_fds == MAP_FAILED || rs_eps == MAP_FAILED ||
	    stack == MAP_FAILED ||
	    !rs_agent_range((uint64_t)(uintptr_t)rs_thr, (uint64_t)(uintptr_t)rs_thr + 1) ||
	    !rs_agent_range((uint64_t)(uintptr_t)stack, (uint64_t)(uintptr_t)stack + 1))
		rs_fail("no room in the agent's window");
	rs_read_maps();
	rs_tls_span();
	/* (on a failure, rs_copy copies the old way) */
	{
		int e = agent_snap_fill_open(rs_fd, rs_size, rs_agent_range);

		if (e)
			rs_uf_why = (uint64_t)-e;
	}
	rs_t[RS_T_MAPS] = rs_now_ns();
	rs_c[RS_T_MAPS] = rs_cpu_ns();
	if (agent_self.state == AGENT_T_NEW)
		agent_thread_register(&agent_self);
	rs_main_self = agent_self;
	sigfillset(&all);
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &all, NULL, 8);
	getcontext(&rs_uc);
	rs_uc.uc_stack.ss_sp = stack;
	rs_uc.uc_stack.ss_size = RS_STACK;
	rs_uc.uc_link = NULL;
	makecontext(&rs_uc, rs_main, 0);
	setcontext(&rs_uc);
	rs_fail("cannot switch to the loader's stack");
}
