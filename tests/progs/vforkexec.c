// SPDX-License-Identifier: MIT
/*
 * vforkexec.c - starts children the way dash, make and posix_spawn do: vfork
 * then exec, which runs no pthread_atfork handler. The agent must still see
 * each child as a child (113-vfork-children.t).
 *
 * usage: vforkexec N PROG   - N times: vfork, exec PROG, wait for it
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* One child; apart from main so no local of the loop lives across vfork. */
static int run_child(const char *prog)
{
	int st;
	pid_t pid;

	pthread_mutex_lock(&lock);
	pid = vfork();
	if (pid == 0) {
		execl(prog, prog, (char *)NULL);
		_exit(127);
	}
	pthread_mutex_unlock(&lock);
	return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && !WEXITSTATUS(st);
}

int main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[1]) : 1, done = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: vforkexec N PROG\n");
		return 2;
	}
	for (int i = 0; i < n; i++)
		done += run_child(argv[2]);
	printf("children=%d ok=%d\n", n, done);
	return done == n ? 0 : 1;
}
