#!/bin/bash
# SPDX-License-Identifier: MIT
# 134-rr-fork-exec.t - fork and exec (issue 13): forker's child execs a
# shell, which forks and execs date. Each image has its own recording: the
# forked child up to its exec, the shell it became, the shell's child and
# the date that child became. The replay runs the exec'd programs again
# (they are started for real, each replays from its own recording): the
# shell prints its recorded $$ and date's recorded time, and the parent
# exits with the status the shell exited with, 3 replays of 3, both modes.
. "$(dirname "$0")/lib.sh"

plan 13

for mode in serial sync; do
	spool_run record --mode "$mode" -o "$mode.trace" -- \
		"$PROGS/forker" exec /bin/sh -c 'echo shell $$ at $(date +%s.%N); exit 5'
	is_rc 5 "$mode: record exits with the exec'd shell's status (5)"
	cp run.out "$mode.out"
	like "$OUT" "shell [0-9]+ at [0-9]+" "  the shell printed its pid and date's time"
	replays_same 3 5 "$mode.out" -q "$mode.trace"
	is "$SAME" 3 "$mode: 3 replays of 3 exit 5 with the recorded pid and time"
done

spool_run info serial.trace
like "$OUT" "exec +/usr/bin/date|exec +/bin/date" "spool info lists date as an exec'd image"
is "$(grep -cE ' exec ' run.out)" 2 "  and 2 exec'd images (the shell, date)"
# The first process itself execs: the replay runs the command line spool
# ran (its proc/PID.cmdline is date's), and date replays from its own.
spool_run record -o ex.trace -- sh -c 'exec date +%s.%N'
cp run.out ex.out
replays_same 2 0 ex.out -q ex.trace
is "$SAME" 2 "a first process that execs replays 2 times of 2 with date's recorded time"
spool_run info ex.trace
like "$OUT" "recording: 2 processes" "  spool info: the shell and the date it became"

# A child its parent kills: its replay gets no signal (the kill is not
# sent again) and reaches the end of its log, where it ends as recorded,
# by the signal its parent's wait saw.
spool_run record -q -o kill.trace -- sh -c 'sleep 10 & sleep 0.2; kill $!; wait $!; echo status $?'
is "$OUT" "status 143" "record: the shell saw its child killed by SIGTERM"
cp run.out kill.out
replays_same 2 0 kill.out -q kill.trace
is "$SAME" 2 "  2 replays of 2: the child ends by SIGTERM at the end of its log, no divergence"

spool_run replay --pid 999999999 serial.trace
is_rc 1 "--pid of a process the recording does not have is refused"

done_testing
