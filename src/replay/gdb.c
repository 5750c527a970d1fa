// SPDX-License-Identifier: MIT
/*
 * gdb.c - `spool replay --gdb`: gdb in place of the program in the replay
 * session's child. The session has set the program's environment in the
 * child (SPOOL_SHM_FD, LD_PRELOAD with the agent, the feature's variables);
 * gdb must not run with the agent preloaded (it would take the recording's
 * first process slot and its threads would be numbered), so LD_PRELOAD is
 * taken out of gdb's environment and given to the inferior only, with
 * `set environment`. The shared-memory descriptor is inherited by gdb
 * (which leaves descriptors it did not open alone) and by the inferior.
 * `startup-with-shell off` keeps the shell out as well: no shell between
 * gdb and the program means no process but the program loads the agent, and
 * the recorded arguments reach it verbatim.
 *
 * The program's environment is the recorded one, as in every replay, but
 * gdb itself keeps spool's: a recording (maybe someone else's) must not
 * choose gdb's HOME (its .gdbinit), PYTHONHOME or PATH, and gdb's terminal
 * adds LINES and COLUMNS to its own. So the environment a replay would
 * give (session.c spawn_env's order) and the recorded directory go to
 * spool-gdb.py in a memfd of NUL-ended strings (SPOOL_GDB_ENV_FD), which
 * makes them the inferior's (`unset environment`, `set environment`, `set
 * cwd`) and closes it before anything runs.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <wordexp.h>

#include "../collect/session.h"
#include "../util/files.h"
#include "../util/log.h"
#include "../util/pdeath.h"
#include "gdb.h"

int replay_gdb_find_script(char *path, size_t len)
{
	return files_find_shipped("SPOOL_GDB_SCRIPT", "spool-gdb.py", "../share/spool", path, len);
}

int replay_gdb_init(struct replay_gdb *g, const char *gdb_args, const char *trace)
{
	const char *env = getenv("SPOOL_GDB");
	wordexp_t *we;
	char *copy;
	int rc;

	memset(g, 0, sizeof(*g));
	g->gdb = env && *env ? env : "gdb";
	g->trace = trace;
	if (replay_gdb_find_script(g->script, sizeof(g->script)) < 0) {
		g->script[0] = 0;
		log_warn("cannot find spool-gdb.py next to spool or in ../share/spool (set "
			 "SPOOL_GDB_SCRIPT to its path): gdb runs without spool's commands");
	}
	if (!gdb_args || !*gdb_args)
		return 0;
	we = calloc(1, sizeof(*we));
	copy = strdup(gdb_args);
	if (!we || !copy) {
		free(we);
		free(copy);
		return -ENOMEM;
	}
	/* Shell-like splitting of --gdb-args ('-ex "break f"'), without
	 * command substitution; line breaks separate words as blanks do
	 * (wordexp refuses them). */
	for (char *p = copy; *p; p++)
		if (*p == '\n')
			*p = ' ';
	rc = wordexp(copy, we, WRDE_NOCMD);
	free(copy);
	if (rc) {
		log_err("--gdb-args '%s': %s", gdb_args,
			rc == WRDE_BADCHAR  ? "unquoted special character (| & ; < > ( ) { })"
			: rc == WRDE_CMDSUB ? "command substitution is not allowed"
			: rc == WRDE_SYNTAX ? "unbalanced quotes"
					    : "cannot split it into arguments");
		if (rc == WRDE_NOSPACE)
			wordfree(we);
		free(we);
		return -EINVAL;
	}
	g->wordexp_state = we;
	g->args = we->we_wordv;
	g->nargs = we->we_wordc;
	return 0;
}

void replay_gdb_free(struct replay_gdb *g)
{
	if (g->wordexp_state) {
		wordfree(g->wordexp_state);
		free(g->wordexp_state);
	}
	g->wordexp_state = NULL;
	g->args = NULL;
	g->nargs = 0;
}

static int gdb_write_all(int fd, const void *buf, size_t len);

/* Is e's name n's (both NAME=VALUE, or n a bare name of length len)? */
static int gdb_env_same(const char *e, const char *n, size_t len)
{
	return !strncmp(e, n, len) && e[len] == '=';
}

/* Does the replay set e's variable itself (--env, the shared memory, the
 * agent)? */
static int gdb_env_replaced(const struct replay_gdb *g, const char *e)
{
	static const char *const own[] = {SHM_ENV_FD, SHM_ENV_PATH, "LD_PRELOAD"};
	size_t len = strcspn(e, "=");

	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		if (strlen(own[i]) == len && gdb_env_same(e, own[i], len))
			return 1;
	for (char *const *x = g->extra; x && *x; x++)
		if (gdb_env_same(*x, e, len))
			return 1;
	return 0;
}

static int gdb_env_put(int fd, const char *s)
{
	return gdb_write_all(fd, s, strlen(s) + 1);
}

/* The memfd for spool-gdb.py (the header): the directory ("" for gdb's),
 * then the environment, padded for the recorded stack of PATH ARGV
 * (session_stack_env). Returns its descriptor (inherited by gdb) or
 * -errno. */
static int gdb_env_fd(const struct replay_gdb *g, const char *path, char *const *argv)
{
	static const char *const own[] = {SHM_ENV_PATH, SHM_ENV_FD, "LD_PRELOAD"};
	char **list, **padded = NULL;
	size_t n = 0, k = 0;
	int fd = -1, rc;

	for (char *const *e = g->env; *e; e++)
		n++;
	for (char *const *x = g->extra; x && *x; x++)
		n++;
	list = calloc(n + 4, sizeof(*list));
	if (!list)
		return -ENOMEM;
	for (char *const *e = g->env; *e; e++) {
		int nlen = (int)strcspn(*e, "=");
		const char *v = *e + nlen + 1;
		size_t vlen = strlen(v);

		if (gdb_env_replaced(g, *e))
			continue;
		/* A line break would end gdb's command there and run the rest
		 * as another (a trace must not give gdb commands). */
		if (strpbrk(v, "\n\r")) {
			log_warn("under gdb the program does not get %.*s: its recorded value "
				 "holds a line break, which gdb's `set environment` cannot take",
				 nlen, *e);
			continue;
		}
		/* gdb drops the blanks a command's value starts and ends with */
		if (vlen && (strchr(" \t", v[0]) || strchr(" \t", v[vlen - 1])))
			log_warn("under gdb the program gets %.*s without the blanks its recorded "
				 "value starts or ends with",
				 nlen, *e);
		if (!(list[k++] = strdup(*e)))
			goto out_nomem;
	}
	for (char *const *x = g->extra; x && *x; x++)
		if (!(list[k++] = strdup(*x)))
			goto out_nomem;
	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++) {
		const char *v = getenv(own[i]);

		if (v && asprintf(&list[k++], "%s=%s", own[i], v) < 0) {
			list[--k] = NULL;
			goto out_nomem;
		}
	}
	if (g->stack_items &&
	    !(padded = session_stack_env(list, path, argv, g->stack_bytes, g->stack_items)))
		goto out_nomem;
	fd = (int)syscall(SYS_memfd_create, "spool-gdb-env", 0);
	if (fd < 0) {
		rc = -errno;
		goto out;
	}
	rc = gdb_env_put(fd, g->cwd ? g->cwd : "");
	for (char **e = padded ? padded : list; !rc && *e; e++)
		rc = gdb_env_put(fd, *e);
	if (rc) {
		close(fd);
		fd = rc;
	}
	goto out;
out_nomem:
	fd = -ENOMEM;
out:
	for (size_t i = 0; list[i]; i++)
		free(list[i]);
	free(list);
	for (size_t i = 0; padded && padded[i]; i++)
		free(padded[i]);
	free(padded);
	return fd;
}

/* In the session's forked child: only this process runs from here on, and it
 * execs or reports why it could not. */
int replay_gdb_exec(void *arg, const char *path, char **argv)
{
	struct replay_gdb *g = arg;
	const char *preload = getenv("LD_PRELOAD");
	char *envcmd = NULL, *tracecmd = NULL, **gargv;
	size_t n = 0, argc = 0;
	int err;

	while (argv[argc])
		argc++;
	/* Without a shell gdb splits the arguments at blanks and passes no
	 * empty one (gdb 13's execv_argv): such a recorded argument reaches
	 * the program as another (sqlite3 DB ".read q.sql" became ".read\\"
	 * and "q.sql"), and the replay diverges where the program uses it. */
	for (size_t i = 1; i < argc; i++)
		if (!argv[i][0] || strpbrk(argv[i], " \t\n")) {
			log_warn("under --gdb the program's argument %zu (%s) reaches it split or "
				 "lost: gdb runs it without a shell, which cannot pass an argument "
				 "that is empty or holds a blank; the replay may diverge "
				 "(spool replay --gdbserver passes it whole)",
				 i, argv[i][0] ? "it holds a blank" : "empty");
			break;
		}
	gargv = calloc(24 + g->nargs + argc, sizeof(*gargv));
	if (!gargv || !preload || asprintf(&envcmd, "set environment LD_PRELOAD=%s", preload) < 0)
		return -ENOMEM;
	/* The extension learns which recording this gdb replays; the inferior
	 * does not need to. */
	if (g->trace && (setenv("SPOOL_GDB_TRACE", g->trace, 1) < 0 ||
			 asprintf(&tracecmd, "unset environment SPOOL_GDB_TRACE") < 0))
		return -ENOMEM;
	/* the recorded environment, through the extension (without it, the
	 * program gets gdb's: spool warned that it is missing) */
	if (g->env && g->script[0]) {
		char num[16];
		int efd = gdb_env_fd(g, path, argv);

		if (efd < 0)
			return efd;
		snprintf(num, sizeof(num), "%d", efd);
		if (setenv("SPOOL_GDB_ENV_FD", num, 1) < 0)
			return -ENOMEM;
	}
	unsetenv("LD_PRELOAD");
	gargv[n++] = (char *)g->gdb;
	gargv[n++] = "-q";
	gargv[n++] = "-iex";
	gargv[n++] = "set startup-with-shell off";
	gargv[n++] = "-iex";
	gargv[n++] = envcmd;
	/* The agent records the program's own syscall instructions through
	 * syscall user dispatch, which raises SIGSYS: gdb must not stop there. */
	gargv[n++] = "-iex";
	gargv[n++] = "handle SIGSYS nostop noprint pass";
	/* --pid of a tree: the replay forks (spawns, execs) only the
	 * processes on the way to the one replayed alone, so following every
	 * child lands gdb on that one; the ancestors it leaves run on by
	 * themselves (they wait for it and end as it ends). */
	if (g->follow_child) {
		gargv[n++] = "-iex";
		gargv[n++] = "set follow-fork-mode child";
		gargv[n++] = "-iex";
		gargv[n++] = "set detach-on-fork on";
		gargv[n++] = "-iex";
		gargv[n++] = "set follow-exec-mode same";
	}
	if (tracecmd) {
		gargv[n++] = "-iex";
		gargv[n++] = tracecmd;
	}
	if (g->script[0]) {
		gargv[n++] = "-x";
		gargv[n++] = g->script;
	}
	for (size_t i = 0; i < g->nargs; i++)
		gargv[n++] = g->args[i];
	gargv[n++] = "--args";
	gargv[n++] = (char *)path;
	for (size_t i = 1; i < argc; i++)
		gargv[n++] = argv[i];
	gargv[n] = NULL;
	/* spool replay --gdb killed: gdb quits too (SIGTERM: gdb kills its
	 * inferior, which would end itself anyway once it finds spool gone) */
	pdeath_arm(getppid(), SIGTERM);
	execvp(g->gdb, gargv);
	err = errno;
	log_err("cannot run %s: %s (install gdb, or set SPOOL_GDB to the debugger)", g->gdb,
		strerror(err));
	free(envcmd);
	free(tracecmd);
	free(gargv);
	return -err;
}

/* What the session's child sends gdb's process: the program to exec and its
 * environment, NUL-separated, after this header. */
struct gdb_handoff {
	uint32_t pid;	   /* the session's child, whose shm descriptor is reopened */
	uint32_t shm_fd;
	uint32_t argc, envc;
	uint64_t bytes; /* of the strings that follow */
};

static struct {
	int fd;	  /* write end of the hand-off pipe */
	pid_t gdb_inferior; /* the process that becomes the program */
} gdb_wrap = {.fd = -1};

static int gdb_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int gdb_read_all(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t n = read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -EPIPE;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The session's exec hook under --gdb-wrapper, in the session's child:
 * send the program and its environment to gdb's process, then stand in for
 * the program until it exits (the session ends when this process does). */
static int gdb_wrapper_handoff(void *arg, const char *path, char **argv)
{
	struct gdb_handoff hd = {.pid = (uint32_t)getpid()};
	const char *fdstr = getenv(SHM_ENV_FD);
	struct pollfd pfd;
	char *buf, *p;
	int pidfd;

	hd.shm_fd = fdstr ? (uint32_t)atoi(fdstr) : 0;
	hd.bytes = strlen(path) + 1;
	for (hd.argc = 1; argv[hd.argc]; hd.argc++)
		hd.bytes += strlen(argv[hd.argc]) + 1;
	for (hd.envc = 0; environ[hd.envc]; hd.envc++)
		hd.bytes += strlen(environ[hd.envc]) + 1;
	buf = malloc(hd.bytes);
	if (!buf)
		return -ENOMEM;
	p = stpcpy(buf, path) + 1;
	for (uint32_t i = 1; i < hd.argc; i++)
		p = stpcpy(p, argv[i]) + 1;
	for (uint32_t i = 0; i < hd.envc; i++)
		p = stpcpy(p, environ[i]) + 1;
	/* Watch the program before handing over, so its exit cannot be missed. */
	pidfd = (int)syscall(SYS_pidfd_open, gdb_wrap.gdb_inferior, 0);
	if (pidfd < 0 || gdb_write_all(gdb_wrap.fd, &hd, sizeof(hd)) < 0 ||
	    gdb_write_all(gdb_wrap.fd, buf, hd.bytes) < 0) {
		free(buf);
		return pidfd < 0 ? -errno : -EPIPE;
	}
	free(buf);
	close(gdb_wrap.fd);
	/* The program is on its way (gdb's process execs it): spool's session
	 * goes on to drain its rings and to watch the replay, which stops a
	 * diverged replay. Before, it waited here for the program's end: a
	 * replay that diverged under --gdbserver stayed parked, gdb's continue
	 * never returned and nothing was said (node, tests/real/116). */
	if (session_exec_status_fd >= 0) {
		close(session_exec_status_fd);
		session_exec_status_fd = -1;
	}
	pfd.fd = pidfd;
	pfd.events = POLLIN;
	while (poll(&pfd, 1, -1) < 0 && errno == EINTR)
		;
	/* The program's status belongs to gdb, its parent: the session
	 * records 0. */
	_exit(0);
}

/* In gdb's process: receive the program, reopen the shared memory and exec. */
static int gdb_wrapper_become(int fd)
{
	struct gdb_handoff hd;
	char *buf = NULL, **argv = NULL, **envp = NULL, *p, proc[64], *fdvar = NULL;
	int shm = -1, rc;

	rc = gdb_read_all(fd, &hd, sizeof(hd));
	if (rc < 0 || hd.bytes > (1u << 30) || !hd.argc)
		goto out_fail;
	buf = malloc(hd.bytes);
	argv = calloc(hd.argc + 1, sizeof(*argv));
	envp = calloc(hd.envc + 1, sizeof(*envp));
	rc = -ENOMEM;
	if (!buf || !argv || !envp)
		goto out;
	rc = gdb_read_all(fd, buf, hd.bytes);
	if (rc < 0 || buf[hd.bytes - 1])
		goto out_fail;
	p = buf;
	for (uint32_t i = 0; i < hd.argc; i++, p += strlen(p) + 1)
		argv[i] = p;
	snprintf(proc, sizeof(proc), "/proc/%u/fd/%u", hd.pid, hd.shm_fd);
	shm = open(proc, O_RDWR);
	if (shm < 0) {
		rc = -errno;
		log_err("cannot open the session's shared memory (%s): %s", proc, strerror(-rc));
		goto out;
	}
	/* At the number the session gave it (1000 or so: session_shm_fd), as
	 * in every other replay and in the recording, not the lowest free
	 * one: there it took the program's first descriptor, every later one
	 * came one higher than recorded, and the replay diverged at the
	 * first (node under --gdbserver: "write(fd 5)" recorded, "write(fd 6)"
	 * replayed). */
	if (hd.shm_fd > (uint32_t)shm && hd.shm_fd < INT_MAX) {
		int hi = fcntl(shm, F_DUPFD, (int)hd.shm_fd);

		if (hi >= 0) {
			close(shm);
			shm = hi;
		}
	}
	if (asprintf(&fdvar, "%s=%d", SHM_ENV_FD, shm) < 0) {
		rc = -ENOMEM;
		goto out;
	}
	for (uint32_t i = 0, k = 0; i < hd.envc; i++, p += strlen(p) + 1) {
		if (!strncmp(p, SHM_ENV_FD "=", strlen(SHM_ENV_FD) + 1))
			envp[k++] = fdvar;
		else if (strncmp(p, "SPOOL_GDB_DONE=", 15))
			envp[k++] = p;
	}
	close(fd);
	execve(argv[0], argv, envp);
	rc = -errno;
	log_err("cannot run %s: %s", argv[0], strerror(-rc));
	goto out;
out_fail:
	log_err("the recording session did not start the program");
	rc = -EPIPE;
out:
	if (shm >= 0)
		close(shm);
	free(fdvar);
	free(envp);
	free(argv);
	free(buf);
	return rc;
}

int replay_gdb_wrapper_start(struct session_opts *so)
{
	const char *done = getenv("SPOOL_GDB_DONE");
	int hand[2], status, rc;
	pid_t self = getpid(), d, d2;

	/* Not the program's: out before the session sizes its stack (the
	 * string stays where it is) */
	unsetenv("SPOOL_GDB_DONE");

	if (pipe2(hand, O_CLOEXEC) < 0)
		return -errno;
	fflush(NULL);
	d = fork();
	if (d < 0) {
		rc = -errno;
		close(hand[0]);
		close(hand[1]);
		return rc;
	}
	if (d == 0) {
		/* Detach from gdb's process twice over: not its child (the
		 * program could reap us) and not in its session (the
		 * terminal's ^C is for the program). */
		d2 = fork();
		if (d2 != 0)
			_exit(d2 < 0);
		setsid();
		close(hand[0]);
		if (done && *done) {
			int lk = open(done, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

			if (lk >= 0)
				flock(lk, LOCK_EX); /* held until this process exits */
		}
		gdb_wrap.fd = hand[1];
		gdb_wrap.gdb_inferior = self;
		so->exec = gdb_wrapper_handoff;
		so->exec_arg = NULL;
		return 0;
	}
	close(hand[1]);
	while (waitpid(d, &status, 0) < 0 && errno == EINTR)
		;
	rc = gdb_wrapper_become(hand[0]);
	close(hand[0]);
	return rc;
}
