// SPDX-License-Identifier: MIT
/*
 * agent_rr_proc.c - record and replay of process trees (doc/record.md
 * "Process trees"): every process of a recorded program records into its
 * own area of the feature area under its own process number (rr_area.h,
 * struct rr_tree), and a replay runs each from its own recording.
 *
 * Numbers: the first process is 0. A fork child's number is taken by the
 * parent's fork handler (prepare) and recorded in the parent's log with
 * the fork's result (RR_CALL_FORK, arg), so a replayed fork knows which
 * recording its child replays before it forks. An image started by exec
 * or posix_spawn (or by any child the agent saw no fork of: a raw clone,
 * glibc's own spawn in system and popen) takes the next number when its
 * agent starts, and notes what it was: the image before the exec (same
 * pid), or the parent it was spawned by (its ppid). A replayed image finds
 * its number the same way: an exec, from the replaying process's entry
 * (real_pid) and the recorded image that followed it; a spawned image,
 * from its parent's entry, the first of that parent's spawned images not
 * yet claimed (a parent spawns one after another).
 *
 * What the processes exchange needs no meeting in the replay: fork,
 * posix_spawn and the wait family return their recorded results (a
 * replayed waitpid reaps nothing and waits for nothing: the status is in
 * the log), and the pipe reads of each process come from its own log. The
 * first process's replay waits, at its end, until every other replaying
 * process has ended, so the run ends with the tree.
 *
 * vfork runs as fork while recording or replaying (a vfork child shares
 * its parent's memory, and with it the agent's: its calls would land in
 * the parent's recording); otherwise it is glibc's, reached by a tail jump
 * so that its child returns on the caller's frame as vfork requires.
 *
 * Agent rules: no malloc; raw system calls where an interposed function
 * would recurse (getpid, wait4, open, read); errno preserved.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <stdint.h>
#include <signal.h>
#include <poll.h>
#include <spawn.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "agent_rr.h"
#include "agent_serial.h"
#include "agent_snap.h"

int agent_rr_muted;

static struct rr_tree *rr_tree;	      /* NULL: a layout without a tree */
static uint32_t rr_me = RR_NO_PROC;   /* this process's number */
static uint32_t rr_only = RR_NO_PROC; /* replay --pid: the number replayed alone */
static int rr_replay;		      /* the tree is a replay's */
static struct rr_area *rr_cur;	      /* our mapping of our area */
static uint64_t rr_cur_size;
/* The number a fork child takes: set before the fork (prepare when
 * recording, the fork's record when replaying), read in the child. Per
 * thread: the forking thread is the child's only thread. */
static __thread uint32_t rr_fork_next = RR_NO_PROC;

static pid_t fb_fork(void) { return (pid_t)arch_sys_fork(); }
static int fb_spawn(pid_t *p, const char *f, const posix_spawn_file_actions_t *a,
		    const posix_spawnattr_t *t, char *const v[], char *const e[])
{
	(void)p; (void)f; (void)a; (void)t; (void)v; (void)e;
	return ENOSYS;
}
static pid_t fb_wait4(pid_t p, int *s, int o, struct rusage *r)
{
	return (pid_t)syscall(SYS_wait4, p, s, o, r);
}
static int fb_waitid(idtype_t t, id_t i, siginfo_t *s, int o)
{
	return (int)syscall(SYS_waitid, t, i, s, o, NULL);
}
pid_t agent_rr_vfork_as_fork(void);

static pid_t (*real_fork)(void) = fb_fork;
static int (*real_spawn)(pid_t *, const char *, const posix_spawn_file_actions_t *,
			 const posix_spawnattr_t *, char *const[], char *const[]) = fb_spawn;
static int (*real_spawnp)(pid_t *, const char *, const posix_spawn_file_actions_t *,
			  const posix_spawnattr_t *, char *const[], char *const[]) = fb_spawn;
static pid_t (*real_wait4)(pid_t, int *, int, struct rusage *) = fb_wait4;
static int (*real_waitid)(idtype_t, id_t, siginfo_t *, int) = fb_waitid;
/* glibc's vfork, jumped to by the vfork below (hidden, named from asm). */
__attribute__((used, visibility("hidden"))) void *agent_rr_real_vfork =
    (void *)agent_rr_vfork_as_fork;

__attribute__((constructor)) static void agent_rr_proc_resolve(void)
{
	int saved;

	/* busy first: reading errno calls __errno_location, which a func:
	 * probe of libc may have patched (the agent's own call, not the
	 * program's) */
	agent_self.busy++;
	saved = errno;
	AGENT_RESOLVE(real_fork, "fork");
	AGENT_RESOLVE(real_spawn, "posix_spawn");
	AGENT_RESOLVE(real_spawnp, "posix_spawnp");
	AGENT_RESOLVE(real_wait4, "wait4");
	AGENT_RESOLVE(real_waitid, "waitid");
	AGENT_RESOLVE(agent_rr_real_vfork, "vfork");
	errno = saved;
	agent_self.busy--;
}

/* ---- the tree ---- */

/*
 * The tree's pids are the ones spool sees (agent.seen_pid, seen_ppid: read
 * when the process claimed its slot, agent_proc_claim): a process in a pid
 * namespace of its own has others (1 for the namespace's first), which
 * name other processes in the /proc spool's side has (rr_alive) and to
 * the processes of the tree outside the namespace. A fork's result is the
 * parent's view: the parent stores it as the child's only outside one
 * (rr_ns_view). rr_kill_self: a signal to this process, by its own pid.
 */
static pid_t rr_getpid(void)
{
	if (agent.pidns && agent.seen_pid)
		return (pid_t)agent.seen_pid;
	return (pid_t)syscall(SYS_getpid);
}

static pid_t rr_getppid(void)
{
	if (agent.pidns && agent.seen_pid)
		return (pid_t)agent.seen_ppid;
	return (pid_t)syscall(SYS_getppid);
}

static int rr_ns_view(void)
{
	return !agent.pidns;
}

/* Replay, a parent in a pid namespace of its own: the fork's or spawn's
 * result p is not what the tree holds, so it waits (2 s at most, while the
 * child is there) for child k to store its own as it claims its entry
 * (early in a fork child's handler; a spawned image as its agent starts):
 * a wait for it then finds it (rr_wait_replayed). p 0: a child whose pid
 * the parent does not know (glibc's own spawn, system and popen). */
static void rr_wait_claim(uint32_t k, pid_t p)
{
	struct timespec ms1 = {0, 1000000};
	pid_t rp;

	for (int i = 0; i < 2000; i++) {
		rp = __atomic_load_n(&rr_tree->ent[k].real_pid, __ATOMIC_ACQUIRE);
		if (rp && rp != p)
			break;
		if (p > 0 && syscall(SYS_kill, p, 0) < 0 && errno == ESRCH)
			break;
		syscall(SYS_nanosleep, &ms1, NULL);
	}
}

/* This process's pid in its pid namespace (struct rr_proc_ent's ns_pid),
 * 0 outside one. */
static pid_t rr_ns_pid(void)
{
	return agent.pidns && agent.seen_pid ? (pid_t)syscall(SYS_getpid) : 0;
}

/* Whether the recorded pid a wait of this process returned names entry
 * e: its pid, or (a child of ours in our pid namespace) its pid there. */
static int rr_is_waited(const struct rr_proc_ent *e, pid_t recorded)
{
	return e->pid == recorded ||
	       (e->ns_pid > 0 && e->ns_pid == recorded && e->parent == rr_me);
}

static void rr_kill_self(int sig)
{
	syscall(SYS_kill, syscall(SYS_getpid), sig);
}

/* The tree's "parent" of k: the image before an exec, else the parent. */
static uint32_t rr_up(uint32_t k)
{
	const struct rr_proc_ent *e = &rr_tree->ent[k];

	return e->kind == RR_PK_EXEC ? e->prev : e->parent;
}

/* Replay --pid: whether k is the process replayed alone or one on the
 * way to it (an ancestor, or an image before its exec). */
static int rr_on_path(uint32_t k)
{
	uint32_t j = rr_only;

	if (rr_only == RR_NO_PROC)
		return 1;
	for (uint32_t n = 0; j < rr_tree->max && n < RR_MAX_PROCS; n++, j = rr_up(j))
		if (j == k)
			return 1;
	return 0;
}

/* The newest running entry whose recorded (real = 0) or replaying
 * (real = 1) pid is pid. */
static uint32_t rr_find_run(pid_t pid, int real)
{
	uint32_t n = __atomic_load_n(&rr_tree->nprocs, __ATOMIC_ACQUIRE);

	if (n > rr_tree->max)
		n = rr_tree->max;
	while (n-- > 0) {
		struct rr_proc_ent *e = &rr_tree->ent[n];

		if (__atomic_load_n(&e->state, __ATOMIC_ACQUIRE) == RR_PS_RUN &&
		    (real ? __atomic_load_n(&e->real_pid, __ATOMIC_ACQUIRE) : e->pid) == pid)
			return n;
	}
	return RR_NO_PROC;
}

/* Record: note this image's executable in entry e (its path's end when
 * it is long). */
static void rr_note_exe(struct rr_proc_ent *e)
{
	const char *x = agent_exe_path();
	size_t n = 0;

	while (n < SHM_PROC_EXE && x[n])
		n++;

	if (n > sizeof(e->exe) - 1)
		x += n - (sizeof(e->exe) - 1), n = sizeof(e->exe) - 1;
	memcpy(e->exe, x, n);
	e->exe[n] = 0;
}

/* Record: a new number for a process of the given kind, or RR_NO_PROC
 * when the trace has no room left (the recording then says it is
 * incomplete). */
static uint32_t rr_take(uint32_t kind, uint32_t parent, uint32_t prev, pid_t pid, pid_t ppid)
{
	uint32_t k = __atomic_fetch_add(&rr_tree->nprocs, 1, __ATOMIC_ACQ_REL);
	struct rr_proc_ent *e;

	if (k >= rr_tree->max)
		return RR_NO_PROC;
	e = &rr_tree->ent[k];
	e->pid = pid;
	e->ns_pid = pid ? rr_ns_pid() : 0;
	e->ppid = ppid;
	e->parent = parent;
	e->prev = prev;
	e->kind = kind;
	if (pid)
		rr_note_exe(e);
	__atomic_store_n(&e->state, pid ? RR_PS_RUN : RR_PS_FREE, __ATOMIC_RELEASE);
	return k;
}

/* Claim entry k for this process (replay). */
static int rr_claim(uint32_t k)
{
	uint32_t free_ = RR_PS_FREE;
	struct rr_proc_ent *e = &rr_tree->ent[k];

	if (!__atomic_compare_exchange_n(&e->state, &free_, RR_PS_RUN, 0, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE))
		return -1;
	__atomic_store_n(&e->real_pid, rr_getpid(), __ATOMIC_RELEASE);
	return 0;
}

/* The first process: what its descriptors 0, 1, 2 are (spool's). */
static void rr_outer_note(void)
{
	for (int fd = 0; fd < 3; fd++) {
		struct stat st;

		if (syscall(SYS_fstat, fd, &st) == 0) {
			rr_tree->outer_dev[fd] = (uint64_t)st.st_dev;
			rr_tree->outer_ino[fd] = (uint64_t)st.st_ino;
		}
	}
	__atomic_store_n(&rr_tree->outer_set, 1, __ATOMIC_RELEASE);
}

/*
 * Replay: the number of a spawned image. One posix_spawn started (its
 * parent claims the entry its record names, real_pid) is found by its
 * pid, waiting up to 5 s for the parent to get there; one glibc spawned
 * (system, popen) is the first unclaimed of its parent's.
 */
static uint32_t rr_spawned_number(pid_t pid, uint32_t parent, uint32_t n)
{
	struct timespec us100 = {0, 100000};
	uint32_t k, waits = 0, pspawn;

	for (;;) {
		pspawn = 0;
		for (k = 1; k < n; k++) {
			struct rr_proc_ent *e = &rr_tree->ent[k];
			pid_t rp = __atomic_load_n(&e->real_pid, __ATOMIC_ACQUIRE);

			/* (a parent in our pid namespace stored our pid there:
			 * the tree's is the one spool sees, rr_getpid) */
			if ((e->kind == RR_PK_PSPAWN || e->kind == RR_PK_SPAWN) &&
			    (rp == pid || (rp > 0 && rp == rr_ns_pid() && e->parent == parent)) &&
			    __atomic_load_n(&e->state, __ATOMIC_ACQUIRE) == RR_PS_RUN) {
				__atomic_store_n(&e->real_pid, pid, __ATOMIC_RELEASE);
				return k;
			}
			if (e->kind == RR_PK_PSPAWN && e->parent == parent &&
			    __atomic_load_n(&e->state, __ATOMIC_ACQUIRE) == RR_PS_FREE)
				pspawn = 1;
		}
		/* glibc's own spawns, once no posix_spawn of the parent is
		 * about to claim this image (its claim comes microseconds
		 * after the spawn returns: 50 ms is plenty) */
		for (k = 1; (!pspawn || waits > 500) && k < n; k++) {
			const struct rr_proc_ent *e = &rr_tree->ent[k];

			if (e->kind == RR_PK_SPAWN && e->parent == parent &&
			    __atomic_load_n(&e->state, __ATOMIC_ACQUIRE) == RR_PS_FREE &&
			    rr_claim(k) == 0)
				return k;
		}
		if (!pspawn || ++waits > 50000)
			return RR_NO_PROC;
		syscall(SYS_nanosleep, &us100, NULL);
	}
}

/* The number of a process that starts its agent (not a fork child of a
 * fork the agent saw): the first process, an exec'd image, a spawned one. */
static uint32_t rr_number(void)
{
	uint32_t flags = agent.proc_flags, prev = RR_NO_PROC, parent, n, k;
	pid_t pid = rr_getpid(), ppid = rr_getppid();

	if (!(flags & (PROC_F_FORK | PROC_F_EXEC))) {
		if (rr_replay) {
			rr_outer_note();
			return rr_claim(0) ? RR_NO_PROC : 0;
		}
		rr_outer_note();
		rr_tree->ent[0].pid = pid;
		rr_tree->ent[0].ns_pid = rr_ns_pid();
		rr_tree->ent[0].ppid = ppid;
		rr_tree->ent[0].parent = rr_tree->ent[0].prev = RR_NO_PROC;
		rr_tree->ent[0].kind = RR_PK_ROOT;
		rr_note_exe(&rr_tree->ent[0]);
		__atomic_store_n(&rr_tree->ent[0].state, RR_PS_RUN, __ATOMIC_RELEASE);
		return 0;
	}
	if (flags & PROC_F_EXEC)
		prev = rr_find_run(pid, rr_replay);
	if (prev != RR_NO_PROC)
		__atomic_store_n(&rr_tree->ent[prev].state, RR_PS_DONE, __ATOMIC_RELEASE);
	parent = prev != RR_NO_PROC ? rr_tree->ent[prev].parent : rr_find_run(ppid, rr_replay);
	if (!rr_replay)
		return rr_take(prev != RR_NO_PROC ? RR_PK_EXEC : RR_PK_SPAWN, parent, prev, pid,
			       ppid);
	n = __atomic_load_n(&rr_tree->nprocs, __ATOMIC_ACQUIRE);
	if (n > rr_tree->max)
		n = rr_tree->max;
	if (prev == RR_NO_PROC) {
		k = rr_spawned_number(pid, parent, n);
		if (k != RR_NO_PROC)
			return k;
	}
	for (k = 1; k < n; k++) {
		const struct rr_proc_ent *e = &rr_tree->ent[k];

		if (prev != RR_NO_PROC ? (e->kind == RR_PK_EXEC && e->prev == prev)
				       : (e->kind == RR_PK_SPAWN && e->parent == parent)) {
			if (__atomic_load_n(&e->state, __ATOMIC_ACQUIRE) == RR_PS_FREE &&
			    rr_claim(k) == 0)
				return k;
			if (prev != RR_NO_PROC)
				break;
		}
	}
	return RR_NO_PROC;
}

/* Process k's area: all of it for a replay, its header for a recording
 * (its arrays are mapped as used, agent_lazy.c: every mapped byte counts
 * against the program's RLIMIT_AS). */
static struct rr_area *rr_map(uint32_t k, uint64_t ext, uint64_t *size, uint64_t *base)
{
	const struct rr_proc_ent *e = &rr_tree->ent[k];
	uint64_t off = e->area_off, len = e->area_size;

	if (!len || off % SHM_PAGE || off > ext || len > ext - off || len < RR_AREA_HDR)
		return NULL;
	if (!rr_replay)
		len = RR_AREA_HDR;
	*size = len;
	*base = off;
	return agent_ext_piece(SHM_EXT_REPLAY, off, len);
}

struct rr_area *agent_rr_tree_open(uint64_t *size, uint64_t *base, uint32_t *k)
{
	struct shm_ctl *c = agent.ctl;
	struct rr_area *h = agent_ext_piece(SHM_EXT_REPLAY, 0, RR_AREA_HDR), *a;
	uint64_t ext = c->ext_size[SHM_EXT_REPLAY], toff, tlen;
	uint32_t mode;

	*k = RR_NO_PROC;
	*base = 0;
	if (!h) {
		agent_disable("record/replay: no valid feature area");
		return NULL;
	}
	toff = h->tree_off;
	mode = h->mode;
	tlen = (sizeof(struct rr_tree) + SHM_PAGE - 1) & ~(uint64_t)(SHM_PAGE - 1);
	if (h->magic != RR_MAGIC || !toff || toff % SHM_PAGE || toff > ext || tlen > ext - toff) {
		/* one process: the area as it always was */
		munmap(h, RR_AREA_HDR);
		a = agent_ext_head(SHM_EXT_REPLAY, mode == RR_MODE_REPLAY ? 0 : RR_AREA_HDR, size);
		if (!a || *size < RR_AREA_HDR) {
			agent_disable("record/replay: no valid feature area");
			return NULL;
		}
		if (!(agent.proc_flags & (PROC_F_EXEC | PROC_F_FORK)))
			*k = 0;
		rr_cur = a;
		rr_cur_size = *size;
		return a;
	}
	munmap(h, RR_AREA_HDR);
	rr_tree = agent_ext_piece(SHM_EXT_REPLAY, toff, tlen);
	if (!rr_tree) {
		agent_disable("record/replay: no valid feature area");
		return NULL;
	}
	rr_replay = mode == RR_MODE_REPLAY;
	if (rr_tree->max > RR_MAX_PROCS)
		rr_tree->max = RR_MAX_PROCS;
	rr_only = rr_replay ? rr_tree->only : RR_NO_PROC;
	*k = rr_number();
	if (*k != RR_NO_PROC && rr_replay && !rr_on_path(*k))
		syscall(SYS_exit_group, 0); /* --pid: not a process on the way to it */
	a = rr_map(*k == RR_NO_PROC ? 0 : *k, ext, size, base);
	if (!a) {
		agent_disable("record/replay: no valid feature area");
		return NULL;
	}
	rr_me = *k;
	rr_cur = a;
	rr_cur_size = *size;
	return a;
}

/*
 * Replay --pid: spool gave the program /dev/null as its stdout and stderr
 * (the processes on the way print nothing, stdio included, which no
 * interposer sees); the process replayed alone takes spool's own back
 * (/proc/<spool>/fd/N, a new open of the same file, appending to a file),
 * for each that is still that /dev/null (not one the program redirected).
 */
static void rr_take_outputs(void)
{
	char path[48] = "/proc/", tmp[16];
	uint32_t pid = agent.host_pid;
	int n = 6, i = 0;

	if (!pid)
		return;
	for (; pid && i < 15; pid /= 10)
		tmp[i++] = (char)('0' + pid % 10);
	while (i > 0)
		path[n++] = tmp[--i];
	memcpy(path + n, "/fd/1", 6);
	for (int fd = 1; fd <= 2; fd++) {
		struct stat st;
		long nfd;

		if (syscall(SYS_fstat, fd, &st) < 0 || !S_ISCHR(st.st_mode) ||
		    st.st_rdev != makedev(1, 3))
			continue;
		path[n + 4] = (char)('0' + fd);
		nfd = syscall(SYS_openat, AT_FDCWD, path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOCTTY);
		if (nfd < 0)
			continue;
		arch_sys_dup2(nfd, fd);
		syscall(SYS_close, nfd);
		/* spool's, not a pipe of the program's: its writes reach it
		 * (agent_rr_tree_inner_pipe; the first process noted the
		 * /dev/null it had) */
		if (syscall(SYS_fstat, fd, &st) == 0) {
			rr_tree->outer_dev[fd] = (uint64_t)st.st_dev;
			rr_tree->outer_ino[fd] = (uint64_t)st.st_ino;
		}
	}
}

void agent_rr_tree_started(void)
{
	agent_rr_muted = rr_replay && rr_only != RR_NO_PROC && rr_me != rr_only;
	if (rr_replay && rr_only != RR_NO_PROC && rr_me == rr_only)
		rr_take_outputs();
}

int agent_rr_tree_inner_pipe(const struct stat *st)
{
	if (!rr_tree || !rr_replay || rr_only == RR_NO_PROC ||
	    !__atomic_load_n(&rr_tree->outer_set, __ATOMIC_ACQUIRE))
		return 0;
	for (int fd = 0; fd < 3; fd++)
		if (rr_tree->outer_dev[fd] == (uint64_t)st->st_dev &&
		    rr_tree->outer_ino[fd] == (uint64_t)st->st_ino)
			return 0;
	return 1;
}

/*
 * The order of the processes' writes to what spool gave the program as its
 * stdout and stderr (a terminal, a pipe, a file), through write and
 * writev: `make -j2` running two shells that echo, `a & b; wait`. Each
 * process replays from its own log at its own pace, so without this two
 * processes' lines could come out in another order than recorded. Writes
 * through stdio (glibc's internal write) are not seen, and so not ordered.
 *
 * Record: once the program has more than one process, such a write is
 * made holding wlock (the writer's pid: a writer killed while holding it
 * is found dead and the lock taken from it) and takes the next number of
 * wseq, kept in the write's record (arg). Replay: the write waits until
 * wseq reaches its number (a futex on the shared word), is made, and
 * passes wseq on. A wait longer than a second gives ordering up for the
 * process (a thread of its own may hold the number it waits for, and it
 * holds the run token that thread needs); --pid orders nothing.
 */
static int rr_wgive_up;

static int rr_outer_fd(int fd)
{
	struct stat st;

	if (!__atomic_load_n(&rr_tree->outer_set, __ATOMIC_ACQUIRE) ||
	    syscall(SYS_fstat, fd, &st) < 0)
		return 0;
	for (int i = 1; i <= 2; i++)
		if (rr_tree->outer_dev[i] == (uint64_t)st.st_dev &&
		    rr_tree->outer_ino[i] == (uint64_t)st.st_ino)
			return 1;
	return 0;
}

int agent_rr_tree_wbegin(int fd)
{
	uint32_t me, cur;

	if (!rr_tree || rr_replay || __atomic_load_n(&rr_tree->nprocs, __ATOMIC_ACQUIRE) < 2 ||
	    !rr_outer_fd(fd))
		return 0;
	me = (uint32_t)rr_getpid();
	for (uint32_t spins = 1;; spins++) {
		cur = 0;
		if (__atomic_compare_exchange_n(&rr_tree->wlock, &cur, me, 0, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			return 1;
		/* its holder died holding it: take it over */
		if (!(spins & 1023) && cur && syscall(SYS_kill, (pid_t)cur, 0) < 0 && errno == ESRCH)
			__atomic_compare_exchange_n(&rr_tree->wlock, &cur, 0, 0, __ATOMIC_RELAXED,
						    __ATOMIC_RELAXED);
		syscall(SYS_sched_yield);
	}
}

uint64_t agent_rr_tree_wend(void)
{
	uint32_t n = __atomic_load_n(&rr_tree->wseq, __ATOMIC_RELAXED);

	__atomic_store_n(&rr_tree->wseq, n + 1, __ATOMIC_RELAXED);
	__atomic_store_n(&rr_tree->wlock, 0, __ATOMIC_RELEASE);
	return (uint64_t)n + 1;
}

void agent_rr_tree_wturn(uint64_t arg)
{
	struct timespec ms10 = {0, 10000000};
	uint32_t want, cur, last = UINT32_MAX;
	int waited = 0;

	if (!arg || arg > UINT32_MAX || !rr_tree || !rr_replay || rr_only != RR_NO_PROC ||
	    rr_wgive_up)
		return;
	want = (uint32_t)(arg - 1);
	while ((cur = __atomic_load_n(&rr_tree->wseq, __ATOMIC_ACQUIRE)) != want) {
		/* a second without progress, not 100 wake-ups: every write of
		 * the others wakes this one (a child that printed 400 lines
		 * before its parent's first made the parent give up at the
		 * 100th, and its lines came out among the child's) */
		if (cur != last)
			waited = 0, last = cur;
		if (cur > want || ++waited > 100 || agent_host_gone()) {
			rr_wgive_up = cur < want;
			if (rr_wgive_up)
				agent_log("tree writes: write %u still waits at %u: not ordered any more",
					  want, cur);
			return;
		}
		for (uint32_t k = 0; k < rr_tree->max && k < RR_MAX_PROCS; k++)
			if (__atomic_load_n(&rr_tree->ent[k].flags, __ATOMIC_ACQUIRE) & RR_F_STOP)
				return;
		/* shared futex: the word is in the memfd all processes map */
		syscall(SYS_futex, &rr_tree->wseq, FUTEX_WAIT, cur, &ms10, NULL, 0);
	}
}

void agent_rr_tree_wdone(uint64_t arg)
{
	if (!arg || arg > UINT32_MAX || !rr_tree || !rr_replay || rr_only != RR_NO_PROC)
		return;
	/* (a process that gave up may pass a number already passed) */
	if (__atomic_load_n(&rr_tree->wseq, __ATOMIC_ACQUIRE) < (uint32_t)arg) {
		__atomic_store_n(&rr_tree->wseq, (uint32_t)arg, __ATOMIC_RELEASE);
		syscall(SYS_futex, &rr_tree->wseq, FUTEX_WAKE, INT32_MAX, NULL, NULL, 0);
	}
}

void agent_rr_tree_stopped(void)
{
	if (rr_tree && rr_me < rr_tree->max)
		__atomic_fetch_or(&rr_tree->ent[rr_me].flags, RR_F_STOP, __ATOMIC_ACQ_REL);
}

/* Whether process pid is alive and not a zombie (/proc/pid/stat, read
 * with raw calls: the agent's open and read are interposed). */
static int rr_alive(pid_t pid)
{
	char path[40] = "/proc/", buf[256];
	const char *p;
	int n = 6, i;
	char tmp[16];

	for (i = 0; pid > 0 && i < 15; pid /= 10)
		tmp[i++] = (char)('0' + pid % 10);
	while (i > 0)
		path[n++] = tmp[--i];
	memcpy(path + n, "/stat", 6);
	if (agent_proc_read(path, buf, sizeof(buf)) <= 0)
		return 0;
	p = agent_proc_stat_field(buf, 3); /* state */
	return p && *p != 'Z' && *p != 'X';
}

/*
 * Each process of a tree replays from its own log at its own pace, but the
 * file system is shared and changed for real (mkdir, open with O_CREAT,
 * rename, unlink): a name one process makes can be missing when another
 * gets to the call the recorded run made after it. rsync's generator makes
 * the directories in which its receiver, another process, then opens and
 * creates files; a receiver that ran ahead opened a stand-in for the
 * directory, made its temporary file nowhere, failed the fchmod that
 * follows (not recorded: made for real) and unlinked the file instead of
 * receiving it, "a different call": 11 replays of 80, tests/real/quick/83.
 * The wait is bounded and only while another process replays, so a name
 * that is gone for good (the recorded run's file removed since) costs no
 * more than that; no process waits for this one here, so it cannot be
 * part of a cycle of waits.
 */
int agent_rr_tree_name_wait(int e, int *waited_ms)
{
	struct timespec ms1 = {0, 1000000};
	uint32_t n, k;
	int saved = errno;

	if (!rr_tree || !rr_replay || rr_only != RR_NO_PROC || (e != ENOENT && e != ENOTDIR) ||
	    *waited_ms >= 2000 || agent_host_gone())
		return 0;
	n = __atomic_load_n(&rr_tree->nprocs, __ATOMIC_ACQUIRE);
	if (n > rr_tree->max)
		n = rr_tree->max;
	for (k = 0; k < n; k++) {
		struct rr_proc_ent *x = &rr_tree->ent[k];
		pid_t p = __atomic_load_n(&x->real_pid, __ATOMIC_ACQUIRE);

		if (k != rr_me && p > 0 && p != rr_getpid() &&
		    __atomic_load_n(&x->state, __ATOMIC_ACQUIRE) == RR_PS_RUN && rr_alive(p))
			break;
	}
	if (k == n) {
		errno = saved;
		return 0;
	}
	syscall(SYS_nanosleep, &ms1, NULL);
	++*waited_ms;
	errno = saved;
	return 1;
}

void agent_rr_tree_end(void)
{
	struct timespec ms2 = {0, 2000000};

	if (!rr_tree || rr_me >= rr_tree->max)
		return;
	/* The session ends when the first process does: in a replay of the
	 * whole tree it waits here until the others have ended (they do not
	 * meet it again: its waits were replayed from its log). */
	while (rr_replay && rr_only == RR_NO_PROC &&
	       __atomic_load_n(&rr_tree->ent[0].real_pid, __ATOMIC_ACQUIRE) == rr_getpid() &&
	       !agent_host_gone()) {
		uint32_t n = __atomic_load_n(&rr_tree->nprocs, __ATOMIC_ACQUIRE), k, busy = 0;

		if (n > rr_tree->max)
			n = rr_tree->max;
		for (k = 0; k < n; k++) {
			struct rr_proc_ent *e = &rr_tree->ent[k];
			pid_t p = __atomic_load_n(&e->real_pid, __ATOMIC_ACQUIRE);

			if (__atomic_load_n(&e->flags, __ATOMIC_ACQUIRE) & RR_F_STOP)
				return;
			if (k != rr_me && p > 0 && p != rr_getpid() &&
			    __atomic_load_n(&e->state, __ATOMIC_ACQUIRE) == RR_PS_RUN && rr_alive(p))
				busy = 1;
		}
		if (!busy)
			break;
		syscall(SYS_nanosleep, &ms2, NULL);
	}
	__atomic_store_n(&rr_tree->ent[rr_me].state, RR_PS_DONE, __ATOMIC_RELEASE);
}

/*
 * Replay: a wait returned the recorded child pid with its end. The child
 * is replayed from its own log and need not meet its parent, but the
 * parent waits until its replay has ended too (when it is replayed: not
 * with --pid), so that what the child wrote comes before what the parent
 * writes next, as in the recording (a shell printing after a command).
 */
static void rr_wait_replayed(pid_t recorded)
{
	struct timespec ms1 = {0, 1000000};
	uint32_t n, k;

	if (!rr_tree || rr_only != RR_NO_PROC || recorded <= 0)
		return;
	n = __atomic_load_n(&rr_tree->nprocs, __ATOMIC_ACQUIRE);
	if (n > rr_tree->max)
		n = rr_tree->max;
	for (k = 0; k < n; k++) {
		struct rr_proc_ent *e = &rr_tree->ent[k];
		pid_t p = __atomic_load_n(&e->real_pid, __ATOMIC_ACQUIRE);

		/* (in a pid namespace of ours, a spawned child not yet
		 * started: its replay ends when we do, as the namespace's
		 * first process, so it is waited for) */
		if (k != rr_me && p <= 0 && agent.pidns && rr_is_waited(e, recorded) &&
		    __atomic_load_n(&e->state, __ATOMIC_ACQUIRE) == RR_PS_FREE) {
			rr_wait_claim(k, 0);
			p = __atomic_load_n(&e->real_pid, __ATOMIC_ACQUIRE);
		}
		if (k == rr_me || !rr_is_waited(e, recorded) || p <= 0 || p == rr_getpid())
			continue;
		while (rr_alive(p) && !agent_host_gone()) {
			for (uint32_t j = 0; j < n; j++)
				if (__atomic_load_n(&rr_tree->ent[j].flags, __ATOMIC_ACQUIRE) & RR_F_STOP)
					return;
			syscall(SYS_nanosleep, &ms1, NULL);
		}
	}
}

/*
 * Replay of a whole tree: a read of a pipe made inside the program
 * returns its recorded bytes from the log, and also takes as many from
 * the real pipe, which another replaying process writes for real (its
 * writes are not skipped: a reader that reads through stdio, past the
 * interposers, reads them). Without this the pipe filled up, and when the
 * reader ended, the writer died of SIGPIPE in the middle of its log (`cat
 * big | wc -l`). Not done when this process holds a write end of the pipe
 * too (its own writes to it are skipped), for spool's pipes (stdin), and
 * with --pid (the writer may not run). It waits up to 2 s for the bytes.
 */
#define RR_DRAIN_FDS 256
static struct {
	uint64_t dev, ino;
	uint8_t known, drain;
} rr_drain_cache[RR_DRAIN_FDS];

static int rr_drain_ok(int fd, const struct stat *st)
{
	int drain = 1;

	if (fd >= 0 && fd < RR_DRAIN_FDS && rr_drain_cache[fd].known &&
	    rr_drain_cache[fd].dev == (uint64_t)st->st_dev &&
	    rr_drain_cache[fd].ino == (uint64_t)st->st_ino)
		return rr_drain_cache[fd].drain;
	for (int i = 0; i < 3; i++)
		if (rr_tree->outer_dev[i] == (uint64_t)st->st_dev &&
		    rr_tree->outer_ino[i] == (uint64_t)st->st_ino)
			drain = 0;
	for (int i = 0; i < 1024 && drain; i++) {
		struct stat o;
		long fl;

		if (i == fd || syscall(SYS_fstat, i, &o) < 0 || !S_ISFIFO(o.st_mode) ||
		    o.st_dev != st->st_dev || o.st_ino != st->st_ino)
			continue;
		fl = syscall(SYS_fcntl, i, F_GETFL);
		if (fl >= 0 && (fl & O_ACCMODE) != O_RDONLY)
			drain = 0;
	}
	if (fd >= 0 && fd < RR_DRAIN_FDS) {
		rr_drain_cache[fd].dev = (uint64_t)st->st_dev;
		rr_drain_cache[fd].ino = (uint64_t)st->st_ino;
		rr_drain_cache[fd].drain = (uint8_t)drain;
		rr_drain_cache[fd].known = 1;
	}
	return drain;
}

void agent_rr_tree_drain(int fd, size_t n)
{
	struct timespec t0, t1;
	char buf[4096];
	struct stat st;
	int saved = errno;
	long left_ms = 2000;

	if (!rr_tree || !rr_replay || rr_only != RR_NO_PROC || !n ||
	    syscall(SYS_fstat, fd, &st) < 0 || !S_ISFIFO(st.st_mode) || !rr_drain_ok(fd, &st))
		goto out;
	syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &t0);
	while (n > 0 && left_ms > 0) {
		struct pollfd p = {fd, POLLIN, 0};
		long r = arch_sys_poll(&p, 1, (int)left_ms);

		if (r < 0 && errno != EINTR)
			break;
		if (r > 0) {
			long k = syscall(SYS_read, fd, buf, n < sizeof(buf) ? n : sizeof(buf));

			if (k == 0 || (k < 0 && errno != EAGAIN && errno != EINTR))
				break;
			if (k > 0)
				n -= (size_t)k;
		}
		syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &t1);
		left_ms = 2000 - ((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000);
	}
out:
	errno = saved;
}

/*
 * A child its parent's wait saw killed by a signal: noted in the child's
 * entry (its newest image of that pid), so that its replay, which gets no
 * signal (the parent's kill is not sent again), ends the same way when it
 * reaches the end of its log, instead of running on past it.
 */
static void rr_note_end_sig(pid_t pid, int sig)
{
	uint32_t n;

	if (!rr_tree || rr_replay || pid <= 0 || sig <= 0 || sig >= 65)
		return;
	n = __atomic_load_n(&rr_tree->nprocs, __ATOMIC_ACQUIRE);
	if (n > rr_tree->max)
		n = rr_tree->max;
	while (n-- > 1)
		if (n != rr_me && rr_is_waited(&rr_tree->ent[n], pid) &&
		    __atomic_load_n(&rr_tree->ent[n].state, __ATOMIC_ACQUIRE) != RR_PS_FREE) {
			__atomic_store_n(&rr_tree->ent[n].end_sig, (uint32_t)sig, __ATOMIC_RELAXED);
			return;
		}
}

void agent_rr_tree_end_of_log(void)
{
	struct sigaction sa;
	uint64_t set;
	int sig;

	if (!rr_tree || !rr_replay || rr_me >= rr_tree->max)
		return;
	sig = (int)__atomic_load_n(&rr_tree->ent[rr_me].end_sig, __ATOMIC_RELAXED);
	if (sig <= 0 || sig >= 65 || sig == SIGKILL || sig == SIGSTOP)
		sig = sig == SIGKILL ? SIGKILL : 0;
	if (!sig)
		return;
	/* as the recorded run ended: the signal's default action */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	if (sig != SIGKILL)
		syscall(SYS_rt_sigaction, sig, &sa, NULL, 8);
	set = 1ull << (sig - 1);
	syscall(SYS_rt_sigprocmask, SIG_UNBLOCK, &set, NULL, 8);
	rr_kill_self(sig);
	syscall(SYS_exit_group, 128 + sig); /* a signal whose default is to go on */
}

/* ---- fork ---- */

void agent_rr_fork_prepare(void)
{
	if (!agent_rr_mode || !rr_tree || rr_replay)
		return;
	rr_fork_next = rr_take(RR_PK_FORK, rr_me, RR_NO_PROC, 0, 0);
}

void agent_rr_fork_parent(void)
{
}

void agent_rr_fork_child(void)
{
	uint32_t k = rr_fork_next;
	uint64_t size = 0, base = 0;
	struct rr_area *a;
	struct rr_proc_ent *e;

	rr_fork_next = RR_NO_PROC;
	if (!agent_rr_mode)
		return;
	if (!rr_tree || k >= rr_tree->max) {
		agent_rr_detach(RR_F_FORKED);
		return;
	}
	agent_rr_mode = RR_MODE_OFF;
	agent_serial_fork_child();
	e = &rr_tree->ent[k];
	if (rr_replay) {
		if (rr_claim(k) < 0) {
			agent_disable("record/replay: a fork child's recording is taken already");
			return;
		}
	} else {
		e->pid = rr_getpid();
		e->ns_pid = rr_ns_pid();
		e->ppid = rr_getppid();
		rr_note_exe(e);
		__atomic_store_n(&e->state, RR_PS_RUN, __ATOMIC_RELEASE);
	}
	a = rr_map(k, agent.ctl->ext_size[SHM_EXT_REPLAY], &size, &base);
	if (!a) {
		agent_disable("record/replay: cannot map a fork child's area");
		return;
	}
	/* (the parent's snapshot state names its area, unmapped here: a
	 * grandchild's first slow path read it, SIGSEGV in rsync's receiver) */
	agent_snap_forget();
	if (rr_cur)
		munmap(rr_cur, rr_cur_size);
	rr_cur = a;
	rr_cur_size = size;
	rr_me = k;
	memset(rr_drain_cache, 0, sizeof(rr_drain_cache));
	if (agent_rr_attach(a, size, base, k) == 0)
		agent_rr_tree_started();
}

void agent_rr_fork_child_handler(void)
{
	if (!agent_thread_child_started())
		agent_rr_fork_child();
}

int agent_rr_fork_pending(void)
{
	return agent_rr_mode && rr_tree && rr_fork_next != RR_NO_PROC;
}

/* Replay --pid: an ancestor has started the next process on the way:
 * it waits for that child for real and ends as it did, so the session's
 * exit status is the replayed process's. */
static void __attribute__((noreturn)) rr_follow(pid_t child)
{
	int st = 0;
	struct sigaction sa;

	while (syscall(SYS_wait4, child, &st, __WALL, NULL) < 0 && errno == EINTR)
		;
	if (WIFSIGNALED(st)) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = SIG_DFL;
		syscall(SYS_rt_sigaction, WTERMSIG(st), &sa, NULL, 8);
		rr_kill_self(WTERMSIG(st));
		syscall(SYS_exit_group, 128 + WTERMSIG(st));
	}
	syscall(SYS_exit_group, WEXITSTATUS(st));
	__builtin_unreachable();
}

static void __attribute__((noreturn)) rr_fail(const char *what)
{
	agent_rr_stop(what, 0);
}

static long rr_fork_glibc(void *arg)
{
	(void)arg;
	return real_fork();
}

/*
 * A fork recorded or replayed: make(arg) makes the copy, glibc's fork
 * (whose handlers take the child's number when recording and start the
 * child on it: agent_rr_fork_prepare, agent_rr_fork_child) or a fork no
 * fork handler runs in (raw: agent_rr_raw_fork), which takes the number
 * here and whose child starts on it in agent_thread_raw_fork. Either way
 * the parent records RR_CALL_FORK with the child's number, as a replay
 * needs it.
 */
static long rr_fork_with(struct agent_thread *t, long (*make)(void *), void *arg, int raw)
{
	uint64_t k = 0;
	long r, p;
	int e;

	if (agent_rr_mode & RR_MODE_REPLAY) {
		int64_t want;

		/* The signals recorded before the fork's record were delivered
		 * after the real fork, in the parent only (the record is
		 * written after it): their replay comes after the fork too,
		 * or the child would copy what their handlers did (dash's
		 * echo child ran its SIGCHLD handler's wait4, 1 replay in 4
		 * of sh -c 'echo x | jq .'). So the record is looked at
		 * first and taken (with the deliveries) in the parent. */
		if (!agent_rr_rep_peek_input(RR_CALL_FORK, &want, &k) || want <= 0 ||
		    k >= rr_tree->max || !rr_on_path((uint32_t)k)) {
			r = agent_rr_rep_input(t, RR_CALL_FORK, -1, NULL, 0, &k);
			if (r <= 0)
				return r; /* the recorded failure, errno set */
			if (k >= rr_tree->max)
				rr_fail("replay: the recording's fork names no recorded process");
			return r; /* --pid: a child off the way, not started */
		}
		rr_fork_next = (uint32_t)k;
		p = make(arg);
		if (p == 0)
			return 0;
		rr_fork_next = RR_NO_PROC;
		if (p < 0)
			rr_fail("replay: fork failed where the recording's did not");
		r = agent_rr_rep_input(t, RR_CALL_FORK, -1, NULL, 0, &k);
		/* (the child stores it too: whichever comes first; not a
		 * pid of a namespace of the parent's own, rr_getpid) */
		if (rr_ns_view())
			__atomic_store_n(&rr_tree->ent[k].real_pid, (pid_t)p, __ATOMIC_RELEASE);
		else
			rr_wait_claim((uint32_t)k, (pid_t)p);
		if (rr_only != RR_NO_PROC && rr_me != rr_only)
			rr_follow((pid_t)p);
		return r;
	}
	if (raw)
		agent_rr_fork_prepare();
	p = make(arg);
	if (p == 0)
		return 0;
	e = errno;
	agent_rr_rec_input(t, RR_CALL_FORK, -1, p, p < 0 ? e : 0,
			   p > 0 ? rr_fork_next : RR_NO_PROC, NULL, 0);
	rr_fork_next = RR_NO_PROC;
	errno = e;
	return p;
}

AGENT_EXPORT pid_t fork(void)
{
	struct agent_thread *t;

	if (AGENT_LIKELY(!agent_rr_mode) || !rr_tree || !(t = agent_rr_io_enter()))
		return real_fork();
	return (pid_t)rr_fork_with(t, rr_fork_glibc, NULL, 0);
}

struct rr_raw_fork {
	long (*call)(void *);
	void *arg;
	unsigned long flags;
};

static long rr_fork_raw(void *arg)
{
	const struct rr_raw_fork *f = arg;

	return agent_thread_raw_fork(f->call, f->arg, f->flags);
}

long agent_rr_raw_fork(long (*call)(void *), void *arg, unsigned long flags)
{
	struct rr_raw_fork f = {call, arg, flags};
	struct agent_thread *t;

	if (!rr_tree || !(t = agent_rr_io_enter()))
		return agent_thread_raw_fork(call, arg, flags);
	return rr_fork_with(t, rr_fork_raw, &f, 1);
}

/* vfork while recording or replaying (see the top of the file). */
__attribute__((visibility("hidden"))) pid_t agent_rr_vfork_as_fork(void)
{
	return fork();
}

/* vfork: glibc's by a tail jump (its child must return on the caller's
 * frame), or fork while recording or replaying. */
#if defined(__x86_64__)
__asm__(".text\n"
	".globl vfork\n"
	".type vfork, @function\n"
	"vfork:\n"
	"	movl agent_rr_mode(%rip), %eax\n"
	"	testl %eax, %eax\n"
	"	jnz 1f\n"
	"	jmp *agent_rr_real_vfork(%rip)\n"
	"1:	jmp agent_rr_vfork_as_fork\n"
	".size vfork, .-vfork\n");
#elif defined(__aarch64__)
__asm__(".text\n"
	".globl vfork\n"
	".type vfork, %function\n"
	"vfork:\n"
	"	adrp x16, agent_rr_mode\n"
	"	ldr w16, [x16, :lo12:agent_rr_mode]\n"
	"	cbnz w16, 1f\n"
	"	adrp x16, agent_rr_real_vfork\n"
	"	ldr x16, [x16, :lo12:agent_rr_real_vfork]\n"
	"	br x16\n"
	"1:	b agent_rr_vfork_as_fork\n"
	".size vfork, .-vfork\n");
#endif

/* ---- posix_spawn ---- */

/*
 * Record: the number the image just spawned (pid) took when its agent
 * started, marked as numbered by this record (RR_PK_PSPAWN); waits up to
 * 5 s for it (an image whose environment lost the agent never starts one:
 * RR_NO_PROC).
 */
static uint32_t rr_spawned_rec(pid_t pid)
{
	struct timespec us100 = {0, 100000};

	for (uint32_t waits = 0; waits < 50000; waits++) {
		uint32_t n = __atomic_load_n(&rr_tree->nprocs, __ATOMIC_ACQUIRE), k;

		if (n > rr_tree->max)
			n = rr_tree->max;
		for (k = n; k-- > 1;) {
			struct rr_proc_ent *e = &rr_tree->ent[k];

			/* (pid: in a pid namespace of ours, the image's pid
			 * there, rr_getpid) */
			if (__atomic_load_n(&e->state, __ATOMIC_ACQUIRE) != RR_PS_FREE &&
			    (e->pid == pid || (e->ns_pid > 0 && e->ns_pid == pid)) &&
			    e->kind == RR_PK_SPAWN && e->parent == rr_me) {
				e->kind = RR_PK_PSPAWN;
				return k;
			}
		}
		if (agent.pidns ? syscall(SYS_kill, pid, 0) < 0 && errno == ESRCH : !rr_alive(pid))
			break;
		syscall(SYS_nanosleep, &us100, NULL);
	}
	return RR_NO_PROC;
}

static int rr_spawn(int path, pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
		    const posix_spawnattr_t *at, char *const argv[], char *const envp[])
{
	int (*real)(pid_t *, const char *, const posix_spawn_file_actions_t *,
		    const posix_spawnattr_t *, char *const[], char *const[]) =
	    path ? real_spawnp : real_spawn;
	struct agent_thread *t;
	uint64_t arg = 0;
	pid_t mine = 0;
	uint32_t k = RR_NO_PROC;
	struct agent_rr_seg seg = {&k, sizeof(k)};
	int rc;

	if (AGENT_LIKELY(!agent_rr_mode) || !rr_tree || !(t = agent_rr_io_enter()))
		return real(pid, file, fa, at, argv, envp);
	if (agent_rr_mode & RR_MODE_REPLAY) {
		rc = (int)agent_rr_rep_input(t, RR_CALL_SPAWN, -1, &seg, 1, &arg);
		if (rc)
			return rc;
		if (k >= rr_tree->max)
			k = RR_NO_PROC;
		if (k != RR_NO_PROC && !rr_on_path(k)) {
			/* --pid: an image off the way, not started */
			__atomic_store_n(&rr_tree->ent[k].state, RR_PS_SKIP, __ATOMIC_RELEASE);
		} else {
			if (real(&mine, file, fa, at, argv, envp))
				rr_fail("replay: posix_spawn failed where the recording's did not");
			/* Claimed for the child (which may not have got there
			 * yet: it waits for this), and a wait for it finds its
			 * pid. */
			if (k != RR_NO_PROC) {
				uint32_t free_ = RR_PS_FREE;

				/* (in a pid namespace of ours, the child's
				 * pid there: it stores the one spool sees as
				 * it finds its entry, rr_spawned_number) */
				__atomic_store_n(&rr_tree->ent[k].real_pid, mine, __ATOMIC_RELEASE);
				__atomic_compare_exchange_n(&rr_tree->ent[k].state, &free_, RR_PS_RUN,
							    0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
				if (!rr_ns_view())
					rr_wait_claim(k, mine);
			}
			if (rr_only != RR_NO_PROC && rr_me != rr_only)
				rr_follow(mine);
		}
		if (pid)
			*pid = (pid_t)arg;
		return 0;
	}
	rc = real(&mine, file, fa, at, argv, envp);
	if (!rc)
		k = rr_spawned_rec(mine);
	agent_rr_rec_input(t, RR_CALL_SPAWN, -1, rc, 0, rc ? 0 : (uint64_t)mine, &seg, 1);
	if (pid && !rc)
		*pid = mine;
	return rc;
}

AGENT_EXPORT int posix_spawn(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
			     const posix_spawnattr_t *at, char *const argv[], char *const envp[])
{
	return rr_spawn(0, pid, file, fa, at, argv, envp);
}

AGENT_EXPORT int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
			      const posix_spawnattr_t *at, char *const argv[], char *const envp[])
{
	return rr_spawn(1, pid, file, fa, at, argv, envp);
}

/* ---- the wait family ---- */

static pid_t rr_wait(pid_t pid, int *status, int opt, struct rusage *ru)
{
	struct agent_thread *t;
	struct rusage tmp;
	int st = 0, e;
	struct agent_rr_seg seg[2] = {{&st, sizeof(st)}, {ru ? ru : &tmp, sizeof(tmp)}};
	int nseg = ru ? 2 : 1;
	pid_t r;

	if (AGENT_LIKELY(!agent_rr_mode) || !(t = agent_rr_io_enter()))
		return real_wait4(pid, status, opt, ru);
	if (agent_rr_mode & RR_MODE_REPLAY) {
		r = (pid_t)agent_rr_rep_input(t, RR_CALL_WAIT, (int)pid, seg, nseg, NULL);
		e = errno;
		if (r > 0 && (WIFEXITED(st) || WIFSIGNALED(st)))
			rr_wait_replayed(r);
		if (r > 0 && status)
			*status = st;
		errno = e;
		return r;
	}
	if (agent_rr_mode & RR_MODE_SERIAL) {
		agent_serial_block_begin(RR_AT_INPUT);
		r = real_wait4(pid, &st, opt, ru);
		e = errno;
		agent_serial_block_end();
	} else {
		r = real_wait4(pid, &st, opt, ru);
		e = errno;
	}
	if (r <= 0)
		seg[0].n = seg[1].n = 0;
	if (r > 0 && WIFSIGNALED(st))
		rr_note_end_sig(r, WTERMSIG(st));
	agent_rr_rec_input(t, RR_CALL_WAIT, (int)pid, r, r < 0 ? e : 0, 0, seg, nseg);
	if (r > 0 && status)
		*status = st;
	errno = e;
	return r;
}

AGENT_EXPORT pid_t waitpid(pid_t pid, int *status, int opt)
{
	return rr_wait(pid, status, opt, NULL);
}

AGENT_EXPORT pid_t wait(int *status)
{
	return rr_wait(-1, status, 0, NULL);
}

AGENT_EXPORT pid_t wait4(pid_t pid, int *status, int opt, struct rusage *ru)
{
	return rr_wait(pid, status, opt, ru);
}

AGENT_EXPORT pid_t wait3(int *status, int opt, struct rusage *ru)
{
	return rr_wait(-1, status, opt, ru);
}

AGENT_EXPORT int waitid(idtype_t type, id_t id, siginfo_t *info, int opt)
{
	struct agent_thread *t;
	siginfo_t tmp;
	struct agent_rr_seg seg = {info ? info : &tmp, sizeof(tmp)};
	int r, e;

	if (AGENT_LIKELY(!agent_rr_mode) || !(t = agent_rr_io_enter()))
		return real_waitid(type, id, info, opt);
	if (agent_rr_mode & RR_MODE_REPLAY) {
		r = (int)agent_rr_rep_input(t, RR_CALL_WAITID, (int)id, &seg, 1, NULL);
		e = errno;
		if (r == 0 && ((siginfo_t *)seg.p)->si_pid > 0 &&
		    (((siginfo_t *)seg.p)->si_code == CLD_EXITED ||
		     ((siginfo_t *)seg.p)->si_code == CLD_KILLED ||
		     ((siginfo_t *)seg.p)->si_code == CLD_DUMPED))
			rr_wait_replayed(((siginfo_t *)seg.p)->si_pid);
		errno = e;
		return r;
	}
	if (agent_rr_mode & RR_MODE_SERIAL) {
		agent_serial_block_begin(RR_AT_INPUT);
		r = real_waitid(type, id, seg.p, opt);
		e = errno;
		agent_serial_block_end();
	} else {
		r = real_waitid(type, id, seg.p, opt);
		e = errno;
	}
	if (r < 0)
		seg.n = 0;
	if (r == 0 && (((siginfo_t *)seg.p)->si_code == CLD_KILLED ||
		       ((siginfo_t *)seg.p)->si_code == CLD_DUMPED))
		rr_note_end_sig(((siginfo_t *)seg.p)->si_pid, ((siginfo_t *)seg.p)->si_status);
	agent_rr_rec_input(t, RR_CALL_WAITID, (int)id, r, r < 0 ? e : 0, 0, &seg, 1);
	errno = e;
	return r;
}
