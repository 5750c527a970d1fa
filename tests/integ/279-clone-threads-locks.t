#!/bin/bash
# SPDX-License-Identifier: MIT
# 279-clone-threads-locks.t - spool locks and spool record on a program
# whose threads are made with glibc's clone() and (x86-64) with its own
# clone system call, none with a TLS of its own: they run on their
# creator's, where spool keeps its thread state (tests/progs/clone_locks).
# Before, their lock events went into their creator's ring, one ring with
# two producers, and libc's clone() was not even counted. Now spool keeps
# them out of it: each of their events is counted lost, "in threads made
# by the program's own clone", the same in the run's line, spool info and
# spool report; the program's own thread (a pthread) is recorded whole;
# spool says what it does not cover. spool record says it does not number
# them. The program's output and status are never changed.
. "$(dirname "$0")/lib.sh"

PROG="$CL_PROG"
ROUNDS=10
CALLS=$CL_CALLS
plan 14

clone_locks_native $ROUNDS
num_cmp "${made:-0}" -gt 0 "  it made $made clone threads"


# spool locks: every lock and unlock of the clone threads is dropped and
# counted (the first clone() makes the creator's state shared, so the raw
# one is kept out too, seen or not); the pthread's are all recorded
"$SPOOL" locks -o l.trace -- "$PROG" $ROUNDS >l.out 2>l.err
RC=$?
check_sanitizer l.err "spool locks"
ERR=$(cat l.err)
is "$RC $(echo $(cat l.out))" "4 $native" "spool locks: the program's output; exit 4 (events lost, said)" ||
	diag "$ERR"
want=$((made * CALLS * 2))
tot=$(lost_total l.err)
like "$ERR" "l\\.trace is incomplete: $want events lost \\($want in threads made by the program's own clone\\)" \
	"  $want events lost, all in threads made by the program's own clone"
like "$ERR" "[0-9,]+ lock events, [0-9,]+ thread events, $(thousands "$want") lost" \
	"  the summary line says the same number"
like "$ERR" "the program made [0-9]+ threads? with its own clone system call .*not recorded \\(counted as lost\\)" \
	"  spool says what it does not cover for them"
unlike "$ERR" "damaged" "  no ring damaged"
clone_locks_lost l.trace "$tot" $ROUNDS
spool_run info l.trace
like "$OUT" "$tot events lost \\($tot in threads made by the program's own clone\\)" \
	"  spool info: the same words"

# spool record: the program runs as natively; spool says what it does not
# number, and that spool replay refuses the recording (exit 5: tests/integ/298)
"$SPOOL" record -o r.trace -- "$PROG" $ROUNDS >r.out 2>r.err
RC=$?
check_sanitizer r.err "spool record"
is "$RC $(echo $(cat r.out))" "5 $native" "spool record: the program's output; exit 5 (replay refused)" ||
	diag "$(cat r.err)"
like "$(cat r.err)" "the program made [0-9]+ threads? with its own clone system call" \
	"  it says how many clone threads it saw"
like "$(cat r.err)" "spool record does not number the threads the program made with its own clone.*spool replay refuses this recording" \
	"  and that spool replay refuses a recording of them"

done_testing
