// SPDX-License-Identifier: MIT
/*
 * forkmany - many processes, the way a shell script, make or a server that
 * forks per connection makes them: spool's process slots must be given
 * back as processes end, and the ones it cannot give are counted.
 *
 *   forkmany seq N [E]  forks N children one after another (each waited for
 *                       before the next); child i execs /bin/true if E > 0
 *                       and i % E == 0, else locks and unlocks child_lock
 *                       once and exits 0. Prints "children=N".
 *   forkmany wide N     forks N children that each lock child_lock once,
 *                       then all wait until every child has been forked (N
 *                       processes alive at once); then they exit. Prints
 *                       "children=N".
 *
 * Known: child_lock is acquired once by each child that does not exec (N -
 * ceil(N / E) times in seq mode, N in wide mode); every child exits 0 (the
 * parent exits 1 otherwise).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static pthread_mutex_t child_lock = PTHREAD_MUTEX_INITIALIZER;

static void child_work(void)
{
	pthread_mutex_lock(&child_lock);
	pthread_mutex_unlock(&child_lock);
}

static int reap(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
		return 1;
	return 0;
}

int main(int argc, char **argv)
{
	long n, every = 0, bad = 0;
	int wide, pfd[2];
	pid_t *pids;

	if (argc < 3 || (strcmp(argv[1], "seq") && strcmp(argv[1], "wide"))) {
		fprintf(stderr, "usage: forkmany seq N [EXEC_EVERY] | wide N\n");
		return 2;
	}
	wide = !strcmp(argv[1], "wide");
	n = atol(argv[2]);
	if (argc > 3)
		every = atol(argv[3]);
	pids = calloc((size_t)n + 1, sizeof(*pids));
	if (!pids || pipe(pfd) < 0)
		return 1;
	fflush(stdout);
	for (long i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0)
			return 1;
		if (pid == 0) {
			char c;

			if (!wide && every > 0 && i % every == 0) {
				execl("/bin/true", "true", (char *)NULL);
				_exit(127);
			}
			child_work();
			if (wide) {
				/* alive until the parent has forked every child */
				close(pfd[1]);
				while (read(pfd[0], &c, 1) > 0)
					;
				_exit(0);
			}
			_exit(0);
		}
		if (wide)
			pids[i] = pid;
		else
			bad += reap(pid);
	}
	close(pfd[1]);
	close(pfd[0]);
	for (long i = 0; wide && i < n; i++)
		bad += reap(pids[i]);
	free(pids);
	printf("children=%ld\n", n);
	return bad ? 1 : 0;
}
