#!/bin/bash
# SPDX-License-Identifier: MIT
# 353-rr-timer-overrun.t - timer_getoverrun is an input of record/replay
# (RR_CALL_TIMER_OVERRUN, doc/record.md "SIGEV_THREAD timers"): the kernel
# counts the expiries of the replay's own timer, whose signals the replay
# drops or drains, and a replayed nanosleep does not wait. rr_overrun lets
# a 1 ms timer expire into a blocked SIGUSR1 for 60 ms, accepts the signal
# and prints the overrun count: each replay, serial and sync, prints the
# recorded count and exits 0 (before: overrun 0, exit 3, a divergence).
. "$(dirname "$0")/lib.sh"

plan 5

P="$PROGS/rr_overrun"

"$P" >native.out 2>&1
like "$(cat native.out)" '^signal 10 code timer overrun [1-9][0-9]*$' "without spool: the timer's overrun count is not 0"
for mode in serial sync; do
	spool_run record -q --mode "$mode" -o "$mode.trace" -- "$P"
	cp run.out "$mode.rec"
	ok "$mode: recorded, exit 0, an overrun count" \
		bash -c "[ $RC = 0 ] && grep -Eq 'overrun [1-9][0-9]*$' $mode.rec" || show_run
	replays_same 3 0 "$mode.rec" -q -o "$mode.r.trace" "$mode.trace"
	is "$SAME" 3 "$mode: 3 replays of 3 print the recorded count ($(sed 's/.*overrun //' "$mode.rec")) and exit 0"
done
done_testing
