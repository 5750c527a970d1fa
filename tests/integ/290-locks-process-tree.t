#!/bin/bash
# SPDX-License-Identifier: MIT
# 290-locks-process-tree.t - `spool locks -- sh -c '...'`: a shell that
# starts programs in the background, in a pipeline, in sequence, and a
# program that makes children by fork(), by glibc's clone() without
# CLONE_VM and by _Fork. Every process has its own rings: the report has
# every process's locks, each lock with its own process's count, and
# nothing is lost. Then the same tree with one process flooding 4 KiB rings
# that drop when full: its loss is counted (summary, spool info, report),
# the exit status is 4, and the other processes' locks are all there.
. "$(dirname "$0")/lib.sh"

need_cc
plan 14

cat >kids.c <<'C'
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

extern pid_t _Fork(void);

/* each child takes kid_lock K times, K = 10, 20, 30 by how it was made */
static int kid(void *a)
{
	static pthread_mutex_t kid_lock = PTHREAD_MUTEX_INITIALIZER;
	long k = (long)a;

	for (long i = 0; i < k; i++) {
		pthread_mutex_lock(&kid_lock);
		pthread_mutex_unlock(&kid_lock);
	}
	return 0;
}

int main(void)
{
	static char stack[1 << 16] __attribute__((aligned(16)));
	int st, bad = 0;
	pid_t p[3];

	if ((p[0] = fork()) == 0)
		_exit(kid((void *)10));
	p[1] = clone(kid, stack + sizeof(stack), SIGCHLD, (void *)20);
	if ((p[2] = _Fork()) == 0)
		_exit(kid((void *)30));
	for (int i = 0; i < 3; i++)
		if (waitpid(p[i], &st, 0) != p[i] || !WIFEXITED(st) || WEXITSTATUS(st))
			bad++;
	printf("kids bad %d\n", bad);
	return 0;
}
C
ok "the test program builds" "$CC" -O1 -pthread -o kids kids.c
LC="$PROGS/lockcount"
tree="$LC 2 1000 >a.out & $LC 3 500 | cat >b.out; ./kids >c.out; wait; cat a.out b.out c.out"
native="$(sh -c "$tree")"
is "$native" "$(printf 'total=2000\ntotal=1500\nkids bad 0')" "without spool: the tree's output"

# locks LOCK PID-COUNT: "acquisitions per process" of every lock named LOCK,
# sorted (one number per process that has one)
# (a function's static lock is named NAME.N)
locks() { json "$1" "sorted(l[\"write\"][\"acquisitions\"] for l in d[\"$J_LOCKS\"] if l[\"$J_NAME\"].split(\".\")[0] == \"$2\")" | tr '\n' ' '; }

spool_run locks -o t.trace -- sh -c "$tree"
is "$RC:$OUT" "0:$native" "spool locks -- sh -c: the tree's output, exit 0"
is "$(summary_lost)" 0 "  0 lost"
report_json t.trace
is "$(locks report.json shared_lock)" "1500 2000 " \
	"  shared_lock of each lockcount, in its own process: 2 x 1000 and 3 x 500"
is "$(locks report.json kid_lock)" "10 20 30 " \
	"  kid_lock of the fork(), clone() and _Fork children, each its own"
is "$(json report.json "len(set(l[\"pid\"] for l in d[\"$J_LOCKS\"] if l[\"$J_NAME\"].startswith(\"kid_lock\")))")" 3 \
	"  in 3 processes"
num_cmp "$(json report.json "len(set(t[\"pid\"] for t in d[\"threads\"]))")" -ge 7 \
	"  at least 7 processes (sh, 2 lockcount, cat, kids and its 3 children)"

# A flood in one process, rings of 4 KiB that drop when full.
ftree="$PROGS/flood 200000 >f.out & $LC 2 1000 >a.out; ./kids >c.out; wait; cat f.out a.out c.out"
fnative="$(sh -c "$ftree")"
spool_run locks -o f.trace --ring-size 4k --on-full drop -- sh -c "$ftree"
is "$RC:$OUT" "4:$fnative" "a flooding process with 4 KiB rings that drop: the tree's output, exit 4"
lost=$(summary_lost)
num_cmp "$lost" -gt 0 "  the summary says events lost ($lost)"
spool_run info f.trace
like "$OUT" "^lost: $lost events" "  spool info: the same number"
report_json f.trace
is "$(json report.json "d[\"$J_TOTALS\"][\"lost\"]")" "$lost" "  spool report: the same number"
num_cmp "$(add "$(json report.json "sum(l[\"events\"] for l in d[\"$J_LOCKS\"] if l[\"$J_NAME\"] == \"flood_lock\")")" "$lost")" \
	-ge 400000 "  the flood's recorded events and the lost ones account for its 400,000"
is "$(locks report.json kid_lock)" "10 20 30 " "  the children's kid_lock all there (their rings did not fill)"

done_testing
