// SPDX-License-Identifier: MIT
/*
 * closeexec.c - closes every descriptor above 2, as daemons do before they
 * exec, then execs a program (tests/integ/104-exec-after-close.t): spool
 * must still trace the program it execs, or say that it cannot.
 *
 *   closeexec HOW PROGRAM [ARGS...]
 *
 * HOW: loop (close() on every number up to the descriptor limit), range
 * (close_range(3, ~0U, 0)), from (closefrom(3)), raw (the close_range
 * system call through syscall(2), which the agent does not see), rawnopath
 * (raw, and SPOOL_SHM_PATH removed from the environment: nothing can bring
 * the descriptor back), none (exec without closing anything).
 * closeexec_step() runs once per image, before the closing: a probe on it
 * counts the images that were probed.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

static pthread_mutex_t before_exec_lock = PTHREAD_MUTEX_INITIALIZER;

__attribute__((noinline)) int closeexec_step(const char *how)
{
	__asm__ volatile("" ::: "memory");
	return how[0];
}

int main(int argc, char **argv)
{
	struct rlimit rl;

	if (argc < 3) {
		fprintf(stderr, "usage: closeexec HOW PROGRAM [ARGS...]\n");
		return 2;
	}
	closeexec_step(argv[1]);
	pthread_mutex_lock(&before_exec_lock);
	pthread_mutex_unlock(&before_exec_lock);
	if (!strcmp(argv[1], "loop")) {
		if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur > 1 << 20)
			rl.rlim_cur = 1 << 20;
		for (long fd = 3; fd < (long)rl.rlim_cur; fd++)
			close((int)fd);
	} else if (!strcmp(argv[1], "range")) {
		close_range(3, ~0U, 0);
	} else if (!strcmp(argv[1], "from")) {
		closefrom(3);
	} else if (!strcmp(argv[1], "raw") || !strcmp(argv[1], "rawnopath")) {
		syscall(SYS_close_range, 3, ~0U, 0);
		if (!strcmp(argv[1], "rawnopath"))
			unsetenv("SPOOL_SHM_PATH");
	} else if (strcmp(argv[1], "none")) {
		fprintf(stderr, "closeexec: unknown HOW '%s'\n", argv[1]);
		return 2;
	}
	execv(argv[2], argv + 2);
	perror("closeexec: execv");
	return 127;
}
