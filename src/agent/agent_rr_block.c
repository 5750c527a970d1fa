// SPDX-License-Identifier: MIT
/*
 * agent_rr_block.c - record/replay of the calls that wait without being a
 * lock or a read (doc/record.md): the sleep family (sleep, usleep,
 * nanosleep, clock_nanosleep), sched_yield, pthread_once, write/writev, and
 * (serial mode) futex waits made through syscall().
 *
 * Serial mode is the reason: a thread that blocks in the kernel while it
 * holds the run token keeps every other thread waiting, and a thread that
 * spins on sched_yield waiting for a flag never lets the setter run. So:
 *
 * - sleeps are input calls: while recording they give the token up around
 *   the real call and record its result (and the remaining time of an
 *   interrupted sleep); a replay returns the recorded result at once;
 * - sched_yield is a switch point that offers the token to another thread
 *   (serial record and replay); in sync mode it is the real call;
 * - pthread_once: in serial mode the agent runs the once protocol itself on
 *   the control word (glibc's encoding: 0 new, bit 0 in progress, bit 1
 *   done; waiters are woken on the word so glibc's own callers inside libc
 *   stay compatible), yielding the token while another thread runs the
 *   initializer; in sync mode it is a synchronization object: each call
 *   takes a turn (the thread that runs the initializer takes it as the
 *   initializer starts, the others when the call returns), and a replay
 *   lets each call proceed at its recorded turn, so the recorded thread
 *   runs the initializer;
 * - write/writev, and send/sendto/sendmsg (recorded as write, write and
 *   writev), record their result (not their data; a write or writev keeps a
 *   hash of its bytes, which its replay checks: rr_out_hash). While recording in
 *   serial mode a write or send to a pipe or a socket gives the token up
 *   around the real call (the reader may be another thread of the
 *   program). A replay
 *   returns the recorded result and writes the recorded number of bytes for
 *   real to files, terminals and pipes read outside the program, so stdout
 *   and stderr are reproduced; it sends nothing to sockets and nothing into
 *   a pipe the program itself reads (its reads are replayed from the log,
 *   so such a pipe would fill up and block); a send sends nothing.
 *
 * Calls made by the agent itself (busy) and by threads spool could not
 * number pass through, as in agent_rr_io.c. stdio's writes go through
 * glibc's internal __write and are not seen (they happen for real in a
 * replay, which is what reproduces printf output).
 */
/* AGENT_RR_CANCEL_PUSH is a setjmp (agent_rr.h) */
#pragma GCC diagnostic ignored "-Wclobbered"
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/sysmacros.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "agent_rr.h"
#include "agent_serial.h"

/* ---- real functions and their pre-constructor fallbacks ---- */

static int fb_nanosleep(const struct timespec *req, struct timespec *rem)
{
	return (int)syscall(SYS_nanosleep, req, rem);
}

static int fb_clock_nanosleep(clockid_t c, int f, const struct timespec *req, struct timespec *rem)
{
	return syscall(SYS_clock_nanosleep, c, f, req, rem) < 0 ? errno : 0;
}

static unsigned fb_sleep(unsigned s)
{
	struct timespec req = {s, 0}, rem = {0, 0};

	if (fb_nanosleep(&req, &rem) < 0)
		return (unsigned)rem.tv_sec + (rem.tv_nsec >= 500000000);
	return 0;
}

static int fb_usleep(useconds_t us)
{
	struct timespec req = {us / 1000000, (long)(us % 1000000) * 1000};

	return fb_nanosleep(&req, NULL);
}

static int fb_sched_yield(void) { return (int)syscall(SYS_sched_yield); }
static ssize_t fb_write(int fd, const void *b, size_t n) { return syscall(SYS_write, fd, b, n); }
static ssize_t fb_writev(int fd, const struct iovec *v, int n)
{
	return syscall(SYS_writev, fd, v, n);
}
static int rr_once_emulated(pthread_once_t *o, void (*init)(void), int serial);
static int fb_once(pthread_once_t *o, void (*init)(void)) { return rr_once_emulated(o, init, 0); }

static int (*real_nanosleep)(const struct timespec *, struct timespec *) = fb_nanosleep;
static int (*real_clock_nanosleep)(clockid_t, int, const struct timespec *,
				   struct timespec *) = fb_clock_nanosleep;
static unsigned (*real_sleep)(unsigned) = fb_sleep;
static int (*real_usleep)(useconds_t) = fb_usleep;
static int (*real_sched_yield)(void) = fb_sched_yield;
static ssize_t (*real_write)(int, const void *, size_t) = fb_write;
static ssize_t fb_sendfile(int out, int in, off_t *off, size_t n)
{
	return syscall(SYS_sendfile, out, in, off, n);
}
static ssize_t fb_splice(int in, loff_t *oi, int out, loff_t *oo, size_t n, unsigned fl)
{
	return syscall(SYS_splice, in, oi, out, oo, n, fl);
}
static ssize_t fb_tee(int in, int out, size_t n, unsigned fl)
{
	return syscall(SYS_tee, in, out, n, fl);
}
static ssize_t fb_copy_file_range(int in, loff_t *oi, int out, loff_t *oo, size_t n, unsigned fl)
{
	return syscall(SYS_copy_file_range, in, oi, out, oo, n, fl);
}
static ssize_t (*real_sendfile)(int, int, off_t *, size_t) = fb_sendfile;
static ssize_t (*real_splice)(int, loff_t *, int, loff_t *, size_t, unsigned) = fb_splice;
static ssize_t (*real_tee)(int, int, size_t, unsigned) = fb_tee;
static ssize_t (*real_copy_file_range)(int, loff_t *, int, loff_t *, size_t,
				       unsigned) = fb_copy_file_range;
static ssize_t (*real_writev)(int, const struct iovec *, int) = fb_writev;
static int (*real_once)(pthread_once_t *, void (*)(void)) = fb_once;

__attribute__((constructor)) static void agent_rr_block_resolve(void)
{
	int saved;

	/* busy first: reading errno calls __errno_location, which a func:
	 * probe of libc may have patched (the agent's own call, not the
	 * program's) */
	agent_self.busy++;
	saved = errno;
	AGENT_RESOLVE(real_nanosleep, "nanosleep");
	AGENT_RESOLVE(real_clock_nanosleep, "clock_nanosleep");
	AGENT_RESOLVE(real_sleep, "sleep");
	AGENT_RESOLVE(real_usleep, "usleep");
	AGENT_RESOLVE(real_sched_yield, "sched_yield");
	AGENT_RESOLVE(real_write, "write");
	AGENT_RESOLVE(real_writev, "writev");
	AGENT_RESOLVE(real_once, "pthread_once");
	AGENT_RESOLVE(real_sendfile, "sendfile64");
	AGENT_RESOLVE(real_splice, "splice");
	AGENT_RESOLVE(real_tee, "tee");
	AGENT_RESOLVE(real_copy_file_range, "copy_file_range");
	errno = saved;
	agent_self.busy--;
}

#define RR_IO_OFF(t) (AGENT_LIKELY(!agent_rr_mode) || !((t) = agent_rr_io_enter()))
#define RR_REPLAYING() (agent_rr_mode & RR_MODE_REPLAY)

/* Serial record: give the run token up around a call that may block (a
 * write, a send, a transfer: a replay makes some of them for real, so a
 * snapshot does not hold the thread out in one: agent_serial.h). */
#define RR_BLOCK_IF(call, cond, type, expr)                                                        \
	AGENT_SERIAL_BLOCK_CALL(call, cond, type, expr, AGENT_SERIAL_PLAIN_CALL)

/* A thread of a serial session that may pass a switch point here. */
static int rr_serial_caller(void)
{
	const struct agent_thread *t = &agent_self;

	return (agent_rr_mode & RR_MODE_SERIAL) && agent.active && t->state == AGENT_T_ON &&
	       !t->busy;
}

/* ---- sleeps ---- */

static int rr_nanosleep(const struct timespec *req, struct timespec *rem)
{
	struct agent_thread *t;
	struct agent_rr_seg s = {rem, rem ? sizeof(*rem) : 0};
	int r, e;

	if (RR_IO_OFF(t))
		return real_nanosleep(req, rem);
	if (RR_REPLAYING())
		return (int)agent_rr_rep_input(t, RR_CALL_NANOSLEEP, -1, &s, 1, NULL);
	r = RR_BLOCK(RR_CALL_NANOSLEEP, int, real_nanosleep(req, rem));
	e = errno;
	if (!(r < 0 && e == EINTR))
		s.n = 0;
	agent_rr_rec_input(t, RR_CALL_NANOSLEEP, -1, r, r < 0 ? e : 0, 0, &s, 1);
	errno = e;
	return r;
}

AGENT_EXPORT int nanosleep(const struct timespec *req, struct timespec *rem)
{
	if (AGENT_LIKELY(!agent_rr_mode))
		return real_nanosleep(req, rem);
	return rr_nanosleep(req, rem);
}

/* sleep and usleep call glibc's internal nanosleep, not ours: both are
 * recorded as the nanosleep they make. */
AGENT_EXPORT unsigned sleep(unsigned s)
{
	struct timespec req = {s, 0}, rem = {0, 0};
	int e = errno;

	if (AGENT_LIKELY(!agent_rr_mode))
		return real_sleep(s);
	if (rr_nanosleep(&req, &rem) < 0) {
		unsigned left = (unsigned)rem.tv_sec + (rem.tv_nsec >= 500000000);

		errno = e;
		return left;
	}
	errno = e;
	return 0;
}

AGENT_EXPORT int usleep(useconds_t us)
{
	struct timespec req = {us / 1000000, (long)(us % 1000000) * 1000};

	if (AGENT_LIKELY(!agent_rr_mode))
		return real_usleep(us);
	return rr_nanosleep(&req, NULL);
}

AGENT_EXPORT int clock_nanosleep(clockid_t clk, int flags, const struct timespec *req,
				 struct timespec *rem)
{
	struct agent_thread *t;
	struct agent_rr_seg s = {rem, rem ? sizeof(*rem) : 0};
	int r;

	if (RR_IO_OFF(t))
		return real_clock_nanosleep(clk, flags, req, rem);
	if (RR_REPLAYING())
		return (int)agent_rr_rep_input(t, RR_CALL_CLOCK_NANOSLEEP, (int)clk, &s, 1, NULL);
	r = RR_BLOCK(RR_CALL_CLOCK_NANOSLEEP, int, real_clock_nanosleep(clk, flags, req, rem));
	if (r != EINTR || (flags & TIMER_ABSTIME))
		s.n = 0;
	agent_rr_rec_input(t, RR_CALL_CLOCK_NANOSLEEP, (int)clk, r, 0, 0, &s, 1);
	return r;
}

/* ---- sched_yield ---- */

/* Serial mode: a switch point that hands the token to a waiting thread (a
 * spin on sched_yield waits for another thread to do something). */
AGENT_EXPORT int sched_yield(void)
{
	if (AGENT_UNLIKELY(agent_rr_mode & RR_MODE_SERIAL) && rr_serial_caller()) {
		agent_serial_wait_yield(RR_W_YIELD);
		return 0;
	}
	return real_sched_yield();
}

/* ---- futex waits made through syscall() ---- */

/*
 * A futex wait the program makes through glibc's syscall() (GLib's GMutex,
 * GCond and GAsyncQueue; other libraries' own locks), in serial mode: the
 * thread holds the run token, and a real wait would keep every other
 * thread, the one that would wake it among them, from running (the record
 * stopped, "record stuck"). So the wait is emulated as the condition wait
 * is: when the word no longer holds the expected value, EAGAIN at once;
 * otherwise the thread yields the token and returns 0, a spurious wake-up,
 * which futex(2) callers must handle (they check their condition again).
 * A wait with a timeout yields until the word changes or the timeout has
 * passed on the recorded clock (ETIMEDOUT), as timed lock waits do. Only
 * one thread runs, so the word reads the same in a replay, and the clock
 * readings are recorded inputs: a replay makes the same decisions. Wakes
 * pass through (no thread of the program sleeps in the kernel on such a
 * word: they return 0). Returns 1 with *ret set when it handled the call.
 */
int agent_rr_futex_wait(const long *a, long *ret)
{
	const int *w = (const int *)a[0];
	int op = (int)a[1], cmd = op & FUTEX_CMD_MASK;
	const struct timespec *to = (const struct timespec *)a[3];
	struct timespec end;
	clockid_t clk = CLOCK_MONOTONIC;

	struct timespec zero = {0, 0};
	long r;

	if (!rr_serial_caller() || (cmd != FUTEX_WAIT && cmd != FUTEX_WAIT_BITSET))
		return 0;
	if (to && (to->tv_sec < 0 || to->tv_nsec < 0 || to->tv_nsec >= 1000000000))
		return 0; /* EINVAL from the kernel */
	/* The kernel checks the arguments and the word without blocking: a
	 * zero timeout (relative for FUTEX_WAIT, an absolute time long past
	 * for FUTEX_WAIT_BITSET) gives ETIMEDOUT when it would have waited,
	 * EAGAIN when the word changed, EFAULT or EINVAL as the real call. */
	r = syscall(SYS_futex, w, op, (int)a[2], &zero, NULL, (int)a[5]);
	if (r == 0 || errno != ETIMEDOUT) {
		*ret = r;
		return 1;
	}
	if (!to) {
		agent_serial_yield(RR_AT_YIELD);
		*ret = 0;
		return 1;
	}
	/* FUTEX_WAIT's timeout is relative (on CLOCK_MONOTONIC),
	 * FUTEX_WAIT_BITSET's an absolute time on its clock. */
	if (cmd == FUTEX_WAIT_BITSET) {
		if (op & FUTEX_CLOCK_REALTIME)
			clk = CLOCK_REALTIME;
		end = *to;
	} else {
		if (clock_gettime(clk, &end) < 0)
			return 0;
		end.tv_sec += to->tv_sec;
		end.tv_nsec += to->tv_nsec;
		if (end.tv_nsec >= 1000000000) {
			end.tv_sec++;
			end.tv_nsec -= 1000000000;
		}
	}
	for (;;) {
		agent_serial_yield(RR_AT_YIELD);
		if (__atomic_load_n(w, __ATOMIC_ACQUIRE) != (int)a[2]) {
			*ret = 0;
			return 1;
		}
		if (agent_serial_timed_out(clk, &end)) {
			errno = ETIMEDOUT;
			*ret = -1;
			return 1;
		}
	}
}

/* ---- pthread_once ---- */

#define RR_ONCE_INPROGRESS 1
#define RR_ONCE_DONE 2

/* The once protocol on glibc's control word. serial: yield the run token
 * while another thread runs the initializer (it needs the token to finish);
 * otherwise (the fallback before dlsym ran) wait on the word. Cancellation
 * of the initializer is not handled. */
static int rr_once_emulated(pthread_once_t *o, void (*init)(void), int serial)
{
	int *w = (int *)o;

	if (serial)
		agent_serial_point(RR_AT_SYNC);
	for (;;) {
		int v = __atomic_load_n(w, __ATOMIC_ACQUIRE);

		if (v & RR_ONCE_DONE)
			return 0;
		if (v & RR_ONCE_INPROGRESS) {
			if (serial)
				agent_serial_wait_yield(RR_W_ONCE);
			else
				syscall(SYS_futex, w, FUTEX_WAIT_PRIVATE, v, NULL, NULL, 0);
			continue;
		}
		if (__atomic_compare_exchange_n(w, &v, RR_ONCE_INPROGRESS, 0, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE))
			break;
	}
	init();
	__atomic_store_n(w, RR_ONCE_DONE, __ATOMIC_RELEASE);
	syscall(SYS_futex, w, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
	if (serial)
		agent_serial_point(RR_AT_SYNC);
	return 0;
}

/* Sync mode: the initializer runs through this trampoline, which learns
 * from TLS (the real pthread_once calls it on the same thread) which call
 * it belongs to, takes (or, replaying, passes) the call's turn, then runs
 * the program's initializer. */
struct rr_once {
	void (*init)(void);
	struct agent_thread *t;
	uint32_t idx;
	int ran;
};
static __thread struct rr_once *rr_once_cur;

static void rr_once_run(void)
{
	struct rr_once *c = rr_once_cur;

	c->ran = 1;
	if (agent_rr_mode & RR_MODE_RECORD)
		agent_rr_rec_sync(c->t, c->idx, RR_OP_ONCE, 1, 1);
	else
		agent_rr_rep_end(c->t, 1);
	c->init();
}

AGENT_EXPORT int pthread_once(pthread_once_t *o, void (*init)(void))
{
	struct rr_once c, *prev;
	struct agent_thread *t;
	int rc;

	if (AGENT_LIKELY(!agent_rr_mode))
		return real_once(o, init);
	/* The unwinder's own once (agent_rr_cancel.c): never recorded. */
	if (AGENT_UNLIKELY(agent_rr_cancel_warming))
		__atomic_store_n(&agent_rr_unwind_once, o, __ATOMIC_RELEASE);
	if (AGENT_UNLIKELY(o == __atomic_load_n(&agent_rr_unwind_once, __ATOMIC_ACQUIRE)))
		return real_once(o, init);
	if (rr_serial_caller())
		return rr_once_emulated(o, init, 1);
	if ((agent_rr_mode & RR_MODE_SERIAL) || !(t = agent_rr_io_enter()))
		return real_once(o, init);
	c = (struct rr_once){init, t, agent_lock_index(t, o, LOCK_TYPE_MUTEX, AGENT_RET_IP()), 0};
	prev = rr_once_cur;
	rr_once_cur = &c;
	if (agent_rr_mode & RR_MODE_RECORD) {
		rc = real_once(o, rr_once_run);
		rr_once_cur = prev;
		if (!c.ran)
			agent_rr_rec_sync(t, c.idx, RR_OP_ONCE, 0, 1);
		return rc;
	}
	/* Replay: at the recorded turn; the recorded runner's trampoline ends
	 * the event, a call that did not run it ends it here (a runner that
	 * finds the once done diverges: "returned something else"). */
	agent_rr_site = AGENT_RET_IP();
	agent_rr_rep_begin(t, c.idx, RR_OP_ONCE, o, 1);
	rc = real_once(o, rr_once_run);
	rr_once_cur = prev;
	if (!c.ran)
		agent_rr_rep_end(t, 0);
	return rc;
}

/* ---- writes ---- */

static int rr_fstat(int fd, struct stat *st)
{
	return syscall(SYS_fstat, fd, st) < 0 ? -1 : 0;
}

/* Serial record: a pipe or a socket may block on a reader of this program. */
static int rr_fd_may_block(int fd)
{
	struct stat st;

	return !rr_fstat(fd, &st) && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
}

static int rr_fd_is_fifo(int fd)
{
	struct stat st;

	return !rr_fstat(fd, &st) && S_ISFIFO(st.st_mode);
}

/* Replay: whether the pipe fd writes to is read by this process (another
 * descriptor open for reading on the same pipe). Cached per descriptor and
 * pipe; the scan (one fstat per descriptor number) runs once per pipe. */
#define RR_FD_CACHE 1024
static struct {
	uint64_t dev, ino;
	uint8_t known, internal;
} rr_pipe_cache[RR_FD_CACHE];

static int rr_pipe_internal(int fd, const struct stat *st)
{
	int i, internal = 0;

	if (fd >= 0 && fd < RR_FD_CACHE && rr_pipe_cache[fd].known &&
	    rr_pipe_cache[fd].dev == st->st_dev && rr_pipe_cache[fd].ino == st->st_ino)
		return rr_pipe_cache[fd].internal;
	for (i = 0; i < RR_FD_CACHE && !internal; i++) {
		struct stat o;
		long fl;

		if (i == fd || rr_fstat(i, &o) || !S_ISFIFO(o.st_mode) || o.st_dev != st->st_dev ||
		    o.st_ino != st->st_ino)
			continue;
		fl = syscall(SYS_fcntl, i, F_GETFL);
		internal = fl >= 0 && (fl & O_ACCMODE) != O_WRONLY;
	}
	if (fd >= 0 && fd < RR_FD_CACHE) {
		rr_pipe_cache[fd].dev = st->st_dev;
		rr_pipe_cache[fd].ino = st->st_ino;
		rr_pipe_cache[fd].internal = (uint8_t)internal;
		rr_pipe_cache[fd].known = 1;
	}
	return internal;
}

/*
 * Replay: what spool gave the first process as its stdout and stderr (a
 * socket under --gdbserver, which forwards it to gdb): a write to it is
 * made for real even when it is a socket. Noted once, by the first image
 * of the recording (a fork child keeps it; an image a process of the
 * program started may have one of the program's sockets as its stdout).
 */
static uint64_t rr_out_dev[3], rr_out_ino[3];
static uint8_t rr_out_set[3];

void agent_rr_note_outputs(void)
{
	for (int fd = 1; fd <= 2; fd++) {
		struct stat st;

		if (rr_fstat(fd, &st) == 0) {
			rr_out_dev[fd] = (uint64_t)st.st_dev;
			rr_out_ino[fd] = (uint64_t)st.st_ino;
			rr_out_set[fd] = 1;
		}
	}
}

static int rr_spools_output(const struct stat *st)
{
	for (int fd = 1; fd <= 2; fd++)
		if (rr_out_set[fd] && rr_out_dev[fd] == (uint64_t)st->st_dev &&
		    rr_out_ino[fd] == (uint64_t)st->st_ino)
			return 1;
	return 0;
}

/* Replay: whether a write to fd happens for real (see the top comment). */
static int rr_write_for_real(int fd)
{
	struct stat st;

	/* replay --pid: an ancestor on its way to the process replayed */
	if (agent_rr_muted || rr_fstat(fd, &st))
		return 0;
	if (S_ISSOCK(st.st_mode))
		return rr_spools_output(&st);
	if (S_ISFIFO(st.st_mode) && agent_rr_tree_inner_pipe(&st))
		return 0;
	return !S_ISFIFO(st.st_mode) || !rr_pipe_internal(fd, &st);
}

/*
 * What a write wrote, checked in the replay (RR_CALL_WRITE's data): a hash
 * of the first RR_OUT_HASH_MAX bytes of the n the call wrote, as one run of
 * bytes whatever the pieces of the iovec (a replay's writev may split them
 * otherwise). Not a cryptographic hash: it tells a replay that computed
 * other bytes (from what spool does not record: an rdrand or rdtsc
 * instruction, a file read through mmap, memory shared with another
 * process) from one that computed the same, so such a replay stops as a
 * divergence instead of printing other output with status 0.
 */
#define RR_OUT_HASH_MAX (256u << 10)
#define RR_OUT_K1 0x9e3779b97f4a7c15ull
#define RR_OUT_K2 0xff51afd7ed558ccdull

static inline uint64_t rr_out_mix(uint64_t h, uint64_t w)
{
	h ^= w * RR_OUT_K1;
	return (h << 31 | h >> 33) * RR_OUT_K2;
}

/* Four lanes over 32-byte blocks (their multiplies overlap: about four
 * times one chain's speed), the stream's tail kept in buf between the
 * iovec's pieces. */
struct rr_out_state {
	uint64_t lane[4];
	unsigned char buf[32];
	unsigned k; /* bytes in buf */
};

static inline void rr_out_block(struct rr_out_state *st, const unsigned char *p)
{
	uint64_t w[4];

	memcpy(w, p, 32);
	for (int i = 0; i < 4; i++)
		st->lane[i] = rr_out_mix(st->lane[i], w[i]);
}

static uint64_t rr_out_hash(const struct iovec *iov, int cnt, size_t n)
{
	struct rr_out_state st = {{RR_OUT_K2 ^ n, RR_OUT_K1, RR_OUT_K2, RR_OUT_K1 ^ n}, {0}, 0};
	uint64_t h, w;

	if (n > RR_OUT_HASH_MAX)
		n = RR_OUT_HASH_MAX;
	for (int i = 0; i < cnt && n; i++) {
		const unsigned char *p = iov[i].iov_base;
		size_t m = iov[i].iov_len < n ? iov[i].iov_len : n, c;

		n -= m;
		if (st.k) {
			c = 32 - st.k < m ? 32 - st.k : m;
			memcpy(st.buf + st.k, p, c);
			st.k += (unsigned)c;
			p += c;
			m -= c;
			if (st.k < 32)
				continue;
			rr_out_block(&st, st.buf);
			st.k = 0;
		}
		for (; m >= 32; m -= 32, p += 32)
			rr_out_block(&st, p);
		memcpy(st.buf, p, m);
		st.k = (unsigned)m;
	}
	h = st.lane[0] ^ (st.lane[1] << 17 | st.lane[1] >> 47) ^
	    (st.lane[2] << 37 | st.lane[2] >> 27) ^ (st.lane[3] << 53 | st.lane[3] >> 11);
	for (unsigned o = 0; o < st.k; o += 8) {
		w = 0;
		memcpy(&w, st.buf + o, st.k - o < 8 ? st.k - o : 8);
		h = rr_out_mix(h, w ^ (uint64_t)(st.k - o) << 56);
	}
	h ^= h >> 29;
	h *= RR_OUT_K1;
	return h ^ h >> 32;
}

/* Record: a write that wrote r > 0 bytes keeps their hash as its data. */
static void rr_write_rec(struct agent_thread *t, unsigned call, int fd, ssize_t r, int e,
			 uint64_t arg, const struct iovec *iov, int cnt)
{
	uint64_t h;
	struct agent_rr_seg seg = {&h, sizeof(h)};

	if (r > 0)
		h = rr_out_hash(iov, cnt, (size_t)r);
	agent_rr_rec_input(t, call, fd, r, r < 0 ? e : 0, arg, &seg, r > 0);
}

/* Replay: write the first n bytes of iov to fd, whatever it takes. */
static void rr_write_all(int fd, const struct iovec *iov, int cnt, size_t n)
{
	int i;

	for (i = 0; i < cnt && n; i++) {
		const char *p = iov[i].iov_base;
		size_t k = iov[i].iov_len < n ? iov[i].iov_len : n;

		n -= k;
		while (k) {
			/* (the raw call: libc's write is a cancellation point,
			 * and a replayed write that returned when recorded must
			 * not be where a replay acts on a cancellation) */
			ssize_t w = syscall(SYS_write, fd, p, k);

			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				return;
			p += w;
			k -= (size_t)w;
		}
	}
}

static ssize_t rr_write_replay(struct agent_thread *t, unsigned call, int fd,
			       const struct iovec *iov, int cnt)
{
	uint64_t arg = 0, order, want = 0;
	/* (the turn's record comes before the write's in the log) */
	int on = agent_rr_out_begin(t, fd);
	/* (a recording made before the writes kept their hash has none) */
	uint32_t has = agent_rr_rep_input_len(t, call) == sizeof(want);
	struct agent_rr_seg seg = {&want, sizeof(want)};
	ssize_t r = (ssize_t)agent_rr_rep_input(t, call, fd, &seg, has, &arg);
	int e = errno;

	order = RR_WRITE_ORDER(arg);
	/* stdio's write that wrote all it was asked: all of what it asks now
	 * (the same bytes, unless the replay runs with other arguments) */
	if (r >= 0 && (arg & RR_WRITE_WHOLE) && agent_rr_in_stdio && cnt == 1 &&
	    iov[0].iov_len <= SSIZE_MAX)
		r = (ssize_t)iov[0].iov_len;
	/* other bytes than recorded: stop before writing them, so what the
	 * replay wrote is what the recording wrote, up to here */
	if (has && r > 0 && (agent_rr_opts() & RR_O_OUT_CHECK)) {
		uint64_t got = rr_out_hash(iov, cnt, (size_t)r);

		if (got != want)
			agent_rr_diverge_output(call, fd, (uint64_t)r, want, got);
	}
	/* a tree: this write in its recorded place among the processes' */
	agent_rr_tree_wturn(order);
	if (r > 0 && rr_write_for_real(fd))
		rr_write_all(fd, iov, cnt, (size_t)r);
	agent_rr_out_end(on);
	agent_rr_tree_wdone(order);
	errno = e;
	return r;
}

/* Record: the write, in order among the processes of a tree when it goes
 * to spool's stdout or stderr (*order: its number + 1, else 0). The lock
 * is given back before the caller waits for the run token again. */
#define RR_ORDERED(fd, order, expr)                                                                \
	({                                                                                         \
		int o_ = agent_rr_tree_wbegin(fd), e2_;                                            \
		ssize_t w_ = (expr);                                                               \
		e2_ = errno;                                                                       \
		*(order) = o_ ? agent_rr_tree_wend() : 0;                                          \
		errno = e2_;                                                                       \
		w_;                                                                                \
	})

/* The hooks for whichever file interposes write/writev (agent_rr.h). */
ssize_t agent_rr_write(int fd, const void *buf, size_t n,
		       ssize_t (*real)(int, const void *, size_t))
{
	struct agent_thread *t;
	uint64_t order;
	ssize_t r;
	int e, on;

	if (RR_IO_OFF(t))
		return real(fd, buf, n);
	agent_rr_wake_write();
	if (RR_REPLAYING()) {
		struct iovec v = {(void *)buf, n};

		return rr_write_replay(t, RR_CALL_WRITE, fd, &v, 1);
	}
	on = agent_rr_out_begin(t, fd);
	/* (stdio's write keeps the token: a wait for a pager that drains
	 * the pipe is not stuck, agent_serial_peer.c) */
	if (AGENT_UNLIKELY(agent_rr_in_stdio))
		agent_serial_stdio_io(fd, 1);
	r = RR_BLOCK_IF(RR_CALL_WRITE, rr_fd_may_block(fd), ssize_t, RR_ORDERED(fd, &order, real(fd, buf, n)));
	e = errno;
	if (AGENT_UNLIKELY(agent_rr_in_stdio))
		agent_serial_stdio_io(-1, 1);
	agent_rr_out_end(on);
	if (agent_rr_in_stdio && r >= 0 && (size_t)r == n)
		order |= RR_WRITE_WHOLE;
	{
		struct iovec v = {(void *)buf, n};

		rr_write_rec(t, RR_CALL_WRITE, fd, r, e, order, &v, 1);
	}
	errno = e;
	return r;
}

ssize_t agent_rr_writev(int fd, const struct iovec *iov, int cnt,
			ssize_t (*real)(int, const struct iovec *, int))
{
	struct agent_thread *t;
	uint64_t order;
	ssize_t r;
	int e, on;

	if (RR_IO_OFF(t))
		return real(fd, iov, cnt);
	agent_rr_wake_write();
	if (RR_REPLAYING())
		return rr_write_replay(t, RR_CALL_WRITEV, fd, iov, cnt);
	on = agent_rr_out_begin(t, fd);
	r = RR_BLOCK_IF(RR_CALL_WRITEV, rr_fd_may_block(fd), ssize_t, RR_ORDERED(fd, &order, real(fd, iov, cnt)));
	e = errno;
	agent_rr_out_end(on);
	rr_write_rec(t, RR_CALL_WRITEV, fd, r, e, order, iov, cnt);
	errno = e;
	return r;
}

/* send, sendto, sendmsg (interposed by agent_sys.c, which calls these):
 * recorded like write (send, sendto) and writev (sendmsg), the result
 * only; serial record gives the token up around a send that may block (the
 * reader may be another thread of the program, which needs the token to
 * make room), a replay sends nothing and returns the recorded result. */
static ssize_t rr_send_rec(struct agent_thread *t, unsigned call, int fd, ssize_t r)
{
	int e = errno;

	agent_rr_rec_input(t, call, fd, r, r < 0 ? e : 0, 0, NULL, 0);
	errno = e;
	return r;
}

#define RR_SEND_MAY_BLOCK(fd, flags) (!((flags) & MSG_DONTWAIT) && rr_fd_may_block(fd))

ssize_t agent_rr_send(int fd, const void *buf, size_t n, int flags,
		      ssize_t (*real)(int, const void *, size_t, int))
{
	struct agent_thread *t;

	if (RR_IO_OFF(t))
		return real(fd, buf, n, flags);
	agent_rr_wake_write();
	if (RR_REPLAYING())
		return (ssize_t)agent_rr_rep_input(t, RR_CALL_WRITE, fd, NULL, 0, NULL);
	return rr_send_rec(t, RR_CALL_WRITE, fd,
			   RR_BLOCK_IF(RR_CALL_WRITE, RR_SEND_MAY_BLOCK(fd, flags), ssize_t,
				       real(fd, buf, n, flags)));
}

ssize_t agent_rr_sendto(int fd, const void *buf, size_t n, int flags, const struct sockaddr *a,
			unsigned alen,
			ssize_t (*real)(int, const void *, size_t, int, const struct sockaddr *,
					unsigned))
{
	struct agent_thread *t;

	if (RR_IO_OFF(t))
		return real(fd, buf, n, flags, a, alen);
	agent_rr_wake_write();
	if (RR_REPLAYING())
		return (ssize_t)agent_rr_rep_input(t, RR_CALL_WRITE, fd, NULL, 0, NULL);
	return rr_send_rec(t, RR_CALL_WRITE, fd,
			   RR_BLOCK_IF(RR_CALL_WRITE, RR_SEND_MAY_BLOCK(fd, flags), ssize_t,
				       real(fd, buf, n, flags, a, alen)));
}

ssize_t agent_rr_sendmsg(int fd, const struct msghdr *m, int flags,
			 ssize_t (*real)(int, const struct msghdr *, int))
{
	struct agent_thread *t;

	if (RR_IO_OFF(t))
		return real(fd, m, flags);
	agent_rr_wake_write();
	if (RR_REPLAYING())
		return (ssize_t)agent_rr_rep_input(t, RR_CALL_WRITEV, fd, NULL, 0, NULL);
	return rr_send_rec(t, RR_CALL_WRITEV, fd,
			   RR_BLOCK_IF(RR_CALL_WRITEV, RR_SEND_MAY_BLOCK(fd, flags), ssize_t, real(fd, m, flags)));
}

/* ---- sendfile, splice, tee, copy_file_range ----
 *
 * The kernel moves the bytes between two descriptors without the program
 * seeing them. Recorded: the result and the offsets the call left where
 * the program passed pointers (struct rr_xfer). Replayed from the log: a
 * replay waits for no writer (a pipe's writer may not run: spool replay
 * --pid) and sends nothing to a socket. The bytes are not in the log: when
 * the input is a regular file and the output is one a replayed write goes
 * to for real (a file, a terminal, spool's stdout), the replay moves the
 * recorded count for real, from the file as it is then (what the
 * recording did with `cat` copying a file: the copy is written); otherwise
 * the descriptors' offsets move as the recorded call moved them, and a
 * pipe the call read from in a replayed tree is drained by as much.
 * When the output is one a replay writes for real, the bytes are kept in
 * the log (RR_XFER_DATA): read back from a regular file (rr_xfer_src), or,
 * for a splice from a pipe, copied by a tee first (rr_splice_capture).
 * Serial record gives the token up around a call that may block.
 */
/* Replay: the recorded count moved for real, through a buffer (raw
 * read/pread and write/pwrite: the kernel's own move refuses some outputs
 * a replay gives, an O_APPEND file; nothing blocks on a regular file). */
static void rr_xfer_real(int in, const loff_t *oi, int out, const loff_t *oo, size_t n)
{
	char buf[4096];
	loff_t i0 = oi ? *oi : 0, o0 = oo ? *oo : 0;

	while (n) {
		long k = oi ? syscall(SYS_pread64, in, buf, n < sizeof(buf) ? n : sizeof(buf), (long)i0)
			    : syscall(SYS_read, in, buf, n < sizeof(buf) ? n : sizeof(buf));

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return;
		i0 += k;
		n -= (size_t)k;
		for (long done = 0; done < k;) {
			long w = oo ? syscall(SYS_pwrite64, out, buf + done, k - done, (long)o0)
				    : syscall(SYS_write, out, buf + done, k - done);

			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				return;
			done += w;
			o0 += w;
		}
	}
}

/* The decimal digits of v at p, with a NUL. */
static void rr_put_num(char *p, unsigned v)
{
	char d[12];
	int n = 0;

	do
		d[n++] = (char)('0' + v % 10);
	while ((v /= 10));
	while (n)
		*p++ = d[--n];
	*p = 0;
}

/* An anonymous buffer of n bytes (raw mmap: the program's mmap may be
 * interposed), or NULL. */
static void *rr_xfer_map(size_t n)
{
	long p = syscall(SYS_mmap, NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p < 0 && p > -4096 ? NULL : (void *)p;
}

/* Replay: write n bytes to fd (at *at when at is set), whatever it takes. */
static void rr_xfer_put(int fd, const char *p, size_t n, const loff_t *at)
{
	loff_t o = at ? *at : 0;

	while (n) {
		long w = at ? syscall(SYS_pwrite64, fd, p, n, (long)o) : syscall(SYS_write, fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		p += w;
		n -= (size_t)w;
		o += w;
	}
}

static ssize_t rr_xfer_replay(struct agent_thread *t, unsigned kind, int in, loff_t *oi, int out,
			      loff_t *oo)
{
	struct rr_xfer x = {-1, -1};
	struct agent_rr_seg s[2] = {{&x, sizeof(x)}, {NULL, 0}};
	struct stat st;
	uint64_t arg = 0;
	uint32_t len = agent_rr_rep_input_len(t, RR_CALL_XFER);
	ssize_t r;
	int e;

	/* the recorded bytes, when the recording kept them (a length the
	 * buffer cannot take: the call's data does not fit, a divergence) */
	if (len > sizeof(x) && len - sizeof(x) <= RR_XFER_DATA_MAX) {
		s[1].n = len - sizeof(x);
		s[1].p = rr_xfer_map(s[1].n);
		if (!s[1].p)
			s[1].n = 0;
	}
	r = (ssize_t)agent_rr_rep_input(t, RR_CALL_XFER, out, s, s[1].p ? 2 : 1, &arg);
	e = errno;
	if (r > 0 && (arg & RR_XFER_DATA) && s[1].p && s[1].n == (size_t)r) {
		int in_file = !rr_fstat(in, &st) && S_ISREG(st.st_mode);

		if (rr_write_for_real(out))
			rr_xfer_put(out, s[1].p, (size_t)r, oo);
		else if (!oo)
			syscall(SYS_lseek, out, (long)r, SEEK_CUR);
		if (!oi && kind != RR_XFER_TEE)
			syscall(SYS_lseek, in, (long)r, SEEK_CUR);
		if (!in_file && kind != RR_XFER_TEE)
			agent_rr_tree_drain(in, (size_t)r);
	} else if (r > 0) {
		int in_file = !rr_fstat(in, &st) && S_ISREG(st.st_mode);

		if (kind != RR_XFER_TEE && in_file && rr_write_for_real(out)) {
			rr_xfer_real(in, oi, out, oo, (size_t)r);
		} else {
			/* (ESPIPE for a pipe or a socket: nothing moves) */
			if (!oi && kind != RR_XFER_TEE)
				syscall(SYS_lseek, in, (long)r, SEEK_CUR);
			if (!oo)
				syscall(SYS_lseek, out, (long)r, SEEK_CUR);
			if (!in_file && kind != RR_XFER_TEE)
				agent_rr_tree_drain(in, (size_t)r);
		}
	}
	if (s[1].p)
		syscall(SYS_munmap, s[1].p, s[1].n);
	if (oi && x.off_in >= 0)
		*oi = x.off_in;
	if (oo && x.off_out >= 0)
		*oo = x.off_out;
	errno = e;
	return r;
}

/*
 * Record: where the bytes the call is about to move can be read back from
 * once it has moved them, when a replay writes them for real (the output
 * is a file, a terminal, a pipe the program does not read itself; not
 * /dev/null, not a socket, not tee's pipe): the input when it is a regular
 * file, else the output when it is one. *from = that descriptor and *at
 * the offset, or *from = -1.
 */
struct rr_xfer_src {
	int from;
	loff_t at;
	int out_real; /* the output is one a replay writes for real */
};

static struct rr_xfer_src rr_xfer_src(unsigned kind, int in, const loff_t *oi, int out,
				      const loff_t *oo)
{
	struct rr_xfer_src src = {-1, -1, 0};
	struct stat si, so;
	int e = errno;
	long fl;

	if (kind == RR_XFER_TEE || rr_fstat(out, &so) || S_ISSOCK(so.st_mode) ||
	    (S_ISFIFO(so.st_mode) && rr_pipe_internal(out, &so)) ||
	    (S_ISCHR(so.st_mode) && so.st_rdev == makedev(1, 3)))
		goto out;
	src.out_real = 1;
	if (!rr_fstat(in, &si) && S_ISREG(si.st_mode)) {
		src.from = in;
		src.at = oi ? *oi : syscall(SYS_lseek, in, 0, SEEK_CUR);
	} else if (S_ISREG(so.st_mode)) {
		fl = syscall(SYS_fcntl, out, F_GETFL);
		src.from = out;
		src.at = oo ? *oo
			    : fl >= 0 && (fl & O_APPEND) ? so.st_size
							 : syscall(SYS_lseek, out, 0, SEEK_CUR);
	}
	if (src.at < 0)
		src.from = -1;
out:
	errno = e;
	return src;
}

/*
 * Record: a splice from a pipe to an output a replay writes for real (a
 * terminal, spool's stdout, a pipe the program does not read itself). The
 * bytes are in no file to read back, so a replay wrote nothing where the
 * recording had written them (`spool replay` printed less). So tee
 * duplicates them first into a private pipe, without taking them from the
 * input: it waits for input as the splice would (the same flags), then the
 * splice moves at most that many, the first bytes of the copy, which are
 * read from the private pipe into cap (an anonymous mapping the caller
 * unmaps). A tee interrupted, or finding nothing with SPLICE_F_NONBLOCK,
 * returns what the splice would have; one that found the end of input or
 * failed otherwise (or no private pipe) leaves the splice to be made as it
 * was, no bytes kept. Another thread
 * reading the same pipe between the tee and the splice would make the copy
 * another's bytes (not seen in programs). The private pipe exists only
 * during the call (its two descriptors are the lowest free ones meanwhile).
 */
struct rr_xfer_cap {
	void *p;
	size_t n;
};

static ssize_t rr_splice_capture(int in, int out, loff_t *oo, size_t n, unsigned fl,
				 struct rr_xfer_cap *cap)
{
	int pp[2], e;
	ssize_t d, r;

	cap->p = NULL;
	cap->n = 0;
	/* (blocking: the kernel makes a tee between pipes non-blocking when
	 * either is O_NONBLOCK; it never waits on this empty one, and reads
	 * back only bytes it holds) */
	if (syscall(SYS_pipe2, pp, O_CLOEXEC) != 0)
		return real_splice(in, NULL, out, oo, n, fl);
	d = real_tee(in, pp[1], n, fl);
	if (d <= 0) {
		e = errno;
		syscall(SYS_close, pp[0]);
		syscall(SYS_close, pp[1]);
		/* interrupted, or nothing there with SPLICE_F_NONBLOCK: what
		 * the splice would have said (it waits for input like the
		 * tee); end of input or another error: the splice says it */
		if (d < 0 && (e == EINTR || e == EAGAIN)) {
			errno = e;
			return d;
		}
		return real_splice(in, NULL, out, oo, n, fl);
	}
	r = real_splice(in, NULL, out, oo, (size_t)d, fl);
	e = errno;
	if (r > 0 && (cap->p = rr_xfer_map((size_t)r))) {
		size_t got = 0;

		while (got < (size_t)r) {
			long k = syscall(SYS_read, pp[0], (char *)cap->p + got, (size_t)r - got);

			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0)
				break;
			got += (size_t)k;
		}
		if (got == (size_t)r) {
			cap->n = got;
		} else {
			syscall(SYS_munmap, cap->p, (size_t)r);
			cap->p = NULL;
		}
	}
	syscall(SYS_close, pp[0]);
	syscall(SYS_close, pp[1]);
	errno = e;
	return r;
}

static ssize_t rr_xfer_rec(struct agent_thread *t, unsigned kind, int in, const loff_t *oi,
			   int out, const loff_t *oo, ssize_t r, struct rr_xfer_src src,
			   const struct rr_xfer_cap *cap)
{
	int e = errno, nseg = 1;
	struct rr_xfer x = {oi ? *oi : -1, oo ? *oo : -1};
	struct agent_rr_seg s[2] = {{&x, sizeof(x)}, {NULL, 0}};
	uint64_t arg = kind | (uint64_t)(uint32_t)in << 32;
	size_t got = 0;

	if (r > 0 && cap && cap->p && cap->n == (size_t)r) {
		/* the bytes rr_splice_capture kept */
		s[1].p = cap->p;
		s[1].n = cap->n;
		nseg = 2;
		arg |= RR_XFER_DATA;
		src.from = -1;
	}
	/* the bytes moved, read back (a file another writer changed in
	 * between gives its bytes: the call's own are gone); an output
	 * opened write-only is read through a descriptor of its own */
	if (r > 0 && src.from >= 0 && (size_t)r <= RR_XFER_DATA_MAX &&
	    (s[1].p = rr_xfer_map((size_t)r))) {
		long fl = syscall(SYS_fcntl, src.from, F_GETFL);
		int rd = src.from;

		if (fl >= 0 && (fl & O_ACCMODE) == O_WRONLY) {
			char path[40] = "/proc/self/fd/";

			rr_put_num(path + 14, (unsigned)src.from);
			rd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
		}
		while (rd >= 0 && got < (size_t)r) {
			long k = syscall(SYS_pread64, rd, (char *)s[1].p + got,
					 (size_t)r - got, (long)(src.at + (loff_t)got));

			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0)
				break;
			got += (size_t)k;
		}
		if (rd >= 0 && rd != src.from)
			syscall(SYS_close, rd);
		if (got == (size_t)r) {
			s[1].n = got;
			nseg = 2;
			arg |= RR_XFER_DATA;
		}
	}
	agent_rr_rec_input(t, RR_CALL_XFER, out, r, r < 0 ? e : 0, arg, s, nseg);
	if (s[1].p && !(cap && s[1].p == cap->p))
		syscall(SYS_munmap, s[1].p, (size_t)r);
	errno = e;
	return r;
}

#define RR_XFER_MAY_BLOCK(in, out, fl)                                                             \
	(!((fl) & SPLICE_F_NONBLOCK) && (rr_fd_may_block(in) || rr_fd_may_block(out)))

AGENT_EXPORT ssize_t sendfile64(int out, int in, off_t *off, size_t n)
{
	struct agent_thread *t;
	struct rr_xfer_src src;
	ssize_t r;

	if (RR_IO_OFF(t))
		return real_sendfile(out, in, off, n);
	agent_rr_wake_write();
	if (RR_REPLAYING())
		return rr_xfer_replay(t, RR_XFER_SENDFILE, in, (loff_t *)off, out, NULL);
	src = rr_xfer_src(RR_XFER_SENDFILE, in, (loff_t *)off, out, NULL);
	r = RR_BLOCK_IF(RR_CALL_XFER, RR_XFER_MAY_BLOCK(in, out, 0), ssize_t,
			real_sendfile(out, in, off, n));
	return rr_xfer_rec(t, RR_XFER_SENDFILE, in, (loff_t *)off, out, NULL, r, src, NULL);
}

AGENT_EXPORT ssize_t sendfile(int out, int in, off_t *off, size_t n)
{
	return sendfile64(out, in, off, n);
}

AGENT_EXPORT ssize_t splice(int in, loff_t *oi, int out, loff_t *oo, size_t n, unsigned fl)
{
	struct agent_thread *t;
	struct rr_xfer_src src;
	ssize_t r;

	if (RR_IO_OFF(t))
		return real_splice(in, oi, out, oo, n, fl);
	agent_rr_wake_write();
	if (RR_REPLAYING())
		return rr_xfer_replay(t, RR_XFER_SPLICE, in, oi, out, oo);
	src = rr_xfer_src(RR_XFER_SPLICE, in, oi, out, oo);
	if (src.from < 0 && src.out_real && !oi && rr_fd_is_fifo(in)) {
		struct rr_xfer_cap cap;

		r = RR_BLOCK_IF(RR_CALL_XFER, RR_XFER_MAY_BLOCK(in, out, fl), ssize_t,
				rr_splice_capture(in, out, oo, n, fl, &cap));
		r = rr_xfer_rec(t, RR_XFER_SPLICE, in, oi, out, oo, r, src, &cap);
		if (cap.p) {
			int e = errno;

			syscall(SYS_munmap, cap.p, cap.n);
			errno = e;
		}
		return r;
	}
	r = RR_BLOCK_IF(RR_CALL_XFER, RR_XFER_MAY_BLOCK(in, out, fl), ssize_t,
			real_splice(in, oi, out, oo, n, fl));
	return rr_xfer_rec(t, RR_XFER_SPLICE, in, oi, out, oo, r, src, NULL);
}

AGENT_EXPORT ssize_t tee(int in, int out, size_t n, unsigned fl)
{
	struct agent_thread *t;
	struct rr_xfer_src none = {-1, -1, 0};

	if (RR_IO_OFF(t))
		return real_tee(in, out, n, fl);
	agent_rr_wake_write();
	if (RR_REPLAYING())
		return rr_xfer_replay(t, RR_XFER_TEE, in, NULL, out, NULL);
	return rr_xfer_rec(t, RR_XFER_TEE, in, NULL, out, NULL,
			   RR_BLOCK_IF(RR_CALL_XFER, RR_XFER_MAY_BLOCK(in, out, fl), ssize_t,
				       real_tee(in, out, n, fl)),
			   none, NULL);
}

AGENT_EXPORT ssize_t copy_file_range(int in, loff_t *oi, int out, loff_t *oo, size_t n,
				     unsigned fl)
{
	struct agent_thread *t;
	struct rr_xfer_src src;
	ssize_t r;

	if (RR_IO_OFF(t))
		return real_copy_file_range(in, oi, out, oo, n, fl);
	agent_rr_wake_write();
	if (RR_REPLAYING())
		return rr_xfer_replay(t, RR_XFER_COPY, in, oi, out, oo);
	src = rr_xfer_src(RR_XFER_COPY, in, oi, out, oo);
	r = RR_BLOCK_IF(RR_CALL_XFER, RR_XFER_MAY_BLOCK(in, out, 0), ssize_t,
			real_copy_file_range(in, oi, out, oo, n, fl));
	return rr_xfer_rec(t, RR_XFER_COPY, in, oi, out, oo, r, src, NULL);
}

/* Weak: the system probes (agent_sys.c) interpose the write family too;
 * their strong definitions win and must call the hooks above. */
AGENT_EXPORT __attribute__((weak)) ssize_t write(int fd, const void *buf, size_t n)
{
	return agent_rr_write(fd, buf, n, real_write);
}

AGENT_EXPORT __attribute__((weak)) ssize_t writev(int fd, const struct iovec *iov, int cnt)
{
	return agent_rr_writev(fd, iov, cnt, real_writev);
}
