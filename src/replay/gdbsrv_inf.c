// SPDX-License-Identifier: MIT
/*
 * gdbsrv_inf.c - the replay under ptrace for `spool replay --gdbserver`.
 *
 * A replay is started as spool's gdb exec-wrapper does it for gdb
 * (`spool replay --gdb-wrapper TRACE`, gdb.c): the wrapper moves the replay
 * session into the background and execs the program in place, so the
 * process traced here becomes the program itself, and it is the only one
 * traced (no PTRACE_O_TRACEFORK: the session's processes run free). Its
 * second exec (the first is spool's own) is the program's first
 * instruction. The session's lock file ($SPOOL_GDB_DONE) tells when the
 * background session has finished after a replay is killed, before the next
 * one starts.
 *
 * All-stop: when one thread stops for gdb, every other one is stopped with
 * PTRACE_INTERRUPT (PTRACE_SEIZE, so no SIGSTOP to consume); a breakpoint
 * another thread hit meanwhile is undone (its pc put back, it hits it again
 * when resumed), a watchpoint it triggered is kept pending and reported at
 * the next resume. The replay's serial token keeps working: a stopped thread
 * that holds the token only delays the others, which wait for it in the
 * agent (the stuck-turn check is off under the wrapper).
 *
 * Watchpoints are the CPU's (x86-64: the debug registers DR0-3), set in
 * every thread, a new thread at its first stop. What is CPU-specific (the
 * registers, the breakpoint instruction, the trap kinds, the watchpoints)
 * is behind src/arch/arch_gdb.h; the pc through arch_ptrace.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ftw.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/personality.h>
#include <sys/ptrace.h>
#include <sys/signalfd.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../arch/arch_gdb.h"
#include "../arch/arch_ptrace.h"
#include "../util/log.h"
#include "gdbsrv_bp.h"
#include "gdbsrv_int.h"

#define INF_OPTS (PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL)
#define INF_SESSION_WAIT_US 30000000

static int sigchld_fd = -1;

/* SPOOL_GDBSRV_DEBUG=1: every ptrace event on stderr (read once) */
static int inf_debug(void)
{
	static int on = -1;

	if (on < 0)
		on = getenv("SPOOL_GDBSRV_DEBUG") && *getenv("SPOOL_GDBSRV_DEBUG") == '1';
	return on;
}

struct gdbsrv_thread *gdbsrv_inf_thread(struct gdbsrv_inf *f, pid_t tid)
{
	for (int i = 0; i < f->nth; i++)
		if (f->th[i].tid == tid)
			return &f->th[i];
	return NULL;
}

struct gdbsrv_thread *gdbsrv_inf_vthread(struct gdbsrv_inf *f, int vidx)
{
	for (int i = 0; i < f->nth; i++)
		if (f->th[i].vidx == vidx)
			return &f->th[i];
	return NULL;
}

static struct gdbsrv_thread *inf_add(struct gdbsrv_inf *f, pid_t tid, int state)
{
	struct gdbsrv_thread *t = gdbsrv_inf_thread(f, tid);

	if (t)
		return t;
	if (f->nth >= GDBSRV_MAX_THREADS)
		return NULL;
	t = &f->th[f->nth++];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->vidx = f->next_vidx++;
	t->state = state;
	return t;
}

static void inf_del(struct gdbsrv_inf *f, struct gdbsrv_thread *t)
{
	/* keep the creation order: gdb lists threads in it */
	size_t i = (size_t)(t - f->th);

	memmove(&f->th[i], &f->th[i + 1], (size_t)(f->nth - (int)i - 1) * sizeof(*t));
	f->nth--;
}

static uint64_t inf_pc_of(pid_t tid)
{
	struct arch_ptrace_regs u;

	if (arch_ptrace_get(tid, &u) < 0)
		return 0;
	return arch_ptrace_pc(&u);
}

uint64_t gdbsrv_inf_pc(struct gdbsrv_inf *f, struct gdbsrv_thread *t)
{
	(void)f;
	return inf_pc_of(t->tid);
}

static void inf_set_pc(pid_t tid, uint64_t pc)
{
	struct arch_ptrace_regs u;

	if (arch_ptrace_get(tid, &u) == 0) {
		arch_ptrace_set_pc(&u, pc);
		arch_ptrace_set(tid, &u);
	}
}

static int raw_read(struct gdbsrv_inf *f, uint64_t addr, void *buf, size_t len)
{
	ssize_t n = pread(f->memfd, buf, len, (off_t)addr);

	return n == (ssize_t)len ? 0 : -EIO;
}

static int raw_write(struct gdbsrv_inf *f, uint64_t addr, const void *buf, size_t len)
{
	ssize_t n = pwrite(f->memfd, buf, len, (off_t)addr);

	return n == (ssize_t)len ? 0 : -EIO;
}

/* gdb sees the program's bytes, not spool's breakpoint instructions. */
int gdbsrv_inf_read(struct gdbsrv_inf *f, uint64_t addr, void *buf, size_t len)
{
	int rc = raw_read(f, addr, buf, len);

	if (rc < 0)
		return rc;
	gdbsrv_bp_hide(f->ins.bp, f->ins.nbp, &f->orig[0][0], ARCH_GDB_BP_LEN, addr, buf, len);
	return 0;
}

int gdbsrv_inf_write(struct gdbsrv_inf *f, uint64_t addr, const void *buf, size_t len)
{
	int rc = raw_write(f, addr, buf, len);

	if (rc < 0)
		return rc;
	gdbsrv_bp_learn(f->ins.bp, f->ins.nbp, &f->orig[0][0], ARCH_GDB_BP_LEN, addr, buf, len);
	for (uint32_t i = 0; i < f->ins.nbp; i++)
		if (gdbsrv_bp_overlaps(f->ins.bp[i], ARCH_GDB_BP_LEN, addr, len))
			raw_write(f, f->ins.bp[i], arch_gdb_bp_insn, ARCH_GDB_BP_LEN);
	return 0;
}

static void thread_set_dregs(struct gdbsrv_inf *f, struct gdbsrv_thread *t)
{
	arch_gdb_watch_set(t->tid, f->ins.wp, f->ins.nwp);
}

int gdbsrv_inf_set_cfg(struct gdbsrv_inf *f, const struct gdbsrv_cfg *c)
{
	struct gdbsrv_cfg next = *c;
	uint8_t orig[GDBSRV_MAX_BP][ARCH_GDB_BP_LEN];
	int wp_changed = c->nwp != f->ins.nwp;

	/* out with the ones that go (in reverse: a breakpoint set twice
	 * remembers the program's bytes in its first copy) */
	for (int i = (int)f->ins.nbp - 1; i >= 0; i--)
		if (!gdbsrv_cfg_has_bp(c, f->ins.bp[i]))
			raw_write(f, f->ins.bp[i], f->orig[i], ARCH_GDB_BP_LEN);
	for (uint32_t i = 0; i < next.nbp; i++) {
		int had = -1;

		for (uint32_t k = 0; k < f->ins.nbp; k++)
			if (f->ins.bp[k] == next.bp[i]) {
				had = (int)k;
				break;
			}
		if (had >= 0) {
			memcpy(orig[i], f->orig[had], ARCH_GDB_BP_LEN);
			continue;
		}
		if (raw_read(f, next.bp[i], orig[i], ARCH_GDB_BP_LEN) < 0 ||
		    raw_write(f, next.bp[i], arch_gdb_bp_insn, ARCH_GDB_BP_LEN) < 0) {
			/* not mapped (yet): dropped, gdb is told at Z time */
			memmove(&next.bp[i], &next.bp[i + 1], (next.nbp - i - 1) * sizeof(next.bp[0]));
			next.nbp--;
			i--;
		}
	}
	for (uint32_t i = 0; !wp_changed && i < c->nwp; i++)
		wp_changed = memcmp(&c->wp[i], &f->ins.wp[i], sizeof(c->wp[i])) != 0;
	f->ins = next;
	memcpy(f->orig, orig, sizeof(orig));
	if (wp_changed)
		for (int i = 0; i < f->nth; i++)
			thread_set_dregs(f, &f->th[i]);
	return 0;
}

static int inf_sigchld_fd(void)
{
	sigset_t set;

	if (sigchld_fd >= 0)
		return sigchld_fd;
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, NULL);
	sigchld_fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	return sigchld_fd;
}

/* gdb has gone while spool waited for the replay: spool ends here. The
 * replay and every checkpoint copy end with it (they are traced with
 * PTRACE_O_EXITKILL, the kernel kills them when their tracer exits), their
 * sessions end with their programs, and the janitor removes the private
 * directory after them (gdbsrv_janitor.c). Nothing is unwound: a search of
 * reverse-continue can be deep in a replay that would run for minutes. */
static void inf_gone(void)
{
	log_warn("gdb has gone: spool ends, and the replay and its checkpoints with it");
	_exit(1);
}

int gdbsrv_inf_gdb_gone(const struct gdbsrv_inf *f)
{
	struct pollfd p[2] = {{.fd = f->watch_in, .events = POLLRDHUP},
			      {.fd = f->watch_out, .events = 0}};
	int n = f->watch_out >= 0 && f->watch_out != f->watch_in ? 2 : 1;

	if (f->watch_in < 0 || poll(p, (nfds_t)n, 0) <= 0)
		return 0;
	return ((p[0].revents | (n > 1 ? p[1].revents : 0)) &
		(POLLHUP | POLLERR | POLLRDHUP | POLLNVAL)) != 0;
}

/* waitpid(pid, __WALL) that also watches gdb's connection: when gdb has
 * gone, spool ends (inf_gone) instead of waiting for a replay that may
 * never stop again. Never 0. */
static pid_t inf_wait(struct gdbsrv_inf *f, pid_t pid, int *status)
{
	static unsigned calls;

	/* a search counting watchpoint hits always finds a stop waiting:
	 * gdb's end is looked at every 64 of them too */
	if (++calls % 64 == 0 && gdbsrv_inf_gdb_gone(f))
		inf_gone();
	for (;;) {
		struct pollfd p[3] = {{.fd = sigchld_fd, .events = POLLIN},
				      {.fd = f->watch_in, .events = POLLRDHUP},
				      {.fd = f->watch_out, .events = 0}};
		struct signalfd_siginfo ssi;
		pid_t w;

		/* drained before waitpid: a change after it wakes the poll */
		while (sigchld_fd >= 0 && read(sigchld_fd, &ssi, sizeof(ssi)) > 0)
			;
		w = waitpid(pid, status, __WALL | WNOHANG);
		if (w != 0)
			return w;
		if (gdbsrv_inf_gdb_gone(f))
			inf_gone();
		/* (the timeout only guards against a lost wake-up) */
		poll(p, f->watch_in >= 0 ? (f->watch_out >= 0 ? 3 : 2) : 1, 500);
	}
}

static int inf_rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

/* Each fresh replay has its own trace directory and lock (the sessions of
 * checkpoints' fresh replays run at the same time, gdbsrv_ckpt.c). */
static void inf_sess_paths(const struct gdbsrv_inf *f, unsigned sess, char *lock, size_t llen,
			   char *dir, size_t dlen)
{
	snprintf(lock, llen, "%s/done.%u.lock", f->tmp, sess);
	snprintf(dir, dlen, "%s/replay.%u.trace", f->tmp, sess);
}

/* The lock the background session holds until it has written its trace. */
void gdbsrv_inf_wait_session(struct gdbsrv_inf *f, unsigned sess)
{
	char lock[320], dir[320];
	int fd;

	inf_sess_paths(f, sess, lock, sizeof(lock), dir, sizeof(dir));
	fd = open(lock, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	/* not a blocking flock: gdb may go meanwhile, a session may hang */
	for (long us = 0, step = 500; flock(fd, LOCK_EX | LOCK_NB) < 0; us += step) {
		struct timespec ts;

		if (errno != EWOULDBLOCK && errno != EINTR)
			break;
		if (gdbsrv_inf_gdb_gone(f))
			inf_gone();
		if (us >= INF_SESSION_WAIT_US) {
			log_warn("gdbserver: the replay session %u has not finished after %d s: "
				 "left to end by itself",
				 sess, INF_SESSION_WAIT_US / 1000000);
			close(fd);
			return;
		}
		step = step < 20000 ? step * 2 : 20000;
		ts.tv_sec = 0;
		ts.tv_nsec = step * 1000;
		nanosleep(&ts, NULL);
	}
	close(fd);
	/* (SPOOL_GDBSRV_DEBUG=1 keeps the replays' traces) */
	if (!inf_debug()) {
		nftw(dir, inf_rm_one, 16, FTW_DEPTH | FTW_PHYS);
		unlink(lock);
	}
}

void gdbsrv_inf_kill(struct gdbsrv_inf *f)
{
	int st;
	pid_t w;

	if (!f->pid)
		return;
	if (!f->exited) {
		kill(f->pid, SIGKILL);
		while ((w = waitpid(-1, &st, __WALL)) >= 0 || errno == EINTR)
			if (w == f->pid && (WIFEXITED(st) || WIFSIGNALED(st)))
				break;
	}
	if (f->memfd >= 0)
		close(f->memfd);
	f->memfd = -1;
	f->pid = 0;
	f->nth = 0;
	memset(&f->ins, 0, sizeof(f->ins));
	/* a checkpoint's copy has no session of its own: the checkpoint it
	 * came from keeps the fresh replay's alive (gdbsrv_ckpt.c) */
	if (f->copy)
		f->copy = 0;
	else
		gdbsrv_inf_wait_session(f, f->sess);
}

int gdbsrv_inf_adopt(struct gdbsrv_inf *f, pid_t pid, const pid_t *tids)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (f->memfd >= 0)
		close(f->memfd);
	f->memfd = fd;
	f->pid = pid;
	f->exited = 0;
	f->copy = 1;
	f->run_ns = 0;
	for (int i = 0; i < f->nth; i++) {
		f->th[i].tid = tids[i];
		f->th[i].state = GDBSRV_T_STOPPED;
		thread_set_dregs(f, &f->th[i]);
	}
	return 0;
}

static int same_file(const char *a, const char *b)
{
	char ra[PATH_MAX], rb[PATH_MAX];

	return realpath(a, ra) && realpath(b, rb) && !strcmp(ra, rb);
}

static int inf_run_to_goto(struct gdbsrv_inf *f);

int gdbsrv_inf_start(struct gdbsrv_inf *f)
{
	int sync[2], st, n = 0, fd;
	char *argv[64], tracedir[320], exe[64], gev[48];
	pid_t pid, w;

	inf_sigchld_fd();
	f->sess = ++f->nsess;
	inf_sess_paths(f, f->sess, f->lock, sizeof(f->lock), tracedir, sizeof(tracedir));
	fd = open(f->lock, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	if (fd >= 0)
		close(fd);
	argv[n++] = "spool";
	argv[n++] = "replay";
	argv[n++] = "--gdb-wrapper";
	if (f->quiet_output)
		argv[n++] = "-q";
	argv[n++] = "-o";
	argv[n++] = tracedir;
	if (f->jump_turn != UINT64_MAX) {
		/* the start of the turn: from a snapshot before it, never one
		 * at it (every snapshot's count is 1 or more, and one at the
		 * turn was taken after it began: gdbsrv_rev.c, snap_lt) */
		snprintf(gev, sizeof(gev), "%llu:0", (unsigned long long)f->jump_turn);
		argv[n++] = "--goto";
		argv[n++] = gev;
	} else if (f->goto_event != UINT64_MAX) {
		if (f->goto_count != UINT64_MAX)
			snprintf(gev, sizeof(gev), "%llu:%llu", (unsigned long long)f->goto_event,
				 (unsigned long long)f->goto_count);
		else
			snprintf(gev, sizeof(gev), "%llu", (unsigned long long)f->goto_event);
		argv[n++] = "--goto";
		argv[n++] = gev;
	}
	argv[n++] = (char *)f->trace;
	if (f->prog_argv) {
		argv[n++] = "--";
		for (int i = 0; f->prog_argv[i] && n < 62; i++)
			argv[n++] = f->prog_argv[i];
	}
	argv[n] = NULL;
	if (pipe2(sync, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		char c;
		int nul = open("/dev/null", O_RDWR | O_CLOEXEC);
		sigset_t none;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		/* the terminal's ^C is gdb's (it sends 0x03): the program
		 * runs in a process group of its own, with SIGINT as it was */
		signal(SIGINT, SIG_DFL);
		setpgid(0, 0);
		close(sync[1]);
		if (read(sync[0], &c, 1) != 1)
			_exit(127);
		/* stdin and stdout are gdb's pipe with `target remote |`:
		 * the program writes to spool's stderr */
		dup2(nul, 0);
		dup2(f->quiet_output ? nul : 2, 1);
		if (f->quiet_output)
			dup2(nul, 2);
		/* Nothing else of spool's or gdb's reaches the program (gdb
		 * leaves descriptors open in the command of `target remote |`,
		 * and nul itself was one): each took a number the recorded
		 * program had given to a file of its own, and the replay
		 * diverged at the first such descriptor (node: "read(fd 18)"
		 * recorded, "read(fd 19)" replayed). */
		close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
		/* ... and what the recorded program inherited is there, as
		 * stand-ins: the numbers are taken as they were (rr_fds.h) */
		for (int i = 0; i < f->nfds; i++)
			if (f->fds[i] != nul)
				dup2(nul, f->fds[i]);
		/* the recorded environment, as spool replay gives it (the
		 * stack then sits where it was recorded) */
		if (f->env)
			environ = f->env;
		setenv("SPOOL_GDB_DONE", f->lock, 1);
		/* the recording's layout, as gdb gives its inferiors */
		personality(ADDR_NO_RANDOMIZE);
		execv(f->spool, argv);
		_exit(127);
	}
	close(sync[0]);
	if (ptrace(PTRACE_SEIZE, pid, 0, INF_OPTS) < 0) {
		int e = -errno;

		kill(pid, SIGKILL);
		close(sync[1]);
		waitpid(pid, &st, 0);
		return e;
	}
	if (write(sync[1], "g", 1) != 1) {
		close(sync[1]);
		return -EPIPE;
	}
	close(sync[1]);
	f->pid = pid;
	f->exited = 0;
	f->copy = 0;
	f->run_ns = 0;
	f->nth = 0;
	f->next_vidx = 0;
	memset(&f->ins, 0, sizeof(f->ins));
	/* spool's own exec, its threads, then the program's exec */
	for (;;) {
		w = inf_wait(f, -1, &st);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (w == pid && (WIFEXITED(st) || WIFSIGNALED(st))) {
			f->pid = 0;
			log_err("the replay did not start (spool replay --gdb-wrapper %s %s)",
				f->trace, WIFEXITED(st) ? "exited" : "was killed");
			return -ECHILD;
		}
		if (!WIFSTOPPED(st))
			continue;
		if (w == pid && st >> 8 == (SIGTRAP | (PTRACE_EVENT_EXEC << 8))) {
			snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)pid);
			if (!same_file(exe, f->spool))
				break;
		}
		if (st >> 16 || WSTOPSIG(st) == SIGTRAP)
			ptrace(PTRACE_CONT, w, 0, 0);
		else
			ptrace(PTRACE_CONT, w, 0, WSTOPSIG(st));
	}
	snprintf(exe, sizeof(exe), "/proc/%d/mem", (int)pid);
	f->memfd = open(exe, O_RDWR | O_CLOEXEC);
	if (f->memfd < 0)
		return -errno;
	inf_add(f, pid, GDBSRV_T_STOPPED);
	f->nstarts++;
	f->start_vidx = 0;
	if (f->jump_turn != UINT64_MAX || f->goto_event != UINT64_MAX)
		return inf_run_to_goto(f);
	return 0;
}

static int is_crash(int sig)
{
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE ||
	       sig == SIGABRT;
}

static void thread_go(struct gdbsrv_thread *t)
{
	int sig = t->sig;

	if (t->action == 2)
		t->step_from = inf_pc_of(t->tid);
#if ARCH_GDB_STEP_FILL
	/* a stub's zeroing loop: one step for all but its last store */
	if (t->action == 2 && !sig)
		arch_gdb_step_fill(t->tid);
#endif

	t->segv_pc = sig == SIGSEGV ? inf_pc_of(t->tid) : 0;
	t->sig = 0;
	if (ptrace(t->action == 2 ? PTRACE_SINGLESTEP : PTRACE_CONT, t->tid, 0, sig) == 0)
		t->state = GDBSRV_T_RUNNING;
}

/*
 * A watchpoint that trapped before the access (ARCH_GDB_WATCH_BEFORE: Arm)
 * becomes one after it, as x86-64's: t, stopped at the accessing
 * instruction, is stepped over it with its watchpoints off, then they are
 * put back. Only t runs; the other threads' events stay queued (waited for
 * by t's id). A signal that comes in the step instead of the step's trap is
 * kept for t (delivered at its next resume) and the step is made again.
 * (An exclusive store stepped this way fails, the exclusive monitor being
 * cleared by the traps, as under gdb on a native Arm target: a watchpoint
 * on a lock word taken by LDXR/STXR may never complete its loop.)
 */
static int inf_watch_step_over(struct gdbsrv_inf *f, struct gdbsrv_thread *t)
{
	int rc = 0;

	if (!ARCH_GDB_WATCH_BEFORE)
		return 0;
	arch_gdb_watch_set(t->tid, NULL, 0);
	for (int tries = 0; tries < 16; tries++) {
		int status;
		pid_t w;

		if (ptrace(PTRACE_SINGLESTEP, t->tid, 0, 0) < 0) {
			rc = -errno;
			break;
		}
		do
			w = waitpid(t->tid, &status, __WALL);
		while (w < 0 && errno == EINTR);
		if (w < 0 || !WIFSTOPPED(status)) {
			rc = -ECHILD;
			break;
		}
		if (WSTOPSIG(status) == SIGTRAP && !(status >> 16))
			break;
		if (!(status >> 16))
			t->sig = WSTOPSIG(status);
	}
	arch_gdb_watch_set(t->tid, f->ins.wp, f->ins.nwp);
	if (inf_debug())
		fprintf(stderr, "gdbsrv: %d stepped over a watched access: pc %#llx (%d)\n",
			(int)t->tid, (unsigned long long)gdbsrv_inf_pc(f, t), rc);
	return rc;
}

/* What a SIGTRAP stop of t is: a breakpoint, a step, a watchpoint, or
 * nothing of ours (then *deliver says whether to pass SIGTRAP on). */
static int classify_trap(struct gdbsrv_inf *f, struct gdbsrv_thread *t, struct gdbsrv_stop *st,
			 int *deliver)
{
	siginfo_t si;
	int hit;

	*deliver = 0;
	if (ptrace(PTRACE_GETSIGINFO, t->tid, 0, &si) < 0)
		return 0;
	if (inf_debug())
		fprintf(stderr, "gdbsrv: %d SIGTRAP code %d pc %#llx\n", (int)t->tid, si.si_code,
			(unsigned long long)gdbsrv_inf_pc(f, t));
	memset(st, 0, sizeof(*st));
	st->vidx = t->vidx;
	st->tid = t->tid;
	/* --goto: the agent's own stop as turn EVENT begins (agent_serial.c,
	 * ser_take_turn), a tgkill from the program to itself: swallowed */
	if ((f->goto_wait || f->arm_turn) && si.si_code == SI_TKILL && si.si_pid == f->pid) {
		st->kind = f->goto_wait ? GDBSRV_STOP_START : GDBSRV_STOP_TURN;
		return 1;
	}
	if (arch_gdb_trap_sw(&si) || arch_gdb_trap_sysstep(&si)) {
		uint64_t now = gdbsrv_inf_pc(f, t), pc = arch_gdb_trap_bp_addr(now);

		if (arch_gdb_trap_sw(&si) && gdbsrv_cfg_has_bp(&f->ins, pc)) {
			inf_set_pc(t->tid, pc);
			st->kind = GDBSRV_STOP_BP;
			st->addr = pc;
			return 1;
		}
		/* a step over a system call instruction ends with the kernel's
		 * report at the call's exit (arch_gdb_trap_sysstep); the first
		 * step after the program's exec stops at the exit of execve
		 * without moving: that one goes on */
		if (t->action == 2 && arch_gdb_trap_sysstep(&si) && now == t->step_from)
			return 0;
		if (t->action == 2 && arch_gdb_trap_sysstep(&si)) {
			st->kind = GDBSRV_STOP_STEP;
			return 1;
		}
		*deliver = 1;
		return 0;
	}
	if (arch_gdb_trap_hw(&si)) {
		hit = arch_gdb_watch_hit(t->tid, f->ins.wp, f->ins.nwp);
		if (hit >= 0) {
			if (inf_watch_step_over(f, t) < 0)
				return 0;
			st->kind = GDBSRV_STOP_WATCH;
			st->wp = f->ins.wp[hit];
			st->addr = f->ins.wp[hit].addr;
			return 1;
		}
		if (t->action == 2) {
			st->kind = GDBSRV_STOP_STEP;
			return 1;
		}
		return 0;
	}
	*deliver = 1;
	if (inf_debug())
		fprintf(stderr, "gdbsrv: %d SIGTRAP code %d passed on\n", (int)t->tid, si.si_code);
	return 0;
}

/* Has thread tid a handler for sig (the kernel's view: /proc SigCgt)? */
static int inf_sig_caught(pid_t tid, int sig)
{
	char path[64], line[256];
	unsigned long long mask = 0;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	fp = fopen(path, "re");
	if (!fp)
		return 1;
	while (fgets(line, sizeof(line), fp))
		if (sscanf(line, "SigCgt: %llx", &mask) == 1)
			break;
	fclose(fp);
	return !!(mask & (1ull << (sig - 1)));
}

/* The most instructions a step onto a cpuid runs through the agent's
 * handler (a few thousand; the rest is a bound, not a figure) */
#define INF_CPUID_STEPS 2000000
#define INF_SEGV_CPUID 2

/* Is t's SIGSEGV spool's own, a cpuid of the program under CPUID faulting
 * that the agent answers (doc/record.md, "The CPU's own inputs"), or the
 * agent's way of taking the default action of a fault gdb delivered? The
 * program did not fault there: gdb must not stop, as it would not without
 * spool. Read from the tracee: the siginfo and the instruction at the pc
 * (a real fault of the program is reported as before). */
static int inf_spool_segv(struct gdbsrv_inf *f, struct gdbsrv_thread *t)
{
	uint8_t insn[2];
	siginfo_t si;

	if (ptrace(PTRACE_GETSIGINFO, t->tid, 0, &si) < 0 ||
	    raw_read(f, gdbsrv_inf_pc(f, t), insn, sizeof(insn)) < 0)
		return 0;
	if (arch_gdb_spool_segv(&si, insn, sizeof(insn)))
		return INF_SEGV_CPUID;
	/* A fault gdb has delivered to a program whose disposition is the
	 * default: the agent's handler put SIG_DFL back and the instruction
	 * faults again, to be killed by it. Without spool the first delivery
	 * killed, and gdb saw no second stop. */
	return t->segv_pc && t->segv_pc == gdbsrv_inf_pc(f, t) && si.si_code > 0 &&
	       !inf_sig_caught(t->tid, SIGSEGV);
}

/*
 * A step (stepi) onto a cpuid the agent answers: under CPUID faulting the
 * instruction raises SIGSEGV instead of completing, and the step would land
 * in the agent's handler. Instead t is stepped on, one instruction at a
 * time (the signal given to the first step), through the handler and its
 * return, until it is back on its own stack just after the cpuid with the
 * recorded answer in its registers: gdb sees the step end there, as
 * without spool, never spool's SIGSEGV or its code. Only t runs (the
 * others' events stay queued, waited for by t's id); a signal that comes
 * meanwhile is kept for t's next resume. 0, or -errno (t not stopped
 * where it should be: the caller lets the handler run as for a continue).
 */
static int inf_step_cpuid(struct gdbsrv_inf *f, struct gdbsrv_thread *t)
{
	struct arch_ptrace_regs u;
	uint64_t after, sp;
	int sig = SIGSEGV, status;
	pid_t w;

	if (arch_ptrace_get(t->tid, &u) < 0)
		return -errno;
	after = arch_ptrace_pc(&u) + 2; /* (cpuid's two bytes: arch_gdb_spool_segv) */
	sp = arch_ptrace_sp(&u);
	for (long n = 0; n < INF_CPUID_STEPS; n++) {
		if (ptrace(PTRACE_SINGLESTEP, t->tid, 0, sig) < 0)
			return -errno;
		sig = 0;
		do
			w = waitpid(t->tid, &status, __WALL);
		while (w < 0 && errno == EINTR);
		if (w < 0 || !WIFSTOPPED(status)) {
			/* (ended in the handler: as a continue would see it) */
			if (w == t->tid && w == f->pid) {
				f->exited = 1;
				f->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
				f->exit_sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
			}
			return -ECHILD;
		}
		if (status >> 16)
			continue;
		if (WSTOPSIG(status) != SIGTRAP) {
			t->sig = WSTOPSIG(status);
			continue;
		}
		if (arch_ptrace_get(t->tid, &u) < 0)
			return -errno;
		if (arch_ptrace_pc(&u) == after && arch_ptrace_sp(&u) == sp) {
			if (inf_debug())
				fprintf(stderr, "gdbsrv: %d stepped over a cpuid in %ld steps\n",
					(int)t->tid, n + 1);
			return 0;
		}
	}
	return -ETIMEDOUT;
}

/* One wait status while resumed: a stop to report (1) or not (0). */
static int inf_event(struct gdbsrv_inf *f, pid_t w, int status, int others_run,
		     struct gdbsrv_stop *st)
{
	struct gdbsrv_thread *t = gdbsrv_inf_thread(f, w);
	int ev = status >> 16, deliver, spool_segv;
	unsigned long msg;

	if (inf_debug())
		fprintf(stderr, "gdbsrv: event %d status %#x (thread %d, action %d, step %d)\n", (int)w,
			status, t ? t->vidx : -1, t ? t->action : -9, f->step_vidx);
	if (WIFEXITED(status) || WIFSIGNALED(status)) {
		if (inf_debug())
			fprintf(stderr, "gdbsrv: %d ended: status %#x\n", (int)w, status);
		if (w == f->pid) {
			f->exited = 1;
			f->nth = 0;
			memset(st, 0, sizeof(*st));
			st->kind = GDBSRV_STOP_EXIT;
			st->code = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
			st->sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
			f->exit_code = st->code;
			f->exit_sig = st->sig;
			return 1;
		}
		if (t)
			inf_del(f, t);
		return 0;
	}
	if (!WIFSTOPPED(status))
		return 0;
	if (!t) { /* a new thread's first stop before its parent's event */
		t = inf_add(f, w, GDBSRV_T_STOPPED);
		if (!t)
			return 0;
		t->action = -1;
	}
	t->state = GDBSRV_T_STOPPED;
	if (ev == PTRACE_EVENT_CLONE) {
		if (ptrace(PTRACE_GETEVENTMSG, w, 0, &msg) == 0 &&
		    !gdbsrv_inf_thread(f, (pid_t)msg)) {
			struct gdbsrv_thread *n = inf_add(f, (pid_t)msg, GDBSRV_T_RUNNING);

			if (n)
				n->action = -1; /* its first stop is to come */
		}
		thread_go(t);
		return 0;
	}
	if (ev == PTRACE_EVENT_STOP || ev || t->action == -1) {
		if (t->action == -1) { /* a new thread's first stop */
			thread_set_dregs(f, t);
			t->action = others_run ? 1 : 0;
			/* the thread to step did not exist yet: its first
			 * instruction is its first step (reverse-step can
			 * name the points of a thread created on the way) */
			if (t->vidx == f->step_vidx) {
				memset(st, 0, sizeof(*st));
				st->kind = GDBSRV_STOP_STEP;
				st->vidx = t->vidx;
				st->tid = t->tid;
				t->action = 2;
				return 1;
			}
		}
		if (t->action > 0)
			thread_go(t);
		return 0;
	}
	if (WSTOPSIG(status) == SIGTRAP) {
		if (classify_trap(f, t, st, &deliver))
			return 1;
		t->sig = deliver ? SIGTRAP : 0;
		thread_go(t);
		return 0;
	}
	if (WSTOPSIG(status) == SIGSEGV && (spool_segv = inf_spool_segv(f, t))) {
		int rc = spool_segv == INF_SEGV_CPUID && t->action == 2 ? inf_step_cpuid(f, t)
									 : -EAGAIN;

		if (rc == 0 || f->exited) {
			memset(st, 0, sizeof(*st));
			st->kind = f->exited ? GDBSRV_STOP_EXIT : GDBSRV_STOP_STEP;
			st->vidx = t->vidx;
			st->tid = t->tid;
			st->code = f->exit_code;
			st->sig = f->exit_sig;
			if (f->exited)
				f->nth = 0;
			return 1;
		}
		if (rc == -ECHILD) { /* (t ended in the handler) */
			inf_del(f, t);
			return 0;
		}
		t->sig = SIGSEGV; /* to the agent's handler, silently */
		thread_go(t);
		return 0;
	}
	if (is_crash(WSTOPSIG(status))) {
		memset(st, 0, sizeof(*st));
		st->kind = GDBSRV_STOP_SIGNAL;
		st->sig = WSTOPSIG(status);
		st->vidx = t->vidx;
		st->tid = t->tid;
		t->sig = st->sig; /* delivered when resumed, unless gdb says otherwise */
		return 1;
	}
	t->sig = WSTOPSIG(status);
	thread_go(t);
	return 0;
}

/* Every running thread stopped; what they were doing meanwhile is undone
 * (a breakpoint hit), kept (a watchpoint, a signal) or dropped (a step). */
static void inf_stop_all(struct gdbsrv_inf *f)
{
	for (int i = 0; i < f->nth; i++)
		if (f->th[i].state == GDBSRV_T_RUNNING && f->th[i].action != -1)
			ptrace(PTRACE_INTERRUPT, f->th[i].tid, 0, 0);
	for (;;) {
		struct gdbsrv_thread *t = NULL;
		struct gdbsrv_stop st;
		int status, deliver;
		pid_t w;

		for (int i = 0; i < f->nth && !t; i++)
			if (f->th[i].state == GDBSRV_T_RUNNING)
				t = &f->th[i];
		if (!t || f->exited)
			return;
		w = inf_wait(f, -1, &status);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		t = gdbsrv_inf_thread(f, w);
		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			if (w == f->pid) {
				f->exited = 1;
				f->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
				f->exit_sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
				f->nth = 0;
				return;
			}
			if (t)
				inf_del(f, t);
			continue;
		}
		if (!WIFSTOPPED(status))
			continue;
		if (!t) {
			t = inf_add(f, w, GDBSRV_T_STOPPED);
			if (t)
				thread_set_dregs(f, t);
			continue;
		}
		t->state = GDBSRV_T_STOPPED;
		if (status >> 16 == PTRACE_EVENT_CLONE) {
			unsigned long msg;

			if (ptrace(PTRACE_GETEVENTMSG, w, 0, &msg) == 0 &&
			    !gdbsrv_inf_thread(f, (pid_t)msg)) {
				struct gdbsrv_thread *n = inf_add(f, (pid_t)msg, GDBSRV_T_RUNNING);

				if (n)
					n->action = -1;
			}
			continue;
		}
		if (status >> 16) {
			if (t->action == -1) {
				thread_set_dregs(f, t);
				t->action = 0;
			}
			continue;
		}
		if (WSTOPSIG(status) == SIGTRAP) {
			if (classify_trap(f, t, &st, &deliver)) {
				/* a watchpoint: reported at the next resume
				 * (pending_status is its debug register) */
				if (st.kind == GDBSRV_STOP_WATCH) {
					t->has_pending = 1;
					t->pending_status = gdbsrv_cfg_find_wp(&f->ins, &st.wp);
				}
				/* a breakpoint: classify_trap put the pc back */
			} else if (deliver)
				t->sig = SIGTRAP;
			continue;
		}
		t->sig = WSTOPSIG(status);
	}
}

/* Step t alone off the breakpoint it stands on. 1: that step is a stop to
 * report (st), 0: done, <0: error. */
static int inf_step_over(struct gdbsrv_inf *f, struct gdbsrv_thread *t, uint64_t pc,
			 struct gdbsrv_stop *st)
{
	int k = -1, status, was = t->action, rc = 0, deliver;
	pid_t w;

	for (uint32_t i = 0; i < f->ins.nbp; i++)
		if (f->ins.bp[i] == pc)
			k = (int)i;
	if (k < 0)
		return 0;
	raw_write(f, pc, f->orig[k], ARCH_GDB_BP_LEN);
	t->action = 2;
	thread_go(t);
	for (;;) {
		w = inf_wait(f, t->tid, &status);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 || WIFEXITED(status) || WIFSIGNALED(status)) {
			rc = inf_event(f, t->tid, status, 0, st) ? 1 : -ECHILD;
			break;
		}
		t->state = GDBSRV_T_STOPPED;
		if (status >> 16 == PTRACE_EVENT_CLONE) {
			unsigned long msg;

			if (ptrace(PTRACE_GETEVENTMSG, w, 0, &msg) == 0 &&
			    !gdbsrv_inf_thread(f, (pid_t)msg)) {
				struct gdbsrv_thread *n = inf_add(f, (pid_t)msg, GDBSRV_T_RUNNING);

				if (n)
					n->action = -1;
			}
			thread_go(t);
			continue;
		}
		if (status >> 16) {
			thread_go(t);
			continue;
		}
		if (WSTOPSIG(status) == SIGTRAP) {
			if (classify_trap(f, t, st, &deliver)) {
				rc = st->kind == GDBSRV_STOP_WATCH || was == 2 ? 1 : 0;
				break;
			}
			if (deliver)
				t->sig = SIGTRAP;
			break;
		}
		t->sig = WSTOPSIG(status);
		break;
	}
	if (!f->exited)
		raw_write(f, pc, arch_gdb_bp_insn, ARCH_GDB_BP_LEN);
	t->action = was;
	return rc;
}

int gdbsrv_inf_resume(struct gdbsrv_inf *f, int step_vidx, int others_run,
		      struct gdbsrv_rsp *r, struct gdbsrv_stop *st)
{
	return gdbsrv_inf_resume_pass(f, step_vidx, others_run, r, st, NULL);
}

static uint64_t inf_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int inf_resume_pass(struct gdbsrv_inf *f, int step_vidx, int others_run,
			   struct gdbsrv_rsp *r, struct gdbsrv_stop *st, struct gdbsrv_pass *ps);

/* The time the replay runs (not gdb's own) says when a checkpoint is due. */
int gdbsrv_inf_resume_pass(struct gdbsrv_inf *f, int step_vidx, int others_run,
			   struct gdbsrv_rsp *r, struct gdbsrv_stop *st, struct gdbsrv_pass *ps)
{
	uint64_t t0 = inf_now_ns();
	int rc = gdbsrv_inf_arm(f);

	if (rc < 0)
		return rc;
	rc = inf_resume_pass(f, step_vidx, others_run, r, st, ps);

	f->run_ns += inf_now_ns() - t0;
	return rc;
}

/* gdb's 0x03 waiting, or a SIGINT at spool, without blocking */
static int inf_intr_pending(struct gdbsrv_rsp *r)
{
	struct pollfd p[2] = {{.fd = r->in, .events = POLLIN},
			      {.fd = gdbsrv_rsp_sigint_fd(), .events = POLLIN}};

	if (poll(p, p[1].fd >= 0 ? 2 : 1, 0) <= 0 && r->rpos >= r->rlen)
		return 0;
	if ((p[1].revents & POLLIN) && gdbsrv_rsp_sigint_take())
		return 1;
	return (r->rpos < r->rlen || (p[0].revents & (POLLIN | POLLHUP))) &&
	       gdbsrv_rsp_poll_intr(r) != 0;
}

static void inf_stop_intr(struct gdbsrv_inf *f, struct gdbsrv_stop *st)
{
	inf_stop_all(f);
	memset(st, 0, sizeof(*st));
	st->kind = GDBSRV_STOP_INTR;
	st->sig = SIGINT;
	st->vidx = f->nth ? f->th[0].vidx : 0;
	st->tid = f->nth ? f->th[0].tid : 0;
}

static int inf_resume_pass(struct gdbsrv_inf *f, int step_vidx, int others_run,
			   struct gdbsrv_rsp *r, struct gdbsrv_stop *st, struct gdbsrv_pass *ps)
{
	int rc;

	if (f->exited || !f->pid)
		return -ECHILD;
	f->step_vidx = step_vidx;
	for (int i = 0; i < f->nth; i++) {
		struct gdbsrv_thread *t = &f->th[i];

		if (t->action == -1)
			continue; /* not started yet: waits for its first stop */
		t->action = t->vidx == step_vidx ? 2 : others_run ? 1 : 0;
	}
	/* a watchpoint triggered while the threads were being stopped */
	for (int i = 0; i < f->nth; i++) {
		struct gdbsrv_thread *t = &f->th[i];

		if (t->action > 0 && t->has_pending) {
			t->has_pending = 0;
			memset(st, 0, sizeof(*st));
			st->kind = GDBSRV_STOP_WATCH;
			st->vidx = t->vidx;
			st->tid = t->tid;
			if ((uint32_t)t->pending_status < f->ins.nwp) {
				st->wp = f->ins.wp[t->pending_status];
				st->addr = st->wp.addr;
				return 0;
			}
		}
	}
	for (int i = 0; i < f->nth; i++) {
		struct gdbsrv_thread *t = &f->th[i];
		uint64_t pc;

		if (t->action <= 0 || t->state != GDBSRV_T_STOPPED)
			continue;
		pc = gdbsrv_inf_pc(f, t);
		if (!gdbsrv_cfg_has_bp(&f->ins, pc))
			continue;
		rc = inf_step_over(f, t, pc, st);
		if (rc < 0)
			return rc;
		if (rc > 0) {
			if (!f->exited)
				inf_stop_all(f);
			return 0;
		}
	}
	/* a SIGINT that came while stopped is not this run's */
	if (r)
		gdbsrv_rsp_sigint_take();
	for (int i = 0; i < f->nth; i++)
		if (f->th[i].action > 0 && f->th[i].state == GDBSRV_T_STOPPED)
			thread_go(&f->th[i]);
	for (unsigned int n_ev = 0;;) {
		int status;
		pid_t w;

		/* a replay that stops for ptrace events back to back (the
		 * signals it is delivered) may never leave waitpid empty: gdb's
		 * 0x03 and a SIGINT are looked for every 32 events too */
		if (r && n_ev >= 32) {
			n_ev = 0;
			if (inf_intr_pending(r)) {
				inf_stop_intr(f, st);
				return 0;
			}
		}
		w = r ? waitpid(-1, &status, __WALL | WNOHANG) : inf_wait(f, -1, &status);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		n_ev += w > 0;
		if (w == 0) {
			struct pollfd p[3] = {{.fd = sigchld_fd, .events = POLLIN},
					      {.fd = r->in, .events = POLLIN},
					      {.fd = gdbsrv_rsp_sigint_fd(), .events = POLLIN}};
			struct signalfd_siginfo ssi;

			if (r->rpos < r->rlen || poll(p, p[2].fd >= 0 ? 3 : 2, -1) > 0) {
				while (read(sigchld_fd, &ssi, sizeof(ssi)) > 0)
					;
				/* gdb's 0x03, or a SIGINT at spool (the terminal's
				 * ^C): the same stop */
				if (((p[2].revents & POLLIN) && gdbsrv_rsp_sigint_take()) ||
				    ((r->rpos < r->rlen || (p[1].revents & (POLLIN | POLLHUP))) &&
				     gdbsrv_rsp_poll_intr(r) != 0)) {
					inf_stop_intr(f, st);
					return 0;
				}
			}
			continue;
		}
		if (inf_event(f, w, status, others_run, st)) {
			struct gdbsrv_thread *t = gdbsrv_inf_thread(f, w);

			/* a watchpoint hit only counted: that thread goes on,
			 * the others were never stopped */
			int sub = ps && ps->sub && gdbsrv_cfg_find_wp(ps->sub, &st->wp) >= 0;

			if (ps && ps->passed < ps->max && st->kind == GDBSRV_STOP_WATCH && t &&
			    t->action == 1 && gdbsrv_cfg_find_wp(ps->wps, &st->wp) >= 0 &&
			    (!sub || ps->passed_sub < ps->max_sub)) {
				ps->passed++;
				ps->passed_sub += (uint64_t)sub;
				ps->last = *st;
				thread_go(t);
				continue;
			}
			if (!f->exited)
				inf_stop_all(f);
			return 0;
		}
	}
}

/* --goto EVENT: the fresh replay (stopped at its first instruction) runs,
 * restoring the snapshot in its agent's constructor, to the SIGTRAP the
 * agent sends itself as turn EVENT begins; every thread is stopped there.
 * The same in every fresh replay: the replay is deterministic, so is the
 * restore (its threads are made in the snapshot's order, their vidx too). */
static int inf_run_to_goto(struct gdbsrv_inf *f)
{
	struct gdbsrv_cfg none;
	struct gdbsrv_stop st;
	int rc;

	memset(&none, 0, sizeof(none));
	gdbsrv_inf_set_cfg(f, &none);
	f->goto_wait = 1;
	for (;;) {
		rc = gdbsrv_inf_resume(f, -1, 1, NULL, &st);
		if (rc < 0 || st.kind == GDBSRV_STOP_START || st.kind == GDBSRV_STOP_EXIT)
			break;
		/* a crash before EVENT (it would be the recording's too):
		 * delivered, as the program got it */
	}
	f->goto_wait = 0;
	if (rc < 0)
		return rc;
	if (st.kind != GDBSRV_STOP_START) {
		log_err("gdbserver: the replay ended before schedule event %llu (--goto)",
			(unsigned long long)(f->jump_turn != UINT64_MAX ? f->jump_turn
									: f->goto_event));
		return -ECHILD;
	}
	/* the threads as a replay from the beginning numbers them (the
	 * restore makes them in the snapshot's order, some may have ended) */
	if (gdbsrv_inf_renumber(f) < 0 && inf_debug())
		fprintf(stderr, "gdbsrv: restored threads not renumbered\n");
	for (int i = 0; i < f->nth; i++)
		if (f->th[i].tid == st.tid)
			st.vidx = f->th[i].vidx;
	f->start_vidx = st.vidx;
	f->run_ns = 0;
	return 0;
}
