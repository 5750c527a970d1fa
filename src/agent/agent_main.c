// SPDX-License-Identifier: MIT
/*
 * agent_main.c - startup and shutdown of libspool-agent.so: finding the
 * shared memory spool passed in SPOOL_SHM_FD, resolving the real functions,
 * claiming this process's slot (after exec and fork too), refreshing the
 * process's maps after dlopen and at exit, signal-safe debug logging, and
 * disabling itself when something is wrong.
 *
 * The environment is read only here, once, in the constructor. When the
 * variable is missing or the region does not look like ours the agent stays
 * inert: every interposer just calls the real function.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "agent_rr.h"
#include "agent_rr_cpuid.h"
#include "agent_rr_dispatch.h"
#include "agent_snap.h"
#include "agent_probe.h"
#include "agent_sys.h"

struct agent_state agent = {.proc_slot = UINT32_MAX, .fd = -1};
struct agent_real agent_real;

/* One writer of a process's maps at a time; a refresh that finds another in
 * progress is skipped (the exit refresh catches what it missed). */
static int agent_maps_busy;
/* Where this process's maps text starts in its text area. */
static uint64_t agent_maps_off;
/* This image's executable (not in the program's heap or stack). */
static char agent_exe[SHM_PROC_EXE];

const char *agent_exe_path(void)
{
	return agent_exe;
}
static uint32_t agent_exe_len;

/* ---- signal-safe logging ---- */

static size_t agent_fmt_num(char *out, uint64_t v, unsigned base, int neg)
{
	char tmp[24];
	size_t n = 0, i = 0;

	do {
		tmp[n++] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	if (neg)
		out[i++] = '-';
	while (n)
		out[i++] = tmp[--n];
	return i;
}

/*
 * printf subset: %s %d %u %x %p and the l forms, formatted into a stack
 * buffer and written with one write(2): usable from signal handlers and
 * before anything else in the process is initialized.
 */
static void agent_vlog(const char *fmt, va_list ap)
{
	char buf[512];
	size_t n = 0;
	int saved = errno;

	memcpy(buf, "spool-agent: ", 13);
	n = 13;
	for (; *fmt && n < sizeof(buf) - 32; fmt++) {
		int lng = 0;

		if (*fmt != '%') {
			buf[n++] = *fmt;
			continue;
		}
		fmt++;
		while (*fmt == 'l') {
			lng = 1;
			fmt++;
		}
		switch (*fmt) {
		case 's': {
			const char *s = va_arg(ap, const char *);

			if (!s)
				s = "(null)";
			while (*s && n < sizeof(buf) - 32)
				buf[n++] = *s++;
			break;
		}
		case 'd': {
			int64_t v = lng ? va_arg(ap, long) : va_arg(ap, int);

			n += agent_fmt_num(buf + n, v < 0 ? -(uint64_t)v : (uint64_t)v, 10, v < 0);
			break;
		}
		case 'u':
			n += agent_fmt_num(buf + n, lng ? va_arg(ap, unsigned long) : va_arg(ap, unsigned),
					   10, 0);
			break;
		case 'x':
			n += agent_fmt_num(buf + n, lng ? va_arg(ap, unsigned long) : va_arg(ap, unsigned),
					   16, 0);
			break;
		case 'p':
			buf[n++] = '0';
			buf[n++] = 'x';
			n += agent_fmt_num(buf + n, (uintptr_t)va_arg(ap, void *), 16, 0);
			break;
		case '%':
			buf[n++] = '%';
			break;
		default:
			if (!*fmt)
				fmt--;
			break;
		}
	}
	buf[n++] = '\n';
	/* syscall(), not write(): the agent's write is the recording's
	 * interposer, and a debug line written through it was a write of the
	 * program in a recording that its replay (logging other lines, or
	 * none) did not make: a divergence (bench/snap.sh's --goto) */
	while (syscall(SYS_write, 2, buf, n) < 0 && errno == EINTR)
		;
	errno = saved;
}

void agent_log(const char *fmt, ...)
{
	va_list ap;

	if (!agent.debug)
		return;
	va_start(ap, fmt);
	agent_vlog(fmt, ap);
	va_end(ap);
}

/* ---- real functions ---- */

static void *agent_sym(const char *name, const char *version)
{
	void *p = NULL;

	if (version)
		p = dlvsym(RTLD_NEXT, name, version);
	if (!p)
		p = dlsym(RTLD_NEXT, name);
	return p;
}

#define AGENT_SET(field, name, version)                                                            \
	__atomic_store_n((void **)&agent_real.field, agent_sym(name, version), __ATOMIC_RELAXED)

/*
 * Fill agent_real. Idempotent and thread-safe (concurrent callers store the
 * same values). dlsym may allocate, and an allocator or another library may
 * call back into an interposer: the per-thread resolving flag makes that
 * nested call see a NULL pointer and use its fallback instead of recursing.
 */
void agent_resolve(void)
{
	struct agent_thread *t = &agent_self;
	int saved = errno;

	if (t->resolving)
		return;
	t->resolving = 1;
	t->busy++;
	/* The lock functions first: they are what a bootstrap recursion needs. */
	AGENT_SET(mutex_lock, "pthread_mutex_lock", NULL);
	AGENT_SET(mutex_unlock, "pthread_mutex_unlock", NULL);
	AGENT_SET(mutex_trylock, "pthread_mutex_trylock", NULL);
	AGENT_SET(mutex_timedlock, "pthread_mutex_timedlock", NULL);
	AGENT_SET(mutex_clocklock, "pthread_mutex_clocklock", NULL);
	AGENT_SET(mutex_init, "pthread_mutex_init", NULL);
	AGENT_SET(mutex_destroy, "pthread_mutex_destroy", NULL);
	AGENT_SET(rwlock_rdlock, "pthread_rwlock_rdlock", NULL);
	AGENT_SET(rwlock_wrlock, "pthread_rwlock_wrlock", NULL);
	AGENT_SET(rwlock_tryrdlock, "pthread_rwlock_tryrdlock", NULL);
	AGENT_SET(rwlock_trywrlock, "pthread_rwlock_trywrlock", NULL);
	AGENT_SET(rwlock_timedrdlock, "pthread_rwlock_timedrdlock", NULL);
	AGENT_SET(rwlock_timedwrlock, "pthread_rwlock_timedwrlock", NULL);
	AGENT_SET(rwlock_clockrdlock, "pthread_rwlock_clockrdlock", NULL);
	AGENT_SET(rwlock_clockwrlock, "pthread_rwlock_clockwrlock", NULL);
	AGENT_SET(rwlock_unlock, "pthread_rwlock_unlock", NULL);
	AGENT_SET(rwlock_init, "pthread_rwlock_init", NULL);
	AGENT_SET(rwlock_destroy, "pthread_rwlock_destroy", NULL);
	AGENT_SET(spin_lock, "pthread_spin_lock", NULL);
	AGENT_SET(spin_trylock, "pthread_spin_trylock", NULL);
	AGENT_SET(spin_unlock, "pthread_spin_unlock", NULL);
	AGENT_SET(spin_init, "pthread_spin_init", NULL);
	AGENT_SET(spin_destroy, "pthread_spin_destroy", NULL);
	AGENT_SET(sem_wait, "sem_wait", NULL);
	AGENT_SET(sem_trywait, "sem_trywait", NULL);
	AGENT_SET(sem_timedwait, "sem_timedwait", NULL);
	AGENT_SET(sem_clockwait, "sem_clockwait", NULL);
	AGENT_SET(sem_post, "sem_post", NULL);
	AGENT_SET(sem_init, "sem_init", NULL);
	AGENT_SET(sem_destroy, "sem_destroy", NULL);
	/* glibc keeps the pre-2.3.2 condition variables as the unversioned
	 * fallback; the default version is what programs link against. */
	AGENT_SET(cond_wait, "pthread_cond_wait", "GLIBC_2.3.2");
	AGENT_SET(cond_timedwait, "pthread_cond_timedwait", "GLIBC_2.3.2");
	AGENT_SET(cond_clockwait, "pthread_cond_clockwait", NULL);
	AGENT_SET(cond_signal, "pthread_cond_signal", "GLIBC_2.3.2");
	AGENT_SET(cond_broadcast, "pthread_cond_broadcast", "GLIBC_2.3.2");
	AGENT_SET(cond_init, "pthread_cond_init", "GLIBC_2.3.2");
	AGENT_SET(cond_destroy, "pthread_cond_destroy", "GLIBC_2.3.2");
	AGENT_SET(barrier_wait, "pthread_barrier_wait", NULL);
	AGENT_SET(barrier_init, "pthread_barrier_init", NULL);
	AGENT_SET(barrier_destroy, "pthread_barrier_destroy", NULL);
	AGENT_SET(create, "pthread_create", NULL);
	AGENT_SET(join, "pthread_join", NULL);
	AGENT_SET(exit, "pthread_exit", NULL);
	AGENT_SET(dlopen, "dlopen", NULL);
	AGENT_SET(uexit, "_exit", NULL);
	agent_probe_ra_resolve();
	t->busy--;
	t->resolving = 0;
	errno = saved;
}

/* ---- disabling ---- */

/* Stop recording and say why, once for the whole trace: the first process
 * to set SHM_STATE_DISABLED writes ctl->reason. */
void agent_disable(const char *why)
{
	struct shm_ctl *c = agent.ctl;
	uint32_t old;

	agent.active = 0;
	agent_log("disabled: %s", why);
	if (!c)
		return;
	old = __atomic_fetch_or(&c->state, SHM_STATE_DISABLED, __ATOMIC_ACQ_REL);
	if (!(old & SHM_STATE_DISABLED)) {
		size_t n = strnlen(why, sizeof(c->reason) - 1);

		memcpy(c->reason, why, n);
		c->reason[n] = 0;
	}
}

/* ---- spool gone ---- */

int agent_gone;

/*
 * Nothing but spool frees room in a ring or, in record and replay, wakes a
 * thread parked for good; a spool killed (SIGKILL, OOM) left every such
 * wait to run on forever. So every wait asks here once a round. In launch
 * mode spool is our parent: the kernel reparents us the moment it exits
 * (before it is even reaped), so getppid() differing from its pid is
 * exact, as long as we are that process (a child made by fork, vfork or a
 * raw clone shares agent's state but not its parent). Anywhere else (a
 * child, attach mode) kill(pid, 0): ESRCH once spool is reaped. Raw system
 * calls: kill may be interposed, getpid cached.
 */
/*
 * In a pid namespace of its own (agent.pidns) spool's pid names nothing, or
 * another process (kill said ESRCH: the first wait of a recorded or
 * replayed process there ended its recording, spool "gone"). Its /proc is
 * spool's side's (agent_seen_pid_set), where /proc/<spool's pid> is there
 * until spool is reaped; a namespace with a /proc of its own cannot tell
 * (and records nothing): never gone.
 */
static int agent_host_gone_pidns(void)
{
	char path[24] = "/proc/";
	uint32_t v = agent.host_pid, d = 1;
	size_t i = 6;

	if (!agent.seen_pid)
		return 0;
	while (v / d >= 10)
		d *= 10;
	for (; d; d /= 10)
		path[i++] = (char)('0' + v / d % 10);
	path[i] = 0;
	return syscall(SYS_faccessat, AT_FDCWD, path, F_OK) < 0 && errno == ENOENT;
}

int agent_host_gone(void)
{
	int saved, gone;

	if (__atomic_load_n(&agent_gone, __ATOMIC_ACQUIRE))
		return 1;
	if (!agent.host_pid)
		return 0;
	saved = errno;
	if (agent.host_child && (uint32_t)syscall(SYS_getpid) == agent.host_child)
		gone = (uint32_t)syscall(SYS_getppid) != agent.host_pid;
	else if (agent.pidns)
		gone = agent_host_gone_pidns();
	else
		gone = syscall(SYS_kill, (pid_t)agent.host_pid, 0) < 0 && errno == ESRCH;
	errno = saved;
	if (!gone)
		return 0;
	if (!__atomic_exchange_n(&agent_gone, 1, __ATOMIC_ACQ_REL)) {
		int dbg = agent.debug;

		/* Said whatever SPOOL_DEBUG: the program's own output is
		 * all the user has left to tell why the trace ends. */
		agent.debug = 1;
		agent_log("pid %u: spool is gone: recording stopped, the program runs on",
			  agent.pid);
		agent.debug = dbg;
		agent.active = 0;
	}
	return 1;
}

/* ---- waking the collector ---- */

/* Called once per watermark crossing (ring_prod_commit), never per event. */
void agent_wake(void)
{
	struct shm_ctl *c = agent.ctl;
	int saved;

	__atomic_fetch_add(&c->wake_seq, 1, __ATOMIC_SEQ_CST);
	if (!__atomic_load_n(&c->collector_sleeping, __ATOMIC_SEQ_CST))
		return;
	saved = errno;
	/* Shared futex: the collector is another process. */
	syscall(SYS_futex, &c->wake_seq, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
	errno = saved;
}

/* ---- mapping pieces of the region ---- */

/*
 * The agent maps only what this process uses: the head at startup, a ring
 * when one of its threads claims it, its own text area, the feature areas
 * its features need. A one-thread program so pays the head, one ring and a
 * few pages of text in address space (doc/locks.md), not the whole region.
 */

/* Is agent.fd still the region? A program may close it and open something
 * else at that number: mapping that would write our data into its file. */
static int agent_fd_ok(void)
{
	struct stat st;

	/* The raw call: fstat is interposed (record/replay records the stat
	 * family), and this runs from signal handlers too. */
	if (agent.fd < 0 || syscall(SYS_fstat, agent.fd, &st) < 0)
		return 0;
	return (uint64_t)st.st_dev == agent.fd_dev && (uint64_t)st.st_ino == agent.fd_ino;
}

static void *agent_map_piece(uint64_t off, uint64_t len)
{
	void *p;

	if (!agent_fd_ok() || off > agent.map_size || len > agent.map_size - off)
		return NULL;
	p = agent_vm_map(len, PROT_READ | PROT_WRITE, MAP_SHARED, agent.fd, (off_t)off);
	return p == MAP_FAILED ? NULL : p;
}

struct shm_ring *agent_ring_mapped(uint32_t i)
{
	if (!agent.rings || i >= agent.max_rings)
		return NULL;
	return __atomic_load_n(&agent.rings[i], __ATOMIC_ACQUIRE);
}

struct shm_ring *agent_ring_map(uint32_t i)
{
	struct shm_ring *r = agent_ring_mapped(i), *old = NULL;

	if (r || !agent.rings || i >= agent.max_rings)
		return r;
	r = agent_map_piece(shm_ring_offset(agent.ring_bytes, agent.max_procs, i),
			    shm_ring_map_size(agent.ring_bytes));
	if (!r) {
		/* Say why, for spool's summary; the thread's events are
		 * counted as lost_no_ring. */
		__atomic_fetch_or(&agent.ctl->state,
				  agent_fd_ok() ? SHM_STATE_NOMAP : SHM_STATE_FD_GONE,
				  __ATOMIC_RELAXED);
		return NULL;
	}
	/* A ring index is handed to one thread only; the exchange is for a
	 * fork child that maps what its parent had. */
	if (!__atomic_compare_exchange_n(&agent.rings[i], &old, r, 0, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE)) {
		munmap(r, shm_ring_map_size(agent.ring_bytes));
		return old;
	}
	return r;
}

struct ring_sites *agent_ring_sites(uint32_t i)
{
	struct ring_sites *s, *old = NULL;
	size_t len = sizeof(*s);

	if (!agent.ring_sites || i >= agent.max_rings)
		return NULL;
	s = __atomic_load_n(&agent.ring_sites[i], __ATOMIC_ACQUIRE);
	if (s)
		return s;
	s = agent_vm_map(len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (s == MAP_FAILED)
		return NULL;
	if (!__atomic_compare_exchange_n(&agent.ring_sites[i], &old, s, 0, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE)) {
		munmap(s, len);
		return old;
	}
	return s;
}

/* Feature area i's offset and size in the region, checked against it; 0
 * when it has none. */
static uint64_t agent_ext_bounds(unsigned i, uint64_t *off)
{
	struct shm_ctl *c = agent.ctl;
	uint64_t o, len;

	if (!c || i >= SHM_MAX_EXT)
		return 0;
	o = c->ext_offset[i];
	len = c->ext_size[i];
	if (!o || !len || o % SHM_PAGE || o > agent.map_size || len > agent.map_size - o)
		return 0;
	*off = o;
	return len;
}

void *agent_ext_head(unsigned i, uint64_t head, uint64_t *size)
{
	uint64_t off = 0, len = agent_ext_bounds(i, &off);

	if (size)
		*size = 0;
	if (!len)
		return NULL;
	if (!agent.ext[i]) {
		uint64_t pages = (head + SHM_PAGE - 1) / SHM_PAGE * SHM_PAGE;

		if (head && pages < len)
			len = pages;
		agent.ext[i] = agent_map_piece(off, len);
		agent.ext_len[i] = agent.ext[i] ? len : 0;
	}
	if (size)
		*size = agent.ext_len[i];
	return agent.ext[i];
}

void *agent_ext(unsigned i, uint64_t *size)
{
	return agent_ext_head(i, 0, size);
}

uint64_t agent_ext_size(unsigned i)
{
	uint64_t off = 0;

	return agent_ext_bounds(i, &off);
}

void *agent_ext_piece(unsigned i, uint64_t off, uint64_t len)
{
	uint64_t base = 0, total = agent_ext_bounds(i, &base);

	if (!total || off % SHM_PAGE || off > total || len > total - off)
		return NULL;
	return agent_map_piece(base + off, len);
}

/* A window of at least need bytes (up to SHM_PROC_TEXT_BYTES) on this
 * process's text area; 0 or -1 when it cannot grow. */
static int agent_text_window(uint64_t need)
{
	uint64_t cap = agent.text_cap ? agent.text_cap : (64u << 10);
	char *p;

	if (need > SHM_PROC_TEXT_BYTES)
		need = SHM_PROC_TEXT_BYTES;
	if (agent.text && agent.text_cap >= need)
		return 0;
	while (cap < need)
		cap *= 2;
	if (cap > SHM_PROC_TEXT_BYTES)
		cap = SHM_PROC_TEXT_BYTES;
	p = agent_map_piece(shm_proc_text_offset(agent.proc_slot), cap);
	if (!p)
		return -1;
	if (agent.text)
		munmap(agent.text, agent.text_cap);
	agent.text = p;
	agent.text_cap = cap;
	return 0;
}

/* ---- process slot ---- */

/* Read a whole /proc file into buf with raw open/read; returns bytes read. */
static uint32_t agent_read_file(const char *path, char *buf, uint32_t cap)
{
	uint32_t n = 0;
	ssize_t r;
	int fd;

	/* our open, read and close are interposed too (agent_rr_fs.c,
	 * agent_rr_io.c, agent_rr_fd.c): not inputs of the program, nor turns
	 * of its descriptor table. The close too: at exit it comes after the
	 * exit wait (agent_stop), and a recorded close there made the replay's
	 * main thread look unfinished, so the wait let the workers' last
	 * events go (xz -T2). */
	agent_self.busy++;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		agent_self.busy--;
		return 0;
	}
	while (n < cap) {
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (uint32_t)r;
	}
	close(fd);
	agent_self.busy--;
	return n;
}

/* Read path whole into the text area at off, growing the window as long as
 * the text fills it. Returns the bytes kept; *cut when the area's bound (or
 * no address space) cut it. */
static uint32_t agent_text_read(const char *path, uint64_t off, int *cut)
{
	uint32_t n = 0;
	uint64_t want = off + (64u << 10);

	*cut = 0;
	for (;;) {
		uint64_t room;

		if (agent_text_window(want) < 0 && (!agent.text || agent.text_cap <= off)) {
			*cut = 1;
			return 0;
		}
		room = agent.text_cap - off;
		n = agent_read_file(path, agent.text + off, (uint32_t)room);
		if (n < room)
			return n;
		if (agent.text_cap >= SHM_PROC_TEXT_BYTES ||
		    agent_text_window(agent.text_cap * 2) < 0 || agent.text_cap - off <= room) {
			*cut = 1;
			return n;
		}
		want = agent.text_cap;
	}
}

/* Is our slot still ours? The collector frees a slot only once its
 * process is gone, but the program can write the slot: never write text
 * for a slot that no longer names us. */
static int agent_slot_ours(const struct shm_proc *p)
{
	return __atomic_load_n(&p->state, __ATOMIC_ACQUIRE) == PROC_LIVE &&
	       __atomic_load_n(&p->pid, __ATOMIC_RELAXED) == agent.seen_pid;
}

void agent_proc_refresh_maps(void)
{
	struct shm_proc *p;
	uint32_t n, flags;
	int saved = errno, cut;

	if (!agent.ctl || agent.proc_slot == UINT32_MAX)
		return;
	if (__atomic_exchange_n(&agent_maps_busy, 1, __ATOMIC_ACQUIRE))
		return;
	p = shm_proc_at(agent.ctl, agent.proc_slot);
	if (!agent_slot_ours(p)) {
		__atomic_store_n(&agent_maps_busy, 0, __ATOMIC_RELEASE);
		return;
	}
	/* maps_gen is odd while the text is rewritten, even when stable. */
	__atomic_fetch_add(&p->maps_gen, 1, __ATOMIC_ACQ_REL);
	n = agent_text_read("/proc/self/maps", agent_maps_off, &cut);
	flags = __atomic_load_n(&p->text_flags, __ATOMIC_RELAXED);
	flags = cut ? flags | SHM_TEXT_MAPS_CUT : flags & ~SHM_TEXT_MAPS_CUT;
	__atomic_store_n(&p->text_flags, flags, __ATOMIC_RELAXED);
	p->maps_off = agent_maps_off;
	p->maps_len = n;
	if (cut)
		agent_log("maps cut at %u bytes", n);
	__atomic_fetch_add(&p->maps_gen, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&agent_maps_busy, 0, __ATOMIC_RELEASE);
	errno = saved;
}

static uint64_t agent_now_ns(void)
{
	struct timespec ts;

	/* The raw call: clock_gettime may be interposed for record/replay. */
	syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A free process slot, claimed (PROC_CLAIMED), or UINT32_MAX. */
static uint32_t agent_slot_take(struct shm_ctl *c)
{
	for (uint32_t i = 0; i < agent.max_procs; i++) {
		struct shm_proc *p = shm_proc_at(c, i);
		uint32_t z = PROC_FREE, n;

		if (__atomic_load_n(&p->state, __ATOMIC_RELAXED) != PROC_FREE ||
		    !__atomic_compare_exchange_n(&p->state, &z, PROC_CLAIMED, 0, __ATOMIC_ACQ_REL,
						 __ATOMIC_RELAXED))
			continue;
		/* nprocs: the high-water mark of slots used, for readers */
		n = __atomic_load_n(&c->nprocs, __ATOMIC_RELAXED);
		while (n < i + 1 &&
		       !__atomic_compare_exchange_n(&c->nprocs, &n, i + 1, 0, __ATOMIC_ACQ_REL,
						    __ATOMIC_RELAXED))
			;
		return i;
	}
	return UINT32_MAX;
}

/*
 * Wait for the collector to free the slot of a process that has ended (it
 * looks every drain, 50 ms at most; a fork-heavy program starts processes
 * faster than that). Bounded, and once per stall for the whole trace:
 * after a wait in vain (more processes alive than slots, or spool stalled)
 * later processes do not wait until the collector has freed a slot again
 * (it clears procs_stalled), so a program over the limit is slowed once.
 */
#define AGENT_SLOT_WAIT_NS 1000000000ull
static uint32_t agent_slot_wait(struct shm_ctl *c)
{
	uint64_t start = agent_now_ns();
	uint32_t slot;

	if (__atomic_load_n(&c->procs_stalled, __ATOMIC_RELAXED))
		return UINT32_MAX;
	while (agent_now_ns() - start < AGENT_SLOT_WAIT_NS) {
		struct timespec nap = {0, 200000};

		agent_wake();
		syscall(SYS_nanosleep, &nap, NULL);
		slot = agent_slot_take(c);
		if (slot != UINT32_MAX)
			return slot;
	}
	__atomic_store_n(&c->procs_stalled, 1, __ATOMIC_RELAXED);
	return UINT32_MAX;
}

/* A number in the link /proc/PATH ("1234", or for thread-self
 * "1234/task/1240": the last one), 0 when there is none. Raw calls (a
 * fork child before its handlers, a signal handler). */
static uint32_t agent_proc_link_id(const char *path)
{
	char b[64];
	long n = syscall(SYS_readlinkat, AT_FDCWD, path, b, sizeof(b) - 1);
	uint32_t v = 0;
	long i;

	if (n <= 0)
		return 0;
	for (i = n; i > 0 && b[i - 1] != '/'; i--)
		;
	for (; i < n; i++) {
		if (b[i] < '0' || b[i] > '9' || v > UINT32_MAX / 10)
			return 0;
		v = v * 10 + (uint32_t)(b[i] - '0');
	}
	return v;
}

uint32_t agent_seen_tid(void)
{
	if (!agent.pidns)
		return (uint32_t)gettid();
	return agent_proc_link_id("/proc/thread-self");
}

/* The parent's pid as spool sees it: field 4 of /proc/self/stat (after the
 * command name's last ')'); getppid() outside a pid namespace of its own. */
static uint32_t agent_seen_ppid(void)
{
	char b[512];
	uint32_t v = 0;
	const char *q;

	if (!agent.pidns)
		return (uint32_t)getppid();
	if (agent_proc_read("/proc/self/stat", b, sizeof(b)) <= 0)
		return 0;
	q = agent_proc_stat_field(b, 4); /* ppid */
	if (!q)
		return 0;
	for (; *q >= '0' && *q <= '9' && v <= UINT32_MAX / 10; q++)
		v = v * 10 + (uint32_t)(*q - '0');
	return v;
}

/*
 * agent.seen_pid and agent.pidns (agent.pid set). /proc/self names the
 * process in the namespace of the /proc mounted, which a process made in a
 * pid namespace of its own (clone or clone3 with CLONE_NEWPID, a fork
 * after unshare) inherits from spool's side: there it differs from getpid
 * (1 for the namespace's first process), and it is the pid spool sees. A
 * process whose parent was in such a namespace and whose /proc agrees with
 * getpid has mounted its own: what spool sees is unknown (0), and the
 * process gets no slot (its events are counted lost); so has one whose pid
 * namespace is not spool's (agent_pidns_other: an image exec'd there, which
 * does not know its parent's). No /proc: getpid.
 */
/* 1 when this process runs in another pid namespace than spool's
 * (shm_ctl.host_pidns against the number in /proc/self/ns/pid, which names
 * the process's own whatever /proc is mounted); 0 the same or unknown. */
static int agent_pidns_other(void)
{
	uint32_t host = __atomic_load_n(&agent.ctl->host_pidns, __ATOMIC_RELAXED);
	char b[64];
	long n;
	uint64_t v = 0;
	long i = 0;

	if (!host)
		return 0;
	n = syscall(SYS_readlinkat, AT_FDCWD, "/proc/self/ns/pid", b, sizeof(b) - 1);
	if (n <= 0)
		return 0;
	while (i < n && b[i] != '[')
		i++;
	for (i++; i < n && b[i] >= '0' && b[i] <= '9' && v <= UINT32_MAX; i++)
		v = v * 10 + (uint64_t)(b[i] - '0');
	return i < n && b[i] == ']' && v != host;
}

static void agent_seen_pid_set(void)
{
	uint32_t v = agent_proc_link_id("/proc/self");

	if (v && v != agent.pid) {
		agent.seen_pid = v;
		agent.pidns = 1;
	} else if (agent.pidns) {
		agent.seen_pid = 0;
	} else if (v && agent_pidns_other()) {
		/* an image exec'd after its namespace mounted a /proc of its
		 * own (unshare -p -f --mount-proc): its pid is the
		 * namespace's; taken for spool's, pid 1 named the host's init
		 * and the trace listed its 94 processes as still running */
		agent.seen_pid = 0;
		agent.pidns = 1;
	} else {
		agent.seen_pid = agent.pid;
	}
}

/* Claim and fill a process slot. flags: PROC_F_FORK from the fork child;
 * PROC_F_EXEC is detected here (a live slot with our pid exists already:
 * the image before this exec, whose slot is then marked PROC_ENDED so the
 * collector writes it out and frees it). */
void agent_proc_claim(uint32_t flags)
{
	struct shm_ctl *c = agent.ctl;
	struct shm_proc *p;
	uint32_t i, slot;
	ssize_t len;
	int cut;

	/* raw: an early getpid of the program is an input (agent_rr_early.c) */
	agent.pid = (uint32_t)syscall(SYS_getpid);
	agent_seen_pid_set();
	if (!agent.seen_pid) {
		/* a pid namespace whose pids spool cannot tell (above): no
		 * slot, and no ring (agent_thread_register) */
		agent.proc_slot = UINT32_MAX;
		agent_log("pid %u: in a pid namespace of its own with its own /proc: not recorded",
			  agent.pid);
		return;
	}
	/* raw: the agent's own readlink records and replays (agent_rr_path.c) */
	len = syscall(SYS_readlinkat, AT_FDCWD, "/proc/self/exe", agent_exe, sizeof(agent_exe) - 1);
	agent_exe_len = len > 0 ? (uint32_t)len : 0;
	agent_exe[agent_exe_len] = 0;
	agent.reexec_same = 0;
	for (i = 0; i < agent.max_procs && !(flags & PROC_F_FORK); i++) {
		uint32_t live = PROC_LIVE, n;

		p = shm_proc_at(agent.ctl, i);
		if (__atomic_load_n(&p->pid, __ATOMIC_ACQUIRE) != agent.seen_pid ||
		    !__atomic_compare_exchange_n(&p->state, &live, PROC_ENDED, 0, __ATOMIC_ACQ_REL,
						 __ATOMIC_RELAXED))
			continue;
		flags |= PROC_F_EXEC;
		/* The same executable again (probes are placed again): compared
		 * now, before the collector frees that slot. */
		n = __atomic_load_n(&p->exe_len, __ATOMIC_RELAXED);
		if (n == agent_exe_len && n && n < sizeof(p->exe) && !memcmp(p->exe, agent_exe, n))
			agent.reexec_same = 1;
	}
	/* A process that is neither the first one nor an exec nor a fork the
	 * agent saw is a child started without a fork handler: vfork (dash,
	 * make and posix_spawn use it), or a raw clone. Without this it looked
	 * like the first process, and a recording held two processes' events
	 * as one thread's. */
	if (!(flags & (PROC_F_FORK | PROC_F_EXEC))) {
		uint32_t z = 0;

		if (!__atomic_compare_exchange_n(&c->root_claimed, &z, 1, 0, __ATOMIC_ACQ_REL,
						 __ATOMIC_RELAXED))
			flags |= PROC_F_FORK;
	}
	agent.proc_flags = flags;
	agent.proc_emitted = 0;
	/* A fork child inherited its parent's window: not its slot's. */
	if (agent.text)
		munmap(agent.text, agent.text_cap);
	agent.text = NULL;
	agent.text_cap = 0;

	slot = agent_slot_take(c);
	if (slot == UINT32_MAX)
		slot = agent_slot_wait(c);
	if (slot == UINT32_MAX) {
		__atomic_fetch_add(&c->lost_no_proc, 1, __ATOMIC_RELAXED);
		agent.proc_slot = UINT32_MAX;
		agent_log("no process slot left for pid %u (more processes alive than --max-procs)",
			  agent.pid);
		return;
	}
	agent.proc_slot = slot;
	p = shm_proc_at(agent.ctl, slot);
	/* our pid at once: a process that dies while it fills its slot
	 * (PROC_CLAIMED) is found dead and its slot freed all the same */
	__atomic_store_n(&p->pid, agent.seen_pid, __ATOMIC_RELEASE);
	__atomic_store_n(&p->proc_ring, 0, __ATOMIC_RELEASE);
	agent.seen_ppid = agent_seen_ppid();
	p->ppid = agent.seen_ppid;
	p->flags = flags;
	memcpy(p->exe, agent_exe, agent_exe_len + 1);
	p->exe_len = agent_exe_len;
	/* The command line at 0, the maps on the next page after it. */
	p->cmdline_len = agent_text_read("/proc/self/cmdline", 0, &cut);
	p->text_flags = cut ? SHM_TEXT_CMDLINE_CUT : 0;
	agent_maps_off = ((uint64_t)p->cmdline_len + SHM_PAGE) & ~(uint64_t)(SHM_PAGE - 1);
	agent_maps_busy = 0;
	/* no maps until ours are read: not the slot's last owner's */
	p->maps_off = agent_maps_off;
	p->maps_len = 0;
	/* a reader that sees PROC_LIVE sees a filled slot (the maps follow,
	 * under maps_gen) */
	__atomic_store_n(&p->state, PROC_LIVE, __ATOMIC_RELEASE);
	agent_proc_refresh_maps();
}

/* ---- startup ---- */

static int agent_parse_fd(const char *s)
{
	long v = 0;

	if (!s || !*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > INT_MAX / 10)
			return -1;
		v = v * 10 + (*s - '0');
	}
	return v <= INT_MAX ? (int)v : -1;
}

/* Map the region's head and check it is one spool made for this layout.
 * The rest is mapped piece by piece as it is needed; fd is kept for that
 * (the caller keeps it open). */
int agent_map(int fd)
{
	struct shm_ctl *c;
	struct stat st;
	uint64_t size, head;
	uint32_t max_procs;
	void *rings;

	if (syscall(SYS_fstat, fd, &st) < 0)
		return -errno;
	if ((uint64_t)st.st_size < SHM_CTL_SIZE)
		return -EPROTO;
	/* The control block first: it says how many process slots follow. */
	c = agent_vm_map(SHM_CTL_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (c == MAP_FAILED)
		return -errno;
	max_procs = c->max_procs;
	if (__atomic_load_n(&c->magic, __ATOMIC_ACQUIRE) != SHM_MAGIC ||
	    c->version != SHM_VERSION || !max_procs || max_procs > SHM_MAX_PROCS) {
		munmap(c, SHM_CTL_SIZE);
		return -EPROTO;
	}
	munmap(c, SHM_CTL_SIZE);
	head = shm_head_map_size(max_procs);
	c = agent_vm_map(head, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (c == MAP_FAILED)
		return -errno;
	size = c->total_size;
	if (c->ring_bytes < 4096 || (c->ring_bytes & (c->ring_bytes - 1)) ||
	    c->procs_offset != SHM_CTL_SIZE || c->rings_offset != shm_rings_offset(max_procs) ||
	    c->max_rings > EV_MAX_THREADS ||
	    size < shm_total_size(c->ring_bytes, max_procs, c->max_rings) ||
	    (uint64_t)st.st_size < size || c->watermark > c->ring_bytes) {
		munmap(c, head);
		return -EPROTO;
	}
	/* The ring table: a page or so, not in the program's heap. */
	rings = agent_vm_map((size_t)c->max_rings * (sizeof(*agent.rings) + sizeof(*agent.ring_sites)) + 1,
			     PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (rings == MAP_FAILED) {
		munmap(c, head);
		return -ENOMEM;
	}
	agent.ctl = c;
	agent.head_size = head;
	agent.max_procs = max_procs;
	agent.map_size = size;
	agent.fd = fd;
	agent.fd_dev = (uint64_t)st.st_dev;
	agent.fd_ino = (uint64_t)st.st_ino;
	agent.ring_bytes = c->ring_bytes;
	agent.max_rings = c->max_rings;
	agent.watermark = c->watermark;
	agent.rings = rings;
	agent.ring_sites = (struct ring_sites **)((struct shm_ring **)rings + c->max_rings);
	agent.packets = !!(c->flags & SHM_F_PACKETS) && shm_pkt_slot(c->ring_bytes) >= 1024;
	agent.untimed = agent.packets && (c->flags & SHM_F_UNTIMED);
	/* A record must fit in half a ring (ring_prod_reserve refuses more). */
	agent.stack_depth = c->stack_depth;
	if (agent.stack_depth > (agent.ring_bytes / 2 - sizeof(struct rec_lock)) / 8)
		agent.stack_depth = (agent.ring_bytes / 2 - sizeof(struct rec_lock)) / 8;
	if (agent.stack_depth > 256)
		agent.stack_depth = 256;
	/* A packet's record fits in its slot (ring_pkt_reserve). */
	if (agent.packets &&
	    agent.stack_depth > (shm_pkt_slot(agent.ring_bytes) - RING_PKT_HDR - RING_PKT_SLACK - 8 -
				 sizeof(struct rec_lock)) / 8)
		agent.stack_depth = (shm_pkt_slot(agent.ring_bytes) - RING_PKT_HDR - RING_PKT_SLACK -
				     8 - sizeof(struct rec_lock)) / 8;
	return 0;
}

int agent_shm_fd = -1;

/*
 * The region's descriptor is gone or is something else: the program closed
 * it before this exec (close_range or a raw system call the agent did not
 * see), or moved another file onto its number. Open the region again from
 * spool's own descriptor (SPOOL_SHM_PATH); put it back at its number when
 * that number is free, so the images this one execs find it too. Returns
 * the descriptor mapped, or a negative errno (the image then runs
 * untraced, and says so on stderr: spool cannot know).
 */
static int agent_reopen(int fd, int err)
{
	const char *path = getenv(SHM_ENV_PATH);
	int nfd, rc;

	if (!path || !*path)
		return err;
	/* raw calls: the agent's own open and close wrappers are not ready */
	nfd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDWR | O_CLOEXEC);
	if (nfd < 0)
		return -errno;
	rc = agent_map(nfd);
	if (rc) {
		syscall(SYS_close, nfd);
		return rc;
	}
	if (err == -EBADF && syscall(SYS_dup3, nfd, fd, 0) == fd) {
		syscall(SYS_close, nfd);
		agent.fd = fd; /* the same file: rings are mapped from it later */
		return fd;
	}
	return nfd; /* (close-on-exec: the next image opens the path again) */
}

__attribute__((constructor)) static void agent_start(void)
{
	const char *dbg = getenv("SPOOL_DEBUG");
	int fd, err;

	agent_rr_early_start();
	agent.debug = dbg && *dbg && *dbg != '0';
	agent_testhold_init();
	agent_resolve();
	fd = agent_parse_fd(getenv(SHM_ENV_FD));
	if (fd < 0) {
		agent_log("no %s: staying inert", SHM_ENV_FD);
		return;
	}
	err = agent_map(fd);
	if (err == -EBADF || err == -EPROTO || err == -ENODEV || err == -EACCES || err == -EINVAL) {
		int nfd = agent_reopen(fd, err);

		if (nfd < 0) {
			/* Said once, whatever SPOOL_DEBUG: nothing else can tell
			 * the user that this image is missing from the trace. */
			agent.debug = 1;
			agent_log("pid %d: spool's shared memory (fd %d) was closed before this "
				  "exec and cannot be opened again (%d): this program is not "
				  "traced",
				  (int)syscall(SYS_getpid), fd, nfd);
			agent.debug = dbg && *dbg && *dbg != '0';
			return;
		}
		fd = nfd;
		err = 0;
	}
	if (err) {
		agent_log("fd %d is not a spool region (%d): staying inert", fd, err);
		return;
	}
	agent_shm_fd = fd;
	if (getauxval(AT_SECURE)) {
		agent_disable("setuid/setgid target refused: not recording");
		return;
	}
	if (__atomic_load_n(&agent.ctl->state, __ATOMIC_ACQUIRE) & SHM_STATE_DISABLED) {
		agent_log("recording disabled by an earlier process");
		return;
	}
	agent.host_pid = __atomic_load_n(&agent.ctl->host_pid, __ATOMIC_RELAXED);
	agent.host_child =
	    agent.host_pid && (uint32_t)getppid() == agent.host_pid ? (uint32_t)syscall(SYS_getpid) : 0;
	agent_thread_init();
	agent_proc_claim(0);
	agent.active = 1;
	agent_scrub_main(); /* where the entry stubs may zero (agent_scrub.c) */
	agent_rr_init();
	if (agent_rr_mode)
		agent_scrub_bind(); /* before the program's first calls (agent_scrub_bind.c) */
	agent_rr_dispatch_init(); /* record/replay: the program's own syscall instructions */
	agent_rr_cpuid_init();	  /* record/replay: the program's cpuid instructions */
	agent_func_init();
	agent_sys_init();
	agent_log("recording pid %u slot %u flags %u", agent.pid, agent.proc_slot, agent.proc_flags);
	/* Register the starting thread now: its ring opens with KIND_THREAD
	 * and the process's KIND_PROC even if it never takes a lock. */
	if (agent_self.state == AGENT_T_NEW)
		agent_thread_register(&agent_self);
	agent_probe_init(); /* spool probe: patch before main, one thread */
	agent_rr_note_layout();
	/* spool replay --goto: the program goes on from a snapshot (does not
	 * return when there is one) */
	agent_snap_restore_start();
	/* what the constructor did differs between a recording and its replay:
	 * the frames of the program's main start on zeros in both */
	if (agent_rr_mode)
		agent_stack_scrub();
}

__attribute__((destructor)) static void agent_stop(void)
{
	if (!agent.active)
		return;
	if (agent.ctl)
		__atomic_fetch_or(&agent.ctl->state, SHM_STATE_EXIT_RAN, __ATOMIC_RELEASE);
	/* sync mode: what stdout and stderr hold, in their turns (glibc's
	 * flush at exit comes later and takes none); a replay's before its
	 * exit wait, which waits for no thread held up by this flush's turn */
	agent_rr_stdio_exit_flush();
	agent_rr_exit_wait();
	agent_snap_exit_wait();
	agent_rr_tree_end();
	agent_sys_proc_end();
	agent_proc_refresh_maps();
	agent_scrub_report(); /* SPOOL_SCRUB_CHECK (agent_scrub.c) */
}

/* ---- _exit: a process that ends without exit() ---- */

/*
 * A replay waits at the program's exit until every other thread has
 * replayed its recorded events (agent_rr_exit_wait): they happened before
 * the recorded process ended. exit() runs it from the destructor above;
 * _exit runs no destructor, and a sync replay of a program that ends with
 * _exit while its worker threads are still at their last event (ld.lld:
 * lld::exitLld calls _exit, its thread pool's workers take their queue's
 * lock once more on the way to their wait) stopped as diverged, "the
 * program ended before thread 1 replayed its 11967 recorded events (it
 * replayed 11966)". Not for a recording (nothing to wait for), and libc's
 * own calls (exit's) do not come here. The snapshot copies of a serial
 * recording are ended here too: lld's outlived it, and spool record
 * exited 4 ("1 process still running (spool-snapshot)").
 */
static __attribute__((noreturn)) void agent_uexit(int status)
{
	if (agent.active) {
		agent_rr_exit_wait();
		/* serial record --snap-period: the snapshot copies end before
		 * the program, as at exit (else spool finds one still running
		 * and calls the trace incomplete) */
		agent_snap_exit_wait();
	}
	if (!__atomic_load_n(&agent_real.uexit, __ATOMIC_RELAXED))
		agent_resolve();
	if (agent_real.uexit)
		agent_real.uexit(status);
	for (;;)
		syscall(SYS_exit_group, status);
}

AGENT_EXPORT void _exit(int status)
{
	agent_uexit(status);
}

AGENT_EXPORT void _Exit(int status)
{
	agent_uexit(status);
}

/* ---- dlopen: the process's maps change ---- */

AGENT_EXPORT void *dlopen(const char *file, int mode)
{
	void *h;

	AGENT_REAL_OR(dlopen, NULL);
	h = agent_real.dlopen(file, mode);
	if (h && agent.active) {
		if (agent_rr_mode)
			agent_scrub_bind(); /* the new modules' slots (agent_scrub_bind.c) */
		agent_proc_refresh_maps();
		/* the collector keeps these maps now, before a dlclose can
		 * take the library away (collector_keep_maps) */
		agent_wake();
		agent_probe_dlopen(); /* spool probe: probes of a library loaded now */
	}
	return h;
}
