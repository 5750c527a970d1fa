#!/bin/bash
# SPDX-License-Identifier: MIT
# 359-rr-pidns.t - spool record and spool replay of processes in a pid
# namespace of their own (329 traces them): children made with
# CLONE_NEWPID (clone3 through syscall()) or forked after
# unshare(CLONE_NEWPID), each pid 1 there, with a thread and a grandchild
# (pid 3 there). The recording's process tree holds the pids spool sees
# (a process's pid in its namespace is kept beside it: the record side
# file's proc_ns_pid), so a replay's processes find each other: the
# parent inside the namespace waits for its grandchild's replay to end
# (its recorded wait says pid 3), the first process for every other's.
# Before, the tree held the namespace's own pids: a replay waited for "pid
# 1" (init) for ever, or its pid 1 ended first and took its grandchild's
# replay with it ("ended before thread 0 replayed its recorded events"),
# and a process in the namespace took spool for gone (kill of its pid said
# ESRCH there). Serial and sync mode, each recorded once and replayed
# twice. Needs CAP_SYS_ADMIN (a skip without it).
. "$(dirname "$0")/lib.sh"

need_cc
plan 34

c_pidns_prog >ns.c
cat >sp.c <<'C'
#define _GNU_SOURCE
#include <linux/sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* sp: a child, pid 1 of a pid namespace of its own, posix_spawns echo
 * there and waits for it */
int main(void)
{
	struct clone_args ca;
	pid_t p;
	int st;

	memset(&ca, 0, sizeof(ca));
	ca.flags = CLONE_NEWPID;
	ca.exit_signal = SIGCHLD;
	p = (pid_t)syscall(SYS_clone3, &ca, sizeof(ca));
	if (p == 0) {
		char *av[] = {"echo", "spawned in the namespace", NULL};
		pid_t c;

		if (posix_spawn(&c, "/bin/echo", NULL, NULL, av, environ) ||
		    waitpid(c, &st, 0) != c || !WIFEXITED(st) || WEXITSTATUS(st))
			_exit(1);
		printf("child %d waited for %d\n", (int)getpid(), (int)c);
		fflush(stdout);
		_exit(0);
	}
	if (p < 0 || waitpid(p, &st, 0) != p || !WIFEXITED(st))
		return 2;
	printf("parent: child exit %d\n", WEXITSTATUS(st));
	return 0;
}
C
ok "the test programs build" "$CC" -O1 -pthread -o ns ns.c
"$CC" -O1 -o sp sp.c || { echo "Bail out! cannot build sp.c"; exit 1; }
if ! native="$(./ns clone3 2 2>&1)" || [ "$native" != "clone3 children 2 bad 0 parent steps 2" ]; then
	skip 33 "no pid namespace here ($native)"
	done_testing
	exit 0
fi
pass "without spool: 2 children, each pid 1 of its namespace, its thread and grandchild fine"

for mode in serial sync; do
	for how in "clone3 2" unshare; do
		t="$mode.${how%% *}"
		case $how in clone3*) np=5 ;; *) np=3 ;; esac
		# shellcheck disable=SC2086 # (how: the program's arguments)
		spool_run record --mode $mode -o $t.trace -- ./ns $how
		printf '%s\n' "$OUT" >$t.rec.out
		like "$RC:$OUT" "^0:${how%% *} children [12] bad 0 parent steps [12]\$" \
			"record --mode $mode, ns $how: the program ran, exit 0"
		unlike "$ERR" "[1-9][0-9,]* events lost|incomplete|damaged|refus|spool is gone" \
			"  nothing lost, spool not taken for gone"
		like "$ERR" "recorded .*$np processes" "  $np processes recorded"
		# the tree under spool's pids: none is 1 or 3 (the namespaces' own)
		spool_run info $t.trace
		is "$(awk '$1 ~ /^[0-9]+$/ && $5 ~ /^(first|fork)$/ && ($2 <= 3 || $3 <= 3) {n++} END {print n + 0}' run.out)" 0 \
			"  spool info: the process tree under the pids spool sees"
		replays_same 2 0 $t.rec.out -q $t.trace
		is "$SAME" 2 "  2 replays print the recorded output and exit 0"
		unlike "$ERR" "spool is gone|still running" "  the last replay: spool not taken for gone, nothing left running"
	done
	# posix_spawn inside the namespace: the image finds its entry by the
	# pid its parent stored (the namespace's), and its parent's replay
	# waits for its replay as a wait for a child outside one does
	spool_run record --mode $mode -o $mode.sp.trace -- ./sp
	printf '%s\n' "$OUT" >$mode.sp.rec.out
	is "$RC:$(tail -n 1 $mode.sp.rec.out)" "0:parent: child exit 0" \
		"record --mode $mode, posix_spawn in the namespace: exit 0"
	like "$ERR" "recorded .*3 processes" "  3 processes recorded, the spawned echo too"
	# (the side file: process 2, parent 1, kind 4: its parent's posix_spawn
	# numbered it; before, its pid there was not found, and it was taken for
	# a spawn of glibc's own after a 5 s wait)
	is "$(grep -c '^proc=2 [0-9]* [0-9]* 1 -1 4 ' $mode.sp.trace/.spool/record)" 1 \
		"  the echo numbered by its parent's posix_spawn"
	replays_same 2 0 $mode.sp.rec.out -q $mode.sp.trace
	is "$SAME" 2 "  2 replays print the recorded output and exit 0"
done

done_testing
