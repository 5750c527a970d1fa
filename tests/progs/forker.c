// SPDX-License-Identifier: MIT
/*
 * forker - lock events in a parent and in its fork child (or in a program the
 * child execs), all of which must land in the same trace.
 *
 *   forker [PAIRS]            parent: PAIRS pairs on fork_lock, then fork;
 *                             child: 2*PAIRS pairs on fork_lock, exit 0;
 *                             parent: waits, then PAIRS more pairs.
 *   forker exec PATH ARGS...  parent: 1000 pairs on fork_lock, fork, the
 *                             child execv(PATH, [PATH, ARGS...]); parent
 *                             waits and exits with the child's status.
 *
 * Known (default mode): parent 2*PAIRS acquisitions, child 2*PAIRS, so 4*PAIRS
 * acquisitions of fork_lock in all. Prints "parent=<n> child=<m>" (from the
 * parent, after the child has exited). The exec mode prints "parent=1000"
 * after the exec'd program's own output.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static pthread_mutex_t fork_lock = PTHREAD_MUTEX_INITIALIZER;

static void pairs(long n)
{
	long i;

	for (i = 0; i < n; i++) {
		pthread_mutex_lock(&fork_lock);
		pthread_mutex_unlock(&fork_lock);
	}
}

static int wait_child(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) < 0)
		return 1;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return 128 + WTERMSIG(st);
}

int main(int argc, char **argv)
{
	long n = 1000;
	pid_t pid;
	int st;

	if (argc >= 3 && strcmp(argv[1], "exec") == 0) {
		pairs(n);
		fflush(stdout);
		pid = fork();
		if (pid < 0)
			return 1;
		if (pid == 0) {
			execv(argv[2], argv + 2);
			perror("forker: execv");
			_exit(127);
		}
		st = wait_child(pid);
		printf("parent=%ld\n", n);
		return st;
	}
	if (argc > 1)
		n = atol(argv[1]);
	pairs(n);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		pairs(2 * n);
		_exit(0);
	}
	st = wait_child(pid);
	pairs(n);
	printf("parent=%ld child=%ld\n", 2 * n, 2 * n);
	return st;
}
