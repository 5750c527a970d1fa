// SPDX-License-Identifier: MIT
/*
 * gdbsrv_janitor.c - what is left of a `spool replay --gdbserver` session
 * after spool itself ended, however it ended (gdb gone, SIGTERM, SIGHUP,
 * SIGKILL, a crash), is cleaned up by a small process forked at the start.
 *
 * spool's own processes need no help: every replay and checkpoint copy is
 * traced with PTRACE_O_EXITKILL (gdbsrv_inf.c; the copies inherit it), so
 * the kernel kills them with SIGKILL when spool, their tracer, exits. But
 * each fresh replay has a background session (`spool replay --gdb-wrapper`,
 * in a session of its own, gdb.c) that ends only once its program has, and
 * then writes its replay trace into spool's private directory: the
 * directory must be removed after the sessions, which spool, dead, cannot
 * do. The janitor waits for spool's end on a pipe (end of file when the
 * last copy of the write end closes: spool's exit of any kind; more
 * reliable than PR_SET_PDEATHSIG, which fires on the death of the parent
 * *thread*), then waits for each session's lock (done.N.lock, held by the
 * session until it has finished), kills a session still holding it after
 * JANITOR_WAIT_MS (its process group: the session and its child), and
 * removes the directory. After a normal exit spool has removed it already
 * and the janitor ends at once.
 *
 * The janitor holds nothing of gdb's (every other descriptor is closed, so
 * gdb sees spool's pipe end when spool exits) and ignores the signals a
 * terminal or a timeout sends to a whole group: it ends by itself.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "gdbsrv_int.h"

#define JANITOR_WAIT_MS 20000

static int janitor_rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

static void janitor_sleep_ms(long ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* The process holding the flock on inode ino (from /proc/locks), or 0. */
static pid_t janitor_lock_holder(ino_t ino)
{
	char line[256];
	pid_t pid = 0;
	FILE *f = fopen("/proc/locks", "re");

	if (!f)
		return 0;
	while (!pid && fgets(line, sizeof(line), f)) {
		unsigned long long i;
		int p;

		if (!strstr(line, "FLOCK") || !strstr(line, "WRITE"))
			continue;
		if (sscanf(line, "%*[^W]WRITE %d %*x:%*x:%llu", &p, &i) == 2 && i == (unsigned long long)ino)
			pid = p;
	}
	fclose(f);
	return pid;
}

/* Every session lock in dir taken (its session finished), or its session
 * killed once the wait is over. */
static void janitor_wait_sessions(const char *dir)
{
	int waited = 0;

	for (;;) {
		DIR *d = opendir(dir);
		struct dirent *e;
		int busy = 0;

		if (!d)
			return;
		while ((e = readdir(d))) {
			struct stat sb;
			int fd;

			if (strncmp(e->d_name, "done.", 5))
				continue;
			fd = openat(dirfd(d), e->d_name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
			if (fd < 0)
				continue;
			if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
				busy = 1;
				if (waited >= JANITOR_WAIT_MS && fstat(fd, &sb) == 0) {
					pid_t h = janitor_lock_holder(sb.st_ino);

					/* the session is a process group leader
					 * (setsid in gdb.c): it and its child */
					if (h > 1) {
						kill(-h, SIGKILL);
						kill(h, SIGKILL);
					}
				}
			}
			close(fd);
		}
		closedir(d);
		if (!busy || waited >= JANITOR_WAIT_MS + 2000)
			return;
		janitor_sleep_ms(20);
		waited += 20;
	}
}

static void janitor_run(int rd, const char *dir)
{
	sigset_t none;
	char c;
	int nul;

	/* group signals (a terminal's, a timeout's) are not for it */
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGCHLD, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	prctl(PR_SET_NAME, "spool-janitor");
	/* nothing of gdb's pipe or socket, nothing of the replay's */
	nul = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (nul >= 0) {
		dup2(nul, 0);
		dup2(nul, 1);
		dup2(nul, 2);
	}
	if (rd != 3) {
		dup2(rd, 3);
		rd = 3;
	}
	syscall(SYS_close_range, 4u, ~0u, 0u);
	for (;;) {
		ssize_t n = read(rd, &c, 1);

		if (n == 0 || (n < 0 && errno != EINTR))
			break;
	}
	janitor_wait_sessions(dir);
	nftw(dir, janitor_rm_one, 16, FTW_DEPTH | FTW_PHYS);
	_exit(0);
}

int gdbsrv_janitor_start(const char *dir)
{
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		int e = -errno;

		close(p[0]);
		close(p[1]);
		return e;
	}
	if (pid == 0) {
		close(p[1]);
		janitor_run(p[0], dir);
	}
	close(p[0]);
	/* the write end stays open in spool (close-on-exec: the replays
	 * spool starts do not keep it) until spool's end */
	return 0;
}
