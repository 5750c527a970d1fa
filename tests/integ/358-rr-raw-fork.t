#!/bin/bash
# SPDX-License-Identifier: MIT
# 358-rr-raw-fork.t - under spool record and spool replay, a fork no fork
# handler runs in: syscall(SYS_fork), syscall(SYS_clone, SIGCHLD, 0...),
# clone3 through syscall(), glibc's _Fork and the program's own syscall
# instruction making SYS_fork (seen by syscall user dispatch: before, it
# ran glibc's fork, whose fork handlers, the program's too, do not run
# without spool; and spool said the fork "ran unrecorded"). None runs the
# program's pthread_atfork child handler, as without spool. Each child gets its own
# number in the recording's process tree, its own ring and its own
# recording, as a glibc fork child does (328): its lock events are its
# own, and its replay returns what it recorded (here its getpid, which the
# parent's fork returned too). Before, the child ran on its parent's state:
# its events went into the parent's ring and recording (serial mode: the
# parent's ring "damaged by the program", the recording incomplete, exit
# 4; sync mode: 1 process recorded, the child's events gone uncounted) and
# a replay diverged at the parent's wait. Serial and sync mode, with lock
# events written, each recorded once and replayed twice.
. "$(dirname "$0")/lib.sh"

need_cc
plan 50

cat >rf.c <<'C'
#define _GNU_SOURCE
#include <errno.h>
#include <linux/sched.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

pid_t _Fork(void);

static pthread_mutex_t cm = PTHREAD_MUTEX_INITIALIZER;
static int handlers;

static void child_handler(void)
{
	handlers++;
}

static long make(const char *kind)
{
	if (!strcmp(kind, "asmfork")) {
#if defined(__x86_64__)
		long r;

		__asm__ volatile("syscall" : "=a"(r) : "a"((long)SYS_fork) : "rcx", "r11", "memory");
		if (r < 0) {
			errno = (int)-r;
			return -1;
		}
		return r;
#else
		return syscall(SYS_clone, (long)SIGCHLD, 0L, 0L, 0L, 0L);
#endif
	}
	if (!strcmp(kind, "sysfork")) {
#ifdef SYS_fork
		return syscall(SYS_fork);
#else
		return syscall(SYS_clone, (long)SIGCHLD, 0L, 0L, 0L, 0L);
#endif
	}
	if (!strcmp(kind, "sysclone"))
		return syscall(SYS_clone, (long)SIGCHLD, 0L, 0L, 0L, 0L);
	if (!strcmp(kind, "clone3")) {
		struct clone_args ca;

		memset(&ca, 0, sizeof(ca));
		ca.exit_signal = SIGCHLD;
		return syscall(SYS_clone3, &ca, sizeof(ca));
	}
	return _Fork();
}

/* rf KIND N: N children made by KIND, one after the other; each takes a
 * mutex and says its pid, the parent what its fork returned */
int main(int argc, char **argv)
{
	int n = atoi(argv[2]), bad = 0, st;
	char buf[128];

	pthread_atfork(NULL, NULL, child_handler);
	for (int i = 0; i < n; i++) {
		long p = make(argv[1]);

		if (p == 0) {
			pthread_mutex_lock(&cm);
			pthread_mutex_unlock(&cm);
			write(1, buf, (size_t)snprintf(buf, sizeof(buf), "child %d pid %d handlers %d\n", i,
						       (int)getpid(), handlers));
			_exit(3);
		}
		if (p < 0) {
			perror("fork");
			return 1;
		}
		if (waitpid((pid_t)p, &st, 0) != p || !WIFEXITED(st) || WEXITSTATUS(st) != 3)
			bad++;
		write(1, buf, (size_t)snprintf(buf, sizeof(buf), "forked %d pid %ld\n", i, p));
	}
	write(1, buf, (size_t)snprintf(buf, sizeof(buf), "children %d bad %d\n", n, bad));
	return 0;
}
C
if ! "$CC" -O1 -pthread -o rf rf.c; then
	echo "Bail out! cannot build the test program"
	exit 1
fi
pass "the test program builds"
N=3
native="$(./rf asmfork $N)"
is "$(tail -n 1 <<<"$native"):$(grep -c 'handlers 0$' <<<"$native")" "children $N bad 0:$N" \
	"without spool: $N children made by a syscall instruction, no fork handler ran in them"

# pids_match FILE: every child's own pid is what its parent's fork returned
pids_match() {
	local i
	for ((i = 0; i < N; i++)); do
		c="$(sed -n "s/^child $i pid \([0-9]*\) handlers 0\$/\1/p" "$1")"
		f="$(sed -n "s/^forked $i pid //p" "$1")"
		[ -n "$c" ] && [ "$c" = "$f" ] || return 1
	done
}

for mode in serial sync; do
	for kind in sysfork sysclone clone3 _Fork asmfork; do
		# (serial: every kind; sync: three of them, the test's time)
		[ $mode = sync ] && { [ $kind = sysfork ] || [ $kind = clone3 ]; } && continue
		t=$mode.$kind
		spool_run record --mode $mode --lock-events -o $t.trace -- ./rf $kind $N
		printf '%s\n' "$OUT" >$t.rec.out
		is "$RC:$(tail -n 1 $t.rec.out)" "0:children $N bad 0" \
			"record --mode $mode, $kind: the program ran, exit 0"
		unlike "$ERR" "[1-9][0-9,]* events lost|lost [1-9]|damaged|incomplete|refus|ran unrecorded" \
			"  nothing lost, nothing damaged, nothing refused, nothing unrecorded"
		like "$ERR" "recorded .*$((N + 1)) processes" "  $((N + 1)) processes recorded"
		# each child's mutex: 1 acquisition in each child's own process
		"$SPOOL" report --locks --json $t.trace >lk.json 2>lk.err
		check_sanitizer lk.err "spool report --locks"
		is "$(json lk.json "' '.join(str(l['write']['acquisitions']) for l in d['$J_LOCKS'] if l['$J_NAME'] == 'cm')")" \
			"$(for i in $(seq $N); do printf '1 '; done | sed 's/ $//')" \
			"  the child's mutex: 1 acquisition in each of the $N children"
		replays_same 2 0 $t.rec.out -q $t.trace
		is "$SAME" 2 "  2 replays print the recorded output (the children's pids too) and exit 0"
		if pids_match $t.rec.out; then
			pass "  each child's getpid is its fork's result, no fork handler ran in it"
		else
			fail "  each child's getpid is its fork's result, no fork handler ran in it"
			diag "$(cat $t.rec.out)"
		fi
	done
done

done_testing
