#!/bin/bash
# SPDX-License-Identifier: MIT
# 319-rr-sevthread.t - SIGEV_THREAD timers record and replay in sync mode
# (doc/record.md "SIGEV_THREAD timers"): tests/progs/rr_sevthread's two
# periodic timers run their function in a thread of glibc's own making,
# which spool did not number ("a thread spool could not number made
# recorded calls"; every sync replay diverged at main's first wait). The
# agent now runs each timer's function in a notifier thread it numbers,
# woken through a recorded sigwaitinfo: each replay prints the recorded
# log, whose order depends on when each timer fired, and spool warns of
# nothing. Serial mode keeps glibc's way (a numbered notifier would wait
# for the run token while a thread computes without a switch point: vim's
# search timeout, tests/real/137), and a serial recording of rr_sevthread,
# whose functions take a lock, is refused: 394.
. "$(dirname "$0")/lib.sh"

plan 6

P="$PROGS/rr_sevthread"

for m in sync; do
	spool_run record -q --mode "$m" -o "$m.trace" -- "$P" 20
	is_rc 0 "$m record: the program's status"
	cp run.out "$m.rec.out"
	like "$OUT" '^ticks 1' "$m: the timers fired while recording"
	unlike "$ERR" 'could not number' "$m: every thread that made calls is numbered"
	"$SPOOL" replay --dump-schedule "$m.trace" >dump.txt 2>/dev/null
	# the notifiers are threads 3 and 4 (after the two workers): their
	# sigwaitinfo calls (call 23) are recorded
	ok "$m: the notifier threads' waits are in the recording" \
		grep -Eq 'input thread [34] event [0-9]+ call 23 ' dump.txt
	replays_same 2 0 "$m.rec.out" -q -o rep.trace "$m.trace"
	is "$SAME" 2 "$m: 2 replays of 2 print the recorded log"
	unlike "$ERR" 'could not number|may not be exact' "$m: the replay warns of nothing"
done

done_testing
