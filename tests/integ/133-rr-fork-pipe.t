#!/bin/bash
# SPDX-License-Identifier: MIT
# 133-rr-fork-pipe.t - a program that forks is recorded as a tree (issue
# 13): rr_forkpipe's parent and its children each have their own recording
# in the trace, and the replay runs every process from its own: the
# children's clocks, random bytes and pids, the parent's read of the pipe
# and its waitpid statuses all come back as recorded, in serial and in sync
# mode, 3 replays each. Before, the child was not recorded and the replay
# was refused ("the program forked").
. "$(dirname "$0")/lib.sh"

plan 13

FP="$PROGS/rr_forkpipe"

for mode in serial sync; do
	spool_run record --mode "$mode" -o "$mode.trace" -- "$FP" 3
	is_rc 0 "$mode: record of a program that forks 3 children exits 0"
	cp run.out "$mode.out"
	unlike "$ERR" "forked|refuses|lost" "  spool says nothing is missing"
	like "$ERR" "recorded .*4 processes" "  and that it recorded 4 processes"
	replays_same 3 0 "$mode.out" -q "$mode.trace"
	is "$SAME" 3 "$mode: 3 replays of 3 print the recorded output (pids, times, pipe, statuses)"
done

spool_run info serial.trace
like "$OUT" "recording: 4 processes" "spool info lists the processes of the recording"
is "$(grep -cE '^[0-9]+ +[0-9]+ +[0-9]+ +0 +fork ' run.out)" 3 "  the 3 children, each a fork of process 0"

# More processes than a recording holds (256): the ones past it run
# unrecorded, record says so and exits 4, and the replay refuses it.
spool_run record -q -o many.trace -- sh -c 'for i in $(seq 1 140); do /bin/true; done'
is_rc 4 "record of 283 processes (140 forks and execs) exits 4 (incomplete)"
like "$ERR" "more processes than spool record can record \([0-9]+, at most 256\)" "  saying how many were not recorded"
spool_run replay -q many.trace
like "$ERR" "ran unrecorded.*cannot be replayed" "  and the replay refuses it with the reason"

done_testing
