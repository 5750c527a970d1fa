#!/bin/bash
# SPDX-License-Identifier: MIT
# 242-probe-errno-fork.t - a probe on __errno_location (func:libc.so.6:*
# places one) while a thread registers with the agent: registering read
# errno before marking the thread busy, so the probe's handler registered
# it again, and again, until the stack overflowed. A fork child registers
# in the agent's atfork handler: it died of SIGSEGV before its exec. Also
# new threads (their first event). The program's child and threads must
# run as without spool.
. "$(dirname "$0")/lib.sh"

plan 7

CC="${CC:-cc}"
cat >fk.c <<'C'
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static void *th(void *arg)
{
	close(-1); /* errno = EBADF, through __errno_location */
	*(int *)arg = errno == EBADF;
	return NULL;
}

int main(void)
{
	pthread_t t;
	int st, ok = 0;
	pid_t p = fork();

	if (p == 0) {
		close(-1);
		_exit(errno == EBADF ? 3 : 4);
	}
	waitpid(p, &st, 0);
	pthread_create(&t, NULL, th, &ok);
	pthread_join(t, NULL);
	printf("child exit %d signal %d thread %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1,
	       WIFSIGNALED(st) ? WTERMSIG(st) : 0, ok);
	return 0;
}
C
ok "the test program builds" "$CC" -O1 -pthread -o fk fk.c
native="$(./fk)"
is "$native" "child exit 3 signal 0 thread 1" "without spool: the child exits 3, the thread sees EBADF"

spool_run probe -e 'func:libc.so.6:__errno_location' -- ./fk
is "$RC:$OUT" "0:$native" "__errno_location probed: the fork child and the thread run as without spool"
spool_run report --functions --json spool.trace
calls="$(json run.out '[f["calls"] for f in d["functions"] if f["name"] == "__errno_location"][0]')"
num_cmp "${calls:-0}" -ge 2 "  the child's and the thread's calls are recorded ($calls)"

spool_run probe -q -e 'func:libc.so.6:*' -- ./fk
# (libc's own fork code in the child before the agent's fork handler: the
# child starts over on its first event there, and they are kept: 306)
is "$RC:$OUT" "0:$native" "every libc function probed: the same output, exit 0"
like "$ERR" "probes placed, 0 events lost" "  nothing lost, the fork child's before its handler included"
unlike "$ERR" "Segmentation|signal 11" "  no crash reported"

done_testing
