#!/bin/bash
# SPDX-License-Identifier: MIT
# 306-fork-window-kept.t - what libc's own fork code runs in a fork child
# before the agent's fork handler (__malloc_fork_unlock_child,
# __run_postfork_handlers' entry: probed with func:libc.so.6:...) is kept
# in the child's own thread: the child starts over on that first event
# (a process slot and a ring of its own, async-signal-safe), and its fork
# handler then finds it done. Before, each such event was counted lost
# ("in fork children before their ring") and the run exited 4. Both ring
# layouts, and exits hooked by jumps or int3 (--exits patch).
. "$(dirname "$0")/lib.sh"

need_cc
plan 24

cat >fw.c <<'C'
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static volatile int stop;
static long taken;

__attribute__((noinline)) void step(int *n)
{
	__asm__ volatile("" ::: "memory");
	++*n;
}

/* a second thread: libc's fork takes its multi-threaded path (malloc's
 * fork locks, unlocked in the child before the fork handlers) */
static void *locker(void *a)
{
	(void)a;
	while (!stop) {
		pthread_mutex_lock(&m);
		++taken;
		pthread_mutex_unlock(&m);
		usleep(200);
	}
	return NULL;
}

/* fw N: N fork children, each calls step 3 times */
int main(int argc, char **argv)
{
	int n = atoi(argv[1]), st, bad = 0, s = 0;
	pthread_t th;

	pthread_create(&th, NULL, locker, NULL);
	for (int i = 0; i < n; i++) {
		pid_t p = fork();

		if (p == 0) {
			int c = 0;

			for (int j = 0; j < 3; j++)
				step(&c);
			_exit(c == 3 ? 0 : 1);
		}
		waitpid(p, &st, 0);
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			bad++;
		step(&s);
	}
	stop = 1;
	pthread_join(th, NULL);
	printf("children %d bad %d steps %d\n", n, bad, s);
	return 0;
}
C
ok "the test program builds" "$CC" -O1 -pthread -o fw fw.c
N=8
native="$(./fw $N)"
is "$native" "children $N bad 0 steps $N" "without spool: $N children, all fine"

# f NAME: "calls per-thread-calls..." of function NAME in fn.json
f() {
	json fn.json "' '.join(str(x) for x in [f['calls']] + sorted(t['calls'] for t in f['threads'])) if (f := [f for f in d['functions'] if f['name'] == '$1']) and (f := f[0]) else 'none'"
}
ones="$(for i in $(seq $N); do printf ' 1'; done)"
for exits in auto patch; do
	for pk in 0 1; do
		SPOOL_RING_PACKETS=$pk spool_run probe -q --exits $exits -e 'func:step' \
			-e 'func:libc.so.6:__malloc_fork_unlock_child' \
			-e 'func:libc.so.6:__run_postfork_handlers' -o p.trace -- ./fw $N
		is "$RC:$OUT" "0:$native" "--exits $exits, packets $pk: the program's output, exit 0"
		unlike "$ERR" "[1-9][0-9,]* events lost|incomplete|damaged" "  nothing lost, nothing damaged"
		"$SPOOL" report --functions --json p.trace >fn.json 2>fn.err
		check_sanitizer fn.err "spool report --functions"
		is "$(f __malloc_fork_unlock_child)" "$N$ones" \
			"  __malloc_fork_unlock_child (the child's, before its handler): $N calls, one in each child's thread"
		is "$(f __run_postfork_handlers)" "$((2 * N))$ones $N" \
			"  __run_postfork_handlers: one in each child's thread, $N in the parent's"
		is "$(f step)" "$((4 * N)) $(for i in $(seq $N); do printf '3 '; done)$N" \
			"  step: each child's 3 in the same thread as its fork code's calls"
	done
done
spool_run info p.trace
is_rc 0 "spool info: complete"
unlike "$OUT" "missing|fork children" "  nothing said missing"

done_testing
