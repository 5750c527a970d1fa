// SPDX-License-Identifier: MIT
/*
 * session.c - run a program under the agent and collect its trace.
 *
 * The order matters: everything that can fail for a reason the user should
 * hear about (target missing, static, setuid; agent missing; trace directory
 * not writable) is checked before the program starts, so a program is never
 * run for nothing. Once it runs, spool stays out of its way: the program
 * keeps spool's stdin, stdout and stderr, its own process group and its exit
 * status, and the terminal's SIGINT/SIGQUIT reach it while spool ignores
 * them so that the trace is always finished.
 *
 * Like strace -f, spool collects until the program and every process it
 * started have exited: a daemon's first process exits at once and its child
 * does the work. spool is a child subreaper (prctl), so a process whose
 * parent exits becomes spool's child: waitpid(-1) says exactly when none is
 * left, with no window between a fork and the child's claim of a process
 * slot. Once the first process has exited, SIGINT, SIGTERM or SIGHUP to
 * spool end the trace: the processes still running are left alone (never
 * signalled) and counted as a loss (trace_loss.still_running).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../arch/arch.h"
#include "../util/fds.h"
#include "../util/files.h"
#include "../util/log.h"
#include "../util/options.h"
#include "../util/procinfo.h"
#include "../util/target.h"
#include "session.h"
#include "stream_send.h"

static volatile sig_atomic_t child_pid;
int session_exec_status_fd = -1;
static volatile sig_atomic_t pending_signal;
static volatile sig_atomic_t first_exited; /* the program's first process has exited */
static volatile sig_atomic_t stop_now;	   /* a signal asked spool to end the trace */
static volatile sig_atomic_t stop_after;   /* SIGTERM went to the program: end after it */
static volatile sig_atomic_t stop_kills;   /* o->stop_kills, for the handlers */
static volatile sig_atomic_t stopped_by;   /* the signal that stopped a replay */

/* The signals among SIGINT, SIGQUIT, SIGTERM, SIGHUP and SIGCHLD that
 * spool found ignored when the session began (nohup ignores SIGHUP; a
 * shell's background job runs with SIGINT and SIGQUIT ignored). The
 * program inherits SIG_IGN for them as it would without spool (exec keeps
 * an ignored signal ignored), not SIG_DFL: `nohup spool locks -- PROG`
 * killed PROG at the first SIGHUP (tests/integ/382). Set before the
 * program is started, read-only in the spawning child. */
static sigset_t session_entry_ign;
static const int session_sigs[] = {SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGCHLD};

/* The disposition a child gets for sig before its exec: the one spool
 * found, SIG_IGN or SIG_DFL (never spool's own handlers). Only a system
 * call: async-signal-safe in a forked child. */
static void session_child_sig(int sig)
{
	(void)signal(sig, sigismember(&session_entry_ign, sig) ? SIG_IGN : SIG_DFL);
}

/* Other processes get this long to exit after a SIGTERM spool passed on
 * has ended the first one (a server's master stops its workers). */
#define SESSION_STOP_GRACE_NS 1000000000ull
/* Processes named in spool's messages about those still running. */
#define SESSION_NAMED_PROCS 3
/* Bound of the walk over the processes still running. */
#define SESSION_MAX_DESC 4096
/* How long the snapshot copies of a recorded program that was killed get
 * to finish writing their images (session_snap_copies). */
#define SESSION_SNAP_WAIT_NS 10000000000ull

/* SIGTERM/SIGHUP to spool are meant for the program while its first
 * process runs: pass them on (a SIGTERM also ends the trace once that
 * process has exited). One that arrives before the program's pid is known
 * is kept and sent right after. After the first process has exited, they
 * end the trace. Async-signal-safe: kill and flags only. */
/* A replay stopped by sig (o->stop_kills): its first process is killed
 * here, the others by the session's loop (session_kill_all).
 * Async-signal-safe. */
static void stop_replay(int sig)
{
	stopped_by = sig;
	stop_now = sig;
	if (child_pid > 0)
		kill(child_pid, SIGKILL);
}

static void forward_signal(int sig)
{
	if (stop_kills) {
		stop_replay(sig);
		return;
	}
	if (child_pid > 0) {
		kill(child_pid, sig);
		if (sig == SIGTERM)
			stop_after = 1;
	} else if (first_exited) {
		stop_now = sig;
	} else {
		pending_signal = sig;
	}
}

/* SIGINT: while the first process runs, the terminal's ^C reaches it
 * itself (spool ignores it); afterwards it ends the trace. */
static void on_sigint(int sig)
{
	if (stop_kills & SESSION_STOP_INT) {
		stop_replay(sig);
		return;
	}
	if (first_exited)
		stop_now = sig;
}

static void on_sigchld(int sig)
{
	(void)sig; /* only there to interrupt the futex wait */
}

int session_opt_ring_size(struct session_opts *so, const char *arg, uint64_t min_ring)
{
	uint64_t v;

	if (options_parse_size(arg, &v) < 0 || v < min_ring || v > (1ull << 30) || (v & (v - 1))) {
		log_err("--ring-size '%s': want a power of two from %lluk to 1g", arg,
			(unsigned long long)(min_ring >> 10));
		return -EINVAL;
	}
	so->ring_bytes = (uint32_t)v;
	return 0;
}

int session_opt_max_threads(struct session_opts *so, const char *arg)
{
	uint64_t v;

	if (options_parse_uint(arg, EV_MAX_THREADS, &v) < 0 || !v) {
		log_err("--max-threads '%s': want 1 to %u", arg, EV_MAX_THREADS);
		return -EINVAL;
	}
	so->max_rings = (uint32_t)v;
	return 0;
}

int session_opt_max_procs(struct session_opts *so, const char *arg)
{
	uint64_t v;

	if (options_parse_uint(arg, SHM_MAX_PROCS, &v) < 0 || !v) {
		log_err("--max-procs '%s': want 1 to %u", arg, SHM_MAX_PROCS);
		return -EINVAL;
	}
	so->max_procs = (uint32_t)v;
	return 0;
}

int session_opt_on_full(struct session_opts *so, const char *arg)
{
	if (!strcmp(arg, "drop"))
		so->shm_flags |= SHM_F_DROP_WHEN_FULL;
	else if (!strcmp(arg, "wait"))
		so->shm_flags &= ~SHM_F_DROP_WHEN_FULL;
	else {
		log_err("--on-full '%s': want wait or drop", arg);
		return -EINVAL;
	}
	return 0;
}

int session_find_agent(char *path, size_t len)
{
	return files_find_shipped("SPOOL_AGENT", "libspool-agent.so", "../lib/spool", path, len);
}

int session_prepare_trace_dir(const char *dir, int quiet)
{
	(void)quiet;
	return trace_dir_check(dir);
}

static int set_preload(const char *agent)
{
	const char *cur = getenv("LD_PRELOAD");
	char *v;
	int rc;

	if (cur && *cur) {
		if (asprintf(&v, "%s:%s", agent, cur) < 0)
			return -ENOMEM;
	} else if (!(v = strdup(agent))) {
		return -ENOMEM;
	}
	rc = setenv("LD_PRELOAD", v, 1);
	free(v);
	return rc < 0 ? -errno : 0;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * The program keeps the shared region's descriptor (the agent of an exec'd
 * image maps it again). At the number spool happened to get it, it took
 * one of the low numbers the program's own descriptors get, and that
 * number depends on what spool had open: a replay (which opens more files
 * than a recording) then saw the program's descriptors shifted by one, and
 * a replayed read on "fd 7" met a call on fd 8. So it moves to a fixed high
 * number, the same in every run; the recording keeps it for its replays.
 */
int session_shm_fd(const struct session_opts *o)
{
	struct rlimit rl;

	if (o->shm_fd > 2)
		return o->shm_fd;
	if (o->shm_fd < 0)
		return 0; /* where spool got it (the replay of an older recording) */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur < 1024)
		return rl.rlim_cur > 64 ? (int)rl.rlim_cur - 24 : 0;
	return 1000;
}

/* In the child: fd to the lowest free number from at (0: leave it). */
static int move_fd_high(int fd, int at)
{
	int hi;

	if (at <= fd)
		return fd;
	hi = fcntl(fd, F_DUPFD, at);
	if (hi < 0)
		return fd;
	close(fd);
	return hi;
}

/* Whether the environment entry e sets the variable name (NAME=...). */
static int env_is(const char *e, const char *name, size_t len)
{
	return !strncmp(e, name, len) && e[len] == '=';
}

/*
 * SPOOL_SHM_PATH=/proc/<spool>/fd/<host_fd>, of a fixed length (shm.h): where
 * an exec'd image whose program closed the region's descriptor opens it
 * again (agent_main.c).
 */
static int shm_path_var(char *buf, size_t len, int host_fd)
{
	char tail[40];
	int n = snprintf(tail, sizeof(tail), "%d/fd/%d", (int)getpid(), host_fd);
	int pad = 2 * SHM_ENV_PATH_PID_WIDTH + 4 - n;

	if (pad < 0)
		pad = 0;
	return snprintf(buf, len, "%s=/proc/%.*s%s", SHM_ENV_PATH, pad,
			"////////////////////////////////////////", tail);
}

/*
 * The program's stack starts with its strings (the file run, argv, the
 * environment) and the arrays of pointers to them: their total size and
 * number place everything below (environ, main's frame, every local whose
 * address the program may write to a pipe). A replay's environment is the
 * recording's, but spool's own variables (SPOOL_DEBUG, --env) may differ.
 * So spool pads what it adds: a recording's SPOOL_SHM_PATH carries
 * SESSION_PAD_BYTES more slashes and one empty SPOOL_PAD= entry, and a
 * replay sizes its slashes and SPOOL_PAD= entries so that the bytes and
 * the number of entries are the recorded ones (session_opts.stack_bytes):
 * a replay may add a variable of up to that many bytes, or drop any.
 */
#define SESSION_PAD_BYTES 128
#define SESSION_PAD_VAR "SPOOL_PAD="

/* Bytes and entries of path, argv and env on the new stack. */
static void stack_size_of(const char *path, char *const *argv, char *const *env, uint64_t *bytes,
			  uint64_t *items)
{
	*bytes = strlen(path) + 1;
	*items = 0;
	for (char *const *a = argv; a && *a; a++, ++*items)
		*bytes += strlen(*a) + 1;
	for (char *const *e = env; e && *e; e++, ++*items)
		*bytes += strlen(*e) + 1;
}

/* Pad env (which has room for max entries, path_at the index of its
 * SPOOL_SHM_PATH) for the stack of o (see above); fills *bytes and *items
 * with what the program gets. 0 or -ENOMEM. */
static int stack_pad(char **env, size_t max, size_t path_at, const char *path, char *const *argv,
		     const struct session_opts *o, uint64_t *bytes, uint64_t *items)
{
	uint64_t extra = 0, pads = 0, b, n;
	size_t k = 0;
	char *grown;

	stack_size_of(path, argv, env, &b, &n);
	if (o->stack_record) {
		extra = SESSION_PAD_BYTES;
		pads = 1;
	} else if (o->stack_items && o->stack_items >= n) {
		pads = o->stack_items - n;
		if (o->stack_bytes >= b + pads * sizeof(SESSION_PAD_VAR))
			extra = o->stack_bytes - b - pads * sizeof(SESSION_PAD_VAR);
		else
			pads = 0; /* cannot be met: the replay says its stack moved */
	}
	while (env[k])
		k++;
	if (k + pads > max || extra > (1u << 20))
		pads = extra = 0;
	if (extra) {
		/* /proc/ + slashes + PID/fd/N: the same file */
		size_t len = strlen(env[path_at]), head = strlen(SHM_ENV_PATH) + strlen("=/proc/");

		grown = malloc(len + extra + 1);
		if (!grown)
			return -ENOMEM;
		memcpy(grown, env[path_at], head);
		memset(grown + head, '/', extra);
		memcpy(grown + head + extra, env[path_at] + head, len - head + 1);
		free(env[path_at]);
		env[path_at] = grown;
	}
	for (uint64_t i = 0; i < pads; i++)
		if (!(env[k++] = strdup(SESSION_PAD_VAR)))
			return -ENOMEM;
	stack_size_of(path, argv, env, bytes, items);
	return 0;
}

/* The program's environment, built in spool (a vfork child must not
 * allocate): spool's own (or o->base_env), o->env's entries replacing
 * theirs, the region's descriptor (and SPOOL_SHM_PATH) and LD_PRELOAD with
 * the agent first.
 * Returns a malloc'd array of malloc'd strings (free with env_free), or
 * NULL. */
static char **spawn_env(const struct session_opts *o, int fd, int host_fd, const char *agent,
			const char *path, char *const *argv, struct session_result *res)
{
	extern char **environ;
	char path_var[128];
	char *const *src = o->base_env ? o->base_env : environ;
	const char *cur = NULL;
	size_t n = 0, k = 0, i, path_at;
	char **v;
	int rc;

	for (char *const *e = src; e && *e; e++) {
		if (env_is(*e, "LD_PRELOAD", strlen("LD_PRELOAD")))
			cur = *e + strlen("LD_PRELOAD=");
		n++;
	}
	for (char *const *e = o->env; e && *e; e++)
		n++;
	/* (room for the stack's padding entries, stack_pad) */
	v = calloc(n + 4 + 64, sizeof(*v));
	if (!v)
		return NULL;
	/* spool's own variables (SPOOL_*) after the program's, in record and
	 * replay alike (run_env_load puts the replay's there): the program's
	 * strings are at the same places on its stack in both */
	for (int spools = 0; spools < 2; spools++)
		for (char *const *e = src; e && *e; e++) {
			size_t len = strcspn(*e, "=");
			int over = env_is(*e, SHM_ENV_FD, strlen(SHM_ENV_FD)) ||
				   env_is(*e, SHM_ENV_PATH, strlen(SHM_ENV_PATH)) ||
				   env_is(*e, "LD_PRELOAD", strlen("LD_PRELOAD"));

			if ((strncmp(*e, "SPOOL_", 6) == 0) != spools)
				continue;
			for (char *const *x = o->env; x && *x && !over; x++)
				over = env_is(*x, *e, len);
			if (!over && !(v[k++] = strdup(*e)))
				goto fail;
		}
	for (char *const *x = o->env; x && *x; x++)
		if (!(v[k++] = strdup(*x)))
			goto fail;
	shm_path_var(path_var, sizeof(path_var), host_fd);
	path_at = k;
	if (!(v[k++] = strdup(path_var)))
		goto fail;
	if (asprintf(&v[k++], "%s=%d", SHM_ENV_FD, fd) < 0 ||
	    asprintf(&v[k++], "LD_PRELOAD=%s%s%s", agent, cur && *cur ? ":" : "",
		     cur && *cur ? cur : "") < 0) {
		v[k - 1] = NULL;
		goto fail;
	}
	rc = stack_pad(v, n + 4 + 63, path_at, path, argv, o, &res->stack_bytes, &res->stack_items);
	if (rc < 0) {
		k = n + 4 + 64;
		goto fail;
	}
	return v;
fail:
	for (i = 0; i < k; i++)
		free(v[i]);
	free(v);
	return NULL;
}

static void env_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

/*
 * Under exec (gdb starts the program: --gdb-wrapper, whose environment is
 * spool's own, and --gdb's memfd for spool-gdb.py, gdb.c) the environment
 * is not built by spawn_env, but the program's stack must still be the
 * recorded one: a copy of env padded the same way. Without it the replay
 * under gdb had its stack 0x60 bytes away (no SPOOL_PAD=, a short
 * SPOOL_SHM_PATH, gdb's own variables), and python3's `import hashlib`,
 * which replays identically alone, diverged at libcrypto's cpuid.
 */
char **session_stack_env(char *const *env, const char *path, char *const *argv, uint64_t bytes,
			 uint64_t items)
{
	struct session_opts o = {.stack_bytes = bytes, .stack_items = items};
	size_t n = 0, path_at = SIZE_MAX;
	uint64_t b, it;
	char **v;

	while (env && env[n])
		n++;
	v = calloc(n + 64, sizeof(*v));
	if (!v)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (!(v[i] = strdup(env[i]))) {
			env_free(v);
			return NULL;
		}
		if (env_is(env[i], SHM_ENV_PATH, strlen(SHM_ENV_PATH)))
			path_at = i;
	}
	/* (without the region's path there is nothing to lengthen) */
	if (path_at != SIZE_MAX && items && stack_pad(v, n + 63, path_at, path, argv, &o, &b, &it) < 0) {
		env_free(v);
		return NULL;
	}
	return v;
}


/*
 * Start the program with posix_spawn: glibc's is a clone that shares
 * spool's memory until the exec (like vfork), so starting costs the same
 * whatever spool has mapped, where a fork copied the page tables of all of
 * it (a first replay's loaded log, the filled area). The region's
 * descriptor goes to its fixed number first (the lowest free one from
 * there, found here: the child's table is a copy of spool's), close-on-exec
 * in spool, cleared for the child by the dup2 onto itself.
 */
/*
 * What both ways of starting the program share: the region's descriptor at
 * the number the program gets it at (*fd; shm_fd when it cannot be moved
 * there, the caller closes *fd when it differs) and the environment, or
 * NULL.
 */
static char **spawn_prepare(const char *path, char **argv, int shm_fd, const char *agent,
			    const struct session_opts *o, struct session_result *res, int *fd)
{
	int at_fd = session_shm_fd(o);

	*fd = shm_fd;
	if (at_fd > shm_fd) {
		*fd = fcntl(shm_fd, F_DUPFD_CLOEXEC, at_fd);
		if (*fd < 0)
			*fd = shm_fd;
	}
	return spawn_env(o, *fd, shm_fd, agent, path, argv, res);
}

/* How many of spool's own descriptors a start closes for the program at
 * most (o->fds_set); more is a shell gone wrong, and those stay open. */
#define SPAWN_CLOSE_MAX 1024

/* o->fds_set for posix_spawn: spool's descriptors an exec would keep are
 * closed (but the region's, fd, and o->pass_fd, its flag cleared), then the stand-ins opened at their
 * numbers. After the dup2s of the region and stdio, which read some of
 * the descriptors closed here. */
static int spawn_fds_actions(posix_spawn_file_actions_t *fa, int fd,
			     const struct session_opts *o)
{
	int own[SPAWN_CLOSE_MAX], n = fds_inherited(own, SPAWN_CLOSE_MAX), rc = 0;

	if (n > SPAWN_CLOSE_MAX)
		n = SPAWN_CLOSE_MAX;
	for (int i = 0; i < n && !rc; i++)
		if (own[i] != fd && own[i] != o->pass_fd)
			rc = -posix_spawn_file_actions_addclose(fa, own[i]);
	if (!rc && o->pass_fd >= 3)
		rc = -posix_spawn_file_actions_adddup2(fa, o->pass_fd, o->pass_fd);
	for (int i = 0; i < o->nfds && !rc; i++)
		if (o->fds[i] != fd && o->fds[i] != o->pass_fd)
			rc = -posix_spawn_file_actions_addopen(fa, o->fds[i], "/dev/null", O_RDWR, 0);
	return rc;
}

/* o->fds_set in a forked child (system calls only): everything from 3 up
 * is closed at the exec but the region's fd (the caller clears its flag
 * after this) and o->pass_fd, and the stand-ins are /dev/null. Returns 0 or an errno. */
static int spawn_fds_child(int fd, const struct session_opts *o)
{
	int nul;

	if (close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) < 0 ||
	    (o->pass_fd >= 3 && fcntl(o->pass_fd, F_SETFD, 0) < 0))
		return errno;
	nul = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (nul < 0)
		return errno;
	for (int i = 0; i < o->nfds; i++) {
		if (o->fds[i] == fd || o->fds[i] == o->pass_fd)
			continue;
		if (o->fds[i] == nul ? fcntl(nul, F_SETFD, 0) < 0 : dup2(nul, o->fds[i]) < 0)
			return errno;
	}
	return 0;
}

static pid_t spawn_posix(const char *path, char **argv, int shm_fd, const char *agent,
			 const struct session_opts *o, struct session_result *res)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t def;
	char **envp;
	int fd, rc;
	pid_t pid;

	envp = spawn_prepare(path, argv, shm_fd, agent, o, res, &fd);
	if (!envp) {
		rc = -ENOMEM;
		goto out_fd;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&at);
	/* back to the default, but for a signal ignored when spool began:
	 * spool ignores it still (session_run), and the program inherits
	 * that */
	sigemptyset(&def);
	for (size_t i = 0; i < sizeof(session_sigs) / sizeof(session_sigs[0]); i++)
		if (!sigismember(&session_entry_ign, session_sigs[i]))
			sigaddset(&def, session_sigs[i]);
	rc = -posix_spawnattr_setsigdefault(&at, &def);
	if (!rc)
		rc = -posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGDEF);
	if (!rc)
		rc = -posix_spawn_file_actions_adddup2(&fa, fd, fd);
	if (!rc && fd != shm_fd)
		rc = -posix_spawn_file_actions_addclose(&fa, shm_fd);
	for (int i = 1; i <= 2; i++)
		if (!rc && o->stdio_sub[i] > 0)
			rc = -posix_spawn_file_actions_adddup2(&fa, o->stdio_sub[i], i);
	if (!rc && o->fds_set)
		rc = spawn_fds_actions(&fa, fd, o);
	if (!rc && o->cwd)
		rc = -posix_spawn_file_actions_addchdir_np(&fa, o->cwd);
	if (!rc)
		rc = -posix_spawn(&pid, path, &fa, &at, argv, envp);
	posix_spawnattr_destroy(&at);
	posix_spawn_file_actions_destroy(&fa);
	env_free(envp);
out_fd:
	if (fd != shm_fd)
		close(fd);
	return rc < 0 ? rc : pid;
}

/*
 * Start the program with a fork, where its resource limits must differ from
 * spool's (a replay of a recording made under other limits: they can be set
 * only in the child, spool keeps its own). Otherwise as spawn_posix; the
 * child makes system calls only (spool has threads). Returns the pid or the
 * negative errno of the exec (through a close-on-exec pipe).
 */
static pid_t spawn_fork(const char *path, char **argv, int shm_fd, const char *agent,
			const struct session_opts *o, struct session_result *res)
{
	int fd, pfd[2] = {-1, -1}, err = 0;
	char **envp;
	pid_t pid = -1;
	ssize_t n;

	envp = spawn_prepare(path, argv, shm_fd, agent, o, res, &fd);
	if (!envp) {
		err = -ENOMEM;
		goto out_fd;
	}
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		err = -errno;
		goto out_env;
	}
	pid = fork();
	if (pid < 0) {
		err = -errno;
		goto out_pipe;
	}
	if (pid == 0) {
		for (size_t i = 0; i < sizeof(session_sigs) / sizeof(session_sigs[0]); i++)
			session_child_sig(session_sigs[i]);
		if (o->ident)
			run_ident_apply_child(o->ident);
		if (o->fds_set)
			err = spawn_fds_child(fd, o);
		if (!err && (fcntl(fd, F_SETFD, 0) < 0 || (fd != shm_fd && close(shm_fd) < 0)))
			err = errno;
		for (int i = 1; i <= 2 && !err; i++)
			if (o->stdio_sub[i] > 0 && dup2(o->stdio_sub[i], i) < 0)
				err = errno;
		if (!err && o->cwd && chdir(o->cwd) < 0)
			err = errno;
		if (!err && o->ident)
			run_ident_apply_sigs_child(o->ident);
		if (!err) {
			execve(path, argv, envp);
			err = errno;
		}
		if (write(pfd[1], &err, sizeof(err)) < 0)
			_exit(127);
		_exit(127);
	}
	close(pfd[1]);
	pfd[1] = -1;
	do
		n = read(pfd[0], &err, sizeof(err));
	while (n < 0 && errno == EINTR);
	if (n == (ssize_t)sizeof(err)) {
		waitpid(pid, NULL, 0);
		err = -err;
	} else {
		err = 0;
	}
out_pipe:
	if (pfd[0] >= 0)
		close(pfd[0]);
	if (pfd[1] >= 0)
		close(pfd[1]);
out_env:
	env_free(envp);
out_fd:
	if (fd != shm_fd)
		close(fd);
	return err < 0 ? err : pid;
}

/*
 * The program's personality and umask, set in spool's calling thread around
 * the start (a posix_spawn or fork child inherits both: personality is per
 * thread, the umask per process, and spool creates no file meanwhile) and
 * put back after. The personality is read back: a kernel or a seccomp
 * filter (a container's) may refuse ADDR_NO_RANDOMIZE.
 */
struct ident_saved {
	int persona; /* -1: nothing to put back */
	int umask;   /* -1: nothing to put back */
};

static void ident_enter(const struct run_ident *id, struct ident_saved *sv,
			struct session_result *res)
{
	int now;

	sv->persona = sv->umask = -1;
	if (!id)
		return;
	if (id->persona_set) {
		sv->persona = personality(0xffffffff);
		if (personality(id->persona) < 0)
			res->persona_err = errno;
		now = personality(0xffffffff);
		res->persona = now < 0 ? 0 : (unsigned long)(unsigned)now;
		if (!res->persona_err && res->persona != id->persona)
			res->persona_err = EPERM; /* accepted but not applied */
	}
	if (id->umask_set)
		sv->umask = (int)umask((mode_t)id->umask);
}

static void ident_leave(const struct ident_saved *sv)
{
	if (sv->persona >= 0)
		personality((unsigned long)sv->persona);
	if (sv->umask >= 0)
		umask((mode_t)sv->umask);
}

/* Start the program; returns its pid, or a negative errno from exec (sent
 * back through a close-on-exec pipe, so "not found" is known for sure).
 * Under gdb (o->exec) the child runs spool's code after the fork. */
static pid_t spawn(const char *path, char **argv, int shm_fd, const char *agent,
		   const struct session_opts *o)
{
	char *const *env = o->env;

	int pfd[2], err = 0, host_fd = shm_fd;
	char fdstr[16], path_var[128];
	pid_t pid;
	ssize_t n;

	shm_path_var(path_var, sizeof(path_var), host_fd); /* spool's pid: before the fork */
	if (pipe2(pfd, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		err = -errno;
		close(pfd[0]);
		close(pfd[1]);
		return err;
	}
	if (pid == 0) {
		for (size_t i = 0; i < sizeof(session_sigs) / sizeof(session_sigs[0]); i++)
			session_child_sig(session_sigs[i]);
		if (o->ident)
			run_ident_apply_child(o->ident);
		shm_fd = move_fd_high(shm_fd, session_shm_fd(o));
		snprintf(fdstr, sizeof(fdstr), "%d", shm_fd);
		for (char *const *e = env; e && *e; e++)
			if (putenv(*e) < 0)
				err = errno;
		if (err || setenv(SHM_ENV_FD, fdstr, 1) < 0 ||
		    setenv(SHM_ENV_PATH, strchr(path_var, '=') + 1, 1) < 0 ||
		    set_preload(agent) < 0)
			err = errno ? errno : ENOMEM;
		else if (o->exec) {
			if (o->stack_items) {
				/* (the recorded stack, above; a forked child of a
				 * single-threaded spool: malloc is safe) */
				extern char **environ;
				char **padded = session_stack_env(environ, path, argv,
								  o->stack_bytes, o->stack_items);

				if (padded)
					environ = padded;
			}
			session_exec_status_fd = pfd[1];
			err = -o->exec(o->exec_arg, path, argv);
			if (session_exec_status_fd < 0)
				_exit(127); /* (said already, pipe closed) */
		} else {
			execv(path, argv);
			err = errno;
		}
		if (write(pfd[1], &err, sizeof(err)) < 0)
			_exit(127);
		_exit(127);
	}
	close(pfd[1]);
	do
		n = read(pfd[0], &err, sizeof(err));
	while (n < 0 && errno == EINTR);
	close(pfd[0]);
	if (n == (ssize_t)sizeof(err)) {
		waitpid(pid, NULL, 0);
		return -err;
	}
	return pid;
}

static int write_summary(struct trace_writer *w, const struct session_opts *o,
			 const struct session_result *res)
{
	char buf[1024];
	int n;

	n = snprintf(
	    buf, sizeof(buf),
	    "format=spool-summary-1\nprogram=%s\nexit_status=%d\nterm_signal=%d\n"
	    "events=%llu\nlock_events=%llu\nthread_events=%llu\nlost_ring=%llu\nlost_no_ring=%llu\n"
	    "seq_gaps=%llu\ndamaged_rings=%llu\nrejected=%llu\nlost_write=%llu\n"
	    "threads=%u\nprocesses=%u\nring_bytes=%u\nlost_damaged=%llu\nlost_no_proc=%llu\n"
	    "still_running=%llu\nlost_fork=%llu\nlost_clone=%llu\nlost_pidns=%llu\n",
	    o->argv[0], res->exit_status, res->term_signal, (unsigned long long)res->st.events,
	    /* a thread's life is a KIND_LOCK record too, but not a lock's
	     * event: counted apart, as the summary line and the reports do */
	    (unsigned long long)(res->st.lock_events - res->st.thread_events),
	    (unsigned long long)res->st.thread_events, (unsigned long long)res->st.lost_ring,
	    (unsigned long long)res->st.lost_no_ring, (unsigned long long)res->st.seq_gaps,
	    (unsigned long long)res->st.corrupt_rings, (unsigned long long)res->st.rejected,
	    (unsigned long long)res->st.lost_write, res->st.threads, res->st.procs, o->ring_bytes,
	    (unsigned long long)res->st.lost_damaged, (unsigned long long)res->st.lost_no_proc,
	    (unsigned long long)res->st.still_running, (unsigned long long)res->st.lost_fork,
	    (unsigned long long)res->st.lost_clone, (unsigned long long)res->st.lost_pidns);
	return trace_writer_add_file(w, "summary", buf, (size_t)n);
}

/* Add pid to the set (n entries, at most max); no duplicates. */
static size_t pid_add(uint32_t *set, size_t n, size_t max, uint32_t pid)
{
	for (size_t i = 0; i < n; i++)
		if (set[i] == pid)
			return n;
	if (n < max)
		set[n++] = pid;
	return n;
}

/* The children of pid (0: spool itself) from /proc/PID/task/TID/children,
 * added to the set. Nothing where the kernel has no such file. */
static size_t add_children(uint32_t *set, size_t n, size_t max, uint32_t pid)
{
	char path[64], buf[4096];
	struct dirent *e;
	DIR *d;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%u/task", pid);
	else
		snprintf(path, sizeof(path), "/proc/self/task");
	d = opendir(path);
	if (!d)
		return n;
	while ((e = readdir(d))) {
		char *p, *end;
		ssize_t len;
		int fd;

		if (e->d_name[0] == '.')
			continue;
		snprintf(buf, sizeof(buf), "%s/%s/children", path, e->d_name);
		fd = open(buf, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		len = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (len <= 0)
			continue;
		buf[len] = 0;
		for (p = buf;; p = end) {
			unsigned long v = strtoul(p, &end, 10);

			if (end == p)
				break;
			if (v && v <= INT32_MAX)
				n = pid_add(set, n, max, (uint32_t)v);
		}
	}
	closedir(d);
	return n;
}

/* The first n of set (room for SESSION_MAX_DESC) and then spool's
 * descendants, each once (the children of spool and of every process in
 * the set, breadth first: the set grows while it is walked). Returns how
 * many the set holds. */
static size_t session_descendants(uint32_t *set, size_t n)
{
	n = add_children(set, n, SESSION_MAX_DESC, 0);
	for (size_t i = 0; i < n; i++)
		n = add_children(set, n, SESSION_MAX_DESC, set[i]);
	return n;
}

/* A stopped replay: SIGKILL to every descendant of spool (the program's
 * processes, zombies included until reaped). Returns how many. */
static uint32_t session_kill_all(void)
{
	uint32_t *set = calloc(SESSION_MAX_DESC, sizeof(*set));
	size_t n;

	if (!set)
		return 0;
	n = session_descendants(set, 0);
	for (size_t i = 0; i < n; i++)
		kill((pid_t)set[i], SIGKILL);
	free(set);
	return (uint32_t)n;
}

/*
 * The processes still running that the trace loses: every traced process
 * (a live process slot) and every descendant of spool (the program's
 * processes; a child that has not claimed its slot yet is one). The first
 * SESSION_NAMED_PROCS go in names as "comm, pid N; ...". Returns how many.
 */
static uint32_t still_running(struct collector *col, char *names, size_t len)
{
	uint32_t *set = calloc(SESSION_MAX_DESC, sizeof(*set));
	size_t n = 0, o = 0;

	if (len)
		names[0] = 0;
	if (!set)
		return collector_live_procs(col, NULL, 0);
	n = collector_live_procs(col, set, SESSION_MAX_DESC);
	if (n > SESSION_MAX_DESC)
		n = SESSION_MAX_DESC;
	n = session_descendants(set, n);
	for (size_t i = 0; i < n && i < SESSION_NAMED_PROCS && o < len; i++) {
		char comm[32] = "?";

		procinfo_comm((pid_t)set[i], comm, sizeof(comm));
		/* (log_* escapes what the program named itself) */
		o += (size_t)snprintf(names + o, len - o, "%s%s, pid %u", i ? "; " : "", comm,
				      set[i]);
	}
	if (n > SESSION_NAMED_PROCS && o < len)
		snprintf(names + o, len - o, "; ...");
	free(set);
	return (uint32_t)n;
}

/*
 * Snapshot copies (agent_snap.c: a copy of a serial recording's program
 * that writes one snapshot's image, named "spool-snapshot" at its start)
 * still running among spool's descendants. They are spool's work, not the
 * program's: a program killed by a signal runs no exit path that waits for
 * them (agent_snap_exit_wait), and the first 68-signals run in 4 under load
 * found one still writing when its program died of SIGTERM, so the
 * recording was called incomplete and its replay refused. The caller waits
 * for them (SESSION_SNAP_WAIT_NS at most) before counting what is left.
 */
static uint32_t session_snap_copies(void)
{
	uint32_t *set = calloc(SESSION_MAX_DESC, sizeof(*set)), n = 0;
	size_t k;

	if (!set)
		return 0;
	k = session_descendants(set, 0);
	for (size_t i = 0; i < k; i++) {
		char comm[32];

		n += procinfo_comm((pid_t)set[i], comm, sizeof(comm)) == 0 &&
		     !strcmp(comm, "spool-snapshot");
	}
	free(set);
	return n;
}

/* Errors of spool's own setup (the agent, the trace directory, the shared
 * memory) are not the program's: to the caller -ENOENT and -EACCES mean
 * "command not found" and "not executable" (exit 127, 126), so they become
 * -EIO here (the reason has been logged). */
static int setup_err(int rc)
{
	return rc == -ENOENT || rc == -EACCES ? -EIO : rc;
}

int session_run(const struct session_opts *o, struct session_result *res)
{
	/* (SA_RESTART: a ^C meant for the program must not cut spool's own
	 * writes short, as SIG_IGN never did; SIGCHLD is there to interrupt) */
	struct sigaction sa_int = {.sa_handler = on_sigint, .sa_flags = SA_RESTART},
			 sa_ign = {.sa_handler = SIG_IGN},
			 sa_fwd = {.sa_handler = forward_signal, .sa_flags = SA_RESTART},
			 sa_chld = {.sa_handler = on_sigchld};
	struct sigaction old_int, old_quit, old_term, old_hup, old_chld;
	sigset_t own;
	char path[PATH_MAX], check[PATH_MAX], agent[PATH_MAX];
	struct trace_writer *w = NULL;
	struct collector *col = NULL;
	struct shm_host h = {.fd = -1};
	struct ident_saved saved;
	struct trace_clock clk;
	uint64_t last_flush, first_end = 0;
	int rc, status = 0, ws, kind, reaper = 0, announced = 0, sigs_set = 0;
	uint32_t left = 0;
	char names[256];
	pid_t pid;

	memset(res, 0, sizeof(*res));
	if (o->exec_path) {
		/* a relative one is run from o->cwd: checked there */
		int rel = o->exec_path[0] != '/' && o->cwd;

		rc = 0;
		if (snprintf(path, sizeof(path), "%s", o->exec_path) >= (int)sizeof(path) ||
		    snprintf(check, sizeof(check), "%s%s%s", rel ? o->cwd : "", rel ? "/" : "",
			     o->exec_path) >= (int)sizeof(check))
			rc = -ENAMETOOLONG;
		else if (access(check, X_OK) < 0)
			rc = -errno;
		if (rc == -ENOENT || rc == -ENOTDIR || rc == -ENAMETOOLONG) {
			log_err("%s: no such file", path);
			return -ENOENT;
		}
	} else {
		rc = target_resolve(o->argv[0], path, sizeof(path));
		snprintf(check, sizeof(check), "%s", path);
	}
	if (rc < 0) {
		log_err("%s: %s", o->argv[0], rc == -EACCES ? "not executable" : "command not found");
		return rc == -EACCES ? -EACCES : -ENOENT;
	}
	kind = target_classify(check);
	if (kind == TARGET_STATIC) {
		log_err("%s is statically linked: spool interposes the lock functions through the "
			"dynamic linker (LD_PRELOAD), which a static program never runs; "
			"link it dynamically to trace it",
			path);
		return -ENOEXEC;
	}
	if (kind == TARGET_FOREIGN) {
		log_err("%s is a program for another machine than this spool's (%s): its "
			"loader cannot load this agent. Use spool's build for that machine "
			"(make ARCH=aarch64, doc/arm64.md); this one can still read its traces",
			path, ARCH_NAME);
		return -ENOEXEC;
	}
	if (kind == TARGET_SETID) {
		log_err("%s is setuid/setgid: the dynamic linker ignores LD_PRELOAD for it, so "
			"spool refuses to run it",
			path);
		return -ENOEXEC;
	}
	rc = session_find_agent(agent, sizeof(agent));
	if (rc < 0) {
		log_err("cannot find libspool-agent.so next to spool or in ../lib/spool "
			"(set SPOOL_AGENT to its path)");
		return setup_err(rc);
	}
	rc = session_prepare_trace_dir(o->trace_dir, o->quiet);
	if (rc < 0)
		return setup_err(rc);
	rc = trace_clock_calibrate(&clk, 200);
	if (rc < 0) {
		log_err("cannot calibrate the TSC: %s", strerror(-rc));
		return setup_err(rc);
	}
	rc = shm_host_create_ext(&h, o->ring_bytes, o->max_rings, o->max_procs, o->stack_depth,
				 o->ext_bytes);
	if (rc < 0) {
		log_err("cannot create the shared memory (%u rings of %u bytes): %s%s",
			o->max_rings, o->ring_bytes, strerror(-rc),
			rc == -EFBIG ? " (its size is limited by ulimit -f; a smaller --max-procs, "
				       "--max-threads or --ring-size needs less)"
				     : "");
		return setup_err(rc);
	}
	rc = trace_writer_create(&w, o->trace_dir, &clk, o->quiet);
	if (rc < 0) {
		log_err("cannot create trace %s: %s", o->trace_dir, strerror(-rc));
		rc = setup_err(rc);
		goto out_shm;
	}
	/* before any event: the metadata says from the start that the trace
	 * has no per-event time (a reader of a crashed run sees it too) */
	if ((o->shm_flags & SHM_F_UNTIMED) && (rc = trace_writer_set_untimed(w)) < 0) {
		log_err("cannot write the metadata of trace %s: %s", o->trace_dir, strerror(-rc));
		rc = setup_err(rc);
		goto out_writer;
	}
	rc = collector_new(&col, &h, w);
	if (rc < 0) {
		rc = setup_err(rc);
		goto out_writer;
	}
	if (o->compress && collector_compress(col, o->compress) < 0)
		log_warn("cannot start zstd: the input data is kept uncompressed");
	if (o->features)
		h.ctl->features = o->features;
	h.ctl->flags |= o->shm_flags;
	collector_use_packets(col, o->features);
	if (o->prepare) {
		rc = o->prepare(o->hook_arg, &h, w);
		if (rc < 0) {
			rc = setup_err(rc);
			goto out_collector;
		}
	}

	pending_signal = 0;
	first_exited = 0;
	stop_now = 0;
	stop_after = 0;
	stopped_by = 0;
	stop_kills = o->stop_kills;
	/* orphans of the program become spool's children (see the top) */
	if (prctl(PR_GET_CHILD_SUBREAPER, &reaper) < 0)
		reaper = 1; /* unknown: leave it as it is */
	if (!reaper && prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
		log_debug("not a child subreaper: %s", strerror(errno));
	sigaction(SIGINT, &sa_int, &old_int);
	sigaction(SIGQUIT, &sa_ign, &old_quit);
	sigaction(SIGTERM, &sa_fwd, &old_term);
	sigaction(SIGHUP, &sa_fwd, &old_hup);
	sigaction(SIGCHLD, &sa_chld, &old_chld);
	sigs_set = 1;
	/* A signal ignored when spool began stays ignored, by spool too (a
	 * nohup'd spool does not end its trace at a SIGHUP) and by the
	 * program (session_entry_ign); SIGCHLD is spool's own to wait with,
	 * the program alone gets it ignored. */
	sigemptyset(&session_entry_ign);
	if (old_int.sa_handler == SIG_IGN)
		sigaddset(&session_entry_ign, SIGINT);
	if (old_quit.sa_handler == SIG_IGN)
		sigaddset(&session_entry_ign, SIGQUIT);
	if (old_term.sa_handler == SIG_IGN)
		sigaddset(&session_entry_ign, SIGTERM);
	if (old_hup.sa_handler == SIG_IGN)
		sigaddset(&session_entry_ign, SIGHUP);
	if (old_chld.sa_handler == SIG_IGN)
		sigaddset(&session_entry_ign, SIGCHLD);
	for (size_t i = 0; i < sizeof(session_sigs) / sizeof(session_sigs[0]); i++)
		if (session_sigs[i] != SIGCHLD && sigismember(&session_entry_ign, session_sigs[i]))
			sigaction(session_sigs[i], &sa_ign, NULL);

	/* (the child sets those itself: session_child_sig) */
	sigemptyset(&own);
	for (size_t i = 0; i < sizeof(session_sigs) / sizeof(session_sigs[0]); i++)
		sigaddset(&own, session_sigs[i]);

	snprintf(res->path, sizeof(res->path), "%s", path);
	ident_enter(o->ident, &saved, res);
	if (o->exec)
		pid = spawn(path, o->argv, h.fd, agent, o);
	else if (o->ident && (run_ident_limits_differ(o->ident) ||
			      run_ident_sigs_differ(o->ident, &own, &session_entry_ign)))
		pid = spawn_fork(path, o->argv, h.fd, agent, o, res);
	else
		pid = spawn_posix(path, o->argv, h.fd, agent, o, res);
	ident_leave(&saved);
	if (pid < 0) {
		rc = (int)pid;
		log_err("cannot run %s: %s", path, strerror(-rc));
		goto out_signals;
	}
	child_pid = pid;
	__atomic_store_n(&h.child_pid, (int)pid, __ATOMIC_RELEASE);
	if (pending_signal)
		kill(pid, pending_signal);
	res->ran = 1;
	/* The sending thread starts only now: a fork child of a process
	 * with a second thread (spawn_fork) could find a lock of it held. */
	stream_send_begin(trace_writer_dir(w), o->trace_dir);
	/* The collector must keep up with bursts of several threads on few
	 * cores: when a producer crosses the watermark and wakes it, it should
	 * run now, not after the producers' time slices. Raising our priority
	 * (root only; the program keeps its own, set before the fork) makes the
	 * scheduler preempt a producer for it. Failure is fine: rings still
	 * absorb bursts, and losses are counted. */
	if (setpriority(PRIO_PROCESS, 0, -10) < 0)
		log_debug("collector priority unchanged: %s", strerror(errno));
	last_flush = mono_ns();
	for (;;) {
		int none_left = 0;
		pid_t r;

		shm_host_wait(&h, 50);
		if (stopped_by) {
			/* (again each round: a child forked meanwhile) */
			uint32_t k = session_kill_all();

			if (k > res->killed)
				res->killed = k;
			res->stopped_by = stopped_by;
		}
		rc = collector_drain(col);
		if (rc < 0)
			log_err("collecting: %s", strerror(-rc));
		collector_keep_maps(col);
		if (mono_ns() - last_flush > 1000000000ull) {
			collector_flush(col);
			collector_sync_procs(col);
			last_flush = mono_ns();
		}
		/* the first process, and orphans of the program (reaped
		 * here: spool is their parent now). __WALL: a snapshot's copy
		 * (agent_snap.c) has no exit signal, and spool waits for it
		 * too (it may still be writing its image). */
		while ((r = waitpid(-1, &ws, WNOHANG | __WALL)) > 0) {
			if (r != pid)
				continue;
			status = ws;
			child_pid = 0;
			first_exited = 1;
			first_end = mono_ns();
		}
		if (r < 0 && errno == ECHILD)
			none_left = 1;
		else if (r < 0 && errno != EINTR) {
			log_err("waitpid: %s", strerror(errno));
			break;
		}
		if (!first_exited) {
			if (none_left)
				break; /* (cannot be: it is our child until reaped) */
			continue;
		}
		if (none_left && !collector_live_procs(col, NULL, 0))
			break; /* every process of the program has exited */
		if (o->until_first_exit || stop_now) {
			if (mono_ns() - first_end < SESSION_SNAP_WAIT_NS && session_snap_copies())
				continue; /* (reaped by the waitpid above) */
			break;
		}
		if (stop_after) {
			if (mono_ns() - first_end > SESSION_STOP_GRACE_NS)
				break;
			continue;
		}
		if (!announced) {
			uint32_t n = still_running(col, names, sizeof(names));

			announced = 1;
			if (n)
				log_info(
				    "pid %d exited; still tracing %u process%s (%s): Ctrl-C or "
				    "SIGTERM to spool ends the trace",
				    (int)pid, n, n == 1 ? "" : "es", names);
		}
	}
	child_pid = 0;
	if (stopped_by && !res->stopped_by) {
		/* (came after the loop's last look) */
		res->killed = session_kill_all();
		res->stopped_by = stopped_by;
	}
	if (first_exited) {
		left = still_running(col, names, sizeof(names));
		if (left) {
			log_warn("the trace ends with %u process%s still running (%s), left to run "
				 "untraced: the trace is incomplete",
				 left, left == 1 ? "" : "es", names);
			collector_still_running(col, left);
		}
	}
	if (WIFEXITED(status)) {
		res->exit_status = WEXITSTATUS(status);
	} else if (WIFSIGNALED(status)) {
		res->term_signal = WTERMSIG(status);
		res->core_dumped = WCOREDUMP(status);
		res->exit_status = 128 + res->term_signal;
	}
	/* From here on the program has run: problems finishing the trace are
	 * reported, but the caller still gets the program's status. */
	rc = collector_finish(col, &res->st);
	if (rc < 0)
		log_err("finishing the trace: %s", strerror(-rc));
	if (o->finish) {
		rc = o->finish(o->hook_arg, &h, w);
		if (rc < 0)
			log_err("finishing the trace: %s", strerror(-rc));
	}
	rc = 0;

	/* The frequency measured over the whole run (clock.c says why 2 ms
	 * is enough): a run of seconds gives it to a few ppm. */
	if (trace_clock_refine(&clk, 2000) == 0)
		trace_writer_set_clock(w, &clk);
	if (__atomic_load_n(&h.ctl->state, __ATOMIC_ACQUIRE) & SHM_STATE_FD_GONE)
		log_warn("the program closed spool's descriptor (%s) or put another file at its "
			 "number: threads it started after that were not traced (their events are "
			 "counted as lost)",
			 SHM_ENV_FD);
	if (__atomic_load_n(&h.ctl->state, __ATOMIC_ACQUIRE) & SHM_STATE_NOMAP)
		log_warn("the program's address space was full: some threads got no ring (their "
			 "events are counted as lost; try a smaller --ring-size)");
	if (__atomic_load_n(&h.ctl->state, __ATOMIC_ACQUIRE) & SHM_STATE_DISABLED) {
		char why[sizeof(h.ctl->reason)];

		/* A copy, shown as text only: the program can write it. */
		memcpy(why, h.ctl->reason, sizeof(why));
		why[sizeof(why) - 1] = 0;
		for (char *q = why; *q; q++)
			if ((unsigned char)*q < 0x20 || (unsigned char)*q == 0x7f)
				*q = '?';
		log_warn("the agent stopped recording: %s", why);
	}
	if (res->st.lost_no_proc)
		log_warn("%llu processes found no process slot: more than %u were alive at once "
			 "(--max-procs, at most %u, raises the limit)",
			 (unsigned long long)res->st.lost_no_proc, h.max_procs, SHM_MAX_PROCS);
	write_summary(w, o, res);
	/* the numbers the state file gets at close, side files included */
	trace_writer_loss(w, &res->loss);
out_signals:
	if (!reaper)
		prctl(PR_SET_CHILD_SUBREAPER, 0);
out_collector:
	collector_free(col);
out_writer:
	/* (the writer renames the directory: the last pass is stream_send_finish's) */
	stream_send_pause();
	{
		int rc2 = trace_writer_close(w);

		if (rc2 < 0) {
			log_err("writing trace %s: %s", o->trace_dir, strerror(-rc2));
			res->trace_error = rc2;
			/* (-EIO: the state file could not say finished) */
			if (rc2 == -EIO && res->ran)
				res->loss.state = TRACE_STATE_UNFINISHED;
		}
	}
	/* Only now: a second SIGTERM or ^C (timeout sends one to spool and
	 * one to its process group) must not kill spool before the trace
	 * says it is finished. */
	if (sigs_set) {
		first_exited = 0;
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGQUIT, &old_quit, NULL);
		sigaction(SIGTERM, &old_term, NULL);
		sigaction(SIGHUP, &old_hup, NULL);
		sigaction(SIGCHLD, &old_chld, NULL);
	}
out_shm:
	shm_host_destroy(&h);
	return rc < 0 ? rc : 0;
}
