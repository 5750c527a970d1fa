#!/bin/bash
# SPDX-License-Identifier: MIT
# 273-fork-window-lost.t - a program forks in a loop while two threads
# take a lock. A fork child had no ring of its own until the agent's fork
# handler gave it one, and what it did before (libc's own fork code:
# __run_postfork_handlers' entry) was counted lost; now the child starts
# over on that first event and it is kept (306). A child of _Fork, or
# of a fork made through syscall(SYS_clone), runs no fork handler at all:
# it used to write into its parent's ring (the same shared memory), then
# its events were counted lost; now the agent gives it rings of its own
# as it returns from the call, and its events are kept (289). Nothing is
# dropped, and the run, spool info, spool report and spool locks say
# nothing missing.
. "$(dirname "$0")/lib.sh"

need_cc
plan 23

cat >ff.c <<'C'
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static volatile int stop;
static long taken[2];

__attribute__((noinline)) void step(int *n)
{
	__asm__ volatile("" ::: "memory");
	++*n;
}

static void *locker(void *a)
{
	long *k = a;

	while (!stop) {
		pthread_mutex_lock(&m);
		++*k;
		pthread_mutex_unlock(&m);
		if (!(*k % 64))
			usleep(100); /* (no flood: full rings are not this test's) */
	}
	return NULL;
}

extern pid_t _Fork(void);

/* ff FORKS RAW: FORKS children by fork(), RAW by _Fork() and RAW by
 * syscall(SYS_clone); each calls step 3 times and takes a lock of its own */
int main(int argc, char **argv)
{
	int forks = atoi(argv[1]), raw = atoi(argv[2]);
	int n = 0, bad = 0, st;
	pthread_t th[2];

	for (int i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, locker, &taken[i]);
	for (int i = 0; i < forks + 2 * raw; i++) {
		pid_t p = i < forks	  ? fork()
			  : i < forks + raw ? _Fork()
					    : (pid_t)syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);
		if (p == 0) {
			static pthread_mutex_t cm = PTHREAD_MUTEX_INITIALIZER;
			int c = 0;

			for (int j = 0; j < 3; j++)
				step(&c);
			pthread_mutex_lock(&cm);
			pthread_mutex_unlock(&cm);
			_exit(c == 3 ? 0 : 1);
		}
		waitpid(p, &st, 0);
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			bad++;
		step(&n);
	}
	stop = 1;
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	printf("children %d bad %d parent steps %d locks %s\n", forks + 2 * raw, bad, n,
	       taken[0] + taken[1] > 0 ? "taken" : "none");
	return 0;
}
C
ok "the test program builds" "$CC" -O1 -pthread -o ff ff.c
FORKS=30 RAW=5
native="$(./ff $FORKS $RAW)"
is "$native" "children 40 bad 0 parent steps 40 locks taken" "without spool: 40 children, all fine"

# libc's fork code in each fork() child (the entry of
# __run_postfork_handlers, before the agent's handler) is kept now, in the
# child's own thread (306): nothing is lost, and nothing is said missing.
spool_run probe -q -e 'func:step' -e 'func:libc.so.6:__run_postfork_handlers' -o p.trace -- ./ff $FORKS $RAW
is "$RC:$OUT" "0:$native" "spool probe: the program's output; exit 0 (nothing lost)"
like "$ERR" "probes placed, 0 events lost" "  the run says 0 events lost"
unlike "$ERR" "incomplete|in fork children" "  nothing said missing"
unlike "$ERR" "damaged" "  no ring is damaged"
spool_run info p.trace
is_rc 0 "  spool info: complete"
unlike "$OUT" "missing" "  spool info: nothing missing"
"$SPOOL" report --functions --json p.trace >fn.json 2>fn.err
check_sanitizer fn.err "spool report --functions"
is "$(json fn.json "d[\"$J_TOTALS\"][\"lost\"]")" 0 "  spool report --functions --json: lost 0"
step='[f for f in d["functions"] if f["name"] == "step"][0]'
is "$(json fn.json "$step[\"calls\"]")" $((FORKS + 2 * RAW + 3 * (FORKS + 2 * RAW))) \
	"  every step call is there: the parent's and every child's"
is "$(json fn.json "len($step[\"threads\"])")" $((1 + FORKS + 2 * RAW)) \
	"  in the parent's thread and one thread per child, raw ones too"
rph='[f for f in d["functions"] if f["name"] == "__run_postfork_handlers"][0]'
is "$(json fn.json "$rph[\"calls\"]")" $((2 * FORKS)) \
	"  __run_postfork_handlers: the parent's $FORKS and each fork child's"
"$SPOOL" report --locks --json p.trace >lk.json 2>lk.err
check_sanitizer lk.err "spool report --locks"
is "$(json lk.json "d[\"$J_TOTALS\"][\"lost\"]")" 0 "  spool report --locks --json: lost 0"

# spool locks: nothing is lost, the raw children's locks included.
"$SPOOL" locks -o l.trace -- ./ff $FORKS $RAW >l.out 2>l.err
RC=$?
check_sanitizer l.err "spool locks"
is "$RC:$(cat l.out)" "0:$native" "spool locks: the program's output, exit 0"
like "$(cat l.err)" "[0-9,]+ lock events, [0-9,]+ thread events, 0 lost" "  spool locks says 0 lost"
unlike "$(cat l.err)" "missing|incomplete" "  nothing is said missing"
spool_run info l.trace
is_rc 0 "  spool info: complete"
"$SPOOL" report --locks --json l.trace >l.json 2>l2.err
is "$(json l.json "sum(l[\"write\"][\"acquisitions\"] for l in d[\"$J_LOCKS\"] if l[\"$J_NAME\"].startswith(\"cm\"))")" \
	"$((FORKS + 2 * RAW))" "  each child's own lock, raw children's too: one acquisition per child"

# Nothing dropped: fork() children only, no probe in libc's fork code.
"$SPOOL" locks -o z.trace -- ./ff $FORKS 0 >z.out 2>z.err
RC=$?
check_sanitizer z.err "spool locks"
is "$RC" 0 "fork() children only: spool locks exits 0"
like "$(cat z.err)" "[0-9,]+ lock events, [0-9,]+ thread events, 0 lost" "  spool locks: 0 lost"
unlike "$(cat z.err)" "missing|incomplete" "  nothing is said missing"
spool_run info z.trace
is_rc 0 "  spool info: complete"
"$SPOOL" report --locks --json z.trace >z.json 2>z2.err
is "$(json z.json "sum(l[\"write\"][\"acquisitions\"] for l in d[\"$J_LOCKS\"] if l[\"$J_NAME\"].startswith(\"cm\"))")" \
	"$FORKS" "  each child's own lock: $FORKS acquisitions in all, one per child"

done_testing
