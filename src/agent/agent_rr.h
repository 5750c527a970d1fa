// SPDX-License-Identifier: MIT
/*
 * agent_rr.h - record/replay inside the agent (doc/record.md): the hooks
 * the lock interposers (agent_lock.c), thread creation (agent_thread.c), the
 * input interposers (agent_rr_io.c) and the descriptor calls
 * (agent_rr_fd.c) call, all implemented in agent_rr.c.
 *
 * Every hook sits behind one test of agent_rr_mode, which stays
 * RR_MODE_OFF in plain `spool locks` runs and in an inert agent: a
 * predictable branch is all recording costs when it is off.
 *
 * Record (sync mode): after each acquisition the thread takes the next turn
 * of the object with an atomic fetch-add (while it holds the object, so the
 * turn order is the acquisition order) and writes a KIND_SCHED record to its
 * own ring. Replay: the thread reads its next record from the log the host
 * put in the feature area, waits until the object's turn word says it is its
 * turn, performs the call (or returns the recorded result), then advances
 * the turn word and wakes the waiters.
 */
#ifndef SPOOL_AGENT_AGENT_RR_H
#define SPOOL_AGENT_AGENT_RR_H

#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/types.h>

#include "../replay/rr_area.h"
#include "agent.h"

/* Report text without stdio (the stuck and divergence reports,
 * agent_rr_kstate.c): a bounded buffer, always NUL-terminated, that drops
 * what does not fit. Signal-safe. */
struct rr_buf {
	char *p;
	size_t n, cap;
};

static inline void rr_puts(struct rr_buf *b, const char *s)
{
	while (s && *s && b->n + 1 < b->cap)
		b->p[b->n++] = *s++;
	b->p[b->n] = 0;
}

static inline void rr_putu(struct rr_buf *b, uint64_t v)
{
	char tmp[24];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n && b->n + 1 < b->cap)
		b->p[b->n++] = tmp[--n];
	b->p[b->n] = 0;
}

extern int agent_rr_mode; /* RR_MODE_*: the one branch of every hook */
/* The area's stuck_ms, read once at startup: the program can rewrite the
 * shared area, and a wait must not grow unbounded because it did. */
extern uint32_t agent_rr_stuck_ms;
/* Base of the offsets of the replay's read-only arrays (agent_rr.c). */
extern const char *agent_rr_ro;
/* agent_lock.c: no KIND_LOCK events (recording or replaying without
 * RR_O_LOCK_EVENTS); set by agent_rr_init before the program runs. */
extern int agent_lock_quiet;

/* Called by the constructor once the process slot is claimed. */
/* Note where the program's stack, break, next mapping and executable are
 * (rr_area.layout), once, at the end of the agent's start. */
void agent_rr_note_layout(void);
/* agent_rr_sevthread.c: a SIGEV_THREAD timer made with a notifier thread
 * spool numbers (0, or -1 and errno; -ENOSYS: not one, glibc's way), the
 * signal its timer sends (0: not one of them), and timer_delete's end of
 * the notifier. */
int agent_rr_sev_thread_create(clockid_t clock, const struct sigevent *sev, timer_t *id,
			       int (*real_create)(clockid_t, struct sigevent *, timer_t *),
			       uint64_t site);
int agent_rr_sev_thread_sig(timer_t id);
void agent_rr_sev_thread_deleted(timer_t id, int rc);
/* Serial record: nonzero while this thread runs the function of a
 * SIGEV_THREAD timer (agent_rr_sevthread.c); its first switch point stops
 * the recording (agent_serial.c calls agent_rr_sev_switch). */
extern __thread uint32_t agent_rr_sev_fn;
void agent_rr_sev_switch(void);
/* agent_rr.c: stop a serial recording the way agent_rr_clone_stop does
 * (the program runs on unrecorded), with RR_F_SEV_STOP and the report: a
 * SIGEV_THREAD timer's function fn (made by timer_create called at site)
 * reached a switch point. */
void agent_rr_sev_stop(uint64_t fn, uint64_t site);
/* Whether the calling thread has a record/replay number. */
int agent_rr_numbered(void);
/* agent_rr_kstate.c: thread tid's kernel state (state, system call,
 * wchan, CPU time) as text, for the stuck reports; the length written. */
size_t agent_rr_kstate(int32_t tid, char *out, size_t cap);
/* agent_rr_early.c: clock reads before the agent started */
extern int agent_rr_started;
int agent_rr_early_clock(clockid_t clk, struct timespec *ts);
ssize_t agent_rr_early_read(int fd, void *buf, size_t n);
ssize_t agent_rr_early_getrandom(void *buf, size_t n, unsigned flags);
pid_t agent_rr_early_getpid(void);
void agent_rr_early_start(void);
void agent_rr_early_note(struct rr_area *a);
void agent_rr_init(void);

/* Process trees (agent_rr_proc.c, rr_area.h). agent_rr_attach starts
 * recording or replaying process number k (RR_NO_PROC: a layout without
 * a tree) in area a, of which size bytes are mapped (a recording: its
 * header only) and which starts base bytes into the feature area (0, or
 * -1 with the agent disabled);
 * agent_rr_area is the area in use; agent_rr_detach leaves a fork child
 * unrecorded with flag (RR_F_FORKED) set in the area. */
int agent_rr_attach(struct rr_area *a, uint64_t size, uint64_t base, uint32_t k);
/* stdio's own reads and writes through the agent's read and write
 * (agent_rr_stdio.c): 0 once set up in this image, -1 when glibc's tables
 * are not as expected. agent_rr_in_stdio: inside such a call (no switch
 * point, the run token kept). */
int agent_rr_stdio_hook(int solo);
/* Before the agent's constructor, at a library's first stdio read (the
 * input interposers of agent_rr_stdio_turn.c): when spool record or
 * replay started the program, route stdio's reads through the agent's
 * read now, so that they are early reads (agent_rr_early.c) kept and
 * given back. agent_rr_init calls agent_rr_stdio_early_end after its own
 * choice: the tables are put back unless it hooked them too. */
void agent_rr_stdio_early(void);
void agent_rr_stdio_early_end(void);
/* Whether spool record or replay started this program (its early-I/O
 * variable was there), before the agent's constructor. */
int agent_rr_early_on(void);
/* The same for the table of f when it holds glibc's two functions (popen's) */
void agent_rr_stdio_adopt(FILE *f);
/* Set by the first pthread_create called in this process image (or its
 * parent's, for a fork child): sync mode then leaves stdio's reads alone */
extern int agent_rr_threads_made;
extern __thread int agent_rr_in_stdio __attribute__((tls_model("initial-exec")));
/* Sync mode orders the program's streams (agent_rr_stdio_turn.c): set by
 * agent_rr_init when recording, or replaying a recording that did; inside
 * a stdio call that took its stream's turn, agent_rr_stdio_turn_held is
 * not 0 and stdio's reads and writes are routed (agent_rr_stdio.c). */
extern int agent_rr_stdio_turns;
/* Sync mode orders the threads' writes to descriptors 1 and 2 as one
 * object (agent_rr_outturn.c): set like agent_rr_stdio_turns. begin (t
 * from agent_rr_io_enter) returns 1 when the write takes its turn: it is
 * made holding the lock, and end(1) gives it back. */
extern int agent_rr_out_turns;
int agent_rr_out_begin(struct agent_thread *t, int fd);
void agent_rr_out_end(int on);
/* Replay: the thread holds the turn of the standard output it replayed, for
 * the write that follows (a write with no record then: the recorded thread
 * was in it when the process ended) */
extern __thread int agent_rr_out_taken __attribute__((tls_model("initial-exec")));
extern __thread int agent_rr_stdio_turn_held __attribute__((tls_model("initial-exec")));
/* Sync mode orders the flushes no stream call orders too
 * (agent_rr_stdio_turn.c, RR_F_STDIO_FLUSH): set like agent_rr_stdio_turns.
 * agent_rr_stdio_flush: fflush(f) in f's turn (fclose's flush first);
 * agent_rr_stdio_exit_flush: stdout and stderr in their turns, from the
 * agent's destructor (before glibc's flush at exit, which takes none). */
extern int agent_rr_stdio_flushes;
/* getrusage, times and clock() are recorded or replayed (agent_rr_cputime.c,
 * RR_F_CPUTIME): set by agent_rr_init before the mode is on. */
extern int agent_rr_cputime;
void agent_rr_stdio_flush(FILE *f);
void agent_rr_stdio_exit_flush(void);
/* Replay: stdio's read of n bytes of fd came from the log; the file's
 * offset moves as the recorded read moved it (stdio seeks relative to it:
 * ftell, a read-write FILE's fseek). */
void agent_rr_stdio_skip(int fd, size_t n);
/* Replay, the first image: note spool's stdout and stderr (a write to them
 * is made for real, a socket included: --gdbserver's). */
void agent_rr_note_outputs(void);
struct rr_area *agent_rr_area(void);
void agent_rr_detach(uint32_t flag);
void agent_rr_clone_stop(void);
void agent_rr_clone_unseen(void);
/* Map this process's area (0 for the first process; a recording maps its
 * header only) and find its number (*k, RR_NO_PROC when it has none); the
 * area or NULL, *size the bytes mapped, *base where it starts in the
 * feature area. */
struct rr_area *agent_rr_tree_open(uint64_t *size, uint64_t *base, uint32_t *k);
/* The process started on its area (its tree entry is claimed); it ends
 * (destructor: a replay of the first process waits for the others); its
 * area stopped the run (RR_F_STOP). */
void agent_rr_tree_started(void);
void agent_rr_tree_end(void);
void agent_rr_tree_stopped(void);
/* Fork handlers (pthread_atfork, registered by agent_rr_init). */
void agent_rr_fork_prepare(void);
void agent_rr_fork_parent(void);
void agent_rr_fork_child(void);
/* The child handler as registered: nothing when the child started over
 * before it (agent_thread_child_started). */
void agent_rr_fork_child_handler(void);
/* 1 in a fork child whose number the fork set (recording: the prepare
 * handler took it; replaying: the recorded fork named it) and that has not
 * taken it yet: agent_rr_fork_child may run early (agent_thread_forking). */
int agent_rr_fork_pending(void);
/* A fork no fork handler runs in (_Fork; fork, or clone without CLONE_VM,
 * through syscall()) while recording or replaying: call(arg) makes it
 * (through agent_thread_raw_fork, with the clone flags), numbered and
 * recorded as fork's is, its child started on its own recording. */
long agent_rr_raw_fork(long (*call)(void *), void *arg, unsigned long flags);
/* Replay --pid N: this process replays but shows no output (an ancestor
 * of N on its way to the fork or exec that starts N). */
extern int agent_rr_muted;
/* Replay --pid: whether a pipe (st) was made inside the program rather
 * than given to it by spool: its reader is not replayed, and a write to it
 * happens in the log only (it would fill up and block). */
struct stat;
int agent_rr_tree_inner_pipe(const struct stat *st);
/* Replay of a whole tree: a replayed read of n bytes from fd, a pipe
 * another replaying process writes, takes as many from it too. */
void agent_rr_tree_drain(int fd, size_t n);
/* Replay of a whole tree: a call on a name the recorded run made and this
 * one cannot (errno e: ENOENT, ENOTDIR) waits 1 ms and returns 1 (try it
 * again) while another process of the tree is replaying, 2 s at most from
 * *waited_ms (0 at the first call); otherwise 0. A name another process
 * makes (a directory) may not be there yet: each replays at its own pace. */
int agent_rr_tree_name_wait(int e, int *waited_ms);
/* Replay: this process reached the end of its log; when its recording
 * ended by a signal (its parent's wait saw it), it ends the same way now
 * (does not return). */
void agent_rr_tree_end_of_log(void);
/* The order of the processes' writes to spool's stdout and stderr
 * (agent_rr_proc.c). Record: begin (1: the write to fd is ordered, the
 * order lock taken), make the write, end (its number + 1, the record's
 * arg; the lock given back). Replay: turn waits for the recorded number
 * (arg, 0 = not ordered), done passes it on after the write. */
int agent_rr_tree_wbegin(int fd);
uint64_t agent_rr_tree_wend(void);
void agent_rr_tree_wturn(uint64_t arg);
void agent_rr_tree_wdone(uint64_t arg);

/* Record: the outcome of a sync call (op = the requested OP_*, result =
 * 0 or the errno value it returned); turn: take a turn of the object. */
void agent_rr_rec_sync(struct agent_thread *t, uint32_t idx, unsigned op, int result, int turn);
/* Sync record: around a real wait only the program can end (a contended
 * mutex, a condition wait), signals are delivered at once, inside the wait
 * (agent_rr.c: agent_rr_blocked). */
void agent_rr_block_enter(struct agent_thread *t);
void agent_rr_block_leave(void);
void agent_rr_block_signal(void);

/* Replay: the result and arg of the input record of call that comes next
 * in the thread's log, past the signal deliveries recorded before it,
 * which are not made (agent_rr_rep_input makes them and takes the record);
 * 0 when the next other record is not one of call. A recorded fork
 * delivered them after the real fork, in the parent only: its replay
 * forks first (agent_rr_proc.c). */
int agent_rr_rep_peek_input(unsigned call, int64_t *result, uint64_t *arg);

/* Replay: the data length of the thread's next record when it is an input
 * of call, else 0 (the signals due before it delivered first). */
uint32_t agent_rr_rep_input_len(struct agent_thread *t, unsigned call);

/* Replay: check that the thread's next recorded event is op on this object
 * (binding the object to its recorded number on first use), wait for its
 * turn when wait is set, and return the recorded result. */
int agent_rr_rep_begin(struct agent_thread *t, uint32_t idx, unsigned op, const void *addr,
		       int wait);
/* Replay: wait for the turn of the event begun without waiting. */
/* Signals as synchronization in sync mode (agent_rr.c): a send counted
 * before it is made, the count a receipt saw, a replayed receipt waiting
 * for its sends. */
void agent_rr_sig_sent(int sig);
uint32_t agent_rr_sig_sends(int sig);
void agent_rr_sig_wait_sends(int sig, uint32_t want);
/* Sync mode: the calling (numbered) thread is about to write to a
 * descriptor (write, writev, the sends, sendfile and the like): counted,
 * recording and replaying alike; a replayed read that got something waits
 * for the writes recorded before it (agent_rr.c, RR_CALL_WAKE). */
void agent_rr_wake_write(void);
/* RR_O_* of the replay (0 when recording). */
uint32_t agent_rr_opts(void);
/* Replay: the thread's log is used up (its next call has no record). */
int agent_rr_rep_log_done(void);
void agent_rr_rep_wait(struct agent_thread *t);
/* Replay, sync mode: the program's code address that made the sync call
 * about to be replayed (a lock, a once, a semaphore), set just before
 * agent_rr_rep_begin, which uses it once: a divergence report names the
 * function that made the call (agent_rr.c, rr_diverge); 0 = unknown. */
extern __thread uint64_t agent_rr_site;
/* Replay: the event is done; got is what the call returned in the replay
 * (a difference from the recording is a divergence). Advances the turn. */
void agent_rr_rep_end(struct agent_thread *t, int got);

/* Thread creation (agent_thread.c). begin returns the new thread's number
 * (RR_NO_TURN when untracked) and, in replay, sets *forced to the recorded
 * failure to return without creating anything (0 = create). */
uint32_t agent_rr_create_begin(struct agent_thread *t, int *forced);
void agent_rr_create_end(struct agent_thread *t, uint32_t child, int rc);
/* First thing a new thread does: take its number. */
void agent_rr_thread_start(uint32_t number);
/* A new numbered thread found no ring (more threads alive at once than
 * rings): the recording is incomplete, the thread runs on unrecorded. */
void agent_rr_thread_noring(void);
/* pthread_create could not pass its number on to the new thread (no start
 * slot): the recording is incomplete, the thread is created unnumbered. */
void agent_rr_thread_unnumbered(void);
/* A new numbered thread takes no signal before its number
 * (agent_rr_starthold.c): the creator blocks the program's signals around
 * the real pthread_create (1 when it did: *old its mask before, to give
 * back with agent_rr_start_unhold_creator; *added what it blocked), and
 * the new thread unblocks *added once numbered (agent_rr_start_unhold). */
int agent_rr_start_hold(const pthread_attr_t *attr, uint64_t *old, uint64_t *added);
void agent_rr_start_unhold_creator(uint64_t old);
void agent_rr_start_unhold(uint64_t added);
/* Recording: a thread-directed signal ran its handler on a thread without
 * a number, unrecorded (agent_rr_signal.c): counted as a loss. */
void agent_rr_sig_unnumbered(void);
/* A new thread once registered (serial mode: wait for the run token). */
void agent_rr_thread_go(void);
/* Last thing a thread does (agent_thread_exit). */
void agent_rr_thread_end(void);
/* pthread_join's real wait: in a sync replay, one that cannot end (the
 * joined thread went past its recording) diverges instead of hanging. */
int agent_rr_join_wait(pthread_t th, void **ret);
/* Replay, sync mode: at the process's exit, let the others finish their logs. */
void agent_rr_exit_wait(void);
/* pthread_join: begin before the real join (replay checks it is due), end
 * after it with its result. */
int agent_rr_join_begin(struct agent_thread *t);
void agent_rr_join_end(struct agent_thread *t, int rc);

/*
 * The descriptor table (sync mode; agent_rr.c, doc/record.md "Descriptor
 * numbers"). Every call that allocates or frees descriptors is ordered like
 * a lock, so a replay gets the recorded numbers. An interposer does:
 *
 *	uint32_t on = agent_rr_fdtab_enter(RR_FD_OPEN);
 *	int fd = real_open(...);
 *	if (on)
 *		fd = agent_rr_fdtab_leave(fd, NULL);
 *	return fd;
 *
 * enter returns 0 when the call is not ordered (serial mode, not
 * recording, a nested call, the agent's own, a thread spool could not
 * number): make the call as usual and do not call leave. Otherwise leave
 * must follow the real call on the same thread, with nothing ordered in
 * between (the real call may be any libc function: fopen, opendir). Replay:
 * enter waits for the call's turn; leave moves the descriptor to the
 * recorded number when it came out elsewhere (dup3) and returns the number
 * the program must see. A caller whose object holds the number (a FILE, a
 * DIR) stores that number in it. When the recorded call failed and this
 * one did not, leave closes what a plain descriptor call made and returns
 * the recorded failure (errno set); for RR_FD_FOPEN and RR_FD_OPENDIR it
 * closes nothing: the caller closes its object and returns the failure.
 * errno is the call's (replay of a failure: the recorded one).
 *
 * fd2: for RR_FD_PIPE and RR_FD_SOCKETPAIR, in and out, the second
 * descriptor (moved like the first); for a call on a descriptor (close,
 * dup, dup2, fclose, closedir), its argument, which the replay checks; NULL
 * otherwise. Record: calls that free a number take their turn in enter,
 * the others in leave (rr_area.h, rr_fd_frees); a call may block between
 * the two (accept, the open of a FIFO): nothing is held.
 */
uint32_t agent_rr_fdtab_enter(unsigned call);
/* A name lookup's turn of the descriptor table (agent_rr.c) */
int agent_rr_lookup_fd_begin(void);
void agent_rr_lookup_fd_end(int on);
int agent_rr_fdtab_leave(int result, int *fd2);
/* Replay, between enter and leave: whether the recorded call made a
 * descriptor (its result is one). */
int agent_rr_fdtab_rep_made(void);

/* Inputs (agent_rr_io.c). A call's data is a list of segments. */
struct agent_rr_seg {
	void *p;
	size_t n;
};
/* The calling thread if its inputs are recorded or replayed now, else NULL
 * (agent busy, thread without a ring or without a number). */
struct agent_thread *agent_rr_io_enter(void);
void agent_rr_rec_input(struct agent_thread *t, unsigned call, int fd, int64_t result, int err,
			uint64_t arg, const struct agent_rr_seg *seg, int nseg);
/* Replay an input: scatter the recorded data into seg, set errno from the
 * recording, return the recorded result; *arg gets the recorded arg. */
int64_t agent_rr_rep_input(struct agent_thread *t, unsigned call, int fd,
			   const struct agent_rr_seg *seg, int nseg, uint64_t *arg);
/* A replay restored from a snapshot that held the thread out in blocking
 * call `call` (AGENT_SERIAL_OUT_CALL, agent_serial.h): the call's recorded
 * result, errno set from the recording, without taking the record off the
 * log (the caller's recording of the call does: rr_rec_in_replay). Past
 * the signals delivered before it; a different call diverges. */
int64_t agent_rr_rep_out_result(unsigned call);
/* ... and glibc's cancel type put back to deferred there (agent_rr_cancel.c). */
void agent_rr_cancel_deferred(void);

/* Name lookups (agent_rr_netdb.c): record around a real lookup (the thread
 * busy and, in serial mode, without the run token); could the name be
 * resolved without the network (NULL, numeric, or in /etc/hosts); does
 * /etc/hosts list word as a name (addr 0) or as an address (addr 1). */
void agent_rr_resolve_begin(struct agent_thread *t);
void agent_rr_resolve_end(struct agent_thread *t);
int agent_rr_netdb_local(const char *node, int numeric);
int agent_rr_in_hosts(const char *word, int addr);
/* The calling thread ends: its gethostbyname buffers go to the next thread
 * (agent_rr_hostent.c). */
void agent_rr_netdb_thread_end(void);

/* Replay (agent_rr_fs.c): an inert descriptor to stand in for a directory
 * (dir) or a file the replay does not find where the recording opened it;
 * -1 when none can be made. */
int agent_rr_standin(int dir, int cloexec);

/* Replay (agent_rr_path.c): calls that share an RR_CALL_* number tell
 * themselves apart by the record's arg; a replay whose call has another
 * arg than the recorded one (names[arg] says which) stops as diverged. */
void agent_rr_rep_kind(uint64_t recorded, uint64_t replay, const char *const *names,
		       unsigned nnames);

/* Replay (agent_rr_sock.c): make descriptor fd exist as the stand-in of a
 * socket of type (SOCK_NONBLOCK, SOCK_CLOEXEC kept): an AF_UNIX socket that
 * is never bound or connected. A number in use stops the replay (sync mode:
 * after waiting for it to be closed); call names the recorded call. */
void agent_rr_sock_standin(int fd, int type, const char *call);

/* Writes (agent_rr_block.c): an interposer of write/writev calls these
 * with the real function. Records the result (replay: returns it and
 * writes for real only where doc/record.md says); serial record gives the
 * run token up around a write to a pipe or socket. */
struct iovec;
ssize_t agent_rr_write(int fd, const void *buf, size_t n,
		       ssize_t (*real)(int, const void *, size_t));
ssize_t agent_rr_writev(int fd, const struct iovec *iov, int cnt,
			ssize_t (*real)(int, const struct iovec *, int));
/* send, sendto, sendmsg: recorded like write, write and writev (agent_sys.c
 * interposes them and calls these). */
struct sockaddr;
struct msghdr;
ssize_t agent_rr_send(int fd, const void *buf, size_t n, int flags,
		      ssize_t (*real)(int, const void *, size_t, int));
ssize_t agent_rr_sendto(int fd, const void *buf, size_t n, int flags, const struct sockaddr *a,
			unsigned alen,
			ssize_t (*real)(int, const void *, size_t, int, const struct sockaddr *,
					unsigned));
ssize_t agent_rr_sendmsg(int fd, const struct msghdr *m, int flags,
			 ssize_t (*real)(int, const struct msghdr *, int));

/* An input call made through syscall() with number nr (counted while
 * recording, for spool record's summary). */
void agent_rr_note_direct(long nr);
/* Serial mode: a futex wait made through syscall() (a = its six
 * arguments), emulated as a yield (agent_rr_block.c). 1 with *ret set
 * when handled; 0: make the real call. */
int agent_rr_futex_wait(const long *a, long *ret);
/* Sync record: the program made a futex call through syscall(). */
void agent_rr_note_futex(void);

/* Serial mode (agent_serial.c): write a switch of the run token (a
 * KIND_SCHED record with op RR_OP_SWITCH); the thread's event count; stop
 * the run with a report (the host kills the program); the replay reached
 * the end of the token's recorded schedule. */
void agent_rr_emit_switch(uint32_t thread, uint32_t tseq, uint32_t at, uint64_t turn,
			  uint32_t next, uint64_t count);
uint32_t agent_rr_tseq(void);
/* Replay restored from a snapshot (agent_snap_restore.c): in recreated
 * thread `number` (holder: it holds the run token), its replay state from
 * the event count its TLS kept; the numbers below n are first marked
 * ended (agent_rr_restore_ended), the restored ones then started. */
int agent_rr_restore_thread(uint32_t number, int holder, uint32_t park);
void agent_rr_restore_ended(uint32_t n);
void agent_rr_restore_join(void);
void agent_rr_stop(const char *text, uint32_t flag) __attribute__((noreturn));
void agent_rr_end_of_schedule(uint32_t thread, uint64_t count) __attribute__((noreturn));

/* Asynchronous signals (agent_rr_signal.c): the calling thread's signals
 * that arrived and whose handler has not run (bit = signal number - 1, the
 * kernel's layout: SIGRTMAX has one); run
 * the program's handler of sig now; the calling thread is numbered. */
extern __thread uint64_t agent_rr_sig_pending;
void agent_rr_sig_run(int sig);
int agent_rr_sig_thread_ok(void);
/* Serial record: signals that landed on a thread without the run token;
 * the holder delivers them. */
extern uint64_t agent_rr_sig_proc;
/* The thread waits in pthread_join: a signal sent to the process that
 * lands on it goes to agent_rr_sig_proc (any mode), for another thread to
 * deliver at its next delivery point. */
extern __thread uint8_t agent_rr_sig_away;
static inline int agent_rr_sig_any(void)
{
	return (__atomic_load_n(&agent_rr_sig_pending, __ATOMIC_RELAXED) |
		__atomic_load_n(&agent_rr_sig_proc, __ATOMIC_RELAXED)) != 0;
}
/* A signal that arrived (its handler not run yet) would have ended a
 * blocking call with EINTR rather than restarted it: the program's handler
 * of it has no SA_RESTART. For a wait the agent adds before such a call
 * (agent_serial_stdio_wait): 1, the call returns EINTR as it would have. */
int agent_rr_sig_interrupts(void);
/* Take one signal to deliver now (the thread's own first), 0 if none. */
int agent_rr_sig_take(void);
/* Snapshots (agent_snap_img.c, agent_snap_restore.c): a signal the agent
 * wraps is written with the program's handler, flags and mask and, as its
 * restorer, the wrapper's address (a mark: the kernel's is the wrapper);
 * a restore installs such a one again through the agent
 * (agent_rr_sig_restore), which keeps the program's handler. Before, the
 * table of the program's handlers was the fresh replay's, empty: after a
 * restore no handler ran. k: {handler, flags, restorer, mask}. */
int agent_rr_sig_snap(int sig, uint64_t k[4]);
int agent_rr_sig_restore(int sig, const uint64_t k[4]);
/* Serial mode: deliver the signals due at this switch point (agent_rr.c);
 * lower agent_ser.limit to the next point a signal is due at; the thread
 * holds the token; replay: the count of the thread's next delivery at a
 * switch point. */
void agent_rr_sig_point(uint64_t count);
void agent_rr_sig_limit(void);
extern __thread uint64_t agent_rr_sig_at;
int agent_serial_holder(void);
/* Record (agent_rr_signal.c): around the real wait of a call that waits for
 * signals (pause, sigsuspend, the sigwait family, ppoll, pselect and
 * epoll_pwait with a mask). begin returns 1 when a handler is due now (the
 * call returns EINTR at once, without end); otherwise the thread gives the
 * run token up (serial mode) until end, which keeps errno. */
int agent_rr_sig_wait_begin(void);
void agent_rr_sig_wait_end(void);
/* Replay: the pid the replayed getpid returned (the recorded process's), 0
 * before; kill and sigqueue to it go to the replay's own process. */
extern pid_t agent_rr_pid_recorded;
/* Replay: the calling thread's gettid returned RECORDED (agent_rr_io.c);
 * agent_rr_real_tid maps such a recorded thread id to the id of that thread
 * in this run (any other id is returned as is), for tgkill. */
void agent_rr_note_tid(pid_t recorded);
pid_t agent_rr_real_tid(pid_t tid);
/* Replay of packed input data (agent_rr_zinput.c): load libzstd (replay:
 * 0, or -1 with the agent disabled; record, for the layout: always 0); unpack a frame of PACKED bytes at SRC into DST
 * (RAW bytes of room), or into the thread's own buffer when DST is NULL;
 * the data, or NULL when it does not unpack to RAW bytes; free the
 * thread's buffers at its end. */
int agent_rr_zinput_init(int replay);
const unsigned char *agent_rr_zinput_unpack(const void *src, uint32_t packed, uint32_t raw,
					    void *dst);
void agent_rr_zinput_thread_end(void);

/*
 * Cancellation (agent_rr_cancel.c, doc/record.md "Threads"). A thread
 * cancelled while it waits in a call the agent records is unwound through
 * the agent's wrapper: the wrapper registers a cleanup around the real call
 * (glibc's setjmp form of pthread_cleanup_push: the agent is C without
 * -fexceptions and must not need libgcc_s), which runs during that
 * unwinding before the program's own handlers: it takes the run token back
 * (serial mode: the program's cleanup handlers are user code) and records
 * that the call was cancelled (an RR_CALL_CANCEL input, or the call's own
 * sync record with result ECANCELED). A replay that meets the record
 * cancels the thread there (agent_rr_rep_cancel).
 */
struct agent_rr_cancel_guard {
	struct agent_thread *t;
	unsigned call;  /* RR_CALL_* of an input call; 0: the hook below */
	int serial_out; /* 1: the thread gave the run token up for the call */
	uint32_t obj;   /* for the hook */
	void (*hook)(struct agent_rr_cancel_guard *g); /* records instead of RR_CALL_CANCEL */
};
void agent_rr_cancel_unwind(void *guard);
/*
 * Around the real call (in one block): PUSH(&guard) ... POP. glibc's
 * pthread_cleanup_push without its routine and argument variables: after
 * the longjmp of an unwinding only the guard's address (a frame address)
 * and the buffer (memory) are used, so GCC's -Wclobbered warnings about
 * the caller's other locals, which it gives for any setjmp, do not apply
 * (the files that use these turn it off).
 */
#define AGENT_RR_CANCEL_PUSH(g)                                                                    \
	do {                                                                                       \
		__pthread_unwind_buf_t cbuf_;                                                      \
		if (__builtin_expect(__sigsetjmp_cancel(cbuf_.__cancel_jmp_buf, 0), 0)) {         \
			agent_rr_cancel_unwind(g);                                                 \
			__pthread_unwind_next(&cbuf_);                                             \
		}                                                                                  \
		__pthread_register_cancel(&cbuf_);                                                 \
		do {
#define AGENT_RR_CANCEL_POP()                                                                      \
	}                                                                                          \
	while (0)                                                                                  \
		;                                                                                  \
	__pthread_unregister_cancel(&cbuf_);                                                       \
	}                                                                                          \
	while (0)
/* The once control libgcc's unwinder calls pthread_once on at every
 * unwinding (its table of register sizes), found by the first unwinding
 * the interposed pthread_cancel makes (agent_rr_cancel_warming set); calls
 * on it are not recorded: a cancelled thread makes one before its
 * cancellation is recorded, a replay after. */
extern pthread_once_t *agent_rr_unwind_once;
extern __thread int agent_rr_cancel_warming;
/* Record (agent_rr_signal.c): the cleanup of a wait for signals between
 * agent_rr_sig_wait_begin and _end (call: its RR_CALL_*). */
void agent_rr_sig_wait_cancelled(struct agent_rr_cancel_guard *g);
/* Record: the calling thread's cancellation was recorded (a cleanup of
 * agent_rr_cancel.c ran). */
extern __thread int agent_rr_cancel_seen;
/* Record: the thread ends by unwinding (cancellation), not by returning or
 * pthread_exit (agent_thread.c). */
void agent_rr_thread_unwound(void);
/* Replay: the recording has the thread cancelled in WHAT here: act on the
 * cancellation (returns only by diverging: it never does). */
void __attribute__((noreturn)) agent_rr_rep_cancel(const char *what);
/* Replay (agent_rr.c): whether the thread's next record says it was
 * cancelled in CALL. */
int agent_rr_rep_next_cancel(unsigned call);
/* glibc's pthread_testcancel (the agent interposes it for sync mode). */
void agent_rr_testcancel_real(void);
/* Replay: the replayed events of every thread, summed (moves while the
 * replay makes progress: what the waits for other threads measure). */
uint64_t agent_rr_progress_mark(void);
/* Replay (agent_rr.c): consume the thread's next record, an RR_CALL_CANCEL
 * input, and cancel the thread. */
void __attribute__((noreturn)) agent_rr_rep_cancel_input(const char *what);
/* Replay (agent_rr.c): stop the replay, blaming WHAT (for agent_rr_cancel.c). */
void __attribute__((noreturn)) agent_rr_diverge_text(const char *what, const char *why);
/* Replay: the write (call RR_CALL_WRITE or RR_CALL_WRITEV) of n bytes to fd
 * that the thread just replayed would write other bytes than recorded
 * (hashes want, got: agent_rr_block.c): a divergence, RR_CAUSE_OUTPUT. */
void __attribute__((noreturn)) agent_rr_diverge_output(unsigned call, int fd, uint64_t n,
						       uint64_t want, uint64_t got);

#endif
