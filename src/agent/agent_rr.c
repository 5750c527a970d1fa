// SPDX-License-Identifier: MIT
/*
 * agent_rr.c - record and replay in sync mode (doc/record.md): thread
 * numbers, per-object turns, the KIND_SCHED / KIND_INPUT records, the
 * replay cursor over the log the host placed in the feature area, the turn
 * waits, and the reports of a replay that diverges or gets stuck.
 *
 * Thread numbers: the main thread is 0; pthread_create takes a turn of the
 * pseudo-object 0 and the new thread's number is that turn + 1, so the
 * numbering is the recorded creation order in the replay too.
 *
 * Signal safety and the agent rules: no malloc, no stdio, no libc lock.
 * Waits are futex waits on the turn words (private futexes: the words are
 * only used by the threads of one process). A thread that diverges or waits
 * too long writes the report into the area, sets RR_F_STOP and parks; the
 * host sees the flag and kills the replay (the agent never exits the target).
 * Records are written losslessly: when the ring is full the thread waits for
 * the collector rather than drop a record a replay would need.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <linux/futex.h>
#include <signal.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "agent_rr.h"
#include "agent_rr_cpuid.h"
#include "agent_rr_dispatch.h"
#include "agent_serial.h"
#include "agent_snap.h"

int agent_rr_mode;
uint32_t agent_rr_stuck_ms;

static struct rr_area *rr_area;
/* Process trees (agent_rr_proc.c): this process's number in the high bits
 * of every record's thread field (rr_area.h). */
static uint32_t rr_proc_bits;
/* What the replay only reads (the logs, first[], order[], sw[]): the area,
 * or the replay image the host named in it (rr_img.c), mapped read-only. */
const char *agent_rr_ro;
static uint32_t *rr_turn, *rr_objmap, *rr_first;
/* Record: turn[], mapped 16,384 words at a time as objects are numbered
 * (agent_lazy.c; 4 MiB whole); rr_turn_max words it can reach. A replay
 * maps the area whole and uses rr_turn. rr_turn0: turn[0], the thread
 * creations, in both. */
static struct agent_lazy rr_turns;
static uint32_t rr_turn_max, *rr_turn0;
static struct rr_thread_slot *rr_threads;
static struct rr_order *rr_order;
static uint32_t rr_chunk; /* data bytes per KIND_INPUT record */
/* Schedule, switch and input records go into the trace: always when
 * recording; in a replay only with RR_O_TRACE_SCHED, since each replayed
 * event is checked against the log already and writing them all again
 * was a third of a lock-heavy replay. */
static int rr_trace_sched;

#define RR_SP_SEEN 16 /* a power of 2 */

/* Per-thread record/replay state. */
struct agent_rr_tls {
	uint32_t id;	   /* thread number */
	uint32_t tseq;	   /* events recorded / replayed */
	uint8_t has_id;
	uint32_t ktid;	   /* record: gettid of the thread this state is of; 0 unknown */
	/* record, dispatch off: frame addresses of recorded calls the kernel
	 * said ktid made (rr_rec_intruder); 0 empty */
	uintptr_t sp_seen[RR_SP_SEEN];
	uint64_t cur, end; /* replay: offsets of the next record and the log's end */
	const struct rec_sched *pending; /* replay: the sync event in progress */
};
static __thread struct agent_rr_tls rr_self;

static const char *const rr_op_names[OP_MAX] = {
	[OP_ACQUIRE] = "lock",		   [OP_ACQUIRE_RD] = "rdlock",
	[OP_ACQUIRE_TRY] = "trylock",	   [OP_ACQUIRE_TRY_RD] = "tryrdlock",
	[OP_SEM_POST] = "sem_post",	   [OP_COND_WAIT] = "cond_wait",
	[OP_BARRIER_ENTER] = "barrier_wait", [OP_THREAD_CREATE] = "pthread_create",
	[OP_THREAD_JOIN_END] = "pthread_join",
};
static const char *const rr_call_names[RR_CALL_MAX] = {
	[RR_CALL_READ] = "read",
	[RR_CALL_PREAD] = "pread",
	[RR_CALL_READV] = "readv",
	[RR_CALL_PREADV] = "preadv",
	[RR_CALL_RECV] = "recv",
	[RR_CALL_RECVFROM] = "recvfrom",
	[RR_CALL_RECVMSG] = "recvmsg",
	[RR_CALL_ACCEPT] = "accept",
	[RR_CALL_POLL] = "poll",
	[RR_CALL_SELECT] = "select",
	[RR_CALL_EPOLL_WAIT] = "epoll_wait",
	[RR_CALL_CLOCK_GETTIME] = "clock_gettime",
	[RR_CALL_GETTIMEOFDAY] = "gettimeofday",
	[RR_CALL_TIME] = "time",
	[RR_CALL_GETRANDOM] = "getrandom",
	[RR_CALL_GETPID] = "getpid",
	[RR_CALL_GETTID] = "gettid",
	[RR_CALL_NANOSLEEP] = "nanosleep",
	[RR_CALL_CLOCK_NANOSLEEP] = "clock_nanosleep",
	[RR_CALL_SIGWAIT] = "pause/sigsuspend",
	[RR_CALL_SIGTIMEDWAIT] = "sigwait/sigwaitinfo/sigtimedwait",
	[RR_CALL_GETPEERNAME] = "getpeername",
	[RR_CALL_GETSOCKNAME] = "getsockname",
	[RR_CALL_KILL] = "kill/pthread_kill/raise/sigqueue/tgkill",
	[RR_CALL_WRITE] = "write",
	[RR_CALL_WRITEV] = "writev",
	[RR_CALL_STAT] = "stat/lstat/fstatat/fstat",
	[RR_CALL_ACCESS] = "access/faccessat",
	[RR_CALL_MKDIR] = "mkdir/mkdirat",
	[RR_CALL_OPEN_EXCL] = "open/openat (O_CREAT|O_EXCL)",
	[RR_CALL_OPENDIR] = "opendir/fdopendir",
	[RR_CALL_READDIR] = "readdir",
	[RR_CALL_TELLDIR] = "telldir",
	[RR_CALL_GETDENTS] = "getdents64",
	[RR_CALL_READLINK] = "readlink/readlinkat",
	[RR_CALL_REALPATH] = "realpath/getcwd",
	[RR_CALL_NAMEOP] = "unlink/rmdir/rename",
	[RR_CALL_STATX] = "statx",
	[RR_CALL_XATTR] = "getxattr/lgetxattr/listxattr/llistxattr",
	[RR_CALL_OPEN] = "open/openat",
	[RR_CALL_SOCKET] = "socket",
	[RR_CALL_SOCKETPAIR] = "socketpair",
	[RR_CALL_CONNECT] = "connect",
	[RR_CALL_BIND] = "bind",
	[RR_CALL_LISTEN] = "listen",
	[RR_CALL_SHUTDOWN] = "shutdown",
	[RR_CALL_SETSOCKOPT] = "setsockopt",
	[RR_CALL_GETSOCKOPT] = "getsockopt",
	[RR_CALL_RECV_ADDR] = "recvfrom (address)",
	[RR_CALL_RECVMSG_META] = "recvmsg (name, control)",
	[RR_CALL_GETADDRINFO] = "getaddrinfo",
	[RR_CALL_GETNAMEINFO] = "getnameinfo",
	[RR_CALL_RECVMMSG] = "recvmmsg",
	[RR_CALL_SENDMMSG] = "sendmmsg",
	[RR_CALL_SYSINFO] = "sysinfo",
	[RR_CALL_WAKE] = "(the writes a wake-up waited for)",
	[RR_CALL_WAKE_MORE] = "(the writes a wake-up waited for, threads 128 and up)",
	[RR_CALL_TIMER_OVERRUN] = "timer_getoverrun",
	[RR_CALL_CPUID] = "cpuid",
	[RR_CALL_RUSAGE] = "getrusage",
	[RR_CALL_TIMES] = "times",
	[RR_CALL_FORK] = "fork/vfork",
	[RR_CALL_SPAWN] = "posix_spawn",
	[RR_CALL_WAIT] = "wait/waitpid/wait4",
	[RR_CALL_WAITID] = "waitid",
	[RR_CALL_HOSTENT] = "gethostbyname/gethostbyaddr",
	[RR_CALL_SERVENT] = "getservbyname/getservbyport",
	[RR_CALL_RESOLV] = "res_query/res_search/res_send",
	[RR_CALL_FTW] = "ftw/nftw",
	[RR_CALL_XFER] = "sendfile/splice/tee/copy_file_range",
	[RR_CALL_CANCEL] = "cancelled in",
	[RR_CALL_TESTCANCEL] = "pthread_testcancel",
};

/* ---- report text (no stdio in the agent) ---- */

/* (struct rr_buf, rr_puts, rr_putu: agent_rr.h) */

static void rr_puti(struct rr_buf *b, int64_t v)
{
	if (v < 0) {
		rr_puts(b, "-");
		rr_putu(b, -(uint64_t)v);
	} else {
		rr_putu(b, (uint64_t)v);
	}
}

static void rr_putx(struct rr_buf *b, uint64_t v)
{
	char tmp[20];
	int n = 0;

	do {
		tmp[n++] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	rr_puts(b, "0x");
	while (n && b->n + 1 < b->cap)
		b->p[b->n++] = tmp[--n];
	b->p[b->n] = 0;
}

static const char *const rr_fd_names[RR_FD_MAX] = {
	[RR_FD_OPEN] = "open",
	[RR_FD_CLOSE] = "close",
	[RR_FD_DUP] = "dup",
	[RR_FD_DUP2] = "dup2",
	[RR_FD_PIPE] = "pipe",
	[RR_FD_SOCKET] = "socket",
	[RR_FD_SOCKETPAIR] = "socketpair",
	[RR_FD_ACCEPT] = "accept",
	[RR_FD_EVENTFD] = "eventfd",
	[RR_FD_EPOLL] = "epoll_create",
	[RR_FD_SIGNALFD] = "signalfd",
	[RR_FD_TIMERFD] = "timerfd_create",
	[RR_FD_MEMFD] = "memfd_create",
	[RR_FD_FOPEN] = "fopen",
	[RR_FD_FCLOSE] = "fclose",
	[RR_FD_OPENDIR] = "opendir",
	[RR_FD_CLOSEDIR] = "closedir",
	[RR_FD_CLOSE_RANGE] = "close_range",
	[RR_FD_MKSTEMP] = "mkstemp",
	[RR_FD_OTHER] = "a call that makes a descriptor",
	[RR_FD_LOOKUP] = "a name lookup",
};

static const char *rr_fd_name(unsigned call)
{
	return call < RR_FD_MAX && rr_fd_names[call] ? rr_fd_names[call] : "?";
}

/* The calls whose descriptor argument an RR_OP_FDTAB record keeps in its
 * second number (the others keep a second result there, or nothing). */
static int rr_fd_two_results(unsigned call)
{
	return call == RR_FD_PIPE || call == RR_FD_SOCKETPAIR;
}

/* "close of descriptor 5 returning 0", "pipe returning 3 and 4",
 * "open failing (errno 2)". */
static void rr_put_fd(struct rr_buf *b, unsigned call, int64_t result, int err, int fd2)
{
	rr_puts(b, rr_fd_name(call));
	if (!rr_fd_two_results(call) && call != RR_FD_OPEN && call != RR_FD_FOPEN &&
	    call != RR_FD_OPENDIR && call != RR_FD_MKSTEMP && call != RR_FD_OTHER &&
	    call != RR_FD_EVENTFD && call != RR_FD_EPOLL && call != RR_FD_TIMERFD &&
	    call != RR_FD_MEMFD && call != RR_FD_SOCKET) {
		rr_puts(b, " of descriptor ");
		rr_puti(b, fd2);
	}
	if (result < 0) {
		rr_puts(b, " failing (errno ");
		rr_puti(b, err);
		rr_puts(b, ")");
		return;
	}
	rr_puts(b, " returning ");
	rr_puti(b, result);
	if (rr_fd_two_results(call)) {
		rr_puts(b, " and ");
		rr_puti(b, fd2);
	}
}

static const char *rr_op_name(unsigned op)
{
	if (op == RR_OP_ONCE)
		return "pthread_once";
	if (op == RR_OP_SIGNAL)
		return "signal";
	if (op == RR_OP_FDTAB)
		return "a descriptor call";
	return op < OP_MAX && rr_op_names[op] ? rr_op_names[op] : "?";
}

static const char *rr_call_name(unsigned call)
{
	return call < RR_CALL_MAX && rr_call_names[call] ? rr_call_names[call] : "?";
}


/* An input record's fd field, named for what it holds: a clock id for the
 * clock calls, a signal for the sends, a descriptor otherwise ("clock_gettime
 * (fd 1)" in a divergence report read as a descriptor). */
static void rr_put_call_arg(struct rr_buf *b, unsigned call, int fd)
{
	switch (call) {
	case RR_CALL_CLOCK_GETTIME:
	case RR_CALL_CLOCK_NANOSLEEP:
		rr_puts(b, "(clock ");
		break;
	case RR_CALL_KILL:
		rr_puts(b, "(signal ");
		break;
	case RR_CALL_RUSAGE:
		rr_puts(b, "(who ");
		break;
	default:
		rr_puts(b, "(fd ");
	}
	rr_puti(b, fd);
	rr_puts(b, ")");
}
/* Describe a recorded event: "lock of object 3 (turn 7, result 0)". */
static void rr_put_rec(struct rr_buf *b, const struct rec_hdr *h)
{
	if (ev_kind(h->word) == KIND_SCHED && ((const struct rec_sched *)h)->op == RR_OP_FDTAB) {
		const struct rec_sched *s = (const struct rec_sched *)h;

		rr_put_fd(b, RR_FD_ARG_CALL(s->arg), s->result, RR_FD_ARG_ERR(s->arg),
			  RR_FD_ARG_FD2(s->arg));
		rr_puts(b, " (descriptor table turn ");
		rr_putu(b, s->turn);
		rr_puts(b, ")");
	} else if (ev_kind(h->word) == KIND_SCHED) {
		const struct rec_sched *s = (const struct rec_sched *)h;

		rr_puts(b, rr_op_name(s->op));
		rr_puts(b, " on object ");
		rr_putu(b, s->obj);
		if (s->turn != RR_NO_TURN) {
			rr_puts(b, " (turn ");
			rr_putu(b, s->turn);
			rr_puts(b, ")");
		}
		rr_puts(b, " returning ");
		rr_puti(b, s->result);
	} else if (ev_kind(h->word) == KIND_INPUT) {
		const struct rec_input *in = (const struct rec_input *)h;

		rr_puts(b, rr_call_name(in->call));
		if (in->call == RR_CALL_CANCEL) {
			/* fd is the call the thread was cancelled in */
			rr_puts(b, " ");
			rr_puts(b, rr_call_name((unsigned)in->fd));
			rr_puts(b, " (pthread_cancel)");
			return;
		}
		rr_put_call_arg(b, in->call, in->fd);
		rr_puts(b, " returning ");
		rr_puti(b, in->result);
		rr_puts(b, " with ");
		rr_putu(b, in->len);
		rr_puts(b, " bytes");
	} else {
		rr_puts(b, "a record of kind ");
		rr_putu(b, ev_kind(h->word));
	}
}

/* A replay (or a stopped recording) whose spool is gone: nothing will
 * ever let this thread go on, so the process ends the way spool would have
 * ended it, by SIGKILL (doc/record.md). Called once a wait round. */
static void rr_end_if_host_gone(void)
{
	if (agent_host_gone())
		syscall(SYS_kill, (pid_t)syscall(SYS_getpid), SIGKILL);
}

/* Park the thread until the host kills the process (it stops a replay, or
 * a recording the watchdog stopped); without spool, itself (asked every
 * second). */
static void __attribute__((noreturn)) rr_park(void)
{
	static uint32_t never;
	struct timespec ts = {1, 0};

	for (;;) {
		syscall(SYS_futex, &never, FUTEX_WAIT_PRIVATE, 0, &ts, NULL, 0);
		rr_end_if_host_gone();
	}
}

/* Claim the report (first one wins), fill it with fn, stop the replay. */
static struct rr_buf rr_report_begin(int *mine)
{
	struct rr_buf b = {rr_area->report, 0, RR_REPORT_BYTES};

	*mine = !__atomic_exchange_n(&rr_area->report_set, 1, __ATOMIC_ACQ_REL);
	return b;
}

static void __attribute__((noreturn)) rr_report_end(int mine, uint32_t flag)
{
	__atomic_fetch_or(&rr_area->flags, flag | RR_F_STOP, __ATOMIC_ACQ_REL);
	agent_rr_tree_stopped();
	agent_wake();
	rr_park();
}

/* Other threads of the replay still running (created, not ended, not
 * parked at the end of their log), for the report of a divergence. */
static uint32_t rr_running_others(uint32_t *created)
{
	uint32_t n = 0, i, c;

	*created = 1;
	if (!rr_turn || !rr_threads || !(agent_rr_mode & RR_MODE_REPLAY))
		return 0;
	c = __atomic_load_n(&rr_turn[0], __ATOMIC_ACQUIRE) + 1;
	if (c > rr_area->max_threads)
		c = rr_area->max_threads;
	/* turn[0] counts the creations whose turn is done; in sync mode a new
	 * thread runs (and may diverge) before its creator's turn ends: the
	 * threads that started count too (node: "only one thread had been
	 * created" said of a divergence in thread 1). */
	for (i = c; i < rr_area->max_threads; i++)
		if (__atomic_load_n(&rr_threads[i].started, __ATOMIC_ACQUIRE))
			c = i + 1;
	if (c <= rr_self.id && rr_self.id < rr_area->max_threads)
		c = rr_self.id + 1;
	*created = c;
	for (i = 0; i < c; i++)
		if (i != rr_self.id && __atomic_load_n(&rr_threads[i].started, __ATOMIC_ACQUIRE) == 1)
			n++;
	return n;
}

/* Replay: how far the replay's threads have got, all of them together (the
 * sum of their replayed events). A wait for another thread (its events, a
 * signal it sends, a cancellation) is stuck when this stops moving for
 * --stuck-ms, not when the wait itself is that long: under load (2 CPUs, 30
 * runnable processes, AddressSanitizer) the threads ahead of it may replay
 * a thousand turns of a mutex for longer than that, and the wait ended
 * as recorded once they had (tests/integ/129, sync pause and self). */
uint64_t agent_rr_progress_mark(void)
{
	uint64_t sum = 0;

	if (!rr_area || !rr_threads || !(agent_rr_mode & RR_MODE_REPLAY))
		return 0;
	for (uint32_t i = 0; i < rr_area->max_threads; i++)
		sum += __atomic_load_n(&rr_threads[i].done, __ATOMIC_ACQUIRE);
	return sum;
}

/* ", called from SYMBOL+0xOFF (FILE)" for the program's code address ip
 * (the dynamic symbol that holds it, as dladdr finds it; spool replay
 * demangles a C++ name), or ", called from FILE+0xOFF" when no exported
 * symbol covers it (a static function: dladdr's nearest symbol below
 * would name the wrong one). Only on the way to a divergence report:
 * dladdr takes the loader's lock, no malloc. */
static void rr_put_site(struct rr_buf *b, uint64_t ip)
{
	const ElfW(Sym) *sym = NULL;
	uint64_t at = ip - 1; /* (ip is a return address: ip - 1 is in the caller) */
	Dl_info di;

	rr_puts(b, ", called from ");
	if (!dladdr1((void *)(uintptr_t)at, &di, (void **)&sym, RTLD_DL_SYMENT) || !di.dli_fname) {
		rr_putx(b, ip);
		return;
	}
	if (di.dli_sname && di.dli_saddr && sym && at - (uintptr_t)di.dli_saddr < sym->st_size) {
		rr_puts(b, di.dli_sname);
		rr_puts(b, "+");
		rr_putx(b, ip - (uintptr_t)di.dli_saddr);
		rr_puts(b, " (");
		rr_puts(b, di.dli_fname[0] ? di.dli_fname : "the program");
		rr_puts(b, ")");
		return;
	}
	rr_puts(b, di.dli_fname[0] ? di.dli_fname : "the program");
	rr_puts(b, "+");
	rr_putx(b, ip - (uintptr_t)di.dli_fbase);
}

/* The head of a divergence report: the cause (RR_CAUSE_*, rr_area.h,
 * which spool replay's advice follows), and "replay diverged in thread T at
 * its event N: ". */
static void rr_diverge_head(struct rr_buf *b, uint32_t cause, uint32_t event)
{
	rr_area->cause = cause;
	rr_area->cause_running = rr_running_others(&rr_area->cause_threads);
	rr_puts(b, "replay diverged in thread ");
	rr_putu(b, rr_self.id);
	rr_puts(b, " at its event ");
	rr_putu(b, event);
	rr_puts(b, ": ");
}

/* What the report adds after the difference itself. */
static void rr_diverge_tail(struct rr_buf *b)
{
	agent_rr_cpuid_note(b); /* a feature of the recording's CPU missing here */
}

/* What the replay did that the recording does not match. */
static void __attribute__((noreturn)) rr_diverge(uint32_t cause, const struct rec_hdr *want,
						 const char *what, uint32_t idx, const void *addr,
						 const char *why)
{
	int mine;
	struct rr_buf b = rr_report_begin(&mine);

	if (mine) {
		rr_diverge_head(&b, cause, rr_self.tseq + 1);
		rr_puts(&b, why);
		rr_puts(&b, "\n  recorded: ");
		if (want)
			rr_put_rec(&b, want);
		else
			rr_puts(&b, "nothing (the thread's recording ends here)");
		rr_puts(&b, "\n  replay:   ");
		rr_puts(&b, what);
		if (idx) {
			rr_puts(&b, " on lock ");
			rr_putx(&b, (uintptr_t)addr);
			rr_puts(&b, " (this run's lock index ");
			rr_putu(&b, idx);
			rr_puts(&b, ")");
			if (agent_rr_site)
				rr_put_site(&b, agent_rr_site);
		}
		rr_diverge_tail(&b);
	}
	rr_report_end(mine, 0);
}

/* The record the thread replayed last (a cancelled call's, for the report
 * of agent_rr_diverge_text). */
static __thread const struct rec_hdr *rr_last_rec;

void agent_rr_diverge_text(const char *what, const char *why)
{
	rr_diverge(RR_CAUSE_CALLS, rr_last_rec, what, 0, NULL, why);
}

void agent_rr_diverge_output(unsigned call, int fd, uint64_t n, uint64_t want, uint64_t got)
{
	int mine;
	struct rr_buf b = rr_report_begin(&mine);

	if (mine) {
		/* (the write's record is replayed: tseq counts it) */
		rr_diverge_head(&b, RR_CAUSE_OUTPUT, rr_self.tseq);
		rr_puts(&b, "the write's bytes differ from the recorded ones (not written)\n"
			    "  recorded: ");
		rr_puts(&b, rr_call_name(call));
		rr_put_call_arg(&b, call, fd);
		rr_puts(&b, " of ");
		rr_putu(&b, n);
		rr_puts(&b, " bytes, hash ");
		rr_putx(&b, want);
		rr_puts(&b, "\n  replay:   the same call and length, hash ");
		rr_putx(&b, got);
	}
	rr_report_end(mine, 0);
}

static void rr_lost(const char *why)
{
	int mine;
	struct rr_buf b = {rr_area->report, 0, RR_REPORT_BYTES};

	__atomic_fetch_add(&rr_area->lost, 1, __ATOMIC_RELAXED);
	if (__atomic_fetch_or(&rr_area->flags, RR_F_LOST, __ATOMIC_ACQ_REL) & RR_F_LOST)
		return;
	mine = !__atomic_exchange_n(&rr_area->report_set, 1, __ATOMIC_ACQ_REL);
	if (mine)
		rr_puts(&b, why);
	agent_log("record/replay: %s", why);
}

/* ---- writing records ---- */

static uint64_t rr_now_ns(void)
{
	struct timespec ts;

	/* Raw syscall: never through the interposed clock_gettime. */
	syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Reserve len bytes, waiting for the collector when the ring is full: a
 * schedule with a hole cannot be replayed. Gives up after 20 s, or as soon
 * as spool is gone (asked every 10 ms: nothing else would ever free room;
 * from then on no record waits). */
static void *rr_reserve(struct agent_thread *t, uint32_t len)
{
	struct ring_prod *p = &t->prod;
	uint64_t start = 0;
	unsigned rounds = 0;

	/* 2 * len covers a wrap's pad (less than len) plus the record. The
	 * cached tail first: it only grows, so it is a safe bound, and reading
	 * the real one pulls the collector's cache line over on every record. */
	if (AGENT_LIKELY(p->head + 2ull * len - p->tail <= p->size))
		return ring_prod_reserve(p, len);
	for (;;) {
		p->tail = __atomic_load_n(&p->ring->tail, __ATOMIC_ACQUIRE);
		if (p->head + 2ull * len - p->tail <= p->size)
			break;
		if (__atomic_load_n(&agent_gone, __ATOMIC_RELAXED) ||
		    (++rounds % 50 == 0 && agent_host_gone()))
			return NULL;
		if (!start)
			start = rr_now_ns();
		else if (rr_now_ns() - start > 20000000000ull) {
			rr_lost("a ring stayed full for 20 s: the recording is incomplete");
			return NULL;
		}
		__atomic_store_n(&p->ring->woke, 0, __ATOMIC_RELAXED);
		agent_wake();
		{
			struct timespec ts = {0, 200000};

			syscall(SYS_nanosleep, &ts, NULL);
		}
	}
	return ring_prod_reserve(p, len);
}

static void rr_commit(struct agent_thread *t, struct rec_hdr *h, uint32_t len, uint32_t seq)
{
	h->tsc = __rdtsc();
	h->seq = seq;
	h->size = len;
	if (ring_prod_commit(&t->prod, len))
		agent_wake();
}

/* Sync record: each thread's latest event number, for RR_CALL_WAKE (below).
 * Threads numbered below RR_WAKE_THREADS go in RR_CALL_WAKE's pairs, the
 * others in RR_CALL_WAKE_MORE's triples; rr_wake_hi is 1 + the highest
 * such other thread number that has a count (the record scans no further;
 * the arrays are bss, touched only up to there). */
#define RR_WAKE_THREADS 128
/* (one buffer of 1 KiB on the stack holds either record's data) */
_Static_assert(3 * RR_WAKE_MORE_MAX <= 2 * RR_WAKE_THREADS, "RR_CALL_WAKE_MORE's triples fit");
static uint32_t rr_wake_tseq[RR_MAX_THREADS];
static uint32_t rr_wake_hi;

/* A thread numbered RR_WAKE_THREADS or more is about to count: raise
 * rr_wake_hi to cover it. */
static void rr_wake_hi_raise(uint32_t id)
{
	uint32_t hi = __atomic_load_n(&rr_wake_hi, __ATOMIC_ACQUIRE);

	while (hi <= id && !__atomic_compare_exchange_n(&rr_wake_hi, &hi, id + 1, 0,
							 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		;
}

static inline void rr_wake_publish(uint32_t tseq)
{
	if (agent_rr_mode != RR_MODE_RECORD || rr_self.id >= RR_MAX_THREADS)
		return;
	if (AGENT_UNLIKELY(rr_self.id >= RR_WAKE_THREADS))
		rr_wake_hi_raise(rr_self.id);
	__atomic_store_n(&rr_wake_tseq[rr_self.id], tseq, __ATOMIC_RELEASE);
}

static void rr_emit_sched(struct agent_thread *t, uint32_t idx, uint32_t tseq, uint32_t obj,
			  uint32_t turn, unsigned op, int result, uint64_t arg)
{
	struct rec_sched *r;
	uint32_t seq;

	if (!rr_trace_sched)
		return;
	rr_wake_publish(tseq);
	t->busy++;
	seq = ++t->seq;
	t->prod.ring->last_seq = seq;
	r = rr_reserve(t, sizeof(*r));
	if (r) {
		r->h.word = ev_word(KIND_SCHED, t->index, idx, op);
		r->thread = rr_self.id | rr_proc_bits;
		r->tseq = tseq;
		r->obj = obj;
		r->turn = turn;
		r->op = op;
		r->result = result;
		r->arg = arg;
		rr_commit(t, &r->h, sizeof(*r), seq);
	}
	t->busy--;
}

/* ---- signals (agent_rr_signal.c) ---- */

static __thread uint8_t rr_in_signal; /* a handler runs: no nested delivery */

int agent_rr_sig_thread_ok(void)
{
	return rr_self.has_id;
}

void agent_rr_sig_unnumbered(void)
{
	/* atomics and a copy into the shared area: signal-safe */
	rr_lost("a signal sent to a thread spool had not numbered yet ran its handler "
		"unrecorded (the thread started with a mask of its own, "
		"pthread_attr_setsigmask_np, or spool could not number it)");
}

/* ---- signals as synchronization (sync mode) ---- */

/* The program is about to send sig (agent_rr_signal.c): count it, before
 * the send, so that whoever receives it sees the count. Recording and
 * replaying alike (the replay's count is what receipts wait for). */
void agent_rr_sig_sent(int sig)
{
	if (rr_area && sig > 0 && sig < 65)
		__atomic_fetch_add(&rr_area->sig_sends[sig], 1, __ATOMIC_SEQ_CST);
}

/* Record: the sends of sig counted so far (kept with a receipt). */
uint32_t agent_rr_sig_sends(int sig)
{
	if (!rr_area || sig <= 0 || sig >= 65)
		return 0;
	return __atomic_load_n(&rr_area->sig_sends[sig], __ATOMIC_SEQ_CST);
}

/*
 * Replay, sync mode: a receipt of sig recorded after want sends of it waits
 * for them. Sync mode orders objects, not threads: a replayed sigwait
 * returns its recorded signal at once, and the thread went on before the
 * sender had sent it (and before what the sender did first). A short spin,
 * then 50 us naps; a wait past --stuck-ms stops the replay.
 */
void agent_rr_sig_wait_sends(int sig, uint32_t want)
{
	uint64_t start = 0, now, mark, seen = 0;
	struct timespec nap = {0, 50000};
	int spins = 0;

	if (!rr_area || !(rr_area->opts & RR_O_KILLS) || (agent_rr_mode & RR_MODE_SERIAL) ||
	    sig <= 0 || sig >= 65)
		return;
	while (__atomic_load_n(&rr_area->sig_sends[sig], __ATOMIC_SEQ_CST) < want) {
		if (++spins < 100) {
			_mm_pause();
			continue;
		}
		now = rr_now_ns();
		mark = agent_rr_progress_mark();
		if (!start || mark != seen) {
			start = now;
			seen = mark;
		}
		if (spins % 2048 == 0) {
			rr_end_if_host_gone(); /* about every 100 ms of 50 us naps */
		}
		if (start && now - start > (uint64_t)agent_rr_stuck_ms * 1000000ull) {
			int mine;
			struct rr_buf b = rr_report_begin(&mine);

			if (mine) {
				rr_puts(&b, "replay stuck: thread ");
				rr_putu(&b, rr_self.id);
				rr_puts(&b, " waited for signal ");
				rr_putu(&b, (uint64_t)sig);
				rr_puts(&b, " to be sent ");
				rr_putu(&b, want);
				rr_puts(&b, " times, as in the recording; it has been sent ");
				rr_putu(&b, __atomic_load_n(&rr_area->sig_sends[sig], __ATOMIC_SEQ_CST));
				rr_puts(&b, " times");
			}
			rr_report_end(mine, 0);
		}
		syscall(SYS_nanosleep, &nap, NULL);
	}
}

/* ---- wake-ups through a descriptor (sync mode) ----
 *
 * A thread that wakes another through a descriptor (libuv's eventfd, a
 * pipe a worker writes to wake its loop, a socket pair) hands it what it
 * did before the write, as a lock would, but no turn orders it: a replay
 * returned the recorded read or readiness at once, and the reader went on
 * before the writer had written, and before what it did first (node's
 * loop read libuv's eventfd before the worker set its flag). So each
 * numbered thread counts its writes (write, writev, the sends, sendfile
 * and the like; before the write is made: whoever reads its bytes sees the
 * count), and a read, receive, accept or readiness wait that got something
 * while another thread wrote since the reader's last such call records,
 * after its own record, RR_CALL_WAKE: each other thread's write count and
 * event number as they were when the call returned. A replay waits until
 * every thread has made as many writes and replayed as many events. What
 * the reader waits for was all done before the recorded call returned,
 * and so came before anything the reader did after it: the wait cannot
 * close a cycle. It may wait for more than the wake-up needed (other
 * descriptors' writes, other events): a cost in parallelism only. Threads
 * numbered RR_WAKE_THREADS and up follow in RR_CALL_WAKE_MORE records. A
 * "write" is anything that can make another thread's descriptor ready or
 * give it data or an end: the writes and sends, and close, shutdown,
 * connect and timerfd_settime (a peer's end of file or hang-up, a
 * connection to accept, a timer armed for another thread's loop). The
 * counts are the process's own: a fork child starts from 0
 * (agent_rr_attach), in the recording and the replay.
 */
static uint64_t rr_wakes;		/* the writes counted in this process */
/* Replay: 1 + the thread in the exit wait (agent_rr_exit_wait), 0 if none:
 * it waits for the others' logs, so no one waits for its events (a sleep
 * that ended while it was exiting would close a cycle) */
static uint32_t rr_exit_waiter;
static uint32_t rr_wake_wr[RR_MAX_THREADS]; /* each thread's writes */
static __thread uint64_t rr_wake_seen;	/* rr_wakes at the thread's last such call */
static __thread uint64_t rr_wake_own;	/* the thread's own writes since */

void agent_rr_wake_write(void)
{
	if ((agent_rr_mode & RR_MODE_SERIAL) || !rr_self.has_id)
		return;
	if (rr_self.id < RR_MAX_THREADS) {
		if (AGENT_UNLIKELY(rr_self.id >= RR_WAKE_THREADS))
			rr_wake_hi_raise(rr_self.id);
		__atomic_store_n(&rr_wake_wr[rr_self.id], rr_wake_wr[rr_self.id] + 1,
				 __ATOMIC_SEQ_CST);
	}
	__atomic_fetch_add(&rr_wakes, 1, __ATOMIC_SEQ_CST);
	rr_wake_own++;
}

/* Whether call, having returned result, got something another thread may
 * have written (the calls RR_CALL_WAKE follows): 1; 2 when the call's time
 * ran out (a sleep, a readiness wait that timed out), which records the
 * counts even if no other thread wrote since: what a thread does after a
 * sleep or a timeout may read what the others did meanwhile without a lock
 * (memcached's LRU maintainer wakes from usleep and reads the clock the
 * main thread sets when its epoll_wait times out), and the replay lets it
 * go on only once they have done as much. */
static int rr_wake_call(unsigned call, int64_t result)
{
	switch (call) {
	case RR_CALL_READ:
	case RR_CALL_READV:
	case RR_CALL_RECV:
	case RR_CALL_RECVFROM:
	case RR_CALL_RECVMSG:
	case RR_CALL_RECVMMSG:
		return result >= 0;
	case RR_CALL_ACCEPT:
		return result > 0;
	case RR_CALL_POLL:
	case RR_CALL_SELECT:
	case RR_CALL_EPOLL_WAIT:
		return result > 0 ? 1 : result == 0 ? 2 : 0;
	case RR_CALL_NANOSLEEP:
	case RR_CALL_CLOCK_NANOSLEEP:
		return result == 0 ? 2 : 0;
	default:
		return 0;
	}
}

/* Record: the counts, when other threads wrote since the thread last saw
 * them (or always: force, rr_wake_call's 2). data: a pair (writes, events) for each thread below k (the
 * caller's own pair is 0, 0); arg: the process's writes. Then the threads
 * numbered RR_WAKE_THREADS and up with a count, as triples (thread,
 * writes, events) in RR_CALL_WAKE_MORE records. */
static __thread uint64_t rr_wake_sum; /* the counts' sum in the thread's last record */

static void rr_rec_wake(struct agent_thread *t, int force)
{
	uint64_t n = __atomic_load_n(&rr_wakes, __ATOMIC_SEQ_CST), sum = 0;
	int others = n != rr_wake_seen + rr_wake_own;
	uint32_t v[2 * RR_WAKE_THREADS], k = 0, hi;
	struct agent_rr_seg seg = {v, 0};

	rr_wake_seen = n;
	rr_wake_own = 0;
	if (!others && !force)
		return;
	for (uint32_t i = 0; i < RR_WAKE_THREADS; i++) {
		int me = i == rr_self.id;

		v[2 * i] = me ? 0 : __atomic_load_n(&rr_wake_wr[i], __ATOMIC_SEQ_CST);
		v[2 * i + 1] = me ? 0 : __atomic_load_n(&rr_wake_tseq[i], __ATOMIC_ACQUIRE);
		sum += (uint64_t)v[2 * i] + v[2 * i + 1];
		if (v[2 * i] || v[2 * i + 1])
			k = i + 1;
	}
	hi = __atomic_load_n(&rr_wake_hi, __ATOMIC_ACQUIRE);
	for (uint32_t i = RR_WAKE_THREADS; i < hi && i < RR_MAX_THREADS; i++)
		if (i != rr_self.id)
			sum += (uint64_t)__atomic_load_n(&rr_wake_wr[i], __ATOMIC_SEQ_CST) +
			       __atomic_load_n(&rr_wake_tseq[i], __ATOMIC_ACQUIRE);
	/* A sleep or timeout while no other thread made an event or a write
	 * since the thread's last record: every count is as it was (they only
	 * grow, so the same sum is the same counts), and the wait that record
	 * makes covers this one (memcached's LRU maintainer sleeps 1 ms at a
	 * time while the others wait in epoll_wait) */
	if (!others && sum == rr_wake_sum)
		return;
	rr_wake_sum = sum;
	seg.n = 2 * k * sizeof(uint32_t);
	agent_rr_rec_input(t, RR_CALL_WAKE, -1, 0, 0, n, &seg, 1);
	k = 0;
	for (uint32_t i = RR_WAKE_THREADS; i < hi && i < RR_MAX_THREADS; i++) {
		uint32_t w, e;

		if (i == rr_self.id)
			continue;
		w = __atomic_load_n(&rr_wake_wr[i], __ATOMIC_SEQ_CST);
		e = __atomic_load_n(&rr_wake_tseq[i], __ATOMIC_ACQUIRE);
		if (!w && !e)
			continue;
		v[3 * k] = i, v[3 * k + 1] = w, v[3 * k + 2] = e;
		if (++k == RR_WAKE_MORE_MAX) {
			seg.n = 3 * k * sizeof(uint32_t);
			agent_rr_rec_input(t, RR_CALL_WAKE_MORE, -1, 0, 0, 0, &seg, 1);
			k = 0;
		}
	}
	if (k) {
		seg.n = 3 * k * sizeof(uint32_t);
		agent_rr_rec_input(t, RR_CALL_WAKE_MORE, -1, 0, 0, 0, &seg, 1);
	}
}

/* Replay: whether a thread is still short of the recorded counts v (n
 * entries: pairs (writes, events) for threads 0..n-1, or with triples set
 * triples (thread, writes, events); *who: which one, RR_NO_TURN for the
 * process's writes, and *ww, *we its recorded counts). A thread that
 * ended makes no more. */
static int rr_wake_behind(uint64_t want, const uint32_t *v, uint32_t n, int triples,
			  uint32_t *who, uint32_t *ww, uint32_t *we)
{
	if (__atomic_load_n(&rr_wakes, __ATOMIC_SEQ_CST) < want) {
		*who = RR_NO_TURN;
		return 1;
	}
	for (uint32_t j = 0; j < n; j++) {
		uint32_t i = triples ? v[3 * j] : j;
		uint32_t w = triples ? v[3 * j + 1] : v[2 * j];
		uint32_t e = triples ? v[3 * j + 2] : v[2 * j + 1];

		/* (the thread number is hostile input: bounded by both arrays) */
		if (i >= rr_area->max_threads || i >= RR_MAX_THREADS) {
			if (triples)
				continue;
			break;
		}
		if (i == rr_self.id || (!w && !e) ||
		    i + 1 == __atomic_load_n(&rr_exit_waiter, __ATOMIC_ACQUIRE))
			continue;
		if (e > rr_threads[i].nevents)
			e = rr_threads[i].nevents; /* (hostile or cut short: no wait past a log) */
		if ((__atomic_load_n(&rr_wake_wr[i], __ATOMIC_SEQ_CST) < w ||
		     __atomic_load_n(&rr_threads[i].done, __ATOMIC_ACQUIRE) < e) &&
		    __atomic_load_n(&rr_threads[i].started, __ATOMIC_ACQUIRE) < 2) {
			*who = i, *ww = w, *we = e;
			return 1;
		}
	}
	return 0;
}

/* Replay: wait for the counts (rr_wake_behind; a short spin, then 50 us
 * naps; past --stuck-ms the replay stops with a report). */
static void rr_wake_wait(uint64_t want, const uint32_t *v, uint32_t n, int triples)
{
	uint64_t start = 0, now, mark, seen = 0;
	struct timespec nap = {0, 50000};
	int spins = 0;
	uint32_t who = RR_NO_TURN, ww = 0, we = 0;

	if (agent_rr_mode & RR_MODE_SERIAL)
		return;
	while (rr_wake_behind(want, v, n, triples, &who, &ww, &we)) {
		if (++spins < 100) {
			_mm_pause();
			continue;
		}
		now = rr_now_ns();
		mark = agent_rr_progress_mark() + __atomic_load_n(&rr_wakes, __ATOMIC_SEQ_CST);
		if (!start || mark != seen) {
			start = now;
			seen = mark;
		}
		if (spins % 2048 == 0) {
			rr_end_if_host_gone();
		}
		if (start && now - start > (uint64_t)agent_rr_stuck_ms * 1000000ull) {
			int mine;
			struct rr_buf b = rr_report_begin(&mine);

			if (mine) {
				rr_puts(&b, "replay stuck: thread ");
				rr_putu(&b, rr_self.id);
				rr_puts(&b, " got data or readiness from a descriptor, or woke "
					    "from a sleep or a timeout, after ");
				if (who != RR_NO_TURN) {
					rr_puts(&b, "thread ");
					rr_putu(&b, who);
					rr_puts(&b, " had made ");
					rr_putu(&b, ww);
					rr_puts(&b, " writes and ");
					rr_putu(&b, we);
					rr_puts(&b, " events in the recording; in this replay it has "
						    "made ");
					rr_putu(&b, __atomic_load_n(&rr_wake_wr[who], __ATOMIC_SEQ_CST));
					rr_puts(&b, " and ");
					rr_putu(&b, __atomic_load_n(&rr_threads[who].done,
								    __ATOMIC_ACQUIRE));
				} else {
					rr_putu(&b, want);
					rr_puts(&b, " writes of the process in the recording; this "
						    "replay has made ");
					rr_putu(&b, __atomic_load_n(&rr_wakes, __ATOMIC_SEQ_CST));
				}
				rr_puts(&b, " (a write or an event the recording has is not made "
					    "here)");
			}
			rr_report_end(mine, 0);
		}
		syscall(SYS_nanosleep, &nap, NULL);
	}
}

/* Record: run the handlers of the signals that arrived since the thread's
 * last event, each after its KIND_SCHED RR_OP_SIGNAL record, so that the
 * events the handler records come after it in the thread's log. at: 0 at a
 * recorded event (the replay delivers before the event that follows), else
 * the progress count + 1 of the serial switch point that delivers (the
 * replay delivers when its count gets there). */
static void rr_sig_deliver(struct agent_thread *t, int point)
{
	int sig;

	if (rr_in_signal || !rr_self.has_id || t->busy)
		return;
	rr_in_signal = 1;
	while ((sig = agent_rr_sig_take())) {
		/* result: the sends of sig so far (sync mode's order, above) */
		rr_emit_sched(t, 0, ++rr_self.tseq, (uint32_t)sig, RR_NO_TURN, RR_OP_SIGNAL,
			      (int)agent_rr_sig_sends(sig), point ? agent_ser.count + 1 : 0);
		agent_rr_sig_run(sig);
	}
	rr_in_signal = 0;
}

static void rr_rec_signals(struct agent_thread *t)
{
	if (AGENT_UNLIKELY(agent_rr_sig_any()))
		rr_sig_deliver(t, 0);
}

/*
 * Sync record: the thread is about to block in a real wait that only the
 * program can end (a contended mutex, a condition wait). A signal is
 * delivered at the thread's next recorded event, and the event that ends
 * such a wait may be waiting for that very handler: Boehm's collector
 * (guile) stops the world by signalling every thread and waiting for each
 * handler's answer while it holds the allocation lock another thread is
 * blocked on, or while that thread waits for a condition only a running
 * thread sets; it gave up after 15 s and aborted the program ("Signals
 * delivery fails constantly"). So while the thread is blocked there the
 * wrapper delivers at once, inside the wait as the kernel would, and its
 * KIND_SCHED record comes before the record of the event that ends the
 * wait: the replay delivers it there (before that event). The thread is
 * then inside the real call, between two of the agent's records: nothing
 * of the agent's is half done (t->busy is 0, or the delivery waits).
 */
__thread uint8_t agent_rr_blocked;

void agent_rr_block_enter(struct agent_thread *t)
{
	if (agent_rr_mode != RR_MODE_RECORD || !t)
		return;
	rr_rec_signals(t); /* those that came before */
	__atomic_store_n(&agent_rr_blocked, 1, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

void agent_rr_block_leave(void)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(&agent_rr_blocked, 0, __ATOMIC_RELAXED);
}

/* From the signal wrapper, the signal marked pending: deliver it now if
 * the thread is blocked (above). */
void agent_rr_block_signal(void)
{
	struct agent_thread *t = &agent_self;

	if (!__atomic_load_n(&agent_rr_blocked, __ATOMIC_RELAXED) ||
	    agent_rr_mode != RR_MODE_RECORD || t->state != AGENT_T_ON)
		return;
	agent_rr_blocked = 0; /* no nesting: the handler may block too */
	rr_rec_signals(t);
	agent_rr_blocked = 1;
}

static const struct rec_hdr *rr_peek(void);
static void rr_advance(void);

/* Replay, serial mode: the progress count at which the thread's next
 * delivery at a switch point is due (RR_COUNT_END: none; 0 at the start:
 * look at the first switch point). The serial slow path comes back at that
 * count (agent_rr_sig_limit). */
__thread uint64_t agent_rr_sig_at;

/* The signal delivery recorded at off in the thread's log, or NULL (another
 * record, or the log's end). The one test of "a delivery" for the walks
 * over the log: the deliveries (rr_rep_deliver), the next one due
 * (rr_sig_due) and the input past them (agent_rr_rep_peek_input). The host
 * wrote the log (rr_img.c), whole records only. */
static const struct rec_sched *rr_signal_at(uint64_t off)
{
	const struct rec_sched *e = (const struct rec_sched *)(agent_rr_ro + off);

	if (off >= rr_self.end || rr_self.end - off < sizeof(*e) ||
	    ev_kind(e->h.word) != KIND_SCHED || e->h.size < sizeof(*e) || e->op != RR_OP_SIGNAL)
		return NULL;
	return e;
}

/* The delivery at a switch point recorded at off in the thread's log, if
 * there is one. */
static void rr_sig_due(uint64_t off)
{
	const struct rec_sched *e = rr_signal_at(off);
	uint64_t at = RR_COUNT_END;

	if (e && e->arg)
		at = e->arg - 1;
	agent_rr_sig_at = at;
	if (at < agent_ser.limit)
		agent_ser.limit = at;
}

/* Replay: make the recorded deliveries that come next in the thread's log
 * (at a switch point: only those recorded at progress count `count`).
 * Serial mode: then note the next delivery at a switch point, which may
 * follow the event about to be replayed (its records, all the chunks of an
 * input, are skipped). */
static void rr_rep_deliver(struct agent_thread *t, int point, uint64_t count)
{
	const struct rec_hdr *h;
	const struct rec_sched *e;
	uint64_t off;

	if (rr_in_signal || !rr_self.has_id)
		return;
	while ((e = rr_signal_at(rr_self.cur))) {
		uint32_t sig = e->obj, tseq = e->tseq;
		uint64_t arg = e->arg;
		int sends = e->result;

		if (point && arg != count + 1)
			break;
		rr_advance();
		agent_rr_sig_wait_sends((int)sig, (uint32_t)sends);
		rr_emit_sched(t, 0, tseq, sig, RR_NO_TURN, RR_OP_SIGNAL, sends, arg);
		rr_in_signal = 1;
		agent_rr_sig_run((int)sig);
		rr_in_signal = 0;
	}
	if (agent_serial_on != RR_MODE_REPLAY)
		return;
	off = rr_self.cur;
	if (!point && (h = rr_peek())) {
		uint32_t tseq = ((const struct rec_sched *)h)->tseq;
		int input = ev_kind(h->word) == KIND_INPUT;

		do
			off += h->size;
		while (input && off < rr_self.end &&
		       (h = (const struct rec_hdr *)(agent_rr_ro + off)) &&
		       ev_kind(h->word) == KIND_INPUT &&
		       ((const struct rec_input *)h)->tseq == tseq);
	}
	rr_sig_due(off);
}

static void rr_rep_signals(struct agent_thread *t)
{
	rr_rep_deliver(t, 0, 0);
}

/* Serial mode, the slow path of a switch point (agent_serial.c), with the
 * run token held: deliver the signals due at this point. */
void agent_rr_sig_point(uint64_t count)
{
	struct agent_thread *t = &agent_self;

	if (t->state != AGENT_T_ON || !agent.active)
		return;
	if (agent_rr_mode & RR_MODE_REPLAY)
		rr_rep_deliver(t, 1, count);
	else if (agent_rr_sig_any())
		rr_sig_deliver(t, 1);
}

/* ---- serial mode (agent_serial.c) ---- */

void agent_rr_emit_switch(uint32_t thread, uint32_t tseq, uint32_t at, uint64_t turn,
			  uint32_t next, uint64_t count)
{
	struct agent_thread *t;
	struct rec_sched *r;
	uint32_t seq;

	if (!rr_trace_sched)
		return;
	t = agent_enter();
	if (!t) {
		rr_lost("a switch of the run token could not be recorded");
		return;
	}
	t->busy++;
	seq = ++t->seq;
	t->prod.ring->last_seq = seq;
	r = rr_reserve(t, sizeof(*r));
	if (r) {
		r->h.word = ev_word(KIND_SCHED, t->index, 0, 0);
		r->thread = thread | rr_proc_bits;
		r->tseq = tseq;
		r->obj = at;
		r->turn = (uint32_t)turn;
		r->op = RR_OP_SWITCH;
		r->result = (int32_t)next;
		r->arg = count;
		rr_commit(t, &r->h, sizeof(*r), seq);
	}
	t->busy--;
}

void agent_rr_note_direct(long nr)
{
	uint32_t v = (uint32_t)nr + 1;

	if (!(agent_rr_mode & RR_MODE_RECORD))
		return;
	__atomic_fetch_add(&rr_area->direct, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < 8; i++) {
		uint32_t cur = __atomic_load_n(&rr_area->direct_nr[i], __ATOMIC_ACQUIRE);

		if (cur == v)
			return;
		if (!cur && __atomic_compare_exchange_n(&rr_area->direct_nr[i], &cur, v, 0,
							__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			return;
		if (cur == v)
			return;
	}
}

void agent_rr_note_futex(void)
{
	if ((agent_rr_mode & RR_MODE_RECORD) && !(agent_rr_mode & RR_MODE_SERIAL))
		__atomic_fetch_add(&rr_area->own_futex, 1, __ATOMIC_RELAXED);
}

uint32_t agent_rr_tseq(void)
{
	return rr_self.tseq;
}

void agent_rr_stop(const char *text, uint32_t flag)
{
	int mine;
	struct rr_buf b = rr_report_begin(&mine);

	if (mine)
		rr_puts(&b, text);
	rr_report_end(mine, flag);
}

/* ---- recording ---- */

/*
 * Record without syscall user dispatch (SPOOL_NO_DISPATCH=1, a kernel
 * before 5.11, aarch64): a clone made by the program's own system call is
 * not seen made, and a thread of one whose stack lies within its creator's
 * span (agent_thread_offstack cannot tell it from its creator) was
 * recorded as its creator: nothing else finds it in a sync recording
 * (serial mode asks at every switch of the token, agent_serial.c). So
 * there the first recorded call of a thread state and every
 * RR_INTRUDER_EVERY-th after it (rr_self.tseq, which a thread on the
 * state shares) ask the kernel which thread they run on: one gettid, 714
 * ns on the loaded development VM, which at every call made a sync
 * recording's lock+unlock pair 3 times slower; never while dispatch is on.
 * That sampling alone let a thread making a few calls run unseen, its
 * calls recorded as its creator's and the recording not stopped (a thread
 * with one lock+unlock after its creator's first: every run,
 * tests/integ/351): so every call made from a frame address the kernel has
 * not yet confirmed for this state asks too. A thread on its own stack
 * (even within its creator's span) calls from addresses its creator's
 * confirmed calls never had; a loop of its creator's calls from one place
 * costs nothing more (RR_SP_SEEN addresses kept, by their bits). What
 * stays sampled: a thread whose frame falls exactly where its creator's
 * confirmed one was, to the byte.
 * Another thread of this process on this state: counted, the recording
 * stops (agent_rr_clone_unseen), 1. A thread ktid names that is not in
 * this process (a fork child's copy of its parent's state, a vfork child):
 * the state is the caller's own from here on.
 */
#define RR_INTRUDER_EVERY 32u

static __attribute__((noinline)) int rr_rec_intruder(void)
{
	uint32_t k = rr_self.ktid, me;
	uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
	unsigned h = (unsigned)(sp >> 4) & (RR_SP_SEEN - 1);
	int saved, gone;

	if (AGENT_LIKELY(rr_self.sp_seen[h] == sp && (rr_self.tseq & (RR_INTRUDER_EVERY - 1))) ||
	    !k || agent_rr_dispatch_on())
		return 0;
	me = (uint32_t)syscall(SYS_gettid);
	if (AGENT_LIKELY(me == k)) {
		rr_self.sp_seen[h] = sp;
		return 0;
	}
	saved = errno;
	gone = syscall(SYS_tgkill, (pid_t)syscall(SYS_getpid), (pid_t)k, 0) < 0 && errno == ESRCH;
	errno = saved;
	if (gone) {
		/* (the addresses were another thread's) */
		for (unsigned i = 0; i < RR_SP_SEEN; i++)
			__atomic_store_n(&rr_self.sp_seen[i], 0, __ATOMIC_RELAXED);
		rr_self.sp_seen[h] = sp;
		rr_self.ktid = me;
		return 0;
	}
	agent_rr_clone_unseen();
	return 1;
}

void agent_rr_rec_sync(struct agent_thread *t, uint32_t idx, unsigned op, int result, int turn)
{
	uint32_t tn = RR_NO_TURN;

	if (AGENT_UNLIKELY(rr_rec_intruder()))
		return;
	if (!rr_self.has_id) {
		__atomic_fetch_or(&rr_area->flags, RR_F_UNTRACKED, __ATOMIC_RELAXED);
		return;
	}
	if (!idx || idx >= rr_turn_max) {
		rr_lost("more synchronization objects than the recording has room for");
		return;
	}
	rr_rec_signals(t);
	if (turn) {
		uint32_t *w = agent_lazy_at(&rr_turns, idx);

		if (!w) {
			rr_lost("no address space left for the turn words of more objects");
			return;
		}
		tn = __atomic_fetch_add(w, 1, __ATOMIC_ACQ_REL);
	}
	rr_emit_sched(t, idx, ++rr_self.tseq, idx, tn, op, result, 0);
}

static void rr_rec_in_replay(struct agent_thread *t, unsigned call, int fd, int64_t result,
			     const struct agent_rr_seg *seg, int nseg);

void agent_rr_rec_input(struct agent_thread *t, unsigned call, int fd, int64_t result, int err,
			uint64_t arg, const struct agent_rr_seg *seg, int nseg)
{
	size_t total = 0, off = 0, si = 0, so = 0;
	uint32_t tseq, seq;
	int i, w;

	if (!rr_self.has_id) {
		__atomic_fetch_or(&rr_area->flags, RR_F_UNTRACKED, __ATOMIC_RELAXED);
		return;
	}
	if (AGENT_UNLIKELY(agent_rr_mode & RR_MODE_REPLAY)) {
		rr_rec_in_replay(t, call, fd, result, seg, nseg);
		return;
	}
	if (AGENT_UNLIKELY(rr_rec_intruder()))
		return;
	rr_rec_signals(t);
	for (i = 0; i < nseg; i++)
		total += seg[i].n;
	if (total > UINT32_MAX) {
		rr_lost("an input of 4 GiB or more cannot be recorded");
		return;
	}
	tseq = ++rr_self.tseq;
	rr_wake_publish(tseq);
	t->busy++;
	do {
		uint32_t n = total - off > rr_chunk ? rr_chunk : (uint32_t)(total - off);
		uint32_t nw = (n + 7) / 8, len = (uint32_t)sizeof(struct rec_input) + 8 * nw, c = 0;
		struct rec_input *r;
		unsigned char *d;

		seq = ++t->seq;
		t->prod.ring->last_seq = seq;
		r = rr_reserve(t, len);
		if (!r)
			break;
		r->h.word = ev_word(KIND_INPUT, t->index, 0, 0);
		r->thread = rr_self.id | rr_proc_bits;
		r->tseq = tseq;
		r->call = call;
		r->fd = fd;
		r->result = result;
		r->arg = arg;
		r->err = err;
		r->len = (uint32_t)total;
		r->chunk_off = (uint32_t)off;
		r->nwords = nw;
		d = (unsigned char *)r->data;
		while (c < n) {
			size_t k = seg[si].n - so;

			if (k > n - c)
				k = n - c;
			memcpy(d + c, (const char *)seg[si].p + so, k);
			c += (uint32_t)k;
			so += k;
			if (so == seg[si].n) {
				si++;
				so = 0;
			}
		}
		if (8 * nw > n)
			memset(d + n, 0, 8 * nw - n);
		rr_commit(t, &r->h, len, seq);
		off += n;
	} while (off < total);
	t->busy--;
	if (!(agent_rr_mode & RR_MODE_SERIAL) && (w = rr_wake_call(call, result)))
		rr_rec_wake(t, w == 2);
}

/* ---- replay ---- */

static const struct rec_hdr *rr_peek(void)
{
	const struct rec_hdr *h;

	if (rr_self.cur >= rr_self.end)
		return NULL;
	h = (const struct rec_hdr *)(agent_rr_ro + rr_self.cur);
	return h;
}

/* Every thread created so far (turn[0] counts the creations replayed) but
 * thread SKIP has ended (2) or reached the end of its log (3). Stores of
 * started and these loads are seq_cst: of two threads that get there at
 * once, at least one sees the other. */
static int rr_done_but(uint32_t skip)
{
	uint32_t created = __atomic_load_n(&rr_turn[0], __ATOMIC_SEQ_CST) + 1, i;

	if (created > rr_area->max_threads)
		created = rr_area->max_threads;
	for (i = 0; i < created; i++)
		if (i != skip && __atomic_load_n(&rr_threads[i].started, __ATOMIC_SEQ_CST) < 2)
			return 0;
	return 1;
}

/* ... every one of them (a truncated replay, a thread parking at its end). */
static int rr_trunc_all_done(void)
{
	return rr_done_but(UINT32_MAX);
}

/* Threads that set started to 3 (each does once, before it parks): every
 * thread that ends asks whether any did, and a scan of every thread slot
 * there made a replay of 100,000 short threads quadratic. Counted before
 * the store of started, seq_cst: a thread that ends and misses the count
 * ended before the parking thread looked at it (rr_done_but). */
static uint32_t rr_nparked;

static int rr_trunc_any_parked(void)
{
	return __atomic_load_n(&rr_nparked, __ATOMIC_SEQ_CST) != 0;
}

/* Calls a thread can be blocked in, for good, when another thread ends
 * the process: a recording has no record of such a call (records are
 * written when a call returns). */
static int rr_op_blocks(unsigned op)
{
	return op == OP_ACQUIRE || op == OP_ACQUIRE_RD || op == OP_COND_WAIT ||
	       op == OP_BARRIER_ENTER || op == OP_THREAD_JOIN_END;
}

static int rr_call_blocks(unsigned call)
{
	switch (call) {
	case RR_CALL_READ:
	case RR_CALL_READV:
	case RR_CALL_RECV:
	case RR_CALL_RECVFROM:
	case RR_CALL_RECVMSG:
	case RR_CALL_ACCEPT:
	case RR_CALL_POLL:
	case RR_CALL_SELECT:
	case RR_CALL_EPOLL_WAIT:
	case RR_CALL_NANOSLEEP:
	case RR_CALL_CLOCK_NANOSLEEP:
	case RR_CALL_SIGWAIT:
	case RR_CALL_SIGTIMEDWAIT:
	case RR_CALL_CONNECT:
	case RR_CALL_GETADDRINFO:
	case RR_CALL_GETNAMEINFO:
	case RR_CALL_HOSTENT:
	case RR_CALL_SERVENT:
	case RR_CALL_RESOLV:
	case RR_CALL_RECVMMSG:
		return 1;
	}
	return 0;
}

/* The thread's log is exhausted: the end of a truncated recording, a
 * thread that was blocked in this call when the recorded run ended, or a
 * call the recording does not have. blocks: the call can block. */
static int rr_all_replayed_but(uint32_t skip);

/* Park at the end of the log (rr_end_of_log). In a truncated recording,
 * return once every other thread has ended, parked, or replayed all it
 * recorded and waits past it outside the agent (in a call spool does not
 * interpose, as when the run was killed) for two rounds of a second: the
 * replay is at its end, and nobody else would say so. */
static void rr_park_trunc(int trunc)
{
	static uint32_t never;
	int idle = 0;

	if (!trunc)
		rr_park();
	for (;;) {
		struct timespec ts = {1, 0};

		if (rr_trunc_all_done())
			return;
		if (!rr_all_replayed_but(rr_self.id))
			idle = 0;
		else if (++idle > 2)
			return;
		syscall(SYS_futex, &never, FUTEX_WAIT_PRIVATE, 0, &ts, NULL, 0);
		rr_end_if_host_gone();
	}
}

static void __attribute__((noreturn)) rr_end_of_log(const char *what, uint32_t idx,
						    const void *addr, int blocks)
{
	int trunc = !!(rr_area->opts & RR_O_TRUNCATED);
	int sync = !(agent_rr_mode & RR_MODE_SERIAL);

	/* Sync mode, another thread is in the exit wait (it replayed its
	 * exit or _exit): the recorded process ended while this thread was
	 * in this call or before it, whatever the call (a write that returned
	 * but whose record the end beat): it stays here, as it did. */
	if (sync && __atomic_load_n(&rr_exit_waiter, __ATOMIC_ACQUIRE))
		blocks = 1;
	/* a process of a tree whose recording a signal ended */
	agent_rr_tree_end_of_log();
	/*
	 * Sync mode: the threads' logs end at different points. Park here
	 * until every thread created so far (turn[0] counts the creations
	 * replayed) has ended or reached its log's end (started 3); the last
	 * one goes on. In a truncated replay (the recorded run was killed),
	 * so that each thread replays all it recorded. In a complete one, for
	 * a call that blocks: a worker that waits on a condition variable (or
	 * a lock, a join, a read) when another thread calls exit is still
	 * waiting when the process ends, so its last call has no record (xz
	 * -T2 ends this way); it waits here for good, as it did, and the run
	 * ends when the thread that called exit does. Serial mode does not
	 * park: the others wait for the token this thread holds.
	 */
	if (trunc || (blocks && sync)) {
		__atomic_fetch_add(&rr_nparked, 1, __ATOMIC_SEQ_CST);
		__atomic_store_n(&rr_threads[rr_self.id].started, 3, __ATOMIC_SEQ_CST);
		if (sync && !rr_trunc_all_done())
			rr_park_trunc(trunc);
	}
	if (trunc) {
		int mine;
		struct rr_buf b = rr_report_begin(&mine);

		if (mine) {
			rr_puts(&b, "replay reached the end of the recording (the recorded run "
				    "was killed): thread ");
			rr_putu(&b, rr_self.id);
			rr_puts(&b, " after its event ");
			rr_putu(&b, rr_self.tseq);
		}
		rr_report_end(mine, RR_F_END);
	}
	/* Every thread ended or waits like this: nothing will end the run. */
	if (blocks && sync)
		rr_diverge(RR_CAUSE_CALLS, NULL, what, idx, addr,
			   "the replay makes a call the recording does not have (and every "
			   "other thread has ended or waits at the end of its recording)");
	rr_diverge(RR_CAUSE_CALLS, NULL, what, idx, addr, "the replay makes a call the recording does not have");
}

void agent_rr_end_of_schedule(uint32_t thread, uint64_t count)
{
	int mine;

	agent_rr_tree_end_of_log(); /* a process of a tree a signal ended */
	struct rr_buf b = rr_report_begin(&mine);

	if (rr_area->opts & RR_O_TRUNCATED) {
		if (mine) {
			rr_puts(&b, "replay reached the end of the recording (the recorded run "
				    "was killed): thread ");
			rr_putu(&b, thread);
			rr_puts(&b, " at its progress count ");
			rr_putu(&b, count);
		}
		rr_report_end(mine, RR_F_END);
	}
	if (mine) {
		rr_puts(&b, "replay diverged in thread ");
		rr_putu(&b, thread);
		rr_puts(&b, " at its progress count ");
		rr_putu(&b, count);
		rr_puts(&b, ": the replay gives the run token up where the recording never "
			    "did\n  recorded: the thread kept the token to the end\n  replay:   it "
			    "gives it up");
	}
	rr_report_end(mine, 0);
}

#define RR_PREFETCH_AHEAD 256 /* bytes: 4 to 5 schedule records */

static void rr_advance(void)
{
	const struct rec_hdr *h = rr_peek();

	rr_last_rec = h;
	rr_self.cur += h->size;
	rr_self.tseq++;
	__atomic_store_n(&rr_threads[rr_self.id].done, rr_self.tseq, __ATOMIC_RELEASE);
	/* The log is read once, front to back, and is far bigger than the
	 * cache: ask for a record a few events ahead so that its miss overlaps
	 * the program's work instead of stalling the next call (a prefetch
	 * past the end is harmless). */
	__builtin_prefetch(agent_rr_ro + rr_self.cur + RR_PREFETCH_AHEAD);
}

/* "; kernel: tid T, state S (sleeping), in system call 202 (futex), ...":
 * tells a holder that is blocked from one starved of CPU time
 * (agent_rr_kstate.c). */
static void rr_put_kstate(struct rr_buf *b, int32_t tid)
{
	char ks[256];

	agent_rr_kstate(tid, ks, sizeof(ks));
	rr_puts(b, "; ");
	rr_puts(b, ks);
}

static void __attribute__((noreturn)) rr_stuck(const struct rec_sched *e, uint64_t waited_ms)
{
	uint32_t cur = __atomic_load_n(&rr_turn[e->obj], __ATOMIC_ACQUIRE);
	int mine;
	struct rr_buf b = rr_report_begin(&mine);

	if (mine) {
		rr_puts(&b, "replay stuck: thread ");
		rr_putu(&b, rr_self.id);
		rr_puts(&b, " waited ");
		rr_putu(&b, waited_ms);
		rr_puts(&b, " ms for its event ");
		rr_putu(&b, e->tseq);
		rr_puts(&b, " (");
		rr_put_rec(&b, &e->h);
		rr_puts(&b, "); the object is at turn ");
		rr_putu(&b, cur);
		if (e->obj < rr_area->max_objs && rr_first[e->obj] + cur < rr_first[e->obj + 1]) {
			const struct rr_order *o = &rr_order[rr_first[e->obj] + cur];
			const struct rr_thread_slot *s = &rr_threads[o->thread];

			rr_puts(&b, ", recorded as thread ");
			rr_putu(&b, o->thread);
			rr_puts(&b, "'s event ");
			rr_putu(&b, o->tseq);
			rr_puts(&b, "; thread ");
			rr_putu(&b, o->thread);
			if (!__atomic_load_n(&s->started, __ATOMIC_ACQUIRE)) {
				rr_puts(&b, " has not been created");
			} else if (__atomic_load_n(&s->started, __ATOMIC_ACQUIRE) == 2) {
				rr_puts(&b, " has ended");
			} else {
				rr_puts(&b, " has replayed ");
				rr_putu(&b, __atomic_load_n(&s->done, __ATOMIC_ACQUIRE));
				rr_puts(&b, " of its ");
				rr_putu(&b, s->nevents);
				rr_puts(&b, " events");
				if (s->wait_obj != RR_NO_TURN) {
					rr_puts(&b, " and waits for turn ");
					rr_putu(&b, s->wait_turn);
					rr_puts(&b, " of object ");
					rr_putu(&b, s->wait_obj);
				} else if (e->op == RR_OP_FDTAB &&
					   __atomic_load_n(&s->done, __ATOMIC_ACQUIRE) + 1 ==
						   o->tseq) {
					/* it has its turn of the descriptor table */
					rr_puts(&b, " and is in that descriptor call, which "
						    "blocks (the open of a FIFO whose other end a "
						    "later turn opens?)");
				} else {
					rr_puts(&b, " and runs outside the agent (a data race, "
						    "or an unrecorded blocking call?)");
				}
				rr_put_kstate(&b, __atomic_load_n(&s->real_tid, __ATOMIC_ACQUIRE));
			}
		}
	}
	rr_report_end(mine, 0);
}

/*
 * What a thread waiting for a turn of obj watches to tell a slow replay
 * from a stuck one: the object's turn word and the events replayed so far
 * by the thread that holds its next turn. While either moves, the holder
 * is getting somewhere (on 2 CPUs shared with other programs, xz -T2's
 * worker took more than 5 s to reach main's turn, replaying its events all
 * along), and the --stuck-ms clock starts again.
 */
static uint64_t rr_turn_progress(uint32_t obj)
{
	uint32_t cur, at, done = 0;

	if (obj >= rr_area->max_objs)
		return 0;
	cur = __atomic_load_n(&rr_turn[obj], __ATOMIC_ACQUIRE);
	at = rr_first[obj] + cur;
	if (at < rr_first[obj + 1] && rr_order[at].thread < rr_area->max_threads)
		done = __atomic_load_n(&rr_threads[rr_order[at].thread].done, __ATOMIC_ACQUIRE);
	return (uint64_t)cur << 32 | done;
}

/* Turn waits (measured with rr_pc's 40k hand-offs, 5 threads on 2 CPUs:
 * 200 spins and no yield cost 25% more CPU than this; yields alone, twice
 * as much). */
#ifndef RR_SPIN
#define RR_SPIN 50
#endif
#ifndef RR_YIELDS
#define RR_YIELDS 3
#endif

/* Sleep until turn[obj] reaches the event's turn. The slot's wait_obj and
 * wait_turn are published before the turn word is read again, and the
 * passer stores the turn word before reading them (both seq_cst): either
 * the waiter sees its turn or the passer sees the waiter and bumps its wake
 * word, which makes the futex wait return. */
static void rr_wait_turn(const struct rec_sched *e)
{
	uint32_t *w = &rr_turn[e->obj];
	struct rr_thread_slot *s = &rr_threads[rr_self.id];
	uint64_t start = 0, seen = 0, mark;
	int spins;

	/* A short spin catches a holder running on another CPU; then a few
	 * yields let a holder that waits for this CPU run (more threads than
	 * CPUs); only then the futex, whose hand-off costs ~8 us. */
	for (spins = 0; spins < RR_SPIN; spins++) {
		if (__atomic_load_n(w, __ATOMIC_ACQUIRE) == e->turn)
			return;
		_mm_pause();
	}
	for (spins = 0; spins < RR_YIELDS; spins++) {
		sched_yield();
		if (__atomic_load_n(w, __ATOMIC_ACQUIRE) == e->turn)
			return;
	}
	__atomic_store_n(&s->wait_turn, e->turn, __ATOMIC_SEQ_CST);
	__atomic_store_n(&s->wait_obj, e->obj, __ATOMIC_SEQ_CST);
	for (;;) {
		struct timespec ts = {0, 100000000};
		uint32_t seq = __atomic_load_n(&s->wake, __ATOMIC_SEQ_CST);
		uint64_t now;

		if (__atomic_load_n(w, __ATOMIC_SEQ_CST) == e->turn)
			break;
		syscall(SYS_futex, &s->wake, FUTEX_WAIT_PRIVATE, seq, &ts, NULL, 0);
		if (__atomic_load_n(w, __ATOMIC_SEQ_CST) == e->turn)
			break;
		rr_end_if_host_gone(); /* (a 100 ms tick) */
		now = rr_now_ns();
		mark = rr_turn_progress(e->obj);
		if (!start || mark != seen) {
			start = now;
			seen = mark;
		} else if (now - start > (uint64_t)agent_rr_stuck_ms * 1000000ull) {
			rr_stuck(e, (now - start) / 1000000ull);
		}
	}
	__atomic_store_n(&s->wait_obj, RR_NO_TURN, __ATOMIC_RELAXED);
}

/* Pass the object's turn on and wake its next holder if it sleeps. */
static void rr_pass_turn(uint32_t obj, uint32_t turn)
{
	uint32_t i = rr_first[obj] + turn + 1;
	struct rr_thread_slot *s;

	__atomic_store_n(&rr_turn[obj], turn + 1, __ATOMIC_SEQ_CST);
	if (i >= rr_first[obj + 1])
		return;
	s = &rr_threads[rr_order[i].thread];
	if (s == &rr_threads[rr_self.id])
		return;
	if (__atomic_load_n(&s->wait_obj, __ATOMIC_SEQ_CST) == obj &&
	    __atomic_load_n(&s->wait_turn, __ATOMIC_SEQ_CST) == turn + 1) {
		__atomic_fetch_add(&s->wake, 1, __ATOMIC_SEQ_CST);
		syscall(SYS_futex, &s->wake, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	}
}

static int rr_rep_begin(struct agent_thread *t, uint32_t idx, unsigned op, const void *addr,
			int wait);

__thread uint64_t agent_rr_site;

/* The site is the call's own: used by a divergence found here, then gone
 * (a later call that sets none reports none). */
int agent_rr_rep_begin(struct agent_thread *t, uint32_t idx, unsigned op, const void *addr,
		       int wait)
{
	int rc = rr_rep_begin(t, idx, op, addr, wait);

	agent_rr_site = 0;
	return rc;
}

static int rr_rep_begin(struct agent_thread *t, uint32_t idx, unsigned op, const void *addr,
			int wait)
{
	const struct rec_hdr *h;
	const struct rec_sched *e;
	char what[64];
	struct rr_buf b = {what, 0, sizeof(what)};

	rr_puts(&b, rr_op_name(op));
	if (!rr_self.has_id)
		rr_diverge(RR_CAUSE_LIMIT, NULL, what, idx, addr, "a thread spool could not number made a sync call");
	rr_rep_signals(t);
	h = rr_peek();
	if (!h)
		rr_end_of_log(what, idx, addr, rr_op_blocks(op));
	e = (const struct rec_sched *)h;
	if (ev_kind(h->word) != KIND_SCHED || e->op != op)
		rr_diverge(RR_CAUSE_CALLS, h, what, idx, addr, "a different call");
	if (idx) {
		uint32_t m, want = e->obj + 1;

		if (idx >= rr_area->max_objs)
			rr_diverge(RR_CAUSE_CALLS, h, what, idx, addr, "more objects than the recording had");
		/* First use binds; a failed CAS leaves the winner's mapping in m. */
		m = __atomic_load_n(&rr_objmap[idx], __ATOMIC_ACQUIRE);
		if (!m && __atomic_compare_exchange_n(&rr_objmap[idx], &m, want, 0,
						      __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			m = want;
		if (m != want)
			rr_diverge(RR_CAUSE_CALLS, h, what, idx, addr, "a different object");
	} else if (e->obj) {
		rr_diverge(RR_CAUSE_CALLS, h, what, idx, addr, "a different object");
	}
	rr_self.pending = e;
	if (wait && e->turn != RR_NO_TURN)
		rr_wait_turn(e);
	return e->result;
}

uint32_t agent_rr_opts(void)
{
	return rr_area ? rr_area->opts : 0;
}

int agent_rr_rep_log_done(void)
{
	return rr_self.cur >= rr_self.end;
}

void agent_rr_rep_wait(struct agent_thread *t)
{
	if (rr_self.pending->turn != RR_NO_TURN)
		rr_wait_turn(rr_self.pending);
}

void agent_rr_rep_end(struct agent_thread *t, int got)
{
	const struct rec_sched *e = rr_self.pending;
	uint32_t idx = ev_obj(e->h.word);

	if (got != e->result) {
		char what[96];
		struct rr_buf b = {what, 0, sizeof(what)};

		rr_puts(&b, rr_op_name(e->op));
		rr_puts(&b, " returning ");
		rr_puti(&b, got);
		rr_diverge(RR_CAUSE_RESULT, &e->h, what, 0, NULL, "the call returned something else");
	}
	rr_advance();
	if (e->turn != RR_NO_TURN)
		rr_pass_turn(e->obj, e->turn);
	rr_self.pending = NULL;
	/* The replay's own trace gets the same schedule record (with
	 * RR_O_TRACE_SCHED: rr_emit_sched). */
	(void)idx;
	rr_emit_sched(t, 0, e->tseq, e->obj, e->turn, e->op, e->result, e->arg);
}

/* ---- the descriptor table (sync mode) ---- */

/*
 * The process's descriptor table is one more shared object: the calls that
 * allocate or free descriptors take turns of it (RR_OP_FDTAB records), so
 * that a replay makes them in the recorded order and every number comes
 * out as recorded (git grep's threads open files at once: their numbers
 * swapped and a read "on another descriptor" diverged).
 *
 * Recording takes no lock: a call that frees a number takes its turn
 * before the kernel frees it, a call that allocates takes it after the
 * kernel allocated (rr_fd_frees). So a number freed and then allocated
 * again is ordered as it happened. Two allocations at once may take their
 * turns in the other order than the kernel served them; the replay moves
 * a descriptor that comes out at another number than recorded to the
 * recorded one (dup3), which is free then: everything that freed it has
 * had its turn, everything that allocates it again comes later. A call
 * that blocks (accept, the open of a FIFO) therefore holds nothing while
 * it waits.
 *
 * Replay: enter waits for the call's turn (checking that the thread's next
 * recorded event is this call), leave checks the result, moves the number,
 * and passes the turn. A recorded failure is returned as recorded (a
 * descriptor this replay got instead is closed); a failure where the
 * recording got a descriptor stops the replay (the file system differs).
 */

/* The table's object number: a lock index taken at startup while
 * recording (no lock has it); a replay uses the recorded records' own. */
static uint32_t rr_fd_obj;
/* Record: its turn word (turn[] is mapped a chunk at a time, agent_lazy.c). */
static uint32_t *rr_fd_turn;
/* Order descriptor calls: sync mode, recording, or replaying a recording
 * that ordered them (RR_O_FDTAB). Set once at startup. */
static int rr_fd_on;
static __thread struct {
	uint8_t depth; /* inside an ordered call: nested ones pass through */
	uint8_t call;
	uint32_t turn;	/* record: the turn, when taken before the call */
	const struct rec_sched *e; /* replay: the recorded event */
} rr_fd;

uint32_t agent_rr_fdtab_enter(unsigned call)
{
	struct agent_thread *t = &agent_self;
	const struct rec_hdr *h;
	const struct rec_sched *e;
	char what[64];
	struct rr_buf b = {what, 0, sizeof(what)};

	if (AGENT_LIKELY(!rr_fd_on) || !(agent_rr_mode & (RR_MODE_RECORD | RR_MODE_REPLAY)) ||
	    (agent_rr_mode & RR_MODE_SERIAL))
		return 0;
	if (rr_fd.depth || t->state != AGENT_T_ON || t->busy || !agent.active || !call ||
	    call >= RR_FD_MAX)
		return 0;
	if (!rr_self.has_id) {
		__atomic_fetch_or(&rr_area->flags, RR_F_UNTRACKED, __ATOMIC_RELAXED);
		return 0;
	}
	if (agent_rr_mode & RR_MODE_RECORD) {
		/* Handlers first: one that opens a file makes its own turn. */
		rr_rec_signals(t);
		rr_fd.depth = 1;
		rr_fd.call = (uint8_t)call;
		if (rr_fd_frees(call))
			rr_fd.turn = __atomic_fetch_add(rr_fd_turn, 1, __ATOMIC_SEQ_CST);
		return 1;
	}
	rr_puts(&b, rr_fd_name(call));
	rr_rep_signals(t);
	h = rr_peek();
	if (!h)
		rr_end_of_log(what, 0, NULL, 0);
	e = (const struct rec_sched *)h;
	if (ev_kind(h->word) != KIND_SCHED || e->op != RR_OP_FDTAB ||
	    RR_FD_ARG_CALL(e->arg) != call)
		rr_diverge(RR_CAUSE_CALLS, h, what, 0, NULL, "a different call");
	if (e->obj >= rr_area->max_objs || e->turn == RR_NO_TURN)
		rr_diverge(RR_CAUSE_DATA, h, what, 0, NULL, "a damaged descriptor record");
	rr_fd.depth = 1;
	rr_fd.call = (uint8_t)call;
	rr_fd.e = e;
	rr_wait_turn(e);
	return 1;
}

int agent_rr_fdtab_rep_made(void)
{
	return (agent_rr_mode & RR_MODE_REPLAY) && rr_fd.depth && rr_fd.e && rr_fd.e->result >= 0;
}

/*
 * A name lookup opens and closes files inside glibc (/etc/hosts,
 * /etc/services, nsswitch.conf), where no interposer sees it: made while
 * recording, and again in a replay when it needed no network
 * (agent_rr_hostent.c, agent_rr_netdb.c). Those descriptors took, for the
 * moment of the lookup, a number another thread's open was then given in
 * the recording or wants in the replay ("the descriptor number differs,
 * and the recorded one is taken": tests/integ/177-glibc-fds.t under
 * load). Sync mode: the lookup takes a turn of the descriptor table like
 * any call that makes a descriptor (RR_FD_LOOKUP, result -1), so a replay
 * makes its lookup and the other threads' opens one after the other in the
 * recorded order. Record: begin before the lookup, end after its input
 * record is written (the turn's record follows it in the log). Replay:
 * begin after the input record was read, so only when the next record is
 * that turn (a recording made before has none: nothing is waited for).
 * Returns whether end must be called; errno is kept.
 */
int agent_rr_lookup_fd_begin(void)
{
	const struct rec_hdr *h;
	const struct rec_sched *e;
	int saved = errno, on;

	if (AGENT_LIKELY(!rr_fd_on) || (agent_rr_mode & RR_MODE_SERIAL) || rr_fd.depth)
		return 0;
	if (agent_rr_mode & RR_MODE_REPLAY) {
		h = rr_peek();
		e = (const struct rec_sched *)h;
		if (!h || ev_kind(h->word) != KIND_SCHED || e->op != RR_OP_FDTAB ||
		    RR_FD_ARG_CALL(e->arg) != RR_FD_LOOKUP)
			return 0;
	}
	on = (int)agent_rr_fdtab_enter(RR_FD_LOOKUP);
	errno = saved;
	return on;
}

void agent_rr_lookup_fd_end(int on)
{
	int saved = errno;

	if (on) {
		errno = 0;
		agent_rr_fdtab_leave(-1, NULL);
	}
	errno = saved;
}

/* Replay: move descriptor got to number want (the recorded one), keeping
 * its close-on-exec flag. 0, or -1 when want is taken in this replay. Raw
 * system calls: the agent's own close and dup are interposed. */
static int rr_fd_move(int got, int want)
{
	long fl;

	if (got == want)
		return 0;
	if (want < 0 || want == agent_shm_fd || syscall(SYS_fcntl, want, F_GETFD) >= 0)
		return -1;
	fl = syscall(SYS_fcntl, got, F_GETFD);
	if (syscall(SYS_dup3, got, want, fl > 0 && (fl & FD_CLOEXEC) ? O_CLOEXEC : 0) < 0)
		return -1;
	syscall(SYS_close, got);
	return 0;
}

/* Replay: move the two descriptors of a pipe or socketpair to their
 * recorded numbers. The second may sit where the first must go (got 5 and
 * 7, recorded 7 and 8): it moves above both first. */
static int rr_fd_move2(int got, int got2, int want, int want2)
{
	if (got2 == want && got != want) {
		long fl = syscall(SYS_fcntl, got2, F_GETFD);
		int top = (want > want2 ? want : want2) + 1;
		long n = syscall(SYS_fcntl, got2,
				 fl > 0 && (fl & FD_CLOEXEC) ? F_DUPFD_CLOEXEC : F_DUPFD, top);

		if (n < 0)
			return -1;
		syscall(SYS_close, got2);
		got2 = (int)n;
	}
	return rr_fd_move(got, want) < 0 || rr_fd_move(got2, want2) < 0 ? -1 : 0;
}

static void __attribute__((noreturn)) rr_fd_diverge(uint32_t cause, const struct rec_sched *e,
						    int64_t result, int err, int fd2,
						    const char *why)
{
	char what[160];
	struct rr_buf b = {what, 0, sizeof(what)};

	rr_put_fd(&b, rr_fd.call, result, err, fd2);
	rr_diverge(cause, &e->h, what, 0, NULL, why);
}

int agent_rr_fdtab_leave(int result, int *fd2)
{
	struct agent_thread *t = &agent_self;
	const struct rec_sched *e = rr_fd.e;
	unsigned call = rr_fd.call;
	int err = errno, two = rr_fd_two_results(call), want, wfd2, werr;
	uint32_t turn = rr_fd.turn;

	if (agent_rr_mode & RR_MODE_RECORD) {
		if (!rr_fd_frees(call))
			turn = __atomic_fetch_add(rr_fd_turn, 1, __ATOMIC_SEQ_CST);
		rr_emit_sched(t, 0, ++rr_self.tseq, rr_fd_obj, turn, RR_OP_FDTAB, result,
			      RR_FD_ARG(call, result < 0 ? err : 0, fd2 ? *fd2 : 0));
		rr_fd.depth = 0;
		errno = err;
		return result;
	}
	want = e->result;
	wfd2 = RR_FD_ARG_FD2(e->arg);
	werr = RR_FD_ARG_ERR(e->arg);
	if (!two && fd2 && *fd2 != wfd2)
		rr_fd_diverge(RR_CAUSE_FD, e, result, err, *fd2,
			      "the same call on another descriptor number");
	if (want >= 0 && result < 0)
		rr_fd_diverge(RR_CAUSE_RESULT, e, result, err, fd2 ? *fd2 : 0,
			      "the call failed where the recorded one succeeded (a file the "
			      "recorded run found is not there, or not the same)");
	if (want < 0 && result >= 0) {
		if (rr_fd_frees(call))
			rr_fd_diverge(RR_CAUSE_FD, e, result, err, fd2 ? *fd2 : 0,
				      "the call succeeded where the recorded one failed (the "
				      "descriptor exists in this replay and did not in the "
				      "recording)");
		/* The recorded failure is the program's result: undo this one. */
		if (call != RR_FD_FOPEN && call != RR_FD_OPENDIR) {
			syscall(SYS_close, result);
			if (two && fd2)
				syscall(SYS_close, *fd2);
		}
		result = want;
	} else if (want >= 0 && !rr_fd_frees(call)) {
		if (two && fd2 ? rr_fd_move2(result, *fd2, want, wfd2) < 0
			       : rr_fd_move(result, want) < 0)
			rr_fd_diverge(RR_CAUSE_FD, e, result, err, fd2 ? *fd2 : 0,
				      "the descriptor number differs, and the recorded one is "
				      "taken in this replay (by a descriptor made where spool does "
				      "not order it: inside a library, by a raw system call)");
	} else if (want >= 0 && result != want) {
		rr_fd_diverge(RR_CAUSE_FD, e, result, err, fd2 ? *fd2 : 0,
			      "the call returned something else");
	}
	if (want >= 0) {
		result = want;
		if (two && fd2)
			*fd2 = wfd2;
	}
	rr_advance();
	rr_pass_turn(e->obj, e->turn);
	rr_emit_sched(t, 0, e->tseq, e->obj, e->turn, e->op, e->result, e->arg);
	rr_fd.depth = 0;
	rr_fd.e = NULL;
	errno = want < 0 ? werr : err;
	return result;
}

/* Replay: the stream files RR_INPUT_REF records read their data from
 * (rr_area.h), mapped at startup (rr_map_streams). */
static struct {
	const char *base;
	uint64_t size;
	uint32_t id;
} rr_streams[RR_STREAMS_MAX];
static uint32_t rr_nstreams;

/* Where LEN bytes at file offset OFF of stream file ID are mapped. */
static const unsigned char *rr_stream_at(uint32_t id, uint64_t off, uint64_t len)
{
	for (uint32_t i = 0; i < rr_nstreams; i++)
		if (rr_streams[i].id == id && off <= rr_streams[i].size &&
		    len <= rr_streams[i].size - off)
			return (const unsigned char *)rr_streams[i].base + off;
	return NULL;
}

/* The n data bytes of input record in: in the record, or in the trace
 * (packed: unpacked into DST when it is not NULL, else into the thread's
 * buffer). */
static const unsigned char *rr_input_data(const struct rec_input *in, uint32_t n, void *dst,
					  const char *what)
{
	const struct rr_input_ref *ref = (const struct rr_input_ref *)in->data;
	const struct rr_input_zref *z = (const struct rr_input_zref *)in->data;
	const unsigned char *d;

	switch (ev_op(in->h.word)) {
	case RR_INPUT_REF:
		d = rr_stream_at(ref->stream, ref->off, n);
		break;
	case RR_INPUT_ZREF:
		d = rr_stream_at(z->stream, z->off, z->packed);
		if (d && z->raw == n) {
			d = agent_rr_zinput_unpack(d, z->packed, n, dst);
			if (!d)
				rr_diverge(RR_CAUSE_DATA, &in->h, what, 0, NULL,
					   "the recorded data is damaged (a packed chunk does not "
					   "unpack)");
		} else {
			d = NULL;
		}
		break;
	default:
		return (const unsigned char *)in->data;
	}
	if (!d)
		rr_diverge(RR_CAUSE_DATA, &in->h, what, 0, NULL, "the recorded data is missing from the trace");
	return d;
}

/* How many records past a signal delivery agent_rr_rep_peek_input looks
 * through for the call's (its handler's calls). */
#define RR_PEEK_HANDLER_RECS 64u

int agent_rr_rep_peek_input(unsigned call, int64_t *result, uint64_t *arg)
{
	uint64_t off = rr_self.cur;
	const struct rec_hdr *h;
	const struct rec_input *in;
	unsigned handler = 0;

	if (!rr_self.has_id)
		return 0;
	while (off < rr_self.end && rr_self.end - off >= sizeof(*h)) {
		h = (const struct rec_hdr *)(agent_rr_ro + off);
		if (h->size < sizeof(*h) || h->size > rr_self.end - off)
			return 0;
		if (rr_signal_at(off)) {
			off += h->size;
			handler = RR_PEEK_HANDLER_RECS;
			continue;
		}
		in = (const struct rec_input *)h;
		if (ev_kind(h->word) != KIND_INPUT || h->size < sizeof(*in) || in->call != call) {
			/* After a delivery, what its handler did: a signal that
			 * came during the real fork ran its handler in the parent
			 * before the fork's record was written (bash's SIGCHLD
			 * handler reaps with wait4: SIGNAL, WAIT, FORK in sync
			 * mode). Its records come before the call's; the replay
			 * still forks first (a few, RR_PEEK_HANDLER_RECS: a
			 * handler that itself forks is not told apart). */
			if (!handler--)
				return 0;
			off += h->size;
			continue;
		}
		*result = in->result;
		*arg = in->arg;
		return 1;
	}
	return 0;
}

uint32_t agent_rr_rep_input_len(struct agent_thread *t, unsigned call)
{
	const struct rec_hdr *h;
	const struct rec_input *in;

	/* (the signals due first, as agent_rr_rep_input delivers them: the
	 * record after them is the call's) */
	rr_rep_signals(t);
	h = rr_peek();
	if (!h || ev_kind(h->word) != KIND_INPUT)
		return 0;
	in = (const struct rec_input *)h;
	return in->call == call ? in->len : 0;
}

/* Sync mode, after a replayed input: wait for the writes its data or
 * readiness came from (the RR_CALL_WAKE records after it, in). Apart and
 * not inlined: its 1 KiB of thread numbers would otherwise sit in
 * agent_rr_rep_input's frame on every replayed input (a replayed
 * clock_gettime's), which the entry stubs must zero below the program's
 * frames (agent_scrub.c). */
static void __attribute__((noinline)) rr_rep_wakes(struct agent_thread *t,
						   const struct rec_input *in)
{
	const struct rec_hdr *h;
	uint64_t want = 0;
	uint32_t v[2 * RR_WAKE_THREADS];
	struct agent_rr_seg seg = {v, 2 * RR_WAKE_THREADS * sizeof(uint32_t)};
	uint32_t n = in->len / (2 * sizeof(uint32_t));

	if (n > RR_WAKE_THREADS)
		n = RR_WAKE_THREADS; /* (hostile: the data beyond is not copied) */
	agent_rr_rep_input(t, RR_CALL_WAKE, -1, &seg, 1, &want);
	rr_wake_wait(want, v, n, 0);
	/* then the threads numbered RR_WAKE_THREADS and up */
	while ((h = rr_peek()) && ev_kind(h->word) == KIND_INPUT &&
	       ((const struct rec_input *)h)->call == RR_CALL_WAKE_MORE) {
		n = ((const struct rec_input *)h)->len / (3 * sizeof(uint32_t));
		if (n > RR_WAKE_MORE_MAX)
			n = RR_WAKE_MORE_MAX;
		seg.n = sizeof(v);
		agent_rr_rep_input(t, RR_CALL_WAKE_MORE, -1, &seg, 1, NULL);
		rr_wake_wait(0, v, n, 1);
	}
}

int64_t agent_rr_rep_input(struct agent_thread *t, unsigned call, int fd,
			   const struct agent_rr_seg *seg, int nseg, uint64_t *arg)
{
	const struct rec_hdr *h;
	const struct rec_input *in;
	size_t cap = 0, si = 0, so = 0;
	int64_t result;
	uint32_t tseq, len, seq;
	int i, err;
	char what[64];
	struct rr_buf b = {what, 0, sizeof(what)};

	rr_puts(&b, rr_call_name(call));
	rr_put_call_arg(&b, call, fd);
	rr_rep_signals(t);
	h = rr_peek();
	/* a write whose turn of the standard output was the thread's last
	 * record: the recorded thread was in that write when another thread
	 * ended the process (a thread printing as main exits), like a call that
	 * blocks (agent_rr_outturn.c) */
	if (!h)
		rr_end_of_log(what, 0, NULL,
			      rr_call_blocks(call) ||
				  ((call == RR_CALL_WRITE || call == RR_CALL_WRITEV) &&
				   agent_rr_out_taken));
	in = (const struct rec_input *)h;
	if (ev_kind(h->word) == KIND_INPUT && in->call == RR_CALL_CANCEL && in->fd == (int)call)
		agent_rr_rep_cancel_input(what);
	if (ev_kind(h->word) == KIND_INPUT && in->call == call && in->fd != fd)
		rr_diverge(RR_CAUSE_FD, h, what, 0, NULL,
			   "the same call on another descriptor number");
	if (ev_kind(h->word) != KIND_INPUT || in->call != call)
		rr_diverge(RR_CAUSE_CALLS, h, what, 0, NULL, "a different call");
	for (i = 0; i < nseg; i++)
		cap += seg[i].n;
	if (in->len > cap)
		rr_diverge(RR_CAUSE_CALLS, h, what, 0, NULL, "the recorded data does not fit the buffer");
	result = in->result;
	err = in->err;
	len = in->len;
	tseq = in->tseq;
	if (arg)
		*arg = in->arg;
	/* Scatter the chunks (consecutive records of the same call). */
	for (;;) {
		uint32_t n = len - in->chunk_off, c = 0;
		const unsigned char *d;

		if (n > 8 * in->nwords)
			n = 8 * in->nwords;
		if (ev_op(in->h.word) == RR_INPUT_ZREF && si < (size_t)nseg &&
		    seg[si].n - so >= n) {
			/* A packed chunk that fits the buffer's current piece
			 * is unpacked straight into it. */
			rr_input_data(in, n, (char *)seg[si].p + so, what);
			so += n;
			if (so == seg[si].n) {
				si++;
				so = 0;
			}
			c = n;
		}
		d = c < n ? rr_input_data(in, n, NULL, what) : NULL;
		while (c < n && si < (size_t)nseg) {
			size_t k = seg[si].n - so;

			if (k > n - c)
				k = n - c;
			memcpy((char *)seg[si].p + so, d + c, k);
			c += (uint32_t)k;
			so += k;
			if (so == seg[si].n) {
				si++;
				so = 0;
			}
		}
		rr_self.cur += in->h.size;
		h = rr_peek();
		if (!h || ev_kind(h->word) != KIND_INPUT ||
		    ((const struct rec_input *)h)->tseq != tseq)
			break;
		in = (const struct rec_input *)h;
	}
	rr_self.tseq++;
	__atomic_store_n(&rr_threads[rr_self.id].done, rr_self.tseq, __ATOMIC_RELEASE);

	/* The replay trace notes the input (without its data), with
	 * RR_O_TRACE_SCHED. */
	if (!rr_trace_sched)
		goto out;
	t->busy++;
	seq = ++t->seq;
	t->prod.ring->last_seq = seq;
	{
		struct rec_input *r = rr_reserve(t, sizeof(*r));

		if (r) {
			r->h.word = ev_word(KIND_INPUT, t->index, 0, 0);
			r->thread = rr_self.id | rr_proc_bits;
			r->tseq = tseq;
			r->call = call;
			r->fd = fd;
			r->result = result;
			r->arg = arg ? *arg : 0;
			r->err = err;
			r->len = len;
			r->chunk_off = 0;
			r->nwords = 0;
			rr_commit(t, &r->h, sizeof(*r), seq);
		}
	}
	t->busy--;
out:
	/* sync mode: the writes this call's data or readiness may come from */
	if (call != RR_CALL_WAKE && call != RR_CALL_WAKE_MORE && (h = rr_peek()) &&
	    ev_kind(h->word) == KIND_INPUT && ((const struct rec_input *)h)->call == RR_CALL_WAKE)
		rr_rep_wakes(t, (const struct rec_input *)h);
	if (err)
		errno = err;
	return result;
}

/*
 * A replay restored from a snapshot (agent_snap_restore.c) whose thread was
 * parked taking the run token back after a blocking call (RR_PARK_BLOCK):
 * it returns into the recording's frames, which made the real call before
 * the snapshot was taken and record its result now. What the call gave the
 * program is already in the snapshot (its buffers in memory, its result in
 * the frames' registers), and in the log as that thread's next record. The
 * replay takes that record off the log as the replay's own call would
 * (agent_rr_rep_input: the same call on the same descriptor, its data
 * copied over the same bytes, the thread's event count and the replay
 * trace's note), and checks the result. No other frame records in a
 * replay: a thread's path is the replay's from its first call on.
 */
static void rr_rec_in_replay(struct agent_thread *t, unsigned call, int fd, int64_t result,
			     const struct agent_rr_seg *seg, int nseg)
{
	const struct rec_hdr *h = rr_peek();
	int64_t got;
	int e = errno;

	got = agent_rr_rep_input(t, call, fd, seg, nseg, NULL);
	if (got != result) {
		char what[96];
		struct rr_buf b = {what, 0, sizeof(what)};

		rr_puts(&b, rr_call_name(call));
		rr_put_call_arg(&b, call, fd);
		rr_puts(&b, " returning ");
		rr_puti(&b, result);
		rr_diverge(RR_CAUSE_RESULT, h, what, 0, NULL,
			   "the call returned something else (a thread restored from a "
			   "snapshot after its blocking call)");
	}
	errno = e;
}

int64_t agent_rr_rep_out_result(unsigned call)
{
	uint64_t cur = rr_self.cur;
	char what[64];
	struct rr_buf b = {what, 0, sizeof(what)};

	rr_puts(&b, rr_call_name(call));
	while (cur < rr_self.end && rr_self.end - cur >= sizeof(struct rec_hdr)) {
		const struct rec_hdr *h = (const struct rec_hdr *)(agent_rr_ro + cur);
		const struct rec_input *in = (const struct rec_input *)h;

		if (h->size < sizeof(*h) || h->size > rr_self.end - cur)
			break;
		if (ev_kind(h->word) == KIND_INPUT) {
			if (h->size < sizeof(*in))
				break;
			/* a cancellation acted on in the call: the caller's
			 * replay of the record acts on it (agent_rr_rep_input) */
			if (in->call == RR_CALL_CANCEL && in->fd == (int)call) {
				errno = EINTR;
				return -1;
			}
			if (in->call != call)
				rr_diverge(RR_CAUSE_CALLS, h, what, 0, NULL,
					   "a different call (a thread restored from a snapshot "
					   "in its blocking call)");
			if (in->result < 0)
				errno = in->err;
			return in->result;
		}
		/* (signals delivered before the call's record: its replay
		 * delivers them) */
		if (ev_kind(h->word) != KIND_SCHED || h->size < sizeof(struct rec_sched) ||
		    ((const struct rec_sched *)h)->op != RR_OP_SIGNAL)
			rr_diverge(RR_CAUSE_CALLS, h, what, 0, NULL,
				   "a different event (a thread restored from a snapshot in its "
				   "blocking call)");
		cur += h->size;
	}
	rr_end_of_log(what, 0, NULL, 1);
}

/* Sync mode orders what the agent records: a cancellation acted on at a
 * point it does not record (open, close, a stdio write) lands elsewhere in
 * a replay. Serial mode needs nothing: only the token holder runs, and it
 * acts on the cancellation where a replay does. */
void agent_rr_thread_unwound(void)
{
	if (agent_rr_mode == RR_MODE_RECORD && rr_self.has_id && !agent_rr_cancel_seen)
		__atomic_fetch_or(&rr_area->flags, RR_F_CANCEL_UNSEEN, __ATOMIC_RELAXED);
}

int agent_rr_rep_next_cancel(unsigned call)
{
	const struct rec_hdr *h = rr_peek();

	return h && ev_kind(h->word) == KIND_INPUT &&
	       ((const struct rec_input *)h)->call == RR_CALL_CANCEL &&
	       ((const struct rec_input *)h)->fd == (int)call;
}

void agent_rr_rep_cancel_input(const char *what)
{
	const struct rec_hdr *h = rr_peek();

	if (!h || ev_kind(h->word) != KIND_INPUT ||
	    ((const struct rec_input *)h)->call != RR_CALL_CANCEL)
		rr_diverge(RR_CAUSE_CALLS, h, what, 0, NULL, "a different call");
	rr_advance();
	agent_rr_rep_cancel(what);
}

/* ---- threads ---- */

/*
 * Sync mode: a thread creation's record comes before what the real
 * pthread_create did inside (glibc allocates the new thread's TLS vector
 * with calloc; a malloc like jemalloc may take its locks there, and those
 * calls are recorded): record takes the record's place in the thread's
 * log (its tseq) before the real call and writes it after (the host sorts
 * each thread's records by tseq); a replay takes the creation's turn
 * before the real call, then replays what it does inside in the recorded
 * order. (Before, the record came after them, and a replay, which checks
 * the creation before the real call, stopped: redis-server's jemalloc
 * background thread, "trylock ... against pthread_create".) Serial mode
 * keeps the record after the call (its schedule orders the calls inside).
 */
static __thread uint32_t rr_create_tseq;	       /* record: the reserved tseq */
static __thread const struct rec_sched *rr_create_e; /* replay: the creation, replayed */

uint32_t agent_rr_create_begin(struct agent_thread *t, int *forced)
{
	*forced = 0;
	rr_create_tseq = 0;
	rr_create_e = NULL;
	if (!rr_self.has_id) {
		__atomic_fetch_or(&rr_area->flags, RR_F_UNTRACKED, __ATOMIC_RELAXED);
		return RR_NO_TURN;
	}
	if (agent_rr_mode & RR_MODE_RECORD) {
		uint32_t turn = __atomic_fetch_add(rr_turn0, 1, __ATOMIC_ACQ_REL);

		if (turn + 1 >= rr_area->max_threads) {
			rr_lost("more threads than the recording has room for");
			return RR_NO_TURN;
		}
		/* Its serial slot, before the thread exists (agent_serial.c
		 * never has to map a thread's own slot later). */
		if (agent_serial_slot_ok(turn + 1) < 0) {
			rr_lost("no address space left for the serial slot of another thread");
			return RR_NO_TURN;
		}
		if (!(agent_rr_mode & RR_MODE_SERIAL))
			rr_create_tseq = ++rr_self.tseq;
		return turn + 1;
	}
	*forced = agent_rr_rep_begin(t, 0, OP_THREAD_CREATE, NULL, 1);
	/* A recorded failure (EAGAIN under RLIMIT_AS, EPERM under seccomp)
	 * creates nothing: its number is no thread's, and the replay's tables
	 * may not have room for it. It is a switch point as recorded
	 * (agent_rr_create_end). */
	if (*forced) {
		agent_rr_rep_end(t, *forced);
		if (agent_rr_mode & RR_MODE_SERIAL)
			agent_serial_point(RR_AT_CREATE);
		return RR_NO_TURN;
	}
	if (rr_self.pending->arg >= rr_area->max_threads)
		rr_diverge(RR_CAUSE_DATA, &rr_self.pending->h, "pthread_create", 0, NULL,
			   "bad thread number");
	if (!(agent_rr_mode & RR_MODE_SERIAL)) {
		const struct rec_sched *e = rr_self.pending;

		/* its turn now: the calls made inside come after it */
		agent_rr_rep_end(t, 0);
		rr_create_e = e;
		return (uint32_t)e->arg;
	}
	return (uint32_t)rr_self.pending->arg;
}

void agent_rr_create_end(struct agent_thread *t, uint32_t child, int rc)
{
	if (child == RR_NO_TURN)
		return;
	if (agent_rr_mode & RR_MODE_RECORD) {
		uint32_t tseq = rr_create_tseq ? rr_create_tseq : ++rr_self.tseq;

		__atomic_fetch_add(&rr_area->nthreads, 1, __ATOMIC_RELAXED);
		rr_rec_signals(t);
		rr_emit_sched(t, 0, tseq, 0, child - 1, OP_THREAD_CREATE, rc, child);
		rr_create_tseq = 0;
	} else if (rr_create_e) {
		const struct rec_sched *e = rr_create_e;

		rr_create_e = NULL;
		if (rc) {
			char what[64];
			struct rr_buf b = {what, 0, sizeof(what)};

			rr_puts(&b, "pthread_create returning ");
			rr_puti(&b, rc);
			rr_diverge(RR_CAUSE_RESULT, &e->h, what, 0, NULL,
				   "the call returned something else");
		}
	} else {
		agent_rr_rep_end(t, rc);
	}
	if (agent_rr_mode & RR_MODE_SERIAL) {
		if (!rc)
			agent_serial_thread_created(child);
		agent_serial_point(RR_AT_CREATE);
	}
}

/* Joins are ordered by the threads themselves; recording them lets a
 * replay see at once that a thread joins where it created, or the reverse. */
int agent_rr_join_begin(struct agent_thread *t)
{
	if (!rr_self.has_id)
		return 0;
	if (agent_rr_mode & RR_MODE_SERIAL) {
		agent_serial_point(RR_AT_JOIN);
		agent_serial_block_begin(RR_AT_JOIN);
	}
	agent_rr_sig_away = 1; /* its signals are for the others to deliver */
	if (agent_rr_mode & RR_MODE_REPLAY)
		return agent_rr_rep_begin(t, 0, OP_THREAD_JOIN_END, NULL, 1);
	return 0;
}

void agent_rr_join_end(struct agent_thread *t, int rc)
{
	if (!rr_self.has_id)
		return;
	agent_rr_sig_away = 0;
	if (agent_rr_mode & RR_MODE_SERIAL)
		agent_serial_block_end();
	/* The mode again: a thread parked in that wait for the token when a
	 * snapshot was taken comes back here in a copy that runs on
	 * (RR_SNAP_RUN), where the mode is off; it used to take the replay's
	 * branch and crash on its empty log (tests/integ/150). */
	if (agent_rr_mode & RR_MODE_RECORD) {
		rr_rec_signals(t);
		rr_emit_sched(t, 0, ++rr_self.tseq, 0, RR_NO_TURN, OP_THREAD_JOIN_END, rc, 0);
	} else if (agent_rr_mode & RR_MODE_REPLAY) {
		/* A joiner restored from a snapshot taken while it took the
		 * token back after the real join (RR_PARK_BLOCK): the
		 * replay's join event was never begun in this process. */
		if (!rr_self.pending)
			agent_rr_rep_begin(t, 0, OP_THREAD_JOIN_END, NULL, 1);
		agent_rr_rep_end(t, rc);
	}
}

/*
 * Sync replay: the real join, in rounds of a second. A thread that went
 * past its recording waits at the end of its log for good (rr_end_of_log),
 * so a join of it would never return: when a round times out twice in a
 * row while every other thread has ended or waits that way, the joined
 * thread is one of those, and the replay diverges instead of hanging (a
 * program changed so that a worker takes one lock more than recorded). A
 * thread that has ended but is still leaving makes one round time out at
 * most, hence two.
 */
/* Every thread created so far but SKIP has ended, or replayed all its
 * recorded events. */
static int rr_all_replayed_but(uint32_t skip)
{
	uint32_t created = __atomic_load_n(&rr_turn[0], __ATOMIC_SEQ_CST) + 1, i;

	if (created > rr_area->max_threads)
		created = rr_area->max_threads;
	for (i = 0; i < created; i++) {
		const struct rr_thread_slot *s = &rr_threads[i];

		if (i == skip || __atomic_load_n(&s->started, __ATOMIC_SEQ_CST) >= 2)
			continue;
		if (__atomic_load_n(&s->done, __ATOMIC_ACQUIRE) < s->nevents)
			return 0;
	}
	return 1;
}

int agent_rr_join_wait(pthread_t th, void **ret)
{
	static int (*timedjoin)(pthread_t, void **, const struct timespec *);
	int idle = 0, rc;
	int serial_rec = agent_rr_mode == (RR_MODE_RECORD | RR_MODE_SERIAL);

	if (AGENT_UNLIKELY(agent_snap_on) && rr_self.has_id &&
	    (agent_rr_mode & (RR_MODE_SERIAL | RR_MODE_RECORD)) == (RR_MODE_SERIAL | RR_MODE_RECORD))
		agent_snap_join_wait(rr_self.id, th); /* a wait a snapshot can hold */
	if (!rr_self.has_id || (!serial_rec && ((agent_rr_mode & RR_MODE_SERIAL) ||
						!(agent_rr_mode & RR_MODE_REPLAY))))
		return agent_real.join(th, ret);
	if (!timedjoin) {
		agent_self.busy++;
		timedjoin = (int (*)(pthread_t, void **, const struct timespec *))dlsym(
			RTLD_NEXT, "pthread_timedjoin_np");
		agent_self.busy--;
		if (!timedjoin)
			return agent_real.join(th, ret);
	}
	for (;;) {
		struct timespec ts;

		syscall(SYS_clock_gettime, CLOCK_REALTIME, &ts);
		ts.tv_sec += 1;
		if (serial_rec) {
			rc = timedjoin(th, ret, &ts);
		} else {
			int cs;

			/* A replay: the recorded join returned (a recorded
			 * cancellation in it never gets here), so the join, a
			 * cancellation point, must not act on one sent earlier
			 * in this run. */
			pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cs);
			rc = timedjoin(th, ret, &ts);
			pthread_setcancelstate(cs, NULL);
		}
		if (rc != ETIMEDOUT)
			return rc;
		if (serial_rec) {
			/* the serial recording's watch (agent_serial.c) */
			agent_serial_join_watch(idle++ == 0);
			continue;
		}
		if (!rr_done_but(rr_self.id)) { /* the others: ended or parked */
			/* A truncated recording: the others have replayed every
			 * event they recorded, and one waits past it outside the
			 * agent (a call spool does not interpose, as when the run
			 * was killed): the replay is at its end. */
			if (!(rr_area->opts & RR_O_TRUNCATED) || !rr_all_replayed_but(rr_self.id))
				idle = 0;
			else if (++idle >= 2)
				rr_end_of_log("pthread_join", 0, NULL, 0);
			continue;
		} else if (++idle >= 2)
			rr_diverge(RR_CAUSE_CALLS, NULL, "pthread_join", 0, NULL,
				   "the joined thread went past its recording and waits there for "
				   "good (every other thread has ended or waits at the end of its "
				   "recording)");
	}
}

/* Replay: a thread that ends before its recorded events are done. */
void agent_rr_thread_end(void)
{
	agent_rr_netdb_thread_end();
	if (!rr_self.has_id)
		return;
	/* The thread's last delivery point: a signal that arrived after its
	 * last event runs its handler here (the thread still exists). */
	if (agent_rr_mode & RR_MODE_RECORD)
		rr_rec_signals(&agent_self);
	else
		rr_rep_signals(&agent_self);
	if (agent_rr_mode & RR_MODE_REPLAY) {
		if (rr_self.cur < rr_self.end)
			rr_diverge(RR_CAUSE_CALLS, rr_peek(), "the thread ends", 0, NULL,
				   "the thread ends before its recorded events are done");
		__atomic_store_n(&rr_threads[rr_self.id].started, 2, __ATOMIC_SEQ_CST);
		agent_rr_zinput_thread_end();
		/* The last thread of a truncated replay whose others wait at
		 * their logs' ends: the replay is over. */
		if ((rr_area->opts & RR_O_TRUNCATED) && !(agent_rr_mode & RR_MODE_SERIAL) &&
		    rr_trunc_any_parked() && rr_trunc_all_done()) {
			int mine;
			struct rr_buf b = rr_report_begin(&mine);

			if (mine) {
				rr_puts(&b, "replay reached the end of the recording (the recorded "
					    "run was killed): thread ");
				rr_putu(&b, rr_self.id);
				rr_puts(&b, " ended after its event ");
				rr_putu(&b, rr_self.tseq);
			}
			rr_report_end(mine, RR_F_END);
		}
		/* Sync mode: the last running thread ends while the others wait at
		 * their logs' ends (rr_end_of_log): nothing will end the run. */
		if (!(rr_area->opts & RR_O_TRUNCATED) && !(agent_rr_mode & RR_MODE_SERIAL) &&
		    rr_trunc_any_parked() && rr_trunc_all_done())
			rr_diverge(RR_CAUSE_CALLS, NULL, "the thread ends", 0, NULL,
				   "the other threads wait at the ends of their recordings in calls "
				   "the recording does not have, and this last one ends");
	}
	if (agent_rr_mode & RR_MODE_SERIAL)
		agent_serial_thread_end();
}

/*
 * Exit wait: does thread i wait for a turn that only this thread (the one
 * exiting) can pass? It waits for turn t of an object whose next turn is
 * held by this thread, or by a thread that waits the same way (a chain of
 * at most max_threads). A thread that got its turn since (the turn word is
 * at or past it) or whose slot was read half-updated is not: the caller
 * keeps waiting, bounded by --stuck-ms. Reads the agent's slots only.
 */
static int rr_exit_blocked_by_me(uint32_t i)
{
	uint32_t n = rr_area->max_threads;

	for (uint32_t k = 0; k < n && i < n; k++) {
		const struct rr_thread_slot *s = &rr_threads[i];
		uint32_t obj = __atomic_load_n(&s->wait_obj, __ATOMIC_SEQ_CST);
		uint32_t turn = __atomic_load_n(&s->wait_turn, __ATOMIC_SEQ_CST), cur, at;

		if (obj == RR_NO_TURN || obj >= rr_area->max_objs)
			return 0;
		cur = __atomic_load_n(&rr_turn[obj], __ATOMIC_SEQ_CST);
		if (cur >= turn)
			return 0;
		at = rr_first[obj] + cur;
		if (at >= rr_first[obj + 1])
			return 0;
		i = rr_order[at].thread;
		if (i == rr_self.id)
			return 1;
	}
	return 0;
}

/*
 * Replay, sync mode: the process is ending (exit, or main returned; the
 * agent's destructor). In the recording every event of every thread
 * happened before the exit, since the exit ended them; but sync mode
 * orders threads only object by object, so the thread that exits may get
 * here first (memcached's main thread leaves its loop on SIGTERM while its
 * workers still have requests to replay; xz -T2's worker takes its mutex
 * once more as main exits). Wait until every other thread has replayed its
 * log (or stopped at its end).
 *
 * This thread may still have events of its own after this point: the
 * destructors of the libraries the program links run after the agent's
 * (tests/integ/173-exit-last.t: one asks for the process id). A thread that waits
 * for a turn one of those events holds cannot finish before this one goes
 * on, so it is not waited for (rr_exit_blocked_by_me); the others are.
 *
 * The wait is bounded by --stuck-ms without progress: a thread still
 * replaying events (slowly: other programs on the CPUs) restarts the
 * clock. After that spool reports the thread that did not finish.
 */
void agent_rr_exit_wait(void)
{
	uint64_t start = 0, now, progress = 0, seen;
	struct timespec ms1 = {0, 1000000};

	if (!rr_area || (agent_rr_mode & (RR_MODE_REPLAY | RR_MODE_SERIAL)) != RR_MODE_REPLAY ||
	    !rr_self.has_id)
		return;
	__atomic_store_n(&rr_exit_waiter, rr_self.id + 1, __ATOMIC_RELEASE);
	for (;;) {
		uint32_t i, n = rr_area->max_threads, left = 0;

		seen = 0;
		for (i = 0; i < n; i++) {
			uint32_t done;

			if (i == rr_self.id)
				continue;
			done = __atomic_load_n(&rr_threads[i].done, __ATOMIC_ACQUIRE);
			seen += done;
			if (done < rr_threads[i].nevents && !rr_exit_blocked_by_me(i))
				left++;
		}
		if (!left || (__atomic_load_n(&rr_area->flags, __ATOMIC_ACQUIRE) & RR_F_STOP))
			return;
		now = rr_now_ns();
		if (!start || seen != progress) {
			start = now;
			progress = seen;
		} else if (now - start > (uint64_t)agent_rr_stuck_ms * 1000000ull) {
			return;
		}
		syscall(SYS_nanosleep, &ms1, NULL);
	}
}

void agent_rr_thread_noring(void)
{
	if (!rr_self.has_id)
		return;
	if (agent_rr_mode & RR_MODE_RECORD) {
		rr_lost("a thread found no free ring: more threads were alive at once than "
			"spool has rings (spool record --max-threads); the recording is "
			"incomplete from there on");
		if (agent_rr_mode & RR_MODE_SERIAL)
			agent_serial_thread_leave();
	} else {
		rr_diverge(RR_CAUSE_LIMIT, NULL, "the thread starts", 0, NULL,
			   "the thread found no free ring (more threads alive at once than "
			   "--max-threads)");
	}
	rr_self.has_id = 0;
}

void agent_rr_thread_unnumbered(void)
{
	if (agent_rr_mode & RR_MODE_RECORD)
		rr_lost("a new thread could not take its number (the agent's start slots stayed "
			"busy for 1 s): the recording is incomplete from there on");
	else
		rr_diverge(RR_CAUSE_LIMIT, NULL, "pthread_create", 0, NULL,
			   "the new thread could not take its number (the agent's start slots "
			   "stayed busy for 1 s)");
}

int agent_rr_numbered(void)
{
	return agent_rr_mode && rr_self.has_id;
}

/* A new thread, registered: in serial mode, wait for the run token. */
void agent_rr_thread_go(void)
{
	if ((agent_rr_mode & RR_MODE_SERIAL) && rr_self.has_id)
		agent_serial_thread_go();
}

void agent_rr_thread_start(uint32_t number)
{
	if (number == RR_NO_TURN || !agent_rr_mode)
		return;
	rr_self.id = number;
	rr_self.has_id = 1;
	rr_self.tseq = 0;
	rr_self.ktid = (uint32_t)syscall(SYS_gettid);
	if (agent_rr_mode & RR_MODE_SERIAL)
		agent_serial_thread_start(number);
	if (agent_rr_mode & RR_MODE_REPLAY) {
		struct rr_thread_slot *s = &rr_threads[number];

		rr_self.cur = s->log_off;
		rr_self.end = s->log_end;
		s->wait_obj = RR_NO_TURN;
		/* its kernel id, for a stuck report's look at its kernel state
		 * (agent_rr_kstate.c) and for the signals sent to it */
		__atomic_store_n(&s->real_tid, (int32_t)syscall(SYS_gettid), __ATOMIC_RELAXED);
		__atomic_store_n(&s->started, 1, __ATOMIC_RELEASE);
	}
}

struct agent_thread *agent_rr_io_enter(void)
{
	struct agent_thread *t = &agent_self;

	if (t->state != AGENT_T_ON || t->busy || !agent.active)
		return NULL;
	if (!rr_self.has_id) {
		__atomic_fetch_or(&rr_area->flags, RR_F_UNTRACKED, __ATOMIC_RELAXED);
		return NULL;
	}
	if (agent_rr_mode & RR_MODE_SERIAL) {
		agent_ser.inputs++;
		/* a snapshot due by time is looked for at this point, or at
		 * the next one after a stdio call's */
		agent_serial_snap_check();
		/* (stdio's calls hold its FILE lock: never a switch there) */
		if (!agent_rr_in_stdio)
			agent_serial_point(RR_AT_INPUT);
	}
	return t;
}

/* ---- thread ids ---- */

/* Replay: the thread's gettid returned its recorded id; a signal the
 * program sends to that id for real (agent_rr_signal.c) must reach this
 * thread, whose id in this run differs. */
void agent_rr_note_tid(pid_t recorded)
{
	struct rr_thread_slot *s;

	if (!rr_self.has_id || !(agent_rr_mode & RR_MODE_REPLAY))
		return;
	s = &rr_threads[rr_self.id];
	__atomic_store_n(&s->real_tid, (int32_t)syscall(SYS_gettid), __ATOMIC_RELAXED);
	__atomic_store_n(&s->rec_tid, (int32_t)recorded, __ATOMIC_RELEASE);
}

pid_t agent_rr_real_tid(pid_t tid)
{
	if (!(agent_rr_mode & RR_MODE_REPLAY) || tid <= 0)
		return tid;
	for (uint32_t i = 0; i < rr_area->max_threads; i++)
		if (__atomic_load_n(&rr_threads[i].rec_tid, __ATOMIC_ACQUIRE) == tid)
			return (pid_t)__atomic_load_n(&rr_threads[i].real_tid, __ATOMIC_RELAXED);
	return tid;
}

/* ---- startup ---- */

/* The copy of a snapshot that runs on (agent_snap.c, RR_SNAP_RUN): not
 * recorded, like a fork child, but without RR_F_FORKED: the recording
 * itself is whole. The caller has made the area private to the copy. */
void agent_rr_snap_detach(void)
{
	agent_rr_mode = RR_MODE_OFF;
	rr_fd_on = 0;
	agent_serial_fork_child();
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif

/* Map the replay area's pages in one call before the program runs: in a VM
 * a page fault costs ~14 us of CPU (an exit each), and a replay of 400k
 * events reads a log of ~25 MB, one fault per page otherwise. Written, not
 * read: the turn words and thread slots are written. An older kernel
 * refuses; the pages then fault in as they are used. */
static void rr_populate(void *p, uint64_t len)
{
	uintptr_t a = (uintptr_t)p & ~(uintptr_t)4095;

	(void)madvise((void *)a, len + ((uintptr_t)p - a), MADV_POPULATE_WRITE);
}

/*
 * Open a file spool checked before it started the program (the replay image,
 * a stream file): by the name spool used, but without following a link
 * (O_NOFOLLOW) or blocking on a FIFO (O_NONBLOCK), and only when it is still
 * that regular file (the device and inode spool noted in the area). A trace
 * directory someone else can write could otherwise swap the name for a link
 * to a secret file between spool's check and this open. Raw system calls:
 * the agent's open and close are interposed. The descriptor, or -1.
 */
static long rr_open_checked(const char *path, uint64_t dev, uint64_t ino, struct stat *st)
{
	long fd = syscall(SYS_openat, AT_FDCWD, path,
			  O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);

	if (fd < 0)
		return -1;
	if (syscall(SYS_fstat, fd, st) < 0 || !S_ISREG(st->st_mode) ||
	    (uint64_t)st->st_dev != dev || (uint64_t)st->st_ino != ino) {
		syscall(SYS_close, fd);
		return -1;
	}
	return fd;
}

/*
 * Map the replay image (rr_img.c): read-only and private, populated in one
 * call from the page cache, so a replay of millions of events starts
 * without the host copying them. The header must be the one the host
 * read, in the file the host checked (rr_open_checked). Raw system calls:
 * the program's descriptors must not move.
 */
static const char *rr_map_image(struct rr_area *a)
{
	const struct {
		uint64_t magic;
		uint32_t version, area_version;
		uint64_t key, size;
	} *h;
	struct stat st;
	void *p;
	long fd;

	a->img_path[sizeof(a->img_path) - 1] = 0;
	fd = rr_open_checked(a->img_path, a->img_dev, a->img_ino, &st);
	if (fd < 0) {
		agent_disable("record/replay: cannot open the replay image, or it is no longer "
			      "the file spool checked");
		return NULL;
	}
	if ((uint64_t)st.st_size < a->img_size) {
		syscall(SYS_close, fd);
		agent_disable("record/replay: the replay image changed");
		return NULL;
	}
	p = agent_vm_map(a->img_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, (int)fd, 0);
	syscall(SYS_close, fd);
	if (p == MAP_FAILED) {
		agent_disable("record/replay: cannot map the replay image");
		return NULL;
	}
	h = p;
	if (h->key != a->img_key || h->size != a->img_size || h->area_version != RR_VERSION) {
		munmap(p, a->img_size);
		agent_disable("record/replay: the replay image changed");
		return NULL;
	}
	return p;
}

/* Map the stream files the replay reads input data from: read-only,
 * private, populated in one call (a page fault costs ~14 us in a VM).
 * Each must be the file spool checked (rr_open_checked). */
static int rr_map_streams(struct rr_area *a)
{
	char path[1100];

	a->trace_dir[sizeof(a->trace_dir) - 1] = 0;
	for (uint32_t i = 0; i < a->nstreams && i < RR_STREAMS_MAX; i++) {
		struct rr_buf b = {path, 0, sizeof(path)};
		struct stat st;
		void *p = NULL;
		long fd;

		rr_puts(&b, a->trace_dir);
		rr_puts(&b, "/stream_");
		rr_putu(&b, a->stream_id[i]);
		fd = rr_open_checked(path, a->stream_dev, a->stream_ino[i], &st);
		if (fd < 0) {
			agent_disable("record/replay: cannot open a stream file of the recording, "
				      "or it is no longer the file spool checked");
			return -1;
		}
		if (st.st_size > 0)
			p = agent_vm_map((size_t)st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE,
				 (int)fd, 0);
		syscall(SYS_close, fd);
		if (p == MAP_FAILED) {
			agent_disable("record/replay: cannot map a stream file of the recording");
			return -1;
		}
		rr_streams[rr_nstreams].base = p;
		rr_streams[rr_nstreams].size = p ? (uint64_t)st.st_size : 0;
		rr_streams[rr_nstreams++].id = a->stream_id[i];
	}
	return 0;
}

/*
 * Where the program's stack, break, next mapping and executable are as it
 * starts, for spool to compare a replay's with the recording's: a replay
 * hands back recorded pointers, valid only at the same addresses. The
 * mapping probe is a page mapped and unmapped again, where the program's
 * next mmap would go (raw calls: before main, once). Called at the end of
 * the agent's start, after everything it maps (libzstd for a --compress
 * replay included, which lands among the program's mappings).
 */
static int rr_layout_due; /* the first process of the recording or replay */

void agent_rr_note_layout(void)
{
	extern char **environ;
	struct rr_area *a = rr_area;
	long p;

	if (!a || !rr_layout_due)
		return;
	rr_layout_due = 0;
	a->layout[RR_LAYOUT_STACK] = (uint64_t)(uintptr_t)environ;
	a->layout[RR_LAYOUT_BRK] = (uint64_t)syscall(SYS_brk, 0);
	p = syscall(SYS_mmap, 0, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p != -1) {
		a->layout[RR_LAYOUT_MMAP] = (uint64_t)p;
		syscall(SYS_munmap, p, 4096);
	}
	a->layout[RR_LAYOUT_EXE] = (uint64_t)getauxval(AT_PHDR);
	agent_rr_early_note(a);
}

/* Start recording or replaying process number k into area a (size
 * bytes mapped; base: where the area starts in the feature area): the
 * first process from agent_rr_init, a fork child from its fork handler
 * (agent_rr_proc.c). One thread runs. A recording maps the area's header
 * only, its arrays a chunk at a time as used (agent_lazy.c); a replay maps
 * the whole of it. */
int agent_rr_attach(struct rr_area *a, uint64_t size, uint64_t base, uint32_t k)
{
	struct shm_ctl *c = agent.ctl;

	rr_area = a;
	rr_proc_bits = k == RR_NO_PROC ? 0 : k << RR_PROC_SHIFT;
	rr_nparked = 0;
	rr_nstreams = 0;
	rr_wakes = 0; /* (one thread runs: a fork child's count starts again) */
	rr_wake_sum = 0;
	/* (only as far as counted: the rest of the bss stays untouched) */
	memset(rr_wake_tseq, 0, sizeof(uint32_t) * (rr_wake_hi > RR_WAKE_THREADS ? rr_wake_hi : RR_WAKE_THREADS));
	memset(rr_wake_wr, 0, sizeof(uint32_t) * (rr_wake_hi > RR_WAKE_THREADS ? rr_wake_hi : RR_WAKE_THREADS));
	rr_wake_hi = 0;
	rr_wake_seen = rr_wake_own = 0;
	agent_rr_pid_recorded = 0;
	agent_rr_stuck_ms = a->stuck_ms;
	/* (the mapping was chosen by this header's mode: a replay's is whole) */
	if (a->mode == RR_MODE_REPLAY && size <= RR_AREA_HDR) {
		agent_disable("record/replay: a replay area in a recording");
		return -1;
	}
	if (k == 0 || k == RR_NO_PROC)
		rr_layout_due = 1;
	rr_turn_max = agent_lazy_init(&rr_turns, SHM_EXT_REPLAY,
				      (a->mode == RR_MODE_REPLAY ? 0 : base) + a->turn_off,
				      sizeof(uint32_t), a->max_objs,
				      a->mode == RR_MODE_REPLAY ? (char *)a : NULL);
	rr_turn0 = agent_lazy_at(&rr_turns, 0);
	if (!rr_turn0) {
		agent_disable("record/replay: cannot map the turn words");
		return -1;
	}
	rr_turn = (uint32_t *)((char *)a + a->turn_off);
	rr_objmap = (uint32_t *)((char *)a + a->objmap_off);
	rr_threads = (struct rr_thread_slot *)((char *)a + a->threads_off);
	agent_rr_ro = (const char *)a;
	if (a->mode == RR_MODE_REPLAY && a->img_size) {
		agent_rr_ro = rr_map_image(a);
		if (!agent_rr_ro)
			return -1;
	}
	if (a->mode == RR_MODE_REPLAY && rr_map_streams(a) < 0)
		return -1;
	if ((a->opts & RR_O_PACKED) && agent_rr_zinput_init(a->mode == RR_MODE_REPLAY) < 0)
		return -1;
	rr_first = (uint32_t *)(agent_rr_ro + a->first_off);
	rr_order = (struct rr_order *)(agent_rr_ro + a->order_off);
	rr_chunk = c->ring_bytes / 8 < RR_CHUNK_MAX ? c->ring_bytes / 8 : RR_CHUNK_MAX;
	agent_lock_quiet = !(a->opts & RR_O_LOCK_EVENTS);
	/* Sync mode orders the descriptor table (a replay: when the recording
	 * did). Its object number is a lock index no lock will have. */
	if (!a->serial && a->mode == RR_MODE_RECORD) {
		rr_fd_obj = __atomic_fetch_add(&c->nlocks, 1, __ATOMIC_RELAXED);
		rr_fd_turn = rr_fd_obj && rr_fd_obj < rr_turn_max ? agent_lazy_at(&rr_turns, rr_fd_obj)
								  : NULL;
		rr_fd_on = rr_fd_turn != NULL;
	} else if (!a->serial && (a->opts & RR_O_FDTAB)) {
		rr_fd_on = 1;
	}
	rr_trace_sched = a->mode != RR_MODE_REPLAY || (a->opts & RR_O_TRACE_SCHED);
	rr_self.id = 0;
	rr_self.has_id = 1;
	rr_self.tseq = 0;
	rr_self.ktid = (uint32_t)syscall(SYS_gettid);
	rr_self.pending = NULL;
	if (a->mode == RR_MODE_REPLAY) {
		rr_populate(a, size);
		if (!a->max_threads) {
			agent_disable("record/replay: empty replay log");
			return -1;
		}
		rr_self.cur = rr_threads[0].log_off;
		rr_self.end = rr_threads[0].log_end;
		rr_threads[0].wait_obj = RR_NO_TURN;
		rr_threads[0].real_tid = (int32_t)syscall(SYS_gettid);
		__atomic_store_n(&rr_threads[0].started, 1, __ATOMIC_RELEASE);
	} else {
		a->nthreads = 1;
	}
	if (agent_serial_init(a, rr_turn0, a->mode == RR_MODE_REPLAY ? (char *)a : NULL, base) < 0) {
		agent_disable("record/replay: cannot map the serial slots");
		return -1;
	}
	if (a->mode == RR_MODE_REPLAY && !(agent.proc_flags & (PROC_F_FORK | PROC_F_EXEC)))
		agent_rr_note_outputs();
	/* Serial mode: stdio's own reads and writes (a replay: when the
	 * recording saw them). A fork child has its parent's tables. */
	if (a->serial && (a->mode == RR_MODE_RECORD || (a->opts & RR_O_STDIO)) &&
	    agent_rr_stdio_hook(0) == 0)
		__atomic_fetch_or(&a->flags, RR_F_STDIO, __ATOMIC_RELAXED);
	/* Sync mode: stdio's reads and writes while the process has one thread */
	if (!a->serial && (a->mode == RR_MODE_RECORD || (a->opts & RR_O_STDIO_SOLO)) &&
	    agent_rr_stdio_hook(1) == 0)
		__atomic_fetch_or(&a->flags, RR_F_STDIO_SOLO, __ATOMIC_RELAXED);
	/* (a library's constructor read through stdio: routed since, kept
	 * only if the mode wants it) */
	agent_rr_stdio_early_end();
	/* Sync mode: each stream's calls take turns once threads exist */
	if (!a->serial && (a->mode == RR_MODE_RECORD || (a->opts & RR_O_STDIO_TURN))) {
		agent_rr_stdio_turns = 1;
		__atomic_fetch_or(&a->flags, RR_F_STDIO_TURN, __ATOMIC_RELAXED);
	}
	/* Sync mode: the threads' writes to 1 and 2 take turns of one object */
	if (!a->serial && (a->mode == RR_MODE_RECORD || (a->opts & RR_O_OUT_TURN))) {
		agent_rr_out_turns = 1;
		__atomic_fetch_or(&a->flags, RR_F_OUT_TURN, __ATOMIC_RELAXED);
	}
	/* Sync mode: fflush(NULL), the flush at exit, fclose and dprintf too */
	if (!a->serial && (a->mode == RR_MODE_RECORD || (a->opts & RR_O_STDIO_FLUSH))) {
		agent_rr_stdio_flushes = 1;
		__atomic_fetch_or(&a->flags, RR_F_STDIO_FLUSH, __ATOMIC_RELAXED);
	}
	/* getrusage, times and clock() are recorded (agent_rr_cputime.c) */
	if (a->mode == RR_MODE_RECORD || (a->opts & RR_O_CPUTIME)) {
		agent_rr_cputime = 1;
		__atomic_fetch_or(&a->flags, RR_F_CPUTIME, __ATOMIC_RELAXED);
	}
	/* (before the mode is on: the log's write would be the program's) */
	agent_log("record/replay: mode %u%s, process %u", a->mode,
		  agent_serial_on ? " serial" : "", k);
	/* where the recording loaded libzstd (the layout), under the
	 * gdbserver too: its checkpoints are not taken while a thread is in
	 * the loader (gdbsrv_fork.c: a copy made at gdb's stop for this
	 * dlopen's library event waited for the loader's lock for good,
	 * tests/integ/224, 305) */
	if (a->mode == RR_MODE_REPLAY && (a->opts & RR_O_SNAPZ))
		agent_snap_img_init();
	if (agent_serial_on == RR_MODE_RECORD ||
	    (agent_serial_on == RR_MODE_REPLAY && (a->opts & RR_O_CHECKPOINTS)))
		agent_snap_init(a, size);
	__atomic_store_n(&agent_rr_mode, (int)a->mode | (agent_serial_on ? RR_MODE_SERIAL : 0),
			 __ATOMIC_RELEASE);
	return 0;
}

struct rr_area *agent_rr_area(void)
{
	return rr_area;
}

/* A fork child whose process cannot be recorded (no tree, no number
 * left): it runs on unrecorded and the recording says so. */
void agent_rr_detach(uint32_t flag)
{
	agent_rr_mode = RR_MODE_OFF;
	agent_serial_fork_child();
	if (rr_area)
		__atomic_fetch_or(&rr_area->flags, flag, __ATOMIC_ACQ_REL);
}

/*
 * Stop a recording and let the program run on unrecorded (agent_rr_clone_stop,
 * agent_rr_sev_stop): FLAG (RR_F_*) tells spool record and spool replay why,
 * WHY goes to the agent's log. The caller has checked that a recording runs
 * (record mode, rr_area). Atomics, raw system calls, agent_log only: called
 * from the SIGSYS handler too.
 */
static void rr_record_stop(uint32_t flag, const char *why)
{
	__atomic_fetch_or(&rr_area->flags, flag, __ATOMIC_ACQ_REL);
	/* (not agent_disable: spool record says it, with the count) */
	__atomic_store_n(&agent.active, 0, __ATOMIC_SEQ_CST);
	agent_log("record: %s: the recording stops, the program runs on", why);
	rr_fd_on = 0;
	__atomic_store_n(&agent_rr_mode, RR_MODE_OFF, __ATOMIC_SEQ_CST);
	agent_serial_stop();
}

/*
 * Record: the program makes a thread with its own clone (libc's clone() or
 * its own clone system call) on its creator's TLS, where the agent keeps
 * its thread state: the thread number, the serial run token's view
 * (ser_me, agent_ser), the ring and its log. Two threads under one number
 * break the token: the one that does not hold it gave the token away or
 * freed it while the holder slept, and a thread it had just been handed to
 * waited for good (serial record of tests/progs/clone_locks, about 1 run in
 * 40; with --chaos nearly every run). Their calls would also be recorded as
 * their creator's, which no replay can follow. So the recording stops here,
 * before the clone is made, and the program runs on unrecorded, as it would
 * without spool: no more events (agent.active 0), no more schedule (agent_serial_stop wakes every waiter),
 * no more recorded inputs (agent_rr_mode off). RR_F_CLONE_STOP tells spool
 * record, which says so and counts the clone threads (ctl->raw_clones);
 * spool replay refuses the recording. Called by the creator, also from the
 * SIGSYS handler: atomics, raw system calls, agent_log only.
 */
void agent_rr_clone_stop(void)
{
	if (!(__atomic_load_n(&agent_rr_mode, __ATOMIC_ACQUIRE) & RR_MODE_RECORD) || !rr_area)
		return;
	rr_record_stop(RR_F_CLONE_STOP, "the program makes a thread with its own clone");
}

/*
 * Serial record: the function of a SIGEV_THREAD timer reached a switch
 * point (agent_rr_sevthread.c). glibc starts a thread for it at each
 * expiry, when the kernel's timer fires, so where that thread takes part
 * in the schedule is not the program's doing: no replay could follow it
 * ("a different switch point", tests/progs/rr_sevthread). The recording
 * stops as for a clone thread, the program runs on unrecorded, and the
 * report says which function and where its timer was made; spool replay
 * refuses the recording (RR_F_SEV_STOP). The report is written before the
 * stop; dladdr (rr_put_site) takes the loader's lock, which this thread
 * does not hold at a switch point.
 */
void agent_rr_sev_stop(uint64_t fn, uint64_t site)
{
	struct rr_buf b;
	int mine;

	if (!(__atomic_load_n(&agent_rr_mode, __ATOMIC_ACQUIRE) & RR_MODE_RECORD) || !rr_area)
		return;
	b = rr_report_begin(&mine);
	if (mine) {
		rr_puts(&b, "the function of a SIGEV_THREAD timer (");
		rr_putx(&b, fn);
		rr_puts(&b, ", its timer_create");
		if (site)
			rr_put_site(&b, site);
		rr_puts(&b, ") took a lock or made another call serial mode orders: glibc runs "
			    "it in a thread of its own at each expiry, outside the schedule, so no "
			    "replay could follow it; the recording stopped there and the program "
			    "ran on unrecorded. Record it in sync mode (--mode sync), which runs "
			    "the function in a thread spool numbers (doc/record.md, \"SIGEV_THREAD "
			    "timers\")");
	}
	rr_record_stop(RR_F_SEV_STOP, "a SIGEV_THREAD timer's function reached a switch point");
}

/* Serial record: a thread spool did not see being made found running on
 * its creator's TLS (agent_serial.c): counted as a clone thread, and the
 * recording stops as for one that was seen. */
void agent_rr_clone_unseen(void)
{
	if (!(__atomic_load_n(&agent_rr_mode, __ATOMIC_ACQUIRE) & RR_MODE_RECORD) || !agent.ctl)
		return;
	__atomic_fetch_add(&agent.ctl->unseen_clones, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&agent.ctl->raw_clones, 1, __ATOMIC_RELAXED);
	agent_rr_clone_stop();
}

void agent_rr_init(void)
{
	struct shm_ctl *c = agent.ctl;
	uint64_t size, base;
	struct rr_area *a;
	uint32_t k;

	if (!c || !(c->features & (SHM_FEAT_RECORD | SHM_FEAT_REPLAY)))
		return;
	a = agent_rr_tree_open(&size, &base, &k);
	if (!a)
		return;
	if (a->magic != RR_MAGIC || a->version != RR_VERSION ||
	    (a->mode != RR_MODE_RECORD && a->mode != RR_MODE_REPLAY)) {
		agent_disable("record/replay: the feature area is not spool's");
		return;
	}
	rr_area = a;
	/* A replay of a tree in which a process starts that the recording
	 * does not have: the replay has gone its own way (it would run
	 * unreplayed, its inputs for real). */
	if (k == RR_NO_PROC && a->mode == RR_MODE_REPLAY && a->tree_off)
		agent_rr_stop("replay diverged: a process started that the recording does not have "
			      "(an exec or a spawn the recorded process did not make)",
			      0);
	if (k == RR_NO_PROC && (agent.proc_flags & (PROC_F_EXEC | PROC_F_FORK))) {
		/* A layout without a process tree (or no number left): the
		 * process runs unrecorded, and the recording says so. */
		__atomic_fetch_or(&a->flags, (agent.proc_flags & PROC_F_EXEC) ? RR_F_EXEC : RR_F_FORKED,
				  __ATOMIC_ACQ_REL);
		return;
	}
	pthread_atfork(agent_rr_fork_prepare, agent_rr_fork_parent, agent_rr_fork_child_handler);
	if (agent_rr_attach(a, size, base, k) == 0)
		agent_rr_tree_started();
}

/* ---- a replay restored from a snapshot (agent_snap_restore.c) ---- */

/* Thread number `number` was recreated from a snapshot, on its own TLS,
 * which holds what the recording's agent had (its event count tseq, its
 * serial progress count): its replay state becomes the replay's at the
 * same point. Its log position is the first record past its tseq events
 * (records carry their thread's event number; an input's chunks share
 * one). Returns 0, or -EINVAL when its log is shorter than that. */
int agent_rr_restore_thread(uint32_t number, int holder, uint32_t park)
{
	struct rr_thread_slot *s;
	uint64_t cur, end;

	if (!rr_threads || number >= rr_area->max_threads)
		return -EINVAL;
	s = &rr_threads[number];
	cur = s->log_off;
	end = s->log_end;
	while (cur < end) {
		const struct rec_hdr *h = (const struct rec_hdr *)(agent_rr_ro + cur);
		unsigned kind;

		if (end - cur < sizeof(struct rec_sched) || h->size < sizeof(struct rec_hdr) ||
		    h->size > end - cur)
			return -EINVAL;
		kind = ev_kind(h->word);
		if (kind != KIND_SCHED && kind != KIND_INPUT)
			return -EINVAL;
		if (((const struct rec_sched *)h)->tseq > rr_self.tseq)
			break;
		cur += h->size;
	}
	rr_self.id = number;
	rr_self.has_id = 1;
	rr_self.cur = cur;
	rr_self.end = end;
	rr_self.pending = NULL;
	rr_last_rec = NULL;
	rr_in_signal = 0;
	agent_rr_sig_at = 0; /* look at its next switch point */
	s->wait_obj = RR_NO_TURN;
	__atomic_store_n(&s->done, rr_self.tseq, __ATOMIC_RELEASE);
	s->real_tid = (int32_t)syscall(SYS_gettid);
	__atomic_store_n(&s->started, 1, __ATOMIC_SEQ_CST);
	agent_serial_restore_thread(number, holder, park);
	return 0;
}

/* A restored joiner (agent_snap_join_wait, resumed): the replay's joiner
 * waits for its turn at the join's switch point, then begins the join's
 * event as agent_rr_join_begin does; the recording's frames above go on
 * with the real join and agent_rr_join_end. */
void agent_rr_restore_join(void)
{
	agent_serial_restore_join();
	agent_rr_rep_begin(&agent_self, 0, OP_THREAD_JOIN_END, NULL, 1);
}

/* Before the threads are recreated: the numbers below n that the snapshot
 * does not hold had ended by then (their logs are done). */
void agent_rr_restore_ended(uint32_t n)
{
	for (uint32_t i = 0; i < n && i < rr_area->max_threads; i++) {
		__atomic_store_n(&rr_threads[i].done, rr_threads[i].nevents, __ATOMIC_RELEASE);
		__atomic_store_n(&rr_threads[i].started, 2, __ATOMIC_SEQ_CST);
	}
}
