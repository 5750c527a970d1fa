// SPDX-License-Identifier: MIT
/*
 * agent_sys.c - the system probes of spool probe: sys:io counts the calls
 * and bytes of the read and write families per thread and kind of
 * descriptor; sys:cpu stores each thread's CPU time when it ends, and, at
 * process exit, that of the threads still running. sys:mem's allocator
 * counters are in agent_sys_mem.c.
 *
 * Counters live in the SHM_EXT_SYS area (src/common/sys_area.h), one slot
 * per thread index, written only by the owning thread: an I/O call costs one
 * TLS load and two adds to memory of its own, no event, no system call
 * (spool's sampler and final read see them). The kind of a descriptor (file,
 * pipe, socket, tty, other) is found with one fstat the first time a
 * descriptor number is seen and cached per process; close() through the
 * dynamic symbol forgets it. Closes the agent cannot see (stdio's fclose
 * calls glibc's internal close) may leave a reused number with the old kind.
 *
 * The write family is interposed here (write, writev, pwrite, pwritev,
 * send, sendto, sendmsg; write and writev call record/replay's hooks of
 * agent_rr_block.c); the read family by agent_rr_io.c, which calls
 * AGENT_SYS_IO on its pass-through path. Like every
 * interposer, these see calls made through the dynamic symbols only:
 * stdio's writes (printf, fwrite) go through glibc's internal __write and
 * are not counted (doc/probe.md).
 */
#include <dlfcn.h>
#include <errno.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "agent_rr.h"
#include "agent_sys.h"

int agent_sys_io_on;
int agent_sys_cpu_on;
static void *agent_sys_area;

#define AGENT_SYS_FDS 4096
/* 0 = not known yet, else SYS_FD_* + 1. Racy by design: two threads that
 * classify the same fd at once store the same value. */
static uint8_t agent_sys_fdkind[AGENT_SYS_FDS];

static ssize_t fb_write(int fd, const void *b, size_t n) { return syscall(SYS_write, fd, b, n); }
static ssize_t fb_writev(int fd, const struct iovec *v, int n) { return syscall(SYS_writev, fd, v, n); }
static ssize_t fb_pwrite(int fd, const void *b, size_t n, off_t o)
{
	return syscall(SYS_pwrite64, fd, b, n, o);
}
static ssize_t fb_pwritev(int fd, const struct iovec *v, int n, off_t o)
{
	return syscall(SYS_pwritev, fd, v, n, o, 0);
}
static ssize_t fb_send(int fd, const void *b, size_t n, int f)
{
	return syscall(SYS_sendto, fd, b, n, f, NULL, 0);
}
static ssize_t fb_sendto(int fd, const void *b, size_t n, int f, const struct sockaddr *a,
			 socklen_t l)
{
	return syscall(SYS_sendto, fd, b, n, f, a, l);
}
static ssize_t fb_sendmsg(int fd, const struct msghdr *m, int f)
{
	return syscall(SYS_sendmsg, fd, m, f);
}
static int fb_close(int fd) { return (int)syscall(SYS_close, fd); }
static int fb_close_range(unsigned lo, unsigned hi, int flags)
{
	return (int)syscall(SYS_close_range, lo, hi, flags);
}

static ssize_t (*real_write)(int, const void *, size_t) = fb_write;
static ssize_t (*real_writev)(int, const struct iovec *, int) = fb_writev;
static ssize_t (*real_pwrite)(int, const void *, size_t, off_t) = fb_pwrite;
static ssize_t (*real_pwritev)(int, const struct iovec *, int, off_t) = fb_pwritev;
static ssize_t (*real_send)(int, const void *, size_t, int) = fb_send;
static ssize_t (*real_sendto)(int, const void *, size_t, int, const struct sockaddr *,
			      socklen_t) = fb_sendto;
static ssize_t (*real_sendmsg)(int, const struct msghdr *, int) = fb_sendmsg;
static int (*real_close)(int) = fb_close;
static int (*real_close_range)(unsigned, unsigned, int) = fb_close_range;

/* Until this ran (another library's constructor writing early) the
 * fallbacks make the raw system call. */
__attribute__((constructor)) static void agent_sys_resolve(void)
{
	int saved;

	/* busy first: reading errno calls __errno_location, which a func:
	 * probe of libc may have patched (the agent's own call, not the
	 * program's) */
	agent_self.busy++;
	saved = errno;
	AGENT_RESOLVE(real_write, "write");
	AGENT_RESOLVE(real_writev, "writev");
	AGENT_RESOLVE(real_pwrite, "pwrite64");
	AGENT_RESOLVE(real_pwritev, "pwritev64");
	AGENT_RESOLVE(real_send, "send");
	AGENT_RESOLVE(real_sendto, "sendto");
	AGENT_RESOLVE(real_sendmsg, "sendmsg");
	AGENT_RESOLVE(real_close, "close");
	AGENT_RESOLVE(real_close_range, "close_range");
	errno = saved;
	agent_self.busy--;
}

/* Called by the constructor once the agent is active (and in nothing else:
 * a fork child keeps the parent's settings and mapping). Always tells
 * agent_sys_mem.c whether to count allocations. */
void agent_sys_init(void)
{
	struct shm_ctl *c = agent.ctl;
	struct sys_area_hdr *h;
	uint64_t size;

	if (!c || !(c->features & SHM_FEAT_SYS))
		goto out_nomem;
	h = agent_ext(SHM_EXT_SYS, &size);
	if (!h || size < sizeof(*h))
		goto out_nomem;
	if (h->magic != SYS_AREA_MAGIC || h->slot_size < sizeof(struct sys_slot) ||
	    h->slots_off + (uint64_t)h->nslots * h->slot_size > size) {
		agent_log("sys area malformed: system probes off");
		goto out_nomem;
	}
	agent_sys_area = h;
	agent_sys_cpu_on = !!(h->what & SYS_W_CPU);
	__atomic_store_n(&agent_sys_io_on, !!(h->what & SYS_W_IO), __ATOMIC_RELEASE);
	agent_sys_mem_start(!!(h->what & SYS_W_MEM));
	return;
out_nomem:
	agent_sys_mem_start(0);
}

int agent_sys_live(unsigned what)
{
	struct sys_area_hdr *h = agent_sys_area;

	if (!h)
		return -ENODEV;
	/* (spool's own copy of what: this one is the program's to scribble on) */
	__atomic_store_n(&agent_sys_io_on, !!(what & SYS_W_IO), __ATOMIC_RELEASE);
	agent_sys_mem_switch(!!(what & SYS_W_MEM));
	return 0;
}

/* The calling thread's slot, registering it on first use; NULL when it
 * has no ring or is inside the agent (its own writes are not counted). */
struct sys_slot *agent_sys_self_slot(void)
{
	struct agent_thread *t = agent_enter();
	const struct sys_area_hdr *h = agent_sys_area;

	if (!t || !h || t->index >= h->nslots)
		return NULL;
	return sys_area_slot(agent_sys_area, t->index);
}

static unsigned agent_sys_classify(int fd)
{
	struct stat st;
	unsigned k;

	if (syscall(SYS_fstat, fd, &st) < 0)
		return SYS_FD_OTHER;
	if (S_ISREG(st.st_mode) || S_ISBLK(st.st_mode))
		k = SYS_FD_FILE;
	else if (S_ISFIFO(st.st_mode))
		k = SYS_FD_PIPE;
	else if (S_ISSOCK(st.st_mode))
		k = SYS_FD_SOCKET;
	else if (S_ISCHR(st.st_mode))
		k = SYS_FD_TTY; /* terminals, /dev/null and other character devices */
	else
		k = SYS_FD_OTHER;
	return k;
}

static inline void agent_sys_add(uint64_t *p, uint64_t v)
{
	/* Single writer: a plain load and store, no lock prefix. */
	__atomic_store_n(p, __atomic_load_n(p, __ATOMIC_RELAXED) + v, __ATOMIC_RELAXED);
}

void agent_sys_io_count(unsigned dir, int fd, ssize_t r)
{
	struct sys_slot *s;
	unsigned k;
	int saved = errno;

	s = agent_sys_self_slot();
	if (!s || dir >= SYS_IO_DIRS)
		goto out;
	if (fd >= 0 && fd < AGENT_SYS_FDS) {
		k = __atomic_load_n(&agent_sys_fdkind[fd], __ATOMIC_RELAXED);
		if (AGENT_UNLIKELY(!k)) {
			k = agent_sys_classify(fd) + 1;
			__atomic_store_n(&agent_sys_fdkind[fd], (uint8_t)k, __ATOMIC_RELAXED);
		}
		k--;
	} else {
		k = fd < 0 ? SYS_FD_OTHER : agent_sys_classify(fd);
	}
	agent_sys_add(&s->io_calls[dir][k], 1);
	if (r > 0)
		agent_sys_add(&s->io_bytes[dir][k], (uint64_t)r);
	else if (r < 0)
		agent_sys_add(&s->io_errors[dir], 1);
out:
	errno = saved;
}

static uint64_t agent_sys_cpu_of(clockid_t clk)
{
	struct timespec ts;

	/* The system call, not the (interposed, maybe replayed) symbol. */
	if (syscall(SYS_clock_gettime, clk, &ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * A slot belongs to a ring, and a ring serves one thread after another
 * (agent_thread.c): its counters sum the ring's threads. cpu_ns is the CPU
 * time of those that ended (each adds its own at its end), cpu_final says
 * that the ring's current thread has ended too; a new thread clears it so
 * that spool samples it and the process's end adds it.
 */
void agent_sys_thread_start(struct agent_thread *t)
{
	const struct sys_area_hdr *h = agent_sys_area;

	if (!h || t->index >= h->nslots)
		return;
	__atomic_store_n(&sys_area_slot(agent_sys_area, t->index)->pid, agent.seen_pid,
			 __ATOMIC_RELAXED);
	__atomic_store_n(&sys_area_slot(agent_sys_area, t->index)->cpu_final, 0, __ATOMIC_RELEASE);
}

/* From agent_thread_exit, on the thread itself, still AGENT_T_ON. */
void agent_sys_thread_end(struct agent_thread *t)
{
	const struct sys_area_hdr *h = agent_sys_area;
	struct sys_slot *s;
	int saved = errno;

	if (!h || t->index >= h->nslots)
		return;
	s = sys_area_slot(agent_sys_area, t->index);
	__atomic_store_n(&s->cpu_ns,
			 __atomic_load_n(&s->cpu_ns, __ATOMIC_RELAXED) +
			     agent_sys_cpu_of(CLOCK_THREAD_CPUTIME_ID),
			 __ATOMIC_RELAXED);
	__atomic_store_n(&s->cpu_final, 1, __ATOMIC_RELEASE);
	errno = saved;
}

/*
 * From the agent's destructor (exit() in this process): the threads of
 * this process that have not ended get their CPU time now, read through
 * their thread CPU clock (the kernel's MAKE_THREAD_CPUCLOCK(tid, SCHED):
 * allowed for threads of the caller's own process). exit_group will end
 * them within microseconds, so this is their final figure.
 */
void agent_sys_proc_end(void)
{
	const struct sys_area_hdr *h = agent_sys_area;
	struct shm_ctl *c = agent.ctl;
	uint32_t n;

	if (!h || !agent_sys_cpu_on || !c)
		return;
	n = __atomic_load_n(&c->nrings, __ATOMIC_ACQUIRE);
	if (n > h->nslots)
		n = h->nslots;
	if (n > agent.max_rings)
		n = agent.max_rings;
	for (uint32_t i = 0; i < n; i++) {
		struct shm_ring *r = agent_ring_mapped(i); /* this process's threads' only */
		struct sys_slot *s = sys_area_slot(agent_sys_area, i);
		clockid_t clk;

		/* (r->tid is spool's: in a pid namespace of its own no clock
		 * here names that thread) */
		if (!r || agent.pidns || __atomic_load_n(&r->state, __ATOMIC_ACQUIRE) != RING_ACTIVE ||
		    r->pid != agent.seen_pid || !r->tid ||
		    __atomic_load_n(&s->cpu_final, __ATOMIC_ACQUIRE))
			continue;
		clk = (clockid_t)((~(clockid_t)r->tid << 3) | 6);
		__atomic_store_n(&s->cpu_ns,
				 __atomic_load_n(&s->cpu_ns, __ATOMIC_RELAXED) +
				     agent_sys_cpu_of(clk),
				 __ATOMIC_RELAXED);
		__atomic_store_n(&s->cpu_final, 1, __ATOMIC_RELEASE);
	}
}

/* ---- the write family ---- */

/* Record/replay's weak write and writev (agent_rr_block.c) give way to
 * these; its hooks still record or replay the call. */
AGENT_EXPORT ssize_t write(int fd, const void *buf, size_t n)
{
	return AGENT_SYS_IO(SYS_IO_WRITE, fd, agent_rr_write(fd, buf, n, real_write));
}

AGENT_EXPORT ssize_t writev(int fd, const struct iovec *iov, int cnt)
{
	return AGENT_SYS_IO(SYS_IO_WRITE, fd, agent_rr_writev(fd, iov, cnt, real_writev));
}

AGENT_EXPORT ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off)
{
	return AGENT_SYS_IO(SYS_IO_WRITE, fd, real_pwrite(fd, buf, n, off));
}

AGENT_EXPORT ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	return pwrite64(fd, buf, n, off);
}

AGENT_EXPORT ssize_t pwritev64(int fd, const struct iovec *iov, int cnt, off_t off)
{
	return AGENT_SYS_IO(SYS_IO_WRITE, fd, real_pwritev(fd, iov, cnt, off));
}

AGENT_EXPORT ssize_t pwritev(int fd, const struct iovec *iov, int cnt, off_t off)
{
	return pwritev64(fd, iov, cnt, off);
}

AGENT_EXPORT ssize_t send(int fd, const void *buf, size_t n, int flags)
{
	return AGENT_SYS_IO(SYS_IO_WRITE, fd, agent_rr_send(fd, buf, n, flags, real_send));
}

AGENT_EXPORT ssize_t sendto(int fd, const void *buf, size_t n, int flags,
			    const struct sockaddr *addr, socklen_t alen)
{
	return AGENT_SYS_IO(SYS_IO_WRITE, fd,
			    agent_rr_sendto(fd, buf, n, flags, addr, alen, real_sendto));
}

AGENT_EXPORT ssize_t sendmsg(int fd, const struct msghdr *m, int flags)
{
	return AGENT_SYS_IO(SYS_IO_WRITE, fd, agent_rr_sendmsg(fd, m, flags, real_sendmsg));
}

/* A closed number may come back as another kind of descriptor. Closing
 * spool's shared region is a no-op that succeeds: a program that closes
 * every descriptor before it execs (daemons do) keeps it, so the image it
 * execs is traced (tests/integ/104-exec-after-close.t). */
AGENT_EXPORT int close(int fd)
{
	uint32_t on;
	int rc;

	if (fd >= 0 && fd == agent_shm_fd)
		return 0;
	if (fd >= 0 && fd < AGENT_SYS_FDS)
		__atomic_store_n(&agent_sys_fdkind[fd], 0, __ATOMIC_RELAXED);
	/* sync record/replay: a close takes its turn of the descriptor table */
	on = AGENT_UNLIKELY(agent_rr_mode) ? agent_rr_fdtab_enter(RR_FD_CLOSE) : 0;
	/* a peer's end of file or hang-up is a wake-up (agent_rr.c, RR_CALL_WAKE) */
	if (on)
		agent_rr_wake_write();
	rc = real_close(fd);
	return on ? agent_rr_fdtab_leave(rc, &fd) : rc;
}

/* The same for a range: the ranges on both sides of the region's
 * descriptor (CLOSE_RANGE_CLOEXEC included: it must stay open across exec). */
static int sys_close_range(unsigned lo, unsigned hi, int flags)
{
	unsigned keep = (unsigned)agent_shm_fd;
	int rc = 0;

	for (unsigned fd = lo; fd < AGENT_SYS_FDS && fd <= hi; fd++)
		__atomic_store_n(&agent_sys_fdkind[fd], 0, __ATOMIC_RELAXED);
	if (agent_shm_fd < 0 || keep < lo || keep > hi || lo > hi)
		return real_close_range(lo, hi, flags);
	if (keep > lo)
		rc = real_close_range(lo, keep - 1, flags);
	if (!rc && keep < hi)
		rc = real_close_range(keep + 1, hi, flags);
	return rc;
}

AGENT_EXPORT int close_range(unsigned lo, unsigned hi, int flags)
{
	/* CLOSE_RANGE_CLOEXEC frees nothing: not ordered */
	uint32_t on = AGENT_UNLIKELY(agent_rr_mode) && !(flags & CLOSE_RANGE_CLOEXEC)
			  ? agent_rr_fdtab_enter(RR_FD_CLOSE_RANGE)
			  : 0;
	int rc, first = (int)lo;

	if (on)
		agent_rr_wake_write();
	rc = sys_close_range(lo, hi, flags);

	return on ? agent_rr_fdtab_leave(rc, &first) : rc;
}

AGENT_EXPORT void closefrom(int lo)
{
	/* glibc's closefrom is close_range(lo, ~0U, 0) with a fallback that
	 * closes what /proc/self/fd lists; the kernels spool runs on have
	 * close_range (5.9) */
	close_range(lo < 0 ? 0 : (unsigned)lo, ~0U, 0);
}
